/*
 * gate_judge.c - what the gate does once both sides are measured
 * (gate_impl.h: tg_gate_judge_sides): the noise runs measured, the sides
 * checked judgeable and aligned (gate_align.c), each side's findings and
 * what changed, the rules judged, the per-op judgement, the critical
 * paths and the diff's tables.
 */
#include "gate_impl.h"
#include "../core/analysis/ranks.h"

#include <stdlib.h>
#include <time.h>
#include <string.h>

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

/* Side s's run data parts freed (tg_rundata_release) when opts allow it. */
void tg_gate_release_data(const tg_gate_data *s, const tg_gate_opts *opts, unsigned parts)
{
	for (size_t i = 0; s && opts && opts->release_data && i < s->n; i++)
		tg_rundata_release((tg_rundata *)s->data[i], parts); /* the caller's, lent for this */
}

/* Whether the traces of side m are distinct ranks of one job
 * (tg_measure_trace_rank; unknown ranks count as 0), into ranks (one per
 * trace): their findings across ranks are then evaluated. */
static int distinct_ranks(int64_t *ranks, const tg_measure *m)
{
	size_t n = tg_measure_traces(m);
	int distinct = n > 1;
	for (size_t i = 0; i < n; i++) {
		int64_t r = tg_measure_trace_rank(m, i);
		ranks[i] = r >= 0 ? r : 0;
		for (size_t k = 0; k < i; k++)
			distinct &= ranks[k] != ranks[i];
	}
	return distinct;
}

/* The findings of side m (findings.h): each trace's (computed from its
 * tree, or its run data's: data, NULL for trees), and across its ranks
 * when its traces are distinct ranks of one job (tg_measure_trace_rank;
 * given for run data: given); traces of unknown rank are runs of one
 * process. */
static int side_findings(tg_findings **out, const tg_measure *m, const tg_findings_opts *fo,
                         const tg_rundata *const *data, const tg_findings *given)
{
	size_t n = tg_measure_traces(m);
	tg_findings **per = tg_calloc(n ? n : 1, sizeof(*per));
	int64_t *ranks = tg_calloc(n ? n : 1, sizeof(*ranks));
	const tg_tree **trees = tg_calloc(n ? n : 1, sizeof(*trees));
	tg_findings *across = NULL;
	int rc = per && ranks && trees ? 0 : TG_ENOMEM, distinct = rc ? 0 : distinct_ranks(ranks, m);
	for (size_t i = 0; !rc && !data && i < n; i++) {
		trees[i] = tg_measure_tree(m, i);
		rc = tg_findings_compute(&per[i], trees[i], fo, -1, 0);
	}
	/* one rank (or runs of one): the across-rank findings say not evaluated
	 * (without reading a tree) */
	if (!rc && !(data && distinct))
		rc = tg_findings_across(&across, trees, distinct ? n : (n ? 1 : 0), fo, -1);
	else if (!rc && !given)
		rc = tg_error_set(TG_EINVAL, "gate: the findings across the ranks of %s are not given",
		                  tg_measure_trace_name(m, 0));
	const tg_findings **list = data ? tg_calloc(n ? n : 1, sizeof(*list)) : (const tg_findings **)per;
	for (size_t i = 0; !rc && data && list && i < n; i++)
		if (!(list[i] = tg_rundata_findings(data[i])))
			rc = tg_error_set(TG_EINVAL, "gate: the run data of %s holds no findings",
			                  tg_measure_trace_name(m, i));
	if (!rc)
		rc = list ? tg_findings_side(out, list, ranks, n, across ? across : given) : TG_ENOMEM;
	if (data)
		free((void *)list);
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
	int rc = side_findings(&g->findings[0], g->base, fo, g->bdata, g->across[0]);
	if (!rc)
		rc = side_findings(&g->findings[1], g->next, fo, g->xdata, g->across[1]);
	if (!rc)
		rc = tg_findings_compare(&g->deltas, &g->ndeltas, g->findings[0], g->findings[1], fo);
	return rc;
}

/* How the critical path moved, from the run data's summaries. */
static int data_critical_paths(tg_gate *g, size_t nb, size_t nx)
{
	tg_cp_summary *s = tg_calloc(nb + nx + 1, sizeof(*s));
	const char **names = tg_calloc(nb + nx + 1, sizeof(*names));
	if (!s || !names) {
		free(s);
		free((void *)names);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < nb + nx; i++) {
		const tg_rundata *rd = i < nb ? g->bdata[i] : g->xdata[i - nb];
		if (!(tg_rundata_parts(rd) & TG_RUNDATA_CP)) {
			free(s);
			free((void *)names);
			return tg_error_set(TG_EINVAL, "gate: run data without its critical path");
		}
		s[i] = *tg_rundata_cp(rd);
		names[i] = i < nb ? tg_measure_trace_name(g->base, i) : tg_measure_trace_name(g->next, i - nb);
	}
	tg_cp_diff_from(g->cp, s, names, nb, s + nb, names + nb, nx);
	free(s);
	free((void *)names);
	return 0;
}

