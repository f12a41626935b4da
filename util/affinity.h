/*
 * affinity.h - keeping two threads that work together off each other's CPU.
 *
 * The read's two threads (core/trace/trace_chunks.c: the reader and the
 * feeder that inflates and parses ahead) hand chunks to each other and
 * wake each other. Woken, a thread may be placed on its waker's CPU, and
 * the two then take turns on it while another core idles: on this
 * project's 2-core VM an eighth to a half of the h200-dev reports ran so,
 * with the same CPU time and 4-8 ms more wall (docs/scale.md, the
 * seventeenth round). Keeping the feeder off the reader's CPU was not
 * enough: the reader, free, was placed on the feeder's CPU as it woke, in
 * 24-29 of 30 base_r1 reports on some hours (27 ms, not 17: docs/scale.md,
 * the twenty-first round). So for the read the two take disjoint halves
 * of the CPUs they may use (tg_affinity_split): on two CPUs one each.
 * Where only one CPU is allowed nothing changes. A thread can also be
 * started off its creator's CPU (tg_affinity_thread_create), for its
 * first run only.
 */
#ifndef TG_AFFINITY_H
#define TG_AFFINITY_H

#include <pthread.h>
#include <sched.h> /* cpu_set_t: the build defines _GNU_SOURCE */

/* The CPUs a thread was allowed before tg_affinity_split. */
typedef struct tg_affinity {
	cpu_set_t cpus;
	int changed; /* 1 when tg_affinity_restore has something to undo */
} tg_affinity;

/* The CPU the calling thread runs on now, or -1 when it cannot be told. */
int tg_affinity_cpu(void);

/* How many CPUs the calling thread may run on, or 0 when it cannot be
 * told (more than a cpu_set_t holds). */
int tg_affinity_count(void);

/* Keeps the calling thread to one of two disjoint halves of its allowed
 * CPUs, split around cpu (tg_affinity_cpu of the thread that takes side
 * 0): side 0 is cpu and the 2nd, 4th, ... of the others in number order,
 * side 1 the 1st, 3rd, ... (on two CPUs, cpu and the other one). Two
 * threads that take a side each, from the same allowed set, never share a
 * CPU. The set it had goes to *saved. Returns 1 when the set changed, 0
 * when it was left as it was (cpu -1 or not allowed anyway, a single CPU,
 * more CPUs than a cpu_set_t holds, or the call refused). */
int tg_affinity_split(tg_affinity *saved, int cpu, int side);

/* Gives the calling thread back the CPUs saved by tg_affinity_split
 * (nothing when it changed none). */
void tg_affinity_restore(const tg_affinity *saved);

/* pthread_create(out, NULL, fn, arg), but the new thread starts on the
 * calling thread's allowed CPUs less the one it runs on (when another is
 * left), and takes the caller's whole set back as soon as it runs. Returns
 * 0, or pthread_create's errno. For a thread that has work at once: one
 * created plainly was queued behind its creator on the creator's CPU more
 * often than not, and an idle CPU seldom took it over soon, so it first
 * ran 1-4 ms late while its creator went on alone (the report's parked
 * thread in half of the h200-dev reports, after the read it was started
 * for had begun; the diff's findings thread in 28 of 40 h200-dev diffs;
 * docs/scale.md, the twentieth round). */
int tg_affinity_thread_create(pthread_t *out, void *(*fn)(void *), void *arg);

#endif
