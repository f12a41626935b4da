/*
 * perf_sheets.h - TraceLens's per-category perf sheets (GEMM.csv,
 * SDPA_fwd.csv, CONV_fwd.csv, UnaryElementwise.csv, ...) from an event
 * tree: every op whose name has a perf model (perf_model.h), its kernel
 * time (busy union of the device events of its subtree), GFLOPS, data
 * moved, FLOPS/Byte, TB/s and TFLOPS/s, summarized per name and model
 * parameters like TraceLens's summary sheets.
 */
#ifndef TG_PERF_SHEETS_H
#define TG_PERF_SHEETS_H

#include "../models/gpu_specs.h"
#include "../trace/timebase.h"
#include "table.h"
#include "../tree/tree.h"

#include <stddef.h>
#include <stdint.h>

/* Builds the summary sheets of tree, one table per family that has at
 * least one op, in the order GEMM, SDPA_fwd, SDPA_bwd, CONV_fwd, CONV_bwd,
 * UnaryElementwise, BinaryElementwise, Normalization, Reduce_fwd, each
 * named like TraceLens's file. Columns: name, "param: ..." (TraceLens's
 * strings), GFLOPS_first, Data Moved (MB)_first, FLOPS/Byte_first,
 * TB/s_{mean,median,std,min,max}, TFLOPS/s_{...}, Compute Spec,
 * ("matrix_bf16", "vector_fp32"; "" when the dtype has no precision),
 * Kernel Time (µs)_{mean,median,std,min,max,sum}, name_count; rows by
 * total kernel time, largest first. Not given: kernel_details strings,
 * process/thread names, raw argument columns, UID_first.
 *
 * spec: the GPU's peaks, or NULL. With a spec, "Roofline Time (µs)_first",
 * "Roofline Bound_first" (COMPUTE_BOUND / MEMORY_BOUND) and
 * "Pct Roofline_{mean,median,std,min,max}" follow Compute Spec, as in
 * TraceLens's roofline reports (roofline.h).
 *
 * tb: time base; tracelens_float = 1 also selects TraceLens's own model
 * simplifications and its kernel linking (tg_tree_linked_like_tracelens).
 * step: -1 for the whole trace, else only ops of that step index.
 * Ops whose shapes do not fit their model are left out, as TraceLens does;
 * ops without device work stay, with kernel time 0 and no TB/s, TFLOPS/s
 * (TraceLens likewise). Attention entry points nested in another of the
 * same family (sdpa_flash -> _flash_attention_forward) count once, outer.
 *
 * On success *out is an array of *n tables owned by the caller (freed
 * with tg_tables_free). Returns 0 or TG_ENOMEM;
 * on failure *out is NULL and *n 0. */
int tg_perf_sheets(tg_table ***out, size_t *n, const tg_tree *tree, const tg_timebase *tb, int32_t step,
                   const tg_gpu_spec *spec);

#endif
