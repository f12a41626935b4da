/*
 * branch_series.c - the target branch's recent rule:* series of one
 * fingerprint (branch_series.h).
 */
#include "branch_series.h"
#include "../../util/tg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void tg_branch_series_free(tg_branch_series *b)
{
	tg_history_free(b->points, b->npoints);
	free(b->runs);
	free(b->v);
	free(b->at);
	memset(b, 0, sizeof(*b));
}

int tg_branch_series_load(tg_branch_series *out, tg_store *s, const tg_history_key *key, size_t window)
{
	const char *repo = key->repo, *target = key->branch, *workload = key->workload, *fingerprint = key->fingerprint;
	memset(out, 0, sizeof(*out));
	tg_history_point *fp = NULL;
	size_t nfp = 0;
	int rc = 0;
	out->by_fingerprint = fingerprint != NULL;
	/* the runs of the same fingerprint */
	if (fingerprint && (rc = tg_store_history(&fp, &nfp, s, repo, target, workload, fingerprint, window)))
		goto done;
	if ((rc = tg_store_history(&out->points, &out->npoints, s, repo, target, workload, "rule:*", window)))
		goto done;
	out->runs = tg_calloc(nfp ? nfp : 1, sizeof(int64_t));
	out->v = tg_calloc(out->npoints ? out->npoints : 1, sizeof(double));
	out->at = tg_calloc(out->npoints ? out->npoints : 1, sizeof(size_t));
	if (!out->runs || !out->v || !out->at) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nfp; i++)
		out->runs[out->nruns++] = fp[i].run;
	qsort(out->runs, out->nruns, sizeof(int64_t), cmp_i64);
done:
	tg_history_free(fp, nfp);
	if (rc)
		tg_branch_series_free(out);
	return rc;
}

int tg_branch_series_has(const tg_branch_series *b, size_t i, const char *metric)
{
	if (strcmp(b->points[i].metric, metric))
		return 0;
	return !b->by_fingerprint || bsearch(&b->points[i].run, b->runs, b->nruns, sizeof(int64_t), cmp_i64) != NULL;
}
