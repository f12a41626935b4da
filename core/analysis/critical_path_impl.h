/*
 * critical_path_impl.h - the inside of tg_critical_path, shared by
 * critical_path.c (events, window), critical_path_graph.c (nodes, the
 * runtime lock), critical_path_stack.c (the call stacks),
 * critical_path_gpu.c (queue lengths, CUDA events, kernel edges),
 * critical_path_edges.c (the edge list) and critical_path_solve.c (the
 * longest path, the breakdown). Not for other modules.
 *
 * Nodes are numbered as HTA numbers them (sorted by time, then event, start
 * before end) and edges are ranked in the order HTA adds them, an edge
 * added twice keeping its first rank and taking the later weight and type
 * (a networkx DiGraph does that): the longest path's ties are broken by
 * those orders, so they are part of the result. Once merged, the edges are
 * held by source (each source's in that order) with their rank in place of
 * their source: no list of edges by source beside them.
 */
#ifndef TG_CRITICAL_PATH_IMPL_H
#define TG_CRITICAL_PATH_IMPL_H

#include "critical_path.h"
#include "../../util/big.h"
#include "../../util/idmap.h"
#include "../../util/sort.h"

#include <string.h>

/* Per-event flags (cp->evf). */
enum {
	CP_KEPT = 1 << 0,   /* in HTA's trace after its last-step filter */
	CP_CLIP = 1 << 1,   /* in the window (HTA's clipped trace) */
	CP_GPU = 1 << 2,    /* device side of a correlation (HTA's GPUKernelFilter) */
	CP_CORR = 1 << 3,   /* has a correlation id >= 0 */
	CP_NODE = 1 << 4,   /* has a start and an end node */
	CP_ON_STREAM = 1 << 5, /* HTA's stream column is 0 or more (a device event) */
	CP_ON_PATH = 1 << 6 /* a node of the event is on the path */
};

/* Per-name flags (cp->namef, by atom). */
enum {
	CPN_LAUNCH = 1 << 0,       /* a kernel, memcpy or memset launch (HTA's list) */
	CPN_LOCK = 1 << 1,         /* holds the CUDA runtime lock */
	CPN_BLOCK = 1 << 2,        /* blocking call: its end edge weighs 0 */
	CPN_EVENT_SYNC = 1 << 3,   /* "Event Sync" */
	CPN_CONTEXT_SYNC = 1 << 4, /* "Context Sync" */
	CPN_STREAM_SYNC = 1 << 5,  /* "Stream Sync" */
	CPN_STREAM_WAIT = 1 << 6,  /* "Stream Wait Event" */
	CPN_EVENT_RECORD = 1 << 7, /* cudaEventRecord */
	CPN_WAIT_CALL = 1 << 8,    /* cudaStreamWaitEvent */
	CPN_DATA_LOAD = 1 << 9,    /* a data-loading name (opts) */
	CPN_FORWARD = 1 << 10,     /* contains "forward" (the forward thread) */
	CPN_AUTOGRAD = 1 << 11,    /* contains "autograd" (the backward thread) */
	CPN_STEP = 1 << 12,        /* ProfilerStep#N */
	CPN_ANNOTATION = 1 << 13,  /* matches the annotation (exactly with annotation_exact) */
	CPN_CHECKED = 1 << 15      /* the substring flags above are set */
};

/* An edge in 8 bytes: its weight is not stored but read from the nodes'
 * times (cp_edge_w), which the graph keeps until it is freed; its nodes in
 * 29 bits (a trace of 2^28 - 1 events or more is refused, TG_ELIMIT: two
 * nodes an event), its type, zero flag, and the class of the event it is
 * attributed to (all the breakdown needs of that event: bound_of), the
 * event itself beside it in cp->attr by rank (cp_edge_attr), for the
 * path's steps of a full result only: a summary keeps none. Once merged
 * the edges are sorted by source (cp->soff: a source's edges in the order
 * added), and the source, implied by the place (cp_edge_src), gives way
 * to the rank: the edge's place in the order first added, which the
 * longest path's ties go by and cp->attr is indexed by. */
