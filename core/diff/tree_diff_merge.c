/*
 * tree_diff_merge.c - one step of the top-down merge (tree_diff_impl.h):
 * the children pairs of a node pair, TraceLens's merge phases. The
 * children on the GPU path of each side (plus, for a name on one side's
 * GPU path only, the other side's child of that name off it) are paired
 * by phase 1 (one child against several: open the single one up), phase 2
 * (by position for equal lists without launch calls, else aligned),
 * phase 3 (unmatched wrappers replaced by their children, then re-aligned)
 * and phase 4 (unmatched nodes collapsed through single-child wrappers,
 * aligned by name, then by names stripped of details). See
 * docs/tree-diff.md, "Merging".
 */
#include "tree_diff_impl.h"

static int push_gpu_children(const struct view *s, uint32_t v, u32vec *out)
{
	VIEW_CHILDREN(s, v, ch)
		if ((s->flags[ch] & F_PATH) && u32_push(out, ch))
			return TG_ENOMEM;
	return 0;
}

static int is_dispatch(const struct view *s, uint32_t v) { return (s->flags[v] & F_DISPATCH) != 0; }

/* TraceLens's collapse_single_gpu_child: descend through nodes with a
 * single GPU-path child, stopping at a launch call or at a cpu_op that
 * has a launch call among its children. *cur gets the node reached; kids
 * its GPU-path children when it has several (else empty). */
static int collapse(const struct view *s, uint32_t v, uint32_t *cur, u32vec *kids)
{
	kids->n = 0;
	for (;;) {
		if (is_dispatch(s, v))
			break;
		if (s->flags[v] & F_CPU_OP) {
			int cr = 0;
			VIEW_CHILDREN(s, v, ch)
				if ((cr = is_dispatch(s, ch)))
					break;
			if (cr)
				break;
		}
		uint32_t ng = 0, only = TG_NONE;
		VIEW_CHILDREN(s, v, ch)
			if (s->flags[ch] & F_PATH) {
				ng++;
				only = ch;
			}
		if (ng != 1) {
			if (push_gpu_children(s, v, kids))
				return TG_ENOMEM;
			break;
		}
		v = only;
	}
	*cur = v;
	return 0;
}

