/*
 * health.h - whether the daemon's loop is alive and its store answers
 * (GET /healthz), and whether it is ready (GET /readyz): what the job
 * machine tells as it goes, and what the endpoints' thread asks.
 *
 * The loop beats at every move: a pass's start, the scan, each claim,
 * each move of a job, the wait. It is stuck when it has not moved for
 *   quiet_ms   (two poll intervals) while idle: waiting for the storage,
 *              or between steps;
 *   step_ms    (the larger of the lease and two poll intervals) inside a
 *              step, a scan or a state of a job: a step may take long (a
 *              large trace, a slow forge), but one that outlasts the lease
 *              is stuck by the daemon's own measure, since another daemon
 *              may claim its job then.
 * The store answers when the loop's last call to it did (each pass
 * claims, so at least once a poll interval).
 *
 * Thread-safe: one mutex; the strings given are copied. Times come from
 * CLOCK_MONOTONIC, or from the test clock of the options.
 */
#ifndef TG_HEALTH_H
#define TG_HEALTH_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_health tg_health;

typedef struct tg_health_opts {
	int64_t quiet_ms;             /* stuck after this long without a move while idle */
	int64_t step_ms;              /* ... and inside a step */
	int64_t (*now_ms)(void *ctx); /* NULL: CLOCK_MONOTONIC; tests give their own */
	void *now_ctx;
} tg_health_opts;

/* A health state, alive as of now, not ready, the store not asked yet.
 * *out is freed with tg_health_free. Returns 0 or TG_ENOMEM. */
int tg_health_new(tg_health **out, const tg_health_opts *opts);

void tg_health_free(tg_health *h);

/* The loop moved (NULL h: nothing, as for every call below). */
void tg_health_beat(tg_health *h);

/* The loop begins step ("scanning the storage", "job 12 (posting)"; at
 * most 127 bytes kept), or, with NULL, ends the one it was in: a beat
 * either way. */
void tg_health_step(tg_health *h, const char *step);

/* The loop's last call to the store answered (ok), or failed with why. */
void tg_health_store(tg_health *h, int ok, const char *why);

/* The daemon is ready (ready 1) or not, why (e.g. "starting: the storage
 * has not been listed yet", "stopping"). */
void tg_health_ready(tg_health *h, int ready, const char *why);

/* 1 when the loop is alive and the store answers; else 0 and why (cap
 * bytes): "the loop has not moved for 25 s while idle (allowed: 20 s)",
 * "the loop has been in job 12 (posting) for 700 s (allowed: 600 s: the
 * lease)", "the job store does not answer: ...". Healthy, why is "ok: the
 * loop moved 3 s ago, idle". */
int tg_health_live(char *why, size_t cap, tg_health *h);

/* 1 when ready; why as tg_health_ready gave it ("ready" when it gave
 * none). */
int tg_health_is_ready(char *why, size_t cap, tg_health *h);

#endif
