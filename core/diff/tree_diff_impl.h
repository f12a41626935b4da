/*
 * tree_diff_impl.h - the inside of tg_tree_diff, shared by the files of the
 * tree diff alone (tests may include it to look inside):
 *
 *   tree_diff.c        the public entry: options, the top-down build loop,
 *                      the merged nodes, the accessors
 *   tree_diff_name.c   name normalisation (tg_diff_normalize_name)
 *   tree_diff_view.c   a tree seen as a view (kept events, depth first)
 *   tree_diff_side.c   a base side's view made once for many diffs
 *   tree_diff_align.c  alignment of two lists of view nodes (Wagner-Fischer,
 *                      same-name disambiguation)
 *   tree_diff_merge.c  one merge step: the children pairs of a node pair
 *                      (TraceLens's phases 1-4)
 *   tree_diff_lca.c    the lowest points of divergence and matched events
 *   tree_diff_print.c  labels and the printed drawing
 *
 * The small vectors and buffers below are static inline so that every file
 * keeps them inlined as they were when the diff was one file; the steps
 * that cross files (a view, an alignment, an expansion, the LCAs) are each
 * called once per tree or per node pair. Nothing here is thread-shared:
 * one build owns its struct ctx.
 */
#ifndef TG_TREE_DIFF_IMPL_H
#define TG_TREE_DIFF_IMPL_H

#include "tree_diff.h"
#include "../../util/atoms.h"
#include "../../util/bits.h"
#include "../../util/buf.h"
#include "../../util/interval.h"
#include "skeleton.h"

#include <stdlib.h>
#include <string.h>

#define BFS_DEPTH 4 /* levels of the same-name subtree signature */

/* ------------------------------------------------------------------ */
/* small vectors                                                        */

typedef struct u32vec {
	uint32_t *v;
	size_t n, cap;
} u32vec;

static inline int u32_reserve(u32vec *a, size_t need)
{
	return need <= a->cap ? 0 : tg_grow((void **)&a->v, &a->cap, need, sizeof(uint32_t));
}

static inline int u32_push(u32vec *a, uint32_t x)
{
	if (a->n == a->cap && tg_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(uint32_t)))
		return TG_ENOMEM;
	a->v[a->n++] = x;
	return 0;
}

static inline int u32_copy(u32vec *dst, const uint32_t *src, size_t n)
{
	if (u32_reserve(dst, n))
		return TG_ENOMEM;
	if (n)
		memmove(dst->v, src, n * sizeof(uint32_t));
	dst->n = n;
	return 0;
}

/* An alignment step: match (i, j), delete (i, TG_NONE), insert (TG_NONE, j). */
typedef struct op {
	uint32_t i, j;
} op;

typedef struct opvec {
	op *v;
	size_t n, cap;
} opvec;

static inline int op_push(opvec *a, uint32_t i, uint32_t j)
{
	if (a->n == a->cap && tg_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(op)))
		return TG_ENOMEM;
	a->v[a->n++] = (op){i, j};
	return 0;
}

static inline int op_copy(opvec *dst, const opvec *src)
{
	if (src->n > dst->cap && tg_grow((void **)&dst->v, &dst->cap, src->n, sizeof(op)))
		return TG_ENOMEM;
	if (src->n)
		memcpy(dst->v, src->v, src->n * sizeof(op));
	dst->n = src->n;
	return 0;
}

#define IS_MATCH(o) ((o).i != TG_NONE && (o).j != TG_NONE)
#define IS_DELETE(o) ((o).j == TG_NONE)
#define IS_INSERT(o) ((o).i == TG_NONE)

/* Cuts b back to its first len bytes (len <= b->len), NUL-terminated: the
 * prefix of the printed drawing shrinks as the printer climbs back up. */
static inline void buf_cut(tg_buf *b, size_t len)
{
	b->len = len;
	if (b->data)
		b->data[len] = 0;
}

/* ------------------------------------------------------------------ */
/* views                                                                */

enum {
	F_GPU = 1,      /* device event: kernel, memcpy, memset */
	F_KERNEL = 2,   /* TraceLens category "kernel" (not memcpy/memset) */
	F_CPU_OP = 4,
	F_DISPATCH = 8, /* runtime/driver call that is not a graph launch */
	F_GRAPH = 16,   /* cudaGraphLaunch, hipGraphLaunch */
	F_PATH = 32,    /* on the GPU path: device work in its subtree */
	F_RENAMED = 64  /* a launch keyed by its kernels (key_launches_by_kernels): its
	                   stripped name is its key, not its name's (view_skey) */
};

struct view {
	const tg_skeleton *sk;
	const tg_skel_node *sn; /* the skeleton's nodes */
	size_t ne;              /* events of the trace */
	uint32_t n;
	uint32_t *node;   /* view -> skeleton node (its event: view_event) */
	uint32_t *end;    /* subtree = [v, end[v]); its children: v + 1, end[v + 1], ... (VIEW_CHILDREN) */
	uint32_t *key;    /* comparison names (normal); stripped of details: view_skey */
	uint8_t *flags;
	uint32_t *roots;
	size_t nroots;
	uint32_t *atom_key, *atom_skey; /* cache per atom of the skeleton's names */
	uint32_t natoms;
};

