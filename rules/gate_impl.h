/*
 * gate_impl.h - what the gate's files share (not public: rules/gate.h is
 * the interface). Each file has one job:
 *
 *   gate_run.c    the gate from trees (tg_gate_run): each side measured in
 *                 rank order
 *   gate_data.c   the gate from run data (tg_gate_run_data): each side's
 *                 run data ordered by rank, aligned before it is measured
 *   gate_judge.c  what both then do: the sides judged, their findings,
 *                 their critical paths
 *   gate_align.c  each pair of traces aligned, the divergences attributed
 *                 and tabulated, the first pair drawn
 *   gate.c        the gate's life (made, freed) and what it holds
 *
 * Calls go down that list (run and data -> judge -> align), never back up.
 */
#ifndef TG_GATE_IMPL_H
#define TG_GATE_IMPL_H

#include "gate.h"
#include "../core/diff/divergence.h"
#include "../core/diff/rundata.h"
#include "../core/diff/tree_diff.h"

#include <stddef.h>
#include <stdint.h>

struct tg_gate {
	tg_atoms *keys;
	tg_measure *base, *next, *noise;
	size_t *border, *xorder;       /* the given position of each side's i-th trace (rank order) */
	const char **bfiles, **xfiles; /* tg_gate_doc's file names in that order */
	size_t nbase, nnext;
	tg_tree_diff **diffs;
	tg_divergence_pair *pairs; /* the diffed pairs of traces, ndiffs */
	size_t ndiffs;
	int aligned; /* the diffs are built (tg_gate_build_diffs) */
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

/* A gate of nbase and nnext traces, its key table and file arrays made;
 * NULL when out of memory. Free with tg_gate_free. */
tg_gate *tg_gate_new_sides(size_t nbase, size_t nnext);

/* Positions 0..n-1 into o in rank order of r (the runs of a rank, and
 * the traces of unknown rank after the others, in the order given). */
void tg_gate_rank_order(size_t *o, const int64_t *r, size_t n);

/* The caller's heap policy at stage (opts->heap_hint; nothing when opts
 * or it is NULL). */
void tg_gate_heap_hint(const tg_gate_opts *opts, enum tg_gate_stage stage);

/* Side s's run data parts freed (tg_rundata_release) when opts allow it. */
void tg_gate_release_data(const tg_gate_data *s, const tg_gate_opts *opts, unsigned parts);

/* The gate on g's measured sides: judgeable, aligned, its findings, the
 * rules judged, the critical paths. 0 or a code (g is the caller's to
 * free). */
int tg_gate_judge_sides(tg_gate *g, const tg_rules *rules, const tg_gate_opts *opts);

/* Aligns each pair of traces of the sides' ranks (br: nb base ranks, xr:
 * nx new ranks, in rank order) into g->diffs, from the run data's
 * skeletons (g->bdata, g->xdata) or the measures' trees; o (NULL: none)
 * gives the builds the caller's heap policy (TG_GATE_DIFF_SCRATCH). 0 or a
 * code. */
int tg_gate_build_diffs(tg_gate *g, const int64_t *br, size_t nb, const int64_t *xr, size_t nx,
                        const tg_gate_opts *o);

/* Aligns each pair of traces (unless tg_gate_build_diffs did), attributes
 * the divergences, draws the first pair and tabulates (o: NULL for the
 * defaults). 0 or a code. */
int tg_gate_align(tg_gate *g, const tg_gate_opts *o);

/* Frees the alignments once drawn and tabulated. */
void tg_gate_drop_diffs(tg_gate *g);

#endif
