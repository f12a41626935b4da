/* test_run_key.c - what makes a run one run (daemon/run_key.c) and which
 * new runs are let in (daemon/admit.c): the key ignores the case of the
 * commit and nothing but the five fields, and the limits count signed and
 * unsigned runs apart, in a real SQLite store. */
#include "storeutil.h"

#include "../daemon/daemon_impl.h"

#define SHA "0123456789abcdef0123456789abcdef01234567"

static void test_key(void **state)
{
	(void)state;
	char a[65], b[65];
	tg_daemon_run_key(a, "acme/llm", SHA, "train", "ci-1", NULL);
	assert_int_equal(strlen(a), 64);
	tg_daemon_run_key(b, "acme/llm", "0123456789ABCDEF0123456789ABCDEF01234567", "train", "ci-1", NULL);
	assert_string_equal(a, b); /* the commit in capitals: the same run */
	tg_daemon_run_key(b, "acme/llm", SHA, "train", "ci-1", "hmac-sha256:00");
	assert_string_not_equal(a, b); /* signed: another run than the unsigned one */
	tg_daemon_run_key(b, "acme/llm", SHA, "train", "ci-2", NULL);
	assert_string_not_equal(a, b);
	tg_daemon_run_key(b, "acme/llm", SHA, "Train", "ci-1", NULL);
	assert_string_not_equal(a, b); /* names keep their case */
	/* no two lists of fields give one text: the fields carry their length */
	tg_daemon_run_key(a, "acme/llm", SHA, "train", "ci-1x", NULL);
	tg_daemon_run_key(b, "acme/llm", SHA, "train", "ci-1", "x");
	assert_string_not_equal(a, b);
	tg_daemon_run_key(a, "acme/llm", SHA, "train", "ci-1", "");
	tg_daemon_run_key(b, "acme/llm", SHA, "train", "ci-1", NULL);
	assert_string_equal(a, b);
	/* a known value, so that the key cannot change unnoticed (stores keep it):
	 * sha256 of "tracegate.run-key/1\n8:acme/llm40:<sha>5:train4:ci-10:" */
	tg_daemon_run_key(a, "acme/llm", SHA, "train", "ci-1", NULL);
	assert_string_equal(a, "d9e74e6288f157f6a412076ad6be25e6ca6bec569873507afb674f820f2a606c");
}

/* Adds a run of workload at SHA (trusted or not, naming pull request pr
 * or none) as the scan would after tg_daemon_admit let it in. */
static int admit_and_add(tg_daemon *d, int i, const char *workload, int trusted, int64_t pr)
{
	tg_job j;
	memset(&j, 0, sizeof(j));
	char prefix[256], run_id[32];
	snprintf(run_id, sizeof(run_id), "r%d", i);
	snprintf(prefix, sizeof(prefix), "acme/llm/" SHA "/%s/%s", workload, run_id);
	tg_daemon_run_key(j.key, "acme/llm", SHA, workload, run_id, NULL);
	j.prefix = prefix;
	j.repo = (char *)"acme/llm";
	j.commit = (char *)SHA;
	j.branch = (char *)"main";
	j.workload = (char *)workload;
	j.run_id = run_id;
	j.manifest = (char *)"{}";
	j.trusted = trusted;
	j.pr = pr;
	int ok = -1;
	char why[256];
	tg_test_must(tg_daemon_admit(&ok, why, sizeof(why), d, &j));
	if (!ok) {
		print_message("refused: %s\n", why);
		return 0;
	}
	int64_t id;
	int created;
	tg_test_must(tg_store_job_add(&id, &created, d->store, &j));
	assert_int_equal(created, 1);
	return 1;
}

/* The attack of issue 21: sixteen unsigned workloads at a new main commit
 * before its CI uploads; the signed train run still gets in. */
static void test_admit(void **state)
{
	(void)state;
	char dir[4200];
	tg_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_workloads = 16;
	cfg.max_runs = 3;
	cfg.max_unsigned_branch_runs = 2;
	cfg.storage.signing_key.value = (char *)"k";
	tg_daemon d;
	memset(&d, 0, sizeof(d));
	d.cfg = &cfg;
	d.store = tg_test_sqlite_store(dir, sizeof(dir), "admit");
	int in = 0;
	for (int w = 0; w < 20; w++) {
		char name[16];
		snprintf(name, sizeof(name), "atk%02d", w);
		in += admit_and_add(&d, w, name, 0, 7);
	}
	assert_int_equal(in, 16); /* unsigned: 16 workloads */
	assert_int_equal(admit_and_add(&d, 100, "train", 1, 0), 1); /* signed: its own count */
	assert_int_equal(admit_and_add(&d, 101, "train", 1, 0), 1);
	assert_int_equal(admit_and_add(&d, 102, "train", 1, 0), 1);
	assert_int_equal(admit_and_add(&d, 103, "train", 1, 0), 0); /* max_runs: 3 signed runs of train */
	assert_int_equal(admit_and_add(&d, 104, "atk00", 0, 7), 1); /* a workload already in: runs count */
	assert_int_equal(admit_and_add(&d, 105, "atk00", 0, 7), 1);
	assert_int_equal(admit_and_add(&d, 106, "atk00", 0, 7), 0);
	/* unsigned runs naming no pull request: two at most, any workload */
	assert_int_equal(admit_and_add(&d, 107, "atk01", 0, 0), 1);
	assert_int_equal(admit_and_add(&d, 108, "atk02", 0, 0), 1);
	assert_int_equal(admit_and_add(&d, 109, "atk03", 0, 0), 0);
	/* without a signing key every run is trusted: one count */
	cfg.storage.signing_key.value = NULL;
	assert_int_equal(admit_and_add(&d, 110, "atk03", 0, 0), 1);
	tg_store_close(d.store);
	tg_test_rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_admit),
	};
	return cmocka_run_group_tests_name("run_key", tests, NULL, NULL);
}
