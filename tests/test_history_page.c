/*
 * test_history_page.c - a branch's history computed into the page document
 * (daemon/history/history_page.c, the document of render/history_render.h)
 * from points made here: the series sorted by workload and metric, their
 * units, references (medians), noise bands, the places of the pull
 * requests' runs on the chart and the half slots added for them, flat and
 * fingerprint series counted apart, change points found or given (one of
 * other points refused), tampered runs; the numbers, not their rendering
 * (test_history_render.c).
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/history/history_changes.h"
#include "../daemon/history/history_page.h"

#include <math.h>

#define C1 "1111111111111111111111111111111111111111"
#define C2 "2222222222222222222222222222222222222222"
#define C3 "3333333333333333333333333333333333333333"
#define C4 "4444444444444444444444444444444444444444"
#define T0 INT64_C(1700000000)

static char fp[] = "fingerprint:NVIDIA H200|580.65.06|CUDA 13000|1";

/* gpu_busy_ms 100, 102, 98, 100 (median 100; differences 2, 4, 2); steps
 * 8, 8 (flat); the fingerprint of two runs. Given out of series order. */
static const tg_history_point br[] = {
	{1, T0, C1, "train", "steps", 8, 0},               {1, T0, C1, "train", "gpu_busy_ms", 100, 0},
	{2, T0 + 3600, C2, "train", "gpu_busy_ms", 102, 0}, {3, T0 + 7200, C3, "train", "gpu_busy_ms", 98, 0},
	{4, T0 + 10800, C1, "train", "gpu_busy_ms", 100, 0}, {2, T0 + 3600, C2, "train", "steps", 8, 0},
	{1, T0, C1, "train", fp, 1, 0},                    {2, T0 + 3600, C2, "train", fp, 1, 0},
};
#define NBR (sizeof(br) / sizeof(br[0]))

static const tg_history_point prs[] = {
	{13, T0 - 100, C4, "train", "gpu_busy_ms", 100, 9},   /* before the first run */
	{11, T0 + 1800, C4, "train", "gpu_busy_ms", 110, 7},  /* halfway between runs 1 and 2 */
	{15, T0 + 1900, C4, "infer", "gpu_busy_ms", 1, 5},    /* no such series: left out */
	{12, T0 + 9000, C4, "train", "gpu_busy_ms", 95, 8},   /* halfway between runs 3 and 4 */
	{14, T0 + 20000, C4, "train", "gpu_busy_ms", 101, 9}, /* after the last run */
};

static const tg_history_key key = {"acme/llm", "main", NULL, NULL, NULL};

