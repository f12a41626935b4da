/*
 * tree.c - builds the event tree (see tree.h for the rules).
 *
 * Layout while built: parent[] per event, children in CSR form (child_off[]
 * indexes children[], allocated to its count), step_of[] per event (16-bit
 * when the steps fit, as they nearly always do, written so from the start).
 * Once built, parent[], child_off[] and the steps are packed (tree_pack.h:
 * about 2, 1 and 1 bytes an event, not 4, 4 and 2: the report reads them
 * through its run). TraceLens's link marks one bit an event; whether an
 * event is in the tree is read from its kind. Host events are bucketed by
 * track with a counting sort, each bucket sorted by (ts asc, dur desc,
 * kind rank, file order) and nested with a stack. Tolerance: a child may
 * end up to TOL_NS after its parent (clock rounding in the profiler); an
 * event that starts less than TOL_NS before its predecessor's end is its
 * sibling, not its child. An event that overlaps its predecessor by more
 * than that and ends after it ("bleeds") is still kept, as its child.
 *
 * From TWO_THREADS_MIN events the build runs on two threads (struct build
 * below): the host events' nesting on the caller's, the device events'
 * buckets and links, TraceLens's links and the steps on whichever thread
 * comes to them first. The buckets and their sort live in tree_buckets.c,
 * the links by launch in tree_launch.c, TraceLens's in tree_links.c, the
 * parked helper in tree_helper.c.
 */
#include "tree.h"
#include "tree_buckets.h"
#include "tree_helper.h"
#include "tree_launch.h"
#include "tree_links.h"
#include "tree_pack.h"
#include "../../util/idmap.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_NS 1000

struct tg_tree {
	const tg_trace *trace;
	const tg_event *ev; /* the trace's events */
	uint32_t *parent;    /* while the tree is built; then parents (kept when not packed) */
	uint32_t *child_off; /* nevents + 1, while the tree is built; then offs (likewise) */
	tg_tree_pack parents; /* the built tree's parent of each event */
	tg_tree_pack offs;    /* the built tree's child_off */
	uint32_t *children;
	uint32_t *roots;
	size_t nroots;
	int32_t *step_of;   /* while built: each event's step when there are INT16_MAX steps or more */
	int16_t *step16;    /* else each event's step in 16 bits; then steps_of (likewise) */
	tg_tree_pack steps_of; /* the built tree's step of each event (tg_tree_step_of), a byte each */
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

static int want_device(const tg_event *e) { return tg_tree_is_device_event(e); }

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
	if (!tree->child_off)
		return TG_ENOMEM;
	/* the counts one slot further on, summed: child_off[p + 1] is then where
	 * p's children start, the cursor that fills them, and ends where the
	 * next one's start (no cursor array: 4 bytes an event less at the
	 * build's peak). The children are counted first and allocated to
	 * their count. The roots keep a slot an event: their untouched slots
	 * are never resident, and sized to their count (a few hundred) they
	 * moved the diff's 1 GB peak up by 11 MB through glibc's heap layout
	 * (the diff never trims its heap: cli/cmd_diff.c). */
	size_t nchildren = 0;
	for (size_t i = 0; i < ne; i++) {
		if (tree->parent[i] != TG_NONE) {
			tree->child_off[tree->parent[i] + 2]++;
			nchildren++;
		}
	}
	for (size_t i = 0; i < ne; i++)
		tree->child_off[i + 1] += tree->child_off[i];
	tree->children = tg_malloc((nchildren + 1) * sizeof(uint32_t));
	tree->roots = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (!tree->children || !tree->roots)
		return TG_ENOMEM;
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

/* Event i's step index as find_steps keeps it: 16-bit while every step's
 * index fits, else 32-bit (-1: none). */
static inline int32_t step_get(const tg_tree *tree, size_t i)
{
	return tree->step16 ? tree->step16[i] : tree->step_of[i];
}

static inline void step_set(tg_tree *tree, size_t i, int32_t s)
{
	if (tree->step16)
		tree->step16[i] = (int16_t)s;
	else
		tree->step_of[i] = s;
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
	 * a gpu_user_annotation ProfilerStep#N on their track, else none. In 16
	 * bits when every step's index fits (nearly always: 2 bytes an event,
	 * not 4, and never both at once) */
	if (tree->nsteps < INT16_MAX)
		tree->step16 = tg_malloc((ne + 1) * sizeof(int16_t));
	else
		tree->step_of = tg_malloc((ne + 1) * sizeof(int32_t));
	if (!tree->step16 && !tree->step_of)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++)
		step_set(tree, i, tree->nsteps && tg_tree_is_host_kind(ev[i].kind) ? step_at(tree, ev[i].ts) : -1);
	for (size_t i = 0; i < ne; i++) {
		if (!want_device(&ev[i]))
			continue;
		uint32_t p = tree->parent[i];
		while (p != TG_NONE && !tg_tree_is_host_kind(ev[p].kind))
			p = tree->parent[p];
		if (p != TG_NONE)
			step_set(tree, i, step_get(tree, p));
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
		if (step_get(tree, j) < 0 && tg_kind_is_gpu(ev[j].kind) && tree->parent[j] == TG_NONE)
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
			if (step_get(tree, orph[k]) < 0)
				step_set(tree, orph[k], s);
	}
	free(orph);
	free(byno);
	return 0;
}