static int cmp_tsk(const void *a, const void *b)
{
	const struct tsk *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Stable sort of view nodes by start time (TraceLens's _sort_by_ts). */
static int sort_by_ts(struct ctx *c, const struct view *s, u32vec *a)
{
	int sorted = 1;
	for (size_t k = 1; k < a->n && sorted; k++)
		sorted = tg_skeleton_ts(s->sk, s->node[a->v[k - 1]]) <= tg_skeleton_ts(s->sk, s->node[a->v[k]]);
	if (sorted)
		return 0;
	if (a->n > c->cap_tsk && tg_grow((void **)&c->tsk, &c->cap_tsk, a->n, sizeof(struct tsk)))
		return TG_ENOMEM;
	for (size_t k = 0; k < a->n; k++)
		c->tsk[k] = (struct tsk){tg_skeleton_ts(s->sk, s->node[a->v[k]]), (uint32_t)k, a->v[k]};
	qsort(c->tsk, a->n, sizeof(struct tsk), cmp_tsk);
	for (size_t k = 0; k < a->n; k++)
		a->v[k] = c->tsk[k].v;
	return 0;
}

static int cmp_keypos(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Appends to dst, for every name among the GPU-path children of one side
 * (have) that no GPU-path child of the other side (node v of s) bears, the
 * last child of v with that name (a node off the GPU path). */
static int add_missing(const struct view *have_s, const u32vec *have, const struct view *s, uint32_t v,
                       const u32vec *gpu_kids, u32vec *dst, u32vec *tmp)
{
	uint32_t nall = view_nchildren(s, v);
	if (nall == gpu_kids->n || !have->n)
		return 0; /* every child of v is on the GPU path */
	/* names of the GPU-path children of v, sorted */
	tmp->n = 0;
	for (size_t k = 0; k < gpu_kids->n; k++)
		if (u32_push(tmp, s->key[gpu_kids->v[k]]))
			return TG_ENOMEM;
	sort32(tmp->v, tmp->n);
	/* the names of have missing there, sorted, once each */
	uint32_t *miss = tg_malloc((have->n + 1) * sizeof(uint32_t));
	uint64_t *kp = tg_malloc(((size_t)nall + 1) * sizeof(uint64_t));
	if (!miss || !kp) {
		free(miss);
		free(kp);
		return TG_ENOMEM;
	}
	size_t nm = 0;
	for (size_t h = 0; h < have->n; h++) {
		uint32_t name = have_s->key[have->v[h]];
		if (!find32(name, tmp->v, tmp->n))
			miss[nm++] = name;
	}
	sort32(miss, nm);
	/* all children of v by (name, position): a child's view node grows
	 * with its position */
	uint32_t nk = 0;
	VIEW_CHILDREN(s, v, ch)
		kp[nk++] = (uint64_t)s->key[ch] << 32 | ch;
	if (nm)
		qsort(kp, nall, sizeof(uint64_t), cmp_keypos);
	int rc = 0;
	for (size_t q = 0; q < nm && !rc; q++) {
		uint32_t name = miss[q];
		if (q && miss[q - 1] == name)
			continue;
		/* last child named name: the largest (name, pos) below (name+1, 0) */
		size_t lo = 0, hi = nall;
		uint64_t lim = ((uint64_t)name + 1) << 32;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (kp[mid] < lim)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && (uint32_t)(kp[lo - 1] >> 32) == name)
			rc = u32_push(dst, (uint32_t)(kp[lo - 1] & 0xffffffffu));
	}
	free(miss);
	free(kp);
	return rc;
}

/* TraceLens's get_children_with_missing: the GPU-path children of each
 * side, plus, for a name on one side's GPU path only, the other side's
 * child of that name off the GPU path; each list by start time. */
static int children_with_missing(struct ctx *c, uint32_t v1, uint32_t v2)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	c->c1.n = c->c2.n = 0;
	if (v1 != TG_NONE && push_gpu_children(s1, v1, &c->c1))
		return TG_ENOMEM;
	if (v2 != TG_NONE && push_gpu_children(s2, v2, &c->c2))
		return TG_ENOMEM;
	if (v1 == TG_NONE || v2 == TG_NONE)
		return 0;
	size_t g1 = c->c1.n, g2 = c->c2.n;
	/* snapshots of the GPU-path lists: the additions must not feed back */
	if (u32_copy(&c->t1, c->c1.v, g1) || u32_copy(&c->t2, c->c2.v, g2))
		return TG_ENOMEM;
	if (add_missing(s1, &c->t1, s2, v2, &c->t2, &c->c2, &c->s1) ||
	    add_missing(s2, &c->t2, s1, v1, &c->t1, &c->c1, &c->s1))
		return TG_ENOMEM;
	if (c->c1.n != g1 && sort_by_ts(c, s1, &c->c1))
		return TG_ENOMEM;
	if (c->c2.n != g2 && sort_by_ts(c, s2, &c->c2))
		return TG_ENOMEM;
	return 0;
}

static int any_dispatch(const struct view *s, const uint32_t *a, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (is_dispatch(s, a[k]))
			return 1;
	return 0;
}

/* 1 when b holds the names of a in another order (same multiset, not the
 * same sequence). */
static int reordered(struct ctx *c, const uint32_t *a, const uint32_t *b, size_t n)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	size_t k = 0;
	while (k < n && s1->key[a[k]] == s2->key[b[k]])
		k++;
	if (k == n)
		return 0;
	if (u32_reserve(&c->g1, n) || u32_reserve(&c->g2, n))
		return 0; /* out of memory: keep TraceLens's rule */
	for (k = 0; k < n; k++) {
		c->g1.v[k] = s1->key[a[k]];
		c->g2.v[k] = s2->key[b[k]];
	}
	sort32(c->g1.v, n);
	sort32(c->g2.v, n);
	return !memcmp(c->g1.v, c->g2.v, n * sizeof(uint32_t));
}

/* Phase 2 logic: by position when the lists have equal length and no
 * launch call (unless, by default, they are the same names reordered),
 * else aligned. */
static int phase2(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n, opvec *out)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	if (m == n && !any_dispatch(s1, a, m) && !any_dispatch(s2, b, n) &&
	    (c->d->opts.positional_reorders || !reordered(c, a, b, m))) {
		out->n = 0;
		for (size_t k = 0; k < m; k++)
			if (op_push(out, (uint32_t)k, (uint32_t)k))
				return TG_ENOMEM;
		return 0;
	}
	return tg_tree_diff_aligned(c, a, m, b, n, 0, out);
}

