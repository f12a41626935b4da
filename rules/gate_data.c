/*
 * gate_data.c - the gate from run data (gate.h: tg_gate_run_data,
 * tg_gate_data_across): each side's run data ordered by rank, aligned
 * before it is measured (gate_align.c), measured by appending the traces'
 * packed measures, then judged as trees' measures are (gate_judge.c).
 */
#include "gate_impl.h"
#include "../core/analysis/ranks.h"

#include <stdlib.h>
#include <string.h>

/* The ranks of side s's traces (tg_rank_pick: their distributedInfo rank,
 * the hint, the name) into r, and the positions in rank order into o. */
static void data_order(size_t *o, int64_t *r, const tg_gate_data *s)
{
	for (size_t i = 0; i < s->n; i++)
		r[i] = tg_rank_pick(tg_rundata_rank(s->data[i]), s->hints ? s->hints[i] : -1,
		                    s->names ? s->names[i] : NULL);
	tg_gate_rank_order(o, r, s->n);
}

/* Side s in rank order, as gate_run.c orders trees: the given
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

/* Side s's measure made on keys into *out, with room for all its
 * traces' records, invocations and units at once (no slack), before
 * anything is appended (measure_fill). */
static int measure_room(tg_measure **out, const tg_gate_data *s, tg_atoms *keys)
{
	int rc = tg_measure_new(out, keys);
	size_t nr = 0, ni = 0, nu = 0;
	for (size_t i = 0; !rc && i < s->n; i++) {
		size_t k;
		const tg_measure *m = tg_rundata_measure(s->data[i]);
		nr += (tg_measure_kernels(m, &k), k);
		ni += (tg_measure_invocations(m, &k), k);
		nu += (tg_measure_units(m, &k), k);
	}
	return rc ? rc : tg_measure_reserve(*out, nr, ni, nu);
}

/* Side s appended to m in rank order (o: the given positions; r: the
 * ranks by given position; order_data), as gate_run.c measures trees;
 * each trace's run data measures given back first when the caller holds
 * them compact (opts->expand_measure). */
static int measure_fill(tg_measure *m, const size_t *o, const int64_t *r, const tg_gate_data *s,
                        const tg_gate_opts *opts)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < s->n; i++) {
		const char *name = s->names ? s->names[o[i]] : NULL;
		if (opts && opts->expand_measure)
			rc = opts->expand_measure(s->data[o[i]]);
		if (!rc)
			rc = tg_measure_append(m, tg_rundata_measure(s->data[o[i]]), &r[o[i]], &name);
	}
	return rc;
}

/* The run data's pairs aligned before they are measured (tg_gate_build_diffs),
 * on the sides' ranks (by given position: brk, xrk), under o's heap
 * policy. 0 or a code. */
static int align_data(tg_gate *g, const int64_t *brk, const int64_t *xrk, const tg_gate_opts *o)
{
	size_t nb = g->nbase, nx = g->nnext;
	int64_t *br = tg_calloc(nb ? nb : 1, sizeof(int64_t)), *xr = tg_calloc(nx ? nx : 1, sizeof(int64_t));
	int rc = br && xr ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < nb; i++)
		br[i] = brk[g->border[i]];
	for (size_t i = 0; !rc && i < nx; i++)
		xr[i] = xrk[g->xorder[i]];
	if (!rc)
		rc = tg_gate_build_diffs(g, br, nb, xr, nx, o);
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

/* Once the pairs are aligned: each diff without a point of divergence
 * made lean (tg_tree_diff_lean: its merged tree freed; nothing draws or
 * attributes it), and, when opts let the gate free run data (and the
 * sides share none, nor lend views of theirs), the skeleton of every
 * trace that no diff with LCAs reads released now rather than after the
 * judgement (its measures take their room next): the merged tree and both
 * skeletons, 42 + 63 MB at 1 GB, not beside the judgement's measures. 0 or
 * TG_ENOMEM. */
static int lean_data(tg_gate *g, const tg_gate_data *base, const tg_gate_data *next, const tg_gate_opts *opts)
{
	uint8_t *read_b = tg_calloc(g->nbase ? g->nbase : 1, 1), *read_x = tg_calloc(g->nnext ? g->nnext : 1, 1);
	int rc = read_b && read_x ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < g->ndiffs; i++)
		if (!tg_tree_diff_lean(g->diffs[i]))
			read_b[g->pairs[i].bt] = read_x[g->pairs[i].nt] = 1;
	if (!rc && opts && opts->release_data && !base->views && !shares_data(base, next)) {
		for (size_t b = 0; b < g->nbase; b++)
			if (!read_b[b])
				tg_rundata_release((tg_rundata *)g->bdata[b], TG_RUNDATA_SKELETON); /* lent for this */
		for (size_t x = 0; x < g->nnext; x++)
			if (!read_x[x])
				tg_rundata_release((tg_rundata *)g->xdata[x], TG_RUNDATA_SKELETON);
	}
	free(read_b);
	free(read_x);
	return rc;
}

int tg_gate_run_data(tg_gate **out, const tg_rules *rules, const tg_gate_data *base, const tg_gate_data *next,
                     const tg_gate_opts *opts)
{
	*out = NULL;
	tg_gate *g = tg_gate_new_sides(base->n, next->n);
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
	 * tg_rundata_detach; or compact ones, opts->expand_measure), not the
	 * judgement's */
	if (!rc && !(opts && opts->no_tree_diff))
		rc = align_data(g, brk, xrk, opts);
	if (!rc && !(opts && opts->no_tree_diff))
		rc = lean_data(g, base, next, opts);
	/* both sides' measures given their room where the alignment's freed
	 * scratch lies; what is left of it, the largest the gate leaves, the
	 * caller may give back (TG_GATE_ALIGNED) before they are filled beside
	 * the diffs and skeletons (the gate's peak) */
	if (!rc)
		rc = measure_room(&g->base, base, g->keys);
	if (!rc)
		rc = measure_room(&g->next, next, g->keys);
	if (!rc && !(opts && opts->no_tree_diff))
		tg_gate_heap_hint(opts, TG_GATE_ALIGNED);
	/* each side's run data measures freed once copied, before the next
	 * side is copied beside them */
	if (!rc)
		rc = measure_fill(g->base, g->border, brk, base, opts);
	int early = !rc && !shares_data(base, next);
	if (early)
		tg_gate_release_data(base, opts, TG_RUNDATA_MEASURE);
	/* the base side's run data measures, freed, given back before the
	 * new side's measure is filled (the gate's peak) */
	if (early && opts && opts->release_data)
		tg_gate_heap_hint(opts, TG_GATE_RELEASED);
	if (!rc)
		rc = measure_fill(g->next, g->xorder, xrk, next, opts);
	if (!rc) {
		g->sides[0] = base;
		g->sides[1] = next;
		if (!early)
			tg_gate_release_data(base, opts, TG_RUNDATA_MEASURE);
		tg_gate_release_data(next, opts, TG_RUNDATA_MEASURE);
	}
	free(brk);
	free(xrk);
	if (!rc) {
		g->across[0] = base->across;
		g->across[1] = next->across;
		rc = tg_gate_judge_sides(g, rules, opts);
	}
	if (rc) {
		tg_gate_free(g);
		return rc;
	}
	*out = g;
	return 0;
}
