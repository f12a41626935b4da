/*
 * test_history_changes.c - the change points of a history, series by
 * series (daemon/history/history_changes.c): a step in one series found at
 * its run, with its size and how many runs ago; a flat series, a short one
 * and one with a zero have none; the same history, the same answer; the
 * changes found once and given to the page draw the same page.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/history/history_changes.h"
#include "../daemon/history/history_render.h"

#define T0 INT64_C(1700000000)

/* 16 runs of two series interleaved: train/gpu_busy_ms steps from about
 * 100 to about 110 at run 10 (index 9), train/peak_memory_mib stays flat;
 * and infer/gpu_busy_ms, 5 runs only. */
static tg_history_point *make(size_t *n)
{
	static char commits[16][41];
	tg_history_point *p = calloc(40, sizeof(*p));
	size_t k = 0;
	for (int r = 0; r < 16; r++) {
		snprintf(commits[r], 41, "%040d", r + 1);
		double noise = ((r * 7) % 5 - 2) * 0.3; /* -0.6 .. +0.6 */
		p[k++] = (tg_history_point){r + 1, T0 + 60 * r, "", "train", "gpu_busy_ms", (r < 9 ? 100 : 110) + noise, 0};
		p[k++] = (tg_history_point){r + 1, T0 + 60 * r, "", "train", "peak_memory_mib", 2048, 0};
		if (r < 5)
			p[k++] = (tg_history_point){r + 1, T0 + 60 * r, "", "infer", "gpu_busy_ms", 50 + r, 0};
	}
	for (size_t i = 0; i < k; i++)
		memcpy(p[i].commit, commits[p[i].run - 1], 41);
	*n = k;
	return p;
}

static void test_step(void **state)
{
	(void)state;
	size_t n;
	tg_history_point *p = make(&n);
	tg_history_change *ch = NULL;
	size_t nch = 9;
	tg_test_must(tg_history_changes_find(&ch, &nch, p, n));
	assert_int_equal(nch, 1);
	assert_string_equal(ch[0].workload, "train");
	assert_string_equal(ch[0].metric, "gpu_busy_ms");
	assert_int_equal(ch[0].at->run, 10); /* the first run after the step */
	assert_int_equal(ch[0].runs_ago, 7); /* runs 10..16 */
	assert_true(ch[0].pct > 9.0 && ch[0].pct < 11.0);
	assert_true(ch[0].p_value <= 0.01);
	/* the same history, the same answer */
	tg_history_change *again = NULL;
	size_t nagain = 0;
	tg_test_must(tg_history_changes_find(&again, &nagain, p, n));
	assert_int_equal(nagain, 1);
	assert_true(again[0].pct == ch[0].pct && again[0].p_value == ch[0].p_value);
	free(again);
	free(ch);
	/* a zero in the series: none for it */
	p[0].value = 0;
	tg_test_must(tg_history_changes_find(&ch, &nch, p, n));
	assert_int_equal(nch, 0);
	assert_null(ch);
	free(p);
	/* nothing at all */
	tg_test_must(tg_history_changes_find(&ch, &nch, NULL, 0));
	assert_int_equal(nch, 0);
}

static void test_series(void **state)
{
	(void)state;
	double v[12] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2};
	tg_change *c = NULL;
	size_t n = 0;
	tg_test_must(tg_history_series_changes(&c, &n, v + 5, 7, "m")); /* 7 values: too few */
	assert_int_equal(n, 0);
	tg_test_must(tg_history_series_changes(&c, &n, v, 12, "m"));
	assert_int_equal(n, 1);
	assert_int_equal(c[0].at, 6);
	assert_true(fabs(c[0].pct - 100.0) < 1e-9);
	free(c);
	v[3] = NAN;
	tg_test_must(tg_history_series_changes(&c, &n, v, 12, "m"));
	assert_int_equal(n, 0);
	assert_null(c);
}

static char *page(tg_history_format fmt, const tg_history_point *p, size_t n, const tg_history_opts *o, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	*rc = tg_history_write_ex(f, fmt, "acme/llm", "main", p, n, o);
	fclose(f);
	return buf;
}

/* Change points found once and given to the page draw the same page as
 * the page finding them (the daemon finds them once for the page and its
 * index); ones found on other points are refused. */
static void test_given(void **state)
{
	(void)state;
	size_t n;
	tg_history_point *p = make(&n);
	tg_history_change *ch = NULL;
	size_t nch = 0;
	tg_test_must(tg_history_changes_find(&ch, &nch, p, n));
	assert_int_equal(nch, 1);
	tg_history_format fmts[] = {TG_HISTORY_HTML, TG_HISTORY_JSON, TG_HISTORY_TEXT};
	for (int i = 0; i < 3; i++) {
		tg_history_opts found_here = {.changes = 1}, given = {.changes = 1, .found = ch, .nfound = nch};
		int rc1, rc2;
		char *a = page(fmts[i], p, n, &found_here, &rc1), *b = page(fmts[i], p, n, &given, &rc2);
		assert_int_equal(rc1, 0);
		assert_int_equal(rc2, 0);
		assert_string_equal(a, b);
		assert_non_null(strstr(a, "change")); /* the change is on it */
		free(a);
		free(b);
	}
	tg_history_point *q = make(&n);
	tg_history_opts other = {.changes = 1, .found = ch, .nfound = nch};
	int rc;
	free(page(TG_HISTORY_HTML, q, n, &other, &rc));
	assert_int_equal(rc, TG_EINVAL);
	assert_string_equal(tg_error_last(), "history: a change point of other points");
	free(q);
	free(ch);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_step), cmocka_unit_test(test_series),
	                                   cmocka_unit_test(test_given)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
