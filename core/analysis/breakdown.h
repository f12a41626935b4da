/*
 * breakdown.h - where the GPU's time goes (HTA's BreakdownAnalysis and
 * CommunicationAnalysis), computed exactly on integer nanoseconds.
 *
 * Device events = kernels, memcpys and memsets selected by the step filter
 * (step_filter.h), on every stream and device of the trace together, as HTA
 * does per rank. Their types come from tg_kernel_class().
 *
 * Deliberate differences from HTA (hta/analyzers/breakdown_analysis.py):
 * - No microsecond rounding. HTA rounds every start up and every end down to
 *   a whole microsecond unless HTA_DISABLE_NS_ROUNDING=1; the golden values
 *   with rounding disabled are what this code reproduces.
 * - cuda_sync events (Stream Sync, Stream Wait Event...) are not device work:
 *   HTA's temporal breakdown counts those that carry a stream as busy
 *   non-compute time (alexnet: 186 us of its 55,697 us non-compute time).
 * - HTA sums int64 (end) and (ts) columns separately, which overflows when
 *   several ranks' timestamps are large; here each interval length is summed.
 * - Kernel duration distribution: every kernel name gets its own row with its
 *   own statistics. HTA, when a type has more than 10 names, folds the tail
 *   into "others" and in doing so replaces every surviving row's max, min and
 *   mean by its sum (std by 0) and computes "others" over per-name sums.
 * - Idle time per stream is keyed by (device, stream), HTA's by stream alone.
 * - A device event without a "stream" argument is on the stream its track's
 *   tid names; HTA takes it for a CPU event and leaves it out (the shared
 *   MTIA trace has 137 such "dma_request" events).
 * - Kernel type breakdown: only combinations that last more than 0 ns are
 *   listed (HTA may list zero-length ones, "COMPUTATION overlapping MEMORY 0").
 * - Percentages are not rounded (HTA: 2 decimals, kernel types 1 decimal).
 */
#ifndef TG_BREAKDOWN_H
#define TG_BREAKDOWN_H

#include "table.h"
#include "../tree/step_filter.h"

/* Gaps shorter than this between two kernels of one stream, the second
 * launched before the first ended, are "kernel_wait" (HTA's
 * consecutive_kernel_delay: 30, in trace microseconds). */
#define TG_BREAKDOWN_KERNEL_DELAY_NS INT64_C(30000)

/* HTA's temporal breakdown and communication/computation overlap. */
typedef struct tg_temporal {
	uint64_t events;         /* device events selected */
	int64_t start_ns, end_ns; /* first start, last end (both 0 without events) */
	int64_t kernel_time_ns;  /* end_ns - start_ns: the span of GPU activity */
	int64_t busy_ns;         /* union of every device event */
	int64_t idle_ns;         /* kernel_time_ns - busy_ns */
	int64_t compute_ns;      /* union of COMPUTATION events */
	int64_t non_compute_ns;  /* busy_ns - compute_ns: only COMM, MEMORY or OTHER running */
	int64_t comm_ns;         /* union of COMMUNICATION events */
	int64_t overlap_ns;      /* time when COMPUTATION and COMMUNICATION both run */
} tg_temporal;

/* Fills *out for the events of step (TG_STEP_ALL, TG_STEP_HTA,
 * TG_STEP_HTA_ROUNDED or a step index). Percentages: 100 * x / kernel_time_ns; HTA's
 * comp_comm_overlap_pctg is 100 * overlap_ns / comm_ns (undefined without
 * communication). Returns 0, TG_EINVAL (bad step) or TG_ENOMEM. */
int tg_breakdown_temporal(tg_temporal *out, const tg_tree *tree, int32_t step);

/* Builds the tables of the breakdown for step. On success *out is an array
 * of *n tables; the caller frees them with tg_tables_free. Returns 0,
 * TG_EINVAL (bad step) or TG_ENOMEM (nothing to free).
 *
 * "temporal_breakdown" (one row): rank, idle_time(us), compute_time(us),
 *   non_compute_time(us), kernel_time(us), idle_time_pctg, compute_time_pctg,
 *   non_compute_time_pctg. rank is empty when the trace has no
 *   distributedInfo; the percentages are empty without device events.
 * "idle_time_breakdown": device, stream, idle_category (host_wait,
 *   kernel_wait, other: three rows per stream), idle_time(us), gaps,
 *   idle_time_ratio. Per stream, device events sorted by start; the gap
 *   before event i is start(i) - end(i-1) (negative when they overlap,
 *   summed as HTA does); host_wait when event i's launch started after
 *   end(i-1), else kernel_wait when the gap is under 30 us, else other. The
 *   first event of a stream has no gap. idle_time_ratio = the category's
 *   time / the stream's total (empty when that is 0).
 * "comm_comp_overlap" (one row): rank, comm_time(us), overlap_time(us),
 *   comp_comm_overlap_pctg (empty without communication).
 * "kernel_type_breakdown": kernel_type, sum(us), percentage. Time when only
 *   one of COMPUTATION, COMMUNICATION, MEMORY runs, or a combination
 *   ("COMPUTATION overlapping COMMUNICATION"), by decreasing time;
 *   percentage of the union of the three (OTHER is left out, as in HTA).
 * "kernel_duration_distribution": kernel_type, name, count, sum(us),
 *   mean(us), min(us), max(us), std(us) (sample standard deviation, 0 for
 *   one call), by type then decreasing sum; every type including OTHER. */
int tg_breakdown_tables(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step);

#endif
