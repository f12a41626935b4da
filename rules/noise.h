/*
 * noise.h - the between-run noise of a metric: how much separate runs of
 * the same code differ, on the log scale, and what it does to the
 * interval of a ratio new/base (docs/diff.md, Runs and noise).
 *
 * The per-step samples of one run do not carry the variance between runs
 * (another process, another clock, another neighbour: +-3 % on real H200
 * runs of the same code). When the runs are known (several runs per side,
 * A/A runs given with --noise-from, the target branch's history in the
 * daemon), each group of runs of the same code contributes the squared
 * deviations of the logs of its per-run values from the group's mean; the
 * pooled variance sigma^2 = ss / df is the noise of one run, and the
 * ratio's interval is at least exp(+-t_{df} sigma sqrt(1/runs_base +
 * 1/runs_new)) around the estimate.
 *
 * Pure functions on plain numbers; no allocation except where said.
 */
#ifndef TG_NOISE_H
#define TG_NOISE_H

#include <stddef.h>

typedef struct tg_noise {
	double ss; /* sum of squared deviations of log per-run values from their group's mean */
	double df; /* degrees of freedom: runs minus groups (plus those of tg_noise_add_sigma) */
} tg_noise;

/* Adds one group of runs of the same code: values are per-run means of
 * the metric (> 0). A group with a value <= 0 or not finite, or with fewer
 * than 2 values, adds nothing. */
void tg_noise_add_group(tg_noise *n, const double *runs, size_t nruns);

/* Adds a noise known from elsewhere: sigma (sd of the log of one run's
 * value) estimated from nruns runs (nruns - 1 degrees of freedom).
 * sigma < 0, NaN or nruns < 2 adds nothing. */
void tg_noise_add_sigma(tg_noise *n, double sigma, double nruns);

/* sqrt(ss / df): the sd of the log of one run's value; NAN when df is 0. */
double tg_noise_sigma(const tg_noise *n);

/*
 * The interval of a ratio estimated from runs_base and runs_new runs at
 * this noise: *lo = ratio exp(-t se), *hi = ratio exp(t se), se = sigma
 * sqrt(1/runs_base + 1/runs_new), t the Student quantile at (1 +
 * confidence) / 2 with the noise's df; *p_slower (may be NULL): the
 * one-sided p-value of "no slowdown", 1 - T_df(log(ratio) / se). Returns 0,
 * or -1 (outputs untouched) when the noise has no df or an argument is
 * out of range (ratio <= 0, runs 0).
 */
int tg_noise_interval(double *lo, double *hi, double *p_slower, double ratio, const tg_noise *n, size_t runs_base,
                      size_t runs_new, double confidence);

/*
 * Runs per side that would decide a change of pct percent at this noise:
 * the n with 80 % power for a two-sided test at confidence, n = 2 (z_a +
 * z_0.8)^2 sigma^2 / log(1 + pct/100)^2, rounded up, at least 2. sigma as
 * tg_noise_sigma. 0 when pct <= 0 or sigma is not finite.
 */
size_t tg_noise_runs_needed(double pct, double sigma, double confidence);

/*
 * A robust sigma of one run from a series of per-run values in time order
 * (a branch's history): from the successive differences of the logs,
 * which a step (a change point) moves only once. A first robust scale s0
 * (the median |difference| / (0.6745 sqrt 2)) sets aside the differences
 * above 3.5 sqrt(2) s0 (a step, either side of an outlier); sigma^2 is the
 * mean of the other squared differences / 2. Values <= 0 are skipped.
 * *runs (may be NULL): the runs of a plain sample sd as precise (its
 * degrees of freedom + 1: 2 k^2 / (3 k - 1) + 1 for k kept differences,
 * 7.2 for 10 runs), 0 when too few. NAN with fewer than 3 values. Allocates a scratch array (NAN when that
 * fails).
 */
double tg_noise_sigma_robust(const double *series, size_t n, double *runs);

#endif
