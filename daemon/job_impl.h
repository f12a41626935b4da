/*
 * job_impl.h - what the files of the job machine share (job.c: the states;
 * job_analyse.c: the analysis; job_outcome.c: what is posted, kept and
 * loaded again; job_post.c: posting it; job_text.c: the comments' text).
 * Not for other modules.
 *
 * A job's steps take a tg_job_ctx (daemon_impl.h), built once per job
 * from the daemon and the job's repository. The daemon itself stays in the
 * context for the services the steps call that still take it (side.c,
 * comment.c, budget.c, the git mirror of repos.c).
 *
 * The outcome's decisions (tg_job_outcome_error, _unjudged, _waiting,
 * _verdict) and the comment's marker are pure functions of their arguments:
 * tests/test_job_*.c assert on them.
 */
#ifndef TG_JOB_IMPL_H
#define TG_JOB_IMPL_H

#include "daemon_impl.h"

/* tg_job_ctx, tg_job_ctx_init: daemon_impl.h */

/* What is posted for a run. */
typedef struct tg_job_outcome {
	tg_forge_state state;
	char verdict[16];    /* pass, warn, block, inconclusive (also: no baseline), error */
	char description[512];
	char summary[768];
	char *target_url;    /* owned, may be NULL */
	char *comment;       /* owned, NULL when nothing is commented */
	char baseline[41];   /* "" when none */
	int distance;
	char merge_base[41]; /* where the baseline search started ("" when none): a moved one is judged again */
	char target[256];    /* the target branch it was judged against (the forge's word), "" when none */
	int unjudged;        /* 0: a judgement (or an error); else 1 + its tg_unjudged_kind (on_unjudged) */
	char not_posted[256]; /* why nothing is posted (the forge disowns the pull request), "" to post */
} tg_job_outcome;

/* ------------------------------------------------ job_outcome.c: decisions */

/* Frees what o owns and clears it. */
void tg_job_outcome_free(tg_job_outcome *o);

/* o for a run that cannot be judged (what: the step, msg: why): state
 * error, verdict "error"; the description names files relative to j's
 * folder (prefix), the summary keeps the whole message; URLs' userinfo
 * scrubbed from both. */
void tg_job_outcome_error(tg_job_outcome *o, const tg_job *j, const char *what, const char *msg);

/* o is not a judgement of kind k: the state repository r chose for it
 * (on_unjudged), the verdict inconclusive. */
void tg_job_outcome_unjudged(tg_job_outcome *o, const tg_config_repo *r, tg_unjudged_kind k);

/* Fewer than runs_per_commit runs (runs of them) of this commit: o says it
 * waits for them. */
void tg_job_outcome_waiting(tg_job_outcome *o, const tg_config_repo *r, size_t runs);

/* A judgement's verdict v into o (summary: the judgement's sentence;
 * comparable: the sides could be compared, for an inconclusive verdict):
 * a block fails the status, a pass or a warn succeeds, an inconclusive
 * one is no judgement and takes the state r chose (on_unjudged: not
 * comparable, or inconclusive); baseline (its commit) and distance are
 * recorded. */
void tg_job_outcome_verdict(tg_job_outcome *o, const tg_config_repo *r, tg_verdict v, int comparable,
                            const char *summary, const char *baseline, int distance);

/* o as the JSON the store keeps (malloc'd), NULL when out of memory. */
char *tg_job_outcome_json(const tg_job_outcome *o);

/* o from the JSON text of an outcome (what names it in messages); the
 * comment (may be NULL) is copied. TG_ENOTFOUND when it is not one. */
int tg_job_outcome_parse(tg_job_outcome *o, const char *text, const char *comment, const char *what);

/* Keeps what job j posts in the store (tg_store_outcome_put). */
int tg_job_outcome_save(tg_store *s, const tg_job *j, const tg_job_outcome *o);

/* Loads what analysing kept for job j (the store; else the files an older
 * daemon left under jobs_dir); TG_ENOTFOUND when it is not there. */
int tg_job_outcome_load(tg_job_outcome *o, tg_store *s, const char *jobs_dir, const tg_job *j);

/* Records o's verdict on job j in the store (tg_store_job_set_result). */
int tg_job_outcome_store(tg_store *s, const tg_job *j, const tg_job_outcome *o);

/* ------------------------------------------------------ job_text.c: words */

/* The comment's marker of job j into buf: "tracegate:" and its workload as
 * a name ([A-Za-z0-9._-]{1,64}), else "h-" and 16 hex digits of its
 * SHA-256 (or "x-" and a 64-bit hash when libcrypto cannot allocate). */
void tg_job_marker(char *buf, size_t cap, const tg_job *j);

/* The status context of job j: the repository's status_context, "/", the
 * workload as tg_job_marker names it. */
void tg_job_status_context(char *buf, size_t cap, const tg_config_repo *r, const tg_job *j);

/* Whether ci_url (may be NULL) starts with one of r's ci_url_prefixes. */
int tg_job_ci_url_allowed(const tg_config_repo *r, const char *ci_url);

/* r's details_url with {repo} {commit} {workload} {run_id} of j filled in
 * (escaped), else ci_url when allowed, else NULL; malloc'd (NULL also when
 * out of memory). */
char *tg_job_details_url(const tg_config_repo *r, const tg_job *j, const char *ci_url);

/* Where a side comes from, as the comment's "source" cell (markdown,
 * malloc'd; NULL when out of memory): see job_text.c. */
char *tg_job_side_source(const tg_config_repo *r, const tg_job *j, const tg_manifest *m, size_t more_runs,
                         const char *why);

/* The comment of a run that could not be judged (malloc'd, NULL: out of
 * memory). */
char *tg_job_error_comment(const tg_job *j, const tg_job_outcome *o);

/* The comment of a run without a usable baseline: its numbers (m, n; the
 * rule: metrics left out), and why (title: "no baseline", "baseline
 * unusable"). Malloc'd, NULL when out of memory. */
char *tg_job_no_baseline_comment(const tg_job *j, const char *title, const char *why, const tg_metric *m, size_t n);

/* ------------------------------------------------------ job_post.c: posting */

/* With a signing key (keyed), an untrusted run posts only on its own pull
 * request's commit, never on a branch build's (docs/security.md). */
int tg_job_may_post(int keyed, const tg_job *j);

/* Posts one status for j; neutral: the gate could not judge. */
int tg_job_post_status(const tg_job_ctx *c, const tg_job *j, tg_forge_state state, const char *desc, const char *url,
                       const char *summary_md, int neutral);

/* Posts o's status and comment for j, or logs why nothing is posted
 * (*posted 0). Returns 0 or the forge's error. */
int tg_job_post(int *posted, const tg_job_ctx *c, tg_job *j, const tg_job_outcome *o);

/* ---------------------------------------------- job_analyse.c: the analysis */

/* The run's manifest, parsed from the job (max_traces: the configuration's
 * limit). */
int tg_job_manifest(tg_manifest **m, const tg_job *j, uint32_t max_traces);

/* Analyses job j into o. Returns 0 with o filled (an error outcome for a
 * run that cannot be judged), or a code for a failure worth retrying. */
int tg_job_analyse(tg_job_outcome *o, const tg_job_ctx *c, tg_job *j);

/* The JSON a side may hold once its commit's other runs join it (cap:
 * limits.max_pool_bytes, both sides together): the new side (base_side 0)
 * pools up to half of it, the base side up to what the new side
 * (cur_json_bytes) left. */
uint64_t tg_job_pool_cap(uint64_t cap, uint64_t cur_json_bytes, int base_side);

#endif
