/*
 * perf_sheets_params.c - the "param: ..." columns of the perf sheets
 * (perf_sheets_impl.h): for each family of ops with a perf model (GEMM,
 * SDPA, convolution, elementwise, normalization, reduction), the names of
 * its parameter columns and their values as TraceLens writes them (Python
 * tuples, True/False, dtype pairs, a GEMM's transposes from its kernels'
 * names), from the op's recorded shapes and its model. perf_sheets.c
 * groups the ops by these strings.
 */
#include "../../util/fmt_double.h"
#include "describe.h"
#include "perf_sheets_impl.h"
#include "../../util/tg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const param_cols[TG_PERF_KIND_COUNT][MAXP + 1] = {
	[TG_PERF_GEMM] = {"M", "N", "K", "bias", "stride_A", "stride_B", "dtype_A_B", "B", "transpose", NULL},
	[TG_PERF_SDPA_FWD] = {"B", "N_Q", "H_Q", "N_KV", "H_KV", "d_h_qk", "d_h_v", "dropout", "causal", "flash_impl",
	                      "dtype_A_B", NULL},
	[TG_PERF_SDPA_BWD] = {"B", "N_Q", "H_Q", "N_KV", "H_KV", "d_h_qk", "d_h_v", "dropout", "causal", "flash_impl",
	                      "dtype_A_B", NULL},
	[TG_PERF_CONV_FWD] = {"convNd", "input_shape", "filter_shape", "dtype_input_weight", "input_stride",
	                      "weight_stride", "bias", "stride", "padding", "dilation", "transposed_conv",
	                      "output_padding", "groups", NULL},
	[TG_PERF_CONV_BWD] = {"convNd", "input_shape", "filter_shape", "dtype_input_weight", "input_stride",
	                      "weight_stride", "bias", "stride", "padding", "dilation", "transposed_conv",
	                      "output_padding", "groups", NULL},
	[TG_PERF_UNARY] = {"op_shape", "dtype_in_out", "stride_input", "stride_output", "input_shape", "output_shape",
	                   NULL},
	[TG_PERF_BINARY] = {"shape_in1", "shape_in2", "dtype_in1_in2_out", "stride_input1", "stride_input2",
	                    "stride_output", NULL},
	[TG_PERF_NORM] = {"op_shape", "dtype_in_out", "stride_input", "stride_output", "num_channels", "has_bias",
	                  "is_affine", "is_training", NULL},
	[TG_PERF_REDUCE] = {"num_input_elems", "num_output_elems", "dtype_in_out", "reduce_type", NULL},
};

const char *tg_perf_sheets_param_col(tg_perf_kind kind, int i)
{
	return kind >= 0 && kind < TG_PERF_KIND_COUNT && i >= 0 && i <= MAXP ? param_cols[kind][i] : NULL;
}

static const char *tf(int v) { return v ? "True" : "False"; }

static void tuple_at(char *buf, const tg_shape_list *l, size_t i)
{
	const tg_shape_item *it = tg_shape_get(l, i, TG_SHAPE_DIMS);
	if (it)
		tg_shape_tuple(buf, PLEN, it);
	else
		buf[0] = 0;
}

/* Python repr of a tuple of type strings; i < 0 (or missing) gives None. */
static void dtypes(char *buf, const tg_shape_list *types, const int *idx, int n)
{
	size_t o = 0;
	o += (size_t)snprintf(buf, PLEN, "(");
	for (int k = 0; k < n && o < PLEN; k++) {
		const tg_shape_item *t = idx[k] >= 0 ? tg_shape_get(types, (size_t)idx[k], TG_SHAPE_STR) : NULL;
		o += (size_t)snprintf(buf + o, PLEN - o, "%s", k ? ", " : "");
		if (o < PLEN)
			o += t ? (size_t)snprintf(buf + o, PLEN - o, "'%s'", t->s) : (size_t)snprintf(buf + o, PLEN - o, "None");
	}
	if (o < PLEN)
		snprintf(buf + o, PLEN - o, ")");
}

static void pyfloat(char *buf, double v)
{
	char num[32];
	tg_format_double(num, v);
	snprintf(buf, PLEN, "%s%s", num, strpbrk(num, ".eni") ? "" : ".0");
}