typedef struct cp_edge {
	uint32_t key : 29; /* the source node until cp_merge_edges, then the rank */
	uint32_t cls : 2;  /* operator and kernel-gap edges: the bound of the attributed event
	                    * (TG_CP_CPU, TG_CP_DATA_LOADING, TG_CP_GPU_COMPUTE, TG_CP_GPU_COMM) */
	uint32_t zero : 1; /* weighs 0 (dependency, sync, added with zero) */
	uint32_t dst : 29; /* node */
	uint32_t type : 3; /* tg_cp_edge_type (CP_DEAD in the merge) */
} cp_edge;

#define CP_MAX_EVENTS 0xfffffffu /* events a trace may have: its nodes fit cp_edge's 29 bits */
#define CP_MAX_EDGES ((1u << 29) - 2) /* edges a graph may have: their ranks fit cp_edge.key */
#define CP_EDGE_TYPE(e) ((e)->type) /* its tg_cp_edge_type */

struct tg_critical_path {
	const tg_step *tsteps; /* the trace's steps (tg_tree_steps), borrowed */
	size_t ntsteps;
	const tg_trace *t;
	const tg_event *ev; /* the trace's events (cp_event) */
	size_t nev;
	tg_cp_opts opts;
	char *annotation;
	int last_step_dropped; /* HTA's filter left out the last step */

	/* per event; all but evf and namef are freed once the graph is built.
	 * An event's times as HTA sees them are read from the event (cp_ts,
	 * cp_end), not copied; its stream is a slot into the few streams. */
	uint8_t *sslot8;     /* HTA's stream column: streams[slot] (cp_sslot, cp_stream), a byte an event */
	uint32_t *sslot32;   /* ... or 4 once a 256th stream is seen (sslot8 then freed); NULL before */
	int64_t *streams;    /* the distinct "stream" arguments; streams[0] is -1 (none) */
	size_t nstreams, streams_cap;
	uint32_t k_won, k_worc; /* argument keys: wait_on_stream, wait_on_cuda_event_record_corr_id */
	uint32_t *ic;        /* HTA's index_correlation: the correlated event, or TG_NONE */
	uint8_t *evf;
	uint32_t *snode;     /* the event's start node, TG_NONE */
	int16_t *edist;      /* its end node's distance from its start node (cp_enode: 2 bytes an
	                      * event, where a node took 4); CP_EDIST_FAR: the end node in efar */
	tg_idmap *efar;      /* event -> its end node, where farther than cp_chain_reach; NULL if none */
	uint32_t *ksync;     /* kernel -> the kernel it waits for (cudaStreamWaitEvent), TG_NONE;
	                      * NULL until the first stream wait */
	uint16_t *namef;     /* per atom */
	uint32_t natoms;

	/* nodes, in HTA's order; the nodes, the edges and the path are freed
	 * once the path's steps are read (cp_solve), unless opts.keep_graph */
	size_t nnodes;
	uint32_t *node_ev;   /* the node's event, | CP_NODE_START for a start (cp_node_ev, cp_node_start) */
	int64_t t_unit;      /* 1000 with HTA's rounding (whole us: every node's time a multiple), else 1 */
	int t_narrow;        /* the nodes' span fits 32 bits of t_unit: the path's distances start in 32 */
	int lean;            /* a summary's build (cp_build): no cp->attr (the edges' classes are
	                      * all its breakdown needs); once the longest path has the nodes'
	                      * 32-bit times, node_ev is freed and the breakdown is summed from
	                      * those times along the best edges (summed); no stats.path_events,
	                      * and a cycle's message names no event */
	int summed;          /* lean: the breakdown summed along the best edges as the longest
	                      * path ends (critical_path_solve.c sum_path): no cp->path, and the
	                      * offsets by source never made whole again */

