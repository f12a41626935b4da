/*
 * daemon_metrics.c - the job machine's metrics families and the calls that
 * count its events (daemon_metrics.h). The families' names follow
 * Prometheus's conventions (a tracegate_ prefix, _total for counters, base
 * units: seconds, Unix seconds for times), which `promtool check metrics`
 * checks (tests/it_endpoints.sh).
 */
#include "daemon_metrics.h"
#include "daemon_impl.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Found to finished: most runs take seconds to minutes; a backlog, hours. */
static const double job_buckets[] = {1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 10800};
/* One analysis: a small trace in a fraction of a second, a large one in a minute or more. */
static const double analysis_buckets[] = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};

#define NB(a) (sizeof(a) / sizeof((a)[0]))

static const tg_metrics_family families[TG_DM_NFAMILIES] = {
	[TG_DM_BUILD_INFO] = {"tracegate_build_info", "The running tracegate's version (always 1).", TG_METRICS_GAUGE,
	                      {"version", NULL}, NULL, 0},
	[TG_DM_START_TIME] = {"tracegate_start_time_seconds", "When the daemon started, Unix time.", TG_METRICS_GAUGE,
	                      {NULL, NULL}, NULL, 0},
	[TG_DM_JOBS] = {"tracegate_jobs", "Jobs in the store by state (every daemon's, as last read).",
	                TG_METRICS_GAUGE, {"state", NULL}, NULL, 0},
	[TG_DM_QUEUE_LENGTH] = {"tracegate_queue_length", "Unfinished jobs: seen, analysing or posting.",
	                        TG_METRICS_GAUGE, {NULL, NULL}, NULL, 0},
	[TG_DM_QUEUE_OLDEST] = {"tracegate_queue_oldest_age_seconds",
	                        "How long ago the oldest unfinished job was found (0: none).", TG_METRICS_GAUGE,
	                        {NULL, NULL}, NULL, 0},
	[TG_DM_RUNS_SEEN] = {"tracegate_runs_seen_total", "New runs found in the storage by this daemon.",
	                     TG_METRICS_COUNTER, {NULL, NULL}, NULL, 0},
	[TG_DM_RUNS_JUDGED] = {"tracegate_runs_judged_total", "Runs this daemon took to a verdict (jobs done).",
	                       TG_METRICS_COUNTER, {NULL, NULL}, NULL, 0},
	[TG_DM_RUNS_REFUSED] = {"tracegate_runs_refused_total", "Runs this daemon refused or could not judge, by reason.",
	                        TG_METRICS_COUNTER, {"reason", NULL}, NULL, 0},
	[TG_DM_VERDICTS] = {"tracegate_verdicts_total", "Finished jobs by verdict.", TG_METRICS_COUNTER,
	                    {"verdict", NULL}, NULL, 0},
	[TG_DM_JOB_SECONDS] = {"tracegate_job_duration_seconds",
	                       "From a run found in the storage to its job finished (done or failed).",
	                       TG_METRICS_HISTOGRAM, {NULL, NULL}, job_buckets, NB(job_buckets)},
	[TG_DM_ANALYSIS_SECONDS] = {"tracegate_analysis_duration_seconds",
	                            "One analysis: the traces read, the baseline found, the rules run.",
	                            TG_METRICS_HISTOGRAM, {NULL, NULL}, analysis_buckets, NB(analysis_buckets)},
	[TG_DM_POLLS] = {"tracegate_storage_polls_total", "Listings of the storage.", TG_METRICS_COUNTER,
	                 {NULL, NULL}, NULL, 0},
	[TG_DM_POLL_ERRORS] = {"tracegate_storage_poll_errors_total", "Listings of the storage that failed.",
	                       TG_METRICS_COUNTER, {NULL, NULL}, NULL, 0},
	[TG_DM_LAST_POLL] = {"tracegate_last_successful_poll_timestamp_seconds",
	                     "When the storage was last listed without an error, Unix time (0: never).",
	                     TG_METRICS_GAUGE, {NULL, NULL}, NULL, 0},
	[TG_DM_FORGE_REQUESTS] = {"tracegate_forge_requests_total",
	                          "HTTP requests to the forges by forge and status code (0: no answer), retries "
	                          "included.",
	                          TG_METRICS_COUNTER, {"forge", "code"}, NULL, 0},
	[TG_DM_STORAGE_REQUESTS] = {"tracegate_storage_requests_total",
	                            "HTTP requests to the S3 storage by status code (0: no answer), retries included.",
	                            TG_METRICS_COUNTER, {"code", NULL}, NULL, 0},
	[TG_DM_LEASE_RECLAIMS] = {"tracegate_lease_reclaims_total",
	                          "Leases of dead daemons on this host ended at once.", TG_METRICS_COUNTER,
	                          {NULL, NULL}, NULL, 0},
	[TG_DM_PAGES_PUBLISHED] = {"tracegate_history_pages_published_total",
	                           "History pages and indexes published (history.publish).", TG_METRICS_COUNTER,
	                           {NULL, NULL}, NULL, 0},
	[TG_DM_PUBLISH_ERRORS] = {"tracegate_history_publish_errors_total",
	                          "Publications of the history that failed (retried after the next judged run).",
	                          TG_METRICS_COUNTER, {NULL, NULL}, NULL, 0},
};

