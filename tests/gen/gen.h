/*
 * gen.h - tg-gen, the synthetic PyTorch profiler (Kineto) trace generator.
 *
 * A standalone writer, independent of tracegate's core on purpose: the
 * tests check tracegate's reader against a producer that shares no code
 * with it. See docs/generator.md for the options and the trace's shape.
 *
 * Modules:
 *   writer.c  buffered output (plain, gzip, stdout) and fast number formatting
 *   cost.c    the kernel cost model and deterministic random numbers
 *   desc.c    the model's ops and kernels: names, shapes, base durations
 *   model.c   one step of the transformer loop: host events and GPU events
 *   emit.c    serialising events, the file's header and trailer
 *   truth.c   the ground truth (--summary)
 *   main.c    options
 *
 * All times are integer nanoseconds; they are written as microseconds with
 * three decimals, like Kineto's own output.
 */
#ifndef TG_GEN_H
#define TG_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

/* ---------------------------------------------------------------- options */

typedef struct gen_opts {
	const char *out;          /* -o: path, "-" for stdout, ".gz" suffix for gzip */
	uint64_t seed;            /* --seed */
	int64_t steps;            /* --steps: 0 = one pass without ProfilerStep */
	int64_t layers, batch, seq, hidden, heads;
	int train, python;        /* --train, --python */
	double noise, jitter;     /* --noise, --jitter as fractions (5 % = 0.05) */
	double run_noise, family_noise; /* --run-noise, --family-noise: sd of the
	                             log of a run's factors, as fractions */
	double sdpa_scale, gemm_scale;
	double split_attention;   /* 0 = off, else the factor of the two kernels */
	double sdpa_math;         /* 0 = off, else attention forward on the math path
	                             (bmm, softmax, bmm), together this factor x the
	                             flash kernel's duration */
	const char *extra_op;     /* --extra-op NAME or NULL */
	int64_t host_sync;        /* --host-sync N */
	int64_t ranks, rank, straggler; /* straggler -1 = none */
	double skew_us, link_gbps;
	const char *gpu;          /* deviceProperties name */
	int64_t driver, cuda;     /* Kineto's integer versions (12040) */
	double target_mb;         /* 0 = off */
	int summary;              /* --summary */
	int64_t distinct_ops;     /* --distinct-ops N: 0 = the transformer loop */
	int reverse_ops;          /* --reverse-ops: those ops in reverse order */
	int gzip_level;           /* --gzip-level */
} gen_opts;

/* ----------------------------------------------------------------- writer */

typedef struct wbuf {
	char *buf;
	size_t len, cap;
	FILE *fp;       /* plain output (or stdout) */
	gzFile gz;      /* gzip output */
	int close_fp;   /* fp is ours to close */
	uint64_t total; /* uncompressed bytes written so far (flushed or not) */
	int err;        /* an I/O error happened */
} wbuf;

/* Opens path for writing ("-" = stdout; a ".gz" suffix gzips at level).
 * Returns 0 or -1 with errno set. */
int w_open(wbuf *w, const char *path, int level);
/* Flushes and closes; returns 0 or -1 when any write failed. */
int w_close(wbuf *w);
/* Hands the buffered bytes to the file. */
void w_flush(wbuf *w);
/* Appends n bytes. */
void w_mem(wbuf *w, const void *s, size_t n);
/* Appends a NUL-terminated string as is. */
void w_str(wbuf *w, const char *s);
/* Appends a signed decimal integer. */
void w_i64(wbuf *w, int64_t v);
/* Appends ns as microseconds with exactly three decimals ("12.340"). */
void w_us(wbuf *w, int64_t ns);
/* Appends a string literal (its length known at compile time). */
#define W_LIT(w, s) w_mem((w), (s), sizeof(s) - 1)

/* A malloc'd JSON string literal of s, quotes included; NULL on ENOMEM. */
char *json_quote(const char *s);
/* A malloc'd printf result; exits on ENOMEM (setup only). */
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* malloc/realloc that exit on ENOMEM. */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);

/* ------------------------------------------------------ kernels and ops */

/* What a kernel counts as in the ground truth. */
enum kclass { K_OTHER, K_GEMM, K_SDPA_FWD, K_SDPA_BWD, K_COMM };

