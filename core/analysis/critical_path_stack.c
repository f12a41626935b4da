/*
 * critical_path_stack.c - the call-stack edges of the critical-path graph
 * (critical_path_impl.h), after HTA's _construct_graph_from_call_stacks.
 *
 * Each CPU thread's events (the backward thread folded into the forward
 * one when each is recognised, by "autograd" and "forward" names) nest by
 * time as HTA's call_stack.py nests them (its comparison of simultaneous
 * starts and ends, and an end pops whatever is on top); HTA's depth-first
 * walk of the nesting links each event's start and end to the node before
 * it. The walk is made as the nesting is: it enters an event when the
 * nesting pushes it and leaves it when an end pops it, the same order, so
 * no tree of the thread (parent, children: 17 bytes an event) is kept. Events without
 * nodes (python functions, annotations) still nest, and are the parents
 * that end -> start edges are attributed to. Threads go in (pid, tid)
 * order, as pandas groups them.
 *
 * Linear time: the threads are a counting sort of the events by their
 * track's rank (tracks are few, ranked once), and the nesting needs only
 * the starts in HTA's order (time, the longer first, then the trace's
 * order) and how many ends came before each start (an end comes before a
 * start at the same time when both last): two radix sorts and a merge,
 * the starts' on 64-bit keys packed with their position (order_starts).
 * HTA's comparison is no order at all when an event lasts 0 (a device
 * event with a negative stream can); such a thread is sorted with that
 * comparison, as before, so that the result does not move.
 */
#include "critical_path_impl.h"
#include "../../util/big.h"
#include "../../util/sort.h"

#include <stdlib.h>
#include <string.h>

static int is_lock(const tg_critical_path *cp, uint32_t node)
{
	return (cp_name_flags(cp, cp_node_ev(cp, node)) & CPN_LOCK) != 0;
}

/* Two consecutive nodes share the lock unless they are an end and then a
 * start (two calls one after the other). */
static int shares_lock(const tg_critical_path *cp, uint32_t a, uint32_t b)
{
	return is_lock(cp, a) && is_lock(cp, b) && (cp_node_start(cp, a) || !cp_node_start(cp, b));
}

/* The tid of the only thread whose cpu_op/user_annotation names contain
 * flag's word, or -1 (none, or several threads). */
static int64_t thread_of(const tg_critical_path *cp, uint16_t flag, int *found)
{
	size_t ntr;
	const tg_track *tr = tg_trace_tracks(cp->t, &ntr);
	int64_t tid = 0;
	*found = 0;
	for (size_t i = 0; i < cp->nev; i++) {
		const tg_event *e = cp_event(cp, i);
		if (!(cp->evf[i] & CP_CLIP) || (e->kind != TG_KIND_CPU_OP && e->kind != TG_KIND_USER_ANNOTATION) ||
		    !(cp_name_flags(cp, (uint32_t)i) & flag))
			continue;
		if (*found && tr[e->track].tid != tid) {
			*found = 0;
			return -1;
		}
		tid = tr[e->track].tid;
		*found = 1;
	}
	return *found ? tid : -1;
}

/* One end of an event in a stack (HTA's call_stack.Event), for a thread
 * sorted by HTA's comparison. */
struct sev {
	uint32_t ev;    /* event */
	uint32_t local; /* position in the thread's list */
	int64_t time, dur;
	int type; /* 1 start, -1 end */
};

/* HTA's compare_events: time, then for simultaneous ones the longer start
 * first and the shorter end first, starts after ends unless an event has
 * no duration. */
static int cmp_sev(const void *pa, const void *pb)
{
	const struct sev *x = pa, *y = pb;
	if (x->ev == y->ev)
		return x->type == 1 ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->type == y->type) {
		if (x->dur == y->dur)
			return x->type == 1 ? (x->ev < y->ev ? -1 : 1) : (x->ev < y->ev ? 1 : -1);
		if (x->type == 1)
			return x->dur < y->dur ? 1 : -1;
		return x->dur < y->dur ? -1 : 1;
	}
	if (x->dur > 0 && y->dur > 0)
		return x->type == 1 ? 1 : -1;
	if (x->dur == 0 && y->dur == 0)
		return x->ev < y->ev ? -1 : 1;
	return x->type == 1 ? -1 : 1;
}

