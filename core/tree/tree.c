/*
 * tree.c - builds the event tree (see tree.h for the rules).
 *
 * Layout: parent[] per event, children in CSR form (child_off[] indexes
 * children[]), step_of[] per event (16-bit when the steps fit, as they
 * nearly always do: 2 bytes an event less), TraceLens's link marks one bit
 * an event; whether an event is in the tree is read from its kind. Host events are bucketed by track with a
 * counting sort, each bucket sorted by (ts asc, dur desc, kind rank, file
 * order) and nested with a stack. Tolerance: a child may end up to TOL_NS
 * after its parent (clock rounding in the profiler); an event that starts
 * less than TOL_NS before its predecessor's end is its sibling, not its
 * child. An event that overlaps its predecessor by more than that and ends
 * after it ("bleeds") is still kept, as the predecessor's child.
 */
#include "tree.h"
#include "tree_buckets.h"
#include "tree_links.h"
#include "../../util/idmap.h"

#include <stdlib.h>
#include <string.h>

#define TOL_NS 1000

struct tg_tree {
	const tg_trace *trace;
	const tg_event *ev; /* the trace's events */
	uint32_t *parent;
	uint32_t *child_off; /* nevents + 1 */
	uint32_t *children;
	uint32_t *roots;
	size_t nroots;
	int32_t *step_of;   /* while built, and after when there are INT16_MAX steps or more */
	int16_t *step16;    /* else step_of narrowed (tg_tree_step_of) */
	uint8_t *tl_linked; /* tg_tree_linked_like_tracelens, a bit an event */
	tg_step *steps;
	size_t nsteps;
	tg_tree_stats stats;
};

static int parse_step_number(const char *name, int64_t *n)
{
	static const char prefix[] = "ProfilerStep#";
	if (strncmp(name, prefix, sizeof(prefix) - 1) != 0)
		return -1;
	const char *p = name + sizeof(prefix) - 1;
	if (!*p)
		return -1;
	int64_t v = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > INT64_MAX / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	*n = v;
	return 0;
}

