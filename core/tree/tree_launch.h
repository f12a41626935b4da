/*
 * tree_launch.h - device events under their launch (tree_launch.c), for
 * tree.c's build. Private to core/tree.
 */
#ifndef TG_TREE_LAUNCH_H
#define TG_TREE_LAUNCH_H

#include "tree.h"
#include "tree_buckets.h"
#include "../../util/idmap.h"

#include <stddef.h>
#include <stdint.h>

/* A map (the caller's, tg_idmap_free) of the ids pick selects (pick
 * returns 0 to skip an event) to the index of the event that has each,
 * sized by a first pass over their range; NULL when out of memory. Inline,
 * so that each caller's pick is inlined in its two passes over every
 * event (a call an event and a pass were 2.4 of the 4.4 M instructions of
 * an h200-dev tree's two maps). */
static inline tg_idmap *tg_tree_map_ids(const tg_trace *t, int (*pick)(const tg_trace *, const tg_event *, int64_t *))
{
	size_t n = 0, ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	int64_t lo = INT64_MAX, hi = INT64_MIN, id;
	for (size_t i = 0; i < ne; i++)
		if (pick(t, &ev[i], &id)) {
			n++;
			lo = id < lo ? id : lo;
			hi = id > hi ? id : hi;
		}
	tg_idmap *m = tg_idmap_new_range(n, lo, hi);
	if (!m)
		return NULL;
	for (size_t i = 0; i < ne; i++)
		if (pick(t, &ev[i], &id) && tg_idmap_put(m, id, (uint32_t)i) < 0) {
			tg_idmap_free(m);
			return NULL;
		}
	return m;
}

/* Sets parent[i] of each device event and sync of t to the launch with its
 * correlation id, counting them in stats (syncs_linked, gpu_by_correlation);
 * *need_fallback: how many device events found none. Writes no other
 * parent and no other stat: the host events' nesting may run beside it.
 * 0 or TG_ENOMEM. */
int tg_tree_link_by_correlation(uint32_t *parent, tg_tree_stats *stats, const tg_trace *t, size_t *need_fallback);

/* The device events tg_tree_link_by_correlation left parentless: under the
 * launch their ac2g flow starts in (hb: the host buckets, sorted), else
 * under the cpu_op with their External id (stats: gpu_by_flow,
 * gpu_by_external_id). The flows must still be in t. 0 or TG_ENOMEM. */
int tg_tree_link_fallback(uint32_t *parent, tg_tree_stats *stats, const tg_trace *t, const tg_tree_buckets *hb);

/* The built tree's sync_ops (tg_tree_sync_op): each cuda_sync event with an
 * External id that the tree left without a parent, with the cpu_op of the
 * lowest index that has that External id (tg_tree_map_ids keeps the first),
 * read now so that the trace's second ids can go once the tree is built
 * (tg_trace_drop_id1s). Nothing is kept when no sync is left without a
 * parent. 0 or TG_ENOMEM. */
int tg_tree_find_sync_ops(tg_tree *tree, const tg_trace *t);

#endif
