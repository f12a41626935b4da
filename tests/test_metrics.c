/*
 * test_metrics.c - the metrics registry (daemon/metrics/metrics.c): the
 * exact text it writes (counters, gauges, labelled series, histograms with
 * cumulative buckets, escaping, values), what it refuses, the cap on
 * series, and updates from several threads at once adding up.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/metrics/metrics.h"

#include <pthread.h>

static const double secs[] = {0.5, 1, 5};

enum { RUNS, JOBS, FORGE, SECONDS, BUILD, NFAM };

static const tg_metrics_family fams[NFAM] = {
	[RUNS] = {"t_runs_total", "Runs seen.", TG_METRICS_COUNTER, {NULL, NULL}, NULL, 0},
	[JOBS] = {"t_jobs", "Jobs by state.", TG_METRICS_GAUGE, {"state", NULL}, NULL, 0},
	[FORGE] = {"t_requests_total", "Requests by forge and code.", TG_METRICS_COUNTER, {"forge", "code"}, NULL, 0},
	[SECONDS] = {"t_seconds", "A duration, a \\ in the help.", TG_METRICS_HISTOGRAM, {NULL, NULL}, secs, 3},
	[BUILD] = {"t_build_info", "Build.", TG_METRICS_GAUGE, {"version", NULL}, NULL, 0},
};

static char *text(tg_metrics *m)
{
	char *t = NULL;
	size_t len = 0;
	tg_test_must(tg_metrics_write(&t, &len, m));
	assert_int_equal(strlen(t), len);
	return t;
}

static void test_text(void **state)
{
	(void)state;
	tg_metrics *m = NULL;
	tg_test_must(tg_metrics_new(&m, fams, NFAM));
	/* before anything: label-less families show 0, labelled ones nothing */
	char *t = text(m);
	assert_string_equal(t, "# HELP t_runs_total Runs seen.\n# TYPE t_runs_total counter\nt_runs_total 0\n"
	                       "# HELP t_jobs Jobs by state.\n# TYPE t_jobs gauge\n"
	                       "# HELP t_requests_total Requests by forge and code.\n# TYPE t_requests_total counter\n"
	                       "# HELP t_seconds A duration, a \\\\ in the help.\n# TYPE t_seconds histogram\n"
	                       "t_seconds_bucket{le=\"0.5\"} 0\nt_seconds_bucket{le=\"1\"} 0\n"
	                       "t_seconds_bucket{le=\"5\"} 0\nt_seconds_bucket{le=\"+Inf\"} 0\n"
	                       "t_seconds_sum 0\nt_seconds_count 0\n"
	                       "# HELP t_build_info Build.\n# TYPE t_build_info gauge\n");
	free(t);
	tg_metrics_add(m, RUNS, NULL, NULL, 1);
	tg_metrics_add(m, RUNS, NULL, NULL, 2);
	tg_metrics_set(m, JOBS, "seen", NULL, 4);
	tg_metrics_set(m, JOBS, "done", NULL, 1e12);
	tg_metrics_set(m, JOBS, "seen", NULL, 3);
	tg_metrics_add(m, JOBS, "done", NULL, -1);
	tg_metrics_add(m, FORGE, "gh", "201", 1);
	tg_metrics_add(m, FORGE, "gh", "502", 1);
	tg_metrics_add(m, FORGE, "gh", "201", 1);
	tg_metrics_observe(m, SECONDS, NULL, NULL, 0.25);
	tg_metrics_observe(m, SECONDS, NULL, NULL, 0.5); /* le is inclusive */
	tg_metrics_observe(m, SECONDS, NULL, NULL, 3);
	tg_metrics_observe(m, SECONDS, NULL, NULL, 60);
	tg_metrics_set(m, BUILD, "1.0 \"beta\"\\\n", NULL, 1);
	t = text(m);
	assert_string_equal(t, "# HELP t_runs_total Runs seen.\n# TYPE t_runs_total counter\nt_runs_total 3\n"
	                       "# HELP t_jobs Jobs by state.\n# TYPE t_jobs gauge\n"
	                       "t_jobs{state=\"seen\"} 3\nt_jobs{state=\"done\"} 999999999999\n"
	                       "# HELP t_requests_total Requests by forge and code.\n# TYPE t_requests_total counter\n"
	                       "t_requests_total{forge=\"gh\",code=\"201\"} 2\n"
	                       "t_requests_total{forge=\"gh\",code=\"502\"} 1\n"
	                       "# HELP t_seconds A duration, a \\\\ in the help.\n# TYPE t_seconds histogram\n"
	                       "t_seconds_bucket{le=\"0.5\"} 2\nt_seconds_bucket{le=\"1\"} 2\n"
	                       "t_seconds_bucket{le=\"5\"} 3\nt_seconds_bucket{le=\"+Inf\"} 4\n"
	                       "t_seconds_sum 63.75\nt_seconds_count 4\n"
	                       "# HELP t_build_info Build.\n# TYPE t_build_info gauge\n"
	                       "t_build_info{version=\"1.0 \\\"beta\\\"\\\\\\n\"} 1\n");
	free(t);
	assert_true(tg_metrics_get(m, RUNS, NULL, NULL) == 3);
	assert_true(tg_metrics_get(m, FORGE, "gh", "201") == 2);
	assert_true(tg_metrics_get(m, FORGE, "gh", "404") == 0);
	assert_true(tg_metrics_get(m, SECONDS, NULL, NULL) == 4);
	tg_metrics_free(m);
}

