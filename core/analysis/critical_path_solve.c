/*
 * critical_path_solve.c - the longest path of the critical-path graph and
 * its breakdown (critical_path_impl.h), as HTA's critical_path() and
 * summary() compute them: networkx's dag_longest_path over the edges'
 * weights (a weight of -1 us or less counts 0, HTA's fix for events that
 * end before their children), then each edge of the path classified by its
 * type and its event (bound_by) and summed with its weight as added.
 *
 * Order of visit: Kahn's algorithm with a FIFO queue seeded with the nodes
 * that have no predecessor in node order, successors in edge order (this
 * is networkx's topological_generations flattened); each node keeps the
 * first predecessor that gives it its greatest distance; the path ends at
 * the first node of the order with the greatest distance. A node left out
 * of the order lies on a cycle: the trace is refused, as HTA refuses it.
 */
#include "critical_path_impl.h"
#include "../../util/big.h"
#include "../../util/idmap.h"
#include "../../util/sort.h"

#include <stdlib.h>
#include <string.h>

/* A node on a cycle, for the message. A summary's lean build has given the
 * nodes' events back by then: its message names none (tg_cp_summarize
 * builds again, not lean, for the full one). */
static int cycle_error(const tg_critical_path *cp, const uint8_t *indeg)
{
	for (size_t v = 0; v < cp->nnodes && cp->node_ev; v++)
		if (indeg[v]) {
			uint32_t ev = cp_node_ev(cp, v), s = 0;
			while (s < cp->nnodes && !(cp_node_ev(cp, s) == ev && cp_node_start(cp, s)))
				s++; /* its start node (the events' nodes are freed by now) */
			return tg_error_set(
				TG_EFORMAT,
				"critical path: the events make a cycle of dependencies (through '%s' "
				"at %.3f ms: nesting or syncs out of time order); HTA refuses such a trace too",
				tg_trace_str(cp->t, cp_event(cp, ev)->name), (double)cp_node_ts(cp, s) / 1e6);
		}
	return tg_error_set(TG_EFORMAT, "critical path: the events make a cycle of dependencies");
}

/* Each node's best edge in, held as its source's distance from the node
 * (2 bytes a node, where the edge's place took 4): an edge is known by its
 * two nodes (the merge left one edge a pair, and no chain edge repeats
 * another: cp_edge_at). 0: none; CP_FROM_FAR: the source in far. */
struct from {
	int16_t *d;
	struct cp_dist far; /* node -> its source, for the few farther than cp_chain_reach */
};

#define CP_FROM_FAR INT16_MIN

/* The source of node v's best edge in, TG_NONE. */
static inline uint32_t from_get(const struct from *f, uint32_t v)
{
	int16_t d = f->d[v];
	if (!d)
		return TG_NONE;
	return d == CP_FROM_FAR ? (uint32_t)cp_dist_get(&f->far, v) : (uint32_t)((int64_t)v + d);
}

/* Node v's best edge in is now from u (TG_NONE: none). Returns 0 or
 * TG_ENOMEM. */
static inline int from_set(struct from *f, uint32_t v, uint32_t u)
{
	if (u == TG_NONE) {
		f->d[v] = 0;
		return 0;
	}
	int64_t d = (int64_t)u - (int64_t)v;
	if (d > cp_chain_reach || d < -cp_chain_reach) {
		f->d[v] = CP_FROM_FAR;
		return cp_dist_set(&f->far, v, u);
	}
	f->d[v] = (int16_t)d;
	return 0;
}

/* The edge u -> v: its place in cp->edges (offs: the packed offsets, NULL
 * once made whole again in cp->soff), or TG_NONE for u's chain edge. */
static uint32_t cp_edge_at(const tg_critical_path *cp, const struct cp_offs *offs, uint32_t u, uint32_t v)
{
	if (cp->chain && cp_chain_next(cp, u) == v)
		return TG_NONE;
	uint32_t lo, hi;
	if (offs)
		cp_offs_range(offs, u, &lo, &hi);
	else
		lo = cp->soff[u], hi = cp->soff[u + 1];
	for (uint32_t k = lo; k < hi; k++)
		if (cp->edges[k].dst == v)
			return k;
	return TG_NONE; /* cannot happen: v's best edge in is from u */
}

