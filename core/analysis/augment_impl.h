/*
 * augment_impl.h - what the augmented trace's files share: the byte-level
 * JSON scanning of the second read (augment_scan.c) and the output file
 * (augment_sink.c), used by augment_write.c. Not for other modules.
 */
#ifndef TG_AUGMENT_IMPL_H
#define TG_AUGMENT_IMPL_H

#include "augment.h"

#include <stddef.h>
#include <stdint.h>

/* ---- scanning [p, end): the text was a valid trace on the first read,
 * so these check only what keeps them safe on any bytes. Each returns NULL
 * when the range ends first (more is needed) and sets *bad (when not NULL)
 * for a byte that cannot be there. */

/* p past JSON whitespace (never past end). */
const char *tg_scan_ws(const char *p, const char *end);

/* One past the closing quote of the string whose opening quote is at p. */
const char *tg_scan_string_end(const char *p, const char *end, int *bad);

/* One past the JSON value at p (no whitespace before it), nested at most
 * 10,000 deep. */
const char *tg_scan_value_end(const char *p, const char *end, int *bad);

/* 1 when the string token [p, q) (its quotes included) decodes to the
 * ASCII text lit (escapes decoded: "p\u0068" is "ph"). */
int tg_scan_string_is(const char *p, const char *q, const char *lit);

/* The one ASCII character the string token [p, q) decodes to, or 0. */
int tg_scan_string_char(const char *p, const char *q);

/* ---- the output file */

typedef struct tg_sink tg_sink;

/* Opens out_path for writing: a temporary file beside it, gzip when the
 * name ends in ".gz" (level 1..9), or the path itself when it exists and is
 * not a regular file. Returns 0 or TG_EIO / TG_ENOMEM with the message. */
int tg_sink_open(tg_sink **out, const char *out_path, int level);

/* Writes len bytes. Returns 0 or TG_EIO with the message. */
int tg_sink_write(tg_sink *s, const void *data, size_t len);

/* Bytes written so far (before compression). */
uint64_t tg_sink_bytes(const tg_sink *s);

/* Finishes: with commit, flushes, syncs and renames the temporary file
 * over out_path (0 or TG_EIO); without, removes it. Frees s either way. */
int tg_sink_close(tg_sink *s, int commit);

#endif
