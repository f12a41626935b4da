/*
 * tree_diff_align.c - the alignment of two lists of view nodes by name
 * (tree_diff_impl.h), TraceLens's aligned_wf: Wagner-Fischer edit distance
 * with TraceLens's backtrack, bounded (the common suffix stripped exactly,
 * the common prefix too beyond max_dp_cells, then a linear windowed walk),
 * then the same-name disambiguation that re-pairs nodes of one name by the
 * shape of their subtrees (BFS signatures), capped at max_pairs candidate
 * pairs a name so that it never goes quadratic on large traces.
 */
#include "tree_diff_impl.h"
#include "../../util/sort.h"

#define WINDOW 32 /* resync window of the linear alignment */

static inline uint32_t key_of(const struct view *s, uint32_t v, int strip)
{
	return strip ? view_skey(s, v) : s->key[v];
}

/* Wagner-Fischer on ka[a0..a1) x kb[b0..b1) with TraceLens's backtrack:
 * from the end, a pair of equal names is matched at once; otherwise delete
 * when dp[i][j] == dp[i-1][j] + 1, else insert. Appends to out with index
 * offsets as given. Stores only the "delete allowed" bit of each cell. */
static int wf_dp(struct ctx *c, const uint32_t *ka, uint32_t a0, uint32_t a1, const uint32_t *kb,
                 uint32_t b0, uint32_t b1, opvec *out)
{
	size_t M = a1 - a0, N = b1 - b0, W = N + 1;
	size_t nbits = M * W + 64;
	size_t words = nbits / 64 + 1;
	if (words > c->cap_bits && tg_grow((void **)&c->bits, &c->cap_bits, words, sizeof(uint64_t)))
		return TG_ENOMEM;
	if (u32_reserve(&c->row0, W) || u32_reserve(&c->row1, W))
		return TG_ENOMEM;
	uint64_t *bits = c->bits;
	memset(bits, 0, words * sizeof(uint64_t));
	uint32_t *prev = c->row0.v, *cur = c->row1.v;
	for (size_t j = 0; j < W; j++)
		prev[j] = (uint32_t)j;
	for (size_t i = 1; i <= M; i++) {
		cur[0] = (uint32_t)i;
		size_t base = (i - 1) * W;
		bits[base / 64] |= 1ULL << (base % 64);
		uint32_t ki = ka[a0 + i - 1];
		for (size_t j = 1; j < W; j++) {
			uint32_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			uint32_t sub = prev[j - 1] + (ki != kb[b0 + j - 1]);
			uint32_t v = del < ins ? del : ins;
			v = sub < v ? sub : v;
			cur[j] = v;
			if (v == del) {
				size_t b = base + j;
				bits[b / 64] |= 1ULL << (b % 64);
			}
		}
		uint32_t *t = prev;
		prev = cur;
		cur = t;
	}
	size_t start = out->n;
	size_t i = M, j = N;
	while (i > 0 || j > 0) {
		if (i > 0 && j > 0 && ka[a0 + i - 1] == kb[b0 + j - 1]) {
			if (op_push(out, a0 + (uint32_t)i - 1, b0 + (uint32_t)j - 1))
				return TG_ENOMEM;
			i--;
			j--;
		} else if (i > 0 && (j == 0 || (bits[((i - 1) * W + j) / 64] >> (((i - 1) * W + j) % 64) & 1))) {
			if (op_push(out, a0 + (uint32_t)i - 1, TG_NONE))
				return TG_ENOMEM;
			i--;
		} else {
			if (op_push(out, TG_NONE, b0 + (uint32_t)j - 1))
				return TG_ENOMEM;
			j--;
		}
	}
	/* reverse what was appended */
	for (size_t x = start, y = out->n - 1; x < y; x++, y--) {
		op t = out->v[x];
		out->v[x] = out->v[y];
		out->v[y] = t;
	}
	return 0;
}

/* Linear alignment for lists too large for the table: walk both lists;
 * at a mismatch, resynchronise at the nearest equal pair within WINDOW
 * steps on each side (fewest skipped first), else delete and insert one. */