/* A walk back along the best edges visits each node once at most (Kahn's
 * order makes every best predecessor a node visited before): one longer
 * than the nodes is a broken link, an error, never a loop that holds the
 * process (i36cp's mutation of a far source looped so). */
static int walk_too_long(void)
{
	return tg_error_set(TG_EINVAL, "critical path: the best edges make a loop (a bug: please report it)");
}

/* The path ending at best into cp->path (its nodes), allocated here from
 * each node's best predecessor (from). Returns 0, TG_ENOMEM, or TG_EINVAL
 * when the predecessors loop (walk_too_long). */
static int trace_back(tg_critical_path *cp, const struct from *from, uint32_t best)
{
	size_t n = 0;
	for (uint32_t v = best; v != TG_NONE; v = from_get(from, v))
		if (++n > cp->nnodes)
			return walk_too_long();
	if (!(cp->path = tg_big_alloc((n + 1) * sizeof(uint32_t)))) /* sized to the path, once the queue is gone */
		return TG_ENOMEM;
	n = 0;
	for (uint32_t v = best; v != TG_NONE; v = from_get(from, v))
		cp->path[n++] = v;
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t x = cp->path[i];
		cp->path[i] = cp->path[n - 1 - i];
		cp->path[n - 1 - i] = x;
	}
	cp->npath = n;
	return 0;
}

/* Kahn's FIFO queue as a ring: it holds the nodes ready and not yet
 * visited, far fewer than the nodes; its capacity a power of two, doubled
 * when full. */
struct ring {
	uint32_t *v;
	size_t cap, head, n;
};

static int ring_grow(struct ring *q)
{
	size_t cap = q->cap ? 2 * q->cap : 1024;
	uint32_t *v = tg_malloc(cap * sizeof(uint32_t));
	if (!v)
		return TG_ENOMEM;
	for (size_t i = 0; i < q->n; i++)
		v[i] = q->v[(q->head + i) & (q->cap - 1)];
	free(q->v);
	*q = (struct ring){v, cap, 0, q->n};
	return 0;
}

static inline int ring_push(struct ring *q, uint32_t x)
{
	if (q->n == q->cap && ring_grow(q))
		return TG_ENOMEM;
	q->v[(q->head + q->n++) & (q->cap - 1)] = x;
	return 0;
}

static inline uint32_t ring_pop(struct ring *q)
{
	uint32_t x = q->v[q->head];
	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	return x;
}

/* The in-degrees, a byte a node: a node of 255 predecessors or more (the
 * runtime lock's ends, a Context Sync's host call: few) holds 255 and its
 * count in cnt, at the slot big maps it to; 0 once its last predecessor is
 * visited, as every node's. */
struct indeg {
	uint8_t *d;
	tg_idmap *big;
	uint32_t *cnt;
};

static void indeg_free(struct indeg *in)
{
	free(in->d);
	tg_idmap_free(in->big);
	free(in->cnt);
	*in = (struct indeg){0};
}

/* Counts the edges into each node: saturated at 255 in a first pass, then
 * exactly for the nodes that reached it. Returns 0 or TG_ENOMEM. */
