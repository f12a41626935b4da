/*
 * daemon_metrics.h - what the job machine counts and tells (daemon_metrics.c):
 * the families of its metrics registry (docs/operations.md, "Metrics",
 * explains each), and the calls its files make at each event, one a
 * place, so that the loop (daemon.c), the jobs (job.c) and the lease
 * reclaim (lease_reclaim.c) stay about their work:
 *
 *   a new run          TG_DM_RUNS_SEEN                    (daemon.c, scan_one)
 *   a run refused      tg_daemon_count_refused, _limit_refused (daemon.c, job.c)
 *   a job finished     tg_daemon_count_finished           (job.c)
 *   an analysis        TG_DM_ANALYSIS_SECONDS             (job.c)
 *   a poll             tg_daemon_count_poll               (daemon.c)
 *   a job's step       tg_daemon_mark_step                (daemon.c, job.c)
 *   the queue          tg_daemon_count_queue              (daemon.c)
 *   a lease reclaimed  TG_DM_LEASE_RECLAIMS               (lease_reclaim.c)
 *   an HTTP attempt    tg_daemon_http_observer            (daemon.c: forges, S3)
 *   a page published   TG_DM_PAGES_PUBLISHED, _ERRORS      (publish.c)
 *
 * The registry and the health state are the daemon's (tg_daemon.metrics,
 * .health); every call here accepts a daemon without them.
 */
#ifndef TG_DAEMON_METRICS_H
#define TG_DAEMON_METRICS_H

#include "metrics/health.h"
#include "metrics/metrics.h"
#include "store/store.h"

#include <stdint.h>

typedef struct tg_daemon tg_daemon;

/* The families, in the order /metrics shows them. */
enum {
	TG_DM_BUILD_INFO = 0,   /* gauge {version} 1 */
	TG_DM_START_TIME,       /* gauge: Unix s */
	TG_DM_JOBS,             /* gauge {state} */
	TG_DM_QUEUE_LENGTH,     /* gauge: unfinished jobs */
	TG_DM_QUEUE_OLDEST,     /* gauge: s since the oldest unfinished job was found */
	TG_DM_RUNS_SEEN,        /* counter */
	TG_DM_RUNS_JUDGED,      /* counter */
	TG_DM_RUNS_REFUSED,     /* counter {reason} */
	TG_DM_VERDICTS,         /* counter {verdict} */
	TG_DM_JOB_SECONDS,      /* histogram: found to finished */
	TG_DM_ANALYSIS_SECONDS, /* histogram */
	TG_DM_POLLS,            /* counter */
	TG_DM_POLL_ERRORS,      /* counter */
	TG_DM_LAST_POLL,        /* gauge: Unix s of the last successful listing */
	TG_DM_FORGE_REQUESTS,   /* counter {forge, code} */
	TG_DM_STORAGE_REQUESTS, /* counter {code} */
	TG_DM_LEASE_RECLAIMS,   /* counter */
	TG_DM_PAGES_PUBLISHED,  /* counter */
	TG_DM_PUBLISH_ERRORS,   /* counter */
	TG_DM_NFAMILIES
};

/* The daemon's registry: every family, and the series that exist before
 * anything happens (each job state, verdict and refusal reason at 0).
 * *out is freed with tg_metrics_free. Returns 0 or TG_ENOMEM. */
int tg_daemon_metrics_new(tg_metrics **out);

/* Why runs are refused, the values of TG_DM_RUNS_REFUSED's label. */
#define TG_REFUSED_FOLDER_NAME "folder_name"               /* a workload or run-id folder that is not a name */
#define TG_REFUSED_TOO_MANY_WORKLOADS "too_many_workloads" /* limits.max_workloads */
#define TG_REFUSED_TOO_MANY_RUNS "too_many_runs"           /* limits.max_runs */
#define TG_REFUSED_TOO_MANY_UNSIGNED "too_many_unsigned_branch_runs" /* limits.max_unsigned_branch_runs */
#define TG_REFUSED_BAD_MANIFEST "bad_manifest"
#define TG_REFUSED_BAD_TRACE "bad_trace"   /* malformed, missing, over a limit */
#define TG_REFUSED_BAD_BRANCH "bad_branch" /* a branch name git refuses */
#define TG_REFUSED_GAVE_UP "gave_up"       /* daemon.max_attempts */
#define TG_REFUSED_OVER_BUDGET "over_budget" /* daemon.job_timeout, daemon.job_memory, or the analysis crashed */
#define TG_REFUSED_NOT_CONFIGURED "repository_not_configured"

/* A run refused for reason (one of the above). */
void tg_daemon_count_refused(tg_daemon *d, const char *reason);

/* A run refused by a limit of admit.c (tg_daemon_admit), why as it says
 * it ("more than limits.max_runs (8) runs of train at this commit"). */
void tg_daemon_count_limit_refused(tg_daemon *d, const char *why);

/* Job j reached done or failed with verdict (pass, warn, block,
 * inconclusive, error; NULL: none) and summary: the verdict counted, the
 * run judged (done) or refused (an error: the reason read from the
 * summary, "error: bad trace: ..."), and the time since it was found
 * (j->created_at) observed. */
void tg_daemon_count_finished(tg_daemon *d, const tg_job *j, const char *verdict, const char *summary);

/* A listing of the storage: ok, or failed (a poll error, the message in
 * tg_error_last()). A beat; the first listing that works makes the daemon
 * ready, one that fails before says why it is not. */
void tg_daemon_count_poll(tg_daemon *d, int ok);

/* The jobs by state and the queue's age, read from the store (the health
 * state learns whether it answered). Returns the store's code. */
int tg_daemon_count_queue(tg_daemon *d);

/* The loop is in job j's current state ("job 12 (posting) of acme/llm"):
 * the health state's step, and a beat. */
void tg_daemon_mark_step(tg_daemon *d, const tg_job *j);

/* What one HTTP client's observer needs: the registry, and the forge's name
 * (NULL: the storage's S3 client). */
typedef struct tg_daemon_http_ctx {
	tg_metrics *metrics;
	const char *forge;
} tg_daemon_http_ctx;

/* The tg_http_opts.observe of the forges' and the storage's clients: one
 * request counted by status code ("0" when none came). ctx is a
 * tg_daemon_http_ctx that outlives the client. */
void tg_daemon_http_observer(void *ctx, long status);

#endif
