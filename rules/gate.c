/*
 * gate.c - measure, align, attribute, judge (see gate.h).
 */
#include "gate.h"
#include "../core/divergence.h"
#include "../core/rundata.h"
#include "../core/tree_diff.h"

#include <stdlib.h>
#include <time.h>
#include <stdio.h>
#include <string.h>

/* Kinds of divergence drawn (the table lists them all). */
#define DRAW_KINDS 5

struct tg_gate {
	tg_skeleton **skels; /* built from trees (tg_gate_run): 2 per diffed pair */
	size_t nskels;
	tg_atoms *keys;
	tg_measure *base, *next, *noise;
	tg_tree_diff **diffs;
	size_t ndiffs;
	tg_judgement *judgement, *ops;
	tg_table *divergences;
	char *drawing;
	size_t attributed;
	double stats_s; /* seconds in the judgements (tg_gate_stats_seconds) */
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

/* Aligns each pair of traces (the i-th base skeleton with the i-th new
 * one), attributes, draws pair 0 and tabulates. */
static int align(tg_gate *g, const tg_skeleton *const *bsk, const tg_skeleton *const *nsk, size_t np,
                 const tg_gate_opts *o)
{
	g->diffs = tg_calloc(np ? np : 1, sizeof(*g->diffs));
	tg_divergence_pair *pairs = tg_calloc(np ? np : 1, sizeof(*pairs));
	int rc = g->diffs && pairs ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < np; i++) {
		rc = tg_tree_diff_build_skeletons(&g->diffs[i], bsk[i], nsk[i], NULL);
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
		rc = tg_divergence_pick(mask, g->diffs[0], DRAW_KINDS, &kinds);
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

/* The gate on g's measured sides: the A/A runs of opts measured, np
 * pairs of skeletons aligned (unless opts say not to), the rules judged.
 * 0 or a code (g is the caller's to free). */
static int judge_sides(tg_gate *g, const tg_rules *rules, const tg_skeleton *const *bsk, const tg_skeleton *const *nsk,
                       size_t np, const tg_gate_opts *opts)
{
	int rc = 0;
	if (opts && opts->nnoise)
		rc = tg_measure_build(&g->noise, opts->noise, opts->nnoise, g->keys);
	if (!rc && !(opts && opts->no_tree_diff))
		rc = align(g, bsk, nsk, np, opts);
	if (!rc) {
		tg_judge_opts jo = {opts ? opts->accepts : NULL, opts ? opts->naccepts : 0,
		                    opts ? opts->allow_hardware_change : 0, g->noise,
		                    opts ? opts->rule_noise : NULL, opts ? opts->nrule_noise : 0,
		                    opts ? opts->rule_base_runs : NULL, opts ? opts->nrule_base_runs : 0};
		double t0 = now_s();
		rc = tg_judge(&g->judgement, rules, g->base, g->next, g->keys, &jo);
		if (!rc)
			rc = ops_judgement(&g->ops, rules, g->base, g->next, g->keys);
		g->stats_s = now_s() - t0;
	}
	if (!rc && !g->drawing)
		rc = (g->drawing = strdup("")) ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	return rc;
}

int tg_gate_run(tg_gate **out, const tg_rules *rules, const tg_tree *const *base, size_t nbase,
                const tg_tree *const *next, size_t nnext, const tg_gate_opts *opts)
{
	*out = NULL;
	tg_gate *g = tg_calloc(1, sizeof(*g));
	if (!g)
		return TG_ENOMEM;
	size_t np = nbase < nnext ? nbase : nnext;
	int diff = !(opts && opts->no_tree_diff);
	int rc = (g->keys = tg_atoms_new()) ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc)
		rc = tg_measure_build(&g->base, base, nbase, g->keys);
	if (!rc)
		rc = tg_measure_build(&g->next, next, nnext, g->keys);
	if (!rc && diff && !(g->skels = tg_calloc(2 * np + 1, sizeof(*g->skels))))
		rc = TG_ENOMEM;
	for (size_t i = 0; !rc && diff && i < np; i++, g->nskels += 2)
		if (!(rc = tg_skeleton_build(&g->skels[2 * i], base[i], 0)))
			rc = tg_skeleton_build(&g->skels[2 * i + 1], next[i], 0);
	const tg_skeleton **bsk = rc || !diff ? NULL : tg_calloc(np + 1, sizeof(*bsk));
	const tg_skeleton **nsk = rc || !diff ? NULL : tg_calloc(np + 1, sizeof(*nsk));
	if (!rc && diff && (!bsk || !nsk))
		rc = TG_ENOMEM;
	for (size_t i = 0; !rc && diff && i < np; i++) {
		bsk[i] = g->skels[2 * i];
		nsk[i] = g->skels[2 * i + 1];
	}
	if (!rc)
		rc = judge_sides(g, rules, bsk, nsk, np, opts);
	free(bsk);
	free(nsk);
	if (rc) {
		tg_gate_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int tg_gate_run_data(tg_gate **out, const tg_rules *rules, const tg_rundata *const *base, size_t nbase,
                     const tg_rundata *const *next, size_t nnext, const tg_gate_opts *opts)
{
	*out = NULL;
	tg_gate *g = tg_calloc(1, sizeof(*g));
	if (!g)
		return TG_ENOMEM;
	size_t np = nbase < nnext ? nbase : nnext;
	int rc = (g->keys = tg_atoms_new()) ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc)
		rc = tg_measure_new(&g->base, g->keys);
	for (size_t i = 0; !rc && i < nbase; i++)
		rc = tg_measure_append(g->base, tg_rundata_measure(base[i]));
	if (!rc)
		rc = tg_measure_new(&g->next, g->keys);
	for (size_t i = 0; !rc && i < nnext; i++)
		rc = tg_measure_append(g->next, tg_rundata_measure(next[i]));
	const tg_skeleton **bsk = rc ? NULL : tg_calloc(np + 1, sizeof(*bsk));
	const tg_skeleton **nsk = rc ? NULL : tg_calloc(np + 1, sizeof(*nsk));
	if (!rc && (!bsk || !nsk))
		rc = TG_ENOMEM;
	for (size_t i = 0; !rc && i < np; i++) {
		bsk[i] = tg_rundata_skeleton(base[i]);
		nsk[i] = tg_rundata_skeleton(next[i]);
	}
	if (!rc)
		rc = judge_sides(g, rules, bsk, nsk, np, opts);
	free(bsk);
	free(nsk);
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
	tg_measure_free(g->base);
	tg_measure_free(g->next);
	tg_measure_free(g->noise);
	tg_atoms_free(g->keys);
	for (size_t i = 0; i < g->nskels; i++)
		tg_skeleton_free(g->skels[i]);
	free(g->skels);
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
	                 .marker = marker};
	return d;
}
