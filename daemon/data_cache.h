/*
 * data_cache.h - decoded run data (core/diff/rundata.h) the daemon keeps for
 * its jobs, most recently used first, up to a size (see data_cache.c).
 * Entries are owned by the cache; what get gives is borrowed until the
 * next put.
 */
#ifndef TG_DATA_CACHE_H
#define TG_DATA_CACHE_H

#include "../core/diff/rundata.h"
#include "../core/diff/tree_diff.h"

typedef struct tg_data_cache tg_data_cache;

/* An empty cache of at most max_bytes (tg_rundata_mem_bytes of its
 * entries). *out is the caller's (tg_data_cache_free). 0 or TG_ENOMEM. */
int tg_data_cache_new(tg_data_cache **out, uint64_t max_bytes);

void tg_data_cache_free(tg_data_cache *c);

/* The run data kept under digest (trusted: only data a trusted judgement
 * made), borrowed; NULL when none (or c is NULL). Marks it used. */
const tg_rundata *tg_data_cache_get(tg_data_cache *c, const char *digest, int trusted);

/* 1 when get would find it (without marking it used). */
int tg_data_cache_has(tg_data_cache *c, const char *digest, int trusted);

/* Keeps rd (taken: freed when it is not kept: larger than the cache, or
 * kept already) under digest, with the tree diff's view of its skeleton
 * when view is set (rd was read for a baseline) and both fit, dropping the
 * least recently used entries to make room. 0 or TG_ENOMEM. */
int tg_data_cache_put(tg_data_cache *c, const char *digest, int trusted, int view, tg_rundata *rd);

/* Makes the tree diff's view of the entry of digest (any trust) when it
 * has none and it fits (the run data became a baseline's after it was
 * kept); nothing when no entry has that digest. Best effort. */
void tg_data_cache_make_view(tg_data_cache *c, const char *digest);

/* The tree diff's view of rd's skeleton (tree_diff.h: tg_tree_diff_side)
 * made when rd was put as a baseline's (or since), for the jobs that align
 * a run with rd (the baseline of every pull request against it); NULL
 * when rd is not kept here, or has none (not read for a baseline, or its
 * view would not fit). Borrowed, as rd. */
const tg_tree_diff_side *tg_data_cache_view(const tg_data_cache *c, const tg_rundata *rd);

/* Bytes kept, and *n (may be NULL) entries. */
uint64_t tg_data_cache_bytes(const tg_data_cache *c, size_t *n);

#endif
