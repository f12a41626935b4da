/*
 * diff_render.c - text, md and json renderings of a diff (diff_render.h).
 */
#include "diff_render.h"
#include "../core/path_suffix.h"
#include "../core/pyrepr.h"
#include "../core/replay.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MD_LIMIT 65000

void tg_diff_format_value(char *buf, size_t cap, tg_rule_metric m, double v)
{
	if (isnan(v)) {
		snprintf(buf, cap, "-");
		return;
	}
	switch (tg_rule_metric_unit(m)) {
	case TG_UNIT_TIME:
		if (fabs(v) >= 1e9)
			snprintf(buf, cap, "%.3f s", v / 1e9);
		else if (fabs(v) >= 1e6)
			snprintf(buf, cap, "%.3f ms", v / 1e6);
		else
			snprintf(buf, cap, "%.1f us", v / 1e3);
		break;
	case TG_UNIT_BYTES:
		if (fabs(v) >= 1073741824.0)
			snprintf(buf, cap, "%.2f GiB", v / 1073741824.0);
		else
			snprintf(buf, cap, "%.1f MiB", v / 1048576.0);
		break;
	case TG_UNIT_RATE:
		snprintf(buf, cap, "%.2f %s", v, m == TG_METRIC_TFLOPS ? "TFLOPS/s" : "TB/s");
		break;
	default:
		if (v == floor(v) && fabs(v) < 1e15)
			snprintf(buf, cap, "%.0f", v);
		else
			snprintf(buf, cap, "%.2f", v);
	}
}

static void format_pct(char *buf, size_t cap, double p)
{
	if (isnan(p))
		snprintf(buf, cap, "-");
	else if (isinf(p))
		snprintf(buf, cap, p > 0 ? "new" : "gone");
	else
		snprintf(buf, cap, "%+.1f %%", p);
}

static void format_ci(char *buf, size_t cap, const tg_judged *j)
{
	if (isnan(j->pct_lo))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%+.1f..%+.1f %%", j->pct_lo, j->pct_hi);
}

/* The item column of a result: its item, "(rank N)" for a rule's
 * per-rank item, "(total)" for the rule's own; buf of 48 bytes. */
static const char *item_label(char *buf, size_t cap, const tg_judged *x)
{
	if (x->item[0])
		return x->item;
	if (x->rank >= 0) {
		snprintf(buf, cap, "(rank %lld)", (long long)x->rank);
		return buf;
	}
	return "(total)";
}

/* Whether a rendering lists x among the rules' results: every rule's own
 * total, and the items of each rules and the per-rank items that do not
 * simply pass (the others are in the json; a count says how many). */
static int listed(const tg_judged *x)
{
	int each = x->rule->aggregate == TG_AGG_EACH;
	return !(each || x->rank >= 0) || x->verdict != TG_VERDICT_PASS || x->improved || x->accepted;
}

static const char *verdict_word(const tg_judged *j)
{
	if (j->accepted)
		return "accepted";
	if (j->verdict == TG_VERDICT_PASS && j->improved)
		return "improved";
	return tg_verdict_name(j->verdict);
}

static const char *icon(tg_verdict v)
{
	switch (v) {
	case TG_VERDICT_BLOCK: return "\xe2\x9d\x8c";        /* red cross */
	case TG_VERDICT_WARN: return "\xe2\x9a\xa0\xef\xb8\x8f"; /* warning sign */
	case TG_VERDICT_INCONCLUSIVE: return "\xe2\x9d\x94"; /* grey question mark */
	default: return "\xe2\x9c\x85";                      /* check mark */
	}
}

static size_t side_units(const tg_measure *m)
{
	size_t n;
	tg_measure_units(m, &n);
	return n;
}

/* One line on the between-run noise (docs/diff.md, Runs and noise): the
 * noise of each total rule that has one, and the runs; or, with one run a
 * side and nothing else known, what the intervals leave out. pm: "±" or
 * "+-". Empty when there is nothing sampled to say it of. */
static void noise_line(char *buf, size_t cap, const tg_judgement *j, const char *pm)
{
	size_t n, o = 0, with = 0, sampled = 0, rb = 0, rx = 0;
	double df = 0;
	const tg_judged *it = tg_judgement_items(j, &n);
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const tg_judged *x = &it[i];
		if (x->rule->aggregate != TG_AGG_TOTAL || x->rank >= 0 || x->sampling == TG_SAMPLING_EXACT ||
		    x->no_data || isnan(x->pct))
			continue; /* a rule's own item: its per-rank items have the rule's name */
		sampled++;
		if (x->nruns_base > rb)
			rb = x->nruns_base;
		if (x->nruns_new > rx)
			rx = x->nruns_new;
		/* a noise of no degree of freedom is no noise known (one run a
		 * side whose borrowed interval reads +-0.0 %) */
		if (isnan(x->noise_pct) || !(x->noise_df > 0))
			continue;
		if (x->noise_df > df)
			df = x->noise_df;
		if (o < cap)
			o += (size_t)snprintf(buf + o, cap - o, "%s%s %s%.1f %%", with ? ", " : "Noise between runs (sd of one run): ",
			                      x->rule->name, pm, x->noise_pct);
		with++;
	}
	if (with && o < cap)
		snprintf(buf + o, cap - o, " (%zu base and %zu new run%s; %.0f degree%s of freedom)", rb, rx, rx == 1 ? "" : "s",
		         df, df == 1 ? "" : "s");
	else if (!with && sampled && rb <= 1 && rx <= 1)
		snprintf(buf, cap,
		         "One run a side: the intervals hold the variation between steps, not between runs "
		         "(%s1-3 %% on real GPUs); compare several runs a side (BASE... -- NEW...) or give A/A runs "
		         "with --noise-from",
		         pm);
}

/* The categories of kernel time no rule judges (judge.h), one line; none:
 * nothing. */
static void not_judged_line(FILE *f, const tg_judgement *j, int md)
{
	size_t n;
	const tg_not_judged *v = tg_judgement_not_judged(j, &n);
	if (!n)
		return;
	fputs(md ? "\nNot judged by any rule (over 5 % of a side's kernel time): " : "not judged by any rule: ", f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		if (md)
			tg_md_escape(f, v[i].category);
		else
			fputs(v[i].category, f);
		fprintf(f, " %.1f %%", v[i].pct);
	}
	fputs(md ? " of kernel time.\n" : " of kernel time\n", f);
}

/* With several ranks: the slowest rank and the one that changed most
 * (rank_compare.h), one line. */
static void ranks_line(FILE *f, const tg_judgement *j, int md)
{
	const tg_rank_compare *rk = tg_judgement_ranks(j);
	if (!rk || rk->slowest < 0)
		return;
	fprintf(f, "%s%zu ranks: the slowest is rank %lld (%.3f ms of GPU compute a step)", md ? "\n" : "", rk->nranks,
	        (long long)rk->slowest, rk->slowest_ms);
	if (rk->most_changed >= 0)
		fprintf(f, "; the most changed is rank %lld (%s %+.1f %%)", (long long)rk->most_changed,
		        rk->most_changed_what, rk->most_changed_pct);
	fputs(md ? ".\n" : "\n", f);
}

/* ------------------------------------------------------------ markdown */

#define NAME_MAX_MD 60 /* longer names are shortened, the whole in a tooltip */

/* Runs a side: the most any sampled rule item saw (a side's traces of one
 * rank are its runs, docs/diff.md); 0 when no item says. */
static size_t side_runs(const tg_judgement *j, int next)
{
	size_t n, r = 0;
	const tg_judged *it = tg_judgement_items(j, &n);
	for (size_t i = 0; i < n; i++) {
		/* the runs whose traces are on the side: the target branch's
		 * history runs a rule also takes as base runs have no steps here
		 * (the comment's "Base: N runs + runs of main" line names them) */
		size_t v = next ? it[i].nruns_new : it[i].nruns_base - it[i].nruns_history;
		if (v > r)
			r = v;
	}
	return r;
}

/* One cell of the "what was compared" table: the side's files, as their
 * names in shown (the distinguishing suffixes). */
static void md_files(FILE *f, const char *const *shown, size_t n)
{
	for (size_t i = 0; i < n && i < 3; i++) {
		if (i)
			fputs(", ", f);
		tg_md_name(f, shown[i], NAME_MAX_MD);
	}
	if (n > 3)
		fprintf(f, " and %zu more", n - 3);
	if (!n)
		fputs("-", f);
}

/* The "traces" row: each side's files by their shortest distinguishing
 * suffixes over both sides (base_r1/rank0.pt.trace.json.gz against
 * dropout2_r1/rank0.pt.trace.json.gz, where base names alone read the same
 * on both sides). */
static void md_traces_row(FILE *f, const tg_diff_doc *d)
{
	size_t n = d->nbase + d->nnew;
	const char **all = calloc(n ? n : 1, sizeof(char *)), **shown = calloc(n ? n : 1, sizeof(char *));
	if (all && shown) {
		for (size_t i = 0; i < n; i++)
			all[i] = i < d->nbase ? d->base_files[i] : d->new_files[i - d->nbase];
		tg_path_unique_suffixes(shown, all, n);
	}
	fputs("| traces | ", f);
	if (all && shown) {
		md_files(f, shown, d->nbase);
		fputs(" | ", f);
		md_files(f, shown + d->nbase, d->nnew);
	} else {
		fputs("- | -", f);
	}
	fputs(" |\n", f);
	free(all);
	free(shown);
}