static void test_values(void **state)
{
	(void)state;
	tg_metrics *m = NULL;
	tg_test_must(tg_metrics_new(&m, fams, NFAM));
	tg_metrics_set(m, JOBS, "a", NULL, 0.1);
	tg_metrics_set(m, JOBS, "b", NULL, -2.5);
	tg_metrics_set(m, JOBS, "c", NULL, INFINITY);
	tg_metrics_set(m, JOBS, "d", NULL, NAN);
	tg_metrics_set(m, JOBS, "e", NULL, 1.7e9);
	tg_metrics_set(m, JOBS, "f", NULL, 1e300);
	char *t = text(m);
	assert_non_null(strstr(t, "t_jobs{state=\"a\"} 0.10000000000000001\n"));
	assert_non_null(strstr(t, "t_jobs{state=\"b\"} -2.5\n"));
	assert_non_null(strstr(t, "t_jobs{state=\"c\"} +Inf\n"));
	assert_non_null(strstr(t, "t_jobs{state=\"d\"} NaN\n"));
	assert_non_null(strstr(t, "t_jobs{state=\"e\"} 1700000000\n"));
	assert_non_null(strstr(t, "t_jobs{state=\"f\"} 1.0000000000000001e+300\n"));
	free(t);
	tg_metrics_free(m);
}

static void test_wrong_uses(void **state)
{
	(void)state;
	tg_metrics *m = NULL;
	tg_test_must(tg_metrics_new(&m, fams, NFAM));
	tg_metrics_add(m, RUNS, NULL, NULL, -1);       /* a counter never goes down */
	tg_metrics_add(m, RUNS, NULL, NULL, NAN);
	tg_metrics_set(m, RUNS, NULL, NULL, 7);        /* not a gauge */
	tg_metrics_add(m, SECONDS, NULL, NULL, 1);     /* a histogram is observed */
	tg_metrics_observe(m, JOBS, "x", NULL, 1);     /* not a histogram */
	tg_metrics_add(m, FORGE, "gh", NULL, 1);       /* a label value missing */
	tg_metrics_add(m, NFAM, NULL, NULL, 1);        /* no such family */
	tg_metrics_add(NULL, RUNS, NULL, NULL, 1);     /* no registry */
	assert_true(tg_metrics_get(m, RUNS, NULL, NULL) == 0);
	assert_true(tg_metrics_get(m, SECONDS, NULL, NULL) == 0);
	assert_true(tg_metrics_get(NULL, RUNS, NULL, NULL) == 0);
	char *t = text(m);
	assert_null(strstr(t, "t_jobs{"));
	assert_null(strstr(t, "t_requests_total{"));
	free(t);
	/* at most TG_METRICS_MAX_SERIES series a family: the rest is dropped */
	for (int i = 0; i < TG_METRICS_MAX_SERIES + 10; i++) {
		char v[16];
		snprintf(v, sizeof(v), "%d", i);
		tg_metrics_add(m, FORGE, "gh", v, 1);
	}
	assert_true(tg_metrics_get(m, FORGE, "gh", "255") == 1);
	assert_true(tg_metrics_get(m, FORGE, "gh", "256") == 0);
	tg_metrics_free(m);
	tg_metrics_free(NULL);
	char *none = NULL;
	size_t len = 1;
	tg_test_must(tg_metrics_write(&none, &len, NULL));
	assert_string_equal(none, "");
	free(none);
}

