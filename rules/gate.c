/*
 * gate.c - measure, align, attribute, judge (see gate.h).
 */
#include "gate.h"
#include "../core/diff/call_pairs.h"
#include "../core/diff/divergence.h"
#include "../core/analysis/ranks.h"
#include "../core/diff/rundata.h"
#include "../core/diff/tree_diff.h"

#include <stdlib.h>
#include <time.h>
#include <stdio.h>
#include <string.h>

/* Kinds of divergence drawn (the table lists them all). */
#define DRAW_KINDS 5

struct tg_gate {
	tg_atoms *keys;
	tg_measure *base, *next, *noise;
	size_t *border, *xorder;       /* the given position of each side's i-th trace (rank order) */
	const char **bfiles, **xfiles; /* tg_gate_doc's file names in that order */
	size_t nbase, nnext;
	tg_tree_diff **diffs;
	tg_divergence_pair *pairs; /* the diffed pairs of traces, ndiffs */
	size_t ndiffs;
	int aligned; /* the diffs are built (build_diffs) */
	tg_judgement *judgement, *ops;
	tg_table *divergences;
	char *drawing;
	size_t attributed;
	double stats_s; /* seconds in the judgements (tg_gate_stats_seconds) */
	tg_findings *findings[2];  /* each side's findings (base, new) */
	tg_finding_delta *deltas;  /* what changed between them */
	size_t ndeltas;
	tg_cp_diff *cp; /* NULL with no_critical_path */
	tg_diff_tables *tables; /* what the renderings show, computed once (diff_tables.h) */
	/* tg_gate_run_data: each side's run data in rank order (borrowed) */
	const tg_rundata **bdata, **xdata;
	const tg_tree_diff_side **bviews; /* the base side's views in that order (borrowed), NULL: none */
	const tg_findings *across[2]; /* their findings across ranks (borrowed), NULL when not needed */
	const tg_gate_data *sides[2]; /* the sides as given (tg_gate_opts.release_data) */
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

/* Which trace of a side of n traces of ranks rank[] (in rank order) is
 * the k-th run of rank r (unknown ranks, -1, are one group of runs);
 * TG_NONE when the side has none. */
static uint32_t trace_of(const int64_t *rank, size_t n, int64_t r, size_t k)
{
	for (size_t t = 0, seen = 0; t < n; t++)
		if (rank[t] == r && seen++ == k)
			return (uint32_t)t;
	return TG_NONE;
}

/* The pairs of traces to align: each base trace with the new trace of the
 * same rank and run (the k-th trace of a rank on each side), never by the
 * position of the files; then the traces left on both sides (ranks one
 * side does not have: rank 3 of one job against rank 1 of another) in
 * order. The sides' ranks in rank order: br (nb traces), xr (nx). Into
 * g->pairs (their diffs still NULL); returns their number. */
static int pair_traces(tg_gate *g, const int64_t *br, size_t nb, const int64_t *xr, size_t nx)
{
	size_t n = 0;
	g->pairs = tg_calloc(nb ? nb : 1, sizeof(*g->pairs));
	g->diffs = tg_calloc(nb ? nb : 1, sizeof(*g->diffs));
	uint8_t *used = tg_calloc(nx ? nx : 1, 1), *done = tg_calloc(nb ? nb : 1, 1);
	if (!g->pairs || !g->diffs || !used || !done) {
		free(used);
		free(done);
		return TG_ENOMEM;
	}
	for (size_t b = 0; b < nb; b++) {
		int64_t r = br[b];
		size_t k = 0;
		for (size_t e = 0; e < b; e++)
			k += br[e] == r;
		uint32_t x = trace_of(xr, nx, r, k);
		if (x == TG_NONE)
			continue;
		g->pairs[n++] = (tg_divergence_pair){NULL, (uint32_t)b, x};
		used[x] = done[b] = 1;
	}
	for (size_t b = 0, x = 0; b < nb; b++) {
		while (x < nx && used[x])
			x++;
		if (done[b] || x >= nx)
			continue;
		g->pairs[n++] = (tg_divergence_pair){NULL, (uint32_t)b, (uint32_t)x};
		used[x] = 1;
	}
	free(used);
	free(done);
	return (int)n;
}

/* Aligns each pair of traces of the sides' ranks (pair_traces) into
 * g->diffs, from the run data's skeletons (g->bdata, g->xdata, in rank
 * order) or the measures' trees. Run data is aligned before it is
 * measured (tg_gate_run_data), so that the alignment's peak is not beside
 * both sides' measures. 0 or a code. */
static int build_diffs(tg_gate *g, const int64_t *br, size_t nb, const int64_t *xr, size_t nx)
{
	int np = pair_traces(g, br, nb, xr, nx);
	int rc = np < 0 ? np : 0;
	for (int i = 0; !rc && i < np; i++) {
		tg_divergence_pair *p = &g->pairs[i];
		if (g->bdata && (!tg_rundata_skeleton(g->bdata[p->bt]) || !tg_rundata_skeleton(g->xdata[p->nt]))) {
			rc = tg_error_set(TG_EINVAL, "gate: run data without its skeleton cannot be aligned");
			break;
		}
		if (g->bviews && g->bviews[p->bt] &&
		    tg_tree_diff_side_skeleton(g->bviews[p->bt]) == tg_rundata_skeleton(g->bdata[p->bt]))
			rc = tg_tree_diff_build_from(&g->diffs[i], g->bviews[p->bt],
			                             tg_rundata_skeleton(g->xdata[p->nt]), NULL);
		else if (g->bdata)
			rc = tg_tree_diff_build_skeletons(&g->diffs[i], tg_rundata_skeleton(g->bdata[p->bt]),
			                                  tg_rundata_skeleton(g->xdata[p->nt]), NULL);
		else
			rc = tg_tree_diff_build(&g->diffs[i], tg_measure_tree(g->base, p->bt),
			                        tg_measure_tree(g->next, p->nt), NULL);
		if (rc)
			break;
		p->diff = g->diffs[i];
		g->ndiffs++;
	}
	g->aligned = 1;
	return rc;
}

/* The sides' ranks in rank order (their measures') into *br, *xr (the
 * caller frees both); 0 or TG_ENOMEM. */
static int measure_ranks(int64_t **br, int64_t **xr, const tg_gate *g)
{
	size_t nb = tg_measure_traces(g->base), nx = tg_measure_traces(g->next);
	*br = tg_calloc(nb ? nb : 1, sizeof(int64_t));
	*xr = tg_calloc(nx ? nx : 1, sizeof(int64_t));
	if (!*br || !*xr)
		return TG_ENOMEM;
	for (size_t i = 0; i < nb; i++)
		(*br)[i] = tg_measure_trace_rank(g->base, i);
	for (size_t i = 0; i < nx; i++)
		(*xr)[i] = tg_measure_trace_rank(g->next, i);
	return 0;
}

/* Aligns each pair of traces (unless done: build_diffs), attributes,
 * draws the first pair and tabulates. */
static int align(tg_gate *g, const tg_gate_opts *o)
{
	int rc = 0;
	if (!g->aligned) {
		int64_t *br = NULL, *xr = NULL;
		rc = measure_ranks(&br, &xr, g);
		if (!rc)
			rc = build_diffs(g, br, tg_measure_traces(g->base), xr, tg_measure_traces(g->next));
		free(br);
		free(xr);
	}
	for (size_t i = 0; !rc && i < g->ndiffs; i++) {
		tg_divergence_pair *p = &g->pairs[i];
		tg_call_pairs_fill(g->base, g->next, p->diff, p->bt, p->nt, NULL);
		size_t moved = 0;
		rc = tg_divergence_attribute(g->base, g->next, p->diff, p->bt, p->nt, g->keys, &moved);
		g->attributed += moved;
	}
	if (!rc)
		rc = tg_divergence_table(&g->divergences, g->pairs, g->ndiffs, g->base, g->next, g->keys, 0);
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

/* The alignments are drawn and tabulated: nothing reads them again, so
 * they go before the judgement's own arrays are made. */
static void drop_diffs(tg_gate *g)
{
	for (size_t i = 0; i < g->ndiffs; i++) {
		tg_tree_diff_free(g->diffs[i]);
		g->diffs[i] = NULL;
		g->pairs[i].diff = NULL;
	}
	g->ndiffs = 0;
}

/* Side s's run data parts freed (tg_rundata_release) when opts allow it. */
static void release_data(const tg_gate_data *s, const tg_gate_opts *opts, unsigned parts)
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

/* Positions 0..n-1 into o in rank order of r (the runs of a rank, and
 * the traces of unknown rank after the others, in the order given). */
static void rank_order(size_t *o, const int64_t *r, size_t n)
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

/* The traces of a side in rank order (tg_rank_of; rank_order): their
 * given positions into *order (n, the caller frees it), then the side
 * measured in that order with its hints. */
static int measure_side(tg_measure **out, size_t **order, const tg_tree *const *trees, const int64_t *hints, size_t n,
                        tg_atoms *keys)
{
	size_t *o = tg_calloc(n ? n : 1, sizeof(size_t));
	int64_t *r = tg_calloc(n ? n : 1, sizeof(int64_t)), *h = tg_calloc(n ? n : 1, sizeof(int64_t));
	const tg_tree **t = tg_calloc(n ? n : 1, sizeof(*t));
	int rc = o && r && h && t ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++)
		r[i] = tg_rank_of(tg_tree_trace(trees[i]), hints ? hints[i] : -1);
	if (!rc)
		rank_order(o, r, n);
	for (size_t i = 0; !rc && i < n; i++) {
		t[i] = trees[o[i]];
		h[i] = hints ? hints[o[i]] : -1;
	}
	if (!rc)
		rc = tg_measure_build_ranked(out, t, h, n, keys);
	free(r);
	free(h);
	free(t);
	if (rc)
		free(o);
	else
		*order = o;
	return rc;
}

/* The ranks of side s's traces (tg_rank_pick: their distributedInfo rank,
 * the hint, the name) into r, and the positions in rank order into o. */
static void data_order(size_t *o, int64_t *r, const tg_gate_data *s)
{
	for (size_t i = 0; i < s->n; i++)
		r[i] = tg_rank_pick(tg_rundata_rank(s->data[i]), s->hints ? s->hints[i] : -1,
		                    s->names ? s->names[i] : NULL);
	rank_order(o, r, s->n);
}

/* Side s in rank order, as measure_side orders trees: the given
 * positions into *order, the ranks (by given position) into *ranks, the
 * run data in that order into *sorted (the caller frees all three, on
 * failure too). The findings of each trace must have been computed under
 * fo's thresholds. 0 or a code. */
static int order_data(size_t **order, int64_t **ranks, const tg_rundata ***sorted, const tg_gate_data *s,
                      const tg_findings_opts *fo)
{
	size_t n = s->n;
	size_t *o = *order = tg_calloc(n ? n : 1, sizeof(size_t));
	int64_t *r = *ranks = tg_calloc(n ? n : 1, sizeof(int64_t));
	const tg_rundata **d = *sorted = tg_calloc(n ? n : 1, sizeof(*d));
	if (!o || !r || !d)
		return TG_ENOMEM;
	char key[2048];
	tg_rundata_opts_key(key, sizeof(key), fo);
	data_order(o, r, s);
	for (size_t i = 0; i < n; i++) {
		d[i] = s->data[o[i]];
		if (strcmp(tg_rundata_findings_key(d[i]), key))
			return tg_error_set(TG_EINVAL, "gate: the run data of %s holds findings under other thresholds",
			                    s->names && s->names[o[i]] ? s->names[o[i]] : "a trace");
	}
	return 0;
}

/* Side s measured in rank order (o: the given positions; r: the ranks by
 * given position; order_data), as measure_side measures trees, into
 * *out. */
static int measure_data(tg_measure **out, const size_t *o, const int64_t *r, const tg_gate_data *s, tg_atoms *keys)
{
	size_t n = s->n;
	int rc = tg_measure_new(out, keys);
	size_t nr = 0, ni = 0, nu = 0; /* the side's sum, reserved at once: no slack */
	for (size_t i = 0; !rc && i < n; i++) {
		size_t k;
		const tg_measure *m = tg_rundata_measure(s->data[i]);
		nr += (tg_measure_kernels(m, &k), k);
		ni += (tg_measure_invocations(m, &k), k);
		nu += (tg_measure_units(m, &k), k);
	}
	if (!rc)
		rc = tg_measure_reserve(*out, nr, ni, nu);
	for (size_t i = 0; !rc && i < n; i++) {
		const char *name = s->names ? s->names[o[i]] : NULL;
		rc = tg_measure_append(*out, tg_rundata_measure(s->data[o[i]]), &r[o[i]], &name);
	}
	return rc;
}

/* The run data's pairs aligned before they are measured (build_diffs),
 * on the sides' ranks (by given position: brk, xrk). 0 or a code. */
static int align_data(tg_gate *g, const int64_t *brk, const int64_t *xrk)
{
	size_t nb = g->nbase, nx = g->nnext;
	int64_t *br = tg_calloc(nb ? nb : 1, sizeof(int64_t)), *xr = tg_calloc(nx ? nx : 1, sizeof(int64_t));
	int rc = br && xr ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < nb; i++)
		br[i] = brk[g->border[i]];
	for (size_t i = 0; !rc && i < nx; i++)
		xr[i] = xrk[g->xorder[i]];
	if (!rc)
		rc = build_diffs(g, br, nb, xr, nx);
	free(br);
	free(xr);
	return rc;
}

