/*
 * tree.h - the event tree of a trace.
 *
 *   python_function -> cpu_op -> runtime/driver launch -> kernel/memcpy/memset
 *
 * Host events (python_function, cpu_op, user_annotation, runtime, driver)
 * nest by time on their (pid, tid) track; a python_function's parent is the
 * one its "Python parent id" names. Device events hang under the launch
 * that has their correlation id; else under the launch an ac2g flow points
 * at; else under the cpu_op with their External id; else they are orphans
 * (GPU-only traces), kept as roots. A CUDA/HIP graph launch owns every
 * kernel that shares its correlation id. Steps (ProfilerStep#N) are found
 * and every event knows its step.
 */
#ifndef TG_TREE_H
#define TG_TREE_H

#include "../trace/trace.h"
#include "tree_pack.h"

typedef struct tg_tree tg_tree;

typedef struct tg_step {
	int64_t number; /* N of ProfilerStep#N */
	uint32_t event; /* the step's host event */
	int64_t ts, dur;
} tg_step;

typedef struct tg_tree_stats {
	uint64_t host_events;      /* events nested by time */
	uint64_t gpu_events;       /* kernels, memcpys, memsets */
	uint64_t gpu_by_correlation;
	uint64_t gpu_by_flow;
	uint64_t gpu_by_external_id;
	uint64_t gpu_orphans;      /* no launch found */
	uint64_t graph_launches;   /* launches owning more than one device event */
	uint64_t bleeds;           /* children ending well after their parent (kept) */
	uint64_t python_reparented; /* time nesting overruled by Python parent id */
	uint64_t syncs_linked;     /* cuda_sync events under their runtime call */
} tg_tree_stats;

/* Builds the tree of t, on two threads from 8,192 events (the second a
 * parked thread, util/park.h: one idle, else one created now that parks
 * for the next build when done). t must outlive the tree. On success *out
 * owns the tree (free with tg_tree_free). Returns 0 or TG_ENOMEM. */
int tg_tree_build(tg_tree **out, const tg_trace *t);

/* A parked thread (util/park.h) made sure of for the next
 * tg_tree_build_with (tree_helper.c): call it before the trace is read, so
 * that a thread is there, asleep or done feeding the read, when the build
 * begins. NULL when no thread could be had (tg_tree_build_with then
 * builds on one thread). Passed to tg_tree_build_with, or given up with
 * tg_tree_helper_free (the thread stays parked for other jobs). */
typedef struct tg_tree_helper tg_tree_helper;
tg_tree_helper *tg_tree_helper_start(void);

/* Gives h up unused. NULL is a no-op. */
void tg_tree_helper_free(tg_tree_helper *h);

/* tg_tree_build with h's thread as the second thread of a large enough
 * trace's build, or on one thread when h is NULL; h is taken either way
 * (used or freed). */
int tg_tree_build_with(tg_tree **out, const tg_trace *t, tg_tree_helper *h);

/* tg_tree_build_with that gives back what only the build reads of t: its
 * flows (tg_trace_drop_flows; on failure too) as soon as the tree has
 * linked with them, before its own arrays are laid out (the build's peak
 * then holds no flow: 16 bytes each, two a kernel launch, 14.5 MB of a
 * 1 GB trace), and its second ids, the External ids and Python parent ids
 * (tg_trace_drop_id1s: 4 bytes an event), once the tree is built (what the
 * findings read of them the tree keeps: tg_tree_sync_op). t has neither
 * after. */
int tg_tree_build_dropping(tg_tree **out, tg_trace *t, tg_tree_helper *h);

/* tg_tree_build_dropping with its second thread found as
 * tg_tree_build's (no helper made sure of before the read): the daemon's
 * build, the same as the command line's. */
int tg_tree_build_dropping_spawn(tg_tree **out, tg_trace *t);

/* Frees the tree. NULL is a no-op. */
void tg_tree_free(tg_tree *tree);

/* The trace the tree was built from. */
const tg_trace *tg_tree_trace(const tg_tree *tree);

