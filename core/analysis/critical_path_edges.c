/*
 * critical_path_edges.c - the edge list of the critical-path graph
 * (critical_path_impl.h): edges appended as they are added, then sorted by
 * source in place (stable: a counting sort's permutation applied block by
 * block, each edge's source giving way to its rank, its place as added,
 * which the longest path's ties go by) and merged so that an edge added
 * twice keeps its first place and takes the later type and weight, as a
 * networkx DiGraph does (each source's edges searched for an earlier one
 * to the same destination: a source has few, a map for one of many); an edge's
 * source found again from its place; HTA's attribution of span edges to events
 * (the event beside the edge by rank, for the path's steps, and its bound in
 * the edge, all a summary's breakdown needs);
 * the arguments as HTA's loader reads them; and the sorts the other
 * critical_path files share (event indices by a time, a list by its
 * entries' keys), here so that no two files of core/ call each other (an
 * event's correlation id and its name's flags are inline in
 * critical_path_impl.h).
 */
#include "critical_path_impl.h"
#include "../trace/kernel_class.h"
#include "../../util/big.h"
#include "../../util/sort.h"

#include <stdlib.h>
#include <string.h>

int64_t cp_arg_number(const tg_trace *t, const tg_event *e, uint32_t key)
{
	const tg_arg *a = key == TG_NONE ? NULL : tg_event_arg(t, e, key);
	if (!a)
		return -1;
	switch (a->type) {
	case TG_ARG_INT: return a->v.i;
	case TG_ARG_UINT: return (int64_t)a->v.u;
	case TG_ARG_DOUBLE: return (int64_t)a->v.d;
	case TG_ARG_BOOL: return a->v.b;
	case TG_ARG_STR: {
		const char *s = tg_trace_str(t, a->v.atom);
		char *end;
		long long v = strtoll(s, &end, 10);
		return end != s && !*end ? v : -1;
	}
	default: return -1;
	}
}

int64_t cp_wait_arg(const tg_critical_path *cp, uint32_t ev, uint32_t key)
{
	const tg_event *e = cp_event(cp, ev);
	return e->kind == TG_KIND_SYNC ? cp_arg_number(cp->t, e, key) : -1;
}

/* HTA's _attribute_edge: a span edge belongs to the event whose inside it
 * is: the source for start -> x, the destination for end -> end, the
 * parent of both for end -> start; a kernel gap to the kernel before. */
static uint32_t attribute(const tg_critical_path *cp, uint32_t src, uint32_t dst, int type, uint32_t parent)
{
	if (type == TG_CP_EDGE_KERNEL_KERNEL || cp_node_start(cp, src))
		return cp_node_ev(cp, src);
	if (!cp_node_start(cp, dst))
		return cp_node_ev(cp, dst);
	return parent;
}

/* HTA's bound_by of an operator edge attributed to event attr (TG_NONE:
 * cpu_bound): a device event's is its kernel's class, a host event's
 * cpu_bound or data_loading. */
static unsigned attr_class(const tg_critical_path *cp, uint32_t attr)
{
	if (attr == TG_NONE || !(cp->evf[attr] & CP_ON_STREAM))
		return attr != TG_NONE && (cp_name_flags(cp, attr) & CPN_DATA_LOAD) ? TG_CP_DATA_LOADING : TG_CP_CPU;
	uint8_t cls = (tg_trace_name_flags(cp->t, cp_event(cp, attr)->name) & TG_NAME_CLASS_MASK) >> TG_NAME_CLASS_SHIFT;
	return cls == TG_KERNEL_COMMUNICATION ? TG_CP_GPU_COMM : TG_CP_GPU_COMPUTE;
}

/* Room for need edges (and their events beside them unless lean). */
static int grow_edges(tg_critical_path *cp, size_t need)
{
	size_t cap = cp->cap;
	if (tg_big_grow((void **)&cp->edges, &cap, need, sizeof(cp_edge)))
		return TG_ENOMEM;
	if (cap != cp->cap && !cp->lean) {
		uint32_t *a = tg_big_realloc(cp->attr, cap * sizeof(uint32_t));
		if (!a)
			return TG_ENOMEM; /* cp->cap unchanged: the attributions' room is the smaller */
		cp->attr = a;
	}
	cp->cap = cap;
	return 0;
}

uint32_t cp_max_edges = CP_MAX_EDGES;