/* One kind of kernel: name, launch geometry, cost. */
typedef struct kdesc {
	char *name;     /* JSON literal, quoted */
	char *args;     /* prebuilt args after "correlation": registers ... occupancy */
	int64_t base;   /* cost-model duration, ns, a multiple of 100 */
	double scale;   /* --gemm-scale / --sdpa-scale for its class, else 1 */
	int cls;        /* enum kclass */
	int noisy;      /* --noise and --jitter apply */
} kdesc;

/* One kind of host op: name and shapes. */
typedef struct opdesc {
	char *name;  /* JSON literal, quoted */
	char *args;  /* prebuilt ', "Concrete Inputs": ..., "Input Dims": ...' or "" */
} opdesc;

/* The GPU memcpy kinds the model uses. */
typedef struct mdesc {
	char *name;    /* JSON literal */
	int64_t bytes;
	int64_t dur;   /* ns */
} mdesc;

/* A linear layer: aten::linear -> aten::t, aten::addmm, and its backward
 * (aten::t, aten::mm for the input's gradient, aten::t, aten::mm for the
 * weight's, aten::sum for the bias's). */
typedef struct linear_desc {
	opdesc linear, t, addmm, mm_dx, mm_dw, sum, t_w;
	kdesc gemm, gemm_dx, gemm_dw, bias_sum;
	int64_t params;
} linear_desc;

/* The Python frames of one layer (--python), in the order they open. */
enum py_frame { PY_LAYER, PY_LN1, PY_ATTN, PY_QKV, PY_SDPA, PY_OUT, PY_LN2, PY_MLP, PY_UP, PY_DOWN, PY_PER_LAYER };

/* Everything the model needs, built once from the options. */
typedef struct model {
	int64_t tokens;                  /* batch * seq */
	int64_t params;                  /* parameter count (gradients to reduce) */
	/* forward */
	opdesc ln, native_ln, view, sdpa, sdpa_flash, flash_fwd, add, act, compiled, extra;
	opdesc sdpa_math, matmul, bmm, softmax; /* --sdpa-math */
	opdesc to, to_copy, empty_strided, copy, item, local_scalar;
	linear_desc qkv, out, up, down;
	kdesc ln_fwd, flash, split_kv, split_combine, add_k, act_k, extra_k;
	kdesc bmm_k, softmax_k;          /* --sdpa-math */
	/* backward: engine wrappers (ev_*), nodes, the ops below them */
	opdesc ev_add_bwd, add_bwd, ev_addmm_bwd, addmm_bwd, ev_ln_bwd, ln_bwd_node, ev_sdpa_bwd, sdpa_bwd_node;
	opdesc ev_act_bwd, act_bwd_node, ln_bwd, sdpa_bwd, flash_bwd, act_bwd;
	opdesc ev_bmm_bwd, bmm_bwd_node, ev_softmax_bwd, softmax_bwd_node, softmax_bwd; /* --sdpa-math --train */
	kdesc bmm_bwd_k, softmax_bwd_k;
	kdesc ln_bwd_dx, ln_bwd_gb, flash_bwd_dot, flash_bwd_main, flash_bwd_convert, act_bwd_k;
	/* optimizer and the collective */
	opdesc fused_adamw, allreduce, record_param_comms, allreduce_ann;
	kdesc adam, nccl;
	mdesc h2d, d2h;
	int64_t adam_kernels;            /* multi_tensor_apply launches per step */
	int64_t comm_nelems;             /* allreduce elements */
	int64_t comm_base;               /* allreduce transfer time, ns */
	char *comm_args;                 /* the collective's metadata, as kernel args */
	char **py;                       /* layers * PY_PER_LAYER frame names (JSON) */
	int64_t *py_module;              /* their Python module ids, -1 for none */
	char *gpu_name;                  /* JSON literal */
	opdesc *dops;                    /* --distinct-ops: the ops and their kernels */
	kdesc *dkern;
} model;

/* Builds the model from the options (desc.c); model_free releases it. */
void model_init(model *m, const gen_opts *o);
void model_free(model *m, const gen_opts *o);

/* The cost model (cost.c): base durations in ns, multiples of 100. */
int64_t cost_round(double ns);
int64_t cost_gemm(int64_t m, int64_t n, int64_t k);
int64_t cost_memory(double bytes, double fixed_ns);
int64_t cost_flash_fwd(int64_t b, int64_t h, int64_t s, int64_t d);
int64_t cost_flash_bwd(int64_t b, int64_t h, int64_t s, int64_t d);
int64_t cost_pageable_copy(int64_t bytes);

/* Deterministic hashing of (seed, tag, a, b): 64 bits, or a uniform double
 * in [0, 1). */
