/*
 * affinity.c - implements affinity.h with sched_getcpu and the pthread
 * affinity calls (glibc; the project builds with _GNU_SOURCE).
 */
#include "affinity.h"

#include <pthread.h>

int tg_affinity_cpu(void)
{
	return sched_getcpu();
}

int tg_affinity_avoid(tg_affinity *saved, int cpu)
{
	saved->changed = 0;
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return 0;
	if (pthread_getaffinity_np(pthread_self(), sizeof(saved->cpus), &saved->cpus))
		return 0; /* more CPUs than a cpu_set_t: left to the kernel */
	if (!CPU_ISSET(cpu, &saved->cpus) || CPU_COUNT(&saved->cpus) < 2)
		return 0;
	cpu_set_t rest = saved->cpus;
	CPU_CLR(cpu, &rest);
	if (pthread_setaffinity_np(pthread_self(), sizeof(rest), &rest))
		return 0;
	saved->changed = 1;
	return 1;
}

void tg_affinity_restore(const tg_affinity *saved)
{
	if (saved->changed)
		pthread_setaffinity_np(pthread_self(), sizeof(saved->cpus), &saved->cpus);
}