static const char *const verdicts[] = {"pass", "warn", "block", "inconclusive", "error"};
static const char *const refusals[] = {TG_REFUSED_FOLDER_NAME, TG_REFUSED_TOO_MANY_WORKLOADS,
                                       TG_REFUSED_TOO_MANY_RUNS, TG_REFUSED_TOO_MANY_UNSIGNED,
                                       TG_REFUSED_BAD_MANIFEST, TG_REFUSED_BAD_TRACE,
                                       TG_REFUSED_BAD_BRANCH,  TG_REFUSED_GAVE_UP,
                                       TG_REFUSED_OVER_BUDGET, TG_REFUSED_NOT_CONFIGURED};

int tg_daemon_metrics_new(tg_metrics **out)
{
	int rc = tg_metrics_new(out, families, TG_DM_NFAMILIES);
	if (rc)
		return rc;
	tg_metrics *m = *out;
	tg_metrics_set(m, TG_DM_BUILD_INFO, TG_VERSION, NULL, 1);
	tg_metrics_set(m, TG_DM_START_TIME, NULL, NULL, (double)time(NULL));
	for (int s = 0; s <= TG_JOB_FAILED; s++)
		tg_metrics_set(m, TG_DM_JOBS, tg_job_state_name((tg_job_state)s), NULL, 0);
	for (size_t i = 0; i < NB(verdicts); i++)
		tg_metrics_add(m, TG_DM_VERDICTS, verdicts[i], NULL, 0);
	for (size_t i = 0; i < NB(refusals); i++)
		tg_metrics_add(m, TG_DM_RUNS_REFUSED, refusals[i], NULL, 0);
	return 0;
}

void tg_daemon_count_refused(tg_daemon *d, const char *reason)
{
	tg_metrics_add(d->metrics, TG_DM_RUNS_REFUSED, reason, NULL, 1);
}

void tg_daemon_count_limit_refused(tg_daemon *d, const char *why)
{
	const char *r = strstr(why, "limits.max_unsigned_branch_runs") ? TG_REFUSED_TOO_MANY_UNSIGNED
	                : strstr(why, "limits.max_workloads")          ? TG_REFUSED_TOO_MANY_WORKLOADS
	                : strstr(why, "limits.max_runs")               ? TG_REFUSED_TOO_MANY_RUNS
	                                                               : "other";
	tg_daemon_count_refused(d, r);
}

/* The reason of an error outcome, from its summary ("error: WHAT: ...",
 * job.c's set_error). */
