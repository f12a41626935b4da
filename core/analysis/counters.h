/*
 * counters.h - HTA's augmented counters as time series (hta/analyzers/
 * trace_counters.py, docs/augment.md): the launch queue length of each
 * stream and the concurrent memcpy / memset bandwidth of each memory kind,
 * each a step function given by the points where it changes.
 *
 *   Queue Length  per (device, stream): one more at each launch's start, one
 *                 less at the start of the device event it launched (an
 *                 operation is outstanding from its launch until it runs);
 *                 launches first at equal times. The launches and their
 *                 order are those of the report's queue_length_summary
 *                 (launch_stats.h), so its max is this series' max.
 *   Memcpy BW     per (device track, memory kind: "Memcpy HtoD", "Memcpy
 *                 DtoH", "Memcpy DtoD", "Memset", ...): the GB/s of each
 *                 MEMORY-typed device event (its "memory bandwidth (GB/s)"
 *                 argument, else bytes / duration) added at its start and
 *                 taken away at its end, so that concurrent copies add up;
 *                 a 0-length event lasts 1 us, as in HTA.
 *
 * One point per distinct time of a series (the value after every change at
 * that time), in time order.
 */
#ifndef TG_COUNTERS_H
#define TG_COUNTERS_H

#include "../tree/tree.h"

typedef enum tg_counter_kind { TG_COUNTER_QUEUE = 0, TG_COUNTER_BANDWIDTH } tg_counter_kind;

typedef struct tg_counter_series {
	tg_counter_kind kind;
	char name[16];   /* "Queue Length", or the memory kind ("Memcpy HtoD", "Memset") */
	int64_t device;  /* tg_kernel_device of its events */
	int64_t stream;  /* queue: the stream; bandwidth: -1 */
	uint32_t track;  /* the track of its first device event: where the counter is drawn */
	size_t first, n; /* its points: tg_counters_points()[first .. first + n) */
	double max;      /* its largest value */
} tg_counter_series;

typedef struct tg_counter_point {
	int64_t ts;   /* ns */
	double value; /* queue: operations; bandwidth: GB/s */
} tg_counter_point;

typedef struct tg_counters tg_counters;

/* The series of tree's trace: queues by (device, stream), then bandwidths
 * by (device, memory kind). *out owns them (tg_counters_free). Returns 0 or
 * TG_ENOMEM. */
int tg_counters_build(tg_counters **out, const tg_tree *tree);

/* The series and the points (borrowed from c). */
const tg_counter_series *tg_counters_series(const tg_counters *c, size_t *n);
const tg_counter_point *tg_counters_points(const tg_counters *c, size_t *n);

void tg_counters_free(tg_counters *c);

#endif