	/* edges, as added until cp_merge_edges, then by source (sorted in
	 * place: a second list beside them grew the diff's heap by as much) */
	cp_edge *edges;
	size_t nedges, cap;
	uint32_t *attr; /* the event each edge is attributed to, TG_NONE, by its place as added
	                 * (its rank once merged); cap of them; NULL in a summary's lean build */
	uint32_t *soff; /* once merged: node v's edges are edges[soff[v] .. soff[v + 1]) */

	/* The call stacks' chain edges of a summary's lean build with narrow
	 * times (cp_chains_implied), held as their threads' walks instead of
	 * in cp->edges: a node's chain successor as its distance in nodes (2
	 * bytes a node; the few farther than 32,767 nodes in chain_far) and
	 * the edge's flags in a nibble (CP_CHAIN_*), 2.5 bytes a node where
	 * the edges took 8 an edge. No rank: a node has at most one chain edge in
	 * and one out (each node is walked once), none repeats a lock or GPU
	 * edge, and Kahn's ties compare ranks only between edges into one
	 * node, where a chain edge comes after the lock's (ranks below
	 * chain_rank) and before the GPU stage's. NULL otherwise. */
	int16_t *chain;   /* node u -> its chain successor u + chain[u] (cp_chain_next); 0: none */
	tg_idmap *chain_far; /* node -> its chain successor where chain[u] is CP_CHAIN_FAR; NULL if none */
	uint8_t *chainf;  /* two nodes a byte: the low nibble node 2i's */
	uint32_t chain_rank; /* the lock's edges (added first): ranks below sort before a chain edge */
	size_t nchain[2];    /* chain edges: dependency, operator (the stats) */

	void *spare; /* a tg_big block just freed, for the next array to take (cp_spare_take) */

	/* the result */
	uint32_t *path; /* nodes; the path's edges once the steps are made (breakdown) */
	size_t npath;
	int64_t length;
	int64_t bound_ns[TG_CP_NBOUND];
	tg_cp_step *steps;
	size_t nsteps;
	tg_cp_op *ops;
	size_t nops;
	uint32_t *path_events;
	tg_cp_stats stats;
};

/* Event i of the trace. */
static inline const tg_event *cp_event(const tg_critical_path *cp, size_t i)
{
	return &cp->ev[i];
}

#define CP_NODE_START 0x80000000u /* in cp->node_ev: the node is its event's start (events < 2^28) */

/* The event of node v. */
static inline uint32_t cp_node_ev(const tg_critical_path *cp, uint32_t v)
{
	return cp->node_ev[v] & ~CP_NODE_START;
}

/* 1 when node v is its event's start, 0 for its end. */
static inline int cp_node_start(const tg_critical_path *cp, uint32_t v)
{
	return (cp->node_ev[v] & CP_NODE_START) != 0;
}

/* The correlation id of event ev, -1 when it has none. */
static inline int64_t cp_corr(const tg_critical_path *cp, uint32_t ev)
{
	const tg_event *e = cp_event(cp, ev);
	return e->kind != TG_KIND_PYTHON && (e->flags & TG_EV_HAS_CORR) ? tg_event_corr(cp->t, e) : -1;
}

/* t (ns) rounded down to a whole microsecond. */
static inline int64_t cp_floor_us(int64_t ns)
{
	return (ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000)) * 1000;
}

/* Event ev's start as HTA sees it: rounded up to a whole microsecond
 * unless opts.exact_ns. */
static inline int64_t cp_ts(const tg_critical_path *cp, size_t ev)
{
	int64_t t = cp_event(cp, ev)->ts, f;
	if (cp->opts.exact_ns)
		return t;
	f = cp_floor_us(t);
	return f == t ? f : f + 1000;
}

/* Event ev's end as HTA sees it: rounded down unless opts.exact_ns. */
static inline int64_t cp_end(const tg_critical_path *cp, size_t ev)
{
	int64_t t = tg_event_end(cp->t, cp_event(cp, ev));
	return cp->opts.exact_ns ? t : cp_floor_us(t);
}

/* Event ev's stream slot (cp->streams): 0 for none; valid until the graph
 * is built. */
