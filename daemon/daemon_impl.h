/*
 * daemon_impl.h - what the parts of the daemon share (daemon.c, job.c,
 * baseline.c, run_metrics.c, comment.c). Not for other modules.
 */
#ifndef TG_DAEMON_IMPL_H
#define TG_DAEMON_IMPL_H

#include "../core/atoms.h"
#include "../core/measure.h"
#include "../core/trace.h"
#include "../rules/gate.h"
#include "../rules/rules.h"
#include "daemon.h"
#include "forge/forge.h"
#include "git/git.h"
#include "manifest.h"
#include "run_metrics.h"
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
};

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
 * commit's folder in capitals, is the same run. */
void tg_daemon_run_key(char out[65], const char *repo, const char *commit, const char *workload, const char *run_id,
                       const char *signature);

/* Whether new run j (repo, commit, workload, pr, trusted) may be added
 * (admit.c): *ok = 0 when it is beyond limits.max_workloads, max_runs or
 * max_unsigned_branch_runs at its commit, counted in its trust class, with
 * *why (cap bytes) naming the limit. Returns 0 or the store's error. */
int tg_daemon_admit(int *ok, char *why, size_t cap, tg_daemon *d, const tg_job *j);

/* Proof of origin (origin.c). tg_daemon_origin_check sets j->origin_ok for
 * a pull request's run: the forge confirms that the CI run its manifest
 * names (j->origin) ran on j's commit for j's pull request (the outbox
 * takes the manifest's word; a forge that cannot tell, no ci_run, another
 * commit or pull request: 0, logged). Errors (the forge unreachable) are
 * returned. */
int tg_daemon_origin_check(tg_daemon *d, size_t ri, tg_job *j);

/* Which runs of j's commit may join j's side: 1 with *f filled (signed
 * runs for a signed run; the same confirmed CI run for a pull request's;
 * every run without a signing key), 0 when j is judged alone. */
int tg_daemon_pool_filter(tg_pool_filter *f, const tg_daemon *d, const tg_job *j);

/* *ok = 0 (*why says so) for a pull request's run whose CI run is not
 * confirmed when runs of a confirmed CI run have judged the same head:
 * it posts nothing over their verdict. Returns 0 or the store's error. */
int tg_daemon_origin_may_post(int *ok, char *why, size_t cap, tg_daemon *d, const tg_job *j);

/* Moves job j one or more steps forward (job.c). Returns 0 when the job is
 * finished or handed on, or a TG_E* code when it must be tried again later
 * (its lease then expires and it is claimed again). */
int tg_daemon_job_run(tg_daemon *d, tg_job *j);

/* The traces of one side of a comparison, read and built. */
typedef struct tg_side {
	tg_trace **traces;
	tg_tree **trees;
	char **names;    /* display names (trace paths in the run folder) */
	int64_t *ranks;  /* the manifest's rank of each trace, -1 when it gives none */
	size_t n;
} tg_side;

/* Fetches and reads every trace of manifest m (sorted by rank) into s.
 * Errors name the storage key and, for a bad trace, the byte offset;
 * *permanent is set when trying again cannot help (a missing or malformed
 * trace, a limit), clear for I/O that may recover (storage unreachable). */
int tg_side_load(tg_side *s, int *permanent, tg_daemon *d, const tg_manifest *m);

void tg_side_free(tg_side *s);

/* The baseline of job j (repository index ri): the merge-base of its commit
 * with the target branch, then its first-parent ancestors (baseline_depth of
 * them), the nearest with a done run of the same workload; for a run on a
 * branch without a pull request, the ancestors of its commit's parent.
 * *found: 1 with *base filled and *distance the steps from the merge-base
 * (0: the merge-base itself); 0 when none (*why says what was searched).
 * merge_base (41 bytes) receives the merge-base. Errors (git unreachable)
 * are returned. */
int tg_daemon_find_baseline(tg_job *base, int *found, int *distance, char merge_base[41], char *why, size_t whycap,
                            tg_daemon *d, size_t ri, const tg_job *j);

/* The baseline side (baseline_runs.c): base holds the newest trusted run
 * of the baseline commit (tg_daemon_find_baseline); the newest of that
 * commit's runs whose traces can be read replaces it, with its manifest
 * (*bm), its traces and those of the commit's other usable runs (*old,
 * *more of them). A run that cannot be read for good is recorded as
 * tampered (logged) and the next one is tried; *notes (markdown for the
 * comment, the caller frees it; NULL when none was left out) says which
 * were left out. *usable = 0 when no run of the commit can be used: *why
 * (whycap bytes) names the tampered runs. Storage that may come back is
 * returned (the job is tried again). */
int tg_daemon_baseline_side(tg_job *base, tg_manifest **bm, tg_side *old, size_t *more, int *usable, char **notes,
                            char *why, size_t whycap, tg_daemon *d);

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

/* tg_run_metrics, tg_run_metric_display, tg_run_metric_unit: run_metrics.h */

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
int tg_daemon_pr_check(int *ok, char *why, size_t cap, tg_daemon *d, size_t ri, tg_job *j);

#endif
