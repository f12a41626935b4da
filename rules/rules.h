/*
 * rules.h - the gate's threshold rules, loaded from YAML (docs/rules.md).
 *
 *   version: 1
 *   settings:
 *     confidence: 0.95            # two-sided level of the ratio's interval
 *     min_samples: 5              # fewer samples per side: inconclusive
 *     fdr: 0.05                   # Benjamini-Hochberg q for `each` rules
 *     allow_hardware_change: false
 *   rules:
 *     - name: sdpa-forward        # unique, [A-Za-z0-9_.-]+
 *       select:                   # every key optional; all must match
 *         category: SDPA_fwd      # glob, or /regex/
 *         op: "aten::*attention*"
 *         kernel: /flash_fwd.*\/  # (a slash inside a regex is written \/)
 *         module: "*Attention*"
 *         shape: "*(4, 8, 1024, 64)*"
 *         stream: 7
 *         rank: 0
 *       metric: kernel_time       # see tg_rule_metric
 *       aggregate: total          # total | each
 *       by: op                    # for each: category|op|op_shape|kernel|module
 *       block_above: 5%
 *       warn_above: 2%
 *       min_delta: 20us           # or 0.1%: of the base's GPU busy time per step
 *       improvement_below: 5%     # report improvements larger than this
 *       decide: likely            # likely (default) | surely
 *     - name: no-new-host-sync    # a finding (docs/findings.md) new or worse
 *       select: {finding: host-sync}   # metric finding_cost, implied
 *       block_above: 0%
 *   findings:                     # the findings' thresholds (docs/findings.md)
 *     worse_above: 25%
 *     host-sync: {min_cost: 1%}
 *     idle-gap: {min_cost: 10%, min_gap: 1ms}
 *     low-efficiency: off
 *
 * A loaded tg_rules is immutable and owns every string and compiled
 * pattern in it.
 */
#ifndef TG_RULES_H
#define TG_RULES_H

#include "../core/analysis/findings.h"
#include "../util/tg.h"

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

/* What a rule measures. Time metrics are in ns, per step (per sample). */
typedef enum tg_rule_metric {
	TG_METRIC_KERNEL_TIME = 0, /* "kernel_time": GPU time of the selected kernels */
	TG_METRIC_COUNT,           /* "count": number of selected kernels */
	TG_METRIC_GPU_BUSY,        /* "gpu_busy": union of all GPU activity */
	TG_METRIC_GPU_IDLE,        /* "gpu_idle" */
	TG_METRIC_EXPOSED_COMM,    /* "exposed_comm": communication not hidden by compute */
	TG_METRIC_EXPOSED_MEMCPY,  /* "exposed_memcpy" */
	TG_METRIC_TFLOPS,          /* "tflops": achieved TFLOPS/s of the selected ops; lower is worse */
	TG_METRIC_TBS,             /* "tbs": achieved TB/s of the selected ops; lower is worse */
	TG_METRIC_LAUNCH_OVERHEAD, /* "launch_overhead": launch delay (kernel start - launch start), ns */
	TG_METRIC_HOST_SYNCS,      /* "host_syncs": number of host synchronisations */
	TG_METRIC_PEAK_MEMORY,     /* "peak_memory": bytes */
	TG_METRIC_FINDING_COST,    /* "finding_cost": the time the selected findings cost a step,
	                              ns (findings.h), 0 where none fires */
	TG_METRIC_COUNT_
} tg_rule_metric;

/* The YAML name of a metric ("kernel_time"), or NULL if out of range. */
const char *tg_rule_metric_name(tg_rule_metric m);

/* 1 when a larger value of the metric is worse (times, counts, bytes),
 * 0 when a smaller value is worse (tflops, tbs). */
int tg_rule_metric_higher_is_worse(tg_rule_metric m);

/* The unit class of a metric, which decides the units min_delta accepts. */
typedef enum tg_rule_unit {
	TG_UNIT_TIME = 0, /* ns, us, ms, s; stored in ns */
	TG_UNIT_COUNT,    /* bare number */
	TG_UNIT_BYTES,    /* B, KB, MB, GB (10^3), KiB, MiB, GiB (2^10); stored in bytes */
	TG_UNIT_RATE      /* bare number, in the metric's own unit (TFLOPS/s, TB/s) */
} tg_rule_unit;

tg_rule_unit tg_rule_metric_unit(tg_rule_metric m);

typedef enum tg_rule_aggregate {
	TG_AGG_TOTAL = 0, /* the sum over everything selected, judged once */
	TG_AGG_EACH       /* every item (grouped by `by`) judged on its own */
} tg_rule_aggregate;

