/*
 * gate_run.c - the gate from trees (gate.h: tg_gate_run, tg_gate_across):
 * each side's traces measured in rank order, then judged (gate_judge.c).
 */
#include "gate_impl.h"
#include "../core/analysis/ranks.h"

#include <stdlib.h>

/* The traces of a side in rank order (tg_rank_of; tg_gate_rank_order): their
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
		tg_gate_rank_order(o, r, n);
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

int tg_gate_run(tg_gate **out, const tg_rules *rules, const tg_tree *const *base, size_t nbase,
                const tg_tree *const *next, size_t nnext, const tg_gate_opts *opts)
{
	*out = NULL;
	tg_gate *g = tg_gate_new_sides(nbase, nnext);
	int rc = g ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc)
		rc = measure_side(&g->base, &g->border, base, opts ? opts->base_ranks : NULL, nbase, g->keys);
	if (!rc)
		rc = measure_side(&g->next, &g->xorder, next, opts ? opts->next_ranks : NULL, nnext, g->keys);
	if (!rc)
		rc = tg_gate_judge_sides(g, rules, opts);
	if (rc) {
		tg_gate_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int tg_gate_across(tg_findings **out, const tg_rules *rules, const tg_tree *const *trees, size_t n)
{
	return tg_findings_across(out, trees, n, tg_rules_findings(rules), -1);
}