int tg_gate_data_across(size_t *order, const tg_gate_data *s)
{
	size_t n = s->n;
	int64_t *r = tg_calloc(n ? n : 1, sizeof(int64_t));
	if (!r)
		return TG_ENOMEM;
	data_order(order, r, s);
	int distinct = n > 1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < i; k++)
			distinct &= (r[k] >= 0 ? r[k] : 0) != (r[i] >= 0 ? r[i] : 0);
	free(r);
	return distinct;
}

int tg_gate_across(tg_findings **out, const tg_rules *rules, const tg_tree *const *trees, size_t n)
{
	return tg_findings_across(out, trees, n, tg_rules_findings(rules), -1);
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

/* The gate on g's measured sides: judgeable, aligned, its findings, the
 * rules judged, the critical paths. 0 or a code (g is the caller's to
 * free). */
static int judge_sides(tg_gate *g, const tg_rules *rules, const tg_gate_opts *opts)
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
		release_data(opts->noise_data, opts, TG_RUNDATA_MEASURE);
	if (!rc && !(opts && opts->no_tree_diff))
		rc = align(g, opts);
	drop_diffs(g);
	release_data(g->sides[0], opts, TG_RUNDATA_SKELETON);
	release_data(g->sides[1], opts, TG_RUNDATA_SKELETON);
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
	if (!rc && !(opts && opts->no_critical_path))
		rc = critical_paths(g);
	if (!rc && !g->drawing)
		rc = (g->drawing = strdup("")) ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc)
		rc = tg_diff_tables_compute(&g->tables, g->base, g->next, g->keys, g->judgement, g->ops);
	return rc;
}