/* The grouping of an `each` rule. */
typedef enum tg_rule_by {
	TG_BY_CATEGORY = 0,
	TG_BY_OP,
	TG_BY_OP_SHAPE,
	TG_BY_KERNEL,
	TG_BY_MODULE
} tg_rule_by;

const char *tg_rule_by_name(tg_rule_by b);

/* How a rule reads its interval against block_above and warn_above
 * (docs/rules.md, Verdicts). */
typedef enum tg_rule_decide {
	TG_DECIDE_LIKELY = 0, /* the estimate above the threshold and the change
	                         significant (the interval excludes 0); above the
	                         threshold but not significant: inconclusive */
	TG_DECIDE_SURELY      /* the interval's lower bound above the threshold */
} tg_rule_decide;

/* "likely", "surely". */
const char *tg_rule_decide_name(tg_rule_decide d);

/* A name pattern: a shell glob (fnmatch, no flags) or, when written
 * between slashes, a POSIX extended regex (unanchored, as grep -E). */
typedef struct tg_pattern {
	char *text;   /* as written, without the slashes of a regex; NULL = unset */
	int is_regex;
	regex_t re;   /* compiled when is_regex */
} tg_pattern;

/* 1 when p is unset or matches s (s NULL counts as ""). */
int tg_pattern_match(const tg_pattern *p, const char *s);

typedef struct tg_rule {
	char *name;
	int line, column;         /* of the rule's mapping in the file, 1-based */
	tg_pattern category, op, kernel, module, shape;
	tg_pattern finding;       /* finding ids (host-sync...): set for metric finding_cost only */
	int64_t stream;           /* -1 = any */
	int64_t rank;             /* -1 = any */
	tg_rule_metric metric;
	tg_rule_aggregate aggregate;
	tg_rule_by by;            /* default: the most specific selector given:
	                             kernel > shape (op_shape) > op > module > category;
	                             op when none */
	double block_above;       /* percent (5 means 5 %); NAN = never blocks */
	double warn_above;        /* percent; NAN = never warns */
	double improvement_below; /* percent; NAN = 1.0 (improvements above 1 % are reported) */
	double min_delta;         /* absolute floor in the metric's unit (ns, count,
	                             bytes, rate); 0 when unset */
	double min_delta_share;   /* a time metric's floor written as a percent
	                             ("min_delta: 0.1%"): that share of the base
	                             side's GPU busy time per step, so that the
	                             floor scales with the workload; 0 when unset */
	tg_rule_decide decide;    /* default TG_DECIDE_LIKELY */
} tg_rule;

typedef struct tg_rules_settings {
	double confidence;          /* default 0.95, in (0.5, 1) */
	int64_t min_samples;        /* default 5, >= 2 */
	double fdr;                 /* default 0.05, in (0, 1) */
	int allow_hardware_change;  /* default 0 */
	double history_confidence;  /* default 0.98, in (0.5, 1): the level (at least
	                               confidence) when the target branch's recent
	                               runs join the base side (judge.h,
	                               tg_rule_base_runs; docs/rules.md Calibration) */
} tg_rules_settings;

typedef struct tg_rules tg_rules;

/* Parses the rules in the file at path. On success *out owns them (free with
 * tg_rules_free). Errors (TG_EIO, TG_EFORMAT) leave a one-line message
 * "path:line:column: what is wrong" for bad YAML, unknown keys, wrong
 * types, bad units or percents, duplicate rule names, bad regexes, a rule
 * with neither block_above nor warn_above, collections nested deeper
 * than 32 levels (refused before the document is built). */
int tg_rules_load_file(tg_rules **out, const char *path);

/* Same from a buffer; name is used in messages in place of the path. */
int tg_rules_load_mem(tg_rules **out, const char *data, size_t len, const char *name);

/* The built-in default rules (contrib/rules/default.yaml, compiled in). */
int tg_rules_load_default(tg_rules **out);

void tg_rules_free(tg_rules *rules);

const tg_rules_settings *tg_rules_settings_get(const tg_rules *rules);

/* The rules in file order; borrowed from rules. */
const tg_rule *tg_rules_list(const tg_rules *rules, size_t *n);

/* The rule named name, or NULL. */
const tg_rule *tg_rules_find(const tg_rules *rules, const char *name);

/* The file name given at load time ("<default>" for the built-in rules). */
const char *tg_rules_source(const tg_rules *rules);

/* The findings' thresholds: the `findings:` section over the defaults
 * (tg_findings_opts_default); borrowed from rules. Its gpu and sheets are
 * unset. */
const tg_findings_opts *tg_rules_findings(const tg_rules *rules);

#endif
