/*
 * summary.c - the one-screen summary of a report (summary.h), gathered
 * where the report is built: read from the report's own tables, so that
 * the summary and the tables below it can never disagree, from the
 * tree's steps, which no table holds, and from the report's findings
 * (the fired ones that cost the most a step). render/report_summary.c
 * writes it.
 */
#include "summary.h"
#include "../../util/tg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double num(const tg_table *t, size_t row, int col)
{
	if (col < 0)
		return NAN;
	const tg_cell *c = tg_table_cell(t, row, (size_t)col);
	return c->type == TG_CELL_NUM ? c->v.d : c->type == TG_CELL_INT ? (double)c->v.i : NAN;
}

static const char *str(const tg_table *t, size_t row, int col)
{
	if (col < 0)
		return NULL;
	const tg_cell *c = tg_table_cell(t, row, (size_t)col);
	return c->type == TG_CELL_STR ? c->v.s : NULL;
}

/* The GPU timeline's rows: total, busy, idle and what the busy time was. */
static void from_timeline(tg_report_summary *s, const tg_table *t)
{
	int type = tg_table_find_column(t, "type"), ms = tg_table_find_column(t, "time ms"),
	    pct = tg_table_find_column(t, "percent");
	if (type < 0 || ms < 0 || pct < 0)
		return;
	static const char *const rows[] = {"total_time",       "busy_time",         "idle_time",
	                                   "computation_time", "exposed_comm_time", "exposed_memcpy_time"};
	double *ms_of[] = {&s->total_ms,       &s->busy_ms,         &s->idle_ms,
	                   &s->computation_ms, &s->exposed_comm_ms, &s->exposed_memcpy_ms};
	for (size_t r = 0; r < tg_table_nrows(t); r++) {
		const char *name = str(t, r, type);
		for (size_t k = 0; name && k < sizeof(rows) / sizeof(rows[0]); k++) {
			if (strcmp(name, rows[k]))
				continue;
			*ms_of[k] = num(t, r, ms);
			if (k == 1)
				s->busy_pct = num(t, r, pct);
			if (k == 2)
				s->idle_pct = num(t, r, pct);
			s->has_timeline = 1;
		}
	}
}

/* The first TG_SUMMARY_TOP rows of a table sorted by kernel time (the
 * report's are) into items. */
static size_t top_rows(tg_summary_item *items, const tg_table *t, const char *name_col, const char *cat_col,
                       const char *calls_col)
{
	int nm = tg_table_find_column(t, name_col), ms = tg_table_find_column(t, "total_direct_kernel_time_ms"),
	    pct = tg_table_find_column(t, "Percentage (%)"), cat = cat_col ? tg_table_find_column(t, cat_col) : -1,
	    calls = calls_col ? tg_table_find_column(t, calls_col) : -1;
	size_t n = 0;
	if (nm < 0 || ms < 0)
		return 0;
	for (size_t r = 0; r < tg_table_nrows(t) && n < TG_SUMMARY_TOP; r++) {
		const char *name = str(t, r, nm);
		if (!name)
			continue;
		double c = num(t, r, calls);
		items[n++] = (tg_summary_item){name, str(t, r, cat), num(t, r, ms), num(t, r, pct),
		                               isnan(c) ? -1 : (int64_t)c};
	}
	return n;
}

/* The fired findings, the costliest a step first (a finding without an
 * estimate last), at most TG_SUMMARY_TOP. */
static void top_findings(tg_report_summary *s, const tg_findings *fs)
{
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	for (size_t i = 0; i < n; i++) {
		if (v[i].status != TG_FINDING_FIRED)
			continue;
		s->nfired++;
		double c = isnan(v[i].cost_ns) ? -1 : v[i].cost_ns;
		size_t k = s->nfindings;
		while (k > 0 && (isnan(s->findings[k - 1]->cost_ns) ? -1 : s->findings[k - 1]->cost_ns) < c)
			k--;
		if (k == TG_SUMMARY_TOP)
			continue;
		size_t last = s->nfindings < TG_SUMMARY_TOP ? s->nfindings : TG_SUMMARY_TOP - 1;
		for (size_t j = last; j > k; j--)
			s->findings[j] = s->findings[j - 1];
		s->findings[k] = &v[i];
		if (s->nfindings < TG_SUMMARY_TOP)
			s->nfindings++;
	}
}

/* The steps summarised: every ProfilerStep, or the one of --step. */
static void from_steps(tg_report_summary *s, const tg_tree *tree, int32_t step)
{
	size_t ns;
	const tg_step *st = tg_tree_steps(tree, &ns);
	size_t from = 0, to = ns;
	if (step >= 0 && (size_t)step < ns) {
		from = (size_t)step;
		to = from + 1;
	}
	double sum = 0;
	for (size_t i = from; i < to; i++) {
		double ms = (double)st[i].dur / 1e6;
		if (i == from || ms < s->step_min_ms)
			s->step_min_ms = ms;
		if (i == from || ms > s->step_max_ms)
			s->step_max_ms = ms;
		sum += ms;
	}
	s->nsteps = to - from;
	if (s->nsteps) {
		s->first_step = st[from].number;
		s->last_step = st[to - 1].number;
		s->step_mean_ms = sum / (double)s->nsteps;
	}
}

void tg_report_summary_build(tg_report_summary *out, const tg_report *r, const tg_tree *tree, int32_t step)
{
	memset(out, 0, sizeof(*out));
	const tg_trace *t = tg_tree_trace(tree);
	size_t nd;
	const tg_device *d = tg_trace_devices(t, &nd);
	if (nd)
		snprintf(out->gpu, sizeof(out->gpu), "%s", tg_trace_str(t, d[0].name));
	from_steps(out, tree, step);
	const tg_table *x;
	if ((x = tg_report_find(r, "gpu_timeline")))
		from_timeline(out, x);
	if ((x = tg_report_find(r, "gpu_timeline_by_device")))
		out->ndevices = tg_table_nrows(x);
	if ((x = tg_report_find(r, "ops_summary_by_category")))
		out->ncategories = top_rows(out->categories, x, "op category", NULL, NULL);
	if ((x = tg_report_find(r, "ops_summary")))
		out->nops = top_rows(out->ops, x, "name", "Categories", "Count");
	if (r->findings)
		top_findings(out, r->findings);
}
