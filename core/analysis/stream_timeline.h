/*
 * stream_timeline.h - what each GPU stream did over the trace, as a row of
 * time bins per (device, stream): in each bin, how much of it the stream
 * spent on computation, communication and memcpy. The html report draws it
 * as a timeline picture per stream; the bins (not every kernel) keep the
 * picture small however long the trace, and a bin's share says how busy
 * the stream was within it.
 *
 * The events counted are the GPU timeline's (timeline.h): kernels,
 * memcpys and memsets with a launch (or every one with include_unlinked),
 * of one step when asked; a kernel of a copy (TG_NAME_COPY) counts as
 * memcpy, a collective (TG_NAME_COMM) as communication, as there.
 */
#ifndef TG_STREAM_TIMELINE_H
#define TG_STREAM_TIMELINE_H

#include "../tree/tree.h"

#include <stddef.h>
#include <stdint.h>

#define TG_STREAM_BINS 400 /* bins across the timeline */

typedef enum tg_stream_kind { TG_STREAM_COMPUTE = 0, TG_STREAM_COMM, TG_STREAM_MEMCPY, TG_STREAM_KINDS } tg_stream_kind;

/* One stream: its busy time per bin and kind, in ns (a bin lasts bin_ns;
 * what a stream runs at once overlaps, so a sum may exceed it), and its
 * events' total duration. */
typedef struct tg_stream_row {
	int64_t device, stream;
	uint64_t events;
	double busy_ns; /* sum of its events' durations */
	float bins[TG_STREAM_BINS][TG_STREAM_KINDS];
} tg_stream_row;

typedef struct tg_stream_timeline {
	int64_t start_ns;    /* the first event's start, on the trace's clock */
	double bin_ns;       /* span / TG_STREAM_BINS */
	double span_ns;      /* first start to last end */
	tg_stream_row *rows; /* by device, then stream */
	size_t nrows;
} tg_stream_timeline;

/* The streams of tree (step: -1 the whole trace, else a step index; with
 * include_unlinked device events without a launch too) into *out, freed
 * with tg_stream_timeline_free; nrows 0 when there is no device event.
 * Returns 0 or TG_ENOMEM. */
int tg_stream_timeline_build(tg_stream_timeline **out, const tg_tree *tree, int32_t step, int include_unlinked);

void tg_stream_timeline_free(tg_stream_timeline *s);

#endif
