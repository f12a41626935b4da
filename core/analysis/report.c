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

/* The report's parts, in the order of their tables. Each reads the tree
 * (const) and fills its own list; two threads take them in turn
 * (priority), so that a thread that loses its core on a shared machine
 * holds up one part, not half the report. A part may need others done
 * first (needs): the launchers' tables their launchers, the kernels' and
 * the short kernels' percentages the GPU timeline's total, the findings
 * the perf sheets; one whose needs failed is skipped, their error being
 * reported first (the needs come first in the tables' order too). */
enum part {
	P_TIMELINE,       /* gpu_timeline, and by device (sets total_us) */
	P_LAUNCHERS,      /* the launchers (no table: what the next five read) */
	P_BY_CATEGORY,    /* ops_summary_by_category */
	P_OPS_SUMMARY,    /* ops_summary */
	P_UNIQUE_ARGS,    /* ops_unique_args */
	P_KERNEL_SUMMARY, /* kernel_summary */
	P_CATEGORIES,     /* kernel_categories (not in TraceLens's mode) */
	P_SHORT_KERNELS,
	P_SHEETS, /* the perf sheets: what the findings read */
	P_COLLECTIVES,
	P_BREAKDOWN,
	P_LAUNCH_STATS,
	P_HOST_SYNCS,
	P_MEMORY,
	P_FINDINGS, /* no table: the report's findings */
	NPARTS
};

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
	pthread_cond_t cv;      /* a part is done */
	unsigned taken, done, failed; /* parts, by bit (1u << part) */
	double total_us;        /* the GPU timeline's total (P_TIMELINE) */
	tg_launchers *launchers; /* P_LAUNCHERS's, freed by the last part that reads them */
	unsigned launcher_users; /* the parts that read them and are not done */
	tg_findings *findings;  /* P_FINDINGS's: NULL with opts->no_findings */
	struct part_run run[NPARTS];
};

typedef int (*part_fn)(tg_report *, size_t *, struct report_work *);

static int timeline_part(tg_report *out, size_t *cap, struct report_work *w)
{
	const tg_report_opts *o = w->opts;
	tg_timeline_opts to = {.tb = w->tb, .step = o->step, .device = -1, .include_unlinked = o->include_unlinked};
	tg_gpu_timeline tl;
	tg_table *t = NULL;
	int rc;
	if ((rc = tg_gpu_timeline_compute(&tl, w->tree, &to)) || (rc = tg_gpu_timeline_table(&t, &tl)) ||
	    (rc = add(out, cap, t)) || (rc = tg_gpu_timeline_by_device_table(&t, w->tree, &to, &tl)) ||
	    (rc = add(out, cap, t)))
		return rc;
	w->total_us = tl.total_us;
	return 0;
}

static int launchers_part(tg_report *out, size_t *cap, struct report_work *w)
{
	(void)out, (void)cap;
	tg_launchers_opts lo = {.tb = w->tb, .step = w->opts->step, .tracelens_compat = w->opts->tracelens};
	return tg_launchers_build(&w->launchers, w->tree, &lo);
}

/* One table of the launchers, by fn. */
static int launchers_table(tg_report *out, size_t *cap, const tg_launchers *l,
                           int (*fn)(tg_table **, const tg_launchers *))
{
	tg_table *t;
	int rc = fn(&t, l);
	return rc ? rc : add(out, cap, t);
}

static int by_category_part(tg_report *out, size_t *cap, struct report_work *w)
{
	return launchers_table(out, cap, w->launchers, tg_launchers_ops_by_category);
}

static int ops_summary_part(tg_report *out, size_t *cap, struct report_work *w)
{
	return launchers_table(out, cap, w->launchers, tg_launchers_ops_summary);
}

static int unique_args_part(tg_report *out, size_t *cap, struct report_work *w)
{
	return launchers_table(out, cap, w->launchers, tg_launchers_unique_args);
}

static int kernel_summary_part(tg_report *out, size_t *cap, struct report_work *w)
{
	tg_table *t;
	int rc = tg_launchers_kernel_summary(&t, w->launchers, w->total_us);
	return rc ? rc : add(out, cap, t);
}

