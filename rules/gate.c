/*
 * gate.c - measure, align, attribute, judge (see gate.h).
 */
#include "gate.h"
#include "../core/divergence.h"
#include "../core/tree_diff.h"

#include <stdlib.h>
#include <time.h>
#include <stdio.h>
#include <string.h>

/* Kinds of divergence drawn (the table lists them all). */
#define DRAW_KINDS 5

struct tg_gate {
	tg_atoms *keys;
	tg_measure *base, *next, *noise;
	tg_tree_diff **diffs;
	size_t ndiffs;
	tg_judgement *judgement, *ops;
	tg_table *divergences;
	char *drawing;
	size_t attributed;
	double stats_s; /* seconds in the judgements (tg_gate_stats_seconds) */
	tg_findings *findings[2];  /* each side's findings (base, new) */
	tg_finding_delta *deltas;  /* what changed between them */
	size_t ndeltas;
	tg_cp_diff *cp; /* NULL with no_critical_path */
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The per-op judgement behind the top regressions and improvements: every
 * op's kernel time, judged with the rules' statistics settings; an op
 * warns (the comment calls it significant) when it is worse by more than
 * 1 % and significant after the rule's false-discovery control, as an
 * improvement is claimed only beyond 1 % (improvement_below). */
static int ops_judgement(tg_judgement **out, const tg_rules *rules, const tg_measure *b, const tg_measure *x,
                         const tg_atoms *keys)
{
	const tg_rules_settings *s = tg_rules_settings_get(rules);
	char yaml[512];
	snprintf(yaml, sizeof(yaml),
	         "version: 1\nsettings:\n  confidence: %.6f\n  min_samples: %lld\n  allow_hardware_change: true\n"
	         "rules:\n  - name: ops\n    metric: kernel_time\n    aggregate: each\n    by: op\n    warn_above: 1%%\n",
	         s->confidence, (long long)s->min_samples);
	tg_rules *r;
	int rc = tg_rules_load_mem(&r, yaml, strlen(yaml), "<ops>");
	if (rc)
		return rc;
	tg_judge_opts jo = {.allow_hardware_change = 1};
	rc = tg_judge(out, r, b, x, keys, &jo);
	/* the items borrow the rule: the judgement keeps the rules alive */
	if (rc)
		tg_rules_free(r);
	else
		tg_judgement_own_rules(*out, r);
	return rc;
}

/* Aligns each pair of traces, attributes, draws pair 0 and tabulates. */
static int align(tg_gate *g, const tg_gate_opts *o)
{
	size_t nb = tg_measure_traces(g->base), nx = tg_measure_traces(g->next);
	size_t np = nb < nx ? nb : nx;
	g->diffs = tg_calloc(np ? np : 1, sizeof(*g->diffs));
	tg_divergence_pair *pairs = tg_calloc(np ? np : 1, sizeof(*pairs));
	int rc = g->diffs && pairs ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < np; i++) {
		rc = tg_tree_diff_build(&g->diffs[i], tg_measure_tree(g->base, i), tg_measure_tree(g->next, i), NULL);
		if (rc)
			break;
		g->ndiffs++;
		size_t moved = 0;
		rc = tg_divergence_attribute(g->base, g->next, g->diffs[i], (uint32_t)i, (uint32_t)i, g->keys, &moved);
		g->attributed += moved;
		pairs[i] = (tg_divergence_pair){g->diffs[i], (uint32_t)i, (uint32_t)i};
	}
	if (!rc)
		rc = tg_divergence_table(&g->divergences, pairs, g->ndiffs, g->base, g->next, g->keys, 0);
	free(pairs);
	if (rc || !g->ndiffs)
		return rc;
	size_t len = 0;
	FILE *f = open_memstream(&g->drawing, &len);
	if (!f)
		return tg_error_set(TG_ENOMEM, "out of memory");
	size_t nl, kinds = 0;
	tg_tree_diff_lcas(g->diffs[0], &nl);
	uint8_t *mask = tg_calloc(nl ? nl : 1, 1);
	if (!mask)
		rc = TG_ENOMEM;
	else if (nl)
		rc = tg_divergence_pick(mask, g->diffs[0], tg_measure_tree(g->base, 0), tg_measure_tree(g->next, 0),
		                        DRAW_KINDS, &kinds);
	tg_diff_print_opts po = {.only_diffs = 1,
	                         .context = 1,
	                         .max_depth = 4,
	                         .max_name = 80,
	                         .max_lines = o && o->drawing_lines ? o->drawing_lines : 80,
	                         .ascii = 1,
	                         .lca_mask = mask};
	if (!rc && nl) {
		size_t drawn = 0;
		for (size_t l = 0; l < nl; l++)
			drawn += mask[l];
		rc = tg_tree_diff_print(f, g->diffs[0], &po);
		if (!rc && drawn < nl)
			fprintf(f, "(%zu point%s of divergence of %zu kind%s; the first of the %zu kind%s whose time changed "
			           "most drawn)\n",
			        nl, nl == 1 ? "" : "s", kinds, kinds == 1 ? "" : "s", drawn, drawn == 1 ? "" : "s");
	}
	free(mask);
	if (fclose(f) && !rc)
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	return rc;
}

