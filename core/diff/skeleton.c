/*
 * skeleton.c - the op skeleton of a trace (see skeleton.h): the events a
 * tree diff's view may keep, each with its nearest kept ancestor, built
 * from a tree in two linear passes (the ancestors that are left out are
 * walked once each, memoised), or adopted, checked, from stored arrays.
 *
 * A node is 16 bytes: what the diff reads of every node at once (its
 * duration, parent, name, kind and link) is held whole; its start as an
 * offset of 32 bits from the least start of its block of 64 nodes (a
 * start that is not within 2^32 - 1 ns of it, whole in a list beside the
 * nodes, as the durations of 4.29 s and more); its event as a bit among
 * the trace's events, ranked a 64-bit word at a time (event -> node in
 * constant time), with the word of each block's first node sampled (node
 * -> event: a few words scanned). Both cost about 0.3 bytes a node, where
 * they cost 12 whole.
 */
#include "skeleton_impl.h"
#include "../../util/big.h"
#include "../../util/bits.h"
#include "../../util/sort.h"

#include <stdlib.h>
#include <string.h>

/* Node i's duration d into its dur, or whole into s->wide (nodes come in
 * increasing order). 0 or TG_ENOMEM. */
static int set_dur(tg_skeleton *s, size_t i, int64_t d)
{
	if (d >= 0 && d < (int64_t)TG_SKEL_WIDE_DUR) {
		s->nodes[i].dur = (uint32_t)d;
		return 0;
	}
	if (tg_grow((void **)&s->wide, &s->capwide, s->nwide + 1, sizeof(*s->wide)))
		return TG_ENOMEM;
	s->wide[s->nwide++] = (struct wide){(uint32_t)i, d};
	s->nodes[i].dur = TG_SKEL_WIDE_DUR;
	return 0;
}

/* The value of node i in a list of wide values by node (binary search);
 * none: `none`. */
static int64_t wide_of(const struct wide *w, size_t n, size_t i, int64_t none)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w[mid].node < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && w[lo].node == i ? w[lo].v : none;
}

int64_t tg_skeleton_dur(const tg_skeleton *s, size_t i)
{
	if (s->nodes[i].dur != TG_SKEL_WIDE_DUR)
		return s->nodes[i].dur;
	return wide_of(s->wide, s->nwide, i, TG_SKEL_WIDE_DUR);
}

int64_t tg_skeleton_ts(const tg_skeleton *s, size_t i)
{
	uint32_t off = s->nodes[i].ts;
	if (off != TG_SKEL_WIDE_TS)
		return (int64_t)((uint64_t)s->base[i >> 6] + off);
	return wide_of(s->wide_ts, s->nwide_ts, i, s->base[i >> 6]);
}

/* The starts ts[0..cnt) of block b's nodes (b * 64 on): the block's base
 * their least, each node's offset from it, whole in s->wide_ts when the
 * offset does not fit. 0 or TG_ENOMEM. */
static int set_starts(tg_skeleton *s, size_t b, const int64_t *ts, size_t cnt)
{
	int64_t lo = ts[0];
	for (size_t k = 1; k < cnt; k++)
		lo = ts[k] < lo ? ts[k] : lo;
	s->base[b] = lo;
	for (size_t k = 0; k < cnt; k++) {
		size_t i = b * 64 + k;
		uint64_t off = (uint64_t)ts[k] - (uint64_t)lo;
		if (off < TG_SKEL_WIDE_TS) {
			s->nodes[i].ts = (uint32_t)off;
			continue;
		}
		if (tg_grow((void **)&s->wide_ts, &s->capwide_ts, s->nwide_ts + 1, sizeof(*s->wide_ts)))
			return TG_ENOMEM;
		s->wide_ts[s->nwide_ts++] = (struct wide){(uint32_t)i, ts[k]};
		s->nodes[i].ts = TG_SKEL_WIDE_TS;
	}
	return 0;
}

/* Room for n nodes and the bits of nevents events (zeroed, unless
 * s->evbits is there already). 0 or TG_ENOMEM. */
