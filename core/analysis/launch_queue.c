/*
 * launch_queue.c - the launch queue's length per (device, stream)
 * (launch_stats.h's "queue_length_summary"): +1 at a launch's start, -1 at
 * its device event's start, a stream's points in time order, launches first
 * at equal times.
 *
 * No record per launch with its stream: one pass numbers each launch's
 * stream (stream_ids.h) and counts them, a second places the launches'
 * device events grouped by stream, in event order (4 bytes a launch); each
 * stream's launch starts and device starts are two lists, merged as they
 * are read, which is the order of the points sorted together. A stream
 * whose two lists come in order (every one of the generated traces') is
 * read from the events as it is walked; another gets its two lists as
 * sort keys, sorted (16 bytes a launch of that stream, and the sort's
 * scratch). At 100 MB of JSON that is 8 bytes a launch at the peak, where
 * the two lists of every stream (and a stream's sort) took 24 (0.9 MB;
 * a 56-byte record, its sort's 32 bytes of scratch and the points took
 * 150 before that).
 */
#include "launch_stats_impl.h"
#include "launch_stats.h"
#include "stream_ids.h"
#include "../../util/sort.h"
#include "../trace/kernel_class.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The launches of f grouped by stream: their device events, stream r's at
 * off[r]..off[r + 1], in event order. */
struct queues {
	const tg_step_filter *f;
	const tg_event *ev;
	tg_stream_ids s; /* ids in (device, stream) order */
	size_t *off;
	uint32_t *dev;
	size_t n;
};

static void queues_free(struct queues *q)
{
	tg_stream_ids_free(&q->s);
	free(q->off);
	free(q->dev);
}

/* The sort key (tg_sort_key_i64) of the start of device event i (dev 1)
 * or of its launch (dev 0), as the step filter spans them. */
static uint64_t start_key(const struct queues *q, uint32_t i, int dev)
{
	int64_t ts, end;
	uint32_t e = dev ? i : tg_tree_launch(q->f->tree, i);
	tg_step_filter_span(q->f, &q->ev[e], &ts, &end);
	return tg_sort_key_i64(ts);
}

static int64_t unkey(uint64_t k) { return (int64_t)(k ^ (UINT64_C(1) << 63)); }

/* Pass 1: each launch's stream id into sid (in event order), q->n, and the
 * launches per stream into q->off, renumbered in (device, stream) order.
 * 0 or TG_ENOMEM. */
static int count_streams(struct queues *q, uint32_t *sid, const tg_step_filter *f)
{
	const tg_trace *t = tg_tree_trace(f->tree);
	size_t ne, cap = 0;
	const tg_event *ev = tg_trace_events(t, &ne);
	size_t *cnt = NULL;
	uint32_t *rank = NULL;
	for (size_t i = 0; i < ne; i++) {
		if (tg_launch_of(f, ev, i) == TG_NONE)
			continue;
		uint32_t id;
		if (tg_stream_ids_get(&id, &q->s, tg_kernel_device(t, &ev[i]), tg_kernel_stream(t, &ev[i])))
			goto nomem;
		if (id >= cap) {
			size_t old = cap;
			if (tg_grow((void **)&cnt, &cap, (size_t)id + 1, sizeof(size_t)))
				goto nomem;
			memset(cnt + old, 0, (cap - old) * sizeof(size_t));
		}
		cnt[id]++;
		sid[q->n++] = id;
	}
	if (tg_stream_ids_sort(&rank, &q->s) || !(q->off = tg_calloc(q->s.n + 2, sizeof(size_t))))
		goto nomem;
	for (size_t id = 0; id < q->s.n; id++)
		q->off[rank[id] + 1] = cnt[id];
	for (size_t r = 0; r < q->s.n; r++)
		q->off[r + 1] += q->off[r];
	for (size_t k = 0; k < q->n; k++)
		sid[k] = rank[sid[k]];
	free(cnt);
	free(rank);
	return 0;
nomem:
	free(cnt);
	free(rank);
	return TG_ENOMEM;
}

