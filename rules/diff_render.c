/*
 * diff_render.c - text, md and json renderings of a diff (diff_render.h).
 */
#include "diff_render.h"

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
		if (x->rule->aggregate != TG_AGG_TOTAL || x->sampling == TG_SAMPLING_EXACT || x->no_data || isnan(x->pct))
			continue;
		sampled++;
		if (x->nruns_base > rb)
			rb = x->nruns_base;
		if (x->nruns_new > rx)
			rx = x->nruns_new;
		if (isnan(x->noise_pct))
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

/* ------------------------------------------------------------ markdown */

/* Names are written escaped as plain text, never inside a code span:
 * Markdown does not undo backslash escapes or entities there. */
static void md_side(FILE *f, const char *label, const char *const *files, size_t n, const tg_measure *m)
{
	const tg_fingerprint *fp = tg_measure_fingerprint(m, NULL);
	fprintf(f, "%s: ", label);
	for (size_t i = 0; i < n && i < 4; i++) {
		if (i)
			fputs(", ", f);
		const char *slash = strrchr(files[i], '/');
		tg_md_escape(f, slash ? slash + 1 : files[i]);
	}
	if (n > 4)
		fprintf(f, " and %zu more", n - 4);
	fputs(" (", f);
	tg_md_escape(f, fp->gpu[0] ? fp->gpu : "unknown GPU");
	if (fp->runtime[0]) {
		fputs(", ", f);
		tg_md_escape(f, fp->runtime);
	}
	fprintf(f, ", %zu step%s)", side_units(m), side_units(m) == 1 ? "" : "s");
}

