/*
 * gpu_specs.h - peak throughputs of known GPUs, for the roofline.
 *
 * A tg_gpu_specs table starts with the built-in entries (see gpu_specs.c
 * for every number's source), can be extended or changed by a YAML override
 * file, and recognises the GPU of a trace from its deviceProperties (name,
 * memory, compute capability, SM/CU count).
 *
 * Peaks are dense (no structured sparsity), in TFLOPS; memory bandwidth is
 * in GB/s (1e9 bytes/s), as TraceLens's arch files give them.
 */
#ifndef TG_GPU_SPECS_H
#define TG_GPU_SPECS_H

#include "../../util/tg.h"
#include "../trace/trace.h"

#include <stddef.h>
#include <stdint.h>

/* The compute specs of TraceLens: unit ("matrix" for GEMM/CONV/SDPA on
 * tensor/matrix cores, "vector" for elementwise, reduce, norm) + precision. */
typedef enum tg_compute_spec {
	TG_CS_MATRIX_FP64 = 0,
	TG_CS_MATRIX_FP32,
	TG_CS_MATRIX_TF32,
	TG_CS_MATRIX_BF16,
	TG_CS_MATRIX_FP16,
	TG_CS_MATRIX_FP8,
	TG_CS_MATRIX_FP4,
	TG_CS_VECTOR_FP64,
	TG_CS_VECTOR_FP32,
	TG_CS_VECTOR_BF16,
	TG_CS_VECTOR_FP16,
	TG_CS_COUNT
} tg_compute_spec;

/* "matrix_bf16" for TG_CS_MATRIX_BF16...; NULL when out of range. */
const char *tg_compute_spec_name(int cs);

/* The tg_compute_spec named s ("matrix_bf16", exact, lower case), or -1. */
int tg_compute_spec_parse(const char *s);

typedef struct tg_gpu_spec {
	char name[64];       /* "H100 SXM", "MI300X" */
	char match[64];      /* override entries: substring of the device name; "" for built-ins */
	double mem_bw_gbps;  /* HBM bandwidth, GB/s; 0 = unknown */
	double tflops[TG_CS_COUNT]; /* dense peaks, TFLOPS; 0 = unknown */
} tg_gpu_spec;

typedef struct tg_gpu_specs tg_gpu_specs;

/* Creates the table of built-in GPUs. *out is owned by the caller (free
 * with tg_gpu_specs_free). Returns 0 or TG_ENOMEM. */
int tg_gpu_specs_new(tg_gpu_specs **out);

/* Frees the table. NULL is a no-op. */
void tg_gpu_specs_free(tg_gpu_specs *s);

/* Number of entries, and entry i (borrowed, valid until the next load or
 * tg_gpu_specs_free). */
size_t tg_gpu_specs_count(const tg_gpu_specs *s);
const tg_gpu_spec *tg_gpu_specs_at(const tg_gpu_specs *s, size_t i);

/* Applies a YAML override file:
 *
 *   gpus:
 *     - match: "MI300X"     # optional: substring of the device name
 *       name: MI300X        # required: an existing entry is changed, a new one added
 *       mem_bw_gbps: 5300
 *       tflops: {matrix_bf16: 708, vector_fp32: 163}
 *
 * Only the given values change. Entries with a match are tried before the
 * built-in recognition, the last one in the file first. All or nothing: on
 * error the table is unchanged and the message is "FILE:LINE:COLUMN: what"
 * (TG_EFORMAT for bad YAML, unknown keys, bad numbers; TG_EIO when the file
 * cannot be read). */
int tg_gpu_specs_load_file(tg_gpu_specs *s, const char *path);

/* Same for len bytes of YAML in memory; name is used in messages. */
int tg_gpu_specs_load_mem(tg_gpu_specs *s, const char *yaml, size_t len, const char *name);

/* The entry named name (exact, case-insensitive). Returns 0 or TG_ENOTFOUND;
 * *out borrowed from s. */
int tg_gpu_specs_find(const tg_gpu_spec **out, const tg_gpu_specs *s, const char *name);

/* Recognises a GPU from deviceProperties: name ("NVIDIA H100 80GB HBM3",
 * "AMD Instinct MI300X VF", "" ...), totalGlobalMem in bytes (0 if
 * unknown), computeMajor/Minor (gfx major/minor on ROCm) and numSms (CUs
 * on ROCm), -1 or 0 if unknown. Override matches first, then the name, then
 * (for empty or generic names such as "AMD Radeon Graphics") the compute
 * capability, SM count and memory. Returns 0 or TG_ENOTFOUND; *out
 * borrowed from s. */
int tg_gpu_specs_match(const tg_gpu_spec **out, const tg_gpu_specs *s, const char *device_name,
                       int64_t total_memory, int compute_major, int compute_minor, int num_sms);

/* tg_gpu_specs_match for a device of trace t (tg_trace_devices). */
int tg_gpu_specs_match_device(const tg_gpu_spec **out, const tg_gpu_specs *s, const tg_trace *t,
                              const tg_device *d);

/* The peak of spec for compute spec cs, in TFLOPS; 0 when unknown. */
double tg_gpu_spec_tflops(const tg_gpu_spec *spec, int cs);

#endif
