/*
 * history_order.c - a history in its branch's first-parent order
 * (history_order.h). Histories hold thousands of points and chains as many
 * commits: the chain is sorted by commit and searched, then the points are
 * sorted on (position, input order), which keeps the runs of one commit,
 * and the commits off the chain, in the order they ran.
 */
#include "history_order.h"
#include "../git/git.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Commits the chain is read to at most (100,000 first parents: years of a
 * busy branch). */
#define CHAIN_MAX 100000

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

/* The points reordered by the chain fp (nfp commits, tip first). */
static void order_by_chain(tg_history_point *p, size_t n, char (*fp)[41], size_t nfp)
{
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

void tg_history_order_first_parent(tg_history_point *p, size_t n, const char *state_dir, const char *repo,
                                   const char *clone_url, const char *branch)
{
	char path[4096];
	if (!n || !clone_url || tg_git_mirror_path(path, sizeof(path), state_dir, repo) ||
	    !tg_git_mirror_has_branch(path, branch))
		return; /* no mirror, or not this branch: fetching is the daemon's job */
	tg_git *g = NULL;
	char tip[41], (*fp)[41] = NULL;
	size_t nfp = 0;
	if (!tg_git_open(&g, clone_url, path, NULL) && !tg_git_branch_tip(tip, g, branch) &&
	    !tg_git_first_parents(&fp, &nfp, g, tip, CHAIN_MAX))
		order_by_chain(p, n, fp, nfp);
	tg_git_free(g);
	free(fp);
}
