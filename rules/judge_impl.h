/*
 * judge_impl.h - what the judge's files share. The judge works in three
 * stages, each in its files: selection (judge_select.c: which records and
 * units of each side a rule selects), estimation (judge_estimate.c: the
 * value, interval and samples of an item; judge_units.c: the same for the
 * per-step metrics of whole ranks; judge_pairs.c: paired calls;
 * judge_decide.c: an item's verdict) and orchestration (judge.c: the rules
 * run, per rank, the overall verdict; judge_summary.c: comparability and
 * the verdict line; judge_coverage.c: what no rule judges). Calls go from
 * orchestration down to estimation and selection, never back up.
 * Not public: rules/judge.h is the interface.
 */
#ifndef TG_JUDGE_IMPL_H
#define TG_JUDGE_IMPL_H

#include "../core/diff/measure.h"
#include "judge.h"
#include "noise.h"

#include <stddef.h>
#include <stdint.h>

/* One selected record, flattened for sorting: 40 bytes (a rule that
 * selects every record, the gate's per-op judgement, holds one a kernel
 * of both sides: 42 MB at 1 GB of JSON, 68 with 64 bytes). */
struct sel {
	uint32_t group;
	uint32_t stratum; /* op_shape key */
	uint32_t inv;     /* invocation id; TG_NONE: none, the record is its own (sel_inv_key) */
	uint32_t unit;
	uint32_t rec;  /* the record in its side's measure */
	uint32_t pair; /* the paired record in the other side's measure (TG_NONE: none) */
	int64_t val;   /* the rule's metric's: the launch delay for launch_overhead, else the duration */
	double work;   /* of the invocation, counted once per invocation: its flops for tflops, its
	                  bytes for tbs; NAN otherwise, and without an invocation */
};

_Static_assert(sizeof(struct sel) == 40, "a selected record is 40 bytes");

/* The invocation a selected record is of, as one order: its invocation
 * id, or, without one, past every id (2^32 and up) by record. */
static inline uint64_t sel_inv_key(const struct sel *e)
{
	return e->inv != TG_NONE ? e->inv : ((uint64_t)1 << 32) | e->rec;
}

/* The calls of one item on both sides, paired (rules/paired.h): the
 * durations of the m calls paired within the item (both records selected
 * in it), and the unpaired calls' totals and sums of squares. */
struct pair_set {
	double *b, *n;
	size_t m;
	double ub, un, ub2, un2;
};

/* Whether record k of side is selected by rule r (judge_select.c; its rank
 * is side's tg_measure_rec_rank); memo: 5 x natoms bytes (the category, op,
 * kernel, module and shape patterns' answers, zeroed at first) or NULL. */
int tg_judge_rec_matches(const tg_rule *r, const tg_measure *side, const tg_atoms *keys, const tg_kernel_rec *k,
                         uint8_t *memo, uint32_t natoms);

/* The categories no kernel rule selects that hold more than min_pct of
 * the kernel time of a side (in its steps), largest first
 * (judge_coverage.c: tg_judgement_not_judged). *out is the caller's
 * (tg_judge_not_judged_free). Returns 0 or TG_ENOMEM. */
int tg_judge_not_judged(tg_not_judged **out, size_t *n, const tg_rules *rules, const tg_measure *base,
                        const tg_measure *next, const tg_atoms *keys, double min_pct);

void tg_judge_not_judged_free(tg_not_judged *v, size_t n);

/* The pairs of the item whose records are vb (nb) on the base side and vx
 * (nx) on the new side. *out's arrays are the caller's
 * (tg_judge_pairs_free). Returns 0 or TG_ENOMEM. */
int tg_judge_pairs_build(struct pair_set *out, const struct sel *vb, size_t nb, const struct sel *vx, size_t nx);

void tg_judge_pairs_free(struct pair_set *p);

/* *sigma: the sd of one call's log-ratio (paired.h: tg_paired_call_noise)
 * over the paired calls of the comparison (both in a step, both of
 * positive duration) that the rule did not select (vb: its base-side
 * selection, nb), or over all of them when fewer than min are left; *df
 * its degrees of freedom, *n the pairs it came from (NAN and 0 with fewer
 * than 2). Returns 0 or TG_ENOMEM. */
int tg_judge_call_noise(double *sigma, double *df, size_t *n, const struct sel *vb, size_t nb, const tg_measure *base,
                        const tg_measure *next, size_t min);

/* What one rule is judged under: the settings (their confidence raised for
 * a rule with the history's runs as base runs), the rule, whether the sides
 * are comparable, and the noise the estimate widens its interval by. */
