/*
 * daemon_impl.h - what the parts of the daemon share (daemon.c, job.c,
 * baseline.c, run_metrics.c, comment.c). Not for other modules.
 */
#ifndef TG_DAEMON_IMPL_H
#define TG_DAEMON_IMPL_H

#include "../util/atoms.h"
#include "../core/diff/measure.h"
#include "../core/diff/rundata.h"
#include "../core/trace/trace.h"
#include "../rules/gate.h"
#include "../render/diff_render.h"
#include "../rules/rules.h"
#include "daemon.h"
#include "daemon_metrics.h"
#include "data_cache.h"
#include "forge/forge.h"
#include "git/git.h"
#include "manifest.h"
#include "metrics/endpoints.h"
#include "history/run_metrics.h"
#include "storage/storage.h"
#include "store/store.h"

struct tg_daemon {
	tg_config *cfg;
	tg_daemon_opts o;
	tg_store *store;
	tg_storage *storage;
	tg_forge **forges;   /* one per cfg->forges */
	tg_rules **rules;    /* one per cfg->repos */
	tg_git **git;        /* one per cfg->repos, opened on first use */
	int64_t *fetched;    /* one per cfg->repos: when its mirror last fetched (monotonic s) */
	int64_t blocker;     /* the job the last TG_EAGAIN waits for (0: none) */
	tg_atoms *seen;      /* "key\x1fetag" of manifests already looked at */
	char owner[256];     /* the lease owner: host, pid, start time */
	int lock_fd;
	char *jobs_dir;      /* <state_dir>/jobs */
	char *tmp_dir;
	tg_read_opts read;
	tg_metrics *metrics;     /* daemon_metrics.h: always made */
	tg_health *health;       /* the loop's health: always made */
	tg_endpoints *endpoints; /* daemon.listen's server, or NULL */
	tg_daemon_http_ctx *http_ctx; /* one per cfg->forges, then the storage's: the observers' */
	struct tg_publish *publish;   /* history.publish's (publish.h), or NULL */
	int in_child;        /* this process is a job's analysis under its budgets (budget.c) */
	tg_data_cache *cache; /* decoded run data the jobs share (data_cache.c) */
	struct tg_data_used {  /* in a child: the run data it decoded from the store, for the cache */
		char digest[65];
		uint8_t trusted;
		uint8_t base; /* read for a baseline's side: the daemon keeps its tree diff's view too */
	} *used;
	size_t nused, capused;
	struct {             /* in a child: the daemon's connections, kept (reachable, never used) */
		tg_store *store;
		tg_storage *storage;
		tg_forge **forges;
	} daemons;
};

/* The store, the storage and the forges of the configuration into d
 * (connect.c). 0 or the error, worded. */
int tg_daemon_open_store(tg_daemon *d);
int tg_daemon_open_storage(tg_daemon *d);
int tg_daemon_open_forges(tg_daemon *d);

/* In a child process (budget.c): the store, the storage and the forges
 * opened again, so that the child shares no connection with the daemon;
 * the daemon's are left as they are (never closed by the child). 0 or the
 * error of the one that failed. */
int tg_daemon_reopen(tg_daemon *d);

/* How a job's analysis ended under its budgets (budget.c). */
typedef enum tg_budget_over {
	TG_BUDGET_NONE = 0, /* it ended by itself: rc */
	TG_BUDGET_TIME,     /* daemon.job_timeout ran out: killed */
	TG_BUDGET_SIGNAL,   /* killed by a signal it was not sent (OOM killer), or crashed */
	TG_BUDGET_EXIT      /* ended without its report (exit code in signal) */
} tg_budget_over;

typedef struct tg_daemon_budget {
	tg_budget_over over;
	int signal;         /* TG_BUDGET_SIGNAL: which; TG_BUDGET_EXIT: the exit code */
	int rc;             /* TG_BUDGET_NONE: what the analysis returned (its message is tg_error_last) */
	int64_t blocker;    /* the job it waits for (TG_EAGAIN), 0 when none */
	int64_t ms;         /* wall time */
	int64_t peak_kb;    /* its largest resident set, KiB */
} tg_daemon_budget;

typedef int (*tg_daemon_budget_fn)(tg_daemon *d, tg_job *j, void *arg);

/* Runs fn(d, j, arg) in a child process under the job budgets
 * (daemon.job_timeout, daemon.job_memory): see budget.c. *out says how it
 * ended. Returns 0 (then look at *out), TG_EAGAIN when the daemon is
 * stopping (the child was killed; the job is claimed again later), or
 * TG_EIO when no child could be started. */
