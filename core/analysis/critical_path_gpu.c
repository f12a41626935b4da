/*
 * critical_path_gpu.c - the device side of the critical-path graph
 * (critical_path_impl.h), after HTA's _construct_graph_from_kernels and
 * the tables it reads: the launch queue length of each stream
 * (TraceCounters), the launch before each cudaEventRecord on its stream
 * (_get_cuda_event_record_df) and the launch after each
 * cudaStreamWaitEvent from the same thread onto the waiting stream
 * (_get_cuda_stream_wait_event_df).
 *
 * The device events of the window go in start order (a sync event by its
 * end, so that a sync overlapping a copy comes after it). A kernel gets its
 * span edge; an edge from the kernel it waits for through a stream-wait
 * event; a launch-delay edge from its runtime call when it was the only
 * work queued when launched and started on an idle stream (queue lengths 1
 * and 0, the stream's previous kernel and the awaited kernel done before
 * the launch); else a kernel-gap edge from the stream's previous kernel
 * when the gap is under 1.5 ms. Stream Sync, Context Sync and Event Sync
 * add an edge from the kernel waited for to the end of the host call that
 * waited. Streams are told apart by number alone, as HTA does.
 *
 * The orders HTA gets from pandas' sorts (quicksort, not stable) are taken
 * stable here: among simultaneous events the trace's order decides.
 */
#include "critical_path_impl.h"
#include "../../util/idmap.h"
#include "../../util/big.h"
#include "../../util/sort.h"

#include <stdlib.h>
#include <string.h>

#define KERNEL_GAP_MAX_NS INT64_C(1500000) /* KERNEL_KERNEL_DELAY_THRESHOLD_US */
#define NO_QUEUE INT8_MIN /* no queue length; the lengths kept saturate at the byte's others */

/* Scratch shared by the steps below. */
struct gpu_ws {
	int8_t *q;          /* queue length at each event (NO_QUEUE: none), a byte: only whether it
	                     * is 0 or 1 is read, so lengths saturate at -127 and 127 */
	uint32_t *order;    /* event lists, sorted (sized for the list at hand) */
	tg_idmap *prev;     /* cudaEventRecord correlation -> the launch before it */
	tg_idmap *next;     /* cudaStreamWaitEvent event -> the launch after it */
	uint32_t *launches; /* launch events by launch number (in time order) */
	size_t nlaunches;
};

/* ws->order sized for n entries (the lists are made one after the other,
 * each as long as its entries, not the trace's events). */
static int order_for(struct gpu_ws *ws, size_t n)
{
	tg_big_free(ws->order);
	ws->order = tg_big_alloc((n + 1) * sizeof(uint32_t));
	return ws->order ? 0 : TG_ENOMEM;
}

static int is_launch(const tg_critical_path *cp, uint32_t i)
{
	return (cp->evf[i] & CP_KEPT) && (cp_name_flags(cp, i) & CPN_LAUNCH) && cp->ic[i] != TG_NONE;
}

static int gpu_row(const tg_critical_path *cp, uint32_t i)
{
	return (cp->evf[i] & CP_KEPT) && cp_on_stream_col(cp, i);
}

/* Device events (kept, on a stream) by correlation id: sorted pairs. */
static tg_sort_pair *by_corr(const tg_critical_path *cp, size_t *n)
{
	size_t k = 0;
	for (uint32_t i = 0; i < cp->nev; i++)
		k += gpu_row(cp, i) && cp_corr(cp, i) >= 0;
	tg_sort_pair *kv = tg_big_alloc((k + 1) * sizeof(*kv));
	if (!kv)
		return NULL;
	k = 0;
	for (uint32_t i = 0; i < cp->nev; i++)
		if (gpu_row(cp, i) && cp_corr(cp, i) >= 0)
			kv[k++] = (tg_sort_pair){tg_sort_key_i64(cp_corr(cp, i)), i};
	if (cp_sort_pairs_inc(kv, k)) {
		tg_big_free(kv);
		return NULL;
	}
	*n = k;
	return kv;
}

