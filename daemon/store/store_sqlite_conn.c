/*
 * store_sqlite_conn.c - what every SQLite store operation stands on: the
 * text of every statement (prepared once, persistent, on first use), one
 * step with its error as one line (TG_EIO for the database's own faults,
 * TG_ENOMEM, TG_EINVAL for a refused value), transactions, and collecting
 * job rows.
 */
#include "store_sqlite_impl.h"
#include "../../util/tg.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNFINISHED "('seen', 'analysing', 'posting')"

/* A history query (TG_STORE_HISTORY_NCOLS columns) of the runs that
 * `which` selects (?2 is the branch). */
#define SQ_HISTORY_SQL(which)                                                         \
	"SELECT run, run_time, commit_sha, workload, name, value, pr FROM ("          \
	" SELECT r.id AS run, r.run_time, r.commit_sha, r.workload, m.name, m.value," \
	"  r.pr, ROW_NUMBER() OVER (PARTITION BY r.workload, m.name"                  \
	"   ORDER BY r.run_time DESC, r.id DESC) AS rn"                               \
	" FROM runs r JOIN metrics m ON m.run = r.id"                                 \
	" WHERE r.repo = ?1 AND " which                                               \
	" AND r.state = 'done'"                                                       \
	"  AND (?3 IS NULL OR r.workload = ?3)"                                       \
	"  AND (?4 IS NULL OR m.name = ?4)"                                           \
	"  AND (?5 IS NULL OR substr(m.name, 1, length(?5)) = ?5)"                    \
	"  AND (?7 = 0 OR r.trusted = 1)"                                             \
	") WHERE ?6 = 0 OR rn <= ?6 ORDER BY run_time, run, workload, name"

