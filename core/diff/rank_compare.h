/*
 * rank_compare.h - which rank of a job to name in a verdict: the slowest
 * rank and the rank that changed most between the two sides of a
 * comparison, from the per-step units of each rank's traces (measure.h).
 *
 * A rank's time is its GPU compute per step: busy time minus exposed
 * communication and exposed copies (the timeline's computation time).
 * Not its busy time: in a real job the other ranks wait for a slow rank
 * inside their collectives, whose kernels then last longer, so by busy
 * time every rank looks slow; compute time stays with the rank that does
 * the work. The straggler finding (collectives, time lost) is the report's.
 */
#ifndef TG_RANK_COMPARE_H
#define TG_RANK_COMPARE_H

#include "measure.h"

typedef struct tg_rank_compare {
	size_t nranks;              /* distinct known ranks on both sides; under 2: nothing to name */
	int64_t slowest;            /* of those, the rank of most compute per step on the new side, -1
	                            when none */
	double slowest_ms;          /* its compute per step, ms */
	int64_t most_changed;       /* the rank whose compute per step changed most (relative, either
	                            way) between base and new, -1 when no rank is on both sides */
	double most_changed_pct;    /* that change, new / base - 1 in percent */
	char most_changed_what[64]; /* what changed: "GPU compute" here; the judge names a
	                               rule instead when a rule's per-rank item changed
	                               significantly (rules/judge.h) */
} tg_rank_compare;

/* Fills *out from the two sides (ranks: tg_measure_trace_rank; traces of
 * unknown rank count in no rank). Returns 0 or TG_ENOMEM. Nothing to free. */
int tg_rank_compare_build(tg_rank_compare *out, const tg_measure *base, const tg_measure *next);

#endif
