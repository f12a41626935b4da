/*
 * diff_render.c - what the text, md and json renderings of a diff share
 * (diff_render_impl.h): values with their units, changes and intervals,
 * the labels of results, the noise, not-judged, ranks and category-origin
 * lines, and the footer's docs URL. The renderings themselves are
 * diff_render_text.c, diff_render_md.c (with diff_render_md_names.c) and
 * diff_render_json.c; all of them only read the computed document.
 */
#include "../util/escape.h"
#include "diff_render_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void tg_diff_fmt_pct(char *buf, size_t cap, double p)
{
	if (isnan(p))
		snprintf(buf, cap, "-");
	else if (isinf(p))
		snprintf(buf, cap, p > 0 ? "new" : "gone");
	else
		snprintf(buf, cap, "%+.1f %%", p);
}

void tg_diff_fmt_ci(char *buf, size_t cap, const tg_judged *j)
{
	if (isnan(j->pct_lo))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%+.1f..%+.1f %%", j->pct_lo, j->pct_hi);
}

const char *tg_diff_item_label(char *buf, size_t cap, const tg_judged *x)
{
	if (x->item[0])
		return x->item;
	if (x->rank >= 0) {
		snprintf(buf, cap, "(rank %lld)", (long long)x->rank);
		return buf;
	}
	return "(total)";
}

int tg_diff_listed(const tg_judged *x)
{
	int each = x->rule->aggregate == TG_AGG_EACH;
	return !(each || x->rank >= 0) || x->verdict != TG_VERDICT_PASS || x->improved || x->accepted;
}

const char *tg_diff_verdict_word(const tg_judged *j)
{
	if (j->accepted)
		return "accepted";
	if (j->verdict == TG_VERDICT_PASS && j->improved)
		return "improved";
	return tg_verdict_name(j->verdict);
}

/* The noise of each total rule that has one, and the runs; or, with one
 * run a side and nothing else known, what the intervals leave out. */
void tg_diff_noise_line(char *buf, size_t cap, const tg_judgement *j, const char *pm)
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

void tg_diff_not_judged_line(FILE *f, const tg_judgement *j, int md)
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

/* rank_compare.h's summary of the ranks */
void tg_diff_ranks_line(FILE *f, const tg_judgement *j, int md)
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

void tg_diff_categories_from(FILE *f, const tg_diff_doc *d, int md)
{
	const tg_diff_tables *t = d->tables;
	for (size_t i = 0; i < t->nrule_from; i++) {
		const tg_diff_rule_from *r = &t->rule_from[i];
		if (i)
			fputs("; ", f);
		else if (md)
			fputs("\nWhere the judged categories came from: ", f);
		else
			fputs("where the judged categories came from: ", f);
		if (md) {
			tg_md_escape(f, r->category);
			fputs(" ", f);
			tg_md_escape(f, r->from);
		} else {
			fprintf(f, "%s %s", r->category, r->from);
		}
	}
	if (t->nrule_from)
		fputs(md ? " (docs/categories.md).\n" : "\n", f);
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