/* What was compared: one column a side (source, traces, GPU, runtime,
 * steps and runs). */
static void md_compared(FILE *f, const tg_diff_doc *d)
{
	const tg_fingerprint *a = tg_measure_fingerprint(d->base, NULL), *b = tg_measure_fingerprint(d->next, NULL);
	fputs("| compared | base | new |\n| --- | --- | --- |\n", f);
	if (d->base_source || d->new_source)
		fprintf(f, "| source | %s | %s |\n", d->base_source ? d->base_source : "-",
		        d->new_source ? d->new_source : "-");
	md_traces_row(f, d);
	fputs("| GPU | ", f);
	tg_md_escape(f, a->gpu[0] ? a->gpu : "unknown");
	fputs(" | ", f);
	tg_md_escape(f, b->gpu[0] ? b->gpu : "unknown");
	char ra[64], rb[64];
	tg_fingerprint_runtime_text(ra, sizeof(ra), a->runtime[0] ? a->runtime : "unknown");
	tg_fingerprint_runtime_text(rb, sizeof(rb), b->runtime[0] ? b->runtime : "unknown");
	fputs(" |\n| runtime | ", f);
	tg_md_escape(f, ra);
	fputs(" | ", f);
	tg_md_escape(f, rb);
	size_t ub = side_units(d->base), ux = side_units(d->next);
	size_t rb_ = side_runs(d->judgement, 0), rx = side_runs(d->judgement, 1);
	fprintf(f, " |\n| steps (runs) | %zu (%zu run%s) | %zu (%zu run%s) |\n", ub, rb_ ? rb_ : d->nbase,
	        (rb_ ? rb_ : d->nbase) == 1 ? "" : "s", ux, rx ? rx : d->nnew, (rx ? rx : d->nnew) == 1 ? "" : "s");
}

static void md_rules(FILE *f, const tg_judgement *j)
{
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	fputs("| rule | item | metric | base | new | change | CI | samples | verdict |\n", f);
	fputs("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n", f);
	/* every total rule, and the non-passing items of each rules (the
	 * passing ones are in the details) */
	size_t shown = 0, hidden = 0, hidden_ranks = 0;
	for (size_t i = 0; i < n; i++) {
		const tg_judged *x = &it[i];
		int each = x->rule->aggregate == TG_AGG_EACH;
		if (!listed(x)) {
			hidden += each;
			hidden_ranks += !each;
			continue;
		}
		if (each && shown > 200) {
			hidden++;
			continue;
		}
		char b[48], nx[48], pc[32], ci[48];
		tg_diff_format_value(b, sizeof(b), x->rule->metric, x->base);
		tg_diff_format_value(nx, sizeof(nx), x->rule->metric, x->next);
		format_pct(pc, sizeof(pc), x->pct);
		format_ci(ci, sizeof(ci), x);
		fputs("| ", f);
		tg_md_escape(f, x->rule->name);
		fputs(" | ", f);
		char il[48];
		if (x->item[0])
			tg_md_name(f, x->item, NAME_MAX_MD);
		else
			fputs(item_label(il, sizeof(il), x), f);
		fprintf(f, " | %s | %s | %s | %s | %s | %zu / %zu %s | %s %s", tg_rule_metric_name(x->rule->metric), b, nx,
		        pc, ci, x->nbase, x->nnext, tg_sampling_name(x->sampling), icon(x->accepted ? TG_VERDICT_PASS : x->verdict),
		        verdict_word(x));
		if (x->note[0]) {
			fputs(" (", f);
			tg_md_escape(f, x->note);
			fputs(")", f);
		}
		fputs(" |\n", f);
		shown++;
	}
	if (hidden)
		fprintf(f, "\n%zu more items of `each` rules pass.\n", hidden);
	if (hidden_ranks)
		fprintf(f, "\n%zu per-rank items pass (each total rule judged on every rank alone too).\n",
		        hidden_ranks);
}

/* Where the categories the rules select came from (docs/categories.md):
 * "SDPA_fwd: kernel name 100 %; GEMM: op 96 %, kernel name 4 %", so that a
 * surprising verdict can be checked. Writes nothing when no rule selects a
 * category by name. */
static void categories_from(FILE *f, const tg_diff_doc *d, int md)
{
	size_t n;
	const tg_judged *it = tg_judgement_items(d->judgement, &n);
	const char *seen[32];
	size_t nseen = 0;
	int any = 0;
	for (size_t i = 0; i < n && nseen < 32; i++) {
		const tg_pattern *p = &it[i].rule->category;
		if (!p->text || p->is_regex)
			continue;
		size_t k = 0;
		while (k < nseen && strcmp(seen[k], p->text))
			k++;
		if (k < nseen)
			continue;
		seen[nseen++] = p->text;
		char from[96];
		if (tg_compare_category_from(from, sizeof(from), d->base, d->next, d->keys, p->text) || !from[0])
			continue;
		if (!any)
			fputs(md ? "\nWhere the judged categories came from: " : "where the judged categories came from: ", f);
		if (any)
			fputs("; ", f);
		if (md) {
			tg_md_escape(f, p->text);
			fputs(" ", f);
			tg_md_escape(f, from);
		} else {
			fprintf(f, "%s %s", p->text, from);
		}
		any = 1;
	}
	if (any)
		fputs(md ? " (docs/categories.md).\n" : "\n", f);
}

/* The categories of the keys of one compare_by (tg_compare_categories). */
struct cats {
	tg_compare_cat *v;
	size_t n;
};

/* Writes the category of the key named name ("GEMM"; "NCCL +1" when its
 * kernels are also filed under one more category); "" when unknown. */
static void category_of(char *buf, size_t cap, const struct cats *c, const tg_atoms *keys, const char *name)
{
	uint32_t k = c && c->v ? tg_atoms_find(keys, name, strlen(name)) : TG_NONE;
	buf[0] = 0;
	if (k == TG_NONE || k >= c->n || c->v[k].category == TG_NONE)
		return;
	if (c->v[k].others)
		snprintf(buf, cap, "%s +%u", tg_atoms_str(keys, c->v[k].category), c->v[k].others);
	else
		snprintf(buf, cap, "%s", tg_atoms_str(keys, c->v[k].category));
}

#define NO_LAUNCHER "(no launcher)"

/* The per-op items that got worse (regressions) or better, by |delta|,
 * largest first, without the kernels no op launched (as md_ops; they are
 * reported on their own: no_launcher_of); *c of them. The caller frees the
 * array (NULL when none or out of memory). */
static const tg_judged **top_ops(const tg_diff_doc *d, int regressions, size_t *c)
{
	*c = 0;
	if (!d->ops)
		return NULL;
	size_t n;
	const tg_judged *it = tg_judgement_items(d->ops, &n);
	const tg_judged **pick = calloc(n ? n : 1, sizeof(*pick));
	if (!pick)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((regressions ? it[i].delta > 0 : it[i].delta < 0) && strcmp(it[i].item, NO_LAUNCHER))
			pick[(*c)++] = &it[i];
	/* by |delta|, largest first (insertion sort: few hundred items) */
	for (size_t i = 1; i < *c; i++)
		for (size_t k = i; k > 0 && fabs(pick[k]->delta) > fabs(pick[k - 1]->delta); k--) {
			const tg_judged *t = pick[k];
			pick[k] = pick[k - 1];
			pick[k - 1] = t;
		}
	return pick;
}

/* A change of the per-op judgement that is claimed: a regression that
 * warns (significant after the false-discovery control of the each rule,
 * and at least 1 %: gate.c), or an improvement surely beyond 1 %. */
static int op_significant(const tg_judged *x)
{
	return x->verdict == TG_VERDICT_WARN || x->verdict == TG_VERDICT_BLOCK || x->improved;
}

/* The per-op items, by |delta| largest first, that are significant
 * (significant 1) or not (0), without the kernels no op launched; *c of
 * them. The caller frees the array (NULL when none or out of memory). */
static const tg_judged **ops_by_change(const tg_diff_doc *d, int significant, size_t *c)
{
	*c = 0;
	if (!d->ops)
		return NULL;
	size_t n;
	const tg_judged *it = tg_judgement_items(d->ops, &n);
	const tg_judged **pick = calloc(n ? n : 1, sizeof(*pick));
	if (!pick)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (it[i].delta != 0 && !isnan(it[i].delta) && !!op_significant(&it[i]) == significant &&
		    strcmp(it[i].item, NO_LAUNCHER))
			pick[(*c)++] = &it[i];
	for (size_t i = 1; i < *c; i++)
		for (size_t k = i; k > 0 && fabs(pick[k]->delta) > fabs(pick[k - 1]->delta); k--) {
			const tg_judged *t = pick[k];
			pick[k] = pick[k - 1];
			pick[k - 1] = t;
		}
	return pick;
}

