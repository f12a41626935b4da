/*
 * tree_impl.h - the tree's own struct and the parts of its build, shared
 * by the files of core/tree that build and read it: tree.c (the build's
 * order and threads), tree_nest.c (host events nested by time),
 * tree_children.c (the children's layout), tree_steps.c (the steps),
 * tree_access.c (the accessors). Private to core/tree.
 */
#ifndef TG_TREE_IMPL_H
#define TG_TREE_IMPL_H

#include "tree.h"
#include "tree_buckets.h"
#include "tree_pack.h"
#include "../../util/idmap.h"

#include <stddef.h>
#include <stdint.h>

struct tg_tree {
	const tg_trace *trace;
	const tg_event *ev; /* the trace's events */
	uint32_t *parent;    /* while the tree is built; then parents (kept when not packed) */
	uint32_t *child_off; /* nevents + 1, while the tree is built; then offs (likewise) */
	tg_tree_pack parents; /* the built tree's parent of each event */
	tg_tree_pack offs;    /* the built tree's child_off */
	uint32_t *children;  /* while built; then kids (kept when not packed) */
	tg_tree_pack kids;   /* the built tree's children */
	uint32_t *roots;
	size_t nroots;
	int32_t *step_of;   /* while built: each event's step when there are INT16_MAX steps or more */
	int16_t *step16;    /* else each event's step in 16 bits; then steps_of (likewise) */
	tg_tree_pack steps_of; /* the built tree's step of each event (tg_tree_step_of), a byte each */
	uint8_t *tl_linked; /* tg_tree_linked_like_tracelens, a bit an event */
	tg_step *steps;
	size_t nsteps;
	tg_idmap *sync_ops; /* parentless sync -> its cpu_op (tg_tree_sync_op), or NULL: none */
	tg_tree_stats stats;
};

/* The parent of event i, read packed or whole: from the layout of the
 * children on, the parents are packed (from TG_TREE_PACK_MIN events). */
static inline uint32_t tg_tree_parent_at(const tg_tree *tree, size_t i)
{
	return tg_tree_pack_at(&tree->parents, tree->parent, i);
}

/* Nests the host events of each track of hb (sorted by tree_buckets.c) by
 * time into tree->parent, then applies the Python parent ids. 0 or
 * TG_ENOMEM (error set). */
int tg_tree_nest_host(tg_tree *tree, const tg_trace *t, const tg_tree_buckets *hb);

/* The roots (tree->roots) from the final parents: the parentless host
 * events of each track of hb, then the parentless kernels, memcpys and
 * memsets of each track of db, each in its bucket's order. 0 or
 * TG_ENOMEM. */
int tg_tree_gather_roots(tg_tree *tree, const tg_trace *t, const tg_tree_buckets *hb, const tg_tree_buckets *db);

/* Lays out the children of every event (tree->child_off, tree->children)
 * from the final parents, each event's sorted by start, longest first,
 * index; reads no bucket (they are freed before: 4 bytes an event less at
 * the build's peak). 0 or TG_ENOMEM. */
int tg_tree_layout_children(tg_tree *tree, const tg_trace *t);

/* The stats read from the laid out tree (whole offsets and children, the
 * parents packed or whole): orphans and graph launches. */
void tg_tree_count_links(tg_tree *tree, const tg_event *ev, size_t ne);

/* Finds the steps (tree->steps, sorted by start) and each event's step
 * (tree->step16, else tree->step_of) from the final parents (packed or
 * whole). 0 or
 * TG_ENOMEM (error set). */
int tg_tree_find_steps(tg_tree *tree, const tg_trace *t);

#endif