static int alloc_nodes(tg_skeleton *s, size_t n, uint32_t nevents)
{
	size_t words = ((size_t)nevents + 63) / 64, blocks = (n + 63) / 64;
	s->n = n;
	s->nevents = nevents;
	s->nodes = tg_calloc(n ? n : 1, sizeof(tg_skel_node));
	s->base = tg_malloc((blocks ? blocks : 1) * sizeof(int64_t));
	s->evsel = tg_malloc((blocks ? blocks : 1) * sizeof(uint32_t));
	if (!s->evbits) /* tg_skeleton_build marks its events first */
		s->evbits = tg_calloc(words ? words : 1, sizeof(uint64_t));
	s->evrank = tg_malloc((words + 1) * sizeof(uint32_t));
	return s->nodes && s->base && s->evsel && s->evbits && s->evrank ? 0 : TG_ENOMEM;
}

/* Node i's event ev (nodes come in increasing order of events). */
static void set_event(tg_skeleton *s, size_t i, uint32_t ev)
{
	s->evbits[ev >> 6] |= (uint64_t)1 << (ev & 63);
	if (!(i & 63))
		s->evsel[i >> 6] = ev >> 6;
}

/* The ranks of the event bits, once every node's event is set. */
static void rank_events(tg_skeleton *s)
{
	size_t words = ((size_t)s->nevents + 63) / 64;
	uint32_t r = 0;
	for (size_t w = 0; w < words; w++) {
		s->evrank[w] = r;
		r += tg_popcount64(s->evbits[w]);
	}
	s->evrank[words] = r;
}

/* The set bits of each byte, for the select below (the k-th set bit of a
 * word byte by byte; the counts of whole words are util/bits.h's). */
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
static const uint8_t bits_in_byte[256] = {B6(0), B6(1), B6(1), B6(2)};
#undef B2
#undef B4
#undef B6

uint32_t tg_skeleton_event(const tg_skeleton *s, size_t i)
{
	size_t w = s->evsel[i >> 6];
	while (s->evrank[w + 1] <= i)
		w++;
	uint32_t r = (uint32_t)(i - s->evrank[w]), at = (uint32_t)w * 64;
	uint64_t x = s->evbits[w];
	for (uint32_t c; (c = bits_in_byte[x & 0xff]) <= r; x >>= 8, at += 8)
		r -= c;
	for (; r; r--)
		x &= x - 1;
	return at + (uint32_t)__builtin_ctzll(x);
}

/* Whether a skeleton built `with` holds an event of kind k. */
static int kind_held(int k, unsigned with)
{
	switch (k) {
	case TG_KIND_CPU_OP:
	case TG_KIND_RUNTIME:
	case TG_KIND_DRIVER: return 1;
	case TG_KIND_PYTHON: return (with & TG_SKEL_PYTHON) != 0;
	case TG_KIND_USER_ANNOTATION: return (with & TG_SKEL_ANNOTATIONS) != 0;
	default: return tg_kind_is_gpu(k);
	}
}

/* Whether the skeleton holds event x, and the nodes before x's (x's node
 * when it holds it): evbits and evrank read as tg_skeleton_find does. */
static int holds(const tg_skeleton *s, uint32_t x)
{
	return (int)(s->evbits[x >> 6] >> (x & 63) & 1);
}

static uint32_t nodes_before(const tg_skeleton *s, uint32_t x)
{
	return s->evrank[x >> 6] + tg_popcount64(s->evbits[x >> 6] & (((uint64_t)1 << (x & 63)) - 1));
}

/* The node of event x when the skeleton holds it, else the node of its
 * nearest held ancestor, TG_NONE without one. up[] is the answer of each
 * event the skeleton does not hold (at up[x - nodes_before(x)]: a slot per
 * such event, not per event; UNKNOWN until found), filled along the path
 * walked, so that each path is walked once. */
static uint32_t nearest_held(uint32_t *up, const tg_skeleton *s, const tg_tree *tree, uint32_t x)
{
	const uint32_t UNKNOWN = TG_NONE - 1;
	uint32_t r = TG_NONE;
	for (uint32_t y = x; y != TG_NONE; y = tg_tree_parent(tree, y)) {
		uint32_t before = nodes_before(s, y);
		if (holds(s, y) || up[y - before] != UNKNOWN) {
			r = holds(s, y) ? before : up[y - before];
			break;
		}
	}
	for (uint32_t y = x; y != TG_NONE && !holds(s, y); y = tg_tree_parent(tree, y)) {
		uint32_t *u = &up[y - nodes_before(s, y)];
		if (*u != UNKNOWN)
			break;
		*u = r;
	}
	return r;
}