static inline uint32_t cp_sslot(const tg_critical_path *cp, size_t ev)
{
	return cp->sslot32 ? cp->sslot32[ev] : cp->sslot8[ev];
}

/* Event ev's stream (HTA's stream column: the "stream" argument, else -1);
 * valid until the graph is built. */
static inline int64_t cp_stream(const tg_critical_path *cp, size_t ev)
{
	return cp->streams[cp_sslot(cp, ev)];
}

/* 1 when event ev has a stream (HTA's stream column is not -1): its slot
 * is not the first. */
static inline int cp_on_stream_col(const tg_critical_path *cp, size_t ev)
{
	return cp_sslot(cp, ev) != 0;
}

/* An argument as pandas.to_numeric(errors="coerce") reads it, -1 when
 * absent (key TG_NONE) or not a number. */
int64_t cp_arg_number(const tg_trace *t, const tg_event *e, uint32_t key);

/* A sync event's wait argument (cp->k_won, cp->k_worc), -1 for other
 * events and when absent. */
int64_t cp_wait_arg(const tg_critical_path *cp, uint32_t ev, uint32_t key);

/* The CPN_* flags of event ev's name. */
static inline uint16_t cp_name_flags(const tg_critical_path *cp, uint32_t ev)
{
	uint32_t atom = cp_event(cp, ev)->name;
	return atom < cp->natoms ? cp->namef[atom] : 0;
}

/* The time of node v, ns: its event's start or end as HTA sees it, read
 * from the event (no array of the nodes' times: 4 bytes a node). */
static inline int64_t cp_node_ts(const tg_critical_path *cp, uint32_t v)
{
	uint32_t x = cp->node_ev[v], ev = x & ~CP_NODE_START;
	return (x & CP_NODE_START) ? cp_ts(cp, ev) : cp_end(cp, ev);
}

/* The weight of edge e out of node src as added (may be negative): 0 for
 * dependency and sync edges and those added with zero, else the time
 * between its nodes. */
static inline int64_t cp_edge_w(const tg_critical_path *cp, uint32_t src, const cp_edge *e)
{
	if (e->zero)
		return 0;
	return cp_node_ts(cp, e->dst) - cp_node_ts(cp, src);
}

/* Holds tg_big block p (freed by the caller) as cp->spare, for the next
 * array to take with its pages already there (a fresh mapping faults
 * each of its pages in: the 1 GB diff's page faults 127 k on main, 274 k
 * with the graph's arrays mapped and none reused); the one held before is
 * freed. Only where the next array comes before the phase's peak. */
static inline void cp_spare_put(tg_critical_path *cp, void *p)
{
	tg_big_free(cp->spare);
	cp->spare = p;
}

/* A block of bytes (contents undefined): cp->spare resized (tg_big_realloc),
 * or a fresh one. NULL when out of memory (cp->spare then kept, freed with
 * the graph). */
static inline void *cp_spare_take(tg_critical_path *cp, size_t bytes)
{
	void *p = tg_big_realloc(cp->spare, bytes);
	if (p)
		cp->spare = NULL;
	return p;
}

/* A chain edge's nibble in cp->chainf. */
enum {
	CP_CHAIN_OP = 1 << 0,   /* an operator edge, else a dependency edge */
	CP_CHAIN_ZERO = 1 << 1, /* weighs 0 */
	CP_CHAIN_CLS_SHIFT = 2  /* bits 2-3: the operator edge's bound class (cp_edge.cls) */
};

#define CP_CHAIN_FAR INT16_MIN /* in cp->chain: the successor in cp->chain_far */

/* The most edges a graph may have, chains implied included (CP_MAX_EDGES,
 * where the ranks fit cp_edge.key); tests lower it to find a summary
 * refused where the full builder is. */
extern uint32_t cp_max_edges;

/* The farthest a chain successor is held in cp->chain, and an event's end
 * node from its start in cp->edist (INT16_MAX); tests lower it so that
 * cp->chain_far and cp->efar are used on small traces. */
extern int32_t cp_chain_reach;