static void md_ops_table(FILE *f, const tg_diff_doc *d, const struct cats *cats, const tg_judged **pick, size_t c,
                         size_t limit)
{
	fputs("| op | category | base | new | delta | change | CI | samples |\n"
	      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
	      f);
	for (size_t i = 0; i < c && i < limit; i++) {
		const tg_judged *x = pick[i];
		char b[48], nx[48], dl[48], pc[32], ci[48], cat[160];
		tg_diff_format_value(b, sizeof(b), TG_METRIC_KERNEL_TIME, x->base);
		tg_diff_format_value(nx, sizeof(nx), TG_METRIC_KERNEL_TIME, x->next);
		tg_diff_format_value(dl, sizeof(dl), TG_METRIC_KERNEL_TIME, x->delta);
		format_pct(pc, sizeof(pc), x->pct);
		format_ci(ci, sizeof(ci), x);
		category_of(cat, sizeof(cat), cats, d->keys, x->item);
		fputs("| ", f);
		tg_md_name(f, x->item, NAME_MAX_MD);
		fputs(" | ", f);
		tg_md_escape(f, cat);
		fprintf(f, " | %s | %s | %s%s | %s | %s | %zu / %zu |\n", b, nx, x->delta > 0 ? "+" : "", dl, pc, ci,
		        x->nbase, x->nnext);
	}
}

/* 1 when s is made of the bytes of ok (a shell word needing no quotes
 * but the ones replay_line puts around it). */
static int all_of(const char *s, const char *ok)
{
	return *s && strspn(s, ok) == strlen(s);
}

/* The --match of op's most regressed shape (the op + shapes row of the
 * comparison with the largest increase): "^dims=\\(\\(4096, 3076\\), ...\\) "
 * into buf, the signature replay shows (docs/replay.md); "" when there is
 * none, or when the dims are other than numbers in lists. */
static void top_shape_match(char *buf, size_t cap, const tg_diff_doc *d, const char *op)
{
	tg_compare_row *rows = NULL;
	size_t n, len = strlen(op), best = SIZE_MAX, shapes = 0;
	buf[0] = 0;
	if (tg_compare_rows_steps(&rows, &n, d->base, d->next, TG_COMPARE_OP_SHAPE))
		return;
	for (size_t i = 0; i < n; i++) {
		const char *k = tg_atoms_str(d->keys, rows[i].key);
		if (strncmp(k, op, len) || k[len] != ' ' || k[len + 1] != '[' || rows[i].is_gone)
			continue;
		shapes++;
		if (rows[i].delta_us > 0 && (best == SIZE_MAX || rows[i].delta_us > rows[best].delta_us))
			best = i;
	}
	char dims[512], py[512];
	/* one shape: the op alone selects it */
	const char *k = best == SIZE_MAX || shapes < 2 ? NULL : tg_atoms_str(d->keys, rows[best].key) + len + 1;
	const char *end = k ? strstr(k, "] ") : NULL; /* the dims list ends before the types */
	free(rows);
	if (!end || (size_t)(end - k) + 2 > sizeof(dims))
		return;
	memcpy(dims, k, (size_t)(end - k) + 1);
	dims[end - k + 1] = 0;
	if (tg_pyrepr(py, sizeof(py), dims) || strspn(py, "0123456789(), ") != strlen(py))
		return;
	size_t o = (size_t)snprintf(buf, cap, "^dims=");
	for (const char *p = py; *p && o + 4 < cap; p++) {
		if (*p == '(' || *p == ')')
			buf[o++] = '\\';
		buf[o++] = *p;
	}
	if (o + 2 >= cap) {
		buf[0] = 0;
		return;
	}
	buf[o++] = ' ';
	buf[o] = 0;
}

/* The command that writes the replay script of the top regressed op x
 * (docs/replay.md), under the ops table: `tracegate replay NEW --op OP
 * --match '^dims=...' -o replay`, the match selecting its most regressed
 * shape when it has several. A kernel-level attention op is replayed as
 * the entry above it (all its shapes). Only for an op a script can call
 * (aten::identifier); the trace is the first new one's file name, or TRACE
 * when that name has characters a shell word or a code span would
 * change. */
