/*
 * gate.h - the whole comparison of two sides under threshold rules, as
 * `tracegate diff` and the daemon run it:
 *
 *   1. put each side's traces in rank order (tg_rank_of: distributedInfo,
 *      the manifest, the file name; the traces of one rank are its runs, in
 *      the order given), so that the order of the files on a command line
 *      changes nothing, and measure both sides (core/diff/measure.h) on one
 *      shared key table;
 *   2. align the call trees of each pair of traces (a base trace with the
 *      new trace of the same rank and run; core/diff/tree_diff.h), pair the
 *      calls the alignment matches (core/diff/call_pairs.h), and file the time
 *      of what diverged under the op where it diverged (core/diff/divergence.h);
 *   3. compute each side's findings (core/analysis/findings.h) and match them: new,
 *      worse, gone;
 *   4. judge the rules (judge.h; a rule may select a finding), and judge
 *      kernel time per op for the top regressions and improvements;
 *   5. draw the divergences and tabulate them;
 *   6. find each trace's critical path and how it moved (cp_diff.h);
 *   7. compute every table and number the renderings show (diff_tables.h).
 *
 * Its document (tg_gate_doc, diff_doc.h) renders as text, md (the
 * pull-request comment) or json (diff_render.h), which only read what
 * step 7 computed.
 */
#ifndef TG_GATE_H
#define TG_GATE_H

#include "../core/diff/rundata.h"
#include "../core/diff/tree_diff.h"
#include "diff_doc.h"
#include "judge.h"

#include <stdio.h>

/* Where the gate stands when it calls the caller's heap policy
 * (tg_gate_opts.heap_hint): each point follows the freeing of a large
 * scratch, before the next stage makes its own. */
enum tg_gate_stage {
	TG_GATE_DIFF_SCRATCH, /* before each pair's tree diff is built, and while it is, each
	                         time it has freed a large scratch (tg_tree_diff_opts.scratch_freed) */
	TG_GATE_ALIGNED,      /* tg_gate_run_data: the pairs aligned, the alignment's scratch
	                         freed and the sides' judgement measures given their room, before
	                         they are filled (not with no_tree_diff) */
	TG_GATE_RELEASED,     /* tg_gate_run_data: the base side's run data measures freed
	                         (release_data), before the new side's judgement measure is filled
	                         beside what they held */
	TG_GATE_JUDGE_STAGE   /* after each stage of the judgement that frees a large scratch (the
	                         rules judged, the per-op judgement), before the next one */
};

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
	int no_critical_path;      /* skip the critical paths (cp_diff.h) */
	const struct tg_gate_data *noise_data; /* tg_gate_run_data: the --noise-from runs as run data
	                                          (borrowed; only their measures are read),
	                                          instead of noise; NULL: none */
	int release_data; /* tg_gate_run_data may free each run data's measures once
	                     its side is measured, and its skeleton once aligned
	                     (tg_rundata_release): what a caller that judges once and
	                     then frees the data sets (`tracegate diff`), so that they
	                     are not held twice */
	const int64_t *base_ranks; /* per trace of each side, the rank the run's */
	const int64_t *next_ranks; /* manifest gives it (-1: none); NULL: none */
	void (*heap_hint)(void *ctx, enum tg_gate_stage stage); /* the caller's heap policy
	                                     (e.g. malloc_trim), called with heap_ctx at each
	                                     stage (enum tg_gate_stage); changes no result;
	                                     NULL: nothing */
	void *heap_ctx;
	int (*expand_measure)(const tg_rundata *rd); /* tg_gate_run_data: called for each trace
	                                               of base and new just before its run data
	                                               measures are copied, for a caller that holds
	                                               them compact through the alignment (the
	                                               caller's data, lent: `tracegate diff`,
	                                               tg_rundata_expand_parts); 0 or a code (the
	                                               gate fails with it); NULL: they are whole */
} tg_gate_opts;

typedef struct tg_gate tg_gate;

