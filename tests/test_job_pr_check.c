/* test_job_pr_check.c - whether a pull request's run may post, and what it
 * is judged against (daemon/pr_check.c): the forge (GitHub's API, served
 * by the scripted server of tests/mini_http.h on 127.0.0.1) says whether
 * the pull request is open and the run's commit its head, and the branch it
 * merges into replaces the manifest's; the outbox cannot tell and the
 * manifest's word stands; a forge that fails is an error to try again. */
#include "testutil.h"
#include "mini_http.h"

#include "../daemon/daemon_impl.h"

#define SHA "0123456789abcdef0123456789abcdef01234567"
#define OTHER "fedcba9876543210fedcba9876543210fedcba98"

/* A daemon of one repository, acme/llm, on forge f (borrowed). */
typedef struct one_repo {
	tg_config cfg;
	tg_config_forge forge;
	tg_config_repo repo;
	tg_forge *forges[1];
	tg_daemon d;
	tg_job_ctx c; /* the job's context of acme/llm */
} one_repo;

static void one_repo_init(one_repo *x, tg_forge *f)
{
	memset(x, 0, sizeof(*x));
	x->cfg.forges = &x->forge;
	x->cfg.nforges = 1;
	x->cfg.repos = &x->repo;
	x->cfg.nrepos = 1;
	x->repo.name = (char *)"acme/llm";
	x->repo.forge_ptr = &x->forge;
	x->forges[0] = f;
	x->d.cfg = &x->cfg;
	x->d.forges = x->forges;
	tg_job_ctx_init(&x->c, &x->d, 0);
}

static tg_forge *github(const char *api)
{
	tg_forge_opts o = {0};
	o.kind = TG_FORGE_GITHUB;
	o.name = "gh";
	o.api_url = api;
	o.token = "t0ken";
	o.http.max_attempts = 1;
	o.http.timeout_ms = 3000;
	tg_forge *f = NULL;
	if (tg_forge_new(&f, &o))
		fail_msg("tg_forge_new: %s", tg_error_last());
	return f;
}

static tg_job pr_job(int64_t pr, const char *target)
{
	tg_job j;
	memset(&j, 0, sizeof(j));
	j.id = 1;
	j.repo = (char *)"acme/llm";
	j.commit = (char *)SHA;
	j.pr = pr;
	j.target_branch = target ? strdup(target) : NULL;
	return j;
}

static const char *pr_json(char *buf, size_t cap, const char *state, const char *head, const char *base)
{
	snprintf(buf, cap,
	         "{\"number\":9,\"state\":\"%s\",\"head\":{\"sha\":\"%s\",\"ref\":\"feat\"},\"base\":{\"ref\":\"%s\"}}",
	         state, head, base);
	return buf;
}

/* Open, this commit its head: it may post, and is judged against the
 * branch the forge names. */
static void test_open_head(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char body[512], why[256];
	mh_push(&s, 200, "Content-Type: application/json\r\n", pr_json(body, sizeof(body), "open", SHA, "release"));
	one_repo x;
	one_repo_init(&x, github(s.base));
	tg_job j = pr_job(9, "main");
	int ok = 0;
	tg_test_must(tg_daemon_pr_check(&ok, why, sizeof(why), &x.c, &j));
	assert_int_equal(ok, 1);
	assert_string_equal(why, "");
	assert_string_equal(j.target_branch, "release"); /* the forge's word, not the manifest's */
	assert_int_equal(mh_nreqs(&s), 1);
	assert_string_equal(s.reqs[0].method, "GET");
	assert_string_equal(s.reqs[0].target, "/repos/acme/llm/pulls/9");
	/* not a pull request's run: nothing asked */
	tg_job b = pr_job(0, NULL);
	tg_test_must(tg_daemon_pr_check(&ok, why, sizeof(why), &x.c, &b));
	assert_int_equal(ok, 1);
	assert_null(b.target_branch);
	assert_int_equal(mh_nreqs(&s), 1);
	free(j.target_branch);
	tg_forge_free(x.forges[0]);
	mh_stop(&s);
}

/* Closed, another head, none: it may not post, saying why. */
static void test_may_not(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char body[512], why[256];
	mh_push(&s, 200, "Content-Type: application/json\r\n", pr_json(body, sizeof(body), "closed", SHA, "main"));
	mh_push(&s, 200, "Content-Type: application/json\r\n", pr_json(body, sizeof(body), "open", OTHER, "main"));
	mh_push(&s, 404, "Content-Type: application/json\r\n", "{\"message\":\"Not Found\"}");
	one_repo x;
	one_repo_init(&x, github(s.base));
	tg_job j = pr_job(9, "main");
	int ok = 1;
	tg_test_must(tg_daemon_pr_check(&ok, why, sizeof(why), &x.c, &j));
	assert_int_equal(ok, 0);
	assert_string_equal(why, "pull request 9 is not open");
	tg_test_must(tg_daemon_pr_check(&ok, why, sizeof(why), &x.c, &j));
	assert_int_equal(ok, 0);
	assert_string_equal(why, "commit 0123456789ab is not the head of pull request 9 (fedcba987654)");
	tg_test_must(tg_daemon_pr_check(&ok, why, sizeof(why), &x.c, &j));
	assert_int_equal(ok, 0);
	assert_string_equal(why, "acme/llm has no pull request 9");
	assert_string_equal(j.target_branch, "main");
	free(j.target_branch);
	tg_forge_free(x.forges[0]);
	mh_stop(&s);
}

/* A forge that fails: an error, the job tried again later. */
static void test_forge_fails(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char why[256];
	mh_push(&s, 500, NULL, "oops");
	one_repo x;
	one_repo_init(&x, github(s.base));
	tg_job j = pr_job(9, "main");
	int ok = 1;
	assert_int_not_equal(tg_daemon_pr_check(&ok, why, sizeof(why), &x.c, &j), 0);
	assert_string_equal(j.target_branch, "main");
	free(j.target_branch);
	tg_forge_free(x.forges[0]);
	mh_stop(&s);
}

/* The outbox cannot tell: the manifest's word stands. */
static void test_outbox(void **state)
{
	(void)state;
	char dir[4200], why[256];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%.4000s/tg-prcheck-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	tg_forge_opts o = {0};
	o.kind = TG_FORGE_OUTBOX;
	o.name = "out";
	o.outbox_dir = dir;
	tg_forge *f = NULL;
	tg_test_must(tg_forge_new(&f, &o));
	one_repo x;
	one_repo_init(&x, f);
	tg_job j = pr_job(9, "main");
	int ok = 0;
	tg_test_must(tg_daemon_pr_check(&ok, why, sizeof(why), &x.c, &j));
	assert_int_equal(ok, 1);
	assert_string_equal(j.target_branch, "main");
	free(j.target_branch);
	tg_forge_free(f);
	tg_test_rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_head),
		cmocka_unit_test(test_may_not),
		cmocka_unit_test(test_forge_fails),
		cmocka_unit_test(test_outbox),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
