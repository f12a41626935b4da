/*
 * tree_helper.c - a thread started before a trace is read, parked on a
 * condition variable until tg_tree_build_with hands it part of the tree's
 * build (tree.h). A thread created when the build starts waits behind the
 * other programs on a busy machine (a new thread is queued after them,
 * 0.5-3 ms on a two-core machine at load 2-4, longer than the build); a
 * parked one that is woken runs at once, as a sleeper. While the trace is
 * read it sleeps and costs nothing.
 *
 * The parked thread owns the helper once it is handed a job or told to
 * quit: it frees it, and the caller never touches it again.
 */
#include "tree_helper.h"
#include "../../util/affinity.h"

#include <pthread.h>
#include <stdlib.h>

struct tg_tree_helper {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void *(*fn)(void *);
	void *arg;
	int quit;
};

static void *parked(void *arg)
{
	tg_tree_helper *h = arg;
	pthread_mutex_lock(&h->mu);
	while (!h->fn && !h->quit)
		pthread_cond_wait(&h->cv, &h->mu);
	void *(*fn)(void *) = h->fn;
	void *job = h->arg;
	pthread_mutex_unlock(&h->mu);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h);
	if (fn)
		fn(job);
	return NULL;
}

tg_tree_helper *tg_tree_helper_start(void)
{
	tg_tree_helper *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	pthread_t th;
	if (tg_affinity_thread_create(&th, parked, h)) {
		pthread_mutex_destroy(&h->mu);
		pthread_cond_destroy(&h->cv);
		free(h);
		return NULL;
	}
	pthread_detach(th);
	return h;
}

/* Hands fn(arg) to h's thread, or tells it to quit (fn NULL); h is the
 * thread's from then on. */
static void hand(tg_tree_helper *h, void *(*fn)(void *), void *arg)
{
	pthread_mutex_lock(&h->mu);
	h->fn = fn;
	h->arg = arg;
	h->quit = 1;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

void tg_tree_helper_run(tg_tree_helper *h, void *(*fn)(void *), void *arg) { hand(h, fn, arg); }

void tg_tree_helper_free(tg_tree_helper *h)
{
	if (h)
		hand(h, NULL, NULL);
}
