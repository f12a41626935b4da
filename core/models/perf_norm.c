/*
 * perf_norm.c - normalization models (TraceLens Normalization), forward:
 * flops 6C + 2n (+ 3n training), bytes (2n + kC) * bpe with k = 2 (+1
 * affine, +1 bias, +2 training); RMS: flops (n/C)(2C + 2) + n (2n when
 * affine), bytes (2n + C when affine) * bpe. Backward as TraceLens reports
 * them: layer/batch norm flops 9n, bytes (3n + kC) * bpe; RMS flops 8n
 * (+2n for the weight gradient), bytes (3n + 2C) * bpe.
 */
#include "perf_model.h"
#include "../../util/tg.h"

#include <math.h>
#include <string.h>
#include <strings.h>

static int nonempty(const tg_shape_list *dims, size_t i)
{
	const tg_shape_item *it = tg_shape_get(dims, i, TG_SHAPE_DIMS);
	return it && it->nd > 0;
}

static int truthy(const tg_shape_list *c, size_t i)
{
	const tg_shape_item *it = tg_shape_get(c, i, TG_SHAPE_STR);
	return it && !strcasecmp(it->s, "true");
}

/* prod of the normalized shape given as concrete text ("[512]") */
static int64_t concrete_prod(const tg_shape_list *c, size_t i)
{
	const tg_shape_item *it = tg_shape_get(c, i, TG_SHAPE_STR);
	int64_t v[TG_SHAPE_MAX_DIMS];
	size_t n = it ? tg_shape_ints(v, TG_SHAPE_MAX_DIMS, it->s) : 0;
	if (!n)
		return 0;
	int64_t p = 1;
	for (size_t k = 0; k < n; k++)
		p *= v[k] > 0 ? v[k] : 0;
	return p;
}

int tg_perf_norm_model(tg_perf *out, const char *name, const tg_shape_list *dims, const tg_shape_list *types,
                       const tg_shape_list *concrete, const tg_perf_opts *opts)
{
	(void)types;
	tg_perf_norm *m = &out->p.norm;
	const tg_shape_item *x = tg_shape_get(dims, 0, TG_SHAPE_DIMS);
	if (!x || x->nd < 1)
		return TG_EFORMAT;
	m->n = tg_shape_numel(x);
	m->backward = strstr(name, "_backward") != NULL;
	int layer = strstr(name, "layer_norm") != NULL, rms = strstr(name, "rms_norm") != NULL;
	m->rms = rms;
	if (layer || rms) {
		m->C = concrete_prod(concrete, m->backward ? 2 : 1);
		if (layer) {
			m->affine = nonempty(dims, m->backward ? 5 : 2);
			m->bias = nonempty(dims, m->backward ? 6 : 3);
			m->training = 1;
		} else
			m->affine = nonempty(dims, m->backward ? 4 : 2);
		if (opts->tracelens && !m->backward) { /* TraceLens: always affine (and biased for layer norm) */
			m->affine = 1;
			m->bias = layer;
		}
	} else if (strstr(name, "batch_norm")) {
		m->C = x->nd > 1 ? x->d[1] : 0;
		m->affine = m->bias = 1;
		m->training = m->backward ? !strstr(name, "miopen") : truthy(concrete, 5);
	} else
		return TG_EFORMAT;
	if (m->C <= 0)
		return TG_EFORMAT;
	double n = (double)m->n, C = (double)m->C, bpe = out->bpe;
	if (rms && !m->backward) {
		out->flops = n / C * (2 * C + 2) + n * (m->affine ? 2 : 1);
		out->bytes = bpe ? (2 * n + (m->affine ? C : 0)) * bpe : NAN;
	} else if (rms) {
		const tg_shape_item *mask = tg_shape_get(concrete, 5, TG_SHAPE_STR);
		int dw = !mask || !strstr(mask->s, "False") || strstr(mask->s, "True, True");
		out->flops = 8 * n + (dw ? 2 * n : 0);
		out->bytes = bpe ? (3 * n + 2 * C) * bpe : NAN;
	} else if (!m->backward) {
		int k = 2 + m->affine + m->bias + (m->training ? 2 : 0);
		out->flops = 6 * C + 2 * n + (m->training ? 3 * n : 0);
		out->bytes = bpe ? (2 * n + k * C) * bpe : NAN;
	} else if (!m->training) { /* miopen_batch_norm_backward */
		out->flops = 4 * n + 3 * C;
		out->bytes = bpe ? (2 * n + C) * bpe : NAN;
	} else {
		int k = 1 + 2 * m->affine + m->bias;
		out->flops = 9 * n;
		out->bytes = bpe ? (3 * n + k * C) * bpe : NAN;
	}
	return 0;
}
