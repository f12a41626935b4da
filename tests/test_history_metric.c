/*
 * test_history_metric.c - the reading of `tracegate history --metric`
 * (daemon/history/history_metric.c): stored names as they are, a rule's metric
 * name, a rule's name and a category for the series stored under them, a
 * miss listing the recorded names; and each stored name's unit.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/history/history_metric.h"

static const char *const names[] = {"steps",           "gpu_busy_ms",         "gpu_idle_ms",
                                    "peak_memory_mib", "host_syncs",          "kernel_time_ms:GEMM",
                                    "kernel_time_ms:SDPA_fwd", "rule:sdpa-forward"};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static void expect(const char *asked, const char *want)
{
	char *out = NULL;
	if (tg_history_metric_resolve(&out, asked, names, NNAMES))
		fail_msg("%s: %s", asked, tg_error_last());
	assert_string_equal(out, want);
	free(out);
}

static void test_resolve(void **state)
{
	(void)state;
	expect("gpu_busy_ms", "gpu_busy_ms");         /* a stored name */
	expect("kernel_time_ms:*", "kernel_time_ms:*"); /* a prefix */
	expect("gpu_busy", "gpu_busy_ms");            /* a rule's metric name */
	expect("peak_memory", "peak_memory_mib");
	expect("host_syncs", "host_syncs");
	expect("kernel_time", "kernel_time_ms:*");
	expect("sdpa-forward", "rule:sdpa-forward");  /* a rule's name */
	expect("GEMM", "kernel_time_ms:GEMM");        /* a category */
}

static void test_miss(void **state)
{
	(void)state;
	char *out = (char *)1;
	assert_int_equal(tg_history_metric_resolve(&out, "gpu_bsy", names, NNAMES), TG_ENOTFOUND);
	assert_null(out);
	assert_string_equal(tg_error_last(),
	                    "--metric gpu_bsy: no such series; recorded: steps, gpu_busy_ms, gpu_idle_ms, "
	                    "peak_memory_mib, host_syncs, kernel_time_ms:GEMM, kernel_time_ms:SDPA_fwd, "
	                    "rule:sdpa-forward (a rule's metric name such as gpu_busy, a rule's name, or a prefix "
	                    "ending in * also works)");
	/* a rule's metric that this branch never recorded */
	assert_int_equal(tg_history_metric_resolve(&out, "exposed_comm", names, NNAMES), TG_ENOTFOUND);
	/* a long list is bounded, saying how many are left out */
	static char buf[400][32];
	const char *many[400];
	for (int i = 0; i < 400; i++) {
		snprintf(buf[i], sizeof(buf[i]), "kernel_time_ms:cat%03d", i);
		many[i] = buf[i];
	}
	assert_int_equal(tg_history_metric_resolve(&out, "x", many, 400), TG_ENOTFOUND);
	assert_true(strlen(tg_error_last()) < 2000);
	assert_non_null(strstr(tg_error_last(), " more ("));
}

static void test_units(void **state)
{
	(void)state;
	assert_string_equal(tg_history_metric_unit("gpu_busy_ms"), "ms");
	assert_string_equal(tg_history_metric_unit("kernel_time_ms:GEMM"), "ms");
	assert_string_equal(tg_history_metric_unit("peak_memory_mib"), "MiB");
	assert_string_equal(tg_history_metric_unit("steps"), "steps");
	assert_string_equal(tg_history_metric_unit("host_syncs"), "syncs");
	assert_string_equal(tg_history_metric_unit("rule:sdpa-forward"), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_miss),
		cmocka_unit_test(test_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