/* Whether the graph holds cp_max_edges edges already: those stored and,
 * in a lean build, the chains implied (cp_add_chain), so that a summary
 * refuses a trace exactly where the full builder does. */
static int edges_full(const tg_critical_path *cp)
{
	return cp->nedges + cp->nchain[0] + cp->nchain[1] >= cp_max_edges;
}

int cp_add_edge(tg_critical_path *cp, uint32_t src, uint32_t dst, int type, int zero, uint32_t attr_parent)
{
	if (src == dst)
		return 0;
	if (type == TG_CP_EDGE_SYNC) {
		int64_t a = cp_stream(cp, cp_node_ev(cp, src)), b = cp_stream(cp, cp_node_ev(cp, dst));
		if (a != -1 && a == b) {
			cp->stats.same_stream_syncs++;
			return 0;
		}
	}
	if (edges_full(cp))
		return tg_error_set(TG_ELIMIT, "critical path: more than %u edges", cp_max_edges);
	if (cp->nedges >= cp->cap && grow_edges(cp, cp->nedges + 1))
		return TG_ENOMEM;
	/* nodes of one time weigh 0 without the flag (their times are read
	 * from the events: not compared here) */
	int zw = type == TG_CP_EDGE_DEPENDENCY || type == TG_CP_EDGE_SYNC || zero;
	uint32_t attr = type == TG_CP_EDGE_OPERATOR || type == TG_CP_EDGE_KERNEL_KERNEL
	                        ? attribute(cp, src, dst, type, attr_parent)
	                        : TG_NONE;
	if (cp->attr)
		cp->attr[cp->nedges] = attr;
	cp->edges[cp->nedges++] = (cp_edge){.key = src,
	                                    .cls = type == TG_CP_EDGE_OPERATOR ? attr_class(cp, attr) : 0,
	                                    .zero = (unsigned)zw,
	                                    .dst = dst,
	                                    .type = (unsigned)type};
	return 0;
}

int32_t cp_chain_reach = INT16_MAX;

int cp_add_chain(tg_critical_path *cp, uint32_t src, uint32_t dst, int type, int zero, uint32_t attr_parent)
{
	if (src == dst) /* as cp_add_edge: no edge */
		return 0;
	if (edges_full(cp))
		return tg_error_set(TG_ELIMIT, "critical path: more than %u edges", cp_max_edges);
	int op = type == TG_CP_EDGE_OPERATOR;
	unsigned cls = op ? attr_class(cp, attribute(cp, src, dst, type, attr_parent)) : 0;
	unsigned f = (op ? CP_CHAIN_OP : 0) | (type == TG_CP_EDGE_DEPENDENCY || zero ? CP_CHAIN_ZERO : 0) |
	             cls << CP_CHAIN_CLS_SHIFT;
	int64_t d = (int64_t)dst - (int64_t)src;
	if (d > cp_chain_reach || d < -cp_chain_reach) {
		if ((!cp->chain_far && !(cp->chain_far = tg_idmap_new(1024))) || tg_idmap_put(cp->chain_far, src, dst) < 0)
			return tg_error_set(TG_ENOMEM, "out of memory");
		d = CP_CHAIN_FAR;
	}
	cp->chain[src] = (int16_t)d;
	cp->chainf[src >> 1] = (uint8_t)((cp->chainf[src >> 1] & ((src & 1) ? 0x0f : 0xf0)) | f << ((src & 1) * 4));
	cp->nchain[op]++;
	return 0;
}

uint32_t cp_find_edge(const tg_critical_path *cp, uint32_t src, uint32_t dst)
{
	if (!cp->soff || src >= cp->nnodes)
		return TG_NONE;
	for (uint32_t k = cp->soff[src]; k < cp->soff[src + 1]; k++)
		if (cp->edges[k].dst == dst)
			return k;
	return TG_NONE;
}

