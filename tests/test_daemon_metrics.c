/*
 * test_daemon_metrics.c - how the daemon counts what its jobs end with
 * (daemon/daemon_metrics.c): a verdict judged or refused, the reason of a
 * refusal read from the outcome's summary (a bad trace, a job over its
 * budget, one given up), a limit named in the admission's words, and the
 * series that exist at 0 before anything happens.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/daemon_impl.h"

#include <string.h>

static double refused(tg_daemon *d, const char *reason)
{
	return tg_metrics_get(d->metrics, TG_DM_RUNS_REFUSED, reason, NULL);
}

static void test_finished(void **state)
{
	(void)state;
	tg_daemon d;
	memset(&d, 0, sizeof(d));
	tg_test_must(tg_daemon_metrics_new(&d.metrics));
	tg_job j;
	memset(&j, 0, sizeof(j));
	tg_daemon_count_finished(&d, &j, "pass", "pass: 6 checks, no regression");
	tg_daemon_count_finished(&d, &j, "block", "block: sdpa-forward +8.1 %");
	tg_daemon_count_finished(&d, &j, "error", "error: bad trace: rank0.pt.trace.json.gz: byte 12: expected a value");
	tg_daemon_count_finished(&d, &j, "error",
	                         "error: budget: the analysis took longer than its budget (daemon.job_timeout: 2 s) "
	                         "and was stopped");
	tg_daemon_count_finished(&d, &j, "error", "error: budget: the analysis crashed (signal 11: Segmentation fault)");
	tg_daemon_count_finished(&d, &j, "error", "error: tracegate: gave up after 5 attempts (forge down)");
	tg_daemon_count_finished(&d, &j, "error", "error: git: no such commit");
	tg_daemon_count_finished(&d, &j, "error", NULL);
	assert_true(tg_metrics_get(d.metrics, TG_DM_RUNS_JUDGED, NULL, NULL) == 2);
	assert_true(tg_metrics_get(d.metrics, TG_DM_VERDICTS, "pass", NULL) == 1);
	assert_true(tg_metrics_get(d.metrics, TG_DM_VERDICTS, "block", NULL) == 1);
	assert_true(tg_metrics_get(d.metrics, TG_DM_VERDICTS, "error", NULL) == 6);
	assert_true(refused(&d, TG_REFUSED_BAD_TRACE) == 1);
	assert_true(refused(&d, TG_REFUSED_OVER_BUDGET) == 2);
	assert_true(refused(&d, TG_REFUSED_GAVE_UP) == 1);
	assert_true(refused(&d, "other") == 2);
	assert_true(refused(&d, TG_REFUSED_BAD_MANIFEST) == 0);
	tg_metrics_free(d.metrics);
}

static void test_limits(void **state)
{
	(void)state;
	tg_daemon d;
	memset(&d, 0, sizeof(d));
	tg_test_must(tg_daemon_metrics_new(&d.metrics));
	tg_daemon_count_limit_refused(&d, "acme/llm has 500 runs of main (limits.max_runs: 500)");
	tg_daemon_count_limit_refused(&d, "9 workloads (limits.max_workloads: 8)");
	tg_daemon_count_limit_refused(&d, "3 unsigned runs of main (limits.max_unsigned_branch_runs: 2)");
	tg_daemon_count_limit_refused(&d, "something else");
	tg_daemon_count_refused(&d, TG_REFUSED_FOLDER_NAME);
	assert_true(refused(&d, TG_REFUSED_TOO_MANY_RUNS) == 1);
	assert_true(refused(&d, TG_REFUSED_TOO_MANY_WORKLOADS) == 1);
	assert_true(refused(&d, TG_REFUSED_TOO_MANY_UNSIGNED) == 1);
	assert_true(refused(&d, TG_REFUSED_FOLDER_NAME) == 1);
	assert_true(refused(&d, "other") == 1);
	tg_metrics_free(d.metrics);
}

/* Every reason, verdict and job state is a series at 0 from the start,
 * so that rate() and alerts see the first one. */
static void test_series_at_zero(void **state)
{
	(void)state;
	tg_daemon d;
	memset(&d, 0, sizeof(d));
	tg_test_must(tg_daemon_metrics_new(&d.metrics));
	char *text = NULL;
	size_t len = 0;
	tg_test_must(tg_metrics_write(&text, &len, d.metrics));
	assert_non_null(strstr(text, "tracegate_runs_refused_total{reason=\"over_budget\"} 0\n"));
	assert_non_null(strstr(text, "tracegate_runs_refused_total{reason=\"gave_up\"} 0\n"));
	assert_non_null(strstr(text, "tracegate_verdicts_total{verdict=\"error\"} 0\n"));
	assert_non_null(strstr(text, "tracegate_jobs{state=\"posting\"} 0\n"));
	free(text);
	tg_metrics_free(d.metrics);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_finished),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_series_at_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
