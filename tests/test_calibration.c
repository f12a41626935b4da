/*
 * test_calibration.c - the gate calibrated on run-to-run noise (issue 13):
 * false blocks of A/A pairs and the power to block a real slowdown, over
 * 500 simulated pairs per setting, with the SDPA rule at block_above: 5 %.
 *
 * Simulated at the level of the per-step samples the judge sees, with the
 * generator's between-run noise model (tests/gen: --run-noise,
 * --family-noise, --noise): each run draws a factor common to its kernels
 * and a factor of the kernel family (log-normal, together of sd NOISE),
 * each step a factor uniform in +-0.5 %. The samples go through
 * tg_judge_samples: the same interval, run noise and decision as a diff.
 * tests/cli_calibration.sh checks the same on real generated traces.
 *
 * The measured rates are printed; the assertions allow for Monte Carlo
 * error (3 standard errors of a binomial proportion of 500).
 * TG_CALIBRATION_CURVES=1 also prints the power curves of docs/rules.md.
 */
#include "testutil.h"

#include "../rules/judge.h"
#include "../rules/noise.h"
#include "../rules/stats.h"

#include <math.h>

#define PAIRS_DEFAULT 500
/* TG_CALIBRATION_PAIRS overrides (for a precise measurement) */
static size_t PAIRS = PAIRS_DEFAULT;
#define STEPS 6
#define STEP_JITTER 0.005
#define BASE_NS 1.0e6

static tg_rules *rules_with(const char *decide, double confidence)
{
	char y[512];
	snprintf(y, sizeof(y),
	         "version: 1\nsettings: {confidence: %g}\nrules:\n  - name: sdpa\n    select: {category: SDPA_fwd}\n"
	         "    metric: kernel_time\n    block_above: 5%%\n    warn_above: 2%%\n    min_delta: 20us\n"
	         "    decide: %s\n",
	         confidence, decide);
	tg_rules *r = NULL;
	if (tg_rules_load_mem(&r, y, strlen(y), "calibration.yaml"))
		fail_msg("rules: %s", tg_error_last());
	return r;
}

/* One run's per-step values: true change factor f, run noise sd noise
 * (split as the generator's run and family factors). */
static void run_steps(double *v, tg_rng *g, double f, double noise)
{
	double run = exp(0.6 * noise * tg_rng_normal(g)), fam = exp(0.8 * noise * tg_rng_normal(g));
	for (size_t s = 0; s < STEPS; s++)
		v[s] = BASE_NS * f * run * fam * (1 + STEP_JITTER * (2 * tg_rng_uniform(g) - 1));
}

struct setting {
	const char *name;
	double noise;  /* sd of one run's factor */
	size_t runs;   /* per side */
	size_t history; /* runs of history on main (0: none) */
	int history_as_base; /* 1: the history's runs are also base runs (same code),
	                        as their steps; 2: as their per-run means, as the
	                        daemon passes them (tg_rule_base_runs) */
};

struct rates {
	double block, inconclusive, pass;
	double runs_needed; /* mean of the inconclusive items' runs_needed */
};

static struct rates measure(const struct setting *st, double change_pct, const tg_rules *rules, uint64_t seed)
{
	size_t nr;
	const tg_rule *rule = tg_rules_list(rules, &nr);
	const tg_rules_settings *set = tg_rules_settings_get(rules);
	tg_rng g;
	tg_rng_seed(&g, seed);
	size_t n = st->runs * STEPS, nbh = (st->runs + (st->history_as_base == 1 ? st->history : 0)) * STEPS;
	double *b = calloc(nbh, sizeof(double)), *x = calloc(n, sizeof(double)), hist[64];
	uint32_t *run = calloc(nbh, sizeof(uint32_t));
	assert_non_null(b);
	assert_non_null(x);
	assert_non_null(run);
	size_t blocks = 0, inconc = 0, needed = 0;
	for (size_t p = 0; p < PAIRS; p++) {
		for (size_t r = 0; r < st->runs; r++) {
			run_steps(b + r * STEPS, &g, 1, st->noise);
			run_steps(x + r * STEPS, &g, 1 + change_pct / 100, st->noise);
			for (size_t s = 0; s < STEPS; s++)
				run[r * STEPS + s] = (uint32_t)r;
		}
		tg_rule_noise hn = {"sdpa", NAN, 0}, *hp = NULL;
		tg_rule_base_runs hb = {"sdpa", hist, 0}, *hbp = NULL;
		if (st->history_as_base == 2) {
			double v[STEPS];
			for (size_t h = 0; h < st->history; h++) {
				run_steps(v, &g, 1, st->noise);
				hist[h] = tg_stats_mean(v, STEPS);
			}
			hb.n = st->history;
			hbp = &hb;
		} else if (st->history_as_base) {
			for (size_t r = st->runs; r < st->runs + st->history; r++) {
				run_steps(b + r * STEPS, &g, 1, st->noise);
				for (size_t s = 0; s < STEPS; s++)
					run[r * STEPS + s] = (uint32_t)r;
			}
		} else if (st->history) {
			double v[STEPS];
			for (size_t h = 0; h < st->history; h++) {
				run_steps(v, &g, 1, st->noise);
				hist[h] = tg_stats_mean(v, STEPS);
			}
			hn.sigma = tg_noise_sigma_robust(hist, st->history, &hn.runs);
			hp = &hn;
		}
		tg_step_samples sb = {b, run, nbh}, sx = {x, run, n};
		tg_judged j;
		assert_int_equal(tg_judge_samples_ex(&j, rule, set, &sb, &sx, hp, hbp), 0);
		if (hbp)
			assert_int_equal(j.nruns_history, st->history);
		if (j.verdict == TG_VERDICT_BLOCK)
			blocks++;
		else if (j.verdict == TG_VERDICT_INCONCLUSIVE) {
			inconc++;
			needed += j.runs_needed;
			assert_true(j.runs_needed >= 2);
			assert_non_null(strstr(j.note, "re-run to confirm"));
			assert_non_null(strstr(j.note, "runs per side would decide it"));
		}
	}
	free(b);
	free(x);
	free(run);
	struct rates out = {(double)blocks / PAIRS, (double)inconc / PAIRS, (double)(PAIRS - blocks - inconc) / PAIRS,
	                    inconc ? (double)needed / (double)inconc : 0};
	return out;
}

