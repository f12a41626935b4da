/*
 * test_noise.c - rules/noise.c (the between-run noise and the interval it
 * gives a ratio) and the decision forms of rules/judge.c on per-step
 * samples (tg_judge_samples): likely, surely, "re-run to confirm" with the
 * runs that would decide it. Reference values computed by hand (and with
 * scipy.stats.t for the quantiles).
 */
#include "testutil.h"

#include "../rules/judge.h"
#include "../rules/noise.h"

#include <math.h>

static void test_groups_pool(void **state)
{
	(void)state;
	tg_noise n = {0, 0};
	double a[] = {100, 110, 121}; /* logs step by log 1.1 */
	double b[] = {50, 55};
	tg_noise_add_group(&n, a, 3);
	tg_noise_add_group(&n, b, 2);
	double l = log(1.1);
	/* ss: a: 2 l^2 (deviations -l, 0, l); b: l^2 / 2 */
	assert_true(fabs(n.ss - 2.5 * l * l) < 1e-12);
	assert_true(fabs(n.df - 3) < 1e-12);
	assert_true(fabs(tg_noise_sigma(&n) - sqrt(2.5 * l * l / 3)) < 1e-12);
	/* one value, a zero, a NaN: nothing added */
	double c[] = {5}, d[] = {5, 0}, e[] = {5, NAN};
	tg_noise_add_group(&n, c, 1);
	tg_noise_add_group(&n, d, 2);
	tg_noise_add_group(&n, e, 2);
	assert_true(fabs(n.df - 3) < 1e-12);
	tg_noise_add_sigma(&n, 0.02, 11);
	assert_true(fabs(n.df - 13) < 1e-12);
	assert_true(fabs(n.ss - (2.5 * l * l + 10 * 0.0004)) < 1e-12);
	tg_noise empty = {0, 0};
	assert_true(isnan(tg_noise_sigma(&empty)));
}

static void test_interval(void **state)
{
	(void)state;
	tg_noise n = {0, 0};
	tg_noise_add_sigma(&n, 0.03, 5); /* 4 df */
	double lo, hi, p;
	assert_int_equal(tg_noise_interval(&lo, &hi, &p, 1.10, &n, 3, 3, 0.95), 0);
	double se = 0.03 * sqrt(2.0 / 3), t = 2.7764451051977987; /* t_{0.975, 4} */
	assert_true(fabs(lo - 1.10 * exp(-t * se)) < 1e-9);
	assert_true(fabs(hi - 1.10 * exp(t * se)) < 1e-9);
	/* p = 1 - T_4(log 1.1 / se), T_4 in closed form: 0.0088377 */
	assert_true(fabs(p - 0.0088376509) < 1e-8);
	tg_noise none = {0, 0};
	assert_int_equal(tg_noise_interval(&lo, &hi, &p, 1.1, &none, 1, 1, 0.95), -1);
	assert_int_equal(tg_noise_interval(&lo, &hi, &p, 0, &n, 1, 1, 0.95), -1);
}

static void test_runs_needed(void **state)
{
	(void)state;
	/* 2 (1.95996 + 0.84162)^2 0.03^2 / log(1.06)^2 = 4.18 -> 5 */
	assert_int_equal(tg_noise_runs_needed(6, 0.03, 0.95), 5);
	assert_int_equal(tg_noise_runs_needed(20, 0.001, 0.95), 2); /* at least 2 */
	assert_int_equal(tg_noise_runs_needed(-3, 0.03, 0.95), 0);
	assert_int_equal(tg_noise_runs_needed(6, NAN, 0.95), 0);
}

static void test_sigma_robust(void **state)
{
	(void)state;
	/* alternating +-1 % around 100: successive log differences 2 %:
	 * sigma = sqrt(mean d^2 / 2) */
	double s[12], runs;
	for (int i = 0; i < 12; i++)
		s[i] = 100 * (i % 2 ? 1.01 : 0.99);
	double d = log(1.01 / 0.99);
	double sig = tg_noise_sigma_robust(s, 12, &runs);
	assert_true(fabs(sig - d / sqrt(2.0)) < 1e-12);
	assert_true(fabs(runs - (2.0 * 121 / 32 + 1)) < 1e-12); /* 11 differences */
	/* a +20 % step after run 6 and an outlier at run 9 change nothing:
	 * their differences are set aside */
	double t[12];
	for (int i = 0; i < 12; i++)
		t[i] = s[i] * (i >= 6 ? 1.2 : 1);
	double u[12];
	memcpy(u, s, sizeof(u));
	u[9] *= 1.5;
	double sig_t = tg_noise_sigma_robust(t, 12, &runs), sig_u = tg_noise_sigma_robust(u, 12, NULL);
	assert_true(fabs(sig_t - sig) < 1e-12);
	assert_true(fabs(runs - (2.0 * 100 / 29 + 1)) < 1e-12); /* 10 differences kept */
	assert_true(fabs(sig_u - sig) < 1e-12);
	assert_true(isnan(tg_noise_sigma_robust(s, 2, NULL)));
}

