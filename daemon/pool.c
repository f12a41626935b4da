/*
 * pool.c - several runs of one commit on one side (issue 13): every done
 * run of the same repository, commit and workload joins the side, so that
 * the gate judges with runs as the samples (rules/judge.h: traces of the
 * same rank are separate runs) and the noise between them widens the
 * interval. A pull request is judged again, with all its runs, each time
 * another run of its commit is analysed. Which runs may join is the
 * caller's filter (origin.c: trusted runs for a signed run, runs of the
 * same confirmed CI run for a pull request's); a run that was judged but
 * can no longer be read is recorded as tampered and left out.
 */
#include "daemon_impl.h"
#include "log.h"
#include "pool.h"

#include <stdlib.h>
#include <string.h>

/* Moves the traces of `from` to the end of `to`; from is left empty. */
static int side_append(tg_side *to, tg_side *from)
{
	size_t n = to->n + from->n;
	tg_trace **tr = realloc(to->traces, (n ? n : 1) * sizeof(*tr));
	if (tr)
		to->traces = tr;
	tg_tree **te = tr ? realloc(to->trees, (n ? n : 1) * sizeof(*te)) : NULL;
	if (te)
		to->trees = te;
	char **na = te ? realloc(to->names, (n ? n : 1) * sizeof(*na)) : NULL;
	if (na)
		to->names = na;
	int64_t *ra = na ? realloc(to->ranks, (n ? n : 1) * sizeof(*ra)) : NULL;
	if (!ra)
		return tg_error_set(TG_ENOMEM, "out of memory");
	to->ranks = ra;
	memcpy(to->traces + to->n, from->traces, from->n * sizeof(*tr));
	memcpy(to->trees + to->n, from->trees, from->n * sizeof(*te));
	memcpy(to->names + to->n, from->names, from->n * sizeof(*na));
	memcpy(to->ranks + to->n, from->ranks, from->n * sizeof(*ra));
	to->n = n;
	free(from->traces);
	free(from->trees);
	free(from->names);
	free(from->ranks);
	memset(from, 0, sizeof(*from));
	return 0;
}

/* Run r of a side could not be read for good (msg says why): its files
 * no longer match what was judged. Recorded as tampered (never pooled or a
 * baseline again, listed by history) and logged. */
static void left_out(tg_daemon *d, const tg_job *r, const char *msg)
{
	tg_log(TG_LOG_WARN, "run %s (job %lld) left out of the pool and recorded as tampered: %s", r->prefix,
	       (long long)r->id, msg);
	if (tg_store_job_set_tampered(d->store, r->id, msg))
		tg_log(TG_LOG_WARN, "run %s: %s", r->prefix, tg_error_last());
}

int tg_pool_runs(tg_side *side, size_t *added, tg_daemon *d, const tg_job *j, const tg_pool_filter *f, size_t max)
{
	*added = 0;
	if (max == 0)
		return 0;
	tg_job *runs = NULL;
	size_t n = 0;
	int rc = tg_store_find_pool(&runs, &n, d->store, j->repo, j->commit, j->workload, f, max + 1);
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
		                           runs[i].manifest ? strlen(runs[i].manifest) : 0, key, d->cfg->max_traces);
		int parsed = !lr;
		if (!lr)
			lr = tg_side_load(&s, &permanent, d, m);
		tg_manifest_free(m);
		if (lr && !permanent && parsed) {
			rc = lr; /* the storage may come back: try the whole job again */
			break;
		}
		if (lr) {
			/* a run that was judged once but cannot be read now: the side
			 * goes on without it */
			char msg[1024];
			snprintf(msg, sizeof(msg), "%s", tg_error_last());
			left_out(d, &runs[i], msg);
			continue;
		}
		if ((rc = side_append(side, &s))) {
			tg_side_free(&s);
			break;
		}
		(*added)++;
	}
	tg_store_jobs_free(runs, n);
	return rc;
}
