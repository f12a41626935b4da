/*
 * trace_chunks.h - the trace reader's pipeline: the JSON of a source cut
 * into chunks at guessed event boundaries by a feeder thread, and parsed
 * ahead ("speculatively") on two threads. Internal to the reader
 * (trace_read.c); docs/reader-and-tree.md and docs/scale.md say why.
 *
 * The feeder thread reads the source (and so inflates it: the source is
 * opened single-threaded; the reader's thread does it too when it needs
 * the next chunk and the feeder is busy elsewhere) into a ring of NCHUNKS
 * buffers of about
 * chunk_bytes each. It ends each chunk just before a '{' that looks like
 * the start of an element of traceEvents (after "}," and before '"' and a
 * letter, whitespace allowed between) and carries the rest over to the
 * next chunk; a chunk that begins at such a guess is "spec": worth parsing
 * ahead. When the ring is full, the feeder parses the furthest chunk not
 * yet parsed (parse callback, worker 1); the reader's thread takes the
 * chunks in order and reads those nobody has begun itself, as any bytes;
 * while it waits for the feeder's parse of the next one, it parses later
 * ones ahead (worker 0). A guess is only a guess: the reader uses a
 * chunk's result only when its own parse stands exactly at the chunk's
 * first byte,
 * expecting an element of traceEvents; elsewhere it reads the chunk's
 * bytes as it reads any (trace_read.c).
 *
 * Threads: one thread at a time reads the source, under the pipeline's
 * mutex (so the raw-bytes observer of source.h runs on one thread at a
 * time, and never after tg_chunks_stop returns). A result is handed over
 * under the mutex: what the parse callback wrote before returning is
 * visible to the reader.
 */
#ifndef TG_TRACE_CHUNKS_H
#define TG_TRACE_CHUNKS_H

#include "source.h"

#include <stddef.h>
#include <stdint.h>

#define TG_CHUNK_PAD 64 /* NUL bytes after every chunk's data (the lexer's sentinel) */

typedef struct tg_chunks tg_chunks;

typedef struct tg_chunk {
	char *data;     /* len bytes of JSON, then TG_CHUNK_PAD NUL bytes */
	size_t len;
	uint64_t start; /* offset in the JSON of data[0] */
	uint64_t seq;   /* 0, 1, 2... in order */
	int spec;       /* data[0] is a guessed event start: parsed ahead */
	int final;      /* 1: the end of the data (len 0); < 0: the source's error, in msg */
	char msg[512];
} tg_chunk;

/* Parses chunk c ahead on the calling thread as worker (0: the reader's
 * thread, 1: the feeder) and returns its result (NULL: nothing usable). */
typedef void *(*tg_chunk_parse_fn)(void *ctx, int worker, const tg_chunk *c);

/* Frees a result of the parse callback that nobody took. */
typedef void (*tg_chunk_free_fn)(void *ctx, void *result);

/* Starts the feeder on src (opened single-threaded; the pipeline reads it,
 * the caller does not until tg_chunks_stop). chunk_bytes: the chunks'
 * size. Until tg_chunks_stop, which the same thread calls, the calling
 * thread (the reader) keeps to one half of its CPUs and the feeder to the
 * other (util/affinity.h). Returns 0, or TG_ENOMEM / TG_EAGAIN (no
 * thread) with nothing started. */
int tg_chunks_start(tg_chunks **out, tg_source *src, size_t chunk_bytes, tg_chunk_parse_fn parse,
                    tg_chunk_free_fn free_result, void *ctx);

/* The next chunk in order, once read; the caller's until tg_chunks_release. */
tg_chunk *tg_chunks_next(tg_chunks *p);

/* The result of parsing c ahead (c from tg_chunks_next, spec), waited for
 * when a thread parses it (this one parsing later chunks ahead meanwhile,
 * as worker 0). NULL for a chunk that is not spec, for one nobody has
 * begun (then nobody will: the caller reads its bytes itself), and for one
 * whose parse takes too long (its thread has lost its core). The caller
 * owns the result. */
void *tg_chunks_result(tg_chunks *p, tg_chunk *c);

/* Gives c's buffer back to the feeder (after the feeder's parse of it, if
 * one runs; a result not taken is freed). */
void tg_chunks_release(tg_chunks *p, tg_chunk *c);

/* Stops the feeder (at once, or after the chunk it parses), joins it,
 * gives the calling thread its CPUs back and frees the buffers; results
 * not taken are freed with free_result. NULL is a no-op. */
void tg_chunks_stop(tg_chunks *p);

#endif
