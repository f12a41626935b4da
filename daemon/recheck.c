/*
 * recheck.c - retargeted and re-pushed pull requests are judged again
 * (daemon_impl.h: tg_daemon_recheck; docs/daemon.md, "Judged again").
 *
 * A verdict is about a head commit compared with a baseline on a target
 * branch. Three things can make the verdict a pull request shows stale
 * without any new run arriving:
 *
 *   retarget   the pull request now merges into another branch (the status
 *              on its head still compares with the old one)
 *   base moved its merge-base with the target branch is another commit (the
 *              target branch was rewritten, or the head merged into it)
 *   re-push    its head is again a commit that was judged before (a push
 *              undone): the comment shows the verdict of the commit pushed
 *              in between
 *
 * Every daemon.recheck period (5 minutes by default) the daemon asks the
 * forge about each pull request it judged in the last 30 days (one GET per
 * pull request; the forges that cannot tell, the outbox, are skipped) and
 * sends the run concerned back to be judged again. The new verdict edits the
 * comment and posts the status again; it records what it was judged
 * against, so the next look finds nothing to do.
 */
#include "daemon_impl.h"
#include "../util/log.h"
#include "repos.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RECHECK_WINDOW_S (30 * 86400)
#define RECHECK_MAX_RUNS 5000

/* Runs by repository, pull request, workload, then the one posted last
 * first (the verdict the pull request shows), then the newest. */
static int by_group(const void *pa, const void *pb)
{
	const tg_job *a = pa, *b = pb;
	int c = strcmp(a->repo, b->repo);
	if (c)
		return c;
	if (a->pr != b->pr)
		return a->pr < b->pr ? -1 : 1;
	if ((c = strcmp(a->workload, b->workload)))
		return c;
	if (a->posted_ms != b->posted_ms)
		return a->posted_ms > b->posted_ms ? -1 : 1;
	return a->id > b->id ? -1 : a->id < b->id;
}

/* Sends run r back to be judged again, saying why; *requeued counts it. */
static void rejudge(tg_daemon *d, const tg_job *r, const char *why, size_t *requeued)
{
	if (tg_store_job_rejudge(d->store, r->id)) {
		tg_log(TG_LOG_WARN, "job %lld: %s", (long long)r->id, tg_error_last());
		return;
	}
	tg_log(TG_LOG_INFO, "job %lld (%s#%lld, %s): %s: judged again", (long long)r->id, r->repo, (long long)r->pr,
	       r->workload, why);
	(*requeued)++;
}

/* Whether run j, which the pull request p shows, was judged against what
 * the pull request merges into now: its target branch and the merge-base
 * of its head with that branch's tip. why (cap bytes) says what moved. */
static int moved(char *why, size_t cap, tg_daemon *d, size_t ri, const tg_job *j, const tg_forge_pr *p)
{
	if (!j->judged_target || !p->base)
		return 0; /* judged before the store kept it: nothing to compare with */
	if (strcmp(j->judged_target, p->base)) {
		snprintf(why, cap, "retargeted from %s to %s", j->judged_target, p->base);
		return 1;
	}
	tg_git *g;
	char mb[41];
	if (!j->judged_merge_base || tg_daemon_git(&g, d, ri))
		return 0;
	tg_daemon_fetch_when_due(d, ri, g);
	if (tg_git_merge_base(mb, g, j->commit, p->base))
		return 0; /* git cannot tell now: the next period asks again */
	if (!strcmp(mb, j->judged_merge_base))
		return 0;
	snprintf(why, cap, "its merge-base with %s moved from %.12s to %.12s", p->base, j->judged_merge_base, mb);
	return 1;
}

/* The runs g[0..n) of one pull request and workload (the one whose
 * verdict it shows first): which to judge again, given the pull request p.
 * None was posted (none was ever its head when judged): nothing shown to
 * be stale. */
static void recheck_group(tg_daemon *d, size_t ri, const tg_job *g, size_t n, const tg_forge_pr *p,
                          size_t *requeued)
{
	char why[300];
	if (!g[0].posted_ms)
		return;
	if (!strcmp(g[0].commit, p->head)) {
		if (moved(why, sizeof(why), d, ri, &g[0], p))
			rejudge(d, &g[0], why, requeued);
		return;
	}
	for (size_t i = 1; i < n; i++)
		if (!strcmp(g[i].commit, p->head)) {
			snprintf(why, sizeof(why), "the head of the pull request is %.12s again (was %.12s)", p->head,
			         g[0].commit);
			rejudge(d, &g[i], why, requeued);
			return;
		}
}

/* The runs r[0..n) of one pull request (sorted by_group): asks the forge
 * about it once, then looks at each workload's runs. */
static void recheck_pr(tg_daemon *d, const tg_job *r, size_t n, size_t *requeued)
{
	size_t ri = 0;
	if (!tg_daemon_repo(&ri, d, r[0].repo))
		return;
	tg_forge *f = tg_daemon_forge(d, ri);
	if (tg_forge_get_kind(f) == TG_FORGE_OUTBOX)
		return; /* cannot tell */
	tg_forge_pr p;
	int rc = tg_forge_pr_get(&p, f, r[0].repo, r[0].pr);
	if (rc) {
		if (rc != TG_ENOTFOUND)
			tg_log(TG_LOG_WARN, "recheck of %s#%lld: %s", r[0].repo, (long long)r[0].pr, tg_error_last());
		return;
	}
	for (size_t i = 0; p.open && p.head[0] && i < n;) {
		size_t k = i + 1;
		while (k < n && !strcmp(r[k].workload, r[i].workload))
			k++;
		recheck_group(d, ri, r + i, k - i, &p, requeued);
		i = k;
	}
	tg_forge_pr_clear(&p);
}

int tg_daemon_recheck(size_t *requeued, tg_daemon *d)
{
	size_t q = 0;
	if (requeued)
		*requeued = 0;
	tg_job *runs = NULL;
	size_t n = 0;
	int rc = tg_store_pr_runs(&runs, &n, d->store, (int64_t)time(NULL) - RECHECK_WINDOW_S, RECHECK_MAX_RUNS);
	if (rc)
		return rc;
	if (n)
		qsort(runs, n, sizeof(*runs), by_group);
	for (size_t i = 0; i < n && !(d->o.stop && *d->o.stop);) {
		size_t k = i + 1;
		while (k < n && runs[k].pr == runs[i].pr && !strcmp(runs[k].repo, runs[i].repo))
			k++;
		recheck_pr(d, runs + i, k - i, &q);
		i = k;
	}
	tg_store_jobs_free(runs, n);
	if (requeued)
		*requeued = q;
	return 0;
}
