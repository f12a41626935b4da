/*
 * history_key.h - what identifies a series of a branch's history, the one
 * key every history function that reads a series takes: the repository,
 * the branch, the workload, the metric and the comparability fingerprint
 * of the runs (run_metrics.c stores it as a metric named
 * "fingerprint:<gpu>|<driver>|<runtime>|<world size>"). A field a function
 * does not use is ignored; each says which it reads.
 */
#ifndef TG_HISTORY_KEY_H
#define TG_HISTORY_KEY_H

typedef struct tg_history_key {
	const char *repo;        /* "owner/name" */
	const char *branch;      /* the branch whose runs these are (a pull request's target) */
	const char *workload;    /* NULL: every workload */
	const char *metric;      /* a stored metric name ("rule:<name>", "gpu_busy_ms"); NULL: every one */
	const char *fingerprint; /* the fingerprint metric's name; NULL: runs of any fingerprint */
} tg_history_key;

#endif
