/*
 * baseline.c - which run a new run is compared with (daemon_impl.h:
 * tg_daemon_find_baseline; docs/baselines.md).
 *
 * A pull request's run: the merge-base of its commit with the target
 * branch, then the merge-base's first-parent ancestors (the target branch's
 * own history, not the commits merged into it), the nearest that has a done
 * run of the same workload. A branch build: the same walk from its commit's
 * first parent. The distance says how far back the baseline is, for the
 * comment.
 */
#include "daemon_impl.h"
#include "../util/log.h"
#include "repos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FETCH_PERIOD_S 10

void tg_daemon_fetch_when_due(tg_daemon *d, size_t ri, tg_git *g)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (d->fetched[ri] && now.tv_sec - d->fetched[ri] < FETCH_PERIOD_S)
		return;
	if (tg_git_fetch(g))
		tg_log(TG_LOG_WARN, "%s: fetch: %s (using the mirror as it is)", d->cfg->repos[ri].name, tg_error_last());
	else
		d->fetched[ri] = now.tv_sec ? now.tv_sec : 1;
}

/* Where the first-parent walk of job j starts (from) and the merge-base it
 * is measured from: for a pull request or another branch, the merge-base
 * of its commit with target; for a build of the target branch, its own
 * commit. *skip_self: the walk's first commit is the run's own (compare
 * with the commits before it). from[0] == 0 when there is none (why says
 * so); errors (git) are returned. */
static int walk_start(char from[41], char merge_base[41], int *skip_self, char *why, size_t whycap, tg_git *g,
                      const tg_config_repo *r, const tg_job *j, const char *target)
{
	from[0] = 0;
	if (j->pr > 0 || (j->branch && strcmp(j->branch, target))) {
		int rc = tg_git_merge_base(merge_base, g, j->commit, target);
		if (rc == TG_ENOTFOUND) {
			snprintf(why, whycap, "commit %.12s and branch %s share no history in %s", j->commit, target,
			         r->clone_url);
			return 0;
		}
		if (rc)
			return rc;
		memcpy(from, merge_base, 41);
		/* a pull request whose head is already in the target branch compares
		 * with the commits before it */
		*skip_self = !strcmp(merge_base, j->commit);
		return 0;
	}
	/* a build of the target branch itself: compare with its history */
	int rc = tg_git_has_commit(g, j->commit);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		snprintf(why, whycap, "commit %.12s is not in %s", j->commit, r->clone_url);
		return 0;
	}
	memcpy(from, j->commit, 41);
	memcpy(merge_base, j->commit, 41);
	*skip_self = 1;
	return 0;
}

/* The open job (seen, analysing, posting) of j's repository and workload
 * at commit, other than j itself, or NULL. */
static const tg_job *open_run_at(const tg_job *open, size_t nopen, const tg_job *j, const char *commit)
{
	for (size_t k = 0; k < nopen; k++)
		if (open[k].id != j->id && !strcmp(open[k].repo, j->repo) && !strcmp(open[k].workload, j->workload) &&
		    !strcmp(open[k].commit, commit))
			return &open[k];
	return NULL;
}

/* Runs of the same workload still being judged: a nearer one than what
 * the store has done would be the baseline, so the job waits for it
 * rather than compare with an older run (or with none). */
int tg_daemon_baseline_nearest(tg_job *base, int *found, int *distance, int64_t *blocker, const tg_job_ctx *c,
                               const tg_job *j, const char (*chain)[41], size_t n, size_t skip)
{
	*found = 0;
	*distance = -1;
	tg_job *open = NULL;
	size_t nopen = 0;
	int rc = tg_store_jobs_list(&open, &nopen, c->store,
	                            1u << TG_JOB_SEEN | 1u << TG_JOB_ANALYSING | 1u << TG_JOB_POSTING);
	if (rc)
		return rc;
	for (size_t i = skip; i < n && !*found; i++) {
		const tg_job *waiting = open_run_at(open, nopen, j, chain[i]);
		if (waiting) {
			*blocker = waiting->id;
			rc = tg_error_set(TG_EAGAIN, "the run %s of the baseline candidate %.12s is not judged yet",
			                  waiting->prefix ? waiting->prefix : "?", chain[i]);
			break;
		}
		tg_job cand;
		memset(&cand, 0, sizeof(cand));
		int fr = tg_store_find_run(&cand, c->store, j->repo, chain[i], j->workload, c->trusted_only);
		if (fr == TG_ENOTFOUND)
			continue;
		if (fr) {
			rc = fr;
			break;
		}
		*base = cand;
		*found = 1;
		*distance = (int)(i - skip);
	}
	tg_store_jobs_free(open, nopen);
	return rc;
}

int tg_daemon_find_baseline(tg_job *base, int *found, int *distance, char merge_base[41], char *why, size_t whycap,
                            const tg_job_ctx *c, const tg_job *j)
{
	const tg_config_repo *r = c->repo;
	*found = 0;
	*distance = -1;
	merge_base[0] = 0;
	why[0] = 0;
	tg_git *g;
	int rc = tg_daemon_git(&g, c->d, c->ri);
	if (rc)
		return rc;
	tg_daemon_fetch_when_due(c->d, c->ri, g);
	const char *target = j->target_branch && *j->target_branch ? j->target_branch
	                     : r->ntarget_branches                  ? r->target_branches[0]
	                                                            : "main";
	/* the manifest's word: only a configured target branch has baselines */
	int configured = 0;
	for (size_t i = 0; i < r->ntarget_branches; i++)
		configured |= !strcmp(r->target_branches[i], target);
	if (!configured) {
		snprintf(why, whycap, "the target branch %s is not one of the repository's target_branches", target);
		return 0;
	}
	char from[41];
	int skip_self = 0;
	if ((rc = walk_start(from, merge_base, &skip_self, why, whycap, g, r, j, target)) || !from[0])
		return rc;
	char(*chain)[41] = NULL;
	size_t n = 0;
	rc = tg_git_first_parents(&chain, &n, g, from, (size_t)r->baseline_depth + (size_t)skip_self);
	if (rc)
		return rc;
	rc = tg_daemon_baseline_nearest(base, found, distance, &c->d->blocker, c, j, (const char(*)[41])chain, n,
	                                (size_t)skip_self);
	free(chain);
	if (!rc && !*found)
		snprintf(why, whycap, "no run of %s on %s within %d first-parent commits of %.12s", j->workload, target,
		         r->baseline_depth, merge_base);
	return rc;
}
