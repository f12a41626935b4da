/*
 * launch_queue.c - the launch queue's length per (device, stream)
 * (launch_stats.h's "queue_length_summary"): +1 at a launch's start, -1 at
 * its device event's start, a stream's points in time order, launches first
 * at equal times.
 *
 * No record per launch with its stream: one pass numbers each launch's
 * stream (stream_ids.h) and counts them, a second places the launch starts
 * and the device starts in two arrays grouped by stream (16 bytes a
 * launch); each stream's two lists are sorted on their own and merged as
 * they are read, which is the order of the points sorted together. At a
 * gigabyte of JSON that is 20 bytes a launch at the peak, where a 56-byte
 * record, its sort's 32 bytes of scratch and the points took 150.
 */
#include "launch_stats_impl.h"
#include "launch_stats.h"
#include "stream_ids.h"
#include "../../util/sort.h"
#include "../trace/kernel_class.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The launches of f grouped by stream: launcher start and device start as
 * sort keys (tg_sort_key_i64), stream r's at off[r]..off[r + 1]. */
struct queues {
	tg_stream_ids s; /* ids in (device, stream) order */
	size_t *off;
	uint64_t *lts, *ts;
	size_t n;
};

static void queues_free(struct queues *q)
{
	tg_stream_ids_free(&q->s);
	free(q->off);
	free(q->lts);
	free(q->ts);
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

/* Pass 2: the launches' two starts placed by stream (sid from pass 1). */
static void place_starts(struct queues *q, const uint32_t *sid, const tg_step_filter *f)
{
	size_t ne, k = 0;
	const tg_event *ev = tg_trace_events(tg_tree_trace(f->tree), &ne);
	size_t *at = q->off; /* moves on to each stream's end, then back */
	for (size_t i = 0; i < ne; i++) {
		uint32_t p = tg_launch_of(f, ev, i);
		if (p == TG_NONE)
			continue;
		int64_t lts, lend, ts, end;
		tg_step_filter_span(f, &ev[p], &lts, &lend);
		tg_step_filter_span(f, &ev[i], &ts, &end);
		size_t w = at[sid[k++]]++;
		q->lts[w] = tg_sort_key_i64(lts);
		q->ts[w] = tg_sort_key_i64(ts);
	}
	for (size_t r = q->s.n; r > 0; r--) /* off[r] is now where stream r - 1 ended */
		at[r] = at[r - 1];
	at[0] = 0;
}

/* v (n keys) sorted, unless it is already: a stream's launches and its
 * device events mostly come in time order (every one of the generated
 * traces'), and the radix sort's scratch, 8 bytes a key of the largest
 * stream, was the launch statistics' peak (0.43 MB of their 1.16 at 100 MB
 * of JSON). 0 or TG_ENOMEM. */
static int sort_unless_sorted(uint64_t *v, size_t n)
{
	size_t i = 1;
	while (i < n && v[i - 1] <= v[i])
		i++;
	return i >= n ? 0 : tg_sort_u64(v, n);
}

/* q for the nlaunch launches of f, each stream's two lists sorted. 0 or
 * TG_ENOMEM. */
static int queues_build(struct queues *q, const tg_step_filter *f, size_t nlaunch)
{
	memset(q, 0, sizeof(*q));
	q->s = (tg_stream_ids)TG_STREAM_IDS_INIT;
	uint32_t *sid = tg_malloc((nlaunch + 1) * sizeof(uint32_t));
	int rc = TG_ENOMEM;
	if (!sid || count_streams(q, sid, f) || !(q->lts = tg_malloc((q->n + 1) * sizeof(uint64_t))) ||
	    !(q->ts = tg_malloc((q->n + 1) * sizeof(uint64_t))))
		goto out;
	place_starts(q, sid, f);
	free(sid); /* before the sorts' scratch */
	sid = NULL;
	rc = 0;
	for (size_t r = 0; r < q->s.n && !rc; r++) {
		size_t a = q->off[r], m = q->off[r + 1] - a;
		rc = sort_unless_sorted(q->lts + a, m);
		if (!rc)
			rc = sort_unless_sorted(q->ts + a, m);
	}
out:
	free(sid);
	if (rc)
		queues_free(q);
	return rc;
}

/* The points of one stream in order: its launch starts (+1) and device
 * starts (-1) merged, launches first at equal times. */
struct walk {
	const uint64_t *lts, *ts;
	size_t m, i, j;
};

/* The next point (time *t, change returned), 0 when there is none. */
static int walk_next(struct walk *w, uint64_t *t)
{
	if (w->i < w->m && (w->j >= w->m || w->lts[w->i] <= w->ts[w->j])) {
		*t = w->lts[w->i++];
		return +1;
	}
	if (w->j < w->m) {
		*t = w->ts[w->j++];
		return -1;
	}
	return 0;
}

/* The row of stream r (m launches, its lists at lts and ts). -1: out of
 * memory. */
static int queue_row(tg_table *t, const tg_stream_key *k, const uint64_t *lts, const uint64_t *ts, size_t m)
{
	int64_t q = 0, qmin = INT64_MAX, qmax = INT64_MIN, sum = 0, blocked = 0;
	double area = 0;
	size_t np = 2 * m;
	struct walk w = {lts, ts, m, 0, 0};
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
	double mean = (double)sum / (double)np, m2 = 0;
	w = (struct walk){lts, ts, m, 0, 0};
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
	tg_table_set_int(t, row, 0, k->device);
	tg_table_set_int(t, row, 1, k->stream);
	tg_table_set_int(t, row, 2, (int64_t)np);
	tg_table_set_num(t, row, 3, mean);
	tg_table_set_num(t, row, 4, np > 1 ? sqrt(m2 / (double)(np - 1)) : NAN);
	tg_table_set_int(t, row, 5, qmin);
	tg_table_set_int(t, row, 6, qmax);
	tg_table_set_num(t, row, 7, span > 0 ? area / (double)span : NAN);
	tg_table_set_num(t, row, 8, (double)blocked / 1000.0);
	return 0;
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
		size_t a = q.off[r];
		if (queue_row(t, &q.s.v[r], q.lts + a, q.ts + a, q.off[r + 1] - a)) {
			tg_table_free(t);
			t = NULL;
			break;
		}
	}
	queues_free(&q);
	return t;
}