/* Traces from this many events build their tree on two threads: below it
 * a thread's start (50-100 us) costs about what the half of the build it
 * takes over saves (h200-dev's 11 MB runs: 25-32k events, 1.3 ms on one
 * thread, about 40 us a thousand events). */
#define TWO_THREADS_MIN 8192

/* Below this many events the steps are found beside the children (on
 * the helper when it is there by then); from it on after them, once the
 * buckets are freed: the buckets and the steps' array at once would add 2
 * bytes an event to the build's peak (0.4 MB at 100 MB of JSON). */
#define STEPS_BESIDE_MAX 65536

/* The build's parts. The host part buckets and nests the host events and
 * applies the Python parent ids (parents of host events); beside it, the
 * device events' buckets, their links by correlation (parents of device
 * events) and the launch flows' ends (for TraceLens's links). Then the
 * fallback links (the host buckets): the last part that reads the flows,
 * which tg_tree_build_dropping_flows frees there, before the build's peak.
 * Then the children (all parents, both buckets), beside TraceLens's links
 * and the steps (these two read device events' parents only). Each part writes
 * its own fields of the stats. On two threads the caller's thread does the
 * host part, the fallback and the children; every other part (a task) is
 * taken by whichever thread comes to it first, so that a helper that
 * starts late or loses its core on a busy machine holds up at most the
 * one task it is running. */
enum { T_DBUCKETS, T_CORR, T_TLENDS, T_TLLINKS, T_STEPS, NTASKS };

struct build {
	tg_tree *tree;
	const tg_trace *t;
	size_t ne;            /* the trace's events */
	tg_tree_buckets hb, db;
	tg_tree_ends ends;    /* the launch flows' ends (T_TLENDS), for TraceLens's links */
	tg_trace *drop;       /* the trace whose flows go once linked (tg_tree_build_dropping_flows), or NULL */
	size_t need_fallback;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int taken[NTASKS], done[NTASKS], rc[NTASKS];
	char msg[NTASKS][512]; /* the tasks' messages: tg_error_last() is per thread */
	int go;               /* fallback done: 2 = go on, the last tasks on either thread; 1 = go on, the
	                       * last tasks on the caller's thread; -1 = stop */
	int refs;             /* threads holding b: the last one frees it */
};

/* Drops a thread's hold on b; the last one frees it. */
static void release(struct build *b)
{
	pthread_mutex_lock(&b->mu);
	int last = --b->refs == 0;
	pthread_mutex_unlock(&b->mu);
	if (!last)
		return;
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	free(b);
}

