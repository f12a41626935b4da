/*
 * store_sqlite.c - the job store on SQLite, the embedded default (one
 * daemon, or a few processes on one machine).
 *
 * Settings, on every connection:
 *   journal_mode=WAL     readers never block the writer and the writer
 *                        never blocks readers (the history command reads
 *                        while the daemon writes).
 *   synchronous=FULL     each commit is fsynced before it returns, so a
 *                        committed step survives a power cut as well as a
 *                        killed daemon. NORMAL would only lose commits on a
 *                        power cut (never on a crash), but a daemon commits a
 *                        handful of times per run, so FULL costs nothing we
 *                        could measure and spares one class of "the gate
 *                        forgot it posted" after an outage.
 *   busy_timeout=10000   a writer waits up to 10 s for another one
 *                        (another process claiming) instead of failing.
 *   foreign_keys=ON      metrics go with their run (ON DELETE CASCADE).
 * Writes that read first (claim, add, metrics) run in BEGIN IMMEDIATE, so
 * two processes serialise on the write lock before reading, not at commit.
 * Every statement is prepared once (persistent) with bound parameters.
 */
#include "store_impl.h"
#include "../../util/tg.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	SQ_VERSION_TABLE,
	SQ_VERSION_CREATE,
	SQ_VERSION_MAX,
	SQ_VERSION_SET,
	SQ_ADD,
	SQ_ID_BY_KEY,
	SQ_GET_ID,
	SQ_GET_KEY,
	SQ_CLAIM_PICK,
	SQ_CLAIM_TAKE,
	SQ_RENEW,
	SQ_RELEASE,
	SQ_ADVANCE,
	SQ_SET_RESULT,
	SQ_LIST,
	SQ_RUN_EXISTS,
	SQ_METRICS_DELETE,
	SQ_METRIC_PUT,
	SQ_FIND_RUN,
	SQ_FIND_RUNS,
	SQ_HISTORY,
	SQ_HISTORY_PRS,
	SQ_PRUNE,
	SQ_LEASES,
	SQ_LEASE_EXPIRE,
	SQ_COUNT_JOBS,
	SQ_BRANCHES,
	SQ_SET_TAMPERED,
	SQ_REJUDGE,
	SQ_COUNT_RUNS,
	SQ_FIND_POOL,
	SQ_PR_RUNS,
	SQ_TAMPERED,
	SQ_DATA_PUT,
	SQ_DATA_GET,
	SQ_RUN_TRACES_DELETE,
	SQ_RUN_TRACE_PUT,
	SQ_RUN_TRACES_GET,
	SQ_OUTCOME_PUT,
	SQ_OUTCOME_GET,
	SQ_DATA_PRUNE,
	SQ_NSTMT
};

#define UNFINISHED "('seen', 'analysing', 'posting')"

/* A history query (TG_STORE_HISTORY_NCOLS columns) of the runs that
 * `which` selects (?2 is the branch). */
#define SQ_HISTORY_SQL(which)                                                   \
	"SELECT run, run_time, commit_sha, workload, name, value, pr FROM ("         \
	" SELECT r.id AS run, r.run_time, r.commit_sha, r.workload, m.name, m.value," \
	"  r.pr, ROW_NUMBER() OVER (PARTITION BY r.workload, m.name"                 \
	"   ORDER BY r.run_time DESC, r.id DESC) AS rn"                              \
	" FROM runs r JOIN metrics m ON m.run = r.id"                                \
	" WHERE r.repo = ?1 AND " which " AND r.state = 'done'"                      \
	"  AND (?3 IS NULL OR r.workload = ?3)"                                      \
	"  AND (?4 IS NULL OR m.name = ?4)"                                          \
	"  AND (?5 IS NULL OR substr(m.name, 1, length(?5)) = ?5)"                   \
	"  AND (?7 = 0 OR r.trusted = 1)"                                            \
	") WHERE ?6 = 0 OR rn <= ?6 ORDER BY run_time, run, workload, name"

