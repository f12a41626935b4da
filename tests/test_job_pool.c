/* test_job_pool.c - which runs join a job's side (daemon/origin.c's pool
 * filter, daemon/pool.c) and which baseline candidates count, in a real
 * SQLite store: without a signing key every run pools; with one a signed
 * run pools signed runs, a pull request's run the runs of its confirmed CI
 * run, an unsigned branch build nothing; a run whose manifest cannot be
 * read is left out of the pool and recorded as tampered (then out of every
 * pool); the baseline lookups see trusted runs only when asked, whatever
 * the store's own state. */
#include "storeutil.h"

#include "../daemon/daemon_impl.h"
#include "../daemon/job_impl.h"
#include "../daemon/pool.h"
#include "../daemon/repos.h"

#define SHA "00000000000000000000000000000000000000aa"

/* Adds run i of acme/llm's train at SHA (trusted or not, of pull request
 * pr, naming CI run origin, confirmed or not) with manifest text, taken
 * to done with verdict pass. Returns its id. */
static int64_t done_run(tg_store *s, int i, int trusted, int64_t pr, const char *origin, int origin_ok,
                        const char *manifest)
{
	tg_job j;
	memset(&j, 0, sizeof(j));
	char prefix[256], run_id[32];
	snprintf(j.key, sizeof(j.key), "%064x", 1000 + i);
	snprintf(run_id, sizeof(run_id), "ci-%d", i);
	snprintf(prefix, sizeof(prefix), "acme/llm/%s/train/%s", SHA, run_id);
	j.prefix = prefix;
	j.repo = (char *)"acme/llm";
	j.commit = (char *)SHA;
	j.branch = (char *)(pr ? "feat" : "main");
	j.pr = pr;
	j.workload = (char *)"train";
	j.run_id = run_id;
	j.manifest = (char *)manifest;
	j.run_time = 1700000000 + i;
	j.trusted = trusted;
	j.origin = (char *)origin;
	int64_t id = 0;
	int created;
	tg_test_must(tg_store_job_add(&id, &created, s, &j));
	tg_job c;
	tg_test_must(tg_store_job_claim(&c, s, "w", 60));
	tg_job_clear(&c);
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL));
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_ANALYSING, TG_JOB_POSTING, NULL));
	tg_job r;
	tg_test_must(tg_store_job_get(&r, s, id));
	r.origin_ok = origin_ok;
	free(r.verdict);
	r.verdict = strdup("pass");
	tg_test_must(tg_store_job_set_result(s, id, &r));
	tg_job_clear(&r);
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_POSTING, TG_JOB_DONE, NULL));
	return id;
}

/* Which runs may join: by key and trust, by proof of origin. */
static void test_pool_filter(void **state)
{
	(void)state;
	tg_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	tg_daemon d;
	memset(&d, 0, sizeof(d));
	d.cfg = &cfg;
	tg_job j;
	memset(&j, 0, sizeof(j));
	tg_pool_filter f;
	tg_job_ctx c;
	tg_job_ctx_init(&c, &d, 0);
	assert_int_equal(c.keyed, 0);
	assert_null(c.repo); /* a daemon of no repository: nothing borrowed past cfg */
	/* no signing key: every run pools with every run of its commit */
	assert_int_equal(tg_daemon_trusted_only(&d), 0);
	assert_int_equal(tg_daemon_pool_filter(&f, &c, &j), 1);
	assert_int_equal(f.trusted_only, 0);
	assert_int_equal(f.by_origin, 0);
	/* a key: a signed run pools signed runs */
	cfg.storage.signing_key.value = (char *)"k";
	assert_int_equal(tg_daemon_trusted_only(&d), 1);
	tg_job_ctx_init(&c, &d, 0);
	assert_int_equal(c.keyed, 1);
	assert_int_equal(c.trusted_only, 1);
	j.trusted = 1;
	assert_int_equal(tg_daemon_pool_filter(&f, &c, &j), 1);
	assert_int_equal(f.trusted_only, 1);
	assert_int_equal(f.by_origin, 0);
	/* an unsigned branch build: judged alone */
	j.trusted = 0;
	assert_int_equal(tg_daemon_pool_filter(&f, &c, &j), 0);
	/* an unsigned pull request's run: only with its confirmed CI run */
	j.pr = 9;
	assert_int_equal(tg_daemon_pool_filter(&f, &c, &j), 0);
	j.origin_ok = 1;
	j.origin = (char *)"4242";
	assert_int_equal(tg_daemon_pool_filter(&f, &c, &j), 1);
	assert_int_equal(f.by_origin, 1);
	assert_string_equal(f.origin, "4242");
	assert_int_equal(f.trusted_only, 0);
	/* a signed pull request's run pools signed runs */
	j.trusted = 1;
	assert_int_equal(tg_daemon_pool_filter(&f, &c, &j), 1);
	assert_int_equal(f.trusted_only, 1);
	assert_int_equal(f.by_origin, 0);
}

/* Runs that cannot be read leave the pool, recorded as tampered; the job's
 * own run never joins; the baseline lookups by trust. */
