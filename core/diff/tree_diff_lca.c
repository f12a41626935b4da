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

/* Sorts v[0..n) ascending: LSD radix, 11 bits a pass, through tmp (n
 * more); qsort below a few hundred. The values are distinct places, so
 * any sort gives this order: an LCA over a baseline's every other step
 * holds a hundred thousand events, which qsort took 34 M instructions to
 * order. */
static void radix32(uint32_t *v, uint32_t *tmp, size_t n)
{
	if (n < 256 || !tmp) {
		sort32(v, n);
		return;
	}
	uint32_t *from = v, *to = tmp;
	for (int shift = 0; shift < 33; shift += 11) {
		size_t count[2049] = {0};
		for (size_t k = 0; k < n; k++)
			count[((from[k] >> shift) & 2047) + 1]++;
		for (size_t b = 1; b < 2049; b++)
			count[b] += count[b - 1];
		for (size_t k = 0; k < n; k++)
			to[count[(from[k] >> shift) & 2047]++] = from[k];
		uint32_t *t = from;
		from = to;
		to = t;
	}
	if (from != v) /* three passes: the result is in tmp */
		memcpy(v, from, n * sizeof(uint32_t));
}

/* Sorts the n events of view s by (start, index): through their places
 * in the skeleton's order by start (an integer sort, instead of comparing
 * starts through three arrays). tmp: scratch for n, NULL: none. */
static void sort_by_start(const struct view *s, uint32_t *evs, size_t n, uint32_t *tmp)
{
	const uint32_t *rank = s->start_rank, *by_start = s->by_start;
	for (size_t k = 0; k < n; k++)
		evs[k] = rank[s->node[s->vof[evs[k]]]];
	radix32(evs, tmp, n);
	for (size_t k = 0; k < n; k++)
		evs[k] = s->sn[by_start[evs[k]]].event;
}

/* Device events of view subtree v, appended. */
static int gather(const struct view *s, uint32_t v, u32vec *out)
{
	for (uint32_t u = v; u < s->end[v]; u++)
		if ((s->flags[u] & F_GPU) && u32_push(out, view_event(s, u)))
			return TG_ENOMEM;
	return 0;
}

static int64_t busy_of(struct ctx *c, const struct view *s, const uint32_t *evs, size_t n, int64_t *sum)
{
	if (n > c->cap_iv && tg_grow((void **)&c->iv, &c->cap_iv, n, sizeof(tg_interval)))
		return -1;
	*sum = 0;
	for (size_t k = 0; k < n; k++) {
		int64_t ts = view_ev(s, evs[k])->ts, dur = view_ev_dur(s, evs[k]);
		c->iv[k] = (tg_interval){ts, ts + dur};
		*sum += dur;
	}
	return tg_interval_union(c->iv, n);
}

struct lca_tmp {
	uint32_t node;
	size_t b0, nb, n0, nn;
};

/* The view node of event ev of s, TG_NONE for none (a merged node's side
 * that is absent). */
static inline uint32_t view_of(const struct view *s, uint32_t ev)
{
	return ev == TG_NONE ? TG_NONE : s->vof[ev];
}

/* Merged node id: its gpu and diverges flags; for a combined node, the
 * device events under its one-sided children with device work into bl
 * (base) and nl (new), or, for a pair of device events, the pair itself
 * when the names differ, else the two events matched. *lca: the node is
 * an LCA (bl or nl not empty). 0 or TG_ENOMEM. */