static const char *refusal_of(const char *summary)
{
	static const char *const what[][2] = {{"error: bad manifest:", TG_REFUSED_BAD_MANIFEST},
	                                      {"error: bad trace:", TG_REFUSED_BAD_TRACE},
	                                      {"error: bad branch:", TG_REFUSED_BAD_BRANCH},
	                                      {"error: tracegate: gave up", TG_REFUSED_GAVE_UP},
	                                      {"error: budget:", TG_REFUSED_OVER_BUDGET}};
	for (size_t i = 0; summary && i < NB(what); i++)
		if (!strncmp(summary, what[i][0], strlen(what[i][0])))
			return what[i][1];
	return "other";
}

void tg_daemon_count_finished(tg_daemon *d, const tg_job *j, const char *verdict, const char *summary)
{
	int error = verdict && !strcmp(verdict, "error");
	if (verdict)
		tg_metrics_add(d->metrics, TG_DM_VERDICTS, verdict, NULL, 1);
	if (error)
		tg_daemon_count_refused(d, refusal_of(summary));
	else
		tg_metrics_add(d->metrics, TG_DM_RUNS_JUDGED, NULL, NULL, 1);
	int64_t now = (int64_t)time(NULL);
	if (j->created_at > 0 && now >= j->created_at)
		tg_metrics_observe(d->metrics, TG_DM_JOB_SECONDS, NULL, NULL, (double)(now - j->created_at));
}

void tg_daemon_count_poll(tg_daemon *d, int ok)
{
	tg_metrics_add(d->metrics, TG_DM_POLLS, NULL, NULL, 1);
	if (!ok)
		tg_metrics_add(d->metrics, TG_DM_POLL_ERRORS, NULL, NULL, 1);
	else
		tg_metrics_set(d->metrics, TG_DM_LAST_POLL, NULL, NULL, (double)time(NULL));
	tg_health_beat(d->health);
	/* ready from the first listing on; until then, why not */
	char why[300];
	if (tg_health_is_ready(why, sizeof(why), d->health))
		return;
	if (ok)
		tg_health_ready(d->health, 1, NULL);
	else {
		snprintf(why, sizeof(why), "starting: the storage has not been listed yet: %.200s", tg_error_last());
		tg_health_ready(d->health, 0, why);
	}
}

int tg_daemon_count_queue(tg_daemon *d)
{
	tg_store_counts q;
	int rc = tg_store_count_jobs(&q, d->store);
	tg_health_store(d->health, !rc, rc ? tg_error_last() : NULL);
	if (rc)
		return rc;
	int64_t unfinished = 0;
	for (int s = 0; s <= TG_JOB_FAILED; s++) {
		tg_metrics_set(d->metrics, TG_DM_JOBS, tg_job_state_name((tg_job_state)s), NULL, (double)q.jobs[s]);
		if (s != TG_JOB_DONE && s != TG_JOB_FAILED)
			unfinished += q.jobs[s];
	}
	tg_metrics_set(d->metrics, TG_DM_QUEUE_LENGTH, NULL, NULL, (double)unfinished);
	int64_t age = q.oldest_unfinished ? (int64_t)time(NULL) - q.oldest_unfinished : 0;
	tg_metrics_set(d->metrics, TG_DM_QUEUE_OLDEST, NULL, NULL, (double)(age > 0 ? age : 0));
	return 0;
}

void tg_daemon_mark_step(tg_daemon *d, const tg_job *j)
{
	if (!d->health)
		return;
	char step[128];
	snprintf(step, sizeof(step), "job %lld (%s) of %s", (long long)j->id, tg_job_state_name(j->state),
	         j->repo ? j->repo : "?");
	tg_health_step(d->health, step);
}

void tg_daemon_http_observer(void *ctx, long status)
{
	const tg_daemon_http_ctx *c = ctx;
	char code[16];
	snprintf(code, sizeof(code), "%ld", status > 0 && status < 1000 ? status : 0);
	if (c->forge)
		tg_metrics_add(c->metrics, TG_DM_FORGE_REQUESTS, c->forge, code, 1);
	else
		tg_metrics_add(c->metrics, TG_DM_STORAGE_REQUESTS, code, NULL, 1);
}
