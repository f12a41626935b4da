/*
 * tree_diff_lca.c - the lowest points of divergence (tree_diff_impl.h):
 * once the merged tree is built, each combined node with one-sided
 * children that have device work, or pairing two device events of
 * different names, is an LCA holding those device events (sorted by
 * start) with their busy (union) and summed time per side; every other
 * device event of a combined pair is matched one to one. Afterwards every
 * device event of either view is matched, in exactly one LCA, or counted
 * as unaccounted (stats).
 */
#include "tree_diff_impl.h"

/* The skeleton nodes of the device events of view subtree v, appended. */
static int gather(const struct view *s, uint32_t v, u32vec *out)
{
	for (uint32_t u = v; u < s->end[v]; u++)
		if ((s->flags[u] & F_GPU) && u32_push(out, s->node[u]))
			return TG_ENOMEM;
	return 0;
}

/* The union (busy) of the skeleton nodes k[0..n) of s as [ts, ts+dur),
 * and their summed durations into *sum; -1 when out of memory. */
static int64_t busy_of(struct ctx *c, const tg_skeleton *s, const uint32_t *k, size_t n, int64_t *sum)
{
	if (n > c->cap_iv && tg_grow((void **)&c->iv, &c->cap_iv, n, sizeof(tg_interval)))
		return -1;
	*sum = 0;
	for (size_t q = 0; q < n; q++) {
		int64_t ts = tg_skeleton_ts(s, k[q]), dur = tg_skeleton_dur(s, k[q]);
		c->iv[q] = (tg_interval){ts, ts + dur};
		*sum += dur;
	}
	return tg_interval_union(c->iv, n);
}

struct lca_tmp {
	uint32_t node;
	size_t b0, nb, n0, nn;
	int64_t busy[2], sum[2];
};

/* Merged node id (its sides still view nodes): its gpu and diverges
 * flags; for a combined node, the skeleton nodes of the device events
 * under its one-sided children with device work into bl (base) and nl
 * (new), or, for a pair of device events, the pair itself when the names
 * differ, else the two events matched. *lca: the node is an LCA (bl or nl
 * not empty). 0 or TG_ENOMEM. */
static int examine_node(tg_tree_diff *d, size_t id, u32vec *bl, u32vec *nl, int *lca)
{
	const struct view *s1 = &d->side[0], *s2 = &d->side[1];
	tg_diff_node *x = &d->nodes[id];
	uint32_t v1 = x->base_ev, v2 = x->new_ev;
	*lca = 0;
	x->gpu = id == 0 || (v1 != TG_NONE && (s1->flags[v1] & F_PATH)) || (v2 != TG_NONE && (s2->flags[v2] & F_PATH));
	if (x->side != TG_DIFF_BOTH)
		return 0;
	if (id)
		x->diverges = s1->key[v1] != s2->key[v2];
	bl->n = nl->n = 0;
	TG_DIFF_CHILDREN(d->nodes, id, ch) {
		const tg_diff_node *y = &d->nodes[ch];
		uint32_t w1 = y->base_ev, w2 = y->new_ev;
		if (y->side == TG_DIFF_BASE_ONLY && (s1->flags[w1] & F_PATH) && gather(s1, w1, bl))
			return TG_ENOMEM;
		if (y->side == TG_DIFF_NEW_ONLY && (s2->flags[w2] & F_PATH) && gather(s2, w2, nl))
			return TG_ENOMEM;
	}
	*lca = bl->n || nl->n;
	if (!*lca && id && (s1->flags[v1] & F_GPU) && (s2->flags[v2] & F_GPU)) {
		if (x->diverges) {
			*lca = 1;
			if (u32_push(bl, s1->node[v1]) || u32_push(nl, s2->node[v2]))
				return TG_ENOMEM;
		} else {
			*link_of(&d->links[0], view_event(s1, v1)) = view_event(s2, v2);
			*link_of(&d->links[1], view_event(s2, v2)) = view_event(s1, v1);
			d->stats.matched[0]++;
			d->stats.matched[1]++;
		}
	}
	return 0;
}

/* d->lcas from the ntmp found (their events already in d->lca_events). 0
 * or TG_ENOMEM. */
