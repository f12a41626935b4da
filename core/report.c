/* report.c - assembles the tables of the perf report. */
#include "report.h"
#include "breakdown.h"
#include "collectives.h"
#include "host_syncs.h"
#include "launch_stats.h"
#include "launchers.h"
#include "memory.h"
#include "perf_sheets.h"
#include "short_kernels.h"
#include "timeline.h"

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

/* coll_per_rank and coll_analysis, when the trace has collectives. */
static int add_collectives(tg_report *r, size_t *cap, const tg_tree *tree)
{
	tg_table *tabs[2];
	int rc = tg_collectives_rank_tables(tabs, &tree, 1);
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

int tg_report_build(tg_report *out, const tg_tree *tree, const tg_report_opts *opts)
{
	memset(out, 0, sizeof(*out));
	size_t cap = 0;
	tg_timebase tb = {.tracelens_float = opts->tracelens, .base_ns = first_ts(tg_tree_trace(tree))};
	tg_timeline_opts to = {.tb = tb, .step = opts->step, .device = -1,
	                       .include_unlinked = opts->include_unlinked};
	tg_gpu_timeline tl;
	tg_table *t = NULL;
	tg_launchers *l = NULL;
	int rc;
	if ((rc = tg_gpu_timeline_compute(&tl, tree, &to)) || (rc = tg_gpu_timeline_table(&t, &tl)) ||
	    (rc = add(out, &cap, t)))
		goto fail;
	if ((rc = tg_gpu_timeline_by_device_table(&t, tree, &to)) || (rc = add(out, &cap, t)))
		goto fail;
	tg_launchers_opts lo = {.tb = tb, .step = opts->step, .tracelens_compat = opts->tracelens};
	if ((rc = tg_launchers_build(&l, tree, &lo)))
		goto fail;
	if ((rc = tg_launchers_ops_by_category(&t, l)) || (rc = add(out, &cap, t)) ||
	    (rc = tg_launchers_ops_summary(&t, l)) || (rc = add(out, &cap, t)) ||
	    (rc = tg_launchers_unique_args(&t, l)) || (rc = add(out, &cap, t)) ||
	    (rc = tg_launchers_kernel_summary(&t, l, tl.total_us)) || (rc = add(out, &cap, t)))
		goto fail;
	{
		tg_short_kernel_opts so = {.step = opts->step, .tracelens = opts->tracelens, .total_time_us = tl.total_us};
		tg_table *sk[2];
		if ((rc = tg_short_kernel_tables(sk, tree, &so)))
			goto fail;
		if ((rc = add(out, &cap, sk[0]))) {
			tg_table_free(sk[1]);
			goto fail;
		}
		if ((rc = add(out, &cap, sk[1])))
			goto fail;
	}
	if ((rc = add_perf_sheets(out, &cap, tree, &tb, opts)) || (rc = add_collectives(out, &cap, tree)))
		goto fail;
	/* HTA-style analyses; the one-row-per-launch table is left to the API */
	{
		typedef int (*tables_fn)(tg_table ***, size_t *, const tg_tree *, int32_t);
		static const tables_fn fns[] = {tg_breakdown_tables, launch_stats_summaries, tg_host_syncs_tables,
		                                tg_memory_tables};
		for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
			tg_table **tabs;
			size_t n;
			if ((rc = fns[f](&tabs, &n, tree, opts->step)))
				goto fail;
			for (size_t i = 0; i < n; i++) {
				if (rc || !strcmp(tg_table_name(tabs[i]), "kernel_launches")) {
					tg_table_free(tabs[i]);
					continue;
				}
				rc = add(out, &cap, tabs[i]);
			}
			free(tabs);
			if (rc)
				goto fail;
		}
	}
	tg_launchers_free(l);
	return 0;
fail:
	tg_launchers_free(l);
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
	for (size_t i = 0; i < r->n; i++)
		tg_table_free(r->tables[i]);
	free(r->tables);
	r->tables = NULL;
	r->n = 0;
}