static int cmp_step(const void *a, const void *b)
{
	const tg_step *x = a, *y = b;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Index of the step whose host window holds ts, or -1. */
static int32_t step_at(const tg_tree *tree, int64_t ts)
{
	size_t lo = 0, hi = tree->nsteps;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (tree->steps[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const tg_step *s = &tree->steps[lo - 1];
	return ts < s->ts + s->dur ? (int32_t)(lo - 1) : -1;
}

static int want_host(const tg_event *e) { return tg_tree_is_host_kind(e->kind); }

static int want_device(const tg_event *e)
{
	return tg_kind_is_gpu(e->kind) || e->kind == TG_KIND_SYNC;
}

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

/* A map of the ids selected by pick (0 = skip) of the events, sized by a
 * first pass over their range. */
static tg_idmap *map_ids(const tg_trace *t, int (*pick)(const tg_trace *, const tg_event *, int64_t *))
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

static int pick_launch_corr(const tg_trace *t, const tg_event *e, int64_t *id)
{
	*id = tg_event_corr(t, e);
	return tg_kind_is_launch(e->kind) && (e->flags & TG_EV_HAS_CORR);
}

static int pick_cpu_op_ext(const tg_trace *t, const tg_event *e, int64_t *id)
{
	*id = tg_event_ext(t, e);
	return e->kind == TG_KIND_CPU_OP && (e->flags & TG_EV_HAS_EXT);
}

static int pick_python_id(const tg_trace *t, const tg_event *e, int64_t *id)
{
	*id = tg_event_pyid(t, e);
	return e->kind == TG_KIND_PYTHON && (e->flags & TG_EV_HAS_PYID);
}

static int link_device_events(tg_tree *tree, const tg_trace *t, const tg_tree_buckets *hb)
{
	size_t ne, nf;
	const tg_event *ev = tg_trace_events(t, &ne);
	const tg_flow *fl = tg_trace_flows(t, &nf);
	int rc = TG_ENOMEM;
	tg_idmap *by_corr = map_ids(t, pick_launch_corr), *by_ext = NULL;
	tg_idmap *flow_launch = NULL;
	if (!by_corr)
		goto out;
	size_t need_fallback = 0;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!want_device(e))
			continue;
		uint32_t p = TG_NONE;
		if (e->flags & TG_EV_HAS_CORR)
			p = tg_idmap_get(by_corr, tg_event_corr(t, e));
		if (p != TG_NONE) {
			tree->parent[i] = p;
			if (e->kind == TG_KIND_SYNC)
				tree->stats.syncs_linked++;
			else
				tree->stats.gpu_by_correlation++;
		} else if (e->kind != TG_KIND_SYNC) {
			need_fallback++;
		}
	}
	if (need_fallback) {
		by_ext = map_ids(t, pick_cpu_op_ext);
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
			if (l != TG_NONE && tg_idmap_put(flow_launch, (int64_t)fl[i].id, l) < 0)
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
			if (!tg_kind_is_gpu(e->kind) || tree->parent[i] != TG_NONE)
				continue;
			int64_t key = (int64_t)((uint64_t)e->ts * 1000003ULL ^ e->track);
			uint32_t f = tg_idmap_get(end_at, key);
			uint32_t p = TG_NONE;
			if (f != TG_NONE && fl[f].track == e->track && fl[f].ts == e->ts)
				p = tg_idmap_get(flow_launch, (int64_t)fl[f].id);
			if (p != TG_NONE) {
				tree->parent[i] = p;
				tree->stats.gpu_by_flow++;
				continue;
			}
			if (e->flags & TG_EV_HAS_EXT)
				p = tg_idmap_get(by_ext, tg_event_ext(t, e));
			if (p != TG_NONE) {
				tree->parent[i] = p;
				tree->stats.gpu_by_external_id++;
			}
		}
		tg_idmap_free(end_at);
	}
	rc = 0;
out:
	tg_idmap_free(by_corr);
	tg_idmap_free(by_ext);
	tg_idmap_free(flow_launch);
	return rc;
}

/* Python parent id overrules time nesting between python functions. */
static int reparent_python(tg_tree *tree, const tg_trace *t)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_idmap *by_pyid = map_ids(t, pick_python_id);
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

/* The trace and its events, for cmp_child. */
struct child_ctx {
	const tg_trace *t;
	const tg_event *ev;
};

