/* test_job_baseline.c - the baseline choice along a first-parent chain
 * (daemon/baseline.c: tg_daemon_baseline_nearest) in a real SQLite store:
 * the nearest commit with a done run of the workload that is not an
 * error, the latest of its runs, its distance from where the walk starts;
 * with a signing key trusted runs only; a nearer run still being judged
 * makes the job wait for it (TG_EAGAIN naming the job); none within the
 * chain is no baseline. */
#include "storeutil.h"

#include "../daemon/daemon_impl.h"

/* Adds run i of acme/llm's workload at commit chain c (its run_time i)
 * and takes it to state `to` with verdict (done only). Returns its id. */
static int64_t run_at(tg_store *s, int i, const char *commit, const char *workload, int trusted, tg_job_state to,
                      const char *verdict)
{
	tg_job j;
	memset(&j, 0, sizeof(j));
	char prefix[256], run_id[32];
	snprintf(j.key, sizeof(j.key), "%064x", 5000 + i);
	snprintf(run_id, sizeof(run_id), "ci-%d", i);
	snprintf(prefix, sizeof(prefix), "acme/llm/%s/%s/%s", commit, workload, run_id);
	j.prefix = prefix;
	j.repo = (char *)"acme/llm";
	j.commit = (char *)commit;
	j.branch = (char *)"main";
	j.workload = (char *)workload;
	j.run_id = run_id;
	j.manifest = (char *)"{}";
	j.run_time = 1700000000 + i;
	j.trusted = trusted;
	int64_t id = 0;
	int created;
	tg_test_must(tg_store_job_add(&id, &created, s, &j));
	if (to == TG_JOB_SEEN)
		return id;
	tg_job c;
	tg_test_must(tg_store_job_claim(&c, s, "w", 60));
	assert_int_equal(c.id, id);
	tg_job_clear(&c);
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL));
	if (to == TG_JOB_ANALYSING)
		return id;
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_ANALYSING, TG_JOB_POSTING, NULL));
	tg_job r;
	tg_test_must(tg_store_job_get(&r, s, id));
	free(r.verdict);
	r.verdict = strdup(verdict);
	tg_test_must(tg_store_job_set_result(s, id, &r));
	tg_job_clear(&r);
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_POSTING, TG_JOB_DONE, NULL));
	return id;
}

typedef struct fixture {
	char dir[4200];
	tg_config cfg;
	tg_daemon d;
	tg_job_ctx c;
	char chain[6][41];
	tg_job j; /* the run being judged (at chain[0], a build of main) */
} fixture;

static void fixture_init(fixture *x, int keyed)
{
	memset(x, 0, sizeof(*x));
	x->d.cfg = &x->cfg;
	x->cfg.storage.signing_key.value = keyed ? (char *)"k" : NULL;
	x->d.store = tg_test_sqlite_store(x->dir, sizeof(x->dir), "job-baseline");
	tg_job_ctx_init(&x->c, &x->d, 0);
	for (int i = 0; i < 6; i++)
		tg_test_commit_of(x->chain[i], 60 + i);
	x->j.id = 999999;
	x->j.repo = (char *)"acme/llm";
	x->j.commit = x->chain[0];
	x->j.workload = (char *)"train";
}

static void fixture_free(fixture *x)
{
	tg_store_close(x->d.store);
	tg_test_rm_tree(x->dir);
}

