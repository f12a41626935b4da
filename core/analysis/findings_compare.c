/*
 * findings_compare.c - the findings of two sides matched (findings.h):
 * a finding is the same finding on both sides when its id and key agree
 * (the key leaves out the source line numbers, which move with any edit
 * above them). Only findings that fire on a side take part: one that fires
 * on the new side only is new, on the base only gone; on both, worse or
 * better when its cost per step moved by more than worse_above percent,
 * else the same.
 */
#include "findings_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The fired entry of l with x's id and key, or NULL; *evaluated: l has
 * x's id evaluated (ok or fired). */
static const tg_finding *fired_match(const tg_findings *l, const tg_finding *x, int *evaluated)
{
	const tg_finding *m = NULL;
	*evaluated = 0;
	for (size_t i = 0; l && i < l->n; i++) {
		if (l->v[i].id != x->id)
			continue;
		*evaluated |= l->v[i].status != TG_FINDING_NOT_EVALUATED;
		if (!m && l->v[i].status == TG_FINDING_FIRED && !strcmp(l->v[i].key, x->key))
			m = &l->v[i];
	}
	return m;
}

static double cost_of(const tg_finding_delta *d)
{
	const tg_finding *f = d->next ? d->next : d->base;
	return f && !isnan(f->cost_ns) ? f->cost_ns : -1;
}

static int cmp_delta(const void *a, const void *b)
{
	const tg_finding_delta *x = a, *y = b;
	if (x->change != y->change)
		return x->change < y->change ? -1 : 1;
	double cx = cost_of(x), cy = cost_of(y);
	if (cx != cy)
		return cx > cy ? -1 : 1;
	const tg_finding *fx = x->next ? x->next : x->base, *fy = y->next ? y->next : y->base;
	if (fx->id != fy->id)
		return fx->id < fy->id ? -1 : 1;
	return strcmp(fx->key, fy->key);
}

static tg_finding_change both(const tg_finding *b, const tg_finding *x, double worse_above)
{
	if (isnan(b->cost_ns) || isnan(x->cost_ns) || b->cost_ns <= 0)
		return TG_FINDING_SAME;
	double pct = 100 * (x->cost_ns - b->cost_ns) / b->cost_ns;
	return pct > worse_above ? TG_FINDING_WORSE : pct < -worse_above ? TG_FINDING_BETTER : TG_FINDING_SAME;
}

int tg_findings_compare(tg_finding_delta **out, size_t *n, const tg_findings *base, const tg_findings *next,
                        const tg_findings_opts *opts)
{
	tg_findings_opts def;
	if (!opts) {
		tg_findings_opts_default(&def);
		opts = &def;
	}
	*out = NULL;
	*n = 0;
	size_t cap = (base ? base->n : 0) + (next ? next->n : 0);
	tg_finding_delta *d = tg_calloc(cap ? cap : 1, sizeof(*d));
	if (!d)
		return tg_error_set(TG_ENOMEM, "findings: out of memory");
	size_t k = 0;
	for (size_t i = 0; next && i < next->n; i++) {
		const tg_finding *x = &next->v[i];
		if (x->status != TG_FINDING_FIRED)
			continue;
		int ev;
		const tg_finding *b = fired_match(base, x, &ev);
		if (b)
			d[k++] = (tg_finding_delta){both(b, x, opts->worse_above), b, x, ""};
		else
			d[k++] =
				(tg_finding_delta){TG_FINDING_NEW, NULL, x, ev ? "" : "the base could not evaluate it"};
	}
	for (size_t i = 0; base && i < base->n; i++) {
		const tg_finding *b = &base->v[i];
		if (b->status != TG_FINDING_FIRED)
			continue;
		int ev;
		if (fired_match(next, b, &ev))
			continue;
		d[k++] = (tg_finding_delta){TG_FINDING_GONE, b, NULL, ev ? "" : "the new side could not evaluate it"};
	}
	if (k > 1)
		qsort(d, k, sizeof(*d), cmp_delta);
	if (!k) {
		free(d);
		d = NULL;
	}
	*out = d;
	*n = k;
	return 0;
}