static int reconcile_skip(const struct view *s, uint32_t v)
{
	return (s->flags[v] & (F_KERNEL | F_DISPATCH)) != 0;
}

/* The deletes (their base index) into dl and the inserts (their new
 * index) into il, from ops, in order. 0 or TG_ENOMEM. */
static int unmatched_of(const opvec *ops, u32vec *dl, u32vec *il)
{
	dl->n = il->n = 0;
	for (size_t k = 0; k < ops->n; k++) {
		op o = ops->v[k];
		if (IS_DELETE(o) && u32_push(dl, o.i))
			return TG_ENOMEM;
		if (IS_INSERT(o) && u32_push(il, o.j))
			return TG_ENOMEM;
	}
	return 0;
}

/* The names of the GPU-path children of every delete (dl, into c->c1) and
 * insert (il, into c->c2), node q's at c->imm[immoff[q] .. immoff[q+1]):
 * in order, then the same sorted for lookups. 0 or TG_ENOMEM. */
static int children_names(struct ctx *c, const u32vec *dl, const u32vec *il)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	size_t nn = dl->n + il->n;
	if (nn + 1 > c->cap_immoff && tg_grow((void **)&c->immoff, &c->cap_immoff, nn + 1, sizeof(uint32_t)))
		return TG_ENOMEM;
	c->imm.n = 0;
	for (size_t q = 0; q < nn; q++) {
		const struct view *s = q < dl->n ? s1 : s2;
		uint32_t v = q < dl->n ? c->c1.v[dl->v[q]] : c->c2.v[il->v[q - dl->n]];
		c->immoff[q] = (uint32_t)c->imm.n;
		size_t st = c->imm.n;
		VIEW_CHILDREN(s, v, ch)
			if ((s->flags[ch] & F_PATH) && u32_push(&c->imm, s->key[ch]))
				return TG_ENOMEM;
		size_t cnt = c->imm.n - st;
		for (size_t k = 0; k < cnt; k++)
			if (u32_push(&c->imm, c->imm.v[st + k]))
				return TG_ENOMEM;
		if (cnt > 1)
			sort32(c->imm.v + st + cnt, cnt);
	}
	c->immoff[nn] = (uint32_t)c->imm.n;
	return 0;
}

/* Marks in c->sub1 / c->sub2 the wrappers to open: of each delete and
 * insert pair (neither a kernel nor a launch call), the one whose children
 * hold the other's name, or both when their children's names are the
 * same. Returns 1 when any is marked. */
static int mark_wrappers(struct ctx *c, const u32vec *dl, const u32vec *il)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	int any = 0;
	for (size_t x = 0; x < dl->n; x++) {
		uint32_t di = dl->v[x], vd = c->c1.v[di];
		if (reconcile_skip(s1, vd))
			continue;
		size_t cd = (c->immoff[x + 1] - c->immoff[x]) / 2;
		const uint32_t *od = c->imm.v + c->immoff[x], *sd = od + cd;
		for (size_t y = 0; y < il->n; y++) {
			uint32_t ii = il->v[y], vi = c->c2.v[ii];
			if (reconcile_skip(s2, vi))
				continue;
			size_t q = dl->n + y;
			size_t ci = (c->immoff[q + 1] - c->immoff[q]) / 2;
			const uint32_t *oi = c->imm.v + c->immoff[q], *si = oi + ci;
			uint32_t nd = s1->key[vd], ni = s2->key[vi];
			if (find32(nd, si, ci)) {
				c->sub2[ii] = 1;
				any = 1;
			}
			if (find32(ni, sd, cd)) {
				c->sub1[di] = 1;
				any = 1;
			}
			if (cd && ci && cd == ci && !memcmp(od, oi, cd * sizeof(uint32_t))) {
				c->sub1[di] = 1;
				c->sub2[ii] = 1;
				any = 1;
			}
		}
	}
	return any;
}

/* c->r1 / c->r2: the children lists c->c1 / c->c2 with the marked wrappers
 * replaced by their GPU-path children, by start time. 0 or TG_ENOMEM. */