/* Moves each of the n keys into its bucket of digit (key >> shift) &
 * (radix - 1), in place (American flag sort: a key swapped along a cycle
 * into its bucket's next place); start[0..radix] the buckets' bounds
 * (counted here), next[radix] scratch. */
static void flag_pass(uint64_t *k, size_t n, int shift, size_t radix, uint32_t *start, uint32_t *next)
{
	memset(start, 0, (radix + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		start[((k[i] >> shift) & (radix - 1)) + 1]++;
	for (size_t d = 0; d < radix; d++) {
		start[d + 1] += start[d];
		next[d] = start[d];
	}
	for (size_t d = 0; d < radix; d++)
		while (next[d] < start[d + 1]) {
			uint64_t x = k[next[d]];
			size_t xd = (x >> shift) & (radix - 1);
			while (xd != d) { /* x to its bucket's next place, what was there taken along */
				uint64_t y = k[next[xd]];
				k[next[xd]++] = x;
				x = y;
				xd = (x >> shift) & (radix - 1);
			}
			k[next[d]++] = x;
		}
}

/* The n keys, equal above bit shift + 8, sorted in place: by their next
 * 8 bits, then each bucket the same way below them (a few keys by
 * insertion). */
static void flag_sort(uint64_t *k, size_t n, int shift)
{
	if (n <= 32 || shift < 0) {
		(void)tg_sort_u64(k, n); /* a few keys: by insertion, nothing allocated (sort.h) */
		return;
	}
	uint32_t start[257], next[256];
	flag_pass(k, n, shift, 256, start, next);
	for (size_t d = 0; d < 256; d++)
		if (start[d + 1] - start[d] > 1)
			flag_sort(k + start[d], start[d + 1] - start[d], shift > 8 ? shift - 8 : (shift ? 0 : -1));
}

/* Sorts the n distinct keys k in place (American flag sort): by their top
 * 16 bits (of those that differ; two tables of 256 KB), then each bucket
 * by the next 8 bits and so on, a bucket of a few keys by insertion: no
 * scratch as long as the keys (the view's build sorts every skeleton node
 * while the gate holds both sides: 8 bytes a node less at its peak).
 * Fewer keys than the top digit's buckets go to tg_sort_u64. 0 or
 * TG_ENOMEM. */
static int sort_keys_in_place(uint64_t *k, size_t n)
{
	enum { DIGIT = 16, RADIX = 1 << DIGIT };
	uint64_t differ = 0;
	for (size_t i = 1; i < n; i++)
		differ |= k[i] ^ k[0];
	uint32_t *start = n >= RADIX && differ ? tg_malloc((RADIX + 1) * sizeof(uint32_t)) : NULL;
	uint32_t *next = start ? tg_malloc(RADIX * sizeof(uint32_t)) : NULL;
	if (!next) {
		free(start);
		return tg_sort_u64(k, n);
	}
	int top = 64 - __builtin_clzll(differ), shift = top > DIGIT ? top - DIGIT : 0;
	flag_pass(k, n, shift, RADIX, start, next);
	free(next);
	for (size_t d = 0; d < RADIX; d++)
		if (start[d + 1] - start[d] > 1)
			flag_sort(k + start[d], start[d + 1] - start[d], shift > 8 ? shift - 8 : (shift ? 0 : -1));
	free(start);
	return 0;
}

/* by[0..n): the nodes by (start, index) through a linear radix sort (the
 * comparison sort it replaces grew n log n: 12x its instructions for 10x
 * the events). Each start less the first, shifted past the index's bits,
 * with the index in them, when that fits 64 bits (8 bytes a node, sorted
 * in place); else (start, index) pairs, stable on the start. 0 or
 * TG_ENOMEM. */
static int sort_by_start(uint32_t *by, const tg_skeleton *s, size_t n)
{
	int64_t lo = tg_skeleton_ts(s, 0), hi = lo;
	for (size_t i = 1; i < n; i++) {
		int64_t ts = tg_skeleton_ts(s, i);
		lo = ts < lo ? ts : lo;
		hi = ts > hi ? ts : hi;
	}
	unsigned b = 1;
	while (b < 32 && ((size_t)1 << b) < n)
		b++;
	uint64_t span = (uint64_t)hi - (uint64_t)lo;
	if ((span >> (64 - b)) == 0) {
		uint64_t *k = tg_malloc(n * sizeof(uint64_t));
		if (!k)
			return TG_ENOMEM;
		for (size_t i = 0; i < n; i++)
			k[i] = (((uint64_t)tg_skeleton_ts(s, i) - (uint64_t)lo) << b) | i;
		int rc = sort_keys_in_place(k, n);
		for (size_t q = 0; !rc && q < n; q++)
			by[q] = (uint32_t)(k[q] & (((uint64_t)1 << b) - 1));
		free(k);
		return rc;
	}
	tg_sort_pair *kv = tg_malloc(n * sizeof(tg_sort_pair));
	if (!kv)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		kv[i] = (tg_sort_pair){tg_sort_key_i64(tg_skeleton_ts(s, i)), (uint32_t)i};
	int rc = tg_sort_pairs(kv, n);
	for (size_t q = 0; !rc && q < n; q++)
		by[q] = kv[q].idx;
	free(kv);
	return rc;
}

int tg_skeleton_order_into(uint32_t *by_start, uint32_t *start_rank, const tg_skeleton *s)
{
	if (s->n == 1)
		by_start[0] = 0;
	if (s->n > 1 && sort_by_start(by_start, s, s->n))
		return TG_ENOMEM;
	for (size_t q = 0; start_rank && q < s->n; q++)
		start_rank[by_start[q]] = (uint32_t)q;
	return 0;
}

static int cmp_start(const void *a, const void *b, void *arg)
{
	const tg_skeleton *s = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t tx = tg_skeleton_ts(s, x), ty = tg_skeleton_ts(s, y);
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return (x > y) - (x < y);
}

int tg_skeleton_sort_nodes(const tg_skeleton *s, uint32_t *idx, size_t n, uint64_t *keys)
{
	if (n < 2)
		return 0;
	int64_t lo = tg_skeleton_ts(s, idx[0]), hi = lo;
	for (size_t k = 1; k < n; k++) {
		int64_t ts = tg_skeleton_ts(s, idx[k]);
		lo = ts < lo ? ts : lo;
		hi = ts > hi ? ts : hi;
	}
	unsigned b = 1; /* bits of a node index */
	while (b < 32 && ((size_t)1 << b) < s->n)
		b++;
	if ((((uint64_t)hi - (uint64_t)lo) >> (64 - b)) != 0) { /* starts too far apart to pack */
		qsort_r(idx, n, sizeof(uint32_t), cmp_start, (void *)s);
		return 0;
	}
	for (size_t k = 0; k < n; k++)
		keys[k] = (((uint64_t)tg_skeleton_ts(s, idx[k]) - (uint64_t)lo) << b) | idx[k];
	if (tg_sort_u64(keys, n)) /* a few keys by insertion, on the stack up to 256 */
		return TG_ENOMEM;
	for (size_t k = 0; k < n; k++)
		idx[k] = (uint32_t)(keys[k] & (((uint64_t)1 << b) - 1));
	return 0;
}

/* s->by_start: every node by (start, index), sorted once for every view
 * built on s (a stored baseline's skeleton serves many judgements). */
static int order_by_start(tg_skeleton *s)
{
	s->by_start = tg_malloc((s->n ? s->n : 1) * sizeof(uint32_t));
	s->start_rank = tg_malloc((s->n ? s->n : 1) * sizeof(uint32_t));
	if (!s->by_start || !s->start_rank)
		return TG_ENOMEM;
	return tg_skeleton_order_into(s->by_start, s->start_rank, s);
}

int tg_skeleton_build(tg_skeleton **out, const tg_tree *tree, unsigned with)
{
	*out = NULL;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	if (ne >= TG_NONE - 1)
		return tg_error_set(TG_ELIMIT, "skeleton: more than %u events", TG_NONE - 2);
	if (tg_atoms_count(tg_trace_atoms(t)) > TG_SKEL_MAX_NAMES)
		return tg_error_set(TG_ELIMIT, "skeleton: more than %u names", TG_SKEL_MAX_NAMES);
	tg_skeleton *s = tg_calloc(1, sizeof(*s));
	size_t words = (ne + 63) / 64;
	if (s)
		s->evbits = tg_calloc(words ? words : 1, sizeof(uint64_t));
	if (!s || !s->evbits) {
		free(s);
		return TG_ENOMEM;
	}
	s->atoms = tg_trace_atoms(t);
	s->with = with;
	size_t n = 0;
	for (size_t i = 0; i < ne; i++)
		if (tg_tree_contains(tree, (uint32_t)i) && kind_held(ev[i].kind, with)) {
			s->evbits[i >> 6] |= (uint64_t)1 << (i & 63);
			n++;
		}
	int rc = alloc_nodes(s, n, (uint32_t)ne);
	int64_t blk[64]; /* the starts of the block being filled */
	for (size_t i = 0, k = 0; !rc && i < ne; i++) {
		if (!holds(s, (uint32_t)i))
			continue;
		tg_skel_node *x = &s->nodes[k];
		blk[k & 63] = ev[i].ts;
		int64_t d = tg_event_dur(t, &ev[i]);
		if (d >= 0 && d < (int64_t)TG_SKEL_WIDE_DUR) /* set_dur's common case, inline */
			x->dur = (uint32_t)d;
		else
			rc = set_dur(s, k, d);
		set_event(s, k, (uint32_t)i);
		x->name = ev[i].name;
		x->kind = ev[i].kind;
		x->linked = tg_kind_is_gpu(ev[i].kind) && tg_tree_linked_like_tracelens(tree, (uint32_t)i);
		if (!rc && ((k & 63) == 63 || k + 1 == n))
			rc = set_starts(s, k >> 6, blk, (k & 63) + 1);
		k++;
	}
	/* the nearest held ancestors' scratch: a slot per event the skeleton
	 * does not hold, not per event (1 GB of JSON: 12.8 -> ~5 MB beside
	 * the nodes, the parts' peak) */
	uint32_t *up = rc ? NULL : tg_malloc((ne - n + 1) * sizeof(uint32_t));
	if (rc || !up) {
		free(up);
		tg_skeleton_free(s);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < ne - n + 1; i++)
		up[i] = TG_NONE - 1; /* nearest_held's UNKNOWN */
	rank_events(s);
	for (size_t i = 0, k = 0; i < ne; i++) {
		if (!holds(s, (uint32_t)i))
			continue;
		uint32_t p = tg_tree_parent(tree, (uint32_t)i);
		s->nodes[k++].parent = p == TG_NONE ? TG_NONE : nearest_held(up, s, tree, p);
	}
	free(up);
	*out = s; /* without its order by start: a view sorts it when it needs it */
	return 0;
}

/* 0 when following parents from every entry ends (no cycle); state is
 * scratch of n bytes, zeroed. */
static int acyclic(const tg_skel_entry *in, size_t n, uint8_t *state, size_t *bad)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t x = (uint32_t)i;
		while (x != TG_NONE && state[x] == 0) {
			state[x] = 1; /* on the current path */
			x = in[x].parent;
		}
		if (x != TG_NONE && state[x] == 1) {
			*bad = i;
			return -1;
		}
		for (x = (uint32_t)i; x != TG_NONE && state[x] == 1; x = in[x].parent)
			state[x] = 2;
	}
	return 0;
}