/* The first position of each correlation id in kv[0..n) (sorted by it). */
static tg_idmap *first_of(const tg_critical_path *cp, const tg_sort_pair *kv, size_t n)
{
	tg_idmap *m = n ? tg_idmap_new_range(n, cp_corr(cp, kv[0].idx), cp_corr(cp, kv[n - 1].idx)) : tg_idmap_new(0);
	for (size_t k = 0; m && k < n; k++)
		if (tg_idmap_put(m, cp_corr(cp, kv[k].idx), (uint32_t)k) < 0) {
			tg_idmap_free(m);
			return NULL;
		}
	return m;
}

/* The device events of launch i's correlation id: kv[*lo .. return). */
static size_t group_of(const tg_critical_path *cp, const tg_idmap *first, const tg_sort_pair *kv, size_t n,
                       uint32_t i, size_t *lo)
{
	uint32_t k = tg_idmap_get(first, cp_corr(cp, i));
	*lo = k == TG_NONE ? n : k;
	size_t hi = *lo;
	while (hi < n && kv[hi].key == kv[*lo].key)
		hi++;
	return hi;
}

/* The rows' order by time (rts[r], each a multiple of unit), ties in row
 * order, into *ord: the times packed with the row in 64-bit keys sorted
 * in place in rts (8 bytes a row and the sort's as much, instead of a
 * pair sort's 16 and 16 beside the times): *ord takes *rts's memory;
 * when a time and a row do not fit 64 bits, cp_sort_pos into an array of
 * its own. Either way *rts is the caller's no more (NULL) and *ord is, also
 * on failure. Returns 0 or TG_ENOMEM. */
static int row_order(uint32_t **ord, int64_t **rtsp, size_t n, int64_t unit)
{
	int64_t *rts = *rtsp;
	*rtsp = NULL;
	int64_t tmin = INT64_MAX, tmax = INT64_MIN;
	for (size_t r = 0; r < n; r++) {
		tmin = rts[r] < tmin ? rts[r] : tmin;
		tmax = rts[r] > tmax ? rts[r] : tmax;
	}
	uint64_t span = n ? ((uint64_t)tmax - (uint64_t)tmin) / (uint64_t)unit : 0, *key = (uint64_t *)rts;
	int tb = span ? 64 - __builtin_clzll(span) : 0, ib = n > 1 ? 64 - __builtin_clzll(n - 1) : 0;
	*ord = (uint32_t *)rts;
	if (tb + ib > 64) {
		if (!(*ord = tg_big_alloc((n + 1) * sizeof(uint32_t)))) {
			tg_big_free(rts);
			return TG_ENOMEM;
		}
		int rc = cp_sort_pos(*ord, n, (const int64_t *const *)&rts, 1);
		tg_big_free(rts);
		return rc;
	}
	for (size_t r = 0; r < n; r++)
		key[r] = (ib == 64 ? 0 : (((uint64_t)rts[r] - (uint64_t)tmin) / (uint64_t)unit) << ib) | r;
	int rc = cp_sort_keys(key, n);
	for (size_t j = 0; j < n && !rc; j++) /* entry j's 4 bytes overwrite keys already read */
		(*ord)[j] = (uint32_t)(key[j] & (ib ? (~UINT64_C(0) >> (64 - ib)) : 0));
	return rc;
}

/* Stream slot s at row i of a list of slots, 4 bytes each when wide, else 1. */
static inline void slot_put(void *slots, int wide, size_t i, uint32_t s)
{
	if (wide)
		((uint32_t *)slots)[i] = s;
	else
		((uint8_t *)slots)[i] = (uint8_t)s;
}

/* Queue length per stream: +1 at each launch (once per device event of its
 * correlation id), -1 at each such device event, in time order. */
