/*
 * perf_gemm.c - GEMM model (TraceLens class GEMM): flops 2*M*N*K (+ M*N
 * with bias), bytes A + B + C (+ N bias), times B for bmm/baddbmm. The
 * custom ops aiter::gemm_a16w16 and vllm::rocm_unquantized_gemm take the
 * weight as [N, K] (like F.linear).
 */
#include "perf_model.h"
#include "../../util/tg.h"

#include <string.h>

static int bpe_of(const tg_shape_list *types, size_t i)
{
	const tg_shape_item *t = tg_shape_get(types, i, TG_SHAPE_STR);
	return t ? tg_shape_dtype_bytes(t->s) : 0;
}

int tg_perf_gemm_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types)
{
	tg_perf_gemm *g = &out->p.gemm;
	int batched = !strcmp(name, "aten::bmm") || !strcmp(name, "aten::baddbmm");
	int with_c = !strcmp(name, "aten::addmm") || !strcmp(name, "aten::baddbmm");
	int scaled = !strcmp(name, "aten::_scaled_mm");
	int nk = !strcmp(name, "aiter::gemm_a16w16") || !strcmp(name, "vllm::rocm_unquantized_gemm");
	g->a = with_c ? 1 : 0;
	g->b = g->a + 1;
	const tg_shape_item *A = tg_shape_get(dims, (size_t)g->a, TG_SHAPE_DIMS);
	const tg_shape_item *B = tg_shape_get(dims, (size_t)g->b, TG_SHAPE_DIMS);
	int want = batched ? 3 : 2;
	if (!A || !B || A->nd != want || B->nd != want)
		return TG_EFORMAT;
	g->B = batched ? A->d[0] : 1;
	g->M = A->d[want - 2];
	g->K = A->d[want - 1];
	g->N = B->d[nk ? 0 : want - 1];
	if (B->d[nk ? 1 : want - 2] != g->K || (batched && B->d[0] != g->B) || g->M < 0 || g->N < 0 || g->K < 0)
		return TG_EFORMAT;
	/* _scaled_mm(a, b, scale_a, scale_b, bias?, ...): TraceLens's rule is "3 inputs" */
	const tg_shape_item *b3 = tg_shape_get(dims, 2, TG_SHAPE_DIMS);
	g->bias = with_c || (nk && b3 && b3->nd > 0) || (scaled && tg_shape_get(dims, 4, TG_SHAPE_DIMS) && tg_shape_get(dims, 4, TG_SHAPE_DIMS)->nd > 0);
	int bpe_a = bpe_of(types, (size_t)g->a), bpe_b = bpe_of(types, (size_t)g->b);
	out->bpe = bpe_a;
	const tg_shape_item *ta = tg_shape_get(types, (size_t)g->a, TG_SHAPE_STR);
	out->precision = ta ? tg_shape_dtype_precision(ta->s) : NULL;
	double Bt = (double)g->B, M = (double)g->M, N = (double)g->N, K = (double)g->K;
	out->flops = Bt * (2.0 * M * N * K + (g->bias ? M * N : 0));
	if (!bpe_a || !bpe_b)
		return 0; /* bytes stay NaN */
	int bpe_out = scaled && bpe_a == 1 ? 2 : bpe_a;
	if (!scaled)
		bpe_b = bpe_a; /* TraceLens uses A's size for every operand */
	out->bytes = Bt * (M * K * bpe_a + K * N * bpe_b + M * N * bpe_out + (g->bias ? N * bpe_out : 0));
	return 0;
}
