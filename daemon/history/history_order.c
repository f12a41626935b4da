/*
 * history_order.c - a history in its branch's first-parent order
 * (history_order.h). Histories hold thousands of points and chains as many
 * commits: the chain is sorted by commit and searched, then the points are
 * sorted on (position, input order), which keeps the runs of one commit,
 * and the commits off the chain, in the order they ran.
 */
#include "history_order.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fp_commit {
	char sha[41];
	size_t pos; /* from the root of the chain */
};

struct fp_point {
	size_t pos;   /* its commit's fp_commit.pos, SIZE_MAX when off the chain */
	size_t index; /* in the input */
};

static int cmp_fp_commit(const void *a, const void *b)
{
	return strcmp(((const struct fp_commit *)a)->sha, ((const struct fp_commit *)b)->sha);
}

static int cmp_fp_point(const void *a, const void *b)
{
	const struct fp_point *x = a, *y = b;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void tg_history_order_by_chain(tg_history_point *p, size_t n, const char (*fp)[41], size_t nfp)
{
	if (!n || !nfp)
		return; /* nothing to order, or no chain to order it by (p may be NULL) */
	struct fp_commit *chain = malloc((nfp ? nfp : 1) * sizeof(*chain));
	struct fp_point *order = malloc(n * sizeof(*order));
	tg_history_point *copy = malloc(n * sizeof(*copy));
	if (chain && order && copy) {
		for (size_t j = 0; j < nfp; j++) {
			memcpy(chain[j].sha, fp[j], 41);
			chain[j].pos = nfp - 1 - j;
		}
		qsort(chain, nfp, sizeof(*chain), cmp_fp_commit);
		for (size_t i = 0; i < n; i++) {
			struct fp_commit key;
			memcpy(key.sha, p[i].commit, 41);
			const struct fp_commit *hit = bsearch(&key, chain, nfp, sizeof(*chain), cmp_fp_commit);
			order[i] = (struct fp_point){hit ? hit->pos : SIZE_MAX, i};
		}
		qsort(order, n, sizeof(*order), cmp_fp_point);
		memcpy(copy, p, n * sizeof(*copy));
		for (size_t i = 0; i < n; i++)
			p[i] = copy[order[i].index];
	}
	free(copy);
	free(order);
	free(chain);
}
