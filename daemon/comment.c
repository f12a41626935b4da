/*
 * comment.c - what the daemon adds to the gate's pull-request comment: why
 * the baseline is the one compared (a phrase for the compared table's
 * source cell: tg_daemon_baseline_why), the accepted regressions, and the
 * target branch's history of the failing rules as Mermaid charts
 * (daemon_impl.h: tg_daemon_comment_extra).
 */
#include "../core/analysis/table.h"
#include "../util/escape.h"
#include "daemon_impl.h"
#include "history/history_noise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHARTS 3

/* One xychart-beta of rule r: the target branch's recent runs and this
 * run, in percent of the baseline's value (base), so that 1 % of noise
 * looks like 1 %; with the rule's threshold and the branch's noise band
 * (+-2 sd of one run, from the run-to-run differences: 1.4826 x their
 * median / sqrt 2, as the history page draws it) as flat lines, in colours
 * that read on white (docs/comment.md). */
static void chart(FILE *f, const tg_rule *r, const tg_history_point *p, size_t n, double now, double base)
{
	if (!(base > 0) || !isfinite(base))
		return;
	int lower_worse = r->metric == TG_METRIC_TFLOPS || r->metric == TG_METRIC_TBS;
	double thr = !isnan(r->block_above) ? r->block_above : r->warn_above;
	double line_at = isnan(thr) ? NAN : lower_worse ? 100.0 - thr : 100.0 + thr;
	/* the noise of one run from consecutive differences (robust), in % of base */
	double *val = n > 2 ? calloc(n, sizeof(double)) : NULL;
	double sd = NAN;
	if (val) {
		for (size_t i = 0; i < n; i++)
			val[i] = p[i].value;
		if (tg_history_noise_sigma(&sd, val, n, base))
			sd = NAN;
		free(val);
	}
	double lo = 100.0 * now / base, hi = lo;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, 100.0 * p[i].value / base);
		hi = fmax(hi, 100.0 * p[i].value / base);
	}
	if (!isnan(line_at)) {
		lo = fmin(lo, line_at);
		hi = fmax(hi, line_at);
	}
	if (!isnan(sd)) {
		lo = fmin(lo, 100.0 - 2 * sd);
		hi = fmax(hi, 100.0 + 2 * sd);
	}
	/* at least +-5 % around the baseline: a flat line stays flat */
	lo = fmin(lo, 95.0) - 1.0;
	hi = fmax(hi, 105.0) + 1.0;
	fputs("\n```mermaid\n%%{init: {\"themeVariables\": {\"xyChart\": {\"plotColorPalette\": "
	      "\"#0550ae, #cf222e, #6e7781, #6e7781\"}}}}%%\nxychart-beta\n",
	      f);
	fprintf(f, "    title \"%s: %s per step, %% of the baseline\"\n", r->name, tg_rule_metric_name(r->metric));
	fputs("    x-axis [", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "\"%.7s\", ", p[i].commit);
	fputs("\"this PR\"]\n", f);
	fprintf(f, "    y-axis \"%% of the baseline\" %.1f --> %.1f\n", fmax(0, lo), hi);
	fputs("    line [", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.2f, ", 100.0 * p[i].value / base);
	fprintf(f, "%.2f]\n", 100.0 * now / base);
	if (!isnan(line_at)) {
		fputs("    line [", f);
		for (size_t i = 0; i <= n; i++)
			fprintf(f, "%.2f%s", line_at, i < n ? ", " : "]\n");
	}
	if (!isnan(sd))
		for (int s = -1; s <= 1; s += 2) {
			fputs("    line [", f);
			for (size_t i = 0; i <= n; i++)
				fprintf(f, "%.2f%s", 100.0 + 2.0 * s * sd, i < n ? ", " : "]\n");
		}
	fputs("```\n\n", f);
	fputs("Blue: the branch's runs and this pull request, in % of the baseline", f);
	if (!isnan(line_at))
		fprintf(f, "; red: the %s threshold (%.4g %%)", !isnan(r->block_above) ? "block" : "warn", line_at);
	if (!isnan(sd))
		fprintf(f, "; grey: the branch's noise band, \xc2\xb1%.1f %% (2 sd of one run)", 2 * sd);
	fputs(".\n", f);
}

static int history_charts(FILE *f, tg_daemon *d, const tg_job *j, const char *target, const tg_gate *g)
{
	size_t n;
	const tg_judged *it = tg_judgement_items(tg_gate_judgement(g), &n);
	int charts = 0;
	for (size_t i = 0; i < n && charts < MAX_CHARTS; i++) {
		const tg_judged *x = &it[i];
		if (x->rule->aggregate != TG_AGG_TOTAL || x->rank >= 0 || x->accepted ||
		    (x->verdict != TG_VERDICT_BLOCK && x->verdict != TG_VERDICT_WARN))
			continue; /* the history holds the rule's own value, not a rank's */
		char metric[256];
		snprintf(metric, sizeof(metric), "rule:%s", x->rule->name);
		tg_history_point *p = NULL;
		size_t np = 0;
		int rc = tg_store_history(&p, &np, d->store, j->repo, target, j->workload, metric,
		                          (size_t)d->cfg->history_points);
		if (rc)
			return rc;
		if (np) {
			if (!charts) {
				fputs("\n#### Recent history of ", f);
				tg_md_code(f, target);
				fputs(" (", f);
				tg_md_escape(f, j->workload);
				fputs(")\n", f);
			}
			chart(f, x->rule, p, np, tg_run_metric_display(x->rule->metric, x->next),
			      tg_run_metric_display(x->rule->metric, x->base));
			charts++;
		}
		tg_history_free(p, np);
	}
	return 0;
}

void tg_daemon_baseline_why(char *buf, size_t cap, const tg_job *j, const tg_job *base, int distance,
                            const char *merge_base)
{
	buf[0] = 0;
	if (!base || !base->commit || !merge_base || !*merge_base || distance < 0)
		return;
	if (!strcmp(merge_base, base->commit)) {
		snprintf(buf, cap, "the merge-base");
		return;
	}
	/* a commit that is its own merge-base is skipped by the walk, so the
	 * distance counts from its first parent */
	if (j && j->commit && !strcmp(merge_base, j->commit)) {
		snprintf(buf, cap, "%d commit%s before this one", distance + 1, distance + 1 == 1 ? "" : "s");
		return;
	}
	snprintf(buf, cap, "%d commit%s before the merge-base <code>%.7s</code>", distance, distance == 1 ? "" : "s",
	         merge_base);
}

int tg_daemon_comment_extra(char **out, tg_daemon *d, const tg_config_repo *repo, const tg_job *j,
                            const tg_gate *g, const char *accept_notes)
{
	*out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	if (!f)
		return tg_error_set(TG_ENOMEM, "out of memory");
	const char *target = j->target_branch && *j->target_branch ? j->target_branch
	                     : repo->ntarget_branches               ? repo->target_branches[0]
	                                                            : "main";
	if (accept_notes && *accept_notes)
		fputs(accept_notes, f);
	int rc = g ? history_charts(f, d, j, target, g) : 0;
	if (fclose(f) && !rc)
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}