static int open_wrappers(struct ctx *c)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	c->r1.n = c->r2.n = 0;
	for (size_t k = 0; k < c->c1.n; k++) {
		int rc = c->sub1[k] ? push_gpu_children(s1, c->c1.v[k], &c->r1) : u32_push(&c->r1, c->c1.v[k]);
		if (rc)
			return TG_ENOMEM;
	}
	for (size_t k = 0; k < c->c2.n; k++) {
		int rc = c->sub2[k] ? push_gpu_children(s2, c->c2.v[k], &c->r2) : u32_push(&c->r2, c->c2.v[k]);
		if (rc)
			return TG_ENOMEM;
	}
	if (sort_by_ts(c, s1, &c->r1) || sort_by_ts(c, s2, &c->r2))
		return TG_ENOMEM;
	return 0;
}

/* x[0..n): view nodes and their places (node << 32 | place), sorted by
 * node: each list's own index, so that no array over every view node is
 * held for the lookups (the view's pos did, 4 bytes a view node). */
static void index_list(uint64_t *x, const u32vec *r)
{
	for (size_t k = 0; k < r->n; k++)
		x[k] = (uint64_t)r->v[k] << 32 | k;
	if (r->n > 1)
		qsort(x, r->n, sizeof(uint64_t), cmp_keypos);
}

/* The place of view node v in the list x indexes (index_list), its last
 * when it is there twice, TG_NONE when it is not there. */
static uint32_t place_of(const uint64_t *x, size_t n, uint32_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uint32_t)(x[mid] >> 32) <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && (uint32_t)(x[lo - 1] >> 32) == v ? (uint32_t)x[lo - 1] : TG_NONE;
}

/* Into c->nops (indices into c->r1 / c->r2): the matches of c->ops whose
 * nodes are both still in the opened lists, marked in c->skip1 / skip2. 0
 * or TG_ENOMEM. */
static int keep_matches(struct ctx *c)
{
	opvec *no = &c->nops;
	no->n = 0;
	size_t n1 = c->r1.n, n2 = c->r2.n;
	if (n1 + n2 > c->cap_places && tg_grow((void **)&c->places, &c->cap_places, n1 + n2, sizeof(uint64_t)))
		return TG_ENOMEM;
	if (grow_bytes(&c->skip1, &c->cap_skip1, n1 + 1) || grow_bytes(&c->skip2, &c->cap_skip2, n2 + 1))
		return TG_ENOMEM;
	index_list(c->places, &c->r1);
	index_list(c->places + n1, &c->r2);
	memset(c->skip1, 0, n1);
	memset(c->skip2, 0, n2);
	for (size_t k = 0; k < c->ops.n; k++) {
		op o = c->ops.v[k];
		if (!IS_MATCH(o))
			continue;
		uint32_t ri = place_of(c->places, n1, c->c1.v[o.i]), rj = place_of(c->places + n1, n2, c->c2.v[o.j]);
		if (ri != TG_NONE && rj != TG_NONE) {
			if (op_push(no, ri, rj))
				return TG_ENOMEM;
			c->skip1[ri] = 1;
			c->skip2[rj] = 1;
		}
	}
	return 0;
}

/* Appends to c->nops the alignment (phase 2) of the nodes of c->r1 / c->r2
 * that keep_matches left free; all one-sided when one side has none. 0 or
 * TG_ENOMEM. */
static int realign_free(struct ctx *c)
{
	opvec *no = &c->nops;
	c->f1.n = c->f2.n = c->fi1.n = c->fi2.n = 0;
	for (size_t k = 0; k < c->r1.n; k++)
		if (!c->skip1[k] && (u32_push(&c->f1, (uint32_t)k) || u32_push(&c->fi1, c->r1.v[k])))
			return TG_ENOMEM;
	for (size_t k = 0; k < c->r2.n; k++)
		if (!c->skip2[k] && (u32_push(&c->f2, (uint32_t)k) || u32_push(&c->fi2, c->r2.v[k])))
			return TG_ENOMEM;
	if (c->f1.n && c->f2.n) {
		if (phase2(c, c->fi1.v, c->fi1.n, c->fi2.v, c->fi2.n, &c->fops))
			return TG_ENOMEM;
		for (size_t k = 0; k < c->fops.n; k++) {
			op o = c->fops.v[k];
			if (op_push(no, o.i == TG_NONE ? TG_NONE : c->f1.v[o.i], o.j == TG_NONE ? TG_NONE : c->f2.v[o.j]))
				return TG_ENOMEM;
		}
	} else {
		for (size_t k = 0; k < c->f1.n; k++)
			if (op_push(no, c->f1.v[k], TG_NONE))
				return TG_ENOMEM;
		for (size_t k = 0; k < c->f2.n; k++)
			if (op_push(no, TG_NONE, c->f2.v[k]))
				return TG_ENOMEM;
	}
	return 0;
}