static void test_series(void **state)
{
	(void)state;
	tg_job t = {.id = 3, .commit = C3, .workload = "train", .run_id = "r3", .run_time = T0 + 7200,
	            .tampered = "trace changed"};
	tg_history_opts o = {.prs = prs, .nprs = 5, .tampered = &t, .ntampered = 1, .index_href = "../index.html"};
	tg_history_doc d;
	tg_test_must(tg_history_page_build(&d, &key, br, NBR, &o, 1));
	assert_string_equal(d.repo, "acme/llm");
	assert_string_equal(d.branch, "main");
	assert_string_equal(d.index_href, "../index.html");
	assert_int_equal(d.ns, 3);
	assert_int_equal(d.nshown, 2); /* the fingerprint is no number */
	assert_int_equal(d.nflat, 1);  /* steps */
	/* sorted by metric: fingerprint:..., gpu_busy_ms, steps ('f' < 'g' < 's') */
	const tg_history_doc_series *f = &d.s[0], *g = &d.s[1], *s = &d.s[2];
	assert_true(f->fingerprint);
	assert_string_equal(f->words, "NVIDIA H200, driver 580.65.06, CUDA 13.0, world size 1");
	assert_int_equal(f->n, 2);
	assert_string_equal(g->metric, "gpu_busy_ms");
	assert_string_equal(g->unit, "ms");
	assert_false(g->fingerprint);
	assert_false(g->flat);
	assert_int_equal(g->n, 4);
	assert_int_equal(g->runs[2].run, 3);
	NEAR(g->runs[2].value, 98, 0);
	assert_string_equal(g->runs[2].commit, C3);
	/* reference 100; sigma 1.4826 * 2 / sqrt 2 = 2.0967; the band two of
	 * them in percent of 100 */
	NEAR(g->ref, 100, 0);
	NEAR(g->band_pct, 4.193426055148701, 1e-9);
	/* no rule given: thresholds none, higher is worse */
	assert_null(g->rule);
	assert_true(isnan(g->warn_pct) && isnan(g->block_pct));
	assert_int_equal(g->higher_is_worse, 1);
	/* the pull requests' runs, oldest first as given, and their places */
	assert_int_equal(g->npr, 4);
	assert_int_equal(g->prs[1].pr, 7);
	NEAR(g->pr_at[0], -0.5, 0);
	NEAR(g->pr_at[1], 0.5, 1e-12);
	NEAR(g->pr_at[2], 2.5, 1e-12);
	NEAR(g->pr_at[3], 3.5, 0);
	NEAR(g->lead, 0.5, 0);
	NEAR(g->trail, 0.5, 0);
	/* under 8 runs: no change point looked for */
	assert_null(g->ch);
	assert_int_equal(g->nch, 0);
	/* steps: flat, no noise */
	assert_true(s->flat);
	assert_string_equal(s->unit, "steps");
	NEAR(s->ref, 8, 0);
	NEAR(s->band_pct, 0, 0);
	assert_int_equal(s->npr, 0);
	NEAR(s->lead, 0, 0);
	/* the tampered run */
	assert_int_equal(d.ntampered, 1);
	assert_int_equal(d.tampered[0].run, 3);
	assert_string_equal(d.tampered[0].why, "trace changed");
	tg_history_page_free(&d);
	assert_null(d.s);
	assert_int_equal(d.ns, 0);
}

/* Sixteen runs, +50 % from the ninth: the change point found here, or the one
 * tg_history_changes_find found on the same points given; one of other
 * points refused. */
static void test_changes(void **state)
{
	(void)state;
	tg_history_point p[16];
	for (int i = 0; i < 16; i++)
		p[i] = (tg_history_point){i + 1, T0 + 3600 * i, C1, "train", "gpu_busy_ms", i < 8 ? 100 + i % 2 : 150 + i % 2,
		                          0};
	tg_history_opts o = {.changes = 1};
	tg_history_doc d;
	tg_test_must(tg_history_page_build(&d, &key, p, 16, &o, 1));
	assert_int_equal(d.ns, 1);
	assert_int_equal(d.s[0].nch, 1);
	assert_int_equal(d.s[0].ch[0].at, 8);
	NEAR(d.s[0].ch[0].pct, 100.0 * (150.5 / 100.5 - 1), 1);
	size_t at = d.s[0].ch[0].at;
	tg_history_page_free(&d);
	/* not asked for (a csv): none, and no array */
	tg_test_must(tg_history_page_build(&d, &key, p, 16, &o, 0));
	assert_null(d.s[0].ch);
	tg_history_page_free(&d);
	/* given */
	tg_history_change *found = NULL;
	size_t nfound = 0;
	tg_test_must(tg_history_changes_find(&found, &nfound, p, 16));
	assert_int_equal(nfound, 1);
	o.found = found;
	o.nfound = nfound;
	tg_test_must(tg_history_page_build(&d, &key, p, 16, &o, 1));
	assert_int_equal(d.s[0].nch, 1);
	assert_int_equal(d.s[0].ch[0].at, at);
	tg_history_page_free(&d);
	/* of other points: refused, the document left empty */
	tg_history_point q[16];
	memcpy(q, p, sizeof(q));
	assert_int_equal(tg_history_page_build(&d, &key, q, 16, &o, 1), TG_EINVAL);
	assert_null(d.s);
	assert_int_equal(d.ns, 0);
	free(found);
}

/* No points: an empty page, no series. */
static void test_empty(void **state)
{
	(void)state;
	tg_history_doc d;
	tg_test_must(tg_history_page_build(&d, &key, NULL, 0, NULL, 1));
	assert_int_equal(d.ns, 0);
	assert_int_equal(d.nshown, 0);
	assert_int_equal(d.ntampered, 0);
	assert_null(d.index_href);
	tg_history_page_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_changes),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
