/*
 * augment.h - the augmented trace (docs/augment.md): a copy of a trace that
 * keeps every byte of every event and adds what makes a timeline viewer
 * (Perfetto, chrome://tracing) show where a pull request lost time:
 *
 *   - HTA's augmented counters (counters.h) as counter events (ph "C", cat
 *     "tracegate", on the GPU's process): "Queue Length" of each stream (id
 *     the stream, args {"Queue Length": N}) and the concurrent bandwidth of
 *     each memory kind ("Memcpy HtoD", ..., "Memset"; args {"Memcpy BW":
 *     GB/s}), the names and arguments of HTA's generate_trace_with_counters;
 *   - marks: a "tracegate" member added to the "args" of chosen events (the
 *     diff's regressed ops and their kernels, rules/diff_augment.h), its
 *     value the JSON object of the mark's note;
 *   - instant events (ph "i", cat "tracegate") at chosen times: what the diff
 *     found.
 *
 * It streams: the trace's file is read a second time, element by element
 * of "traceEvents", each copied as it is (an element marked gets its
 * member inserted, nothing else of it changes), the new events written
 * before the array's end; no JSON document of the trace is held. The file
 * must still read as it did the first time: the events are matched to the
 * model's by their order, and their count is checked at the end.
 *
 * The output is the trace's JSON, gzip-compressed when its name ends in
 * ".gz"; tracegate reads it back as the same events (plus the instants)
 * with the counters counted (tg_trace_stats.counter_events).
 */
#ifndef TG_AUGMENT_H
#define TG_AUGMENT_H

#include "../tree/tree.h"

#include <jansson.h>

/* A mark: event (an index of tg_trace_events) gets note (an index of
 * tg_augment_opts.notes). An event with several marks gets their notes'
 * members merged, in mark order. */
typedef struct tg_augment_mark {
	uint32_t event;
	uint32_t note;
} tg_augment_mark;

/* An instant event. */
typedef struct tg_augment_instant {
	int64_t ts;         /* ns, on the trace's clock */
	const char *name;   /* any text: written as a JSON string */
	char scope;         /* 'g' (the whole timeline), 'p' (its process) or 't' (its thread) */
	uint32_t track;     /* the track (tg_trace_tracks) whose pid and tid it takes; TG_NONE: the
	                       track of the trace's first event */
	const json_t *args; /* an object, or NULL */
} tg_augment_instant;

typedef struct tg_augment_opts {
	int no_counters;              /* add no counter events */
	const tg_augment_mark *marks; /* any order */
	size_t nmarks;
	const json_t *const *notes; /* objects */
	size_t nnotes;
	const tg_augment_instant *instants;
	size_t ninstants;
	int gzip_level;        /* 1..9; 0: 6 */
	tg_source_opts source; /* limits of the second read, as the first's */
	uint32_t max_unit;     /* largest element or top-level member, bytes; 0: 256 MiB */
} tg_augment_opts;

typedef struct tg_augment_stats {
	uint64_t elements; /* elements of traceEvents copied */
	uint64_t events;   /* of them, the model's events (ph X, B, i, I) */
	uint64_t marked;   /* events that got a mark */
	uint64_t counters; /* counter events added */
	uint64_t series;   /* counter series (tracks) */
	uint64_t instants; /* instant events added */
	uint64_t json_in;  /* bytes of JSON read */
	uint64_t json_out; /* bytes of JSON written (before compression) */
} tg_augment_stats;

/* Writes the augmented copy of the trace of tree, read again from fd (the
 * open file the model was read from; rewound here; the caller keeps and
 * closes it; name is how messages name it), to out_path: complete or not
 * at all (a temporary file beside it, renamed; a path that exists and is
 * not a regular file, such as /dev/null, is written as it is). opts may be
 * NULL. *stats (may be NULL) says what was written. Returns 0; TG_EIO (the
 * message names the file); TG_EFORMAT ("NAME: byte N: ...", or the file
 * changed between the two reads); TG_ELIMIT; TG_EINVAL (a mark past the
 * events, a note that is not an object); TG_ENOMEM. */
int tg_augment_write(tg_augment_stats *stats, const char *out_path, int fd, const char *name, const tg_tree *tree,
                     const tg_augment_opts *opts);

#endif
