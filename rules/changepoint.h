/*
 * changepoint.h - change points in a performance series (a branch's
 * history of one metric): E-divisive means, as in Matteson & James, "A
 * Nonparametric Approach for Multiple Change Point Analysis of
 * Multivariate Data" (JASA 2014), used by MongoDB (Daly et al., "Change
 * Point Detection in Software Performance Testing", ICPE 2020) and Apache
 * Otava.
 *
 * On the logs of the values (a change is relative), with alpha = 1: for a
 * split of a segment into X = x[a..t) and Y = x[t..b) of m and k values,
 *   Q(t) = m k / (m + k) * (2 / (m k) sum |X_i - Y_j|
 *                           - 1 / C(m, 2) sum_{i<j} |X_i - X_j|
 *                           - 1 / C(k, 2) sum_{i<j} |Y_i - Y_j|),
 * the energy distance between the two sides, scaled. Hierarchically: the
 * segment (of those found so far) whose best split has the largest Q is
 * tested by permutation (the values of that segment shuffled, the largest
 * Q of each shuffle; p = (1 + shuffles at least as large) / (1 + shuffles));
 * significant splits are kept and the search goes on, the first that is
 * not significant stops it. Every Q of a segment is computed in O(L^2) from
 * the distance matrix, with running sums (not O(L^3)).
 *
 * Why this method: it assumes no distribution (kernel times are skewed,
 * runs have outliers), finds several changes, and is what the literature
 * on performance CI measured; docs/history.md gives the false change rate
 * and the detection delay measured by tests/test_changepoint.c.
 */
#ifndef TG_CHANGEPOINT_H
#define TG_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_change {
	size_t at;            /* index of the first value after the change */
	double before, after; /* medians of the segments either side (the values' unit) */
	double pct;           /* 100 (after / before - 1) */
	double p_value;       /* of the permutation test that accepted it */
} tg_change;

typedef struct tg_changes_opts {
	double p_max;     /* a split is a change when p <= p_max; 0: 0.01 */
	size_t min_size;  /* fewest values on either side of a change; 0: 4 */
	size_t perms;     /* shuffles per test; 0: 499 */
	uint64_t seed;    /* of the shuffles (deterministic); 0 is a seed too */
} tg_changes_opts;

/*
 * The change points of x[0..n) (values > 0; a value <= 0 or not finite is
 * an error), in index order. opts may be NULL (defaults). *out is an array
 * of *nout changes the caller frees (NULL when none). Fewer than 2 min_size
 * values: none. Returns 0, TG_EINVAL or TG_ENOMEM.
 */
int tg_changes_find(tg_change **out, size_t *nout, const double *x, size_t n, const tg_changes_opts *opts);

#endif