int tg_daemon_budget_run(tg_daemon_budget *out, tg_daemon *d, tg_job *j, tg_daemon_budget_fn fn, void *arg);

/* Why a job went over its budget, for its status (memory: the analysis
 * returned TG_ENOMEM under its memory budget; else as *b says). */
void tg_daemon_budget_why(char *buf, size_t cap, const tg_daemon *d, const tg_daemon_budget *b, int memory);

/* 0 when this build cannot apply daemon.job_memory (AddressSanitizer). */
int tg_daemon_budget_memory_applies(void);

/* Ends at once the leases held by daemons on this host that are dead (no
 * process with the owner's pid) and logs, once each, the leases it must
 * wait for (lease_reclaim.c). *reclaimed (may be NULL): leases ended.
 * Returns 0 or the store's error. */
int tg_daemon_reclaim_leases(size_t *reclaimed, tg_daemon *d);

/* tg_daemon_repo, tg_daemon_forge, tg_daemon_git: repos.h */

/* A test hook (test_stall.c): with TRACEGATE_TEST_STALL=<point>:<seconds>
 * in the environment, logs "job N: stall at <point>" and sleeps there
 * (points: seen, analysing, reading, posting, comment). Never set in
 * production. */
void tg_daemon_test_stall(const char *point, int64_t job);

/* The store's key of a run (run_key.c): the SHA-256 (64 lower-case hex) of
 * its repository, its commit in lower case, its workload, its run id and
 * signature (NULL: unsigned, or a signature that does not verify with the
 * configured key). A manifest rewritten, or uploaded again under the
 * commit's folder in capitals, is the same run. Returns 0, or TG_ENOMEM
 * (libcrypto failed) with out the hex of 32 zero bytes, no run's key. */
int tg_daemon_run_key(char out[65], const char *repo, const char *commit, const char *workload, const char *run_id,
                      const char *signature);

/* Whether new run j (repo, commit, workload, pr, trusted) may be added
 * (admit.c): *ok = 0 when it is beyond limits.max_workloads, max_runs or
 * max_unsigned_branch_runs at its commit, counted in its trust class, with
 * *why (cap bytes) naming the limit. Returns 0 or the store's error. */
int tg_daemon_admit(int *ok, char *why, size_t cap, tg_daemon *d, const tg_job *j);

/* What a job's steps work with: one repository's part of the daemon,
 * built once per job (tg_job_ctx_init) and passed instead of the daemon
 * and the repository's index (job*.c, origin.c, pr_check.c, accepts.c,
 * baseline.c, baseline_runs.c, pool.c). */
typedef struct tg_job_ctx {
	tg_daemon *d;               /* for what still takes the daemon: side.c, comment.c, the git mirror */
	size_t ri;                  /* the repository's index in cfg->repos */
	const tg_config *cfg;
	const tg_config_repo *repo; /* &cfg->repos[ri] (NULL when ri is not a repository) */
	tg_rules *rules;            /* the repository's rules (NULL when none are loaded) */
	tg_forge *forge;            /* the repository's forge client (NULL when none is open) */
	tg_store *store;
	int trusted_only;           /* baselines and pooled runs: trusted runs only (a signing key) */
	int keyed;                  /* a signing key is configured */
} tg_job_ctx;

/* The context of repository ri of d into *c (job.c; nothing allocated, c
 * borrows from d). */
void tg_job_ctx_init(tg_job_ctx *c, tg_daemon *d, size_t ri);

/* Proof of origin (origin.c). tg_daemon_origin_check sets j->origin_ok for
 * a pull request's run: the forge confirms that the CI run its manifest
 * names (j->origin) ran on j's commit for j's pull request (the outbox
 * takes the manifest's word; a forge that cannot tell, no ci_run, another
 * commit or pull request: 0, logged). Errors (the forge unreachable) are
 * returned. */
int tg_daemon_origin_check(const tg_job_ctx *c, tg_job *j);

/* Which runs of j's commit may join j's side: 1 with *f filled (signed
 * runs for a signed run; the same confirmed CI run for a pull request's;
 * every run without a signing key), 0 when j is judged alone. */
int tg_daemon_pool_filter(tg_pool_filter *f, const tg_job_ctx *c, const tg_job *j);

/* *ok = 0 (*why says so) for a pull request's run whose CI run is not
 * confirmed when runs of a confirmed CI run have judged the same head:
 * it posts nothing over their verdict. Returns 0 or the store's error. */
