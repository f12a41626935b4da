/*
 * store_pg.c - the job store on PostgreSQL (libpq), for several daemons
 * sharing one database.
 *
 *   - Every statement with a value is PQexecParams with text parameters;
 *     the only SQL sent without parameters is the migrations' DDL.
 *   - A claim is BEGIN; SELECT ... FOR UPDATE SKIP LOCKED; UPDATE; COMMIT:
 *     two daemons never lock the same row, and neither waits for the other.
 *   - Migrations hold a transaction-level advisory lock, so daemons started
 *     together apply each migration once.
 *   - A lost connection (the server restarted, a proxy dropped it) is reset
 *     once and the operation run again; if the reset fails the operation is
 *     TG_EIO and the next call tries again. An operation that was cut off
 *     mid-flight is run whole again: each one is idempotent or a
 *     compare-and-set, so running it twice cannot do a step twice.
 *   - The connection string may hold a password. Messages name the store
 *     as postgresql://host:port/db, and any server or libpq message that
 *     would contain the password has it masked.
 *   - Times are Unix seconds from the daemon's clock (as on SQLite), so
 *     daemons sharing a database need clocks within a small part of the
 *     lease (NTP).
 */
#include "store_impl.h"
#include "../../util/tg.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNFINISHED "('seen', 'analysing', 'posting')"

/* pg_advisory_xact_lock key of migrations: "tgsc" */
#define SCHEMA_LOCK "1952936803"

typedef struct pg_store {
	tg_store base;
	PGconn *conn;
	char *password; /* to mask in messages; NULL when the url has none */
} pg_store;

static pg_store *pgs(tg_store *s) { return (pg_store *)s; }

