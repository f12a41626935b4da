/*
 * comment.c - what the daemon adds to the gate's pull-request comment: the
 * baseline, the accepted regressions, and the target branch's history of
 * the failing rules as Mermaid charts (daemon_impl.h:
 * tg_daemon_comment_extra).
 */
#include "../core/table.h"
#include "daemon_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHARTS 3

/* One xychart-beta of rule r: the history points, then this run. */
static void chart(FILE *f, const tg_rule *r, const tg_history_point *p, size_t n, double now, const char *target)
{
	const char *unit = tg_run_metric_unit(r->metric);
	fprintf(f, "\n```mermaid\nxychart-beta\n    title \"%s: %s per step%s%s%s\"\n", r->name,
	        tg_rule_metric_name(r->metric), *unit ? " (" : "", unit, *unit ? ")" : "");
	fputs("    x-axis [", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "\"%.7s\", ", p[i].commit);
	fputs("\"this PR\"]\n", f);
	double lo = now, hi = now;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, p[i].value);
		hi = fmax(hi, p[i].value);
	}
	double pad = (hi - lo) * 0.15 + fabs(hi) * 0.01 + 1e-9;
	fprintf(f, "    y-axis \"%s\" %.6g --> %.6g\n", *unit ? unit : "value", fmax(0, lo - pad), hi + pad);
	fputs("    line [", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.6g, ", p[i].value);
	fprintf(f, "%.6g]\n```\n", now);
	(void)target;
}

static int history_charts(FILE *f, tg_daemon *d, const tg_job *j, const char *target, const tg_gate *g)
{
	size_t n;
	const tg_judged *it = tg_judgement_items(tg_gate_judgement(g), &n);
	int charts = 0;
	for (size_t i = 0; i < n && charts < MAX_CHARTS; i++) {
		const tg_judged *x = &it[i];
		if (x->rule->aggregate != TG_AGG_TOTAL || x->accepted ||
		    (x->verdict != TG_VERDICT_BLOCK && x->verdict != TG_VERDICT_WARN))
			continue;
		char metric[256];
		snprintf(metric, sizeof(metric), "rule:%s", x->rule->name);
		tg_history_point *p = NULL;
		size_t np = 0;
		int rc = tg_store_history(d->store, j->repo, target, j->workload, metric, (size_t)d->cfg->history_points,
		                          &p, &np);
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
			chart(f, x->rule, p, np, tg_run_metric_display(x->rule->metric, x->next), target);
			charts++;
		}
		tg_history_free(p, np);
	}
	return 0;
}

int tg_daemon_comment_extra(char **out, tg_daemon *d, const tg_config_repo *repo, const tg_job *j,
                            const tg_job *base, int distance, const char *merge_base, const tg_gate *g,
                            const char *accept_notes)
{
	*out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	if (!f)
		return tg_error_set(TG_ENOMEM, "out of memory");
	const char *target = j->target_branch && *j->target_branch ? j->target_branch
	                     : repo->ntarget_branches               ? repo->target_branches[0]
	                                                            : "main";
	if (base) {
		fprintf(f, "Baseline: `%.12s` on ", base->commit);
		tg_md_code(f, target);
		fputs(", run ", f);
		tg_md_code(f, base->run_id);
		if (distance == 0 && merge_base && !strcmp(merge_base, base->commit))
			fputs(" (the merge-base).\n", f);
		else if (merge_base && *merge_base)
			fprintf(f, " (%d commit%s before the merge-base `%.12s`).\n", distance, distance == 1 ? "" : "s",
			        merge_base);
		else
			fputs(".\n", f);
	}
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
