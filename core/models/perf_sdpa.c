/*
 * perf_sdpa.c - attention model (TraceLens class SDPA): forward flops
 * B*H_Q*2*N_Q*N_KV*(d_qk + d_v), halved when causal; bytes Q + K + V + O.
 * Backward as TraceLens's flops_bwd/bytes_bwd. Covers the entry points of
 * torch SDPA ([B,H,N,d]), aten::_flash_attention_*, aten::_efficient_
 * attention_* and flash_attn::_flash_attn_* ([B,N,H,d]), with GQA (H_KV <
 * H_Q) and, outside TraceLens mode, causal masks with N_Q < N_KV (bottom-
 * right aligned, as flash-attn). Also the AMD AITER / Composable Kernel
 * ops (aiter::_flash_attn_*, mha_fwd/bwd, fmha_v3_fwd/bwd, the varlen ones
 * and mha_batch_prefill), see aiter_ops below.
 */
#include "perf_model.h"
#include "../../util/tg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct layout {
	const char *name;
	int bnhd;     /* 1: [B,N,H,d], 0: [B,H,N,d] */
	int q;        /* index of Q in Input Dims (K, V follow) */
	int dropout;  /* concrete index of dropout_p, -1 none */
	int causal;   /* concrete index of is_causal (or custom_mask_type), -1 none */
	int masktype; /* 1: causal is xformers' custom_mask_type (nonzero = causal) */
	int flash;
};

static const struct layout layouts[] = {
	{"aten::_scaled_dot_product_flash_attention", 0, 0, 3, 4, 0, 1},
	{"aten::_scaled_dot_product_efficient_attention", 0, 0, 5, 6, 0, 0},
	{"aten::_scaled_dot_product_cudnn_attention", 0, 0, 5, 6, 0, 0},
	{"aten::_cudnn_attention_forward", 0, 0, 9, 10, 0, 0},
	{"aten::_flash_attention_forward", 1, 0, 7, 8, 0, 1},
	{"aten::_efficient_attention_forward", 1, 0, 8, 9, 1, 0},
	{"flash_attn::_flash_attn_forward", 1, 0, 3, 5, 0, 1},
	{"aten::_scaled_dot_product_flash_attention_backward", 0, 1, 10, 11, 0, 1},
	{"aten::_scaled_dot_product_efficient_attention_backward", 0, 1, 9, 11, 0, 0},
	{"aten::_scaled_dot_product_cudnn_attention_backward", 0, 1, 13, 14, 0, 0},
	{"aten::_cudnn_attention_backward", 0, 1, 13, 14, 0, 0},
	{"aten::_flash_attention_backward", 1, 1, 10, 11, 0, 1},
	{"aten::_efficient_attention_backward", 1, 1, 11, 14, 1, 0},
	{"flash_attn::_flash_attn_backward", 1, 1, 9, 11, 0, 1},
	/* the public entry point (not a sheet of its own: its backend's op is);
	 * findings_ops.c prices the math path's work with it */
	{"aten::scaled_dot_product_attention", 0, 0, 4, 5, 0, 0},
};

/* "True"/"true"/"1" */
static int truthy(const tg_shape_item *it)
{
	if (!it)
		return 0;
	if (it->kind == TG_SHAPE_NUM)
		return it->num != 0;
	if (it->kind != TG_SHAPE_STR)
		return 0;
	if (!strcasecmp(it->s, "true"))
		return 1;
	char *end;
	double v = strtod(it->s, &end);
	return end != it->s && v != 0;
}

static double number(const tg_shape_item *it)
{
	if (!it)
		return 0;
	if (it->kind == TG_SHAPE_NUM)
		return it->num;
	if (it->kind == TG_SHAPE_STR)
		return strtod(it->s, NULL);
	return 0;
}

static const tg_shape_item *at(const tg_shape_list *l, int i)
{
	return i >= 0 && (size_t)i < l->n ? &l->v[i] : NULL;
}

