/*
 * history_changes.h - the change points of a branch's history, series by
 * series (history_changes.c): what the html page marks on its charts and
 * what the published index lists. A series is one (workload, metric) pair
 * of 8 points or more, every value positive; its changes are E-divisive
 * means' (rules/changepoint.h), seeded from the metric's name so that the
 * same history always gives the same answer.
 */
#ifndef TG_HISTORY_CHANGES_H
#define TG_HISTORY_CHANGES_H

#include "../../rules/changepoint.h"
#include "../store/store.h"

#include <stddef.h>

/* The change points of one series: values v[0..n) in order, of metric.
 * Fewer than 8 values, a value <= 0 or not finite, or every value the same
 * (no split can differ): none (0, *out NULL).
 * *out is an array of *nout the caller frees. Returns 0 or TG_ENOMEM. */
int tg_history_series_changes(tg_change **out, size_t *nout, const double *v, size_t n, const char *metric);

/* One change point of a history. */
typedef struct tg_history_change {
	const char *workload, *metric; /* borrowed from the points */
	const tg_history_point *at;    /* the first run after the change (borrowed) */
	double pct;                    /* 100 (after / before - 1) */
	double p_value;
	size_t runs_ago;               /* runs of the series from that run to the last, both counted */
	tg_change in_series;           /* the change as its series has it (at: index in the series) */
} tg_history_change;

/* The change points of every series of the n points p (oldest first, any
 * mix of series, as tg_store_history gives them), series by series in the
 * order of their first point, each series' in index order. *out is an
 * array of *nout the caller frees (free); it borrows from p. Returns 0 or
 * TG_ENOMEM. */
int tg_history_changes_find(tg_history_change **out, size_t *nout, const tg_history_point *p, size_t n);

#endif
