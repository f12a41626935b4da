/*
 * ranks.h - comparing the ranks of one job: how each kernel's duration is
 * distributed across the traces of several ranks (one trace per rank).
 */
#ifndef TG_RANKS_H
#define TG_RANKS_H

#include "table.h"
#include "../tree/tree.h"

/* The rank a trace file's name gives: the number after the last "rank" in
 * its base name that is followed by digits, optionally after '-' or '_'
 * ("rank0.pt.trace.json.gz" 0, "profile_trace_rank_3.json" 3,
 * "job_128rank_job_rank-1.json.gz" 1, case-insensitive); -1 when none. */
int64_t tg_rank_from_name(const char *path);

/* The rank of trace t, matched across runs and sides by it (never by the
 * order of the files): its distributedInfo rank; else hint (the manifest's
 * rank, -1 when none); else the rank its file name gives
 * (tg_rank_from_name of tg_trace_name); else -1 (unknown). */
int64_t tg_rank_of(const tg_trace *t, int64_t hint);

/* The same choice without the trace (a trace known by its run data):
 * distributed (its distributedInfo rank, -1 when none), else hint, else
 * the rank the file name gives (name may be NULL: none). */
int64_t tg_rank_pick(int64_t distributed, int64_t hint, const char *name);

/* Tables over n traces (their trees), ranks from distributedInfo (else the
 * position in the list):
 *   kernel_distribution_across_ranks: Kernel name, rank, count, total (us),
 *     mean (us), min (us), max (us) - for the top kernels by total time
 *     over all ranks, one row per kernel and rank;
 *   kernel_rank_spread: Kernel name, ranks, total min/mean/max (us),
 *     max/mean, slowest rank - one row per top kernel.
 * top: how many kernels (0: 20). step: -1 for the whole traces, else only
 * the kernels that fall in ProfilerStep#step on their rank
 * (tg_tree_step_of; a rank without that step counts no kernels, its rows
 * 0). *out receives 2 tables the caller frees. Returns 0 or TG_ENOMEM. */
int tg_ranks_kernel_tables(tg_table *out[2], const tg_tree *const *trees, size_t n, size_t top,
                           int64_t step);

#endif
