/*
 * pool.h - the runs of one commit pooled on one side of a judgement (see
 * pool.c).
 */
#ifndef TG_POOL_H
#define TG_POOL_H

#include "daemon_impl.h"

/* The most runs of one commit a side pools (the latest). */
#define TG_POOL_MAX_RUNS 8

/*
 * Appends to side the run data of the done runs (not errors, not
 * tampered) of j's repository, commit and workload that f lets in, other
 * than j itself, the latest first, at most max of them, while the side's
 * JSON stays within max_bytes; *added: how many runs joined, *left_over:
 * how many did not fit (logged). A run whose manifest or traces cannot be
 * read for good is left out and recorded as tampered (logged); storage
 * that may come back is an error (the job is tried again). Returns 0 or a
 * code.
 */
int tg_pool_runs(tg_side *side, size_t *added, size_t *left_over, const tg_job_ctx *c, const tg_job *j,
                 const tg_pool_filter *f, size_t max, uint64_t max_bytes);

#endif
