/*
 * store.h - the daemon's job store and performance history: SQLite (WAL
 * mode, the embedded default) or PostgreSQL (several daemons sharing one
 * database), behind one interface.
 *
 *   runs      one row per run found in storage, keyed by what makes it
 *             one run (the daemon's key: repository, lower-case commit,
 *             workload, run id and, when signed, the signature): the same
 *             run seen twice, or rewritten, is one job. A job moves
 *                 seen -> analysing -> posting -> done
 *                       \___________\__________\-> failed
 *             and each step is a compare-and-set, so a restarted daemon (or
 *             a second one on PostgreSQL) resumes unfinished jobs without
 *             doing a step twice. A claim is a lease: a job whose lease has
 *             expired (its daemon died) can be claimed again.
 *   metrics   the numbers of each analysed run (busy time per step, SDPA
 *             kernel time, ...), for the history of a branch and for the
 *             comment's charts.
 *
 * The schema is created and migrated on open (a schema_version table; each
 * migration in one transaction). Every function returns 0 or a negative
 * TG_E* code with a one-line message; a full disk or a lost connection is
 * TG_EIO and leaves the store usable once the cause is gone.
 */
#ifndef TG_STORE_H
#define TG_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_store tg_store;

/* Opens (creating and migrating) the store at url:
 *   "sqlite:PATH" or a plain PATH    SQLite, WAL mode, busy timeout 10 s
 *   "postgresql://..." / "postgres://..." / "host=... dbname=..."   PostgreSQL (libpq)
 * The url may hold a password: it never appears in messages. */
int tg_store_open(tg_store **out, const char *url);

void tg_store_close(tg_store *s);

/* "sqlite" or "postgresql". */
const char *tg_store_backend(const tg_store *s);

typedef enum tg_job_state {
	TG_JOB_SEEN = 0,
	TG_JOB_ANALYSING,
	TG_JOB_POSTING,
	TG_JOB_DONE,
	TG_JOB_FAILED
} tg_job_state;

const char *tg_job_state_name(tg_job_state s); /* "seen", "analysing", ... */

/* One run and its job. Strings are owned by the struct (tg_job_clear). */
typedef struct tg_job {
	int64_t id;
	char key[65];          /* content key, 64 hex */
	char *prefix;          /* storage folder of the run ("acme/llm/<sha>/train/ci-1") */
	char *repo;            /* "acme/llm" */
	char *commit;          /* 40 hex */
	char *branch;
	char *target_branch;   /* may be NULL (a branch build, not a pull request) */
	int64_t pr;            /* pull request number, 0 when none */
	char *workload;
	char *run_id;
	char *manifest;        /* the manifest's JSON text */
	tg_job_state state;
	int attempts;          /* claims so far */
	char *error;           /* last error, NULL when none */
	char *verdict;         /* "pass", "warn", "block", "inconclusive", "error"; NULL before */
	char *summary;         /* the one-line verdict */
	char *baseline_commit; /* NULL when none was found */
	int baseline_distance; /* first-parent steps from the merge-base; -1 when none */
	int64_t comment_id;    /* the forge comment, 0 before */
	int64_t created_at, updated_at; /* Unix seconds */
	int64_t run_time;      /* when the run happened (manifest, else first seen), Unix seconds */
	int trusted;           /* signed with the configured key on a target branch (docs/security.md) */
	char *tampered;        /* why its files no longer match what was judged (a baseline whose trace
	                          fails its sha256 or is gone), NULL when they do */
	char *origin;          /* the CI run (GitHub Actions run, GitLab pipeline) its manifest names, NULL */
	int origin_ok;         /* the forge confirmed that origin ran for its pull request's head */
	char *judged_target;   /* the target branch its verdict was judged against (the forge's word), NULL */
	char *judged_merge_base; /* the merge-base its baseline search started from, NULL */
	int64_t posted_ms;     /* when its verdict was last posted (Unix milliseconds), 0: never */
} tg_job;

void tg_job_clear(tg_job *j);

/* Adds the run j describes (state seen) unless a run with the same key
 * exists. *id: the run's id either way; *created: 1 when added. Fields of j
 * used: key, prefix, repo, commit, branch, target_branch, pr, workload,
 * run_id, manifest, run_time, trusted, origin. */
int tg_store_job_add(int64_t *id, int *created, tg_store *s, const tg_job *j);

/* The run with id; TG_ENOTFOUND when none. *out is cleared first. */
int tg_store_job_get(tg_job *out, tg_store *s, int64_t id);

