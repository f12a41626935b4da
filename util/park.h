/*
 * park.h - threads parked between jobs: a job handed to one runs at once.
 *
 * A thread created for each stage (the report's second thread, the csv
 * files' one) is queued behind the other programs on a busy machine: a
 * new thread waits its turn, a sleeper that is woken runs first; on an
 * h200-dev report it began up to a millisecond late and its stage ran
 * on one thread (docs/scale.md, "A small trace's report"). tg_park_run
 * hands a job to a parked thread (tg_park_start starts one ahead of time,
 * off the caller's CPU: util/affinity.h), or creates one when none is
 * parked; after tg_park_join the thread parks again for the next job, for
 * the rest of the process.
 *
 * Safe from any thread. A child of fork() forgets the parent's parked
 * threads (they are not in it) and creates its own.
 */
#ifndef TG_PARK_H
#define TG_PARK_H

typedef struct tg_park tg_park;

/* Starts a thread that waits, parked, for the next tg_park_run, unless
 * one is parked already. 0, or an errno (no thread: tg_park_run then
 * creates one). */
int tg_park_start(void);

/* Runs fn(arg) on a parked thread, or on a new one when none is parked,
 * and sets *out to the handle tg_park_join takes. 0, or an errno with
 * *out NULL: no thread could be had, and the caller does the job itself. */
int tg_park_run(tg_park **out, void *(*fn)(void *), void *arg);

/* Waits until the job of h returns; its thread then parks again (h is no
 * longer the caller's). NULL is ignored. */
void tg_park_join(tg_park *h);

/* tg_park_run for a job nobody waits for: the thread parks again by
 * itself when fn returns (fn must not outlive what it uses on its own:
 * the tree's helper holds a reference, core/tree/tree.c). 0, or an errno:
 * no thread could be had, and the caller does the job itself. */
int tg_park_run_detached(void *(*fn)(void *), void *arg);

#endif
