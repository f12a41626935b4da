/*
 * store_pg_jobs.c - the job queue on PostgreSQL: adding a job once per key,
 * claiming with SELECT ... FOR UPDATE SKIP LOCKED, leases (renew, release,
 * expire), state steps as compare-and-set, results, listing. Each operation
 * is a *_once function run through PG_RETRY.
 */
#include "store_pg_impl.h"
#include "../../util/tg.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_once(pg_store *b, const tg_job *j, int64_t now, int64_t *id, int *created)
{
	char pr[24], t[24], rt[24];
	fmt_i64(pr, sizeof(pr), j->pr);
	fmt_i64(t, sizeof(t), now);
	fmt_i64(rt, sizeof(rt), j->run_time ? j->run_time : now);
	const char *p[] = {
		j->key,      j->prefix, j->repo,     j->commit, j->branch, j->target_branch,       pr,
		j->workload, j->run_id, j->manifest, t,         rt,        j->trusted ? "1" : "0", j->origin};
	/* A row deleted by retention between the two statements makes the
	 * second find nothing: then insert again. */
	for (int tries = 0; tries < 3; tries++) {
		int rc;
		/* a known run first: an INSERT that conflicts still uses up a
		 * sequence value, and every restart adds every manifest again */
		PGresult *res = tg_store__pg_run(b, "add job", "SELECT id FROM runs WHERE key = $1", 1, p, &rc);
		if (!res)
			return rc;
		if (PQntuples(res) == 1) {
			*id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
			*created = 0;
			PQclear(res);
			return 0;
		}
		PQclear(res);
		res = tg_store__pg_run(
			b, "add job",
			"INSERT INTO runs (key, prefix, repo, commit_sha, branch, target_branch, pr, "
			"workload, run_id, manifest, created_at, updated_at, run_time, trusted, origin) VALUES "
			"($1, $2, $3, $4, $5, $6, $7::bigint, $8, $9, $10, $11::bigint, $11::bigint, "
			"$12::bigint, $13::integer, $14) ON CONFLICT (key) DO NOTHING RETURNING id",
			14, p, &rc);
		if (!res)
			return rc;
		if (PQntuples(res) == 1) {
			*id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
			*created = 1;
			PQclear(res);
			return 0;
		}
		PQclear(res);
		if (!(res = tg_store__pg_run(b, "add job", "SELECT id FROM runs WHERE key = $1", 1, p, &rc)))
			return rc;
		if (PQntuples(res) == 1) {
			*id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
			*created = 0;
			PQclear(res);
			return 0;
		}
		PQclear(res);
	}
	return tg_error_set(TG_EIO, "store %s: add job: key %.64s neither inserted nor found", b->base.describe,
	                    j->key);
}

int tg_store__pg_job_add(tg_store *s, const tg_job *j, int64_t now, int64_t *id, int *created)
{
	PG_RETRY(pgs(s), add_once(pgs(s), j, now, id, created));
}

static int get_once(pg_store *b, int64_t id, const char *key, tg_job *out)
{
	char ids[24];
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {key ? key : ids};
	int rc;
	PGresult *res = tg_store__pg_run(b, "get job",
	                                 key ? "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE key = $1"
	                                     : "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE id = $1::bigint",
	                                 1, p, &rc);
	if (!res)
		return rc;
	if (PQntuples(res) == 1)
		rc = job_from_res(res, 0, out);
	else
		rc = key ? tg_error_set(TG_ENOTFOUND, "store: no job with key %.64s", key)
		         : tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	PQclear(res);
	return rc;
}

int tg_store__pg_job_get(tg_store *s, int64_t id, const char *key, tg_job *out)
{
	PG_RETRY(pgs(s), get_once(pgs(s), id, key, out));
}

