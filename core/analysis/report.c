/* report.c - assembles the tables of the perf report. */
#include "report.h"
#include "kernel_categories.h"
#include "breakdown.h"
#include "collectives.h"
#include "host_syncs.h"
#include "launch_stats.h"
#include "launchers.h"
#include "memory.h"
#include "../models/perf_model.h"
#include "perf_sheets.h"
#include "short_kernels.h"
#include "stream_timeline.h"
#include "timeline.h"
#include "../../util/park.h"

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

/* The first tables: the GPU timeline (overall, per device), the ops and
 * kernels by launcher, the categories, the short kernels. */
static int first_tables(tg_report *out, size_t *cap, const tg_tree *tree, const tg_timebase *tb,
                        const tg_report_opts *opts)
{
	tg_timeline_opts to = {.tb = *tb, .step = opts->step, .device = -1, .include_unlinked = opts->include_unlinked};
	tg_gpu_timeline tl;
	tg_table *t = NULL;
	tg_launchers *l = NULL;
	int rc;
	if ((rc = tg_gpu_timeline_compute(&tl, tree, &to)) || (rc = tg_gpu_timeline_table(&t, &tl)) ||
	    (rc = add(out, cap, t)))
		goto done;
	if ((rc = tg_gpu_timeline_by_device_table(&t, tree, &to)) || (rc = add(out, cap, t)))
		goto done;
	tg_launchers_opts lo = {.tb = *tb, .step = opts->step, .tracelens_compat = opts->tracelens};
	if ((rc = tg_launchers_build(&l, tree, &lo)))
		goto done;
	if ((rc = tg_launchers_ops_by_category(&t, l)) || (rc = add(out, cap, t)) ||
	    (rc = tg_launchers_ops_summary(&t, l)) || (rc = add(out, cap, t)) ||
	    (rc = tg_launchers_unique_args(&t, l)) || (rc = add(out, cap, t)) ||
	    (rc = tg_launchers_kernel_summary(&t, l, tl.total_us)) || (rc = add(out, cap, t)))
		goto done;
	/* the default classification's categories, and their evidence */
	if (!opts->tracelens &&
	    ((rc = tg_kernel_categories_table(&t, NULL, tree, l, opts->step)) || (rc = add(out, cap, t))))
		goto done;
	tg_launchers_free(l); /* the rest needs no launchers: their per-event arrays go now */
	l = NULL;
	{
		tg_short_kernel_opts so = {.step = opts->step, .tracelens = opts->tracelens, .total_time_us = tl.total_us};
		tg_table *sk[2];
		if ((rc = tg_short_kernel_tables(sk, tree, &so)))
			goto done;
		if ((rc = add(out, cap, sk[0]))) {
			tg_table_free(sk[1]);
			goto done;
		}
		rc = add(out, cap, sk[1]);
	}
done:
	tg_launchers_free(l);
	return rc;
}

static int perf_sheets_job(tg_report *out, size_t *cap, const tg_tree *tree, const tg_timebase *tb,
                           const tg_report_opts *opts)
{
	return add_perf_sheets(out, cap, tree, tb, opts);
}

static int collectives_job(tg_report *out, size_t *cap, const tg_tree *tree, const tg_timebase *tb,
                           const tg_report_opts *opts)
{
	(void)tb;
	return add_collectives(out, cap, tree, opts->step);
}

/* The tables of an HTA-style analysis; the one-row-per-launch table is
 * left to the API. */
static int add_hta(tg_report *out, size_t *cap, const tg_tree *tree, int32_t step,
                   int (*fn)(tg_table ***, size_t *, const tg_tree *, int32_t))
{
	tg_table **tabs;
	size_t n;
	int rc = fn(&tabs, &n, tree, step);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (rc || !strcmp(tg_table_name(tabs[i]), "kernel_launches"))
			tg_table_free(tabs[i]);
		else
			rc = add(out, cap, tabs[i]);
	}
	free(tabs);
	return rc;
}

#define HTA_JOB(name, fn)                                                                            \
	static int name(tg_report *out, size_t *cap, const tg_tree *tree, const tg_timebase *tb,        \
	                const tg_report_opts *opts)                                                     \
	{                                                                                               \
		(void)tb;                                                                                   \
		return add_hta(out, cap, tree, opts->step, fn);                                             \
	}
HTA_JOB(breakdown_job, tg_breakdown_tables)
HTA_JOB(launch_stats_job, launch_stats_summaries)
HTA_JOB(host_syncs_job, tg_host_syncs_tables)
HTA_JOB(memory_job, tg_memory_tables)

/* The findings of tree into *out, reusing the perf sheets of sheets_part
 * (exact time base only: TraceLens's mode links kernels its own way). */
static int compute_findings(tg_findings **out, const tg_report *sheets_part, const tg_tree *tree,
                            const tg_report_opts *opts)
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
		const tg_table *t = tg_report_find(sheets_part, tg_perf_sheet_name((tg_perf_kind)k));
		if (t)
			sheets[ns++] = t;
	}
	if (!opts->tracelens) {
		fo.sheets = sheets;
		fo.nsheets = ns;
	}
	return tg_findings_compute(out, tree, &fo, opts->step, opts->findings_alone);
}

