/*
 * metrics.h - the daemon's counters, gauges and histograms, and their
 * Prometheus text exposition (format 0.0.4: "# HELP", "# TYPE", one sample
 * a line; histograms as _bucket{le=...}, _sum, _count).
 *
 * A registry is made from a table of families that the caller keeps (a
 * static const table: the job machine's is daemon_metrics.c). A family has
 * at most two labels; each distinct pair of label values is a series,
 * created on first use, at most TG_METRICS_MAX_SERIES per family (beyond
 * that an update is dropped: label values come from small sets, states,
 * verdicts, HTTP status codes, and a bug must not grow memory without end).
 *
 * Thread-safe: one mutex per registry. The job machine's thread updates,
 * the endpoints' thread renders; every call holds the mutex only for the
 * update or the copy. A NULL registry is accepted by every call and does
 * nothing, so that code can count whether or not anything is exposed.
 */
#ifndef TG_METRICS_H
#define TG_METRICS_H

#include <stddef.h>

#define TG_METRICS_MAX_SERIES 256

typedef enum tg_metrics_type { TG_METRICS_COUNTER = 0, TG_METRICS_GAUGE, TG_METRICS_HISTOGRAM } tg_metrics_type;

/* One family, as the caller's table gives it (borrowed for the registry's
 * life). */
typedef struct tg_metrics_family {
	const char *name; /* "tracegate_runs_seen_total": [a-zA-Z_:][a-zA-Z0-9_:]* */
	const char *help; /* one line */
	tg_metrics_type type;
	const char *label[2];  /* label names, NULL when unused (label[1] only with label[0]) */
	const double *buckets; /* histograms: upper bounds, ascending, +Inf implied */
	size_t nbuckets;
} tg_metrics_family;

typedef struct tg_metrics tg_metrics;

/* A registry of the n families (checked: names and labels well-formed,
 * buckets ascending, no name twice). *out is freed with tg_metrics_free.
 * Returns 0, TG_EINVAL (naming the family at fault) or TG_ENOMEM. */
int tg_metrics_new(tg_metrics **out, const tg_metrics_family *families, size_t n);

void tg_metrics_free(tg_metrics *m);

/* Adds delta to the series (family, v0, v1) of a counter (delta >= 0) or a
 * gauge; v0 and v1 are the label values (NULL for a label the family does
 * not have). Creates the series at 0 first: add 0 to show a series before
 * anything happened. Wrong uses (a family out of range, a histogram, a
 * negative counter delta, a missing label value) are ignored. */
void tg_metrics_add(tg_metrics *m, size_t family, const char *v0, const char *v1, double delta);

/* Sets the series of a gauge to value. */
void tg_metrics_set(tg_metrics *m, size_t family, const char *v0, const char *v1, double value);

/* Counts value in the series of a histogram (its bucket, _sum, _count). */
void tg_metrics_observe(tg_metrics *m, size_t family, const char *v0, const char *v1, double value);

/* The value of a counter's or a gauge's series (a histogram's: its
 * _count), 0 when it does not exist: for tests and logs. */
double tg_metrics_get(tg_metrics *m, size_t family, const char *v0, const char *v1);

/* The whole registry in the text exposition format: families in table
 * order, series in the order they were created. *out (NUL-terminated,
 * *len bytes) is the caller's to free. Returns 0 or TG_ENOMEM. */
int tg_metrics_write(char **out, size_t *len, tg_metrics *m);

#endif
