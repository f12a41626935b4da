/* test_park.c - parked threads (util/park.h): a job runs on another
 * thread and is joined, the thread parks and takes the next job, callers
 * at once each get a thread of their own, a job nobody joins runs and its
 * thread parks again by itself, and a fork child that finds its parent's
 * threads gone creates its own instead of waiting for them. */
#include "testutil.h"

#include "../util/park.h"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __SANITIZE_THREAD__
/* the fork test's child starts a thread, which ThreadSanitizer refuses
 * after a multi-threaded fork unless told not to */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "die_after_fork=0"; }
#endif

struct job {
	pthread_t ran_on;
	long sum; /* 1 + 2 + ... + n */
	long n;
};

static void *add_up(void *arg)
{
	struct job *j = arg;
	j->ran_on = pthread_self();
	for (long i = 1; i <= j->n; i++)
		j->sum += i;
	return NULL;
}

static void test_run_and_join(void **state)
{
	(void)state;
	assert_int_equal(tg_park_start(), 0);
	assert_int_equal(tg_park_start(), 0); /* one parked already: no second */
	struct job a = {.n = 1000};
	tg_park *h;
	assert_int_equal(tg_park_run(&h, add_up, &a), 0);
	assert_non_null(h);
	tg_park_join(h);
	assert_int_equal(a.sum, 500500);
	assert_false(pthread_equal(a.ran_on, pthread_self()));
	/* the thread parked again and takes the next job */
	struct job b = {.n = 10};
	assert_int_equal(tg_park_run(&h, add_up, &b), 0);
	tg_park_join(h);
	assert_int_equal(b.sum, 55);
	assert_true(pthread_equal(a.ran_on, b.ran_on));
	tg_park_join(NULL); /* ignored */
}

static void test_several_at_once(void **state)
{
	(void)state;
	enum { N = 4 };
	struct job j[N];
	tg_park *h[N];
	for (int i = 0; i < N; i++) {
		j[i] = (struct job){.n = 100 * (i + 1)};
		assert_int_equal(tg_park_run(&h[i], add_up, &j[i]), 0);
	}
	for (int i = 0; i < N; i++)
		tg_park_join(h[i]);
	for (int i = 0; i < N; i++) {
		long n = 100 * (i + 1);
		assert_int_equal(j[i].sum, n * (n + 1) / 2);
		for (int k = 0; k < i; k++) /* each job had a thread of its own */
			assert_false(pthread_equal(j[i].ran_on, j[k].ran_on));
	}
}

/* A detached job: add_up, then says it is done. */
static pthread_mutex_t done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static int done;

static void *add_up_and_say(void *arg)
{
	add_up(arg);
	pthread_mutex_lock(&done_mu);
	done = 1;
	pthread_cond_broadcast(&done_cv);
	pthread_mutex_unlock(&done_mu);
	return NULL;
}

static void test_run_detached(void **state)
{
	(void)state;
	struct job a = {.n = 100};
	assert_int_equal(tg_park_run_detached(add_up_and_say, &a), 0);
	pthread_mutex_lock(&done_mu);
	while (!done)
		pthread_cond_wait(&done_cv, &done_mu);
	pthread_mutex_unlock(&done_mu);
	assert_int_equal(a.sum, 5050);
	assert_false(pthread_equal(a.ran_on, pthread_self()));
	/* its thread parks again by itself (just after the job says it is
	 * done): jobs that take every parked thread at once (more jobs than
	 * this process has threads) take it too */
	enum { N = 16 };
	int found = 0;
	for (int i = 0; i < 500 && !found; i++) {
		struct job b[N];
		tg_park *h[N];
		for (int k = 0; k < N; k++) {
			b[k] = (struct job){.n = 10};
			assert_int_equal(tg_park_run(&h[k], add_up, &b[k]), 0);
		}
		for (int k = 0; k < N; k++) {
			tg_park_join(h[k]);
			assert_int_equal(b[k].sum, 55);
			found |= pthread_equal(b[k].ran_on, a.ran_on);
		}
		if (!found)
			usleep(1000);
	}
	assert_true(found);
}

static void test_fork_child(void **state)
{
	(void)state;
	assert_int_equal(tg_park_start(), 0); /* parked in the parent */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct job c = {.n = 100};
		tg_park *h;
		alarm(10); /* a child that waited for the parent's thread would hang */
		if (tg_park_run(&h, add_up, &c))
			_exit(2);
		tg_park_join(h);
		_exit(c.sum == 5050 ? 0 : 1);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* the parent's parked thread is still its own */
	struct job d = {.n = 3};
	tg_park *h;
	assert_int_equal(tg_park_run(&h, add_up, &d), 0);
	tg_park_join(h);
	assert_int_equal(d.sum, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_and_join),
		cmocka_unit_test(test_several_at_once),
		cmocka_unit_test(test_run_detached),
		cmocka_unit_test(test_fork_child),
	};
	return cmocka_run_group_tests_name("park", tests, NULL, NULL);
}
