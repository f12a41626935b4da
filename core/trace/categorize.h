/*
 * categorize.h - the op category of a kernel launcher, as TraceLens's
 * categorize_torch_op names them: GEMM, CONV_fwd, CONV_bwd, SDPA_fwd,
 * SDPA_bwd, NORM_fwd, NORM_bwd, elementwise, reduce, triton,
 * record_param_comms, multi_tensor_apply, other...
 */
#ifndef TG_CATEGORIZE_H
#define TG_CATEGORIZE_H

#include <stddef.h>

/* Category of an op named name whose first kernel is first_kernel (may be
 * NULL). With tracelens_compat, reproduces TraceLens exactly; without it,
 * also files the flash/efficient/cuDNN attention kernels' own ops
 * (aten::_flash_attention_forward and friends, which TraceLens leaves in
 * "other") under SDPA_fwd / SDPA_bwd, and the inference engines' ops that
 * TraceLens files under InferenceAttention under SDPA_fwd (attention) or
 * KV_cache (cache writes). Returns a static string. */
const char *tg_op_category(const char *name, const char *first_kernel, int tracelens_compat);

/* The i-th op name of TraceLens's registry (byte order), NULL past the
 * end: for the tests that check every registered op. Static string. */
const char *tg_op_registry_name(size_t i);

/* The category an op gives to every kernel under it, for the default
 * classification (kernel_category.h): tg_op_category(name, NULL, 0), and
 * SDPA_fwd for the ops that compose attention from other ops
 * (aten::scaled_dot_product_attention, its math path). Static string. */
const char *tg_op_family(const char *name);

/* 1 when an op category says what the op's kernels are: not "other" and
 * not "triton" (an inductor kernel's op, named after the kernel). */
int tg_op_category_informative(const char *category);

/* 1 if a kernel name is communication (rccl, nccl, cross_device_reduce,
 * case-insensitive), as TraceLens's timeline and launcher rules use. */
int tg_kernel_is_comm(const char *name);

/* 1 if a kernel name is a memory copy done by a kernel (ROCm's
 * MEMORY_COPY_* and __amd_rocclr_copyBuffer*), counted as memcpy. */
int tg_kernel_is_copy(const char *name);

/* 0 if the built-in name tables are sorted (bsearch needs it), else -1. */
int tg_categorize_self_check(void);

#endif