const char *const tg_store__sq_sql[SQ_NSTMT] = {
	[SQ_VERSION_TABLE] = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
	[SQ_VERSION_CREATE] =
		"CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
		"applied_at INTEGER NOT NULL, what TEXT NOT NULL)",
	[SQ_VERSION_MAX] = "SELECT COALESCE(MAX(version), 0) FROM schema_version",
	[SQ_VERSION_SET] = "INSERT INTO schema_version (version, applied_at, what) VALUES (?1, ?2, ?3)",
	[SQ_ADD] =
		"INSERT INTO runs (key, prefix, repo, commit_sha, branch, target_branch, pr, workload, run_id, "
		"manifest, created_at, updated_at, run_time, trusted, origin) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13, ?14) ON CONFLICT (key) DO NOTHING",
	[SQ_ID_BY_KEY] = "SELECT id FROM runs WHERE key = ?1",
	[SQ_GET_ID] = "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE id = ?1",
	[SQ_GET_KEY] = "SELECT " TG_STORE_JOB_COLS " FROM runs WHERE key = ?1",
	[SQ_CLAIM_PICK] = "SELECT id FROM runs WHERE state IN " UNFINISHED
			  " AND (lease_owner IS NULL OR lease_until <= ?1) AND (?2 = 0 OR id = ?2)"
			  " ORDER BY run_time, id LIMIT 1",
	[SQ_CLAIM_TAKE] =
		"UPDATE runs SET lease_owner = ?1, lease_until = ?2, attempts = attempts + 1, "
		"updated_at = ?3 WHERE id = ?4 RETURNING " TG_STORE_JOB_COLS,
	[SQ_LEASES] = "SELECT id, lease_owner, lease_until FROM runs WHERE state IN " UNFINISHED
		      " AND lease_owner IS NOT NULL AND lease_until > ?1 ORDER BY id",
	[SQ_LEASE_EXPIRE] =
		"UPDATE runs SET lease_until = 0, updated_at = ?1 "
		"WHERE id = ?2 AND lease_owner = ?3 AND state IN " UNFINISHED,
	[SQ_RELEASE] =
		"UPDATE runs SET lease_owner = NULL, lease_until = 0, updated_at = ?1, "
		"attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END "
		"WHERE id = ?2 AND lease_owner = ?3 AND state IN " UNFINISHED,
	[SQ_RENEW] =
		"UPDATE runs SET lease_until = ?1, updated_at = ?2 "
		"WHERE id = ?3 AND lease_owner = ?4 AND state IN " UNFINISHED,
	[SQ_ADVANCE] =
		"UPDATE runs SET state = ?1, updated_at = ?2, error = COALESCE(?3, error), "
		"lease_owner = CASE WHEN ?4 THEN NULL ELSE lease_owner END, "
		"lease_until = CASE WHEN ?4 THEN 0 ELSE lease_until END "
		"WHERE id = ?5 AND state = ?6 AND lease_owner = ?7",
	[SQ_SET_RESULT] =
		"UPDATE runs SET verdict = ?1, summary = ?2, baseline_commit = ?3, baseline_distance = ?4, "
		"comment_id = ?5, updated_at = ?6, origin_ok = ?8, judged_target = ?9, judged_merge_base = ?10, "
		"posted_ms = ?11 "
		"WHERE id = ?7",
	[SQ_LIST] = "SELECT " TG_STORE_JOB_COLS
		    " FROM runs WHERE state IN (?1, ?2, ?3, ?4, ?5) "
		    "ORDER BY created_at, id",
	[SQ_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
	[SQ_METRICS_DELETE] = "DELETE FROM metrics WHERE run = ?1",
	[SQ_METRIC_PUT] =
		"INSERT INTO metrics (run, name, value) VALUES (?1, ?2, ?3) "
		"ON CONFLICT (run, name) DO UPDATE SET value = excluded.value",
	[SQ_FIND_RUN] = "SELECT " TG_STORE_JOB_COLS
			" FROM runs WHERE repo = ?1 AND commit_sha = ?2 "
			"AND workload = ?3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
			"AND (?4 = 0 OR trusted = 1) ORDER BY run_time DESC, id DESC LIMIT 1",
	[SQ_FIND_RUNS] = "SELECT " TG_STORE_JOB_COLS
			 " FROM runs WHERE repo = ?1 AND commit_sha = ?2 "
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
	[SQ_BRANCHES] =
		"SELECT branch, workload, runs, id, commit_sha, run_time, verdict, pr FROM ("
		" SELECT branch, workload, id, commit_sha, run_time, verdict, pr,"
		"  COUNT(*) OVER (PARTITION BY branch, workload) AS runs,"
		"  ROW_NUMBER() OVER (PARTITION BY branch, workload ORDER BY run_time DESC, id DESC) AS rn"
		" FROM runs WHERE repo = ?1 AND state = 'done' AND (?2 = 0 OR trusted = 1)"
		") WHERE rn = 1 ORDER BY branch, workload",
	/* failing closed (store_fail_closed.c) */
	[SQ_SET_TAMPERED] = "UPDATE runs SET tampered = COALESCE(tampered, ?1) WHERE id = ?2",
	[SQ_REJUDGE] =
		"UPDATE runs SET state = 'seen', attempts = 0, lease_owner = NULL, lease_until = 0, error = NULL, "
		"updated_at = ?1 WHERE id = ?2 AND state = 'done'",
	[SQ_COUNT_RUNS] =
		"SELECT COUNT(DISTINCT CASE WHEN trusted = ?4 THEN workload END), "
		"COALESCE(SUM(CASE WHEN trusted = ?4 AND workload = ?3 THEN 1 ELSE 0 END), 0), "
		"COALESCE(SUM(CASE WHEN trusted = 0 AND pr = 0 THEN 1 ELSE 0 END), 0) "
		"FROM runs WHERE repo = ?1 AND commit_sha = ?2",
	[SQ_FIND_POOL] =
		"SELECT " TG_STORE_JOB_COLS
		" FROM runs WHERE repo = ?1 AND commit_sha = ?2 "
		"AND workload = ?3 AND state = 'done' AND (verdict IS NULL OR verdict <> 'error') "
		"AND tampered IS NULL AND (?5 = 0 OR trusted = 1) "
		"AND (?6 = 0 OR (origin_ok = 1 AND (?6 = 2 OR origin IS ?7))) ORDER BY run_time DESC, id DESC LIMIT ?4",
	[SQ_PR_RUNS] = "SELECT " TG_STORE_JOB_COLS_BRIEF
		       " FROM runs WHERE pr > 0 AND state = 'done' AND run_time >= ?1 "
		       "ORDER BY updated_at DESC, id DESC LIMIT ?2",
	[SQ_TAMPERED] = "SELECT " TG_STORE_JOB_COLS_BRIEF
			" FROM runs WHERE repo = ?1 AND branch = ?2 "
			"AND tampered IS NOT NULL AND (?3 = 0 OR trusted = 1) ORDER BY run_time, id",
	[SQ_DATA_PUT] =
		"INSERT INTO trace_data (digest, format, json_bytes, trusted, data, created_at) "
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
	[SQ_DATA_PRUNE] =
		"DELETE FROM trace_data WHERE created_at < ?1 AND NOT EXISTS "
		"(SELECT 1 FROM run_traces t WHERE t.digest = trace_data.digest)",
};

/* Sets the message of the connection's last error: TG_EIO for the
 * database's own faults (full disk, read-only file, I/O, lock timeout),
 * TG_ENOMEM for memory, TG_EINVAL for a refused value. */
int tg_store__sq_err(sq_store *b, const char *what)
{
	int code = sqlite3_errcode(b->db) & 0xff;
	int tg = code == SQLITE_NOMEM ? TG_ENOMEM : code == SQLITE_CONSTRAINT ? TG_EINVAL : TG_EIO;
	return tg_error_set(tg, "store %s: %s: %s", b->base.describe, what, sqlite3_errmsg(b->db));
}

/* The cached statement which, reset, or NULL with the error set. */
sqlite3_stmt *tg_store__sq_stmt(sq_store *b, int which)
{
	if (!b->stmt[which] && sqlite3_prepare_v3(b->db, tg_store__sq_sql[which], -1, SQLITE_PREPARE_PERSISTENT,
	                                          &b->stmt[which], NULL) != SQLITE_OK) {
		tg_store__sq_err(b, "prepare");
		return NULL;
	}
	return b->stmt[which];
}

/* Ends the use of a cached statement: reset, bindings cleared. */
void tg_store__sq_done(sqlite3_stmt *st)
{
	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
}

/* One step: 1 a row, 0 done, or a negative code with the error set (the
 * statement is then reset, which keeps the connection usable). */
int tg_store__sq_step(sq_store *b, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	int err = tg_store__sq_err(b, what);
	tg_store__sq_done(st);
	return err;
}

int tg_store__sq_exec(sq_store *b, const char *sql, const char *what)
{
	if (sqlite3_exec(b->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return tg_store__sq_err(b, what);
	return 0;
}

void tg_store__sq_rollback(tg_store *s)
{
	sq_store *b = sq(s);
	if (!sqlite3_get_autocommit(b->db))
		sqlite3_exec(b->db, "ROLLBACK", NULL, NULL, NULL);
}

int tg_store__sq_commit(tg_store *s)
{
	int rc = tg_store__sq_exec(sq(s), "COMMIT", "commit");
	if (rc)
		tg_store__sq_rollback(s);
	return rc;
}

int tg_store__sq_job_row(sqlite3_stmt *st, tg_job *out)
{
	const char *v[TG_STORE_JOB_NCOLS];
	for (int i = 0; i < TG_STORE_JOB_NCOLS; i++)
		v[i] = (const char *)sqlite3_column_text(st, i);
	return tg_store__job_from_row(out, v);
}

/* Runs a cached UPDATE already bound; *changed: rows it changed. */
int tg_store__sq_update(sq_store *b, sqlite3_stmt *st, const char *what, int *changed)
{
	int rc = tg_store__sq_step(b, st, what);
	tg_store__sq_done(st);
	if (rc < 0)
		return rc;
	*changed = sqlite3_changes(b->db);
	return 0;
}

/* Every row of the bound statement st as a job, appended to *out (*n of
 * them); on an error none (*out freed). what names the step in messages. */
int tg_store__sq_jobs_collect(sq_store *b, sqlite3_stmt *st, const char *what, tg_job **out, size_t *n)
{
	size_t cap = 0;
	int rc;
	while ((rc = tg_store__sq_step(b, st, what)) == 1) {
		tg_job *j = tg_store__push((void **)out, n, &cap, sizeof(**out));
		if (!j || (rc = tg_store__sq_job_row(st, j))) {
			rc = j ? rc : TG_ENOMEM;
			break;
		}
	}
	tg_store__sq_done(st);
	if (rc < 0) {
		tg_store_jobs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

/* 0 when run id exists, TG_ENOTFOUND when not (in a transaction: the
 * writes that follow are about that run). */
int tg_store__sq_run_exists(sq_store *b, int64_t id, const char *what)
{
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_RUN_EXISTS);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, id);
	int rc = tg_store__sq_step(b, st, what);
	tg_store__sq_done(st);
	if (rc == 0)
		return tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc < 0 ? rc : 0;
}
