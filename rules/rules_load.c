/*
 * rules_load.c - the threshold rules file (docs/rules.md): libyaml's
 * document loader, for the line:column of every node, a strict validation
 * with one-line "file:line:column: message" errors, and the accessors of
 * a loaded tg_rules.
 */
#include "rules.h"
#include "../util/file.h"
#include "../util/regex.h"
#include "../util/yaml_node.h"
#include "default_rules.h"
#include "rules_findings.h"
#include "units.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct tg_rules {
	char *source;
	tg_rules_settings settings;
	tg_findings_opts findings; /* the findings: section over the defaults */
	tg_rule *items; /* calloc'ed once: the compiled regexes never move */
	size_t n;
};

/* ------------------------------------------------------------ names */

static const char *const metric_names[TG_METRIC_COUNT_] = {
	[TG_METRIC_KERNEL_TIME] = "kernel_time",         [TG_METRIC_COUNT] = "count",
	[TG_METRIC_GPU_BUSY] = "gpu_busy",               [TG_METRIC_GPU_IDLE] = "gpu_idle",
	[TG_METRIC_EXPOSED_COMM] = "exposed_comm",       [TG_METRIC_EXPOSED_MEMCPY] = "exposed_memcpy",
	[TG_METRIC_TFLOPS] = "tflops",                   [TG_METRIC_TBS] = "tbs",
	[TG_METRIC_LAUNCH_OVERHEAD] = "launch_overhead", [TG_METRIC_HOST_SYNCS] = "host_syncs",
	[TG_METRIC_PEAK_MEMORY] = "peak_memory",         [TG_METRIC_FINDING_COST] = "finding_cost",
};

#define NBY 5
static const char *const by_names[NBY] = {
	[TG_BY_CATEGORY] = "category", [TG_BY_OP] = "op",         [TG_BY_OP_SHAPE] = "op_shape",
	[TG_BY_KERNEL] = "kernel",     [TG_BY_MODULE] = "module",
};

const char *tg_rule_metric_name(tg_rule_metric m)
{
	return (int)m >= 0 && m < TG_METRIC_COUNT_ ? metric_names[m] : NULL;
}

int tg_rule_metric_higher_is_worse(tg_rule_metric m)
{
	return m != TG_METRIC_TFLOPS && m != TG_METRIC_TBS;
}

tg_rule_unit tg_rule_metric_unit(tg_rule_metric m)
{
	switch (m) {
	case TG_METRIC_KERNEL_TIME:
	case TG_METRIC_GPU_BUSY:
	case TG_METRIC_GPU_IDLE:
	case TG_METRIC_EXPOSED_COMM:
	case TG_METRIC_EXPOSED_MEMCPY:
	case TG_METRIC_LAUNCH_OVERHEAD:
	case TG_METRIC_FINDING_COST: return TG_UNIT_TIME;
	case TG_METRIC_TFLOPS:
	case TG_METRIC_TBS: return TG_UNIT_RATE;
	case TG_METRIC_PEAK_MEMORY: return TG_UNIT_BYTES;
	case TG_METRIC_COUNT:
	case TG_METRIC_HOST_SYNCS:
	default: return TG_UNIT_COUNT;
	}
}

const char *tg_rule_by_name(tg_rule_by b)
{
	return (int)b >= 0 && (int)b < NBY ? by_names[b] : NULL;
}

/* 1 for the metrics that are one value per step of the whole timeline
 * (or of a rank), not a sum over selected kernels: only `rank` selects. */
static int per_step_metric(tg_rule_metric m)
{
	return m == TG_METRIC_GPU_BUSY || m == TG_METRIC_GPU_IDLE || m == TG_METRIC_EXPOSED_COMM ||
	       m == TG_METRIC_EXPOSED_MEMCPY || m == TG_METRIC_HOST_SYNCS || m == TG_METRIC_PEAK_MEMORY;
}

/* ------------------------------------------------------------ patterns */

