/*
 * call_pairs.h - the calls the morphological alignment pairs between two
 * traces (tree_diff.h), written into the kernel records of the two
 * measures (measure.h: tg_kernel_rec.pair), so that a rule can judge a
 * one-step trace on paired calls (rules/paired.h): layer 7's attention
 * kernel in the base with layer 7's in the new trace, also inside a
 * CUDA-graph replay (one launch owning hundreds of kernels, aligned by
 * their names in order) and inside CompiledFunction.
 *
 * A pair is a device event matched one to one with an event of the same
 * normalized name (tg_tree_diff_match); what the trees do not match (new,
 * gone, renamed kernels, under a point of divergence) stays unpaired.
 */
#ifndef TG_CALL_PAIRS_H
#define TG_CALL_PAIRS_H

#include "measure.h"
#include "tree_diff.h"

/* Pairs the records of base trace bt with those of next trace nt that d
 * (the diff of those two traces' trees) matches: each record's pair is the
 * index of the other's in the other measure. *npaired (may be NULL): the
 * pairs made. Returns 0 (nothing to allocate). */
int tg_call_pairs_fill(tg_measure *base, tg_measure *next, const tg_tree_diff *d, uint32_t bt, uint32_t nt,
                       size_t *npaired);

#endif
