/*
 * perf_model.h - analytic FLOP and byte counts of an op from its name and
 * shape arguments, the models of TraceLens's PerfModel (GEMM, SDPA, CONV,
 * elementwise, reduce, normalization) plus the attention entry points
 * TraceLens does not model (flash_attn::_flash_attn_*, aten::_flash_
 * attention_*, _efficient_attention_*, _cudnn_attention_*, AMD AITER/CK
 * aiter::_flash_attn_*, mha_*, fmha_v3_*, mha_batch_prefill). One file per
 * family: perf_gemm.c, perf_sdpa.c, perf_conv.c, perf_elementwise.c,
 * perf_reduce.c, perf_norm.c. Everything is pure and allocation-free.
 */
#ifndef TG_PERF_MODEL_H
#define TG_PERF_MODEL_H

#include "shape.h"

#include <stdint.h>

/* The model family of an op; also which TraceLens sheet it goes to. */
typedef enum tg_perf_kind {
	TG_PERF_NONE = 0,
	TG_PERF_GEMM,     /* sheet GEMM */
	TG_PERF_SDPA_FWD, /* sheet SDPA_fwd */
	TG_PERF_SDPA_BWD, /* sheet SDPA_bwd */
	TG_PERF_CONV_FWD, /* sheet CONV_fwd */
	TG_PERF_CONV_BWD, /* sheet CONV_bwd */
	TG_PERF_UNARY,    /* sheet UnaryElementwise */
	TG_PERF_BINARY,   /* sheet BinaryElementwise */
	TG_PERF_NORM,     /* sheet Normalization */
	TG_PERF_REDUCE,   /* sheet Reduce_fwd */
	TG_PERF_KIND_COUNT
} tg_perf_kind;

/* The raw JSON texts of an op's arguments (NULL when absent). */
typedef struct tg_perf_args {
	const char *name;
	const char *dims;     /* "Input Dims" */
	const char *types;    /* "Input type" */
	const char *strides;  /* "Input Strides" */
	const char *concrete; /* "Concrete Inputs" */
} tg_perf_args;

typedef struct tg_perf_gemm {
	int64_t B, M, N, K; /* B = 1 unless bmm/baddbmm */
	int bias;
	int a, b;           /* indices of A and B in the inputs */
} tg_perf_gemm;

typedef struct tg_perf_sdpa {
	int64_t B, N_Q, H_Q, N_KV, H_KV, d_qk, d_v;
	double dropout;
	int causal, flash; /* flash: the backward recomputes QK^T */
} tg_perf_sdpa;

typedef struct tg_perf_conv {
	int nd;                 /* spatial dims: 1, 2 or 3 */
	int64_t x[5], w[5], out[5]; /* input, weight, output shapes (nd + 2 each) */
	int64_t stride[3], padding[3], dilation[3], output_padding[3], groups;
	int bias, transposed;
} tg_perf_conv;

typedef struct tg_perf_elementwise {
	int64_t n_in1, n_in2, n_out; /* elements; n_in2 0 for unary */
	int64_t out[TG_SHAPE_MAX_DIMS];
	int out_nd;
	int bpe_in1, bpe_in2, bpe_out; /* bytes per element, 0 unknown */
} tg_perf_elementwise;

typedef struct tg_perf_reduce {
	int64_t n_in, n_out;
	int bpe_in, bpe_out;
} tg_perf_reduce;

typedef struct tg_perf_norm {
	int64_t n, C; /* elements, channels (normalized size) */
	int affine, bias, training, rms, backward;
} tg_perf_norm;

typedef struct tg_perf {
	tg_perf_kind kind;
	double flops; /* NaN when not computable */
	double bytes; /* NaN when a dtype size is unknown */
	int bpe;      /* bytes per element of the first input, 0 unknown */
	const char *precision; /* "bf16", "fp8"... of the first input, or NULL */
	union {
		tg_perf_gemm gemm;
		tg_perf_sdpa sdpa;
		tg_perf_conv conv;
		tg_perf_elementwise ew;
		tg_perf_reduce red;
		tg_perf_norm norm;
	} p;
} tg_perf;

/* Options: TraceLens's own simplifications (default 0: tracegate's). */
typedef struct tg_perf_opts {
	int tracelens; /* 1: TraceLens's simplifications: SDPA bytes at 2 per
	                  element whatever the dtype; reduce output of 1 element;
	                  no conv bias; forward layer/RMS norms always affine;
	                  aten::rms_norm unmodelled (its child is) */
} tg_perf_opts;

/* The family of an op name, TG_PERF_NONE when no model (aten::linear and
 * aten::matmul have none: their mm/addmm/bmm child carries the metrics). */
tg_perf_kind tg_perf_kind_of(const char *name);

/* The TraceLens sheet name of a kind ("GEMM", "SDPA_fwd"...), NULL for
 * TG_PERF_NONE. Static string. */
const char *tg_perf_sheet_name(tg_perf_kind kind);

/* Computes the model of one op into *out (caller's storage). opts may be
 * NULL. Returns 0; TG_ENOTFOUND when the name has no model; TG_EFORMAT
 * when the shapes do not fit the model (missing, malformed, inconsistent
 * attention heads...). Sets no error message (called per op). */
int tg_perf_model(tg_perf *out, const tg_perf_args *args, const tg_perf_opts *opts);

/* Family models, called by tg_perf_model with the parsed arguments; each
 * returns 0 or TG_EFORMAT. dims/types/strides/concrete are never NULL
 * (empty when absent). */
int tg_perf_gemm_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types);
int tg_perf_sdpa_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                       const tg_shape_list *concrete, const tg_perf_opts *opts);
int tg_perf_conv_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                       const tg_shape_list *concrete, const tg_perf_opts *opts);
int tg_perf_elementwise_model(tg_perf *out, const char *name, int binary, const tg_shape_list *dims,
                              const tg_shape_list *types, const tg_shape_list *concrete);
int tg_perf_reduce_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                         const tg_shape_list *concrete, const tg_perf_opts *opts);
int tg_perf_norm_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                       const tg_shape_list *concrete, const tg_perf_opts *opts);

#endif