static int indeg_count(struct indeg *in, const tg_critical_path *cp)
{
	size_t nbig = 0;
	if (!in->d && !(in->d = tg_malloc(cp->nnodes + 1)))
		return TG_ENOMEM;
	memset(in->d, 0, cp->nnodes + 1);
	for (size_t e = 0; e < cp->nedges; e++) {
		uint8_t *d = &in->d[cp->edges[e].dst];
		*d += *d != 255;
	}
	for (uint32_t v = 0, s; cp->chain && v < cp->nnodes; v++)
		if ((s = cp_chain_next(cp, v)) != TG_NONE) {
			uint8_t *d = &in->d[s];
			*d += *d != 255;
		}
	for (size_t v = 0; v < cp->nnodes; v++)
		nbig += in->d[v] == 255;
	tg_idmap_free(in->big);
	free(in->cnt);
	in->big = tg_idmap_new(nbig);
	in->cnt = tg_calloc(nbig + 1, sizeof(uint32_t));
	if (!in->big || !in->cnt)
		return TG_ENOMEM;
	for (uint32_t v = 0, k = 0; v < cp->nnodes; v++)
		if (in->d[v] == 255 && tg_idmap_put(in->big, v, k++) < 0)
			return TG_ENOMEM;
	for (size_t e = 0; e < cp->nedges; e++)
		if (in->d[cp->edges[e].dst] == 255)
			in->cnt[tg_idmap_get(in->big, cp->edges[e].dst)]++;
	for (uint32_t v = 0, s; cp->chain && v < cp->nnodes; v++)
		if ((s = cp_chain_next(cp, v)) != TG_NONE && in->d[s] == 255)
			in->cnt[tg_idmap_get(in->big, s)]++;
	return 0;
}

/* One predecessor of v visited: 1 when it was the last. */
static inline int indeg_drop(struct indeg *in, uint32_t v)
{
	if (in->d[v] != 255)
		return !--in->d[v];
	if (--in->cnt[tg_idmap_get(in->big, v)])
		return 0;
	in->d[v] = 0;
	return 1;
}

/* The rank the longest path's ties go by of the edge u -> v: 2 rank + 1
 * for an edge of cp->edges (its place), and 2 cp->chain_rank for a chain
 * edge: after the edges added before the call stacks (the lock's), before
 * the rest. */
static inline uint32_t tie_rank(const tg_critical_path *cp, const struct cp_offs *offs, uint32_t u, uint32_t v)
{
	uint32_t k = cp_edge_at(cp, offs, u, v);
	return k == TG_NONE ? 2 * cp->chain_rank : 2 * (uint32_t)cp->edges[k].key + 1;
}

/* The weight of an edge from u (time tu) to v in units of unit (may be
 * negative): 0 when zero; the nodes' times from t32, else their events. */
static inline __attribute__((always_inline)) int64_t weight(const tg_critical_path *cp, const uint32_t *t32,
                                                            int64_t tu, uint32_t v, int zero, int64_t unit)
{
	if (zero)
		return 0;
	if (t32)
		return (int64_t)t32[v] - tu;
	return unit == 1000 ? (cp_node_ts(cp, v) - tu) / 1000 : cp_node_ts(cp, v) - tu; /* a multiple of unit */
}

/* Node v reached at distance c by the edge from u of tie rank rank
 * (tie_rank): kept when v had none, c is longer, or as long and the
 * edge's rank lower (networkx takes a longer predecessor only). Returns 0
 * or TG_ENOMEM. */
static inline __attribute__((always_inline)) int relax(const tg_critical_path *cp, const struct cp_offs *offs,
                                                       struct from *from, struct cp_dist *dist, int64_t c,
                                                       uint32_t v, uint32_t u, uint32_t rank)
{
	uint32_t f = from_get(from, v);
	if (f != TG_NONE) {
		int64_t dv = cp_dist_get(dist, v);
		if (c < dv || (c == dv && rank >= tie_rank(cp, offs, f, v)))
			return 0;
	}
	int rc = from_set(from, v, u);
	return rc ? rc : cp_dist_set(dist, v, c);
}

/* Kahn's order and dag_longest_path in one pass: a node's distance is
 * final when it leaves the queue (all its predecessors have), and is then
 * pushed along its edges; a node keeps the longest predecessor edge, the
 * first in edge order among equals (networkx walks the predecessors in
 * edge order and takes a longer one only: the edges' ranks). Distances and
 * weights in units of unit ns (cp->t_unit: every node's time is a whole
 * number of them; a weight of -1 us or less counts 0), the nodes' times
 * from t32 (narrow: in units from the first node's) or else read from
 * their events (cp_node_ts); the distances held in dist only while a node
 * is reached and not visited. indeg and from as longest() sets them up;
 * from ends as each node's best edge in (its place), TG_NONE where the
 * path would start; *best the path's last node, *bestd its distance. */
