/*
 * timeline.h - the GPU timeline breakdown, with TraceLens's definitions
 * (U = union of [start, end) intervals, A \ B = interval difference):
 *
 *   computation_time    = |U(compute kernels and memsets)|
 *   total_comm_time     = |U(communication kernels: nccl, rccl, cross_device_reduce)|
 *   exposed_comm_time   = |U(comm) \ U(comp)|
 *   total_memcpy_time   = |U(memcpys and copy kernels)|
 *   exposed_memcpy_time = |U(memcpy) \ U(comp) \ U(comm)|
 *   busy_time           = |U(all)|
 *   total_time          = last end - first start
 *   idle_time           = total_time - busy_time
 */
#ifndef TG_TIMELINE_H
#define TG_TIMELINE_H

#include "../trace/timebase.h"
#include "table.h"
#include "../tree/tree.h"

typedef struct tg_gpu_timeline {
	double computation_us, exposed_comm_us, exposed_memcpy_us, busy_us, idle_us, total_us;
	double total_comm_us, total_memcpy_us;
	uint64_t events;
} tg_gpu_timeline;

typedef struct tg_timeline_opts {
	tg_timebase tb;
	int32_t step;         /* -1: whole trace; else the device events of that step */
	int64_t device;       /* -1: every device pooled (as TraceLens) */
	int include_unlinked; /* also device events without a launch */
	const uint32_t *events; /* when set: only these device events (e.g. one step's, gathered
	                           once for every step), instead of scanning the trace; step is
	                           then not looked at */
	size_t nevents;
} tg_timeline_opts;

/* Computes the breakdown. Returns 0 or TG_ENOMEM. */
int tg_gpu_timeline_compute(tg_gpu_timeline *out, const tg_tree *tree, const tg_timeline_opts *opts);

/* gpu_timeline table: type, time ms, percent (TraceLens's rows and order). */
int tg_gpu_timeline_table(tg_table **out, const tg_gpu_timeline *tl);

/* One row per device: device, then each metric in ms. pooled, when the
 * caller has it, is tg_gpu_timeline_compute's result for opts (device -1):
 * a trace whose device events are all on one device gets that row from it
 * (the same events, summed in the same order) rather than computed again,
 * which was half of the timeline's work; NULL computes every row. */
int tg_gpu_timeline_by_device_table(tg_table **out, const tg_tree *tree, const tg_timeline_opts *opts,
                                    const tg_gpu_timeline *pooled);

#endif
