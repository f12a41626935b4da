/*
 * judge_pairs.c - the paired calls of a rule's item and the noise of one
 * call (judge_impl.h), for the judge's paired sampling (rules/paired.h).
 */
#include "judge_impl.h"
#include "paired.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* (record, position) of a new-side selection, sorted by record. */
struct at {
	uint32_t rec;
	uint32_t pos;
};

static int cmp_at(const void *a, const void *b)
{
	const struct at *x = a, *y = b;
	return (x->rec > y->rec) - (x->rec < y->rec);
}

static uint32_t find_rec(const struct at *v, size_t n, uint32_t rec)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].rec < rec)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].rec == rec ? v[lo].pos : TG_NONE;
}

int tg_judge_pairs_build(struct pair_set *out, const struct sel *vb, size_t nb, const struct sel *vx, size_t nx)
{
	memset(out, 0, sizeof(*out));
	struct at *idx = tg_malloc((nx ? nx : 1) * sizeof(*idx));
	uint8_t *used = tg_calloc(nx ? nx : 1, 1);
	size_t cap = nb < nx ? nb : nx;
	out->b = tg_malloc((cap ? cap : 1) * sizeof(double));
	out->n = tg_malloc((cap ? cap : 1) * sizeof(double));
	if (!idx || !used || !out->b || !out->n) {
		free(idx);
		free(used);
		tg_judge_pairs_free(out);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < nx; i++)
		idx[i] = (struct at){vx[i].rec, (uint32_t)i};
	qsort(idx, nx, sizeof(*idx), cmp_at);
	for (size_t i = 0; i < nb; i++) {
		double d = (double)vb[i].val; /* a duration: paired sampling is for the kernels' */
		uint32_t k = vb[i].pair == TG_NONE ? TG_NONE : find_rec(idx, nx, vb[i].pair);
		if (k == TG_NONE || used[k] || out->m == cap) {
			out->ub += d;
			out->ub2 += d * d;
			continue;
		}
		used[k] = 1;
		out->b[out->m] = d;
		out->n[out->m++] = (double)vx[k].val;
	}
	for (size_t i = 0; i < nx; i++)
		if (!used[i]) {
			double d = (double)vx[i].val;
			out->un += d;
			out->un2 += d * d;
		}
	free(idx);
	free(used);
	return 0;
}

void tg_judge_pairs_free(struct pair_set *p)
{
	free(p->b);
	free(p->n);
	memset(p, 0, sizeof(*p));
}

int tg_judge_call_noise(double *sigma, double *df, size_t *n, const struct sel *vb, size_t nb, const tg_measure *base,
                        const tg_measure *next, size_t min)
{
	*sigma = NAN;
	size_t nk, nx;
	const tg_kernel_rec *kb = tg_measure_kernels(base, &nk), *kx = tg_measure_kernels(next, &nx);
	/* which records the rule chose: a flag each (a sorted copy searched
	 * for every record cost a baseline of 100k kernels 10 M instructions
	 * a rule) */
	uint8_t *chosen = tg_calloc(nk ? nk : 1, 1);
	double *all = tg_malloc((nk ? nk : 1) * sizeof(double)), *rest = tg_malloc((nk ? nk : 1) * sizeof(double));
	*df = 0;
	*n = 0;
	if (!chosen || !all || !rest) {
		free(chosen);
		free(all);
		free(rest);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < nb; i++)
		if (vb[i].rec < nk)
			chosen[vb[i].rec] = 1;
	size_t na = 0, nr = 0;
	for (size_t i = 0; i < nk; i++) {
		uint32_t p = kb[i].pair;
		if (p == TG_NONE || p >= nx || kb[i].unit == TG_NONE || kx[p].unit == TG_NONE || kb[i].dur_ns <= 0 ||
		    kx[p].dur_ns <= 0)
			continue;
		double lr = log((double)kx[p].dur_ns / (double)kb[i].dur_ns);
		all[na++] = lr;
		if (!chosen[i])
			rest[nr++] = lr;
	}
	int use_rest = nr >= min;
	size_t k = use_rest ? nr : na;
	*sigma = tg_paired_call_noise(df, use_rest ? rest : all, k);
	*n = isnan(*sigma) ? 0 : k;
	free(chosen);
	free(all);
	free(rest);
	return k >= 2 && isnan(*sigma) ? tg_error_set(TG_ENOMEM, "out of memory") : 0;
}
