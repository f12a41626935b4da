/*
 * tree_diff.c - the morphological alignment of two event trees (see
 * tree_diff.h and docs/tree-diff.md): the public entry. It builds both
 * views, then the merged tree top-down, and hands out the result.
 *
 * A port of TraceLens's TraceDiff.merge_trees / generate_diff_stats
 * (TraceLens/TraceDiff/trace_diff.py, util.py), written here because no
 * library does it: every step that TraceLens runs in O(m*n) or worse is
 * bounded (common suffix and prefix stripped before Wagner-Fischer, a
 * linear windowed alignment beyond a table size, caps on the quadratic
 * disambiguation and reconciliation), so that two 240k-event traces diff in
 * milliseconds.
 *
 * Layout. Each side is first flattened into a "view" (tree_diff_view.c):
 * the kept events renumbered in depth-first order (children by start
 * time), so that a node's subtree is the index range [v, end[v]). The
 * merged tree is built here top-down with an explicit stack; node ids are
 * given when a node is popped, which is the preorder TraceLens numbers its
 * merged_id in. Each popped pair is expanded into its children pairs by
 * the merge phases (tree_diff_merge.c, aligning with tree_diff_align.c);
 * the LCAs are found once the tree is complete (tree_diff_lca.c). Every
 * per-node step reuses the scratch vectors of struct ctx
 * (tree_diff_impl.h). The printer is tree_diff_print.c.
 */
#include "tree_diff_impl.h"
#include "../../util/big.h"

#define DEFAULT_MAX_DP_CELLS (4u << 20)
#define DEFAULT_MAX_PAIRS 65536u

/* Appends the merged node of view nodes (v1, v2) under parent; its id into
 * *id. The node holds the view nodes while the tree is built (events_of
 * turns them into events); the subtree ends are made once the tree is
 * complete (subtree_ends). 0 or TG_ENOMEM. */
static int new_node(tg_tree_diff *d, uint32_t v1, uint32_t v2, uint32_t parent, uint32_t *id)
{
	size_t need = d->nnodes + 1;
	if (need > d->cap_nodes && tg_big_grow((void **)&d->nodes, &d->cap_nodes, need, sizeof(tg_diff_node)))
		return TG_ENOMEM;
	uint32_t n = (uint32_t)d->nnodes++;
	tg_diff_node *x = &d->nodes[n];
	memset(x, 0, sizeof(*x));
	x->base_ev = v1;
	x->new_ev = v2;
	x->parent = parent;
	x->end = n + 1; /* a leaf until subtree_ends */
	x->side = v1 != TG_NONE && v2 != TG_NONE ? TG_DIFF_BOTH : v1 != TG_NONE ? TG_DIFF_BASE_ONLY : TG_DIFF_NEW_ONLY;
	*id = n;
	return 0;
}

/* The merged nodes' view nodes become their events, as the diff hands
 * them out. */
static void events_of(tg_tree_diff *d)
{
	for (size_t n = 0; n < d->nnodes; n++) {
		tg_diff_node *x = &d->nodes[n];
		if (x->base_ev != TG_NONE)
			x->base_ev = view_event(&d->side[0], x->base_ev);
		if (x->new_ev != TG_NONE)
			x->new_ev = view_event(&d->side[1], x->new_ev);
	}
}

_Static_assert(sizeof(tg_diff_node) == 20, "a merged node is 20 bytes (tree_diff.h)");

/* The subtree ends of the merged nodes past from, the whole subtree of
 * node from (0: the complete tree): ids are in preorder (a node's
 * descendants follow it), so one pass from the last node back carries
 * each subtree's end up to its parent before the parent is read. */
static void subtree_ends(tg_tree_diff *d, size_t from)
{
	for (size_t n = d->nnodes; n-- > from + 1;) {
		tg_diff_node *x = &d->nodes[n];
		if (x->parent != TG_NONE && d->nodes[x->parent].end < x->end)
			d->nodes[x->parent].end = x->end;
	}
}