/* The walk's state (HTA's enter_func/exit_func closure). */
struct walk {
	uint32_t last; /* node */
	int depth;
	uint32_t parent; /* event the next end -> start edge is attributed to */
};

/* Scratch for one thread (grown for the largest): the open events' stack
 * and the sorted starts and ends. The nesting is walked as it is made:
 * HTA's depth-first walk of the nested events enters each one when it
 * starts (a child of whatever is open) and leaves it when an end pops it,
 * which is the order the nesting pushes and pops them in. */
struct stack_ws {
	uint32_t *stk; /* the open events, grown as deep as the nesting goes (tens, not the thread) */
	size_t stk_cap;
	void *buf; /* grown for each thread as it needs (ws_need), none when its starts
	            * are in order (starts_in_order, walk_in_order); else 8 bytes an
	            * event, the starts' packed keys, then their order and their ends
	            * (order_starts, walk_merged); 12 for a thread whose starts are sorted
	            * twice (their first order behind the keys) or whose ends are 64-bit
	            * (nest_radix) */
	size_t cap; /* bytes */
	size_t depth;
	struct walk w;
	int64_t *ends; /* walk_in_order's heap of the open events' ends (as many as overlap) */
	size_t nends, ends_cap;
};

static int visit(tg_critical_path *cp, struct walk *w, uint32_t ev, uint32_t parent_ev, int enter)
{
	if (!(cp->evf[ev] & CP_NODE))
		return 0;
	uint32_t node = enter ? cp->snode[ev] : cp_enode(cp, ev);
	int rc = 0;
	if (w->last != TG_NONE && !shares_lock(cp, w->last, node)) {
		int type = enter && w->depth == 0 ? TG_CP_EDGE_DEPENDENCY : TG_CP_EDGE_OPERATOR;
		int zero = !enter && (cp_name_flags(cp, ev) & CPN_BLOCK);
		rc = cp->chain ? cp_add_chain(cp, w->last, node, type, zero, w->parent)
		               : cp_add_edge(cp, w->last, node, type, zero, w->parent);
	}
	w->last = node;
	w->parent = parent_ev;
	w->depth += enter ? 1 : -1;
	return rc;
}

/* A start in sorted order: thread event c, a child of whatever is open,
 * entered and pushed. */
static int open_event(tg_critical_path *cp, const uint32_t *evs, struct stack_ws *ws, uint32_t c)
{
	uint32_t pev = ws->depth ? evs[ws->stk[ws->depth - 1]] : TG_NONE;
	if (tg_grow((void **)&ws->stk, &ws->stk_cap, ws->depth + 1, sizeof(uint32_t)))
		return TG_ENOMEM;
	ws->stk[ws->depth++] = c;
	return visit(cp, &ws->w, evs[c], pev, 1);
}

/* An end: whatever is on top is left and popped (none: nothing). */
static int close_top(tg_critical_path *cp, const uint32_t *evs, struct stack_ws *ws)
{
	if (!ws->depth)
		return 0;
	uint32_t c = ws->stk[--ws->depth], pev = ws->depth ? evs[ws->stk[ws->depth - 1]] : TG_NONE;
	return visit(cp, &ws->w, evs[c], pev, 0);
}

/* The thread's duration of event evs[i] as HTA nests it (0 when negative). */
static int64_t dur_of(const tg_critical_path *cp, uint32_t ev)
{
	int64_t d = cp_end(cp, ev) - cp_ts(cp, ev);
	return d > 0 ? d : 0;
}

/* Nests with HTA's comparison (a thread with an event of no duration). */
static int nest_compare(tg_critical_path *cp, const uint32_t *evs, size_t n, struct stack_ws *ws)
{
	struct sev *sev = tg_big_alloc((2 * n + 1) * sizeof(*sev));
	if (!sev)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int64_t d = dur_of(cp, evs[i]);
		sev[2 * i] = (struct sev){evs[i], (uint32_t)i, cp_ts(cp, evs[i]), d, 1};
		sev[2 * i + 1] = (struct sev){evs[i], (uint32_t)i, cp_ts(cp, evs[i]) + d, d, -1};
	}
	qsort(sev, 2 * n, sizeof(struct sev), cmp_sev);
	int rc = 0;
	for (size_t k = 0; k < 2 * n && !rc; k++)
		rc = sev[k].type == -1 ? close_top(cp, evs, ws) : open_event(cp, evs, ws, sev[k].local);
	tg_big_free(sev);
	return rc;
}

