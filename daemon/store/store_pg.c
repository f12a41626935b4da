/*
 * store_pg.c - the job store on PostgreSQL (libpq), for several daemons
 * sharing one database: the schema steps, the operations table and opening.
 * The operations are store_pg_jobs.c (jobs and leases), store_pg_runs.c
 * (metrics, finished runs, history, counts), store_pg_data.c (run data,
 * traces, outcomes) on store_pg_conn.c (statements, errors, reconnecting).
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
#include "store_pg_impl.h"
#include "../../util/tg.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pg_advisory_xact_lock key of migrations: "tgsc" */
#define SCHEMA_LOCK "1952936803"

static void quiet_notices(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* --------------------------------------------------------------- schema */

static int pg_version_max(pg_store *b, int *version)
{
	int rc;
	PGresult *res = tg_store__pg_run(b, "schema version", "SELECT COALESCE(MAX(version), 0) FROM schema_version", 0,
	                                 NULL, &rc);
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
	PGresult *res =
		tg_store__pg_run(b, "schema version", "SELECT to_regclass('schema_version') IS NOT NULL", 0, NULL, &rc);
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
	if (!rc && (rc = tg_store__pg_cmd(b, "schema lock", "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")", 0, NULL)))
		tg_store__pg_rollback(s);
	return rc;
}

static int pg_version_get(tg_store *s, int *version)
{
	pg_store *b = pgs(s);
	int rc = tg_store__pg_cmd(b, "schema version",
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
	return tg_store__pg_cmd(
		pgs(s), "schema version",
		"INSERT INTO schema_version (version, applied_at, what) VALUES ($1::int, $2::bigint, $3)", 3, p);
}

static int pg_exec_script(tg_store *s, const char *sql)
{
	pg_store *b = pgs(s);
	PGresult *res = PQexec(b->conn, sql);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? 0 : tg_store__pg_result_err(b, res, "migrate");
	PQclear(res);
	return rc;
}

/* ----------------------------------------------------------------- jobs */

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
	.tx_commit = tg_store__pg_commit,
	.tx_rollback = tg_store__pg_rollback,
	.version_get = pg_version_get,
	.version_set = pg_version_set,
	.exec_script = pg_exec_script,
	.job_add = tg_store__pg_job_add,
	.job_get = tg_store__pg_job_get,
	.job_claim = tg_store__pg_job_claim,
	.job_renew = tg_store__pg_job_renew,
	.job_release = tg_store__pg_job_release,
	.job_advance = tg_store__pg_job_advance,
	.job_set_result = tg_store__pg_job_set_result,
	.jobs_list = tg_store__pg_jobs_list,
	.metrics_put = tg_store__pg_metrics_put,
	.find_run = tg_store__pg_find_run,
	.find_runs = tg_store__pg_find_runs,
	.history = tg_store__pg_history,
	.prune = tg_store__pg_prune,
	.leases = tg_store__pg_leases,
	.lease_expire = tg_store__pg_lease_expire,
	.count_jobs = tg_store__pg_count_jobs,
	.branches = tg_store__pg_branches,
	.job_set_tampered = tg_store__pg_job_set_tampered,
	.job_rejudge = tg_store__pg_job_rejudge,
	.count_runs = tg_store__pg_count_runs,
	.find_pool = tg_store__pg_find_pool,
	.pr_runs = tg_store__pg_pr_runs,
	.tampered = tg_store__pg_tampered,
	.data_put = tg_store__pg_data_put,
	.data_get = tg_store__pg_data_get,
	.run_traces_put = tg_store__pg_run_traces_put,
	.run_traces_get = tg_store__pg_run_traces_get,
	.outcome_put = tg_store__pg_outcome_put,
	.outcome_get = tg_store__pg_outcome_get,
	.prune_data = tg_store__pg_prune_data,
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
		return tg_error_set(
			TG_EINVAL,
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
		rc = tg_store__pg_fail(b, TG_EIO, "connect", PQerrorMessage(b->conn));
		pg_close(&b->base);
		return rc;
	}
	PQsetNoticeProcessor(b->conn, quiet_notices, NULL);
	*out = &b->base;
	return 0;
}
