/*
 * history_base.h - the target branch's recent runs as more runs of the
 * base side (issue 13: "noise 3 % per run, one run per side, with a
 * history of 10 runs on main": A/A blocks <= 1 %, +10 % blocked >= 50 %).
 *
 * A pull request's one run against the baseline's one run cannot tell a
 * +10 % change from 3 % noise; against the baseline and the runs of the
 * target branch that measured the same code it can. For each total rule
 * of a sampled metric whose per-run value is the mean of its steps
 * (judge.h, tg_rule_base_runs), the per-run values the store already
 * records (the `rule:<name>` history series; no trace is loaded) of the
 * branch's recent runs with the same fingerprint (the window of
 * branch_noise.h) are split at the series' latest change point
 * (rules/changepoint.h): the runs after it are runs of the same
 * performance as the baseline when the baseline is among them. At most
 * TG_HISTORY_BASE_MAX of them (the latest), not the baseline's commit nor
 * the new commit (their runs are already on a side), and at least
 * TG_HISTORY_BASE_MIN, become extra base runs of the rule; the judge uses
 * settings.history_confidence for that rule (docs/rules.md, Calibration).
 * With a signing key the store's history holds trusted runs only.
 *
 * The comment says it: "Base: 1 run + 9 runs of `main` since its last
 * change point (sdpa-forward, gpu-busy)."
 */
#ifndef TG_HISTORY_BASE_H
#define TG_HISTORY_BASE_H

#include "../../rules/judge.h"
#include "../store/store.h"
#include "history_key.h"

/* The most runs of history taken as base runs (with the baseline's: 10). */
#define TG_HISTORY_BASE_MAX 9
/* The fewest: with fewer, the rule keeps the branch's noise only. */
#define TG_HISTORY_BASE_MIN 4

typedef struct tg_history_base {
	tg_rule_base_runs *runs; /* per rule with base runs; rule names borrowed from the rules,
	                            values owned */
	size_t n;
	char *text;              /* a Markdown line for the comment, "" when none; owned */
} tg_history_base;

/* The judgement tg_history_base_find adds base runs to. */
typedef struct tg_history_base_opts {
	int64_t base_run;        /* the baseline's run */
	const char *base_commit; /* and its commit */
	const char *new_commit;  /* the judged commit (its runs are on the other side); NULL: none */
	size_t base_runs;        /* the runs the baseline side already has (for the comment, >= 1) */
	const tg_rules *rules;   /* the repository's rules (borrowed) */
	size_t window;           /* the runs of history read (the latest): TG_BRANCH_NOISE_WINDOW */
} tg_history_base_opts;

/*
 * Reads the latest o->window done runs of key's repo, branch (the pull
 * request's target) and workload, keeps those whose fingerprint metric is
 * key's fingerprint (NULL: every run), and fills *out for the rules that
 * take base runs (see above); key's metric is not read. out->text is set
 * even when empty. Returns 0 or a store error (TG_EIO, TG_ENOMEM); *out is
 * then empty.
 */
int tg_history_base_find(tg_history_base *out, tg_store *s, const tg_history_key *key, const tg_history_base_opts *o);

void tg_history_base_free(tg_history_base *h);

/* Removes from noise (n entries, *n updated) the rules that have base runs
 * in h: those runs carry the branch's noise already (counting the same
 * runs twice would overstate its degrees of freedom). */
void tg_history_base_drop_noise(tg_rule_noise *noise, size_t *n, const tg_history_base *h);

#endif