/* ------------------------------------------------------------ decisions */

static tg_rules *rules_for(const char *decide)
{
	char y[512];
	snprintf(y, sizeof(y),
	         "version: 1\nrules:\n  - name: sdpa\n    metric: kernel_time\n    block_above: 5%%\n"
	         "    warn_above: 2%%\n    decide: %s\n",
	         decide);
	tg_rules *r = NULL;
	if (tg_rules_load_mem(&r, y, strlen(y), "t.yaml"))
		fail_msg("%s", tg_error_last());
	return r;
}

/* Judges runs of 6 steps: base run r has values base[r] * (1 +- spread),
 * new run likewise. */
static void judge_runs_ex(tg_judged *j, const tg_rules *rules, const double *base, size_t nb, const double *next,
                          size_t nx, double spread, const tg_rule_noise *noise, const tg_rule_base_runs *hist);

static void judge_runs(tg_judged *j, const tg_rules *rules, const double *base, size_t nb, const double *next,
                       size_t nx, double spread, const tg_rule_noise *noise)
{
	judge_runs_ex(j, rules, base, nb, next, nx, spread, noise, NULL);
}

/* judge_runs with the target branch's runs as more base runs (hist). */
static void judge_runs_ex(tg_judged *j, const tg_rules *rules, const double *base, size_t nb, const double *next,
                          size_t nx, double spread, const tg_rule_noise *noise, const tg_rule_base_runs *hist)
{
	double vb[64], vx[64];
	uint32_t rb[64], rx[64];
	size_t cb = 0, cx = 0;
	for (size_t r = 0; r < nb; r++)
		for (int s = 0; s < 6; s++) {
			vb[cb] = base[r] * (1 + spread * (s % 2 ? 1 : -1));
			rb[cb++] = (uint32_t)r;
		}
	for (size_t r = 0; r < nx; r++)
		for (int s = 0; s < 6; s++) {
			vx[cx] = next[r] * (1 + spread * (s % 2 ? 1 : -1));
			rx[cx++] = (uint32_t)r;
		}
	size_t n;
	const tg_rule *rule = tg_rules_list(rules, &n);
	tg_step_samples sb = {vb, rb, cb}, sx = {vx, rx, cx};
	assert_int_equal(tg_judge_samples_ex(j, rule, tg_rules_settings_get(rules), &sb, &sx, noise, hist), 0);
}

static void test_likely_and_surely(void **state)
{
	(void)state;
	tg_rules *likely = rules_for("likely"), *surely = rules_for("surely");
	tg_judged j;
	double b[] = {1e6}, x6[] = {1.06e6};
	/* +6 % with steps +-2 %: the interval is about +6 +- 1.6 %: likely blocks,
	 * surely (lower bound under 5 %) warns */
	judge_runs(&j, likely, b, 1, x6, 1, 0.02, NULL);
	assert_true(fabs(j.pct - 6) < 1e-9);
	assert_true(j.pct_lo < 5 && j.pct_lo > 0);
	assert_int_equal(j.verdict, TG_VERDICT_BLOCK);
	assert_int_equal(j.nruns_base, 1);
	assert_true(isnan(j.noise_pct));
	judge_runs(&j, surely, b, 1, x6, 1, 0.02, NULL);
	assert_int_equal(j.verdict, TG_VERDICT_WARN);
	/* +6 % within a noise of 3 % a run (history of 10 runs): not
	 * significant: re-run to confirm, 5 runs a side (test_runs_needed) */
	tg_rule_noise h = {"sdpa", 0.03, 10};
	judge_runs(&j, likely, b, 1, x6, 1, 0.001, &h);
	assert_int_equal(j.verdict, TG_VERDICT_INCONCLUSIVE);
	assert_true(fabs(j.noise_pct - 3) < 1e-9 && fabs(j.noise_df - 9) < 1e-9);
	assert_true(j.pct_lo < 0);
	assert_int_equal(j.runs_needed, 5);
	assert_string_equal(j.note, "re-run to confirm: +6.0 % is above 5 % but not significant at this noise; "
	                            "about 5 runs per side would decide it");
	judge_runs(&j, surely, b, 1, x6, 1, 0.001, &h);
	assert_int_equal(j.verdict, TG_VERDICT_PASS);
	/* three runs a side, runs +-1 % apart, +10 %: significant, blocks; the
	 * noise is measured from the runs (4 df) */
	double b3[] = {0.99e6, 1e6, 1.01e6}, x3[] = {1.089e6, 1.1e6, 1.111e6};
	judge_runs(&j, likely, b3, 3, x3, 3, 0.001, NULL);
	assert_int_equal(j.verdict, TG_VERDICT_BLOCK);
	assert_int_equal(j.nruns_base, 3);
	assert_int_equal(j.nruns_new, 3);
	assert_true(fabs(j.noise_df - 4) < 1e-9);
	assert_true(fabs(j.noise_pct - 100 * sqrt((2 * log(1.01) * log(1.01) + 2 * log(1.01) * log(1.01)) / 4)) < 0.01);
	/* an improvement within the noise is not claimed; beyond it, it is */
	double xi[] = {0.97e6};
	judge_runs(&j, likely, b, 1, xi, 1, 0.001, &h);
	assert_int_equal(j.improved, 0);
	judge_runs(&j, likely, b, 1, xi, 1, 0.001, NULL);
	assert_int_equal(j.improved, 1);
	tg_rules_free(likely);
	tg_rules_free(surely);
}

