/*
 * judge.h - applies threshold rules to a comparison of two sides (base and
 * new, each one or more traces) and gives a verdict per rule item and one
 * overall (docs/rules.md).
 *
 * Samples. A metric of the kernel records (kernel_time, count, tflops,
 * tbs) is sampled per step when both sides have at least min_samples
 * steps; otherwise on the calls the tree alignment pairs between the sides
 * (paired.h: the paired log-ratios, with the noise of one call measured on
 * the comparison's other pairs), so that one-step traces, CUDA-graph
 * replays and compiled steps are judged too; and when no call is paired
 * (no alignment), the repeated invocations of each op and shape are the
 * samples (strata of a stratified bootstrap). The estimate is the ratio new/base of the per-step totals;
 * its interval is the stratified percentile bootstrap of that ratio (2000
 * replicates, seeded from the rule and item names: verdicts are
 * reproducible). Counts, host syncs and peak memory are not noisy
 * measurements and are judged on their values. Timeline metrics (gpu_busy,
 * gpu_idle, exposed_comm, exposed_memcpy) are sampled per step; with fewer
 * steps gpu_busy borrows the relative interval of the total kernel time,
 * and the others can warn but not block.
 *
 * Ranks. With several ranks on a side (tg_measure_trace_rank), each total
 * rule is also judged on each rank alone (an item of rank r: the rule's
 * selection on rank r, per step of that rank), after the false discovery
 * control of the rule's per-rank items; a block or warn on one rank is the
 * diff's, and the summary names the rank, the slowest rank and the rank
 * that changed most (rank_compare.h).
 *
 * Runs. The traces of a side with the same rank are separate runs (steps
 * nested in runs); the noise between runs (the pooled variance of the logs
 * of the per-run values: both sides, the --noise-from runs with the base's,
 * a history's noise; rules/noise.h) widens the interval to Student's t of
 * its degrees of freedom, so that run-to-run variance is in it when it is
 * known.
 *
 * Decision (docs/rules.md, Verdicts): decide: likely (the default) blocks
 * when the estimate is above block_above and the change significant (the
 * interval excludes no change), and is inconclusive "re-run to confirm"
 * (with the runs a side that would decide it) when the estimate is above
 * block_above but not significant; decide: surely blocks when the lower
 * bound is above block_above.
 */
#ifndef TG_JUDGE_H
#define TG_JUDGE_H

#include "../core/diff/measure.h"
#include "../core/diff/rank_compare.h"
#include "rules.h"

typedef enum tg_verdict {
	TG_VERDICT_PASS = 0,
	TG_VERDICT_WARN,
	TG_VERDICT_INCONCLUSIVE,
	TG_VERDICT_BLOCK
} tg_verdict;

/* "pass", "warn", "inconclusive", "block". */
const char *tg_verdict_name(tg_verdict v);

/* How an item was sampled. */
typedef enum tg_sampling {
	TG_SAMPLING_STEPS = 0,   /* one value per step (and trace) */
	TG_SAMPLING_INVOCATIONS, /* one value per op invocation, stratified by op and shape
	                            (fewer steps than min_samples and no call paired) */
	TG_SAMPLING_EXACT,       /* counted, not sampled */
	TG_SAMPLING_PAIRS        /* fewer steps than min_samples: one value per call the
	                            alignment pairs between the sides (rules/paired.h) */
} tg_sampling;

const char *tg_sampling_name(tg_sampling s);

