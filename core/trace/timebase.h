/*
 * timebase.h - the spans of events in a time base: the intervals of
 * util/interval.h as doubles, in the exact or TraceLens's time base, for
 * the analyses that report busy times.
 */
#ifndef TG_TIMEBASE_H
#define TG_TIMEBASE_H

#include "../../util/interval.h"
#include "trace.h"

/*
 * Spans: intervals as doubles, for the analyses that report busy times.
 *
 * Two time bases. Exact (the default): nanoseconds relative to a base
 * timestamp, whole numbers a double holds exactly for traces shorter than
 * 104 days, so unions and differences are exact. TraceLens: absolute
 * microseconds as float64, end = start + dur in float64, which is what
 * TraceLens (pandas) computes; at Kineto's timestamps (~1e12-1e15 us) that
 * rounds every endpoint to 2^-12 us or coarser. The CSV report uses it so
 * that its numbers match TraceLens's files; everything else is exact.
 */

typedef struct tg_span {
	double start, end;
} tg_span;

typedef struct tg_timebase {
	int tracelens_float; /* 1: TraceLens float64 microseconds */
	int64_t base_ns;     /* exact mode: subtracted from every timestamp */
} tg_timebase;

/* The double nearest to ns / 1000: what a JSON parser gives for Kineto's
 * decimal microseconds. */
double tg_ns_to_us_f64(int64_t ns);

/* The span of event e of trace t in the time base. */
static inline tg_span tg_span_of(const tg_timebase *tb, const tg_trace *t, const tg_event *e)
{
	tg_span s;
	if (tb->tracelens_float) {
		s.start = tg_ns_to_us_f64(e->ts);
		s.end = s.start + tg_ns_to_us_f64(tg_event_dur(t, e));
	} else {
		s.start = (double)(e->ts - tb->base_ns);
		s.end = s.start + (double)tg_event_dur(t, e);
	}
	return s;
}

/* A length in the time base, in microseconds. */
static inline double tg_timebase_us(const tg_timebase *tb, double len)
{
	return tb->tracelens_float ? len : len / 1000.0;
}

/* Sorts v by start and merges it in place into disjoint spans (touching
 * spans merge); returns their count. */
size_t tg_span_merge(tg_span *v, size_t n);

/* Total length of merged spans. */
double tg_span_length(const tg_span *m, size_t n);

/* Length of the intersection of two merged span lists. */
double tg_span_overlap(const tg_span *a, size_t na, const tg_span *b, size_t nb);

/* Length of the union of v (sorted and merged in place). */
double tg_span_union(tg_span *v, size_t n);

#endif