static int queue_lengths(tg_critical_path *cp, struct gpu_ws *ws)
{
	size_t ng = 0, nrows = 0, lo, hi;
	tg_sort_pair *kv = by_corr(cp, &ng);
	tg_idmap *first = kv ? first_of(cp, kv, ng) : NULL;
	/* rows: a launch's once per device event of its id (several launches
	 * may share one), then the device events */
	for (uint32_t i = 0; first && i < cp->nev; i++)
		if (is_launch(cp, i) && cp_corr(cp, i) >= 0)
			nrows += group_of(cp, first, kv, ng, i, &lo) - lo;
	if (nrows + ng > UINT32_MAX / 2) { /* many launches sharing ids with many device events */
		tg_big_free(kv);
		tg_idmap_free(first);
		return tg_error_set(TG_ELIMIT, "critical path: launches that share correlation ids with device "
		                               "events make %zu queue rows, more than 2^31",
		                    nrows);
	}
	uint8_t *launched = tg_big_calloc(ng + 1, 1);
	/* a row: event * 2 + (1 for a device event) */
	uint32_t *rows = tg_big_alloc((nrows + ng + 1) * sizeof(uint32_t));
	int64_t *rts = NULL; /* the rows' times, then their order (row_order), once kv is gone */
	int wide = cp->sslot32 != NULL; /* the row's stream slot (cp_sslot) in a byte below 256 streams */
	void *rslot = tg_big_alloc((nrows + ng + 1) * (wide ? sizeof(uint32_t) : 1));
	int64_t *sums = tg_big_calloc(cp->nstreams + 1, sizeof(int64_t)); /* running sum per stream */
	uint32_t *ord = NULL;
	int rc = TG_ENOMEM;
	if (!first || !launched || !rows || !rslot || !sums)
		goto out;
	nrows = 0;
	for (uint32_t i = 0; i < cp->nev; i++) {
		if (!is_launch(cp, i) || cp_corr(cp, i) < 0)
			continue;
		for (hi = group_of(cp, first, kv, ng, i, &lo); lo < hi; lo++) {
			launched[lo] = 1;
			rows[nrows] = i * 2;
			slot_put(rslot, wide, nrows++, cp_sslot(cp, kv[lo].idx));
		}
	}
	for (uint32_t i = 0; i < cp->nev; i++) {
		if (!gpu_row(cp, i) || cp_corr(cp, i) < 0)
			continue;
		int any = 0;
		for (hi = group_of(cp, first, kv, ng, i, &lo); lo < hi; lo++)
			any |= launched[lo];
		if (any) {
			rows[nrows] = i * 2 + 1;
			slot_put(rslot, wide, nrows++, cp_sslot(cp, i));
		}
	}
	/* the device events by correlation go before the rows are sorted */
	tg_big_free(launched);
	tg_big_free(kv);
	tg_idmap_free(first);
	launched = NULL;
	kv = NULL;
	first = NULL;
	/* the times read again from the rows' events: beside kv they were
	 * the stage's peak (8 bytes a row) */
	if (!(rts = tg_big_alloc((nrows + 1) * sizeof(int64_t)))) {
		rc = TG_ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < nrows; r++)
		rts[r] = cp_ts(cp, rows[r] >> 1);
	if ((rc = row_order(&ord, &rts, nrows, cp->opts.exact_ns ? 1 : 1000)))
		goto out;
	for (size_t j = 0; j < nrows; j++) {
		uint32_t r = ord[j];
		int64_t *sum = &sums[wide ? ((uint32_t *)rslot)[r] : ((uint8_t *)rslot)[r]];
		*sum += rows[r] & 1 ? -1 : 1;
		ws->q[rows[r] >> 1] = *sum > INT8_MAX ? INT8_MAX : *sum <= NO_QUEUE ? NO_QUEUE + 1 : (int8_t)*sum;
	}
out:
	tg_big_free(kv);
	tg_idmap_free(first);
	tg_big_free(launched);
	tg_big_free(rows);
	tg_big_free(rts);
	tg_big_free(rslot);
	tg_big_free(ord);
	tg_big_free(sums);
	return rc;
}

static int numbered_launch(const tg_critical_path *cp, uint32_t i)
{
	uint32_t g = cp->ic[i];
	return is_launch(cp, i) && (cp->evf[g] & CP_KEPT) && cp_on_stream_col(cp, g) && cp->ic[g] != TG_NONE;
}

/* The launches (kernel on a stream, both correlated), numbered in time
 * order: ws->launches. A launch's number is its position in the lists
 * event_records and stream_waits sort, which put the launches first in
 * that order (no per-event array of numbers: 4 bytes an event). */
