/*
 * rules_findings.c - the `findings:` section of a rules file (see
 * rules_findings.h): each finding's thresholds, checked one by one with
 * a "file:line:column: what" message for a bad one.
 */
#include "rules_findings.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The key of each finding's own threshold, and what it takes. */
enum kind { K_NONE, K_TIME, K_RATIO, K_BYTES, K_PERCENT };

static const struct {
	const char *key;
	enum kind kind;
} own[TG_FINDING_COUNT] = {
	[TG_FINDING_LAUNCH_BOUND] = {"max_gap", K_TIME},
	[TG_FINDING_IDLE_GAP] = {"min_gap", K_TIME},
	[TG_FINDING_FIRST_STEP_SLOW] = {"min_ratio", K_RATIO},
	[TG_FINDING_GEMM_ALIGNMENT] = {"align_bytes", K_BYTES},
	[TG_FINDING_LOW_EFFICIENCY] = {"below_roofline", K_PERCENT},
	[TG_FINDING_STRAGGLER] = {"min_last", K_PERCENT},
	[TG_FINDING_ALL_RANKS_IDLE] = {"min_gap", K_TIME},
};

/* A percent in [0, 100]. */
static int percent(double *out, const tg_yaml_in *L, const yaml_node_t *n, const char *key)
{
	const char *s, *why;
	int rc;
	if ((rc = tg_yaml_text(&s, L, n, key, "a percent like 5%")))
		return rc;
	if (tg_units_parse_percent(out, s, &why))
		return tg_yaml_error(L, n, "%s: '%s' %s", key, TG_YAML_SHOW(s), why);
	if (!(*out >= 0 && *out <= 100))
		return tg_yaml_error(L, n, "%s: '%s' is not a percent between 0 and 100", key, TG_YAML_SHOW(s));
	return 0;
}

/* A finding's own threshold into *out (ns for a time, a ratio, bytes, percent). */
static int own_value(double *out, const tg_yaml_in *L, const yaml_node_t *n, const char *key, enum kind k)
{
	const char *s, *why, *end;
	int rc;
	if (k == K_PERCENT)
		return percent(out, L, n, key);
	if ((rc = tg_yaml_text(&s, L, n, key, k == K_TIME ? "a time like 1ms" : "a number")))
		return rc;
	if (k == K_TIME) {
		if (tg_units_parse_quantity(out, s, TG_UNIT_TIME, &why))
			return tg_yaml_error(L, n, "%s: '%s' %s", key, TG_YAML_SHOW(s), why);
		if (!(*out > 0))
			return tg_yaml_error(L, n, "%s: '%s' is not a time above 0 (e.g. 1ms)", key, TG_YAML_SHOW(s));
		return 0;
	}
	if (tg_units_parse_number(out, s, &end) || *end || !isfinite(*out))
		return tg_yaml_error(L, n, "%s: '%s' is not a number", key, TG_YAML_SHOW(s));
	if (k == K_RATIO && !(*out > 1))
		return tg_yaml_error(L, n,
		                     "%s: '%s' is not a ratio above 1 (e.g. 1.5: the first step 1.5 x the median)", key,
		                     TG_YAML_SHOW(s));
	if (k == K_BYTES && !(*out >= 1 && *out <= 256 && !((int)*out & ((int)*out - 1)) && *out == (int)*out))
		return tg_yaml_error(L, n, "%s: '%s' is not a power of two from 1 to 256 (bytes)", key,
		                     TG_YAML_SHOW(s));
	return 0;
}

/* One finding's value: off / on, or a mapping of enabled, min_cost and its own key. */
static int one(tg_finding_limits *lim, const tg_yaml_in *L, const yaml_node_t *n, int id)
{
	const char *name = tg_finding_name((tg_finding_id)id);
	if (n->type == YAML_SCALAR_NODE) {
		const char *s = tg_yaml_scalar(n);
		if (s && (!strcmp(s, "off") || !strcmp(s, "on"))) {
			lim->enabled = !strcmp(s, "on");
			return 0;
		}
		return tg_yaml_error(L, n, "%s: expected off, on or a mapping of its thresholds, got '%s'", name,
		                     TG_YAML_SHOW(s ? s : ""));
	}
	if (n->type != YAML_MAPPING_NODE)
		return tg_yaml_error(L, n, "%s: expected off, on or a mapping, got %s", name, tg_yaml_kind(n));
	const char *keys[3] = {"enabled", "min_cost", own[id].key ? own[id].key : "enabled"};
	size_t nkeys = own[id].key ? 3 : 2;
	const yaml_node_t *kn[3], *f[3];
	char where[64];
	snprintf(where, sizeof(where), "findings.%s", name);
	int rc = tg_yaml_fields(kn, f, L, n, where, keys, nkeys, 0);
	if (!rc && f[0])
		rc = tg_yaml_bool(&lim->enabled, L, f[0], "enabled");
	if (!rc && f[1])
		rc = percent(&lim->min_cost, L, f[1], "min_cost");
	if (!rc && nkeys == 3 && f[2])
		rc = own_value(&lim->param, L, f[2], own[id].key, own[id].kind);
	return rc;
}

int tg_rules_load_findings(const tg_yaml_in *L, const yaml_node_t *n, tg_findings_opts *o)
{
	if (tg_yaml_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return tg_yaml_error(L, n, "findings: expected a mapping, got %s", tg_yaml_kind(n));
	for (const yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = tg_yaml_node(L, p->key), *v = tg_yaml_node(L, p->value);
		const char *key = k ? tg_yaml_scalar(k) : NULL;
		if (!key)
			return tg_yaml_error(L, k ? k : n, "findings: keys are finding names");
		const yaml_node_pair_t *dup = tg_yaml_earlier_key(L, n, p);
		if (dup)
			return tg_yaml_error(L, k, "duplicate key '%s' in findings (first at line %d)",
			                     TG_YAML_SHOW(key), (int)tg_yaml_node(L, dup->key)->start_mark.line + 1);
		int rc;
		if (!strcmp(key, "worse_above")) {
			if ((rc = percent(&o->worse_above, L, v, "worse_above")))
				return rc;
			continue;
		}
		int id = tg_finding_parse(key);
		if (id < 0) {
			const char *names[TG_FINDING_COUNT + 1];
			for (int i = 0; i < TG_FINDING_COUNT; i++)
				names[i] = tg_finding_name((tg_finding_id)i);
			names[TG_FINDING_COUNT] = "worse_above";
			char list[512];
			tg_yaml_join(list, sizeof(list), names, TG_FINDING_COUNT + 1);
			return tg_yaml_error(L, k, "findings: unknown finding '%s' (expected %s)", TG_YAML_SHOW(key),
			                     list);
		}
		if ((rc = one(&o->limits[id], L, v, id)))
			return rc;
	}
	return 0;
}
