/*
 * store_pg_runs.c - finished runs on PostgreSQL: their metrics, finding a
 * run or the pool of runs of a commit, a branch's history, pruning, counts,
 * branches, tampered runs and re-judging. Each operation is a *_once
 * function run through PG_RETRY.
 */
#include "store_pg_impl.h"
#include "../../util/tg.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int metrics_once(pg_store *b, int64_t id, const tg_metric *m, size_t n)
{
	char ids[24];
	fmt_i64(ids, sizeof(ids), id);
	int rc = pg_begin(b);
	if (rc)
		return rc;
	const char *p1[] = {ids};
	/* FOR UPDATE: two puts for one run replace in turn, and retention
	 * cannot delete the run under us. */
	PGresult *res =
		tg_store__pg_run(b, "put metrics", "SELECT 1 FROM runs WHERE id = $1::bigint FOR UPDATE", 1, p1, &rc);
	if (!res)
		goto fail;
	int found = PQntuples(res) == 1;
	PQclear(res);
	if (!found) {
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
		goto fail;
	}
	if ((rc = tg_store__pg_cmd(b, "put metrics", "DELETE FROM metrics WHERE run = $1::bigint", 1, p1)))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		char v[40];
		snprintf(v, sizeof(v), "%.17g", m[i].value);
		const char *p[] = {ids, m[i].name, v};
		if ((rc = tg_store__pg_cmd(
			     b, "put metrics",
			     "INSERT INTO metrics (run, name, value) VALUES ($1::bigint, $2, $3::double precision) "
			     "ON CONFLICT (run, name) DO UPDATE SET value = excluded.value",
			     3, p)))
			goto fail;
	}
	if ((rc = tg_store__pg_commit(&b->base)))
		goto fail;
	return 0;
fail:
	tg_store__pg_rollback(&b->base);
	return rc;
}

int tg_store__pg_metrics_put(tg_store *s, int64_t id, const tg_metric *m, size_t n)
{
	PG_RETRY(pgs(s), metrics_once(pgs(s), id, m, n));
}

static int find_once(pg_store *b, const char *repo, const char *commit, const char *workload, int trusted_only,
                     tg_job *out)
{
	const char *p[] = {repo, commit, workload, trusted_only ? "1" : "0"};
	int rc;
	PGresult *res =
		tg_store__pg_run(b, "find run",
	                         "SELECT " TG_STORE_JOB_COLS
	                         " FROM runs WHERE repo = $1 AND commit_sha = $2 "
	                         "AND workload = $3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
	                         "AND ($4::integer = 0 OR trusted = 1) ORDER BY run_time DESC, id DESC LIMIT 1",
	                         4, p, &rc);
	if (!res)
		return rc;
	if (PQntuples(res) == 1)
		rc = job_from_res(res, 0, out);
	else
		rc = tg_error_set(TG_ENOTFOUND, "store: no done run of %s at %.40s for %s", repo, commit, workload);
	PQclear(res);
	return rc;
}

int tg_store__pg_find_run(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted_only,
                          tg_job *out)
{
	PG_RETRY(pgs(s), find_once(pgs(s), repo, commit, workload, trusted_only, out));
}

static int find_runs_once(pg_store *b, const char *repo, const char *commit, const char *workload, int64_t limit,
                          int trusted_only, tg_job **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	char lim[24];
	fmt_i64(lim, sizeof(lim), limit);
	const char *p[] = {repo, commit, workload, lim, trusted_only ? "1" : "0"};
	int rc;
	PGresult *res = tg_store__pg_run(
		b, "find runs",
		"SELECT " TG_STORE_JOB_COLS
		" FROM runs WHERE repo = $1 AND commit_sha = $2 "
		"AND workload = $3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
		"AND ($5::integer = 0 OR trusted = 1) ORDER BY run_time DESC, id DESC LIMIT $4::bigint",
		5, p, &rc);
	if (!res)
		return rc;
	return tg_store__pg_jobs_from_res(res, out, n);
}

