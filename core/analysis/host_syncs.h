/*
 * host_syncs.h - where the host stops and waits for the GPU.
 *
 * A host sync is a runtime or driver call that blocks the calling thread
 * until device work is done:
 *   - names ending in "Synchronize" of the CUDA runtime, driver or HIP:
 *     cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize,
 *     cuStreamSynchronize, cuCtxSynchronize, hipStreamSynchronize,
 *     hipDeviceSynchronize, hipEventSynchronize, ...;
 *   - synchronous copies: names starting with "cudaMemcpy", "cuMemcpy" or
 *     "hipMemcpy" without "Async" (cudaMemcpy, cudaMemcpy2D,
 *     cudaMemcpyToSymbol, cuMemcpyDtoH, hipMemcpy, and hipMemcpyWithStream,
 *     which ROCm's PyTorch uses for blocking copies);
 *   - cuda_sync events (Stream Sync, Event Sync, Context Sync) that are not
 *     under one of the calls above (they usually are: the tree links them to
 *     their runtime call, and counting both would count the wait twice).
 *     "Stream Wait Event" is a device-side wait and is not a host sync.
 * Where it comes from: the nearest cpu_op ancestor (aten::_local_scalar_dense
 * for a .item(), aten::copy_ for a .cpu()) and the nearest python_function
 * ancestor that names a source line ("train.py(42): step"; another python
 * frame such as "<built-in method item ...>" only when none does).
 */
#ifndef TG_HOST_SYNCS_H
#define TG_HOST_SYNCS_H

#include "table.h"
#include "../tree/step_filter.h"

typedef struct tg_host_sync_summary {
	uint64_t count;   /* host syncs selected */
	int64_t total_ns; /* sum of their durations */
	int64_t max_ns;   /* the longest */
} tg_host_sync_summary;

/* 1 if a runtime/driver call named name blocks the host (the rules above;
 * kind is a tg_kind: only TG_KIND_RUNTIME and TG_KIND_DRIVER calls, and
 * TG_KIND_SYNC events other than "Stream Wait Event", can be syncs). */
int tg_host_syncs_is_sync(const char *name, int kind);

/* Fills *out for the host syncs of step (TG_STEP_ALL, TG_STEP_HTA,
 * TG_STEP_HTA_ROUNDED or a step index; step_filter.h). Returns 0 or
 * TG_EINVAL (bad step). */
int tg_host_syncs_summary(tg_host_sync_summary *out, const tg_tree *tree, int32_t step);

/* The number of host syncs of each step (counts: nsteps of them, the
 * steps of tg_tree_steps), in one pass: counts[s] equals the count of
 * tg_host_syncs_summary(..., s). Returns 0 or TG_ENOMEM. */
int tg_host_syncs_count_by_step(uint64_t *counts, size_t nsteps, const tg_tree *tree);

/* Builds the tables for step. On success *out is an array of *n tables; the
 * caller frees them with tg_tables_free. Returns 0,
 * TG_EINVAL (bad step) or TG_ENOMEM (nothing to free).
 *
 * "host_syncs": one row per (sync, op, python_frame), by decreasing total
 *   time: sync (the call's or cuda_sync event's name), op (nearest cpu_op
 *   ancestor, empty when none), python_frame (empty when none), count,
 *   total_time(us), max_time(us), mean_time(us). */
int tg_host_syncs_tables(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step);

#endif
