/*
 * store_sqlite_runs.c - finished runs on SQLite: their metrics, finding a
 * run or the pool of runs of a commit, a branch's history, pruning, counts,
 * branches, tampered runs and re-judging.
 */
#include "store_sqlite_impl.h"
#include "../../util/tg.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- history */

int tg_store__sq_metrics_put(tg_store *s, int64_t id, const tg_metric *m, size_t n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = NULL;
	int rc = sq_begin(b);
	if (rc)
		return rc;
	if (!(st = tg_store__sq_stmt(b, SQ_RUN_EXISTS))) {
		rc = TG_EIO;
		goto fail;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((rc = tg_store__sq_step(b, st, "put metrics")) <= 0) {
		if (rc == 0)
			rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
		goto fail;
	}
	tg_store__sq_done(st);
	if (!(st = tg_store__sq_stmt(b, SQ_METRICS_DELETE))) {
		rc = TG_EIO;
		goto fail;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((rc = tg_store__sq_step(b, st, "put metrics")) < 0)
		goto fail;
	tg_store__sq_done(st);
	if (!(st = tg_store__sq_stmt(b, SQ_METRIC_PUT))) {
		rc = TG_EIO;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, id);
		bind_text(st, 2, m[i].name);
		sqlite3_bind_double(st, 3, m[i].value);
		if ((rc = tg_store__sq_step(b, st, "put metrics")) < 0)
			goto fail;
		tg_store__sq_done(st);
	}
	st = NULL;
	if ((rc = tg_store__sq_commit(s)))
		goto fail;
	return 0;
fail:
	tg_store__sq_done(st);
	tg_store__sq_rollback(s);
	return rc;
}

int tg_store__sq_find_run(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted_only,
                          tg_job *out)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_FIND_RUN);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, commit);
	bind_text(st, 3, workload);
	sqlite3_bind_int(st, 4, trusted_only != 0);
	int rc = tg_store__sq_step(b, st, "find run");
	if (rc == 1)
		rc = tg_store__sq_job_row(st, out);
	else if (rc == 0)
		rc = tg_error_set(TG_ENOTFOUND, "store: no done run of %s at %.40s for %s", repo, commit, workload);
	tg_store__sq_done(st);
	return rc;
}

int tg_store__sq_find_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int64_t limit,
                           int trusted_only, tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_FIND_RUNS);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, commit);
	bind_text(st, 3, workload);
	sqlite3_bind_int64(st, 4, limit);
	sqlite3_bind_int(st, 5, trusted_only != 0);
	return tg_store__sq_jobs_collect(b, st, "find runs", out, n);
}

int tg_store__sq_history(tg_store *s, int prs, const char *repo, const char *branch, const char *workload,
                         const char *metric, const char *prefix, int64_t limit, tg_history_point **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, prs ? SQ_HISTORY_PRS : SQ_HISTORY);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, branch);
	bind_text(st, 3, workload);
	bind_text(st, 4, metric);
	bind_text(st, 5, prefix);
	sqlite3_bind_int64(st, 6, limit);
	sqlite3_bind_int(st, 7, s->trusted_only);
	size_t cap = 0;
	int rc;
	while ((rc = tg_store__sq_step(b, st, "history")) == 1) {
		tg_history_point *p = tg_store__push((void **)out, n, &cap, sizeof(**out));
		if (!p) {
			rc = TG_ENOMEM;
			break;
		}
		const char *v[TG_STORE_HISTORY_NCOLS];
		for (int i = 0; i < TG_STORE_HISTORY_NCOLS; i++)
			v[i] = i == TG_STORE_HISTORY_VALUE ? NULL : (const char *)sqlite3_column_text(st, i);
		if ((rc = tg_store__history_from_row(p, v))) {
			(*n)--;
			break;
		}
		/* as a double, not through text (which keeps 15 digits) */
		p->value = sqlite3_column_double(st, TG_STORE_HISTORY_VALUE);
	}
	tg_store__sq_done(st);
	if (rc < 0) {
		tg_history_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

int tg_store__sq_count_jobs(tg_store *s, tg_store_counts *out)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_COUNT_JOBS);
	if (!st)
		return TG_EIO;
	int rc;
	while ((rc = tg_store__sq_step(b, st, "count jobs")) == 1) {
		const char *v[3];
		for (int i = 0; i < 3; i++)
			v[i] = (const char *)sqlite3_column_text(st, i);
		if ((rc = tg_store__counts_add_row(out, v)))
			break;
	}
	tg_store__sq_done(st);
	return rc < 0 ? rc : 0;
}

