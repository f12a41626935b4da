/*
 * tree_links.c - which device events TraceLens would link to their launch
 * (tree.h, tg_tree_linked_like_tracelens): TraceLens links a kernel by its
 * launch flow, so a kernel counts as linked when both ends of the launch
 * flow with its correlation id are in the trace, or when its launch is a
 * graph launch. The flow ends are looked up in a map sized by the flow
 * ids' range (dense: 4 bytes a key; a hash takes 32, two keys a flow).
 */
#include "tree_links.h"
#include "../../util/idmap.h"

#include <stdlib.h>
#include <string.h>

/* The key of flow f in the map of launch flow ends: its id, then 0 for a
 * start or 1 for a finish (first put wins, so the two kinds of end go to
 * separate keys); 0 for a flow that is not a launch flow's start or
 * finish. */
static int launch_end_key(const tg_flow *f, int64_t *key)
{
	if (f->type != TG_FLOW_LAUNCH || (f->ph != 's' && f->ph != 'f'))
		return 0;
	*key = (int64_t)(f->id << 1 | (f->ph == 'f'));
	return 1;
}

int tg_tree_tracelens_links(uint8_t **out, const tg_trace *t, const uint32_t *parent)
{
	size_t ne, nf;
	const tg_event *ev = tg_trace_events(t, &ne);
	const tg_flow *fl = tg_trace_flows(t, &nf);
	/* the keys' range first: flow ids are correlation ids, mostly dense,
	 * and a dense map takes 4 bytes a key where a hash takes 32 */
	size_t nk = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN, key;
	for (size_t i = 0; i < nf; i++) {
		if (!launch_end_key(&fl[i], &key))
			continue;
		lo = key < lo ? key : lo;
		hi = key > hi ? key : hi;
		nk++;
	}
	uint8_t *linked = *out = tg_calloc(ne / 8 + 1, 1);
	tg_idmap *ends = tg_idmap_new_range(nk, lo, hi);
	if (!linked || !ends) {
		tg_idmap_free(ends);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < nf; i++) {
		if (launch_end_key(&fl[i], &key) && tg_idmap_put(ends, key, 1) < 0) {
			tg_idmap_free(ends);
			return TG_ENOMEM;
		}
	}
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind))
			continue;
		uint32_t p = parent[i];
		if (p == TG_NONE || !tg_kind_is_launch(ev[p].kind) || !(ev[i].flags & TG_EV_HAS_CORR))
			continue;
		const char *name = tg_trace_str(t, ev[p].name);
		uint64_t id = (uint64_t)tg_event_corr(t, &ev[i]);
		if (!strcmp(name, "cudaGraphLaunch") || !strcmp(name, "hipGraphLaunch") ||
		    (tg_idmap_get(ends, (int64_t)(id << 1)) != TG_NONE &&
		     tg_idmap_get(ends, (int64_t)(id << 1 | 1)) != TG_NONE))
			linked[i >> 3] |= (uint8_t)(1u << (i & 7));
	}
	tg_idmap_free(ends);
	return 0;
}
