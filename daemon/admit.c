/*
 * admit.c - which new runs the daemon takes in (daemon_impl.h:
 * tg_daemon_admit; docs/security.md, "Storage and limits").
 *
 * The limits an uploader can fill (workloads at one commit, runs of one
 * workload at one commit) are counted apart for trusted (signed) and
 * untrusted runs, from the job store, in the order runs arrive: whatever
 * an uploader without the signing key puts at a commit of the target
 * branch, that branch's own signed runs still get in and become its
 * baselines. Untrusted runs that name no pull request (builds of a branch,
 * never baselines, posting nothing under a signing key) get a smaller
 * budget of their own. Without a signing key every run is trusted and the
 * limits count them all together. Counting what the store holds rather
 * than what one listing shows makes the answer the same after a restart
 * and between daemons, whatever the folders are called.
 */
#include "daemon_impl.h"

#include <stdio.h>

int tg_daemon_admit(int *ok, char *why, size_t cap, tg_daemon *d, const tg_job *j)
{
	*ok = 1;
	why[0] = 0;
	const tg_config *c = d->cfg;
	int keyed = c->storage.signing_key.value != NULL;
	tg_run_counts k;
	int rc = tg_store_count_runs(&k, d->store, j->repo, j->commit, j->workload, j->trusted);
	if (rc)
		return rc;
	const char *class = !keyed ? "" : j->trusted ? "signed " : "unsigned ";
	if (k.runs == 0 && k.workloads >= c->max_workloads) {
		*ok = 0;
		snprintf(why, cap, "more than limits.max_workloads (%u) workloads%s%s at this commit", c->max_workloads,
		         keyed ? " of " : "", keyed ? (j->trusted ? "signed runs" : "unsigned runs") : "");
	} else if (k.runs >= c->max_runs) {
		*ok = 0;
		snprintf(why, cap, "more than limits.max_runs (%u) %sruns of %s at this commit", c->max_runs, class,
		         j->workload);
	} else if (keyed && !j->trusted && j->pr <= 0 && k.unsigned_branch >= c->max_unsigned_branch_runs) {
		*ok = 0;
		snprintf(why, cap,
		         "more than limits.max_unsigned_branch_runs (%u) unsigned runs naming no pull request at this commit",
		         c->max_unsigned_branch_runs);
	}
	return 0;
}