typedef struct tg_judged {
	const tg_rule *rule;     /* borrowed from the rules */
	char *item;              /* the item's key ("" for a total rule) */
	tg_verdict verdict;
	int accepted;            /* a block or warn turned into pass by an override */
	int improved;            /* clearly better than improvement_below */
	int is_new, is_gone;     /* present on one side only */
	double base, next;       /* the metric per step on each side, in the metric's unit */
	double delta;            /* next - base */
	double pct;              /* change in percent, positive = worse; +inf when new */
	double pct_lo, pct_hi;   /* interval of pct at the confidence level (NAN when none) */
	double p_value;          /* one-sided, for the FDR of each rules; NAN when none */
	size_t nbase, nnext;     /* samples per side */
	tg_sampling sampling;
	int no_data;             /* the metric has no data on either side (no memory
	                            events, no collectives, ...): inconclusive, but
	                            it does not make the diff inconclusive */
	int unmatched;           /* the rule's selection matches nothing on either
	                            side: inconclusive with the reason in note (not a
	                            silent pass), but it does not make the diff
	                            inconclusive (docs/rules.md "Matches nothing") */
	char note[160];          /* why inconclusive, why not blocking, ... */
	/* runs and between-run noise (docs/diff.md, Runs and noise) */
	size_t nruns_base, nruns_new; /* runs per side (traces of the same rank) */
	double noise_pct;        /* sd of one run's value in percent, from the runs
	                            of both sides, --noise-from and the history;
	                            NAN when unknown (one run per side, none given) */
	double noise_df;         /* its degrees of freedom (0 when unknown) */
	size_t runs_needed;      /* inconclusive "re-run to confirm": runs per side
	                            that would decide it at this noise; 0 otherwise */
	size_t nruns_history;    /* of nruns_base, the runs of tg_rule_base_runs
	                            (the target branch's history); 0 when none */
	size_t npairs;           /* TG_SAMPLING_PAIRS: the paired calls (of nbase and
	                            nnext calls; the others are unpaired) */
	size_t noise_calls;      /* the paired calls the noise of one call comes from
	                            (the comparison's others), 0 when unknown */
	double call_noise_pct;   /* that noise: sd of one call's log-ratio in percent;
	                            NAN when unknown or not paired */
	size_t steps_base, steps_new; /* the steps (units) the item's values are per */
	int held;                     /* a significant change above block_above or warn_above
	                            that the rule's floor (min_delta) keeps from blocking
	                            or warning: a pass whose note says which floor and
	                            by how much */
	int64_t rank;                 /* the rank of a rule's per-rank item (a side of
	                            several ranks: each total rule is judged on
	                            every rank too), -1 for the rule's own item */
} tg_judged;

/* A between-run noise known from elsewhere (the daemon: the target
 * branch's recent runs), for one rule. */
typedef struct tg_rule_noise {
	const char *rule;  /* rule name */
	double sigma;      /* sd of the log of one run's value (0.011 = +-1.1 %) */
	double runs;       /* how many runs it comes from (runs - 1 degrees of freedom) */
} tg_rule_noise;

/*
 * More runs of the base side's code known by their per-run values only
 * (the daemon: the target branch's runs since its latest change point,
 * read from the store, not from traces), for one total rule. They are
 * more runs of the base side: the base's value is the mean of its runs and
 * of these (each run one weight), they join the base's group of runs in
 * the noise, the base counts them in its runs (nruns_base), and the level
 * of the rule's interval is settings.history_confidence (when above
 * confidence). Used for kernel_time, launch_overhead and the timeline
 * metrics (gpu_busy, gpu_idle, exposed_comm, exposed_memcpy); ignored for
 * the others (counted, or throughput: the per-run value is not the mean
 * of the steps' values).
 */
typedef struct tg_rule_base_runs {
	const char *rule;     /* rule name */
	const double *values; /* per-run values (> 0) in the judge's unit (ns for
	                         times, as tg_judged.base); borrowed */
	size_t n;
} tg_rule_base_runs;

typedef struct tg_accept {
	const char *rule;   /* a rule name */
	const char *reason; /* free text */
	const char *by;     /* who accepted (a label author, a commit trailer); may be NULL */
} tg_accept;

typedef struct tg_judgement tg_judgement;

typedef struct tg_judge_opts {
	const tg_accept *accepts;  /* overrides, may be NULL */
	size_t n_accepts;
	int allow_hardware_change; /* as the rules' setting, from the command line */
	const tg_measure *noise_runs; /* --noise-from: A/A runs of the base side's code
	                                 (same key table), or NULL; they enter the
	                                 noise, not the estimate */
	const tg_rule_noise *noise;   /* per-rule noise from history, or NULL */
	size_t n_noise;
	const tg_rule_base_runs *base_runs; /* per-rule extra base runs, or NULL */
	size_t n_base_runs;
	const tg_findings *findings_base; /* each side's findings (findings.h, tg_findings_side), */
	const tg_findings *findings_next; /* for the rules on findings; NULL: not computed
	                                     (those rules are then inconclusive, no data) */
} tg_judge_opts;