static void bad_table(const tg_metrics_family *f, size_t n, const char *want)
{
	tg_metrics *m = (tg_metrics *)1;
	assert_int_equal(tg_metrics_new(&m, f, n), TG_EINVAL);
	assert_null(m);
	assert_string_equal(tg_error_last(), want);
}

static void test_bad_tables(void **state)
{
	(void)state;
	static const double down[] = {1, 0.5};
	tg_metrics_family f[2] = {{"a_total", "A.", TG_METRICS_COUNTER, {NULL, NULL}, NULL, 0},
	                          {"a_total", "B.", TG_METRICS_COUNTER, {NULL, NULL}, NULL, 0}};
	bad_table(f, 2, "metrics: a_total: defined twice");
	f[1].name = "1bad";
	bad_table(f, 2, "metrics: family 1: a bad name or help");
	f[1].name = "b";
	f[1].help = "two\nlines";
	bad_table(f, 2, "metrics: family 1: a bad name or help");
	f[1].help = "B.";
	f[1].label[1] = "code";
	bad_table(f, 2, "metrics: b: a bad label name");
	f[1].label[0] = "le";
	bad_table(f, 2, "metrics: b: a bad label name");
	f[1].label[0] = "a-b";
	f[1].label[1] = NULL;
	bad_table(f, 2, "metrics: b: a bad label name");
	f[1].label[0] = NULL;
	f[1].type = TG_METRICS_HISTOGRAM;
	bad_table(f, 2, "metrics: b: a histogram without buckets");
	f[1].buckets = down;
	f[1].nbuckets = 2;
	bad_table(f, 2, "metrics: b: buckets not finite and ascending");
}

struct worker {
	tg_metrics *m;
	int n;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	for (int i = 0; i < w->n; i++) {
		tg_metrics_add(w->m, RUNS, NULL, NULL, 1);
		tg_metrics_add(w->m, FORGE, "gh", i % 2 ? "200" : "500", 1);
		tg_metrics_observe(w->m, SECONDS, NULL, NULL, 1);
		if (i % 100 == 0) {
			char *t = NULL;
			size_t len;
			if (!tg_metrics_write(&t, &len, w->m))
				free(t);
		}
	}
	return NULL;
}

/* Four threads at once, one rendering now and then: nothing is lost. */
static void test_threads(void **state)
{
	(void)state;
	tg_metrics *m = NULL;
	tg_test_must(tg_metrics_new(&m, fams, NFAM));
	pthread_t th[4];
	struct worker w = {m, 20000};
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, work, &w), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	assert_true(tg_metrics_get(m, RUNS, NULL, NULL) == 80000);
	assert_true(tg_metrics_get(m, FORGE, "gh", "200") == 40000);
	assert_true(tg_metrics_get(m, FORGE, "gh", "500") == 40000);
	assert_true(tg_metrics_get(m, SECONDS, NULL, NULL) == 80000);
	tg_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),       cmocka_unit_test(test_values), cmocka_unit_test(test_wrong_uses),
		cmocka_unit_test(test_bad_tables), cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
