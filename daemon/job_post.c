/*
 * job_post.c - posting a job's outcome to its forge (job_impl.h): the
 * commit status under the repository's status context, then for a pull
 * request's run the comment, upserted by its hidden marker so that a
 * repeated post edits it, never duplicates it. Whether a run may post at
 * all (a folder that is a commit, an untrusted run only on its own pull
 * request, a pull request the forge still owns, an origin that may post
 * over the verdicts already shown) is decided here too.
 */
#include "job_impl.h"
#include "../util/log.h"
#include "../util/util.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int tg_job_may_post(int keyed, const tg_job *j)
{
	return !keyed || j->trusted || j->pr > 0;
}

/* The status goes to the forge as tg_forge_status (neutral: a check run
 * says neutral). */
int tg_job_post_status(const tg_job_ctx *c, const tg_job *j, tg_forge_state state, const char *desc, const char *url,
                       const char *summary_md, int neutral)
{
	char context[512];
	tg_job_status_context(context, sizeof(context), c->repo, j);
	tg_forge_status st = {j->repo, j->commit, state, context, desc, url, summary_md, neutral};
	return tg_forge_post_status(c->forge, &st);
}

/* Nothing is posted (*posted 0, logged) for a folder that is not a commit, an unsigned run of no pull
 * request while a signing key is configured, a pull request the forge
 * disowns, a run whose origin may not post (tg_daemon_origin_may_post).
 * Returns 0 or the forge's error. */
int tg_job_post(int *posted, const tg_job_ctx *c, tg_job *j, const tg_job_outcome *o)
{
	*posted = 0;
	if (!tg_util_is_hex(j->commit, 40)) {
		tg_log(TG_LOG_WARN, "job %lld: folder %s is not a commit: nothing posted", (long long)j->id, j->commit);
		return 0;
	}
	if (!tg_job_may_post(c->keyed, j)) {
		tg_log(TG_LOG_WARN,
		       "job %lld: unsigned run of no pull request: judged, nothing posted, not a baseline (a target "
		       "branch's CI uploads with TRACEGATE_SIGNING_KEY set)",
		       (long long)j->id);
		return 0;
	}
	if (o->not_posted[0]) {
		tg_log(TG_LOG_WARN, "job %lld: %s: judged, nothing posted", (long long)j->id, o->not_posted);
		return 0;
	}
	char why[300];
	int ok = 1;
	int rc = tg_daemon_origin_may_post(&ok, why, sizeof(why), c, j);
	if (rc)
		return rc;
	if (!ok) {
		tg_log(TG_LOG_WARN, "job %lld: %s: judged, nothing posted", (long long)j->id, why);
		return 0;
	}
	/* not a judgement, and the operator chose success for it (on_unjudged):
	 * a check run says neutral */
	int neutral = o->state == TG_FORGE_SUCCESS && o->unjudged;
	rc = tg_job_post_status(c, j, o->state, o->description, o->target_url, o->comment, neutral);
	if (rc)
		return rc;
	*posted = 1;
	/* the verdict this pull request shows now is this one (recheck.c) */
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	j->posted_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	if (o->comment && j->pr > 0) {
		tg_daemon_test_stall("comment", j->id);
		char marker[600], line[700];
		tg_job_marker(marker, sizeof(marker), j);
		snprintf(line, sizeof(line), "<!-- %s -->", marker);
		tg_forge_comment cm = {j->repo, j->pr, line, o->comment};
		int64_t id = 0;
		int created = 0;
		if ((rc = tg_forge_upsert_comment(&id, &created, c->forge, &cm)))
			return rc;
		j->comment_id = id;
		tg_log(TG_LOG_INFO, "job %lld: %s comment %lld on %s#%lld", (long long)j->id, created ? "created" : "updated",
		       (long long)id, j->repo, (long long)j->pr);
	}
	return 0;
}
