/*
 * pr_check.c - ask the forge, not the manifest (daemon_impl.h:
 * tg_daemon_pr_check; docs/security.md, "Pull requests").
 *
 * A manifest's pull_request and target_branch are the uploader's word: a
 * run planted at a main commit with "pull_request": 5 would post a status
 * on main's commit and a comment on an unrelated pull request. Before a
 * run posts anything for pull request N, the forge says whether N is open,
 * what its head commit is (the run's commit must be it) and which branch it
 * merges into (the baseline's target branch).
 */
#include "daemon_impl.h"
#include "../util/log.h"
#include "repos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tg_daemon_pr_check(int *ok, char *why, size_t cap, const tg_job_ctx *c, tg_job *j)
{
	*ok = 1;
	why[0] = 0;
	if (j->pr <= 0)
		return 0;
	tg_forge *f = c->forge;
	if (tg_forge_get_kind(f) == TG_FORGE_OUTBOX)
		return 0; /* no forge to ask: a dry run trusts the manifest */
	tg_forge_pr p;
	int rc = tg_forge_pr_get(&p, f, j->repo, j->pr);
	if (rc == TG_ENOTFOUND) {
		*ok = 0;
		snprintf(why, cap, "%s has no pull request %lld", j->repo, (long long)j->pr);
		return 0;
	}
	if (rc)
		return rc;
	if (!p.open) {
		*ok = 0;
		snprintf(why, cap, "pull request %lld is not open", (long long)j->pr);
	} else if (strcmp(p.head, j->commit)) {
		*ok = 0;
		snprintf(why, cap, "commit %.12s is not the head of pull request %lld (%.12s)", j->commit,
		         (long long)j->pr, p.head[0] ? p.head : "none");
	}
	if (p.base && (!j->target_branch || strcmp(j->target_branch, p.base))) {
		if (j->target_branch)
			tg_log(TG_LOG_INFO, "job %lld: pull request %lld merges into %s (the manifest said %s)",
			       (long long)j->id, (long long)j->pr, p.base, j->target_branch);
		free(j->target_branch);
		j->target_branch = p.base;
		p.base = NULL;
	}
	tg_forge_pr_clear(&p);
	return 0;
}
