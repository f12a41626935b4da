/*
 * idmap.h - a hash map from int64 ids (correlation, External id, Python id)
 * to uint32 event indices. The first value put for a key wins.
 */
#ifndef TG_IDMAP_H
#define TG_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_idmap tg_idmap;

/* Creates a map sized for about n keys. NULL when out of memory. */
tg_idmap *tg_idmap_new(size_t n);

/* Adds key -> value unless key is present. 0, 1 if it was present, or
 * TG_ENOMEM. */
int tg_idmap_put(tg_idmap *m, int64_t key, uint32_t value);

/* The value of key, or TG_NONE. */
uint32_t tg_idmap_get(const tg_idmap *m, int64_t key);

void tg_idmap_free(tg_idmap *m);

#endif
