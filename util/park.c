/*
 * park.c - implements park.h: parked threads, a list of those idle.
 *
 * Each thread has its own lock and condition variable: the caller that
 * hands it a job and the one that joins it wait on the thread's, never on
 * one another's. The idle list is the process's (one lock); a fork child
 * empties it (pthread_atfork), since the threads on it stayed in the
 * parent. Threads are never ended: parked they cost a sleeping thread
 * and its stack's touched pages, and exit() takes them.
 */
#include "park.h"
#include "affinity.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

enum { PARKED, BUSY, DONE };

/* How long a new thread waits awake for its first job (await_first_job). */
#define FIRST_JOB_SPIN_NS 1000000

struct tg_park {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* state changed: a job came, or it is done */
	int state;
	void *(*fn)(void *);
	void *arg;
	int detached; /* the job's thread parks again by itself (nobody joins) */
	tg_park *next; /* on the idle list */
};

static pthread_mutex_t idle_mu = PTHREAD_MUTEX_INITIALIZER;
static tg_park *idle;
static tg_park *forgotten; /* a fork child's: its parent's idle list */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* In a fork child: the parked threads are the parent's. Their records
 * stay allocated and reachable (a leak checker says nothing of them). */
static void forget_idle(void)
{
	if (idle) {
		tg_park *last = idle;
		while (last->next)
			last = last->next;
		last->next = forgotten;
		forgotten = idle;
	}
	idle = NULL;
	pthread_mutex_init(&idle_mu, NULL);
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_idle);
}

static void idle_push(tg_park *p)
{
	pthread_mutex_lock(&idle_mu);
	p->next = idle;
	idle = p;
	pthread_mutex_unlock(&idle_mu);
}

/* Spins until p's first job is handed to it, for up to FIRST_JOB_SPIN_NS.
 * Threads are started for a job about to come (tg_park_start before a
 * report's read or a diff's first: 0.3 ms later). Asleep, the thread had
 * to be woken for it, and in 4 of 30 compiled_r1 reports it ran 1.7-4 ms
 * later: on this VM a CPU that idled is slow to take a woken thread (a
 * test program: 0.8 ms median, 2.8 ms p90, after 5 ms idle). Not where
 * the thread may use one CPU only: the job's giver needs that CPU. The
 * state is read without the lock; its writes are atomic stores (made
 * under the lock as ever). */
static void await_first_job(tg_park *p)
{
	struct timespec t0, t;
	if (tg_affinity_count() == 1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 1; __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != BUSY; i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		if (i % 64)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > FIRST_JOB_SPIN_NS)
			return; /* none came: park asleep */
	}
}

static void *park_loop(void *arg)
{
	tg_park *p = arg;
	await_first_job(p);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->state != BUSY)
			pthread_cond_wait(&p->cv, &p->mu);
		void *(*fn)(void *) = p->fn;
		void *job = p->arg;
		pthread_mutex_unlock(&p->mu);
		fn(job);
		pthread_mutex_lock(&p->mu);
		if (p->detached) { /* nobody joins: park again, as tg_park_join does */
			p->detached = 0;
			__atomic_store_n(&p->state, PARKED, __ATOMIC_RELEASE);
			p->fn = NULL;
			p->arg = NULL;
			pthread_mutex_unlock(&p->mu);
			idle_push(p);
			pthread_mutex_lock(&p->mu);
			continue;
		}
		__atomic_store_n(&p->state, DONE, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&p->cv);
	}
	return NULL;
}

/* A new parked thread, not yet on the idle list; NULL with errno set. */
static tg_park *park_new(void)
{
	pthread_once(&atfork_once, register_atfork);
	tg_park *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_t th;
	/* off the creator's CPU: a parked thread is started for a job about to come */
	int rc = tg_affinity_thread_create(&th, park_loop, p);
	if (rc) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		free(p);
		errno = rc;
		return NULL;
	}
	pthread_detach(th);
	return p;
}


int tg_park_start(void)
{
	pthread_mutex_lock(&idle_mu);
	int have = idle != NULL;
	pthread_mutex_unlock(&idle_mu);
	if (have)
		return 0;
	tg_park *p = park_new();
	if (!p)
		return errno;
	idle_push(p);
	return 0;
}

/* Hands fn(arg) to an idle thread, or to a new one; *out its record. */
static int hand(tg_park **out, void *(*fn)(void *), void *arg, int detached)
{
	pthread_mutex_lock(&idle_mu);
	tg_park *p = idle;
	if (p)
		idle = p->next;
	pthread_mutex_unlock(&idle_mu);
	if (!p && !(p = park_new())) {
		*out = NULL;
		return errno;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->arg = arg;
	p->detached = detached;
	__atomic_store_n(&p->state, BUSY, __ATOMIC_RELEASE); /* read unlocked by await_first_job */
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	*out = p;
	return 0;
}

int tg_park_run(tg_park **out, void *(*fn)(void *), void *arg) { return hand(out, fn, arg, 0); }

int tg_park_run_detached(void *(*fn)(void *), void *arg)
{
	tg_park *p;
	return hand(&p, fn, arg, 1); /* p is its thread's from now on */
}

void tg_park_join(tg_park *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	while (h->state != DONE)
		pthread_cond_wait(&h->cv, &h->mu);
	__atomic_store_n(&h->state, PARKED, __ATOMIC_RELEASE);
	h->fn = NULL;
	h->arg = NULL;
	pthread_mutex_unlock(&h->mu);
	idle_push(h);
}