static void md_replay_line(FILE *f, const tg_diff_doc *d, const tg_judged *x)
{
	static const char ident[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
	const char *op = tg_replay_entry_of(x->item);
	if (strncmp(op, "aten::", 6) || !all_of(op + 6, ident))
		return;
	const char *file = d->nnew ? d->new_files[0] : "";
	const char *slash = strrchr(file, '/');
	file = slash ? slash + 1 : file;
	if (!all_of(file, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-"))
		file = "TRACE";
	char match[600] = "";
	if (op == x->item)
		top_shape_match(match, sizeof(match), d, op);
	fprintf(f, "\nReplay `%s` alone, a PyTorch script with the shapes of the new trace (docs/replay.md): "
	           "`tracegate replay %s --op %s%s%s%s -o replay`\n",
	        op, file, op, match[0] ? " --match '" : "", match, match[0] ? "'" : "");
}

/* The ops whose kernel time changed significantly, largest first, and the
 * replay command of the top regression; the others folded (with_rest). */
static void md_ops(FILE *f, const tg_diff_doc *d, const struct cats *cats, int with_rest)
{
	if (!d->ops)
		return;
	size_t c, r;
	const tg_judged **sig = ops_by_change(d, 1, &c);
	fputs("\n#### Ops whose kernel time changed significantly (per step)\n\n", f);
	if (c) {
		md_ops_table(f, d, cats, sig, c, 15);
		if (c > 15)
			fprintf(f, "\n%zu more significant changes in the json (`--format json`).\n", c - 15);
		for (size_t i = 0; i < c; i++)
			if (sig[i]->delta > 0) {
				md_replay_line(f, d, sig[i]);
				break;
			}
	} else {
		fputs("None: no op's change is both significant after the false-discovery control and beyond 1 %.\n", f);
	}
	free(sig);
	const tg_judged **rest = with_rest ? ops_by_change(d, 0, &r) : NULL;
	if (rest && r) {
		fprintf(f,
		        "\n<details><summary>%zu other op%s changed within the noise (not significant; largest 10)</summary>\n\n",
		        r, r == 1 ? "" : "s");
		md_ops_table(f, d, cats, rest, r, 10);
		fputs("\n</details>\n", f);
	}
	free(rest);
}

/* ---- what changed, in sentences */

/* The name people call a kernel by: before its template or argument list,
 * after its return type and namespaces ("flash_fwd_kernel"). */
static size_t head_end(const char *s)
{
	size_t i = 0;
	for (; s[i]; i++) {
		if (!strncmp(s + i, "(anonymous namespace)", 21)) {
			i += 20;
			continue;
		}
		if (s[i] == '<' || s[i] == '(')
			break;
	}
	return i;
}

static void kernel_head(char *buf, size_t cap, const char *s)
{
	size_t end = head_end(s);
	size_t start = 0;
	for (size_t i = 0; i < end; i++)
		if (s[i] == ' ' || (s[i] == ':' && s[i + 1] == ':'))
			start = i + (s[i] == ' ' ? 1 : 2);
	size_t n = end > start ? end - start : 0;
	if (!n) { /* no head before a template or argument list: the name */
		start = 0;
		n = strlen(s);
	}
	if (n > 48) { /* an untemplated name runs long too (Cijk_Alik_..._MT256x128x64_...) */
		n = 47;
		while (n > 0 && ((unsigned char)s[start + n] & 0xc0) == 0x80)
			n--;
		snprintf(buf, cap, "%.*s\xe2\x80\xa6", (int)n, s + start);
		return;
	}
	snprintf(buf, cap, "%.*s", (int)n, s + start);
}

/* The heads of a kernel list as the divergence table writes it ("a + b",
 * "name x3"): "flash_fwd_splitkv_kernel + flash_fwd_combine_kernel". */
static void list_heads(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	buf[0] = 0;
	for (int first = 1; *s && o < cap; first = 0) {
		const char *plus = strstr(s, " + ");
		size_t len = plus ? (size_t)(plus - s) : strlen(s);
		char part[1024], head[128];
		snprintf(part, sizeof(part), "%.*s", (int)(len < sizeof(part) - 1 ? len : sizeof(part) - 1), s);
		/* a repeat count " x3" stays after the head */
		char *x = strrchr(part, ' ');
		const char *times = "";
		if (x && x[1] == 'x' && x[2] && strspn(x + 2, "0123456789") == strlen(x + 2)) {
			*x = 0;
			times = x + 1;
		}
		kernel_head(head, sizeof(head), part);
		o += (size_t)snprintf(buf + o, cap - o, "%s%s%s%s", first ? "" : " + ", head, *times ? " " : "", times);
		s += len;
		if (plus)
			s += 3;
	}
}

#define MAX_TOK 256

/* The tokens of a name after its first '<' (runs of characters other than
 * < > , ( ) and space); their count, at most MAX_TOK (more: 0). */
static size_t name_tokens(const char *s, const char **tok, size_t *len)
{
	const char *p = strchr(s, '<');
	size_t n = 0;
	if (!p)
		return 0;
	while (*p) {
		while (*p && strchr("<>,() ", *p))
			p++;
		if (!*p)
			break;
		size_t l = strcspn(p, "<>,() ");
		if (n == MAX_TOK)
			return 0;
		tok[n] = p;
		len[n++] = l;
		p += l;
	}
	return n;
}

/* The two names shortened to what differs: "flash_fwd_kernel<…128…>" and
 * "<…64…>" when the template arguments differ in at most 4 places; else
 * their heads. Returns 1 when the names differ at all. */
static int names_differ(char *a, char *b, size_t cap, const char *x, const char *y)
{
	char head[128];
	kernel_head(head, sizeof(head), x);
	if (!strcmp(x, y)) {
		list_heads(a, cap, x);
		list_heads(b, cap, y);
		return 0;
	}
	const char *tx[MAX_TOK], *ty[MAX_TOK]; /* 8 KiB of stack in all */
	size_t lx[MAX_TOK], ly[MAX_TOK];
	size_t nx = name_tokens(x, tx, lx), ny = name_tokens(y, ty, ly), diffs = 0;
	char hy[128];
	kernel_head(hy, sizeof(hy), y);
	if (nx && nx == ny && !strcmp(head, hy)) {
		size_t oa = (size_t)snprintf(a, cap, "%s<", head), ob = (size_t)snprintf(b, cap, "<");
		for (size_t i = 0; i < nx; i++) {
			if (lx[i] == ly[i] && !memcmp(tx[i], ty[i], lx[i]))
				continue;
			if (++diffs > 4)
				break;
			if (oa < cap)
				oa += (size_t)snprintf(a + oa, cap - oa, "\xe2\x80\xa6%.*s", (int)lx[i], tx[i]);
			if (ob < cap)
				ob += (size_t)snprintf(b + ob, cap - ob, "\xe2\x80\xa6%.*s", (int)ly[i], ty[i]);
		}
		if (diffs && diffs <= 4) {
			if (oa < cap)
				snprintf(a + oa, cap - oa, "\xe2\x80\xa6>");
			if (ob < cap)
				snprintf(b + ob, cap - ob, "\xe2\x80\xa6>");
			return 1;
		}
	}
	list_heads(a, cap, x);
	list_heads(b, cap, y);
	return 1;
}

/* A short name as code with the whole name in a tooltip. */
static void md_titled(FILE *f, const char *shown, const char *full)
{
	if (!strcmp(shown, full)) {
		tg_md_code(f, full);
		return;
	}
	fputs("<span title=\"", f);
	tg_html_attr_escape(f, full);
	fputs("\">", f);
	tg_md_code(f, shown);
	fputs("</span>", f);
}

/* A kernel name as code: from the name people call it by (no return type
 * or namespaces), shortened to NAME_MAX_MD with the whole in a tooltip. */
static void md_kernel_name(FILE *f, const char *s)
{
	size_t end = head_end(s), start = 0;
	for (size_t i = 0; i < end; i++)
		if (s[i] == ' ' || (s[i] == ':' && s[i + 1] == ':'))
			start = i + (s[i] == ' ' ? 1 : 2);
	if (!start || start >= end) {
		tg_md_name(f, s, NAME_MAX_MD);
		return;
	}
	char shown[NAME_MAX_MD * 4];
	size_t n = strlen(s + start);
	if (n < NAME_MAX_MD) {
		snprintf(shown, sizeof(shown), "%s", s + start);
	} else {
		size_t k = NAME_MAX_MD - 1;
		while (k > 0 && ((unsigned char)s[start + k] & 0xc0) == 0x80)
			k--;
		snprintf(shown, sizeof(shown), "%.*s\xe2\x80\xa6", (int)k, s + start);
	}
	md_titled(f, shown, s);
}

/* One sentence per kind of divergence whose time changed (the largest 3):
 * "aten::_flash_attention_forward: flash_fwd_kernel<…128…> became <…64…>,
 * +23.7 % (87.2 us -> 107.9 us per step, 12 places)". Returns how many. */
static int md_divergence_sentences(FILE *f, const tg_table *t)
{
	size_t nr = t ? tg_table_nrows(t) : 0;
	int said = 0;
	for (size_t r = 0; r < nr && said < 3; r++) {
		const char *where = tg_table_cell(t, r, 0)->v.s, *kb = tg_table_cell(t, r, 2)->v.s,
		           *kn = tg_table_cell(t, r, 3)->v.s;
		int64_t count = tg_table_cell(t, r, 4)->v.i;
		double bu = tg_table_cell(t, r, 5)->v.d, nu = tg_table_cell(t, r, 6)->v.d;
		double pct = bu > 0 ? 100.0 * (nu - bu) / bu : INFINITY;
		/* the top level (ops added or removed there, kernels no op
		 * launched) is said by the no-launcher line and the table */
		if (!kb || !kn || (isfinite(pct) && fabs(pct) < 1.0) || !strcmp(where, "(top level)"))
			continue;
		if (!strcmp(kb, "(none)"))
			kb = "";
		if (!strcmp(kn, "(none)"))
			kn = "";
		char a[512], b[512], pc[32], vb[48], vn[48];
		format_pct(pc, sizeof(pc), pct);
		tg_diff_format_value(vb, sizeof(vb), TG_METRIC_KERNEL_TIME, bu * 1e3);
		tg_diff_format_value(vn, sizeof(vn), TG_METRIC_KERNEL_TIME, nu * 1e3);
		fputs("- ", f);
		tg_md_name(f, where, NAME_MAX_MD);
		fputs(": ", f);
		if (!kb[0]) {
			fputs("new kernels ", f);
			tg_md_name(f, kn, NAME_MAX_MD);
		} else if (!kn[0]) {
			tg_md_name(f, kb, NAME_MAX_MD);
			fputs(" gone", f);
		} else if (names_differ(a, b, sizeof(a), kb, kn)) {
			md_titled(f, a, kb);
			fputs(" became ", f);
			md_titled(f, b, kn);
			fputs(",", f);
		} else {
			md_titled(f, a, kb);
			fputs(" (the same kernel) took", f);
		}
		fprintf(f, " %s (%s \xe2\x86\x92 %s per step, in %lld place%s).\n", pc, vb, vn, (long long)count,
		        count == 1 ? "" : "s");
		said++;
	}
	return said;
}

/* A module subtree (a path and everything under it). */
struct subtree {
	char path[256];
	double base, next;
};

static int find_subtree(struct subtree *v, size_t n, const char *p, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i].path) == len && !strncmp(v[i].path, p, len))
			return (int)i;
	return -1;
}

/* Kernel time per step of every module subtree (v, *nv of at most cap:
 * each path and each of its prefixes), and the totals inside modules
 * (*tb, *tn) and outside every module (*ob, *on). */
static void module_subtrees(struct subtree *v, size_t *nv, size_t cap, const tg_diff_doc *d,
                            const tg_compare_row *rows, size_t nr, double *tb, double *tn, double *ob, double *on)
{
	for (size_t i = 0; i < nr; i++) {
		const char *m = tg_atoms_str(d->keys, rows[i].key);
		if (!m[0] || !strcmp(m, "(none)")) {
			*ob += rows[i].base_us, *on += rows[i].new_us;
			continue;
		}
		*tb += rows[i].base_us, *tn += rows[i].new_us;
		for (size_t k = 0;; k++) {
			if (m[k] != '/' && m[k])
				continue;
			if (k < sizeof(v[0].path)) {
				int at = find_subtree(v, *nv, m, k);
				if (at < 0 && *nv < cap) {
					at = (int)(*nv)++;
					snprintf(v[at].path, sizeof(v[at].path), "%.*s", (int)k, m);
				}
				if (at >= 0)
					v[at].base += rows[i].base_us, v[at].next += rows[i].new_us;
			}
			if (!m[k])
				break;
		}
	}
}

/* The subtrees that hold the change D (chosen, returns how many: 0 to 3):
 * descend from the root while one child holds 75 % of it; then 2 or 3
 * siblings that together hold 75 %, or the one child reached. */
static int choose_subtrees(int chosen[3], const struct subtree *v, size_t nv, size_t cap, double D)
{
	const char *node = "";
	size_t nlen = 0;
	int nch = 0;
	int *kids = malloc((cap / 4) * sizeof(int));
	if (!kids)
		return 0;
	for (;;) {
		int nk = 0;
		for (size_t i = 0; i < nv && nk < (int)(cap / 4); i++) {
			size_t l = strlen(v[i].path);
			if (l > nlen + (nlen ? 1 : 0) && !strncmp(v[i].path, node, nlen) && (!nlen || v[i].path[nlen] == '/') &&
			    !strchr(v[i].path + nlen + (nlen ? 1 : 0), '/'))
				kids[nk++] = (int)i;
		}
		for (int i = 1; i < nk; i++)
			for (int k = i; k > 0 && v[kids[k]].next - v[kids[k]].base > v[kids[k - 1]].next - v[kids[k - 1]].base;
			     k--) {
				int t = kids[k];
				kids[k] = kids[k - 1];
				kids[k - 1] = t;
			}
		if (nk && v[kids[0]].next - v[kids[0]].base >= 0.75 * D) {
			node = v[kids[0]].path;
			nlen = strlen(node);
			nch = 1;
			chosen[0] = kids[0];
			continue;
		}
		double sum = 0;
		int k = 0;
		for (; k < nk && k < 3 && sum < 0.75 * D; k++)
			sum += v[kids[k]].next - v[kids[k]].base;
		if (nk > 1 && sum >= 0.75 * D && k < nk) {
			nch = k;
			for (int i = 0; i < k; i++)
				chosen[i] = kids[i];
		}
		break;
	}
	free(kids);
	return nch;
}