/* Pass 2: the launches' device events placed by stream (sid from pass 1). */
static void place_starts(struct queues *q, const uint32_t *sid, const tg_step_filter *f)
{
	size_t ne, k = 0;
	const tg_event *ev = tg_trace_events(tg_tree_trace(f->tree), &ne);
	size_t *at = q->off; /* moves on to each stream's end, then back */
	for (size_t i = 0; i < ne; i++)
		if (tg_launch_of(f, ev, i) != TG_NONE)
			q->dev[at[sid[k++]]++] = (uint32_t)i;
	for (size_t r = q->s.n; r > 0; r--) /* off[r] is now where stream r - 1 ended */
		at[r] = at[r - 1];
	at[0] = 0;
}

/* q for the nlaunch launches of f, grouped by stream. 0 or TG_ENOMEM. */
static int queues_build(struct queues *q, const tg_step_filter *f, size_t nlaunch)
{
	memset(q, 0, sizeof(*q));
	q->f = f;
	q->ev = f->events;
	q->s = (tg_stream_ids)TG_STREAM_IDS_INIT;
	uint32_t *sid = tg_malloc((nlaunch + 1) * sizeof(uint32_t));
	int rc = TG_ENOMEM;
	if (sid && !count_streams(q, sid, f) && (q->dev = tg_malloc((q->n + 1) * sizeof(uint32_t)))) {
		place_starts(q, sid, f);
		rc = 0;
	}
	free(sid);
	if (rc)
		queues_free(q);
	return rc;
}

/* One stream's two lists: its m launches' starts and their device events'
 * (sort keys), read from the events (lts and ts NULL: both lists are in
 * order as the events are) or from lts and ts, sorted. */
struct keys {
	const struct queues *q;
	const uint32_t *dev;
	const uint64_t *lts, *ts;
	size_t m;
};

/* Key i of list dev (0: the launches', 1: the device events'). */
static inline uint64_t key_at(const struct keys *k, int dev, size_t i)
{
	if (k->lts)
		return dev ? k->ts[i] : k->lts[i];
	return start_key(k->q, k->dev[i], dev);
}

/* v (n keys) sorted, unless it is already. 0 or TG_ENOMEM. */
static int sort_unless_sorted(uint64_t *v, size_t n)
{
	size_t i = 1;
	while (i < n && v[i - 1] <= v[i])
		i++;
	return i >= n ? 0 : tg_sort_u64(v, n);
}

/* The points of one stream in order: its launch starts (+1) and device
 * starts (-1) merged, launches first at equal times; each list's next key
 * read once, and checked against the one before (a walk of lists read
 * from the events is right only when they come in order). */
struct walk {
	const struct keys *k;
	size_t i, j;
	uint64_t li, dj; /* the keys at i and j */
	int disorder;    /* a key below the one before it in its list was met */
};

static void walk_start(struct walk *w, const struct keys *k)
{
	*w = (struct walk){k, 0, 0, 0, 0, 0};
	if (k->m) {
		w->li = key_at(k, 0, 0);
		w->dj = key_at(k, 1, 0);
	}
}

/* The next point (time *t, change returned), 0 when there is none. */
static int walk_next(struct walk *w, uint64_t *t)
{
	size_t m = w->k->m;
	if (w->i < m && (w->j >= m || w->li <= w->dj)) {
		*t = w->li;
		if (++w->i < m) {
			w->li = key_at(w->k, 0, w->i);
			w->disorder |= w->li < *t;
		}
		return +1;
	}
	if (w->j < m) {
		*t = w->dj;
		if (++w->j < m) {
			w->dj = key_at(w->k, 1, w->j);
			w->disorder |= w->dj < *t;
		}
		return -1;
	}
	return 0;
}

/* The row of stream key sk (its lists: keys); 1 (no row) when the lists
 * are not in order, found by the first of the two walks. -1: out of
 * memory. */