/* The run with content key; TG_ENOTFOUND when none. */
int tg_store_job_get_by_key(tg_job *out, tg_store *s, const char *key);

/* Claims the unfinished job (seen, analysing or posting) that ran first
 * (run_time, so that a baseline run is judged before the pull-request
 * runs that compare with it) and that no
 * live lease holds: sets its lease to owner until now + lease_s and counts
 * an attempt. *out is the job; TG_ENOTFOUND when there is none. Safe
 * between several daemons on PostgreSQL (SELECT ... FOR UPDATE SKIP
 * LOCKED) and between processes on SQLite (BEGIN IMMEDIATE). */
int tg_store_job_claim(tg_job *out, tg_store *s, const char *owner, int lease_s);

/* Claims job id as tg_store_job_claim would (it must be unfinished and
 * its lease free or expired): for a job that another one waits for.
 * TG_ENOTFOUND when it cannot be claimed. */
int tg_store_job_claim_id(tg_job *out, tg_store *s, int64_t id, const char *owner, int lease_s);

/* Extends the lease of job id held by owner; TG_ENOTFOUND when owner no
 * longer holds it. */
int tg_store_job_renew(tg_store *s, int64_t id, const char *owner, int lease_s);

/* Gives job id back without moving it (it waits for another job): the
 * lease is cleared, so that it can be claimed again at once, and the
 * claim is not counted as an attempt. TG_ENOTFOUND when owner no longer
 * holds it. */
int tg_store_job_release(tg_store *s, int64_t id, const char *owner);

/* Moves job id from state `from` to `to` when it is still in `from` and
 * owner holds its lease; error (may be NULL) is recorded (failed).
 * TG_ENOTFOUND when the job is not in `from` or the lease is lost: the
 * caller must stop working on it. Moving to done or failed releases the
 * lease. */
int tg_store_job_advance(tg_store *s, int64_t id, const char *owner, tg_job_state from, tg_job_state to,
                         const char *error);

/* Records the verdict of job id (any state): verdict, summary,
 * baseline_commit, baseline_distance, comment_id, origin_ok,
 * judged_target, judged_merge_base and posted_ms of j. */
int tg_store_job_set_result(tg_store *s, int64_t id, const tg_job *j);

/* Jobs in any of the given states, oldest first; *out is an array of *n
 * (tg_store_jobs_free). states: a bit mask of 1 << tg_job_state. */
int tg_store_jobs_list(tg_job **out, size_t *n, tg_store *s, unsigned states);

void tg_store_jobs_free(tg_job *j, size_t n);

/* One number of an analysed run. */
typedef struct tg_metric {
	const char *name;  /* "gpu_busy_ms", "kernel_time_ms:SDPA_fwd", ... */
	double value;
} tg_metric;

/* Replaces the metrics of run id with the n given (one transaction). */
int tg_store_metrics_put(tg_store *s, int64_t id, const tg_metric *m, size_t n);

/* With on, tg_store_history, tg_store_history_prs, tg_store_branches and
 * tg_store_tampered see trusted runs only (a signing key is configured:
 * docs/security.md); off by default. The baseline lookups
 * (tg_store_find_run, tg_store_find_runs) take it as their argument
 * instead and never read this. */
void tg_store_set_trusted_only(tg_store *s, int on);

/* 1 when s sees trusted runs only (tg_store_set_trusted_only). */
int tg_store_trusted_only(const tg_store *s);

/* The latest done run (by run_time) of repo at commit for workload whose
 * verdict is not "error" (and, with trusted_only, trusted): the baseline
 * candidate. TG_ENOTFOUND when none. */
int tg_store_find_run(tg_job *out, tg_store *s, const char *repo, const char *commit, const char *workload,
                      int trusted_only);

/* A lease held on an unfinished job. */
typedef struct tg_lease {
	int64_t id;       /* the job */
	char owner[192];  /* "host:pid:start" (daemon.c), truncated if longer */
	int64_t until;    /* Unix seconds */
} tg_lease;

/* The unexpired leases on unfinished jobs, by job id. *out is an array of
 * *n the caller frees (free). */
int tg_store_leases(tg_lease **out, size_t *n, tg_store *s);

/* Ends owner's lease on job id now (it becomes claimable at once), keeping
 * its attempts: for a lease whose holder is known to be dead. TG_ENOTFOUND
 * when owner holds no lease on it. */
int tg_store_lease_expire(tg_store *s, int64_t id, const char *owner);

