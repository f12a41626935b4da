/*
 * origin.c - a run belongs to one job (daemon_impl.h; docs/security.md,
 * "A run belongs to one job").
 *
 * Anyone who can write to the storage can upload runs under another open
 * pull request's head commit. Pooled with that pull request's own runs,
 * seven fast uploads would turn its failure into a success. So a side
 * pools only runs with the same proof of origin:
 *
 *   a signed run (trusted)     the target branch's other signed runs of
 *                              the commit: the signature is the proof
 *   a pull request's run       the runs of the same CI run (the manifest's
 *                              ci_run), once the forge confirms that CI run
 *                              ran on the pull request's head commit, on
 *                              the pull request's own branch and repository
 *                              (GitHub: the workflow run's head_sha,
 *                              head_branch, head_repository; GitLab: the
 *                              pipeline's sha and its
 *                              refs/merge-requests/N/head ref, or the
 *                              source branch); the outbox cannot ask and
 *                              takes the manifest's word
 *   anything else              judged alone
 *
 * and a pull request's run whose CI run is not confirmed, at a head that
 * has runs of a confirmed CI run, is judged but posts nothing: it cannot
 * overwrite their verdict or their comment.
 */
#include "daemon_impl.h"
#include "../util/log.h"
#include "repos.h"

#include <stdio.h>
#include <string.h>

/* Whether the CI run r (asked of the forge) ran on j's commit for j's pull
 * request: on a GitLab merge request's own ref (refs/merge-requests/N/head,
 * which only GitLab writes), or on the pull request's branch in the
 * pull request's repository (asked of the forge once more: a commit can be
 * pushed anywhere, so its SHA alone proves nothing). Errors are returned. */
static int ci_run_matches(int *ok, char *why, size_t cap, tg_forge *f, const tg_job *j, const tg_forge_ci_run *r)
{
	*ok = 0;
	if (strcmp(r->head, j->commit)) {
		snprintf(why, cap, "CI run %s ran on %.12s, not on %.12s", j->origin, r->head[0] ? r->head : "no commit",
		         j->commit);
		return 0;
	}
	if (r->pr) {
		*ok = r->pr == j->pr;
		if (!*ok)
			snprintf(why, cap, "CI run %s ran for merge request %lld, not %lld", j->origin, (long long)r->pr,
			         (long long)j->pr);
		return 0;
	}
	tg_forge_pr p;
	int rc = tg_forge_pr_get(&p, f, j->repo, j->pr);
	if (rc)
		return rc;
	int same_branch = p.head_ref && r->ref && !strcmp(p.head_ref, r->ref);
	int same_repo = !p.head_repo || !r->repo || !strcmp(p.head_repo, r->repo);
	*ok = same_branch && same_repo;
	if (!*ok)
		snprintf(why, cap, "CI run %s ran on %s%s%s, not on pull request %lld's branch", j->origin,
		         r->repo ? r->repo : "", r->repo ? ":" : "", r->ref ? r->ref : "no branch", (long long)j->pr);
	tg_forge_pr_clear(&p);
	return 0;
}

int tg_daemon_origin_check(const tg_job_ctx *c, tg_job *j)
{
	j->origin_ok = 0;
	if (j->pr <= 0)
		return 0;
	tg_forge *f = c->forge;
	if (tg_forge_get_kind(f) == TG_FORGE_OUTBOX) {
		j->origin_ok = 1; /* no forge to ask: a dry run takes the manifest's word */
		return 0;
	}
	char why[300] = "";
	if (!j->origin) {
		tg_log(TG_LOG_INFO, "job %lld: names no CI run (ci_run): judged alone", (long long)j->id);
		return 0;
	}
	tg_forge_ci_run r;
	int rc = tg_forge_ci_run_get(&r, f, j->repo, j->origin);
	if (rc == TG_EINVAL || rc == TG_ENOTFOUND) {
		tg_log(TG_LOG_INFO, "job %lld: %s: judged alone", (long long)j->id, tg_error_last());
		return 0;
	}
	if (!rc)
		rc = ci_run_matches(&j->origin_ok, why, sizeof(why), f, j, &r);
	tg_forge_ci_run_clear(&r);
	if (!rc)
		tg_log(TG_LOG_INFO, "job %lld: %s%s", (long long)j->id, j->origin_ok ? "CI run confirmed: " : why,
		       j->origin_ok ? j->origin : ": judged alone");
	return rc;
}

int tg_daemon_pool_filter(tg_pool_filter *f, const tg_job_ctx *c, const tg_job *j)
{
	memset(f, 0, sizeof(*f));
	int keyed = c->keyed;
	if (j->pr > 0 && !(keyed && j->trusted)) {
		if (!j->origin_ok)
			return 0;
		f->by_origin = 1;
		f->origin = j->origin;
		return 1;
	}
	if (keyed && !j->trusted)
		return 0; /* an unsigned run of no pull request: never with others */
	f->trusted_only = keyed;
	return 1;
}

int tg_daemon_origin_may_post(int *ok, char *why, size_t cap, const tg_job_ctx *c, const tg_job *j)
{
	*ok = 1;
	int keyed = c->keyed;
	if (j->pr <= 0 || j->origin_ok || (keyed && j->trusted))
		return 0;
	tg_pool_filter f = {.by_origin = 2};
	tg_job *runs = NULL;
	size_t n = 0;
	int rc = tg_store_find_pool(&runs, &n, c->store, j->repo, j->commit, j->workload, &f, 1);
	if (!rc && n) {
		*ok = 0;
		snprintf(why, cap,
		         "its CI run is not confirmed, and run %s of a confirmed CI run has judged this head of pull "
		         "request %lld",
		         runs[0].run_id, (long long)j->pr);
	}
	tg_store_jobs_free(runs, n);
	return rc;
}