int tg_daemon_origin_may_post(int *ok, char *why, size_t cap, const tg_job_ctx *c, const tg_job *j);

/* Moves job j one or more steps forward (job.c). Returns 0 when the job is
 * finished or handed on, or a TG_E* code when it must be tried again later
 * (its lease then expires and it is claimed again). */
int tg_daemon_job_run(tg_daemon *d, tg_job *j);

/* One side of a comparison: the run data (core/diff/rundata.h) of its traces,
 * the runs' traces one after another, each run's in rank order. */
typedef struct tg_side {
	tg_rundata **data;
	uint8_t *borrowed;   /* per trace: its run data is the daemon's cache's (not freed with the side) */
	char **names;        /* display names ("<run-id>/<path>") */
	char **keys;         /* storage keys ("<prefix>/<path>"): the names the reader gives the traces */
	int64_t *ranks;      /* the manifest's rank of each trace, -1 when it gives none */
	char (*digests)[65]; /* the SHA-256 of each trace's bytes: its run data's key */
	uint8_t *trusted;    /* per trace: its run is trusted (its data kept and read as trusted) */
	tg_trace **traces;   /* tg_side_load with TG_SIDE_KEEP_TREES: the traces read, */
	tg_tree **trees;     /* and their trees, kept for tg_side_across; NULL entries otherwise */
	tg_findings *across; /* tg_side_across: the findings across its ranks, when the gate needs them */
	size_t n;
	uint64_t json_bytes; /* JSON of all its traces */
} tg_side;

/* The run data of every trace of run j (manifest m), sorted by rank, into
 * s (side.c): from the store when each was measured before (the run's
 * traces listed, or a trace's digest known); else fetched from storage,
 * read with the daemon's limits and measured, its run data kept in the
 * store under the SHA-256 of its bytes, and the run's traces listed.
 * Errors name the storage key and, for a bad trace, the byte offset;
 * *permanent is set when trying again cannot help (a missing or malformed
 * trace, a limit), clear for I/O that may recover (storage or store
 * unreachable) and for memory. */
int tg_side_load(tg_side *s, int *permanent, tg_daemon *d, const tg_job *j, const tg_manifest *m, unsigned flags);

/* tg_side_load's flags: keep the trees of the traces it reads (a run of
 * several traces), for tg_side_across. */
#define TG_SIDE_KEEP_TREES 1u
/* ... and the side is a baseline's: the run data the daemon keeps from it
 * gets the tree diff's view of its skeleton (data_cache.h), which only a
 * base side borrows; a pull request's own runs never cost the daemon one. */
#define TG_SIDE_BASE 2u

/* The side as the gate takes run data (rules/gate.h); borrows from s. */
tg_gate_data tg_side_gate_data(const tg_side *s);

/* The findings across the ranks of side s when the gate needs them
 * (tg_gate_data_across: its traces are distinct ranks of one job), into
 * s->across, under the rules of repository ri: kept in the store under
 * the digest of the thresholds and of the traces' digests in rank order;
 * else computed from the traces' trees (kept by tg_side_load, else read
 * again and checked against their digests) and kept. Traces that can no
 * longer be read (pruned from storage, changed) make them "not
 * evaluated", saying why. The kept trees are freed. 0, or an error that
 * may recover (storage or store unreachable, memory). */
int tg_side_across(tg_side *s, tg_daemon *d, size_t ri);

/* A measure of side s on keys (its traces in its order, ranked and named
 * as the gate ranks and names them). 0 or TG_ENOMEM. */
int tg_side_measure(tg_measure **out, const tg_side *s, tg_atoms *keys);

/* Moves the traces of `from` to the end of `to`; from is left empty. 0 or
 * TG_ENOMEM (from unchanged). */
int tg_side_append(tg_side *to, tg_side *from);

void tg_side_free(tg_side *s);

/* The baseline of job j (its repository's context c): the merge-base of its commit
 * with the target branch, then its first-parent ancestors (baseline_depth of
 * them), the nearest with a done run of the same workload; for a run on a
 * branch without a pull request, the ancestors of its commit's parent.
 * *found: 1 with *base filled and *distance the steps from the merge-base
 * (0: the merge-base itself); 0 when none (*why says what was searched).
 * merge_base (41 bytes) receives the merge-base. Errors (git unreachable)
 * are returned. */