/* The most edges a source may have for the merge to find its duplicates
 * by a scan of its own (cp_merge_edges; more: through a map); tests set 0
 * so that every source goes through the map. */
extern uint32_t cp_merge_scan;

/* 1 (the default): a thread whose events are in the order their starts
 * nest in is walked without sorting them (critical_path_stack.c
 * starts_in_order); tests set 0 to sort every thread, and compare. */
extern int cp_starts_unsorted;

#define CP_EDIST_FAR INT16_MIN /* in cp->edist: the end node in cp->efar */

/* The end node of event ev (its start node's and its end's distance:
 * cp->snode, cp->edist), TG_NONE for an event without nodes. */
static inline uint32_t cp_enode(const tg_critical_path *cp, uint32_t ev)
{
	uint32_t s = cp->snode[ev];
	if (s == TG_NONE)
		return TG_NONE;
	int16_t d = cp->edist[ev];
	return d == CP_EDIST_FAR ? tg_idmap_get(cp->efar, ev) : (uint32_t)((int64_t)s + d);
}

/* Node u's chain successor (cp->chain), TG_NONE. */
static inline uint32_t cp_chain_next(const tg_critical_path *cp, uint32_t u)
{
	int16_t d = cp->chain[u];
	if (d == CP_CHAIN_FAR)
		return tg_idmap_get(cp->chain_far, u);
	return d ? (uint32_t)((int64_t)u + d) : TG_NONE;
}

/* The nibble of node u's chain edge out (cp->chainf). */
static inline unsigned cp_chain_flags(const tg_critical_path *cp, uint32_t u)
{
	return (cp->chainf[u >> 1] >> ((u & 1) * 4)) & 15u;
}

/* Adds the call stacks' edge src -> dst to the chains (cp->chain, lean):
 * the type, zero flag and attribution as cp_add_edge takes them. Returns
 * 0 or TG_ENOMEM (src has one chain edge out: the walk visits each node
 * once). */
int cp_add_chain(tg_critical_path *cp, uint32_t src, uint32_t dst, int type, int zero, uint32_t attr_parent);

/* The event edge e (merged: cp_merge_edges) is attributed to, or TG_NONE;
 * TG_NONE always in a summary's lean build (no cp->attr). */
static inline uint32_t cp_edge_attr(const tg_critical_path *cp, const cp_edge *e)
{
	return cp->attr ? cp->attr[e->key] : TG_NONE;
}

/* The place of edge src -> dst (nodes) in cp->edges once they are merged
 * and sorted by source (cp_merge_edges), or TG_NONE. */
uint32_t cp_find_edge(const tg_critical_path *cp, uint32_t src, uint32_t dst);

/* The source of the edge at place k once the edges are sorted by source:
 * a search of cp->soff from node hint outwards (an edge's destination is
 * a good hint: its source is most often a node or two before). */
uint32_t cp_edge_src(const tg_critical_path *cp, uint32_t k, uint32_t hint);

/* Adds the edge src -> dst (nodes) of type; weight 0 for dependency and
 * sync edges or when zero, else the time between the nodes. attr_parent:
 * the parent event used to attribute an end -> start operator edge. An
 * edge added again is merged into the first by cp_merge_edges. Returns 0,
 * TG_ENOMEM or TG_ELIMIT (over 2^32 - 2 edges). */
int cp_add_edge(tg_critical_path *cp, uint32_t src, uint32_t dst, int type, int zero, uint32_t attr_parent);

/* Merges the edges added more than once (networkx's DiGraph.add_edge): the
 * edges are sorted by source (stable: cp->soff, each src replaced by its
 * rank), then the first of each pair of nodes keeps its place and takes the
 * type and weight of the last, and the attribution of the last operator or
 * kernel-gap one; the room reserved past the edges is given back. Returns
 * 0 or TG_ENOMEM. */
int cp_merge_edges(tg_critical_path *cp);

/* tg_critical_path_build, and with lean a summary's build (opts must have
 * summary_only): the nodes' events given back during the longest path
 * (cp->lean). critical_path.c. */