static int queue_row(tg_table *t, const tg_stream_key *sk, const struct keys *keys)
{
	int64_t q = 0, qmin = INT64_MAX, qmax = INT64_MIN, sum = 0, blocked = 0;
	double area = 0;
	size_t np = 2 * keys->m;
	struct walk w;
	walk_start(&w, keys);
	uint64_t at, next, first;
	int d = walk_next(&w, &at);
	first = at;
	for (size_t j = 0; j < np; j++) {
		q += d;
		sum += q;
		qmin = q < qmin ? q : qmin;
		qmax = q > qmax ? q : qmax;
		if (j + 1 < np) {
			d = walk_next(&w, &next);
			int64_t dt = unkey(next) - unkey(at);
			area += (double)q * (double)dt;
			if (q >= TG_LAUNCH_MAX_QUEUE)
				blocked += dt;
			at = next;
		}
	}
	if (w.disorder)
		return 1;
	double mean = (double)sum / (double)np, m2 = 0;
	walk_start(&w, keys);
	q = 0;
	for (size_t j = 0; j < np; j++) {
		q += walk_next(&w, &next);
		m2 += ((double)q - mean) * ((double)q - mean);
	}
	int64_t span = unkey(at) - unkey(first);
	int64_t r = tg_table_add_row(t);
	if (r < 0)
		return -1;
	size_t row = (size_t)r;
	tg_table_set_int(t, row, 0, sk->device);
	tg_table_set_int(t, row, 1, sk->stream);
	tg_table_set_int(t, row, 2, (int64_t)np);
	tg_table_set_num(t, row, 3, mean);
	tg_table_set_num(t, row, 4, np > 1 ? sqrt(m2 / (double)(np - 1)) : NAN);
	tg_table_set_int(t, row, 5, qmin);
	tg_table_set_int(t, row, 6, qmax);
	tg_table_set_num(t, row, 7, span > 0 ? area / (double)span : NAN);
	tg_table_set_num(t, row, 8, (double)blocked / 1000.0);
	return 0;
}

/* The row of stream r of q: its lists read from the events when they come
 * in order, else made and sorted (and freed after). -1: out of memory. */
static int stream_row(tg_table *t, const struct queues *q, size_t r)
{
	size_t a = q->off[r], m = q->off[r + 1] - a;
	struct keys k = {q, q->dev + a, NULL, NULL, m};
	int rc = queue_row(t, &q->s.v[r], &k);
	if (rc != 1)
		return rc;
	uint64_t *lts = tg_malloc((m + 1) * sizeof(uint64_t)), *ts = tg_malloc((m + 1) * sizeof(uint64_t));
	rc = -1;
	if (lts && ts) {
		for (size_t i = 0; i < m; i++) {
			lts[i] = start_key(q, k.dev[i], 0);
			ts[i] = start_key(q, k.dev[i], 1);
		}
		k.lts = lts;
		k.ts = ts;
		if (!sort_unless_sorted(lts, m) && !sort_unless_sorted(ts, m))
			rc = queue_row(t, &q->s.v[r], &k);
	}
	free(lts);
	free(ts);
	return rc;
}

tg_table *tg_launch_queue_table(const tg_step_filter *f, size_t nlaunch)
{
	static const char *const cols[] = {
		"device", "stream", "queue_length_count", "queue_length_mean", "queue_length_std",
		"queue_length_min", "queue_length_max", "time_weighted_mean", "time_at_max_queue(us)",
		NULL};
	tg_table *t = tg_table_new_cols("queue_length_summary", "Launch queue length per stream", cols);
	struct queues q;
	if (!t || queues_build(&q, f, nlaunch)) {
		tg_table_free(t);
		return NULL;
	}
	for (size_t r = 0; r < q.s.n; r++) {
		if (stream_row(t, &q, r)) {
			tg_table_free(t);
			t = NULL;
			break;
		}
	}
	queues_free(&q);
	return t;
}