/* Phase 3, TraceLens's reconcile_unmatched: for each unmatched pair (a
 * delete and an insert, neither a kernel nor a launch call), when one's
 * name is among the other's GPU-path children, or both have the same
 * GPU-path children names, the wrapper is replaced by its children; then
 * the matches are kept and the rest re-aligned. Works on c->c1, c->c2 and
 * c->ops. */
static int phase3(struct ctx *c)
{
	tg_tree_diff *d = c->d;
	u32vec *dl = &c->u1, *il = &c->u2;
	if (unmatched_of(&c->ops, dl, il))
		return TG_ENOMEM;
	if (!dl->n || !il->n)
		return 0;
	if ((uint64_t)dl->n * il->n > d->opts.max_pairs) {
		d->stats.skipped_quadratic++;
		return 0;
	}
	size_t m = c->c1.n, n = c->c2.n;
	if (grow_bytes(&c->sub1, &c->cap_sub1, m + 1) || grow_bytes(&c->sub2, &c->cap_sub2, n + 1))
		return TG_ENOMEM;
	memset(c->sub1, 0, m);
	memset(c->sub2, 0, n);
	if (children_names(c, dl, il))
		return TG_ENOMEM;
	if (!mark_wrappers(c, dl, il))
		return 0;
	if (open_wrappers(c) || keep_matches(c) || realign_free(c))
		return TG_ENOMEM;
	if (op_copy(&c->ops, &c->nops) || u32_copy(&c->c1, c->r1.v, c->r1.n) || u32_copy(&c->c2, c->r2.v, c->r2.n))
		return TG_ENOMEM;
	return 0;
}

/* Phase 4: each unmatched node collapsed through single-GPU-child wrappers,
 * then aligned by name, and what is left by names stripped of details. */
static int phase4(struct ctx *c)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	u32vec *un1 = &c->u1, *un2 = &c->u2;
	if (unmatched_of(&c->ops, un1, un2))
		return TG_ENOMEM;
	if (!un1->n || !un2->n)
		return 0;
	c->col1.n = c->col2.n = 0;
	for (size_t k = 0; k < un1->n; k++) {
		uint32_t v;
		if (collapse(s1, c->c1.v[un1->v[k]], &v, &c->s1) || u32_push(&c->col1, v))
			return TG_ENOMEM;
	}
	for (size_t k = 0; k < un2->n; k++) {
		uint32_t v;
		if (collapse(s2, c->c2.v[un2->v[k]], &v, &c->s1) || u32_push(&c->col2, v))
			return TG_ENOMEM;
	}
	if (tg_tree_diff_aligned(c, c->col1.v, c->col1.n, c->col2.v, c->col2.n, 0, &c->p1ops))
		return TG_ENOMEM;
	if (unmatched_of(&c->p1ops, &c->s1, &c->s2)) /* still unmatched: indices into col1 / col2 */
		return TG_ENOMEM;
	opvec *co = &c->cops;
	co->n = 0;
	if (c->s1.n && c->s2.n) {
		for (size_t k = 0; k < c->p1ops.n; k++)
			if (IS_MATCH(c->p1ops.v[k]) && op_push(co, c->p1ops.v[k].i, c->p1ops.v[k].j))
				return TG_ENOMEM;
		c->p2a.n = c->p2b.n = 0;
		for (size_t k = 0; k < c->s1.n; k++)
			if (u32_push(&c->p2a, c->col1.v[c->s1.v[k]]))
				return TG_ENOMEM;
		for (size_t k = 0; k < c->s2.n; k++)
			if (u32_push(&c->p2b, c->col2.v[c->s2.v[k]]))
				return TG_ENOMEM;
		if (tg_tree_diff_aligned(c, c->p2a.v, c->p2a.n, c->p2b.v, c->p2b.n, 1, &c->p2ops))
			return TG_ENOMEM;
		for (size_t k = 0; k < c->p2ops.n; k++) {
			op o = c->p2ops.v[k];
			if (op_push(co, o.i == TG_NONE ? TG_NONE : c->s1.v[o.i], o.j == TG_NONE ? TG_NONE : c->s2.v[o.j]))
				return TG_ENOMEM;
		}
	} else if (op_copy(co, &c->p1ops)) {
		return TG_ENOMEM;
	}
	opvec *no = &c->nops;
	no->n = 0;
	for (size_t k = 0; k < c->ops.n; k++)
		if (IS_MATCH(c->ops.v[k]) && op_push(no, c->ops.v[k].i, c->ops.v[k].j))
			return TG_ENOMEM;
	for (size_t k = 0; k < co->n; k++) {
		op o = co->v[k];
		uint32_t oi = TG_NONE, oj = TG_NONE;
		if (o.i != TG_NONE) {
			oi = un1->v[o.i];
			c->c1.v[oi] = c->col1.v[o.i];
		}
		if (o.j != TG_NONE) {
			oj = un2->v[o.j];
			c->c2.v[oj] = c->col2.v[o.j];
		}
		if (op_push(no, oi, oj))
			return TG_ENOMEM;
	}
	return op_copy(&c->ops, no);
}