static const char *const sq_sql[SQ_NSTMT] = {
	[SQ_VERSION_TABLE] = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
	[SQ_VERSION_CREATE] = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
	                      "applied_at INTEGER NOT NULL, what TEXT NOT NULL)",
	[SQ_VERSION_MAX] = "SELECT COALESCE(MAX(version), 0) FROM schema_version",
	[SQ_VERSION_SET] = "INSERT INTO schema_version (version, applied_at, what) VALUES (?1, ?2, ?3)",
	[SQ_ADD] = "INSERT INTO runs (key, prefix, repo, commit_sha, branch, target_branch, pr, workload, run_id, "
	           "manifest, created_at, updated_at, run_time, trusted, origin) "
	           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13, ?14) ON CONFLICT (key) DO NOTHING",
	[SQ_ID_BY_KEY] = "SELECT id FROM runs WHERE key = ?1",
	[SQ_GET_ID] = "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE id = ?1",
	[SQ_GET_KEY] = "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE key = ?1",
	[SQ_CLAIM_PICK] = "SELECT id FROM runs WHERE state IN " UNFINISHED
	                  " AND (lease_owner IS NULL OR lease_until <= ?1) AND (?2 = 0 OR id = ?2)"
	                  " ORDER BY run_time, id LIMIT 1",
	[SQ_CLAIM_TAKE] = "UPDATE runs SET lease_owner = ?1, lease_until = ?2, attempts = attempts + 1, "
	                  "updated_at = ?3 WHERE id = ?4 RETURNING " TG_STORE_JOB_COLS,
	[SQ_LEASES] = "SELECT id, lease_owner, lease_until FROM runs WHERE state IN " UNFINISHED
	              " AND lease_owner IS NOT NULL AND lease_until > ?1 ORDER BY id",
	[SQ_LEASE_EXPIRE] = "UPDATE runs SET lease_until = 0, updated_at = ?1 "
	                    "WHERE id = ?2 AND lease_owner = ?3 AND state IN " UNFINISHED,
	[SQ_RELEASE] = "UPDATE runs SET lease_owner = NULL, lease_until = 0, updated_at = ?1, "
	               "attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END "
	               "WHERE id = ?2 AND lease_owner = ?3 AND state IN " UNFINISHED,
	[SQ_RENEW] = "UPDATE runs SET lease_until = ?1, updated_at = ?2 "
	             "WHERE id = ?3 AND lease_owner = ?4 AND state IN " UNFINISHED,
	[SQ_ADVANCE] = "UPDATE runs SET state = ?1, updated_at = ?2, error = COALESCE(?3, error), "
	               "lease_owner = CASE WHEN ?4 THEN NULL ELSE lease_owner END, "
	               "lease_until = CASE WHEN ?4 THEN 0 ELSE lease_until END "
	               "WHERE id = ?5 AND state = ?6 AND lease_owner = ?7",
	[SQ_SET_RESULT] = "UPDATE runs SET verdict = ?1, summary = ?2, baseline_commit = ?3, baseline_distance = ?4, "
	                  "comment_id = ?5, updated_at = ?6, origin_ok = ?8, judged_target = ?9, judged_merge_base = ?10, "
	                  "posted_ms = ?11 "
	                  "WHERE id = ?7",
	[SQ_LIST] = "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE state IN (?1, ?2, ?3, ?4, ?5) "
	            "ORDER BY created_at, id",
	[SQ_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
	[SQ_METRICS_DELETE] = "DELETE FROM metrics WHERE run = ?1",
	[SQ_METRIC_PUT] = "INSERT INTO metrics (run, name, value) VALUES (?1, ?2, ?3) "
	                  "ON CONFLICT (run, name) DO UPDATE SET value = excluded.value",
	[SQ_FIND_RUN] = "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE repo = ?1 AND commit_sha = ?2 "
	                "AND workload = ?3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
	                "AND (?4 = 0 OR trusted = 1) ORDER BY run_time DESC, id DESC LIMIT 1",
	[SQ_FIND_RUNS] = "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE repo = ?1 AND commit_sha = ?2 "
	                 "AND workload = ?3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
	                 "AND (?5 = 0 OR trusted = 1) ORDER BY run_time DESC, id DESC LIMIT ?4",
	/* limit: the latest ?6 runs of each (workload, metric) series. A run
	 * has one value per metric, so numbering the points numbers the runs. */
	[SQ_HISTORY] = SQ_HISTORY_SQL("r.branch = ?2"),
	/* the pull requests' runs into ?2: the same, but by target branch */
	[SQ_HISTORY_PRS] = SQ_HISTORY_SQL("r.target_branch = ?2 AND r.pr > 0 AND r.branch <> ?2"),
	[SQ_PRUNE] = "DELETE FROM runs WHERE state IN ('done', 'failed') AND run_time < ?1",
	[SQ_COUNT_JOBS] = "SELECT state, COUNT(*), MIN(created_at) FROM runs GROUP BY state",
	/* each branch and workload with its done runs counted and its latest */
	[SQ_BRANCHES] = "SELECT branch, workload, runs, id, commit_sha, run_time, verdict, pr FROM ("
	                " SELECT branch, workload, id, commit_sha, run_time, verdict, pr,"
	                "  COUNT(*) OVER (PARTITION BY branch, workload) AS runs,"
	                "  ROW_NUMBER() OVER (PARTITION BY branch, workload ORDER BY run_time DESC, id DESC) AS rn"
	                " FROM runs WHERE repo = ?1 AND state = 'done' AND (?2 = 0 OR trusted = 1)"
	                ") WHERE rn = 1 ORDER BY branch, workload",
	/* failing closed (store_fail_closed.c) */
	[SQ_SET_TAMPERED] = "UPDATE runs SET tampered = COALESCE(tampered, ?1) WHERE id = ?2",
	[SQ_REJUDGE] = "UPDATE runs SET state = 'seen', attempts = 0, lease_owner = NULL, lease_until = 0, error = NULL, "
	               "updated_at = ?1 WHERE id = ?2 AND state = 'done'",
	[SQ_COUNT_RUNS] = "SELECT COUNT(DISTINCT CASE WHEN trusted = ?4 THEN workload END), "
	                  "COALESCE(SUM(CASE WHEN trusted = ?4 AND workload = ?3 THEN 1 ELSE 0 END), 0), "
	                  "COALESCE(SUM(CASE WHEN trusted = 0 AND pr = 0 THEN 1 ELSE 0 END), 0) "
	                  "FROM runs WHERE repo = ?1 AND commit_sha = ?2",
	[SQ_FIND_POOL] = "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE repo = ?1 AND commit_sha = ?2 "
	                 "AND workload = ?3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
	                 "AND tampered IS NULL AND (?5 = 0 OR trusted = 1) "
	                 "AND (?6 = 0 OR (origin_ok = 1 AND (?6 = 2 OR origin IS ?7))) ORDER BY run_time DESC, id DESC LIMIT ?4",
	[SQ_PR_RUNS] = "SELECT " TG_STORE_JOB_COLS_BRIEF " FROM runs WHERE pr > 0 AND state = 'done' AND run_time >= ?1 "
	               "ORDER BY updated_at DESC, id DESC LIMIT ?2",
	[SQ_TAMPERED] = "SELECT " TG_STORE_JOB_COLS_BRIEF " FROM runs WHERE repo = ?1 AND branch = ?2 "
	                "AND tampered IS NOT NULL AND (?3 = 0 OR trusted = 1) ORDER BY run_time, id",
	[SQ_DATA_PUT] = "INSERT INTO trace_data (digest, format, json_bytes, trusted, data, created_at) "
	                "VALUES (?1, ?2, ?3, ?6, ?4, ?5) ON CONFLICT (digest) DO UPDATE SET format = excluded.format, "
	                "json_bytes = excluded.json_bytes, trusted = excluded.trusted, data = excluded.data, "
	                "created_at = excluded.created_at "
	                "WHERE excluded.trusted >= trace_data.trusted OR excluded.format <> trace_data.format",
	[SQ_DATA_GET] = "SELECT data FROM trace_data WHERE digest = ?1 AND format = ?2 AND (?3 = 0 OR trusted = 1)",
	[SQ_RUN_TRACES_DELETE] = "DELETE FROM run_traces WHERE run = ?1",
	[SQ_RUN_TRACE_PUT] = "INSERT INTO run_traces (run, idx, digest, json_bytes) VALUES (?1, ?2, ?3, ?4)",
	[SQ_RUN_TRACES_GET] = "SELECT digest, json_bytes FROM run_traces WHERE run = ?1 ORDER BY idx",
	[SQ_OUTCOME_PUT] = "UPDATE runs SET outcome = ?1, comment = ?2, updated_at = ?3 WHERE id = ?4",
	[SQ_OUTCOME_GET] = "SELECT outcome, comment FROM runs WHERE id = ?1",
	/* data made before the cutoff that no run names: not data a job has
	 * just put and is about to list for its run */
	[SQ_DATA_PRUNE] = "DELETE FROM trace_data WHERE created_at < ?1 AND NOT EXISTS "
	                  "(SELECT 1 FROM run_traces t WHERE t.digest = trace_data.digest)",
};

