/*
 * branch_noise.h - what the target branch's history says about a pull
 * request's judgement (issue 13):
 *
 *   noise   for each total rule, the between-run noise of the branch's
 *           recent runs of the same workload on the same hardware and
 *           software (the comparability fingerprint the history records as
 *           a metric "fingerprint:<gpu>|<driver>|<runtime>|<world size>"):
 *           rules/noise.h's robust sigma of the series of rule:<name>
 *           values, which change points and outliers do not inflate. The
 *           gate widens its intervals with it (tg_gate_opts.rule_noise) and
 *           the comment says it: "Noise on `main`: sdpa-forward ±1.1 %
 *           (12 runs)".
 *   moved   the latest change point of each rule's series within the
 *           window (rules/changepoint.h): "`main` itself moved:
 *           sdpa-forward +6.1 % since `1a2b3c4`, 9 runs ago".
 *
 * Kept apart from job.c: one call before the gate and one line of text
 * for the comment.
 */
#ifndef TG_BRANCH_NOISE_H
#define TG_BRANCH_NOISE_H

#include "../../rules/judge.h"
#include "../store/store.h"
#include "history_key.h"

typedef struct tg_branch_noise {
	tg_rule_noise *noise; /* per rule with a noise; rule names borrowed from the rules */
	size_t n;
	char *text;           /* Markdown lines for the comment, "" when nothing to say; owned */
} tg_branch_noise;

/* The fewest runs of history that give a noise. */
#define TG_BRANCH_NOISE_MIN_RUNS 5
/* The runs of history read (the latest). */
#define TG_BRANCH_NOISE_WINDOW 30

/* What tg_branch_noise_find weighs besides the series' key. */
typedef struct tg_branch_noise_opts {
	int64_t exclude_run;   /* a run left out (the judged run itself); 0: none */
	const tg_rules *rules; /* the repository's rules (borrowed) */
	size_t window;         /* the runs of history read (the latest): TG_BRANCH_NOISE_WINDOW */
} tg_branch_noise_opts;

/*
 * Reads the latest o->window done runs of key's repo, branch (the pull
 * request's target) and workload (store.h history), keeps those whose
 * fingerprint metric is key's fingerprint (NULL: every run) and that are
 * not run o->exclude_run, and fills *out for the total rules of o->rules
 * with a sampled metric (not count, host_syncs or peak_memory); key's
 * metric is not read. out->text is set even when empty. Returns 0 or a
 * store error (TG_EIO, TG_ENOMEM); *out is then empty.
 */
int tg_branch_noise_find(tg_branch_noise *out, tg_store *s, const tg_history_key *key, const tg_branch_noise_opts *o);

void tg_branch_noise_free(tg_branch_noise *b);

/* The name of the fingerprint metric of a run ("fingerprint:...") among
 * its n metrics, or NULL. Borrowed. */
const char *tg_branch_noise_fingerprint(const tg_metric *m, size_t n);

#endif
