/*
 * run_metrics.h - the numbers of a run kept in the history, and the value a
 * rule's metric is kept in (run_metrics.c; the unit's name is the history
 * room's: tg_history_metric_rule_unit). tg_run_metrics's array is the
 * caller's (tg_run_metrics_free).
 */
#ifndef TG_RUN_METRICS_H
#define TG_RUN_METRICS_H

#include "../../util/atoms.h"
#include "../../core/diff/measure.h"
#include "../../rules/rules.h"
#include "../store/store.h"

#include <stddef.h>

/* The numbers kept in the history for a run: per-step GPU busy, idle,
 * exposed communication and memcpy time (ms), host syncs, peak memory
 * (MiB), kernel time per category (ms), and each total rule's value
 * ("rule:<name>", in the rule's unit: ms, count, TFLOPS/s, TB/s, MiB).
 * Every series is measured over the profiled steps, as the rules are: a
 * kernel outside every step counts in none (a category's series equals
 * the value of a rule that selects that category alone).
 * *names holds the metric names (freed with tg_run_metrics_free). */
int tg_run_metrics(tg_metric **out, size_t *n, const tg_measure *m, const tg_atoms *keys, const tg_rules *rules);

void tg_run_metrics_free(tg_metric *m, size_t n);

/* The value of a rule's metric in the unit the history keeps it (see
 * tg_run_metrics), from the metric's native unit (ns, count, rate, bytes). */
double tg_run_metric_display(tg_rule_metric m, double v);

#endif