static int host_part(struct build *b)
{
	size_t ne, nt;
	const tg_event *ev = tg_trace_events(b->t, &ne);
	tg_trace_tracks(b->t, &nt);
	int rc = tg_tree_buckets_build(&b->hb, b->t, want_host);
	if (rc)
		return rc;
	size_t maxn = 0;
	for (size_t tr = 0; tr < nt; tr++)
		if (b->hb.off[tr + 1] - b->hb.off[tr] > maxn)
			maxn = b->hb.off[tr + 1] - b->hb.off[tr];
	uint32_t *stack = tg_malloc((maxn + 1) * sizeof(uint32_t));
	if (!stack)
		return TG_ENOMEM;
	for (size_t tr = 0; tr < nt; tr++)
		nest_track(b->tree, ev, b->hb.keys + b->hb.off[tr], b->hb.off[tr + 1] - b->hb.off[tr], stack);
	free(stack);
	return reparent_python(b->tree, b->t);
}

static int task(struct build *b, int i)
{
	tg_tree *tree = b->tree;
	switch (i) {
	case T_DBUCKETS: return tg_tree_buckets_build(&b->db, b->t, want_device);
	case T_CORR: return tg_tree_link_by_correlation(tree->parent, &tree->stats, b->t, &b->need_fallback);
	case T_TLENDS: return tg_tree_ends_take(&b->ends, b->t);
	case T_TLLINKS: return tg_tree_tracelens_links(&tree->tl_linked, b->t, tree->parent, &b->ends);
	default: return find_steps(tree, b->t);
	}
}