static int wf_window(const uint32_t *ka, uint32_t a0, uint32_t a1, const uint32_t *kb, uint32_t b0,
                     uint32_t b1, opvec *out)
{
	uint32_t i = a0, j = b0;
	while (i < a1 && j < b1) {
		if (ka[i] == kb[j]) {
			if (op_push(out, i++, j++))
				return TG_ENOMEM;
			continue;
		}
		uint32_t bp = 0, bq = 0;
		int found = 0;
		for (uint32_t dd = 1; dd <= 2 * WINDOW && !found; dd++)
			for (uint32_t q = 0; q <= dd; q++) {
				uint32_t p = dd - q;
				if (p > WINDOW || q > WINDOW || i + p >= a1 || j + q >= b1)
					continue;
				if (ka[i + p] == kb[j + q]) {
					bp = p;
					bq = q;
					found = 1;
					break;
				}
			}
		if (!found) {
			bp = 1;
			bq = 1;
		}
		for (uint32_t k = 0; k < bp; k++)
			if (op_push(out, i++, TG_NONE))
				return TG_ENOMEM;
		for (uint32_t k = 0; k < bq; k++)
			if (op_push(out, TG_NONE, j++))
				return TG_ENOMEM;
	}
	while (i < a1)
		if (op_push(out, i++, TG_NONE))
			return TG_ENOMEM;
	while (j < b1)
		if (op_push(out, TG_NONE, j++))
			return TG_ENOMEM;
	return 0;
}

/* Edit-distance alignment of a[0..m) with b[0..n) by name (TraceLens's
 * wagner_fischer), bounded: the common suffix is what the backtrack
 * matches first anyway, so it is stripped exactly; a table larger than
 * max_dp_cells strips the common prefix too, then falls back to
 * wf_window. */
static int wf(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n, int strip,
              opvec *out)
{
	tg_tree_diff *d = c->d;
	out->n = 0;
	if (u32_reserve(&c->ka, m + 1) || u32_reserve(&c->kb, n + 1))
		return TG_ENOMEM;
	uint32_t *ka = c->ka.v, *kb = c->kb.v;
	for (size_t i = 0; i < m; i++)
		ka[i] = key_of(&d->side[0], a[i], strip);
	for (size_t j = 0; j < n; j++)
		kb[j] = key_of(&d->side[1], b[j], strip);
	size_t s = 0;
	while (s < m && s < n && ka[m - 1 - s] == kb[n - 1 - s])
		s++;
	uint32_t M = (uint32_t)(m - s), N = (uint32_t)(n - s);
	int rc = 0;
	if (M == 0) {
		for (uint32_t j = 0; j < N && !rc; j++)
			rc = op_push(out, TG_NONE, j);
	} else if (N == 0) {
		for (uint32_t i = 0; i < M && !rc; i++)
			rc = op_push(out, i, TG_NONE);
	} else if ((uint64_t)M * N <= d->opts.max_dp_cells) {
		d->stats.dp_exact++;
		rc = wf_dp(c, ka, 0, M, kb, 0, N, out);
	} else {
		d->stats.dp_fallback++;
		uint32_t p = 0;
		while (p < M && p < N && ka[p] == kb[p])
			p++;
		for (uint32_t k = 0; k < p && !rc; k++)
			rc = op_push(out, k, k);
		if (!rc && (uint64_t)(M - p) * (N - p) <= d->opts.max_dp_cells)
			rc = wf_dp(c, ka, p, M, kb, p, N, out);
		else if (!rc)
			rc = wf_window(ka, p, M, kb, p, N, out);
	}
	for (size_t k = 0; k < s && !rc; k++)
		rc = op_push(out, M + (uint32_t)k, N + (uint32_t)k);
	return rc;
}
/* The BFS signature of view node v: up to BFS_DEPTH levels, each the sorted
 * names of the GPU-path children at that depth (TraceLens's
 * _gpu_path_child_names_at_bfs_levels). Appends the names to c->lpool and
 * writes the level offsets (nlev + 1 of them) into off. */
