/*
 * roofline.h - the roofline of one op row, as TraceLens computes it
 * (TreePerfAnalyzer.compute_perf_metrics with --gpu_arch_json_path), and the
 * naming of compute specs from a dtype string.
 *
 *   compute_us = flops / (peak_tflops * 1e12) * 1e6
 *   memory_us  = bytes / (mem_bw_gbps * 1e9) * 1e6
 *   roofline_us = max(compute_us, memory_us)
 *   bound = COMPUTE_BOUND if compute_us >= memory_us else MEMORY_BOUND
 *   pct_roofline = roofline_us / kernel_us * 100
 */
#ifndef TG_ROOFLINE_H
#define TG_ROOFLINE_H

#include "gpu_specs.h"
#include "../../util/tg.h"

typedef enum tg_roofline_bound {
	TG_BOUND_UNKNOWN = 0, /* a peak or the byte count is unknown */
	TG_BOUND_COMPUTE,
	TG_BOUND_MEMORY
} tg_roofline_bound;

/* "COMPUTE_BOUND", "MEMORY_BOUND", or "" for TG_BOUND_UNKNOWN (TraceLens's
 * column values). */
const char *tg_roofline_bound_name(tg_roofline_bound b);

typedef struct tg_roofline {
	double compute_us;     /* flops at the peak of the compute spec; NAN if unknown */
	double memory_us;      /* bytes at the memory bandwidth; NAN if unknown */
	double roofline_us;    /* max of the two; NAN if either is unknown */
	tg_roofline_bound bound;
	double pct_roofline;   /* roofline_us / kernel_us * 100; NAN if either is unknown */
	double tflops_s;       /* achieved: flops / 1e12 / (kernel_us / 1e6); NAN if kernel_us <= 0 */
	double tb_s;           /* achieved: bytes / 1e12 / (kernel_us / 1e6); NAN likewise */
	double flops_per_byte; /* flops / bytes; NAN if bytes is 0 or unknown */
} tg_roofline;

/* The roofline of one op: flops and bytes of its perf model (NAN when
 * unknown, as TraceLens's NaN bytes for unknown dtypes), its compute spec
 * ("matrix_bf16"...), its kernel time in microseconds, and the GPU's spec.
 * Fills every field of *out that can be computed. Returns 0; TG_ENOTFOUND
 * when the spec has no peak for compute_spec or no bandwidth (out is still
 * filled, roofline fields NAN); TG_EINVAL for a NULL spec, an unknown
 * compute spec name, or negative flops/bytes. */
int tg_roofline_compute(tg_roofline *out, double flops, double bytes, const char *compute_spec,
                        double kernel_us, const tg_gpu_spec *spec);

/* TraceLens's torch_dtype_map: the precision of a PyTorch dtype string
 * ("float" -> "fp32", "double" -> "fp64", "c10::Half" -> "fp16",
 * "c10::BFloat16" -> "bf16", "c10::Float8_e4m3fn(uz)", "c10::Float8_e5m2(fnuz)",
 * "unsigned char" -> "fp8", "c10::Float4_e2m1fn_x2" -> "fp4"; case-insensitive;
 * also "torch.bfloat16"-style names). A static string, or NULL when the
 * dtype has none (integers, bool, "", NULL). */
const char *tg_roofline_precision(const char *dtype);

/* Writes the compute spec of an op into buf ("matrix_bf16" when matrix is
 * non-zero: GEMM, CONV, SDPA; "vector_fp32" otherwise: elementwise, reduce,
 * norm) from its first input's dtype, as TraceLens names it (which may be a
 * spec no GPU has a peak for, such as "vector_fp8"). Returns 0, TG_ENOTFOUND
 * with buf "" when the dtype has no precision, TG_EINVAL when cap is too
 * small. */
int tg_roofline_compute_spec(char *buf, size_t cap, int matrix, const char *dtype);

#endif
