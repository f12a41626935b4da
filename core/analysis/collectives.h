/*
 * collectives.h - collective communication kernels (NCCL, RCCL, custom
 * all-reduces): per rank, every collective with its metadata and a summary;
 * across the ranks of one job, the i-th collective of each process group
 * matched rank by rank, with latency, skew, bandwidth and stragglers.
 *
 * Follows TraceLens's NcclAnalyser (TraceLens/NcclAnalyser/nccl_analyser.py):
 *
 *   collective  a device event of kind TG_KIND_KERNEL that tg_kernel_class()
 *               files as COMMUNICATION and that has a correlation id or an
 *               External id, and whose name contains nccl, rccl, hccl,
 *               cross_device_reduce or multimem_all_reduce (any case) or
 *               that has a "Collective name" argument (TraceLens looks for
 *               nccl, rccl, cross_device_reduce only); its kernel arguments "Collective name", "dtype",
 *               "In/Out msg nelems", "Group size", "Process Group Name",
 *               "Process Group Ranks", "In/Out split size" give the metadata;
 *               a missing collective name is inferred from the kernel name
 *               for vLLM's cross_device_reduce and PyTorch's
 *               multimem_all_reduce (both "allreduce")
 *   msg size    nelems * bytes per element / 2^20 (MB), bytes per element:
 *               Float 4, Int 4, Long 8, BFloat16 2, Bool 1, Byte 1,
 *               Double 8, Half 2, Short 2; other dtypes: unknown
 *   matching    index_in_group = position by start time among the rank's
 *               collectives of the same Process Group Name ("Unknown_Group"
 *               when absent); the collectives of all ranks with the same
 *               (group, index) are one collective. "Simplified mode" when no
 *               collective anywhere has a process group name: with at most
 *               one stream per rank the group is "all" (TraceLens); with
 *               several streams the group is "stream S" (tracegate only:
 *               TraceLens then matches nothing). In simplified mode
 *               collectives without a known name are kept.
 *   implicit    only allreduce, reducescatter, allgather and alltoall kinds
 *   sync set    are matched (broadcast, all_to_allv, send/recv are not);
 *               in simplified mode every collective but all_to_allv is
 *               (names are usually absent there), as in TraceLens
 *   metrics     per matched collective, over the ranks that have it:
 *                 wait_r              = max_r ts_r - ts_r
 *                 skew in start time  = max_r wait_r
 *                 earliest arrival    = the rank with the largest wait
 *                 latest arrival      = the rank with wait 0 (the straggler)
 *                 avg_wait_time       = mean_r wait_r
 *                 comm_latency        = min_r dur_r (the last arrival's
 *                                       duration: the pure transfer time)
 *                 skew in end time    = max_r end_r - min_r end_r
 *                 Full msg size (MB)  = Out msg size for allgather kinds,
 *                                       else In msg size
 *                 algo bw (GB/s)      = Full MB / 1024 / (comm_latency s)
 *                 bus bw (GB/s)       = algo bw * 2(n-1)/n for allreduce,
 *                                       (n-1)/n for reducescatter,
 *                                       allgather, alltoall; n = Group size
 *               Ties: earliest arrival is the highest such rank, latest
 *               arrival the lowest (as TraceLens's max of (wait, rank) and
 *               idxmin). Collectives whose name, dtype, element counts,
 *               group size or group ranks differ across ranks are skipped
 *               and counted (TraceLens raises an error).
 *
 * Times in tables are microseconds (doubles), as in TraceLens's CSVs;
 * TraceLens rounds the straggler table to 0.1, tracegate does not.
 */
#ifndef TG_COLLECTIVES_H
#define TG_COLLECTIVES_H

#include "table.h"
#include "../tree/tree.h"

/* One collective kernel of one trace. Strings are borrowed from the trace
 * (valid until tg_trace_free); NULL when the argument is absent. String
 * arguments that were JSON arrays ("Process Group Ranks": [0, 1]) are their
 * JSON text. */
typedef struct tg_collective {
	uint32_t event;            /* index into tg_trace_events() */
	int64_t ts, dur;           /* ns */
	int64_t stream;            /* tg_kernel_stream() */
	const char *kernel;        /* kernel name */
	const char *collective;    /* "Collective name", else inferred, else NULL */
	const char *dtype;
	const char *pg_name;       /* "Process Group Name" */
	const char *pg_desc;       /* "Process Group Description" */
	const char *pg_ranks;      /* "Process Group Ranks" */
	const char *in_split, *out_split; /* "In split size", "Out split size" */
	int64_t in_nelems, out_nelems; /* -1 when absent */
	int64_t group_size;        /* -1 when absent */
	double in_mb, out_mb;      /* MB (2^20 bytes); NAN when dtype or count unknown */
} tg_collective;

/* Every collective kernel of t in start-time order (rules above). On
 * success *out is a malloc'ed array of *n entries (NULL when *n is 0) that
 * the caller frees with free(). Returns 0 or TG_ENOMEM. */
int tg_collectives_list(tg_collective **out, size_t *n, const tg_trace *t);