static int number_launches(tg_critical_path *cp, struct gpu_ws *ws)
{
	size_t n = 0;
	for (uint32_t i = 0; i < cp->nev; i++)
		n += numbered_launch(cp, i);
	ws->launches = tg_big_alloc((n + 1) * sizeof(uint32_t));
	int64_t *ts = tg_big_alloc((n + 1) * sizeof(int64_t));
	int rc = ws->launches && ts && !order_for(ws, n) ? 0 : TG_ENOMEM;
	n = 0;
	for (uint32_t i = 0; i < cp->nev && !rc; i++) {
		if (numbered_launch(cp, i)) {
			ts[n] = cp_ts(cp, i);
			ws->order[n++] = i;
		}
	}
	/* the sorted positions in the times' block (row_order: no pair sort
	 * of 16 bytes a launch beside them), then the launches in place */
	uint32_t *pos = NULL;
	if (!rc)
		rc = row_order(&pos, &ts, n, cp->opts.exact_ns ? 1 : 1000);
	for (size_t k = 0; k < n && !rc; k++)
		ws->launches[k] = ws->order[pos[k]];
	ws->nlaunches = rc ? 0 : n;
	tg_big_free(pos);
	tg_big_free(ts);
	return rc;
}

/* The stream a launch's kernel runs on, or a cudaEventRecord's stream (the
 * wait_on_stream of the sync events that name its correlation id). */
static int64_t launch_stream(const tg_critical_path *cp, uint32_t i)
{
	return cp_stream(cp, cp->ic[i]);
}

static int64_t launch_gpu(const tg_critical_path *cp, uint32_t i)
{
	size_t ntr;
	return tg_trace_tracks(cp->t, &ntr)[cp_event(cp, cp->ic[i])->track].pid;
}

/* A list of launches and calls being sorted by three keys (time, stream,
 * then gpu or thread), the keys read from the events once a level, in list
 * order (keyed_sort): entry p is event ws->order[p], a launch
 * when p < ws->nlaunches (launches are listed first), else a
 * cudaEventRecord (which: its correlation -> the sync that waits on it) or
 * a cudaStreamWaitEvent (which NULL). */
struct keyed {
	const tg_critical_path *cp;
	const struct gpu_ws *ws;
	const tg_idmap *which;
	const tg_track *tr;
};

/* Key level (0 time, 1 stream, 2 gpu for records or thread for waits) of
 * entry p. */
static int64_t entry_key(const struct keyed *kd, uint32_t p, int level)
{
	const tg_critical_path *cp = kd->cp;
	uint32_t i = kd->ws->order[p];
	if (level == 0)
		return cp_ts(cp, i);
	if (p < kd->ws->nlaunches) /* a launch: its kernel's stream and gpu, or its thread */
		return level == 1 ? launch_stream(cp, i) : kd->which ? launch_gpu(cp, i) : cp_event(cp, i)->track;
	if (!kd->which) /* a stream wait: the stream that waits, its thread */
		return level == 1 ? cp_stream(cp, cp->ic[i]) : cp_event(cp, i)->track;
	uint32_t sy = tg_idmap_get(kd->which, cp_corr(cp, i)); /* a record: its sync's stream and gpu */
	return level == 1 ? cp_wait_arg(cp, sy, cp->k_won) : kd->tr[cp_event(cp, sy)->track].pid;
}

#define CP_GROUP 0x80000000u /* in keyed_sort's pos: the entry's keys 1 and 2 differ from the one's before */

/* Key level l of the entries 0..n-1 into kv's keys, read through kv's
 * entries from key[] (gathered in list order: the events read in their
 * order, not in kv's, which misses the cache at 1 GB). */
static void keyed_level(tg_sort_pair *kv, int64_t *key, size_t n, const struct keyed *kd, int l)
{
	for (size_t p = 0; p < n; p++)
		key[p] = entry_key(kd, (uint32_t)p, l);
	for (size_t i = 0; i < n; i++)
		kv[i].key = tg_sort_key_i64(key[kv[i].idx]);
}

