/*
 * launch_stats_impl.h - what launch_stats.c shares with launch_queue.c (the
 * queue-length table, in a file of its own). Not public: launch_stats.h is
 * the interface.
 */
#ifndef TG_LAUNCH_STATS_IMPL_H
#define TG_LAUNCH_STATS_IMPL_H

#include "table.h"
#include "../tree/step_filter.h"

/* "queue_length_summary" for the nlaunch launches f selects
 * (launch_stats.h), or NULL when out of memory. */
tg_table *tg_launch_queue_table(const tg_step_filter *f, size_t nlaunch);

/* The launch call of device event i (ev: f's trace's events) when f
 * selects it and it has one, else TG_NONE: what both files count as a
 * launch. */
static inline uint32_t tg_launch_of(const tg_step_filter *f, const tg_event *ev, size_t i)
{
	if (!tg_kind_is_gpu(ev[i].kind))
		return TG_NONE;
	uint32_t p = tg_tree_launch(f->tree, (uint32_t)i);
	return p != TG_NONE && tg_step_filter_has(f, (uint32_t)i) ? p : TG_NONE;
}

#endif