typedef struct sq_store {
	tg_store base;
	sqlite3 *db;
	sqlite3_stmt *stmt[SQ_NSTMT];
} sq_store;

static sq_store *sq(tg_store *s) { return (sq_store *)s; }

/* Sets the message of the connection's last error: TG_EIO for the
 * database's own faults (full disk, read-only file, I/O, lock timeout),
 * TG_ENOMEM for memory, TG_EINVAL for a refused value. */
static int sq_err(sq_store *b, const char *what)
{
	int code = sqlite3_errcode(b->db) & 0xff;
	int tg = code == SQLITE_NOMEM ? TG_ENOMEM : code == SQLITE_CONSTRAINT ? TG_EINVAL : TG_EIO;
	return tg_error_set(tg, "store %s: %s: %s", b->base.describe, what, sqlite3_errmsg(b->db));
}

/* The cached statement which, reset, or NULL with the error set. */
static sqlite3_stmt *sq_stmt(sq_store *b, int which)
{
	if (!b->stmt[which] &&
	    sqlite3_prepare_v3(b->db, sq_sql[which], -1, SQLITE_PREPARE_PERSISTENT, &b->stmt[which], NULL) != SQLITE_OK) {
		sq_err(b, "prepare");
		return NULL;
	}
	return b->stmt[which];
}