static int make_lcas(tg_tree_diff *d, const struct lca_tmp *tmp, size_t ntmp)
{
	d->lcas = tg_calloc(ntmp + 1, sizeof(tg_diff_lca));
	if (!d->lcas)
		return TG_ENOMEM;
	d->nlcas = ntmp;
	for (size_t k = 0; k < ntmp; k++) {
		tg_diff_lca *L = &d->lcas[k];
		L->node = tmp[k].node;
		L->base_gpu = d->lca_events + tmp[k].b0;
		L->nbase = tmp[k].nb;
		L->new_gpu = d->lca_events + tmp[k].n0;
		L->nnew = tmp[k].nn;
		L->base_busy_ns = tmp[k].busy[0];
		L->new_busy_ns = tmp[k].busy[1];
		L->base_sum_ns = tmp[k].sum[0];
		L->new_sum_ns = tmp[k].sum[1];
	}
	return 0;
}

/* One side's device events of an LCA (skeleton nodes in l): sorted by
 * (start, index), their busy and summed time into t (side s), then their
 * events appended to pool, each marked in the side's map as in LCA
 * number lca. 0 or TG_ENOMEM. */
static int lca_side(struct ctx *c, int s, u32vec *l, u32vec *keys, struct lca_tmp *t, uint32_t lca, u32vec *pool)
{
	tg_tree_diff *d = c->d;
	const tg_skeleton *sk = d->side[s].sk;
	/* the keys: 8 bytes an event, two u32 slots each */
	if (l->n > 1 && (u32_reserve(keys, l->n * 2) || tg_skeleton_sort_nodes(sk, l->v, l->n, (uint64_t *)keys->v)))
		return TG_ENOMEM;
	t->busy[s] = busy_of(c, sk, l->v, l->n, &t->sum[s]);
	if (t->busy[s] < 0 || u32_reserve(pool, pool->n + l->n))
		return TG_ENOMEM;
	for (size_t k = 0; k < l->n; k++) {
		uint32_t ev = tg_skeleton_event(sk, l->v[k]);
		pool->v[pool->n++] = ev;
		*link_of(&d->links[s], ev) = LINK_LCA | lca;
	}
	d->stats.in_lca[s] += l->n;
	return 0;
}

int tg_tree_diff_find_lcas(struct ctx *c)
{
	tg_tree_diff *d = c->d;
	u32vec pool = {0}, bl = {0}, nl = {0}, keys = {0};
	struct lca_tmp *tmp = NULL;
	size_t ntmp = 0, cap_tmp = 0;
	int rc = TG_ENOMEM;
	for (size_t id = 0; id < d->nnodes; id++) {
		int lca;
		if (examine_node(d, id, &bl, &nl, &lca))
			goto out;
		if (!lca)
			continue;
		if (ntmp == cap_tmp && tg_grow((void **)&tmp, &cap_tmp, ntmp + 1, sizeof(*tmp)))
			goto out;
		struct lca_tmp *t = &tmp[ntmp];
		*t = (struct lca_tmp){(uint32_t)id, pool.n, bl.n, pool.n + bl.n, nl.n, {0, 0}, {0, 0}};
		if (lca_side(c, 0, &bl, &keys, t, (uint32_t)ntmp, &pool) ||
		    lca_side(c, 1, &nl, &keys, t, (uint32_t)ntmp, &pool))
			goto out;
		ntmp++;
	}
	d->lca_events = pool.v;
	d->nlca_events = pool.n;
	pool.v = NULL;
	if (make_lcas(d, tmp, ntmp))
		goto out;
	for (int s = 0; s < 2; s++)
		d->stats.unaccounted[s] = d->stats.gpu[s] - d->stats.matched[s] - d->stats.in_lca[s];
	rc = 0;
out:
	free(pool.v);
	free(bl.v);
	free(nl.v);
	free(keys.v);
	free(tmp);
	return rc;
}

int tg_tree_diff_examine_subtree(struct ctx *c, size_t from, int *lca)
{
	tg_tree_diff *d = c->d;
	*lca = 0;
	if (from < d->nnodes) {
		/* the root's examination, through this child of it */
		const tg_diff_node *y = &d->nodes[from];
		*lca = (y->side == TG_DIFF_BASE_ONLY && (d->side[0].flags[y->base_ev] & F_PATH)) ||
		       (y->side == TG_DIFF_NEW_ONLY && (d->side[1].flags[y->new_ev] & F_PATH));
	}
	for (size_t id = from; !*lca && id < d->nnodes; id++)
		if (examine_node(d, id, &c->lb, &c->ln, lca))
			return TG_ENOMEM;
	return 0;
}