static int examine_node(tg_tree_diff *d, size_t id, u32vec *bl, u32vec *nl, int *lca)
{
	const struct view *s1 = &d->side[0], *s2 = &d->side[1];
	tg_diff_node *x = &d->nodes[id];
	uint32_t v1 = view_of(s1, x->base_ev), v2 = view_of(s2, x->new_ev);
	*lca = 0;
	x->gpu = id == 0 || (v1 != TG_NONE && (s1->flags[v1] & F_PATH)) || (v2 != TG_NONE && (s2->flags[v2] & F_PATH));
	if (x->side != TG_DIFF_BOTH)
		return 0;
	if (id)
		x->diverges = s1->key[v1] != s2->key[v2];
	bl->n = nl->n = 0;
	for (uint32_t ch = x->first_child; ch != TG_NONE; ch = d->nodes[ch].next_sibling) {
		const tg_diff_node *y = &d->nodes[ch];
		uint32_t w1 = view_of(s1, y->base_ev), w2 = view_of(s2, y->new_ev);
		if (y->side == TG_DIFF_BASE_ONLY && (s1->flags[w1] & F_PATH) && gather(s1, w1, bl))
			return TG_ENOMEM;
		if (y->side == TG_DIFF_NEW_ONLY && (s2->flags[w2] & F_PATH) && gather(s2, w2, nl))
			return TG_ENOMEM;
	}
	*lca = bl->n || nl->n;
	if (!*lca && id && (s1->flags[v1] & F_GPU) && (s2->flags[v2] & F_GPU)) {
		if (x->diverges) {
			*lca = 1;
			if (u32_push(bl, view_event(s1, v1)) || u32_push(nl, view_event(s2, v2)))
				return TG_ENOMEM;
		} else {
			d->match[0][view_event(s1, v1)] = view_event(s2, v2);
			d->match[1][view_event(s2, v2)] = view_event(s1, v1);
			d->stats.matched[0]++;
			d->stats.matched[1]++;
		}
	}
	return 0;
}

/* d->lcas from the ntmp found (their events already in d->lca_events),
 * with each side's busy and summed time. 0 or TG_ENOMEM. */
static int make_lcas(struct ctx *c, const struct lca_tmp *tmp, size_t ntmp)
{
	tg_tree_diff *d = c->d;
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
		L->base_busy_ns = busy_of(c, &d->side[0], L->base_gpu, L->nbase, &L->base_sum_ns);
		L->new_busy_ns = busy_of(c, &d->side[1], L->new_gpu, L->nnew, &L->new_sum_ns);
		if (L->base_busy_ns < 0 || L->new_busy_ns < 0)
			return TG_ENOMEM;
	}
	return 0;
}

int tg_tree_diff_find_lcas(struct ctx *c)
{
	tg_tree_diff *d = c->d;
	u32vec pool = {0}, bl = {0}, nl = {0}, scratch = {0};
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
		size_t most = bl.n > nl.n ? bl.n : nl.n;
		if (most >= 256 && u32_reserve(&scratch, most))
			goto out;
		if (bl.n > 1)
			sort_by_start(&d->side[0], bl.v, bl.n, scratch.v);
		if (nl.n > 1)
			sort_by_start(&d->side[1], nl.v, nl.n, scratch.v);
		tmp[ntmp] = (struct lca_tmp){(uint32_t)id, pool.n, bl.n, pool.n + bl.n, nl.n};
		for (size_t k = 0; k < bl.n; k++) {
			if (u32_push(&pool, bl.v[k]))
				goto out;
			d->lca_of[0][bl.v[k]] = (uint32_t)ntmp;
		}
		for (size_t k = 0; k < nl.n; k++) {
			if (u32_push(&pool, nl.v[k]))
				goto out;
			d->lca_of[1][nl.v[k]] = (uint32_t)ntmp;
		}
		d->stats.in_lca[0] += bl.n;
		d->stats.in_lca[1] += nl.n;
		ntmp++;
	}
	d->lca_events = pool.v;
	d->nlca_events = pool.n;
	pool.v = NULL;
	if (make_lcas(c, tmp, ntmp))
		goto out;
	for (int s = 0; s < 2; s++)
		d->stats.unaccounted[s] = d->stats.gpu[s] - d->stats.matched[s] - d->stats.in_lca[s];
	rc = 0;
out:
	free(pool.v);
	free(bl.v);
	free(nl.v);
	free(scratch.v);
	free(tmp);
	return rc;
}