static int bits_for(uint64_t range)
{
	return range ? 64 - __builtin_clzll(range) : 0;
}

#define NOT_LASTING 1 /* nest_radix: an event of the thread lasts 0 (not an error code: those are < 0) */

/* x << s, 0 when s is 64. */
static uint64_t shl(uint64_t x, int s)
{
	return s >= 64 ? 0 : x << s;
}

/* The starts' order (time, the longer first, position) into order[0..n)
 * with wide pairs: 16 bytes an event and their sort's as much, allocated
 * here for a thread whose keys do not pack into 64 bits with positions. */
static int order_pairs(tg_critical_path *cp, const uint32_t *evs, size_t n, uint32_t *order, int64_t tmin,
                       uint64_t dmax, int one, int db)
{
	tg_sort_pair *starts = tg_big_alloc((n + 1) * sizeof(*starts));
	if (!starts)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = (uint64_t)cp_ts(cp, evs[i]) - (uint64_t)tmin, longer = dmax - (uint64_t)dur_of(cp, evs[i]);
		starts[i] = (tg_sort_pair){one ? shl(t, db) | longer : longer, (uint32_t)i};
	}
	int rc = tg_sort_pairs(starts, n);
	if (!rc && !one) {
		for (size_t i = 0; i < n; i++)
			starts[i].key = (uint64_t)cp_ts(cp, evs[starts[i].idx]) - (uint64_t)tmin;
		rc = tg_sort_pairs(starts, n);
	}
	for (size_t k = 0; k < n && !rc; k++)
		order[k] = starts[k].idx;
	tg_big_free(starts);
	return rc;
}

/* ws->buf at least bytes long, what it holds kept. Returns 0 or TG_ENOMEM. */
static int ws_need(struct stack_ws *ws, size_t bytes)
{
	if (bytes <= ws->cap)
		return 0;
	void *b = tg_big_realloc(ws->buf, bytes);
	if (!b)
		return tg_error_set(TG_ENOMEM, "out of memory");
	ws->buf = b;
	ws->cap = bytes;
	return 0;
}

/* The starts' order (time, the longer first, position) into the front of
 * ws->buf (4 bytes an event) from keys packed with the position in 64 bits
 * (8 bytes an event and the sort's as much, instead of 16 and 16): one
 * sort of (time, longer, position) when it fits, else two, longer then
 * time (stable: the position of the first order breaks the ties), else
 * order_pairs. Times and durations in the unit HTA's rounding leaves
 * (whole microseconds), which every one of them is a multiple of. */
static int order_starts(tg_critical_path *cp, const uint32_t *evs, size_t n, struct stack_ws *ws, int64_t tmin,
                        uint64_t tspan, uint64_t dmax)
{
	uint64_t unit = cp->opts.exact_ns ? 1 : 1000, *keys = ws->buf, mask;
	int tb = bits_for(tspan / unit), db = bits_for(dmax / unit), ib = bits_for(n ? n - 1 : 0), rc;
	uint32_t *order = ws->buf, *first = (uint32_t *)(keys + n);
	mask = shl(1, ib) - 1;
	if (tb + ib > 64 || db + ib > 64)
		return order_pairs(cp, evs, n, order, tmin, dmax, bits_for(tspan) + bits_for(dmax) <= 64,
		                   bits_for(dmax));
	int one = tb + db + ib <= 64;
	if (!one && (rc = ws_need(ws, (n + 2) * 12))) /* the first order behind the keys */
		return rc;
	keys = ws->buf;
	order = ws->buf;
	first = (uint32_t *)(keys + n);
	for (size_t i = 0; i < n; i++) {
		uint64_t t = ((uint64_t)cp_ts(cp, evs[i]) - (uint64_t)tmin) / unit;
		uint64_t longer = (dmax - (uint64_t)dur_of(cp, evs[i])) / unit;
		keys[i] = shl(one ? shl(t, db) | longer : longer, ib) | i;
	}
	if ((rc = cp_sort_keys(keys, n)))
		return rc;
	if (one) { /* entry k's 4 bytes overwrite keys already read */
		for (size_t k = 0; k < n; k++)
			order[k] = (uint32_t)(keys[k] & mask);
		return 0;
	}
	for (size_t k = 0; k < n; k++) /* the order by longer, behind the keys */
		first[k] = (uint32_t)(keys[k] & mask);
	for (size_t k = 0; k < n; k++)
		keys[k] = shl(((uint64_t)cp_ts(cp, evs[first[k]]) - (uint64_t)tmin) / unit, ib) | k;
	if ((rc = cp_sort_keys(keys, n)))
		return rc;
	for (size_t m = 0; m < n; m++)
		order[m] = first[keys[m] & mask];
	return 0;
}

