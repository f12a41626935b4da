/* test_affinity.c - util/affinity.h: how many CPUs a thread may use; a
 * thread kept to one side of its CPUs split around one (tg_affinity_split)
 * has that side's CPUs only, the two sides are disjoint and make up every
 * CPU it had, side 0 holds the CPU and side 1 does not, and the thread gets
 * its CPUs back; the cases that leave the thread as it was (no CPU, a CPU
 * it may not use, a single CPU, one past cpu_set_t). A thread started off
 * its creator's CPU (tg_affinity_thread_create) runs its job with its
 * argument, returns its value, and has its creator's CPUs as it runs, also
 * where the creator has one CPU only. And the read's two threads
 * (core/trace/trace_chunks.c) get their CPUs back when the read ends: the
 * reader, and the feeder's parked thread, whose later jobs may run
 * anywhere. */
#include "testutil.h"

#include "../util/affinity.h"
#include "../util/park.h"

#include <pthread.h>

static cpu_set_t allowed_now(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(s), &s), 0);
	return s;
}

/* The first CPU in s, -1 when none. */
static int first_cpu(const cpu_set_t *s)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, s))
			return c;
	return -1;
}

static void test_cpu_is_allowed(void **state)
{
	(void)state;
	cpu_set_t all = allowed_now();
	int c = tg_affinity_cpu();
	assert_true(c >= 0);
	assert_true(CPU_ISSET(c, &all));
	assert_int_equal(tg_affinity_count(), CPU_COUNT(&all));
	/* held to one CPU, the count says so */
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(c, &one);
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
	assert_int_equal(tg_affinity_count(), 1);
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(all), &all), 0);
}

static void test_split_and_restore(void **state)
{
	(void)state;
	cpu_set_t all = allowed_now();
	int n = CPU_COUNT(&all), cpu = first_cpu(&all);
	assert_true(n >= 1);
	cpu_set_t side[2];
	for (int k = 0; k < 2; k++) {
		tg_affinity saved;
		int r = tg_affinity_split(&saved, cpu, k);
		side[k] = allowed_now();
		if (n < 2) { /* one CPU: nothing to split, left as it was */
			assert_int_equal(r, 0);
			assert_true(CPU_EQUAL(&side[k], &all));
		} else {
			assert_int_equal(r, 1);
			assert_int_equal(!!CPU_ISSET(cpu, &side[k]), k == 0); /* side 0 holds cpu */
			assert_int_equal(CPU_COUNT(&side[k]), k == 0 ? n / 2 + n % 2 : n / 2);
			int at = tg_affinity_cpu(); /* where it runs now is on its side */
			assert_true(at >= 0 && CPU_ISSET(at, &side[k]));
		}
		tg_affinity_restore(&saved);
		cpu_set_t now = allowed_now();
		assert_true(CPU_EQUAL(&now, &all));
	}
	if (n >= 2) { /* disjoint, and every CPU on one side */
		cpu_set_t both, either;
		CPU_AND(&both, &side[0], &side[1]);
		CPU_OR(&either, &side[0], &side[1]);
		assert_int_equal(CPU_COUNT(&both), 0);
		assert_true(CPU_EQUAL(&either, &all));
	}
	/* four CPUs (where the machine has them) split around the third:
	 * side 0 is the third and, of the others, the second; side 1 the first
	 * and the fourth */
	cpu_set_t four;
	CPU_ZERO(&four);
	int have = 0;
	for (int c = 0; c < CPU_SETSIZE && have < 4; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &four);
			have++;
		}
	if (have == 4 && !pthread_setaffinity_np(pthread_self(), sizeof(four), &four)) {
		int id[4], k = 0;
		for (int c = 0; c < CPU_SETSIZE && k < 4; c++)
			if (CPU_ISSET(c, &four))
				id[k++] = c;
		tg_affinity saved;
		assert_int_equal(tg_affinity_split(&saved, id[2], 0), 1);
		cpu_set_t s0 = allowed_now(); /* id[2], and of the others (id[0], id[1], id[3]) the 2nd */
		assert_int_equal(CPU_COUNT(&s0), 2);
		assert_true(CPU_ISSET(id[2], &s0) && CPU_ISSET(id[1], &s0));
		tg_affinity_restore(&saved);
		assert_int_equal(tg_affinity_split(&saved, id[2], 1), 1);
		cpu_set_t s1 = allowed_now(); /* the 1st and the 3rd */
		assert_int_equal(CPU_COUNT(&s1), 2);
		assert_true(CPU_ISSET(id[0], &s1) && CPU_ISSET(id[3], &s1));
		tg_affinity_restore(&saved);
	}
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(all), &all), 0);
}