/* The findings of side m (findings.h): each trace's, and across its ranks
 * when its traces are distinct ranks of one job; traces without a rank
 * (distributedInfo) are runs of one process. */
static int side_findings(tg_findings **out, const tg_measure *m, const tg_findings_opts *fo)
{
	size_t n = tg_measure_traces(m);
	tg_findings **per = tg_calloc(n ? n : 1, sizeof(*per));
	int64_t *ranks = tg_calloc(n ? n : 1, sizeof(*ranks));
	const tg_tree **trees = tg_calloc(n ? n : 1, sizeof(*trees));
	tg_findings *across = NULL;
	int rc = per && ranks && trees ? 0 : TG_ENOMEM, distinct = n > 1;
	for (size_t i = 0; !rc && i < n; i++) {
		trees[i] = tg_measure_tree(m, i);
		int64_t r = tg_trace_rank(tg_tree_trace(trees[i]));
		ranks[i] = r >= 0 ? r : 0;
		for (size_t k = 0; k < i; k++)
			distinct &= ranks[k] != ranks[i];
		rc = tg_findings_compute(&per[i], trees[i], fo, -1, 0);
	}
	/* one rank (or runs of one): the across-rank findings say not evaluated */
	if (!rc)
		rc = tg_findings_across(&across, trees, distinct ? n : (n ? 1 : 0), fo, -1);
	if (!rc)
		rc = tg_findings_side(out, (const tg_findings *const *)per, ranks, n, across);
	for (size_t i = 0; per && i < n; i++)
		tg_findings_free(per[i]);
	tg_findings_free(across);
	free(per);
	free(ranks);
	free(trees);
	return rc;
}

/* Both sides' findings and what changed between them. */
static int findings(tg_gate *g, const tg_rules *rules)
{
	const tg_findings_opts *fo = tg_rules_findings(rules);
	int rc = side_findings(&g->findings[0], g->base, fo);
	if (!rc)
		rc = side_findings(&g->findings[1], g->next, fo);
	if (!rc)
		rc = tg_findings_compare(&g->deltas, &g->ndeltas, g->findings[0], g->findings[1], fo);
	return rc;
}