int cp_build(tg_critical_path **out, const tg_trace *t, const tg_step *steps, size_t nsteps, const tg_cp_opts *opts,
             int lean);

/* The edges' offsets by source packed for the longest path
 * (critical_path_offs.c): a node's out-degree in a byte (255: its block's
 * offsets in bigoff, through big) and every CP_OFFS_BLOCK-th node's offset. */
#define CP_OFFS_BLOCK 16
#define CP_OFFS_BIG 0x80000000u /* in cp_offs.ck: the block is in big (offsets are under 2^29) */
struct cp_offs {
	uint8_t *deg;     /* whole blocks, zero past the last node */
	uint32_t *ck;     /* ck[b]: the offset of node b * CP_OFFS_BLOCK, | CP_OFFS_BIG */
	tg_idmap *big;    /* block -> its slot in bigoff, for blocks with a degree of 255 or more */
	uint32_t *bigoff; /* CP_OFFS_BLOCK + 1 offsets a slot */
};

/* The sum of the bytes of x (at most 8 x 255). */
static inline uint32_t cp_byte_sum(uint64_t x)
{
	x = (x & UINT64_C(0x00ff00ff00ff00ff)) + ((x >> 8) & UINT64_C(0x00ff00ff00ff00ff));
	x += x >> 16;
	x += x >> 32;
	return (uint32_t)(x & 0xffff);
}

/* Node u's edges are [*lo, *hi) (cp->soff[u], cp->soff[u + 1]). */
static inline void cp_offs_range(const struct cp_offs *o, uint32_t u, uint32_t *lo, uint32_t *hi)
{
	uint32_t b = u / CP_OFFS_BLOCK, c = u % CP_OFFS_BLOCK;
	if (o->ck[b] & CP_OFFS_BIG) {
		uint32_t k = tg_idmap_get(o->big, b);
		*lo = o->bigoff[k * (CP_OFFS_BLOCK + 1) + c];
		*hi = o->bigoff[k * (CP_OFFS_BLOCK + 1) + c + 1];
		return;
	}
	uint64_t w0, w1;
	memcpy(&w0, o->deg + (size_t)b * CP_OFFS_BLOCK, 8);
	memcpy(&w1, o->deg + (size_t)b * CP_OFFS_BLOCK + 8, 8);
	if (c <= 8) /* the bytes of the nodes before u: the low c of the 16 (little-endian loads) */
		w0 &= c == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * c)) - 1, w1 = 0;
	else
		w1 &= (UINT64_C(1) << (8 * (c - 8))) - 1;
	*lo = o->ck[b] + cp_byte_sum(w0) + cp_byte_sum(w1);
	*hi = *lo + o->deg[u];
}

/* Packs cp->soff into *o and hands its block to *spare (tg_big's, the
 * caller's to reuse or free: its pages are there). Returns 0 or TG_ENOMEM
 * (*o then for cp_offs_free, cp->soff kept, *spare untouched). */
int cp_offs_pack(struct cp_offs *o, tg_critical_path *cp, uint32_t **spare);

/* Makes cp->soff again from *o, which is freed. Returns 0 or TG_ENOMEM. */
int cp_offs_unpack(struct cp_offs *o, tg_critical_path *cp);

void cp_offs_free(struct cp_offs *o);

/* The longest path's distances of the nodes reached and not yet visited
 * (critical_path_dist.c): a hash table by node, or an array by node once
 * more than limit are held (arr, 8 bytes a node). */
struct cp_dist {
	uint32_t *key; /* 2^bits slots, 0xffffffff free */
	int64_t *val;
	int bits;
	size_t n, limit, nnodes;
	int64_t *arr; /* by node; NULL while the table holds them */
};

/* The most distances the table holds before they move to an array: -1
 * (the default) a sixteenth of the nodes and 1,024; tests set 0 (an
 * array from the first). */
extern long cp_dist_limit;