/* The sorted starts (order, at the front of ws->buf) walked with the ends
 * merged in: the ends' times in 32 bits of unit from tmin (they fit: the
 * caller checked the span), sorted in place behind the order: 8 bytes an
 * event in all, where 64-bit ends took 8 and their sort 8 more. An end at
 * a start's time comes first. */
static int walk_merged(tg_critical_path *cp, const uint32_t *evs, size_t n, struct stack_ws *ws, int64_t tmin,
                       uint64_t unit)
{
	uint32_t *order = ws->buf, *ends = order + n; /* buf holds 2 * (n + 2) */
	for (size_t i = 0; i < n; i++)
		ends[i] = (uint32_t)(((uint64_t)cp_end(cp, evs[i]) - (uint64_t)tmin) / unit);
	cp_sort_u32(ends, n, 24);
	int rc = 0;
	size_t j = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		uint32_t c = order[k];
		uint32_t t = (uint32_t)(((uint64_t)cp_ts(cp, evs[c]) - (uint64_t)tmin) / unit);
		for (; j < n && ends[j] <= t && !rc; j++)
			rc = close_top(cp, evs, ws);
		if (!rc)
			rc = open_event(cp, evs, ws, c);
	}
	return rc;
}

/* 1 when the thread's events evs[0..n) are in the order its starts nest
 * in (time, the longer first, position), as a thread's events most often
 * are: then the starts need no sort, and no keys (8 bytes an event) nor
 * order (4) are made. */
int cp_starts_unsorted = 1;

static int starts_in_order(const tg_critical_path *cp, const uint32_t *evs, size_t n)
{
	if (!cp_starts_unsorted)
		return 0;
	for (size_t i = 1; i < n; i++) {
		int64_t a = cp_ts(cp, evs[i - 1]), b = cp_ts(cp, evs[i]);
		if (a > b || (a == b && dur_of(cp, evs[i - 1]) < dur_of(cp, evs[i])))
			return 0;
	}
	return 1;
}

/* The ends of the events opened and not yet counted, a min-heap of their
 * times (ws->ends): pushed as each event opens. */
static int ends_push(struct stack_ws *ws, int64_t t)
{
	if (tg_grow((void **)&ws->ends, &ws->ends_cap, ws->nends + 1, sizeof(int64_t)))
		return TG_ENOMEM;
	size_t i = ws->nends++;
	for (; i && ws->ends[(i - 1) / 2] > t; i = (i - 1) / 2)
		ws->ends[i] = ws->ends[(i - 1) / 2];
	ws->ends[i] = t;
	return 0;
}

/* The least end out of the heap (not empty). */
static void ends_pop(struct stack_ws *ws)
{
	int64_t x = ws->ends[--ws->nends];
	size_t i = 0, n = ws->nends;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ws->ends[c + 1] < ws->ends[c])
			c++;
		if (ws->ends[c] >= x)
			break;
		ws->ends[i] = ws->ends[c];
		i = c;
	}
	if (n)
		ws->ends[i] = x;
}

/* Nests a thread whose events are in the order their starts nest in
 * (starts_in_order) and all last: before each start, as many tops are
 * closed as ends came at or before its time. Those ends are all of events
 * opened before it (an event ends after it starts, and starts before a
 * start it precedes), so a heap of the opened events' ends, popped as the
 * starts pass them, counts them: as many entries as events overlap, where
 * the sorted ends took 4 bytes an event of the thread. */
static int walk_in_order(tg_critical_path *cp, const uint32_t *evs, size_t n, struct stack_ws *ws)
{
	int rc = 0;
	ws->nends = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		int64_t t = cp_ts(cp, evs[k]);
		for (; ws->nends && ws->ends[0] <= t && !rc; ends_pop(ws))
			rc = close_top(cp, evs, ws);
		if (!rc)
			rc = open_event(cp, evs, ws, (uint32_t)k);
		if (!rc)
			rc = ends_push(ws, cp_end(cp, evs[k]));
	}
	return rc;
}