static void quiet_notices(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Sets code's message "store <describe>: what: msg" on one line, the
 * password masked. */
static int pg_fail(pg_store *b, int code, const char *what, const char *msg)
{
	char clean[768];
	snprintf(clean, sizeof(clean), "%s", msg && *msg ? msg : "unknown error");
	for (char *p = clean; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	size_t len = strlen(clean);
	while (len && clean[len - 1] == ' ')
		clean[--len] = '\0';
	/* copied with each occurrence of the password as "***": a password
	 * shorter than that makes the text longer (it was masked in place, past
	 * the end of the buffer for a password of 1 or 2 characters) */
	char masked[sizeof(clean)];
	size_t pl = b->password ? strlen(b->password) : 0, o = 0;
	for (const char *p = clean; *p && o + 1 < sizeof(masked);) {
		if (pl && !strncmp(p, b->password, pl)) {
			for (int k = 0; k < 3 && o + 1 < sizeof(masked); k++)
				masked[o++] = '*';
			p += pl;
		} else {
			masked[o++] = *p++;
		}
	}
	masked[o] = '\0';
	return tg_error_set(code, "store %s: %s: %s", b->base.describe, what, masked);
}

/* TG_EINVAL for a value the schema refused (SQLSTATE class 23), TG_EIO for
 * everything else: a lost connection, a full disk (53100), a read-only
 * transaction (25006), a server shutting down. */
static int pg_result_err(pg_store *b, PGresult *res, const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	if (!msg)
		msg = PQerrorMessage(b->conn);
	int code = state && !strncmp(state, "23", 2) ? TG_EINVAL : TG_EIO;
	return pg_fail(b, code, what, msg);
}

/* Runs sql with n text parameters (NULL: SQL NULL). Returns the result
 * (the caller PQclears it), or NULL with *rc set. */
static PGresult *pg_run(pg_store *b, const char *what, const char *sql, int n, const char *const *params, int *rc)
{
	PGresult *res = PQexecParams(b->conn, sql, n, NULL, params, NULL, NULL, 0);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		*rc = 0;
		return res;
	}
	*rc = pg_result_err(b, res, what);
	PQclear(res);
	return NULL;
}

/* Runs sql and keeps only its success. */
static int pg_cmd(pg_store *b, const char *what, const char *sql, int n, const char *const *params)
{
	int rc;
	PGresult *res = pg_run(b, what, sql, n, params, &rc);
	PQclear(res);
	return rc;
}

/* Runs an UPDATE or DELETE; *changed: rows it touched. */
static int pg_update(pg_store *b, const char *what, const char *sql, int n, const char *const *params,
                     int64_t *changed)
{
	int rc;
	PGresult *res = pg_run(b, what, sql, n, params, &rc);
	if (res) {
		*changed = strtoll(PQcmdTuples(res), NULL, 10);
		PQclear(res);
	}
	return rc;
}

static void pg_rollback(tg_store *s)
{
	pg_store *b = pgs(s);
	if (PQstatus(b->conn) == CONNECTION_OK && PQtransactionStatus(b->conn) != PQTRANS_IDLE)
		PQclear(PQexec(b->conn, "ROLLBACK"));
}

static int pg_begin(pg_store *b) { return pg_cmd(b, "begin", "BEGIN", 0, NULL); }

static int pg_commit(tg_store *s)
{
	int rc = pg_cmd(pgs(s), "commit", "COMMIT", 0, NULL);
	if (rc)
		pg_rollback(s);
	return rc;
}

/* After an operation failed with rc: 1 when the connection was lost and
 * PQreset brought it back (run the operation again), else 0 (when the
 * reset failed, the message says so). */
static int pg_again(pg_store *b, int rc)
{
	if (rc != TG_EIO || PQstatus(b->conn) != CONNECTION_BAD)
		return 0;
	PQreset(b->conn);
	if (PQstatus(b->conn) != CONNECTION_OK) {
		pg_fail(b, TG_EIO, "connection lost, reconnect failed", PQerrorMessage(b->conn));
		return 0;
	}
	return 1;
}

/* Runs the operation call once more when the first run lost the connection. */
#define PG_RETRY(b, call)                   \
	do {                                    \
		int rc_ = (call);                   \
		if (pg_again((b), rc_))             \
			rc_ = (call);                   \
		return rc_;                         \
	} while (0)

static void fmt_i64(char *buf, size_t size, int64_t v)
{
	snprintf(buf, size, "%" PRId64, v);
}

static void row_values(PGresult *res, int row, int ncols, const char **v)
{
	for (int i = 0; i < ncols; i++)
		v[i] = PQgetisnull(res, row, i) ? NULL : PQgetvalue(res, row, i);
}

static int job_from_res(PGresult *res, int row, tg_job *out)
{
	const char *v[TG_STORE_JOB_NCOLS];
	row_values(res, row, TG_STORE_JOB_NCOLS, v);
	return tg_store__job_from_row(out, v);
}

/* --------------------------------------------------------------- schema */

static int pg_version_max(pg_store *b, int *version)
{
	int rc;
	PGresult *res = pg_run(b, "schema version", "SELECT COALESCE(MAX(version), 0) FROM schema_version", 0, NULL, &rc);
	if (!res)
		return rc;
	*version = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return 0;
}

static int pg_version_peek(tg_store *s, int *version)
{
	pg_store *b = pgs(s);
	*version = -1;
	int rc;
	PGresult *res = pg_run(b, "schema version", "SELECT to_regclass('schema_version') IS NOT NULL", 0, NULL, &rc);
	if (!res)
		return rc;
	int exists = !strcmp(PQgetvalue(res, 0, 0), "t");
	PQclear(res);
	return exists ? pg_version_max(b, version) : 0;
}

static int pg_tx_begin_schema(tg_store *s)
{
	pg_store *b = pgs(s);
	int rc = pg_begin(b);
	if (!rc && (rc = pg_cmd(b, "schema lock", "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")", 0, NULL)))
		pg_rollback(s);
	return rc;
}

static int pg_version_get(tg_store *s, int *version)
{
	pg_store *b = pgs(s);
	int rc = pg_cmd(b, "schema version",
	                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
	                "applied_at BIGINT NOT NULL, what TEXT NOT NULL)",
	                0, NULL);
	return rc ? rc : pg_version_max(b, version);
}

static int pg_version_set(tg_store *s, const tg_store_migration *m, int64_t now)
{
	char v[16], t[24];
	snprintf(v, sizeof(v), "%d", m->version);
	fmt_i64(t, sizeof(t), now);
	const char *p[] = {v, t, m->what};
	return pg_cmd(pgs(s), "schema version",
	              "INSERT INTO schema_version (version, applied_at, what) VALUES ($1::int, $2::bigint, $3)", 3, p);
}

static int pg_exec_script(tg_store *s, const char *sql)
{
	pg_store *b = pgs(s);
	PGresult *res = PQexec(b->conn, sql);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? 0 : pg_result_err(b, res, "migrate");
	PQclear(res);
	return rc;
}

/* ----------------------------------------------------------------- jobs */

static int add_once(pg_store *b, const tg_job *j, int64_t now, int64_t *id, int *created)
{
	char pr[24], t[24], rt[24];
	fmt_i64(pr, sizeof(pr), j->pr);
	fmt_i64(t, sizeof(t), now);
	fmt_i64(rt, sizeof(rt), j->run_time ? j->run_time : now);
	const char *p[] = {j->key,      j->prefix,   j->repo,   j->commit, j->branch, j->target_branch, pr,
	                   j->workload, j->run_id,   j->manifest, t,       rt,        j->trusted ? "1" : "0", j->origin};
	/* A row deleted by retention between the two statements makes the
	 * second find nothing: then insert again. */
	for (int tries = 0; tries < 3; tries++) {
		int rc;
		/* a known run first: an INSERT that conflicts still uses up a
		 * sequence value, and every restart adds every manifest again */
		PGresult *res = pg_run(b, "add job", "SELECT id FROM runs WHERE key = $1", 1, p, &rc);
		if (!res)
			return rc;
		if (PQntuples(res) == 1) {
			*id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
			*created = 0;
			PQclear(res);
			return 0;
		}
		PQclear(res);
		res = pg_run(b, "add job",
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
		if (!(res = pg_run(b, "add job", "SELECT id FROM runs WHERE key = $1", 1, p, &rc)))
			return rc;
		if (PQntuples(res) == 1) {
			*id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
			*created = 0;
			PQclear(res);
			return 0;
		}
		PQclear(res);
	}
	return tg_error_set(TG_EIO, "store %s: add job: key %.64s neither inserted nor found", b->base.describe, j->key);
}

static int pg_job_add(tg_store *s, const tg_job *j, int64_t now, int64_t *id, int *created)
{
	PG_RETRY(pgs(s), add_once(pgs(s), j, now, id, created));
}

static int get_once(pg_store *b, int64_t id, const char *key, tg_job *out)
{
	char ids[24];
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {key ? key : ids};
	int rc;
	PGresult *res = pg_run(b, "get job",
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

static int pg_job_get(tg_store *s, int64_t id, const char *key, tg_job *out)
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
	PGresult *res = pg_run(b, "claim",
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
	res = pg_run(b, "claim",
	             "UPDATE runs SET lease_owner = $1, lease_until = $2::bigint, attempts = attempts + 1, "
	             "updated_at = $3::bigint WHERE id = $4::bigint RETURNING " TG_STORE_JOB_COLS,
	             4, p2, &rc);
	if (!res)
		goto fail;
	rc = PQntuples(res) == 1 ? job_from_res(res, 0, out)
	                         : tg_error_set(TG_EIO, "store %s: claim: job %s vanished", b->base.describe, id);
	PQclear(res);
	if (rc || (rc = pg_commit(&b->base)))
		goto fail;
	return 0;
fail:
	pg_rollback(&b->base);
	tg_job_clear(out);
	return rc;
}

static int pg_job_claim(tg_store *s, const char *owner, int64_t now, int64_t until, int64_t want, tg_job *out)
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
	int rc = pg_update(b, "renew",
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
	PGresult *res = pg_run(b, "leases",
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

static int pg_leases(tg_store *s, int64_t now, tg_lease **out, size_t *n)
{
	PG_RETRY(pgs(s), leases_once(pgs(s), now, out, n));
}

/* An UPDATE of job id's lease held by owner (sql's parameters: $1 now,
 * $2 the id, $3 the owner). TG_ENOTFOUND when owner holds no lease on it. */
static int lease_update(pg_store *b, const char *what, const char *sql, int64_t id, const char *owner,
                        int64_t now)
{
	char t[24], ids[24];
	fmt_i64(t, sizeof(t), now);
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {t, ids, owner};
	int64_t changed = 0;
	int rc = pg_update(b, what, sql, 3, p, &changed);
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

static int pg_lease_expire(tg_store *s, int64_t id, const char *owner, int64_t now)
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

static int pg_job_release(tg_store *s, int64_t id, const char *owner, int64_t now)
{
	PG_RETRY(pgs(s), release_once(pgs(s), id, owner, now));
}

static int pg_job_renew(tg_store *s, int64_t id, const char *owner, int64_t now, int64_t until)
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
	int rc = pg_update(b, "advance",
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

static int pg_job_advance(tg_store *s, int64_t id, const char *owner, const char *from, const char *to,
                          int release, const char *error, int64_t now)
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
	const char *p[] = {j->verdict, j->summary,       j->baseline_commit,    dist, cid, t, ids,
	                   j->origin_ok ? "1" : "0", j->judged_target, j->judged_merge_base, pms};
	int64_t changed = 0;
	int rc = pg_update(b, "set result",
	                   "UPDATE runs SET verdict = $1, summary = $2, baseline_commit = $3, "
	                   "baseline_distance = $4::int, comment_id = $5::bigint, updated_at = $6::bigint, "
	                   "origin_ok = $8::integer, judged_target = $9, judged_merge_base = $10, "
	                   "posted_ms = $11::bigint WHERE id = $7::bigint",
	                   11, p, &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

static int pg_job_set_result(tg_store *s, int64_t id, const tg_job *j, int64_t now)
{
	PG_RETRY(pgs(s), set_result_once(pgs(s), id, j, now));
}

/* Every row of res as a job: *out, *n of them (none on an error); clears
 * res. */
static int jobs_from_res(PGresult *res, tg_job **out, size_t *n)
{
	int rc = 0;
	int rows = PQntuples(res);
	if (rows && !(*out = tg_calloc((size_t)rows, sizeof(**out))))
		rc = TG_ENOMEM;
	for (int i = 0; !rc && i < rows; i++)
		if (!(rc = job_from_res(res, i, &(*out)[i])))
			(*n)++;
	PQclear(res);
	if (rc) {
		tg_store_jobs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

static int list_once(pg_store *b, const char *const states[5], tg_job **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	int rc;
	PGresult *res = pg_run(b, "list jobs",
	                       "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE state IN ($1, $2, $3, $4, $5) "
	                       "ORDER BY created_at, id",
	                       5, states, &rc);
	if (!res)
		return rc;
	return jobs_from_res(res, out, n);
}

static int pg_jobs_list(tg_store *s, const char *const states[5], tg_job **out, size_t *n)
{
	PG_RETRY(pgs(s), list_once(pgs(s), states, out, n));
}

/* -------------------------------------------------------------- history */

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
	PGresult *res = pg_run(b, "put metrics", "SELECT 1 FROM runs WHERE id = $1::bigint FOR UPDATE", 1, p1, &rc);
	if (!res)
		goto fail;
	int found = PQntuples(res) == 1;
	PQclear(res);
	if (!found) {
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
		goto fail;
	}
	if ((rc = pg_cmd(b, "put metrics", "DELETE FROM metrics WHERE run = $1::bigint", 1, p1)))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		char v[40];
		snprintf(v, sizeof(v), "%.17g", m[i].value);
		const char *p[] = {ids, m[i].name, v};
		if ((rc = pg_cmd(b, "put metrics",
		                 "INSERT INTO metrics (run, name, value) VALUES ($1::bigint, $2, $3::double precision) "
		                 "ON CONFLICT (run, name) DO UPDATE SET value = excluded.value",
		                 3, p)))
			goto fail;
	}
	if ((rc = pg_commit(&b->base)))
		goto fail;
	return 0;
fail:
	pg_rollback(&b->base);
	return rc;
}

static int pg_metrics_put(tg_store *s, int64_t id, const tg_metric *m, size_t n)
{
	PG_RETRY(pgs(s), metrics_once(pgs(s), id, m, n));
}

static int find_once(pg_store *b, const char *repo, const char *commit, const char *workload, int trusted_only,
                     tg_job *out)
{
	const char *p[] = {repo, commit, workload, trusted_only ? "1" : "0"};
	int rc;
	PGresult *res = pg_run(b, "find run",
	                       "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE repo = $1 AND commit_sha = $2 "
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

static int pg_find_run(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted_only,
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
	PGresult *res = pg_run(b, "find runs",
	                       "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE repo = $1 AND commit_sha = $2 "
	                       "AND workload = $3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
	                       "AND ($5::integer = 0 OR trusted = 1) ORDER BY run_time DESC, id DESC LIMIT $4::bigint",
	                       5, p, &rc);
	if (!res)
		return rc;
	return jobs_from_res(res, out, n);
}

static int pg_find_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int64_t limit,
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
#define PG_HISTORY_SQL(which)                                                                  \
	"SELECT run, run_time, commit_sha, workload, name, value, pr FROM ("                        \
	" SELECT r.id AS run, r.run_time, r.commit_sha, r.workload, m.name, m.value,"                \
	"  r.pr, ROW_NUMBER() OVER (PARTITION BY r.workload, m.name"                                \
	"   ORDER BY r.run_time DESC, r.id DESC) AS rn"                                             \
	" FROM runs r JOIN metrics m ON m.run = r.id"                                               \
	" WHERE r.repo = $1 AND " which " AND r.state = 'done'"                                     \
	"  AND ($3::text IS NULL OR r.workload = $3::text)"                                         \
	"  AND ($4::text IS NULL OR m.name = $4::text)"                                             \
	"  AND ($5::text IS NULL OR starts_with(m.name, $5::text))"                                 \
	"  AND ($7::integer = 0 OR r.trusted = 1)"                                                  \
	") h WHERE $6::bigint = 0 OR rn <= $6::bigint"                                              \
	" ORDER BY run_time, run, workload COLLATE \"C\", name COLLATE \"C\""
	PGresult *res = pg_run(b, "history",
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

static int pg_history(tg_store *s, int prs, const char *repo, const char *branch, const char *workload,
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
	return pg_update(b, "prune", "DELETE FROM runs WHERE state IN ('done', 'failed') AND run_time < $1::bigint", 1,
	                 p, deleted);
}

static int pg_prune(tg_store *s, int64_t before, int64_t *deleted)
{
	PG_RETRY(pgs(s), prune_once(pgs(s), before, deleted));
}

static int count_jobs_once(pg_store *b, tg_store_counts *out)
{
	memset(out, 0, sizeof(*out));
	int rc;
	PGresult *res = pg_run(b, "count jobs", "SELECT state, COUNT(*), MIN(created_at) FROM runs GROUP BY state", 0,
	                       NULL, &rc);
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

static int pg_count_jobs(tg_store *s, tg_store_counts *out)
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
	PGresult *res = pg_run(b, "branches",
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

static int pg_branches(tg_store *s, const char *repo, tg_store_branch **out, size_t *n)
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
	int rc = pg_update(b, "set tampered", "UPDATE runs SET tampered = COALESCE(tampered, $1) WHERE id = $2::bigint",
	                   2, p, &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

static int pg_job_set_tampered(tg_store *s, int64_t id, const char *why)
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
	int rc = pg_update(b, "judge again",
	                   "UPDATE runs SET state = 'seen', attempts = 0, lease_owner = NULL, lease_until = 0, "
	                   "error = NULL, updated_at = $1::bigint WHERE id = $2::bigint AND state = 'done'",
	                   2, p, &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld is not done", (long long)id);
	return rc;
}

static int pg_job_rejudge(tg_store *s, int64_t id, int64_t now)
{
	PG_RETRY(pgs(s), rejudge_once(pgs(s), id, now));
}

static int count_runs_once(pg_store *b, const char *repo, const char *commit, const char *workload, int trusted,
                           tg_run_counts *out)
{
	const char *p[] = {repo, commit, workload, trusted ? "1" : "0"};
	int rc;
	PGresult *res = pg_run(b, "count runs",
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

static int pg_count_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted,
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
	const char *p[] = {repo,      commit, workload, lim, f->trusted_only ? "1" : "0",
	                   f->by_origin == 2 ? "2" : f->by_origin ? "1" : "0", f->origin};
	int rc;
	PGresult *res = pg_run(b, "find pool",
	                       "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE repo = $1 AND commit_sha = $2 "
	                       "AND workload = $3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
	                       "AND tampered IS NULL AND ($5::integer = 0 OR trusted = 1) "
	                       "AND ($6::integer = 0 OR (origin_ok = 1 AND ($6::integer = 2 OR "
	                       "origin IS NOT DISTINCT FROM $7::text))) "
	                       "ORDER BY run_time DESC, id DESC LIMIT $4::bigint",
	                       7, p, &rc);
	if (!res)
		return rc;
	return jobs_from_res(res, out, n);
}

static int pg_find_pool(tg_store *s, const char *repo, const char *commit, const char *workload,
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
	PGresult *res = pg_run(b, "pull requests' runs",
	                       "SELECT " TG_STORE_JOB_COLS_BRIEF " FROM runs WHERE pr > 0 AND state = 'done' "
	                       "AND run_time >= $1::bigint ORDER BY updated_at DESC, id DESC LIMIT $2::bigint",
	                       2, p, &rc);
	if (!res)
		return rc;
	return jobs_from_res(res, out, n);
}

static int pg_pr_runs(tg_store *s, int64_t since, int64_t limit, tg_job **out, size_t *n)
{
	PG_RETRY(pgs(s), pr_runs_once(pgs(s), since, limit, out, n));
}

static int tampered_once(pg_store *b, const char *repo, const char *branch, tg_job **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	const char *p[] = {repo, branch, b->base.trusted_only ? "1" : "0"};
	int rc;
	PGresult *res = pg_run(b, "tampered runs",
	                       "SELECT " TG_STORE_JOB_COLS_BRIEF " FROM runs WHERE repo = $1 AND branch = $2 "
	                       "AND tampered IS NOT NULL AND ($3::integer = 0 OR trusted = 1) ORDER BY run_time, id",
	                       3, p, &rc);
	if (!res)
		return rc;
	return jobs_from_res(res, out, n);
}

static int pg_tampered(tg_store *s, const char *repo, const char *branch, tg_job **out, size_t *n)
{
	PG_RETRY(pgs(s), tampered_once(pgs(s), repo, branch, out, n));
}

/* ------------------------------------------------------------- run data */

static int data_put_once(pg_store *b, const char *digest, int format, uint64_t json_bytes, int trusted,
                         const void *data, size_t len, int64_t now)
{
	char f[16], jb[24], t[24];
	snprintf(f, sizeof(f), "%d", format);
	fmt_i64(jb, sizeof(jb), (int64_t)json_bytes);
	fmt_i64(t, sizeof(t), now);
	/* the data as a binary parameter: no escaping, no doubling */
	const char *p[] = {digest, f, jb, data, t, trusted ? "1" : "0"};
	int lens[] = {0, 0, 0, (int)len, 0, 0}, fmts[] = {0, 0, 0, 1, 0, 0};
	PGresult *res = PQexecParams(b->conn,
	                             "INSERT INTO trace_data (digest, format, json_bytes, trusted, data, created_at) VALUES "
	                             "($1, $2::integer, $3::bigint, $6::integer, $4::bytea, $5::bigint) ON CONFLICT (digest) "
	                             "DO UPDATE SET format = excluded.format, json_bytes = excluded.json_bytes, "
	                             "trusted = excluded.trusted, data = excluded.data, created_at = excluded.created_at "
	                             "WHERE excluded.trusted >= trace_data.trusted OR excluded.format <> trace_data.format",
	                             6, NULL, p, lens, fmts, 0);
	int rc = res && PQresultStatus(res) == PGRES_COMMAND_OK ? 0 : pg_result_err(b, res, "put run data");
	PQclear(res);
	return rc;
}

static int pg_data_put(tg_store *s, const char *digest, int format, uint64_t json_bytes, int trusted, const void *data,
                       size_t len, int64_t now)
{
	PG_RETRY(pgs(s), data_put_once(pgs(s), digest, format, json_bytes, trusted, data, len, now));
}

static int data_get_once(pg_store *b, const char *digest, int format, int trusted, void **data, size_t *len)
{
	char f[16];
	snprintf(f, sizeof(f), "%d", format);
	const char *p[] = {digest, f, trusted ? "1" : "0"};
	/* the result in binary: the bytes as stored */
	PGresult *res = PQexecParams(b->conn,
	                             "SELECT data FROM trace_data WHERE digest = $1 AND format = $2::integer "
	                             "AND ($3::integer = 0 OR trusted = 1)",
	                             3, NULL, p, NULL, NULL, 1);
	if (!res || PQresultStatus(res) != PGRES_TUPLES_OK) {
		int rc = pg_result_err(b, res, "get run data");
		PQclear(res);
		return rc;
	}
	int rc = 0;
	if (PQntuples(res) != 1) {
		rc = tg_error_set(TG_ENOTFOUND, "store: no run data for %.64s", digest);
	} else {
		int n = PQgetlength(res, 0, 0);
		if (!(*data = tg_malloc(n > 0 ? (size_t)n : 1)))
			rc = TG_ENOMEM;
		else if (n > 0)
			memcpy(*data, PQgetvalue(res, 0, 0), (size_t)n);
		*len = n > 0 ? (size_t)n : 0;
	}
	PQclear(res);
	return rc;
}

static int pg_data_get(tg_store *s, const char *digest, int format, int trusted, void **data, size_t *len)
{
	PG_RETRY(pgs(s), data_get_once(pgs(s), digest, format, trusted, data, len));
}

static int run_traces_put_once(pg_store *b, int64_t id, const tg_run_trace *t, size_t n)
{
	char ids[24];
	fmt_i64(ids, sizeof(ids), id);
	int rc = pg_begin(b);
	if (rc)
		return rc;
	const char *p1[] = {ids};
	PGresult *res = pg_run(b, "put run traces", "SELECT 1 FROM runs WHERE id = $1::bigint FOR UPDATE", 1, p1, &rc);
	if (!res)
		goto fail;
	int found = PQntuples(res) == 1;
	PQclear(res);
	if (!found) {
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
		goto fail;
	}
	if ((rc = pg_cmd(b, "put run traces", "DELETE FROM run_traces WHERE run = $1::bigint", 1, p1)))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		char idx[24], jb[24];
		fmt_i64(idx, sizeof(idx), (int64_t)i);
		fmt_i64(jb, sizeof(jb), (int64_t)t[i].json_bytes);
		const char *p[] = {ids, idx, t[i].digest, jb};
		if ((rc = pg_cmd(b, "put run traces",
		                 "INSERT INTO run_traces (run, idx, digest, json_bytes) VALUES ($1::bigint, $2::integer, $3, "
		                 "$4::bigint)",
		                 4, p)))
			goto fail;
	}
	if ((rc = pg_commit(&b->base)))
		goto fail;
	return 0;
fail:
	pg_rollback(&b->base);
	return rc;
}

static int pg_run_traces_put(tg_store *s, int64_t id, const tg_run_trace *t, size_t n)
{
	PG_RETRY(pgs(s), run_traces_put_once(pgs(s), id, t, n));
}

static int run_traces_get_once(pg_store *b, int64_t id, tg_run_trace **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	char ids[24];
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {ids};
	int rc;
	PGresult *res = pg_run(b, "get run traces",
	                       "SELECT digest, json_bytes FROM run_traces WHERE run = $1::bigint ORDER BY idx", 1, p, &rc);
	if (!res)
		return rc;
	int rows = PQntuples(res);
	if (rows && !(*out = tg_calloc((size_t)rows, sizeof(**out))))
		rc = TG_ENOMEM;
	for (int i = 0; !rc && i < rows; i++) {
		snprintf((*out)[i].digest, sizeof((*out)[i].digest), "%s", PQgetvalue(res, i, 0));
		long long j = strtoll(PQgetvalue(res, i, 1), NULL, 10);
		(*out)[i].json_bytes = j > 0 ? (uint64_t)j : 0;
		(*n)++;
	}
	PQclear(res);
	return rc;
}

static int pg_run_traces_get(tg_store *s, int64_t id, tg_run_trace **out, size_t *n)
{
	PG_RETRY(pgs(s), run_traces_get_once(pgs(s), id, out, n));
}

static int outcome_put_once(pg_store *b, int64_t id, const char *outcome, const char *comment, int64_t now)
{
	char ids[24], t[24];
	fmt_i64(ids, sizeof(ids), id);
	fmt_i64(t, sizeof(t), now);
	const char *p[] = {outcome, comment, t, ids};
	int64_t changed = 0;
	int rc = pg_update(b, "put outcome",
	                   "UPDATE runs SET outcome = $1, comment = $2, updated_at = $3::bigint WHERE id = $4::bigint", 4, p,
	                   &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

static int pg_outcome_put(tg_store *s, int64_t id, const char *outcome, const char *comment, int64_t now)
{
	PG_RETRY(pgs(s), outcome_put_once(pgs(s), id, outcome, comment, now));
}

static int outcome_get_once(pg_store *b, int64_t id, char **outcome, char **comment)
{
	char ids[24];
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {ids};
	int rc;
	PGresult *res = pg_run(b, "get outcome", "SELECT outcome, comment FROM runs WHERE id = $1::bigint", 1, p, &rc);
	if (!res)
		return rc;
	if (PQntuples(res) != 1)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	else if (PQgetisnull(res, 0, 0))
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld has no outcome", (long long)id);
	else if (!(*outcome = strdup(PQgetvalue(res, 0, 0))) ||
	         (!PQgetisnull(res, 0, 1) && !(*comment = strdup(PQgetvalue(res, 0, 1))))) {
		free(*outcome);
		*outcome = NULL;
		rc = TG_ENOMEM;
	}
	PQclear(res);
	return rc;
}

static int pg_outcome_get(tg_store *s, int64_t id, char **outcome, char **comment)
{
	PG_RETRY(pgs(s), outcome_get_once(pgs(s), id, outcome, comment));
}

static int prune_data_once(pg_store *b, int64_t before)
{
	char t[24];
	fmt_i64(t, sizeof(t), before);
	const char *p[] = {t};
	int64_t changed = 0;
	return pg_update(b, "prune run data",
	                 "DELETE FROM trace_data WHERE created_at < $1::bigint AND NOT EXISTS "
	                 "(SELECT 1 FROM run_traces t WHERE t.digest = trace_data.digest)",
	                 1, p, &changed);
}

static int pg_prune_data(tg_store *s, int64_t before)
{
	PG_RETRY(pgs(s), prune_data_once(pgs(s), before));
}

/* ----------------------------------------------------------------- open */

static void pg_close(tg_store *s)
{
	pg_store *b = pgs(s);
	PQfinish(b->conn);
	if (b->password) {
		memset(b->password, 0, strlen(b->password));
		free(b->password);
	}
	free(b);
}

static const tg_store_ops pg_ops = {
	.backend = "postgresql",
	.close = pg_close,
	.version_peek = pg_version_peek,
	.tx_begin_schema = pg_tx_begin_schema,
	.tx_commit = pg_commit,
	.tx_rollback = pg_rollback,
	.version_get = pg_version_get,
	.version_set = pg_version_set,
	.exec_script = pg_exec_script,
	.job_add = pg_job_add,
	.job_get = pg_job_get,
	.job_claim = pg_job_claim,
	.job_renew = pg_job_renew,
	.job_release = pg_job_release,
	.job_advance = pg_job_advance,
	.job_set_result = pg_job_set_result,
	.jobs_list = pg_jobs_list,
	.metrics_put = pg_metrics_put,
	.find_run = pg_find_run,
	.find_runs = pg_find_runs,
	.history = pg_history,
	.prune = pg_prune,
	.leases = pg_leases,
	.lease_expire = pg_lease_expire,
	.count_jobs = pg_count_jobs,
	.branches = pg_branches,
	.job_set_tampered = pg_job_set_tampered,
	.job_rejudge = pg_job_rejudge,
	.count_runs = pg_count_runs,
	.find_pool = pg_find_pool,
	.pr_runs = pg_pr_runs,
	.tampered = pg_tampered,
	.data_put = pg_data_put,
	.data_get = pg_data_get,
	.run_traces_put = pg_run_traces_put,
	.run_traces_get = pg_run_traces_get,
	.outcome_put = pg_outcome_put,
	.outcome_get = pg_outcome_get,
	.prune_data = pg_prune_data,
};

static const char *opt(const PQconninfoOption *o, const char *key)
{
	for (; o && o->keyword; o++)
		if (!strcmp(o->keyword, key))
			return o->val && *o->val ? o->val : NULL;
	return NULL;
}

/* Names the store without a secret ("postgresql://db1:5432/tracegate")
 * and keeps the password to mask it in messages. */
static int describe(pg_store *b, const char *conninfo)
{
	char *err = NULL;
	PQconninfoOption *o = PQconninfoParse(conninfo, &err);
	if (!o) {
		/* libpq's message may quote the string, password included */
		PQfreemem(err);
		return tg_error_set(TG_EINVAL,
		                    "store: cannot parse the PostgreSQL connection string (not shown: it may hold a password)");
	}
	const char *host = opt(o, "host"), *port = opt(o, "port"), *db = opt(o, "dbname"), *pw = opt(o, "password");
	if (!host)
		host = opt(o, "hostaddr");
	snprintf(b->base.describe, sizeof(b->base.describe), "postgresql://%s%s%s/%s", host ? host : "localhost",
	         port ? ":" : "", port ? port : "", db ? db : "");
	int rc = 0;
	if (pw && !(b->password = strdup(pw)))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	PQconninfoFree(o);
	return rc;
}

int tg_store__pg_open(tg_store **out, const char *conninfo)
{
	*out = NULL;
	pg_store *b = tg_calloc(1, sizeof(*b));
	if (!b)
		return TG_ENOMEM;
	b->base.ops = &pg_ops;
	int rc = describe(b, conninfo);
	if (rc) {
		pg_close(&b->base);
		return rc;
	}
	/* Later keywords override the url's: UTF-8 on the wire whatever the
	 * database's encoding; connect_timeout only as a default. */
	const char *keys[] = {"connect_timeout", "dbname", "client_encoding", "fallback_application_name", NULL};
	const char *vals[] = {"10", conninfo, "UTF8", "tracegate", NULL};
	b->conn = PQconnectdbParams(keys, vals, 1);
	if (!b->conn) {
		pg_close(&b->base);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	if (PQstatus(b->conn) != CONNECTION_OK) {
		rc = pg_fail(b, TG_EIO, "connect", PQerrorMessage(b->conn));
		pg_close(&b->base);
		return rc;
	}
	PQsetNoticeProcessor(b->conn, quiet_notices, NULL);
	*out = &b->base;
	return 0;
}
