/* report.c - assembles the tables of the perf report. */
#include "report.h"
#include "kernel_categories.h"
#include "breakdown.h"
#include "collectives.h"
#include "host_syncs.h"
#include "launch_stats.h"
#include "launchers.h"
#include "memory.h"
#include "perf_model.h"
#include "perf_sheets.h"
#include "short_kernels.h"
#include "stream_timeline.h"
#include "timeline.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(tg_report *r, size_t *cap, tg_table *t)
{
	if (!t)
		return TG_ENOMEM;
	if (tg_grow((void **)&r->tables, cap, r->n + 1, sizeof(tg_table *))) {
		tg_table_free(t);
		return TG_ENOMEM;
	}
	r->tables[r->n++] = t;
	return 0;
}

/* The first timestamp of the trace, base of the exact time base. */
static int64_t first_ts(const tg_trace *t)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	int64_t m = ne ? ev[0].ts : 0;
	for (size_t i = 1; i < ne; i++)
		if (ev[i].ts < m)
			m = ev[i].ts;
	return m;
}

int tg_report_gpu_spec(const tg_gpu_spec **out, const tg_tree *tree, const tg_report_opts *opts)
{
	*out = NULL;
	if (!opts->gpu_specs)
		return 0;
	if (opts->gpu)
		return tg_gpu_specs_find(out, opts->gpu_specs, opts->gpu);
	const tg_trace *t = tg_tree_trace(tree);
	size_t nd;
	const tg_device *d = tg_trace_devices(t, &nd);
	if (nd && tg_gpu_specs_match_device(out, opts->gpu_specs, t, &d[0])) {
		*out = NULL;
		tg_error_clear();
	}
	return 0;
}

/* The perf sheets (GEMM, SDPA_fwd, ...) of the tree, with the roofline
 * when the GPU is known. */
