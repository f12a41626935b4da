/*
 * job.c - one run through its states (daemon_impl.h: tg_daemon_job_run).
 *
 *   seen       post "pending" (best effort), move to analysing
 *   analysing  (in a child process under the job's budgets: budget.c)
 *              read the run's traces into run data (side.c: once per
 *              trace, kept in the store), record its metrics, find the
 *              baseline, run the gate on the stored run data of both
 *              sides, keep what will be posted (the status and the
 *              comment) in the store, move to posting
 *   posting    post the status and upsert the comment (found again by its
 *              hidden marker, so a repeated post edits, never duplicates),
 *              move to done (or failed for a run that could not be judged)
 *
 * Every move is a compare-and-set on the job's state under its lease; a
 * daemon killed at any point leaves the job in the state of its last move,
 * and the next claim resumes there. What is posted is computed once and
 * kept in the store every daemon shares, so a resumed posting, by this
 * daemon or another, posts the same verdict without analysing again. A run that
 * cannot be judged (a malformed manifest or trace, a trace missing) gets an
 * "error" status saying why (fail closed); a failure that may pass (storage
 * or forge unreachable) leaves the job to be claimed again when its lease
 * expires, up to max_attempts claims.
 *
 * This file holds the states; the analysis is job_analyse.c, what is posted
 * and kept job_outcome.c, posting it job_post.c, its words job_text.c
 * (job_impl.h). Each job's steps take its repository's context
 * (tg_job_ctx), built once here.
 */
#include "job_impl.h"
#include "repos.h"
#include "publish.h"
#include "../util/log.h"
#include "../util/scrub.h"
#include "../util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void tg_job_ctx_init(tg_job_ctx *c, tg_daemon *d, size_t ri)
{
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->ri = ri;
	c->cfg = d->cfg;
	c->repo = ri < d->cfg->nrepos ? &d->cfg->repos[ri] : NULL;
	c->rules = c->repo && d->rules ? d->rules[ri] : NULL;
	c->forge = c->repo && d->forges ? tg_daemon_forge(d, ri) : NULL;
	c->store = d->store;
	c->keyed = d->cfg->storage.signing_key.value != NULL;
	c->trusted_only = tg_daemon_trusted_only(d);
}

/* Moves j to state to (error: why, for a failed job) under its lease; a
 * lease lost to another daemon is TG_ENOTFOUND, logged. */
static int advance(tg_daemon *d, tg_job *j, tg_job_state to, const char *error)
{
	int rc = tg_store_job_advance(d->store, j->id, d->owner, j->state, to, error);
	if (rc == TG_ENOTFOUND)
		tg_log(TG_LOG_WARN, "job %lld: lost its lease in state %s: left to its new holder", (long long)j->id,
		       tg_job_state_name(j->state));
	if (!rc) {
		j->state = to;
		tg_daemon_mark_step(d, j);
	}
	return rc;
}

/* Whether pull request run j may post before it is judged (its pending
 * status, the error of giving up): not when its CI run is not confirmed
 * and runs of a confirmed CI run have judged its head (origin.c), nor when
 * the forge or the store cannot tell now (logged; what names the post).
 * The forge is asked only when such runs exist. */
static int origin_may_post(const tg_job_ctx *c, tg_job *j, const char *what)
{
	int ok = 1;
	char why[300];
	if (j->pr <= 0)
		return 1;
	j->origin_ok = 0;
	int rc = tg_daemon_origin_may_post(&ok, why, sizeof(why), c, j);
	if (!rc && !ok) { /* runs of a confirmed CI run judged this head: is j's confirmed too? */
		rc = tg_daemon_origin_check(c, j);
		ok = !rc && j->origin_ok;
	}
	if (rc) {
		tg_log(TG_LOG_WARN, "job %lld: %s (%s)", (long long)j->id, tg_error_last(), what);
		return 0;
	}
	if (!ok)
		tg_log(TG_LOG_INFO, "job %lld: %s (%s)", (long long)j->id, why, what);
	return ok;
}