/* Runs task i unless another thread took it. */
static void take(struct build *b, int i)
{
	pthread_mutex_lock(&b->mu);
	int mine = !b->taken[i];
	b->taken[i] = 1;
	pthread_mutex_unlock(&b->mu);
	if (!mine)
		return;
	int rc = task(b, i);
	if (rc)
		snprintf(b->msg[i], sizeof(b->msg[i]), "%s", tg_error_last());
	pthread_mutex_lock(&b->mu);
	b->rc[i] = rc;
	b->done[i] = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

/* Waits until tasks i and j are done; 0 or the first one's error code. */
static int wait_tasks(struct build *b, int i, int j)
{
	pthread_mutex_lock(&b->mu);
	while (!b->done[i] || !b->done[j])
		pthread_cond_wait(&b->cv, &b->mu);
	int rc = b->rc[i] ? b->rc[i] : b->rc[j];
	pthread_mutex_unlock(&b->mu);
	return rc;
}

/* The second thread: the tasks nobody took yet. */
static void *helper(void *arg)
{
	struct build *b = arg;
	take(b, T_DBUCKETS);
	take(b, T_CORR);
	take(b, T_TLENDS);
	pthread_mutex_lock(&b->mu);
	while (!b->go)
		pthread_cond_wait(&b->cv, &b->mu);
	int go = b->go;
	pthread_mutex_unlock(&b->mu);
	if (go > 1) {
		take(b, T_STEPS);
		take(b, T_TLLINKS);
	}
	release(b);
	return NULL;
}

#define NO_THREAD 1 /* build_two_threads: no thread to be had */

/* Frees the flows of the trace being built (tg_tree_build_dropping_flows)
 * once every part that reads them is done: the links by flow and the
 * launch flows' ends. Before the children are laid out, the build's peak. */
static void drop_flows(struct build *b)
{
	if (b->drop)
		tg_trace_drop_flows(b->drop);
}

/* The first error of the tasks, set on this thread; 0 when none. */
static int task_error(struct build *b)
{
	for (int i = 0; i < NTASKS; i++)
		if (b->done[i] && b->rc[i])
			return tg_error_set(b->rc[i], "%s", b->msg[i]);
	return 0;
}

/* The parts on two threads, this one and a helper (h's, else one started
 * now). 0, an error code (set here), or NO_THREAD when no thread could be
 * had (nothing done). The helper is not joined: when it starts late, the
 * build does not wait for it; it then finds every task taken and only
 * drops its hold on b. */
static int build_two_threads(struct build *b, tg_tree_helper *h)
{
	pthread_t th;
	b->refs = 2;
	if (h) {
		tg_tree_helper_run(h, helper, b);
	} else if (pthread_create(&th, NULL, helper, b)) {
		b->refs = 1;
		return NO_THREAD;
	} else {
		pthread_detach(th); /* never waited for: it may start after the build is done */
	}
	int rc = host_part(b);
	take(b, T_CORR);
	take(b, T_DBUCKETS);
	take(b, T_TLENDS);
	int trc = wait_tasks(b, T_DBUCKETS, T_CORR);
	int erc = wait_tasks(b, T_TLENDS, T_TLENDS); /* before the flows go, error or not */
	trc = trc ? trc : erc;
	if (!rc && !trc && b->need_fallback)
		rc = tg_tree_link_fallback(b->tree->parent, &b->tree->stats, b->t, &b->hb);
	drop_flows(b);
	int ok = !rc && !trc;
	pthread_mutex_lock(&b->mu);
	b->go = !ok ? -1 : b->ne < STEPS_BESIDE_MAX ? 2 : 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	if (ok)
		rc = build_children(b->tree, b->t, &b->hb, &b->db);
	tg_tree_buckets_free(&b->hb); /* before the next passes allocate (the last tasks need none) */
	tg_tree_buckets_free(&b->db);
	if (ok) {
		take(b, T_TLLINKS);
		take(b, T_STEPS);
		wait_tasks(b, T_TLLINKS, T_STEPS);
	}
	return rc ? rc : task_error(b);
}

/* The parts on this thread, the buckets freed before the steps allocate. */
static int build_one_thread(struct build *b)
{
	int rc;
	if ((rc = host_part(b)) || (rc = task(b, T_DBUCKETS)) || (rc = task(b, T_CORR)) ||
	    (rc = task(b, T_TLENDS)) ||
	    (b->need_fallback && (rc = tg_tree_link_fallback(b->tree->parent, &b->tree->stats, b->t, &b->hb))))
		return rc;
	drop_flows(b);
	if ((rc = build_children(b->tree, b->t, &b->hb, &b->db)))
		return rc;
	tg_tree_buckets_free(&b->hb);
	tg_tree_buckets_free(&b->db);
	return (rc = task(b, T_STEPS)) ? rc : task(b, T_TLLINKS);
}

/* The stats read from the finished tree: orphans and graph launches. */
static void count_links(tg_tree *tree, const tg_event *ev, size_t ne)
{
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
}

/* The built tree's parents packed (tree_pack.h: about 2 bytes an event,
 * not 4), its child offsets and steps in about a byte (not 4 and 2): the
 * report reads them through its run, and its peak lies there (1.1 MB of 18
 * at 100 MB of JSON). Not below TG_TREE_PACK_MIN events. */
static int pack_tree(tg_tree *tree, size_t ne)
{
	if (ne < TG_TREE_PACK_MIN)
		return 0;
	if (tg_tree_pack_steps(&tree->steps_of, tree->step16, tree->step_of, ne))
		return TG_ENOMEM;
	free(tree->step16);
	free(tree->step_of);
	tree->step16 = NULL;
	tree->step_of = NULL;
	if (tg_tree_pack_take(&tree->parents, &tree->parent, ne, 2))
		return TG_ENOMEM;
	return tg_tree_pack_take(&tree->offs, &tree->child_off, ne + 1, 1);
}

/* The tree of t; from TWO_THREADS_MIN events on two threads: h's, else
 * one started now when spawn is set, else none. drop: t itself, whose
 * flows are freed once linked (on failure too), or NULL. */
static int build_tree(tg_tree **out, const tg_trace *t, tg_tree_helper *h, int spawn, tg_trace *drop)
{
	*out = NULL;
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_tree *tree = tg_calloc(1, sizeof(*tree));
	struct build *b = tg_calloc(1, sizeof(*b));
	if (tree)
		tree->parent = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (!tree || !b || !tree->parent) {
		tg_tree_helper_free(h);
		tg_tree_free(tree);
		free(b);
		return TG_ENOMEM;
	}
	tree->trace = t;
	tree->ev = ev;
	for (size_t i = 0; i < ne; i++) {
		tree->parent[i] = TG_NONE;
		if (tg_tree_is_host_kind(ev[i].kind))
			tree->stats.host_events++;
		else if (tg_kind_is_gpu(ev[i].kind))
			tree->stats.gpu_events++;
	}
	*b = (struct build){.tree = tree, .t = t, .ne = ne, .drop = drop, .refs = 1};
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	int rc = NO_THREAD;
	if (ne >= TWO_THREADS_MIN && (h || spawn))
		rc = build_two_threads(b, h);
	else
		tg_tree_helper_free(h);
	if (rc == NO_THREAD)
		rc = build_one_thread(b);
	/* the buckets now, not when a late helper lets b go: every part is done */
	tg_tree_buckets_free(&b->hb);
	tg_tree_buckets_free(&b->db);
	tg_tree_ends_free(&b->ends);
	drop_flows(b); /* when a part failed before it */
	release(b);
	if (rc) {
		tg_tree_free(tree);
		return rc;
	}
	count_links(tree, ev, ne);
	if ((rc = pack_tree(tree, ne))) {
		tg_tree_free(tree);
		return rc;
	}
	*out = tree;
	return 0;
}

int tg_tree_build(tg_tree **out, const tg_trace *t) { return build_tree(out, t, NULL, 1, NULL); }

int tg_tree_build_with(tg_tree **out, const tg_trace *t, tg_tree_helper *h) { return build_tree(out, t, h, 0, NULL); }

int tg_tree_build_dropping_flows(tg_tree **out, tg_trace *t, tg_tree_helper *h) { return build_tree(out, t, h, 0, t); }

int tg_tree_build_dropping_flows_spawn(tg_tree **out, tg_trace *t) { return build_tree(out, t, NULL, 1, t); }

void tg_tree_free(tg_tree *tree)
{
	if (!tree)
		return;
	free(tree->parent);
	free(tree->child_off);
	tg_tree_pack_free(&tree->parents);
	tg_tree_pack_free(&tree->offs);
	free(tree->children);
	free(tree->roots);
	free(tree->step_of);
	free(tree->step16);
	tg_tree_pack_free(&tree->steps_of);
	free(tree->tl_linked);
	free(tree->steps);
	free(tree);
}

const tg_trace *tg_tree_trace(const tg_tree *tree) { return tree->trace; }

uint32_t tg_tree_parent(const tg_tree *tree, uint32_t ev) { return tg_tree_pack_at(&tree->parents, tree->parent, ev); }

const uint32_t *tg_tree_children(const tg_tree *tree, uint32_t ev, size_t *n)
{
	uint32_t at, end;
	tg_tree_pack_pair8_at(&at, &end, &tree->offs, tree->child_off, ev);
	*n = end - at;
	return tree->children + at;
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
	uint32_t p = tg_tree_parent(tree, ev);
	return p != TG_NONE && tg_kind_is_launch(e[p].kind) ? p : TG_NONE;
}

int32_t tg_tree_step_of(const tg_tree *tree, uint32_t ev)
{
	if (tree->step16)
		return tree->step16[ev];
	return tree->step_of ? tree->step_of[ev] : (int32_t)tg_tree_pack_get8(&tree->steps_of, ev);
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