/* What is wrong with entry i of n, or NULL. */
static const char *node_fault(const tg_skel_entry *in, size_t i, size_t n, uint32_t nevents, uint32_t natoms,
                              unsigned with)
{
	const tg_skel_entry *x = &in[i];
	if (x->event >= nevents)
		return "event out of range";
	if (i && in[i - 1].event >= x->event)
		return "events not in increasing order";
	if (x->parent != TG_NONE && (x->parent >= n || x->parent == i))
		return "parent out of range";
	if (x->name >= natoms || x->name >= TG_SKEL_MAX_NAMES)
		return "name out of range";
	if (x->kind >= TG_KIND_COUNT || !kind_held(x->kind, with))
		return "kind not held";
	if (x->linked > 1)
		return "link not 0 or 1";
	if (x->dur < 0)
		return "negative duration";
	return NULL;
}

/* s's nodes made from the n checked entries. 0 or TG_ENOMEM. */
static int make_nodes(tg_skeleton *s, const tg_skel_entry *in, size_t n, uint32_t nevents)
{
	int rc = alloc_nodes(s, n, nevents);
	int64_t blk[64];
	for (size_t i = 0; !rc && i < n; i++) {
		tg_skel_node *x = &s->nodes[i];
		blk[i & 63] = in[i].ts;
		x->parent = in[i].parent;
		x->name = in[i].name;
		x->kind = in[i].kind;
		x->linked = in[i].linked;
		set_event(s, i, in[i].event);
		rc = set_dur(s, i, in[i].dur);
		if (!rc && ((i & 63) == 63 || i + 1 == n))
			rc = set_starts(s, i >> 6, blk, (i & 63) + 1);
	}
	if (!rc)
		rank_events(s);
	return rc;
}