/* The job has been claimed too often: post an error (best effort) and fail it. */
static int give_up(const tg_job_ctx *c, tg_job *j)
{
	char msg[1024];
	snprintf(msg, sizeof(msg), "gave up after %d attempts (%s)", j->attempts - 1,
	         j->error ? j->error : "the daemon stopped while working on it");
	tg_scrub_urls(msg);
	tg_log(TG_LOG_ERROR, "job %lld (%s): %s", (long long)j->id, j->prefix, msg);
	tg_job_outcome o;
	memset(&o, 0, sizeof(o));
	tg_job_outcome_error(&o, j, "tracegate", msg);
	int pr_ok = 1;
	char pr_why[256];
	if (tg_util_is_hex(j->commit, 40) && tg_job_may_post(c->keyed, j) &&
	    tg_daemon_pr_check(&pr_ok, pr_why, sizeof(pr_why), c, j))
		pr_ok = 0; /* the forge cannot confirm the pull request: post nothing */
	if (tg_util_is_hex(j->commit, 40) && tg_job_may_post(c->keyed, j) && pr_ok &&
	    origin_may_post(c, j, "no error status") && tg_job_post_status(c, j, o.state, o.description, NULL, NULL, 0))
		tg_log(TG_LOG_WARN, "job %lld: %s", (long long)j->id, tg_error_last());
	tg_job r = *j;
	r.verdict = (char *)"error";
	r.summary = o.summary;
	tg_store_job_set_result(c->store, j->id, &r);
	int rc = advance(c->d, j, TG_JOB_FAILED, msg);
	if (!rc)
		tg_daemon_count_finished(c->d, j, "error", o.summary);
	return rc;
}

/* Analyses j into o (analyse), with the comment of a pull request's run
 * that could not be judged. Returns 0, or a code worth retrying (o is then
 * freed). */
static int analyse_outcome(const tg_job_ctx *c, tg_job *j, tg_job_outcome *o)
{
	int rc = tg_job_analyse(o, c, j);
	if (rc == TG_ENOMEM && c->d->in_child && tg_daemon_budget_memory_applies()) {
		/* an allocation went past daemon.job_memory: this run fails alone */
		char why[300];
		tg_daemon_budget_why(why, sizeof(why), c->d, NULL, 1);
		tg_log(TG_LOG_ERROR, "job %lld (%s): %s", (long long)j->id, j->prefix, why);
		tg_job_outcome_free(o);
		o->distance = -1;
		tg_job_outcome_error(o, j, "budget", why);
		rc = 0;
	}
	if (!rc && !o->comment && j->pr > 0 && !strcmp(o->verdict, "error") && !(o->comment = tg_job_error_comment(j, o)))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	if (rc)
		tg_job_outcome_free(o);
	return rc;
}

/* seen: posts the "pending" status, best effort (a forge that fails or
 * disowns the pull request is logged, not retried). */
static void post_pending(const tg_job_ctx *c, tg_job *j)
{
	if (!tg_util_is_hex(j->commit, 40) || !tg_job_may_post(c->keyed, j))
		return;
	int pr_ok = 1;
	char pr_why[256];
	if (tg_daemon_pr_check(&pr_ok, pr_why, sizeof(pr_why), c, j)) {
		tg_log(TG_LOG_WARN, "job %lld: pull request %lld: %s (no pending status)", (long long)j->id,
		       (long long)j->pr, tg_error_last());
		return;
	}
	if (!pr_ok || !origin_may_post(c, j, "no pending status"))
		return;
	char desc[256];
	snprintf(desc, sizeof(desc), "tracegate is analysing %s", j->workload);
	tg_manifest *m = NULL;
	char *url = NULL;
	if (!tg_job_manifest(&m, j, c->cfg->max_traces))
		url = tg_job_details_url(c->repo, j, m->ci_url);
	if (tg_job_post_status(c, j, TG_FORGE_PENDING, desc, url, NULL, 0))
		tg_log(TG_LOG_WARN, "job %lld: pending status: %s", (long long)j->id, tg_error_last());
	free(url);
	tg_manifest_free(m);
}

/* analysing: analyses j into o, keeps o (in the store) and moves j to
 * posting. A job whose move fails stays in its state, o freed: 0 when its
 * lease went to another daemon (TG_ENOTFOUND), else the code. */