/* Ends the use of a cached statement: reset, bindings cleared. */
static void sq_done(sqlite3_stmt *st)
{
	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* One step: 1 a row, 0 done, or a negative code with the error set (the
 * statement is then reset, which keeps the connection usable). */
static int sq_step(sq_store *b, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	int err = sq_err(b, what);
	sq_done(st);
	return err;
}

static int sq_exec(sq_store *b, const char *sql, const char *what)
{
	if (sqlite3_exec(b->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sq_err(b, what);
	return 0;
}

static void sq_rollback(tg_store *s)
{
	sq_store *b = sq(s);
	if (!sqlite3_get_autocommit(b->db))
		sqlite3_exec(b->db, "ROLLBACK", NULL, NULL, NULL);
}

static int sq_begin(sq_store *b) { return sq_exec(b, "BEGIN IMMEDIATE", "begin"); }

static int sq_commit(tg_store *s)
{
	int rc = sq_exec(sq(s), "COMMIT", "commit");
	if (rc)
		sq_rollback(s);
	return rc;
}

static int sq_job_row(sqlite3_stmt *st, tg_job *out)
{
	const char *v[TG_STORE_JOB_NCOLS];
	for (int i = 0; i < TG_STORE_JOB_NCOLS; i++)
		v[i] = (const char *)sqlite3_column_text(st, i);
	return tg_store__job_from_row(out, v);
}

/* --------------------------------------------------------------- schema */

static int sq_version_peek(tg_store *s, int *version)
{
	sq_store *b = sq(s);
	*version = -1;
	sqlite3_stmt *st = sq_stmt(b, SQ_VERSION_TABLE);
	if (!st)
		return TG_EIO;
	int rc = sq_step(b, st, "schema version");
	sq_done(st);
	if (rc <= 0)
		return rc;
	/* Not cached: the statement would pin a table that a migration may
	 * still create. */
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(b->db, sq_sql[SQ_VERSION_MAX], -1, &q, NULL) != SQLITE_OK)
		return sq_err(b, "schema version");
	rc = sq_step(b, q, "schema version");
	if (rc == 1) {
		*version = sqlite3_column_int(q, 0);
		rc = 0;
	}
	sqlite3_finalize(q);
	return rc;
}

static int sq_tx_begin_schema(tg_store *s) { return sq_begin(sq(s)); }

static int sq_version_get(tg_store *s, int *version)
{
	sq_store *b = sq(s);
	int rc = sq_exec(b, sq_sql[SQ_VERSION_CREATE], "schema version");
	if (rc)
		return rc;
	rc = sq_version_peek(s, version);
	if (!rc && *version < 0)
		*version = 0;
	return rc;
}

static int sq_version_set(tg_store *s, const tg_store_migration *m, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(b->db, sq_sql[SQ_VERSION_SET], -1, &st, NULL) != SQLITE_OK)
		return sq_err(b, "schema version");
	sqlite3_bind_int(st, 1, m->version);
	sqlite3_bind_int64(st, 2, now);
	bind_text(st, 3, m->what);
	int rc = sq_step(b, st, "schema version");
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

static int sq_exec_script(tg_store *s, const char *sql)
{
	return sq_exec(sq(s), sql, "migrate");
}

/* ----------------------------------------------------------------- jobs */

static int sq_job_add(tg_store *s, const tg_job *j, int64_t now, int64_t *id, int *created)
{
	sq_store *b = sq(s);
	int rc = sq_begin(b);
	if (rc)
		return rc;
	/* a known run first: an INSERT that conflicts still uses up an id
	 * (AUTOINCREMENT), and every restart adds every manifest again */
	sqlite3_stmt *st = sq_stmt(b, SQ_ID_BY_KEY);
	if (!st) {
		rc = TG_EIO;
		goto fail;
	}
	bind_text(st, 1, j->key);
	if ((rc = sq_step(b, st, "add job")) < 0)
		goto fail;
	if (rc == 1) {
		*id = sqlite3_column_int64(st, 0);
		*created = 0;
		sq_done(st);
		if ((rc = sq_commit(s)))
			goto fail;
		return 0;
	}
	sq_done(st);
	if (!(st = sq_stmt(b, SQ_ADD))) {
		rc = TG_EIO;
		goto fail;
	}
	bind_text(st, 1, j->key);
	bind_text(st, 2, j->prefix);
	bind_text(st, 3, j->repo);
	bind_text(st, 4, j->commit);
	bind_text(st, 5, j->branch);
	bind_text(st, 6, j->target_branch);
	sqlite3_bind_int64(st, 7, j->pr);
	bind_text(st, 8, j->workload);
	bind_text(st, 9, j->run_id);
	bind_text(st, 10, j->manifest);
	sqlite3_bind_int64(st, 11, now);
	sqlite3_bind_int64(st, 12, j->run_time ? j->run_time : now);
	sqlite3_bind_int(st, 13, j->trusted != 0);
	bind_text(st, 14, j->origin);
	if ((rc = sq_step(b, st, "add job")) < 0)
		goto fail;
	sq_done(st);
	if (sqlite3_changes(b->db) == 1) {
		*id = sqlite3_last_insert_rowid(b->db);
		*created = 1;
	} else {
		if (!(st = sq_stmt(b, SQ_ID_BY_KEY))) {
			rc = TG_EIO;
			goto fail;
		}
		bind_text(st, 1, j->key);
		if ((rc = sq_step(b, st, "add job")) < 0)
			goto fail;
		*id = rc == 1 ? sqlite3_column_int64(st, 0) : 0;
		sq_done(st);
	}
	if ((rc = sq_commit(s)))
		goto fail;
	return 0;
fail:
	sq_rollback(s);
	*id = 0;
	*created = 0;
	return rc;
}

static int sq_job_get(tg_store *s, int64_t id, const char *key, tg_job *out)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, key ? SQ_GET_KEY : SQ_GET_ID);
	if (!st)
		return TG_EIO;
	if (key)
		bind_text(st, 1, key);
	else
		sqlite3_bind_int64(st, 1, id);
	int rc = sq_step(b, st, "get job");
	if (rc == 1)
		rc = sq_job_row(st, out);
	else if (rc == 0)
		rc = key ? tg_error_set(TG_ENOTFOUND, "store: no job with key %.64s", key)
		         : tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	sq_done(st);
	return rc;
}