/* The entries 0..n-1 in order of (key 2, key 1, key 0), ties in list
 * order, into pos, each | CP_GROUP when its keys 1 and 2 (its stream) are
 * not those of the entry before it: three stable radix sorts of (key,
 * entry) pairs, the least significant first, each level's keys gathered in
 * list order (keyed_level). Scratch: 32 bytes an entry. Returns 0 or
 * TG_ENOMEM. */
static int keyed_sort(uint32_t *pos, size_t n, const struct keyed *kd)
{
	tg_sort_pair *kv = tg_big_alloc((n + 1) * sizeof(*kv));
	int64_t *k1 = tg_big_alloc((n + 1) * sizeof(int64_t)), *k2 = tg_big_alloc((n + 1) * sizeof(int64_t));
	int rc = kv && k1 && k2 ? 0 : TG_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) /* level 0 read in list order already */
		kv[i] = (tg_sort_pair){tg_sort_key_i64(entry_key(kd, (uint32_t)i, 0)), (uint32_t)i};
	if (!rc)
		rc = tg_sort_pairs(kv, n);
	if (!rc) {
		keyed_level(kv, k1, n, kd, 1);
		rc = tg_sort_pairs(kv, n);
	}
	if (!rc) {
		keyed_level(kv, k2, n, kd, 2);
		rc = tg_sort_pairs(kv, n);
	}
	for (size_t i = 0; i < n && !rc; i++) {
		uint32_t p = kv[i].idx, q = i ? kv[i - 1].idx : p;
		pos[i] = p | (k1[p] != k1[q] || k2[p] != k2[q] ? CP_GROUP : 0);
	}
	tg_big_free(kv);
	tg_big_free(k1);
	tg_big_free(k2);
	return rc;
}

/* For each cudaEventRecord on a known (gpu, stream), the launch onto that
 * stream just before it. */
static int event_records(tg_critical_path *cp, struct gpu_ws *ws)
{
	size_t n = ws->nlaunches, ntr;
	for (uint32_t i = 0; i < cp->nev; i++)
		n += (cp->evf[i] & CP_KEPT) && (cp_name_flags(cp, i) & CPN_EVENT_RECORD);
	if (n == ws->nlaunches) /* no record: no launch to find, and no sort of the launches */
		return 0;
	/* correlation of a record -> (stream, gpu) of the syncs that wait on it */
	tg_idmap *which = tg_idmap_new(64);
	uint32_t *pos = tg_big_alloc((n + 1) * sizeof(uint32_t));
	int rc = which && pos && !order_for(ws, n) ? 0 : TG_ENOMEM;
	for (uint32_t i = 0; i < cp->nev && !rc; i++)
		if ((cp->evf[i] & CP_KEPT) && cp_wait_arg(cp, i, cp->k_won) > -1 &&
		    tg_idmap_put(which, cp_wait_arg(cp, i, cp->k_worc), i) < 0)
			rc = TG_ENOMEM;
	n = 0;
	for (size_t k = 0; k < ws->nlaunches && !rc; k++)
		ws->order[n++] = ws->launches[k];
	for (uint32_t i = 0; i < cp->nev && !rc; i++)
		if ((cp->evf[i] & CP_KEPT) && (cp_name_flags(cp, i) & CPN_EVENT_RECORD) &&
		    tg_idmap_get(which, cp_corr(cp, i)) != TG_NONE)
			ws->order[n++] = i;
	/* launches were listed first (an entry before ws->nlaunches is one: a
	 * launch's name is never cudaEventRecord's): among simultaneous ones a
	 * launch comes before a record; sorted by (gpu, stream, time) */
	struct keyed kd = {cp, ws, which, tg_trace_tracks(cp->t, &ntr)};
	if (!rc)
		rc = keyed_sort(pos, n, &kd);
	uint32_t last = TG_NONE;
	for (size_t k = 0; k < n && !rc; k++) {
		uint32_t p = pos[k] & ~CP_GROUP, i = ws->order[p];
		if (pos[k] & CP_GROUP)
			last = TG_NONE;
		if (p < ws->nlaunches)
			last = i;
		else if (last != TG_NONE && tg_idmap_put(ws->prev, cp_corr(cp, i), last) < 0)
			rc = TG_ENOMEM;
	}
	tg_idmap_free(which);
	tg_big_free(pos);
	return rc;
}