/* How the critical path moved (cp_diff.h), over each side's traces in
 * the measures' rank order: the order the files were given in moves no
 * byte of it either. */
static int critical_paths(tg_gate *g)
{
	size_t nb = tg_measure_traces(g->base), nx = tg_measure_traces(g->next);
	if (!(g->cp = tg_calloc(1, sizeof(*g->cp))))
		return TG_ENOMEM;
	if (g->bdata)
		return data_critical_paths(g, nb, nx);
	const tg_tree **t = tg_calloc(nb + nx + 1, sizeof(*t));
	int rc = t ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < nb; i++)
		t[i] = tg_measure_tree(g->base, i);
	for (size_t i = 0; !rc && i < nx; i++)
		t[nb + i] = tg_measure_tree(g->next, i);
	if (!rc)
		rc = tg_cp_diff_build(g->cp, t, nb, t + nb, nx);
	free(t);
	return rc;
}

/* The --noise-from runs s as one measure on keys, as tg_measure_build
 * measures their trees: in the order given, each trace's rank its
 * distributedInfo rank, the hint or the name (tg_rank_of). */
static int measure_noise_data(tg_measure **out, const tg_gate_data *s, tg_atoms *keys)
{
	int rc = tg_measure_new(out, keys);
	for (size_t i = 0; !rc && i < s->n; i++) {
		const char *name = s->names ? s->names[i] : NULL;
		int64_t r = tg_rank_pick(tg_rundata_rank(s->data[i]), s->hints ? s->hints[i] : -1, name);
		rc = tg_measure_append(*out, tg_rundata_measure(s->data[i]), &r, &name);
	}
	return rc;
}

/* Positions 0..n-1 into o in rank order of r (the runs of a rank, and
 * the traces of unknown rank after the others, in the order given). */
void tg_gate_rank_order(size_t *o, const int64_t *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = i; /* insertion: stable, so a rank's runs keep their order */
		while (k > 0 && r[o[k - 1]] != r[i] && (r[i] >= 0 && (r[o[k - 1]] < 0 || r[o[k - 1]] > r[i]))) {
			o[k] = o[k - 1];
			k--;
		}
		o[k] = i;
	}
}

/* The gate on g's measured sides: judgeable, aligned, its findings, the
 * rules judged, the critical paths. 0 or a code (g is the caller's to
 * free). */
int tg_gate_judge_sides(tg_gate *g, const tg_rules *rules, const tg_gate_opts *opts)
{
	int rc = 0;
	if (opts && opts->noise_data && opts->noise_data->n && g->bdata)
		rc = measure_noise_data(&g->noise, opts->noise_data, g->keys);
	else if (opts && opts->nnoise)
		rc = tg_measure_build(&g->noise, opts->noise, opts->nnoise, g->keys);
	/* nothing to judge is not a pass (docs/rules.md) */
	if (!rc)
		rc = tg_measure_judgeable(g->base, "base");
	if (!rc)
		rc = tg_measure_judgeable(g->next, "new");
	if (!rc && g->noise)
		rc = tg_measure_judgeable(g->noise, "--noise-from");
	if (opts && opts->noise_data && g->bdata)
		tg_gate_release_data(opts->noise_data, opts, TG_RUNDATA_MEASURE);
	if (!rc && !(opts && opts->no_tree_diff))
		rc = tg_gate_align(g, opts);
	tg_gate_drop_diffs(g);
	tg_gate_release_data(g->sides[0], opts, TG_RUNDATA_SKELETON);
	tg_gate_release_data(g->sides[1], opts, TG_RUNDATA_SKELETON);
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
		/* each judgement's selections and samples, freed, given back
		 * before the next one (or the tables) makes its own */
		tg_gate_heap_hint(opts, TG_GATE_JUDGE_STAGE);
		if (!rc)
			rc = ops_judgement(&g->ops, rules, g->base, g->next, g->keys);
		tg_gate_heap_hint(opts, TG_GATE_JUDGE_STAGE);
		g->stats_s = now_s() - t0;
	}
	if (!rc && !(opts && opts->no_critical_path))
		rc = critical_paths(g);
	if (!rc && !g->drawing)
		rc = (g->drawing = strdup("")) ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc)
		rc = tg_diff_tables_compute(&g->tables, g->base, g->next, g->keys, g->judgement, g->ops);
	return rc;
}