/* The report's parts, in the order of its tables. Each reads the tree
 * (const) and fills its own list; two threads take them in turn, so that
 * a thread that loses its core on a shared machine holds up one part, not
 * half the report. The findings are one more task, which reads the perf
 * sheets: it comes right after them in the order the tasks are taken
 * (task_order), so that it runs beside the other parts instead of after
 * all of them (h200-dev base_r1: findings 1.0 ms of the report's 4.8 ms of
 * CPU, the largest part 1.8 ms).
 *
 * The order also keeps the largest scratches apart: the first part builds
 * the launchers (its first half, the report's peak: 44 MB at a gigabyte of
 * JSON), while the other thread takes the breakdown (7-15 MB) before the
 * sheets (28 MB) and the findings (42 MB), which then start about when the
 * build is done instead of beside it; the launch statistics come after, on
 * the first thread. CPU at 1 GB: first part 305 ms, sheets 110, findings
 * 154, launch statistics 100, breakdown 80, the rest 10: both threads end
 * near 400 ms, as before. */
typedef int (*part_fn)(tg_report *, size_t *, const tg_tree *, const tg_timebase *, const tg_report_opts *);
static const part_fn parts[] = {first_tables,  perf_sheets_job,  collectives_job, breakdown_job,
                                launch_stats_job, host_syncs_job, memory_job};
#define NPARTS (sizeof(parts) / sizeof(parts[0]))
#define SHEETS_PART 1        /* perf_sheets_job: what the findings read */
#define FINDINGS_TASK NPARTS /* the task number of the findings */
/* the largest part first, the breakdown beside it, then the sheets and the
 * findings, then the rest */
static const size_t task_order[] = {0, 3, SHEETS_PART, FINDINGS_TASK, 4, 2, 5, 6};
#define NTASKS (sizeof(task_order) / sizeof(task_order[0]))

struct part_run {
	tg_report r;
	int rc;
	char msg[1024]; /* tg_error_last() is per thread */
};

struct report_work {
	const tg_tree *tree;
	const tg_report_opts *opts;
	tg_timebase tb;
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* the sheets' part is done */
	size_t next;         /* the next task (in task_order) nobody has taken */
	int sheets_done;
	struct part_run run[NPARTS];
	tg_findings *findings; /* the findings task's: NULL with opts->no_findings */
	int frc;
	char fmsg[1024];
};

/* The findings task: waits for the perf sheets' part, then computes the
 * findings unless that part failed (its error is reported first). */
static void findings_task(struct report_work *w)
{
	if (w->opts->no_findings)
		return;
	pthread_mutex_lock(&w->mu);
	while (!w->sheets_done)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	if (w->run[SHEETS_PART].rc)
		return;
	w->frc = compute_findings(&w->findings, &w->run[SHEETS_PART].r, w->tree, w->opts);
	if (w->frc)
		snprintf(w->fmsg, sizeof(w->fmsg), "%s", tg_error_last());
}

static void *take_parts(void *arg)
{
	struct report_work *w = arg;
	for (;;) {
		pthread_mutex_lock(&w->mu);
		size_t k = w->next++;
		pthread_mutex_unlock(&w->mu);
		if (k >= NTASKS)
			return NULL;
		size_t i = task_order[k];
		if (i == FINDINGS_TASK) {
			findings_task(w);
			continue;
		}
		struct part_run *pr = &w->run[i];
		size_t cap = 0;
		pr->rc = parts[i](&pr->r, &cap, w->tree, &w->tb, w->opts);
		if (pr->rc) {
			snprintf(pr->msg, sizeof(pr->msg), "%s", tg_error_last());
			tg_report_free(&pr->r);
		}
		if (i == SHEETS_PART) {
			pthread_mutex_lock(&w->mu);
			w->sheets_done = 1;
			pthread_cond_broadcast(&w->cv);
			pthread_mutex_unlock(&w->mu);
		}
	}
}

/* The parts' tables into out, in order, after the first failure in the
 * tables' order if any (then out is left empty and the error set). */
static int gather_parts(tg_report *out, struct report_work *w)
{
	int rc = 0;
	size_t cap = 0;
	for (size_t i = 0; i < NPARTS && !rc; i++)
		if (w->run[i].rc)
			rc = tg_error_set(w->run[i].rc, "%s", w->run[i].msg);
	for (size_t i = 0; i < NPARTS; i++) {
		for (size_t k = 0; !rc && k < w->run[i].r.n; k++) {
			rc = add(out, &cap, w->run[i].r.tables[k]);
			w->run[i].r.tables[k] = NULL;
		}
		tg_tables_free(w->run[i].r.tables, w->run[i].r.n);
	}
	return rc;
}

int tg_report_build(tg_report *out, const tg_tree *tree, const tg_report_opts *opts)
{
	memset(out, 0, sizeof(*out));
	struct report_work *w = tg_calloc(1, sizeof(*w));
	if (!w)
		return TG_ENOMEM;
	w->tree = tree;
	w->opts = opts;
	w->tb = (tg_timebase){.tracelens_float = opts->tracelens, .base_ns = first_ts(tg_tree_trace(tree))};
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	tg_park *th; /* a parked thread (util/park.h): a new one starts late on a busy machine */
	int threaded = tg_park_run(&th, take_parts, w) == 0;
	take_parts(w); /* no thread to be had: all of them here */
	if (threaded)
		tg_park_join(th);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	int rc = gather_parts(out, w);
	/* the streams' timeline (for the HTML report) after the tables, as on one thread */
	if (!rc && opts->streams)
		rc = tg_stream_timeline_build(&out->streams, tree, opts->step, opts->include_unlinked);
	/* the findings' error, if any, after the tables' and the streams' */
	if (!rc && w->frc)
		rc = tg_error_set(w->frc, "%s", w->fmsg);
	if (!rc)
		out->findings = w->findings;
	else
		tg_findings_free(w->findings);
	free(w);
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