int tg_store__pg_find_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int64_t limit,
                           int trusted_only, tg_job **out, size_t *n)
{
	PG_RETRY(pgs(s), find_runs_once(pgs(s), repo, commit, workload, limit, trusted_only, out, n));
}

static int history_once(pg_store *b, int prs, const char *repo, const char *branch, const char *workload,
                        const char *metric, const char *prefix, int64_t limit, tg_history_point **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	char lim[24];
	fmt_i64(lim, sizeof(lim), limit);
	const char *p[] = {repo, branch, workload, metric, prefix, lim, b->base.trusted_only ? "1" : "0"};
	int rc;
	/* Same queries as SQLite's; COLLATE "C" orders names byte-wise there
	 * too. prs: the pull requests' runs into the branch, by target branch. */
#define PG_HISTORY_SQL(which)                                                         \
	"SELECT run, run_time, commit_sha, workload, name, value, pr FROM ("          \
	" SELECT r.id AS run, r.run_time, r.commit_sha, r.workload, m.name, m.value," \
	"  r.pr, ROW_NUMBER() OVER (PARTITION BY r.workload, m.name"                  \
	"   ORDER BY r.run_time DESC, r.id DESC) AS rn"                               \
	" FROM runs r JOIN metrics m ON m.run = r.id"                                 \
	" WHERE r.repo = $1 AND " which                                               \
	" AND r.state = 'done'"                                                       \
	"  AND ($3::text IS NULL OR r.workload = $3::text)"                           \
	"  AND ($4::text IS NULL OR m.name = $4::text)"                               \
	"  AND ($5::text IS NULL OR starts_with(m.name, $5::text))"                   \
	"  AND ($7::integer = 0 OR r.trusted = 1)"                                    \
	") h WHERE $6::bigint = 0 OR rn <= $6::bigint"                                \
	" ORDER BY run_time, run, workload COLLATE \"C\", name COLLATE \"C\""
	PGresult *res = tg_store__pg_run(b, "history",
	                                 prs ? PG_HISTORY_SQL("r.target_branch = $2 AND r.pr > 0 AND r.branch <> $2")
	                                     : PG_HISTORY_SQL("r.branch = $2"),
	                                 7, p, &rc);
#undef PG_HISTORY_SQL
	if (!res)
		return rc;
	int rows = PQntuples(res);
	if (rows && !(*out = tg_calloc((size_t)rows, sizeof(**out))))
		rc = TG_ENOMEM;
	for (int i = 0; !rc && i < rows; i++) {
		const char *v[TG_STORE_HISTORY_NCOLS];
		row_values(res, i, TG_STORE_HISTORY_NCOLS, v);
		if (!(rc = tg_store__history_from_row(&(*out)[i], v)))
			(*n)++;
	}
	PQclear(res);
	if (rc) {
		tg_history_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int tg_store__pg_history(tg_store *s, int prs, const char *repo, const char *branch, const char *workload,
                         const char *metric, const char *prefix, int64_t limit, tg_history_point **out, size_t *n)
{
	PG_RETRY(pgs(s), history_once(pgs(s), prs, repo, branch, workload, metric, prefix, limit, out, n));
}

static int prune_once(pg_store *b, int64_t before, int64_t *deleted)
{
	char t[24];
	fmt_i64(t, sizeof(t), before);
	const char *p[] = {t};
	*deleted = 0;
	return tg_store__pg_update(b, "prune",
	                           "DELETE FROM runs WHERE state IN ('done', 'failed') AND run_time < $1::bigint", 1, p,
	                           deleted);
}

int tg_store__pg_prune(tg_store *s, int64_t before, int64_t *deleted)
{
	PG_RETRY(pgs(s), prune_once(pgs(s), before, deleted));
}

static int count_jobs_once(pg_store *b, tg_store_counts *out)
{
	memset(out, 0, sizeof(*out));
	int rc;
	PGresult *res = tg_store__pg_run(
		b, "count jobs", "SELECT state, COUNT(*), MIN(created_at) FROM runs GROUP BY state", 0, NULL, &rc);
	if (!res)
		return rc;
	rc = 0;
	for (int i = 0; !rc && i < PQntuples(res); i++) {
		const char *v[3];
		row_values(res, i, 3, v);
		rc = tg_store__counts_add_row(out, v);
	}
	PQclear(res);
	return rc;
}

int tg_store__pg_count_jobs(tg_store *s, tg_store_counts *out)
{
	PG_RETRY(pgs(s), count_jobs_once(pgs(s), out));
}

static int branches_once(pg_store *b, const char *repo, tg_store_branch **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	const char *p[] = {repo, b->base.trusted_only ? "1" : "0"};
	int rc;
	/* the same query as SQLite's; COLLATE "C" orders byte-wise there too */
	PGresult *res = tg_store__pg_run(
		b, "branches",
		"SELECT branch, workload, runs, id, commit_sha, run_time, verdict, pr FROM ("
		" SELECT branch, workload, id, commit_sha, run_time, verdict, pr,"
		"  COUNT(*) OVER (PARTITION BY branch, workload) AS runs,"
		"  ROW_NUMBER() OVER (PARTITION BY branch, workload ORDER BY run_time DESC, id DESC) AS rn"
		" FROM runs WHERE repo = $1 AND state = 'done' AND ($2::integer = 0 OR trusted = 1)"
		") b WHERE rn = 1 ORDER BY branch COLLATE \"C\", workload COLLATE \"C\"",
		2, p, &rc);
	if (!res)
		return rc;
	rc = 0;
	int rows = PQntuples(res);
	if (rows && !(*out = tg_calloc((size_t)rows, sizeof(**out))))
		rc = TG_ENOMEM;
	for (int i = 0; !rc && i < rows; i++) {
		const char *v[TG_STORE_BRANCH_NCOLS];
		row_values(res, i, TG_STORE_BRANCH_NCOLS, v);
		if (!(rc = tg_store__branch_from_row(&(*out)[i], v)))
			(*n)++;
	}
	PQclear(res);
	if (rc) {
		tg_store_branches_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int tg_store__pg_branches(tg_store *s, const char *repo, tg_store_branch **out, size_t *n)
{
	PG_RETRY(pgs(s), branches_once(pgs(s), repo, out, n));
}

/* ------------------------------------------------------- failing closed */

static int set_tampered_once(pg_store *b, int64_t id, const char *why)
{
	char ids[24];
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {why, ids};
	int64_t changed = 0;
	int rc = tg_store__pg_update(b, "set tampered",
	                             "UPDATE runs SET tampered = COALESCE(tampered, $1) WHERE id = $2::bigint", 2, p,
	                             &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

int tg_store__pg_job_set_tampered(tg_store *s, int64_t id, const char *why)
{
	PG_RETRY(pgs(s), set_tampered_once(pgs(s), id, why));
}

static int rejudge_once(pg_store *b, int64_t id, int64_t now)
{
	char t[24], ids[24];
	fmt_i64(t, sizeof(t), now);
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {t, ids};
	int64_t changed = 0;
	int rc = tg_store__pg_update(
		b, "judge again",
		"UPDATE runs SET state = 'seen', attempts = 0, lease_owner = NULL, lease_until = 0, "
		"error = NULL, updated_at = $1::bigint WHERE id = $2::bigint AND state = 'done'",
		2, p, &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld is not done", (long long)id);
	return rc;
}

int tg_store__pg_job_rejudge(tg_store *s, int64_t id, int64_t now)
{
	PG_RETRY(pgs(s), rejudge_once(pgs(s), id, now));
}

static int count_runs_once(pg_store *b, const char *repo, const char *commit, const char *workload, int trusted,
                           tg_run_counts *out)
{
	const char *p[] = {repo, commit, workload, trusted ? "1" : "0"};
	int rc;
	PGresult *res = tg_store__pg_run(
		b, "count runs",
		"SELECT COUNT(DISTINCT CASE WHEN trusted = $4::integer THEN workload END), "
		"COALESCE(SUM(CASE WHEN trusted = $4::integer AND workload = $3 THEN 1 ELSE 0 END), 0), "
		"COALESCE(SUM(CASE WHEN trusted = 0 AND pr = 0 THEN 1 ELSE 0 END), 0) "
		"FROM runs WHERE repo = $1 AND commit_sha = $2",
		4, p, &rc);
	if (!res)
		return rc;
	out->workloads = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	out->runs = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
	out->unsigned_branch = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
	PQclear(res);
	return 0;
}

int tg_store__pg_count_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted,
                            tg_run_counts *out)
{
	PG_RETRY(pgs(s), count_runs_once(pgs(s), repo, commit, workload, trusted, out));
}

static int find_pool_once(pg_store *b, const char *repo, const char *commit, const char *workload,
                          const tg_pool_filter *f, int64_t limit, tg_job **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	char lim[24];
	fmt_i64(lim, sizeof(lim), limit);
	const char *p[] = {repo,
	                   commit,
	                   workload,
	                   lim,
	                   f->trusted_only ? "1" : "0",
	                   f->by_origin == 2 ? "2" : f->by_origin ? "1" : "0",
	                   f->origin};
	int rc;
	PGresult *res =
		tg_store__pg_run(b, "find pool",
	                         "SELECT " TG_STORE_JOB_COLS
	                         " FROM runs WHERE repo = $1 AND commit_sha = $2 "
	                         "AND workload = $3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
	                         "AND tampered IS NULL AND ($5::integer = 0 OR trusted = 1) "
	                         "AND ($6::integer = 0 OR (origin_ok = 1 AND ($6::integer = 2 OR "
	                         "origin IS NOT DISTINCT FROM $7::text))) "
	                         "ORDER BY run_time DESC, id DESC LIMIT $4::bigint",
	                         7, p, &rc);
	if (!res)
		return rc;
	return tg_store__pg_jobs_from_res(res, out, n);
}

int tg_store__pg_find_pool(tg_store *s, const char *repo, const char *commit, const char *workload,
                           const tg_pool_filter *f, int64_t limit, tg_job **out, size_t *n)
{
	PG_RETRY(pgs(s), find_pool_once(pgs(s), repo, commit, workload, f, limit, out, n));
}

static int pr_runs_once(pg_store *b, int64_t since, int64_t limit, tg_job **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	char t[24], lim[24];
	fmt_i64(t, sizeof(t), since);
	fmt_i64(lim, sizeof(lim), limit);
	const char *p[] = {t, lim};
	int rc;
	PGresult *res =
		tg_store__pg_run(b, "pull requests' runs",
	                         "SELECT " TG_STORE_JOB_COLS_BRIEF
	                         " FROM runs WHERE pr > 0 AND state = 'done' "
	                         "AND run_time >= $1::bigint ORDER BY updated_at DESC, id DESC LIMIT $2::bigint",
	                         2, p, &rc);
	if (!res)
		return rc;
	return tg_store__pg_jobs_from_res(res, out, n);
}

int tg_store__pg_pr_runs(tg_store *s, int64_t since, int64_t limit, tg_job **out, size_t *n)
{
	PG_RETRY(pgs(s), pr_runs_once(pgs(s), since, limit, out, n));
}

static int tampered_once(pg_store *b, const char *repo, const char *branch, tg_job **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	const char *p[] = {repo, branch, b->base.trusted_only ? "1" : "0"};
	int rc;
	PGresult *res =
		tg_store__pg_run(b, "tampered runs",
	                         "SELECT " TG_STORE_JOB_COLS_BRIEF
	                         " FROM runs WHERE repo = $1 AND branch = $2 "
	                         "AND tampered IS NOT NULL AND ($3::integer = 0 OR trusted = 1) ORDER BY run_time, id",
	                         3, p, &rc);
	if (!res)
		return rc;
	return tg_store__pg_jobs_from_res(res, out, n);
}

int tg_store__pg_tampered(tg_store *s, const char *repo, const char *branch, tg_job **out, size_t *n)
{
	PG_RETRY(pgs(s), tampered_once(pgs(s), repo, branch, out, n));
}
