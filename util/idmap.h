/*
 * idmap.h - a map from int64 ids (correlation, External id, Python id) to
 * uint32 event indices. The first value put for a key wins.
 *
 * When the caller knows the keys' range and count up front (one pass over
 * the events), ids that are dense (Python ids 1..N, correlations of one
 * process) get a plain array indexed by id - 4 bytes a key, no hashing -
 * and sparse ones a hash table sized once. Fresh memory is the cost that
 * matters here: first-touch page faults dominate on virtual machines.
 */
#ifndef TG_IDMAP_H
#define TG_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_idmap tg_idmap;

/* Creates a map for about n keys (it grows past that if needed). NULL when
 * out of memory. */
tg_idmap *tg_idmap_new(size_t n);

/* Creates a map for n keys between min and max (inclusive); dense when the
 * range is at most 4n + 1024. Keys outside [min, max] are still accepted. */
tg_idmap *tg_idmap_new_range(size_t n, int64_t min, int64_t max);

/* Adds key -> value unless key is present. 0, 1 if it was present, or
 * TG_ENOMEM. */
int tg_idmap_put(tg_idmap *m, int64_t key, uint32_t value);

/* The value of key, or TG_NONE. */
uint32_t tg_idmap_get(const tg_idmap *m, int64_t key);

void tg_idmap_free(tg_idmap *m);

#endif
