/*
 * step_filter.h - the step filter that every analysis uses to pick its
 * events (split from kernel_class.h so that a kernel's class needs no tree).
 *
 * Every analysis takes an int32_t step. TG_STEP_ALL (-1) selects the whole
 * trace, an index into tg_tree_steps() selects the events whose
 * tg_tree_step_of() is that index, and TG_STEP_HTA (-2) selects what
 * HTA analyses by default (see tg_step_filter_init), so that numbers can be
 * compared with HTA's. TG_STEP_HTA_ROUNDED (-3) is TG_STEP_HTA plus HTA's
 * default microsecond rounding of every timestamp (start rounded up, end
 * rounded down: hta/common/trace_parser.py round_down_time_stamps); it
 * exists to check this code against HTA's published numbers, which are
 * rounded unless HTA_DISABLE_NS_ROUNDING=1 is set. Analyses read times
 * through tg_step_filter_span() so that the rounding applies everywhere.
 */
#ifndef TG_STEP_FILTER_H
#define TG_STEP_FILTER_H

#include "tree.h"

#define TG_STEP_ALL (-1)
#define TG_STEP_HTA (-2)
#define TG_STEP_HTA_ROUNDED (-3)

/* Which events an analysis looks at; fill with tg_step_filter_init. */
typedef struct tg_step_filter {
	const tg_tree *tree;
	const tg_event *events;
	const tg_step *steps;
	size_t nsteps;
	int32_t step;
	int round_us;    /* TG_STEP_HTA_ROUNDED */
	int64_t hta_end; /* TG_STEP_HTA*: host events must start before this */
} tg_step_filter;

/* Prepares f for step: TG_STEP_ALL, TG_STEP_HTA, TG_STEP_HTA_ROUNDED or a
 * step index. With TG_STEP_HTA* and two or more steps, host events that start before the last
 * step starts are selected, and device events whose nearest host ancestor
 * (their launch) is; device events without one are left out (HTA's
 * _filter_irrelevant_gpu_kernels, which also drops the last step). With
 * fewer than two steps TG_STEP_HTA* select everything, as HTA does.
 * Returns 0, or TG_EINVAL for any other negative step or an index past the
 * last step. f holds no allocation; the tree must outlive it. */
int tg_step_filter_init(tg_step_filter *f, const tg_tree *tree, int32_t step);

/* 1 if f selects event ev. Events of the tree go by their tree step (by
 * their own or their host ancestor's start with TG_STEP_HTA*); events outside
 * the tree (instants such as [memory]) by their timestamp: a step's window is
 * [ts, ts + dur) of its ProfilerStep event. */
int tg_step_filter_has(const tg_step_filter *f, uint32_t ev);

/* The step (index into tg_tree_steps) event ev belongs to as a filter for
 * that step would decide (tg_step_filter_has with f->step = the step), or
 * -1: one pass sorts every event into its step. */
int32_t tg_step_filter_step_of(const tg_step_filter *f, uint32_t ev);

/* Start and end (ns) of event e as the analysis sees them: exact, or, with
 * TG_STEP_HTA_ROUNDED, the start rounded up and the end rounded down to a
 * whole microsecond (a sub-microsecond event may then end before it starts,
 * as in HTA). */
void tg_step_filter_span(const tg_step_filter *f, const tg_event *e, int64_t *ts, int64_t *end);

#endif
