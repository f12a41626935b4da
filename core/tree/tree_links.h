/*
 * tree_links.h - which device events TraceLens links to their launch
 * (tree_links.c), for tg_tree_linked_like_tracelens: the launch flows' ends
 * taken from the trace first (a set of keys, so that the flows can be
 * freed before the tree's arrays peak), the marks made once every parent
 * is known. Private to core/tree.
 */
#ifndef TG_TREE_LINKS_H
#define TG_TREE_LINKS_H

#include "tree_pack.h"
#include "../trace/trace.h"
#include "../../util/idmap.h"

#include <stdint.h>

/* A set of 64-bit keys: a bit a key of their range when the keys are dense
 * (flow ids are correlation ids: a bit a correlation id, where the flows
 * take 32 bytes), else a map of the keys alone. */
typedef struct tg_tree_keys {
	int64_t lo;       /* the least key, with bits */
	uint64_t range;   /* bits' keys: lo up to lo + range - 1 */
	uint64_t *bits;   /* NULL: no keys, or sparse */
	tg_idmap *sparse; /* the keys when too spread for bits, else NULL */
} tg_tree_keys;

/* The launch flows' ends of a trace: the ids of their starts and of their
 * finishes, each a set of whole 64-bit ids (no bit of an id is given up
 * to tell a start from a finish). */
typedef struct tg_tree_ends {
	tg_tree_keys start;
	tg_tree_keys finish;
} tg_tree_ends;

/* Fills *ends with the ends of t's launch flows (ph s and f of
 * TG_FLOW_LAUNCH); reads the flows only, which may be dropped after.
 * *ends owns its memory (tg_tree_ends_free), on failure too. 0 or
 * TG_ENOMEM. */
int tg_tree_ends_take(tg_tree_ends *ends, const tg_trace *t);

/* Frees ends' memory and zeroes it. */
void tg_tree_ends_free(tg_tree_ends *ends);

/* Marks in *out (one bit per event of t, event i's bit i & 7 of byte
 * i >> 3; allocated here, freed by the caller; left to free on failure
 * too) the device events TraceLens links: those under a graph launch, and
 * those whose correlation id has both a launch flow start and finish in
 * ends; the tree's parent of each event read from parent when not NULL,
 * else from parents (tree_pack.h). 0 or TG_ENOMEM. */
int tg_tree_tracelens_links(uint8_t **out, const tg_trace *t, const tg_tree_pack *parents, const uint32_t *parent,
                            const tg_tree_ends *ends);

#endif
