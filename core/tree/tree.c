/*
 * tree.c - builds the event tree (see tree.h for the rules): the order of
 * the build's parts and its two threads, and the built tree packed.
 *
 * Layout while built: parent[] per event, children in CSR form
 * (tree_children.c), step_of[] per event (16-bit when the steps fit, as
 * they nearly always do: tree_steps.c). parent[], child_off[], children[]
 * and the steps are packed (tree_pack.h: about 2, 1, 2 and 1 bytes, not 4,
 * 4, 4 and 2: the report reads them through its run, the children through
 * tree.h's iterator) as soon as each is final: the parents once linked,
 * before the children are laid out; the children and their offsets once
 * laid out, before the steps; the steps last. TraceLens's link
 * marks one bit an event; whether an event is in the tree is read from its
 * kind. Host events are bucketed by track with a counting sort, each
 * bucket sorted (tree_buckets.c) and nested with a stack (tree_nest.c).
 *
 * From TWO_THREADS_MIN events the build runs on two threads (struct build
 * below): the host events' nesting on the caller's, the device events'
 * buckets and links, TraceLens's links and the steps on whichever thread
 * comes to them first: a parked thread (util/park.h), made sure of before
 * the read by tree_helper.c, else created at the build and parked after it
 * for the next. The links by launch live in tree_launch.c, TraceLens's in
 * tree_links.c, the accessors in tree_access.c.
 */
#include "tree_impl.h"
#include "tree_launch.h"
#include "tree_links.h"
#include "../../util/park.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * which tg_tree_build_dropping frees there, or as soon as the links
 * by correlation and the ends are done when no device event needs the
 * fallback (during the host part, the build's peak). Then the roots (both
 * buckets, freed after) and the children (all parents, in file order),
 * beside TraceLens's links and the steps (these two read device events'
 * parents only). Each part writes its own fields of the stats. On two
 * threads the caller's thread does the host part, the fallback and the
 * children; every other part (a task) is
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
	tg_trace *drop;       /* the trace whose flows go once linked (tg_tree_build_dropping), or NULL */
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

/* The host part: the host events bucketed by track, nested, reparented. */
static int host_part(struct build *b)
{
	int rc = tg_tree_buckets_build(&b->hb, b->t, 0);
	return rc ? rc : tg_tree_nest_host(b->tree, b->t, &b->hb);
}

static int task(struct build *b, int i)
{
	tg_tree *tree = b->tree;
	switch (i) {
	case T_DBUCKETS: return tg_tree_buckets_build(&b->db, b->t, 1);
	case T_CORR: return tg_tree_link_by_correlation(tree->parent, &tree->stats, b->t, &b->need_fallback);
	case T_TLENDS: return tg_tree_ends_take(&b->ends, b->t);
	case T_TLLINKS: return tg_tree_tracelens_links(&tree->tl_linked, b->t, &tree->parents, tree->parent, &b->ends);
	default: return tg_tree_find_steps(tree, b->t);
	}
}

/* Frees the flows of the trace being built (tg_tree_build_dropping)
 * as soon as the links by correlation found every device event its launch
 * and the launch flows' ends are taken: no fallback will read them, and
 * the host part, which may still run on the other thread, reads none. The
 * flows (16 bytes each, two a kernel launch: 1.4 MB at 100 MB of JSON) are
 * then not held under the host part's buckets and Python ids, the build's
 * peak. Called on b->mu, by the thread that finished the second of the two
 * tasks: the other waits for both before it reads the trace's flows. */