/* Nests a thread whose events all last (else returns NOT_LASTING, having
 * done nothing): the starts sorted by (time, the longer first, position),
 * the ends by time; an end at a start's time comes first. The ends are
 * sorted as 32-bit times (walk_merged) when the thread's span fits 32 bits
 * of its unit, else as 64-bit ones. */
static int nest_radix(tg_critical_path *cp, const uint32_t *evs, size_t n, struct stack_ws *ws)
{
	int64_t tmin = INT64_MAX;
	uint64_t tspan = 0, dmax = 0;
	for (size_t i = 0; i < n; i++)
		tmin = cp_ts(cp, evs[i]) < tmin ? cp_ts(cp, evs[i]) : tmin;
	for (size_t i = 0; i < n; i++) {
		int64_t ts = cp_ts(cp, evs[i]), te = cp_end(cp, evs[i]);
		if (te <= ts) /* an event of no duration (dur_of 0): HTA's comparison, no order */
			return NOT_LASTING;
		uint64_t e = (uint64_t)te - (uint64_t)tmin, d = (uint64_t)(te - ts);
		tspan = e > tspan ? e : tspan;
		dmax = d > dmax ? d : dmax;
	}
	uint64_t unit = cp->opts.exact_ns ? 1 : 1000;
	int rc;
	if (starts_in_order(cp, evs, n)) /* no keys, no order, no array of the ends */
		return walk_in_order(cp, evs, n, ws);
	if ((rc = ws_need(ws, (n + 2) * 8)) || (rc = order_starts(cp, evs, n, ws, tmin, tspan, dmax)))
		return rc;
	if (tspan / unit <= UINT32_MAX)
		return walk_merged(cp, evs, n, ws, tmin, unit);
	/* the sorted starts' positions at the front of the buffer, the ends
	 * after them */
	if ((rc = ws_need(ws, (n + 2) * 12)))
		return rc;
	uint32_t *order = ws->buf;
	uint64_t *ends = (uint64_t *)((char *)ws->buf + ((n + 1) & ~(size_t)1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		ends[i] = (uint64_t)cp_end(cp, evs[i]) - (uint64_t)tmin;
	if ((rc = cp_sort_keys(ends, n)))
		return rc;
	size_t j = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		uint32_t c = order[k];
		uint64_t t = (uint64_t)cp_ts(cp, evs[c]) - (uint64_t)tmin;
		for (; j < n && ends[j] <= t && !rc; j++)
			rc = close_top(cp, evs, ws);
		if (!rc)
			rc = open_event(cp, evs, ws, c);
	}
	return rc;
}

/* Nests the thread's events evs[0..n) and walks them depth first. */
static int walk_thread(tg_critical_path *cp, const uint32_t *evs, size_t n, struct stack_ws *ws)
{
	ws->depth = 0;
	ws->w = (struct walk){TG_NONE, 0, TG_NONE};
	int rc = nest_radix(cp, evs, n, ws);
	if (rc == NOT_LASTING)
		rc = nest_compare(cp, evs, n, ws);
	while (!rc && ws->depth) /* the events still open end with the thread */
		rc = close_top(cp, evs, ws);
	return rc;
}

/* Tracks ranked by (pid, pid_str, tid, tid_str), the backward thread's
 * tid replaced: equal tuples share a rank. */
struct track_key {
	int64_t k[4];
	uint32_t track;
};

static int cmp_track_key(const void *pa, const void *pb)
{
	const struct track_key *a = pa, *b = pb;
	for (int i = 0; i < 4; i++)
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i] ? -1 : 1;
	return (a->track > b->track) - (a->track < b->track);
}