int tg_pattern_match(const tg_pattern *p, const char *s)
{
	if (!p || !p->text)
		return 1;
	if (!s)
		s = "";
	if (p->is_regex)
		return regexec(&p->re, s, 0, NULL, 0) == 0;
	return fnmatch(p->text, s, 0) == 0;
}

static void pattern_free(tg_pattern *p)
{
	if (p->is_regex)
		regfree(&p->re);
	free(p->text);
	memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------ accessors */

static void rule_free(tg_rule *r)
{
	free(r->name);
	pattern_free(&r->category);
	pattern_free(&r->op);
	pattern_free(&r->kernel);
	pattern_free(&r->module);
	pattern_free(&r->shape);
	pattern_free(&r->finding);
}

void tg_rules_free(tg_rules *rules)
{
	if (!rules)
		return;
	for (size_t i = 0; i < rules->n; i++)
		rule_free(&rules->items[i]);
	free(rules->items);
	free(rules->source);
	free(rules);
}

const tg_rules_settings *tg_rules_settings_get(const tg_rules *rules) { return &rules->settings; }

const tg_rule *tg_rules_list(const tg_rules *rules, size_t *n)
{
	*n = rules ? rules->n : 0;
	return rules ? rules->items : NULL;
}

const tg_rule *tg_rules_find(const tg_rules *rules, const char *name)
{
	if (!rules || !name)
		return NULL;
	for (size_t i = 0; i < rules->n; i++)
		if (!strcmp(rules->items[i].name, name))
			return &rules->items[i];
	return NULL;
}

const char *tg_rules_source(const tg_rules *rules) { return rules->source; }

const tg_findings_opts *tg_rules_findings(const tg_rules *rules) { return &rules->findings; }

/* ------------------------------------------------------------ values */

/* A number in the open interval (lo, hi). */
static int number_in(const tg_yaml_in *L, const yaml_node_t *n, const char *key, double lo, double hi,
                     const char *example, double *out)
{
	const char *s, *end;
	double v;
	int rc;
	if ((rc = tg_yaml_text(&s, L, n, key, "a number")))
		return rc;
	if (tg_units_parse_number(&v, s, &end) || *end || !isfinite(v) || !(v > lo && v < hi))
		return tg_yaml_error(L, n, "%s: '%s' is not a number between %g and %g (exclusive), e.g. %s", key,
		                     TG_YAML_SHOW(s), lo, hi, example);
	*out = v;
	return 0;
}

/* An integer >= min. */
static int integer(const tg_yaml_in *L, const yaml_node_t *n, const char *key, int64_t min, int64_t *out)
{
	const char *s;
	int rc;
	if ((rc = tg_yaml_text(&s, L, n, key, "an integer")))
		return rc;
	int64_t v = 0;
	const char *p = s;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (INT64_MAX - 9) / 10)
			return tg_yaml_error(L, n, "%s: '%s' is too large", key, TG_YAML_SHOW(s));
		v = v * 10 + (*p - '0');
	}
	if (p == s || *p || v < min)
		return tg_yaml_error(L, n, "%s: '%s' is not an integer >= %lld", key, TG_YAML_SHOW(s), (long long)min);
	*out = v;
	return 0;
}

/* A percent: "5%", "5 %" or 5. */
static int percent(const tg_yaml_in *L, const yaml_node_t *n, const char *key, double *out)
{
	const char *s, *why;
	int rc;
	if ((rc = tg_yaml_text(&s, L, n, key, "a percent like 5%")))
		return rc;
	if (tg_units_parse_percent(out, s, &why))
		return tg_yaml_error(L, n, "%s: '%s' %s", key, TG_YAML_SHOW(s), why);
	return 0;
}

/* min_delta in the unit class of metric m; for a time metric also a
 * percent, the share of the base's GPU busy time per step (*share). */