/* Every done run of repo at commit for workload whose verdict is not
 * "error" (and, with trusted_only, trusted), the latest first, at most
 * limit (> 0) of them: the runs a side pools (several runs of one
 * commit). *out is an array of *n (tg_store_jobs_free); none is not an
 * error. */
int tg_store_find_runs(tg_job **out, size_t *n, tg_store *s, const char *repo, const char *commit, const char *workload,
                       size_t limit, int trusted_only);

/* One point of a history series. */
typedef struct tg_history_point {
	int64_t run;       /* run id */
	int64_t run_time;  /* Unix seconds */
	char commit[41];
	char *workload;
	char *metric;
	double value;
	int64_t pr;        /* the run's pull request (tg_store_history_prs), 0 when none */
} tg_history_point;

/* The history of repo on branch: every metric point of done (and, see
 * tg_store_set_trusted_only, trusted) runs, oldest
 * first; workload and metric (each NULL: all; metric may end in '*' for a
 * prefix) filter; limit: at most that many latest runs per series (0: all).
 * *out is an array of *n (tg_history_free). */
int tg_store_history(tg_history_point **out, size_t *n, tg_store *s, const char *repo, const char *branch,
                     const char *workload, const char *metric, size_t limit);

/* The runs of pull requests into branch, for marks on its history: every
 * metric point of done runs of repo whose target branch is branch, that
 * name a pull request (pr > 0) and whose own branch is another one (a run
 * of branch itself is in tg_store_history), trusted as tg_store_history's
 * (tg_store_set_trusted_only: with a signing key only signed runs, so an
 * unsigned pull-request upload is not shown). Filters, limit (the latest
 * runs of each series), order and *out as tg_store_history's; each point's
 * pr is its pull request. */
int tg_store_history_prs(tg_history_point **out, size_t *n, tg_store *s, const char *repo, const char *branch,
                         const char *workload, const char *metric, size_t limit);

void tg_history_free(tg_history_point *p, size_t n);

/* The job queue at a glance, for the daemon's metrics: how many jobs are
 * in each state, and when the oldest unfinished one was found. */
typedef struct tg_store_counts {
	int64_t jobs[TG_JOB_FAILED + 1]; /* by tg_job_state */
	int64_t oldest_unfinished;       /* created_at (Unix s) of the oldest seen, analysing or
	                                    posting job; 0 when there is none */
} tg_store_counts;

/* Counts the jobs of every repository by state into *out (every run, trusted
 * or not). */
int tg_store_count_jobs(tg_store_counts *out, tg_store *s);

/* One branch and workload of a repository's history, and its latest run. */
typedef struct tg_store_branch {
	char *branch;
	char *workload;
	int64_t runs;      /* its done runs */
	int64_t run;       /* the latest (by run_time) of them: its id, */
	char commit[41];   /* commit, */
	int64_t run_time;  /* time (Unix s), */
	char *verdict;     /* verdict (NULL when none was recorded) */
	int64_t pr;        /* and pull request (0: none) */
} tg_store_branch;

/* Every branch and workload of repo with a done run (trusted ones only
 * under tg_store_set_trusted_only, as tg_store_history), ordered by branch
 * then workload (byte-wise), each with its latest run: the index of the
 * published history. *out is an array of *n (tg_store_branches_free); none
 * is not an error. */
int tg_store_branches(tg_store_branch **out, size_t *n, tg_store *s, const char *repo);

void tg_store_branches_free(tg_store_branch *b, size_t n);
/* ------------------------------------------------------- failing closed
 * What the daemon needs so that nothing an uploader does can pass a pull
 * request (docs/security.md; issue 21). */

/* Records that run id's files no longer match what was judged (why: one
 * line, e.g. "rank0.pt.trace.json.gz: does not match the sha256 its
 * manifest gives"): it is never a baseline or pooled again, and history
 * lists it (tg_store_tampered). The first reason is kept. TG_ENOTFOUND
 * when there is no run id. */
int tg_store_job_set_tampered(tg_store *s, int64_t id, const char *why);

/* Sends done job id back to seen, to be judged again (its pull request
 * was retargeted, its merge-base moved, or its commit is the head again):
 * attempts and the lease cleared, its comment id kept (the comment is
 * edited). TG_ENOTFOUND when the job is not done. */
int tg_store_job_rejudge(tg_store *s, int64_t id);

/* What an uploader has filled at one commit of a repository, in one trust
 * class (limits.max_workloads, max_runs, max_unsigned_branch_runs count
 * signed and unsigned runs apart: docs/config.md). */