static int bfs_levels(struct ctx *c, const struct view *s, uint32_t v, struct levels *L)
{
	c->front.n = 0;
	if (u32_push(&c->front, v))
		return TG_ENOMEM;
	L->n = 0;
	L->off[0] = (uint32_t)c->lpool.n;
	for (int depth = 0; depth < BFS_DEPTH; depth++) {
		c->next.n = 0;
		for (size_t f = 0; f < c->front.n; f++) {
			uint32_t u = c->front.v[f];
			VIEW_CHILDREN(s, u, ch) {
				if (!(s->flags[ch] & F_PATH))
					continue;
				if (u32_push(&c->next, ch) || u32_push(&c->lpool, s->key[ch]))
					return TG_ENOMEM;
			}
		}
		if (c->lpool.n > L->off[L->n])
			sort32(c->lpool.v + L->off[L->n], c->lpool.n - L->off[L->n]);
		L->n++;
		L->off[L->n] = (uint32_t)c->lpool.n;
		u32vec t = c->front;
		c->front = c->next;
		c->next = t;
		if (!c->front.n)
			break;
	}
	return 0;
}

/* (levels equal before the first difference, multiset overlap there). */
static void match_depth(const uint32_t *pool, const struct levels *A, const struct levels *B,
                        uint32_t *dout, uint32_t *ovout)
{
	uint32_t maxd = A->n > B->n ? A->n : B->n;
	for (uint32_t dd = 0; dd < maxd; dd++) {
		const uint32_t *a = pool + (dd < A->n ? A->off[dd] : 0);
		size_t na = dd < A->n ? A->off[dd + 1] - A->off[dd] : 0;
		const uint32_t *b = pool + (dd < B->n ? B->off[dd] : 0);
		size_t nb = dd < B->n ? B->off[dd + 1] - B->off[dd] : 0;
		if (na == nb && (na == 0 || !memcmp(a, b, na * sizeof(uint32_t))))
			continue;
		uint32_t ov = 0;
		size_t x = 0, y = 0;
		while (x < na && y < nb) {
			if (a[x] == b[y]) {
				ov++;
				x++;
				y++;
			} else if (a[x] < b[y]) {
				x++;
			} else {
				y++;
			}
		}
		*dout = dd;
		*ovout = ov;
		return;
	}
	*dout = maxd;
	*ovout = 0;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->side != y->side)
		return x->side < y->side ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* e[0..n) in cmp_ent's order (a total order: one order whatever the
 * sort): qsort for a few, else two stable radix passes, by index, then
 * by (name, side). A tiny run's top level against a baseline's every step
 * holds a hundred thousand entries. 0 or TG_ENOMEM. */
static int sort_ents(struct ent *e, size_t n)
{
	if (n < 256) {
		qsort(e, n, sizeof(*e), cmp_ent);
		return 0;
	}
	tg_sort_pair *kv = tg_malloc(n * sizeof(*kv));
	if (!kv)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		kv[i] = (tg_sort_pair){e[i].idx, (uint32_t)i};
	int rc = tg_sort_pairs(kv, n);
	for (size_t i = 0; !rc && i < n; i++)
		kv[i].key = (uint64_t)e[kv[i].idx].key << 1 | e[kv[i].idx].side;
	if (!rc)
		rc = tg_sort_pairs(kv, n);
	if (!rc)
		rc = tg_sort_apply(e, n, sizeof(*e), kv);
	free(kv);
	return rc;
}