static int quantity(const tg_yaml_in *L, const yaml_node_t *n, const char *key, tg_rule_metric m, double *out,
                    double *share)
{
	const char *s, *why;
	int rc;
	if ((rc = tg_yaml_text(&s, L, n, key, "a number or a quantity like 20us")))
		return rc;
	size_t len = strlen(s);
	while (len && s[len - 1] == ' ')
		len--;
	if (len && s[len - 1] == '%') {
		if (tg_rule_metric_unit(m) != TG_UNIT_TIME)
			return tg_yaml_error(
				L, n,
				"%s (metric %s): '%s': a percent is a share of the step's GPU time, for a time "
				"metric only",
				key, tg_rule_metric_name(m), TG_YAML_SHOW(s));
		if (tg_units_parse_percent(share, s, &why))
			return tg_yaml_error(L, n, "%s (metric %s): '%s' %s", key, tg_rule_metric_name(m),
			                     TG_YAML_SHOW(s), why);
		if (!(*share <= 100))
			return tg_yaml_error(L, n, "%s (metric %s): '%s' is more than the whole step (100%%)", key,
			                     tg_rule_metric_name(m), TG_YAML_SHOW(s));
		*out = 0;
		return 0;
	}
	if (tg_units_parse_quantity(out, s, tg_rule_metric_unit(m), &why))
		return tg_yaml_error(L, n, "%s (metric %s): '%s' %s", key, tg_rule_metric_name(m), TG_YAML_SHOW(s),
		                     why);
	return 0;
}

/* A glob, or a POSIX ERE between slashes (in which \/ is a slash). */
static int pattern(const tg_yaml_in *L, const yaml_node_t *n, const char *key, tg_pattern *p)
{
	const char *s;
	int rc;
	if ((rc = tg_yaml_text(&s, L, n, key, "a glob or a /regex/")))
		return rc;
	if (!*s)
		return tg_yaml_error(L, n, "%s: expected a glob or a /regex/, got an empty string", key);
	size_t len = strlen(s);
	if (s[0] != '/') {
		if (!(p->text = strdup(s)))
			return tg_error_set(TG_ENOMEM, "out of memory");
		return 0;
	}
	/* a regex: copy the inside, turning \/ into /, and find the closing slash */
	char *re = tg_malloc(len);
	if (!re)
		return TG_ENOMEM;
	size_t o = 0, i = 1;
	int closed = 0;
	while (i < len) {
		if (s[i] == '\\' && s[i + 1] == '/') {
			re[o++] = '/';
			i += 2;
		} else if (s[i] == '\\' && s[i + 1]) {
			re[o++] = s[i++];
			re[o++] = s[i++];
		} else if (s[i] == '/') {
			closed = i == len - 1;
			break;
		} else
			re[o++] = s[i++];
	}
	re[o] = 0;
	if (!closed) {
		free(re);
		if (i < len)
			return tg_yaml_error(L, n, "%s: '%s': a slash inside a regex is written \\/", key,
			                     TG_YAML_SHOW(s));
		return tg_yaml_error(L, n, "%s: '%s': a regex is closed by a slash (/.../)", key, TG_YAML_SHOW(s));
	}
	if (!o) {
		free(re);
		return tg_yaml_error(L, n, "%s: empty regex", key);
	}
	char msg[128];
	if (tg_regex_compile(&p->re, re, msg, sizeof(msg))) {
		free(re);
		return tg_yaml_error(L, n, "%s: bad regex '%s': %s", key, TG_YAML_SHOW(s), msg);
	}
	p->text = re;
	p->is_regex = 1;
	return 0;
}

/* ------------------------------------------------------------ settings */

