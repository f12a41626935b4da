/*
 * store_impl.h - what a store backend (store_sqlite.c, store_pg.c)
 * implements, the migrations they share (store_schema.c), and two hooks
 * for tests. Only store*.c and tests/test_store.c include this.
 *
 * store.c checks arguments, clears out-parameters and moves the state
 * machine's rules; a backend only runs SQL. Every backend op returns 0 or a
 * negative TG_E* code with its message set.
 */
#ifndef TG_STORE_IMPL_H
#define TG_STORE_IMPL_H

#include "store.h"

/* The columns of runs that make a tg_job, in the order of
 * tg_store__job_from_row(). Both backends select exactly these. */
#define TG_STORE_JOB_COLS                                                                              \
	"id, key, prefix, repo, commit_sha, branch, target_branch, pr, workload, run_id, manifest, state, " \
	"attempts, error, verdict, summary, baseline_commit, baseline_distance, comment_id, created_at, "   \
	"updated_at, run_time, trusted, tampered, origin, origin_ok, judged_target, judged_merge_base, posted_ms"
#define TG_STORE_JOB_NCOLS 29
/* The same columns with the manifest's text left out (NULL): for listings
 * of many runs that do not read it, which an uploader's 1 MiB manifests
 * would otherwise fill memory with. */
#define TG_STORE_JOB_COLS_BRIEF                                                                                   \
	"id, key, prefix, repo, commit_sha, branch, target_branch, pr, workload, run_id, NULL AS manifest, state, "  \
	"attempts, error, verdict, summary, baseline_commit, baseline_distance, comment_id, created_at, "            \
	"updated_at, run_time, trusted, tampered, origin, origin_ok, judged_target, judged_merge_base, posted_ms"

/* The columns of a history row: run id, run_time, commit, workload, metric,
 * value, pull request. */
#define TG_STORE_HISTORY_NCOLS 7
#define TG_STORE_HISTORY_VALUE 5

/* The columns of a branch row (tg_store_branches): branch, workload, done
 * runs, and the latest run's id, commit, run_time, verdict, pull request. */
#define TG_STORE_BRANCH_NCOLS 8

/* One schema migration, in both dialects. The list starts at version 1 and
 * has no gap; a version, once released, never changes. */
typedef struct tg_store_migration {
	int version;
	const char *what;   /* one line, stored in schema_version */
	const char *sqlite; /* one script (several statements, no values) */
	const char *pg;
} tg_store_migration;

extern const tg_store_migration tg_store_migrations[];
extern const size_t tg_store_migrations_n;