static int cmp_child(const void *a, const void *b, void *ctx)
{
	const struct child_ctx *cc = ctx;
	const tg_trace *t = cc->t;
	const tg_event *ev = cc->ev;
	const tg_event *x = &ev[*(const uint32_t *)a], *y = &ev[*(const uint32_t *)b];
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	int64_t dx = tg_event_dur(t, x), dy = tg_event_dur(t, y);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

static int build_children(tg_tree *tree, const tg_trace *t, const tg_tree_buckets *hb,
                          const tg_tree_buckets *db)
{
	size_t ne, nt;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_trace_tracks(t, &nt);
	tree->child_off = tg_calloc(ne + 2, sizeof(uint32_t));
	tree->children = tg_malloc((ne + 1) * sizeof(uint32_t));
	tree->roots = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (!tree->child_off || !tree->children || !tree->roots)
		return TG_ENOMEM;
	/* the counts one slot further on, summed: child_off[p + 1] is then where
	 * p's children start, the cursor that fills them, and ends where the
	 * next one's start (no cursor array: 4 bytes an event less at the
	 * build's peak) */
	for (size_t i = 0; i < ne; i++)
		if (tree->parent[i] != TG_NONE)
			tree->child_off[tree->parent[i] + 2]++;
	for (size_t i = 0; i < ne; i++)
		tree->child_off[i + 1] += tree->child_off[i];
	/* fill in sorted track order: host tracks, then device tracks */
	const tg_tree_buckets *bs[2] = {hb, db};
	for (int b = 0; b < 2; b++)
		for (size_t tr = 0; tr < nt; tr++)
			for (uint32_t k = bs[b]->off[tr]; k < bs[b]->off[tr + 1]; k++) {
				uint32_t e = (uint32_t)bs[b]->keys[k].tie;
				uint32_t p = tree->parent[e];
				if (p != TG_NONE)
					tree->children[tree->child_off[p + 1]++] = e;
				else if (b == 0 || tg_kind_is_gpu(ev[e].kind))
					tree->roots[tree->nroots++] = e;
			}
	/* children from several tracks (python reparenting, multi-stream graph
	 * launches) may be out of order */
	struct child_ctx cc = {t, ev};
	for (size_t i = 0; i < ne; i++) {
		uint32_t *c = tree->children + tree->child_off[i];
		size_t n = tree->child_off[i + 1] - tree->child_off[i];
		for (size_t j = 1; j < n; j++)
			if (cmp_child(&c[j - 1], &c[j], &cc) > 0) {
				qsort_r(c, n, sizeof(uint32_t), cmp_child, &cc);
				break;
			}
	}
	return 0;
}

/* A step's number and its index in tree->steps. */
struct step_no {
	int64_t number;
	int32_t index;
};

/* By number, then index (equal numbers keep their order: the last wins). */
static int cmp_step_no(const void *a, const void *b)
{
	const struct step_no *x = a, *y = b;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* Device events by track, then start, then index. */
static int cmp_track_ts(const void *a, const void *b, void *ctx)
{
	const tg_event *ev = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (ev[i].track != ev[j].track)
		return ev[i].track < ev[j].track ? -1 : 1;
	if (ev[i].ts != ev[j].ts)
		return ev[i].ts < ev[j].ts ? -1 : 1;
	return (i > j) - (i < j);
}

static int find_steps(tg_tree *tree, const tg_trace *t)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	size_t cap = 0;
	for (size_t i = 0; i < ne; i++) {
		int64_t n;
		if ((ev[i].kind != TG_KIND_CPU_OP && ev[i].kind != TG_KIND_USER_ANNOTATION) ||
		    parse_step_number(tg_trace_str(t, ev[i].name), &n))
			continue;
		if (tg_grow((void **)&tree->steps, &cap, tree->nsteps + 1, sizeof(tg_step)))
			return TG_ENOMEM;
		tree->steps[tree->nsteps++] = (tg_step){n, (uint32_t)i, ev[i].ts, tg_event_dur(t, &ev[i])};
	}
	if (tree->nsteps > 1)
		qsort(tree->steps, tree->nsteps, sizeof(tg_step), cmp_step);
	/* host events: by time; device events: their launch's step; orphans: by
	 * a gpu_user_annotation ProfilerStep#N on their track, else none */
	tree->step_of = tg_malloc((ne + 1) * sizeof(int32_t));
	if (!tree->step_of)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++)
		tree->step_of[i] = tree->nsteps && tg_tree_is_host_kind(ev[i].kind) ? step_at(tree, ev[i].ts) : -1;
	for (size_t i = 0; i < ne; i++) {
		if (!want_device(&ev[i]))
			continue;
		uint32_t p = tree->parent[i];
		while (p != TG_NONE && !tg_tree_is_host_kind(ev[p].kind))
			p = tree->parent[p];
		if (p != TG_NONE)
			tree->step_of[i] = tree->step_of[p];
	}
	int have_gpu_steps = 0;
	for (size_t i = 0; i < ne && !have_gpu_steps; i++)
		have_gpu_steps = ev[i].kind == TG_KIND_GPU_ANNOTATION;
	if (!have_gpu_steps || !tree->nsteps)
		return 0;
	/* the orphan device events, by track and start, so that each annotation
	 * finds its own by binary search (one scan of the trace per step would
	 * make the build quadratic: 375 steps of a 1 GB trace) */
	size_t no = 0;
	uint32_t *orph = tg_malloc((ne + 1) * sizeof(uint32_t));
	struct step_no *byno = tg_malloc((tree->nsteps + 1) * sizeof(*byno));
	if (!orph || !byno) {
		free(orph);
		free(byno);
		return TG_ENOMEM;
	}
	for (size_t j = 0; j < ne; j++)
		if (tree->step_of[j] < 0 && tg_kind_is_gpu(ev[j].kind) && tree->parent[j] == TG_NONE)
			orph[no++] = (uint32_t)j;
	if (no > 1)
		qsort_r(orph, no, sizeof(uint32_t), cmp_track_ts, (void *)ev);
	for (size_t k = 0; k < tree->nsteps; k++)
		byno[k] = (struct step_no){tree->steps[k].number, (int32_t)k};
	if (tree->nsteps > 1)
		qsort(byno, tree->nsteps, sizeof(*byno), cmp_step_no);
	for (size_t i = 0; i < ne && no; i++) {
		int64_t n;
		if (ev[i].kind != TG_KIND_GPU_ANNOTATION ||
		    parse_step_number(tg_trace_str(t, ev[i].name), &n))
			continue;
		/* the last step with that number, as a linear search from the start would find */
		size_t lo = 0, hi = tree->nsteps;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (byno[mid].number <= n)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || byno[lo - 1].number != n)
			continue;
		int32_t s = byno[lo - 1].index;
		/* the first orphan on the annotation's track starting at or after it */
		lo = 0, hi = no;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			const tg_event *x = &ev[orph[mid]];
			if (x->track < ev[i].track || (x->track == ev[i].track && x->ts < ev[i].ts))
				lo = mid + 1;
			else
				hi = mid;
		}
		int64_t end = tg_event_end(t, &ev[i]);
		for (size_t k = lo; k < no && ev[orph[k]].track == ev[i].track && ev[orph[k]].ts < end; k++)
			if (tree->step_of[orph[k]] < 0)
				tree->step_of[orph[k]] = s;
	}
	free(orph);
	free(byno);
	return 0;
}