/* FLOPs and bytes of the attention in out->p.sdpa (shapes checked). */
static int sdpa_compute(tg_perf *out, const tg_perf_opts *opts)
{
	const tg_perf_sdpa *s = &out->p.sdpa;
	double B = (double)s->B, HQ = (double)s->H_Q, HKV = (double)s->H_KV, NQ = (double)s->N_Q,
	       NKV = (double)s->N_KV, dqk = (double)s->d_qk, dv = (double)s->d_v;
	/* fraction of the N_Q x N_KV score matrix computed */
	double frac = 1;
	if (s->causal) {
		if (s->N_Q == s->N_KV)
			frac = 0.5;
		else if (opts->tracelens || s->N_Q > s->N_KV)
			return TG_EFORMAT; /* TraceLens raises; top-left masks with N_Q > N_KV are unusual */
		else /* bottom-right: row i sees N_KV - N_Q + i + 1 keys */
			frac = (NQ * NKV - NQ * (NQ - 1) / 2) / (NQ * NKV);
	}
	double elems_q = B * NQ * HQ * dqk, elems_k = B * NKV * HKV * dqk, elems_v = B * NKV * HKV * dv,
	       elems_o = B * NQ * HQ * dv;
	double bpe = opts->tracelens ? 2 : (double)out->bpe;
	if (out->kind == TG_PERF_SDPA_FWD) {
		out->flops = (B * HQ * (2 * NQ * NKV * dqk) + B * HQ * (2 * NQ * NKV * dv)) * frac;
		out->bytes = bpe ? (elems_q + elems_k + elems_v + elems_o) * bpe : NAN;
	} else {
		double rep = HQ / HKV - 1;
		double f = (s->flash ? 2 * B * HQ * NQ * NKV * dqk : 0) /* recompute QK^T */
		           + 2 * B * HQ * NKV * NQ * dv + B * NKV * dv * rep  /* dV, GQA sum */
		           + 2 * B * HQ * NQ * NKV * dv                      /* dP */
		           + 2 * B * HQ * NQ * NKV * dqk                     /* dQ */
		           + 2 * B * HQ * NKV * NQ * dqk + B * NKV * dqk * rep; /* dK, GQA sum */
		out->flops = f * frac;
		out->bytes = bpe ? (2 * (elems_q + elems_k + elems_v) + elems_o) * bpe : NAN;
	}
	return 0;
}

/*
 * AMD AITER / Composable Kernel attention (aiter/ops/mha.py). Dense ops take
 * [B, S, H, d] like flash_attn; varlen ops pack the batch as [total, H, d]
 * with cu_seqlens_q ([b + 1]); mha_batch_prefill reads K/V from a paged
 * cache ([slots, H_KV, d] or [pages, page_size, H_KV, d]) through
 * kv_page_indices. The Concrete Inputs' positions move between aiter
 * versions (sink_size, min_seqlen_q, dbias were added), so is_causal is
 * found as the boolean followed by the two integers window_size_left and
 * window_size_right, and dropout_p as the first float after the shape
 * arguments. The per-sequence lengths are in device tensors the profiler
 * does not record: a varlen op is modelled as b sequences of the average
 * lengths (total / b), exact when all lengths are equal and a lower bound
 * of sum(n_q,i * n_kv,i) otherwise. For the paged cache the K/V tokens are
 * estimated as len(kv_page_indices) * page_size / b, clamped to
 * [n_q, max_seqlen_k] (kv_page_indices may be padded).
 */
struct aiter_op {
	const char *name;
	int q;     /* index of Q in Input Dims (K, V follow) */
	int cu_q;  /* index of cu_seqlens_q, -1 for dense [B,S,H,d] ops */
	int paged; /* 1: K/V are the paged cache, kv_page_indices at cu_q + 2 */
	int max_q; /* concrete index of max_seqlen_q (max_seqlen_k follows), -1 */
};

static const struct aiter_op aiter_ops[] = {
	{"aiter::_flash_attn_forward", 0, -1, 0, -1},
	{"aiter::mha_fwd", 0, -1, 0, -1},
	{"aiter::fmha_v3_fwd", 0, -1, 0, -1},
	{"aiter::mha_varlen_fwd", 0, 3, 0, 5},
	{"aiter::fmha_v3_varlen_fwd", 0, 3, 0, 5},
	{"aiter::mha_batch_prefill", 0, 3, 1, 6},
	{"aiter::_flash_attn_backward", 1, -1, 0, -1},
	{"aiter::mha_bwd", 1, -1, 0, -1},
	{"aiter::fmha_v3_bwd", 1, -1, 0, -1},
	{"aiter::mha_varlen_bwd", 1, 6, 0, 8},
};

/* An integer written as a string ("-1", "1024"), into *v. */
static int int_str(const tg_shape_item *it, long long *v)
{
	if (!it || it->kind != TG_SHAPE_STR || !*it->s)
		return 0;
	char *end;
	*v = strtoll(it->s, &end, 10);
	return !*end;
}