int tg_gate_run(tg_gate **out, const tg_rules *rules, const tg_tree *const *base, size_t nbase,
                const tg_tree *const *next, size_t nnext, const tg_gate_opts *opts)
{
	*out = NULL;
	tg_gate *g = tg_calloc(1, sizeof(*g));
	if (!g)
		return TG_ENOMEM;
	int rc = (g->keys = tg_atoms_new()) ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc)
		rc = tg_measure_build(&g->base, base, nbase, g->keys);
	if (!rc)
		rc = tg_measure_build(&g->next, next, nnext, g->keys);
	if (!rc && opts && opts->nnoise)
		rc = tg_measure_build(&g->noise, opts->noise, opts->nnoise, g->keys);
	if (!rc && !(opts && opts->no_tree_diff))
		rc = align(g, opts);
	if (!rc)
		rc = findings(g, rules);
	if (!rc) {
		tg_judge_opts jo = {opts ? opts->accepts : NULL, opts ? opts->naccepts : 0,
		                    opts ? opts->allow_hardware_change : 0, g->noise,
		                    opts ? opts->rule_noise : NULL, opts ? opts->nrule_noise : 0,
		                    opts ? opts->rule_base_runs : NULL, opts ? opts->nrule_base_runs : 0,
		                    g->findings[0], g->findings[1]};
		double t0 = now_s();
		rc = tg_judge(&g->judgement, rules, g->base, g->next, g->keys, &jo);
		if (!rc)
			rc = ops_judgement(&g->ops, rules, g->base, g->next, g->keys);
		g->stats_s = now_s() - t0;
	}
	if (!rc && !(opts && opts->no_critical_path)) {
		g->cp = tg_calloc(1, sizeof(*g->cp));
		rc = g->cp ? tg_cp_diff_build(g->cp, base, nbase, next, nnext) : TG_ENOMEM;
	}
	if (!rc && !g->drawing)
		rc = (g->drawing = strdup("")) ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	if (rc) {
		tg_gate_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

double tg_gate_stats_seconds(const tg_gate *g)
{
	return g->stats_s;
}

void tg_gate_free(tg_gate *g)
{
	if (!g)
		return;
	tg_judgement_free(g->judgement);
	tg_judgement_free(g->ops);
	tg_table_free(g->divergences);
	for (size_t i = 0; i < g->ndiffs; i++)
		tg_tree_diff_free(g->diffs[i]);
	free(g->diffs);
	free(g->drawing);
	free(g->cp);
	tg_measure_free(g->base);
	tg_measure_free(g->next);
	tg_measure_free(g->noise);
	tg_atoms_free(g->keys);
	tg_findings_free(g->findings[0]);
	tg_findings_free(g->findings[1]);
	free(g->deltas);
	free(g);
}

tg_verdict tg_gate_verdict(const tg_gate *g)
{
	return tg_judgement_verdict(g->judgement);
}

const tg_judgement *tg_gate_judgement(const tg_gate *g)
{
	return g->judgement;
}

const tg_measure *tg_gate_base(const tg_gate *g)
{
	return g->base;
}

const tg_measure *tg_gate_next(const tg_gate *g)
{
	return g->next;
}

const tg_atoms *tg_gate_keys(const tg_gate *g)
{
	return g->keys;
}

const tg_table *tg_gate_divergences(const tg_gate *g)
{
	return g->divergences;
}

const char *tg_gate_drawing(const tg_gate *g)
{
	return g->drawing;
}

size_t tg_gate_attributed(const tg_gate *g)
{
	return g->attributed;
}

const tg_findings *tg_gate_findings(const tg_gate *g, int next)
{
	return g->findings[next ? 1 : 0];
}

const tg_finding_delta *tg_gate_finding_changes(const tg_gate *g, size_t *n)
{
	*n = g->ndeltas;
	return g->deltas;
}

tg_diff_doc tg_gate_doc(const tg_gate *g, const char *const *base_files, size_t nbase, const char *const *new_files,
                        size_t nnew, const char *marker, const char *extra_md)
{
	tg_diff_doc d = {.base_files = base_files,
	                 .nbase = nbase,
	                 .new_files = new_files,
	                 .nnew = nnew,
	                 .base = g->base,
	                 .next = g->next,
	                 .keys = g->keys,
	                 .judgement = g->judgement,
	                 .ops = g->ops,
	                 .divergence = g->drawing,
	                 .divergences = g->divergences,
	                 .extra_md = extra_md,
	                 .marker = marker,
	                 .findings = g->deltas,
	                 .nfindings = g->ndeltas,
	                 .with_findings = 1,
	                 .critical_path = g->cp};
	return d;
}