static int cmp_spair(const void *a, const void *b)
{
	const struct spair *x = a, *y = b;
	if (x->d != y->d)
		return x->d > y->d ? -1 : 1;
	if (x->ov != y->ov)
		return x->ov > y->ov ? -1 : 1;
	if (x->orig != y->orig)
		return x->orig > y->orig ? -1 : 1;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

static int cmp_op(const void *a, const void *b)
{
	const op *x = a, *y = b;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* One name's candidates in c->ents: E1[0..n1) of the base, E2[0..n2) of the
 * new side, all named key. */
struct group {
	const struct ent *E1, *E2;
	size_t n1, n2;
	uint32_t key;
};

/* Every node of the alignment ops as an entry (name, index, side, matched)
 * in c->ents[0..*ne), unsorted, and each node's partner in the alignment
 * in c->st1 / c->st2 (TG_NONE). *any_match: some step is a match. 0 or
 * TG_ENOMEM. */
static int index_alignment(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n, const opvec *ops,
                           size_t *ne, int *any_match)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	size_t need = 2 * ops->n + 1;
	if (need > c->cap_ents && tg_grow((void **)&c->ents, &c->cap_ents, need, sizeof(struct ent)))
		return TG_ENOMEM;
	if (u32_reserve(&c->st1, m + 1) || u32_reserve(&c->st2, n + 1))
		return TG_ENOMEM;
	uint32_t *st1 = c->st1.v, *st2 = c->st2.v;
	for (size_t i = 0; i < m; i++)
		st1[i] = TG_NONE;
	for (size_t j = 0; j < n; j++)
		st2[j] = TG_NONE;
	*ne = 0;
	*any_match = 0;
	for (size_t k = 0; k < ops->n; k++) {
		op o = ops->v[k];
		if (o.i != TG_NONE)
			c->ents[(*ne)++] = (struct ent){s1->key[a[o.i]], o.i, 0, IS_MATCH(o)};
		if (o.j != TG_NONE)
			c->ents[(*ne)++] = (struct ent){s2->key[b[o.j]], o.j, 1, IS_MATCH(o)};
		if (IS_MATCH(o)) {
			st1[o.i] = o.j;
			st2[o.j] = o.i;
			*any_match = 1;
		}
	}
	return 0;
}

/* *perfect: every pair the alignment made inside group g has the same BFS
 * signature on both sides. 0 or TG_ENOMEM. */
static int alignment_perfect(struct ctx *c, const uint32_t *a, const uint32_t *b, const struct group *g, int *perfect)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	*perfect = 1;
	for (size_t x = 0; x < g->n1 && *perfect; x++) {
		uint32_t i = g->E1[x].idx, j = c->st1.v[i];
		if (j == TG_NONE || s2->key[b[j]] != g->key)
			continue;
		struct levels A, B;
		if (bfs_levels(c, s1, a[i], &A) || bfs_levels(c, s2, b[j], &B))
			return TG_ENOMEM;
		uint32_t dd, ov;
		match_depth(c->lpool.v, &A, &B, &dd, &ov);
		*perfect = dd == (A.n > B.n ? A.n : B.n) && A.n == B.n;
		c->lpool.n = 0;
	}
	return 0;
}

/* Group g keeps the pairs the alignment made: into c->dnew, assigned. */
static int keep_alignment_pairs(struct ctx *c, const uint32_t *b, const struct group *g)
{
	const struct view *s2 = &c->d->side[1];
	for (size_t x = 0; x < g->n1; x++) {
		uint32_t i = g->E1[x].idx, j = c->st1.v[i];
		if (j != TG_NONE && s2->key[b[j]] == g->key) {
			if (op_push(&c->dnew, i, j))
				return TG_ENOMEM;
			c->as1[i] = 1;
			c->as2[j] = 1;
		}
	}
	return 0;
}

/* Group g paired greedily by subtree shape: every candidate pair scored on
 * BFS levels (cmp_spair: deepest equal level, overlap there, the
 * alignment's own pair, position), best first, each node once, into
 * c->dnew. *changed is set when a pair is not the alignment's. 0 or
 * TG_ENOMEM. */
