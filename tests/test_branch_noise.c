/*
 * test_branch_noise.c - daemon/history/branch_noise.c on a real SQLite store: the
 * noise of each total rule from the target branch's runs on the same
 * fingerprint (a run on other hardware and the run itself left out, a
 * step and an outlier not inflating it), and the comment's lines ("Noise
 * on `main`: sdpa-forward ±1.8 % (16 runs)", "`main` itself moved: ...").
 * The gate's use of the noise is tests/test_noise.c's.
 */
#include "storeutil.h"

#include "../daemon/history/branch_noise.h"
#include "../rules/noise.h"

#include <math.h>
#include <unistd.h>

static char dir[4200];

#define H200 TG_TEST_H200
#define H100 TG_TEST_H100

static void test_noise_and_moved(void **state)
{
	(void)state;
	tg_store *s = tg_test_sqlite_store(dir, sizeof(dir), "bn");
	/* 16 H200 runs of sdpa-forward: +-1 % alternating, +8 % from the 9th
	 * on, one outlier (x1.5, the 12th); gemm flat +-0.5 %; one H100 run
	 * (x2) and one run on another branch in between */
	double sdpa[16];
	for (int i = 0; i < 16; i++) {
		sdpa[i] = 2.0 * (i % 2 ? 1.01 : 0.99) * (i >= 8 ? 1.08 : 1) * (i == 11 ? 1.5 : 1);
		tg_metric m[] = {{H200, 1}, {"rule:sdpa-forward", sdpa[i]}, {"rule:gemm", 5 * (i % 2 ? 1.005 : 0.995)},
		                 {"rule:host-syncs", 3}};
		tg_test_done_run(s, i + 1, "main", m, 4, 0);
		if (i == 5) {
			tg_metric o[] = {{H100, 1}, {"rule:sdpa-forward", 4.0}, {"rule:gemm", 10}};
			tg_test_done_run(s, 100, "main", o, 3, 0);
			tg_metric f[] = {{H200, 1}, {"rule:sdpa-forward", 9.0}, {"rule:gemm", 1}};
			tg_test_done_run(s, 101, "feature", f, 3, 0);
		}
	}
	/* the pull request's own run, on main's history too (a push): left out */
	tg_metric me[] = {{H200, 1}, {"rule:sdpa-forward", 50}, {"rule:gemm", 50}};
	int64_t self = tg_test_done_run(s, 200, "main", me, 3, 0);
	const char *y = "version: 1\nrules:\n"
	                "  - {name: sdpa-forward, select: {category: SDPA_fwd}, metric: kernel_time, block_above: 5%}\n"
	                "  - {name: gemm, select: {category: GEMM}, metric: kernel_time, block_above: 5%}\n"
	                "  - {name: host-syncs, metric: host_syncs, warn_above: 0}\n"
	                "  - {name: ops, metric: kernel_time, aggregate: each, warn_above: 10%}\n";
	tg_rules *rules;
	tg_test_must(tg_rules_load_mem(&rules, y, strlen(y), "t.yaml"));
	tg_branch_noise bn;
	tg_test_must(tg_branch_noise_find(&bn, s, &(tg_history_key){"acme/llm", "main", "train", NULL, H200},
	                                  &(tg_branch_noise_opts){self, rules, 30}));
	/* two rules with a noise: the exact host-syncs and the each rule have none */
	assert_int_equal(bn.n, 2);
	assert_string_equal(bn.noise[0].rule, "sdpa-forward");
	assert_string_equal(bn.noise[1].rule, "gemm");
	double r1, r2;
	double want = tg_noise_sigma_robust(sdpa, 16, &r1);
	assert_true(fabs(bn.noise[0].sigma - want) < 1e-12);
	assert_true(fabs(bn.noise[0].runs - r1) < 1e-12);
	/* the outlier is set aside and the step counts once: close to the
	 * alternating +-1 %, where the plain sd of the series is 4 times that */
	double alt = log(1.01 / 0.99) / sqrt(2.0), lm = 0, ss = 0;
	for (int i = 0; i < 16; i++)
		lm += log(sdpa[i]) / 16;
	for (int i = 0; i < 16; i++)
		ss += (log(sdpa[i]) - lm) * (log(sdpa[i]) - lm);
	assert_true(want > alt && want < 1.3 * alt);
	assert_true(sqrt(ss / 15) > 4 * alt);
	double g[16];
	for (int i = 0; i < 16; i++)
		g[i] = 5 * (i % 2 ? 1.005 : 0.995);
	assert_true(fabs(bn.noise[1].sigma - tg_noise_sigma_robust(g, 16, &r2)) < 1e-12);
	printf("# %s", bn.text);
	assert_non_null(strstr(bn.text, "Noise on `main`: sdpa-forward \xc2\xb1" "1.8 % (16 runs), gemm \xc2\xb1" "0.7 % "
	                                "(16 runs) (sd of one run, from its last runs on the same hardware and software).\n"));
	assert_non_null(strstr(bn.text, "`main` itself moved: sdpa-forward +8.0 % since `0900000`, 8 runs ago.\n"));
	tg_branch_noise_free(&bn);
	/* without a fingerprint every run counts: the H100 run too (16 + 1) */
	tg_test_must(tg_branch_noise_find(&bn, s, &(tg_history_key){"acme/llm", "main", "train", NULL, NULL},
	                                  &(tg_branch_noise_opts){self, rules, 30}));
	assert_non_null(strstr(bn.text, "(17 runs)"));
	tg_branch_noise_free(&bn);
	/* a short history: nothing to say */
	tg_test_must(tg_branch_noise_find(&bn, s, &(tg_history_key){"acme/llm", "main", "train", NULL, H200},
	                                  &(tg_branch_noise_opts){self, rules, 4}));
	assert_int_equal(bn.n, 0);
	assert_string_equal(bn.text, "");
	tg_branch_noise_free(&bn);
	tg_rules_free(rules);
	tg_store_close(s);
	tg_test_rm_tree(dir);
}

static void test_fingerprint_metric(void **state)
{
	(void)state;
	tg_metric m[] = {{"steps", 6}, {H200, 1}, {"gpu_busy_ms", 3}};
	assert_string_equal(tg_branch_noise_fingerprint(m, 3), H200);
	assert_null(tg_branch_noise_fingerprint(m, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise_and_moved),
		cmocka_unit_test(test_fingerprint_metric),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