static int analyse_job(const tg_job_ctx *c, tg_job *j, tg_job_outcome *o)
{
	tg_daemon_test_stall("analysing", j->id);
	tg_log(TG_LOG_INFO, "job %lld: analysing %s", (long long)j->id, j->prefix);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = analyse_outcome(c, j, o);
	if (rc)
		return rc;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tg_log(TG_LOG_INFO, "job %lld: analysed in %.1f ms", (long long)j->id,
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	if ((rc = tg_job_outcome_save(c->store, j, o)) || (rc = tg_job_outcome_store(c->store, j, o)) ||
	    (rc = advance(c->d, j, TG_JOB_POSTING, NULL))) {
		tg_job_outcome_free(o);
		return rc == TG_ENOTFOUND ? 0 : rc;
	}
	tg_log(TG_LOG_INFO, "job %lld: %s", (long long)j->id, o->summary);
	return 0;
}

/* What a job's child process does (budget.c): analyse j (state analysing)
 * and move it to posting, or (a job in posting whose outcome was never
 * kept) analyse it and keep the outcome. Either way the outcome ends up in
 * the store, where the daemon reads it. */
struct in_child {
	size_t ri;
	int keep_only; /* the job is in posting already */
};

static int analyse_in_child(tg_daemon *d, tg_job *j, void *arg)
{
	const struct in_child *ic = arg;
	tg_job_ctx c;
	tg_job_ctx_init(&c, d, ic->ri);
	tg_job_outcome o;
	memset(&o, 0, sizeof(o));
	int rc;
	if (!ic->keep_only) {
		rc = analyse_job(&c, j, &o);
	} else if (!(rc = analyse_outcome(&c, j, &o))) {
		rc = tg_job_outcome_save(c.store, j, &o);
	}
	tg_job_outcome_free(&o);
	return rc;
}

/* A job whose analysis went over its budget (b), still in state (the
 * child died, or was killed, before it moved the job): its outcome is an
 * error saying which budget, kept, and the job moved to posting (from
 * analysing) to be posted like any run that cannot be judged. */
static int over_budget(tg_daemon *d, tg_job *j, const tg_daemon_budget *b)
{
	char why[300];
	tg_daemon_budget_why(why, sizeof(why), d, b, 0);
	tg_log(TG_LOG_ERROR, "job %lld (%s): %s", (long long)j->id, j->prefix, why);
	tg_job_outcome o;
	memset(&o, 0, sizeof(o));
	o.distance = -1;
	tg_job_outcome_error(&o, j, "budget", why);
	int rc = j->pr > 0 && !(o.comment = tg_job_error_comment(j, &o)) ? tg_error_set(TG_ENOMEM, "out of memory") : 0;
	if (!rc)
		rc = tg_job_outcome_save(d->store, j, &o);
	if (!rc)
		rc = tg_job_outcome_store(d->store, j, &o);
	if (!rc && j->state == TG_JOB_ANALYSING)
		rc = advance(d, j, TG_JOB_POSTING, NULL);
	tg_job_outcome_free(&o);
	return rc == TG_ENOTFOUND ? 0 : rc;
}

/* Runs the analysis of job j (repository ri) in a child under the job's
 * budgets (budget.c); afterwards j is the store's (the child's changes). keep_only: j is
 * in posting and needs its outcome computed again. Returns 0 (j moved on,
 * or failed alone over its budget), or a code worth retrying (d->blocker
 * set when it waits for another job). */
static int analyse_budgeted(tg_daemon *d, size_t ri, tg_job *j, int keep_only)
{
	struct in_child arg = {ri, keep_only};
	tg_daemon_budget b;
	int rc = tg_daemon_budget_run(&b, d, j, analyse_in_child, &arg);
	if (rc)
		return rc;
	if (b.over == TG_BUDGET_NONE && b.rc) {
		d->blocker = b.blocker;
		return b.rc; /* its message is set */
	}
	if (b.over == TG_BUDGET_NONE)
		tg_metrics_observe(d->metrics, TG_DM_ANALYSIS_SECONDS, NULL, NULL, (double)b.ms / 1e3);
	/* the job as the child left it: its state, and what its analysis
	 * learnt (the confirmed CI run, what it was judged against) */
	tg_job now;
	if ((rc = tg_store_job_get(&now, d->store, j->id)))
		return rc;
	tg_job_clear(j);
	*j = now;
	if (b.over != TG_BUDGET_NONE && (j->state == TG_JOB_ANALYSING || keep_only))
		return over_budget(d, j, &b);
	return 0;
}

/* posting: what analysing kept for j in the store, whichever daemon (or
 * child) analysed it; taken_over: this claim found j in posting (a daemon
 * taking over a killed one's job: it posts what was computed, logged, and
 * does not analyse again). Only when nothing was kept (a job analysed by a
 * tracegate before the store kept outcomes, its state folder gone) is it
 * analysed again, under its budgets, and what is computed kept. */
static int resume_outcome(tg_daemon *d, size_t ri, tg_job *j, tg_job_outcome *o, int taken_over)
{
	if (!tg_job_outcome_load(o, d->store, d->jobs_dir, j)) {
		if (taken_over)
			tg_log(TG_LOG_INFO, "job %lld: posting the outcome kept in the store (%s), not analysing again",
			       (long long)j->id, o->verdict);
		return 0;
	}
	tg_log(TG_LOG_WARN, "job %lld: %s; analysing again", (long long)j->id, tg_error_last());
	int rc = analyse_budgeted(d, ri, j, 1);
	return rc ? rc : tg_job_outcome_load(o, d->store, d->jobs_dir, j);
}

/* The last line of a job: what was posted, or that nothing was (post
 * said why), never "posted" for a run whose status stayed unposted. */
static void log_finished(const tg_job *j, const tg_job_outcome *o, int posted, int failed)
{
	if (posted)
		tg_log(TG_LOG_INFO, "job %lld: posted %s (%s)", (long long)j->id, tg_forge_state_name(o->state),
		       o->verdict);
	else
		tg_log(TG_LOG_INFO, "job %lld: %s (%s), nothing posted", (long long)j->id, failed ? "failed" : "done",
		       o->verdict);
}

/* posting: posts o and finishes j: done, or failed for a run that could
 * not be judged. */
static int post_and_finish(const tg_job_ctx *c, tg_job *j, const tg_job_outcome *o)
{
	tg_daemon_test_stall("posting", j->id);
	int rc, posted = 0;
	if ((rc = tg_job_post(&posted, c, j, o)) || (rc = tg_job_outcome_store(c->store, j, o)))
		return rc;
	int failed = !strcmp(o->verdict, "error");
	rc = advance(c->d, j, failed ? TG_JOB_FAILED : TG_JOB_DONE, failed ? o->summary : NULL);
	if (!rc) {
		log_finished(j, o, posted, failed);
		tg_daemon_count_finished(c->d, j, o->verdict, o->summary);
		if (!failed)
			tg_daemon_publish_run(c->d, j);
	}
	return rc == TG_ENOTFOUND ? 0 : rc;
}

int tg_daemon_job_run(tg_daemon *d, tg_job *j)
{
	size_t ri = 0;
	const tg_config_repo *r = tg_daemon_repo(&ri, d, j->repo);
	if (!r) {
		tg_log(TG_LOG_WARN, "job %lld: repository %s is no longer configured", (long long)j->id, j->repo);
		tg_daemon_count_refused(d, TG_REFUSED_NOT_CONFIGURED);
		return advance(d, j, TG_JOB_FAILED, "repository not configured");
	}
	tg_job_ctx c;
	tg_job_ctx_init(&c, d, ri);
	if (j->attempts > d->cfg->max_attempts)
		return give_up(&c, j);
	int rc = 0;
	if (j->state == TG_JOB_SEEN) {
		tg_daemon_test_stall("seen", j->id);
		post_pending(&c, j);
		if ((rc = advance(d, j, TG_JOB_ANALYSING, NULL)))
			return rc == TG_ENOTFOUND ? 0 : rc;
	}
	int taken_over = j->state == TG_JOB_POSTING;
	if (j->state == TG_JOB_ANALYSING && (rc = analyse_budgeted(d, ri, j, 0)))
		return rc;
	if (j->state != TG_JOB_POSTING)
		return 0; /* done or failed, or handed on */
	tg_job_outcome o;
	memset(&o, 0, sizeof(o));
	if ((rc = resume_outcome(d, ri, j, &o, taken_over)))
		return rc;
	rc = post_and_finish(&c, j, &o);
	tg_job_outcome_free(&o);
	return rc;
}
