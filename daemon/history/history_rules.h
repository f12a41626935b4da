/*
 * history_rules.h - what a repository's rules say of a history series: the
 * rule that judges it, its thresholds, whether higher is worse and, for a
 * rule:<name> series, its unit (history_rules.c). The `info` callback of
 * tg_history_write_ex, shared by `tracegate history` and the daemon's
 * published pages, so that both draw the same thresholds.
 */
#ifndef TG_HISTORY_RULES_H
#define TG_HISTORY_RULES_H

#include "../../rules/rules.h"
#include "history_render.h"

/* The rule behind the stored series metric: rule:<name>, or a total rule
 * on the metric the series stores (gpu_busy for gpu_busy_ms, kernel_time of
 * a category for kernel_time_ms:<category>) with no other selector. NULL
 * when none (or rules is NULL). Borrowed from rules. */
const tg_rule *tg_history_rules_find(const tg_rules *rules, const char *metric);

/* A tg_history_info_fn: ctx is the repository's rules (const tg_rules *,
 * may be NULL: *out is left as preset). Fills the series' rule, its
 * thresholds and direction, and a rule:<name> series' unit; what it sets
 * is borrowed from the rules (valid while they are). */
void tg_history_rules_info(tg_history_series_info *out, const char *workload, const char *metric, void *ctx);

#endif