typedef struct tg_run_counts {
	int64_t workloads;         /* distinct workloads with a run of the class */
	int64_t runs;              /* runs of the class of the given workload */
	int64_t unsigned_branch;   /* untrusted runs naming no pull request (any workload) */
} tg_run_counts;

/* The counts at repo's commit for runs of workload whose trusted flag is
 * trusted (0 or 1). */
int tg_store_count_runs(tg_run_counts *out, tg_store *s, const char *repo, const char *commit, const char *workload,
                        int trusted);

/* Which runs of a commit a side may pool. */
typedef struct tg_pool_filter {
	int trusted_only; /* trusted runs only (a signed run's side) */
	int by_origin;    /* 1: only runs whose origin the forge confirmed and equals origin (a pull
	                     request's side); 2: runs of any confirmed origin; 0: any */
	const char *origin; /* with by_origin 1: the origin (NULL: runs that name none) */
} tg_pool_filter;

/* The done runs of repo at commit for workload that a side may pool: not
 * an error, not tampered, as f says, the latest first, at most limit (>
 * 0). *out is an array of *n (tg_store_jobs_free). */
int tg_store_find_pool(tg_job **out, size_t *n, tg_store *s, const char *repo, const char *commit,
                       const char *workload, const tg_pool_filter *f, size_t limit);

/* The done runs that name a pull request and ran at or after since (Unix
 * seconds), the one updated last first, at most limit: the verdicts a
 * retarget or a re-push may have made stale. Without their manifests'
 * text (manifest NULL). */
int tg_store_pr_runs(tg_job **out, size_t *n, tg_store *s, int64_t since, size_t limit);

/* The tampered runs of repo on branch (trusted only under
 * tg_store_set_trusted_only), oldest first, without their manifests' text
 * (manifest NULL). */
int tg_store_tampered(tg_job **out, size_t *n, tg_store *s, const char *repo, const char *branch);

/* Retention: deletes the done and failed runs whose run_time is before
 * `before` (Unix seconds), with their metrics and their traces' list, then
 * the run data (below) older than `before` that no run names any more;
 * unfinished jobs are kept. *deleted (may be NULL): runs deleted. */
int tg_store_prune(size_t *deleted, tg_store *s, int64_t before);

/* ------------------------------------------------------------ run data
 *
 * A trace's run data (core/diff/rundata.h: its measures and op skeleton,
 * encoded) is computed once and kept under the SHA-256 of the trace's
 * bytes (64 lower-case hex digits), whichever run names the trace; a run
 * lists its traces' digests (run_traces). A job's outcome (what it posts)
 * is kept with its run. Docs: docs/store.md, "Run data". */

/* Keeps len bytes of run data of format `format` for the trace with digest,
 * json_bytes: the trace's JSON size; trusted: computed while judging a
 * trusted run. It replaces what was kept under the digest unless that is
 * of the same format and trusted while this is not. */
int tg_store_trace_data_put(tg_store *s, const char *digest, int format, uint64_t json_bytes, int trusted,
                            const void *data, size_t len);

/* The run data of the trace with digest in format `format` into *data
 * (*len bytes, malloc'd, the caller frees); with trusted, only data kept
 * as trusted. TG_ENOTFOUND when none (or of another format, or untrusted
 * when trusted is asked). */
int tg_store_trace_data_get(void **data, size_t *len, tg_store *s, const char *digest, int format, int trusted);

/* One trace of a run, in rank order. */
typedef struct tg_run_trace {
	char digest[65];     /* SHA-256 of its bytes, hex */
	uint64_t json_bytes; /* its JSON size */
} tg_run_trace;

/* Replaces the list of run id's traces with the n given (one transaction).
 * TG_ENOTFOUND when there is no run id. */
int tg_store_run_traces_put(tg_store *s, int64_t id, const tg_run_trace *t, size_t n);

/* The traces of run id in rank order (*out of *n, free() it); none: *n = 0. */
int tg_store_run_traces_get(tg_run_trace **out, size_t *n, tg_store *s, int64_t id);

/* Keeps what job id posts: outcome (its status, JSON text) and comment
 * (markdown, may be NULL). TG_ENOTFOUND when there is no run id. */
int tg_store_outcome_put(tg_store *s, int64_t id, const char *outcome, const char *comment);

/* What job id posts, as kept: *outcome and *comment (NULL when none)
 * malloc'd, the caller frees. TG_ENOTFOUND when no outcome was kept. */
int tg_store_outcome_get(char **outcome, char **comment, tg_store *s, int64_t id);

#endif