tg_tree_diff_opts tg_tree_diff_opts_tracelens(void)
{
	tg_tree_diff_opts o;
	memset(&o, 0, sizeof(o));
	o.positional_roots = 1;
	o.launch_by_name = 1;
	o.tracelens_links = 1;
	o.positional_reorders = 1;
	return o;
}

/* The scratch vectors of c, into vs (u32) and os (ops): 34 and 8 of them. */
#define CTX_U32VECS 34
#define CTX_OPVECS 8
static void ctx_vecs(u32vec **vs, opvec **os, struct ctx *c)
{
	u32vec *v[CTX_U32VECS] = {&c->st1, &c->st2, &c->lpool, &c->front, &c->next, &c->g1,     &c->g2,
	                          &c->c1,  &c->c2,  &c->t1,    &c->t2,    &c->r1,   &c->r2,     &c->f1,
	                          &c->f2,  &c->fi1, &c->fi2,   &c->u1,    &c->u2,   &c->col1,   &c->col2,
	                          &c->s1,  &c->s2,  &c->p2a,   &c->p2b,   &c->imm,  &c->pairs1, &c->pairs2,
	                          &c->ka,  &c->kb,  &c->row0,  &c->row1,    &c->lb,   &c->ln};
	opvec *o[CTX_OPVECS] = {&c->dnew, &c->dout, &c->ops, &c->fops, &c->nops, &c->p1ops, &c->p2ops, &c->cops};
	memcpy(vs, v, sizeof(v));
	memcpy(os, o, sizeof(o));
}

/* Vectors of more entries than this are the roots' alignment's: freed
 * once the roots are paired (free_root_scratch). */
#define ROOT_SCRATCH_KEEP 4096

/* The scratch vectors the roots' alignment grew past ROOT_SCRATCH_KEEP
 * entries, freed (a node's children are a few: what they need grows
 * again from nothing). */
static void free_root_scratch(struct ctx *c)
{
	u32vec *vs[CTX_U32VECS];
	opvec *os[CTX_OPVECS];
	ctx_vecs(vs, os, c);
	for (size_t k = 0; k < CTX_U32VECS; k++)
		if (vs[k]->cap > ROOT_SCRATCH_KEEP) {
			free(vs[k]->v);
			memset(vs[k], 0, sizeof(*vs[k]));
		}
	for (size_t k = 0; k < CTX_OPVECS; k++)
		if (os[k]->cap > ROOT_SCRATCH_KEEP) {
			free(os[k]->v);
			memset(os[k], 0, sizeof(*os[k]));
		}
}

static void free_ctx(struct ctx *c)
{
	tg_buf_free(&c->nb);
	tg_buf_free(&c->nt);
	free(c->bits);
	free(c->ents);
	u32vec *vs[CTX_U32VECS];
	opvec *os[CTX_OPVECS];
	ctx_vecs(vs, os, c);
	for (size_t k = 0; k < CTX_U32VECS; k++)
		free(vs[k]->v);
	for (size_t k = 0; k < CTX_OPVECS; k++)
		free(os[k]->v);
	free(c->as1);
	free(c->as2);
	free(c->hand1);
	free(c->hand2);
	free(c->pairs);
	free(c->L1);
	free(c->L2);
	free(c->immoff);
	free(c->sub1);
	free(c->sub2);
	free(c->skip1);
	free(c->skip2);
	free(c->tsk);
	free(c->places);
	free(c->stack);
	free(c->iv);
	free(c->used[0]);
	free(c->used[1]);
}

/* The children pairs of the last expansion (c->pairs1/2) pushed on the
 * work stack under parent, the first pair on top. 0 or TG_ENOMEM. */
static int push_pairs(struct ctx *c, uint32_t parent)
{
	for (size_t k = c->pairs1.n; k-- > 0;) {
		if (c->nstack == c->cap_stack &&
		    tg_grow((void **)&c->stack, &c->cap_stack, c->nstack + 1, sizeof(struct work)))
			return TG_ENOMEM;
		c->stack[c->nstack++] = (struct work){c->pairs1.v[k], c->pairs2.v[k], parent};
	}
	return 0;
}