static void test_left_alone(void **state)
{
	(void)state;
	cpu_set_t all = allowed_now();
	tg_affinity saved;
	assert_int_equal(tg_affinity_split(&saved, -1, 0), 0);
	assert_int_equal(saved.changed, 0);
	assert_int_equal(tg_affinity_split(&saved, CPU_SETSIZE, 1), 0);
	assert_int_equal(tg_affinity_split(&saved, CPU_SETSIZE + 5, 0), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (!CPU_ISSET(c, &all)) { /* a CPU the thread may not use anyway */
			assert_int_equal(tg_affinity_split(&saved, c, 0), 0);
			assert_int_equal(tg_affinity_split(&saved, c, 1), 0);
			break;
		}
	tg_affinity_restore(&saved); /* nothing to undo */
	cpu_set_t now = allowed_now();
	assert_true(CPU_EQUAL(&now, &all));

	/* a thread held to one CPU is not moved off it */
	cpu_set_t one;
	CPU_ZERO(&one);
	int cpu = first_cpu(&all);
	CPU_SET(cpu, &one);
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
	assert_int_equal(tg_affinity_split(&saved, cpu, 0), 0);
	assert_int_equal(tg_affinity_split(&saved, cpu, 1), 0);
	now = allowed_now();
	assert_true(CPU_EQUAL(&now, &one));
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(all), &all), 0);
}

/* A started thread's job: the CPUs it may use, its argument's value + 1. */
struct job {
	int value;
	cpu_set_t cpus;
};

static void *note_cpus(void *arg)
{
	struct job *j = arg;
	j->cpus = allowed_now();
	j->value++;
	return j;
}

static void test_thread_create_elsewhere(void **state)
{
	(void)state;
	cpu_set_t all = allowed_now();
	for (int round = 0; round < 2; round++) {
		/* round 1: the creator held to one CPU (nowhere else to start) */
		cpu_set_t want = all;
		if (round) {
			CPU_ZERO(&want);
			CPU_SET(first_cpu(&all), &want);
			assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(want), &want), 0);
		}
		for (int i = 0; i < 8; i++) {
			struct job j = {.value = 41 + i};
			pthread_t th;
			assert_int_equal(tg_affinity_thread_create(&th, note_cpus, &j), 0);
			void *ret = NULL;
			assert_int_equal(pthread_join(th, &ret), 0);
			assert_ptr_equal(ret, &j);
			assert_int_equal(j.value, 42 + i);
			assert_true(CPU_EQUAL(&j.cpus, &want)); /* the creator's, given back */
		}
		cpu_set_t now = allowed_now(); /* the creator's own are untouched */
		assert_true(CPU_EQUAL(&now, &want));
	}
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(all), &all), 0);
}

/* A parked thread's job: the CPUs it may use. */
static void *report_cpus(void *arg)
{
	*(cpu_set_t *)arg = allowed_now();
	return NULL;
}

static void test_read_gives_cpus_back(void **state)
{
	(void)state;
	cpu_set_t all = allowed_now();
	/* a document long enough for the feeder: chunks of 256 bytes */
	size_t cap = 200000, n = 0;
	char *doc = malloc(cap);
	assert_non_null(doc);
	n += (size_t)sprintf(doc, "{\"traceEvents\": [");
	for (int i = 0; i < 1000; i++)
		n += (size_t)sprintf(doc + n, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, "
		                              "\"tid\": 1, \"ts\": %d, \"dur\": 3}",
		                     i ? ", " : "", i % 7, 1000 + i * 5);
	n += (size_t)sprintf(doc + n, "]}");
	tg_park_start(); /* the feeder runs on a parked thread, parked again after */
	tg_read_opts o = {.chunk = 256};
	tg_trace *t;
	tg_test_must(tg_trace_read_mem(&t, doc, n, "doc", &o));
	size_t ne;
	tg_trace_events(t, &ne);
	assert_int_equal(ne, 1000);
	tg_trace_free(t);
	free(doc);
	cpu_set_t now = allowed_now(); /* the reader's own, given back */
	assert_true(CPU_EQUAL(&now, &all));
	/* every parked thread, the feeder's among them, may use every CPU again */
	tg_park *h[4];
	cpu_set_t seen[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(tg_park_run(&h[i], report_cpus, &seen[i]), 0);
	for (int i = 0; i < 4; i++) {
		tg_park_join(h[i]);
		assert_true(CPU_EQUAL(&seen[i], &all));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_is_allowed),
		cmocka_unit_test(test_split_and_restore),
		cmocka_unit_test(test_left_alone),
		cmocka_unit_test(test_thread_create_elsewhere),
		cmocka_unit_test(test_read_gives_cpus_back),
	};
	return cmocka_run_group_tests_name("affinity", tests, NULL, NULL);
}
