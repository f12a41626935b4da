/*
 * tree_nest.c - the host events nested by time, then the Python parent
 * ids applied (tree_impl.h). Each track's events come sorted by (ts asc,
 * dur desc, kind rank, file order: tree_buckets.c) and are nested with a
 * stack. Tolerance: a child may end up to TOL_NS after its parent (clock
 * rounding in the profiler); an event that starts less than TOL_NS before
 * its predecessor's end is its sibling, not its child. An event that
 * overlaps its predecessor by more than that and ends after it ("bleeds")
 * is still kept, as its child.
 */
#include "tree_impl.h"
#include "tree_launch.h"
#include "../../util/idmap.h"

#include <stdlib.h>

#define TOL_NS 1000

static void nest_track(tg_tree *tree, const tg_event *ev, const struct tg_tree_key *k, size_t n,
                       uint32_t *stack)
{
	size_t sp = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t e = (uint32_t)k[i].tie;
		int64_t ts = ev[e].ts, end = tg_event_end(tree->trace, &ev[e]);
		while (sp > 0) {
			const tg_event *top = &ev[stack[sp - 1]];
			int64_t top_end = tg_event_end(tree->trace, top);
			if (ts >= top_end) {
				sp--;
				continue;
			}
			if (end <= top_end + TOL_NS)
				break;
			if (top_end - ts <= TOL_NS) {
				sp--;
				continue;
			}
			tree->stats.bleeds++;
			break;
		}
		tree->parent[e] = sp ? stack[sp - 1] : TG_NONE;
		stack[sp++] = e;
	}
}

static int pick_python_id(const tg_trace *t, const tg_event *e, int64_t *id)
{
	*id = tg_event_pyid(t, e);
	return e->kind == TG_KIND_PYTHON && (e->flags & TG_EV_HAS_PYID);
}

/* Python parent id overrules time nesting between python functions. */
static int reparent_python(tg_tree *tree, const tg_trace *t)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_idmap *by_pyid = tg_tree_map_ids(t, pick_python_id);
	if (!by_pyid)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (e->kind != TG_KIND_PYTHON || !(e->flags & TG_EV_HAS_PYID))
			continue;
		if (!(e->flags & TG_EV_HAS_PYPARENT)) {
			/* a thread's first frame: never inside another python frame
			 * (threads logged on one tid overlap in time) */
			uint32_t p = tree->parent[i];
			if (p != TG_NONE && ev[p].kind == TG_KIND_PYTHON) {
				tree->parent[i] = TG_NONE;
				tree->stats.python_reparented++;
			}
			continue;
		}
		uint32_t want = tg_idmap_get(by_pyid, tg_event_pyparent(t, e));
		if (want == TG_NONE || want == i || ev[want].track != e->track)
			continue;
		/* want already above us in the time tree: keep the time parent.
		 * (The tracer may have lost frames in between, and time nesting
		 * on one thread is right about cpu_ops between python frames.) */
		uint32_t a = tree->parent[i];
		while (a != TG_NONE && a != want)
			a = tree->parent[a];
		if (a == want)
			continue;
		/* refuse a parent that is our own descendant (would make a cycle) */
		uint32_t x = want;
		while (x != TG_NONE && x != i)
			x = tree->parent[x];
		if (x == i)
			continue;
		tree->parent[i] = want;
		tree->stats.python_reparented++;
	}
	tg_idmap_free(by_pyid);
	return 0;
}

int tg_tree_nest_host(tg_tree *tree, const tg_trace *t, const tg_tree_buckets *hb)
{
	size_t ne, nt;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_trace_tracks(t, &nt);
	size_t maxn = 0;
	for (size_t tr = 0; tr < nt; tr++)
		if (hb->off[tr + 1] - hb->off[tr] > maxn)
			maxn = hb->off[tr + 1] - hb->off[tr];
	uint32_t *stack = tg_malloc((maxn + 1) * sizeof(uint32_t));
	if (!stack)
		return TG_ENOMEM;
	for (size_t tr = 0; tr < nt; tr++)
		nest_track(tree, ev, hb->keys + hb->off[tr], hb->off[tr + 1] - hb->off[tr], stack);
	free(stack);
	return reparent_python(tree, t);
}