struct ctx {
	const tg_rules_settings *set;
	const tg_rule *rule;
	int comparable;
	tg_noise hist;            /* the rule's noise from history (df 0: none) */
	const double *noise_runs; /* the item's per-run values in the --noise-from runs */
	size_t n_noise_runs;
	const tg_measure *noise_m; /* the --noise-from runs, or NULL */
	const double *base_runs;  /* more runs of the base's code (tg_rule_base_runs), or NULL */
	size_t n_base_runs;
	double call_sigma; /* sd of one call's log-ratio (paired sampling), NAN: unknown */
	double call_df;
	size_t call_n;    /* the paired calls it comes from */
	double step_busy; /* the base side's GPU busy time per step of the rule's
	                             units (ns): what a min_delta share is of */
};

/* The runs of a side: traces of the same rank are separate runs (the
 * i-th trace of a rank is run i); traces of different ranks are one run
 * (a distributed job). rule units (rule_units) are mapped to their run:
 * of_unit[k] for the k-th unit of the rule; n runs. */
struct runs {
	uint32_t *of_unit;             /* freed with it: trace_of_unit shares its block */
	const uint32_t *trace_of_unit; /* the trace of the k-th unit of the rule; NULL: one trace */
	size_t n;
};

/* What a rule selects on each side (b: base, x: next, n: the noise
 * trace): the values sorted by group, their units, the selected items
 * without the metric's data, and the runs of the units. */
struct selection {
	struct sel *vb, *vx, *vn;
	size_t nb, nx, nn, ub, ux, un, db, dx;
	struct runs rb, rx, rn;
};

/* Values of one group on one side. */
struct side_vals {
	double *unit;     /* per unit: sum (kernel_time), count, or mean delay */
	size_t nunits;
	double *inv;      /* per invocation sum, scaled by 1/nunits, grouped by stratum */
	double inv_scale; /* that scale (1/nunits, or 1/count for mean delays) */
	uint32_t *inv_stratum;
	size_t ninv;
	double total;     /* metric total per unit */
	double count;     /* kernels per unit */
	double flops, bytes; /* per unit, distinct invocations */
	double *run;      /* per run: the mean of its units' values */
	size_t nruns;
	const uint32_t *unit_trace; /* the trace of each unit (borrowed from the runs); NULL: one */
};

/* The --noise-from runs' selected records of a rule (none: n 0). */
struct noise_sel {
	const struct sel *v;
	size_t n, units;
	const struct runs *runs;
};

/* A judgement (judge.h): its items, the overall verdict and its line, and
 * what the verdict line names besides (judge_summary.c). */
struct tg_judgement {
	tg_judged *items;
	size_t n, cap;
	tg_verdict overall;
	char summary[768];
	int comparable;
	char why[512];
	const char **unmatched;
	size_t nunmatched;
	tg_accept *accepts;
	size_t naccepts;
	int total_inconclusive;
	tg_rank_compare ranks;     /* nranks < 2: one rank */
	tg_not_judged *not_judged; /* categories over 5 % of kernel time no rule selects */
	size_t nnot_judged;
	double confidence;
	double history_confidence; /* the level of the rules with history runs as base runs */
	tg_rules *owned;
	const tg_findings *findings_base, *findings_next; /* for the rules on findings */
};

/* ------------------------------------------------------------ selection (judge_select.c) */

/* The text of atom a of keys, "" for TG_NONE; owned by keys. */
const char *tg_judge_key(const tg_atoms *keys, uint32_t a);

/* The rank of unit u of m: its trace's rank (tg_measure_trace_rank:
 * distributedInfo, the manifest, the file name), else the trace's position
 * on its side. */
int64_t tg_judge_unit_rank(const tg_measure *m, const tg_unit *u);

/* The kernels rule r would select if their category were the one their
 * name gives (a sentence into buf, cap bytes; "" when none). sides: base
 * and new. */
void tg_judge_name_hint(char *buf, size_t cap, const tg_rule *r, const tg_measure *const *sides,
                        const tg_atoms *keys);

/* Marks j as a rule that matches nothing on either side: inconclusive,
 * with the reason in its note. */
void tg_judge_set_unmatched(tg_judged *j, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                            const tg_atoms *keys);

/* The runs of side m for rule r's units into *out (out->of_unit is the
 * caller's, freed with free). Returns 0 or TG_ENOMEM. */
int tg_judge_side_runs(struct runs *out, const tg_rule *r, const tg_measure *m);

/* What c->rule selects on base, next and the noise runs (c->noise_m) into
 * *s, freed with tg_judge_selection_free (also after a failure). Returns 0
 * or TG_ENOMEM. */
int tg_judge_select_all(struct selection *s, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                        const tg_atoms *keys);