/* Judges base against next under rules (which must outlive the result).
 * keys: the key table both measures were built with. opts may be NULL.
 * *out owns the result (tg_judgement_free). Returns 0, TG_ENOMEM,
 * TG_EINVAL when an accept names no rule (message says which), or
 * TG_ENODATA when one side holds none of the events a rule needs and the
 * other does (memory events, modelled ops, launch calls, GPU activity;
 * the message names the rule, the side and what is missing). */
int tg_judge(tg_judgement **out, const tg_rules *rules, const tg_measure *base, const tg_measure *next,
             const tg_atoms *keys, const tg_judge_opts *opts);

/* Per-step values of one side of tg_judge_samples: value i is a step of
 * run run[i] (0-based, dense). */
typedef struct tg_step_samples {
	const double *v;
	const uint32_t *run;
	size_t n;
} tg_step_samples;

/*
 * Judges one total kernel_time-like item from per-step values directly,
 * through the same interval, noise and decision as tg_judge (for the
 * calibration of the gate: tests/test_calibration.c). rule and set
 * borrowed; noise (may be NULL) as a history's. Fills *out (item ""
 * borrowed, not to be freed). Returns 0 or TG_ENOMEM.
 */
int tg_judge_samples(tg_judged *out, const tg_rule *rule, const tg_rules_settings *set, const tg_step_samples *base,
                     const tg_step_samples *next, const tg_rule_noise *noise);

/* tg_judge_samples with extra base runs (may be NULL) as the daemon's
 * history-as-base (tg_rule_base_runs; its rule name is not checked). */
int tg_judge_samples_ex(tg_judged *out, const tg_rule *rule, const tg_rules_settings *set,
                        const tg_step_samples *base, const tg_step_samples *next, const tg_rule_noise *noise,
                        const tg_rule_base_runs *base_runs);

/* Hands rules to j: freed with it (for rules made only for one judgement). */
void tg_judgement_own_rules(tg_judgement *j, tg_rules *rules);

void tg_judgement_free(tg_judgement *j);

/* The overall verdict: block when an item blocks (not accepted); else
 * inconclusive when the sides are not comparable or a total rule lacks
 * samples (a rule without data on either side does not count: it is
 * inconclusive on its own line only); else warn when an item warns; else
 * pass. */
tg_verdict tg_judgement_verdict(const tg_judgement *j);

/* One line saying why ("block: sdpa-forward SDPA_fwd kernel_time +7.0 %
 * (95 % CI +6.6..+7.4 %) > 5 %"); borrowed. */
const char *tg_judgement_summary(const tg_judgement *j);

/* Every judged item, rule by rule in file order, worst first within a
 * rule; a total rule's per-rank items (rank >= 0, in rank order) follow
 * its own item. */
const tg_judged *tg_judgement_items(const tg_judgement *j, size_t *n);

/* A category of kernel time that no rule judges (docs/rules.md, "Not
 * judged"): no rule of the kernels' metrics selects its kernels. */
typedef struct tg_not_judged {
	char *category;
	double pct; /* its share of a side's kernel time in the steps, the larger side's */
} tg_not_judged;

/* The categories no rule judges that hold more than 5 % of a side's kernel
 * time, largest first, n of them; listed on the verdict line ("not judged:
 * MoE 67 %"). Borrowed. */
const tg_not_judged *tg_judgement_not_judged(const tg_judgement *j, size_t *n);

/* The ranks of the comparison (rank_compare.h: the slowest and the most
 * changed, which the summary names), or NULL when the sides hold fewer
 * than two ranks. Borrowed. */
const tg_rank_compare *tg_judgement_ranks(const tg_judgement *j);

/* Comparability: 1 when the fingerprints agree or the rules allow a
 * hardware change; *why (borrowed) says what differs, "" when nothing. */
int tg_judgement_comparable(const tg_judgement *j, const char **why);

/* Names of rules that matched nothing on either side (warnings), n of them. */
const char *const *tg_judgement_unmatched(const tg_judgement *j, size_t *n);

/* The accepts that were applied, with the rule they overrode. */
const tg_accept *tg_judgement_accepts(const tg_judgement *j, size_t *n);

#endif