static void ints3(char *buf, const int64_t *v, int n)
{
	tg_shape_item it = {.kind = TG_SHAPE_DIMS, .nd = (uint8_t)n};
	memcpy(it.d, v, (size_t)n * sizeof(int64_t));
	tg_shape_tuple(buf, PLEN, &it);
}

/* Transpose flags from the first GEMM kernel name: ROCm Tensile
 * "Cijk_Alik_Bljk" (A: lik = T, ilk = N; B: jlk = T, ljk = N) or NVIDIA
 * nvjet "..._TN?" suffixes. "" when no kernel tells. */
void tg_perf_sheets_transpose(char *buf, const tg_tree *tree, uint32_t ev, const tg_atoms *atoms)
{
	tg_tree_child_iter it;
	uint32_t c;
	size_t nall;
	const tg_event *all = tg_trace_events(tg_tree_trace(tree), &nall);
	for (tg_tree_child_iter_init(&it, tree, ev); tg_tree_child_next(&it, &c);) {
		const char *k = tg_atoms_str(atoms, all[c].name);
		if (tg_kind_is_gpu(all[c].kind) && k) {
			const char *a = strstr(k, "Cijk_A");
			if (a && strlen(a) >= 14 && a[9] == '_' && a[10] == 'B') {
				snprintf(buf, PLEN, "(%s, %s)", tf(!strncmp(a + 6, "lik", 3)), tf(!strncmp(a + 11, "jlk", 3)));
				return;
			}
			if (!strncmp(k, "nvjet", 5)) {
				const char *u = strrchr(k, '_');
				if (u && strlen(u) >= 3 && strchr("TN", u[1]) && strchr("TN", u[2])) {
					snprintf(buf, PLEN, "(%s, %s)", tf(u[1] == 'T'), tf(u[2] == 'T'));
					return;
				}
			}
		}
		tg_perf_sheets_transpose(buf, tree, c, atoms);
		if (*buf)
			return;
	}
}

/* The parsed "Input Dims", "Input type", "Input Strides" and "Concrete
 * Inputs" of an op (an unparsable one is empty). */
struct inputs {
	tg_shape_list dims, types, strides, conc;
};

/* The GEMM sheet's parameters: M, N, K, bias, the strides of A and B, their dtypes (three for aiter's
 * gemm_a16w16 and rocm_unquantized_gemm, which have no strides), B, transpose. */
static void gemm_params(char (*p)[PLEN], const struct inputs *in, uint32_t ev, const char *name, const tg_perf *m,
                        const tg_tree *tree, const tg_atoms *atoms)
{
	const tg_perf_gemm *g = &m->p.gemm;
	snprintf(p[0], PLEN, "%lld", (long long)g->M);
	snprintf(p[1], PLEN, "%lld", (long long)g->N);
	snprintf(p[2], PLEN, "%lld", (long long)g->K);
	snprintf(p[3], PLEN, "%s", tf(g->bias));
	tuple_at(p[4], &in->strides, (size_t)g->a);
	tuple_at(p[5], &in->strides, (size_t)g->b);
	int idx[3] = {g->a, g->b, 2};
	if (strstr(name, "::gemm_a16w16") || strstr(name, "rocm_unquantized_gemm")) {
		/* TraceLens gives three types; aiter's output dtype is a
		 * ScalarType code in Concrete Inputs[3] */
		const tg_shape_item *c3 = tg_shape_get(&in->conc, 3, TG_SHAPE_STR);
		const char *out = NULL;
		if (strstr(name, "aiter") && c3)
			out = !strcmp(c3->s, "15") ? "c10::BFloat16" : !strcmp(c3->s, "5") ? "c10::Half"
			      : !strcmp(c3->s, "6") ? "float" : NULL;
		dtypes(p[6], &in->types, idx, 3);
		if (out) {
			int i2[2] = {g->a, g->b};
			char two[PLEN];
			dtypes(two, &in->types, i2, 2);
			two[strlen(two) - 1] = 0;
			size_t o = strlen(two);
			int w = snprintf(two + o, PLEN - o, ", '%s')", out);
			if (w > 0 && (size_t)w < PLEN - o)
				memcpy(p[6], two, PLEN);
		}
		p[4][0] = p[5][0] = 0; /* TraceLens: no strides */
	} else
		dtypes(p[6], &in->types, idx, 2);
	snprintf(p[7], PLEN, "%lld", (long long)g->B);
	tg_perf_sheets_transpose(p[8], tree, ev, atoms);
}

