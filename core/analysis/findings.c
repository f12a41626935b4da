/*
 * findings.c - the findings of a trace and of one side of a comparison
 * (findings.h): runs the families in order (the host family first: the
 * gap families leave out what it explains) and sorts the list.
 */
#include "findings_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static tg_findings *list_new(void)
{
	return tg_calloc(1, sizeof(tg_findings));
}

void tg_findings_free(tg_findings *f)
{
	if (!f)
		return;
	free(f->v);
	free(f);
}

const tg_finding *tg_findings_list(const tg_findings *f, size_t *n)
{
	*n = f ? f->n : 0;
	return f ? f->v : NULL;
}

size_t tg_findings_count(const tg_findings *f, tg_finding_status s)
{
	size_t k = 0;
	for (size_t i = 0; f && i < f->n; i++)
		k += f->v[i].status == s;
	return k;
}

size_t tg_findings_steps(const tg_findings *f, double *step_ns)
{
	*step_ns = f ? f->step_ns : 0;
	return f ? f->nsteps : 0;
}

/* straggler and all-ranks-idle on a trace alone: not evaluated. */
static int one_rank(tg_fctx *c)
{
	int64_t ws = tg_trace_world_size(c->t);
	int rc = 0;
	for (int id = TG_FINDING_STRAGGLER; !rc && id <= TG_FINDING_ALL_RANKS_IDLE; id++) {
		if (!c->o->limits[id].enabled)
			continue;
		if (ws > 1)
			rc = tg_fctx_not_evaluated(c, (tg_finding_id)id, "one rank of %lld (give every rank's trace)",
			                           (long long)ws);
		else
			rc = tg_fctx_not_evaluated(c, (tg_finding_id)id, "one rank");
	}
	return rc;
}

int tg_findings_compute(tg_findings **out, const tg_tree *tree, const tg_findings_opts *opts, int32_t step,
                        int with_across)
{
	tg_findings_opts def;
	if (!opts) {
		tg_findings_opts_default(&def);
		opts = &def;
	}
	*out = NULL;
	tg_findings *l = list_new();
	if (!l)
		return TG_ENOMEM;
	tg_fctx c;
	int rc = tg_fctx_init(&c, tree, opts, step, l, 1);
	if (!rc)
		rc = tg_findings_check_host(&c);
	if (!rc)
		rc = tg_findings_check_gaps(&c);
	if (!rc)
		rc = tg_findings_check_pageable(&c);
	/* the busy intervals gone before the ops' perf sheets are made (the
	 * findings' peak at 1 GB of JSON was the two together, 7.3 + 6.5 MB) */
	tg_fctx_drop_busy(&c);
	if (!rc)
		rc = tg_findings_check_ops(&c);
	if (!rc)
		rc = tg_findings_check_comm(&c);
	if (!rc && with_across)
		rc = one_rank(&c);
	tg_fctx_free(&c);
	if (rc) {
		tg_findings_free(l);
		return rc == TG_ENOMEM ? tg_error_set(TG_ENOMEM, "findings: out of memory") : rc;
	}
	tg_findings_sort(l);
	*out = l;
	return 0;
}

/* ------------------------------------------------------------ one side */

static int same(const tg_finding *a, const tg_finding *b)
{
	return a->id == b->id && !strcmp(a->key, b->key);
}

/* The entry of l matching x, or NULL; *evaluated: l evaluated x's id. */
static const tg_finding *match(const tg_findings *l, const tg_finding *x, int *evaluated)
{
	const tg_finding *m = NULL;
	*evaluated = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].id != x->id)
			continue;
		*evaluated |= l->v[i].status != TG_FINDING_NOT_EVALUATED;
		if (!m && !strcmp(l->v[i].key, x->key))
			m = &l->v[i];
	}
	return m;
}

/* Finding x over the traces: the mean over the runs of a rank, the largest
 * over the ranks, fired when it fired anywhere, the costliest evidence. */
