/*
 * store_sqlite_data.c - what a run keeps beside its row on SQLite: the
 * content-addressed run data (trusted or not), the traces of a run, the
 * outcome and comment posted, and pruning the data no run names.
 */
#include "store_sqlite_impl.h"
#include "../../util/tg.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- run data */

int tg_store__sq_data_put(tg_store *s, const char *digest, int format, uint64_t json_bytes, int trusted,
                          const void *data, size_t len, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_DATA_PUT);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, digest);
	sqlite3_bind_int(st, 2, format);
	sqlite3_bind_int64(st, 3, (int64_t)json_bytes);
	sqlite3_bind_blob64(st, 4, data, (sqlite3_uint64)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, now);
	sqlite3_bind_int(st, 6, trusted);
	int rc = tg_store__sq_step(b, st, "put run data");
	tg_store__sq_done(st);
	return rc < 0 ? rc : 0;
}

int tg_store__sq_data_get(tg_store *s, const char *digest, int format, int trusted, void **data, size_t *len)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_DATA_GET);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, digest);
	sqlite3_bind_int(st, 2, format);
	sqlite3_bind_int(st, 3, trusted);
	int rc = tg_store__sq_step(b, st, "get run data");
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
	tg_store__sq_done(st);
	return rc;
}

int tg_store__sq_run_traces_put(tg_store *s, int64_t id, const tg_run_trace *t, size_t n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = NULL;
	int rc = sq_begin(b);
	if (rc)
		return rc;
	if ((rc = tg_store__sq_run_exists(b, id, "put run traces")))
		goto fail;
	if (!(st = tg_store__sq_stmt(b, SQ_RUN_TRACES_DELETE))) {
		rc = TG_EIO;
		goto fail;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((rc = tg_store__sq_step(b, st, "put run traces")) < 0)
		goto fail;
	tg_store__sq_done(st);
	if (!(st = tg_store__sq_stmt(b, SQ_RUN_TRACE_PUT))) {
		rc = TG_EIO;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		bind_text(st, 3, t[i].digest);
		sqlite3_bind_int64(st, 4, (int64_t)t[i].json_bytes);
		if ((rc = tg_store__sq_step(b, st, "put run traces")) < 0)
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

int tg_store__sq_run_traces_get(tg_store *s, int64_t id, tg_run_trace **out, size_t *n)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_RUN_TRACES_GET);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, id);
	size_t cap = 0;
	int rc;
	while ((rc = tg_store__sq_step(b, st, "get run traces")) == 1) {
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
	tg_store__sq_done(st);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}

int tg_store__sq_outcome_put(tg_store *s, int64_t id, const char *outcome, const char *comment, int64_t now)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_OUTCOME_PUT);
	if (!st)
		return TG_EIO;
	bind_text(st, 1, outcome);
	bind_text(st, 2, comment);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, id);
	int changed = 0, rc = tg_store__sq_update(b, st, "put outcome", &changed);
	if (!rc && !changed)
		rc = tg_error_set(TG_ENOTFOUND, "store: no job %lld", (long long)id);
	return rc;
}

int tg_store__sq_outcome_get(tg_store *s, int64_t id, char **outcome, char **comment)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_OUTCOME_GET);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, id);
	int rc = tg_store__sq_step(b, st, "get outcome");
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
	tg_store__sq_done(st);
	return rc;
}

int tg_store__sq_prune_data(tg_store *s, int64_t before)
{
	sq_store *b = sq(s);
	sqlite3_stmt *st = tg_store__sq_stmt(b, SQ_DATA_PRUNE);
	if (!st)
		return TG_EIO;
	sqlite3_bind_int64(st, 1, before);
	int changed = 0;
	return tg_store__sq_update(b, st, "prune run data", &changed);
}