/* The SDPA sheet's parameters: B, N_Q, H_Q, N_KV, H_KV, d_h_qk, d_h_v, dropout, causal, flash_impl, dtypes. */
static void sdpa_params(char (*p)[PLEN], const struct inputs *in, const tg_perf *m)
{
	const tg_perf_sdpa *s = &m->p.sdpa;
	int64_t v[7] = {s->B, s->N_Q, s->H_Q, s->N_KV, s->H_KV, s->d_qk, s->d_v};
	for (int i = 0; i < 7; i++)
		snprintf(p[i], PLEN, "%lld", (long long)v[i]);
	pyfloat(p[7], s->dropout);
	snprintf(p[8], PLEN, "%s", tf(s->causal));
	snprintf(p[9], PLEN, "%s", tf(s->flash));
	int q = m->kind == TG_PERF_SDPA_BWD ? 1 : 0, idx[2] = {q, q + 1};
	dtypes(p[10], &in->types, idx, 2);
}

/* The conv sheet's parameters: convNd, shapes, dtypes, strides, bias (the backward's bias_sizes as a list),
 * stride, padding, dilation, transposed, output_padding, groups. */
static void conv_params(char (*p)[PLEN], const struct inputs *in, const tg_perf *m)
{
	const tg_perf_conv *c = &m->p.conv;
	int ix = m->kind == TG_PERF_CONV_BWD ? 1 : 0;
	snprintf(p[0], PLEN, "conv%dd", c->nd);
	ints3(p[1], c->x, c->nd + 2);
	ints3(p[2], c->w, c->nd + 2);
	int idx[2] = {ix, ix + 1};
	dtypes(p[3], &in->types, idx, 2);
	tuple_at(p[4], &in->strides, (size_t)ix);
	tuple_at(p[5], &in->strides, (size_t)ix + 1);
	if (m->kind == TG_PERF_CONV_BWD) { /* TraceLens: the bias_sizes dims, as a list */
		const tg_shape_item *bs = tg_shape_get(&in->dims, 3, TG_SHAPE_DIMS);
		tg_shape_tuple(p[6], PLEN, bs);
		if (bs && bs->nd <= 1) { /* list form: "[]", "[64]" */
			p[6][0] = '[';
			char *e = p[6] + strlen(p[6]) - 1;
			if (e > p[6] && e[-1] == ',')
				*--e = 0, e = p[6] + strlen(p[6]);
			else
				e = p[6] + strlen(p[6]) - 1;
			snprintf(e, PLEN - (size_t)(e - p[6]), "]");
		}
	} else
		snprintf(p[6], PLEN, "%s", tf(c->bias));
	ints3(p[7], c->stride, c->nd);
	ints3(p[8], c->padding, c->nd);
	ints3(p[9], c->dilation, c->nd);
	snprintf(p[10], PLEN, "%s", tf(c->transposed));
	ints3(p[11], c->output_padding, c->nd);
	snprintf(p[12], PLEN, "%lld", (long long)c->groups);
}

/* The unary sheet's parameters: op_shape, dtypes, strides in and out (the second only for a tensor
 * second input); for aten::upsample_* the output's shape. */
static void unary_params(char (*p)[PLEN], const struct inputs *in, const char *name, const tg_perf *m)
{
	const tg_shape_item *t1 = tg_shape_get(&in->types, 1, TG_SHAPE_STR);
	const tg_shape_item *d1 = tg_shape_get(&in->dims, 1, TG_SHAPE_DIMS);
	int second = d1 && d1->nd > 0 && t1 && *t1->s && strcmp(t1->s, "Scalar") && strcmp(t1->s, "ScalarList");
	tuple_at(p[0], &in->dims, 0);
	int idx[2] = {0, second ? 1 : -1};
	dtypes(p[1], &in->types, idx, 2);
	tuple_at(p[2], &in->strides, 0);
	if (second)
		tuple_at(p[3], &in->strides, 1);
	if (!strncmp(name, "aten::upsample_", 15)) { /* op_shape is the output's */
		const tg_perf_elementwise *e = &m->p.ew;
		tg_shape_item o = {.kind = TG_SHAPE_DIMS, .nd = (uint8_t)e->out_nd};
		memcpy(o.d, e->out, sizeof(o.d));
		tg_shape_tuple(p[0], PLEN, &o);
		tuple_at(p[4], &in->dims, 0);
		tg_shape_tuple(p[5], PLEN, &o);
		int same[2] = {0, 0};
		dtypes(p[1], &in->types, same, 2);
	}
}

