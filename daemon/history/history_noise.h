/*
 * history_noise.h - the noise of one run of a branch's series, from its
 * run-to-run differences, and the median it is built on: one function for
 * the history page's grey band (history_page.c) and the pull-request
 * comment's band lines (daemon/comment.c).
 *
 * What it estimates: the standard deviation of one run's value, sigma.
 * Two consecutive runs of the same code differ by d = x2 - x1, whose
 * standard deviation is sigma * sqrt 2 (two independent runs). The median
 * of |d| is a robust estimate of that spread: for a normal variable the
 * median absolute value is 0.6745 sd, so 1.4826 (= 1 / 0.6745) times it is
 * the sd of d, and dividing by sqrt 2 gives the sd of one run:
 *
 *     sigma = 1.4826 * median |x[k] - x[k-1]| / sqrt 2
 *
 * Differences (not deviations from the series' median) so that a step, a
 * regression that stays, moves the line and not the band: only the one
 * difference across the step is large, and the median ignores it.
 */
#ifndef TG_HISTORY_NOISE_H
#define TG_HISTORY_NOISE_H

#include <stddef.h>

/* The median of v[0..n), sorted in place (ascending, NaN never given);
 * the mean of the two middle values when n is even; 0 when n is 0. */
double tg_history_median(double *v, size_t n);

/*
 * Sets *sigma to the noise of one run of the series v[0..n) (oldest
 * first), see above. Each difference |v[k] - v[k-1]| is taken as it is
 * when per is 0, or in percent of per (|d| / per * 100) when per is not 0,
 * so that sigma is then in percent of per. A difference that is not a
 * number (a NaN or an infinity in either value) is left out; with no
 * difference left (n < 2, or all left out) *sigma is NAN. v is not
 * changed. Returns 0, or TG_ENOMEM (*sigma is then NAN).
 */
int tg_history_noise_sigma(double *sigma, const double *v, size_t n, double per);

#endif