typedef struct tg_store_ops {
	const char *backend; /* "sqlite", "postgresql" */
	void (*close)(tg_store *s);

	/* Schema: a write transaction that serialises migrating daemons; the
	 * version (creating schema_version when missing: 0); running a
	 * script; recording a version. version_peek reads without a write
	 * lock (-1: no schema_version table yet). */
	int (*version_peek)(tg_store *s, int *version);
	int (*tx_begin_schema)(tg_store *s);
	int (*tx_commit)(tg_store *s);
	void (*tx_rollback)(tg_store *s);
	int (*version_get)(tg_store *s, int *version);
	int (*version_set)(tg_store *s, const tg_store_migration *m, int64_t now);
	int (*exec_script)(tg_store *s, const char *sql);

	/* The operations of store.h, arguments checked, outputs cleared. */
	int (*job_add)(tg_store *s, const tg_job *j, int64_t now, int64_t *id, int *created);
	int (*job_get)(tg_store *s, int64_t id, const char *key, tg_job *out);
	/* want: 0 for the first claimable job, else only job want */
	int (*job_claim)(tg_store *s, const char *owner, int64_t now, int64_t until, int64_t want, tg_job *out);
	int (*job_renew)(tg_store *s, int64_t id, const char *owner, int64_t now, int64_t until);
	int (*job_release)(tg_store *s, int64_t id, const char *owner, int64_t now);
	int (*job_advance)(tg_store *s, int64_t id, const char *owner, const char *from, const char *to,
	                   int release, const char *error, int64_t now);
	int (*job_set_result)(tg_store *s, int64_t id, const tg_job *j, int64_t now);
	int (*jobs_list)(tg_store *s, const char *const states[5], tg_job **out, size_t *n);
	int (*metrics_put)(tg_store *s, int64_t id, const tg_metric *m, size_t n);
	int (*find_run)(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted_only,
	                tg_job *out);
	int (*find_runs)(tg_store *s, const char *repo, const char *commit, const char *workload, int64_t limit,
	                 int trusted_only, tg_job **out, size_t *n);
	/* prs: 0 the runs of branch (tg_store_history), 1 the pull requests'
	 * runs into it (tg_store_history_prs) */
	int (*history)(tg_store *s, int prs, const char *repo, const char *branch, const char *workload,
	               const char *metric, const char *prefix, int64_t limit, tg_history_point **out, size_t *n);
	int (*prune)(tg_store *s, int64_t before, int64_t *deleted);
	int (*count_jobs)(tg_store *s, tg_store_counts *out);
	int (*branches)(tg_store *s, const char *repo, tg_store_branch **out, size_t *n);
	int (*leases)(tg_store *s, int64_t now, tg_lease **out, size_t *n);
	int (*lease_expire)(tg_store *s, int64_t id, const char *owner, int64_t now);

	/* Failing closed (issue 21; store.h): marking a run tampered, judging
	 * a done run again, the counts the admission limits read, a side's
	 * pool, the pull requests' runs to look at again, a branch's tampered
	 * runs. */
	int (*job_set_tampered)(tg_store *s, int64_t id, const char *why);
	int (*job_rejudge)(tg_store *s, int64_t id, int64_t now);
	int (*count_runs)(tg_store *s, const char *repo, const char *commit, const char *workload, int trusted,
	                  tg_run_counts *out);
	int (*find_pool)(tg_store *s, const char *repo, const char *commit, const char *workload,
	                 const tg_pool_filter *f, int64_t limit, tg_job **out, size_t *n);
	int (*pr_runs)(tg_store *s, int64_t since, int64_t limit, tg_job **out, size_t *n);
	int (*tampered)(tg_store *s, const char *repo, const char *branch, tg_job **out, size_t *n);

	/* Run data and outcomes (store.h, "run data"); prune_data: the run
	 * data older than before that no run names. */
	int (*data_put)(tg_store *s, const char *digest, int format, uint64_t json_bytes, int trusted, const void *data,
	                size_t len, int64_t now);
	int (*data_get)(tg_store *s, const char *digest, int format, int trusted, void **data, size_t *len);
	int (*run_traces_put)(tg_store *s, int64_t id, const tg_run_trace *t, size_t n);
	int (*run_traces_get)(tg_store *s, int64_t id, tg_run_trace **out, size_t *n);
	int (*outcome_put)(tg_store *s, int64_t id, const char *outcome, const char *comment, int64_t now);
	int (*outcome_get)(tg_store *s, int64_t id, char **outcome, char **comment);
	int (*prune_data)(tg_store *s, int64_t before);
} tg_store_ops;

/* Every backend's struct starts with this. */
struct tg_store {
	const tg_store_ops *ops;
	char describe[512]; /* "sqlite:/var/lib/tracegate/store.db", "postgresql://db1:5432/tg": no secret */
	int64_t fixed_now;  /* 0: time(NULL) (tg_store_debug_set_time) */
	int trusted_only;   /* baselines and history from trusted runs only (tg_store_set_trusted_only) */
};

int tg_store__sqlite_open(tg_store **out, const char *path);
int tg_store__pg_open(tg_store **out, const char *conninfo);

/* How many job states there are (tg_job_state runs 0..TG_JOB_FAILED). */
#define TG_STORE_NSTATES (TG_JOB_FAILED + 1)

/* Fills out from one row of TG_STORE_JOB_COLS given as text (NULL: SQL
 * NULL). TG_EFORMAT on a value this code does not know (a state). */
int tg_store__job_from_row(tg_job *out, const char *const *v);

/* Fills p from one history row given as text. */
int tg_store__history_from_row(tg_history_point *p, const char *const *v);

/* Fills b from one branch row (TG_STORE_BRANCH_NCOLS columns) given as text. */
int tg_store__branch_from_row(tg_store_branch *b, const char *const *v);

/* Adds one row of the count of jobs by state (state name, count, oldest
 * created_at as text) to *out; a state this code does not know is
 * TG_EFORMAT. */
int tg_store__counts_add_row(tg_store_counts *out, const char *const *v);

/* Appends one element of item_size bytes to *items (*n of them, *cap
 * capacity), zeroed; returns it, or NULL (TG_ENOMEM). */
void *tg_store__push(void **items, size_t *n, size_t *cap, size_t item_size);

/* Tests only. Runs sql (no parameters, no result) on the store's own
 * connection: per-connection settings that simulate a fault, such as
 * "PRAGMA max_page_count" or "SET default_transaction_read_only". */
int tg_store_debug_exec(tg_store *s, const char *sql);

/* Tests only. Makes the store's clock read now (Unix seconds) instead of
 * time(NULL); 0 goes back to the real clock. Leases expire by this clock. */
void tg_store_debug_set_time(tg_store *s, int64_t now);

#endif
