/*
 * stats.h - the statistics of the gate: is the new side X % slower than the
 * base side, with what interval, and is that more than noise.
 *
 * Written by hand: none of the project's libraries has statistics; GSL (a
 * GPL dependency) would bring the t and normal distributions but none of
 * the bootstrap, Mann-Whitney or Benjamini-Hochberg, and the distribution
 * functions here are a few hundred lines tested against reference values.
 *
 * Pure functions of their arguments: no global state; randomness only from
 * a tg_rng the function seeds itself from a caller's seed, so every result
 * is reproducible. Thread-safe.
 */
#ifndef TG_STATS_H
#define TG_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/tg.h"

/* ------------------------------------------------------------ PRNG */

/* xoshiro256** (Blackman and Vigna), a 256-bit state. */
typedef struct tg_rng {
	uint64_t s[4];
} tg_rng;

/* Seeds r from seed with splitmix64 (any seed, 0 included, is fine). */
void tg_rng_seed(tg_rng *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t tg_rng_next(tg_rng *r);

/* A uniform integer in [0, n), without modulo bias (Lemire's
 * multiply-and-reject). Returns 0 when n is 0. */
size_t tg_rng_below(tg_rng *r, size_t n);

/* A uniform double in [0, 1) with 53 random bits. */
double tg_rng_uniform(tg_rng *r);

/* A standard normal deviate (inverse CDF of a uniform; one draw each). */
double tg_rng_normal(tg_rng *r);

/* ------------------------------------------------------------ ratio of two sides */

/*
 * One stratum: the values of one item (e.g. one op + shape) on each side,
 * e.g. one value per invocation. Either side may be empty (an item that is
 * new or gone). The arrays are borrowed. Values must be finite and >= 0
 * (durations, counts, rates): anything else is TG_EINVAL.
 */
typedef struct tg_stratum {
	const double *base;
	size_t nbase;
	const double *next;
	size_t nnext;
} tg_stratum;

/* How a tg_ratio_ci was obtained. */
typedef enum tg_ci_method {
	TG_CI_NONE = 0,
	TG_CI_EXACT,            /* no sampling noise (constant values, a zero total): lo = hi = ratio */
	TG_CI_BOOT_EXPANDED,    /* stratified bootstrap, expanded percentile interval (the default) */
	TG_CI_BOOT_PERCENTILE,  /* stratified bootstrap, plain percentile interval */
	TG_CI_WELCH_LOG         /* Welch t-interval on log values */
} tg_ci_method;

/* A ratio next/base with its interval at a confidence level. */
typedef struct tg_ratio_ci {
	double ratio;    /* the estimate (see tg_stats_ratio_bootstrap for which ratio) */
	double lo, hi;   /* the interval; lo <= ratio <= hi */
	double p_value;  /* two-sided p of H0 "ratio = 1"; NAN where the method has none */
	size_t nbase, nnext; /* values used on each side (all strata) */
	int method;      /* a tg_ci_method */
} tg_ratio_ci;

/* Which ratio a bootstrap estimates. */
typedef enum tg_ratio_stat {
	/* TG_RATIO_MEANS for one stratum, TG_RATIO_TOTALS for several. */
	TG_RATIO_AUTO = 0,
	/* R = sum over strata of sum(next_s) / sum over strata of sum(base_s)
	 *   = sum_s mean(next_s) * nnext_s / sum_s mean(base_s) * nbase_s.
	 * What a job pays: an op called twice as often costs twice as much. For
	 * per-step totals the caller scales the values by 1 / steps of their side. */
	TG_RATIO_TOTALS,
	/* R = (all next values / their count) / (all base values / their count):
	 * the ratio of pooled means. For one stratum of per-step values this is
	 * the ratio of per-step means, whatever the step counts. */
	TG_RATIO_MEANS
} tg_ratio_stat;

/* Default replicates and the cap on them. */
#define TG_STATS_BOOT_REPS 2000
#define TG_STATS_BOOT_MAX_REPS 1000000
/* A stratum side of at least this many values is resampled as the normal
 * law of its resampled sum (mean its sum, variance its sum of squared
 * deviations; all such sides of the base, and of the new side, as one
 * normal draw), instead of n draws each: the sum of 32 or more draws of one
 * op and shape's kernel times is normal to within the replicates' own
 * Monte Carlo error (tests/test_stats.c checks the intervals against the
 * exact resampling), and a diff of hundreds of ops with thousands of
 * calls keeps its statistics under 10 % of its time (make bench). */
#define TG_STATS_BOOT_CLT_N 32

/* Options of tg_stats_ratio_bootstrap_ex; zeroed = the defaults of
 * tg_stats_ratio_bootstrap at confidence 0.95 and seed 0. */
typedef struct tg_boot_opts {
	double confidence;  /* (0, 1); 0 = 0.95 */
	uint64_t seed;
	size_t reps;        /* 0 = TG_STATS_BOOT_REPS; above TG_STATS_BOOT_MAX_REPS: capped */
	int statistic;      /* a tg_ratio_stat */
	int plain;          /* 1: plain percentile interval instead of the expanded one */
} tg_boot_opts;

/*
 * Stratified bootstrap of the ratio next/base. Fills *out.
 *
 * The statistic: with one stratum (nstrata == 1) the ratio of means,
 * mean(next) / mean(base) (per-step values: the ratio of per-step means,
 * even when the sides have different step counts); with several strata
 * the ratio of totals, sum_s sum(next_s) / sum_s sum(base_s) (per
 * invocation values: what changes in call counts or in new and gone items
 * costs counts). tg_stats_ratio_bootstrap_ex chooses explicitly.
 *
 * Zeros: base total 0 and next total > 0 -> ratio, lo, hi = INFINITY; both
 * 0 (or no values at all) -> 1, 1, 1; next total 0 -> 0, 0, 0. All three
 * are TG_CI_EXACT, as is a sample without spread (every side of every
 * stratum constant): lo = hi = ratio.
 *
 * Replicates: each side of each stratum is resampled with replacement,
 * keeping its size, and R recomputed; a stratum side of one value (or of
 * equal values) contributes no variance. A replicate whose base total is 0
 * gives INFINITY (and 0/0 gives 1).
 *
 * Interval: the EXPANDED PERCENTILE interval (Hesterberg 2015, "What
 * teachers should know about the bootstrap", generalised to strata). The
 * plain percentile interval is too narrow for small samples, which is the
 * gate's usual case (8 steps): the bootstrap variance of a mean of n
 * values is (n-1)/n times the unbiased one, and its tails are normal where
 * the truth has Student tails. With the delta-method variance of log R,
 *   v_i = n_i s_i^2 / T_side^2  for each stratum side i (n_i >= 2),
 * the percentiles taken are alpha'/2 and 1 - alpha'/2 with
 *   alpha'/2 = Phi(-sqrt(sum v_i / sum v_i (n_i-1)/n_i) * t_{1-alpha/2, df}),
 *   df = (sum v_i)^2 / sum (v_i^2 / (n_i - 1))   (Welch-Satterthwaite).
 * For large strata it is the plain percentile interval. For 8 vs 8 values
 * at 95 % the percentiles are 1.6 % and 98.4 % (simulated: 1 excluded in
 * 4.75 % of equal pairs, against 8 % for the plain interval). With very few
 * values (2 a side) alpha' falls below 1/reps and the interval is the range
 * of the replicates. Percentiles are order statistics (the floor((B+1)a)-th
 * and ceil((B+1)(1-a))-th of B sorted replicates, clamped to the extremes),
 * without interpolation, so the intervals of R and of log R are the same. Not BCa: BCa corrects bias
 * and skewness but not the small-sample narrowness that causes false
 * alarms, and its jackknife acceleration with new/gone strata and strata
 * of one value is fragile; for a ratio of sums of positive values the
 * skewness BCa fixes is mild. The interval is widened if needed to
 * contain the estimate.
 *
 * p_value: NAN (a bootstrap p-value of R = 1 is not reliable; use
 * tg_stats_welch_log or tg_stats_mann_whitney).
 *
 * confidence in (0, 1) (e.g. 0.95); reps 0 = TG_STATS_BOOT_REPS, capped at
 * TG_STATS_BOOT_MAX_REPS. Deterministic for a seed.
 *
 * Cost: one allocation (reps doubles and 2 nstrata side records, freed
 * before return), none per replicate; time O(reps * N) for N resampled
 * values, about 1 ns per value and replicate on a current x86 core
 * (100,000 values a side, 500 strata, 2,000 reps: 0.44 s), plus sorting
 * the reps. Strata sides that are constant or of one value cost nothing
 * per replicate. Callers with many large items lower reps with
 * tg_stats_boot_reps_for.
 *
 * Returns 0, TG_EINVAL (NULL pointers, confidence outside (0, 1), a value
 * NaN, infinite or negative) or TG_ENOMEM; *out is set only on success.
 */
int tg_stats_ratio_bootstrap(tg_ratio_ci *out, const tg_stratum *strata, size_t nstrata, double confidence,
                             uint64_t seed, size_t reps);

/* tg_stats_ratio_bootstrap with options (opts NULL = all defaults). */
int tg_stats_ratio_bootstrap_ex(tg_ratio_ci *out, const tg_stratum *strata, size_t nstrata,
                                const tg_boot_opts *opts);

/* The draws one replicate of these strata costs: the values of each side
 * under TG_STATS_BOOT_CLT_N, plus 1 for all the larger sides of the base
 * and 1 for those of the new side (their sums are drawn together: a sum
 * of normal laws is one). */
size_t tg_stats_boot_draws(const tg_stratum *strata, size_t nstrata);

/* Replicates so that reps * nvalues <= max_draws (the time budget of one
 * bootstrap in resampled values), between 200 and want (want 0 =
 * TG_STATS_BOOT_REPS). E.g. want 2000, 100,000 values, 5e7 draws -> 500. */
size_t tg_stats_boot_reps_for(size_t want, size_t nvalues, size_t max_draws);

/*
 * Welch t-interval on the logs of the values: the ratio of geometric means
 * geomean(next) / geomean(base) = exp(mean(log next) - mean(log base)),
 * its interval exp(d +- t_{1-alpha/2, df} * se) with se^2 = s_n^2/nn +
 * s_b^2/nb of the logs and the Welch-Satterthwaite df, and the two-sided
 * p-value of H0 "ratio = 1" from Student's t. Fills *out (method
 * TG_CI_WELCH_LOG; TG_CI_EXACT when both sides are constant: lo = hi =
 * ratio, p 1 when equal and 0 otherwise).
 *
 * Values must be finite and > 0, at least 2 per side; confidence in (0, 1).
 * Returns 0 or TG_EINVAL. No allocation.
 */
int tg_stats_welch_log(tg_ratio_ci *out, const double *base, size_t nb, const double *next, size_t nn,
                       double confidence);

/* ------------------------------------------------------------ tests */

/*
 * Two-sided p-value of the Mann-Whitney U (Wilcoxon rank-sum) test of a
 * against b. Exact (the distribution of U counted as the coefficients of a
 * Gaussian binomial) when na, nb <= 10 and there are no ties; otherwise the
 * normal approximation with average ranks for ties, the tie-corrected
 * variance and a continuity correction of 0.5 (as scipy.stats.mannwhitneyu
 * with method "asymptotic"). p is capped at 1; all values equal -> 1.
 * Returns NAN when a side is empty, a value is NaN, or memory runs out (it
 * allocates (na + nb) values for the ranks, freed before return).
 */
double tg_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb);