static void aggregate(tg_finding *out, const tg_finding *x, const tg_findings *const *pt, const int64_t *ranks,
                      size_t n)
{
	const tg_finding *rep = NULL; /* the costliest fired one */
	double best_cost = -1, best_pct = -1;
	int any_eval = 0;
	for (size_t i = 0; i < n; i++) {
		int seen = 0;
		for (size_t k = 0; k < i; k++)
			seen |= ranks[k] == ranks[i];
		if (seen)
			continue; /* the rank's runs were taken with its first trace */
		double cost = 0, pct = 0;
		size_t runs = 0;
		for (size_t j = i; j < n; j++) {
			int ev;
			const tg_finding *m = ranks[j] == ranks[i] ? match(pt[j], x, &ev) : NULL;
			if (ranks[j] != ranks[i] || !ev)
				continue;
			runs++;
			if (!m || m->status == TG_FINDING_NOT_EVALUATED)
				continue; /* evaluated, not there: costs 0 in that run */
			cost += isnan(m->cost_ns) ? 0 : m->cost_ns;
			pct += isnan(m->cost_pct) ? 0 : m->cost_pct;
			if (m->status == TG_FINDING_FIRED && (!rep || m->cost_ns > rep->cost_ns))
				rep = m;
		}
		if (!runs)
			continue;
		any_eval = 1;
		if (cost / (double)runs > best_cost) {
			best_cost = cost / (double)runs;
			best_pct = pct / (double)runs;
		}
	}
	*out = rep ? *rep : *x;
	if (any_eval) {
		out->cost_ns = best_cost;
		out->cost_pct = best_pct;
		out->status = rep ? TG_FINDING_FIRED : TG_FINDING_OK;
	}
}

int tg_findings_side(tg_findings **out, const tg_findings *const *per_trace, const int64_t *ranks, size_t n,
                     const tg_findings *across)
{
	*out = NULL;
	tg_findings *l = list_new();
	if (!l)
		return TG_ENOMEM;
	if (n) {
		l->nsteps = per_trace[0]->nsteps;
		l->step_ns = per_trace[0]->step_ns;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < per_trace[i]->n; k++) {
			const tg_finding *x = &per_trace[i]->v[k];
			int dup = 0;
			for (size_t j = 0; j < l->n && !dup; j++)
				dup = same(&l->v[j], x);
			if (dup)
				continue;
			tg_finding *f = tg_findings_push(l, x->id);
			if (!f) {
				tg_findings_free(l);
				return tg_error_set(TG_ENOMEM, "findings: out of memory");
			}
			aggregate(f, x, per_trace, ranks, n);
		}
	for (size_t k = 0; across && k < across->n; k++) {
		tg_finding *f = tg_findings_push(l, across->v[k].id);
		if (!f) {
			tg_findings_free(l);
			return tg_error_set(TG_ENOMEM, "findings: out of memory");
		}
		*f = across->v[k];
	}
	tg_findings_sort(l);
	*out = l;
	return 0;
}

int tg_findings_across_unknown(tg_findings **out, const tg_findings_opts *fo, const char *why)
{
	tg_findings_opts def;
	if (!fo) {
		tg_findings_opts_default(&def);
		fo = &def;
	}
	*out = NULL;
	tg_findings *l = tg_calloc(1, sizeof(*l));
	if (!l)
		return TG_ENOMEM;
	/* as tg_findings_across says it of one rank */
	tg_fctx c = {.o = fo, .out = l, .rank = -1};
	int rc = 0;
	for (int id = TG_FINDING_STRAGGLER; !rc && id <= TG_FINDING_ALL_RANKS_IDLE; id++)
		if (fo->limits[id].enabled)
			rc = tg_fctx_not_evaluated(&c, (tg_finding_id)id, "%s", why);
	if (rc) {
		tg_findings_free(l);
		return rc;
	}
	tg_findings_sort(l);
	*out = l;
	return 0;
}