/* Nearest with a done run that is not an error; the latest of its runs. */
static void test_nearest(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x, 0);
	tg_job base;
	int found = -1, distance = 7;
	int64_t blocker = 0;
	const char(*chain)[41] = (const char(*)[41])x.chain;
	/* nothing yet: no baseline */
	tg_test_must(tg_daemon_baseline_nearest(&base, &found, &distance, &blocker, &x.c, &x.j, chain, 6, 1));
	assert_int_equal(found, 0);
	assert_int_equal(distance, -1);
	run_at(x.d.store, 1, x.chain[4], "train", 1, TG_JOB_DONE, "pass");
	run_at(x.d.store, 2, x.chain[2], "train", 0, TG_JOB_DONE, "error"); /* an error is no baseline */
	run_at(x.d.store, 3, x.chain[2], "infer", 0, TG_JOB_DONE, "pass");  /* another workload */
	run_at(x.d.store, 4, x.chain[3], "train", 0, TG_JOB_DONE, "warn");
	int64_t newest = run_at(x.d.store, 5, x.chain[3], "train", 1, TG_JOB_DONE, "block");
	memset(&base, 0, sizeof(base));
	tg_test_must(tg_daemon_baseline_nearest(&base, &found, &distance, &blocker, &x.c, &x.j, chain, 6, 1));
	assert_int_equal(found, 1);
	assert_int_equal(base.id, newest); /* the latest run of chain[3] */
	assert_string_equal(base.commit, x.chain[3]);
	assert_int_equal(distance, 2); /* chain[1] is 0 */
	tg_job_clear(&base);
	/* the walk from the merge-base itself (skip 0): the same run, one step further */
	tg_test_must(tg_daemon_baseline_nearest(&base, &found, &distance, &blocker, &x.c, &x.j, chain, 6, 0));
	assert_int_equal(base.id, newest);
	assert_int_equal(distance, 3);
	tg_job_clear(&base);
	/* a chain that ends before it: none */
	tg_test_must(tg_daemon_baseline_nearest(&base, &found, &distance, &blocker, &x.c, &x.j, chain, 3, 1));
	assert_int_equal(found, 0);
	assert_int_equal(blocker, 0);
	fixture_free(&x);
}

/* With a signing key: trusted runs only, however near an untrusted one. */
static void test_trusted_only(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x, 1);
	assert_int_equal(x.c.trusted_only, 1);
	const char(*chain)[41] = (const char(*)[41])x.chain;
	int64_t far = run_at(x.d.store, 1, x.chain[5], "train", 1, TG_JOB_DONE, "pass");
	run_at(x.d.store, 2, x.chain[1], "train", 0, TG_JOB_DONE, "pass");
	tg_job base;
	memset(&base, 0, sizeof(base));
	int found = 0, distance = 0;
	int64_t blocker = 0;
	tg_test_must(tg_daemon_baseline_nearest(&base, &found, &distance, &blocker, &x.c, &x.j, chain, 6, 1));
	assert_int_equal(found, 1);
	assert_int_equal(base.id, far);
	assert_int_equal(base.trusted, 1);
	assert_int_equal(distance, 4);
	tg_job_clear(&base);
	/* without the key the nearer, unsigned run */
	x.c.trusted_only = 0;
	tg_test_must(tg_daemon_baseline_nearest(&base, &found, &distance, &blocker, &x.c, &x.j, chain, 6, 1));
	assert_string_equal(base.commit, x.chain[1]);
	assert_int_equal(distance, 0);
	tg_job_clear(&base);
	fixture_free(&x);
}

/* A nearer run still being judged: wait for it, naming it; one farther
 * than a done run does not hold the job; the judged run itself is not
 * waited for. */
static void test_waits(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x, 0);
	const char(*chain)[41] = (const char(*)[41])x.chain;
	run_at(x.d.store, 1, x.chain[3], "train", 0, TG_JOB_DONE, "pass");
	int64_t open = run_at(x.d.store, 2, x.chain[2], "train", 0, TG_JOB_ANALYSING, NULL);
	run_at(x.d.store, 3, x.chain[5], "train", 0, TG_JOB_SEEN, NULL);
	tg_job base;
	memset(&base, 0, sizeof(base));
	int found = 0, distance = 0;
	int64_t blocker = 0;
	assert_int_equal(tg_daemon_baseline_nearest(&base, &found, &distance, &blocker, &x.c, &x.j, chain, 6, 1),
	                 TG_EAGAIN);
	assert_int_equal(found, 0);
	assert_int_equal(blocker, open);
	assert_non_null(strstr(tg_error_last(), "is not judged yet"));
	/* from chain[3] on: the done run there, the open one at chain[5] beyond it */
	blocker = 0;
	tg_test_must(tg_daemon_baseline_nearest(&base, &found, &distance, &blocker, &x.c, &x.j, chain, 6, 3));
	assert_int_equal(found, 1);
	assert_string_equal(base.commit, x.chain[3]);
	assert_int_equal(distance, 0);
	assert_int_equal(blocker, 0);
	tg_job_clear(&base);
	/* the judged run itself open at chain[2]: not waited for */
	x.j.id = open;
	tg_test_must(tg_daemon_baseline_nearest(&base, &found, &distance, &blocker, &x.c, &x.j, chain, 6, 1));
	assert_string_equal(base.commit, x.chain[3]);
	assert_int_equal(distance, 2);
	tg_job_clear(&base);
	fixture_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_trusted_only),
		cmocka_unit_test(test_waits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
