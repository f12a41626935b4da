/*
 * judge_impl.h - what the judge's files share (judge.c, judge_pairs.c):
 * the flattened selection of a rule and the paired calls made from it.
 * Not public: rules/judge.h is the interface.
 */
#ifndef TG_JUDGE_IMPL_H
#define TG_JUDGE_IMPL_H

#include "../core/measure.h"
#include "judge.h"

#include <stddef.h>
#include <stdint.h>

/* One selected record, flattened for sorting. */
struct sel {
	uint32_t group;
	uint32_t stratum; /* op_shape key */
	uint64_t inv;     /* invocation id; records without one are their own */
	uint32_t unit;
	uint32_t rec;  /* the record in its side's measure */
	uint32_t pair; /* the paired record in the other side's measure (TG_NONE: none) */
	int64_t dur, delay;
	double flops, bytes; /* of the invocation, counted once per invocation */
};

/* The calls of one item on both sides, paired (rules/paired.h): the
 * durations of the m calls paired within the item (both records selected
 * in it), and the unpaired calls' totals and sums of squares. */
struct pair_set {
	double *b, *n;
	size_t m;
	double ub, un, ub2, un2;
};

/* Whether record k is selected by rule r (judge_select.c); memo: 5 x
 * natoms bytes (the category, op, kernel, module and shape patterns'
 * answers, zeroed at first) or NULL. */
int tg_judge_rec_matches(const tg_rule *r, const tg_atoms *keys, const tg_kernel_rec *k, uint8_t *memo,
                         uint32_t natoms);

/* The categories no kernel rule selects that hold more than min_pct of
 * the kernel time of a side (in its steps), largest first
 * (judge_coverage.c: tg_judgement_not_judged). *out is the caller's
 * (tg_judge_not_judged_free). Returns 0 or TG_ENOMEM. */
int tg_judge_not_judged(tg_not_judged **out, size_t *n, const tg_rules *rules, const tg_measure *base,
                        const tg_measure *next, const tg_atoms *keys, double min_pct);

void tg_judge_not_judged_free(tg_not_judged *v, size_t n);

/* The pairs of the item whose records are vb (nb) on the base side and vx
 * (nx) on the new side. *out's arrays are the caller's
 * (tg_judge_pairs_free). Returns 0 or TG_ENOMEM. */
int tg_judge_pairs_build(struct pair_set *out, const struct sel *vb, size_t nb, const struct sel *vx, size_t nx);

void tg_judge_pairs_free(struct pair_set *p);

/* *sigma: the sd of one call's log-ratio (paired.h: tg_paired_call_noise)
 * over the paired calls of the comparison (both in a step, both of
 * positive duration) that the rule did not select (vb: its base-side
 * selection, nb), or over all of them when fewer than min are left; *df
 * its degrees of freedom, *n the pairs it came from (NAN and 0 with fewer
 * than 2). Returns 0 or TG_ENOMEM. */
int tg_judge_call_noise(double *sigma, double *df, size_t *n, const struct sel *vb, size_t nb, const tg_measure *base,
                        const tg_measure *next, size_t min);

#endif