/* For each child ch of view node v of s, in order (by start): the view
 * is numbered depth first, so v's first child is v + 1 and each child's
 * next sibling begins where its subtree ends. No arrays of children: 8
 * bytes a view node less. */
#define VIEW_CHILDREN(s, v, ch) for (uint32_t ch = (v) + 1, ch##_end_ = (s)->end[v]; ch < ch##_end_; ch = (s)->end[ch])

/* The number of children of view node v. */
static inline uint32_t view_nchildren(const struct view *s, uint32_t v)
{
	uint32_t n = 0;
	VIEW_CHILDREN(s, v, ch)
		n++;
	return n;
}

/* The event of view node v. */
static inline uint32_t view_event(const struct view *s, uint32_t v)
{
	return tg_skeleton_event(s->sk, s->node[v]);
}

/* The comparison name of view node v stripped of details (strip_details):
 * its name's, from the atom cache that the view's build filled for every
 * name, or its key when the build renamed it (F_RENAMED). Not an array of
 * its own: 4 bytes a view node less, held through the alignment. */
static inline uint32_t view_skey(const struct view *s, uint32_t v)
{
	return (s->flags[v] & F_RENAMED) ? s->key[v] : s->atom_skey[s->sn[s->node[v]].name];
}


/* A link's LCA mark: an event in an LCA holds LINK_LCA | the LCA's index,
 * a matched one its counterpart (events are below LINK_LCA). */
#define LINK_LCA 0x80000000u

/* One side's links, held for its device events only (a third of a
 * trace's events, or less): bit ev of dev says event ev is a device event
 * of the view; its slot in link is the number of such events before it
 * (rank: those before each 64-bit word of dev, then the word's bits). */
struct links {
	uint64_t *dev;
	uint32_t *rank;
	uint32_t *link; /* its match, LINK_LCA | its LCA, or TG_NONE */
	size_t nlink;   /* entries of link (the device events, and one) */
};

/* The link of event ev (below the side's events), NULL when ev is no
 * device event of the view. */
static inline uint32_t *link_of(const struct links *l, uint32_t ev)
{
	uint64_t w = l->dev[ev >> 6], below = ((uint64_t)1 << (ev & 63)) - 1;
	if (!((w >> (ev & 63)) & 1))
		return NULL;
	return &l->link[l->rank[ev >> 6] + tg_popcount64(w & below)];
}

struct tg_tree_diff {
	struct view side[2]; /* while it is built; then only each side's skeleton (sk) and ne */
	int base_borrowed; /* side[0]'s arrays are a tg_tree_diff_side's */
	tg_tree_diff_opts opts;
	tg_skeleton *own[2]; /* the skeletons built from trees (tg_tree_diff_build), else NULL */
	tg_atoms *norms; /* normalized names of both sides */
	tg_diff_node *nodes; /* while built, base_ev and new_ev hold view nodes (then events) */
	size_t nnodes, cap_nodes;
	tg_diff_lca *lcas;
	size_t nlcas, cap_lcas;
	uint32_t *lca_events; /* the events of all LCAs */
	size_t nlca_events, cap_lca_events;
	struct links links[2]; /* each side's match or LCA of its device events */
	tg_tree_diff_stats stats;
};

/* The skeleton node of event ev of side s, TG_NONE when the skeleton
 * lacks it (binary search: for the printed and attributed few). */
static inline uint32_t side_node(const tg_tree_diff *d, int s, uint32_t ev)
{
	return tg_skeleton_find(d->side[s].sk, ev);
}

/* A BFS signature: level k holds lpool[off[k] .. off[k+1]). */
struct levels {
	uint32_t off[BFS_DEPTH + 1];
	uint32_t n;
};

/* Scratch of the build. */
struct ctx {
	tg_tree_diff *d;
	tg_buf nb, nt;
	/* alignment */
	u32vec ka, kb;
	uint64_t *bits;
	size_t cap_bits;
	u32vec row0, row1;
	/* disambiguation */
	struct ent {
		uint32_t key;
		uint32_t idx;
		uint8_t side, matched;
	} *ents;
	size_t cap_ents;
	u32vec st1, st2, lpool, front, next, g1, g2;
	struct levels *L1, *L2;
	size_t cap_L1, cap_L2;
	uint8_t *as1, *as2, *hand1, *hand2;
	size_t cap_as1, cap_as2, cap_hand1, cap_hand2;
	struct spair {
		uint32_t d, ov;
		uint32_t orig;
		uint32_t i, j;
	} *pairs;
	size_t cap_pairs;
	opvec dnew, dout;
	/* expansion */
	u32vec c1, c2, t1, t2, r1, r2, f1, f2, fi1, fi2, u1, u2, col1, col2, s1, s2, p2a, p2b;
	opvec ops, fops, nops, p1ops, p2ops, cops;
	u32vec imm;
	uint32_t *immoff;
	size_t cap_immoff;
	uint8_t *sub1, *sub2, *skip1, *skip2;
	size_t cap_sub1, cap_sub2, cap_skip1, cap_skip2;
	uint64_t *places; /* the opened lists' view nodes and places, sorted (keep_matches) */
	size_t cap_places;
	struct tsk {
		int64_t ts;
		uint32_t pos, v;
	} *tsk;
	size_t cap_tsk;
	/* work stack */
	struct work {
		uint32_t v1, v2, parent;
	} *stack;
	size_t nstack, cap_stack;
	u32vec pairs1, pairs2;
	u32vec lb, ln; /* a lean merge's examination (tg_tree_diff_examine_subtree) */
	tg_interval *iv;
	size_t cap_iv;
	uint64_t *used[2]; /* a bit a view node: in the merged tree */
};