/* Side s's links (struct links): the view's device events marked, ranked,
 * and a link each (TG_NONE). 0 or TG_ENOMEM. */
static int alloc_links(struct links *l, const struct view *s)
{
	size_t words = s->ne / 64 + 1, ndev = 0;
	l->dev = tg_calloc(words, sizeof(uint64_t));
	l->rank = tg_malloc(words * sizeof(uint32_t));
	if (!l->dev || !l->rank)
		return TG_ENOMEM;
	for (uint32_t v = 0; v < s->n; v++)
		if (s->flags[v] & F_GPU) {
			uint32_t ev = view_event(s, v);
			l->dev[ev >> 6] |= (uint64_t)1 << (ev & 63);
		}
	for (size_t w = 0; w < words; w++) {
		l->rank[w] = (uint32_t)ndev;
		ndev += tg_popcount64(l->dev[w]);
	}
	if (!(l->link = tg_malloc((ndev + 1) * sizeof(uint32_t))))
		return TG_ENOMEM;
	l->nlink = ndev + 1;
	memset(l->link, 0xff, l->nlink * sizeof(uint32_t));
	return 0;
}

/* Per side: the "already merged" bit of every view node; the merged
 * nodes' room (the links come once the roots are paired: merge_top_down).
 * 0, TG_ENOMEM, or TG_ELIMIT
 * (events past the links' LCA mark). */
static int alloc_maps(tg_tree_diff *d, struct ctx *c)
{
	for (int s = 0; s < 2; s++) {
		if (d->side[s].ne >= LINK_LCA)
			return tg_error_set(TG_ELIMIT, "tree diff: more than %u events in a trace", LINK_LCA - 1);
		c->used[s] = tg_calloc((size_t)d->side[s].n / 64 + 1, sizeof(uint64_t));
		if (!c->used[s])
			return TG_ENOMEM;
	}
	/* every node but the root takes a view node of its own: at most this
	 * many, in a mapping (util/big) whose pages are resident only as the
	 * nodes fill them, its tail given back when the tree is complete (on
	 * the heap, the bound held twice the nodes of two similar traces
	 * through the gate's alignment) */
	size_t most = (size_t)d->side[0].n + d->side[1].n + 1;
	if (!(d->nodes = tg_big_alloc(most * sizeof(tg_diff_node))))
		return TG_ENOMEM;
	d->cap_nodes = most;
	return 0;
}

/* The subtree of the node pair w, depth first from the work stack (which
 * holds w alone on entry), each popped pair a node (ids in preorder)
 * expanded into its children pairs; a view node enters the tree once. 0
 * or TG_ENOMEM. */
static int merge_subtree(struct ctx *c, struct work w)
{
	tg_tree_diff *d = c->d;
	if (!c->cap_stack && tg_grow((void **)&c->stack, &c->cap_stack, 64, sizeof(struct work)))
		return TG_ENOMEM;
	c->stack[0] = w;
	c->nstack = 1;
	while (c->nstack) {
		w = c->stack[--c->nstack];
		if ((w.v1 != TG_NONE && bit_get(c->used[0], w.v1)) || (w.v2 != TG_NONE && bit_get(c->used[1], w.v2)))
			continue; /* never twice in the merged tree */
		uint32_t id;
		if (new_node(d, w.v1, w.v2, w.parent, &id))
			return TG_ENOMEM;
		if (w.v1 != TG_NONE)
			bit_set(c->used[0], w.v1);
		if (w.v2 != TG_NONE)
			bit_set(c->used[1], w.v2);
		uint32_t v1 = w.v1, v2 = w.v2;
		if (tg_tree_diff_expand(c, &v1, &v2, 0, 0))
			return TG_ENOMEM;
		if (v1 != w.v1 || v2 != w.v2) {
			/* phase 1 opened a wrapper: the node is the deeper one */
			tg_diff_node *x = &d->nodes[id];
			x->base_ev = v1;
			x->new_ev = v2;
			if (v1 != TG_NONE)
				bit_set(c->used[0], v1);
			if (v2 != TG_NONE)
				bit_set(c->used[1], v2);
		}
		if (push_pairs(c, id))
			return TG_ENOMEM;
	}
	return 0;
}