/* The children pairs of the node pair (*v1, *v2) into c->pairs1/2. Phase 1
 * may replace one side of the node by a deeper wrapper. root: the virtual
 * root, whose children are the roots (no phase 1). */
int tg_tree_diff_expand(struct ctx *c, uint32_t *v1, uint32_t *v2, int root, int positional)
{
	tg_tree_diff *d = c->d;
	const struct view *s1 = &d->side[0], *s2 = &d->side[1];
	c->pairs1.n = c->pairs2.n = 0;
	if (root) {
		if (u32_copy(&c->c1, s1->roots, s1->nroots) || u32_copy(&c->c2, s2->roots, s2->nroots))
			return TG_ENOMEM;
		if (positional) {
			size_t n = c->c1.n > c->c2.n ? c->c1.n : c->c2.n;
			for (size_t k = 0; k < n; k++)
				if (u32_push(&c->pairs1, k < c->c1.n ? c->c1.v[k] : TG_NONE) ||
				    u32_push(&c->pairs2, k < c->c2.n ? c->c2.v[k] : TG_NONE))
					return TG_ENOMEM;
			return 0;
		}
	} else {
		if (children_with_missing(c, *v1, *v2))
			return TG_ENOMEM;
		/* phase 1: one child against several: open the single one up */
		if (c->c1.n != c->c2.n) {
			uint32_t cur;
			if (c->c1.n == 1) {
				if (collapse(s1, c->c1.v[0], &cur, &c->s2))
					return TG_ENOMEM;
				if (c->s2.n) {
					*v1 = cur;
					if (u32_copy(&c->c1, c->s2.v, c->s2.n))
						return TG_ENOMEM;
				}
			} else if (c->c2.n == 1) {
				if (collapse(s2, c->c2.v[0], &cur, &c->s2))
					return TG_ENOMEM;
				if (c->s2.n) {
					*v2 = cur;
					if (u32_copy(&c->c2, c->s2.v, c->s2.n))
						return TG_ENOMEM;
				}
			}
		}
	}
	if (!c->c1.n && !c->c2.n)
		return 0;
	if (!c->c1.n || !c->c2.n) {
		/* one side has no children (below a one-sided node: a baseline's
		 * steps a tiny run lacks): the alignment deletes (inserts) each
		 * child in order and phases 3 and 4 find no counterpart for
		 * any, so the pairs are the children themselves */
		for (size_t k = 0; k < c->c1.n; k++)
			if (u32_push(&c->pairs1, c->c1.v[k]) || u32_push(&c->pairs2, TG_NONE))
				return TG_ENOMEM;
		for (size_t k = 0; k < c->c2.n; k++)
			if (u32_push(&c->pairs1, TG_NONE) || u32_push(&c->pairs2, c->c2.v[k]))
				return TG_ENOMEM;
		return 0;
	}
	if (phase2(c, c->c1.v, c->c1.n, c->c2.v, c->c2.n, &c->ops))
		return TG_ENOMEM;
	int unmatched = 0;
	for (size_t k = 0; k < c->ops.n && !unmatched; k++)
		unmatched = !IS_MATCH(c->ops.v[k]);
	if (unmatched && (phase3(c) || phase4(c)))
		return TG_ENOMEM;
	for (size_t k = 0; k < c->ops.n; k++) {
		op o = c->ops.v[k];
		if (u32_push(&c->pairs1, o.i == TG_NONE ? TG_NONE : c->c1.v[o.i]) ||
		    u32_push(&c->pairs2, o.j == TG_NONE ? TG_NONE : c->c2.v[o.j]))
			return TG_ENOMEM;
	}
	return 0;
}