/* Bit v of the bitmap b. */
static inline int bit_get(const uint64_t *b, uint32_t v)
{
	return (int)((b[v >> 6] >> (v & 63)) & 1);
}

static inline void bit_set(uint64_t *b, uint32_t v)
{
	b[v >> 6] |= (uint64_t)1 << (v & 63);
}

static inline int grow_bytes(uint8_t **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	return tg_grow((void **)p, cap, need, 1);
}

static inline int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* qsort of n uint32 at p (p may be NULL when n is 0). */
static inline void sort32(uint32_t *p, size_t n)
{
	if (n > 1)
		qsort(p, n, sizeof(uint32_t), cmp_u32);
}

static inline int find32(uint32_t x, const uint32_t *p, size_t n)
{
	return n && bsearch(&x, p, n, sizeof(uint32_t), cmp_u32) != NULL;
}

/* tree_diff_name.c: TraceLens's _normalize_name_for_comparison of s into b
 * (tmp is scratch); strip: the "strip details" variant. 0 or TG_ENOMEM. */
int tg_tree_diff_normalize(tg_buf *b, tg_buf *tmp, const char *s, int strip);

/* tree_diff_view.c: fills s, the view of skeleton sk (its arrays are s's,
 * freed with tg_tree_diff_view_free; names interned in c->d->norms). 0,
 * TG_ENOMEM, or TG_EINVAL when o keeps python or annotation events that
 * sk was built without. */
int tg_tree_diff_view_build(struct ctx *c, struct view *s, const tg_skeleton *sk, const tg_tree_diff_opts *o);
void tg_tree_diff_view_free(struct view *s);

/* tree_diff_side.c: a base side's view made once (tg_tree_diff_side),
 * with the normalized names its keys are atoms of and the counts of it
 * that the diff's stats hold. */
struct tg_tree_diff_side {
	struct view v;
	tg_atoms *norms;
	tg_tree_diff_opts opts; /* as given (zero: none) */
	uint64_t gpu, roots;
};

/* tree_diff_side.c: whether a view made under a serves a diff under b
 * (the options a view depends on are the same). */
int tg_tree_diff_side_fits(const tg_tree_diff_opts *a, const tg_tree_diff_opts *b);

/* tree_diff_side.c: d's base side borrowed from s: its view, a copy of
 * its names (the new side adds its own) and its counts. 0 or TG_ENOMEM /
 * TG_ELIMIT. */
int tg_tree_diff_side_lend(tg_tree_diff *d, const tg_tree_diff_side *s);

/* tree_diff_align.c: aligns view nodes a[0..m) of the base with b[0..n) of
 * the new side by name (stripped of details with strip) into out, then
 * re-pairs same-name nodes by subtree shape (TraceLens's aligned_wf).
 * out indexes a and b. 0 or TG_ENOMEM. */
int tg_tree_diff_aligned(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n, int strip,
                         opvec *out);

/* tree_diff_merge.c: the children pairs of the node pair (*v1, *v2) into
 * c->pairs1/2 (TG_NONE: one-sided). Phase 1 may replace one side of the
 * node by a deeper wrapper. root: the virtual root, whose children are the
 * roots (by position with positional). 0 or TG_ENOMEM. */
int tg_tree_diff_expand(struct ctx *c, uint32_t *v1, uint32_t *v2, int root, int positional);

/* tree_diff_lca.c: the gpu and diverges flags of every merged node, the
 * matched device events and the LCAs, into c->d (the merged nodes still
 * hold view nodes). 0 or TG_ENOMEM. */
int tg_tree_diff_find_lcas(struct ctx *c);

/* tree_diff_lca.c: the merged nodes [from, c->d->nnodes), the whole
 * subtree of a pair of roots (its first node a child of the root),
 * examined as tg_tree_diff_find_lcas examines them: its matched device
 * events linked and counted, unless one of its nodes, or the root through
 * it (a one-sided subtree with device work), is a point of divergence:
 * then *lca is 1 and what was linked is to be undone (a lean merge starts
 * again, whole). 0 or TG_ENOMEM. */
int tg_tree_diff_examine_subtree(struct ctx *c, size_t from, int *lca);

#endif