uint32_t cp_edge_src(const tg_critical_path *cp, uint32_t k, uint32_t hint)
{
	const uint32_t *off = cp->soff;
	uint32_t lo, hi, step = 1; /* off[lo] <= k < off[hi] */
	if (hint >= cp->nnodes)
		hint = (uint32_t)cp->nnodes - 1;
	if (off[hint] <= k) { /* gallop up from the hint */
		lo = hint;
		hi = hint + 1;
		while (hi < cp->nnodes && off[hi] <= k) {
			lo = hi;
			hi = hi + step > cp->nnodes ? (uint32_t)cp->nnodes : hi + step;
			step *= 2;
		}
	} else { /* or down: an edge's source is most often a node or two before its destination */
		hi = hint;
		lo = hint ? hint - 1 : 0;
		while (lo && off[lo] > k) {
			hi = lo;
			lo = lo > step ? lo - step : 0;
			step *= 2;
		}
	}
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (off[mid] <= k)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

#define CP_DEAD 7 /* type of an edge merged into an earlier one (no edge type is 7) */

#define CP_FLAG_BITS 8 /* a flag pass's buckets: 2^8 heads (2^9 at 1 GB: slower) */
#define CP_FLAG_HEADS (1 << CP_FLAG_BITS)
#define CP_BLOCK_BITS 11 /* blocks of 2^11 edges scattered back through a buffer (16 KB) */

/* Moves each edge of e[lo..hi) into its bucket of 2^shift places by dest
 * (an American flag pass: one write head a bucket, at most CP_FLAG_HEADS
 * of them, so that the heads' lines and pages stay in the cache and the
 * TLB). dest[lo..hi) holds places in [lo, hi); lo is a multiple of 2^shift. */
static void flag_pass(cp_edge *e, uint32_t *dest, size_t lo, size_t hi, int shift)
{
	uint32_t next[CP_FLAG_HEADS];
	size_t nb = ((hi - lo - 1) >> shift) + 1;
	for (size_t b = 0; b < nb; b++)
		next[b] = (uint32_t)(lo + (b << shift));
	for (size_t b = 0; b < nb; b++) {
		size_t end = lo + ((b + 1) << shift) < hi ? lo + ((b + 1) << shift) : hi;
		while (next[b] < end) {
			cp_edge x = e[next[b]];
			uint32_t dx = dest[next[b]];
			size_t d = (dx - lo) >> shift;
			while (d != b) { /* x goes to bucket d: take what its head holds */
				cp_edge y = e[next[d]];
				uint32_t dy = dest[next[d]];
				e[next[d]] = x;
				dest[next[d]++] = dx;
				x = y;
				dx = dy;
				d = (dx - lo) >> shift;
			}
			e[next[b]] = x;
			dest[next[b]++] = dx;
		}
	}
}

/* Moves e[i] to e[dest[i]] for every i of [lo, hi) (dest[lo..hi) a
 * permutation of lo..hi-1, hi - lo at most 2^bits, lo a multiple of it), in
 * place but for buf (2^CP_BLOCK_BITS edges): flag passes of up to 2^8 heads
 * (flag_pass) down to blocks of 2^CP_BLOCK_BITS places, then each block
 * copied to buf and scattered back while it is in the cache. Followed cycle
 * by cycle over the whole list, the moves missed the cache at every step (4
 * % of the diff's CPU at 100 MB); one flag pass of 2^11 heads at 1 GB
 * missed the TLB at every move (4 % of the diff's CPU), and cycles within
 * the blocks waited on each other's loads. */
static void permute(cp_edge *e, uint32_t *dest, cp_edge *buf, size_t lo, size_t hi, int bits)
{
	if (hi - lo < 2)
		return;
	if (bits > CP_BLOCK_BITS) {
		int levels = (bits - CP_BLOCK_BITS + CP_FLAG_BITS - 1) / CP_FLAG_BITS;
		int shift = bits - (bits - CP_BLOCK_BITS + levels - 1) / levels;
		flag_pass(e, dest, lo, hi, shift);
		for (size_t b = lo; b < hi; b += (size_t)1 << shift)
			permute(e, dest, buf, b, b + ((size_t)1 << shift) < hi ? b + ((size_t)1 << shift) : hi, shift);
		return;
	}
	memcpy(buf, e + lo, (hi - lo) * sizeof(cp_edge)); /* the block, scattered back */
	for (size_t i = lo; i < hi; i++)
		e[dest[i]] = buf[i - lo];
}

/* The edges sorted by source in place, stably (a source's in the order
 * added), each one's src replaced by its rank (its index as added);
 * cp->soff their offsets by source. Scratch: where each edge goes, 4 bytes
 * an edge (permute), handed back in *spare (the caller's next array takes
 * its pages). The room reserved past the edges is given back first.
 * Returns 0 or TG_ENOMEM. */
static int sort_by_source(tg_critical_path *cp, uint32_t **spare)
{
	size_t nn = cp->nnodes, ne = cp->nedges;
	cp_edge *fit = ne + 1 < cp->cap ? tg_big_realloc(cp->edges, (ne + 1) * sizeof(cp_edge)) : NULL;
	uint32_t *afit = cp->attr && ne + 1 < cp->cap ? tg_big_realloc(cp->attr, (ne + 1) * sizeof(uint32_t)) : NULL;
	if (afit) /* by rank from here: as many as the edges now */
		cp->attr = afit;
	if (fit) {
		cp->edges = fit;
		cp->cap = ne + 1;
	}
	uint32_t *off = cp_spare_take(cp, (nn + 2) * sizeof(uint32_t)), *dest = tg_big_alloc((ne + 1) * sizeof(uint32_t));
	cp_edge *buf = tg_malloc(((size_t)1 << CP_BLOCK_BITS) * sizeof(cp_edge));
	if (!off || !dest || !buf) {
		tg_big_free(off);
		tg_big_free(dest);
		free(buf);
		return TG_ENOMEM;
	}
	memset(off, 0, (nn + 2) * sizeof(uint32_t));
	/* counts at v + 2, sums, then each edge placed at off[v + 1]++: off[v]
	 * ends as the start of v's list */
	for (size_t e = 0; e < ne; e++)
		off[cp->edges[e].key + 2]++;
	for (size_t v = 2; v < nn + 2; v++)
		off[v] += off[v - 1];
	for (size_t e = 0; e < ne; e++) {
		dest[e] = off[cp->edges[e].key + 1]++;
		cp->edges[e].key = (uint32_t)e; /* the rank (< CP_MAX_EDGES) */
	}
	permute(cp->edges, dest, buf, 0, ne, ne > 1 ? 64 - __builtin_clzll((uint64_t)(ne - 1)) : 0);
	*spare = dest;
	free(buf);
	cp->soff = off;
	return 0;
}

/* The dead edges left out, the offsets by source made again. */
static void compact(tg_critical_path *cp)
{
	uint32_t w = 0, *off = cp->soff;
	for (size_t u = 0; u < cp->nnodes; u++) {
		uint32_t lo = off[u], hi = off[u + 1]; /* off[u + 1] is rewritten next */
		off[u] = w;
		for (uint32_t k = lo; k < hi; k++)
			if (cp->edges[k].type != CP_DEAD)
				cp->edges[w++] = cp->edges[k];
	}
	off[cp->nnodes] = w;
	cp->nedges = w;
}

uint32_t cp_merge_scan = 32;

/* The first live edge of edges[lo..k) to dst (the source's edges before
 * k), or TG_NONE: a scan, for a source's few edges. */
static uint32_t first_to(const cp_edge *edges, uint32_t lo, uint32_t k, uint32_t dst)
{
	for (uint32_t j = lo; j < k; j++)
		if (edges[j].dst == dst && edges[j].type != CP_DEAD)
			return j;
	return TG_NONE;
}

/* Edge k, added again after edge f (the first from its source to its
 * destination): f keeps its place and takes the type and weight, and the
 * attribution of a span edge; k is dead. */
static void merge_into(tg_critical_path *cp, cp_edge *f, cp_edge *e)
{
	f->type = e->type; /* and its weight: the same nodes, the same zero flag */
	f->zero = e->zero;
	if (CP_EDGE_TYPE(e) == TG_CP_EDGE_OPERATOR || CP_EDGE_TYPE(e) == TG_CP_EDGE_KERNEL_KERNEL) {
		f->cls = e->cls;
		if (cp->attr)
			cp->attr[f->key] = cp->attr[e->key];
	}
	e->type = CP_DEAD;
}

int cp_merge_edges(tg_critical_path *cp)
{
	uint32_t *spare = NULL;
	int rc = sort_by_source(cp, &spare);
	if (rc)
		return rc;
	tg_big_free(spare);
	/* a source's duplicates are found among its own edges (few: the
	 * lock's and the GPU stage's, the chains apart), so that no array by
	 * node (4 bytes a node, the merge's peak at 1 GB) is needed; a source
	 * of many edges (the lock's) through a map of its destinations */
	size_t dead = 0;
	const uint32_t *off = cp->soff;
	tg_idmap *firsts = NULL;
	for (uint32_t u = 0; u < cp->nnodes && !rc; u++) {
		uint32_t lo = off[u], hi = off[u + 1];
		if (hi - lo > cp_merge_scan) { /* a map of its own */
			tg_idmap_free(firsts);
			if (!(firsts = tg_idmap_new(hi - lo))) {
				rc = TG_ENOMEM;
				break;
			}
		}
		int mapped = hi - lo > cp_merge_scan;
		for (uint32_t k = lo; k < hi; k++) {
			cp_edge *e = &cp->edges[k];
			uint32_t first = mapped ? tg_idmap_get(firsts, e->dst) : first_to(cp->edges, lo, k, e->dst);
			if (first == TG_NONE) { /* none yet from u */
				if (mapped && tg_idmap_put(firsts, e->dst, k) < 0) {
					rc = TG_ENOMEM;
					break;
				}
				continue;
			}
			merge_into(cp, &cp->edges[first], e);
			dead++;
		}
	}
	tg_idmap_free(firsts);
	if (rc)
		return rc;
	if (dead)
		compact(cp);
	/* the room the merged edges left goes */
	cp_edge *fit = cp->nedges + 1 < cp->cap ? tg_big_realloc(cp->edges, (cp->nedges + 1) * sizeof(cp_edge)) : NULL;
	if (fit) {
		cp->edges = fit;
		cp->cap = cp->nedges + 1;
	}
	return 0;
}

/* cp_sort_u64 of values that agree from bit hi up: the top digit every
 * value shares passed over, buckets sorted by the next one down. Digits
 * of 11 bits while a bucket holds 64 Ki values or more (their counters,
 * 48 KiB, from the heap: a 1 GB trace's 3.8 M node keys take two levels,
 * not three and insertion sorts of ~60 values), else of 8 (the stack). */
static void sort_u64_from(uint64_t *v, size_t n, int hi)
{
	while (n >= 64 && hi > 0) {
		size_t small[3 * 256], *big = n >= 65536 ? tg_malloc(3 * 2048 * sizeof(size_t)) : NULL;
		int bits = big ? 11 : 8, shift = hi > bits ? hi - bits : 0;
		size_t nb = (size_t)1 << bits, mask = nb - 1, *count = big ? big : small, *next = count + nb,
		       *end = next + nb, at = 0;
		memset(count, 0, nb * sizeof(size_t));
		for (size_t i = 0; i < n; i++)
			count[(v[i] >> shift) & mask]++;
		if (count[(v[0] >> shift) & mask] == n) { /* one bucket: the next digit */
			free(big);
			hi = shift;
			continue;
		}
		for (size_t d = 0; d < nb; d++) {
			next[d] = at;
			at += count[d];
			end[d] = at;
		}
		for (size_t d = 0; d < nb; d++)
			while (next[d] < end[d]) {
				uint64_t x = v[next[d]];
				size_t k = (x >> shift) & mask;
				while (k != d) { /* x goes to bucket k: take what its head holds */
					uint64_t y = v[next[k]];
					v[next[k]++] = x;
					x = y;
					k = (x >> shift) & mask;
				}
				v[next[d]++] = x;
			}
		for (size_t d = 0, lo = 0; shift && d < nb; lo = end[d], d++)
			if (end[d] - lo > 1)
				sort_u64_from(v + lo, end[d] - lo, shift);
		free(big);
		return;
	}
	for (size_t i = 1; i < n && hi > 0; i++) { /* insertion: few values, agreeing from hi up */
		uint64_t x = v[i];
		size_t j = i;
		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

void cp_sort_u64(uint64_t *v, size_t n)
{
	uint64_t differ;
	/* in order, or nearly (a trace's nodes: each event's end a few places
	 * after its start), as tg_sort_u64 takes it: insertion within n moves */
	if (tg_sort_u64_presorted(v, n, &differ))
		return;
	sort_u64_from(v, n, 64 - __builtin_clzll(differ)); /* the bits from there up are every value's */
}

int cp_sort_keys(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i] < v[i - 1]) {
			if (n * sizeof(uint64_t) < tg_big_min()) /* its scratch as small as tg_big's heap blocks */
				return tg_sort_u64(v, n);
			cp_sort_u64(v, n);
			return 0;
		}
	return 0;
}

int cp_sort_pairs_inc(tg_sort_pair *kv, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	uint32_t most = 0;
	int inc = 1;
	for (size_t i = 0; i < n; i++) {
		lo = kv[i].key < lo ? kv[i].key : lo;
		hi = kv[i].key > hi ? kv[i].key : hi;
		inc &= !i || kv[i].idx > kv[i - 1].idx;
		most = kv[i].idx > most ? kv[i].idx : most;
	}
	int ib = most ? 64 - __builtin_clzll(most) : 0, kb = n && hi > lo ? 64 - __builtin_clzll(hi - lo) : 0;
	if (!inc || kb + ib > 64 || ib == 64 || n * sizeof(uint64_t) < tg_big_min())
		return tg_sort_pairs(kv, n);
	/* entry i's 8 bytes overwrite pairs already read going up; going down,
	 * pair i's 16 bytes overwrite keys already read */
	uint64_t *v = (uint64_t *)kv, mask = ib ? ~UINT64_C(0) >> (64 - ib) : 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = (kb ? (kv[i].key - lo) << ib : 0) | kv[i].idx;
		v[i] = k;
	}
	for (size_t i = 1; i < n; i++)
		if (v[i] < v[i - 1]) {
			cp_sort_u64(v, n);
			break;
		}
	for (size_t i = n; i-- > 0;) {
		uint64_t k = v[i];
		kv[i] = (tg_sort_pair){(ib == 64 ? 0 : k >> ib) + lo, (uint32_t)(k & mask)};
	}
	return 0;
}