void tg_judge_selection_free(struct selection *s);

/* The base side's GPU busy time per step of rule r's units (ns): what a
 * min_delta written as a percent is a share of. */
double tg_judge_step_busy(const tg_measure *m, const tg_rule *r);

/* ------------------------------------------------------------ estimation (judge_estimate.c, judge_units.c) */

/* The per-run means of s's unit values (rs maps its units to runs; NULL:
 * one run) into s->run, freed with s. Returns 0 or TG_ENOMEM. */
int tg_judge_side_vals_runs(struct side_vals *s, const struct runs *rs);

/* The change in percent of a ratio new / base (infinite stays so). */
double tg_judge_pct(double ratio);

/* The bootstrap interval of the ratio of b and x into *ratio_lo,
 * *ratio_hi, *ratio: on their steps (steps 1) or their invocations, and
 * j's one-sided p-value. Returns 0 or an error. */
int tg_judge_interval(tg_judged *j, const struct ctx *c, const struct side_vals *b, const struct side_vals *x,
                      int steps, double *ratio_lo, double *ratio_hi, double *ratio);

/* The history's runs as more base runs (c->base_runs): *base, *ratio and
 * its interval move to the pooled base. Nothing without such runs. */
void tg_judge_pool_base_runs(const struct ctx *c, const struct side_vals *b, double *base, double *ratio, double *lo,
                             double *hi);

/* The interval widened by the noise between runs (noise.h), j's p-value
 * raised to its one; records the runs and the noise in j. Returns 0 or
 * TG_ENOMEM. */
int tg_judge_widen_by_runs(tg_judged *j, const struct ctx *c, const struct side_vals *b, const struct side_vals *x,
                           double ratio, double *lo, double *hi);

/* Whether c->rule's items are sampled on paired calls: a metric of the
 * kernels' durations with fewer than min_samples steps on a side (ub, ux
 * the rule's units). */
int tg_judge_paired_sampling(const struct ctx *c, size_t ub, size_t ux);

/* Estimates and decides item j of group g from the records vb (nb, ub
 * units, runs rb) and vx (nx, ux, rx), with the per-run values of g in the
 * noise runs ns when c->noise_m is set. Returns 0 or an error. */
int tg_judge_group_noise(tg_judged *j, const struct ctx *c, const struct noise_sel *ns, uint32_t g,
                         const struct sel *vb, size_t nb, size_t ub, const struct runs *rb, const struct sel *vx,
                         size_t nx, size_t ux, const struct runs *rx);

/* The level of a rule judged with history runs as base runs: the rules'
 * history_confidence, at least their confidence. */
double tg_judge_history_level(const tg_rules_settings *set);

/* Whether rule r takes the extra base runs br (a total rule of a per-step
 * mean metric, values all positive and finite). */
int tg_judge_takes_base_runs(const tg_rule *r, const tg_rule_base_runs *br);

/* Per-unit values of side m for the per-unit metric of r (*n of them; the
 * caller frees the array); *nsel the units of the selected rank, *ndata
 * those with data for the metric. NULL without memory. */
double *tg_judge_unit_values(size_t *n, size_t *nsel, size_t *ndata, const tg_measure *m, const tg_rule *r);

/* What a trace lacks when it has no data for metric m ("no collectives");
 * a static string. */
const char *tg_judge_no_data_what(tg_rule_metric m);

/* The error of a side (next: 1 for the new side) that holds none of the
 * events rule r needs while the other does: sets the message (the rule,
 * the side's first trace, what is missing) and returns TG_ENODATA. */
int tg_judge_lacks_data(const tg_rule *r, const tg_measure *m, int next);

/* The one item j of a per-unit metric's rule (gpu_busy, gpu_idle,
 * exposed_comm, exposed_memcpy, host_syncs, peak_memory); *matched: whether
 * its rank is on either side. Returns 0 or an error (tg_judge_lacks_data). */
int tg_judge_units(tg_judged *j, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                   const tg_atoms *keys, int *matched);

/* The verdict of j from its numbers under c (judge_decide.c); can_block 0:
 * a metric that cannot block with this few steps. */
void tg_judge_decide(tg_judged *j, const struct ctx *c, int can_block);

/* ------------------------------------------------------------ orchestration (judge_summary.c) */

/* Whether the fingerprints of the two sides agree; why (cap bytes) names
 * the fields that differ, "" when none. */
int tg_judge_fingerprints_agree(char *why, size_t cap, const tg_measure *base, const tg_measure *next);

/* jd's verdict line (jd->summary) from its items and overall verdict, and
 * its most changed rank. */
void tg_judge_summarize(tg_judgement *jd, const tg_atoms *keys);

#endif