/* Parent of event ev, or TG_NONE for roots and events outside the tree. */
uint32_t tg_tree_parent(const tg_tree *tree, uint32_t ev);

/* The children of an event, read in start-time order (then longest first,
 * then file order) without allocating:
 *
 *     tg_tree_child_iter it;
 *     uint32_t c;
 *     for (tg_tree_child_iter_init(&it, tree, ev); tg_tree_child_next(&it, &c);)
 *             ...
 *
 * The children are packed (tree_pack.h: about 2 bytes a child, not 4) from
 * TG_TREE_PACK_MIN events on, so no array of them is handed out. The
 * fields are the tree's: read them only through these functions. An
 * iterator reads the tree, which must outlive it. */
typedef struct tg_tree_child_iter {
	const tg_tree_pack *pack; /* the tree's packed children (unless whole) */
	const uint32_t *whole;    /* the children kept whole, or NULL */
	uint32_t at, end;         /* the next child's slot, and the end of ev's */
} tg_tree_child_iter;

/* Starts *it at the first child of ev. */
void tg_tree_child_iter_init(tg_tree_child_iter *it, const tg_tree *tree, uint32_t ev);

/* Sets *child to the next child and returns 1, or returns 0 when none is
 * left. */
static inline int tg_tree_child_next(tg_tree_child_iter *it, uint32_t *child)
{
	if (it->at == it->end)
		return 0;
	*child = tg_tree_pack_at(it->pack, it->whole, it->at++);
	return 1;
}

/* How many children ev has. */
size_t tg_tree_child_count(const tg_tree *tree, uint32_t ev);

/* Child i of ev (in the order above), or TG_NONE when ev has i or fewer. */
uint32_t tg_tree_child(const tg_tree *tree, uint32_t ev, size_t i);

/* Roots: parentless tree events (host events on each track, then orphan
 * device events), in track order then start-time order. */
const uint32_t *tg_tree_roots(const tg_tree *tree, size_t *n);

/* 1 if ev takes part in the tree (host events, device events, syncs). */
int tg_tree_contains(const tg_tree *tree, uint32_t ev);

/* The launch (runtime/driver event) of a device event, or TG_NONE. */
uint32_t tg_tree_launch(const tg_tree *tree, uint32_t ev);

/* 1 if device event ev is linked to its launch the way TraceLens links it:
 * a graph launch (cudaGraphLaunch, hipGraphLaunch) by correlation, any
 * other launch only when an ac2g flow with the correlation id has both its
 * start and its finish in the trace. tracegate itself links by correlation
 * alone (more complete: TraceLens drops kernels whose flow is missing). */
int tg_tree_linked_like_tracelens(const tg_tree *tree, uint32_t ev);

/* For a cuda_sync event ev that the tree left without a parent (a sync on
 * the device's track without its runtime call): the cpu_op of the lowest
 * index with ev's External id, found when the tree was built (the trace's
 * External ids may be gone since: tg_trace_drop_id1s); TG_NONE for any
 * other event, or when no cpu_op has that id. */
uint32_t tg_tree_sync_op(const tg_tree *tree, uint32_t ev);

/* Index into tg_tree_steps() of the step ev belongs to, or -1. */
int32_t tg_tree_step_of(const tg_tree *tree, uint32_t ev);

/* The steps in time order. */
const tg_step *tg_tree_steps(const tg_tree *tree, size_t *n);

/* The index of the step of steps[0..n) (sorted by start, windows apart)
 * whose window holds ts, or -1: one binary search, shared by the tree's
 * own step marks and tg_step_filter. */
int32_t tg_steps_find(const tg_step *steps, size_t n, int64_t ts);

/* Index into tg_tree_steps() of ProfilerStep#number (the last one when a
 * trace repeats a number, as the orphan kernels' steps are found), or -1
 * when the tree has no such step. */
int32_t tg_tree_step_index(const tg_tree *tree, int64_t number);

const tg_tree_stats *tg_tree_stats_get(const tg_tree *tree);

#endif