/* step_of as 16-bit indexes when every step's fits (-1 for none), the
 * 32-bit array freed; left as it is otherwise. 0 or TG_ENOMEM. */
static int narrow_steps(tg_tree *tree, size_t ne)
{
	if (tree->nsteps >= INT16_MAX)
		return 0;
	tree->step16 = tg_malloc((ne + 1) * sizeof(int16_t));
	if (!tree->step16)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++)
		tree->step16[i] = (int16_t)tree->step_of[i];
	free(tree->step_of);
	tree->step_of = NULL;
	return 0;
}

int tg_tree_build(tg_tree **out, const tg_trace *t)
{
	*out = NULL;
	size_t ne, nt;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_trace_tracks(t, &nt);
	tg_tree_buckets hb = {0}, db = {0};
	uint32_t *stack = NULL;
	int rc = TG_ENOMEM;
	tg_tree *tree = tg_calloc(1, sizeof(*tree));
	if (!tree)
		return TG_ENOMEM;
	tree->trace = t;
	tree->ev = ev;
	tree->parent = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (!tree->parent)
		goto fail;
	for (size_t i = 0; i < ne; i++) {
		tree->parent[i] = TG_NONE;
		if (tg_tree_is_host_kind(ev[i].kind))
			tree->stats.host_events++;
		else if (tg_kind_is_gpu(ev[i].kind))
			tree->stats.gpu_events++;
	}
	if ((rc = tg_tree_buckets_build(&hb, t, want_host)) || (rc = tg_tree_buckets_build(&db, t, want_device)))
		goto fail;
	rc = TG_ENOMEM;
	size_t maxn = 0;
	for (size_t tr = 0; tr < nt; tr++)
		if (hb.off[tr + 1] - hb.off[tr] > maxn)
			maxn = hb.off[tr + 1] - hb.off[tr];
	stack = tg_malloc((maxn + 1) * sizeof(uint32_t));
	if (!stack)
		goto fail;
	for (size_t tr = 0; tr < nt; tr++)
		nest_track(tree, ev, hb.keys + hb.off[tr], hb.off[tr + 1] - hb.off[tr], stack);
	if ((rc = reparent_python(tree, t)) || (rc = link_device_events(tree, t, &hb)) ||
	    (rc = build_children(tree, t, &hb, &db)))
		goto fail;
	/* the buckets are done with: free them before the next passes allocate */
	free(stack);
	free(hb.off);
	free(hb.keys);
	free(db.off);
	free(db.keys);
	stack = NULL;
	memset(&hb, 0, sizeof(hb));
	memset(&db, 0, sizeof(db));
	if ((rc = find_steps(tree, t)) || (rc = narrow_steps(tree, ne)) ||
	    (rc = tg_tree_tracelens_links(&tree->tl_linked, t, tree->parent)))
		goto fail;
	for (size_t i = 0; i < ne; i++) {
		if (tg_kind_is_gpu(ev[i].kind) && tree->parent[i] == TG_NONE)
			tree->stats.gpu_orphans++;
		if (tg_kind_is_launch(ev[i].kind) && tree->child_off[i + 1] - tree->child_off[i] > 1) {
			unsigned ndev = 0;
			for (uint32_t k = tree->child_off[i]; k < tree->child_off[i + 1]; k++)
				ndev += tg_kind_is_gpu(ev[tree->children[k]].kind);
			tree->stats.graph_launches += ndev > 1;
		}
	}
	free(stack);
	free(hb.off);
	free(hb.keys);
	free(db.off);
	free(db.keys);
	*out = tree;
	return 0;
fail:
	free(stack);
	free(hb.off);
	free(hb.keys);
	free(db.off);
	free(db.keys);
	tg_tree_free(tree);
	return rc;
}