/* The binary sheet's parameters: both shapes, dtypes, strides (an out= tensor gives the output's). */
static void binary_params(char (*p)[PLEN], const struct inputs *in)
{
	tuple_at(p[0], &in->dims, 0);
	tuple_at(p[1], &in->dims, 1);
	/* an out= tensor (third input) gives the output dtype and strides */
	const tg_shape_item *o3 = tg_shape_get(&in->dims, 2, TG_SHAPE_DIMS);
	const tg_shape_item *t3 = tg_shape_get(&in->types, 2, TG_SHAPE_STR);
	int out = o3 && o3->nd > 0 && t3 && tg_shape_dtype_bytes(t3->s) && strcmp(t3->s, "Scalar");
	int idx[3] = {0, 1, out ? 2 : -1};
	dtypes(p[2], &in->types, idx, 3);
	tuple_at(p[3], &in->strides, 0);
	tuple_at(p[4], &in->strides, 1);
	if (out)
		tuple_at(p[5], &in->strides, 2);
}

/* The norm sheet's parameters: shape, dtype, stride, C, bias, affine, training. */
static void norm_params(char (*p)[PLEN], const struct inputs *in, const tg_perf *m)
{
	const tg_perf_norm *n = &m->p.norm;
	tuple_at(p[0], &in->dims, 0);
	int idx[2] = {0, -1};
	dtypes(p[1], &in->types, idx, 2);
	tuple_at(p[2], &in->strides, 0);
	snprintf(p[4], PLEN, "%lld", (long long)n->C);
	snprintf(p[5], PLEN, "%s", tf(n->bias));
	snprintf(p[6], PLEN, "%s", tf(n->affine));
	snprintf(p[7], PLEN, "%s", tf(n->training));
}

/* The reduce sheet's parameters: elements in and out, dtype, the reduction. */
static void reduce_params(char (*p)[PLEN], const struct inputs *in, const char *name, const tg_perf *m)
{
	snprintf(p[0], PLEN, "%lld", (long long)m->p.red.n_in);
	snprintf(p[1], PLEN, "%lld", (long long)m->p.red.n_out);
	int idx[2] = {0, -1};
	dtypes(p[2], &in->types, idx, 2);
	const char *t = strstr(name, "mean") ? "mean" : strstr(name, "max") ? "max" : strstr(name, "min") ? "min"
	                : strstr(name, "prod") ? "prod" : "sum";
	snprintf(p[3], PLEN, "%s", t);
}

void tg_perf_sheets_params(char (*p)[PLEN], uint32_t ev, const char *name, const tg_perf *m, const char *const raw[4],
                   const tg_tree *tree, const tg_atoms *atoms)
{
	struct inputs in;
	if (tg_shape_parse(&in.dims, raw[0]))
		in.dims.n = 0;
	if (tg_shape_parse(&in.types, raw[1]))
		in.types.n = 0;
	if (tg_shape_parse(&in.strides, raw[2]))
		in.strides.n = 0;
	if (tg_shape_parse(&in.conc, raw[3]))
		in.conc.n = 0;
	memset(p, 0, MAXP * PLEN);
	switch (m->kind) {
	case TG_PERF_GEMM: gemm_params(p, &in, ev, name, m, tree, atoms); break;
	case TG_PERF_SDPA_FWD:
	case TG_PERF_SDPA_BWD: sdpa_params(p, &in, m); break;
	case TG_PERF_CONV_FWD:
	case TG_PERF_CONV_BWD: conv_params(p, &in, m); break;
	case TG_PERF_UNARY: unary_params(p, &in, name, m); break;
	case TG_PERF_BINARY: binary_params(p, &in); break;
	case TG_PERF_NORM: norm_params(p, &in, m); break;
	case TG_PERF_REDUCE: reduce_params(p, &in, name, m); break;
	default: break;
	}
}