static int rank_tracks(tg_critical_path *cp, uint32_t *rank, size_t ntr)
{
	const tg_track *tr = tg_trace_tracks(cp->t, &ntr);
	int ff, fb;
	int64_t fwd = thread_of(cp, CPN_FORWARD, &ff), bwd = thread_of(cp, CPN_AUTOGRAD, &fb);
	int remap = ff && fb && fwd && bwd && fwd != bwd;
	struct track_key *tk = tg_malloc((ntr + 1) * sizeof(*tk));
	if (!tk)
		return TG_ENOMEM;
	for (size_t i = 0; i < ntr; i++) {
		const tg_track *t = &tr[i];
		int64_t tid = remap && t->tid_str == TG_NONE && t->tid == bwd ? fwd : t->tid;
		tk[i] = (struct track_key){{t->pid, (int64_t)t->pid_str, tid, (int64_t)t->tid_str}, (uint32_t)i};
	}
	qsort(tk, ntr, sizeof(*tk), cmp_track_key);
	uint32_t r = 0;
	for (size_t i = 0; i < ntr; i++) {
		if (i && memcmp(tk[i].k, tk[i - 1].k, sizeof(tk[i].k)))
			r++;
		rank[tk[i].track] = r;
	}
	free(tk);
	return 0;
}

/* The window's events of the CPU threads (for HTA a call stack: every
 * stream below 0) into *evs (allocated here, the caller's), grouped by
 * thread: a stable counting sort by the rank of their track (ntr tracks);
 * cnt (ntr + 2, zeroed) ends with cnt[r] the end of thread r's events,
 * the start of r + 1's (none for a thread of the device: its events are
 * never walked, and were a quarter of the list at 1 GB of JSON). */
static int thread_order(tg_critical_path *cp, uint32_t **evs, uint32_t *cnt, size_t ntr)
{
	uint32_t *rank = tg_malloc((ntr + 1) * sizeof(uint32_t));
	uint8_t *device = tg_calloc(ntr + 1, 1); /* by rank: a thread with a stream of 0 or more */
	int rc = rank && device ? rank_tracks(cp, rank, ntr) : TG_ENOMEM;
	if (!rc) {
		for (size_t i = 0; i < cp->nev; i++)
			if ((cp->evf[i] & CP_CLIP) && cp_stream(cp, i) >= 0)
				device[rank[cp_event(cp, i)->track]] = 1;
		for (size_t i = 0; i < cp->nev; i++)
			if ((cp->evf[i] & CP_CLIP) && !device[rank[cp_event(cp, i)->track]])
				cnt[rank[cp_event(cp, i)->track] + 1]++;
		for (size_t r = 0; r < ntr; r++)
			cnt[r + 1] += cnt[r];
		if (!(*evs = tg_big_alloc((cnt[ntr] + 1) * sizeof(uint32_t))))
			rc = TG_ENOMEM;
		for (size_t i = 0; i < cp->nev && !rc; i++)
			if ((cp->evf[i] & CP_CLIP) && !device[rank[cp_event(cp, i)->track]]) {
				uint32_t r = rank[cp_event(cp, i)->track];
				(*evs)[cnt[r]++] = (uint32_t)i;
			}
	}
	free(rank);
	free(device);
	return rc;
}

static void free_ws(struct stack_ws *ws)
{
	free(ws->stk);
	free(ws->ends);
	tg_big_free(ws->buf);
}

/* The chains' arrays for a summary's lean build with narrow times (its
 * longest path sums the breakdown from them: sum_path), else none. */
static int alloc_chains(tg_critical_path *cp)
{
	if (!cp->lean || !cp->t_narrow)
		return 0;
	cp->chain = tg_big_alloc((cp->nnodes + 1) * sizeof(int16_t));
	cp->chainf = tg_big_alloc(cp->nnodes / 2 + 1);
	if (!cp->chain || !cp->chainf)
		return TG_ENOMEM;
	memset(cp->chain, 0, (cp->nnodes + 1) * sizeof(int16_t));
	memset(cp->chainf, 0, cp->nnodes / 2 + 1);
	return 0;
}

int cp_add_stack_edges(tg_critical_path *cp)
{
	int rc0 = alloc_chains(cp);
	if (rc0)
		return rc0;
	size_t ntr;
	tg_trace_tracks(cp->t, &ntr);
	uint32_t *evs = NULL, *end = tg_calloc(ntr + 2, sizeof(uint32_t));
	struct stack_ws ws = {0};
	int rc = end ? thread_order(cp, &evs, end, ntr) : TG_ENOMEM;
	for (size_t r = 0, lo = 0; r < ntr && !rc; lo = end[r++])
		if (end[r] > lo) /* a CPU thread (thread_order lists no other) */
			rc = walk_thread(cp, evs + lo, end[r] - lo, &ws);
	tg_big_free(evs);
	free(end);
	free_ws(&ws);
	return rc;
}
