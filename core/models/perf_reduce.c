/*
 * perf_reduce.c - reduction model (TraceLens Reduce): one flop per input
 * element; bytes input + output. The output size comes from the dims of
 * Concrete Inputs (sum/mean/amax/prod with a dim list, max/min with an int
 * dim; keepdim changes the shape, not the count); cumsum/cumprod keep the
 * size. TraceLens mode counts one output element, as TraceLens does.
 */
#include "perf_model.h"
#include "../../util/tg.h"

#include <math.h>
#include <string.h>

int tg_perf_reduce_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                         const tg_shape_list *concrete, const tg_perf_opts *opts)
{
	tg_perf_reduce *r = &out->p.red;
	const tg_shape_item *x = tg_shape_get(dims, 0, TG_SHAPE_DIMS);
	if (!x)
		return TG_EFORMAT;
	const tg_shape_item *t = tg_shape_get(types, 0, TG_SHAPE_STR);
	r->bpe_in = r->bpe_out = t ? tg_shape_dtype_bytes(t->s) : 0;
	r->n_in = tg_shape_numel(x);
	int cum = !strcmp(name, "aten::cumsum") || !strcmp(name, "aten::cumprod");
	if (cum)
		r->n_out = r->n_in;
	else if (opts->tracelens)
		r->n_out = 1;
	else {
		const tg_shape_item *other = tg_shape_get(dims, 1, TG_SHAPE_DIMS);
		const tg_shape_item *c1 = tg_shape_get(concrete, 1, TG_SHAPE_STR);
		int64_t dl[TG_SHAPE_MAX_DIMS];
		size_t nd = c1 ? tg_shape_ints(dl, TG_SHAPE_MAX_DIMS, c1->s) : 0;
		if (other && other->nd > 0) /* max/min(a, b): elementwise */
			r->n_out = r->n_in;
		else if (!nd)
			r->n_out = 1; /* all dims */
		else {
			int keep[TG_SHAPE_MAX_DIMS] = {0};
			for (size_t i = 0; i < nd; i++) {
				int64_t d = dl[i] < 0 ? dl[i] + x->nd : dl[i];
				if (d < 0 || d >= x->nd)
					return TG_EFORMAT;
				keep[d] = 1;
			}
			r->n_out = 1;
			for (int i = 0; i < x->nd; i++)
				if (!keep[i])
					r->n_out *= x->d[i];
		}
	}
	out->flops = (double)r->n_in;
	out->bytes = r->bpe_in ? (double)r->n_in * r->bpe_in + (double)r->n_out * r->bpe_out : NAN;
	return 0;
}
