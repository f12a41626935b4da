/*
 * interval.h - unions of [start, end) time intervals in nanoseconds, the
 * building block of every "busy time" (overlapping kernels count once).
 */
#ifndef TG_INTERVAL_H
#define TG_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_interval {
	int64_t start, end;
} tg_interval;

/* Sorts iv by start (in place) and returns the total length of their union.
 * Touching intervals merge. */
int64_t tg_interval_union(tg_interval *iv, size_t n);

/* Sorts iv by start, in place. */
void tg_interval_sort(tg_interval *iv, size_t n);

#endif