static int sq_job_claim(tg_store *s, const char *owner, int64_t now, int64_t until, int64_t want, tg_job *out)
{
	sq_store *b = sq(s);
	int rc = sq_begin(b);
	if (rc)
		return rc;
	sqlite3_stmt *st = sq_stmt(b, SQ_CLAIM_PICK);
	if (!st) {
		rc = TG_EIO;
		goto fail;
	}
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, want);
	if ((rc = sq_step(b, st, "claim")) <= 0) {
		if (rc == 0)
			rc = tg_error_set(TG_ENOTFOUND, "store: no job to claim");
		goto fail;
	}
	int64_t id = sqlite3_column_int64(st, 0);
	sq_done(st);
	if (!(st = sq_stmt(b, SQ_CLAIM_TAKE))) {
		rc = TG_EIO;
		goto fail;
	}
	bind_text(st, 1, owner);
	sqlite3_bind_int64(st, 2, until);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, id);
	if ((rc = sq_step(b, st, "claim")) <= 0) {
		if (rc == 0)
			rc = tg_error_set(TG_EIO, "store %s: claim: job %lld vanished", s->describe, (long long)id);
		goto fail;
	}
	if ((rc = sq_job_row(st, out)))
		goto fail;
	if ((rc = sq_step(b, st, "claim")) < 0) /* RETURNING finishes on the next step */
		goto fail;
	sq_done(st);
	if ((rc = sq_commit(s)))
		goto fail;
	return 0;
fail:
	sq_done(st);
	sq_rollback(s);
	tg_job_clear(out);
	return rc;
}

/* Runs a cached UPDATE already bound; *changed: rows it changed. */
static int sq_update(sq_store *b, sqlite3_stmt *st, const char *what, int *changed)
{
	int rc = sq_step(b, st, what);
	sq_done(st);
	if (rc < 0)
		return rc;
	*changed = sqlite3_changes(b->db);
	return 0;
}

static int sq_job_renew(tg_store *s, int64_t id, const char *owner, int64_t now, int64_t until)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_RENEW);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, until);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_int64(st, 3, id);
	bind_text(st, 4, owner);
	int changed = 0, rc = sq_update(b, st, "renew", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld: %s holds no lease on it", (long long)id, owner);
	return rc;
}

static int sq_job_release(tg_store *s, int64_t id, const char *owner, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_RELEASE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	bind_text(st, 3, owner);
	int changed = 0, rc = sq_update(b, st, "release", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld: %s holds no lease on it", (long long)id, owner);
	return rc;
}

static int sq_leases(tg_store *s, int64_t now, tg_lease **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_LEASES);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, now);
	size_t cap = 0;
	int rc;
	while ((rc = sq_step(b, st, "leases")) == 1) {
		tg_lease *l = tg_store__push((void **)out, n, &cap, sizeof(**out));
		if (!l) {
			rc = TG_ENOMEM;
			break;
		}
		const char *o = (const char *)sqlite3_column_text(st, 1);
		l->id = sqlite3_column_int64(st, 0);
		snprintf(l->owner, sizeof(l->owner), "%s", o ? o : "");
		l->until = sqlite3_column_int64(st, 2);
	}
	sq_done(st);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

static int sq_lease_expire(tg_store *s, int64_t id, const char *owner, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_LEASE_EXPIRE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	bind_text(st, 3, owner);
	int changed = 0, rc = sq_update(b, st, "expire lease", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld: %s holds no lease on it", (long long)id, owner);
	return rc;
}

static int sq_job_advance(tg_store *s, int64_t id, const char *owner, const char *from, const char *to,
                          int release, const char *error, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_ADVANCE);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, to);
	sqlite3_bind_int64(st, 2, now);
	bind_text(st, 3, error);
	sqlite3_bind_int(st, 4, release);
	sqlite3_bind_int64(st, 5, id);
	bind_text(st, 6, from);
	bind_text(st, 7, owner);
	int changed = 0, rc = sq_update(b, st, "advance", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld is not %s under a lease of %s", (long long)id, from,
		                  owner);
	return rc;
}

