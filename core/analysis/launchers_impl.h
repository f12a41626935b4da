/*
 * launchers_impl.h - what the launchers' files share (launchers.c,
 * launchers_tables.c, launchers_args.c): the launchers of a tree, their
 * device events and the options they were built with. Not public:
 * core/analysis/launchers.h is the interface.
 */
#ifndef TG_LAUNCHERS_IMPL_H
#define TG_LAUNCHERS_IMPL_H

#include "../../util/bits.h"
#include "../../util/idmap.h"
#include "launchers.h"

/* The launchers of a tree (tg_launchers_build). */
struct tg_launchers {
	const tg_tree *tree;
	const tg_trace *trace;
	tg_launcher *list;
	size_t n;
	uint32_t *lev;     /* while built, before list is made: each launcher's event (4 bytes, not
	                    * list's 24, through the subtree unions, the build's peak) */
	double *sub;       /* while built, before list is made in its room: each launcher's subtree time */
	const char **cats; /* the launchers' categories (static strings), by their number */
	size_t ncats;
	uint32_t *koff;    /* n + 1 offsets into kernels (NULL after the build without keep_kernels) */
	uint32_t *kernels; /* direct device events, grouped by launcher, by start (the same) */
	uint32_t *owner;   /* while built (freed by the subtree unions): per event of the trace, a
	                    * device event's launcher's index, or TG_NONE. A host event's room holds
	                    * its index in list as a launcher (launchers are host events, owners are
	                    * device events': one array, not two), then the subtree unions' memo
	                    * (launchers.c) */
	uint64_t *linked;       /* once built: a bit per event, set for a device event with a launcher */
	uint32_t *linked_rank;  /* per 64 events (a word of linked): the bits set before them */
	uint32_t *linked_owner; /* per bit set, in event order: that event's launcher's index */
	size_t nlinked_words;
	size_t nstep_dev;  /* device events of the step (a bound on the linked ones) */
	size_t nstep_comm; /* communication kernels of the step */
	tg_idmap *comm;  /* the step's communication kernels (owner leaves them out) with a
	                  * launcher -> its index in list; NULL when there are none */
	int32_t step;
	int tracelens_compat;
};

/* The launcher of device event k among the events ev of tree
 * (launchers.h's rule; tracelens: linked only as TraceLens links), or
 * TG_NONE. */
uint32_t tg_launchers_find(const tg_tree *tree, const tg_event *ev, uint32_t k, const tg_atoms *atoms, int tracelens);

/* tg_launchers_owner, inline for the files of the launchers. */
static inline uint32_t tg_launchers_owner_of(const tg_launchers *l, uint32_t ev)
{
	size_t w = ev >> 6;
	uint64_t bit = (uint64_t)1 << (ev & 63);
	if (w >= l->nlinked_words || !(l->linked[w] & bit))
		return TG_NONE;
	return l->linked_owner[l->linked_rank[w] + tg_popcount64(l->linked[w] & (bit - 1))];
}

/* Whether event e falls in step index step of tree (step < 0: any). */
static inline int tg_launchers_in_step(const tg_tree *tree, uint32_t e, int32_t step)
{
	return step < 0 || tg_tree_step_of(tree, e) == step;
}

#endif
