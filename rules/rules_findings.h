/*
 * rules_findings.h - the `findings:` section of a rules file (internal to
 * rules/; docs/findings.md describes it): the findings' thresholds.
 */
#ifndef TG_RULES_FINDINGS_H
#define TG_RULES_FINDINGS_H

#include "../core/analysis/findings.h"
#include "../util/yaml_node.h"

/* Reads the mapping n over the values already in o (the defaults):
 *
 *   worse_above: 25%                 a diff's "worse": cost up by more than this
 *   host-sync: {min_cost: 1%}        any finding: enabled (true/false), min_cost
 *   launch-bound: {max_gap: 200us}   its own key: max_gap, min_gap (idle-gap,
 *   low-efficiency: off              all-ranks-idle), min_ratio (first-step-
 *                                    slow), align_bytes (gemm-alignment),
 *                                    below_roofline (low-efficiency), min_last
 *                                    (straggler); off / on for enabled alone
 *
 * All or nothing is the caller's: on error o may be half set. Returns 0 or
 * TG_EFORMAT with "file:line:column: what" (tg_yaml_error). */
int tg_rules_load_findings(const tg_yaml_in *L, const yaml_node_t *n, tg_findings_opts *o);

#endif