/* When one nn.Module subtree (or 2 or 3 siblings) holds at least 75 % of
 * the change of the kernels run inside modules, says which: "GPT_0/Block_1
 * +10.9 us (+12.6 %) and GPT_0/Block_0 +9.7 us (+11.1 %) per step: 95 % of
 * the +21.5 us change inside nn.Modules". Returns 1 when said. */
static int md_module_sentence(FILE *f, const tg_diff_doc *d)
{
	tg_compare_row *rows;
	size_t nr;
	if (tg_compare_rows_steps(&rows, &nr, d->base, d->next, TG_COMPARE_MODULE))
		return 0;
	enum { CAP = 2048 };
	struct subtree *v = calloc(CAP, sizeof(*v));
	size_t nv = 0;
	double tb = 0, tn = 0, ob = 0, on = 0;
	if (v)
		module_subtrees(v, &nv, CAP, d, rows, nr, &tb, &tn, &ob, &on);
	free(rows);
	double D = tn - tb;
	int chosen[3], nch = 0;
	if (v && D > 0 && D >= 0.01 * tb)
		nch = choose_subtrees(chosen, v, nv, CAP, D);
	double held = 0, part = 0;
	int material = nch > 0;
	for (int i = 0; i < nch; i++) {
		held += v[chosen[i]].next - v[chosen[i]].base;
		part += v[chosen[i]].base;
		if (v[chosen[i]].base > 0 && (v[chosen[i]].next - v[chosen[i]].base) < 0.01 * v[chosen[i]].base)
			material = 0;
	}
	/* the whole model is no finding: a part of it must be */
	if (part > 0.6 * tb)
		material = 0;
	if (material) {
		fprintf(f, "- %s: ", nch == 1 ? "One nn.Module subtree explains it" : "These nn.Module subtrees explain it");
		for (int i = 0; i < nch; i++) {
			const struct subtree *s = &v[chosen[i]];
			char dl[48], pc[32];
			tg_diff_format_value(dl, sizeof(dl), TG_METRIC_KERNEL_TIME, (s->next - s->base) * 1e3);
			format_pct(pc, sizeof(pc), s->base > 0 ? 100.0 * (s->next - s->base) / s->base : INFINITY);
			fputs(i == 0 ? "" : i == nch - 1 ? " and " : ", ", f);
			tg_md_name(f, s->path, NAME_MAX_MD);
			fprintf(f, " +%s (%s)", dl, pc);
		}
		char dd[48], od[48];
		tg_diff_format_value(dd, sizeof(dd), TG_METRIC_KERNEL_TIME, D * 1e3);
		tg_diff_format_value(od, sizeof(od), TG_METRIC_KERNEL_TIME, (on - ob) * 1e3);
		fprintf(f,
		        " per step: %.0f %% of the +%s change of the kernels run inside nn.Modules (kernels outside "
		        "every module, such as the backward pass and the optimizer: %s%s).\n",
		        100.0 * held / D, dd, on - ob >= 0 ? "+" : "", od);
	}
	free(v);
	return material;
}

/* The per-op item of the kernels no op launched, and *share its percent
 * of the base's kernel time; NULL when there are none on either side. */
static const tg_judged *no_launcher_of(const tg_diff_doc *d, double *share)
{
	size_t n;
	const tg_judged *it = d->ops ? tg_judgement_items(d->ops, &n) : NULL;
	const tg_judged *x = NULL;
	double total = 0;
	for (size_t i = 0; it && i < n; i++) {
		total += isnan(it[i].base) ? 0 : it[i].base;
		if (!strcmp(it[i].item, NO_LAUNCHER))
			x = &it[i];
	}
	*share = x && total > 0 ? 100.0 * x->base / total : 0.0;
	return x && (x->base > 0 || x->next > 0) ? x : NULL;
}

/* The kernels no op launched: how much of the time, and how it moved;
 * they are kept out of the ops table (docs/diff.md). Returns 1 when
 * there are some. */
static int md_no_launcher(FILE *f, const tg_diff_doc *d)
{
	double share;
	const tg_judged *x = no_launcher_of(d, &share);
	if (!x)
		return 0;
	char b[48], nx[48], pc[32], ci[48];
	tg_diff_format_value(b, sizeof(b), TG_METRIC_KERNEL_TIME, x->base);
	tg_diff_format_value(nx, sizeof(nx), TG_METRIC_KERNEL_TIME, x->next);
	format_pct(pc, sizeof(pc), x->pct);
	format_ci(ci, sizeof(ci), x);
	fprintf(f,
	        "- Kernels no op launched, `(no launcher)` (%.1f %% of the base's kernel time): %s \xe2\x86\x92 %s per "
	        "step, %s (CI %s). Their launch is not in the trace: it fell before the profiler's window opened "
	        "(or they are communication kernels, or the trace has no CPU side), so how many land in the window "
	        "moves from run to run. They are not ranked with the ops below; the rules still count them under "
	        "their category (from their kernel names).\n",
	        share, b, nx, pc, ci);
	return 1;
}

/* Kernels outside every step: in no per-step value. */
static int md_outside(FILE *f, const tg_diff_doc *d)
{
	size_t cb, cn;
	int64_t nb, nn;
	tg_compare_outside(&cb, &nb, d->base);
	tg_compare_outside(&cn, &nn, d->next);
	if (!cb && !cn)
		return 0;
	char vb[48], vn[48];
	tg_diff_format_value(vb, sizeof(vb), TG_METRIC_KERNEL_TIME, (double)nb);
	tg_diff_format_value(vn, sizeof(vn), TG_METRIC_KERNEL_TIME, (double)nn);
	fprintf(f,
	        "- Outside every `ProfilerStep` (warm-up before the first step, work after the last): base %zu "
	        "kernel%s (%s), new %zu (%s). They are in no per-step value, of the rules or of the tables.\n",
	        cb, cb == 1 ? "" : "s", vb, cn, vn);
	return 1;
}

/* What changed, in sentences, near the top. */
static void md_findings(FILE *f, const tg_diff_doc *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *g = open_memstream(&buf, &len);
	if (!g)
		return;
	md_divergence_sentences(g, d->divergences);
	md_module_sentence(g, d);
	md_no_launcher(g, d);
	md_outside(g, d);
	if (!fclose(g) && len) {
		fputs("\n#### What changed\n\n", f);
		fwrite(buf, 1, len, f);
	}
	free(buf);
}

/* Writes the first rows of t as a Markdown table (cells escaped; names
 * longer than NAME_MAX_MD shortened with the whole in a tooltip; numbers
 * to 3 decimals, counts as integers when they are). */
static void md_table_rows(FILE *f, const tg_table *t, size_t rows)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	fputs("|", f);
	for (size_t c = 0; c < nc; c++) {
		fputs(" ", f);
		tg_md_escape(f, tg_table_column(t, c));
		fputs(" |", f);
	}
	fputs("\n|", f);
	for (size_t c = 0; c < nc; c++) {
		const tg_cell *x = nr ? tg_table_cell(t, 0, c) : NULL;
		fputs(x && x->type == TG_CELL_STR ? " --- |" : " ---: |", f);
	}
	fputs("\n", f);
	for (size_t r = 0; r < nr && r < rows; r++) {
		fputs("|", f);
		for (size_t c = 0; c < nc; c++) {
			const tg_cell *x = tg_table_cell(t, r, c);
			fputs(" ", f);
			const char *col = tg_table_column(t, c);
			if (x->type == TG_CELL_STR && x->v.s[0] && (!strcmp(col, "kernel") || strstr(col, "kernels"))) {
				md_kernel_name(f, x->v.s);
			} else if (x->type == TG_CELL_STR && x->v.s[0]) {
				/* the first column is the key (a name); the others short words */
				if (c == 0 || strlen(x->v.s) > NAME_MAX_MD)
					tg_md_name(f, x->v.s, NAME_MAX_MD);
				else
					tg_md_escape(f, x->v.s);
			} else if (x->type == TG_CELL_INT) {
				fprintf(f, "%lld", (long long)x->v.i);
			} else if (x->type == TG_CELL_NUM) {
				fprintf(f, "%.3f", x->v.d);
			}
			fputs(" |", f);
		}
		fputs("\n", f);
	}
}

/* The divergence table for people: where, category, the kernels (base ->
 * new, shortened to what differs, whole names in tooltips), places, base
 * and new per step, change. */
