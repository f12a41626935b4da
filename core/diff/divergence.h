/*
 * divergence.h - what the lowest points of divergence of two trees
 * (tree_diff.h) mean for a comparison: where the time went, and under
 * which category it is judged.
 *
 * Attribution. A kernel that has no counterpart on the other side belongs
 * to exactly one lowest common ancestor (LCA): the lowest op both trees
 * share above the change. Its time is filed under that op's category, so
 * that attention dispatched to another path (flash kernels replaced by a
 * bmm, a softmax and a bmm under the same aten::scaled_dot_product_attention)
 * is judged as an SDPA regression rather than "SDPA gone, GEMM grew". The
 * category of an LCA is its op's own (base side) category when it has one
 * (GEMM, SDPA_fwd, ...); else the category every base-side kernel under the
 * LCA shares, else the one every new-side kernel shares; else the kernels
 * keep their own. LCAs that are the virtual root (ops added or removed at
 * the top) or a pair of differently named kernels leave the categories as
 * they are. Only the category key changes: op, op + shape and kernel keys
 * stay those of the launching op, so the op tables show the dispatch
 * change as it is.
 */
#ifndef TG_DIVERGENCE_H
#define TG_DIVERGENCE_H

#include "measure.h"
#include "../analysis/table.h"
#include "tree_diff.h"

/* Re-files the records of base trace bt and next trace nt that belong to an
 * LCA of d (the diff of those two traces' trees) under the LCA's category
 * (see above). keys: the measures' shared key table. *moved (may be NULL):
 * how many records changed category. Returns 0 or TG_ENOMEM. */
int tg_divergence_attribute(tg_measure *base, tg_measure *next, const tg_tree_diff *d, uint32_t bt, uint32_t nt,
                            tg_atoms *keys, size_t *moved);

/* One diffed pair of traces: trace bt of base against trace nt of next. */
typedef struct tg_divergence_pair {
	const tg_tree_diff *diff;
	uint32_t bt, nt;
} tg_divergence_pair;

/* The divergences of the pairs as a table "diff_by_divergence": one row per
 * kind of divergence (same LCA name, same kernels on each side), with
 * columns where, category (of the LCA's records, after attribution;
 * "mixed" when they differ), base kernels, new kernels ("name", "a + b",
 * "name x3"), count (LCAs of that kind), base (us), new (us) (summed
 * kernel time per step of each side), delta (us), delta (%); largest
 * |delta| first, at most limit rows (0: all). The caller frees the table.
 * Returns 0 or TG_ENOMEM. */
int tg_divergence_table(tg_table **out, const tg_divergence_pair *pairs, size_t npairs, const tg_measure *base,
                        const tg_measure *next, const tg_atoms *keys, size_t limit);

/* Chooses which LCAs of d to draw: the first LCA (in tree order) of each
 * of the max_kinds kinds of divergence (as in the table) whose time
 * changed most. mask: one byte per LCA of d, set to 1 for those chosen,
 * else 0. *kinds (may be NULL): how many kinds d has. Returns 0 or
 * TG_ENOMEM. */
int tg_divergence_pick(uint8_t *mask, const tg_tree_diff *d, size_t max_kinds, size_t *kinds);

#endif
