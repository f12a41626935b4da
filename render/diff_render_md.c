/*
 * diff_render_md.c - the pull-request comment of a diff (tg_diff_write_md,
 * docs/comment.md): the verdict line, what was compared, what changed in
 * sentences, the findings, the critical path, the rules, the ops that
 * changed, the divergences, the daemon's section, the folded tables and
 * the footer; trimmed to the forge's size limit. It reads the computed
 * document (diff_render.h, diff_tables.h) and formats it.
 */
#include "../util/escape.h"
#include "diff_render_impl.h"
#include "../util/path_suffix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MD_LIMIT 65000
#define NAME_MAX_MD TG_DIFF_NAME_MAX_MD

/* The verdict's mark. A static string. */
static const char *icon(tg_verdict v)
{
	switch (v) {
	case TG_VERDICT_BLOCK: return "\xe2\x9d\x8c";        /* red cross */
	case TG_VERDICT_WARN: return "\xe2\x9a\xa0\xef\xb8\x8f"; /* warning sign */
	case TG_VERDICT_INCONCLUSIVE: return "\xe2\x9d\x94"; /* grey question mark */
	default: return "\xe2\x9c\x85";                      /* check mark */
	}
}

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
	const tg_diff_tables *t = d->tables;
	const tg_fingerprint *a = t->side[0].fp, *b = t->side[1].fp;
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
	size_t ub = t->side[0].steps, ux = t->side[1].steps;
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
		if (!tg_diff_listed(x)) {
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
		tg_diff_fmt_pct(pc, sizeof(pc), x->pct);
		tg_diff_fmt_ci(ci, sizeof(ci), x);
		fputs("| ", f);
		tg_md_escape(f, x->rule->name);
		fputs(" | ", f);
		char il[48];
		if (x->item[0])
			tg_md_name(f, x->item, NAME_MAX_MD);
		else
			fputs(tg_diff_item_label(il, sizeof(il), x), f);
		fprintf(f, " | %s | %s | %s | %s | %s | %zu / %zu %s | %s %s", tg_rule_metric_name(x->rule->metric), b, nx,
		        pc, ci, x->nbase, x->nnext, tg_sampling_name(x->sampling), icon(x->accepted ? TG_VERDICT_PASS : x->verdict),
		        tg_diff_verdict_word(x));
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

/* The first limit ops of pick (c of them) as a table, with their category. */
static void md_ops_table(FILE *f, const tg_diff_doc *d, const tg_judged *const *pick, size_t c, size_t limit)
{
	fputs("| op | category | base | new | delta | change | CI | samples |\n"
	      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
	      f);
	for (size_t i = 0; i < c && i < limit; i++) {
		const tg_judged *x = pick[i];
		char b[48], nx[48], dl[48], pc[32], ci[48];
		tg_diff_format_value(b, sizeof(b), TG_METRIC_KERNEL_TIME, x->base);
		tg_diff_format_value(nx, sizeof(nx), TG_METRIC_KERNEL_TIME, x->next);
		tg_diff_format_value(dl, sizeof(dl), TG_METRIC_KERNEL_TIME, x->delta);
		tg_diff_fmt_pct(pc, sizeof(pc), x->pct);
		tg_diff_fmt_ci(ci, sizeof(ci), x);
		const char *cat = tg_diff_tables_op_category(d->tables, x);
		fputs("| ", f);
		tg_md_name(f, x->item, NAME_MAX_MD);
		fputs(" | ", f);
		tg_md_escape(f, cat);
		fprintf(f, " | %s | %s | %s%s | %s | %s | %zu / %zu |\n", b, nx, x->delta > 0 ? "+" : "", dl, pc, ci,
		        x->nbase, x->nnext);
	}
}

/* 1 when s is made of the bytes of ok (a shell word needing no quotes
 * but the ones the replay line puts around it). */
static int all_of(const char *s, const char *ok)
{
	return *s && strspn(s, ok) == strlen(s);
}

/* The command that writes the replay script of the top regressed op
 * (docs/replay.md; the op and its match are diff_tables.h's replay_op and
 * replay_match), under the ops table: `tracegate replay NEW --op OP
 * --match '^dims=...' -o replay`, the match selecting its most regressed
 * shape when it has several. The trace is the first new one's file name,
 * or TRACE when that name has characters a shell word or a code span
 * would change. */
static void md_replay_line(FILE *f, const tg_diff_doc *d)
{
	const char *op = d->tables->replay_op, *match = d->tables->replay_match;
	if (!op)
		return;
	const char *file = d->nnew ? d->new_files[0] : "";
	const char *slash = strrchr(file, '/');
	file = slash ? slash + 1 : file;
	if (!all_of(file, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-"))
		file = "TRACE";
	fprintf(f, "\nReplay `%s` alone, a PyTorch script with the shapes of the new trace (docs/replay.md): "
	           "`tracegate replay %s --op %s%s%s%s -o replay`\n",
	        op, file, op, match[0] ? " --match '" : "", match, match[0] ? "'" : "");
}

/* The ops whose kernel time changed significantly, largest first, and the
 * replay command of the top regression; the others folded (with_rest). */
static void md_ops(FILE *f, const tg_diff_doc *d, int with_rest)
{
	if (!d->ops)
		return;
	const tg_diff_tables *t = d->tables;
	size_t c = t->nsignificant, r = t->nrest;
	const tg_judged *const *sig = t->significant;
	fputs("\n#### Ops whose kernel time changed significantly (per step)\n\n", f);
	if (c) {
		md_ops_table(f, d, sig, c, 15);
		if (c > 15)
			fprintf(f, "\n%zu more significant changes in the json (`--format json`).\n", c - 15);
		md_replay_line(f, d);
	} else {
		fputs("None: no op's change is both significant after the false-discovery control and beyond 1 %.\n", f);
	}
	if (with_rest && r) {
		fprintf(f,
		        "\n<details><summary>%zu other op%s changed within the noise (not significant; largest 10)</summary>\n\n",
		        r, r == 1 ? "" : "s");
		md_ops_table(f, d, t->rest, r, 10);
		fputs("\n</details>\n", f);
	}
}

/* ---- what changed, in sentences */

/* When one nn.Module subtree (or 2 or 3 siblings) holds at least 75 % of
 * the change of the kernels run inside modules, says which: "GPT_0/Block_1
 * +10.9 us (+12.6 %) and GPT_0/Block_0 +9.7 us (+11.1 %) per step: 95 % of
 * the +21.5 us change inside nn.Modules". Returns 1 when said. */
static int md_module_sentence(FILE *f, const tg_diff_doc *d)
{
	const tg_diff_modules *m = &d->tables->modules;
	int nch = m->n;
	if (!nch)
		return 0;
	fprintf(f, "- %s: ", nch == 1 ? "One nn.Module subtree explains it" : "These nn.Module subtrees explain it");
	for (int i = 0; i < nch; i++) {
		const tg_diff_subtree *s = &m->part[i];
		char dl[48], pc[32];
		tg_diff_format_value(dl, sizeof(dl), TG_METRIC_KERNEL_TIME, (s->next - s->base) * 1e3);
		tg_diff_fmt_pct(pc, sizeof(pc), s->base > 0 ? 100.0 * (s->next - s->base) / s->base : INFINITY);
		fputs(i == 0 ? "" : i == nch - 1 ? " and " : ", ", f);
		tg_md_name(f, s->path, NAME_MAX_MD);
		fprintf(f, " +%s (%s)", dl, pc);
	}
	char dd[48], od[48];
	tg_diff_format_value(dd, sizeof(dd), TG_METRIC_KERNEL_TIME, m->change * 1e3);
	tg_diff_format_value(od, sizeof(od), TG_METRIC_KERNEL_TIME, m->outside_change * 1e3);
	fprintf(f,
	        " per step: %.0f %% of the +%s change of the kernels run inside nn.Modules (kernels outside "
	        "every module, such as the backward pass and the optimizer: %s%s).\n",
	        100.0 * m->held / m->change, dd, m->outside_change >= 0 ? "+" : "", od);
	return 1;
}

/* The kernels no op launched: how much of the time, and how it moved;
 * they are kept out of the ops table (docs/diff.md). Returns 1 when
 * there are some. */
static int md_no_launcher(FILE *f, const tg_diff_doc *d)
{
	const tg_judged *x = d->tables->no_launcher;
	double share = d->tables->no_launcher_share;
	if (!x)
		return 0;
	char b[48], nx[48], pc[32], ci[48];
	tg_diff_format_value(b, sizeof(b), TG_METRIC_KERNEL_TIME, x->base);
	tg_diff_format_value(nx, sizeof(nx), TG_METRIC_KERNEL_TIME, x->next);
	tg_diff_fmt_pct(pc, sizeof(pc), x->pct);
	tg_diff_fmt_ci(ci, sizeof(ci), x);
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
	size_t cb = d->tables->side[0].outside, cn = d->tables->side[1].outside;
	int64_t nb = d->tables->side[0].outside_ns, nn = d->tables->side[1].outside_ns;
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
	tg_diff_md_divergence_sentences(g, d->divergences);
	md_module_sentence(g, d);
	md_no_launcher(g, d);
	md_outside(g, d);
	if (!fclose(g) && len) {
		fputs("\n#### What changed\n\n", f);
		fwrite(buf, 1, len, f);
	}
	free(buf);
}

/* The kernel time per step by one grouping (by, of the document's
 * tables), its first limit rows, folded. */
static void md_table_details(FILE *f, const tg_diff_doc *d, int by, size_t limit)
{
	const tg_table *t = d->tables->by[by];
	size_t nr = tg_table_nrows(t);
	fprintf(f, "\n<details><summary>Kernel time per step by %s (%zu rows)</summary>\n\n", d->tables->by_name[by],
	        nr);
	tg_diff_md_table_rows(f, t, limit);
	if (nr > limit)
		fprintf(f, "\n%zu more rows in the json.\n", nr - limit);
	fputs("\n</details>\n", f);
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
	tg_diff_ranks_line(f, j, 1);
	tg_diff_not_judged_line(f, j, 1);
	tg_diff_categories_from(f, d, 1);
	char nl[1024];
	tg_diff_noise_line(nl, sizeof(nl), j, "\xc2\xb1");
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
		tg_diff_md_divergence_table(f, d->divergences, show);
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
		tg_diff_md_divergence_table(f, d->divergences, detail_rows);
		fputs("\n</details>\n", f);
	}
	fputs("\n#### Kernel time per step\n\nCounts and times are per `ProfilerStep` (a trace without steps is one "
	      "step): the kernels inside the steps over the number of steps, as the rules count them; a count "
	      "with decimals is a mean over steps whose kernels differ.\n",
	      f);
	for (int by = 0; by < TG_DIFF_BY_COUNT; by++)
		md_table_details(f, d, by, detail_rows);
}

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
static char *md_build(const tg_diff_doc *d, size_t detail_rows, int with_divergence, int with_improvements, size_t *len)
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
	md_ops(f, d, with_improvements);
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
	if (!d->tables)
		return tg_error_set(TG_EINVAL, "a diff document without its tables (diff_tables.h)");
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		free(buf);
		buf = md_build(d, rows[k], k < 4, k < 4, &len);
		if (!buf)
			return tg_error_set(TG_ENOMEM, "out of memory rendering the comment");
		if (len + 200 <= max_bytes)
			break;
		trimmed = 1;
	}
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