static int kahn(tg_critical_path *cp, const struct cp_offs *offs, struct indeg *in, struct from *from,
                struct cp_dist *dist, const uint32_t *t32, int64_t unit, uint32_t *best, int64_t *bestd)
{
	const cp_edge *edges = cp->edges;
	const int64_t none = -((1000 + unit - 1) / unit); /* a weight of at most this counts 0 */
	struct ring q = {0};
	size_t done = 0;
	int rc = 0;
	for (uint32_t v = 0; v < cp->nnodes && !rc; v++)
		if (!in->d[v])
			rc = ring_push(&q, v);
	*best = TG_NONE;
	*bestd = 0;
	while (q.n && !rc) {
		uint32_t u = ring_pop(&q);
		int64_t d = 0;
		done++;
		if (from->d[u])
			d = cp_dist_take(dist, u);
		if (d < 0) {
			d = 0;
			from->d[u] = 0; /* the path would start here */
		}
		int64_t tu = t32 ? t32[u] : cp_node_ts(cp, u);
		if (*best == TG_NONE || d > *bestd) {
			*best = u;
			*bestd = d;
		}
		uint32_t lo, hi, ch = cp->chain ? cp_chain_next(cp, u) : TG_NONE;
		cp_offs_range(offs, u, &lo, &hi);
		for (uint32_t k = lo; k <= hi; k++) {
			if (ch != TG_NONE && (k == hi || edges[k].key >= cp->chain_rank)) { /* u's chain edge, in rank order */
				int zero = (cp_chain_flags(cp, u) & CP_CHAIN_ZERO) != 0;
				int64_t w = weight(cp, t32, tu, ch, zero, unit);
				if ((rc = relax(cp, offs, from, dist, d + (w <= none ? 0 : w), ch, u, 2 * cp->chain_rank)))
					break;
				if (indeg_drop(in, ch) && (rc = ring_push(&q, ch)))
					break;
				ch = TG_NONE;
			}
			if (k == hi)
				break;
			const cp_edge *e = &edges[k];
			uint32_t v = e->dst;
			int64_t w = weight(cp, t32, tu, v, e->zero, unit);
			if ((rc = relax(cp, offs, from, dist, d + (w <= none ? 0 : w), v, u, 2 * (uint32_t)e->key + 1)))
				break;
			if (indeg_drop(in, v) && (rc = ring_push(&q, v)))
				break;
		}
	}
	free(q.v);
	if (!rc && done != cp->nnodes)
		rc = cycle_error(cp, in->d);
	return rc;
}

/* HTA's bound_by of an edge. */
static tg_cp_bound bound_of(const cp_edge *e)
{
	switch (CP_EDGE_TYPE(e)) {
	case TG_CP_EDGE_KERNEL_KERNEL: return TG_CP_KERNEL_KERNEL;
	case TG_CP_EDGE_LAUNCH: return TG_CP_LAUNCH;
	case TG_CP_EDGE_DEPENDENCY:
	case TG_CP_EDGE_SYNC: return TG_CP_DEPENDENCY;
	default: break;
	}
	return (tg_cp_bound)e->cls; /* its event's, found when it was added (critical_path_edges.c) */
}

/* A summary's breakdown (lean, the nodes' 32-bit times in t32), summed
 * along the best edges back from best instead of from a path made first:
 * each edge's source from the packed offsets, its weight as added (as
 * breakdown's: the order of the sums does not change them), the path's
 * nodes counted into cp->npath. No path (4 bytes a node of it) and no
 * offsets made whole again (4 bytes a node) beside the graph: they were
 * the lean build's highest phase at 1 GB. 0, or TG_EINVAL when the
 * predecessors loop (walk_too_long). */
