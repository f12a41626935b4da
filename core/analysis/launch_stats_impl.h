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

#endif
