/*
 * findings_impl.h - what the findings' files share (findings.h): the list
 * itself, and the context one trace's findings are computed in: the
 * analysed time windows (the selected ProfilerSteps, or the trace's span),
 * the device's busy intervals, and the helpers every family uses to turn
 * a measured time into a finding's cost per step.
 */
#ifndef TG_FINDINGS_IMPL_H
#define TG_FINDINGS_IMPL_H

#include "findings.h"
#include "../../util/fstr.h"
#include "../../util/interval.h"

#include <stdarg.h>

/* At most this many findings with one id (host-sync places); the rest are
 * folded into the last one's evidence. */
#define TG_FINDINGS_MAX_PER_ID 8

struct tg_findings {
	tg_finding *v;
	size_t n, cap;
	size_t nsteps;  /* steps measured over */
	double step_ns; /* their mean duration */
};

/* The context of one trace's findings. */
typedef struct tg_fctx {
	const tg_tree *tree;
	const tg_trace *t;
	const tg_event *ev;
	size_t ne;
	const tg_findings_opts *o;
	int32_t step;     /* -1: every step; else a step index */
	int has_steps;    /* the trace has ProfilerSteps */
	size_t nsteps;    /* steps analysed (1 without steps) */
	tg_interval *win; /* the analysed windows, by start: the steps' host spans, or the trace's span */
	size_t nwin;
	int64_t win_ns;    /* their total length */
	double step_ns;    /* win_ns / nsteps */
	tg_interval *busy; /* the union of every device event of the trace, merged, by start */
	size_t nbusy;
	uint32_t *dev; /* every device event of the tree, by start */
	size_t ndev;
	size_t nhost;      /* cpu ops, runtime and driver calls, python frames of the tree */
	double median_kernel_ns, median_launch_ns; /* the selected kernels' and their launch calls'
	                                              median durations, NAN if none or not needed
	                                              (the launch-bound family's, made by tg_fctx_init
	                                              when asked: gaps) */
	int64_t rank;      /* distributedInfo, else -1 */
	tg_interval *expl; /* host windows the host family explains (the syncs', the
	                         DataLoader's): the gap families leave them out */
	size_t nexpl, capexpl;
	tg_findings *out;
} tg_fctx;

/* Prepares c for tree and step (opts: the thresholds); out receives the
 * findings; gaps: c will run tg_findings_check_gaps (its launch-bound
 * medians are made here, before the busy intervals; a context across ranks
 * does not need them). Returns 0, TG_EINVAL (bad step) or TG_ENOMEM;
 * tg_fctx_free in every case. */
int tg_fctx_init(tg_fctx *c, const tg_tree *tree, const tg_findings_opts *opts, int32_t step, tg_findings *out,
                 int gaps);
void tg_fctx_free(tg_fctx *c);

/* Frees c's busy intervals (16 bytes an interval: 7.3 MB at a gigabyte of
 * JSON) once the families that read them (host, gaps, pageable-memcpy)
 * are done, so that they are not held beside the perf sheets the op
 * families make; the busy time reads as 0 afterwards. */
void tg_fctx_drop_busy(tg_fctx *c);

/* Sorts v by start and merges it in place (touching intervals merge);
 * returns the count left. */
size_t tg_fctx_merge(tg_interval *v, size_t n);

/* Length of the intersection of [a, b) with the merged intervals v. */
int64_t tg_fctx_overlap(const tg_interval *v, size_t n, int64_t a, int64_t b);

/* 1 if event ev belongs to the analysed steps (every event without steps). */
int tg_fctx_selected(const tg_fctx *c, uint32_t ev);

/* Device busy and idle time in [a, b). */
int64_t tg_fctx_busy_in(const tg_fctx *c, int64_t a, int64_t b);
int64_t tg_fctx_idle_in(const tg_fctx *c, int64_t a, int64_t b);

/* The part of [a, b) inside the analysed windows. */
int64_t tg_fctx_in_windows(const tg_fctx *c, int64_t a, int64_t b);

/* The first device event starting at or after ts (index into the trace's
 * events), or TG_NONE. */
uint32_t tg_fctx_next_device(const tg_fctx *c, int64_t ts);

/* The limits of finding id. */
const tg_finding_limits *tg_fctx_limits(const tg_fctx *c, tg_finding_id id);

/* Appends a finding of id to the list (ok, no cost, the context's rank
 * and step time, its threshold); NULL when out of memory. */
tg_finding *tg_findings_push(tg_findings *l, tg_finding_id id);
tg_finding *tg_fctx_add(tg_fctx *c, tg_finding_id id);

/* Appends id as not evaluated, the reason printf-style. Returns 0 or
 * TG_ENOMEM. */
int tg_fctx_not_evaluated(tg_fctx *c, tg_finding_id id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets f's cost from total_ns over the analysed steps (cost per step,
 * percent of the step) and its status against its threshold: fired at or
 * above min_cost. basis: how the cost was estimated. */
void tg_fctx_cost(tg_finding *f, const tg_fctx *c, double total_ns, const char *basis);

/* Sorts the list: fired (largest cost first), not evaluated, ok; by id
 * and subject within each. */
void tg_findings_sort(tg_findings *l);

/* The families, each appending its findings to c->out. Return 0 or
 * TG_ENOMEM. */
int tg_findings_check_host(tg_fctx *c); /* host-sync, dataloader-stall */
int tg_findings_check_gaps(tg_fctx *c); /* launch-bound, idle-gap, first-step-slow */
int tg_findings_check_pageable(tg_fctx *c); /* pageable-memcpy (reads the busy intervals) */
int tg_findings_check_ops(tg_fctx *c);  /* attention-backend, gemm-alignment, low-efficiency (the perf sheets) */
int tg_findings_check_comm(tg_fctx *c); /* no-comm-overlap */

/* Adds [a, b) to the windows the host family explains; returns 0 or
 * TG_ENOMEM. tg_fctx_explained_done sorts and merges them; then
 * tg_fctx_explained_in gives how much of [a, b) they cover. */
int tg_fctx_explain(tg_fctx *c, int64_t a, int64_t b);
void tg_fctx_explained_done(tg_fctx *c);
int64_t tg_fctx_explained_in(const tg_fctx *c, int64_t a, int64_t b);

#endif