int tg_skeleton_adopt(tg_skeleton **out, tg_skel_entry *in, size_t n, uint32_t nevents, tg_atoms *atoms,
                      unsigned with, const char *what)
{
	*out = NULL;
	uint32_t natoms = atoms ? tg_atoms_count(atoms) : 0;
	int rc = natoms > TG_SKEL_MAX_NAMES ? tg_error_set(TG_EFORMAT, "%s: skeleton: more than %u names", what,
	                                                   TG_SKEL_MAX_NAMES)
	                                    : 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const char *fault = node_fault(in, i, n, nevents, natoms, with);
		if (fault)
			rc = tg_error_set(TG_EFORMAT, "%s: skeleton node %zu: %s", what, i, fault);
	}
	uint8_t *state = rc ? NULL : tg_calloc(n ? n : 1, 1);
	size_t bad = 0;
	if (!rc && !state)
		rc = TG_ENOMEM;
	else if (!rc && acyclic(in, n, state, &bad))
		rc = tg_error_set(TG_EFORMAT, "%s: skeleton node %zu: its parents make a cycle", what, bad);
	free(state);
	tg_skeleton *s = rc ? NULL : tg_calloc(1, sizeof(*s));
	if (!rc && !s)
		rc = TG_ENOMEM;
	if (!rc) {
		s->atoms = s->own = atoms;
		s->with = with;
		if (make_nodes(s, in, n, nevents) || order_by_start(s)) {
			tg_skeleton_free(s); /* and atoms, its own now */
			free(in);
			return TG_ENOMEM;
		}
	}
	free(in);
	if (rc) {
		tg_atoms_free(atoms);
		return rc;
	}
	*out = s;
	return 0;
}

