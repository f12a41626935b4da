/*
 * perf_sdpa.c - attention model (TraceLens class SDPA): forward flops
 * B*H_Q*2*N_Q*N_KV*(d_qk + d_v), halved when causal; bytes Q + K + V + O.
 * Backward as TraceLens's flops_bwd/bytes_bwd. Covers the entry points of
 * torch SDPA ([B,H,N,d]), aten::_flash_attention_*, aten::_efficient_
 * attention_* and flash_attn::_flash_attn_* ([B,N,H,d]), with GQA (H_KV <
 * H_Q) and, outside TraceLens mode, causal masks with N_Q < N_KV (bottom-
 * right aligned, as flash-attn).
 */
#include "perf_model.h"
#include "tg.h"

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

int tg_perf_sdpa_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                       const tg_shape_list *concrete, const tg_perf_opts *opts)
{
	const struct layout *L = NULL;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (!strcmp(layouts[i].name, name))
			L = &layouts[i];
	if (!L)
		return TG_EFORMAT;
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
