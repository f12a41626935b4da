/*
 * tree_buckets.c - the host (or device) events of each track in the tree's
 * order (tree_buckets.h): a counting sort by track, then a sort of each
 * bucket whose events did not arrive in order (they usually do: the fill,
 * walking the events in order, compares each with the one before it in
 * its bucket, and the buckets found in order are not sorted again): its
 * runs in order merged when it has a few, else a merge sort. The keys
 * hold the event index only; comparisons read the event.
 */
#include "tree_buckets.h"

#include <stdlib.h>
#include <string.h>

/* Outer before inner when start and duration are equal. */
static uint64_t kind_rank(int k)
{
	switch (k) {
	case TG_KIND_USER_ANNOTATION: return 0;
	case TG_KIND_PYTHON: return 1;
	case TG_KIND_CPU_OP: return 2;
	case TG_KIND_RUNTIME: return 3;
	case TG_KIND_DRIVER: return 4;
	default: return 5;
	}
}

/* equal start and length: outer kinds first; python functions by Python
 * id, as a caller is entered before its callees; else by index */
static inline uint64_t key_sub(const tg_trace *t, const tg_event *e, uint32_t i)
{
	uint64_t sub = e->kind == TG_KIND_PYTHON && (e->flags & TG_EV_HAS_PYID)
	                   ? (uint64_t)tg_event_pyid(t, e) & ((1ULL << 56) - 1)
	                   : (uint64_t)i;
	return (uint64_t)kind_rank(e->kind) << 56 | sub;
}

/* Inlined everywhere: the fill and the sorts compare about 100,000 times an
 * h200-dev tree, and a call each was 1.6 M instructions. */
static inline __attribute__((always_inline)) int key_less(const struct tg_tree_key *a, const struct tg_tree_key *b,
                                                          const tg_event *ev, const tg_trace *t)
{
	const tg_event *x = &ev[a->tie], *y = &ev[b->tie];
	if (x->ts != y->ts)
		return x->ts < y->ts;
	int64_t dx = tg_event_dur(t, x), dy = tg_event_dur(t, y);
	if (dx != dy)
		return dx > dy;
	uint64_t sa = key_sub(t, x, a->tie), sb = key_sub(t, y, b->tie);
	if (sa != sb)
		return sa < sb;
	return a->tie < b->tie;
}

/* Merges the sorted runs k[0..h) and k[h..n) in place, through tmp (room
 * for the shorter run): the left one copied out and merged forwards, or
 * the right one and merged backwards. key_less is a total order, so that
 * the result is the one any sort gives. */
static void merge_runs(struct tg_tree_key *k, struct tg_tree_key *tmp, size_t h, size_t n, const tg_event *ev,
                       const tg_trace *t)
{
	if (!key_less(&k[h], &k[h - 1], ev, t))
		return; /* already in order */
	if (h <= n - h) {
		memcpy(tmp, k, h * sizeof(*k));
		size_t i = 0, j = h, o = 0;
		while (i < h && j < n)
			k[o++] = key_less(&k[j], &tmp[i], ev, t) ? k[j++] : tmp[i++];
		while (i < h)
			k[o++] = tmp[i++];
	} else {
		size_t m = n - h;
		memcpy(tmp, k + h, m * sizeof(*k));
		size_t i = h, j = m, o = n;
		while (i > 0 && j > 0)
			k[--o] = key_less(&tmp[j - 1], &k[i - 1], ev, t) ? k[--i] : tmp[--j];
		while (j > 0)
			k[--o] = tmp[--j];
	}
}