/* Undoes what a lean merge did (merge_roots) since the roots were
 * paired: no node but the root, no view node used, no event linked, the
 * counts as they were then (at_roots). */
static void merge_undo(struct ctx *c, const tg_tree_diff_stats *at_roots)
{
	tg_tree_diff *d = c->d;
	d->nnodes = 1;
	d->stats = *at_roots;
	for (int s = 0; s < 2; s++) {
		memset(c->used[s], 0, ((size_t)d->side[s].n / 64 + 1) * sizeof(uint64_t));
		memset(d->links[s].link, 0xff, d->links[s].nlink * sizeof(uint32_t));
	}
}

/* Each pair of roots' subtree (r1, r2: n pairs) merged under root in
 * turn (merge_subtree). lean (d->opts.lean): each subtree examined once
 * merged (its matches linked) and dropped, *merged counting the nodes the
 * whole tree has; at the first point of divergence, everything undone and
 * merged again, whole (*lean_done 0). A diff without LCAs never holds its
 * merged tree then: 35 MB at 1 GB of JSON, the tree diffs' build's peak.
 * 0 or TG_ENOMEM. */
static int merge_roots(struct ctx *c, const u32vec *r1, const u32vec *r2, uint32_t root, size_t *merged,
                       int *lean_done)
{
	tg_tree_diff *d = c->d;
	tg_tree_diff_stats at_roots = d->stats;
	int lean = d->opts.lean;
	*merged = 1;
	for (size_t k = 0; k < r1->n; k++) {
		size_t from = d->nnodes;
		int lca = 0;
		if (merge_subtree(c, (struct work){r1->v[k], r2->v[k], root}))
			return TG_ENOMEM;
		if (!lean)
			continue;
		subtree_ends(d, from);
		if (tg_tree_diff_examine_subtree(c, from, &lca))
			return TG_ENOMEM;
		if (lca) { /* the tree is wanted whole: from the first pair again */
			merge_undo(c, &at_roots);
			lean = 0;
			k = (size_t)-1;
			continue;
		}
		*merged += d->nnodes - from;
		d->nnodes = from;
	}
	*lean_done = lean;
	return 0;
}

/* The merged tree, top-down: the virtual root, then each pair of roots'
 * subtree in turn (merge_roots), the order a stack holding every root
 * pair would give (the first on top), without that stack: a pair of
 * roots (a gigabyte of JSON has 320k) is read from the roots' expansion,
 * kept while the large scratch of aligning the roots is freed (at 1 GB:
 * 6 MB of stack never made, 8 MB of scratch freed before the links are
 * made and the merged tree grows). d->stats.nodes gets the tree's nodes
 * (held, or, merged lean, counted). 0 or TG_ENOMEM. */
static int merge_top_down(struct ctx *c)
{
	tg_tree_diff *d = c->d;
	uint32_t root;
	if (new_node(d, TG_NONE, TG_NONE, TG_NONE, &root))
		return TG_ENOMEM;
	d->nodes[root].side = TG_DIFF_BOTH;
	uint32_t rv1 = TG_NONE, rv2 = TG_NONE;
	if (tg_tree_diff_expand(c, &rv1, &rv2, 1, d->opts.positional_roots))
		return TG_ENOMEM;
	u32vec r1 = c->pairs1, r2 = c->pairs2; /* the root pairs, taken from the scratch */
	memset(&c->pairs1, 0, sizeof(c->pairs1));
	memset(&c->pairs2, 0, sizeof(c->pairs2));
	free_root_scratch(c);
	if (d->opts.scratch_freed)
		d->opts.scratch_freed(d->opts.scratch_ctx);
	/* the links of both sides' device events, where the roots' scratch was */
	int rc = alloc_links(&d->links[0], &d->side[0]) || alloc_links(&d->links[1], &d->side[1]) ? TG_ENOMEM : 0;
	size_t merged = 0;
	int lean_done = 0;
	if (!rc)
		rc = merge_roots(c, &r1, &r2, root, &merged, &lean_done);
	free(r1.v);
	free(r2.v);
	if (rc)
		return rc;
	d->stats.nodes = lean_done ? merged : d->nnodes;
	subtree_ends(d, 0);
	/* the tail the two trees did not fill, given back */
	tg_diff_node *x = tg_big_realloc(d->nodes, (d->nnodes ? d->nnodes : 1) * sizeof(tg_diff_node));
	if (x) {
		d->nodes = x;
		d->cap_nodes = d->nnodes ? d->nnodes : 1;
	}
	return 0;
}