static int bool_str(const tg_shape_item *it)
{
	return it && it->kind == TG_SHAPE_STR && (!strcmp(it->s, "True") || !strcmp(it->s, "False"));
}

/* is_causal, window_size_left, window_size_right: the first "True"/"False"
 * from index from followed by two integers. 0 found, 1 no Concrete Inputs
 * (non-causal, as the other models), TG_EFORMAT not found. */
static int aiter_mask(const tg_shape_list *c, int from, int *causal, long long *wl, long long *wr)
{
	*causal = 0;
	*wl = *wr = -1;
	if (!c->n)
		return 1;
	for (int i = from; i + 2 < (int)c->n; i++)
		if (bool_str(at(c, i)) && int_str(at(c, i + 1), wl) && int_str(at(c, i + 2), wr)) {
			*causal = !strcmp(c->v[i].s, "True");
			return 0;
		}
	return TG_EFORMAT;
}

/* dropout_p: the first float ("0.", "0.1") from index from, 0 if none. */
static double aiter_dropout(const tg_shape_list *c, int from)
{
	for (int i = from; i < (int)c->n; i++)
		if (c->v[i].kind == TG_SHAPE_STR && strchr(c->v[i].s, '.'))
			return strtod(c->v[i].s, NULL);
	return 0;
}

/* Shapes of a varlen / batch-prefill op into s: b sequences of the average
 * lengths. */
static int aiter_varlen(tg_perf_sdpa *s, const struct aiter_op *A, const tg_shape_list *dims,
                        const tg_shape_list *concrete, const tg_shape_item *q, const tg_shape_item *k,
                        const tg_shape_item *v)
{
	const tg_shape_item *cu = tg_shape_get(dims, (size_t)A->cu_q, TG_SHAPE_DIMS);
	if (q->nd != 3 || !cu || cu->nd != 1 || cu->d[0] < 2 || k->nd != v->nd)
		return TG_EFORMAT;
	int64_t b = cu->d[0] - 1, tq = q->d[0], tk;
	int kd = k->nd;
	if (A->paged) {
		const tg_shape_item *pages = tg_shape_get(dims, (size_t)A->cu_q + 2, TG_SHAPE_DIMS);
		if ((kd != 3 && kd != 4) || !pages || pages->nd != 1)
			return TG_EFORMAT;
		tk = pages->d[0] * (kd == 4 ? k->d[1] : 1);
	} else {
		if (kd != 3)
			return TG_EFORMAT; /* a block_table cache: the K/V lengths are not in the trace */
		tk = k->d[0];
	}
	s->B = b;
	s->N_Q = llround((double)tq / (double)b);
	s->N_KV = llround((double)tk / (double)b);
	s->H_Q = q->d[1];
	s->d_qk = q->d[2];
	s->H_KV = k->d[kd - 2];
	s->d_v = v->d[kd - 1];
	if (k->d[kd - 1] != s->d_qk || k->d[kd - 2] != v->d[kd - 2])
		return TG_EFORMAT;
	if (A->paged) {
		long long max_k = 0;
		if (s->N_KV < s->N_Q)
			s->N_KV = s->N_Q;
		if (int_str(at(concrete, A->max_q + 1), &max_k) && max_k >= s->N_Q && s->N_KV > max_k)
			s->N_KV = max_k;
	}
	return 0;
}

