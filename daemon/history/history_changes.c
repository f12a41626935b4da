/*
 * history_changes.c - change points series by series (history_changes.h).
 */
#include "history_changes.h"
#include "../../util/tg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int tg_history_series_changes(tg_change **out, size_t *nout, const double *v, size_t n, const char *metric)
{
	*out = NULL;
	*nout = 0;
	if (n < 8)
		return 0;
	int flat = 1;
	for (size_t k = 0; k < n; k++) {
		if (!(v[k] > 0) || !isfinite(v[k]))
			return 0;
		flat &= v[k] == v[0];
	}
	if (flat) /* every split has Q = 0: the permutation test would say so, slowly */
		return 0;
	/* seeded from the series' name: the same history, the same answer */
	uint64_t seed = 1469598103934665603ull;
	for (const char *c = metric; *c; c++)
		seed = (seed ^ (uint8_t)*c) * 1099511628211ull;
	tg_changes_opts o = {0, 0, 0, seed};
	return tg_changes_find(out, nout, v, n, &o);
}

/* The indices of the points of p's series (workload, metric), in order. */
static size_t series_points(size_t *idx, const tg_history_point *p, size_t n, const char *workload, const char *metric)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].workload, workload) && !strcmp(p[i].metric, metric))
			idx[k++] = i;
	return k;
}

/* 1 when point i is the first of its series in p. */
static int first_of_series(const tg_history_point *p, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(p[j].workload, p[i].workload) && !strcmp(p[j].metric, p[i].metric))
			return 0;
	return 1;
}

/* The change points found so far: a[0..n) of room for cap. */
struct found {
	tg_history_change *a;
	size_t n, cap;
};

/* Appends the changes of the series whose points are idx[0..k) to f (v:
 * room for k values). */
static int add_series(struct found *f, const tg_history_point *p, const size_t *idx, size_t k, double *v)
{
	for (size_t j = 0; j < k; j++)
		v[j] = p[idx[j]].value;
	tg_change *ch = NULL;
	size_t nch = 0;
	int rc = tg_history_series_changes(&ch, &nch, v, k, p[idx[0]].metric);
	for (size_t c = 0; !rc && c < nch; c++) {
		if (tg_grow((void **)&f->a, &f->cap, f->n + 1, sizeof(*f->a))) {
			rc = TG_ENOMEM;
			break;
		}
		const tg_history_point *at = &p[idx[ch[c].at]];
		f->a[f->n++] =
			(tg_history_change){at->workload, at->metric, at, ch[c].pct, ch[c].p_value, k - ch[c].at, ch[c]};
	}
	free(ch);
	return rc;
}

int tg_history_changes_find(tg_history_change **out, size_t *nout, const tg_history_point *p, size_t n)
{
	struct found fd = {NULL, 0, 0};
	size_t *idx = tg_calloc(n ? n : 1, sizeof(size_t));
	double *v = tg_calloc(n ? n : 1, sizeof(double));
	int rc = idx && v ? 0 : TG_ENOMEM;
	/* quadratic in the number of series, linear in the points of each:
	 * a page holds tens of series */
	for (size_t i = 0; !rc && i < n; i++) {
		if (!first_of_series(p, i))
			continue;
		size_t k = series_points(idx, p, n, p[i].workload, p[i].metric);
		rc = add_series(&fd, p, idx, k, v);
	}
	free(idx);
	free(v);
	if (rc) {
		free(fd.a);
		fd = (struct found){NULL, 0, 0};
	}
	*out = fd.a;
	*nout = fd.n;
	return rc;
}
