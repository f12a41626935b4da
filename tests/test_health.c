/*
 * test_health.c - the loop's health (daemon/metrics/health.c) on a clock
 * the test moves: alive within two poll intervals while idle and within
 * the lease inside a step, stuck beyond, with the reason; the store's last
 * answer; readiness.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/metrics/health.h"

static int64_t clock_ms;

static int64_t test_now(void *ctx)
{
	(void)ctx;
	return clock_ms;
}

static tg_health *make(void)
{
	clock_ms = 1000000;
	tg_health_opts o = {.quiet_ms = 20000, .step_ms = 600000, .now_ms = test_now};
	tg_health *h = NULL;
	tg_test_must(tg_health_new(&h, &o));
	return h;
}

static void test_idle(void **state)
{
	(void)state;
	tg_health *h = make();
	char why[512];
	assert_int_equal(tg_health_live(why, sizeof(why), h), 1);
	assert_string_equal(why, "ok: the loop moved 0.0 s ago, idle");
	clock_ms += 20000; /* exactly two poll intervals: still alive */
	assert_int_equal(tg_health_live(why, sizeof(why), h), 1);
	clock_ms += 1;
	assert_int_equal(tg_health_live(why, sizeof(why), h), 0);
	assert_string_equal(why, "the loop has not moved for 20.0 s (allowed: 20.0 s, two poll intervals)");
	clock_ms += 4999;
	assert_int_equal(tg_health_live(why, sizeof(why), h), 0);
	assert_string_equal(why, "the loop has not moved for 25.0 s (allowed: 20.0 s, two poll intervals)");
	tg_health_beat(h);
	clock_ms += 2500;
	assert_int_equal(tg_health_live(why, sizeof(why), h), 1);
	assert_string_equal(why, "ok: the loop moved 2.5 s ago, idle");
	tg_health_free(h);
}

static void test_step(void **state)
{
	(void)state;
	tg_health *h = make();
	char why[512];
	tg_health_step(h, "job 12 (posting)");
	clock_ms += 300000; /* a long step: alive within the lease */
	assert_int_equal(tg_health_live(why, sizeof(why), h), 1);
	assert_string_equal(why, "ok: the loop moved 300.0 s ago, job 12 (posting)");
	clock_ms += 300001;
	assert_int_equal(tg_health_live(why, sizeof(why), h), 0);
	assert_string_equal(why,
	                    "the loop has been in one step, job 12 (posting), for 600.0 s (allowed: 600.0 s, the lease)");
	/* the step ends: idle again, timed from then */
	tg_health_step(h, NULL);
	clock_ms += 19000;
	assert_int_equal(tg_health_live(why, sizeof(why), h), 1);
	assert_string_equal(why, "ok: the loop moved 19.0 s ago, idle");
	/* a step name too long is cut, not overrun */
	char longname[400];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	tg_health_step(h, longname);
	assert_int_equal(tg_health_live(why, sizeof(why), h), 1);
	assert_int_equal(strlen(why), strlen("ok: the loop moved 0.0 s ago, ") + 127);
	tg_health_free(h);
}

static void test_store_and_ready(void **state)
{
	(void)state;
	tg_health *h = make();
	char why[512];
	assert_int_equal(tg_health_is_ready(why, sizeof(why), h), 0);
	assert_string_equal(why, "starting");
	tg_health_store(h, 0, "store: database is locked");
	assert_int_equal(tg_health_live(why, sizeof(why), h), 0);
	assert_string_equal(why, "the job store does not answer: store: database is locked");
	tg_health_store(h, 1, NULL);
	assert_int_equal(tg_health_live(why, sizeof(why), h), 1);
	/* a stuck loop is said first: it is why the store was not asked */
	tg_health_store(h, 0, "gone");
	clock_ms += 30000;
	assert_int_equal(tg_health_live(why, sizeof(why), h), 0);
	assert_non_null(strstr(why, "has not moved"));
	tg_health_ready(h, 1, NULL);
	assert_int_equal(tg_health_is_ready(why, sizeof(why), h), 1);
	assert_string_equal(why, "ready");
	tg_health_ready(h, 0, "stopping");
	assert_int_equal(tg_health_is_ready(why, sizeof(why), h), 0);
	assert_string_equal(why, "stopping");
	tg_health_free(h);
	/* NULL: nothing to do, never alive */
	tg_health_beat(NULL);
	tg_health_step(NULL, "x");
	tg_health_store(NULL, 1, NULL);
	tg_health_ready(NULL, 1, NULL);
	assert_int_equal(tg_health_live(why, sizeof(why), NULL), 0);
	assert_int_equal(tg_health_is_ready(why, sizeof(why), NULL), 0);
	tg_health_free(NULL);
}

/* A step limit below the idle one is raised to it; no limit: 20 s. */
static void test_defaults(void **state)
{
	(void)state;
	clock_ms = 0;
	tg_health_opts o = {.quiet_ms = 0, .step_ms = 5, .now_ms = test_now};
	tg_health *h = NULL;
	tg_test_must(tg_health_new(&h, &o));
	char why[512];
	tg_health_step(h, "scanning the storage");
	clock_ms = 20000;
	assert_int_equal(tg_health_live(why, sizeof(why), h), 1);
	clock_ms = 20001;
	assert_int_equal(tg_health_live(why, sizeof(why), h), 0);
	tg_health_free(h);
	/* the real clock: alive at once */
	tg_test_must(tg_health_new(&h, NULL));
	assert_int_equal(tg_health_live(why, sizeof(why), h), 1);
	tg_health_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_store_and_ready),
		cmocka_unit_test(test_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