static void md_divergence_table(FILE *f, const tg_table *t, size_t rows)
{
	size_t nr = tg_table_nrows(t);
	fputs("| where (category) | kernels: base \xe2\x86\x92 new | places | base \xe2\x86\x92 new per step | change |\n"
	      "| --- | --- | ---: | ---: | ---: |\n",
	      f);
	for (size_t r = 0; r < nr && r < rows; r++) {
		const char *where = tg_table_cell(t, r, 0)->v.s, *cat = tg_table_cell(t, r, 1)->v.s,
		           *kb = tg_table_cell(t, r, 2)->v.s, *kn = tg_table_cell(t, r, 3)->v.s;
		double bu = tg_table_cell(t, r, 5)->v.d, nu = tg_table_cell(t, r, 6)->v.d;
		char a[512], b[512], vb[48], vn[48], pc[32];
		if (kb && !strcmp(kb, "(none)"))
			kb = "";
		if (kn && !strcmp(kn, "(none)"))
			kn = "";
		fputs("| ", f);
		tg_md_name(f, where, NAME_MAX_MD);
		if (cat && cat[0]) {
			fputs(" (", f);
			tg_md_escape(f, cat);
			fputs(")", f);
		}
		fputs(" | ", f);
		if (kb && kn && kb[0] && kn[0]) {
			names_differ(a, b, sizeof(a), kb, kn);
			md_titled(f, a, kb);
			fputs(" \xe2\x86\x92 ", f);
			md_titled(f, b, kn);
		} else {
			if (kb && kb[0])
				md_kernel_name(f, kb);
			else
				fputs("(none)", f);
			fputs(" \xe2\x86\x92 ", f);
			if (kn && kn[0])
				md_kernel_name(f, kn);
			else
				fputs("(none)", f);
		}
		tg_diff_format_value(vb, sizeof(vb), TG_METRIC_KERNEL_TIME, bu * 1e3);
		tg_diff_format_value(vn, sizeof(vn), TG_METRIC_KERNEL_TIME, nu * 1e3);
		format_pct(pc, sizeof(pc), bu > 0 ? 100.0 * (nu - bu) / bu : nu > 0 ? INFINITY : NAN);
		fprintf(f, " | %lld | %s \xe2\x86\x92 %s | %s |\n", (long long)tg_table_cell(t, r, 4)->v.i, vb, vn, pc);
	}
}

static void md_table_details(FILE *f, const tg_diff_doc *d, tg_compare_by by, size_t limit)
{
	tg_table *t;
	if (tg_compare_table(&t, d->base, d->next, d->keys, by, 0))
		return;
	size_t nr = tg_table_nrows(t);
	fprintf(f, "\n<details><summary>Kernel time per step by %s (%zu rows)</summary>\n\n", tg_compare_by_name(by), nr);
	md_table_rows(f, t, limit);
	if (nr > limit)
		fprintf(f, "\n%zu more rows in the json.\n", nr - limit);
	fputs("\n</details>\n", f);
	tg_table_free(t);
}

/* The comment's head: the hidden marker (an HTML comment that nothing in
 * the marker can end), the verdict line, what was compared, whether the
 * sides are comparable, and the accepted regressions. */
static void md_head(FILE *f, const tg_diff_doc *d)
{
	const tg_judgement *j = d->judgement;
	if (d->marker) {
		fputs("<!-- ", f);
		for (const char *p = d->marker; *p; p++)
			putc(*p == '<' || *p == '>' || *p == '\n' || (*p == '-' && p[1] == '-') ? '_' : *p, f);
		fputs(" -->\n", f);
	}
	fprintf(f, "### %s tracegate: ", icon(tg_judgement_verdict(j)));
	tg_md_escape(f, tg_judgement_summary(j));
	fputs("\n\n", f);
	md_compared(f, d);
	const char *why;
	if (!tg_judgement_comparable(j, &why)) {
		fputs("\n**Not comparable**: ", f);
		tg_md_escape(f, why);
		fputs(". Set `allow_hardware_change: true` in the rules to judge anyway.\n", f);
	} else if (why[0]) {
		fputs("\nHardware changed (allowed by the rules): ", f);
		tg_md_escape(f, why);
		fputs(".\n", f);
	}
	size_t na;
	const tg_accept *acc = tg_judgement_accepts(j, &na);
	for (size_t i = 0; i < na; i++) {
		fputs("\nAccepted: ", f);
		tg_md_escape(f, acc[i].rule);
		if (acc[i].by) {
			fputs(" by ", f);
			tg_md_escape(f, acc[i].by);
		}
		fputs(": ", f);
		tg_md_escape(f, acc[i].reason ? acc[i].reason : "");
		fputs("\n", f);
	}
}

/* The rules' section: their table, where the judged categories came
 * from, the noise the intervals carry, and the rules that matched
 * nothing. */
static void md_rules_section(FILE *f, const tg_diff_doc *d)
{
	const tg_judgement *j = d->judgement;
	fputs("\n#### Rules\n\n", f);
	md_rules(f, j);
	ranks_line(f, j, 1);
	not_judged_line(f, j, 1);
	categories_from(f, d, 1);
	char nl[1024];
	noise_line(nl, sizeof(nl), j, "\xc2\xb1");
	if (nl[0]) {
		fputs("\n", f);
		tg_md_escape(f, nl);
		fputs(".\n", f);
	}
	size_t nu;
	const char *const *un = tg_judgement_unmatched(j, &nu);
	for (size_t i = 0; i < nu; i++) {
		fputs("\nWarning: rule ", f);
		tg_md_escape(f, un[i]);
		fputs(" matches nothing in either trace.\n", f);
	}
}

/* Where the call trees diverge: the lowest points of divergence (10 rows
 * with the drawing, 3 without) and, with it, the drawing folded. */
static void md_divergences(FILE *f, const tg_diff_doc *d, size_t detail_rows, int with_divergence)
{
	if (d->divergences && tg_table_nrows(d->divergences)) {
		size_t nr = tg_table_nrows(d->divergences);
		size_t show = with_divergence ? 10 : 3;
		fputs("\n#### Where the time went (lowest points of divergence of the call trees, kernel time per step)\n\n", f);
		md_divergence_table(f, d->divergences, show);
		if (nr > show)
			fprintf(f, "\n%zu more kinds of divergence%s.\n", nr - show,
			        detail_rows ? " in the details below" : "");
	}
	if (with_divergence && d->divergence && d->divergence[0]) {
		fputs("\n<details><summary>The call trees where they diverge (base: only in the base, new: only in the "
		      "new trace)</summary>\n\n<pre>\n",
		      f);
		tg_html_escape_inert(f, d->divergence);
		fputs("</pre>\n\n</details>\n", f);
	}
}

/* The folded details, detail_rows rows a table at most: every divergence
 * (beyond the ten shown), and kernel time per step by each grouping. */
static void md_details(FILE *f, const tg_diff_doc *d, size_t detail_rows)
{
	if (!detail_rows)
		return;
	if (d->divergences && tg_table_nrows(d->divergences) > 10) {
		fprintf(f, "\n<details><summary>Every divergence (%zu kinds)</summary>\n\n",
		        tg_table_nrows(d->divergences));
		md_divergence_table(f, d->divergences, detail_rows);
		fputs("\n</details>\n", f);
	}
	fputs("\n#### Kernel time per step\n\nCounts and times are per `ProfilerStep` (a trace without steps is one "
	      "step): the kernels inside the steps over the number of steps, as the rules count them; a count "
	      "with decimals is a mean over steps whose kernels differ.\n",
	      f);
	for (int by = 0; by < TG_COMPARE_BY_COUNT; by++)
		md_table_details(f, d, (tg_compare_by)by, detail_rows);
}

#ifndef TG_DOCS_URL
#define TG_DOCS_URL "" /* the Makefile's DOCS_URL */
#endif

const char *tg_diff_docs_url_default(void)
{
	return tg_diff_docs_url_ok(TG_DOCS_URL) ? TG_DOCS_URL : "";
}