/* A gate of nbase and nnext traces, its key table and file arrays made. */
static tg_gate *gate_new(size_t nbase, size_t nnext)
{
	tg_gate *g = tg_calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->nbase = nbase;
	g->nnext = nnext;
	g->bfiles = tg_calloc(nbase ? nbase : 1, sizeof(char *));
	g->xfiles = tg_calloc(nnext ? nnext : 1, sizeof(char *));
	if (!(g->keys = tg_atoms_new()) || !g->bfiles || !g->xfiles) {
		tg_gate_free(g);
		return NULL;
	}
	return g;
}

int tg_gate_run(tg_gate **out, const tg_rules *rules, const tg_tree *const *base, size_t nbase,
                const tg_tree *const *next, size_t nnext, const tg_gate_opts *opts)
{
	*out = NULL;
	tg_gate *g = gate_new(nbase, nnext);
	int rc = g ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc)
		rc = measure_side(&g->base, &g->border, base, opts ? opts->base_ranks : NULL, nbase, g->keys);
	if (!rc)
		rc = measure_side(&g->next, &g->xorder, next, opts ? opts->next_ranks : NULL, nnext, g->keys);
	if (!rc)
		rc = judge_sides(g, rules, opts);
	if (rc) {
		tg_gate_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

/* Whether a run data of a is also one of b's (a caller that lends one
 * trace to both sides): then a's may not be freed before b is measured. */
static int shares_data(const tg_gate_data *a, const tg_gate_data *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t k = 0; k < b->n; k++)
			if (a->data[i] == b->data[k])
				return 1;
	return 0;
}

