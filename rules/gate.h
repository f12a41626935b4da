/*
 * gate.h - the whole comparison of two sides under threshold rules, as
 * `tracegate diff` and the daemon run it:
 *
 *   1. measure both sides (core/measure.h) on one shared key table;
 *   2. align the call trees of each pair of traces (the i-th base trace with
 *      the i-th new trace; core/tree_diff.h) and file the time of what
 *      diverged under the op where it diverged (core/divergence.h);
 *   3. judge the rules (judge.h), and judge kernel time per op for the top
 *      regressions and improvements;
 *   4. draw the divergences and tabulate them.
 *
 * The result renders as text, md (the pull-request comment) or json
 * (diff_render.h).
 */
#ifndef TG_GATE_H
#define TG_GATE_H

#include "../core/rundata.h"
#include "diff_render.h"
#include "judge.h"

#include <stdio.h>

typedef struct tg_gate_opts {
	const tg_accept *accepts;  /* overrides (borrowed), may be NULL */
	size_t naccepts;
	int allow_hardware_change; /* as the rules' setting */
	int no_tree_diff;          /* skip the alignment (no attribution, no drawing) */
	size_t drawing_lines;      /* cap of the divergence drawing; 0: 80 */
	const tg_tree *const *noise; /* --noise-from: A/A runs of the base's code
	                                (borrowed, may be NULL): they widen the
	                                intervals by the noise between them and
	                                the base runs (judge.h) */
	size_t nnoise;
	const tg_rule_noise *rule_noise; /* per-rule noise from history, may be NULL */
	size_t nrule_noise;
	const tg_rule_base_runs *rule_base_runs; /* per-rule extra base runs from
	                                            history (judge.h), may be NULL */
	size_t nrule_base_runs;
} tg_gate_opts;

typedef struct tg_gate tg_gate;

/* Runs the gate on base (nbase trees) against next (nnext trees) under
 * rules. Trees, their traces and rules must outlive the result. opts may
 * be NULL. *out owns the result (tg_gate_free). Returns 0, TG_ENOMEM, or
 * TG_EINVAL when an accept names no rule. */
int tg_gate_run(tg_gate **out, const tg_rules *rules, const tg_tree *const *base, size_t nbase,
                const tg_tree *const *next, size_t nnext, const tg_gate_opts *opts);

/* The same gate on run data (rundata.h) instead of trees: the traces of
 * runs that are not read again (the daemon's stored runs). The i-th base
 * trace's skeleton is aligned with the i-th new one's, as with trees, and
 * the result is the one tg_gate_run gives on the trees the data was built
 * from. The run data must outlive the result; tg_measure_tree of its sides
 * is NULL. */
int tg_gate_run_data(tg_gate **out, const tg_rules *rules, const tg_rundata *const *base, size_t nbase,
                     const tg_rundata *const *next, size_t nnext, const tg_gate_opts *opts);

void tg_gate_free(tg_gate *g);

/* Seconds spent judging (the rules and the per-op top tables: selection,
 * bootstraps, noise, decisions), for `make bench`'s share of the
 * statistics in a diff. */
double tg_gate_stats_seconds(const tg_gate *g);

/* The verdict of the rules, and the judgement itself (borrowed). */
tg_verdict tg_gate_verdict(const tg_gate *g);
const tg_judgement *tg_gate_judgement(const tg_gate *g);

/* The measured sides and their key table (borrowed). */
const tg_measure *tg_gate_base(const tg_gate *g);
const tg_measure *tg_gate_next(const tg_gate *g);
const tg_atoms *tg_gate_keys(const tg_gate *g);

/* The divergences table (diff_by_divergence), or NULL without tree diff. */
const tg_table *tg_gate_divergences(const tg_gate *g);

/* The divergence drawing ("" when the trees do not diverge). */
const char *tg_gate_drawing(const tg_gate *g);

/* Kernel records moved to the category of their divergence point. */
size_t tg_gate_attributed(const tg_gate *g);

/* A document of g for diff_render.h: files name the traces of each side
 * (borrowed, for the headings); marker and extra_md as in tg_diff_doc. */
tg_diff_doc tg_gate_doc(const tg_gate *g, const char *const *base_files, size_t nbase, const char *const *new_files,
                        size_t nnew, const char *marker, const char *extra_md);

#endif
