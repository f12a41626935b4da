/*
 * health.c - the loop's heartbeat, its current step, the store's last
 * answer and readiness, behind one mutex (health.h).
 */
#include "health.h"
#include "../../util/tg.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tg_health {
	pthread_mutex_t mu;
	tg_health_opts o;
	int64_t beat_ms; /* the last move */
	char step[128];  /* "" when idle */
	int store_ok;    /* -1: not asked yet */
	char store_why[256];
	int ready;
	char ready_why[256];
};

static int64_t mono_ms(void *ctx)
{
	(void)ctx;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int64_t now(const tg_health *h)
{
	return h->o.now_ms ? h->o.now_ms(h->o.now_ctx) : mono_ms(NULL);
}

int tg_health_new(tg_health **out, const tg_health_opts *opts)
{
	*out = NULL;
	tg_health *h = tg_calloc(1, sizeof(*h));
	if (!h)
		return TG_ENOMEM;
	if (opts)
		h->o = *opts;
	if (h->o.quiet_ms <= 0)
		h->o.quiet_ms = 20000;
	if (h->o.step_ms < h->o.quiet_ms)
		h->o.step_ms = h->o.quiet_ms;
	pthread_mutex_init(&h->mu, NULL);
	h->beat_ms = now(h);
	h->store_ok = -1;
	snprintf(h->ready_why, sizeof(h->ready_why), "starting");
	*out = h;
	return 0;
}

void tg_health_free(tg_health *h)
{
	if (!h)
		return;
	pthread_mutex_destroy(&h->mu);
	free(h);
}

void tg_health_beat(tg_health *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->beat_ms = now(h);
	pthread_mutex_unlock(&h->mu);
}

void tg_health_step(tg_health *h, const char *step)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->beat_ms = now(h);
	snprintf(h->step, sizeof(h->step), "%s", step ? step : "");
	pthread_mutex_unlock(&h->mu);
}

void tg_health_store(tg_health *h, int ok, const char *why)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->store_ok = ok != 0;
	snprintf(h->store_why, sizeof(h->store_why), "%s", ok || !why ? "" : why);
	pthread_mutex_unlock(&h->mu);
}

void tg_health_ready(tg_health *h, int ready, const char *why)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->ready = ready != 0;
	snprintf(h->ready_why, sizeof(h->ready_why), "%s", why ? why : ready ? "ready" : "not ready");
	pthread_mutex_unlock(&h->mu);
}

/* Milliseconds as seconds with one decimal for messages ("2.5 s"). */
static double secs(int64_t ms)
{
	return (double)ms / 1000.0;
}

int tg_health_live(char *why, size_t cap, tg_health *h)
{
	if (!h) {
		snprintf(why, cap, "no health state");
		return 0;
	}
	pthread_mutex_lock(&h->mu);
	int64_t quiet = now(h) - h->beat_ms;
	int busy = h->step[0] != 0;
	int64_t allowed = busy ? h->o.step_ms : h->o.quiet_ms;
	int live = 0;
	if (quiet > allowed) {
		if (busy)
			snprintf(why, cap, "the loop has been in one step, %s, for %.1f s (allowed: %.1f s, the lease)",
			         h->step, secs(quiet), secs(allowed));
		else
			snprintf(why, cap, "the loop has not moved for %.1f s (allowed: %.1f s, two poll intervals)",
			         secs(quiet), secs(allowed));
	} else if (h->store_ok == 0) {
		snprintf(why, cap, "the job store does not answer: %s", h->store_why);
	} else {
		live = 1;
		snprintf(why, cap, "ok: the loop moved %.1f s ago, %s", secs(quiet), busy ? h->step : "idle");
	}
	pthread_mutex_unlock(&h->mu);
	return live;
}

int tg_health_is_ready(char *why, size_t cap, tg_health *h)
{
	if (!h) {
		snprintf(why, cap, "no health state");
		return 0;
	}
	pthread_mutex_lock(&h->mu);
	int r = h->ready;
	snprintf(why, cap, "%s", h->ready_why);
	pthread_mutex_unlock(&h->mu);
	return r;
}
