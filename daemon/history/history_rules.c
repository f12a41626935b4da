/*
 * history_rules.c - a history series' rule, thresholds and unit from the
 * repository's rules (history_rules.h).
 */
#include "history_rules.h"
#include "history_metric.h"

#include <stdio.h>
#include <string.h>

const tg_rule *tg_history_rules_find(const tg_rules *rules, const char *metric)
{
	if (!rules)
		return NULL;
	if (!strncmp(metric, "rule:", 5))
		return tg_rules_find(rules, metric + 5);
	size_t n;
	const tg_rule *r = tg_rules_list(rules, &n);
	for (size_t i = 0; i < n; i++) {
		if (r[i].aggregate != TG_AGG_TOTAL || r[i].op.text || r[i].kernel.text || r[i].module.text ||
		    r[i].shape.text || r[i].stream >= 0 || r[i].rank >= 0)
			continue;
		const char *m = tg_rule_metric_name(r[i].metric);
		char stored[300];
		if (r[i].metric == TG_METRIC_KERNEL_TIME) {
			if (strncmp(metric, "kernel_time_ms:", 15) || !r[i].category.text ||
			    !tg_pattern_match(&r[i].category, metric + 15))
				continue;
			return &r[i];
		}
		if (r[i].category.text)
			continue;
		snprintf(stored, sizeof(stored), "%s%s", m,
		         r[i].metric == TG_METRIC_PEAK_MEMORY  ? "_mib"
		         : r[i].metric == TG_METRIC_HOST_SYNCS ? ""
		                                               : "_ms");
		if (!strcmp(stored, metric))
			return &r[i];
	}
	return NULL;
}

void tg_history_rules_info(tg_history_series_info *out, const char *workload, const char *metric, void *ctx)
{
	(void)workload;
	const tg_rule *r = tg_history_rules_find(ctx, metric);
	if (!r)
		return;
	if (!strncmp(metric, "rule:", 5))
		out->unit = tg_history_metric_rule_unit(r->metric);
	out->rule = r->name;
	out->warn_pct = r->warn_above;
	out->block_pct = r->block_above;
	out->higher_is_worse = tg_rule_metric_higher_is_worse(r->metric);
}
