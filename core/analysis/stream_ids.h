/*
 * stream_ids.h - small numbers for the (device, stream) pairs of device
 * events, so that an analysis's per-event record holds a 32-bit stream id
 * instead of two 64-bit values (breakdown.c's idle table, launch_stats.c's
 * queue table).
 *
 * Ids are handed out in order of first appearance; tg_stream_ids_sort then
 * renumbers them in (device, stream) order, the order those tables print
 * their rows in. A hash table over the pairs, with the last pair
 * looked up remembered (device events of one stream come in runs), so an
 * untrusted trace with many streams costs linear time.
 */
#ifndef TG_STREAM_IDS_H
#define TG_STREAM_IDS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_stream_key {
	int64_t device, stream;
} tg_stream_key;

typedef struct tg_stream_ids {
	tg_stream_key *v; /* by id */
	size_t n, cap;
	uint32_t *slot; /* id + 1, 0: empty */
	size_t mask;
	uint32_t last; /* the id last looked up, or UINT32_MAX */
} tg_stream_ids;

#define TG_STREAM_IDS_INIT {NULL, 0, 0, NULL, 0, UINT32_MAX}

/* *id = the id of (device, stream) in s, a new one (the next number) when
 * the pair is new. 0, or TG_ENOMEM (s unchanged). */
int tg_stream_ids_get(uint32_t *id, tg_stream_ids *s, int64_t device, int64_t stream);

/* Renumbers s's ids in (device, stream) order: s->v[id] is then the pair
 * of new id id, and *rank a new array (the caller frees it) giving each old
 * id its new one. s keeps working (looked up, added to) under the new
 * numbers. 0, or TG_ENOMEM (s unchanged). */
int tg_stream_ids_sort(uint32_t **rank, tg_stream_ids *s);

/* Frees what s holds and leaves it empty (TG_STREAM_IDS_INIT). */
void tg_stream_ids_free(tg_stream_ids *s);

#endif