/* Runs the gate on base (nbase trees) against next (nnext trees) under
 * rules. Trees, their traces and rules must outlive the result. opts may
 * be NULL. *out owns the result (tg_gate_free). Returns 0, TG_ENOMEM,
 * TG_EINVAL when an accept names no rule, or TG_ENODATA when there is
 * nothing to judge: a trace of a side (or of --noise-from) without GPU
 * activity in its steps (tg_measure_judgeable), or a side without the
 * events a rule needs (tg_judge); the message names the side and the
 * trace, and the caller reports it as an error, never as a verdict. */
int tg_gate_run(tg_gate **out, const tg_rules *rules, const tg_tree *const *base, size_t nbase,
                const tg_tree *const *next, size_t nnext, const tg_gate_opts *opts);

/* One side as run data (core/diff/rundata.h) instead of trees: the traces of
 * runs that are not read again (the daemon's stored runs). */
typedef struct tg_gate_data tg_gate_data;
struct tg_gate_data {
	const tg_rundata *const *data; /* n, each with findings under the rules' thresholds */
	const char *const *names;      /* the traces' names, as the reader named them (messages, a
	                                  rank from the file name); NULL: none */
	const int64_t *hints;          /* the manifest's rank of each (-1: none); NULL: none */
	size_t n;
	const tg_findings *across; /* the findings across the side's ranks when
	                                  tg_gate_data_across says they are needed
	                                  (borrowed), else NULL */
	const tg_tree_diff_side *const *views; /* base side only: the tree diff's view of each
	                                          trace's skeleton made once (tree_diff.h), n,
	                                          NULL entries (or NULL) where none: the
	                                          same alignment, without building the view */
};

/* The same gate on run data: each side's traces in the same rank order,
 * each base skeleton aligned with the new one of its rank, each trace's
 * findings and critical path the ones kept in its run data. The result
 * is the one tg_gate_run gives on the trees the data was built from,
 * with those trees' names and opts' ranks as hints (tests/test_rundata.c
 * compares the text, md and json). The run data must outlive the
 * result; tg_measure_tree of its sides is NULL. Run data built with
 * tg_rundata_build_parts needs its findings, its skeleton unless
 * opts->no_tree_diff, and its critical path unless opts->no_critical_path
 * (opts->noise_data: its measures alone). Errors as tg_gate_run's, and
 * TG_EINVAL when a trace's findings were computed under other thresholds,
 * the findings across ranks are needed and not given, or a part the
 * judgement reads is missing. With opts->release_data, the run data's
 * measures and skeletons are freed during the call: that data is good for
 * nothing but tg_rundata_free afterwards. */
int tg_gate_run_data(tg_gate **out, const tg_rules *rules, const tg_gate_data *base, const tg_gate_data *next,
                     const tg_gate_opts *opts);

/* Whether side s needs the findings across its ranks (its traces are
 * distinct ranks of one job): 1, with order (s->n entries) the positions
 * of its traces in the order to give their trees to tg_gate_across; 0
 * when not needed; or TG_ENOMEM (negative). */
int tg_gate_data_across(size_t *order, const tg_gate_data *s);

/* The findings across the ranks of one side from its n trees (in the
 * order tg_gate_data_across gives) under rules' thresholds: what
 * tg_gate_data.across takes. *out is the caller's (tg_findings_free).
 * 0 or TG_ENOMEM. */
int tg_gate_across(tg_findings **out, const tg_rules *rules, const tg_tree *const *trees, size_t n);

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

/* A side's findings (next 0: the base, 1: the new side), borrowed: what
 * tg_findings_side makes of its traces' (and ranks') findings. */
const tg_findings *tg_gate_findings(const tg_gate *g, int next);

/* The findings that fire on either side, matched (tg_findings_compare):
 * new, worse, gone, better, same; *n of them, borrowed. */
const tg_finding_delta *tg_gate_finding_changes(const tg_gate *g, size_t *n);

/* The document of g (diff_doc.h) for diff_render.h: files name the traces
 * of each side in the order given to tg_gate_run (borrowed, for the
 * headings; the document lists them in the gate's rank order); marker and
 * extra_md as in tg_diff_doc. It borrows g's results and tables. */
tg_diff_doc tg_gate_doc(const tg_gate *g, const char *const *base_files, size_t nbase, const char *const *new_files,
                        size_t nnew, const char *marker, const char *extra_md);

#endif