static int sum_path(tg_critical_path *cp, const struct cp_offs *offs, const struct from *from,
                     const uint32_t *t32, uint32_t best)
{
	size_t n = 0;
	for (uint32_t v = best; v != TG_NONE; n++) {
		uint32_t src = from_get(from, v);
		if (src == TG_NONE)
			break;
		if (n >= cp->nnodes)
			return walk_too_long();
		uint32_t k = cp_edge_at(cp, offs, src, v);
		tg_cp_bound b;
		int zero;
		if (k == TG_NONE) { /* a chain edge: its flags the source's nibble */
			unsigned f = cp_chain_flags(cp, src);
			b = f & CP_CHAIN_OP ? (tg_cp_bound)(f >> CP_CHAIN_CLS_SHIFT) : TG_CP_DEPENDENCY;
			zero = (f & CP_CHAIN_ZERO) != 0;
		} else {
			const cp_edge *e = &cp->edges[k];
			b = bound_of(e);
			zero = e->zero;
		}
		cp->bound_ns[b] += zero ? 0 : ((int64_t)t32[v] - (int64_t)t32[src]) * cp->t_unit;
		v = src;
	}
	cp->npath = best == TG_NONE ? 0 : n + 1;
	cp->summed = 1;
	return 0;
}

/* The longest path into cp->path and cp->length (a summary's lean build:
 * its breakdown instead, sum_path, and no cp->path); TG_EFORMAT for a cycle.
 * Its scratch: in-degrees (a byte, struct indeg), each node's best edge in
 * (its source's distance, struct from: 2 bytes) and the nodes' times in 32
 * bits of their unit from the first (the graph keeps none), 7 bytes a node
 * (3 when the nodes' span outgrows 32 bits: their times are then read
 * from the events), and the distances of the nodes reached and not yet visited
 * (struct cp_dist: a table of the frontier, 64-bit, where an array took 4
 * bytes a node and 8 once a distance outgrew 32 bits). */
static int longest(tg_critical_path *cp)
{
	size_t nn = cp->nnodes;
	int64_t unit = cp->t_unit;
	int rc;
	struct indeg in = {0};
	struct cp_offs offs = {0};
	struct cp_dist dist = {0};
	struct from from = {0};
	uint32_t *t32 = NULL;
	uint32_t best = TG_NONE;
	int64_t bestd = 0;
	int64_t t0 = nn ? cp_node_ts(cp, 0) : 0; /* node 0 is the first in time */
	uint32_t *spare = NULL; /* a block freed here, its pages taken by the next array */
	if ((rc = cp_offs_pack(&offs, cp, &spare))) /* the offsets packed while the loop's arrays are live */
		goto out;
	if (cp->t_narrow && (t32 = tg_big_realloc(spare, (nn + 1) * sizeof(uint32_t)))) {
		spare = NULL;
		for (uint32_t v = 0; v < nn; v++)
			t32[v] = (uint32_t)((cp_node_ts(cp, v) - t0) / unit);
	}
	if (cp->lean && t32) { /* the times are all a summary reads of the nodes from here */
		tg_big_free(spare);
		spare = cp->node_ev;
		cp->node_ev = NULL;
		free(cp->evf); /* and of the events nothing: the breakdown is summed here (sum_path) */
		cp->evf = NULL;
	}
	from.d = tg_big_realloc(spare, (nn + 1) * sizeof(int16_t));
	if (from.d)
		spare = NULL;
	tg_big_free(spare);
	if (!from.d || (cp->t_narrow && !t32)) {
		rc = TG_ENOMEM;
		goto out;
	}
	memset(from.d, 0, (nn + 1) * sizeof(int16_t));
	if ((rc = indeg_count(&in, cp)) || (rc = cp_dist_init(&dist, nn)) || (rc = cp_dist_init(&from.far, nn)) ||
	    (rc = kahn(cp, &offs, &in, &from, &dist, t32, unit, &best, &bestd)))
		goto out;
	cp->length = unit * bestd;
	indeg_free(&in);
	cp_dist_free(&dist);
	if (!cp->node_ev) { /* lean, the times kept: the breakdown here, no path */
		rc = sum_path(cp, &offs, &from, t32, best);
		goto out;
	}
	if ((rc = cp_offs_unpack(&offs, cp)))
		goto out;
	tg_big_free(t32);
	t32 = NULL;
	rc = trace_back(cp, &from, best);
out:
	if (!cp->summed && !cp->soff && offs.deg && cp_offs_unpack(&offs, cp) && !rc) /* the graph whole for the caller */
		rc = TG_ENOMEM;
	cp_offs_free(&offs);
	indeg_free(&in);
	cp_dist_free(&dist);
	tg_big_free(t32);
	tg_big_free(from.d);
	cp_dist_free(&from.far);
	return rc;
}