/* For each cudaStreamWaitEvent, the next launch from the same thread onto
 * the stream that waits. */
static int stream_waits(tg_critical_path *cp, struct gpu_ws *ws)
{
	size_t n = ws->nlaunches;
	for (uint32_t i = 0; i < cp->nev; i++)
		n += (cp->evf[i] & CP_KEPT) && (cp_name_flags(cp, i) & CPN_WAIT_CALL);
	if (n == ws->nlaunches) /* no cudaStreamWaitEvent: nothing to find */
		return 0;
	uint32_t *pos = tg_big_alloc((n + 1) * sizeof(uint32_t));
	int rc = pos && !order_for(ws, n) ? 0 : TG_ENOMEM;
	n = 0;
	for (size_t k = 0; k < ws->nlaunches && !rc; k++)
		ws->order[n++] = ws->launches[k];
	for (uint32_t i = 0; i < cp->nev && !rc; i++) {
		uint32_t g = cp->ic[i];
		if (!(cp->evf[i] & CP_KEPT) || !(cp_name_flags(cp, i) & CPN_WAIT_CALL) || g == TG_NONE ||
		    !(cp->evf[g] & CP_KEPT) || !cp_on_stream_col(cp, g) || cp->ic[g] == TG_NONE)
			continue;
		ws->order[n++] = i;
	}
	/* sorted by (thread, stream, time); an entry before ws->nlaunches is a
	 * launch (never cudaStreamWaitEvent), and its position its number */
	struct keyed kd = {cp, ws, NULL, NULL};
	if (!rc)
		rc = keyed_sort(pos, n, &kd);
	uint32_t next = TG_NONE; /* the launch's position */
	for (size_t k = n; k-- > 0 && !rc;) {
		uint32_t p = pos[k] & ~CP_GROUP, i = ws->order[p];
		if (k + 1 < n && (pos[k + 1] & CP_GROUP)) /* the entry after it is of another stream */
			next = TG_NONE;
		if (p < ws->nlaunches) {
			if (next == TG_NONE || p < next)
				next = p;
		} else if (next != TG_NONE && tg_idmap_put(ws->next, i, ws->order[next]) < 0) {
			rc = TG_ENOMEM;
		}
	}
	tg_big_free(pos);
	return rc;
}

/* The last kernel end of each stream, in the order streams first appear
 * (Context Sync waits for all of them in that order). */
struct last_nodes {
	tg_idmap *slot; /* stream -> slot */
	int64_t *stream;
	uint32_t *node;
	uint32_t n;
};

static uint32_t last_get(const struct last_nodes *ln, int64_t stream)
{
	uint32_t s = tg_idmap_get(ln->slot, stream);
	return s == TG_NONE ? TG_NONE : ln->node[s];
}

static int last_set(struct last_nodes *ln, int64_t stream, uint32_t node)
{
	uint32_t s = tg_idmap_get(ln->slot, stream);
	if (s == TG_NONE) {
		s = ln->n++;
		if (tg_idmap_put(ln->slot, stream, s) < 0)
			return TG_ENOMEM;
		ln->stream[s] = stream;
	}
	ln->node[s] = node;
	return 0;
}

/* A sync event: an edge to the end of the host call that waited, or (Stream
 * Wait Event) the kernel the next launch's kernel waits for. */
