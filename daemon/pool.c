/*
 * pool.c - several runs of one commit on one side (issue 13): every done
 * run of the same repository, commit and workload joins the side, so that
 * the gate judges with runs as the samples (rules/judge.h: traces of the
 * same rank are separate runs) and the noise between them widens the
 * interval. A pull request is judged again, with all its runs, each time
 * another run of its commit is analysed. Which runs may join is the
 * caller's filter (origin.c: trusted runs for a signed run, runs of the
 * same confirmed CI run for a pull request's); a run that was judged but
 * can no longer be read is recorded as tampered and left out. A pooled run
 * is read from its stored run data (side.c), not from its traces; the JSON
 * behind one judgement is capped (limits.max_pool_bytes), the newest runs
 * first.
 */
#include "daemon_impl.h"
#include "../util/log.h"
#include "pool.h"

#include <stdlib.h>
#include <string.h>

/* Run r of a side could not be read for good (msg says why): its files
 * no longer match what was judged. Recorded as tampered (never pooled or a
 * baseline again, listed by history) and logged. */
static void left_out(const tg_job_ctx *c, const tg_job *r, const char *msg)
{
	tg_log(TG_LOG_WARN, "run %s (job %lld) left out of the pool and recorded as tampered: %s", r->prefix,
	       (long long)r->id, msg);
	if (tg_store_job_set_tampered(c->store, r->id, msg))
		tg_log(TG_LOG_WARN, "run %s: %s", r->prefix, tg_error_last());
}

int tg_pool_runs(tg_side *side, size_t *added, size_t *left_over, const tg_job_ctx *c, const tg_job *j,
                 const tg_pool_filter *f, size_t max, uint64_t max_bytes)
{
	*added = *left_over = 0;
	if (max == 0)
		return 0;
	tg_job *runs = NULL;
	size_t n = 0;
	int rc = tg_store_find_pool(&runs, &n, c->store, j->repo, j->commit, j->workload, f, max + 1);
	for (size_t i = 0; !rc && i < n && *added < max; i++) {
		if (runs[i].id == j->id)
			continue;
		char key[6000];
		snprintf(key, sizeof(key), "%s/manifest.json", runs[i].prefix);
		tg_manifest *m = NULL;
		tg_side s;
		int permanent = 0;
		memset(&s, 0, sizeof(s));
		int lr = tg_manifest_parse(&m, runs[i].manifest ? runs[i].manifest : "",
		                           runs[i].manifest ? strlen(runs[i].manifest) : 0, key, c->cfg->max_traces);
		int parsed = !lr;
		if (!lr)
			lr = tg_side_load(&s, &permanent, c->d, &runs[i], m, 0);
		tg_manifest_free(m);
		if (lr && !permanent && parsed) {
			rc = lr; /* the storage may come back: try the whole job again */
			break;
		}
		if (lr) {
			/* a run that was judged once but can be read neither from its
			 * run data nor from storage: the side goes on without it */
			char msg[1024];
			snprintf(msg, sizeof(msg), "%s", tg_error_last());
			left_out(c, &runs[i], msg);
			continue;
		}
		if (side->json_bytes + s.json_bytes > max_bytes) {
			/* limits.max_pool_bytes: the newest runs fill the judgement */
			tg_log(TG_LOG_INFO,
			       "run %s left out of the pool: its %llu bytes of JSON would take the judgement past "
			       "limits.max_pool_bytes (%llu)",
			       runs[i].prefix, (unsigned long long)s.json_bytes, (unsigned long long)c->cfg->max_pool_bytes);
			tg_side_free(&s);
			(*left_over)++;
			continue;
		}
		if ((rc = tg_side_append(side, &s))) {
			tg_side_free(&s);
			break;
		}
		(*added)++;
	}
	tg_store_jobs_free(runs, n);
	return rc;
}