static void drop_flows_early(struct build *b)
{
	if (b->drop && b->done[T_CORR] && b->done[T_TLENDS] && !b->rc[T_CORR] && !b->rc[T_TLENDS] &&
	    !b->need_fallback)
		tg_trace_drop_flows(b->drop);
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
	if (i == T_CORR || i == T_TLENDS)
		drop_flows_early(b);
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
	take(b, T_CORR); /* the two that read the flows first: they go once both are done */
	take(b, T_TLENDS);
	take(b, T_DBUCKETS);
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

/* Frees the flows of the trace being built (tg_tree_build_dropping)
 * once every part that reads them is done: the links by flow and the
 * launch flows' ends. Before the children are laid out; already done
 * (drop_flows_early) when no device event needed the fallback. */
static void drop_flows(struct build *b)
{
	if (b->drop)
		tg_trace_drop_flows(b->drop);
}

/* children_part packs the parents while the last tasks wait for it */
_Static_assert(STEPS_BESIDE_MAX <= TG_TREE_PACK_MIN, "the steps would read the parents while they are packed");

/* The parents packed (tree_pack.h: about 2 bytes an event, not 4) once
 * every link is made, from TG_TREE_PACK_MIN events: the roots, the
 * children, the steps and TraceLens's links read them packed, and the
 * report through its run. Before the children are laid out: the whole
 * parents there were 0.4 MB of the build's peak at 100 MB of JSON. */
static int pack_parents(tg_tree *tree, size_t ne)
{
	return ne < TG_TREE_PACK_MIN ? 0 : tg_tree_pack_take(&tree->parents, &tree->parent, ne, 2);
}

/* The roots (from the buckets, freed then; before the parents are packed,
 * so that the roots' slots, a slot an event, untouched but for the roots,
 * are fresh memory and not the whole parents' freed and resident pages,
 * as under glibc's own mmap threshold), the parents packed, the children
 * laid out, the stats read from them, and from TG_TREE_PACK_MIN events the
 * children and their offsets packed (tree_pack.h: about 2 bytes a child
 * and 1 an event, not 4 and 4: 0.59 MB, not 1.52, at 100 MB of JSON) at
 * once, before the steps allocate: the report reads them through its run,
 * and the build's peak is at the layout. The steps and TraceLens's links
 * read the parents only. */
static int children_part(struct build *b)
{
	tg_tree *tree = b->tree;
	size_t ne;
	const tg_event *ev = tg_trace_events(b->t, &ne);
	int rc = tg_tree_gather_roots(tree, b->t, &b->hb, &b->db);
	tg_tree_buckets_free(&b->hb); /* before the children allocate (no later part needs them) */
	tg_tree_buckets_free(&b->db);
	if (rc || (rc = pack_parents(tree, ne)) || (rc = tg_tree_layout_children(tree, b->t)))
		return rc;
	tg_tree_count_links(tree, ev, ne);
	if (ne < TG_TREE_PACK_MIN)
		return 0;
	size_t nchildren = tree->child_off[ne];
	if (tg_tree_pack_take(&tree->offs, &tree->child_off, ne + 1, 1))
		return TG_ENOMEM;
	return tg_tree_pack_take(&tree->kids, &tree->children, nchildren, 2);
}

/* The first error of the tasks, set on this thread; 0 when none. */
static int task_error(struct build *b)
{
	for (int i = 0; i < NTASKS; i++)
		if (b->done[i] && b->rc[i])
			return tg_error_set(b->rc[i], "%s", b->msg[i]);
	return 0;
}

/* The parts on two threads, this one and a helper: a parked thread
 * (util/park.h; the one made sure of by tg_tree_helper_start, else one
 * created now, which parks for the next build when done). 0, an error
 * code (set here), or NO_THREAD when no thread could be had (nothing
 * done). The helper is never joined: when it starts late, the build does
 * not wait for it; it then finds every task taken and only drops its hold
 * on b. */
static int build_two_threads(struct build *b)
{
	b->refs = 2;
	if (tg_park_run_detached(helper, b)) {
		b->refs = 1;
		return NO_THREAD;
	}
	int rc = host_part(b);
	take(b, T_CORR);
	take(b, T_TLENDS);
	take(b, T_DBUCKETS);
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
		rc = children_part(b);
	if (ok) {
		take(b, T_TLLINKS);
		take(b, T_STEPS);
		wait_tasks(b, T_TLLINKS, T_STEPS);
	}
	return rc ? rc : task_error(b);
}

/* The parts on this thread, the buckets freed before the children allocate. */
static int build_one_thread(struct build *b)
{
	int rc;
	if ((rc = host_part(b)) || (rc = task(b, T_DBUCKETS)) || (rc = task(b, T_CORR)) ||
	    (rc = task(b, T_TLENDS)) ||
	    (b->need_fallback && (rc = tg_tree_link_fallback(b->tree->parent, &b->tree->stats, b->t, &b->hb))))
		return rc;
	drop_flows(b);
	if ((rc = children_part(b)))
		return rc;
	return (rc = task(b, T_STEPS)) ? rc : task(b, T_TLLINKS);
}

/* The built tree's steps packed in about a byte an event (tree_pack.h,
 * not 2): the report reads them through its run. Not below
 * TG_TREE_PACK_MIN events. */
static int pack_steps(tg_tree *tree, size_t ne)
{
	if (ne < TG_TREE_PACK_MIN)
		return 0;
	if (tg_tree_pack_steps(&tree->steps_of, tree->step16, tree->step_of, ne))
		return TG_ENOMEM;
	free(tree->step16);
	free(tree->step_of);
	tree->step16 = NULL;
	tree->step_of = NULL;
	return 0;
}

/* The tree of t; from TWO_THREADS_MIN events on two threads when two is
 * set (build_two_threads), else on this one. drop: t itself, whose flows
 * are freed once linked (on failure too) and second ids once the tree is
 * built, or NULL. */
static int build_tree(tg_tree **out, const tg_trace *t, int two, tg_trace *drop)
{
	*out = NULL;
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_tree *tree = tg_calloc(1, sizeof(*tree));
	struct build *b = tg_calloc(1, sizeof(*b));
	if (tree)
		tree->parent = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (!tree || !b || !tree->parent) {
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
	if (ne >= TWO_THREADS_MIN && two)
		rc = build_two_threads(b);
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
	if ((rc = pack_steps(tree, ne)) || (rc = tg_tree_find_sync_ops(tree, t))) {
		tg_tree_free(tree);
		return rc;
	}
	if (drop) /* the External ids and Python parent ids: the build was their one reader */
		tg_trace_drop_id1s(drop);
	*out = tree;
	return 0;
}

int tg_tree_build(tg_tree **out, const tg_trace *t) { return build_tree(out, t, 1, NULL); }

/* h says whether a thread was made sure of; given up once the build has
 * handed it its part (the parked thread is the job's until it parks) */
int tg_tree_build_with(tg_tree **out, const tg_trace *t, tg_tree_helper *h)
{
	int rc = build_tree(out, t, h != NULL, NULL);
	tg_tree_helper_free(h);
	return rc;
}

int tg_tree_build_dropping(tg_tree **out, tg_trace *t, tg_tree_helper *h)
{
	int rc = build_tree(out, t, h != NULL, t);
	tg_tree_helper_free(h);
	return rc;
}

int tg_tree_build_dropping_spawn(tg_tree **out, tg_trace *t) { return build_tree(out, t, 1, t); }