/* The `settings` mapping over the defaults in set. */
static int load_settings(const tg_yaml_in *L, const yaml_node_t *n, tg_rules_settings *set)
{
	static const char *const keys[] = {"confidence", "min_samples", "fdr", "allow_hardware_change",
	                                   "history_confidence"};
	const yaml_node_t *kn[5], *f[5];
	int rc;
	if (tg_yaml_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return tg_yaml_error(L, n, "settings: expected a mapping, got %s", tg_yaml_kind(n));
	if ((rc = tg_yaml_fields(kn, f, L, n, "settings", keys, 5, 0)))
		return rc;
	if (f[0] && (rc = number_in(L, f[0], keys[0], 0.5, 1, "0.95", &set->confidence)))
		return rc;
	if (f[1] && (rc = integer(L, f[1], keys[1], 2, &set->min_samples)))
		return rc;
	if (f[2] && (rc = number_in(L, f[2], keys[2], 0, 1, "0.05", &set->fdr)))
		return rc;
	if (f[3] && (rc = tg_yaml_bool(&set->allow_hardware_change, L, f[3], keys[3])))
		return rc;
	if (f[4] && (rc = number_in(L, f[4], keys[4], 0.5, 1, "0.98", &set->history_confidence)))
		return rc;
	return 0;
}

/* ------------------------------------------------------------ one rule */

enum { SEL_CATEGORY, SEL_OP, SEL_KERNEL, SEL_MODULE, SEL_SHAPE, SEL_STREAM, SEL_RANK, SEL_FINDING, NSEL };

static const char *const select_keys[NSEL] = {"category", "op",   "kernel", "module",
                                              "shape",    "stream", "rank", "finding"};

/* select: finding, a glob or /regex/ over the finding ids: it must match one. */
static int finding_pattern(const tg_yaml_in *L, const yaml_node_t *v, tg_rule *r)
{
	int rc = pattern(L, v, "finding", &r->finding);
	if (rc)
		return rc;
	for (int id = 0; id < TG_FINDING_COUNT; id++)
		if (tg_pattern_match(&r->finding, tg_finding_name((tg_finding_id)id)))
			return 0;
	const char *names[TG_FINDING_COUNT];
	for (int id = 0; id < TG_FINDING_COUNT; id++)
		names[id] = tg_finding_name((tg_finding_id)id);
	char list[512];
	tg_yaml_join(list, sizeof(list), names, TG_FINDING_COUNT);
	return tg_yaml_error(L, v, "finding: '%s' matches no finding (%s)", TG_YAML_SHOW(r->finding.text), list);
}

/* The `select` mapping: patterns, stream and rank. */
static int load_select(const tg_yaml_in *L, const yaml_node_t *n, tg_rule *r)
{
	const yaml_node_t *kn[NSEL], *f[NSEL];
	tg_pattern *pats[] = {&r->category, &r->op, &r->kernel, &r->module, &r->shape};
	int rc;
	if (tg_yaml_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return tg_yaml_error(L, n, "select: expected a mapping, got %s", tg_yaml_kind(n));
	if ((rc = tg_yaml_fields(kn, f, L, n, "select", select_keys, NSEL, 0)))
		return rc;
	for (int i = 0; i < NSEL; i++) {
		if (!f[i])
			continue;
		if (i == SEL_FINDING && r->metric != TG_METRIC_FINDING_COST)
			return tg_yaml_error(L, kn[i], "select: 'finding' applies to metric finding_cost only (metric %s)",
			                     tg_rule_metric_name(r->metric));
		if (i != SEL_FINDING && r->metric == TG_METRIC_FINDING_COST)
			return tg_yaml_error(L, kn[i],
			                     "select: '%s' does not apply to a finding (metric finding_cost: only finding "
			                     "selects)",
			                     select_keys[i]);
		if (per_step_metric(r->metric) && i != SEL_RANK)
			return tg_yaml_error(L, kn[i],
			                     "select: '%s' does not apply to metric %s, one value per step of a whole "
			                     "rank (only rank does)",
			                     select_keys[i], tg_rule_metric_name(r->metric));
		const yaml_node_t *v = f[i];
		if (i == SEL_STREAM)
			rc = integer(L, v, "stream", 0, &r->stream);
		else if (i == SEL_RANK)
			rc = integer(L, v, "rank", 0, &r->rank);
		else if (i == SEL_FINDING)
			rc = finding_pattern(L, v, r);
		else
			rc = pattern(L, v, select_keys[i], pats[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* The most specific selector given: kernel > shape > op > module > category; op when none. */
static tg_rule_by default_by(const tg_rule *r)
{
	if (r->kernel.text)
		return TG_BY_KERNEL;
	if (r->shape.text)
		return TG_BY_OP_SHAPE;
	if (r->op.text)
		return TG_BY_OP;
	if (r->module.text)
		return TG_BY_MODULE;
	if (r->category.text)
		return TG_BY_CATEGORY;
	return TG_BY_OP;
}

/* [A-Za-z0-9_.-]+: no ':' (the separator of --accept RULE:REASON), no spaces. */
static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '.' || *s == '-'))
			return 0;
	return 1;
}

enum { R_NAME, R_SELECT, R_METRIC, R_AGGREGATE, R_BY, R_BLOCK, R_WARN, R_MIN_DELTA, R_IMPROVEMENT, R_DECIDE, NR };

static const char *const rule_keys[NR] = {"name",        "select",     "metric",    "aggregate",        "by",
                                          "block_above", "warn_above", "min_delta", "improvement_below", "decide"};

static const char *const decide_names[] = {[TG_DECIDE_LIKELY] = "likely", [TG_DECIDE_SURELY] = "surely"};

const char *tg_rule_decide_name(tg_rule_decide d)
{
	return (int)d >= 0 && (int)d < 2 ? decide_names[d] : NULL;
}

/* The rule's name: present, valid, unique among the rules before it. */
static int load_name(const tg_yaml_in *L, const yaml_node_t *map, const yaml_node_t *n, tg_rule *r, const tg_rule *prev,
                     size_t nprev)
{
	const char *s;
	int rc;
	if (!n)
		return tg_yaml_error(L, map, "a rule needs a name");
	if ((rc = tg_yaml_text(&s, L, n, "name", "a string")))
		return rc;
	if (!valid_name(s))
		return tg_yaml_error(L, n, "name: '%s' is not a valid rule name (letters, digits, '_', '.', '-')",
		                     TG_YAML_SHOW(s));
	for (size_t i = 0; i < nprev; i++)
		if (!strcmp(prev[i].name, s))
			return tg_yaml_error(L, n, "duplicate rule name '%s' (first at line %d)", s, prev[i].line);
	if (!(r->name = strdup(s)))
		return tg_error_set(TG_ENOMEM, "out of memory");
	return 0;
}

/* The percents and min_delta; at least one threshold, warn <= block. */
static int load_thresholds(const tg_yaml_in *L, const yaml_node_t *map, const yaml_node_t **f, tg_rule *r)
{
	int rc;
	if (f[R_BLOCK] && (rc = percent(L, f[R_BLOCK], "block_above", &r->block_above)))
		return rc;
	if (f[R_WARN] && (rc = percent(L, f[R_WARN], "warn_above", &r->warn_above)))
		return rc;
	if (f[R_IMPROVEMENT] && (rc = percent(L, f[R_IMPROVEMENT], "improvement_below", &r->improvement_below)))
		return rc;
	if (f[R_MIN_DELTA] &&
	    (rc = quantity(L, f[R_MIN_DELTA], "min_delta", r->metric, &r->min_delta, &r->min_delta_share)))
		return rc;
	if (isnan(r->block_above) && isnan(r->warn_above))
		return tg_yaml_error(L, map, "rule '%s' needs block_above or warn_above (or both)", r->name);
	if (r->warn_above > r->block_above)
		return tg_yaml_error(L, f[R_WARN], "warn_above (%g%%) is above block_above (%g%%)", r->warn_above,
		                     r->block_above);
	return 0;
}

/* 1 when the select mapping n has a finding key. */
static int selects_finding(const tg_yaml_in *L, const yaml_node_t *n)
{
	if (!n || n->type != YAML_MAPPING_NODE)
		return 0;
	for (const yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = tg_yaml_scalar(tg_yaml_node(L, p->key));
		if (k && !strcmp(k, "finding"))
			return 1;
	}
	return 0;
}

/* One item of `rules`, into the zeroed r. */
static int load_rule(const tg_yaml_in *L, const yaml_node_t *map, tg_rule *r, const tg_rule *prev, size_t nprev)
{
	const yaml_node_t *kn[NR], *f[NR];
	int rc, v = 0;
	r->line = (int)map->start_mark.line + 1;
	r->column = (int)map->start_mark.column + 1;
	r->stream = r->rank = -1;
	r->block_above = r->warn_above = r->improvement_below = NAN;
	r->min_delta = 0;
	if (map->type != YAML_MAPPING_NODE)
		return tg_yaml_error(L, map, "rules: each rule must be a mapping, got %s", tg_yaml_kind(map));
	if ((rc = tg_yaml_fields(kn, f, L, map, "a rule", rule_keys, NR, 0)))
		return rc;
	if ((rc = load_name(L, map, f[R_NAME], r, prev, nprev)))
		return rc;
	if (!f[R_METRIC] && selects_finding(L, f[R_SELECT])) {
		v = TG_METRIC_FINDING_COST; /* select: {finding: ...} implies its metric */
	} else if (!f[R_METRIC]) {
		char list[256];
		tg_yaml_join(list, sizeof(list), metric_names, TG_METRIC_COUNT_);
		return tg_yaml_error(L, map, "rule '%s' needs a metric (%s)", r->name, list);
	} else if ((rc = tg_yaml_keyword(&v, L, f[R_METRIC], "metric", "a metric", "metric", metric_names,
	                                 TG_METRIC_COUNT_))) {
		return rc;
	}
	r->metric = (tg_rule_metric)v;
	if (f[R_AGGREGATE]) {
		static const char *const aggs[] = {[TG_AGG_TOTAL] = "total", [TG_AGG_EACH] = "each"};
		if ((rc = tg_yaml_keyword(&v, L, f[R_AGGREGATE], "aggregate", "total or each", "aggregate", aggs, 2)))
			return rc;
		r->aggregate = (tg_rule_aggregate)v;
		if (r->aggregate == TG_AGG_EACH && per_step_metric(r->metric))
			return tg_yaml_error(L, f[R_AGGREGATE],
			                     "aggregate: 'each' does not apply to metric %s, one value per step "
			                     "(each takes kernel_time, count, tflops, tbs, launch_overhead)",
			                     tg_rule_metric_name(r->metric));
	}
	if (f[R_SELECT] && (rc = load_select(L, f[R_SELECT], r)))
		return rc;
	if (r->metric == TG_METRIC_FINDING_COST && !r->finding.text)
		return tg_yaml_error(L, f[R_METRIC] ? f[R_METRIC] : map,
		                     "metric finding_cost needs select: {finding: ID} (docs/findings.md)");
	r->by = default_by(r);
	if (f[R_BY]) {
		if ((rc = tg_yaml_keyword(&v, L, f[R_BY], "by", "a grouping", "grouping", by_names, NBY)))
			return rc;
		if (r->metric == TG_METRIC_FINDING_COST)
			return tg_yaml_error(L, kn[R_BY], "by: a finding rule's items are its findings (no by)");
		if (r->aggregate != TG_AGG_EACH)
			return tg_yaml_error(L, kn[R_BY], "by: only an 'aggregate: each' rule groups its items");
		r->by = (tg_rule_by)v;
	}
	if (f[R_DECIDE]) {
		if ((rc = tg_yaml_keyword(&v, L, f[R_DECIDE], "decide", "likely or surely", "decision", decide_names,
		                          2)))
			return rc;
		r->decide = (tg_rule_decide)v;
	}
	return load_thresholds(L, map, f, r);
}

/* ------------------------------------------------------------ the file */

/* `version`, required, 1. */
static int load_version(const tg_yaml_in *L, const yaml_node_t *root, const yaml_node_t *n)
{
	const char *s;
	int rc;
	if (!n)
		return tg_yaml_error(L, root, "missing 'version: 1' (the version of the rules format)");
	if ((rc = tg_yaml_text(&s, L, n, "version", "1")))
		return rc;
	if (strcmp(s, "1"))
		return tg_yaml_error(L, n, "version: unsupported version '%s' (this tracegate reads version 1)",
		                     TG_YAML_SHOW(s));
	return 0;
}

/* The `rules` list (null or absent: no rules). */
static int load_rules(const tg_yaml_in *L, const yaml_node_t *n, tg_rules *out)
{
	if (!n || tg_yaml_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return tg_yaml_error(L, n, "rules: expected a list, got %s", tg_yaml_kind(n));
	size_t count = tg_yaml_len(n);
	if (!count)
		return 0;
	if (!(out->items = tg_calloc(count, sizeof(*out->items))))
		return TG_ENOMEM;
	out->n = count; /* zeroed rules are safe to free */
	for (size_t i = 0; i < count; i++) {
		int rc = load_rule(L, tg_yaml_item(L, n, i), &out->items[i], out->items, i);
		if (rc)
			return rc;
	}
	return 0;
}

/* The whole document into out (a tg_rules; a tg_yaml_loader_fn). */
static int load_doc(const tg_yaml_in *L, void *rules)
{
	tg_rules *out = rules;
	static const char *const keys[] = {"version", "settings", "rules", "findings"};
	const yaml_node_t *kn[4], *f[4];
	yaml_node_t *root = yaml_document_get_root_node(L->doc);
	int rc;
	if (!root)
		return tg_error_set(TG_EFORMAT, "%s:1:1: empty rules file (expected version: 1, settings, rules)",
		                    L->file);
	if (root->type != YAML_MAPPING_NODE)
		return tg_yaml_error(L, root, "expected a mapping with the keys version, settings, rules; got %s",
		                     tg_yaml_kind(root));
	if ((rc = tg_yaml_fields(kn, f, L, root, "the rules file", keys, 4, 0)))
		return rc;
	if ((rc = load_version(L, root, f[0])))
		return rc;
	if (f[1] && (rc = load_settings(L, f[1], &out->settings)))
		return rc;
	if (f[3] && (rc = tg_rules_load_findings(L, f[3], &out->findings)))
		return rc;
	return load_rules(L, f[2], out);
}

#define MAX_DEPTH 32 /* nesting of collections; the format needs 4 */

int tg_rules_load_mem(tg_rules **out, const char *data, size_t len, const char *name)
{
	if (!out)
		return tg_error_set(TG_EINVAL, "tg_rules_load_mem: out is NULL");
	*out = NULL;
	if (!data && len)
		return tg_error_set(TG_EINVAL, "tg_rules_load_mem: data is NULL");
	if (!name)
		name = "<rules>";
	tg_rules *rules = tg_calloc(1, sizeof(*rules));
	if (!rules)
		return TG_ENOMEM;
	rules->settings =
	    (tg_rules_settings){.confidence = 0.95, .min_samples = 5, .fdr = 0.05, .history_confidence = 0.98};
	tg_findings_opts_default(&rules->findings);
	if (!(rules->source = strdup(name))) {
		free(rules);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	int rc = tg_yaml_read(data, len, name, MAX_DEPTH, 0, load_doc, rules);
	if (rc) {
		tg_rules_free(rules);
		return rc;
	}
	*out = rules;
	return 0;
}

int tg_rules_load_file(tg_rules **out, const char *path)
{
	if (!out || !path)
		return tg_error_set(TG_EINVAL, "tg_rules_load_file: bad argument");
	*out = NULL;
	char *buf;
	size_t len;
	int err = tg_file_read_all(&buf, &len, path, 0);
	if (err)
		return err;
	int rc = tg_rules_load_mem(out, buf, len, path);
	free(buf);
	return rc;
}

int tg_rules_load_default(tg_rules **out)
{
	return tg_rules_load_mem(out, tg_rules_default_yaml, tg_rules_default_yaml_len, "<default>");
}