static int pair_by_shape(struct ctx *c, const uint32_t *a, const uint32_t *b, const struct group *g, int *changed)
{
	const struct view *s1 = &c->d->side[0], *s2 = &c->d->side[1];
	size_t n1 = g->n1, n2 = g->n2, nmin = n1 < n2 ? n1 : n2;
	if ((n1 > c->cap_L1 && tg_grow((void **)&c->L1, &c->cap_L1, n1, sizeof(struct levels))) ||
	    (n2 > c->cap_L2 && tg_grow((void **)&c->L2, &c->cap_L2, n2, sizeof(struct levels))))
		return TG_ENOMEM;
	struct levels *L1 = c->L1, *L2 = c->L2;
	for (size_t x = 0; x < n1; x++)
		if (bfs_levels(c, s1, a[g->E1[x].idx], &L1[x]))
			return TG_ENOMEM;
	for (size_t y = 0; y < n2; y++)
		if (bfs_levels(c, s2, b[g->E2[y].idx], &L2[y]))
			return TG_ENOMEM;
	size_t np = n1 * n2;
	if (np > c->cap_pairs && tg_grow((void **)&c->pairs, &c->cap_pairs, np, sizeof(struct spair)))
		return TG_ENOMEM;
	size_t k = 0;
	for (size_t x = 0; x < n1; x++)
		for (size_t y = 0; y < n2; y++) {
			struct spair *p = &c->pairs[k++];
			match_depth(c->lpool.v, &L1[x], &L2[y], &p->d, &p->ov);
			p->i = g->E1[x].idx;
			p->j = g->E2[y].idx;
			p->orig = c->st1.v[p->i] == p->j;
		}
	qsort(c->pairs, np, sizeof(struct spair), cmp_spair);
	size_t got = 0;
	for (k = 0; k < np && got < nmin; k++) {
		const struct spair *p = &c->pairs[k];
		if (c->as1[p->i] || c->as2[p->j])
			continue;
		c->as1[p->i] = 1;
		c->as2[p->j] = 1;
		got++;
		if (op_push(&c->dnew, p->i, p->j))
			return TG_ENOMEM;
		if (!p->orig)
			*changed = 1;
	}
	return 0;
}

/* Re-pairs the nodes of group g (see disambiguate), marking them handled:
 * the alignment's pairs are kept when they are all perfect or when the
 * group has more than max_pairs candidate pairs; else paired by shape. */
static int pair_group(struct ctx *c, const uint32_t *a, const uint32_t *b, const struct group *g, int *changed)
{
	tg_tree_diff *d = c->d;
	const struct view *s2 = &d->side[1];
	for (size_t x = 0; x < g->n1; x++)
		c->hand1[g->E1[x].idx] = 1;
	for (size_t y = 0; y < g->n2; y++)
		c->hand2[g->E2[y].idx] = 1;
	size_t nmin = g->n1 < g->n2 ? g->n1 : g->n2;
	/* the alignment's pairs inside the group */
	size_t nwf = 0;
	for (size_t x = 0; x < g->n1; x++) {
		uint32_t j = c->st1.v[g->E1[x].idx];
		if (j != TG_NONE && s2->key[b[j]] == g->key)
			nwf++;
	}
	c->lpool.n = 0;
	int keep = 0;
	if (nwf == nmin && alignment_perfect(c, a, b, g, &keep))
		return TG_ENOMEM;
	if (!keep && (uint64_t)g->n1 * g->n2 > d->opts.max_pairs) {
		d->stats.skipped_quadratic++;
		keep = 1;
	}
	return keep ? keep_alignment_pairs(c, b, g) : pair_by_shape(c, a, b, g, changed);
}

/* ops rebuilt after re-pairing: the steps of unhandled nodes in order, then
 * the new pairs (c->dnew) sorted, the deletes and the inserts of the
 * handled nodes left unpaired. 0 or TG_ENOMEM. */
