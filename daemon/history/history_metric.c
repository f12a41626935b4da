/*
 * history_metric.c - a history series' unit and the reading of --metric
 * (history_metric.h).
 */
#include "history_metric.h"
#include "../../util/tg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && !strcmp(s + n - k, tail);
}

const char *tg_history_metric_unit(const char *metric)
{
	if (!strcmp(metric, "steps"))
		return "steps";
	if (!strcmp(metric, "host_syncs"))
		return "syncs";
	if (ends_with(metric, "_ms") || !strncmp(metric, "kernel_time_ms:", 15))
		return "ms";
	if (ends_with(metric, "_mib"))
		return "MiB";
	return "";
}

const char *tg_history_metric_rule_unit(tg_rule_metric m)
{
	switch (tg_rule_metric_unit(m)) {
	case TG_UNIT_TIME: return "ms";
	case TG_UNIT_BYTES: return "MiB";
	case TG_UNIT_RATE: return m == TG_METRIC_TFLOPS ? "TFLOPS/s" : "TB/s";
	default: return "";
	}
}

/* 1 when pattern (a name, or a prefix ending in '*') matches one of names. */
static int matches(const char *pattern, const char *const *names, size_t n)
{
	size_t len = strlen(pattern);
	int prefix = len && pattern[len - 1] == '*';
	for (size_t i = 0; i < n; i++)
		if (prefix ? !strncmp(names[i], pattern, len - 1) : !strcmp(names[i], pattern))
			return 1;
	return 0;
}

/* A rule's metric name (rules.h) and the series the daemon stores it as. */
static const struct {
	const char *rule, *stored;
} rule_metrics[] = {
	{"gpu_busy", "gpu_busy_ms"},
	{"gpu_idle", "gpu_idle_ms"},
	{"exposed_comm", "exposed_comm_ms"},
	{"exposed_memcpy", "exposed_memcpy_ms"},
	{"host_syncs", "host_syncs"},
	{"peak_memory", "peak_memory_mib"},
	{"kernel_time", "kernel_time_ms:*"},
};

int tg_history_metric_resolve(char **out, const char *asked, const char *const *names, size_t n)
{
	*out = NULL;
	char cand[5][512];
	size_t nc = 0;
	snprintf(cand[nc++], sizeof(cand[0]), "%s", asked);
	for (size_t i = 0; i < sizeof(rule_metrics) / sizeof(rule_metrics[0]); i++)
		if (!strcmp(asked, rule_metrics[i].rule))
			snprintf(cand[nc++], sizeof(cand[0]), "%s", rule_metrics[i].stored);
	if (!strchr(asked, ':')) {
		snprintf(cand[nc++], sizeof(cand[0]), "rule:%.400s", asked);
		snprintf(cand[nc++], sizeof(cand[0]), "kernel_time_ms:%.400s", asked);
	}
	for (size_t c = 0; c < nc; c++)
		if (matches(cand[c], names, n)) {
			if (!(*out = strdup(cand[c])))
				return tg_error_set(TG_ENOMEM, "out of memory");
			return 0;
		}
	/* the message lists what there is, bounded */
	char list[700]; /* the message (1024 bytes in all) keeps its tail */
	size_t k = 0, shown = 0;
	list[0] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		if (k + len + 3 + 32 >= sizeof(list))
			break;
		k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", i ? ", " : "", names[i]);
		shown++;
	}
	if (shown < n)
		snprintf(list + k, sizeof(list) - k, ", and %zu more", n - shown);
	if (!n)
		return tg_error_set(TG_ENOTFOUND, "--metric %.64s: no series recorded here at all", asked);
	return tg_error_set(TG_ENOTFOUND,
	                    "--metric %.64s: no such series; recorded: %s (a rule's metric name such as gpu_busy, "
	                    "a rule's name, or a prefix ending in * also works)",
	                    asked, list);
}