static int sq_job_set_result(tg_store *s, int64_t id, const tg_job *j, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_SET_RESULT);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, j->verdict);
	bind_text(st, 2, j->summary);
	bind_text(st, 3, j->baseline_commit);
	sqlite3_bind_int(st, 4, j->baseline_distance);
	sqlite3_bind_int64(st, 5, j->comment_id);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, id);
	sqlite3_bind_int(st, 8, j->origin_ok != 0);
	bind_text(st, 9, j->judged_target);
	bind_text(st, 10, j->judged_merge_base);
	sqlite3_bind_int64(st, 11, j->posted_ms);
	int changed = 0, rc = sq_update(b, st, "set result", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

/* Every row of the bound statement st as a job, appended to *out (*n of
 * them); on an error none (*out freed). what names the step in messages. */
static int sq_jobs_collect(sq_store *b, sqlite3_stmt *st, const char *what, tg_job **out, size_t *n)
{
	size_t cap = 0;
	int rc;
	while ((rc = sq_step(b, st, what)) == 1) {
		tg_job *j = tg_store__push((void **)out, n, &cap, sizeof(**out));
		if (!j || (rc = sq_job_row(st, j))) {
			rc = j ? rc : TG_ENOMEM;
			break;
		}
	}
	sq_done(st);
	if (rc < 0) {
		tg_store_jobs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

static int sq_jobs_list(tg_store *s, const char *const states[5], tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_LIST);
	if (!st)
		return TG_EIO;
	for (int i = 0; i < 5; i++)
		bind_text(st, i + 1, states[i]);
	return sq_jobs_collect(b, st, "list jobs", out, n);
}

/* -------------------------------------------------------------- history */

static int sq_metrics_put(tg_store *s, int64_t id, const tg_metric *m, size_t n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = NULL;
	int rc = sq_begin(b);
	if (rc)
		return rc;
	if (!(st = sq_stmt(b, SQ_RUN_EXISTS))) {
		rc = TG_EIO;
		goto fail;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sq_step(b, st, "put metrics")) <= 0) {
		if (rc == 0)
			rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
		goto fail;
	}
	sq_done(st);
	if (!(st = sq_stmt(b, SQ_METRICS_DELETE))) {
		rc = TG_EIO;
		goto fail;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sq_step(b, st, "put metrics")) < 0)
		goto fail;
	sq_done(st);
	if (!(st = sq_stmt(b, SQ_METRIC_PUT))) {
		rc = TG_EIO;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, id);
		bind_text(st, 2, m[i].name);
		sqlite3_bind_double(st, 3, m[i].value);
		if ((rc = sq_step(b, st, "put metrics")) < 0)
			goto fail;
		sq_done(st);
	}
	st = NULL;
	if ((rc = sq_commit(s)))
		goto fail;
	return 0;
fail:
	sq_done(st);
	sq_rollback(s);
	return rc;
}

static int sq_find_run(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted_only,
                       tg_job *out)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_FIND_RUN);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, commit);
	bind_text(st, 3, workload);
	sqlite3_bind_int(st, 4, trusted_only);
	int rc = sq_step(b, st, "find run");
	if (rc == 1)
		rc = sq_job_row(st, out);
	else if (rc == 0)
		rc = tg_error_set(TG_ENOTFOUND, "store: no done run of %s at %.40s for %s", repo, commit, workload);
	sq_done(st);
	return rc;
}

static int sq_find_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int64_t limit,
                        int trusted_only, tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_FIND_RUNS);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, commit);
	bind_text(st, 3, workload);
	sqlite3_bind_int64(st, 4, limit);
	sqlite3_bind_int(st, 5, trusted_only);
	return sq_jobs_collect(b, st, "find runs", out, n);
}

static int sq_history(tg_store *s, int prs, const char *repo, const char *branch, const char *workload,
                      const char *metric, const char *prefix, int64_t limit, tg_history_point **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, prs ? SQ_HISTORY_PRS : SQ_HISTORY);
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
	while ((rc = sq_step(b, st, "history")) == 1) {
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
	sq_done(st);
	if (rc < 0) {
		tg_history_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

static int sq_count_jobs(tg_store *s, tg_store_counts *out)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_COUNT_JOBS);
	if (!st)
		return TG_EIO;
	int rc;
	while ((rc = sq_step(b, st, "count jobs")) == 1) {
		const char *v[3];
		for (int i = 0; i < 3; i++)
			v[i] = (const char *)sqlite3_column_text(st, i);
		if ((rc = tg_store__counts_add_row(out, v)))
			break;
	}
	sq_done(st);
	return rc < 0 ? rc : 0;
}

static int sq_branches(tg_store *s, const char *repo, tg_store_branch **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_BRANCHES);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	sqlite3_bind_int(st, 2, s->trusted_only);
	size_t cap = 0;
	int rc;
	while ((rc = sq_step(b, st, "branches")) == 1) {
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
	sq_done(st);
	if (rc < 0) {
		tg_store_branches_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

static int sq_prune(tg_store *s, int64_t before, int64_t *deleted)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_PRUNE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, before);
	int changed = 0, rc = sq_update(b, st, "prune", &changed);
	*deleted = changed;
	return rc;
}

/* ------------------------------------------------------- failing closed */

static int sq_job_set_tampered(tg_store *s, int64_t id, const char *why)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_SET_TAMPERED);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, why);
	sqlite3_bind_int64(st, 2, id);
	int changed = 0, rc = sq_update(b, st, "set tampered", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

static int sq_job_rejudge(tg_store *s, int64_t id, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_REJUDGE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	int changed = 0, rc = sq_update(b, st, "judge again", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: job %lld is not done", (long long)id);
	return rc;
}

static int sq_count_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted,
                         tg_run_counts *out)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_COUNT_RUNS);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, commit);
	bind_text(st, 3, workload);
	sqlite3_bind_int(st, 4, trusted);
	int rc = sq_step(b, st, "count runs");
	if (rc == 1) {
		out->workloads = sqlite3_column_int64(st, 0);
		out->runs = sqlite3_column_int64(st, 1);
		out->unsigned_branch = sqlite3_column_int64(st, 2);
		rc = 0;
	}
	sq_done(st);
	return rc;
}