/* Bytes per element of a profiler dtype name ("BFloat16" -> 2); 0 when the
 * dtype is NULL or unknown. */
int tg_collectives_dtype_bytes(const char *dtype);

/* The kind of a collective name: "allreduce", "reducescatter",
 * "allgather", "alltoall", "alltoallv" (static strings), or NULL
 * ("broadcast", "send", unknown names, NULL). */
const char *tg_collectives_kind(const char *collective);

/* Bus bandwidth factor of a collective name for a group of n ranks:
 * 2(n-1)/n for allreduce kinds, (n-1)/n for reducescatter, allgather and
 * alltoall kinds; NAN for other names or n < 1. */
double tg_collectives_bus_factor(const char *collective, int64_t n);

/* Per-rank tables over n traces (their trees; n = 1 for a single trace),
 * rank from distributedInfo, else the position in the list, for step
 * (-1: the whole traces; else only the collectives whose kernel falls in
 * ProfilerStep#step on its rank, by tg_tree_step_of(); a rank without that
 * step contributes no rows):
 *   coll_per_rank: one row per collective kernel - rank, Process Group
 *     Name, Process Group Ranks, Collective name, Group size, dtype, In msg
 *     nelems, In msg size (MB), Out msg nelems, Out msg size (MB), In split
 *     size, Out split size, stream, ts (us), dur (us), kernel;
 *   coll_analysis (TraceLens's coll_analysis / nccl_summary_long): grouped
 *     by rank, Process Group Name, Process Group Ranks, Collective name,
 *     Group size, dtype, In msg nelems, Out msg nelems, In split size, Out
 *     split size, stream - In msg size (MB)_first, Out msg size (MB)_first,
 *     dur_sum, dur_mean, dur_std (sample, empty for one), dur_min, dur_max
 *     (us), operation_count; sorted by dur_sum, largest first. Unlike
 *     TraceLens (pandas drops groups with a missing key), collectives
 *     without metadata are kept, their key cells empty.
 * *out receives 2 tables the caller frees. Returns 0 or TG_ENOMEM. */
int tg_collectives_rank_tables(tg_table *out[2], const tg_tree *const *trees, size_t n, int64_t step);

/* What tg_collectives_sync_tables found. */
typedef struct tg_collectives_sync_info {
	int simplified;          /* 1: matched by order, no process group metadata */
	size_t matched;          /* rows of nccl_implicit_sync */
	size_t skipped_mismatch; /* matched ids whose metadata differ across ranks */
	size_t skipped_step;     /* with a step: matched ids (of the kinds the
	                            table keeps) whose kernel falls in the step
	                            on some ranks but not on all */
	int64_t straggler;       /* the rank that arrived last in more than half
	                            of the matched collectives, else -1 (also
	                            with fewer than 2 ranks) */
} tg_collectives_sync_info;

/* Cross-rank tables over n traces (one tree per rank; rank from
 * distributedInfo, else the list position), for step (-1: the whole
 * traces). With a step N, the collectives are matched over the whole
 * traces first (so that collective_id is the same as without a step), then
 * a matched collective is kept when its kernel falls in ProfilerStep#N
 * (tg_tree_step_of) on every rank that has it; one that does on some ranks
 * only is left out and counted in info->skipped_step; a rank without step
 * N keeps none of the collectives it takes part in. total_nccl_dur_us
 * counts the step's collective kernels only:
 *   nccl_implicit_sync: one row per matched collective - collective_id,
 *     Process Group Name, Process Group Ranks, Collective name, Group size,
 *     dtype, In msg nelems, Out msg nelems, In msg size (MB), Out msg size
 *     (MB), Full msg size (MB), ranks, comm_latency, skew in start time,
 *     earliest arrival rank, latest arrival rank, avg_wait_time, skew in
 *     end time, algo bw (GB/s), bus bw (GB/s); ordered by group (first
 *     seen) then index;
 *   nccl_summary_implicit_sync: grouped by Collective name, dtype, In msg
 *     nelems ("Unknown" when absent) - Process Group Name, Group size, Full
 *     msg size (MB) (of the first), then _mean, _median, _min, _max of
 *     comm_latency, skew in start time, skew in end time, algo bw (GB/s),
 *     bus bw (GB/s), then count and Total comm latency (ms); sorted by the
 *     total, largest first;
 *   nccl_straggler_summary: one row per rank - rank, total_wait_time_us,
 *     mean_wait_time_us, times_arrived_last, times_arrived_first,
 *     pct_arrived_last, num_collectives, total_nccl_dur_us (every
 *     collective kernel of the rank), straggler (1 for info->straggler);
 *     sorted by total wait, smallest first.
 * Times in us, bandwidths in GB/s (2^30 bytes / s). *out receives 3 tables
 * the caller frees; info (may be NULL) receives the counts. Returns 0 or
 * TG_ENOMEM. */
int tg_collectives_sync_tables(tg_table *out[3], tg_collectives_sync_info *info,
                               const tg_tree *const *trees, size_t n, int64_t step);

#endif