/* 3 standard errors of a proportion near p over PAIRS pairs (at least
 * that of p = 1 %). */
static double margin(double p)
{
	if (p < 0.01)
		p = 0.01;
	return 3 * sqrt(p * (1 - p) / PAIRS);
}

static void report(const struct setting *st, const char *decide, double change, const struct rates *r)
{
	printf("# calibration %-34s %-6s true %+5.1f %%: block %5.1f %%, inconclusive %5.1f %%, pass %5.1f %%",
	       st->name, decide, change, 100 * r->block, 100 * r->inconclusive, 100 * r->pass);
	if (r->inconclusive > 0)
		printf(" (re-run: %.1f runs per side on average)", r->runs_needed);
	printf("\n");
}

static const struct setting S1 = {"noise 1 %, 1 run a side", 0.01, 1, 0, 0};
static const struct setting S2 = {"noise 3 %, 1 run a side, history 10", 0.03, 1, 10, 0};
static const struct setting S3 = {"noise 3 %, 3 runs a side", 0.03, 3, 0, 0};
static const struct setting S4 = {"noise 3 %, 1 run a side, no history", 0.03, 1, 0, 0};
static const struct setting S2B = {"noise 3 %, 1 run a side, history as base", 0.03, 1, 10, 1};
static const struct setting S2D = {"noise 3 %, 1 run a side, history 9 as base", 0.03, 1, 9, 2};

static void test_noise1_one_run(void **state)
{
	(void)state;
	tg_rules *r = rules_with("likely", 0.95);
	struct rates aa = measure(&S1, 0, r, 11), slow = measure(&S1, 7.5, r, 12);
	report(&S1, "likely", 0, &aa);
	report(&S1, "likely", 7.5, &slow);
	assert_true(aa.block <= 0.01 + margin(0.01));
	assert_true(slow.block >= 0.90 - margin(0.90));
	tg_rules_free(r);
}

/* The history only widens the interval: a one-sided test at 2.5 % of a
 * difference of two runs, sd 4.2 %. No test can hold A/A blocks at 1 %
 * (a cut at 9.9 %) and block +10 % half the time (a cut at 10 %) unless
 * the noise were known exactly; measured (20,000 pairs): 2.8 % and 49 %.
 * Asserted: the 2.5 % of the design (with the robust sigma's slack) and
 * the 50 % of the issue, each within the Monte Carlo margin. */
static void test_noise3_history(void **state)
{
	(void)state;
	tg_rules *r = rules_with("likely", 0.95);
	struct rates aa = measure(&S2, 0, r, 21), slow = measure(&S2, 10, r, 22);
	report(&S2, "likely", 0, &aa);
	report(&S2, "likely", 10, &slow);
	assert_true(aa.block <= 0.03 + margin(0.03));
	assert_true(slow.block >= 0.50 - margin(0.50));
	/* what is not blocked above the threshold is "re-run to confirm", with
	 * a number of runs (asserted in measure) */
	assert_true(aa.inconclusive > 0 && slow.inconclusive > 0);
	tg_rules_free(r);
}

/* The history's runs as more runs of the base (they are runs of the same
 * code when no change point separates them from the base) at confidence
 * 0.98: what meets the targets for one run a side. */