static int add_perf_sheets(tg_report *r, size_t *cap, const tg_tree *tree, const tg_timebase *tb,
                           const tg_report_opts *opts)
{
	const tg_gpu_spec *spec;
	int rc = tg_report_gpu_spec(&spec, tree, opts);
	if (rc)
		return rc;
	tg_table **tabs;
	size_t n;
	if ((rc = tg_perf_sheets(&tabs, &n, tree, tb, opts->step, spec)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (rc)
			tg_table_free(tabs[i]);
		else
			rc = add(r, cap, tabs[i]);
	}
	free(tabs);
	return rc;
}

/* coll_per_rank and coll_analysis, when the trace (or the step: a step
 * index, -1 for the whole trace) has collectives. */
static int add_collectives(tg_report *r, size_t *cap, const tg_tree *tree, int32_t step)
{
	tg_table *tabs[2];
	size_t ns;
	const tg_step *steps = tg_tree_steps(tree, &ns);
	int64_t number = step >= 0 && (size_t)step < ns ? steps[step].number : -1;
	int rc = tg_collectives_rank_tables(tabs, &tree, 1, number);
	if (rc)
		return rc;
	for (int i = 0; i < 2; i++) {
		if (rc || !tg_table_nrows(tabs[i]))
			tg_table_free(tabs[i]);
		else
			rc = add(r, cap, tabs[i]);
	}
	return rc;
}

/* The launch statistics without the per-launch table (as long as the trace). */
static int launch_stats_summaries(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step)
{
	return tg_launch_stats_tables_ex(out, n, tree, step, 0);
}

/* The second half of the report, on a thread of its own: the perf sheets,
 * the collectives and the HTA-style analyses read the same tree (const) as
 * the first half; each half fills its own list, joined in the tables'
 * fixed order. Error messages are per thread: the worker keeps its own. */
struct half {
	const tg_tree *tree;
	const tg_report_opts *opts;
	tg_timebase tb;
	tg_report r;
	int rc;
	char msg[1024];
};

static void *second_half(void *arg)
{
	struct half *h = arg;
	size_t cap = 0;
	int rc = add_perf_sheets(&h->r, &cap, h->tree, &h->tb, h->opts);
	if (!rc)
		rc = add_collectives(&h->r, &cap, h->tree, h->opts->step);
	/* HTA-style analyses; the one-row-per-launch table is left to the API */
	typedef int (*tables_fn)(tg_table ***, size_t *, const tg_tree *, int32_t);
	static const tables_fn fns[] = {tg_breakdown_tables, launch_stats_summaries, tg_host_syncs_tables,
	                                tg_memory_tables};
	for (size_t f = 0; !rc && f < sizeof(fns) / sizeof(fns[0]); f++) {
		tg_table **tabs;
		size_t n;
		if ((rc = fns[f](&tabs, &n, h->tree, h->opts->step)))
			break;
		for (size_t i = 0; i < n; i++) {
			if (rc || !strcmp(tg_table_name(tabs[i]), "kernel_launches")) {
				tg_table_free(tabs[i]);
				continue;
			}
			rc = add(&h->r, &cap, tabs[i]);
		}
		free(tabs);
	}
	if (rc) {
		snprintf(h->msg, sizeof(h->msg), "%s", tg_error_last());
		tg_report_free(&h->r);
	}
	h->rc = rc;
	return NULL;
}

/* The findings of tree into out->findings, reusing the report's perf
 * sheets (exact time base only: TraceLens's mode links kernels its own way). */
static int add_findings(tg_report *out, const tg_tree *tree, const tg_report_opts *opts)
{
	tg_findings_opts fo;
	if (opts->findings)
		fo = *opts->findings;
	else
		tg_findings_opts_default(&fo);
	const tg_gpu_spec *spec;
	int rc = tg_report_gpu_spec(&spec, tree, opts);
	if (rc)
		return rc;
	if (spec)
		fo.gpu = spec;
	const tg_table *sheets[TG_PERF_KIND_COUNT];
	size_t ns = 0;
	for (int k = TG_PERF_NONE + 1; !opts->tracelens && k < TG_PERF_KIND_COUNT; k++) {
		const tg_table *t = tg_report_find(out, tg_perf_sheet_name((tg_perf_kind)k));
		if (t)
			sheets[ns++] = t;
	}
	if (!opts->tracelens) {
		fo.sheets = sheets;
		fo.nsheets = ns;
	}
	return tg_findings_compute(&out->findings, tree, &fo, opts->step, opts->findings_alone);
}

int tg_report_build(tg_report *out, const tg_tree *tree, const tg_report_opts *opts)
{
	memset(out, 0, sizeof(*out));
	size_t cap = 0;
	tg_timebase tb = {.tracelens_float = opts->tracelens, .base_ns = first_ts(tg_tree_trace(tree))};
	struct half h = {tree, opts, tb, {0}, 0, ""};
	pthread_t th;
	int threaded = pthread_create(&th, NULL, second_half, &h) == 0;
	if (!threaded)
		second_half(&h); /* no thread to be had: one after the other */
	tg_timeline_opts to = {.tb = tb, .step = opts->step, .device = -1, .include_unlinked = opts->include_unlinked};
	tg_gpu_timeline tl;
	tg_table *t = NULL;
	tg_launchers *l = NULL;
	int rc;
	if ((rc = tg_gpu_timeline_compute(&tl, tree, &to)) || (rc = tg_gpu_timeline_table(&t, &tl)) ||
	    (rc = add(out, &cap, t)))
		goto done;
	if ((rc = tg_gpu_timeline_by_device_table(&t, tree, &to)) || (rc = add(out, &cap, t)))
		goto done;
	tg_launchers_opts lo = {.tb = tb, .step = opts->step, .tracelens_compat = opts->tracelens};
	if ((rc = tg_launchers_build(&l, tree, &lo)))
		goto done;
	if ((rc = tg_launchers_ops_by_category(&t, l)) || (rc = add(out, &cap, t)) ||
	    (rc = tg_launchers_ops_summary(&t, l)) || (rc = add(out, &cap, t)) ||
	    (rc = tg_launchers_unique_args(&t, l)) || (rc = add(out, &cap, t)) ||
	    (rc = tg_launchers_kernel_summary(&t, l, tl.total_us)) || (rc = add(out, &cap, t)))
		goto done;
	/* the default classification's categories, and their evidence */
	if (!opts->tracelens &&
	    ((rc = tg_kernel_categories_table(&t, NULL, tree, l, opts->step)) || (rc = add(out, &cap, t))))
		goto done;
	{
		tg_short_kernel_opts so = {.step = opts->step, .tracelens = opts->tracelens, .total_time_us = tl.total_us};
		tg_table *sk[2];
		if ((rc = tg_short_kernel_tables(sk, tree, &so)))
			goto done;
		if ((rc = add(out, &cap, sk[0]))) {
			tg_table_free(sk[1]);
			goto done;
		}
		if ((rc = add(out, &cap, sk[1])))
			goto done;
	}
	if (opts->streams && (rc = tg_stream_timeline_build(&out->streams, tree, opts->step, opts->include_unlinked)))
		goto done;
done:
	tg_launchers_free(l);
	if (threaded)
		pthread_join(th, NULL);
	if (!rc && h.rc) {
		rc = tg_error_set(h.rc, "%s", h.msg);
	}
	for (size_t i = 0; !rc && i < h.r.n; i++) {
		rc = add(out, &cap, h.r.tables[i]);
		h.r.tables[i] = NULL;
	}
	tg_tables_free(h.r.tables, h.r.n);
	if (!rc && !opts->no_findings)
		rc = add_findings(out, tree, opts);
	if (rc)
		tg_report_free(out);
	return rc;
}

const tg_table *tg_report_find(const tg_report *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(tg_table_name(r->tables[i]), name))
			return r->tables[i];
	return NULL;
}

void tg_report_free(tg_report *r)
{
	tg_tables_free(r->tables, r->n);
	tg_findings_free(r->findings);
	tg_stream_timeline_free(r->streams);
	r->tables = NULL;
	r->n = 0;
	r->findings = NULL;
	r->streams = NULL;
}
