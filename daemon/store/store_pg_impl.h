/*
 * store_pg_impl.h - private to the PostgreSQL store's files (store_pg*.c):
 * the store's struct, the statement helpers of store_pg_conn.c, PG_RETRY,
 * and the operations that store_pg.c puts in its table. Nothing outside
 * daemon/store/ includes it.
 */
#ifndef TG_STORE_PG_IMPL_H
#define TG_STORE_PG_IMPL_H

#include "store_impl.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>

#define UNFINISHED "('seen', 'analysing', 'posting')"

typedef struct pg_store {
	tg_store base;
	PGconn *conn;
	char *password; /* to mask in messages; NULL when the url has none */
} pg_store;

static inline pg_store *pgs(tg_store *s)
{
	return (pg_store *)s;
}

/* Sets code's message "store <describe>: what: msg" on one line, the
 * password masked; returns code. */
int tg_store__pg_fail(pg_store *b, int code, const char *what, const char *msg);

/* Sets the error of a failed result (NULL: the connection's) and returns
 * TG_EINVAL for a value the schema refused, TG_EIO for everything else. */
int tg_store__pg_result_err(pg_store *b, PGresult *res, const char *what);

/* Runs sql with n text parameters (NULL: SQL NULL). Returns the result
 * (the caller PQclears it), or NULL with *rc set. */
PGresult *tg_store__pg_run(pg_store *b, const char *what, const char *sql, int n, const char *const *params, int *rc);

/* Runs sql and keeps only its success. */
int tg_store__pg_cmd(pg_store *b, const char *what, const char *sql, int n, const char *const *params);

/* Runs an UPDATE or DELETE; *changed: rows it touched. */
int tg_store__pg_update(pg_store *b, const char *what, const char *sql, int n, const char *const *params,
                        int64_t *changed);

/* Rolls back the open transaction, if any (a lost connection has none). */
void tg_store__pg_rollback(tg_store *s);

/* Commits; on failure rolls back and returns the error. */
int tg_store__pg_commit(tg_store *s);

/* After an operation failed with rc: 1 when the connection was lost and
 * PQreset brought it back (run the operation again), else 0 (when the
 * reset failed, the message says so). */
int tg_store__pg_again(pg_store *b, int rc);

/* Takes the job rows of res into *out (*n of them; tg_store_jobs_free) and
 * clears res; on an error *out is NULL and *n 0. */
int tg_store__pg_jobs_from_res(PGresult *res, tg_job **out, size_t *n);

static inline int pg_begin(pg_store *b)
{
	return tg_store__pg_cmd(b, "begin", "BEGIN", 0, NULL);
}

/* Runs the operation call once more when the first run lost the connection. */
#define PG_RETRY(b, call)                         \
	do {                                      \
		int rc_ = (call);                 \
		if (tg_store__pg_again((b), rc_)) \
			rc_ = (call);             \
		return rc_;                       \
	} while (0)

static inline void fmt_i64(char *buf, size_t size, int64_t v)
{
	snprintf(buf, size, "%" PRId64, v);
}

static inline void row_values(PGresult *res, int row, int ncols, const char **v)
{
	for (int i = 0; i < ncols; i++)
		v[i] = PQgetisnull(res, row, i) ? NULL : PQgetvalue(res, row, i);
}

static inline int job_from_res(PGresult *res, int row, tg_job *out)
{
	const char *v[TG_STORE_JOB_NCOLS];
	row_values(res, row, TG_STORE_JOB_NCOLS, v);
	return tg_store__job_from_row(out, v);
}

/* The operations of the store's table (tg_store_ops in store_impl.h says
 * what each does): store_pg_jobs.c, store_pg_runs.c, store_pg_data.c. */
int tg_store__pg_job_add(tg_store *s, const tg_job *j, int64_t now, int64_t *id, int *created);
int tg_store__pg_job_get(tg_store *s, int64_t id, const char *key, tg_job *out);
int tg_store__pg_job_claim(tg_store *s, const char *owner, int64_t now, int64_t until, int64_t want, tg_job *out);
int tg_store__pg_job_renew(tg_store *s, int64_t id, const char *owner, int64_t now, int64_t until);
int tg_store__pg_job_release(tg_store *s, int64_t id, const char *owner, int64_t now);
int tg_store__pg_job_advance(tg_store *s, int64_t id, const char *owner, const char *from, const char *to, int release,
                             const char *error, int64_t now);
int tg_store__pg_job_set_result(tg_store *s, int64_t id, const tg_job *j, int64_t now);
int tg_store__pg_jobs_list(tg_store *s, const char *const states[5], tg_job **out, size_t *n);
int tg_store__pg_metrics_put(tg_store *s, int64_t id, const tg_metric *m, size_t n);
int tg_store__pg_find_run(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted_only,
                          tg_job *out);
int tg_store__pg_find_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int64_t limit,
                           int trusted_only, tg_job **out, size_t *n);
int tg_store__pg_history(tg_store *s, int prs, const char *repo, const char *branch, const char *workload,
                         const char *metric, const char *prefix, int64_t limit, tg_history_point **out, size_t *n);
int tg_store__pg_prune(tg_store *s, int64_t before, int64_t *deleted);
int tg_store__pg_leases(tg_store *s, int64_t now, tg_lease **out, size_t *n);
int tg_store__pg_lease_expire(tg_store *s, int64_t id, const char *owner, int64_t now);
int tg_store__pg_count_jobs(tg_store *s, tg_store_counts *out);
int tg_store__pg_branches(tg_store *s, const char *repo, tg_store_branch **out, size_t *n);
int tg_store__pg_job_set_tampered(tg_store *s, int64_t id, const char *why);
int tg_store__pg_job_rejudge(tg_store *s, int64_t id, int64_t now);
int tg_store__pg_count_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted,
                            tg_run_counts *out);
int tg_store__pg_find_pool(tg_store *s, const char *repo, const char *commit, const char *workload,
                           const tg_pool_filter *f, int64_t limit, tg_job **out, size_t *n);
int tg_store__pg_pr_runs(tg_store *s, int64_t since, int64_t limit, tg_job **out, size_t *n);
int tg_store__pg_tampered(tg_store *s, const char *repo, const char *branch, tg_job **out, size_t *n);
int tg_store__pg_data_put(tg_store *s, const char *digest, int format, uint64_t json_bytes, int trusted,
                          const void *data, size_t len, int64_t now);
int tg_store__pg_data_get(tg_store *s, const char *digest, int format, int trusted, void **data, size_t *len);
int tg_store__pg_run_traces_put(tg_store *s, int64_t id, const tg_run_trace *t, size_t n);
int tg_store__pg_run_traces_get(tg_store *s, int64_t id, tg_run_trace **out, size_t *n);
int tg_store__pg_outcome_put(tg_store *s, int64_t id, const char *outcome, const char *comment, int64_t now);
int tg_store__pg_outcome_get(tg_store *s, int64_t id, char **outcome, char **comment);
int tg_store__pg_prune_data(tg_store *s, int64_t before);

#endif