static void test_noise3_history_as_base(void **state)
{
	(void)state;
	tg_rules *r = rules_with("likely", 0.98);
	struct rates aa = measure(&S2B, 0, r, 51), slow = measure(&S2B, 10, r, 52);
	report(&S2B, "likely", 0, &aa);
	report(&S2B, "likely", 10, &slow);
	assert_true(aa.block <= 0.01 + margin(0.01));
	assert_true(slow.block >= 0.50 - margin(0.50));
	tg_rules_free(r);
}

/* What the daemon does by default with a history (daemon/history/history_base.h):
 * the baseline's run plus at most 9 runs of `main` since its latest
 * change point, passed as per-run values (tg_rule_base_runs), under the
 * default settings: confidence 0.95, and history_confidence 0.98 for the
 * rules that take the history as base runs (one new run against the
 * history is a one-sided test at (1 - level) / 2: 0.98 holds A/A blocks
 * at 1 %; at 0.95 they are 2.2 %, +10 % 76 %). Measured on 20,000 pairs:
 * A/A 1.0 % blocks, +10 % 59.3 % blocks. The targets, asserted. */
static void test_noise3_history_as_base_default(void **state)
{
	(void)state;
	tg_rules *r = rules_with("likely", 0.95);
	assert_true(tg_rules_settings_get(r)->history_confidence == 0.98);
	struct rates aa = measure(&S2D, 0, r, 61), slow = measure(&S2D, 10, r, 62);
	report(&S2D, "likely", 0, &aa);
	report(&S2D, "likely", 10, &slow);
	assert_true(aa.block <= 0.01 + margin(0.01));
	assert_true(slow.block >= 0.50 - margin(0.50));
	/* what is not blocked above the threshold says how many runs decide it */
	assert_true(slow.inconclusive > 0 && slow.runs_needed >= 2);
	tg_rules_free(r);
}

static void test_noise3_three_runs(void **state)
{
	(void)state;
	tg_rules *r = rules_with("likely", 0.95);
	struct rates aa = measure(&S3, 0, r, 31), slow = measure(&S3, 10, r, 32);
	report(&S3, "likely", 0, &aa);
	report(&S3, "likely", 10, &slow);
	assert_true(aa.block <= 0.01 + margin(0.01));
	assert_true(slow.block >= 0.80 - margin(0.80));
	tg_rules_free(r);
}

/* One run a side, nothing known of the noise between runs: the interval
 * holds the steps' noise only, and the rule blocks whenever the estimate
 * is above 5 %. Measured, documented (docs/rules.md): not a promise. */
static void test_noise3_one_run_blind(void **state)
{
	(void)state;
	tg_rules *r = rules_with("likely", 0.95);
	struct rates aa = measure(&S4, 0, r, 41), slow = measure(&S4, 10, r, 42);
	report(&S4, "likely", 0, &aa);
	report(&S4, "likely", 10, &slow);
	/* the estimate alone: P(N(0, 4.24 %) > 5 %) = 12 %, P(N(10, 4.24) > 5) =
	 * 88 % (measured on 20,000 pairs: 12.3 % and 86.0 %) */
	assert_true(fabs(aa.block - 0.123) <= 3 * sqrt(0.123 * 0.877 / PAIRS_DEFAULT));
	assert_true(fabs(slow.block - 0.860) <= 3 * sqrt(0.86 * 0.14 / PAIRS_DEFAULT));
	tg_rules_free(r);
}

/* The power curves of docs/rules.md (TG_CALIBRATION_CURVES=1). */
static void test_curves(void **state)
{
	(void)state;
	if (!getenv("TG_CALIBRATION_CURVES"))
		skip();
	static const double changes[] = {0, 2.5, 5, 7.5, 10, 12.5, 15, 20};
	const struct setting *sts[] = {&S1, &S2, &S3, &S4};
	const char *forms[] = {"likely", "surely"};
	for (size_t f = 0; f < 2; f++) {
		tg_rules *r = rules_with(forms[f], 0.95);
		for (size_t s = 0; s < 4; s++)
			for (size_t c = 0; c < sizeof(changes) / sizeof(changes[0]); c++) {
				struct rates m = measure(sts[s], changes[c], r, 1000 + 100 * s + c);
				printf("curve\t%s\t%s\t%g\t%.3f\t%.3f\n", forms[f], sts[s]->name, changes[c], m.block,
				       m.inconclusive);
			}
		tg_rules_free(r);
	}
}

int main(void)
{
	const char *np = getenv("TG_CALIBRATION_PAIRS");
	if (np && atol(np) >= 100)
		PAIRS = (size_t)atol(np);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise1_one_run),
		cmocka_unit_test(test_noise3_history),
		cmocka_unit_test(test_noise3_history_as_base),
		cmocka_unit_test(test_noise3_history_as_base_default),
		cmocka_unit_test(test_noise3_three_runs),
		cmocka_unit_test(test_noise3_one_run_blind),
		cmocka_unit_test(test_curves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