static int sync_event(tg_critical_path *cp, struct gpu_ws *ws, struct last_nodes *ln, uint32_t i)
{
	uint16_t nf = cp_name_flags(cp, i);
	uint32_t host = cp->ic[i], host_end = host == TG_NONE ? TG_NONE : cp_enode(cp, host);
	if (nf & (CPN_STREAM_WAIT | CPN_EVENT_SYNC)) {
		int64_t worc = cp_wait_arg(cp, i, cp->k_worc);
		uint32_t prev = worc == -1 ? TG_NONE : tg_idmap_get(ws->prev, worc);
		if (prev == TG_NONE)
			return 0;
		uint32_t src = cp->ic[prev];
		if (nf & CPN_STREAM_WAIT) {
			uint32_t nl = host == TG_NONE ? TG_NONE : tg_idmap_get(ws->next, host);
			if (nl == TG_NONE || cp->ic[nl] == TG_NONE)
				return 0;
			if (!cp->ksync) { /* the first stream wait: most traces have none */
				if (!(cp->ksync = tg_big_alloc((cp->nev + 1) * sizeof(uint32_t))))
					return TG_ENOMEM;
				memset(cp->ksync, 0xff, (cp->nev + 1) * sizeof(uint32_t));
			}
			cp->ksync[cp->ic[nl]] = src;
			return 0;
		}
		if (src != TG_NONE && cp_enode(cp, src) != TG_NONE && host_end != TG_NONE)
			return cp_add_edge(cp, cp_enode(cp, src), host_end, TG_CP_EDGE_SYNC, 0, TG_NONE);
		return 0;
	}
	if (host_end == TG_NONE)
		return 0;
	if (nf & CPN_CONTEXT_SYNC) {
		int rc = 0;
		for (uint32_t s = 0; s < ln->n && !rc; s++)
			rc = cp_add_edge(cp, ln->node[s], host_end, TG_CP_EDGE_SYNC, 0, TG_NONE);
		return rc;
	}
	uint32_t last = (nf & CPN_STREAM_SYNC) ? last_get(ln, cp_stream(cp, i)) : TG_NONE;
	return last == TG_NONE ? 0 : cp_add_edge(cp, last, host_end, TG_CP_EDGE_SYNC, 0, TG_NONE);
}

/* A kernel (memcpy, memset): its span, then what it waited for. */
static int kernel_event(tg_critical_path *cp, struct gpu_ws *ws, struct last_nodes *ln, uint32_t i)
{
	uint32_t st = cp->snode[i], en = cp_enode(cp, i);
	if (st == TG_NONE || en == TG_NONE)
		return 0;
	int rc = cp_add_edge(cp, st, en, TG_CP_EDGE_OPERATOR, 0, TG_NONE);
	uint32_t ks = cp->ksync ? cp->ksync[i] : TG_NONE, kse = TG_NONE;
	if (!rc && ks != TG_NONE) {
		kse = cp_enode(cp, ks);
		if (kse != TG_NONE)
			rc = cp_add_edge(cp, kse, st, TG_CP_EDGE_SYNC, 0, TG_NONE);
		cp->ksync[i] = TG_NONE;
	}
	int64_t stream = cp_stream(cp, i);
	uint32_t rt = cp->ic[i], last = last_get(ln, stream);
	int launch_added = 0;
	if (!rc && rt != TG_NONE && ws->q[rt] == 1 && ws->q[i] == 0 &&
	    (last == TG_NONE || cp_node_ts(cp, last) < cp_ts(cp, rt)) &&
	    (kse == TG_NONE || cp_node_ts(cp, kse) < cp_ts(cp, rt))) {
		if (cp->snode[rt] != TG_NONE) {
			rc = cp_add_edge(cp, cp->snode[rt], st, TG_CP_EDGE_LAUNCH, 0, TG_NONE);
			launch_added = 1;
		}
	} else if (!rc && last != TG_NONE && cp_node_ts(cp, st) - cp_node_ts(cp, last) < KERNEL_GAP_MAX_NS &&
	           (kse == TG_NONE || cp_node_ts(cp, kse) < cp_node_ts(cp, last))) {
		rc = cp_add_edge(cp, last, st, TG_CP_EDGE_KERNEL_KERNEL, 0, TG_NONE);
	}
	if (!rc && cp->opts.zero_weight_launch && !launch_added && rt != TG_NONE && cp->snode[rt] != TG_NONE)
		rc = cp_add_edge(cp, cp->snode[rt], st, TG_CP_EDGE_LAUNCH, 1, TG_NONE);
	return rc ? rc : last_set(ln, stream, en);
}