void tg_skeleton_rename(tg_skeleton *s, tg_atoms *names, const uint32_t *map)
{
	for (size_t i = 0; i < s->n; i++)
		s->nodes[i].name = s->nodes[i].name < tg_atoms_count(s->atoms) ? map[s->nodes[i].name] : TG_SKEL_MAX_NAMES;
	tg_atoms_free(s->own);
	s->atoms = s->own = names;
}

void tg_skeleton_free(tg_skeleton *s)
{
	if (!s)
		return;
	free(s->nodes);
	tg_big_free(s->held[0]);
	tg_big_free(s->held[1]);
	free(s->by_start);
	free(s->start_rank);
	free(s->wide);
	free(s->wide_ts);
	free(s->base);
	free(s->evbits);
	free(s->evrank);
	free(s->evsel);
	tg_atoms_free(s->own);
	free(s);
}

const tg_skel_node *tg_skeleton_nodes(const tg_skeleton *s, size_t *n)
{
	*n = s->n;
	return s->nodes;
}

const uint32_t *tg_skeleton_by_start(const tg_skeleton *s)
{
	return s->by_start;
}

const uint32_t *tg_skeleton_start_rank(const tg_skeleton *s)
{
	return s->start_rank;
}

uint32_t tg_skeleton_events(const tg_skeleton *s)
{
	return s->nevents;
}

unsigned tg_skeleton_with(const tg_skeleton *s)
{
	return s->with;
}

const tg_atoms *tg_skeleton_atoms(const tg_skeleton *s)
{
	return s->atoms;
}

uint32_t tg_skeleton_find(const tg_skeleton *s, uint32_t ev)
{
	if (ev >= s->nevents)
		return TG_NONE;
	uint64_t w = s->evbits[ev >> 6], bit = (uint64_t)1 << (ev & 63);
	if (!(w & bit))
		return TG_NONE;
	return s->evrank[ev >> 6] + tg_popcount64(w & (bit - 1));
}
