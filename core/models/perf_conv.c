/*
 * perf_conv.c - convolution model (TraceLens class CONV, after torch's
 * flop_counter): forward flops prod(out) * 2 * prod(w[1:]) (+ prod(out)
 * with bias; transposed: prod(x) instead of prod(out)), bytes x + w + out
 * (+ bias). aten::convolution_backward: grad-input plus grad-weight flops
 * as torch counts them.
 */
#include "perf_model.h"
#include "../../util/tg.h"

#include <math.h>
#include <string.h>
#include <strings.h>

static double prod(const int64_t *v, int n)
{
	double p = 1;
	for (int i = 0; i < n; i++)
		p *= (double)v[i];
	return p;
}

/* torch.utils.flop_counter.conv_flop_count */
static double conv_flops(const int64_t *x, const int64_t *w, const int64_t *out, int n, int transposed)
{
	const int64_t *conv = transposed ? x : out;
	return (double)x[0] * prod(conv + 2, n - 2) * prod(w, n) * 2;
}

static void swap01(int64_t *dst, const int64_t *src, int n)
{
	memcpy(dst, src, (size_t)n * sizeof(*dst));
	dst[0] = src[1];
	dst[1] = src[0];
}

/* Reads a concrete tuple ("[1, 1]", "(2,)", "1") broadcast to nd values; def when empty. */
static int tuple(int64_t *v, int nd, const tg_shape_list *c, int idx, int64_t def)
{
	int64_t tmp[3];
	size_t n = 0;
	if (idx >= 0 && (size_t)idx < c->n && c->v[idx].kind == TG_SHAPE_STR)
		n = tg_shape_ints(tmp, 3, c->v[idx].s);
	for (int i = 0; i < nd; i++)
		v[i] = n == 0 ? def : n == 1 ? tmp[0] : (size_t)i < n ? tmp[i] : def;
	return n > 1 && (int)n != nd ? -1 : 0;
}

static int truthy(const tg_shape_list *c, int idx)
{
	return idx >= 0 && (size_t)idx < c->n && c->v[idx].kind == TG_SHAPE_STR && !strcasecmp(c->v[idx].s, "true");
}

int tg_perf_conv_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                       const tg_shape_list *concrete, const tg_perf_opts *opts)
{
	tg_perf_conv *c = &out->p.conv;
	int bwd = !strcmp(name, "aten::convolution_backward");
	int ix = bwd ? 1 : 0, base = bwd ? 4 : 3;
	const tg_shape_item *x = tg_shape_get(dims, (size_t)ix, TG_SHAPE_DIMS);
	const tg_shape_item *w = tg_shape_get(dims, (size_t)ix + 1, TG_SHAPE_DIMS);
	const tg_shape_item *gout = bwd ? tg_shape_get(dims, 0, TG_SHAPE_DIMS) : NULL;
	if (!x || !w || x->nd < 3 || x->nd > 5 || w->nd != x->nd || (bwd && (!gout || gout->nd != x->nd)))
		return TG_EFORMAT;
	int n = x->nd, nd = n - 2;
	c->nd = nd;
	memcpy(c->x, x->d, (size_t)n * sizeof(int64_t));
	memcpy(c->w, w->d, (size_t)n * sizeof(int64_t));
	if (bwd) { /* bias_sizes: an int list, "[]"/None when no bias */
		const tg_shape_item *bs = tg_shape_get(dims, 3, TG_SHAPE_DIMS);
		int64_t tmp[1];
		/* TraceLens reads the (always empty) Input Dims entry; the sizes
		 * are really in Concrete Inputs: "[64]", or "[0]" for no bias */
		c->bias = opts->tracelens ? bs && bs->nd > 0
		                          : concrete->n > 3 && concrete->v[3].kind == TG_SHAPE_STR &&
		                                tg_shape_ints(tmp, 1, concrete->v[3].s) == 1 && tmp[0] > 0;
	} else {
		/* TraceLens counts no bias even when Input Dims has one */
		const tg_shape_item *b = tg_shape_get(dims, 2, TG_SHAPE_DIMS);
		c->bias = !opts->tracelens && b && b->nd > 0;
	}
	if (tuple(c->stride, nd, concrete, base, 1) || tuple(c->padding, nd, concrete, base + 1, 0) ||
	    tuple(c->dilation, nd, concrete, base + 2, 1) || tuple(c->output_padding, nd, concrete, base + 4, 0))
		return TG_EFORMAT;
	c->transposed = truthy(concrete, base + 3);
	int64_t g[1];
	c->groups = base + 5 < (int)concrete->n && concrete->v[base + 5].kind == TG_SHAPE_STR &&
	                    tg_shape_ints(g, 1, concrete->v[base + 5].s) == 1 ? g[0] : 1;
	if (c->groups <= 0)
		return TG_EFORMAT;
	c->out[0] = c->x[0];
	c->out[1] = c->transposed ? c->w[1] * c->groups : c->w[0];
	for (int i = 0; i < nd; i++) {
		int64_t in = c->x[2 + i], k = c->w[2 + i], s = c->stride[i], p = c->padding[i], d = c->dilation[i];
		if (s <= 0)
			return TG_EFORMAT;
		c->out[2 + i] = c->transposed ? (in - 1) * s - 2 * p + d * (k - 1) + c->output_padding[i] + 1
		                              : (in + 2 * p - d * (k - 1) - 1) / s + 1;
		if (c->out[2 + i] <= 0)
			return TG_EFORMAT;
	}
	if (bwd) /* the grad_output shape is authoritative */
		memcpy(c->out, gout->d, (size_t)n * sizeof(int64_t));
	const tg_shape_item *tx = tg_shape_get(types, (size_t)ix, TG_SHAPE_STR);
	out->bpe = tx ? tg_shape_dtype_bytes(tx->s) : 0;
	out->precision = tx ? tg_shape_dtype_precision(tx->s) : NULL;
	double px = prod(c->x, n), pw = prod(c->w, n), po = prod(c->out, n), bpe = out->bpe;
	if (!bwd) {
		out->flops = (c->transposed ? px : po) * 2 * prod(c->w + 1, n - 1) + (c->bias ? po : 0);
		out->bytes = bpe ? (px + pw + po + (c->bias ? (double)c->out[1] : 0)) * bpe : NAN;
		return 0;
	}
	/* torch conv_backward_flop: grad_input, then grad_weight */
	int64_t tx_[5], tw[5], to[5];
	double f = conv_flops(c->out, c->w, c->x, n, !c->transposed);
	swap01(tx_, c->x, n);
	swap01(tw, c->w, n);
	swap01(to, c->out, n);
	f += c->transposed ? conv_flops(to, tx_, tw, n, 0) : conv_flops(tx_, to, tw, n, 0);
	out->flops = f + (c->bias ? po : 0);
	out->bytes = bpe ? ((po + pw + px) * 2 + (c->bias ? po + (double)c->out[1] : 0)) * bpe : NAN;
	return 0;
}
