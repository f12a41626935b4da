/*
 * skeleton_impl.h - the skeleton itself, shared by skeleton.c (built,
 * adopted, read) and skeleton_hold.c (its nodes held in a bit stream
 * between the traces of a diff, tg_skeleton_compact): nothing else reads
 * it (skeleton.h is the interface).
 */
#ifndef TG_SKELETON_IMPL_H
#define TG_SKELETON_IMPL_H

#include "skeleton.h"

struct tg_skeleton {
	tg_skel_node *nodes; /* NULL while compact (held: skeleton_hold.c) */
	int64_t *base;      /* per block of 64 nodes: the least start of its nodes (ns) */
	uint64_t *evbits;   /* a bit per event of the trace: held (the nodes' events, in order) */
	uint32_t *evrank;   /* per word of evbits, and one past them: the nodes before it */
	uint32_t *evsel;    /* per block of 64 nodes: the word of its first node's event */
	uint32_t *by_start; /* node indices by (start, index), made with the skeleton */
	uint32_t *start_rank; /* its inverse: a node's place in by_start */
	size_t n;
	uint32_t nevents;
	const tg_atoms *atoms; /* the trace's, or own */
	tg_atoms *own;
	unsigned with;
	struct wide { /* the durations of TG_SKEL_WIDE_DUR nodes, or the starts of TG_SKEL_WIDE_TS nodes, by node */
		uint32_t node;
		int64_t v;
	} *wide, *wide_ts;
	size_t nwide, capwide, nwide_ts, capwide_ts;
	uint64_t *held[2]; /* (tg_big blocks) the nodes coded while compact (skeleton_hold.c: names and parents, starts and
	                      durations), else NULL */
	size_t nheld[2];   /* their words */
};

#endif
