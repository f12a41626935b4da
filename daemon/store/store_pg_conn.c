/*
 * store_pg_conn.c - what every PostgreSQL store operation stands on: one
 * statement run with text parameters, its error as one line with the
 * password masked (TG_EINVAL for a value the schema refused, TG_EIO for the
 * rest), transactions, and the reconnect after a lost connection that
 * PG_RETRY (store_pg_impl.h) uses.
 */
#include "store_pg_impl.h"
#include "../../util/tg.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets code's message "store <describe>: what: msg" on one line, the
 * password masked. */
int tg_store__pg_fail(pg_store *b, int code, const char *what, const char *msg)
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
int tg_store__pg_result_err(pg_store *b, PGresult *res, const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	if (!msg)
		msg = PQerrorMessage(b->conn);
	int code = state && !strncmp(state, "23", 2) ? TG_EINVAL : TG_EIO;
	return tg_store__pg_fail(b, code, what, msg);
}

/* Runs sql with n text parameters (NULL: SQL NULL). Returns the result
 * (the caller PQclears it), or NULL with *rc set. */
PGresult *tg_store__pg_run(pg_store *b, const char *what, const char *sql, int n, const char *const *params, int *rc)
{
	PGresult *res = PQexecParams(b->conn, sql, n, NULL, params, NULL, NULL, 0);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		*rc = 0;
		return res;
	}
	*rc = tg_store__pg_result_err(b, res, what);
	PQclear(res);
	return NULL;
}

/* Runs sql and keeps only its success. */
int tg_store__pg_cmd(pg_store *b, const char *what, const char *sql, int n, const char *const *params)
{
	int rc;
	PGresult *res = tg_store__pg_run(b, what, sql, n, params, &rc);
	PQclear(res);
	return rc;
}

/* Runs an UPDATE or DELETE; *changed: rows it touched. */
int tg_store__pg_update(pg_store *b, const char *what, const char *sql, int n, const char *const *params,
                        int64_t *changed)
{
	int rc;
	PGresult *res = tg_store__pg_run(b, what, sql, n, params, &rc);
	if (res) {
		*changed = strtoll(PQcmdTuples(res), NULL, 10);
		PQclear(res);
	}
	return rc;
}

void tg_store__pg_rollback(tg_store *s)
{
	pg_store *b = pgs(s);
	if (PQstatus(b->conn) == CONNECTION_OK && PQtransactionStatus(b->conn) != PQTRANS_IDLE)
		PQclear(PQexec(b->conn, "ROLLBACK"));
}

int tg_store__pg_commit(tg_store *s)
{
	int rc = tg_store__pg_cmd(pgs(s), "commit", "COMMIT", 0, NULL);
	if (rc)
		tg_store__pg_rollback(s);
	return rc;
}

/* After an operation failed with rc: 1 when the connection was lost and
 * PQreset brought it back (run the operation again), else 0 (when the
 * reset failed, the message says so). */
int tg_store__pg_again(pg_store *b, int rc)
{
	if (rc != TG_EIO || PQstatus(b->conn) != CONNECTION_BAD)
		return 0;
	PQreset(b->conn);
	if (PQstatus(b->conn) != CONNECTION_OK) {
		tg_store__pg_fail(b, TG_EIO, "connection lost, reconnect failed", PQerrorMessage(b->conn));
		return 0;
	}
	return 1;
}

int tg_store__pg_jobs_from_res(PGresult *res, tg_job **out, size_t *n)
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
