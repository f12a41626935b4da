/*
 * test_history_base.c - daemon/history/history_base.c on a real SQLite store: the
 * target branch's runs since the latest change point of each rule's
 * series (same fingerprint; the baseline's and the judged commit's runs
 * left out; at most 9, the latest; trusted only under a signing key) as
 * more base runs, in ns, and the
 * comment's line ("Base: 1 run + ... runs of `main` since its last change
 * point (...; 98 % intervals)"). The judge's use of them is
 * tests/test_noise.c's (test_history_as_base) and test_calibration's.
 */
#include "storeutil.h"

#include "../daemon/history/history_base.h"

#include <math.h>
#include <unistd.h>

static char dir[4200];

/* Whether run i is signed: two unsigned uploads among main's runs. */
#define TRUSTED(i) ((i) != 13 && (i) != 14)

#define H200 TG_TEST_H200
#define H100 TG_TEST_H100

static void test_runs_since_change(void **state)
{
	(void)state;
	tg_store *s = tg_test_sqlite_store(dir, sizeof(dir), "hb");
	/* 16 H200 runs on main (ms): sdpa-forward +-1 %, +8 % from the 9th on;
	 * gemm flat +-0.5 %; one H100 run and one run on another branch in
	 * between; the judged commit's run (a push on main) last */
	double sdpa[16], gemm[16];
	int64_t ids[16];
	for (int i = 0; i < 16; i++) {
		sdpa[i] = 2.0 * (i % 2 ? 1.01 : 0.99) * (i >= 8 ? 1.08 : 1);
		gemm[i] = 5 * (i % 2 ? 1.005 : 0.995);
		tg_metric m[] = {{H200, 1}, {"rule:sdpa-forward", sdpa[i]}, {"rule:gemm", gemm[i]}, {"rule:host-syncs", 3}};
		ids[i] = tg_test_done_run(s, i + 1, "main", m, 4, TRUSTED(i + 1));
		if (i == 10) {
			tg_metric o[] = {{H100, 1}, {"rule:sdpa-forward", 4.0}, {"rule:gemm", 10}};
			tg_test_done_run(s, 100, "main", o, 3, TRUSTED(100));
			tg_metric f[] = {{H200, 1}, {"rule:sdpa-forward", 9.0}, {"rule:gemm", 1}};
			tg_test_done_run(s, 101, "feature", f, 3, TRUSTED(101));
		}
	}
	tg_metric me[] = {{H200, 1}, {"rule:sdpa-forward", 50}, {"rule:gemm", 50}};
	tg_test_done_run(s, 200, "main", me, 3, TRUSTED(200));
	char base_commit[41], new_commit[41];
	tg_test_commit_of(base_commit, 16);
	tg_test_commit_of(new_commit, 200);
	const char *y = "version: 1\nrules:\n"
	                "  - {name: sdpa-forward, select: {category: SDPA_fwd}, metric: kernel_time, block_above: 5%}\n"
	                "  - {name: gemm, select: {category: GEMM}, metric: kernel_time, block_above: 5%}\n"
	                "  - {name: host-syncs, metric: host_syncs, warn_above: 0}\n"
	                "  - {name: ops, metric: kernel_time, aggregate: each, warn_above: 10%}\n";
	tg_rules *rules;
	tg_test_must(tg_rules_load_mem(&rules, y, strlen(y), "t.yaml"));
	tg_history_base hb;
	tg_test_must(tg_history_base_find(
	    &hb, s, &(tg_history_key){"acme/llm", "main", "train", NULL, H200},
	    &(tg_history_base_opts){ids[15], base_commit, new_commit, 1, rules, 30}));
	/* sdpa-forward: the runs since its step (9th..16th) less the
	 * baseline's: 7; gemm: no step, the latest 9 before the baseline; the
	 * exact and the each rules take none */
	assert_int_equal(hb.n, 2);
	assert_string_equal(hb.runs[0].rule, "sdpa-forward");
	assert_int_equal(hb.runs[0].n, 7);
	for (size_t k = 0; k < 7; k++) /* latest first, in ns */
		assert_true(fabs(hb.runs[0].values[k] - sdpa[14 - k] * 1e6) < 1e-3);
	assert_string_equal(hb.runs[1].rule, "gemm");
	assert_int_equal(hb.runs[1].n, 9);
	for (size_t k = 0; k < 9; k++)
		assert_true(fabs(hb.runs[1].values[k] - gemm[14 - k] * 1e6) < 1e-3);
	printf("# %s", hb.text);
	assert_string_equal(hb.text, "Base: 1 run + runs of `main` since its last change point (sdpa-forward 7, gemm 9; "
	                             "98 % intervals).\n");
	/* the rules with base runs lose the branch noise (the same runs) */
	tg_rule_noise nz[] = {{"sdpa-forward", 0.01, 10}, {"other", 0.02, 10}, {"gemm", 0.01, 10}};
	size_t nn = 3;
	tg_history_base_drop_noise(nz, &nn, &hb);
	assert_int_equal(nn, 1);
	assert_string_equal(nz[0].rule, "other");
	tg_history_base_free(&hb);

	/* a baseline before sdpa-forward's step (the 5th run): its runs since
	 * the step measured other code; gemm's do not */
	tg_test_commit_of(base_commit, 5);
	tg_test_must(tg_history_base_find(
	    &hb, s, &(tg_history_key){"acme/llm", "main", "train", NULL, H200},
	    &(tg_history_base_opts){ids[4], base_commit, new_commit, 2, rules, 30}));
	assert_int_equal(hb.n, 1);
	assert_string_equal(hb.runs[0].rule, "gemm");
	assert_int_equal(hb.runs[0].n, 9);
	assert_string_equal(hb.text, "Base: 2 runs + 9 runs of `main` since its last change point (gemm; 98 % intervals).\n");
	tg_history_base_free(&hb);

	/* a short window: fewer than 4 runs besides the baseline's: none */
	tg_test_commit_of(base_commit, 16);
	tg_test_must(tg_history_base_find(
	    &hb, s, &(tg_history_key){"acme/llm", "main", "train", NULL, H200},
	    &(tg_history_base_opts){ids[15], base_commit, new_commit, 1, rules, 4}));
	assert_int_equal(hb.n, 0);
	assert_string_equal(hb.text, "");
	tg_history_base_free(&hb);
	/* with a signing key: the trusted runs only (the 13th and 14th are not) */
	tg_store_set_trusted_only(s, 1);
	tg_test_must(tg_history_base_find(
	    &hb, s, &(tg_history_key){"acme/llm", "main", "train", NULL, H200},
	    &(tg_history_base_opts){ids[15], base_commit, new_commit, 1, rules, 30}));
	assert_int_equal(hb.n, 2);
	assert_int_equal(hb.runs[0].n, 5);
	assert_true(fabs(hb.runs[0].values[0] - sdpa[14] * 1e6) < 1e-3);
	assert_true(fabs(hb.runs[0].values[1] - sdpa[11] * 1e6) < 1e-3);
	assert_int_equal(hb.runs[1].n, 9);
	assert_true(fabs(hb.runs[1].values[8] - gemm[4] * 1e6) < 1e-3);
	tg_history_base_free(&hb);
	tg_store_set_trusted_only(s, 0);
	/* another fingerprint: no runs */
	tg_test_must(tg_history_base_find(
	    &hb, s, &(tg_history_key){"acme/llm", "main", "train", NULL, "fingerprint:none"},
	    &(tg_history_base_opts){ids[15], base_commit, new_commit, 1, rules, 30}));
	assert_int_equal(hb.n, 0);
	tg_history_base_free(&hb);
	tg_rules_free(rules);
	tg_store_close(s);
	tg_test_rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_since_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