void tg_tree_free(tg_tree *tree)
{
	if (!tree)
		return;
	free(tree->parent);
	free(tree->child_off);
	free(tree->children);
	free(tree->roots);
	free(tree->step_of);
	free(tree->step16);
	free(tree->tl_linked);
	free(tree->steps);
	free(tree);
}

const tg_trace *tg_tree_trace(const tg_tree *tree) { return tree->trace; }

uint32_t tg_tree_parent(const tg_tree *tree, uint32_t ev) { return tree->parent[ev]; }

const uint32_t *tg_tree_children(const tg_tree *tree, uint32_t ev, size_t *n)
{
	*n = tree->child_off[ev + 1] - tree->child_off[ev];
	return tree->children + tree->child_off[ev];
}

const uint32_t *tg_tree_roots(const tg_tree *tree, size_t *n)
{
	*n = tree->nroots;
	return tree->roots;
}

int tg_tree_contains(const tg_tree *tree, uint32_t ev)
{
	return tg_tree_is_host_kind(tree->ev[ev].kind) || want_device(&tree->ev[ev]);
}

uint32_t tg_tree_launch(const tg_tree *tree, uint32_t ev)
{
	size_t ne;
	const tg_event *e = tg_trace_events(tree->trace, &ne);
	uint32_t p = tree->parent[ev];
	return p != TG_NONE && tg_kind_is_launch(e[p].kind) ? p : TG_NONE;
}

int32_t tg_tree_step_of(const tg_tree *tree, uint32_t ev)
{
	return tree->step16 ? tree->step16[ev] : tree->step_of[ev];
}

int32_t tg_tree_step_index(const tg_tree *tree, int64_t number)
{
	int32_t idx = -1;
	for (size_t i = 0; i < tree->nsteps; i++)
		if (tree->steps[i].number == number)
			idx = (int32_t)i;
	return idx;
}

int tg_tree_linked_like_tracelens(const tg_tree *tree, uint32_t ev)
{
	return (tree->tl_linked[ev >> 3] >> (ev & 7)) & 1;
}

const tg_step *tg_tree_steps(const tg_tree *tree, size_t *n)
{
	*n = tree->nsteps;
	return tree->steps;
}

const tg_tree_stats *tg_tree_stats_get(const tg_tree *tree) { return &tree->stats; }