/* The ops longest first, then by event, with wide pairs: two radix
 * passes, event then time (each event is once in the list, so the order is
 * total). */
static int sort_ops_pairs(tg_critical_path *cp)
{
	tg_sort_pair *kv = tg_malloc((cp->nops + 1) * sizeof(*kv));
	if (!kv)
		return TG_ENOMEM;
	for (size_t i = 0; i < cp->nops; i++)
		kv[i] = (tg_sort_pair){cp->ops[i].event, (uint32_t)i};
	int rc = tg_sort_pairs(kv, cp->nops);
	for (size_t i = 0; i < cp->nops && !rc; i++)
		kv[i].key = ~tg_sort_key_i64(cp->ops[kv[i].idx].ns);
	if (!rc && !(rc = tg_sort_pairs(kv, cp->nops)))
		rc = tg_sort_apply(cp->ops, cp->nops, sizeof(tg_cp_op), kv);
	free(kv);
	return rc;
}

/* The ops, in event order (collect_ops), longest first and then by event:
 * one sort of 64-bit keys, the time below the longest above the op's
 * position (8 bytes an op and the sort's 8, instead of a pair sort's 16
 * and 16), the ops then moved along the permutation's cycles;
 * sort_ops_pairs when a time and a position do not fit 64 bits. */
static int sort_ops(tg_critical_path *cp)
{
	size_t n = cp->nops;
	int64_t most = INT64_MIN, least = INT64_MAX;
	for (size_t i = 0; i < n; i++) {
		most = cp->ops[i].ns > most ? cp->ops[i].ns : most;
		least = cp->ops[i].ns < least ? cp->ops[i].ns : least;
	}
	uint64_t range = n ? (uint64_t)most - (uint64_t)least : 0;
	int rb = range ? 64 - __builtin_clzll(range) : 0, ib = n > 1 ? 64 - __builtin_clzll(n - 1) : 0;
	if (rb + ib > 64 || ib == 64)
		return sort_ops_pairs(cp);
	uint64_t *key = tg_big_alloc((n + 1) * sizeof(uint64_t)), mask = ib ? ~UINT64_C(0) >> (64 - ib) : 0;
	if (!key)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		key[i] = (rb ? ((uint64_t)most - (uint64_t)cp->ops[i].ns) << ib : 0) | i;
	int rc = cp_sort_keys(key, n);
	uint32_t *from = (uint32_t *)key; /* entry m's 4 bytes overwrite keys already read */
	for (size_t m = 0; m < n && !rc; m++)
		from[m] = (uint32_t)(key[m] & mask);
	for (uint32_t m = 0; m < n && !rc; m++) { /* ops[m] = the old ops[from[m]], cycle by cycle */
		if (from[m] == m)
			continue;
		tg_cp_op first = cp->ops[m];
		uint32_t j = m;
		while (from[j] != m) {
			uint32_t k = from[j];
			cp->ops[j] = cp->ops[k];
			from[j] = j;
			j = k;
		}
		cp->ops[j] = first;
		from[j] = j;
	}
	tg_big_free(key);
	return rc;
}

/* The graph and the path's nodes, once the steps are read: the ops are
 * collected and sorted, and the result held, without them. */
