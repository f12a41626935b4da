/*
 * tree_links.h - which device events TraceLens links to their launch
 * (tree_links.c), for tg_tree_linked_like_tracelens. Private to core/tree.
 */
#ifndef TG_TREE_LINKS_H
#define TG_TREE_LINKS_H

#include "../trace/trace.h"

#include <stdint.h>

/* Marks in *out (one bit per event of t, event i's bit i & 7 of byte
 * i >> 3; allocated here, freed by the
 * caller; left to free on failure too) the device events TraceLens links:
 * those under a graph launch, and those whose correlation id has both a
 * launch flow start and finish; parent: the tree's parent of each event.
 * The flows must still be in t. 0 or TG_ENOMEM. */
int tg_tree_tracelens_links(uint8_t **out, const tg_trace *t, const uint32_t *parent);

#endif