/* The AITER / CK attention ops; TG_ENOTFOUND when name is not one. */
static int aiter_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                       const tg_shape_list *concrete, const tg_perf_opts *opts)
{
	const struct aiter_op *A = NULL;
	for (size_t i = 0; i < sizeof(aiter_ops) / sizeof(aiter_ops[0]); i++)
		if (!strcmp(aiter_ops[i].name, name))
			A = &aiter_ops[i];
	if (!A)
		return TG_ENOTFOUND;
	if (opts->tracelens && A->cu_q >= 0)
		return TG_EFORMAT; /* TraceLens models packed batches only from sglang/vLLM annotations */
	tg_perf_sdpa *s = &out->p.sdpa;
	const tg_shape_item *q = tg_shape_get(dims, (size_t)A->q, TG_SHAPE_DIMS);
	const tg_shape_item *k = tg_shape_get(dims, (size_t)A->q + 1, TG_SHAPE_DIMS);
	const tg_shape_item *v = tg_shape_get(dims, (size_t)A->q + 2, TG_SHAPE_DIMS);
	if (!q || !k || !v)
		return TG_EFORMAT;
	if (A->cu_q < 0) { /* [B, S, H, d] */
		if (q->nd != 4 || k->nd != 4 || v->nd != 4 || k->d[0] != q->d[0] || v->d[0] != q->d[0] ||
		    v->d[1] != k->d[1] || k->d[3] != q->d[3])
			return TG_EFORMAT;
		s->B = q->d[0];
		s->N_Q = q->d[1];
		s->H_Q = q->d[2];
		s->d_qk = q->d[3];
		s->N_KV = k->d[1];
		s->H_KV = k->d[2];
		s->d_v = v->d[3];
		if (v->d[2] != s->H_KV)
			return TG_EFORMAT;
	} else if (aiter_varlen(s, A, dims, concrete, q, k, v))
		return TG_EFORMAT;
	if (s->H_KV <= 0 || s->H_Q % s->H_KV || s->B <= 0 || s->N_Q < 0 || s->N_KV < 0 || s->d_qk < 0 || s->d_v < 0)
		return TG_EFORMAT;
	int from = A->max_q >= 0 ? A->max_q + 2 : A->q + 3, causal;
	long long wl, wr;
	if (aiter_mask(concrete, from, &causal, &wl, &wr) < 0)
		return TG_EFORMAT;
	if (wl >= 0 || (wr >= 0 && !(causal && wr == 0)))
		return TG_EFORMAT; /* sliding window: the keys per row are not modelled */
	s->causal = causal;
	s->dropout = aiter_dropout(concrete, from);
	s->flash = 1; /* CK's backward recomputes P from Q, K and the LSE */
	const tg_shape_item *tq = tg_shape_get(types, (size_t)A->q, TG_SHAPE_STR);
	out->bpe = tq ? tg_shape_dtype_bytes(tq->s) : 0;
	out->precision = tq ? tg_shape_dtype_precision(tq->s) : NULL;
	return sdpa_compute(out, opts);
}

int tg_perf_sdpa_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                       const tg_shape_list *concrete, const tg_perf_opts *opts)
{
	const struct layout *L = NULL;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (!strcmp(layouts[i].name, name))
			L = &layouts[i];
	if (!L) {
		int rc = aiter_model(out, name, dims, types, concrete, opts);
		return rc == TG_ENOTFOUND ? TG_EFORMAT : rc;
	}
	tg_perf_sdpa *s = &out->p.sdpa;
	const tg_shape_item *q = tg_shape_get(dims, (size_t)L->q, TG_SHAPE_DIMS);
	const tg_shape_item *k = tg_shape_get(dims, (size_t)L->q + 1, TG_SHAPE_DIMS);
	const tg_shape_item *v = tg_shape_get(dims, (size_t)L->q + 2, TG_SHAPE_DIMS);
	if (!q || !k || !v || q->nd != k->nd || q->nd != v->nd || (q->nd != 4 && !(L->bnhd && q->nd == 3)))
		return TG_EFORMAT;
	/* bnhd index map: B 0, N 1, H 2, d 3; varlen [total, H, d] has B = 1 */
	int off = q->nd == 3 ? -1 : 0;
	int iN = L->bnhd ? 1 + off : 2, iH = L->bnhd ? 2 + off : 1, id = 3 + off;
	int64_t Bq = q->nd == 3 ? 1 : q->d[0], Bk = k->nd == 3 ? 1 : k->d[0];
	s->B = Bq;
	s->N_Q = q->d[iN];
	s->H_Q = q->d[iH];
	s->d_qk = q->d[id];
	s->N_KV = k->d[iN];
	s->H_KV = k->d[iH];
	s->d_v = v->d[id];
	if (Bq != Bk || k->d[iH] != v->d[iH] || k->d[iN] != v->d[iN] || k->d[id] != s->d_qk || s->H_KV <= 0 ||
	    s->H_Q % s->H_KV || s->B < 0 || s->N_Q < 0 || s->N_KV < 0 || s->d_qk < 0 || s->d_v < 0)
		return TG_EFORMAT;
	s->dropout = number(at(concrete, L->dropout));
	s->causal = truthy(at(concrete, L->causal));
	s->flash = L->flash;
	const tg_shape_item *tq = tg_shape_get(types, (size_t)L->q, TG_SHAPE_STR);
	out->bpe = tq ? tg_shape_dtype_bytes(tq->s) : 0;
	out->precision = tq ? tg_shape_dtype_precision(tq->s) : NULL;

	return sdpa_compute(out, opts);
}