/* An empty table for a graph of nnodes nodes. Returns 0 or TG_ENOMEM. */
int cp_dist_init(struct cp_dist *d, size_t nnodes);
void cp_dist_free(struct cp_dist *d);
int64_t cp_dist_get_slow(const struct cp_dist *d, uint32_t v);
int cp_dist_set_slow(struct cp_dist *d, uint32_t v, int64_t c);
int64_t cp_dist_take_slow(struct cp_dist *d, uint32_t v);

/* Node v's distance (held: v reached, not visited). */
static inline int64_t cp_dist_get(const struct cp_dist *d, uint32_t v)
{
	return d->arr ? d->arr[v] : cp_dist_get_slow(d, v);
}

/* Node v's distance set to c. Returns 0 or TG_ENOMEM. */
static inline int cp_dist_set(struct cp_dist *d, uint32_t v, int64_t c)
{
	if (d->arr) {
		d->arr[v] = c;
		return 0;
	}
	return cp_dist_set_slow(d, v, c);
}

/* Node v's distance, no longer held (v visited); 0 when it had none. */
static inline int64_t cp_dist_take(struct cp_dist *d, uint32_t v)
{
	return d->arr ? d->arr[v] : cp_dist_take_slow(d, v);
}

/* Creates the nodes of the window's events (critical_path_graph.c). */
int cp_make_nodes(tg_critical_path *cp);

/* The runtime-lock edges (critical_path_graph.c). */
int cp_add_lock_edges(tg_critical_path *cp);

/* The call-stack edges of every CPU thread (critical_path_stack.c). */
int cp_add_stack_edges(tg_critical_path *cp);

/* The kernel, launch, kernel-gap and sync edges (critical_path_gpu.c). */
int cp_add_gpu_edges(tg_critical_path *cp);

/* Finds the longest path and its breakdown (critical_path_solve.c).
 * Returns 0, TG_EFORMAT for a cycle, or TG_ENOMEM. */
int cp_solve(tg_critical_path *cp);

/* Sorts v[0..n) unless they already are in order (a thread's events, a
 * trace's launches mostly come in time order: then no pass); from
 * tg_big_min() bytes of keys (where the graph's arrays are mappings: 4 MiB,
 * 512 KiB under `diff`) in place
 * (cp_sort_u64): no scratch, none of it left in the heap (tg_sort_u64's
 * 8 bytes a key were the heap's growth under the graph at 1 GB), else
 * tg_sort_u64 (faster: the in place sort costs 3-4x its time). Returns 0
 * or TG_ENOMEM. */
int cp_sort_keys(uint64_t *v, size_t n);

/* Sorts v[0..n) ascending in place, no scratch: an American flag sort of
 * 8-bit digits from the highest bit the values differ in. */
void cp_sort_u64(uint64_t *v, size_t n);

/* tg_sort_pairs (stable, by key) for pairs whose idx go up in kv's order
 * (made in event order): key and idx packed into 64 bits in kv's own
 * memory and sorted in place (cp_sort_u64), so no scratch; tg_sort_pairs
 * when they do not fit, the idx do not go up, or the packed keys are under
 * 4 MiB. Returns 0 or TG_ENOMEM. */
int cp_sort_pairs_inc(tg_sort_pair *kv, size_t n);

/* Sorts v[0..n) ascending in place, no scratch (the call stacks' ends: 4
 * bytes an event, not 8); shift is 24 for whole values (values that agree
 * above bit shift + 8 are sorted by the bits below). */
void cp_sort_u32(uint32_t *v, size_t n, int shift);

/* Sorts idx[0..n) stably by key[idx[i]] (int64). Returns 0 or TG_ENOMEM. */
int cp_sort_by(uint32_t *idx, size_t n, const int64_t *key);

/* The order of the entries 0..n-1 of a list by their keys (keys[l][k]: entry
 * k's key of level l; level 0 the least significant, ties kept in list
 * order) into pos: pos[0] is the first entry. Returns 0 or TG_ENOMEM. */
int cp_sort_pos(uint32_t *pos, size_t n, const int64_t *const *keys, int nlevels);

#endif