/* Stable merge sort of keys (inputs are often nearly sorted: runs help). */
static void merge_sort_keys(struct tg_tree_key *k, struct tg_tree_key *tmp, size_t n, const tg_event *ev,
                            const tg_trace *t)
{
	if (n < 24) {
		for (size_t i = 1; i < n; i++) {
			struct tg_tree_key x = k[i];
			size_t j = i;
			while (j > 0 && key_less(&x, &k[j - 1], ev, t)) {
				k[j] = k[j - 1];
				j--;
			}
			k[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	merge_sort_keys(k, tmp, h, ev, t);
	merge_sort_keys(k + h, tmp, n - h, ev, t);
	merge_runs(k, tmp, h, n, ev, t); /* h <= n - h: the left run through tmp */
}

/* A bucket out of order is most often a few long runs in order,
 * interleaved: a track's CPU ops, then its Python functions, each in
 * order of start (h200-dev's runs: 2 or 3 runs of 1,400-17,000 events;
 * xdit_sd_3.5's: 4 of 192,000). Up to this many runs they are found in
 * one pass and merged pairwise (about 2 comparisons an event for 3 runs,
 * against log2 of the bucket's size for the merge sort); a bucket with
 * more goes to the merge sort, after at most MAX_RUNS descents looked at. */
#define MAX_RUNS 16

/* Sorts a bucket (tmp: room for half of it). */
static void sort_keys(struct tg_tree_key *k, struct tg_tree_key *tmp, size_t n, const tg_event *ev, const tg_trace *t)
{
	size_t start[MAX_RUNS + 1], runs = 1;
	start[0] = 0;
	for (size_t i = 1; i < n; i++) {
		if (!key_less(&k[i], &k[i - 1], ev, t))
			continue;
		if (runs == MAX_RUNS) {
			merge_sort_keys(k, tmp, n, ev, t);
			return;
		}
		start[runs++] = i;
	}
	start[runs] = n;
	while (runs > 1) { /* runs 2i and 2i + 1 merged, for every i, until one is left */
		size_t kept = 0;
		for (size_t r = 0; r < runs; r += 2) {
			if (r + 1 < runs)
				merge_runs(k + start[r], tmp, start[r + 1] - start[r], start[r + 2] - start[r], ev, t);
			start[kept++] = start[r];
		}
		start[kept] = n;
		runs = kept;
	}
}

/* Sorts the buckets of the tracks marked unsorted (their keys out of order
 * somewhere; the others are in order already: key_less is a total order, the
 * index deciding last, so that any sort gives the one result and a bucket
 * found in order needs none). The scratch, half the largest such bucket, only
 * when one is. */
static int sort_unsorted(tg_tree_buckets *b, const uint8_t *unsorted, size_t nunsorted, size_t nt, const tg_event *ev,
                         const tg_trace *t)
{
	if (!nunsorted)
		return 0;
	size_t most = 0;
	for (size_t tr = 0; tr < nt; tr++)
		if (unsorted[tr] && b->off[tr + 1] - b->off[tr] > most)
			most = b->off[tr + 1] - b->off[tr];
	struct tg_tree_key *tmp = tg_malloc((most / 2 + 1) * sizeof(struct tg_tree_key));
	if (!tmp)
		return TG_ENOMEM;
	for (size_t tr = 0; tr < nt; tr++)
		if (unsorted[tr])
			sort_keys(b->keys + b->off[tr], tmp, b->off[tr + 1] - b->off[tr], ev, t);
	free(tmp);
	return 0;
}

/* The events tg_tree_buckets_build takes: the device events' or the host's. */
static inline int wanted(const tg_event *e, int device)
{
	return device ? tg_tree_is_device_event(e) : tg_tree_is_host_kind(e->kind);
}

/* tg_tree_buckets_build, inlined once for each side (its two passes test
 * every event: a call of a want function each were 1.3 M instructions of
 * an h200-dev tree). */
static inline __attribute__((always_inline)) int build(tg_tree_buckets *b, const tg_trace *t, int device)
{
	size_t ne, nt;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_trace_tracks(t, &nt);
	b->off = tg_calloc(nt + 1, sizeof(uint32_t));
	if (!b->off)
		return TG_ENOMEM;
	size_t total = 0;
	for (size_t i = 0; i < ne; i++)
		if (wanted(&ev[i], device)) {
			b->off[ev[i].track + 1]++;
			total++;
		}
	for (size_t i = 0; i < nt; i++)
		b->off[i + 1] += b->off[i];
	b->keys = tg_malloc((total + 1) * sizeof(struct tg_tree_key));
	uint32_t *fill = tg_malloc((nt + 1) * sizeof(uint32_t));
	uint8_t *unsorted = tg_calloc(nt + 1, 1);
	if (!b->keys || !fill || !unsorted) {
		free(fill);
		free(unsorted);
		return TG_ENOMEM;
	}
	memcpy(fill, b->off, (nt + 1) * sizeof(uint32_t));
	size_t nunsorted = 0;
	for (size_t i = 0; i < ne; i++) {
		if (!wanted(&ev[i], device))
			continue;
		uint32_t tr = ev[i].track;
		struct tg_tree_key k = {(uint32_t)i};
		if (fill[tr] > b->off[tr] && !unsorted[tr] && key_less(&k, &b->keys[fill[tr] - 1], ev, t)) {
			unsorted[tr] = 1;
			nunsorted++;
		}
		b->keys[fill[tr]++] = k;
	}
	int rc = sort_unsorted(b, unsorted, nunsorted, nt, ev, t);
	free(fill);
	free(unsorted);
	return rc;
}

int tg_tree_buckets_build(tg_tree_buckets *b, const tg_trace *t, int device)
{
	return device ? build(b, t, 1) : build(b, t, 0);
}

void tg_tree_buckets_free(tg_tree_buckets *b)
{
	free(b->off);
	free(b->keys);
	b->off = NULL;
	b->keys = NULL;
}