static int claim_once(pg_store *b, const char *owner, int64_t now, int64_t until, int64_t want, tg_job *out)
{
	char t[24], u[24], w[24];
	fmt_i64(t, sizeof(t), now);
	fmt_i64(u, sizeof(u), until);
	fmt_i64(w, sizeof(w), want);
	int rc = pg_begin(b);
	if (rc)
		return rc;
	const char *p1[] = {t, w};
	PGresult *res = tg_store__pg_run(b, "claim",
	                                 "SELECT id FROM runs WHERE state IN " UNFINISHED
	                                 " AND (lease_owner IS NULL OR lease_until <= $1::bigint)"
	                                 " AND ($2::bigint = 0 OR id = $2::bigint)"
	                                 " ORDER BY run_time, id LIMIT 1 FOR UPDATE SKIP LOCKED",
	                                 2, p1, &rc);
	if (!res)
		goto fail;
	if (PQntuples(res) == 0) {
		PQclear(res);
		rc = tg_error_set(TG_ENOTFOUND, "store: no job to claim");
		goto fail;
	}
	char id[24];
	snprintf(id, sizeof(id), "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	const char *p2[] = {owner, u, t, id};
	res = tg_store__pg_run(b, "claim",
	                       "UPDATE runs SET lease_owner = $1, lease_until = $2::bigint, attempts = attempts + 1, "
	                       "updated_at = $3::bigint WHERE id = $4::bigint RETURNING " TG_STORE_JOB_COLS,
	                       4, p2, &rc);
	if (!res)
		goto fail;
	rc = PQntuples(res) == 1 ? job_from_res(res, 0, out)
	                         : tg_error_set(TG_EIO, "store %s: claim: job %s vanished", b->base.describe, id);
	PQclear(res);
	if (rc || (rc = tg_store__pg_commit(&b->base)))
		goto fail;
	return 0;
fail:
	tg_store__pg_rollback(&b->base);
	tg_job_clear(out);
	return rc;
}

int tg_store__pg_job_claim(tg_store *s, const char *owner, int64_t now, int64_t until, int64_t want, tg_job *out)
{
	PG_RETRY(pgs(s), claim_once(pgs(s), owner, now, until, want, out));
}

static int renew_once(pg_store *b, int64_t id, const char *owner, int64_t now, int64_t until)
{
	char u[24], t[24], ids[24];
	fmt_i64(u, sizeof(u), until);
	fmt_i64(t, sizeof(t), now);
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {u, t, ids, owner};
	int64_t changed = 0;
	int rc = tg_store__pg_update(b, "renew",
	                             "UPDATE runs SET lease_until = $1::bigint, updated_at = $2::bigint "
	                             "WHERE id = $3::bigint AND lease_owner = $4 AND state IN " UNFINISHED,
	                             4, p, &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld: %s holds no lease on it", (long long)id, owner);
	return rc;
}

static int leases_once(pg_store *b, int64_t now, tg_lease **out, size_t *n)
{
	char t[24];
	fmt_i64(t, sizeof(t), now);
	const char *p[] = {t};
	int rc;
	PGresult *res = tg_store__pg_run(b, "leases",
	                                 "SELECT id, lease_owner, lease_until FROM runs WHERE state IN " UNFINISHED
	                                 " AND lease_owner IS NOT NULL AND lease_until > $1::bigint ORDER BY id",
	                                 1, p, &rc);
	if (!res)
		return rc;
	size_t cap = 0;
	for (int r = 0; r < PQntuples(res); r++) {
		tg_lease *l = tg_store__push((void **)out, n, &cap, sizeof(**out));
		if (!l) {
			PQclear(res);
			free(*out);
			*out = NULL;
			*n = 0;
			return TG_ENOMEM;
		}
		l->id = strtoll(PQgetvalue(res, r, 0), NULL, 10);
		snprintf(l->owner, sizeof(l->owner), "%s", PQgetvalue(res, r, 1));
		l->until = strtoll(PQgetvalue(res, r, 2), NULL, 10);
	}
	PQclear(res);
	return 0;
}

int tg_store__pg_leases(tg_store *s, int64_t now, tg_lease **out, size_t *n)
{
	PG_RETRY(pgs(s), leases_once(pgs(s), now, out, n));
}

/* An UPDATE of job id's lease held by owner (sql's parameters: $1 now,
 * $2 the id, $3 the owner). TG_ENOTFOUND when owner holds no lease on it. */
static int lease_update(pg_store *b, const char *what, const char *sql, int64_t id, const char *owner, int64_t now)
{
	char t[24], ids[24];
	fmt_i64(t, sizeof(t), now);
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {t, ids, owner};
	int64_t changed = 0;
	int rc = tg_store__pg_update(b, what, sql, 3, p, &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld: %s holds no lease on it", (long long)id, owner);
	return rc;
}

static int lease_expire_once(pg_store *b, int64_t id, const char *owner, int64_t now)
{
	return lease_update(b, "expire lease",
	                    "UPDATE runs SET lease_until = 0, updated_at = $1::bigint "
	                    "WHERE id = $2::bigint AND lease_owner = $3 AND state IN " UNFINISHED,
	                    id, owner, now);
}

int tg_store__pg_lease_expire(tg_store *s, int64_t id, const char *owner, int64_t now)
{
	PG_RETRY(pgs(s), lease_expire_once(pgs(s), id, owner, now));
}

static int release_once(pg_store *b, int64_t id, const char *owner, int64_t now)
{
	return lease_update(b, "release",
	                    "UPDATE runs SET lease_owner = NULL, lease_until = 0, updated_at = $1::bigint, "
	                    "attempts = GREATEST(attempts - 1, 0) "
	                    "WHERE id = $2::bigint AND lease_owner = $3 AND state IN " UNFINISHED,
	                    id, owner, now);
}

int tg_store__pg_job_release(tg_store *s, int64_t id, const char *owner, int64_t now)
{
	PG_RETRY(pgs(s), release_once(pgs(s), id, owner, now));
}

int tg_store__pg_job_renew(tg_store *s, int64_t id, const char *owner, int64_t now, int64_t until)
{
	PG_RETRY(pgs(s), renew_once(pgs(s), id, owner, now, until));
}

static int advance_once(pg_store *b, int64_t id, const char *owner, const char *from, const char *to, int release,
                        const char *error, int64_t now)
{
	char t[24], ids[24];
	fmt_i64(t, sizeof(t), now);
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {to, t, error, release ? "1" : "0", ids, from, owner};
	int64_t changed = 0;
	int rc = tg_store__pg_update(
		b, "advance",
		"UPDATE runs SET state = $1, updated_at = $2::bigint, error = COALESCE($3::text, error), "
		"lease_owner = CASE WHEN $4::int = 1 THEN NULL ELSE lease_owner END, "
		"lease_until = CASE WHEN $4::int = 1 THEN 0 ELSE lease_until END "
		"WHERE id = $5::bigint AND state = $6 AND lease_owner = $7",
		7, p, &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld is not %s under a lease of %s", (long long)id, from,
		                  owner);
	return rc;
}

int tg_store__pg_job_advance(tg_store *s, int64_t id, const char *owner, const char *from, const char *to, int release,
                             const char *error, int64_t now)
{
	PG_RETRY(pgs(s), advance_once(pgs(s), id, owner, from, to, release, error, now));
}

static int set_result_once(pg_store *b, int64_t id, const tg_job *j, int64_t now)
{
	char dist[16], cid[24], t[24], ids[24], pms[24];
	snprintf(dist, sizeof(dist), "%d", j->baseline_distance);
	fmt_i64(pms, sizeof(pms), j->posted_ms);
	fmt_i64(cid, sizeof(cid), j->comment_id);
	fmt_i64(t, sizeof(t), now);
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {j->verdict,
	                   j->summary,
	                   j->baseline_commit,
	                   dist,
	                   cid,
	                   t,
	                   ids,
	                   j->origin_ok ? "1" : "0",
	                   j->judged_target,
	                   j->judged_merge_base,
	                   pms};
	int64_t changed = 0;
	int rc = tg_store__pg_update(b, "set result",
	                             "UPDATE runs SET verdict = $1, summary = $2, baseline_commit = $3, "
	                             "baseline_distance = $4::int, comment_id = $5::bigint, updated_at = $6::bigint, "
	                             "origin_ok = $8::integer, judged_target = $9, judged_merge_base = $10, "
	                             "posted_ms = $11::bigint WHERE id = $7::bigint",
	                             11, p, &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

int tg_store__pg_job_set_result(tg_store *s, int64_t id, const tg_job *j, int64_t now)
{
	PG_RETRY(pgs(s), set_result_once(pgs(s), id, j, now));
}

/* Every row of res as a job: *out, *n of them (none on an error); clears
 * res. */
static int list_once(pg_store *b, const char *const states[5], tg_job **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	int rc;
	PGresult *res = tg_store__pg_run(b, "list jobs",
	                                 "SELECT " TG_STORE_JOB_COLS
	                                 " FROM runs WHERE state IN ($1, $2, $3, $4, $5) "
	                                 "ORDER BY created_at, id",
	                                 5, states, &rc);
	if (!res)
		return rc;
	return tg_store__pg_jobs_from_res(res, out, n);
}

int tg_store__pg_jobs_list(tg_store *s, const char *const states[5], tg_job **out, size_t *n)
{
	PG_RETRY(pgs(s), list_once(pgs(s), states, out, n));
}

/* -------------------------------------------------------------- history */
