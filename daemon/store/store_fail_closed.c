/*
 * store_fail_closed.c - the store's part in failing closed (store.h,
 * "failing closed"; docs/security.md, issue 21): tampered runs, judging a
 * done run again, the counts that the admission limits read, a side's
 * pool by trust and proof of origin, the pull requests' runs to look at
 * again, and a branch's tampered runs. Arguments are checked here and
 * outputs cleared; the backends run the SQL.
 */
#include "store_impl.h"
#include "../../util/tg.h"

#include <string.h>
#include <time.h>

/* The store's clock, as store.c's (tg_store_debug_set_time). */
static int64_t now_of(const tg_store *s)
{
	return s->fixed_now ? s->fixed_now : (int64_t)time(NULL);
}

int tg_store_job_set_tampered(tg_store *s, int64_t id, const char *why)
{
	if (!why || !*why)
		return tg_error_set(TG_EINVAL, "store: job %lld: tampered without a reason", (long long)id);
	return s->ops->job_set_tampered(s, id, why);
}

int tg_store_job_rejudge(tg_store *s, int64_t id)
{
	return s->ops->job_rejudge(s, id, now_of(s));
}

int tg_store_count_runs(tg_run_counts *out, tg_store *s, const char *repo, const char *commit, const char *workload,
                        int trusted)
{
	memset(out, 0, sizeof(*out));
	if (!repo || !commit || !workload)
		return tg_error_set(TG_EINVAL, "store: count_runs needs repo, commit and workload");
	return s->ops->count_runs(s, repo, commit, workload, trusted != 0, out);
}

int tg_store_find_pool(tg_job **out, size_t *n, tg_store *s, const char *repo, const char *commit,
                       const char *workload, const tg_pool_filter *f, size_t limit)
{
	*out = NULL;
	*n = 0;
	if (!repo || !commit || !workload || !f || !limit)
		return tg_error_set(TG_EINVAL, "store: find_pool needs repo, commit, workload, a filter and a limit");
	return s->ops->find_pool(s, repo, commit, workload, f, limit > (size_t)INT64_MAX ? INT64_MAX : (int64_t)limit,
	                         out, n);
}

int tg_store_pr_runs(tg_job **out, size_t *n, tg_store *s, int64_t since, size_t limit)
{
	*out = NULL;
	*n = 0;
	if (!limit)
		return tg_error_set(TG_EINVAL, "store: pr_runs needs a limit");
	return s->ops->pr_runs(s, since, limit > (size_t)INT64_MAX ? INT64_MAX : (int64_t)limit, out, n);
}

int tg_store_tampered(tg_job **out, size_t *n, tg_store *s, const char *repo, const char *branch)
{
	*out = NULL;
	*n = 0;
	if (!repo || !branch)
		return tg_error_set(TG_EINVAL, "store: tampered needs repo and branch");
	return s->ops->tampered(s, repo, branch, out, n);
}
