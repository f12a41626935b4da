/*
 * history_metric.h - the names of history series as people type them: a
 * rule's metric name (gpu_busy) stands for the stored series (gpu_busy_ms),
 * a miss lists the recorded names, and each stored name says its unit.
 *
 * The daemon records a run's numbers under names that carry their unit
 * (run_metrics.c: gpu_busy_ms, peak_memory_mib, kernel_time_ms:<category>,
 * rule:<name>); rules name metrics without it (rules.h: gpu_busy,
 * peak_memory, kernel_time). Both are accepted by `tracegate history
 * --metric`.
 */
#ifndef TG_HISTORY_METRIC_H
#define TG_HISTORY_METRIC_H

#include "../../rules/rules.h"

#include <stddef.h>

/* The unit of the stored metric name: "ms" (per step) for *_ms and
 * kernel_time_ms:*, "MiB" for *_mib, "steps", "syncs" (per step) for
 * host_syncs; "" when the name does not say it (rule:<name>: the rule's
 * metric does). A static string. */
const char *tg_history_metric_unit(const char *metric);

/* The unit a rule's metric is kept in (run_metrics.h: tg_run_metric_display):
 * "ms", "" (counts), "TFLOPS/s", "TB/s", "MiB". The unit of a rule:<name>
 * series. A static string. */
const char *tg_history_metric_rule_unit(tg_rule_metric m);

/* The series pattern to query for what the user asked, given the n
 * distinct names recorded: asked itself when it names one of them (or, with
 * a trailing '*', is a prefix of one); else the first of its readings that
 * does: a rule's metric name (gpu_busy -> gpu_busy_ms, peak_memory ->
 * peak_memory_mib, kernel_time -> kernel_time_ms:*), a rule's name
 * (rule:<asked>), a category (kernel_time_ms:<asked>). *out is malloc'd
 * (the caller frees it). TG_ENOTFOUND when none does, with a one-line
 * message that lists the recorded names; TG_ENOMEM. */
int tg_history_metric_resolve(char **out, const char *asked, const char *const *names, size_t n);

#endif