static void free_graph(tg_critical_path *cp)
{
	void **arrays[] = {(void **)&cp->edges, (void **)&cp->soff, (void **)&cp->node_ev,
	                   (void **)&cp->path,  (void **)&cp->attr, (void **)&cp->chain,
	                   (void **)&cp->chainf};
	for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++) {
		tg_big_free(*arrays[k]);
		*arrays[k] = NULL;
	}
	tg_idmap_free(cp->chain_far);
	cp->chain_far = NULL;
	cp->nedges = cp->cap = 0;
}

/* The events the path's steps are attributed to, with their time, in
 * event order (sort_ops breaks ties by it): marked, numbered, then filled
 * from the steps alone (the graph is gone by then). Returns 0 or
 * TG_ENOMEM. */
static int collect_ops(tg_critical_path *cp)
{
	uint32_t *slot = tg_big_alloc((cp->nev + 1) * sizeof(uint32_t));
	if (!slot)
		return TG_ENOMEM;
	memset(slot, 0xff, (cp->nev + 1) * sizeof(uint32_t));
	size_t n = 0;
	for (size_t i = 0; i < cp->nsteps; i++)
		if (cp->steps[i].event != TG_NONE)
			slot[cp->steps[i].event] = 0;
	for (size_t ev = 0; ev < cp->nev; ev++)
		if (!slot[ev])
			slot[ev] = (uint32_t)n++;
	cp->ops = tg_calloc(n + 1, sizeof(tg_cp_op));
	if (!cp->ops) {
		tg_big_free(slot);
		return TG_ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		cp->ops[k].event = TG_NONE;
	for (size_t i = 0; i < cp->nsteps; i++) {
		const tg_cp_step *st = &cp->steps[i];
		if (st->event == TG_NONE)
			continue;
		tg_cp_op *op = &cp->ops[slot[st->event]];
		if (op->event == TG_NONE) /* its first step gives its bound */
			*op = (tg_cp_op){st->event, 0, st->bound};
		op->ns += st->ns;
	}
	cp->nops = n;
	tg_big_free(slot);
	return 0;
}

/* The ops collected and sorted; the path's events are put aside meanwhile
 * (4 bytes a node of the path: the steps hold them, from and to) and read
 * back from the steps after. Returns 0 or TG_ENOMEM. */
static int make_ops(tg_critical_path *cp)
{
	size_t n = cp->nsteps;
	if (n) {
		free(cp->path_events);
		cp->path_events = NULL;
	}
	int rc = collect_ops(cp);
	if (!rc)
		rc = sort_ops(cp);
	if (rc || !n)
		return rc;
	if (!(cp->path_events = tg_malloc((n + 2) * sizeof(uint32_t))))
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		cp->path_events[i] = cp->steps[i].from;
	cp->path_events[n] = cp->steps[n - 1].to;
	return 0;
}

/* What a step needs of the graph, read before the graph is freed: 16
 * bytes a node of the path, so that the steps (32) are allocated once the
 * graph (about 22 bytes a node: edges, node times, events and flags) is
 * gone instead of beside it. Entry i holds path node i and the path's edge
 * i out of it. */
struct path_rec {
	int64_t ts;     /* node i's time */
	uint32_t event; /* edge i's attributed event, TG_NONE */
	uint8_t type, bound, start, zero;
};

/* The path's steps from its records (the last one holds the last node
 * alone) and its events. Returns 0 or TG_ENOMEM. */
static int make_steps(tg_critical_path *cp, const struct path_rec *r, size_t n)
{
	if (!(cp->steps = tg_big_calloc(n + 1, sizeof(tg_cp_step))))
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		cp->steps[i] = (tg_cp_step){.ts = r[i].ts,
		                            .ns = r[i].zero ? 0 : r[i + 1].ts - r[i].ts,
		                            .from = cp->path_events[i],
		                            .to = cp->path_events[i + 1],
		                            .event = r[i].event,
		                            .type = r[i].type,
		                            .bound = r[i].bound,
		                            .from_start = r[i].start,
		                            .to_start = r[i + 1].start};
	cp->nsteps = n;
	return 0;
}


/* The path's edges, the breakdown and the events on it; the graph is freed
 * once they are read (unless opts.keep_graph), before the steps are made
 * and the ops collected from them. */
static int breakdown(tg_critical_path *cp)
{
	if (cp->summed) { /* a summary's, found with the path (sum_path) */
		free_graph(cp);
		return 0;
	}
	size_t n = cp->npath ? cp->npath - 1 : 0;
	int full = !cp->opts.summary_only;
	struct path_rec *rec = NULL;
	if (full && !(cp->path_events = tg_malloc((cp->npath + 1) * sizeof(uint32_t))))
		return TG_ENOMEM;
	for (size_t i = 0; i < cp->npath && cp->node_ev; i++) { /* lean: no events, no count */
		uint32_t ev = cp_node_ev(cp, cp->path[i]);
		if (full)
			cp->path_events[i] = ev;
		if (!(cp->evf[ev] & CP_ON_PATH)) {
			cp->evf[ev] |= CP_ON_PATH;
			cp->stats.path_events++;
		}
	}
	/* the path's nodes become its edges (an edge's source is the one
	 * before's destination), so that the lists by source go before the
	 * records are allocated */
	uint32_t src = cp->npath ? cp->path[0] : TG_NONE;
	for (size_t i = 0; i < n; i++)
		cp->path[i] = cp_find_edge(cp, cp->path[i], cp->path[i + 1]);
	if (!cp->opts.keep_graph) {
		tg_big_free(cp->soff);
		cp->soff = NULL;
	}
	if (full && !(rec = tg_big_calloc(cp->npath + 1, sizeof(*rec))))
		return TG_ENOMEM;
	int64_t ts = cp->npath ? cp_node_ts(cp, src) : 0; /* src's: each node's time read once */
	for (size_t i = 0; i < n; i++) {
		const cp_edge *e = &cp->edges[cp->path[i]];
		tg_cp_bound b = bound_of(e);
		int type = CP_EDGE_TYPE(e);
		int64_t dts = cp_node_ts(cp, e->dst);
		cp->bound_ns[b] += e->zero ? 0 : dts - ts; /* cp_edge_w */
		if (full) {
			rec[i] = (struct path_rec){.ts = ts, .event = TG_NONE, .start = cp_node_start(cp, src)};
			rec[i].type = (uint8_t)type;
			rec[i].bound = (uint8_t)b;
			rec[i].zero = e->zero;
			if (type == TG_CP_EDGE_OPERATOR || type == TG_CP_EDGE_KERNEL_KERNEL)
				rec[i].event = cp_edge_attr(cp, e);
		}
		src = e->dst;
		ts = dts;
	}
	if (full && cp->npath)
		rec[n] = (struct path_rec){.ts = ts, .start = cp_node_start(cp, src)};
	if (!cp->opts.keep_graph)
		free_graph(cp);
	if (full && !cp->opts.keep_graph && cp->opts.graph_freed)
		cp->opts.graph_freed();
	int rc = full ? make_steps(cp, rec, n) : 0;
	tg_big_free(rec);
	return rc || !full ? rc : make_ops(cp);
}

int cp_solve(tg_critical_path *cp)
{
	int rc = cp_merge_edges(cp);
	if (!rc)
		rc = longest(cp);
	cp->stats.edges = cp->nedges + cp->nchain[0] + cp->nchain[1];
	for (size_t e = 0; e < cp->nedges; e++)
		cp->stats.edges_by_type[CP_EDGE_TYPE(&cp->edges[e])]++;
	cp->stats.edges_by_type[TG_CP_EDGE_DEPENDENCY] += cp->nchain[0];
	cp->stats.edges_by_type[TG_CP_EDGE_OPERATOR] += cp->nchain[1];
	if (!rc)
		rc = breakdown(cp);
	cp->stats.path_nodes = cp->npath;
	return rc;
}
