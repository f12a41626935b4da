/*
 * gate.c - the gate's life and what it holds (see gate.h): made with its
 * key table, freed with everything it owns, and read. How it is run lives
 * in gate_run.c and gate_data.c (gate_impl.h).
 */
#include "gate_impl.h"

#include <stdlib.h>
#include <string.h>

/* A gate of nbase and nnext traces, its key table and file arrays made. */
tg_gate *tg_gate_new_sides(size_t nbase, size_t nnext)
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

void tg_gate_heap_hint(const tg_gate_opts *opts, enum tg_gate_stage stage)
{
	if (opts && opts->heap_hint)
		opts->heap_hint(opts->heap_ctx, stage);
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