int tg_gate_run_data(tg_gate **out, const tg_rules *rules, const tg_gate_data *base, const tg_gate_data *next,
                     const tg_gate_opts *opts)
{
	*out = NULL;
	tg_gate *g = gate_new(base->n, next->n);
	int64_t *brk = NULL, *xrk = NULL; /* each side's ranks, by given position */
	int rc = g ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc)
		rc = order_data(&g->border, &brk, &g->bdata, base, tg_rules_findings(rules));
	if (!rc)
		rc = order_data(&g->xorder, &xrk, &g->xdata, next, tg_rules_findings(rules));
	if (!rc && base->views && !(g->bviews = tg_calloc(base->n ? base->n : 1, sizeof(*g->bviews))))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t i = 0; !rc && base->views && i < base->n; i++)
		g->bviews[i] = base->views[g->border[i]];
	/* aligned first, beside the run data's packed measures (rundata.h:
	 * tg_rundata_detach), not the judgement's */
	if (!rc && !(opts && opts->no_tree_diff))
		rc = align_data(g, brk, xrk);
	/* each side's run data measures freed once copied, before the next
	 * side is copied beside them */
	if (!rc)
		rc = measure_data(&g->base, g->border, brk, base, g->keys);
	int early = !rc && !shares_data(base, next);
	if (early)
		release_data(base, opts, TG_RUNDATA_MEASURE);
	if (!rc)
		rc = measure_data(&g->next, g->xorder, xrk, next, g->keys);
	if (!rc) {
		g->sides[0] = base;
		g->sides[1] = next;
		if (!early)
			release_data(base, opts, TG_RUNDATA_MEASURE);
		release_data(next, opts, TG_RUNDATA_MEASURE);
	}
	free(brk);
	free(xrk);
	if (!rc) {
		g->across[0] = base->across;
		g->across[1] = next->across;
		rc = judge_sides(g, rules, opts);
	}
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
	free(g->pairs);
	free(g->border);
	free(g->xorder);
	free(g->bfiles);
	free(g->xfiles);
	free(g->drawing);
	free(g->cp);
	tg_diff_tables_free(g->tables);
	tg_measure_free(g->base);
	tg_measure_free(g->next);
	tg_measure_free(g->noise);
	tg_atoms_free(g->keys);
	tg_findings_free(g->findings[0]);
	tg_findings_free(g->findings[1]);
	free(g->deltas);
	free((void *)g->bdata);
	free((void *)g->bviews);
	free((void *)g->xdata);
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
	/* the files in the gate's rank order, as the measures hold the traces */
	if (nbase == g->nbase && g->border)
		for (size_t i = 0; i < nbase; i++)
			g->bfiles[i] = base_files[g->border[i]];
	if (nnew == g->nnext && g->xorder)
		for (size_t i = 0; i < nnew; i++)
			g->xfiles[i] = new_files[g->xorder[i]];
	tg_diff_doc d = {.base_files = nbase == g->nbase && g->border ? g->bfiles : base_files,
	                 .nbase = nbase,
	                 .new_files = nnew == g->nnext && g->xorder ? g->xfiles : new_files,
	                 .nnew = nnew,
	                 .judgement = g->judgement,
	                 .ops = g->ops,
	                 .divergence = g->drawing,
	                 .divergences = g->divergences,
	                 .extra_md = extra_md,
	                 .marker = marker,
	                 .findings = g->deltas,
	                 .nfindings = g->ndeltas,
	                 .with_findings = 1,
	                 .critical_path = g->cp,
	                 .tables = g->tables};
	return d;
}