/*
 * Benjamini-Hochberg step-up at FDR level q: reject[i] = 1 for the p[i]
 * rejected, 0 otherwise. NaN p-values are not tests: never rejected and not
 * counted in m. q <= 0 or NaN rejects nothing; NULL arrays: nothing done.
 * Allocates n indices for sorting (falls back to an O(n^2) count without
 * allocation when that fails).
 */
void tg_stats_benjamini_hochberg(int *reject, const double *p, size_t n, double q);

/*
 * BH-adjusted p-values (as R's p.adjust(method = "BH")): adj[i] =
 * min over k >= rank(i) of min(1, m p_(k) / k); p[i] <= q is then the BH
 * rejection at q. NaN stays NaN. adj may alias p. Returns 0, TG_EINVAL
 * (NULL with n > 0) or TG_ENOMEM.
 */
int tg_stats_bh_adjusted(double *adj, const double *p, size_t n);

/* ------------------------------------------------------------ distributions */

/* Standard normal CDF (via erfc: accurate in both tails). */
double tg_stats_normal_cdf(double x);

/* Standard normal quantile (Wichura's AS 241, relative error ~1e-16).
 * p 0 -> -INFINITY, 1 -> INFINITY, outside [0, 1] or NaN -> NAN. */
double tg_stats_normal_quantile(double p);

