/*
 * branch_series.h - the target branch's recent per-rule series, read once
 * for what is built on them: its noise and change points (branch_noise.h)
 * and its runs since the last change point as more base runs
 * (history_base.h). Both read the same points the same way: the latest
 * `window` done runs of the branch for a workload, of the same
 * comparability fingerprint, the `rule:<name>` values the store records
 * per run (run_metrics.h; no trace is loaded).
 */
#ifndef TG_BRANCH_SERIES_H
#define TG_BRANCH_SERIES_H

#include "../store/store.h"
#include "history_key.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tg_branch_series {
	tg_history_point *points; /* every rule:* point, oldest first; owned */
	size_t npoints;
	int64_t *runs;            /* the runs of the fingerprint, sorted; owned */
	size_t nruns;
	int by_fingerprint;       /* 0: every run counts (no fingerprint given) */
	double *v;                /* room for one series (npoints): its values, */
	size_t *at;               /* and their indexes in points; owned */
} tg_branch_series;

/* Reads the latest window done runs of key's repo, branch and workload
 * into *out: the runs of key's fingerprint (NULL: every run), then the
 * rule:* points (key's metric is not read). Returns 0, or a store error or TG_ENOMEM (*out is
 * then empty). *out is the caller's, freed with tg_branch_series_free. */
int tg_branch_series_load(tg_branch_series *out, tg_store *s, const tg_history_key *key, size_t window);

/* 1 when points[i] is a point of metric (a rule's "rule:<name>") of a run
 * of the fingerprint. */
int tg_branch_series_has(const tg_branch_series *b, size_t i, const char *metric);

/* Frees what b owns and empties it (an empty b is fine). */
void tg_branch_series_free(tg_branch_series *b);

#endif