/* opts (NULL: none given) with the defaults applied. */
static tg_tree_diff_opts opts_defaults(const tg_tree_diff_opts *opts)
{
	tg_tree_diff_opts o;
	memset(&o, 0, sizeof(o));
	if (opts)
		o = *opts;
	if (!o.max_dp_cells)
		o.max_dp_cells = DEFAULT_MAX_DP_CELLS;
	if (!o.max_pairs)
		o.max_pairs = DEFAULT_MAX_PAIRS;
	return o;
}

/* The views, once the tree and its LCAs are made: nothing reads them
 * after (the diff's accessors read the skeletons); each side keeps its
 * skeleton and its number of events. A borrowed base's are its lender's. */
static void drop_views(tg_tree_diff *d)
{
	for (int s = 0; s < 2; s++) {
		if (s || !d->base_borrowed)
			tg_tree_diff_view_free(&d->side[s]);
		const tg_skeleton *sk = d->side[s].sk;
		size_t ne = d->side[s].ne;
		memset(&d->side[s], 0, sizeof(d->side[s]));
		d->side[s].sk = sk;
		d->side[s].ne = ne;
	}
	d->base_borrowed = 0;
}

/* The diff of base (or, given, the side made from it: its view borrowed)
 * and next: both views, the merged tree, the LCAs. */
static int build(tg_tree_diff **out, const tg_tree_diff_side *given, const tg_skeleton *base,
                 const tg_skeleton *next, const tg_tree_diff_opts *opts)
{
	*out = NULL;
	tg_tree_diff *d = tg_calloc(1, sizeof(*d));
	if (!d)
		return TG_ENOMEM;
	d->opts = opts_defaults(opts);
	struct ctx c;
	memset(&c, 0, sizeof(c));
	c.d = d;
	int rc = TG_ENOMEM;
	if (given)
		rc = tg_tree_diff_side_lend(d, given);
	else
		rc = (d->norms = tg_atoms_new()) ? tg_tree_diff_view_build(&c, &d->side[0], base, &d->opts) : TG_ENOMEM;
	if (rc || (rc = tg_tree_diff_view_build(&c, &d->side[1], next, &d->opts)))
		goto fail;
	/* both views' build scratch (four arrays a skeleton node) is freed */
	if (d->opts.scratch_freed)
		d->opts.scratch_freed(d->opts.scratch_ctx);
	if ((rc = alloc_maps(d, &c)))
		goto fail;
	rc = TG_ENOMEM;
	if (merge_top_down(&c))
		goto fail;
	if (tg_tree_diff_find_lcas(&c))
		goto fail;
	free_ctx(&c);
	events_of(d);
	drop_views(d);
	if (d->opts.lean)
		tg_tree_diff_lean(d);
	*out = d;
	return 0;
fail:
	free_ctx(&c);
	tg_tree_diff_free(d);
	return rc ? rc : TG_ENOMEM;
}

int tg_tree_diff_build_skeletons(tg_tree_diff **out, const tg_skeleton *base, const tg_skeleton *next,
                                 const tg_tree_diff_opts *opts)
{
	return build(out, NULL, base, next, opts);
}

