/*
 * store_pg_data.c - what a run keeps beside its row on PostgreSQL: the
 * content-addressed run data (trusted or not), the traces of a run, the
 * outcome and comment posted, and pruning the data no run names. Each
 * operation is a *_once function run through PG_RETRY.
 */
#include "store_pg_impl.h"
#include "../../util/tg.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	PGresult *res =
		PQexecParams(b->conn,
	                     "INSERT INTO trace_data (digest, format, json_bytes, trusted, data, created_at) VALUES "
	                     "($1, $2::integer, $3::bigint, $6::integer, $4::bytea, $5::bigint) ON CONFLICT (digest) "
	                     "DO UPDATE SET format = excluded.format, json_bytes = excluded.json_bytes, "
	                     "trusted = excluded.trusted, data = excluded.data, created_at = excluded.created_at "
	                     "WHERE excluded.trusted >= trace_data.trusted OR excluded.format <> trace_data.format",
	                     6, NULL, p, lens, fmts, 0);
	int rc = res && PQresultStatus(res) == PGRES_COMMAND_OK ? 0 : tg_store__pg_result_err(b, res, "put run data");
	PQclear(res);
	return rc;
}

int tg_store__pg_data_put(tg_store *s, const char *digest, int format, uint64_t json_bytes, int trusted,
                          const void *data, size_t len, int64_t now)
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
		int rc = tg_store__pg_result_err(b, res, "get run data");
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

int tg_store__pg_data_get(tg_store *s, const char *digest, int format, int trusted, void **data, size_t *len)
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
	PGresult *res = tg_store__pg_run(b, "put run traces", "SELECT 1 FROM runs WHERE id = $1::bigint FOR UPDATE", 1,
	                                 p1, &rc);
	if (!res)
		goto fail;
	int found = PQntuples(res) == 1;
	PQclear(res);
	if (!found) {
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
		goto fail;
	}
	if ((rc = tg_store__pg_cmd(b, "put run traces", "DELETE FROM run_traces WHERE run = $1::bigint", 1, p1)))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		char idx[24], jb[24];
		fmt_i64(idx, sizeof(idx), (int64_t)i);
		fmt_i64(jb, sizeof(jb), (int64_t)t[i].json_bytes);
		const char *p[] = {ids, idx, t[i].digest, jb};
		if ((rc = tg_store__pg_cmd(
			     b, "put run traces",
			     "INSERT INTO run_traces (run, idx, digest, json_bytes) VALUES ($1::bigint, $2::integer, $3, "
			     "$4::bigint)",
			     4, p)))
			goto fail;
	}
	if ((rc = tg_store__pg_commit(&b->base)))
		goto fail;
	return 0;
fail:
	tg_store__pg_rollback(&b->base);
	return rc;
}

int tg_store__pg_run_traces_put(tg_store *s, int64_t id, const tg_run_trace *t, size_t n)
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
	PGresult *res = tg_store__pg_run(
		b, "get run traces", "SELECT digest, json_bytes FROM run_traces WHERE run = $1::bigint ORDER BY idx", 1,
		p, &rc);
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

int tg_store__pg_run_traces_get(tg_store *s, int64_t id, tg_run_trace **out, size_t *n)
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
	int rc = tg_store__pg_update(
		b, "put outcome",
		"UPDATE runs SET outcome = $1, comment = $2, updated_at = $3::bigint WHERE id = $4::bigint", 4, p,
		&changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

int tg_store__pg_outcome_put(tg_store *s, int64_t id, const char *outcome, const char *comment, int64_t now)
{
	PG_RETRY(pgs(s), outcome_put_once(pgs(s), id, outcome, comment, now));
}

static int outcome_get_once(pg_store *b, int64_t id, char **outcome, char **comment)
{
	char ids[24];
	fmt_i64(ids, sizeof(ids), id);
	const char *p[] = {ids};
	int rc;
	PGresult *res = tg_store__pg_run(b, "get outcome", "SELECT outcome, comment FROM runs WHERE id = $1::bigint", 1,
	                                 p, &rc);
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

int tg_store__pg_outcome_get(tg_store *s, int64_t id, char **outcome, char **comment)
{
	PG_RETRY(pgs(s), outcome_get_once(pgs(s), id, outcome, comment));
}

static int prune_data_once(pg_store *b, int64_t before)
{
	char t[24];
	fmt_i64(t, sizeof(t), before);
	const char *p[] = {t};
	int64_t changed = 0;
	return tg_store__pg_update(b, "prune run data",
	                           "DELETE FROM trace_data WHERE created_at < $1::bigint AND NOT EXISTS "
	                           "(SELECT 1 FROM run_traces t WHERE t.digest = trace_data.digest)",
	                           1, p, &changed);
}

int tg_store__pg_prune_data(tg_store *s, int64_t before)
{
	PG_RETRY(pgs(s), prune_data_once(pgs(s), before));
}