static void test_pool_runs(void **state)
{
	(void)state;
	char dir[4200];
	tg_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_traces = 32;
	cfg.max_pool_bytes = 1u << 20;
	tg_daemon d;
	memset(&d, 0, sizeof(d));
	d.cfg = &cfg;
	d.store = tg_test_sqlite_store(dir, sizeof(dir), "job-pool");
	tg_job_ctx ctx;
	tg_job_ctx_init(&ctx, &d, 0);
	int64_t me = done_run(d.store, 1, 1, 0, NULL, 0, "{}");
	int64_t a = done_run(d.store, 2, 1, 0, NULL, 0, "{}");
	int64_t b = done_run(d.store, 3, 0, 0, NULL, 0, "not json");
	int64_t c = done_run(d.store, 4, 1, 0, NULL, 0, "{}");
	tg_job j;
	tg_test_must(tg_store_job_get(&j, d.store, me));
	tg_side side;
	memset(&side, 0, sizeof(side));
	size_t added = 9, left = 9;
	tg_pool_filter f = {.trusted_only = 1};
	/* max 0: nothing is looked at */
	tg_test_must(tg_pool_runs(&side, &added, &left, &ctx, &j, &f, 0, cfg.max_pool_bytes));
	assert_int_equal(added, 0);
	assert_int_equal(left, 0);
	tg_job *l = NULL;
	size_t n = 0;
	tg_test_must(tg_store_find_pool(&l, &n, d.store, "acme/llm", SHA, "train", &f, 8));
	assert_int_equal(n, 3); /* the signed runs, the latest first */
	assert_int_equal(l[0].id, c);
	assert_int_equal(l[1].id, a);
	assert_int_equal(l[2].id, me);
	tg_store_jobs_free(l, n);
	/* the signed runs but j: their manifests cannot be read, left out */
	tg_test_must(tg_pool_runs(&side, &added, &left, &ctx, &j, &f, TG_POOL_MAX_RUNS - 1, cfg.max_pool_bytes));
	assert_int_equal(added, 0);
	assert_int_equal(left, 0);
	assert_int_equal(side.n, 0);
	tg_job t;
	tg_test_must(tg_store_job_get(&t, d.store, a));
	assert_non_null(t.tampered);
	assert_non_null(strstr(t.tampered, "acme/llm/" SHA "/train/ci-2/manifest.json"));
	tg_job_clear(&t);
	tg_test_must(tg_store_job_get(&t, d.store, c));
	assert_non_null(t.tampered);
	tg_job_clear(&t);
	tg_test_must(tg_store_job_get(&t, d.store, b));
	assert_null(t.tampered); /* unsigned: never looked at by a signed run's pool */
	tg_job_clear(&t);
	tg_test_must(tg_store_job_get(&t, d.store, me));
	assert_null(t.tampered); /* the judged run itself */
	tg_job_clear(&t);
	/* tampered runs are out of every pool from now on */
	tg_test_must(tg_store_find_pool(&l, &n, d.store, "acme/llm", SHA, "train", &f, 8));
	assert_int_equal(n, 1);
	assert_int_equal(l[0].id, me);
	tg_store_jobs_free(l, n);
	/* baseline candidates by trust, whatever the store's own state: the
	 * latest run (b, unsigned) only when untrusted ones count */
	tg_store_set_trusted_only(d.store, 1);
	tg_test_must(tg_store_find_run(&t, d.store, "acme/llm", SHA, "train", 0));
	assert_int_equal(t.id, c);
	tg_job_clear(&t);
	tg_store_set_trusted_only(d.store, 0);
	tg_test_must(tg_store_find_runs(&l, &n, d.store, "acme/llm", SHA, "train", 8, 1));
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(l[i].trusted, 1);
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_find_runs(&l, &n, d.store, "acme/llm", SHA, "train", 8, 0));
	assert_int_equal(n, 4);
	assert_int_equal(l[0].id, c);
	assert_int_equal(l[1].id, b);
	tg_store_jobs_free(l, n);
	tg_side_free(&side);
	tg_job_clear(&j);
	tg_store_close(d.store);
	tg_test_rm_tree(dir);
}

/* An unconfirmed pull request's run posts nothing over the verdicts of a
 * confirmed CI run at its head; without those it may post. */
static void test_origin_may_post(void **state)
{
	(void)state;
	char dir[4200], why[300];
	tg_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	tg_daemon d;
	memset(&d, 0, sizeof(d));
	d.cfg = &cfg;
	d.store = tg_test_sqlite_store(dir, sizeof(dir), "job-origin");
	tg_job_ctx c;
	tg_job_ctx_init(&c, &d, 0);
	tg_job j;
	memset(&j, 0, sizeof(j));
	j.repo = (char *)"acme/llm";
	j.commit = (char *)SHA;
	j.workload = (char *)"train";
	j.pr = 9;
	int ok = 0;
	tg_test_must(tg_daemon_origin_may_post(&ok, why, sizeof(why), &c, &j));
	assert_int_equal(ok, 1);
	done_run(d.store, 1, 0, 9, "4242", 1, "{}");
	tg_test_must(tg_daemon_origin_may_post(&ok, why, sizeof(why), &c, &j));
	assert_int_equal(ok, 0);
	assert_true(strlen(why) > 0);
	j.origin_ok = 1; /* its own CI run confirmed: it may */
	tg_test_must(tg_daemon_origin_may_post(&ok, why, sizeof(why), &c, &j));
	assert_int_equal(ok, 1);
	j.origin_ok = 0;
	j.pr = 0; /* not a pull request's run: not this rule's */
	tg_test_must(tg_daemon_origin_may_post(&ok, why, sizeof(why), &c, &j));
	assert_int_equal(ok, 1);
	tg_store_close(d.store);
	tg_test_rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_filter),
		cmocka_unit_test(test_pool_runs),
		cmocka_unit_test(test_origin_may_post),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
