/*
 * launch_stats.h - how the host feeds the GPU: per-launch CPU and GPU
 * durations and launch delays (HTA cuda_kernel_launch_stats), launch queue
 * length per stream (HTA TraceCounters), achieved memcpy/memset bandwidth,
 * and the kernel sequences each operator launches (after HTA's frequent
 * CUDA kernel patterns).
 *
 * A launch is every device event (kernel, memcpy, memset) selected by the
 * step filter (step_filter.h) whose tree parent is a runtime or driver
 * call (tg_tree_launch): cudaLaunchKernel(ExC), cudaMemcpyAsync,
 * cudaMemsetAsync as in HTA, but also cuLaunchKernel(Ex) (Triton),
 * cudaGraphLaunch/hipGraphLaunch (one row per kernel of the graph, all with
 * the graph launch's CPU duration), every hip* launch (HTA lists none, so an
 * AMD trace has no rows there) and synchronous copies (cudaMemcpy). The
 * per-launch table names the launch, so HTA's subset can be picked out.
 * Times are exact integer nanoseconds (HTA rounds to whole microseconds by
 * default; TG_STEP_HTA_ROUNDED reproduces that).
 */
#ifndef TG_LAUNCH_STATS_H
#define TG_LAUNCH_STATS_H

#include "table.h"
#include "../tree/step_filter.h"

/* HTA's thresholds (cuda_kernel_analysis.py, constants.py). */
#define TG_LAUNCH_RUNTIME_CUTOFF_NS INT64_C(50000)  /* runtime_cutoff: 50 us */
#define TG_LAUNCH_DELAY_CUTOFF_NS INT64_C(100000)   /* launch_delay_cutoff: 100 us */
#define TG_LAUNCH_MAX_QUEUE 1024                   /* CUDA_MAX_LAUNCH_QUEUE_PER_STREAM */
/* The most text frequent_kernel_sequences' kernels column holds, all rows
 * together: 4 MiB (the shared traces' largest is 0.66 MB). A deep chain of
 * cpu_ops, each with every kernel under it as its sequence, would otherwise
 * make it quadratic in the kernels (8,000 nested ops: 256 MB). */
#define TG_LAUNCH_SEQ_TEXT_MAX ((size_t)4 << 20)

typedef struct tg_launch_summary {
	uint64_t launches;          /* device events with a launch */
	uint64_t short_kernels;     /* cpu_duration <= 50 us and gpu_duration < cpu_duration */
	uint64_t runtime_outliers;  /* cpu_duration > 50 us */
	uint64_t delay_outliers;    /* launch_delay > 100 us */
	int64_t sum_cpu_ns, sum_gpu_ns, sum_delay_ns;
	double median_delay_ns;     /* mean of the two middle ones for an even count; 0 without launches */
	int64_t max_delay_ns;
} tg_launch_summary;

/* Fills *out for the launches of step (TG_STEP_ALL, TG_STEP_HTA,
 * TG_STEP_HTA_ROUNDED or a step index). cpu_duration = the launch's
 * duration, gpu_duration = the device event's, launch_delay = max(0, device
 * start - launch end). Returns 0, TG_EINVAL (bad step) or TG_ENOMEM. */
int tg_launch_stats_summary(tg_launch_summary *out, const tg_tree *tree, int32_t step);

/* Builds the tables for step. On success *out is an array of *n tables;
 * the caller frees them with tg_tables_free. Returns
 * 0, TG_EINVAL (bad step) or TG_ENOMEM (nothing to free).
 *
 * "kernel_launch_summary" (one row): launches, short_kernels,
 *   runtime_outliers, launch_delay_outliers, sum_cpu_duration(us),
 *   sum_gpu_duration(us), sum_launch_delay(us), mean_launch_delay(us),
 *   median_launch_delay(us), max_launch_delay(us) (means and medians empty
 *   without launches). Definitions in tg_launch_summary.
 * "kernel_launches": one row per launch, by launch start then device start:
 *   step (N of ProfilerStep#N, empty outside steps), launch, kernel,
 *   correlation (empty when the launch has none), device, stream,
 *   cpu_duration(us), gpu_duration(us), launch_delay(us).
 * "queue_length_summary": one row per (device, stream) with launches:
 *   device, stream, queue_length_count, queue_length_mean, queue_length_std,
 *   queue_length_min, queue_length_max, time_weighted_mean,
 *   time_at_max_queue(us). The queue of a stream goes up by one at each
 *   launch's start and down by one at its device event's start (HTA: an
 *   operation is outstanding from its launch until it starts running). The
 *   count, mean, std (sample), min and max are over the change points, as
 *   HTA's describe(); at equal times launches come first. time_weighted_mean
 *   is the average of the queue length over time between the first and the
 *   last change (empty when that is 0 ns); time_at_max_queue is the time the
 *   queue held 1024 or more (HTA's time blocked on a full queue). Every
 *   launch above is queued; HTA's queue also takes cuLaunchKernel and hip*
 *   launches but not cudaGraphLaunch, and reports the blocked time of only
 *   the last stream of a rank that reaches the limit.
 * "memory_bandwidth": one row per memory kind (HTA's names: "Memcpy HtoD",
 *   "Memcpy DtoH", "Memcpy DtoD", ... the first 11 characters of a
 *   "Memcpy ..." name, "Memset", else "Memcpy Unknown"), by name:
 *   memory_kind, count, bytes (sum of the "bytes" arguments), time(us) (sum
 *   of durations), achieved_gbps (bytes / time of the events that carry
 *   "bytes", in GB/s = bytes per ns; empty when that time is 0), max_gbps
 *   (the fastest single event). Every MEMORY-typed device event counts, with
 *   or without a launch.
 * "frequent_kernel_sequences": for each cpu_op name, the kernel sequences
 *   its calls launch (the device events under a call in tree order, that is
 *   launch order; HTA sorts them by GPU start time, which splits one pattern
 *   into several when kernels of two streams race; a call needs at least
 *   one device event, HTA asks for 3), the five most frequent by count, then
 *   GPU time: op, rank (1..5), count, calls (calls of the op with device
 *   events), num_kernels, gpu_time(us) (sum of the kernels' durations over
 *   the count calls), gpu_time_mean(us), cpu_time(us) (sum of the calls'
 *   durations), kernels (the names joined by " | "). Ops by name. Past
 *   TG_LAUNCH_SEQ_TEXT_MAX bytes of kernels over the rows, a row's kernels
 *   end, after the names that still fit, with "... (N more kernels)". */
int tg_launch_stats_tables(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step);

/* The memory kind of a MEMORY-typed device event named name of kind (an
 * event kind), HTA's get_memory_kernel_type: "Memset" (also a memset not
 * named "Memcpy..."), the first 11 characters of a "Memcpy ..." name
 * ("Memcpy HtoD"), else "Memcpy Unknown"; into out (NUL-terminated). */
void tg_launch_memory_kind(char out[16], const char *name, int kind);

/* tg_launch_stats_tables, without the one-row-per-launch table when
 * with_rows is 0 (the report: it is as long as the trace, and nothing of it
 * is printed). */
int tg_launch_stats_tables_ex(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step, int with_rows);

#endif
