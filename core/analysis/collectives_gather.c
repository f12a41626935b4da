/*
 * collectives_gather.c - the collectives of several ranks as one list of
 * records (collectives_impl.h): each rank's collectives (collectives.c) in
 * start-time order, the ranks in ascending order (a trace without a rank
 * is ranked by its position), each marked with whether it falls in the
 * selected step. The per-rank and cross-rank tables start from it.
 */
#include "collectives_impl.h"

#include <stdlib.h>
#include <string.h>

struct ranked {
	const tg_tree *tree;
	int64_t rank;
	size_t pos;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

int tg_collectives_gather(struct rec **out, size_t *nout, const tg_tree *const *trees, size_t n, int64_t step)
{
	*out = NULL;
	*nout = 0;
	struct ranked *rk = tg_calloc(n ? n : 1, sizeof(*rk));
	if (!rk)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int64_t r = tg_trace_rank(tg_tree_trace(trees[i]));
		rk[i] = (struct ranked){trees[i], r >= 0 ? r : (int64_t)i, i};
	}
	qsort(rk, n, sizeof(*rk), cmp_ranked);
	struct rec *v = NULL;
	size_t cap = 0, len = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		tg_collective *c;
		size_t m;
		rc = tg_collectives_list(&c, &m, tg_tree_trace(rk[i].tree));
		if (rc)
			break;
		int32_t idx = step >= 0 ? tg_tree_step_index(rk[i].tree, step) : -1;
		if (m && tg_grow((void **)&v, &cap, len + m, sizeof(*v)))
			rc = TG_ENOMEM;
		for (size_t j = 0; j < m && !rc; j++) {
			struct rec *x = &v[len++];
			memset(x, 0, sizeof(*x));
			x->c = c[j];
			x->rank = rk[i].rank;
			x->pos = j;
			x->in_step = step < 0 || (idx >= 0 && tg_tree_step_of(rk[i].tree, c[j].event) == idx);
		}
		free(c);
	}
	free(rk);
	if (rc) {
		free(v);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	*out = v;
	*nout = len;
	return 0;
}