int tg_tree_diff_build_from(tg_tree_diff **out, const tg_tree_diff_side *base, const tg_skeleton *next,
                            const tg_tree_diff_opts *opts)
{
	tg_tree_diff_opts o = opts_defaults(opts);
	const tg_skeleton *sk = tg_tree_diff_side_skeleton(base);
	return build(out, tg_tree_diff_side_fits(&base->opts, &o) ? base : NULL, sk, next, opts);
}

int tg_tree_diff_build(tg_tree_diff **out, const tg_tree *base, const tg_tree *next,
                       const tg_tree_diff_opts *opts)
{
	*out = NULL;
	unsigned with = (opts && opts->keep_python ? TG_SKEL_PYTHON : 0) |
	                (opts && opts->keep_annotations ? TG_SKEL_ANNOTATIONS : 0);
	tg_skeleton *sb = NULL, *sn = NULL;
	int rc = tg_skeleton_build(&sb, base, with);
	if (!rc)
		rc = tg_skeleton_build(&sn, next, with);
	if (!rc)
		rc = tg_tree_diff_build_skeletons(out, sb, sn, opts);
	if (rc) {
		tg_skeleton_free(sb);
		tg_skeleton_free(sn);
		return rc;
	}
	(*out)->own[0] = sb;
	(*out)->own[1] = sn;
	return 0;
}

void tg_tree_diff_free(tg_tree_diff *d)
{
	if (!d)
		return;
	if (!d->base_borrowed)
		tg_tree_diff_view_free(&d->side[0]);
	tg_tree_diff_view_free(&d->side[1]);
	tg_skeleton_free(d->own[0]);
	tg_skeleton_free(d->own[1]);
	tg_atoms_free(d->norms);
	tg_big_free(d->nodes);
	free(d->lcas);
	free(d->lca_events);
	for (int s = 0; s < 2; s++) {
		free(d->links[s].dev);
		free(d->links[s].rank);
		free(d->links[s].link);
	}
	free(d);
}

int tg_tree_diff_lean(tg_tree_diff *d)
{
	if (d->nlcas)
		return 0;
	tg_big_free(d->nodes);
	d->nodes = NULL;
	d->nnodes = d->cap_nodes = 0;
	for (int s = 0; s < 2; s++) {
		tg_skeleton_free(d->own[s]);
		d->own[s] = NULL;
		d->side[s].sk = NULL;
		d->side[s].sn = NULL;
	}
	return 1;
}

const tg_diff_node *tg_tree_diff_nodes(const tg_tree_diff *d, size_t *n)
{
	*n = d->nnodes;
	return d->nodes;
}

const tg_diff_lca *tg_tree_diff_lcas(const tg_tree_diff *d, size_t *n)
{
	*n = d->nlcas;
	return d->lcas;
}

uint32_t tg_tree_diff_match(const tg_tree_diff *d, int side, uint32_t ev)
{
	if ((side != 0 && side != 1) || ev >= d->side[side].ne)
		return TG_NONE;
	const uint32_t *l = link_of(&d->links[side], ev);
	return l && *l != TG_NONE && !(*l & LINK_LCA) ? *l : TG_NONE;
}

uint32_t tg_tree_diff_lca_of(const tg_tree_diff *d, int side, uint32_t ev)
{
	if ((side != 0 && side != 1) || ev >= d->side[side].ne)
		return TG_NONE;
	const uint32_t *l = link_of(&d->links[side], ev);
	return l && *l != TG_NONE && (*l & LINK_LCA) ? *l & ~LINK_LCA : TG_NONE;
}

const tg_tree_diff_stats *tg_tree_diff_stats_get(const tg_tree_diff *d) { return &d->stats; }

uint32_t tg_tree_diff_event_node(const tg_tree_diff *d, int side, uint32_t ev)
{
	if ((side != 0 && side != 1) || ev >= d->side[side].ne || !d->side[side].sk)
		return TG_NONE; /* no such event, or made lean (tg_tree_diff_lean) */
	return side_node(d, side, ev);
}

const tg_skeleton *tg_tree_diff_skeleton(const tg_tree_diff *d, int side)
{
	return d->side[side == TG_DIFF_SIDE_NEW].sk;
}