int cp_sort_by(uint32_t *idx, size_t n, const int64_t *key)
{
	tg_sort_pair *kv = tg_big_alloc((n + 1) * sizeof(*kv));
	uint32_t *tmp = tg_big_alloc((n + 1) * sizeof(*tmp));
	if (!kv || !tmp) {
		tg_big_free(kv);
		tg_big_free(tmp);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		kv[i] = (tg_sort_pair){tg_sort_key_i64(key[idx[i]]), (uint32_t)i};
	int rc = tg_sort_pairs(kv, n);
	if (!rc) {
		for (size_t i = 0; i < n; i++)
			tmp[i] = idx[kv[i].idx];
		memcpy(idx, tmp, n * sizeof(*idx));
	}
	tg_big_free(kv);
	tg_big_free(tmp);
	return rc;
}

int cp_sort_pos(uint32_t *pos, size_t n, const int64_t *const *keys, int nlevels)
{
	tg_sort_pair *kv = tg_big_alloc((n + 1) * sizeof(*kv));
	if (!kv)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		kv[i] = (tg_sort_pair){tg_sort_key_i64(keys[0][i]), (uint32_t)i};
	int rc = tg_sort_pairs(kv, n);
	for (int l = 1; l < nlevels && !rc; l++) {
		for (size_t i = 0; i < n; i++)
			kv[i].key = tg_sort_key_i64(keys[l][kv[i].idx]);
		rc = tg_sort_pairs(kv, n);
	}
	for (size_t i = 0; i < n && !rc; i++)
		pos[i] = kv[i].idx;
	tg_big_free(kv);
	return rc;
}

/* An American flag sort of 8-bit digits from the top (each value moved
 * along its cycle to its digit's bucket, then each bucket sorted by the
 * next digit), insertion under 64 values, a digit every value shares
 * passed over. */
void cp_sort_u32(uint32_t *v, size_t n, int shift)
{
	while (n >= 64) {
		uint32_t count[256] = {0}, next[256], end[256], at = 0;
		for (size_t i = 0; i < n; i++)
			count[(v[i] >> shift) & 255]++;
		if (count[(v[0] >> shift) & 255] == n) { /* one bucket: the next digit */
			if (!shift)
				return;
			shift -= 8;
			continue;
		}
		for (int d = 0; d < 256; d++) {
			next[d] = at;
			at += count[d];
			end[d] = at;
		}
		for (int d = 0; d < 256; d++)
			while (next[d] < end[d]) {
				uint32_t x = v[next[d]];
				int k = (x >> shift) & 255;
				while (k != d) { /* x goes to bucket k: take what its head holds */
					uint32_t y = v[next[k]];
					v[next[k]++] = x;
					x = y;
					k = (x >> shift) & 255;
				}
				v[next[d]++] = x;
			}
		if (!shift)
			return;
		for (size_t d = 0, lo = 0; d < 256; lo = end[d], d++)
			if (end[d] - lo > 1)
				cp_sort_u32(v + lo, end[d] - lo, shift - 8);
		return;
	}
	for (size_t i = 1; i < n; i++) { /* insertion: few values, agreeing above shift + 8 */
		uint32_t x = v[i];
		size_t j = i;
		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}
