/*
 * tree_diff.h - the morphological alignment of two event trees (TraceLens's
 * TraceDiff): which ops and kernels of a baseline trace correspond to which
 * of a new trace, and the lowest points where the two trees diverge.
 *
 * Both trees are first seen through a "view": cpu_ops, runtime/driver
 * calls and device events (kernels, memcpys, memsets); python_function and
 * user_annotation nodes are left out by default and their children hang
 * from the nearest kept ancestor, as TraceLens builds its tree. Names are
 * compared normalized: hex addresses become 0xXXXX, ".py(123):" becomes
 * ".py:", cuLaunchKernel and hipModuleLaunchKernel become one name.
 *
 * The two trees are merged top-down. At each pair of nodes their children
 * on the GPU path (those with device work under them) are aligned: by
 * position when the lists have equal length and hold no launch call, else
 * by Wagner-Fischer edit distance on their names; same-name siblings are
 * re-paired by the shape of their subtrees; unmatched wrappers are opened
 * up (TraceLens's phases 1-4, docs/tree-diff.md). A pair becomes a
 * "combined" node; what has no counterpart becomes a one-sided node.
 *
 * A lowest common ancestor (LCA) is a combined node under which the trees
 * differ: it has one-sided children with device work, or it pairs two
 * device events of different names. Every device event of the view is
 * either matched with one event of the other side (a combined node of two
 * events with the same normalized name) or belongs to exactly one LCA.
 * Two identical trees give no LCA.
 */
#ifndef TG_TREE_DIFF_H
#define TG_TREE_DIFF_H

#include "skeleton.h"
#include "../tree/tree.h"

#include <stdio.h>

typedef struct tg_tree_diff tg_tree_diff;

/* Which side a merged node comes from. */
typedef enum tg_diff_side {
	TG_DIFF_BOTH = 0,  /* "combined": one event of each trace */
	TG_DIFF_BASE_ONLY, /* ">> trace1": only in the baseline */
	TG_DIFF_NEW_ONLY   /* "<< trace2": only in the new trace */
} tg_diff_side;

/* The side argument of tg_tree_diff_match and tg_tree_diff_lca_of. */
enum { TG_DIFF_SIDE_BASE = 0, TG_DIFF_SIDE_NEW = 1 };

/* One node of the merged tree. */
typedef struct tg_diff_node {
	uint32_t base_ev, new_ev; /* event indices in each trace, TG_NONE when absent */
	uint32_t parent;  /* node index, TG_NONE */
	uint32_t end;     /* its subtree is [this node, end): its first child, when it has one,
	                   * is the next node, and each child's next sibling begins where the
	                   * child's subtree ends (TG_DIFF_CHILDREN); 20 bytes a node, not 24 */
	uint8_t side;     /* tg_diff_side */
	uint8_t diverges; /* combined although the normalized names differ */
	uint8_t gpu;      /* 1 when a side present has device work under it */
	uint8_t reserved;
} tg_diff_node;

/* For each child ch of node n of the merged nodes (tg_tree_diff_nodes),
 * in order: the nodes are numbered depth first, so n's first child is n +
 * 1 and each child's next sibling begins where its subtree ends. */
