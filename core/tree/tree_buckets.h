/*
 * tree_buckets.h - the events of each track in the tree's order
 * (tree_buckets.c), for tree.c's nesting and its launch flows' binding.
 * Private to core/tree.
 */
#ifndef TG_TREE_BUCKETS_H
#define TG_TREE_BUCKETS_H

#include "../trace/trace.h"

#include <stdint.h>

/* An event in a track's order: by start, then longest first, then outer
 * kinds first, then (python functions) by Python id, then by index. Only
 * the index is stored (4 bytes an event, 16 when the start was kept too:
 * the buckets of a 1 GB trace are 2 million of them); comparisons read the
 * rest from the event. */
struct tg_tree_key {
	uint32_t tie; /* event index */
};

/* The sorted events of each track: track tr's are keys[off[tr]] up to
 * keys[off[tr + 1]]. */
typedef struct tg_tree_buckets {
	uint32_t *off; /* ntracks + 1 */
	struct tg_tree_key *keys;
} tg_tree_buckets;

/* 1 for the host kinds nested by time (python, cpu_op, user annotation,
 * runtime, driver). */
static inline int tg_tree_is_host_kind(int k)
{
	return k == TG_KIND_PYTHON || k == TG_KIND_CPU_OP || k == TG_KIND_USER_ANNOTATION ||
	       k == TG_KIND_RUNTIME || k == TG_KIND_DRIVER;
}

/* 1 for the events hung under their launch: kernels, memcpys, memsets,
 * syncs. */
static inline int tg_tree_is_device_event(const tg_event *e)
{
	return tg_kind_is_gpu(e->kind) || e->kind == TG_KIND_SYNC;
}

/* Fills *b with the device events of t (device: 1; tg_tree_is_device_event)
 * or its host events (0; tg_tree_is_host_kind), bucketed by track
 * (counting sort) and each bucket sorted in the order above. *b owns its
 * arrays (tg_tree_buckets_free), on failure too. Reads t only: two threads
 * may bucket one trace at once. 0 or TG_ENOMEM (error set on the calling
 * thread). */
int tg_tree_buckets_build(tg_tree_buckets *b, const tg_trace *t, int device);

/* Frees b's arrays and zeroes it. */
void tg_tree_buckets_free(tg_tree_buckets *b);

#endif
