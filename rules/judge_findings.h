/*
 * judge_findings.h - a rule on findings (metric finding_cost, select:
 * {finding: ID}; docs/rules.md): internal to rules/, called by judge.c.
 */
#ifndef TG_JUDGE_FINDINGS_H
#define TG_JUDGE_FINDINGS_H

#include "judge.h"

/* The items of rule r (metric finding_cost) judged on the findings of two
 * sides (NULL: not computed). The value of a side is the cost a step of
 * its fired findings that r selects, 0 where none fires: one item ("")
 * for aggregate total, one per finding (id and key: "host-sync
 * Block.forward: aten::item") fired on a side for each. Judged on the
 * values (no sampling): blocks (warns) when the cost grew by more than
 * block_above (warn_above) percent and min_delta, a new finding being
 * +inf %. *out is an array of *n items with their item strings malloc'ed
 * (the caller owns both); *matched: r selects a finding that either side
 * lists. comparable: the sides' hardware agrees (else inconclusive).
 * Returns 0 or TG_ENOMEM. */
int tg_judge_findings_rule(tg_judged **out, size_t *n, int *matched, const tg_rule *r, const tg_findings *base,
                           const tg_findings *next, int comparable);

#endif