#define TG_DIFF_CHILDREN(nodes, n, ch) \
	for (uint32_t ch = (n) + 1, ch##_end_ = (nodes)[n].end; ch < ch##_end_; ch = (nodes)[ch].end)

/* A lowest point of divergence. */
typedef struct tg_diff_lca {
	uint32_t node;            /* the combined node under which the trees differ */
	const uint32_t *base_gpu; /* device events under its one-sided children (or the */
	size_t nbase;             /* diverging event pair itself), base side, by start */
	const uint32_t *new_gpu;
	size_t nnew;
	int64_t base_busy_ns, new_busy_ns; /* union of those events' [ts, ts+dur) per side */
	int64_t base_sum_ns, new_sum_ns;   /* plain sums of their durations */
} tg_diff_lca;

typedef struct tg_tree_diff_opts {
	int keep_python;      /* keep python_function nodes (default 0: TraceLens builds without) */
	int keep_annotations; /* keep user_annotation nodes (ProfilerStep#N...; default 0, as TraceLens) */
	int positional_roots; /* pair the i-th root with the i-th, as TraceLens does; default 0:
	                       * align the roots like children (robust to an extra top-level op) */
	int launch_by_name;   /* match launch calls by their name alone, as TraceLens does; default 0:
	                       * a launch's name includes its kernels' names, so that a launch
	                       * of another kernel does not pair with it and the divergence is
	                       * reported at the op (graph launches always match by name) */
	int positional_reorders; /* pair two equal-length child lists without launch calls by position
	                          * even when they hold the same names in another order, as TraceLens
	                          * does; default 0: such lists are aligned by name, so that swapping
	                          * two ops does not pair each with the other */
	int tracelens_links;  /* only device events TraceLens links (tg_tree_linked_like_tracelens),
	                       * and only roots that hold a cpu_op; default 0: every device
	                       * event the tree links, and every parentless node as a root
	                       * (launch calls outside any op, orphan device events) */
	uint64_t max_dp_cells; /* largest m*n Wagner-Fischer table per child list (after the
	                        * common suffix is stripped); beyond it the common prefix is
	                        * stripped too, then a linear windowed alignment is used.
	                        * 0: 4,194,304 */
	uint64_t max_pairs;   /* cap of the quadratic steps (same-name disambiguation per name,
	                       * wrapper reconciliation per node); beyond it the step is
	                       * skipped. 0: 65,536 */
	void (*scratch_freed)(void *ctx); /* called with scratch_ctx while the diff is built,
	                              * each time it has freed a large scratch (the views' build's,
	                              * the roots' alignment's) before it grows again: the caller's
	                              * heap policy (a caller that keeps freed memory may give it
	                              * back, malloc_trim); NULL: nothing. Changes no result */
	void *scratch_ctx;
	int lean; /* a caller that makes the diff lean once built (tg_tree_diff_lean): the merged
	           * tree is then never held whole when the diff has no LCA (each pair of roots'
	           * subtree is examined once merged, its matches linked, and dropped; at the
	           * first point of divergence the tree is merged again, whole, as without this);
	           * such a diff comes back lean. Changes no result but the merged nodes of a
	           * diff without LCAs (none) */
} tg_tree_diff_opts;

/* The options that reproduce TraceLens's TraceDiff (positional roots,
 * launches by name, reorders by position, TraceLens's links, python and
 * annotations left out). */
tg_tree_diff_opts tg_tree_diff_opts_tracelens(void);

/* Counts of a diff, for reports and tests. */
typedef struct tg_tree_diff_stats {
	uint64_t gpu[2];         /* device events in each view */
	uint64_t matched[2];     /* matched one to one with an event of the same normalized name */
	uint64_t in_lca[2];      /* under an LCA */
	uint64_t unaccounted[2]; /* in the view but outside the merged tree (not on a root's path) */
	uint64_t roots[2];       /* roots of each view */
	uint64_t nodes;          /* merged nodes, the virtual root included */
	uint64_t dp_exact;       /* child lists aligned by the full Wagner-Fischer table */
	uint64_t dp_fallback;    /* child lists too large: prefix stripped and/or windowed */
	uint64_t skipped_quadratic; /* disambiguations or reconciliations skipped (max_pairs) */
} tg_tree_diff_stats;

/* Aligns the trees base and next (through their op skeletons, which the
 * diff builds and owns). Both trees (and their traces) must outlive the
 * diff. opts may be NULL (defaults). On success *out owns the diff (free
 * with tg_tree_diff_free). Returns 0, TG_ENOMEM, or TG_ELIMIT (more than
 * 2^32 - 2 distinct normalized names, or a trace of 2^31 events or more:
 * a device event's link marks an LCA's index with the top bit). */
int tg_tree_diff_build(tg_tree_diff **out, const tg_tree *base, const tg_tree *next,
                       const tg_tree_diff_opts *opts);

/* The same alignment from the op skeletons of two trees (skeleton.h), for
 * runs whose traces are not read again: the same result as from the trees
 * they were built from. Both skeletons must outlive the diff (borrowed).
 * TG_EINVAL when opts keep python or annotation events a skeleton was
 * built without; else as tg_tree_diff_build. */
int tg_tree_diff_build_skeletons(tg_tree_diff **out, const tg_skeleton *base, const tg_skeleton *next,
                                 const tg_tree_diff_opts *opts);

/* A base side made once (tree_diff_side.c): the view of a skeleton that
 * many diffs align with (a baseline every pull request is judged
 * against), so that each of them builds only its new side's view. */
typedef struct tg_tree_diff_side tg_tree_diff_side;

/* The base-side view of skeleton sk under opts (NULL: the defaults). sk
 * must outlive the side (borrowed). *out is the caller's
 * (tg_tree_diff_side_free). Errors as tg_tree_diff_build_skeletons's. */
int tg_tree_diff_side_new(tg_tree_diff_side **out, const tg_skeleton *sk, const tg_tree_diff_opts *opts);

/* Frees the side. NULL is a no-op. */
void tg_tree_diff_side_free(tg_tree_diff_side *s);

/* The bytes the side holds (its view and names; not the skeleton's). */
uint64_t tg_tree_diff_side_bytes(const tg_tree_diff_side *s);

/* The skeleton the side was made from (borrowed). */
const tg_skeleton *tg_tree_diff_side_skeleton(const tg_tree_diff_side *s);

/* The same diff as tg_tree_diff_build_skeletons(out, the side's skeleton,
 * next, opts) gives, with the base's view borrowed from base instead of
 * built (when base was made under the same view options as opts; else it
 * is built). base is only read: any number of diffs, in any number of
 * processes or threads, may use it at once; it and next must outlive the
 * diff. Errors as tg_tree_diff_build_skeletons's. */
int tg_tree_diff_build_from(tg_tree_diff **out, const tg_tree_diff_side *base, const tg_skeleton *next,
                            const tg_tree_diff_opts *opts);

/* The skeleton of a side (TG_DIFF_SIDE_BASE or TG_DIFF_SIDE_NEW): the
 * names, kinds and times of the events the nodes and LCAs name. Owned by
 * d (or borrowed by it). */
const tg_skeleton *tg_tree_diff_skeleton(const tg_tree_diff *d, int side);

/* The index into that skeleton's nodes of event ev of a side, TG_NONE when
 * the skeleton lacks it: constant time for an event of the view. */
uint32_t tg_tree_diff_event_node(const tg_tree_diff *d, int side, uint32_t ev);

/* Frees the diff. NULL is a no-op. */
void tg_tree_diff_free(tg_tree_diff *d);

/* When d has no LCA (the trees align without a point of divergence),
 * frees its merged nodes and forgets its skeletons (freeing those it
 * built: tg_tree_diff_build), for a caller that reads no more of it than
 * its LCAs, matches and stats (the gate: a merged tree of 24 bytes a node
 * held beside the judgement's measures draws nothing then). Afterwards
 * tg_tree_diff_nodes gives none, tg_tree_diff_skeleton NULL and
 * tg_tree_diff_event_node TG_NONE; tg_tree_diff_match, _lca_of, _lcas
 * and _stats_get read as before, and d must not be printed. Returns 1
 * when d was made lean, 0 when it has LCAs (then nothing changes). */
int tg_tree_diff_lean(tg_tree_diff *d);

/* The merged nodes, *n of them, in depth-first order (a node's index is
 * smaller than its descendants'). Node 0 is a virtual root, combined, with
 * no event; the roots of the two views are its children. Owned by d. */
const tg_diff_node *tg_tree_diff_nodes(const tg_tree_diff *d, size_t *n);

/* The LCAs, *n of them, in depth-first order of their nodes. Owned by d. */
const tg_diff_lca *tg_tree_diff_lcas(const tg_tree_diff *d, size_t *n);

/* For device event ev of one side (TG_DIFF_SIDE_BASE or TG_DIFF_SIDE_NEW):
 * its counterpart event on the other side when the two are matched (a
 * combined node of two device events with the same normalized name), else
 * TG_NONE. */
uint32_t tg_tree_diff_match(const tg_tree_diff *d, int side, uint32_t ev);

/* For device event ev of one side: the index into tg_tree_diff_lcas() of
 * the LCA it belongs to, else TG_NONE (matched, or outside the view). */
uint32_t tg_tree_diff_lca_of(const tg_tree_diff *d, int side, uint32_t ev);

/* The name of a merged node as TraceLens's merged tree prints it: "name",
 * "combined: a | b" when the raw names differ, ">> trace1: a",
 * "<< trace2: b"; "(root)" for node 0. Written into buf (NUL-terminated
 * when size > 0, truncated to size); returns the full length. */
size_t tg_tree_diff_label(char *buf, size_t size, const tg_tree_diff *d, uint32_t node);

/* The normalized comparison name of a string (hex addresses, .py line
 * numbers, kernel-launch driver calls), as TraceLens's
 * _normalize_name_for_comparison; strip_details also drops a trailing
 * ": word" and a .py path's directories. Writes at most size bytes
 * (NUL-terminated); returns the full length. */
size_t tg_diff_normalize_name(char *buf, size_t size, const char *name, int strip_details);

/* The counts of the diff, owned by d. */
const tg_tree_diff_stats *tg_tree_diff_stats_get(const tg_tree_diff *d);

/* What tg_tree_diff_print writes. */
typedef struct tg_diff_print_opts {
	int only_diffs;  /* 0: the whole merged tree exactly as TraceLens's merged_tree_output.txt
	                  * (children ordered combined, then trace1, then trace2); 1: only the
	                  * paths from the roots to the LCAs and the LCAs' one-sided subtrees,
	                  * children in merge order, with context and elisions */
	int context;     /* only_diffs: matched siblings shown on each side of a shown child (0: none) */
	int max_depth;   /* only_diffs: levels shown under an LCA (0: all) */
	size_t max_name; /* truncate names longer than this with "..." (0: never) */
	size_t max_lines; /* stop after this many lines with a "... N more lines" line (0: all) */
	int ascii;       /* "|-- " and "`-- " instead of box-drawing characters */
	const uint8_t *lca_mask; /* only_diffs: draw only the LCAs l with lca_mask[l] != 0
	                          * (indices of tg_tree_diff_lcas); NULL: all */
} tg_diff_print_opts;

/* Prints the merged tree to f, one node a line, as TraceLens's
 * merged_tree_output.txt: combined nodes print their name (or "combined:
 * a | b"), one-sided nodes ">> trace1: name" / "<< trace2: name", under
 * "├── " / "└── " connectors. opts NULL: the whole tree, TraceLens's
 * format. With only_diffs, one-sided nodes read "base: name" / "new:  name",
 * LCA lines end with "  [LCA: base N kernels X us busy, new M kernels Y us
 * busy]", runs of hidden siblings are summarised ("... 12 matching"), and
 * the top level's device events that no op launched are one line ("... no
 * launching op ...: base N device events X us, new M Y us"). Returns 0,
 * TG_ENOMEM or TG_EIO. */
int tg_tree_diff_print(FILE *f, const tg_tree_diff *d, const tg_diff_print_opts *opts);

#endif