int tg_diff_docs_url_ok(const char *url)
{
	if (!url || (strncmp(url, "https://", 8) && strncmp(url, "http://", 7)))
		return 0;
	const char *host = strstr(url, "://") + 3;
	if (!*host || *host == '/')
		return 0;
	for (const char *p = host; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._~:/%+-", *p))
			return 0;
	return 1;
}

/* The last line: the version, and how to read the comment, a link to
 * comment.md in tracegate's docs on a forge when there is a docs URL. */
static void md_footer(FILE *f, const tg_diff_doc *d)
{
	const char *url = d->docs_url ? d->docs_url : tg_diff_docs_url_default();
	fputs("\n<sub>tracegate " TG_VERSION " \xc2\xb7 ", f);
	if (url[0] && tg_diff_docs_url_ok(url)) {
		size_t n = strlen(url);
		while (n && url[n - 1] == '/')
			n--;
		fprintf(f, "[how to read this comment](%.*s/comment.md)", (int)n, url);
	} else {
		fputs("how to read this comment: docs/comment.md in tracegate's sources", f);
	}
	fputs("</sub>\n", f);
}

/* Writes the comment into a memory buffer with the given detail limits. */
static char *md_build(const tg_diff_doc *d, const struct cats *op_cats, size_t detail_rows, int with_divergence,
                      int with_improvements, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	md_head(f, d);
	md_findings(f, d);
	if (d->with_findings) {
		fputs("\n", f);
		tg_findings_compare_write_md(f, d->findings, d->nfindings);
	}
	tg_cp_diff_write_md(f, d->critical_path);
	md_rules_section(f, d);
	md_ops(f, d, op_cats, with_improvements);
	md_divergences(f, d, detail_rows, with_divergence);
	if (d->extra_md && d->extra_md[0]) {
		fputs("\n", f);
		fputs(d->extra_md, f);
		fputs("\n", f);
	}
	md_details(f, d, detail_rows);
	md_footer(f, d);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int tg_diff_write_md(FILE *f, const tg_diff_doc *d, size_t max_bytes)
{
	if (!max_bytes)
		max_bytes = MD_LIMIT;
	static const size_t rows[] = {500, 100, 30, 10, 0};
	char *buf = NULL;
	size_t len = 0;
	int trimmed = 0;
	struct cats oc = {NULL, 0};
	if (d->ops && tg_compare_categories(&oc.v, &oc.n, d->base, d->next, TG_COMPARE_OP))
		return tg_error_set(TG_ENOMEM, "out of memory rendering the comment");
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		free(buf);
		buf = md_build(d, &oc, rows[k], k < 4, k < 4, &len);
		if (!buf) {
			free(oc.v);
			return tg_error_set(TG_ENOMEM, "out of memory rendering the comment");
		}
		if (len + 200 <= max_bytes)
			break;
		trimmed = 1;
	}
	free(oc.v);
	const char *note = "\n*This comment was trimmed to fit the forge's size limit; "
	                   "run `tracegate diff` for the full tables.*\n";
	if (len + strlen(note) > max_bytes) {
		/* still too long (thousands of rule items): cut at a line end */
		size_t cut = max_bytes > strlen(note) + 1 ? max_bytes - strlen(note) - 1 : 0;
		while (cut > 0 && buf[cut] != '\n')
			cut--;
		/* keep the line end: the note must not continue a table */
		len = cut ? cut + 1 : 0;
		trimmed = 1;
	}
	int rc = fwrite(buf, 1, len, f) == len ? 0 : TG_EIO;
	if (!rc && trimmed && fputs(note, f) < 0)
		rc = TG_EIO;
	free(buf);
	return rc ? tg_error_set(rc, "cannot write the comment") : 0;
}

/* ------------------------------------------------------------ text */

int tg_diff_write_text(FILE *f, const tg_diff_doc *d)
{
	const tg_judgement *j = d->judgement;
	fprintf(f, "tracegate diff: %s\n", tg_judgement_summary(j));
	const tg_fingerprint *a = tg_measure_fingerprint(d->base, NULL), *b = tg_measure_fingerprint(d->next, NULL);
	char ra[64], rb[64];
	tg_fingerprint_runtime_text(ra, sizeof(ra), a->runtime[0] ? a->runtime : "unknown runtime");
	tg_fingerprint_runtime_text(rb, sizeof(rb), b->runtime[0] ? b->runtime : "unknown runtime");
	fprintf(f, "base: %zu trace(s), %zu step(s), %s, %s\n", d->nbase, side_units(d->base),
	        a->gpu[0] ? a->gpu : "unknown GPU", ra);
	fprintf(f, "new:  %zu trace(s), %zu step(s), %s, %s\n", d->nnew, side_units(d->next),
	        b->gpu[0] ? b->gpu : "unknown GPU", rb);
	const char *why;
	if (tg_judgement_comparable(j, &why) && why[0])
		fprintf(f, "hardware changed (allowed): %s\n", why);
	else if (!tg_judgement_comparable(j, &why))
		fprintf(f, "not comparable: %s\n", why);
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	fprintf(f, "\n%-20s %-40s %-15s %12s %12s %9s %19s %13s  %s\n", "rule", "item", "metric", "base", "new", "change",
	        "CI", "samples", "verdict");
	size_t hidden_ranks = 0;
	for (size_t i = 0; i < n; i++) {
		const tg_judged *x = &it[i];
		if (x->rule->aggregate == TG_AGG_EACH && x->verdict == TG_VERDICT_PASS && !x->improved && i > 40)
			continue;
		if (x->rank >= 0 && !listed(x)) {
			hidden_ranks++;
			continue;
		}
		char bv[48], nv[48], pc[32], ci[48], smp[32], il[48];
		tg_diff_format_value(bv, sizeof(bv), x->rule->metric, x->base);
		tg_diff_format_value(nv, sizeof(nv), x->rule->metric, x->next);
		format_pct(pc, sizeof(pc), x->pct);
		format_ci(ci, sizeof(ci), x);
		snprintf(smp, sizeof(smp), "%zu/%zu", x->nbase, x->nnext);
		fprintf(f, "%-20.20s %-40.40s %-15s %12s %12s %9s %19s %13s  %s%s%s%s\n", x->rule->name,
		        item_label(il, sizeof(il), x), tg_rule_metric_name(x->rule->metric), bv, nv, pc, ci, smp,
		        verdict_word(x), x->note[0] ? " (" : "", x->note, x->note[0] ? ")" : "");
	}
	if (hidden_ranks)
		fprintf(f, "%zu per-rank items pass (each total rule judged on every rank alone too)\n", hidden_ranks);
	ranks_line(f, j, 0);
	not_judged_line(f, j, 0);
	categories_from(f, d, 0);
	char nl[1024];
	noise_line(nl, sizeof(nl), j, "+-");
	if (nl[0])
		fprintf(f, "%s\n", nl);
	size_t nu;
	const char *const *un = tg_judgement_unmatched(j, &nu);
	for (size_t i = 0; i < nu; i++)
		fprintf(f, "warning: rule %s matches nothing in either trace\n", un[i]);
	if (d->with_findings) {
		fputs("\n", f);
		tg_findings_compare_write_text(f, d->findings, d->nfindings);
	}
	tg_cp_diff_write_text(f, d->critical_path);
	if (d->divergence && d->divergence[0])
		fprintf(f, "\nWhere the call trees diverge:\n%s", d->divergence);
	if (d->divergences && tg_table_nrows(d->divergences)) {
		fputs("\n", f);
		tg_table_write_text(d->divergences, f, 60);
	}
	for (int by = 0; by < TG_COMPARE_BY_COUNT; by++) {
		tg_table *t;
		if (by == TG_COMPARE_OP_SHAPE || tg_compare_table(&t, d->base, d->next, d->keys, (tg_compare_by)by, 15))
			continue;
		fputs("\n", f);
		tg_table_write_text(t, f, 80);
		tg_table_free(t);
	}
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

/* ------------------------------------------------------------ json */

/* The findings' changes (findings.h) as a JSON array, or NULL (out of memory). */
static json_t *findings_json(const tg_diff_doc *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int rc = tg_findings_compare_write_json(f, d->findings, d->nfindings);
	if (fclose(f) || rc) {
		free(buf);
		return NULL;
	}
	json_t *v = json_loadb(buf, len, 0, NULL);
	free(buf);
	return v;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *fp_json(const tg_measure *m, const char *const *files, size_t n)
{
	const tg_fingerprint *fp = tg_measure_fingerprint(m, NULL);
	json_t *fl = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(fl, json_string(files[i]));
	return json_pack("{s:o,s:I,s:{s:s,s:s,s:s,s:I}}", "files", fl, "steps", (json_int_t)side_units(m), "fingerprint",
	                 "gpu", fp->gpu, "driver", fp->driver, "runtime", fp->runtime, "world_size",
	                 (json_int_t)fp->world_size);
}

/* The category of x's item: the item itself for an each rule by
 * category, the category of its kernels for the others, the selected
 * category for a total rule that selects one by name, else "". 
 * cats: one slot per compare_by, filled on first use. */
static int item_category(char *buf, size_t cap, const tg_judged *x, const tg_diff_doc *d, struct cats *cats)
{
	static const tg_compare_by by_of[] = {TG_COMPARE_CATEGORY, TG_COMPARE_OP, TG_COMPARE_OP_SHAPE, TG_COMPARE_KERNEL,
	                                      TG_COMPARE_MODULE};
	buf[0] = 0;
	if (x->rule->aggregate != TG_AGG_EACH && x->rule->category.text && !x->rule->category.is_regex) {
		/* a total rule over one category: that category */
		snprintf(buf, cap, "%s", x->rule->category.text);
		return 0;
	}
	if (x->rule->aggregate != TG_AGG_EACH || !x->item[0])
		return 0;
	if (x->rule->by == TG_BY_CATEGORY) {
		snprintf(buf, cap, "%s", x->item);
		return 0;
	}
	struct cats *c = &cats[x->rule->by];
	if (!c->v && tg_compare_categories(&c->v, &c->n, d->base, d->next, by_of[x->rule->by]))
		return TG_ENOMEM;
	category_of(buf, cap, c, d->keys, x->item);
	return 0;
}

static json_t *item_json(const tg_judged *x, const char *category)
{
	json_t *o = json_object();
	json_object_set_new(o, "rule", json_string(x->rule->name));
	json_object_set_new(o, "item", json_string(x->item));
	json_object_set_new(o, "category", json_string(category));
	json_object_set_new(o, "metric", json_string(tg_rule_metric_name(x->rule->metric)));
	json_object_set_new(o, "verdict", json_string(tg_verdict_name(x->verdict)));
	json_object_set_new(o, "accepted", json_boolean(x->accepted));
	json_object_set_new(o, "improved", json_boolean(x->improved));
	json_object_set_new(o, "new", json_boolean(x->is_new));
	json_object_set_new(o, "gone", json_boolean(x->is_gone));
	json_object_set_new(o, "base", num(x->base));
	json_object_set_new(o, "next", num(x->next));
	json_object_set_new(o, "delta", num(x->delta));
	json_object_set_new(o, "pct", num(x->pct));
	json_object_set_new(o, "pct_lo", num(x->pct_lo));
	json_object_set_new(o, "pct_hi", num(x->pct_hi));
	json_object_set_new(o, "p_value", num(x->p_value));
	json_object_set_new(o, "samples_base", json_integer((json_int_t)x->nbase));
	json_object_set_new(o, "samples_new", json_integer((json_int_t)x->nnext));
	json_object_set_new(o, "sampling", json_string(tg_sampling_name(x->sampling)));
	json_object_set_new(o, "no_data", json_boolean(x->no_data));
	json_object_set_new(o, "unmatched", json_boolean(x->unmatched));
	json_object_set_new(o, "note", json_string(x->note));
	json_object_set_new(o, "decide", json_string(tg_rule_decide_name(x->rule->decide)));
	json_object_set_new(o, "runs_base", json_integer((json_int_t)x->nruns_base));
	json_object_set_new(o, "runs_new", json_integer((json_int_t)x->nruns_new));
	json_object_set_new(o, "noise_pct", num(x->noise_pct));
	json_object_set_new(o, "noise_df", num(x->noise_df));
	json_object_set_new(o, "runs_needed", json_integer((json_int_t)x->runs_needed));
	json_object_set_new(o, "pairs", json_integer((json_int_t)x->npairs));
	json_object_set_new(o, "call_noise_pct", num(x->sampling == TG_SAMPLING_PAIRS ? x->call_noise_pct : NAN));
	json_object_set_new(o, "rank", x->rank >= 0 ? json_integer((json_int_t)x->rank) : json_null());
	return o;
}

/* The ranks of the comparison (rank_compare.h), null with one rank. */
static json_t *ranks_json(const tg_judgement *j)
{
	const tg_rank_compare *rk = tg_judgement_ranks(j);
	if (!rk)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "count", json_integer((json_int_t)rk->nranks));
	json_object_set_new(o, "slowest", rk->slowest >= 0 ? json_integer((json_int_t)rk->slowest) : json_null());
	json_object_set_new(o, "slowest_compute_ms", num(rk->slowest >= 0 ? rk->slowest_ms : NAN));
	json_object_set_new(o, "most_changed",
	                    rk->most_changed >= 0 ? json_integer((json_int_t)rk->most_changed) : json_null());
	json_object_set_new(o, "most_changed_pct", num(rk->most_changed_pct));
	json_object_set_new(o, "most_changed_what", json_string(rk->most_changed_what));
	return o;
}

/* One op of the comparison as the json's top lists give it: op, category,
 * base, next, delta (ns per step), pct, pct_lo, pct_hi, samples_base,
 * samples_new, significant. */
static json_t *op_json(const tg_diff_doc *d, const struct cats *op_cats, const tg_judged *x)
{
	char cat[160];
	category_of(cat, sizeof(cat), op_cats, d->keys, x->item);
	json_t *o = json_object();
	json_object_set_new(o, "op", json_string(x->item));
	json_object_set_new(o, "category", json_string(cat));
	json_object_set_new(o, "base", num(x->base));
	json_object_set_new(o, "next", num(x->next));
	json_object_set_new(o, "delta", num(x->delta));
	json_object_set_new(o, "pct", num(x->pct));
	json_object_set_new(o, "pct_lo", num(x->pct_lo));
	json_object_set_new(o, "pct_hi", num(x->pct_hi));
	json_object_set_new(o, "samples_base", json_integer((json_int_t)x->nbase));
	json_object_set_new(o, "samples_new", json_integer((json_int_t)x->nnext));
	json_object_set_new(o, "significant", json_boolean(op_significant(x)));
	return o;
}

/* The top regressions or improvements by op, as in the md comment, each
 * as op_json gives it. */
static json_t *top_json(const tg_diff_doc *d, const struct cats *op_cats, int regressions, size_t limit)
{
	json_t *a = json_array();
	size_t c;
	const tg_judged **pick = top_ops(d, regressions, &c);
	for (size_t i = 0; i < c && i < limit; i++)
		json_array_append_new(a, op_json(d, op_cats, pick[i]));
	free(pick);
	return a;
}

/* The kernels no op launched, kept out of the top lists as the md comment
 * keeps them out of its headline: their numbers as a top item's, their
 * share of the base's kernel time and why they are apart; json null when
 * there are none. */
static json_t *no_launcher_json(const tg_diff_doc *d, const struct cats *op_cats)
{
	double share;
	const tg_judged *x = no_launcher_of(d, &share);
	if (!x)
		return json_null();
	json_t *o = op_json(d, op_cats, x);
	json_object_set_new(o, "share_of_base_pct", num(share));
	json_object_set_new(o, "why_apart",
	                    json_string("Their launch is not in the trace: it fell before the profiler's window opened "
	                                "(or they are communication kernels, or the trace has no CPU side), so how many "
	                                "land in the window moves from run to run. They are not ranked with the ops in "
	                                "top_regressions and top_improvements; the rules still count them under their "
	                                "category (from their kernel names)."));
	return o;
}

static json_t *table_json(const tg_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	tg_table_write_json(t, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	json_t *o = json_loadb(buf, len, 0, NULL);
	free(buf);
	return o;
}

int tg_diff_write_json(FILE *f, const tg_diff_doc *d)
{
	const tg_judgement *j = d->judgement;
	const char *why;
	int comparable = tg_judgement_comparable(j, &why);
	json_t *root = json_object();
	json_object_set_new(root, "tracegate_diff", json_integer(1));
	json_object_set_new(root, "verdict", json_string(tg_verdict_name(tg_judgement_verdict(j))));
	json_object_set_new(root, "summary", json_string(tg_judgement_summary(j)));
	json_object_set_new(root, "comparable", json_boolean(comparable));
	json_object_set_new(root, "hardware_change", json_string(why));
	json_object_set_new(root, "base", fp_json(d->base, d->base_files, d->nbase));
	json_object_set_new(root, "new", fp_json(d->next, d->new_files, d->nnew));
	json_t *items = json_array();
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	struct cats cats[TG_COMPARE_BY_COUNT] = {{NULL, 0}};
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		char cat[160];
		rc = item_category(cat, sizeof(cat), &it[i], d, cats);
		json_t *o = item_json(&it[i], cat);
		/* where that category's kernel time came from (docs/categories.md) */
		char from[96] = "";
		if (!rc && cat[0])
			rc = tg_compare_category_from(from, sizeof(from), d->base, d->next, d->keys, cat);
		json_object_set_new(o, "category_from", json_string(from));
		json_array_append_new(items, o);
	}
	json_object_set_new(root, "results", items);
	json_object_set_new(root, "ranks", ranks_json(j));
	json_t *nj = json_array();
	size_t nnj;
	const tg_not_judged *njv = tg_judgement_not_judged(j, &nnj);
	for (size_t i = 0; i < nnj; i++)
		json_array_append_new(nj, json_pack("{s:s,s:o}", "category", njv[i].category, "pct", num(njv[i].pct)));
	json_object_set_new(root, "not_judged", nj);
	json_t *un = json_array();
	const char *const *u = tg_judgement_unmatched(j, &n);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(un, json_string(u[i]));
	json_object_set_new(root, "unmatched_rules", un);
	json_t *acc = json_array();
	const tg_accept *a = tg_judgement_accepts(j, &n);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(acc, json_pack("{s:s,s:s,s:s?}", "rule", a[i].rule, "reason",
		                                     a[i].reason ? a[i].reason : "", "by", a[i].by));
	json_object_set_new(root, "accepted", acc);
	if (d->with_findings) {
		json_t *fj = findings_json(d);
		if (!fj)
			rc = TG_ENOMEM;
		json_object_set_new(root, "findings", fj ? fj : json_array());
	}
	if (!rc && !cats[TG_COMPARE_OP].v)
		rc = tg_compare_categories(&cats[TG_COMPARE_OP].v, &cats[TG_COMPARE_OP].n, d->base, d->next, TG_COMPARE_OP);
	json_object_set_new(root, "top_regressions", top_json(d, &cats[TG_COMPARE_OP], 1, 10));
	json_object_set_new(root, "top_improvements", top_json(d, &cats[TG_COMPARE_OP], 0, 5));
	json_object_set_new(root, "no_launcher", no_launcher_json(d, &cats[TG_COMPARE_OP]));
	for (int by = 0; by < TG_COMPARE_BY_COUNT; by++)
		free(cats[by].v);
	if (d->critical_path)
		json_object_set_new(root, "critical_path", tg_cp_diff_json(d->critical_path));
	json_object_set_new(root, "divergence", json_string(d->divergence ? d->divergence : ""));
	json_t *tabs = json_object();
	for (int by = 0; by < TG_COMPARE_BY_COUNT; by++) {
		tg_table *t;
		if (tg_compare_table(&t, d->base, d->next, d->keys, (tg_compare_by)by, 0))
			continue;
		json_t *tj = table_json(t);
		if (tj)
			json_object_set_new(tabs, tg_table_name(t), tj);
		tg_table_free(t);
	}
	if (d->divergences) {
		json_t *tj = table_json(d->divergences);
		if (tj)
			json_object_set_new(tabs, tg_table_name(d->divergences), tj);
	}
	json_object_set_new(root, "tables", tabs);
	if (rc) {
		json_decref(root);
		return tg_error_set(rc, "out of memory writing the json");
	}
	rc = json_dumpf(root, f, JSON_PRESERVE_ORDER | JSON_COMPACT) || fputc('\n', f) == EOF ? TG_EIO : 0;
	json_decref(root);
	return rc ? tg_error_set(rc, "cannot write the json") : 0;
}
