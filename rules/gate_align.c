/*
 * gate_align.c - the gate's alignment (gate_impl.h): each base trace
 * paired with the new trace of its rank and run, the pair aligned from
 * run data's skeletons or trees, the divergences attributed and
 * tabulated, and the first pair drawn.
 */
#include "gate_impl.h"
#include "../core/diff/call_pairs.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Kinds of divergence drawn (the table lists them all). */
#define DRAW_KINDS 5

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

/* A tree diff's scratch freed (tg_tree_diff_opts.scratch_freed): the
 * caller's heap policy, ctx the gate's options. */
static void diff_scratch_freed(void *ctx)
{
	tg_gate_heap_hint(ctx, TG_GATE_DIFF_SCRATCH);
}

/* Aligns each pair of traces of the sides' ranks (pair_traces) into
 * g->diffs, from the run data's skeletons (g->bdata, g->xdata, in rank
 * order) or the measures' trees. Run data is aligned before it is
 * measured (tg_gate_run_data), so that the alignment's peak is not beside
 * both sides' measures. 0 or a code. */
int tg_gate_build_diffs(tg_gate *g, const int64_t *br, size_t nb, const int64_t *xr, size_t nx,
                        const tg_gate_opts *o)
{
	int np = pair_traces(g, br, nb, xr, nx);
	int rc = np < 0 ? np : 0;
	tg_tree_diff_opts to; /* the defaults, and the caller's heap policy */
	memset(&to, 0, sizeof(to));
	to.scratch_freed = o && o->heap_hint ? diff_scratch_freed : NULL;
	to.scratch_ctx = (void *)o; /* read only: diff_scratch_freed */
	/* run data's diffs are made lean once built (gate_data.c lean_data):
	 * those without LCAs never hold their merged tree whole */
	to.lean = g->bdata != NULL;
	for (int i = 0; !rc && i < np; i++) {
		tg_divergence_pair *p = &g->pairs[i];
		if (g->bdata && (!tg_rundata_skeleton(g->bdata[p->bt]) || !tg_rundata_skeleton(g->xdata[p->nt]))) {
			rc = tg_error_set(TG_EINVAL, "gate: run data without its skeleton cannot be aligned");
			break;
		}
		/* what the loads (or the pair before) freed, given back before
		 * the views take their room: the build's peak at 1 GB, with the
		 * second view's scratch (138-149 -> 129 MB) */
		tg_gate_heap_hint(o, TG_GATE_DIFF_SCRATCH);
		if (g->bviews && g->bviews[p->bt] &&
		    tg_tree_diff_side_skeleton(g->bviews[p->bt]) == tg_rundata_skeleton(g->bdata[p->bt]))
			rc = tg_tree_diff_build_from(&g->diffs[i], g->bviews[p->bt],
			                             tg_rundata_skeleton(g->xdata[p->nt]), &to);
		else if (g->bdata)
			rc = tg_tree_diff_build_skeletons(&g->diffs[i], tg_rundata_skeleton(g->bdata[p->bt]),
			                                  tg_rundata_skeleton(g->xdata[p->nt]), &to);
		else
			rc = tg_tree_diff_build(&g->diffs[i], tg_measure_tree(g->base, p->bt),
			                        tg_measure_tree(g->next, p->nt), &to);
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

/* Aligns each pair of traces (unless done: tg_gate_build_diffs), attributes,
 * draws the first pair and tabulates. */
int tg_gate_align(tg_gate *g, const tg_gate_opts *o)
{
	int rc = 0;
	if (!g->aligned) {
		int64_t *br = NULL, *xr = NULL;
		rc = measure_ranks(&br, &xr, g);
		if (!rc)
			rc = tg_gate_build_diffs(g, br, tg_measure_traces(g->base), xr, tg_measure_traces(g->next), o);
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
void tg_gate_drop_diffs(tg_gate *g)
{
	for (size_t i = 0; i < g->ndiffs; i++) {
		tg_tree_diff_free(g->diffs[i]);
		g->diffs[i] = NULL;
		g->pairs[i].diff = NULL;
	}
	g->ndiffs = 0;
}