/* The default classification's categories, and their evidence. */
static int categories_part(tg_report *out, size_t *cap, struct report_work *w)
{
	if (w->opts->tracelens)
		return 0;
	tg_table *t;
	int rc = tg_kernel_categories_table(&t, NULL, w->tree, w->launchers, w->opts->step);
	return rc ? rc : add(out, cap, t);
}

static int short_kernels_part(tg_report *out, size_t *cap, struct report_work *w)
{
	tg_short_kernel_opts so = {.step = w->opts->step, .tracelens = w->opts->tracelens, .total_time_us = w->total_us};
	tg_table *sk[2];
	int rc = tg_short_kernel_tables(sk, w->tree, &so);
	if (rc)
		return rc;
	if ((rc = add(out, cap, sk[0]))) {
		tg_table_free(sk[1]);
		return rc;
	}
	return add(out, cap, sk[1]);
}

static int sheets_part(tg_report *out, size_t *cap, struct report_work *w)
{
	return add_perf_sheets(out, cap, w->tree, &w->tb, w->opts);
}

static int collectives_part(tg_report *out, size_t *cap, struct report_work *w)
{
	return add_collectives(out, cap, w->tree, w->opts->step);
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

#define HTA_PART(name, fn)                                                                           \
	static int name(tg_report *out, size_t *cap, struct report_work *w)                             \
	{                                                                                               \
		return add_hta(out, cap, w->tree, w->opts->step, fn);                                       \
	}
HTA_PART(breakdown_part, tg_breakdown_tables)
HTA_PART(launch_stats_part, launch_stats_summaries)
HTA_PART(host_syncs_part, tg_host_syncs_tables)
HTA_PART(memory_part, tg_memory_tables)

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

static int findings_part(tg_report *out, size_t *cap, struct report_work *w)
{
	(void)out, (void)cap;
	if (w->opts->no_findings)
		return 0;
	return compute_findings(&w->findings, &w->run[P_SHEETS].r, w->tree, w->opts);
}

#define BIT(p) (1u << (p))
#define NEED_LAUNCHERS BIT(P_LAUNCHERS)
/* What each part needs done first (their results; skipped when one of them
 * failed), and what it only comes after (so that two large scratches are
 * never held at once: below). */
static const struct {
	part_fn fn;
	unsigned needs, after; /* parts, by bit */
} parts[NPARTS] = {
	[P_TIMELINE] = {timeline_part, 0, 0},
	[P_LAUNCHERS] = {launchers_part, 0, BIT(P_TIMELINE) | BIT(P_SHEETS) | BIT(P_BREAKDOWN) | BIT(P_FINDINGS)},
	[P_BY_CATEGORY] = {by_category_part, NEED_LAUNCHERS, 0},
	[P_OPS_SUMMARY] = {ops_summary_part, NEED_LAUNCHERS, 0},
	[P_UNIQUE_ARGS] = {unique_args_part, NEED_LAUNCHERS, 0},
	[P_KERNEL_SUMMARY] = {kernel_summary_part, NEED_LAUNCHERS | BIT(P_TIMELINE), 0},
	[P_CATEGORIES] = {categories_part, NEED_LAUNCHERS, 0},
	[P_SHORT_KERNELS] = {short_kernels_part, BIT(P_TIMELINE), 0},
	[P_SHEETS] = {sheets_part, 0, 0},
	[P_COLLECTIVES] = {collectives_part, 0, 0},
	[P_BREAKDOWN] = {breakdown_part, 0, 0},
	[P_LAUNCH_STATS] = {launch_stats_part, 0, 0},
	[P_HOST_SYNCS] = {host_syncs_part, 0, 0},
	[P_MEMORY] = {memory_part, 0, 0},
	[P_FINDINGS] = {findings_part, BIT(P_SHEETS), 0},
};

/* The parts by priority: a thread takes the first one not taken whose
 * needs and afters are done, and waits when none is. The report's largest
 * scratch is the launchers' (their build, then what their five tables
 * read: 1.3-1.4 MB over the model at 100 MB of JSON, one thread), then the
 * findings' (0.7-0.8), the perf sheets', the timeline's and the
 * breakdown's (0.55-0.7 each); the launch statistics' and the short
 * parts' are small (0.1-0.25). So the launchers come after the sheets,
 * the timeline, the breakdown and the findings (those pair up on the two
 * threads first), with the launch statistics and the short parts beside
 * their build and their tables beside one another. (Their build after the
 * launch statistics too, beside the short parts only, was tried when the
 * launch statistics held 0.9 MB: with them at 0.2 it made no difference
 * to the peak, 14,192-14,568 KB against 14,364-14,540 in eight runs each,
 * for the launchers' build alone on one thread.) CPU at 1 GB (ms, one
 * thread): sheets 120 then findings 157 (the longest chain), timeline 83,
 * breakdown 103; launchers 121, their tables 162 (categories 75, unique
 * args 49, kernels 22, ops 14, by category 2); launch statistics 132; the
 * rest 29. */
static const enum part priority[] = {
	P_SHEETS,     P_TIMELINE,       P_FINDINGS,       P_BREAKDOWN,   P_LAUNCHERS,
	P_CATEGORIES, P_UNIQUE_ARGS,    P_KERNEL_SUMMARY, P_OPS_SUMMARY, P_BY_CATEGORY,
	P_LAUNCH_STATS, P_SHORT_KERNELS, P_COLLECTIVES,   P_HOST_SYNCS,  P_MEMORY,
};
#define NTASKS (sizeof(priority) / sizeof(priority[0]))
_Static_assert(NTASKS == NPARTS, "every part has its place in priority (one left out would never run)");
_Static_assert(NPARTS <= 32, "the parts are bits of an unsigned");

/* Runs part p (or skips it when a part it needs failed), then marks it
 * done; the last reader of the launchers frees them. Called without w->mu. */
static void run_part(struct report_work *w, enum part p)
{
	unsigned needs = parts[p].needs;
	struct part_run *pr = &w->run[p];
	pthread_mutex_lock(&w->mu);
	int skip = (w->failed & needs) != 0;
	pthread_mutex_unlock(&w->mu);
	if (!skip) {
		size_t cap = 0;
		pr->rc = parts[p].fn(&pr->r, &cap, w);
		if (pr->rc) {
			snprintf(pr->msg, sizeof(pr->msg), "%s", tg_error_last());
			tg_report_free(&pr->r);
		}
	}
	tg_launchers *unused = NULL;
	pthread_mutex_lock(&w->mu);
	w->done |= BIT(p);
	if (skip || pr->rc)
		w->failed |= BIT(p);
	if ((needs & NEED_LAUNCHERS) && --w->launcher_users == 0) {
		unused = w->launchers;
		w->launchers = NULL;
	}
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	tg_launchers_free(unused);
	if (w->opts->part_done)
		w->opts->part_done();
}

/* The next part to run: the first by priority not taken whose needs and
 * afters are done, marked taken; waits while none is ready; NPARTS when
 * every part is taken. Called with w->mu held. One thread alone always
 * finds one ready (needs and afters are never circular). */
static enum part next_part(struct report_work *w)
{
	for (;;) {
		int left = 0;
		for (size_t k = 0; k < NTASKS; k++) {
			enum part p = priority[k];
			unsigned before = parts[p].needs | parts[p].after;
			if (w->taken & BIT(p))
				continue;
			left = 1;
			if ((w->done & before) == before) {
				w->taken |= BIT(p);
				return p;
			}
		}
		if (!left)
			return NPARTS;
		pthread_cond_wait(&w->cv, &w->mu);
	}
}

static void *take_parts(void *arg)
{
	struct report_work *w = arg;
	for (;;) {
		pthread_mutex_lock(&w->mu);
		enum part p = next_part(w);
		pthread_mutex_unlock(&w->mu);
		if (p == NPARTS)
			return NULL;
		run_part(w, p);
	}
}

/* The parts' tables into out, in order, after the first failure in the
 * tables' order if any (then out is left empty and the error set). */
static int gather_parts(tg_report *out, struct report_work *w)
{
	int rc = 0;
	size_t cap = 0;
	for (size_t i = 0; i < P_FINDINGS && !rc; i++)
		if (w->run[i].rc)
			rc = tg_error_set(w->run[i].rc, "%s", w->run[i].msg);
	for (size_t i = 0; i < P_FINDINGS; i++) {
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
	for (size_t p = 0; p < NPARTS; p++)
		w->launcher_users += (parts[p].needs & NEED_LAUNCHERS) != 0;
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
	if (!rc && w->run[P_FINDINGS].rc)
		rc = tg_error_set(w->run[P_FINDINGS].rc, "%s", w->run[P_FINDINGS].msg);
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
