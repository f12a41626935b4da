/*
 * diff_render_text.c - a diff for a terminal (tg_diff_write_text): the
 * verdict, each side's traces, steps, GPU and runtime, the rules' results,
 * the findings, the critical path, the divergences and the first rows of
 * the kernel time tables. It reads the computed document (diff_render.h,
 * diff_tables.h) and formats it.
 */
#include "diff_render_impl.h"

#include <stdio.h>

/* The first rows of the kernel time tables (op + shapes is left to the
 * json: too many rows for a terminal). */
#define TEXT_ROWS 15

/* The verdict and each side: traces, steps, GPU, runtime; whether the
 * hardware changed. */
static void text_head(FILE *f, const tg_diff_doc *d)
{
	const tg_judgement *j = d->judgement;
	const tg_diff_tables *t = d->tables;
	fprintf(f, "tracegate diff: %s\n", tg_judgement_summary(j));
	const tg_fingerprint *a = t->side[0].fp, *b = t->side[1].fp;
	char ra[64], rb[64];
	tg_fingerprint_runtime_text(ra, sizeof(ra), a->runtime[0] ? a->runtime : "unknown runtime");
	tg_fingerprint_runtime_text(rb, sizeof(rb), b->runtime[0] ? b->runtime : "unknown runtime");
	fprintf(f, "base: %zu trace(s), %zu step(s), %s, %s\n", d->nbase, t->side[0].steps,
	        a->gpu[0] ? a->gpu : "unknown GPU", ra);
	fprintf(f, "new:  %zu trace(s), %zu step(s), %s, %s\n", d->nnew, t->side[1].steps,
	        b->gpu[0] ? b->gpu : "unknown GPU", rb);
	const char *why;
	if (tg_judgement_comparable(j, &why) && why[0])
		fprintf(f, "hardware changed (allowed): %s\n", why);
	else if (!tg_judgement_comparable(j, &why))
		fprintf(f, "not comparable: %s\n", why);
}

/* The rules' results (the passing items of each rules past the first 40
 * left out), the ranks, what no rule judges, where the judged categories
 * came from, the noise and the rules that matched nothing. */
static void text_rules(FILE *f, const tg_diff_doc *d)
{
	const tg_judgement *j = d->judgement;
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	fprintf(f, "\n%-20s %-40s %-15s %12s %12s %9s %19s %13s  %s\n", "rule", "item", "metric", "base", "new", "change",
	        "CI", "samples", "verdict");
	size_t hidden_ranks = 0;
	for (size_t i = 0; i < n; i++) {
		const tg_judged *x = &it[i];
		if (x->rule->aggregate == TG_AGG_EACH && x->verdict == TG_VERDICT_PASS && !x->improved && i > 40)
			continue;
		if (x->rank >= 0 && !tg_diff_listed(x)) {
			hidden_ranks++;
			continue;
		}
		char bv[48], nv[48], pc[32], ci[48], smp[32], il[48];
		tg_diff_format_value(bv, sizeof(bv), x->rule->metric, x->base);
		tg_diff_format_value(nv, sizeof(nv), x->rule->metric, x->next);
		tg_diff_fmt_pct(pc, sizeof(pc), x->pct);
		tg_diff_fmt_ci(ci, sizeof(ci), x);
		snprintf(smp, sizeof(smp), "%zu/%zu", x->nbase, x->nnext);
		fprintf(f, "%-20.20s %-40.40s %-15s %12s %12s %9s %19s %13s  %s%s%s%s\n", x->rule->name,
		        tg_diff_item_label(il, sizeof(il), x), tg_rule_metric_name(x->rule->metric), bv, nv, pc, ci,
		        smp, tg_diff_verdict_word(x), x->note[0] ? " (" : "", x->note, x->note[0] ? ")" : "");
	}
	if (hidden_ranks)
		fprintf(f, "%zu per-rank items pass (each total rule judged on every rank alone too)\n", hidden_ranks);
	tg_diff_ranks_line(f, j, 0);
	tg_diff_not_judged_line(f, j, 0);
	tg_diff_categories_from(f, d, 0);
	char nl[1024];
	tg_diff_noise_line(nl, sizeof(nl), j, "+-");
	if (nl[0])
		fprintf(f, "%s\n", nl);
	size_t nu;
	const char *const *un = tg_judgement_unmatched(j, &nu);
	for (size_t i = 0; i < nu; i++)
		fprintf(f, "warning: rule %s matches nothing in either trace\n", un[i]);
}

int tg_diff_write_text(FILE *f, const tg_diff_doc *d)
{
	if (!d->tables)
		return tg_error_set(TG_EINVAL, "a diff document without its tables (diff_tables.h)");
	text_head(f, d);
	text_rules(f, d);
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
	for (int by = 0; by < TG_DIFF_BY_COUNT; by++) {
		if (by == TG_DIFF_BY_OP_SHAPE)
			continue;
		fputs("\n", f);
		tg_table_write_text_rows(d->tables->by[by], f, 80, TEXT_ROWS);
	}
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}
