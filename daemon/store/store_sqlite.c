/*
 * store_sqlite.c - the job store on SQLite, the embedded default (one
 * daemon, or a few processes on one machine): the schema steps, the
 * operations table and opening. The operations are store_sqlite_jobs.c
 * (jobs and leases), store_sqlite_runs.c (metrics, finished runs, history,
 * counts), store_sqlite_data.c (run data, traces, outcomes) on
 * store_sqlite_conn.c (the statements, errors, transactions).
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
#include "store_sqlite_impl.h"
#include "../../util/tg.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

/* --------------------------------------------------------------- schema */

static int sq_version_peek(tg_store *s, int *version)
{
	sq_store *b = sq(s);
	*version = -1;
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_VERSION_TABLE);
	if (!st)
		return TG_EIO;
	int rc = tg_store__sq_step(b, st, "schema version");
	tg_store__sq_done(st);
	if (rc <= 0)
		return rc;
	/* Not cached: the statement would pin a table that a migration may
	 * still create. */
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(b->db, tg_store__sq_sql[SQ_VERSION_MAX], -1, &q, NULL) != SQLITE_OK)
		return tg_store__sq_err(b, "schema version");
	rc = tg_store__sq_step(b, q, "schema version");
	if (rc == 1) {
		*version = sqlite3_column_int(q, 0);
		rc = 0;
	}
	sqlite3_finalize(q);
	return rc;
}

static int sq_tx_begin_schema(tg_store *s)
{
	return sq_begin(sq(s));
}

static int sq_version_get(tg_store *s, int *version)
{
	sq_store *b = sq(s);
	int rc = tg_store__sq_exec(b, tg_store__sq_sql[SQ_VERSION_CREATE], "schema version");
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
	if (sqlite3_prepare_v2(b->db, tg_store__sq_sql[SQ_VERSION_SET], -1, &st, NULL) != SQLITE_OK)
		return tg_store__sq_err(b, "schema version");
	sqlite3_bind_int(st, 1, m->version);
	sqlite3_bind_int64(st, 2, now);
	bind_text(st, 3, m->what);
	int rc = tg_store__sq_step(b, st, "schema version");
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

static int sq_exec_script(tg_store *s, const char *sql)
{
	return tg_store__sq_exec(sq(s), sql, "migrate");
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
	.tx_commit = tg_store__sq_commit,
	.tx_rollback = tg_store__sq_rollback,
	.version_get = sq_version_get,
	.version_set = sq_version_set,
	.exec_script = sq_exec_script,
	.job_add = tg_store__sq_job_add,
	.job_get = tg_store__sq_job_get,
	.job_claim = tg_store__sq_job_claim,
	.job_renew = tg_store__sq_job_renew,
	.job_release = tg_store__sq_job_release,
	.job_advance = tg_store__sq_job_advance,
	.job_set_result = tg_store__sq_job_set_result,
	.jobs_list = tg_store__sq_jobs_list,
	.metrics_put = tg_store__sq_metrics_put,
	.find_run = tg_store__sq_find_run,
	.find_runs = tg_store__sq_find_runs,
	.history = tg_store__sq_history,
	.prune = tg_store__sq_prune,
	.leases = tg_store__sq_leases,
	.lease_expire = tg_store__sq_lease_expire,
	.count_jobs = tg_store__sq_count_jobs,
	.branches = tg_store__sq_branches,
	.job_set_tampered = tg_store__sq_job_set_tampered,
	.job_rejudge = tg_store__sq_job_rejudge,
	.count_runs = tg_store__sq_count_runs,
	.find_pool = tg_store__sq_find_pool,
	.pr_runs = tg_store__sq_pr_runs,
	.tampered = tg_store__sq_tampered,
	.data_put = tg_store__sq_data_put,
	.data_get = tg_store__sq_data_get,
	.run_traces_put = tg_store__sq_run_traces_put,
	.run_traces_get = tg_store__sq_run_traces_get,
	.outcome_put = tg_store__sq_outcome_put,
	.outcome_get = tg_store__sq_outcome_get,
	.prune_data = tg_store__sq_prune_data,
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
			return tg_store__sq_err(b, "open: WAL mode");
		if (waited_ms >= 10000)
			return tg_store__sq_err(b, "open: WAL mode");
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
		rc = b->db ? tg_store__sq_err(b, "open") : tg_error_set(TG_ENOMEM, "out of memory");
		goto fail;
	}
	sqlite3_extended_result_codes(b->db, 1);
	sqlite3_busy_timeout(b->db, 10000);
	if ((rc = tg_store__sq_exec(b, "PRAGMA foreign_keys = ON", "open")))
		goto fail;
	if ((rc = sq_wal(b)))
		goto fail;
	if ((rc = tg_store__sq_exec(b, "PRAGMA synchronous = FULL", "open")))
		goto fail;
	*out = &b->base;
	return 0;
fail:
	sqlite3_close(b->db);
	free(b);
	return rc;
}