int tg_daemon_find_baseline(tg_job *base, int *found, int *distance, char merge_base[41], char *why, size_t whycap,
                            const tg_job_ctx *c, const tg_job *j);

/* The baseline choice along a first-parent chain (baseline.c): the
 * nearest of chain[skip..n) with a done run of j's repository and workload
 * that is not an error (trusted only under c->trusted_only) into *base
 * (*found 1, *distance from chain[skip]; the caller clears *base). A run
 * of that workload still open (seen, analysing, posting) at a commit
 * reached before one with a done run: TG_EAGAIN, *blocker its job id (the
 * job waits for it). Returns 0 or the store's error. */
int tg_daemon_baseline_nearest(tg_job *base, int *found, int *distance, int64_t *blocker, const tg_job_ctx *c,
                               const tg_job *j, const char (*chain)[41], size_t n, size_t skip);

/* The baseline side (baseline_runs.c): base holds the newest trusted run
 * of the baseline commit (tg_daemon_find_baseline); the newest of that
 * commit's runs whose traces can be read (from their stored run data, else
 * from storage: side.c) replaces it, with its manifest (*bm), its run data
 * and that of the commit's other usable runs (*old, *more of them, as many
 * as fit max_bytes of JSON with the baseline run; *left_over: how many did
 * not). A run that cannot be read for good is recorded as
 * tampered (logged) and the next one is tried; *notes (markdown for the
 * comment, the caller frees it; NULL when none was left out) says which
 * were left out. *usable = 0 when no run of the commit can be used: *why
 * (whycap bytes) names the tampered runs. Storage that may come back is
 * returned (the job is tried again). */
int tg_daemon_baseline_side(tg_job *base, tg_manifest **bm, tg_side *old, size_t *more, size_t *left_over,
                            int *usable, char **notes, char *why, size_t whycap, uint64_t max_bytes,
                            const tg_job_ctx *c);

/* The commit status repository r posts for a run that is not a judgement
 * of kind k: its on_unjudged (unjudged.c). */
tg_forge_state tg_daemon_unjudged_state(const tg_config_repo *r, tg_unjudged_kind k);

/* The target branches move: repository ri's mirror g fetches their current
 * tips, at most every 10 seconds (a backlog of runs would fetch once a run;
 * a commit the mirror lacks is fetched on demand anyway); a mirror that
 * cannot fetch still answers from what it has, with a warning
 * (baseline.c). */
void tg_daemon_fetch_when_due(tg_daemon *d, size_t ri, tg_git *g);

/* Looks again at the open pull requests judged in the last 30 days
 * (recheck.c): a run whose pull request now merges into another branch,
 * whose merge-base with it moved, or whose head is again a commit judged
 * before, is sent back to be judged again (tg_store_job_rejudge), logged.
 * *requeued (may be NULL): how many. Returns 0 or the store's error (a
 * forge or git that does not answer is logged and tried at the next
 * period). */
int tg_daemon_recheck(size_t *requeued, tg_daemon *d);

/* tg_run_metrics, tg_run_metric_display: run_metrics.h */

/* Markdown for the comment after the rules' tables: the accepted
 * regressions and who accepted them, and the target branch's recent
 * history of the failing rules as Mermaid xychart-beta charts (with this
 * run as the last point). Which commit the baseline is and why is in the
 * compared table (tg_daemon_baseline_why). The caller frees *out. */
int tg_daemon_comment_extra(char **out, tg_daemon *d, const tg_config_repo *repo, const tg_job *j,
                            const tg_gate *g, const char *accept_notes);

/* Why base is job j's baseline, for the compared table's source cell
 * (markdown, at most cap bytes): "the merge-base", "2 commits before the
 * merge-base <code>1a2b3c4</code>", or for a run whose commit is its own
 * merge-base (a build of the target branch, a pull request already merged)
 * "1 commit before this one"; distance and merge_base as
 * tg_daemon_find_baseline gives them. */
void tg_daemon_baseline_why(char *buf, size_t cap, const tg_job *j, const tg_job *base, int distance,
                            const char *merge_base);

/* For a pull-request run (j->pr > 0): asks the forge whether the pull
 * request is open and j's commit is its head (*ok = 1: it may post; 0: it
 * may not, *why says why), and replaces j->target_branch with the branch
 * the forge says it merges into (pr_check.c). The outbox cannot tell: *ok
 * = 1, j unchanged. Errors (the forge unreachable) are returned. */
int tg_daemon_pr_check(int *ok, char *why, size_t cap, const tg_job_ctx *c, tg_job *j);

#endif