uint64_t hash64(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b);
double hash_unit(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b);
/* A small stateful generator for host timing (xorshift64*), seeded by
 * rng_seed(). */
uint64_t rng_seed(uint64_t seed);
uint64_t rng_next(uint64_t *s);
/* A uniform integer in [lo, hi] nanoseconds from *s. */
int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi);

/* ---------------------------------------------------------------- events */

enum hcat { H_CPU_OP, H_ANNOTATION, H_PYTHON, H_RUNTIME, H_DRIVER };
enum dcat { D_KERNEL, D_MEMCPY, D_SYNC, D_STEP };

/* A host event of the current step. */
typedef struct hev {
	int cat;            /* enum hcat */
	int thread;         /* 0 main, 1 autograd */
	const char *name;   /* JSON literal */
	const char *args;   /* prebuilt trailing args or NULL */
	int64_t ts, dur;
	int64_t ext;        /* External id (ops); runtime: its op's External id */
	int64_t seq;        /* Sequence number, -1 none */
	int fwd_tid;        /* Fwd thread id, -1 none */
	int64_t corr;       /* runtime: correlation; 0 for none */
	int cbid;           /* runtime: callback id */
	int flow;           /* runtime: has a GPU activity (ac2g flow) */
	int64_t py_id, py_parent, py_module; /* python: ids, -1 none */
	int64_t fb_out, fb_in; /* fwdbwd flow ids: out (forward op), in (backward node), 0 none */
	int64_t ev_idx;
} hev;

/* A device event of the current step. */
typedef struct dev {
	int cat;            /* enum dcat */
	const kdesc *k;     /* D_KERNEL */
	const mdesc *mc;    /* D_MEMCPY */
	const char *extra;  /* extra kernel args (collective metadata) or NULL */
	int64_t ts, dur, corr, ext, stream;
	int64_t step;       /* D_STEP: the step number */
} dev;

/* Per-step ground truth. */
typedef struct truth {
	int64_t kernels, memcpys;
	int64_t gemm, sdpa_fwd, sdpa_bwd, comm, memcpy, kernel, busy; /* ns */
} truth;

/* The generator's state: owned by main, passed to every function. */
typedef struct gen {
	const gen_opts *o;
	const model *m;
	wbuf *w;
	hev *h;
	size_t nh, caph;
	dev *d;
	size_t nd, capd;
	size_t stack[2][64];  /* open host events per thread */
	int depth[2];
	int64_t cpu[2];       /* host clock per thread */
	int64_t gpu_compute, gpu_comm; /* stream clocks */
	int64_t t0, t_end;    /* the first time; the last host or GPU time so far */
	int64_t ext_id, corr, seq, py_id, ev_idx, fb_flow;
	int64_t pid, tid[2], device;
	uint64_t rng;         /* host timing */
	int64_t step;         /* current step number (0 without steps) */
	int64_t pass;         /* 0-based pass count, for hashing */
	double step_factor;   /* --noise factor of this step */
	double run_factor;    /* --run-noise factor of this run (all noisy kernels) */
	double family_factor[5]; /* --family-noise factor of each enum kclass */
	int first_event;      /* 1 until the first event is written (comma handling) */
	int64_t py_root;      /* Python id of the <module> frame, or -1 */
	truth step_truth, all_truth;
	int64_t *spans;       /* [start, end] pairs of this step's GPU events */
	size_t nspans, capspans;
	int64_t *seqs, *flows; /* per layer and node: Sequence number, fwdbwd flow id */
	char step_name[48];   /* JSON literal of the current ProfilerStep */
} gen;

#define STREAM_COMPUTE 7
#define STREAM_COMM 24

/* Sets up g for the options and model (the output is w); gen_free
 * releases what it allocated. */
void gen_init(gen *g, const gen_opts *o, const model *m, wbuf *w);
void gen_free(gen *g);
/* Runs one step (or a pass without steps) and writes its events. */
void gen_step(gen *g);

/* emit.c */
void emit_header(gen *g);
void emit_step(gen *g);
void emit_trailer(gen *g);

/* truth.c */
void truth_add_kernel(gen *g, const kdesc *k, int64_t ts, int64_t dur);
void truth_add_memcpy(gen *g, int64_t ts, int64_t dur);
void truth_end_step(gen *g, FILE *out);
void truth_print_header(FILE *out);
void truth_print_all(gen *g, FILE *out);

#endif
