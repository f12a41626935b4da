/*
 * affinity.c - implements affinity.h with sched_getcpu and the pthread
 * affinity calls (glibc; the project builds with _GNU_SOURCE).
 */
#include "affinity.h"

#include <stdlib.h>

int tg_affinity_cpu(void)
{
	return sched_getcpu();
}

int tg_affinity_count(void)
{
	cpu_set_t s;
	return pthread_getaffinity_np(pthread_self(), sizeof(s), &s) ? 0 : CPU_COUNT(&s);
}

/* The calling thread's allowed CPUs into saved->cpus. 1 when cpu is one
 * of them and another is left, else 0 (nothing to do). */
static int allowed_besides(tg_affinity *saved, int cpu)
{
	saved->changed = 0;
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return 0;
	if (pthread_getaffinity_np(pthread_self(), sizeof(saved->cpus), &saved->cpus))
		return 0; /* more CPUs than a cpu_set_t: left to the kernel */
	return CPU_ISSET(cpu, &saved->cpus) && CPU_COUNT(&saved->cpus) >= 2;
}

/* The calling thread's allowed CPUs into saved->cpus, and into *rest the
 * same less cpu. 1 when that leaves at least one, else 0 (nothing to do). */
static int other_cpus(tg_affinity *saved, int cpu, cpu_set_t *rest)
{
	if (!allowed_besides(saved, cpu))
		return 0;
	*rest = saved->cpus;
	CPU_CLR(cpu, rest);
	return 1;
}

int tg_affinity_split(tg_affinity *saved, int cpu, int side)
{
	if (!allowed_besides(saved, cpu))
		return 0;
	cpu_set_t half;
	CPU_ZERO(&half);
	if (!side)
		CPU_SET(cpu, &half);
	int k = 0; /* the others, counted in number order from 1 */
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (c != cpu && CPU_ISSET(c, &saved->cpus) && (++k % 2 == 0) == !side)
			CPU_SET(c, &half);
	if (pthread_setaffinity_np(pthread_self(), sizeof(half), &half))
		return 0;
	saved->changed = 1;
	return 1;
}

void tg_affinity_restore(const tg_affinity *saved)
{
	if (saved->changed)
		pthread_setaffinity_np(pthread_self(), sizeof(saved->cpus), &saved->cpus);
}

/* What a thread started by tg_affinity_thread_create runs first. */
struct start {
	void *(*fn)(void *);
	void *arg;
	tg_affinity creator; /* the creator's CPUs, given back */
};

static void *start_elsewhere(void *arg)
{
	struct start st = *(struct start *)arg;
	free(arg);
	tg_affinity_restore(&st.creator);
	return st.fn(st.arg);
}

int tg_affinity_thread_create(pthread_t *out, void *(*fn)(void *), void *arg)
{
	struct start *st = malloc(sizeof(*st));
	cpu_set_t rest;
	pthread_attr_t attr;
	int rc = -1;
	if (st && other_cpus(&st->creator, tg_affinity_cpu(), &rest) && !pthread_attr_init(&attr)) {
		st->fn = fn;
		st->arg = arg;
		st->creator.changed = 1;
		if (!pthread_attr_setaffinity_np(&attr, sizeof(rest), &rest))
			rc = pthread_create(out, &attr, start_elsewhere, st);
		pthread_attr_destroy(&attr);
	}
	if (rc == 0)
		return 0;
	free(st); /* none started with it (no memory, one CPU, refused): plainly */
	return pthread_create(out, NULL, fn, arg);
}