static int sq_find_pool(tg_store *s, const char *repo, const char *commit, const char *workload,
                        const tg_pool_filter *f, int64_t limit, tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_FIND_POOL);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, commit);
	bind_text(st, 3, workload);
	sqlite3_bind_int64(st, 4, limit);
	sqlite3_bind_int(st, 5, f->trusted_only != 0);
	sqlite3_bind_int(st, 6, f->by_origin);
	bind_text(st, 7, f->origin);
	return sq_jobs_collect(b, st, "find pool", out, n);
}

static int sq_pr_runs(tg_store *s, int64_t since, int64_t limit, tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_PR_RUNS);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int64(st, 2, limit);
	return sq_jobs_collect(b, st, "pull requests' runs", out, n);
}

static int sq_tampered(tg_store *s, const char *repo, const char *branch, tg_job **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_TAMPERED);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, repo);
	bind_text(st, 2, branch);
	sqlite3_bind_int(st, 3, s->trusted_only);
	return sq_jobs_collect(b, st, "tampered runs", out, n);
}

/* ------------------------------------------------------------- run data */

static int sq_data_put(tg_store *s, const char *digest, int format, uint64_t json_bytes, int trusted, const void *data,
                       size_t len, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_DATA_PUT);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, digest);
	sqlite3_bind_int(st, 2, format);
	sqlite3_bind_int64(st, 3, (int64_t)json_bytes);
	sqlite3_bind_blob64(st, 4, data, (sqlite3_uint64)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, now);
	sqlite3_bind_int(st, 6, trusted);
	int rc = sq_step(b, st, "put run data");
	sq_done(st);
	return rc < 0 ? rc : 0;
}

static int sq_data_get(tg_store *s, const char *digest, int format, int trusted, void **data, size_t *len)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_DATA_GET);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, digest);
	sqlite3_bind_int(st, 2, format);
	sqlite3_bind_int(st, 3, trusted);
	int rc = sq_step(b, st, "get run data");
	if (rc == 0)
		rc = tg_error_set(TG_ENOTFOUND, "store: no run data for %.64s", digest);
	if (rc == 1) {
		const void *p = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);
		rc = 0;
		if (!(*data = tg_malloc(n > 0 ? (size_t)n : 1)))
			rc = TG_ENOMEM;
		else if (n > 0)
			memcpy(*data, p, (size_t)n);
		*len = n > 0 ? (size_t)n : 0;
	}
	sq_done(st);
	return rc;
}

/* 0 when run id exists, TG_ENOTFOUND when not (in a transaction: the
 * writes that follow are about that run). */
static int sq_run_exists(sq_store *b, int64_t id, const char *what)
{
	sqlite3_stmt *st = sq_stmt(b, SQ_RUN_EXISTS);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, id);
	int rc = sq_step(b, st, what);
	sq_done(st);
	if (rc == 0)
		return tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc < 0 ? rc : 0;
}

static int sq_run_traces_put(tg_store *s, int64_t id, const tg_run_trace *t, size_t n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = NULL;
	int rc = sq_begin(b);
	if (rc)
		return rc;
	if ((rc = sq_run_exists(b, id, "put run traces")))
		goto fail;
	if (!(st = sq_stmt(b, SQ_RUN_TRACES_DELETE))) {
		rc = TG_EIO;
		goto fail;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sq_step(b, st, "put run traces")) < 0)
		goto fail;
	sq_done(st);
	if (!(st = sq_stmt(b, SQ_RUN_TRACE_PUT))) {
		rc = TG_EIO;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		bind_text(st, 3, t[i].digest);
		sqlite3_bind_int64(st, 4, (int64_t)t[i].json_bytes);
		if ((rc = sq_step(b, st, "put run traces")) < 0)
			goto fail;
		sq_done(st);
	}
	st = NULL;
	if ((rc = sq_commit(s)))
		goto fail;
	return 0;
fail:
	sq_done(st);
	sq_rollback(s);
	return rc;
}

static int sq_run_traces_get(tg_store *s, int64_t id, tg_run_trace **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_RUN_TRACES_GET);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, id);
	size_t cap = 0;
	int rc;
	while ((rc = sq_step(b, st, "get run traces")) == 1) {
		tg_run_trace *t = tg_store__push((void **)out, n, &cap, sizeof(**out));
		if (!t) {
			rc = TG_ENOMEM;
			break;
		}
		const char *d = (const char *)sqlite3_column_text(st, 0);
		snprintf(t->digest, sizeof(t->digest), "%s", d ? d : "");
		int64_t j = sqlite3_column_int64(st, 1);
		t->json_bytes = j > 0 ? (uint64_t)j : 0;
	}
	sq_done(st);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

static int sq_outcome_put(tg_store *s, int64_t id, const char *outcome, const char *comment, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_OUTCOME_PUT);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, outcome);
	bind_text(st, 2, comment);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, id);
	int changed = 0, rc = sq_update(b, st, "put outcome", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

static int sq_outcome_get(tg_store *s, int64_t id, char **outcome, char **comment)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_OUTCOME_GET);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, id);
	int rc = sq_step(b, st, "get outcome");
	if (rc == 1) {
		const char *o = (const char *)sqlite3_column_text(st, 0), *c = (const char *)sqlite3_column_text(st, 1);
		rc = !o ? tg_error_set(TG_ENOTFOUND, "store: job %lld has no outcome", (long long)id) : 0;
		if (!rc && (!(*outcome = strdup(o)) || (c && !(*comment = strdup(c))))) {
			free(*outcome);
			*outcome = NULL;
			rc = TG_ENOMEM;
		}
	} else if (rc == 0) {
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	}
	sq_done(st);
	return rc;
}

