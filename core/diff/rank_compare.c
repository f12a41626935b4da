/*
 * rank_compare.c - the slowest and the most changed rank of a comparison
 * (rank_compare.h). Ranks are few (a job's GPUs): the per-rank sums are a
 * small array searched linearly.
 */
#include "rank_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rank_time {
	int64_t rank;
	double ns[2]; /* compute summed over the rank's units, base and new */
	size_t units[2];
};

/* Adds the units of side s (0 base, 1 new) to the ranks in v (*n of them,
 * cap slots). */
static void add_side(struct rank_time *v, size_t *n, size_t cap, const tg_measure *m, int s)
{
	size_t nu;
	const tg_unit *u = tg_measure_units(m, &nu);
	for (size_t i = 0; i < nu; i++) {
		int64_t r = tg_measure_trace_rank(m, u[i].trace);
		if (r < 0)
			continue;
		size_t k = 0;
		while (k < *n && v[k].rank != r)
			k++;
		if (k == *n) {
			if (*n == cap)
				continue;
			memset(&v[k], 0, sizeof(v[k]));
			v[k].rank = r;
			(*n)++;
		}
		v[k].ns[s] += (double)(u[i].busy_ns - u[i].exposed_comm_ns - u[i].exposed_memcpy_ns);
		v[k].units[s]++;
	}
}

int tg_rank_compare_build(tg_rank_compare *out, const tg_measure *base, const tg_measure *next)
{
	memset(out, 0, sizeof(*out));
	out->slowest = out->most_changed = -1;
	out->most_changed_pct = NAN;
	snprintf(out->most_changed_what, sizeof(out->most_changed_what), "GPU compute");
	size_t nb, nx, n = 0;
	tg_measure_units(base, &nb);
	tg_measure_units(next, &nx);
	size_t cap = nb + nx;
	struct rank_time *v = tg_calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		return TG_ENOMEM;
	add_side(v, &n, cap, base, 0);
	add_side(v, &n, cap, next, 1);
	double worst = -1, most = -1;
	for (size_t k = 0; k < n; k++) {
		if (!v[k].units[0] || !v[k].units[1])
			continue; /* a rank of one side only names nothing */
		out->nranks++;
		double b = v[k].units[0] ? v[k].ns[0] / (double)v[k].units[0] : NAN;
		double x = v[k].units[1] ? v[k].ns[1] / (double)v[k].units[1] : NAN;
		/* ties go to the lower rank (v is in order of first appearance;
		 * the gate measures each side in rank order) */
		if (!isnan(x) && (x > worst || (x == worst && v[k].rank < out->slowest))) {
			worst = x;
			out->slowest = v[k].rank;
			out->slowest_ms = x / 1e6;
		}
		double c = b > 0 && !isnan(x) ? x / b - 1 : NAN;
		if (!isnan(c) && (fabs(c) > most || (fabs(c) == most && v[k].rank < out->most_changed))) {
			most = fabs(c);
			out->most_changed = v[k].rank;
			out->most_changed_pct = 100 * c;
		}
	}
	free(v);
	return 0;
}