static int rebuild_ops(struct ctx *c, size_t m, size_t n, opvec *ops)
{
	opvec *out = &c->dout;
	out->n = 0;
	for (size_t k = 0; k < ops->n; k++) {
		op o = ops->v[k];
		if (IS_MATCH(o)) {
			int h1 = c->hand1[o.i], h2 = c->hand2[o.j];
			if (!h1 && !h2) {
				if (op_push(out, o.i, o.j))
					return TG_ENOMEM;
			}
		} else if (IS_DELETE(o)) {
			if (!c->hand1[o.i] && op_push(out, o.i, TG_NONE))
				return TG_ENOMEM;
		} else if (!c->hand2[o.j] && op_push(out, TG_NONE, o.j)) {
			return TG_ENOMEM;
		}
	}
	if (c->dnew.n > 1)
		qsort(c->dnew.v, c->dnew.n, sizeof(op), cmp_op);
	for (size_t k = 0; k < c->dnew.n; k++)
		if (op_push(out, c->dnew.v[k].i, c->dnew.v[k].j))
			return TG_ENOMEM;
	for (size_t i = 0; i < m; i++)
		if (c->hand1[i] && !c->as1[i] && op_push(out, (uint32_t)i, TG_NONE))
			return TG_ENOMEM;
	for (size_t j = 0; j < n; j++)
		if (c->hand2[j] && !c->as2[j] && op_push(out, TG_NONE, (uint32_t)j))
			return TG_ENOMEM;
	/* a pair of two names of which only one was re-paired: TraceLens drops
	 * the other node; keep it, one-sided */
	for (size_t k = 0; k < ops->n; k++) {
		op o = ops->v[k];
		if (!IS_MATCH(o))
			continue;
		if (c->hand1[o.i] && !c->hand2[o.j] && op_push(out, TG_NONE, o.j))
			return TG_ENOMEM;
		if (!c->hand1[o.i] && c->hand2[o.j] && op_push(out, o.i, TG_NONE))
			return TG_ENOMEM;
	}
	return op_copy(ops, out);
}

/* TraceLens's _disambiguate_same_name_candidates: for every name that
 * occurs more than once on a side and takes part in a match, re-pair all
 * nodes of that name by subtree similarity (greedy on BFS-level scores,
 * ties: pairs the alignment made, then position). Rewrites ops in place
 * when the pairing changes. Groups with more than max_pairs candidate pairs
 * keep the alignment's pairs. */
static int disambiguate(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n,
                        opvec *ops)
{
	size_t ne;
	int any_match;
	if (index_alignment(c, a, m, b, n, ops, &ne, &any_match))
		return TG_ENOMEM;
	if (!any_match || ne < 3)
		return 0;
	if (sort_ents(c->ents, ne))
		return TG_ENOMEM;
	int changed = 0, any_amb = 0;
	if (grow_bytes(&c->hand1, &c->cap_hand1, m + 1) || grow_bytes(&c->hand2, &c->cap_hand2, n + 1) ||
	    grow_bytes(&c->as1, &c->cap_as1, m + 1) || grow_bytes(&c->as2, &c->cap_as2, n + 1))
		return TG_ENOMEM;
	memset(c->hand1, 0, m);
	memset(c->hand2, 0, n);
	memset(c->as1, 0, m);
	memset(c->as2, 0, n);
	c->dnew.n = 0;
	/* groups: [g0, g1) of one key; side 0 entries first */
	for (size_t g0 = 0, g1; g0 < ne; g0 = g1) {
		size_t n1 = 0, n2 = 0;
		int matched = 0;
		for (g1 = g0; g1 < ne && c->ents[g1].key == c->ents[g0].key; g1++) {
			if (c->ents[g1].side == 0)
				n1++;
			else
				n2++;
			matched |= c->ents[g1].matched;
		}
		if (!n1 || !n2 || !matched || (n1 < 2 && n2 < 2))
			continue;
		any_amb = 1;
		struct group g = {c->ents + g0, c->ents + g0 + n1, n1, n2, c->ents[g0].key};
		if (pair_group(c, a, b, &g, &changed))
			return TG_ENOMEM;
	}
	if (!any_amb || !changed)
		return 0;
	return rebuild_ops(c, m, n, ops);
}

/* wf then disambiguate (TraceLens's aligned_wf). */
int tg_tree_diff_aligned(struct ctx *c, const uint32_t *a, size_t m, const uint32_t *b, size_t n, int strip,
                   opvec *out)
{
	int rc = wf(c, a, m, b, n, strip, out);
	if (!rc && m && n)
		rc = disambiguate(c, a, m, b, n, out);
	return rc;
}