static int sq_prune_data(tg_store *s, int64_t before)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = sq_stmt(b, SQ_DATA_PRUNE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, before);
	int changed = 0;
	return sq_update(b, st, "prune run data", &changed);
}

/* ----------------------------------------------------------------- open */

static void sq_close(tg_store *s)
{
	sq_store *b = sq(s);
	for (int i = 0; i < SQ_NSTMT; i++)
		sqlite3_finalize(b->stmt[i]);
	sqlite3_close(b->db);
	free(b);
}

static const tg_store_ops sq_ops = {
	.backend = "sqlite",
	.close = sq_close,
	.version_peek = sq_version_peek,
	.tx_begin_schema = sq_tx_begin_schema,
	.tx_commit = sq_commit,
	.tx_rollback = sq_rollback,
	.version_get = sq_version_get,
	.version_set = sq_version_set,
	.exec_script = sq_exec_script,
	.job_add = sq_job_add,
	.job_get = sq_job_get,
	.job_claim = sq_job_claim,
	.job_renew = sq_job_renew,
	.job_release = sq_job_release,
	.job_advance = sq_job_advance,
	.job_set_result = sq_job_set_result,
	.jobs_list = sq_jobs_list,
	.metrics_put = sq_metrics_put,
	.find_run = sq_find_run,
	.find_runs = sq_find_runs,
	.history = sq_history,
	.prune = sq_prune,
	.leases = sq_leases,
	.lease_expire = sq_lease_expire,
	.count_jobs = sq_count_jobs,
	.branches = sq_branches,
	.job_set_tampered = sq_job_set_tampered,
	.job_rejudge = sq_job_rejudge,
	.count_runs = sq_count_runs,
	.find_pool = sq_find_pool,
	.pr_runs = sq_pr_runs,
	.tampered = sq_tampered,
	.data_put = sq_data_put,
	.data_get = sq_data_get,
	.run_traces_put = sq_run_traces_put,
	.run_traces_get = sq_run_traces_get,
	.outcome_put = sq_outcome_put,
	.outcome_get = sq_outcome_get,
	.prune_data = sq_prune_data,
};

/* Switches to WAL mode (a property of the file, kept once set). Switching
 * needs an exclusive lock, and SQLite answers SQLITE_BUSY at once instead
 * of calling the busy handler when another connection is creating the same
 * file: so wait here, as busy_timeout would, up to 10 s. */
static int sq_wal(sq_store *b)
{
	for (int waited_ms = 0;; waited_ms += 10) {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(b->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			const char *mode = (const char *)sqlite3_column_text(st, 0);
			int ok = mode && !strcmp(mode, "wal");
			rc = ok ? 0
			        : tg_error_set(TG_EIO, "store %s: open: cannot use WAL mode (journal mode %s)",
			                       b->base.describe, mode ? mode : "unknown");
			sqlite3_finalize(st);
			return rc;
		}
		sqlite3_finalize(st);
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			return sq_err(b, "open: WAL mode");
		if (waited_ms >= 10000)
			return sq_err(b, "open: WAL mode");
		sqlite3_sleep(10);
	}
}

/* A database file that does not exist yet is created here, mode 0640 (the
 * umask may take more away), before SQLite opens it: SQLite would create
 * it 0644, readable by every user of the host, and it holds the manifests,
 * the verdicts and the history. The WAL and shared-memory files SQLite
 * makes next to it take the database file's mode. An SQLite "file:" URI is
 * left to SQLite (read-only opens). */
static int create_private(const char *path)
{
	if (!strncmp(path, "file:", 5))
		return 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd >= 0)
		close(fd);
	return 0; /* it exists, or SQLite's open says why it cannot be made */
}

/* Opens path (a file name, or an SQLite "file:" URI such as
 * "file:/srv/tg.db?mode=ro") with the settings above. */
int tg_store__sqlite_open(tg_store **out, const char *path)
{
	*out = NULL;
	if (!*path)
		return tg_error_set(TG_EINVAL, "store: empty SQLite path");
	sq_store *b = tg_calloc(1, sizeof(*b));
	if (!b)
		return TG_ENOMEM;
	b->base.ops = &sq_ops;
	snprintf(b->base.describe, sizeof(b->base.describe), "sqlite:%s", path);
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI;
	int rc = create_private(path);
	if (sqlite3_open_v2(path, &b->db, flags, NULL) != SQLITE_OK) {
		rc = b->db ? sq_err(b, "open") : tg_error_set(TG_ENOMEM, "out of memory");
		goto fail;
	}
	sqlite3_extended_result_codes(b->db, 1);
	sqlite3_busy_timeout(b->db, 10000);
	if ((rc = sq_exec(b, "PRAGMA foreign_keys = ON", "open")))
		goto fail;
	if ((rc = sq_wal(b)))
		goto fail;
	if ((rc = sq_exec(b, "PRAGMA synchronous = FULL", "open")))
		goto fail;
	*out = &b->base;
	return 0;
fail:
	sqlite3_close(b->db);
	free(b);
	return rc;
}