/* The history's runs as more base runs (judge.h, tg_rule_base_runs): the
 * base's value is the mean of its run and them, the noise that of the base
 * group (10 runs, 9 df), the interval at history_confidence (0.98). */
static void test_history_as_base(void **state)
{
	(void)state;
	tg_rules *likely = rules_for("likely");
	tg_judged j;
	double b[] = {1e6}, x[] = {1.1e6};
	double hv[] = {0.98e6, 1.02e6, 0.99e6, 1.01e6, 1e6, 1e6, 0.97e6, 1.03e6, 1e6};
	tg_rule_base_runs h = {"sdpa", hv, 9};
	judge_runs_ex(&j, likely, b, 1, x, 1, 0.001, NULL, &h);
	assert_int_equal(j.nruns_base, 10);
	assert_int_equal(j.nruns_history, 9);
	assert_int_equal(j.nruns_new, 1);
	assert_true(fabs(j.noise_df - 9) < 1e-9);
	double g[10] = {1e6}, lm = 0, ss = 0;
	memcpy(g + 1, hv, sizeof(hv));
	for (int i = 0; i < 10; i++)
		lm += log(g[i]) / 10;
	for (int i = 0; i < 10; i++)
		ss += (log(g[i]) - lm) * (log(g[i]) - lm);
	double sigma = sqrt(ss / 9), se = sigma * sqrt(1.0 / 10 + 1);
	assert_true(fabs(j.noise_pct - 100 * sigma) < 1e-9);
	/* the interval of the run noise at 98 %: t(9, 0.99) = 2.821 */
	assert_true(fabs(j.pct_hi - 100 * (1.1 * exp(2.821 * se) - 1)) < 0.01);
	assert_true(fabs(j.pct_lo - 100 * (1.1 * exp(-2.821 * se) - 1)) < 0.01);
	assert_true(fabs(j.pct - 10) < 1e-6);
	assert_int_equal(j.verdict, TG_VERDICT_BLOCK);
	/* the base's value is the mean of its runs: main 5 % slower on its
	 * runs since the baseline than the baseline's run */
	double hs[9];
	for (int i = 0; i < 9; i++)
		hs[i] = 1.05e6;
	tg_rule_base_runs h2 = {"sdpa", hs, 9};
	judge_runs_ex(&j, likely, b, 1, x, 1, 0.001, NULL, &h2);
	assert_true(fabs(j.base - 1.045e6) < 1);
	assert_true(fabs(j.pct - 100 * (1.1 / 1.045 - 1)) < 1e-6);
	/* a value not above 0: the runs are not used */
	double hz[] = {1e6, 0, 1e6};
	tg_rule_base_runs h3 = {"sdpa", hz, 3};
	judge_runs_ex(&j, likely, b, 1, x, 1, 0.001, NULL, &h3);
	assert_int_equal(j.nruns_history, 0);
	assert_int_equal(j.nruns_base, 1);
	/* history_confidence: 0.95 (not below confidence): t(9, 0.975) = 2.262 */
	const char *y = "version: 1\nsettings: {history_confidence: 0.95}\nrules:\n  - name: sdpa\n"
	                "    metric: kernel_time\n    block_above: 5%\n";
	tg_rules *r95;
	assert_int_equal(tg_rules_load_mem(&r95, y, strlen(y), "t.yaml"), 0);
	judge_runs_ex(&j, r95, b, 1, x, 1, 0.001, NULL, &h);
	assert_true(fabs(j.pct_hi - 100 * (1.1 * exp(2.262 * se) - 1)) < 0.01);
	tg_rules_free(r95);
	tg_rules_free(likely);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_pool),       cmocka_unit_test(test_interval),
		cmocka_unit_test(test_runs_needed),       cmocka_unit_test(test_sigma_robust),
		cmocka_unit_test(test_likely_and_surely), cmocka_unit_test(test_history_as_base),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