/* The window's device events and syncs in HTA's order: by start, a sync by
 * its end. */
static int device_row(const tg_critical_path *cp, uint32_t i)
{
	if (!(cp->evf[i] & CP_CLIP) || !(cp->evf[i] & CP_CORR))
		return 0;
	return cp_on_stream_col(cp, i) || (cp_name_flags(cp, i) & (CPN_EVENT_SYNC | CPN_CONTEXT_SYNC));
}

/* The window's device events and syncs into ws->order, their times into
 * *key (sized here), and where each goes in HTA's order into *pos: by
 * start, a sync by its end. Returns 0 or TG_ENOMEM. */
static int device_rows(uint32_t **pos, size_t *nrows, tg_critical_path *cp, struct gpu_ws *ws)
{
	size_t n = 0;
	for (uint32_t i = 0; i < cp->nev; i++)
		n += device_row(cp, i);
	int64_t *key = tg_big_alloc((n + 1) * sizeof(int64_t));
	int rc = key && !order_for(ws, n) ? 0 : TG_ENOMEM;
	n = 0;
	for (uint32_t i = 0; i < cp->nev && !rc; i++)
		if (device_row(cp, i)) {
			key[n] = cp_event(cp, i)->kind == TG_KIND_SYNC ? cp_end(cp, i) : cp_ts(cp, i);
			ws->order[n++] = i;
		}
	/* sorted in the times' block (row_order: no pair sort of 16 bytes a
	 * row beside them), which *pos then is */
	if (!rc)
		rc = row_order(pos, &key, n, cp->opts.exact_ns ? 1 : 1000);
	*nrows = rc ? 0 : n;
	tg_big_free(key);
	return rc;
}

static int kernel_edges(tg_critical_path *cp, struct gpu_ws *ws)
{
	/* a slot for each stream the trace names: streams are few */
	struct last_nodes ln = {tg_idmap_new(64), tg_big_alloc((cp->nstreams + 1) * sizeof(int64_t)),
	                        tg_big_alloc((cp->nstreams + 1) * sizeof(uint32_t)), 0};
	uint32_t *pos = NULL;
	size_t n = 0;
	int rc = ln.slot && ln.stream && ln.node ? device_rows(&pos, &n, cp, ws) : TG_ENOMEM;
	for (size_t k = 0; k < n && !rc; k++) {
		uint32_t i = ws->order[pos[k]];
		rc = cp_event(cp, i)->kind == TG_KIND_SYNC ? sync_event(cp, ws, &ln, i) : kernel_event(cp, ws, &ln, i);
	}
	tg_idmap_free(ln.slot);
	tg_big_free(ln.stream);
	tg_big_free(ln.node);
	tg_big_free(pos);
	return rc;
}

int cp_add_gpu_edges(tg_critical_path *cp)
{
	/* the queue lengths first, beside nothing else of the stage's; the
	 * launches' numbers and the lists after */
	struct gpu_ws ws = {tg_big_alloc((cp->nev + 1) * sizeof(int8_t)), NULL, tg_idmap_new(64), tg_idmap_new(64),
	                    NULL, 0};
	int rc = ws.q && ws.prev && ws.next ? 0 : TG_ENOMEM;
	if (!rc) {
		for (size_t i = 0; i < cp->nev; i++)
			ws.q[i] = NO_QUEUE;
		rc = queue_lengths(cp, &ws);
	}
	if (!rc)
		rc = number_launches(cp, &ws);
	if (!rc)
		rc = event_records(cp, &ws);
	if (!rc)
		rc = stream_waits(cp, &ws);
	tg_big_free(ws.launches); /* the lists' alone */
	ws.launches = NULL;
	if (!rc && cp->opts.scratch_freed) /* the lists' heap blocks (under tg_big's 4 MiB) before the edges */
		cp->opts.scratch_freed();
	if (!rc)
		rc = kernel_edges(cp, &ws);
	tg_big_free(ws.q);
	tg_big_free(ws.order);
	tg_idmap_free(ws.prev);
	tg_idmap_free(ws.next);
	tg_big_free(ws.launches);
	return rc;
}