static void md_rules(FILE *f, const tg_judgement *j)
{
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	fputs("| rule | item | metric | base | new | change | CI | samples | verdict |\n", f);
	fputs("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n", f);
	/* every total rule, and the non-passing items of each rules (the
	 * passing ones are in the details) */
	size_t shown = 0, hidden = 0;
	for (size_t i = 0; i < n; i++) {
		const tg_judged *x = &it[i];
		int each = x->rule->aggregate == TG_AGG_EACH;
		if (each && x->verdict == TG_VERDICT_PASS && !x->improved && !x->accepted) {
			hidden++;
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
		tg_md_escape(f, x->item[0] ? x->item : "(total)");
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

/* The per-op items that got worse (regressions) or better, by |delta|,
 * largest first; *c of them. The caller frees the array (NULL when none
 * or out of memory). */
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
		if (regressions ? it[i].delta > 0 : it[i].delta < 0)
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

/* Top regressions (worse > 0) or improvements of the per-op judgement,
 * with each op's category (cats: by op). */
static void md_top(FILE *f, const tg_diff_doc *d, const struct cats *cats, int regressions, size_t limit)
{
	size_t c;
	const tg_judged **pick = top_ops(d, regressions, &c);
	if (c) {
		fprintf(f, "\n#### Top %s (kernel time per step, by op)\n\n", regressions ? "regressions" : "improvements");
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
			tg_md_escape(f, x->item);
			fputs(" | ", f);
			tg_md_escape(f, cat);
			fprintf(f, " | %s | %s | %s%s | %s | %s | %zu / %zu |\n", b, nx, x->delta > 0 ? "+" : "", dl, pc, ci,
			        x->nbase, x->nnext);
		}
	}
	free(pick);
}

static void md_table_details(FILE *f, const tg_diff_doc *d, tg_compare_by by, size_t limit)
{
	tg_table *t;
	if (tg_compare_table(&t, d->base, d->next, d->keys, by, limit))
		return;
	fprintf(f, "\n<details><summary>Kernel time per step by %s (%zu rows)</summary>\n\n", tg_compare_by_name(by),
	        tg_table_nrows(t));
	tg_table_write_md(t, f);
	fputs("\n</details>\n", f);
	tg_table_free(t);
}

/* Writes the first rows of t as a Markdown table (cells escaped). */
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
			if (x->type == TG_CELL_STR) {
				/* templated kernel names run to hundreds of characters */
				size_t len = strlen(x->v.s);
				if (len > 120) {
					char *cut = strndup(x->v.s, 117);
					if (cut) {
						tg_md_escape(f, cut);
						fputs("...", f);
						free(cut);
					}
				} else {
					tg_md_escape(f, x->v.s);
				}
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

/* Writes the comment into a memory buffer with the given detail limits. */
static char *md_build(const tg_diff_doc *d, const struct cats *op_cats, size_t detail_rows, int with_divergence,
                      int with_improvements, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	const tg_judgement *j = d->judgement;
	tg_verdict v = tg_judgement_verdict(j);
	if (d->marker) {
		/* an HTML comment that nothing in the marker can end */
		fputs("<!-- ", f);
		for (const char *p = d->marker; *p; p++)
			putc(*p == '<' || *p == '>' || *p == '\n' || (*p == '-' && p[1] == '-') ? '_' : *p, f);
		fputs(" -->\n", f);
	}
	fprintf(f, "### %s tracegate: ", icon(v));
	tg_md_escape(f, tg_judgement_summary(j));
	fputs("\n\n", f);
	md_side(f, "Base", d->base_files, d->nbase, d->base);
	fputs(" \xe2\x86\x92 ", f);
	md_side(f, "new", d->new_files, d->nnew, d->next);
	fputs(".\n", f);
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
	fputs("\n", f);
	md_rules(f, j);
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
	md_top(f, d, op_cats, 1, 10);
	if (with_improvements)
		md_top(f, d, op_cats, 0, 5);
	if (with_divergence && d->divergence && d->divergence[0]) {
		fputs("\n#### Where the call trees diverge\n\n<pre>\n", f);
		tg_html_escape_inert(f, d->divergence);
		fputs("</pre>\n", f);
	}
	if (d->divergences && tg_table_nrows(d->divergences)) {
		size_t nr = tg_table_nrows(d->divergences);
		size_t show = with_divergence ? 10 : 3;
		fputs("\n#### Where the time went (lowest points of divergence, kernel time per step)\n\n", f);
		md_table_rows(f, d->divergences, show);
		if (nr > show)
			fprintf(f, "\n%zu more kinds of divergence%s.\n", nr - show,
			        detail_rows ? " in the details below" : "");
	}
	if (d->extra_md && d->extra_md[0]) {
		fputs("\n", f);
		fputs(d->extra_md, f);
		fputs("\n", f);
	}
	if (detail_rows && d->divergences && tg_table_nrows(d->divergences) > 10) {
		fprintf(f, "\n<details><summary>Every divergence (%zu kinds)</summary>\n\n",
		        tg_table_nrows(d->divergences));
		md_table_rows(f, d->divergences, detail_rows);
		fputs("\n</details>\n", f);
	}
	if (detail_rows) {
		for (int by = 0; by < TG_COMPARE_BY_COUNT; by++)
			md_table_details(f, d, (tg_compare_by)by, detail_rows);
	}
	fputs("\n<sub>tracegate " TG_VERSION "</sub>\n", f);
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
	fprintf(f, "base: %zu trace(s), %zu step(s), %s\n", d->nbase, side_units(d->base), a->gpu[0] ? a->gpu : "unknown GPU");
	fprintf(f, "new:  %zu trace(s), %zu step(s), %s\n", d->nnew, side_units(d->next), b->gpu[0] ? b->gpu : "unknown GPU");
	const char *why;
	if (tg_judgement_comparable(j, &why) && why[0])
		fprintf(f, "hardware changed (allowed): %s\n", why);
	else if (!tg_judgement_comparable(j, &why))
		fprintf(f, "not comparable: %s\n", why);
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	fprintf(f, "\n%-20s %-40s %-15s %12s %12s %9s %19s %13s  %s\n", "rule", "item", "metric", "base", "new", "change",
	        "CI", "samples", "verdict");
	for (size_t i = 0; i < n; i++) {
		const tg_judged *x = &it[i];
		if (x->rule->aggregate == TG_AGG_EACH && x->verdict == TG_VERDICT_PASS && !x->improved && i > 40)
			continue;
		char bv[48], nv[48], pc[32], ci[48], smp[32];
		tg_diff_format_value(bv, sizeof(bv), x->rule->metric, x->base);
		tg_diff_format_value(nv, sizeof(nv), x->rule->metric, x->next);
		format_pct(pc, sizeof(pc), x->pct);
		format_ci(ci, sizeof(ci), x);
		snprintf(smp, sizeof(smp), "%zu/%zu", x->nbase, x->nnext);
		fprintf(f, "%-20.20s %-40.40s %-15s %12s %12s %9s %19s %13s  %s%s%s%s\n", x->rule->name,
		        x->item[0] ? x->item : "(total)", tg_rule_metric_name(x->rule->metric), bv, nv, pc, ci, smp,
		        verdict_word(x), x->note[0] ? " (" : "", x->note, x->note[0] ? ")" : "");
	}
	categories_from(f, d, 0);
	char nl[1024];
	noise_line(nl, sizeof(nl), j, "+-");
	if (nl[0])
		fprintf(f, "%s\n", nl);
	size_t nu;
	const char *const *un = tg_judgement_unmatched(j, &nu);
	for (size_t i = 0; i < nu; i++)
		fprintf(f, "warning: rule %s matches nothing in either trace\n", un[i]);
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
	return o;
}

/* The top regressions or improvements by op, as in the md comment: op,
 * category, base, next, delta (ns per step), pct, pct_lo, pct_hi,
 * samples_base, samples_new. */
static json_t *top_json(const tg_diff_doc *d, const struct cats *op_cats, int regressions, size_t limit)
{
	json_t *a = json_array();
	size_t c;
	const tg_judged **pick = top_ops(d, regressions, &c);
	for (size_t i = 0; i < c && i < limit; i++) {
		const tg_judged *x = pick[i];
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
		json_array_append_new(a, o);
	}
	free(pick);
	return a;
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
	if (!rc && !cats[TG_COMPARE_OP].v)
		rc = tg_compare_categories(&cats[TG_COMPARE_OP].v, &cats[TG_COMPARE_OP].n, d->base, d->next, TG_COMPARE_OP);
	json_object_set_new(root, "top_regressions", top_json(d, &cats[TG_COMPARE_OP], 1, 10));
	json_object_set_new(root, "top_improvements", top_json(d, &cats[TG_COMPARE_OP], 0, 5));
	for (int by = 0; by < TG_COMPARE_BY_COUNT; by++)
		free(cats[by].v);
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
