/*
 * judge_coverage.c - the categories of kernel time no rule judges
 * (judge_impl.h: tg_judge_not_judged). A gate whose rules select SDPA and
 * GEMM passes whatever happens to the rest; the verdict says what that rest
 * is when it is large ("not judged: MoE 67 %"), so that a pass is read for
 * what it covers. Only rules of the kernels' metrics (kernel_time, count,
 * tflops, tbs, launch_overhead) select kernels; gpu_busy judges the union
 * of all activity, not a category.
 */
#include "judge_impl.h"

#include <stdlib.h>
#include <string.h>

static int kernel_metric(tg_rule_metric m)
{
	return m == TG_METRIC_KERNEL_TIME || m == TG_METRIC_COUNT || m == TG_METRIC_TFLOPS || m == TG_METRIC_TBS ||
	       m == TG_METRIC_LAUNCH_OVERHEAD;
}

/* Adds the in-step kernel time of side m per category to total (ncat), and
 * that of the kernels no rule selects to left. */
static int side_left(double *left, double *total, uint32_t ncat, const tg_rule *rl, size_t nr, const tg_measure *m,
                     const tg_atoms *keys)
{
	size_t nk;
	const tg_kernel_rec *k = tg_measure_kernels(m, &nk);
	uint8_t *memo = tg_calloc(nr ? 5 * (size_t)ncat * nr : 1, 1); /* NULL: still correct, slower */
	for (size_t i = 0; i < nk; i++) {
		if (k[i].unit == TG_NONE || k[i].category >= ncat)
			continue;
		double d = (double)k[i].dur_ns;
		total[k[i].category] += d;
		int judged = 0;
		for (size_t r = 0; r < nr && !judged; r++)
			judged = kernel_metric(rl[r].metric) &&
			         tg_judge_rec_matches(&rl[r], m, keys, &k[i], memo ? memo + 5 * (size_t)ncat * r : NULL,
			                              ncat);
		if (!judged)
			left[k[i].category] += d;
	}
	free(memo);
	return 0;
}

static int cmp_pct(const void *a, const void *b)
{
	const tg_not_judged *x = a, *y = b;
	if (x->pct != y->pct)
		return x->pct > y->pct ? -1 : 1;
	return strcmp(x->category, y->category);
}

int tg_judge_not_judged(tg_not_judged **out, size_t *n, const tg_rules *rules, const tg_measure *base,
                        const tg_measure *next, const tg_atoms *keys, double min_pct)
{
	*out = NULL;
	*n = 0;
	size_t nr;
	const tg_rule *rl = tg_rules_list(rules, &nr);
	uint32_t ncat = tg_atoms_count(keys);
	double *left = tg_calloc(2 * (size_t)(ncat ? ncat : 1), sizeof(double));
	double *total = tg_calloc(2 * (size_t)(ncat ? ncat : 1), sizeof(double));
	tg_not_judged *v = tg_calloc(ncat ? ncat : 1, sizeof(*v));
	int rc = left && total && v ? 0 : TG_ENOMEM;
	const tg_measure *sides[2] = {base, next};
	for (int s = 0; s < 2 && !rc; s++)
		rc = side_left(left + (size_t)s * ncat, total + (size_t)s * ncat, ncat, rl, nr, sides[s], keys);
	double all[2] = {0, 0};
	for (int s = 0; s < 2 && !rc; s++)
		for (uint32_t c = 0; c < ncat; c++)
			all[s] += total[(size_t)s * ncat + c];
	size_t c = 0;
	for (uint32_t a = 0; a < ncat && !rc; a++) {
		double pct = 0;
		for (int s = 0; s < 2; s++)
			if (all[s] > 0 && 100 * left[(size_t)s * ncat + a] / all[s] > pct)
				pct = 100 * left[(size_t)s * ncat + a] / all[s];
		if (!(pct > min_pct))
			continue;
		if (!(v[c].category = strdup(tg_atoms_str(keys, a)))) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			break;
		}
		v[c++].pct = pct;
	}
	free(left);
	free(total);
	if (rc) {
		tg_judge_not_judged_free(v, c);
		return rc;
	}
	qsort(v, c, sizeof(*v), cmp_pct);
	*out = v;
	*n = c;
	return 0;
}

void tg_judge_not_judged_free(tg_not_judged *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].category);
	free(v);
}