int tg_store__sq_branches(tg_store *s, const char *repo, tg_store_branch **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_BRANCHES);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	sqlite3_bind_int(st, 2, s->trusted_only);
	size_t cap = 0;
	int rc;
	while ((rc = tg_store__sq_step(b, st, "branches")) == 1) {
		tg_store_branch *r = tg_store__push((void **)out, n, &cap, sizeof(**out));
		if (!r) {
			rc = TG_ENOMEM;
			break;
		}
		const char *v[TG_STORE_BRANCH_NCOLS];
		for (int i = 0; i < TG_STORE_BRANCH_NCOLS; i++)
			v[i] = (const char *)sqlite3_column_text(st, i);
		if ((rc = tg_store__branch_from_row(r, v))) {
			(*n)--;
			break;
		}
	}
	tg_store__sq_done(st);
	if (rc < 0) {
		tg_store_branches_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

int tg_store__sq_prune(tg_store *s, int64_t before, int64_t *deleted)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_PRUNE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, before);
	int changed = 0, rc = tg_store__sq_update(b, st, "prune", &changed);
	*deleted = changed;
	return rc;
}

/* ------------------------------------------------------- failing closed */

int tg_store__sq_job_set_tampered(tg_store *s, int64_t id, const char *why)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_SET_TAMPERED);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, why);
	sqlite3_bind_int64(st, 2, id);
	int changed = 0, rc = tg_store__sq_update(b, st, "set tampered", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

int tg_store__sq_job_rejudge(tg_store *s, int64_t id, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_REJUDGE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	int changed = 0, rc = tg_store__sq_update(b, st, "judge again", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld is not done", (long long)id);
	return rc;
}

int tg_store__sq_count_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted,
                            tg_run_counts *out)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_COUNT_RUNS);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, commit);
	bind_text(st, 3, workload);
	sqlite3_bind_int(st, 4, trusted);
	int rc = tg_store__sq_step(b, st, "count runs");
	if (rc == 1) {
		out->workloads = sqlite3_column_int64(st, 0);
		out->runs = sqlite3_column_int64(st, 1);
		out->unsigned_branch = sqlite3_column_int64(st, 2);
		rc = 0;
	}
	tg_store__sq_done(st);
	return rc;
}

int tg_store__sq_find_pool(tg_store *s, const char *repo, const char *commit, const char *workload,
                           const tg_pool_filter *f, int64_t limit, tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_FIND_POOL);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, commit);
	bind_text(st, 3, workload);
	sqlite3_bind_int64(st, 4, limit);
	sqlite3_bind_int(st, 5, f->trusted_only != 0);
	sqlite3_bind_int(st, 6, f->by_origin);
	bind_text(st, 7, f->origin);
	return tg_store__sq_jobs_collect(b, st, "find pool", out, n);
}

int tg_store__sq_pr_runs(tg_store *s, int64_t since, int64_t limit, tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_PR_RUNS);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int64(st, 2, limit);
	return tg_store__sq_jobs_collect(b, st, "pull requests' runs", out, n);
}

int tg_store__sq_tampered(tg_store *s, const char *repo, const char *branch, tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_TAMPERED);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, branch);
	sqlite3_bind_int(st, 3, s->trusted_only);
	return tg_store__sq_jobs_collect(b, st, "tampered runs", out, n);
}
