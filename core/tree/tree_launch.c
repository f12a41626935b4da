/*
 * tree_launch.c - device events under their launch (tree.h's rules): by
 * correlation id first; the rest by the ac2g flow whose start lies in a
 * launch (binary search in the host buckets), else by External id. Reads
 * the trace; writes the parents of device events and the link counts.
 */
#include "tree_launch.h"
#include "tree_impl.h"

#include <stdlib.h>

/* Host event that a launch flow's start binds to: the innermost launch on
 * the track enclosing ts (binary search in the sorted bucket). */
static uint32_t bind_flow_start(const tg_trace *t, const tg_tree_buckets *hb, const tg_flow *f)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	const struct tg_tree_key *k = hb->keys + hb->off[f->track];
	size_t n = hb->off[f->track + 1] - hb->off[f->track];
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ev[k[mid].tie].ts <= f->ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const tg_event *e = &ev[(uint32_t)k[i].tie];
		if (tg_kind_is_launch(e->kind) && e->ts <= f->ts && f->ts <= tg_event_end(t, e))
			return (uint32_t)k[i].tie;
		if (f->ts - e->ts > 10 * 1000 * 1000)
			break; /* launches are short: give up after 10 ms */
	}
	return TG_NONE;
}

static int pick_launch_corr(const tg_trace *t, const tg_event *e, int64_t *id)
{
	*id = tg_event_corr(t, e);
	return tg_kind_is_launch(e->kind) && (e->flags & TG_EV_HAS_CORR);
}

static int pick_cpu_op_ext(const tg_trace *t, const tg_event *e, int64_t *id)
{
	if (e->kind != TG_KIND_CPU_OP || !(e->flags & TG_EV_HAS_EXT))
		return 0; /* the id read only when wanted: it is beside the event (tg_trace_id1_field) */
	*id = tg_event_ext(t, e);
	return 1;
}

int tg_tree_link_by_correlation(uint32_t *parent, tg_tree_stats *stats, const tg_trace *t, size_t *need_fallback)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_idmap *by_corr = tg_tree_map_ids(t, pick_launch_corr);
	*need_fallback = 0;
	if (!by_corr)
		return TG_ENOMEM;
	/* counted here, added once: the stats share a cache line with the host
	 * events' counts, written on the other thread meanwhile */
	uint64_t syncs = 0, by_corr_n = 0;
	size_t fallback = 0;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!tg_tree_is_device_event(e))
			continue;
		uint32_t p = TG_NONE;
		if (e->flags & TG_EV_HAS_CORR)
			p = tg_idmap_get(by_corr, tg_event_corr(t, e));
		if (p != TG_NONE) {
			parent[i] = p;
			if (e->kind == TG_KIND_SYNC)
				syncs++;
			else
				by_corr_n++;
		} else if (e->kind != TG_KIND_SYNC) {
			fallback++;
		}
	}
	stats->syncs_linked += syncs;
	stats->gpu_by_correlation += by_corr_n;
	*need_fallback = fallback;
	tg_idmap_free(by_corr);
	return 0;
}

int tg_tree_link_fallback(uint32_t *parent, tg_tree_stats *stats, const tg_trace *t, const tg_tree_buckets *hb)
{
	size_t ne, nf;
	const tg_event *ev = tg_trace_events(t, &ne);
	const tg_flow *fl = tg_trace_flows(t, &nf);
	int rc = TG_ENOMEM;
	tg_idmap *by_ext = NULL, *flow_launch = NULL;
	by_ext = tg_tree_map_ids(t, pick_cpu_op_ext);
	if (!by_ext)
		goto out;
	/* launch flows: id -> launch event at the flow's start */
	flow_launch = tg_idmap_new(nf);
	if (!flow_launch)
		goto out;
	for (size_t i = 0; i < nf; i++) {
		if (fl[i].type != TG_FLOW_LAUNCH || fl[i].ph != 's')
			continue;
		uint32_t l = bind_flow_start(t, hb, &fl[i]);
		if (l != TG_NONE && tg_idmap_put(flow_launch, (int64_t)tg_flow_id(t, &fl[i]), l) < 0)
			goto out;
	}
	/* flow ends: (track, ts) of the device event they bind to */
	tg_idmap *end_at = tg_idmap_new(nf);
	if (!end_at)
		goto out;
	for (size_t i = 0; i < nf; i++) {
		if (fl[i].type != TG_FLOW_LAUNCH || fl[i].ph != 'f')
			continue;
		int64_t key = (int64_t)((uint64_t)fl[i].ts * 1000003ULL ^ fl[i].track);
		if (tg_idmap_put(end_at, key, (uint32_t)i) < 0) {
			tg_idmap_free(end_at);
			goto out;
		}
	}
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!tg_kind_is_gpu(e->kind) || parent[i] != TG_NONE)
			continue;
		int64_t key = (int64_t)((uint64_t)e->ts * 1000003ULL ^ e->track);
		uint32_t f = tg_idmap_get(end_at, key);
		uint32_t p = TG_NONE;
		if (f != TG_NONE && fl[f].track == e->track && fl[f].ts == e->ts)
			p = tg_idmap_get(flow_launch, (int64_t)tg_flow_id(t, &fl[f]));
		if (p != TG_NONE) {
			parent[i] = p;
			stats->gpu_by_flow++;
			continue;
		}
		if (e->flags & TG_EV_HAS_EXT)
			p = tg_idmap_get(by_ext, tg_event_ext(t, e));
		if (p != TG_NONE) {
			parent[i] = p;
			stats->gpu_by_external_id++;
		}
	}
	tg_idmap_free(end_at);
	rc = 0;
out:
	tg_idmap_free(by_ext);
	tg_idmap_free(flow_launch);
	return rc;
}

/* Whether event i is a sync with an External id and no parent in tree. */
static int orphan_sync(const tg_tree *tree, const tg_event *e, size_t i)
{
	return e->kind == TG_KIND_SYNC && (e->flags & TG_EV_HAS_EXT) && tg_tree_parent_at(tree, i) == TG_NONE;
}

int tg_tree_find_sync_ops(tg_tree *tree, const tg_trace *t)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	if (!tg_trace_stats_get(t)->by_kind[TG_KIND_SYNC])
		return 0; /* no sync event: no pass over the events */
	size_t ns = 0;
	for (size_t i = 0; i < ne; i++)
		ns += orphan_sync(tree, &ev[i], i);
	if (!ns)
		return 0;
	/* the cpu_ops by External id, the lowest index kept for an id (the
	 * fallback's map: tg_tree_link_fallback) */
	tg_idmap *by_ext = tg_tree_map_ids(t, pick_cpu_op_ext);
	tree->sync_ops = by_ext ? tg_idmap_new(ns) : NULL;
	int rc = tree->sync_ops ? 0 : TG_ENOMEM;
	for (size_t i = 0; i < ne && !rc; i++) {
		uint32_t op = orphan_sync(tree, &ev[i], i) ? tg_idmap_get(by_ext, tg_event_ext(t, &ev[i])) : TG_NONE;
		if (op != TG_NONE && tg_idmap_put(tree->sync_ops, (int64_t)i, op) < 0)
			rc = TG_ENOMEM;
	}
	tg_idmap_free(by_ext);
	return rc;
}
