/*
 * perf_elementwise.c - elementwise models (TraceLens UnaryElementwise and
 * BinaryElementwise): one flop per output element; bytes read and written
 * at each operand's element size. Binary shapes broadcast like NumPy.
 */
#include "perf_model.h"
#include "../../util/tg.h"

#include <math.h>
#include <string.h>

/* A tensor operand: a dims item whose type is a real dtype (not "Scalar"). */
static int bpe_at(const tg_shape_list *types, size_t i)
{
	const tg_shape_item *t = tg_shape_get(types, i, TG_SHAPE_STR);
	return t ? tg_shape_dtype_bytes(t->s) : 0;
}

static int is_tensor(const tg_shape_list *dims, const tg_shape_list *types, size_t i)
{
	const tg_shape_item *t = tg_shape_get(types, i, TG_SHAPE_STR);
	return tg_shape_get(dims, i, TG_SHAPE_DIMS) && t && *t->s && strcmp(t->s, "Scalar") && strcmp(t->s, "ScalarList");
}

int tg_perf_elementwise_model(tg_perf *out, const char *name, int binary, const tg_shape_list *dims,
                              const tg_shape_list *types, const tg_shape_list *concrete)
{
	tg_perf_elementwise *e = &out->p.ew;
	const tg_shape_item *a = tg_shape_get(dims, 0, TG_SHAPE_DIMS);
	if (!a)
		return TG_EFORMAT;
	e->bpe_in1 = bpe_at(types, 0);
	e->n_in1 = tg_shape_numel(a);
	if (!binary) {
		e->n_out = e->n_in1;
		e->out_nd = a->nd;
		memcpy(e->out, a->d, sizeof(e->out));
		e->bpe_out = is_tensor(dims, types, 1) ? bpe_at(types, 1) : e->bpe_in1;
		if (!strncmp(name, "aten::upsample_", 15)) {
			/* output_size in Concrete Inputs[1] replaces the trailing dims */
			const tg_shape_item *c1 = tg_shape_get(concrete, 1, TG_SHAPE_STR);
			int64_t sz[TG_SHAPE_MAX_DIMS];
			size_t k = c1 ? tg_shape_ints(sz, TG_SHAPE_MAX_DIMS, c1->s) : 0;
			if (!k || k > (size_t)a->nd)
				return TG_EFORMAT;
			tg_shape_item o = *a;
			for (size_t i = 0; i < k; i++)
				o.d[a->nd - (int)k + (int)i] = sz[i];
			memcpy(e->out, o.d, sizeof(e->out));
			e->n_out = tg_shape_numel(&o);
			e->bpe_out = e->bpe_in1;
		}
		out->flops = (double)e->n_out;
		out->bytes = e->bpe_in1 && e->bpe_out ? (double)e->n_in1 * e->bpe_in1 + (double)e->n_out * e->bpe_out : NAN;
		return 0;
	}
	const tg_shape_item *b = tg_shape_get(dims, 1, TG_SHAPE_DIMS);
	/* TraceLens: a shape () operand is a scalar; the output takes the
	 * larger element size only when both are tensors */
	int tensor2 = is_tensor(dims, types, 1) && tg_shape_get(dims, 1, TG_SHAPE_DIMS)->nd > 0;
	if (!b)
		return TG_EFORMAT;
	e->bpe_in2 = bpe_at(types, 1);
	e->n_in2 = tg_shape_numel(b);
	/* broadcast, aligned at the right */
	int nd = a->nd > b->nd ? a->nd : b->nd;
	for (int i = 0; i < nd; i++) {
		int ia = a->nd - nd + i, ib = b->nd - nd + i;
		int64_t da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return TG_EFORMAT;
		e->out[i] = da == 1 ? db : da;
	}
	e->out_nd = nd;
	tg_shape_item o = {.kind = TG_SHAPE_DIMS, .nd = (uint8_t)nd};
	memcpy(o.d, e->out, sizeof(o.d));
	e->n_out = tg_shape_numel(&o);
	e->bpe_out = tensor2 && e->bpe_in2 > e->bpe_in1 ? e->bpe_in2 : e->bpe_in1;
	out->flops = (double)e->n_out;
	out->bytes = e->bpe_in1 && e->bpe_in2
	                 ? (double)e->n_in1 * e->bpe_in1 + (double)e->n_in2 * e->bpe_in2 + (double)e->n_out * e->bpe_out
	                 : NAN;
	return 0;
}