/* Student t CDF with df > 0 degrees of freedom (real, not only whole): the
 * regularized incomplete beta up to df 4000, Hill's normalising transform
 * above (error ~df^-3, < 1e-12); df INFINITY = normal. Tails are computed
 * directly (relative accuracy ~1e-12). NAN for df <= 0 or NaN arguments. */
double tg_stats_t_cdf(double t, double df);

/* P(T > t) for t >= 0 and df > 0: the upper tail of Student t computed on
 * the side that needs no subtraction (relative accuracy ~1e-12 far in the
 * tail, where 1 - tg_stats_t_cdf would round to 0). */
double tg_stats_t_sf(double t, double df);

/* Student t quantile: closed forms for df 1 and 2, otherwise Hill's
 * approximation (Algorithm 396) refined by Newton steps on log P(T > t) in
 * log t (checked against mpmath: tail probability within 1e-9 relative for
 * df 0.5 .. 1e12, p 1e-300 .. 1 - 1e-12). p 0 / 1 -> -/+INFINITY, also when
 * the quantile exceeds the doubles; NAN for p outside [0, 1], df <= 0 or
 * NaN. About 30 us. */
double tg_stats_t_quantile(double p, double df);

/* Regularized incomplete beta I_x(a, b), a, b > 0, x in [0, 1] (continued
 * fraction, Lentz; ~1e-12 relative for a, b up to ~1e4, degrading for larger
 * a, b near the mean); NAN otherwise. */
double tg_stats_beta_inc(double x, double a, double b);

/* ------------------------------------------------------------ descriptive */

/* Arithmetic mean; NAN when n is 0. */
double tg_stats_mean(const double *x, size_t n);

/* Sample standard deviation (n - 1 in the denominator, two passes); NAN
 * when n < 2. */
double tg_stats_stddev(const double *x, size_t n);

/*
 * Median (the mean of the two middle values for even n), by sorting a
 * copy: scratch is the caller's buffer of n doubles, or NULL to allocate
 * one internally (freed before return). x is not modified. NAN when n is 0,
 * a value is NaN, or the allocation fails.
 */
double tg_stats_median(const double *x, size_t n, double *scratch);

#endif
