/*
 * store_sqlite_impl.h - private to the SQLite store's files
 * (store_sqlite*.c): the statements' numbers, the store's struct, the
 * helpers of store_sqlite_conn.c, and the operations that store_sqlite.c
 * puts in its table. Nothing outside daemon/store/ includes it.
 */
#ifndef TG_STORE_SQLITE_IMPL_H
#define TG_STORE_SQLITE_IMPL_H

#include "store_impl.h"

#include <sqlite3.h>
#include <stdint.h>

/* The cached statements; their text is store_sqlite_conn.c's. */
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

typedef struct sq_store {
	tg_store base;
	sqlite3 *db;
	sqlite3_stmt *stmt[SQ_NSTMT];
} sq_store;

static inline sq_store *sq(tg_store *s)
{
	return (sq_store *)s;
}

/* The text of each cached statement, by its number. */
extern const char *const tg_store__sq_sql[SQ_NSTMT];

/* Sets the message of the connection's last error: TG_EIO for the
 * database's own faults (full disk, read-only file, I/O, lock timeout),
 * TG_ENOMEM for memory, TG_EINVAL for a refused value. Returns the code. */
int tg_store__sq_err(sq_store *b, const char *what);

/* The cached statement which, reset, or NULL with the error set. */
sqlite3_stmt *tg_store__sq_stmt(sq_store *b, int which);

/* Ends the use of a cached statement: reset, bindings cleared. */
void tg_store__sq_done(sqlite3_stmt *st);

/* One step: 1 a row, 0 done, or a negative code with the error set (the
 * statement is then reset, which keeps the connection usable). */
int tg_store__sq_step(sq_store *b, sqlite3_stmt *st, const char *what);

/* Runs sql (no parameters) on the connection. */
int tg_store__sq_exec(sq_store *b, const char *sql, const char *what);

/* Rolls back the open transaction, if any. */
void tg_store__sq_rollback(tg_store *s);

/* Commits; on failure rolls back and returns the error. */
int tg_store__sq_commit(tg_store *s);

/* The job of the statement's current row (TG_STORE_JOB_NCOLS columns). */
int tg_store__sq_job_row(sqlite3_stmt *st, tg_job *out);

/* Runs a cached UPDATE already bound; *changed: rows it changed. */
int tg_store__sq_update(sq_store *b, sqlite3_stmt *st, const char *what, int *changed);

/* Every row of the bound statement st as a job, appended to *out (*n of
 * them); on an error none (*out freed). what names the step in messages. */
int tg_store__sq_jobs_collect(sq_store *b, sqlite3_stmt *st, const char *what, tg_job **out, size_t *n);

/* 0 when run id exists, TG_ENOTFOUND when not (in a transaction: the
 * writes that follow are about that run). */
int tg_store__sq_run_exists(sq_store *b, int64_t id, const char *what);

static inline void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static inline int sq_begin(sq_store *b)
{
	return tg_store__sq_exec(b, "BEGIN IMMEDIATE", "begin");
}

/* The operations of the store's table (tg_store_ops in store_impl.h says
 * what each does): store_sqlite_jobs.c, store_sqlite_runs.c,
 * store_sqlite_data.c. */
int tg_store__sq_job_add(tg_store *s, const tg_job *j, int64_t now, int64_t *id, int *created);
int tg_store__sq_job_get(tg_store *s, int64_t id, const char *key, tg_job *out);
int tg_store__sq_job_claim(tg_store *s, const char *owner, int64_t now, int64_t until, int64_t want, tg_job *out);
int tg_store__sq_job_renew(tg_store *s, int64_t id, const char *owner, int64_t now, int64_t until);
int tg_store__sq_job_release(tg_store *s, int64_t id, const char *owner, int64_t now);
int tg_store__sq_job_advance(tg_store *s, int64_t id, const char *owner, const char *from, const char *to, int release,
                             const char *error, int64_t now);
int tg_store__sq_job_set_result(tg_store *s, int64_t id, const tg_job *j, int64_t now);
int tg_store__sq_jobs_list(tg_store *s, const char *const states[5], tg_job **out, size_t *n);
int tg_store__sq_metrics_put(tg_store *s, int64_t id, const tg_metric *m, size_t n);
int tg_store__sq_find_run(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted_only,
                          tg_job *out);
int tg_store__sq_find_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int64_t limit,
                           int trusted_only, tg_job **out, size_t *n);
int tg_store__sq_history(tg_store *s, int prs, const char *repo, const char *branch, const char *workload,
                         const char *metric, const char *prefix, int64_t limit, tg_history_point **out, size_t *n);
int tg_store__sq_prune(tg_store *s, int64_t before, int64_t *deleted);
int tg_store__sq_leases(tg_store *s, int64_t now, tg_lease **out, size_t *n);
int tg_store__sq_lease_expire(tg_store *s, int64_t id, const char *owner, int64_t now);
int tg_store__sq_count_jobs(tg_store *s, tg_store_counts *out);
int tg_store__sq_branches(tg_store *s, const char *repo, tg_store_branch **out, size_t *n);
int tg_store__sq_job_set_tampered(tg_store *s, int64_t id, const char *why);
int tg_store__sq_job_rejudge(tg_store *s, int64_t id, int64_t now);
int tg_store__sq_count_runs(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted,
                            tg_run_counts *out);
int tg_store__sq_find_pool(tg_store *s, const char *repo, const char *commit, const char *workload,
                           const tg_pool_filter *f, int64_t limit, tg_job **out, size_t *n);
int tg_store__sq_pr_runs(tg_store *s, int64_t since, int64_t limit, tg_job **out, size_t *n);
int tg_store__sq_tampered(tg_store *s, const char *repo, const char *branch, tg_job **out, size_t *n);
int tg_store__sq_data_put(tg_store *s, const char *digest, int format, uint64_t json_bytes, int trusted,
                          const void *data, size_t len, int64_t now);
int tg_store__sq_data_get(tg_store *s, const char *digest, int format, int trusted, void **data, size_t *len);
int tg_store__sq_run_traces_put(tg_store *s, int64_t id, const tg_run_trace *t, size_t n);
int tg_store__sq_run_traces_get(tg_store *s, int64_t id, tg_run_trace **out, size_t *n);
int tg_store__sq_outcome_put(tg_store *s, int64_t id, const char *outcome, const char *comment, int64_t now);
int tg_store__sq_outcome_get(tg_store *s, int64_t id, char **outcome, char **comment);
int tg_store__sq_prune_data(tg_store *s, int64_t before);

#endif
