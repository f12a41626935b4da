/* test_config.c - the daemon's configuration (config/): every resolved
 * field of a full file, an S3 + PostgreSQL one and the defaults of a
 * minimal one; relative paths; durations and sizes; and that no message
 * ever holds a secret's value. Each error message with its exact
 * file:line:column is a fixture of tests/data/bad/config/ (test_bad_input.c). */
#include "testutil.h"

#include "../config/config.h"

#include <unistd.h>

#define FIX "tests/fixtures/config/"

/* The secrets the fixtures name; no message may ever contain them. */
#define GITHUB_TOKEN "ghp-env-secret-1234"
#define GIT_TOKEN "git-env-secret-5678"
#define AWS_KEY "AKIA-env-secret-0042"
#define PG_URL "postgres://tracegate:pw-secret-99@db.internal/tracegate"
#define GITLAB_FILE_TOKEN "glpat-file-secret-4711" /* secrets/gitlab-token */
#define S3_FILE_SECRET "s3-file-secret-0815"       /* secrets/s3-secret */

static int setup(void **state)
{
	(void)state;
	setenv("TG_TEST_GITHUB_TOKEN", GITHUB_TOKEN, 1);
	setenv("TG_TEST_GIT_TOKEN", GIT_TOKEN, 1);
	setenv("TG_TEST_AWS_KEY", AWS_KEY, 1);
	setenv("TG_TEST_PG_URL", PG_URL, 1);
	setenv("TG_TEST_EMPTY", "", 1);
	setenv("TG_TEST_TWO_LINES", "a\nb", 1);
	unsetenv("TG_TEST_UNSET_TOKEN");
	return 0;
}

/* The absolute folder of the fixtures, as the loader resolves it. */
static const char *fixdir(void)
{
	static char dir[4200];
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/config", cwd);
	return dir;
}

/* fixdir() + "/" + rel, in one of a few rotating buffers. */
static const char *fixpath(const char *rel)
{
	static char bufs[4][4400];
	static int k;
	char *b = bufs[k++ % 4];
	snprintf(b, sizeof(bufs[0]), "%s/%s", fixdir(), rel);
	return b;
}

static tg_config *must_load(const char *path)
{
	tg_config *c = NULL;
	if (tg_config_load_file(&c, path))
		fail_msg("%s", tg_error_last());
	assert_non_null(c);
	return c;
}

static tg_config *must_load_mem(const char *yaml, const char *dir)
{
	tg_config *c = NULL;
	if (tg_config_load_mem(&c, yaml, strlen(yaml), "m.yaml", dir))
		fail_msg("%s", tg_error_last());
	assert_non_null(c);
	return c;
}

static void assert_secret(const tg_config_secret *s, const char *env, const char *file, const char *value)
{
	if (env)
		assert_string_equal(s->env, env);
	else
		assert_null(s->env);
	if (file)
		assert_string_equal(s->file, file);
	else
		assert_null(s->file);
	if (value)
		assert_string_equal(s->value, value);
	else
		assert_null(s->value);
}

static void assert_strings(char **got, size_t n, const char *const *want, size_t nwant)
{
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(got[i], want[i]);
}

/* A minimal valid document with one section (or key) appended. */
#define MINIMAL                                                                                         \
	"storage:\n  local: /srv/artifacts\ndatabase:\n  sqlite: /var/lib/tg.db\nforges:\n  - name: out\n" \
	"    kind: outbox\n    outbox: /tmp/outbox\nrepositories:\n  - name: acme/llm\n    forge: out\n"   \
	"    clone_url: https://github.com/acme/llm.git\n"

/* ------------------------------------------------------------ full */

static void test_full(void **state)
{
	(void)state;
	tg_config *c = must_load(FIX "ok_full.yaml");
	assert_string_equal(c->path, FIX "ok_full.yaml");

	const tg_config_storage *s = &c->storage;
	assert_string_equal(s->local, fixpath("artifacts"));
	assert_null(s->s3_endpoint);
	assert_null(s->s3_bucket);
	assert_null(s->s3_prefix);
	assert_null(s->s3_region);
	assert_secret(&s->s3_access_key, NULL, NULL, NULL);
	assert_secret(&s->s3_secret_key, NULL, NULL, NULL);
	assert_int_equal(s->tls_verify, 1);
	assert_null(s->ca_file);
	assert_int_equal(s->poll_interval_ms, 2500);

	assert_string_equal(c->sqlite, fixpath("db/tracegate.db"));
	assert_secret(&c->postgresql, NULL, NULL, NULL);

	assert_int_equal(c->nforges, 4);
	const tg_config_forge *f = &c->forges[0];
	assert_string_equal(f->name, "github");
	assert_string_equal(f->kind, "github");
	assert_string_equal(f->api_url, "https://api.github.com");
	assert_secret(&f->token, "TG_TEST_GITHUB_TOKEN", NULL, GITHUB_TOKEN);
	assert_int_equal(f->check_runs, 1);
	assert_int_equal(f->tls_verify, 1);
	assert_null(f->ca_file);
	assert_null(f->outbox);
	assert_int_equal(f->line, 9);

	f = &c->forges[1];
	assert_string_equal(f->name, "gitlab.internal");
	assert_string_equal(f->kind, "gitlab");
	assert_string_equal(f->api_url, "https://gitlab.internal/api/v4");
	assert_secret(&f->token, NULL, fixpath("secrets/gitlab-token"), GITLAB_FILE_TOKEN);
	assert_int_equal(f->check_runs, 0);
	assert_int_equal(f->tls_verify, 0);
	assert_string_equal(f->ca_file, "/etc/ssl/internal-ca.pem");
	assert_null(f->outbox);
	assert_int_equal(f->line, 14);

	f = &c->forges[2];
	assert_string_equal(f->name, "codeberg");
	assert_string_equal(f->kind, "gitea"); /* forgejo is stored as gitea */
	assert_string_equal(f->api_url, "https://codeberg.org/api/v1");
	assert_secret(&f->token, "TG_TEST_GITHUB_TOKEN", NULL, GITHUB_TOKEN);
	assert_int_equal(f->tls_verify, 1);
	assert_string_equal(f->ca_file, fixpath("certs/ca.pem"));
	assert_int_equal(f->line, 21);

	f = &c->forges[3];
	assert_string_equal(f->name, "local-outbox");
	assert_string_equal(f->kind, "outbox");
	assert_null(f->api_url);
	assert_secret(&f->token, NULL, NULL, NULL);
	assert_int_equal(f->check_runs, 0);
	assert_null(f->ca_file);
	assert_string_equal(f->outbox, fixpath("outbox"));
	assert_int_equal(f->line, 26);

	assert_int_equal(c->nrepos, 3);
	const tg_config_repo *r = &c->repos[0];
	assert_string_equal(r->name, "acme/llm");
	assert_string_equal(r->forge, "github");
	assert_ptr_equal(r->forge_ptr, &c->forges[0]);
	assert_string_equal(r->clone_url, "https://github.com/acme/llm.git");
	assert_secret(&r->git_token, "TG_TEST_GIT_TOKEN", NULL, GIT_TOKEN);
	static const char *const branches[] = {"main", "release-1.x"};
	assert_strings(r->target_branches, r->ntarget_branches, branches, 2);
	assert_string_equal(r->rules, fixpath("rules/llm.yaml"));
	static const char *const workloads[] = {"llama-8b-train", "llama-8b-infer"};
	assert_strings(r->workloads, r->nworkloads, workloads, 2);
	assert_int_equal(r->baseline_depth, 200);
	assert_string_equal(r->status_context, "perf");
	assert_string_equal(r->details_url, "https://ci.example/tracegate/{repo}/{commit}/{workload}?run={run_id}");
	assert_int_equal(r->line, 30);
	/* on_unjudged per kind; the kinds not named stay pending */
	assert_int_equal(r->on_unjudged[TG_UNJUDGED_NO_BASELINE], TG_UNJUDGED_SUCCESS);
	assert_int_equal(r->on_unjudged[TG_UNJUDGED_BASELINE_UNUSABLE], TG_UNJUDGED_PENDING);
	assert_int_equal(r->on_unjudged[TG_UNJUDGED_NOT_COMPARABLE], TG_UNJUDGED_FAILURE);
	assert_int_equal(r->on_unjudged[TG_UNJUDGED_INCONCLUSIVE], TG_UNJUDGED_PENDING);
	assert_int_equal(r->on_unjudged[TG_UNJUDGED_WAITING], TG_UNJUDGED_PENDING);
	assert_string_equal(tg_config_unjudged_name(TG_UNJUDGED_BASELINE_UNUSABLE), "baseline_unusable");

	r = &c->repos[1];
	assert_string_equal(r->name, "platform/ml/kernels");
	assert_ptr_equal(r->forge_ptr, &c->forges[1]);
	assert_string_equal(r->clone_url, "git@gitlab.internal:platform/ml/kernels.git");
	assert_secret(&r->git_token, NULL, NULL, NULL);
	static const char *const main_only[] = {"main"};
	assert_strings(r->target_branches, r->ntarget_branches, main_only, 1);
	assert_null(r->rules);
	assert_null(r->workloads);
	assert_int_equal(r->nworkloads, 0);
	assert_int_equal(r->baseline_depth, 50);
	assert_int_equal(r->runs_per_commit, 1);
	assert_string_equal(r->status_context, "tracegate");
	assert_null(r->details_url);
	assert_int_equal(r->line, 43);
	for (int k = 0; k < TG_UNJUDGED_KINDS; k++) /* one word for every kind */
		assert_int_equal(r->on_unjudged[k], TG_UNJUDGED_SUCCESS);

	r = &c->repos[2];
	assert_string_equal(r->name, "Acme.Org/repo_2-x");
	assert_string_equal(r->forge, "local-outbox");
	assert_ptr_equal(r->forge_ptr, &c->forges[3]);
	assert_string_equal(r->clone_url, "/srv/git/repo_2-x.git"); /* a URL, never resolved */
	assert_int_equal(r->line, 47);

	assert_ptr_equal(tg_config_find_repo(c, "acme/llm"), &c->repos[0]);
	assert_ptr_equal(tg_config_find_repo(c, "platform/ml/kernels"), &c->repos[1]);
	assert_null(tg_config_find_repo(c, "acme/LLM"));
	assert_null(tg_config_find_repo(c, NULL));
	assert_null(tg_config_find_repo(NULL, "acme/llm"));

	assert_string_equal(c->state_dir, "/var/lib/tracegate");
	assert_string_equal(c->tmp_dir, fixpath("tmp")); /* relative to the file, like every path */
	assert_int_equal(c->lease_ms, 90000);
	assert_int_equal(c->max_attempts, 3);
	assert_int_equal(c->history_points, 50);
	assert_int_equal(c->job_timeout_ms, 90000);
	assert_true(c->job_memory == UINT64_C(2) << 30);

	assert_true(c->max_trace_bytes == UINT64_C(8) << 30);
	assert_int_equal(c->max_ratio, 500);
	assert_true(c->max_events == 500000000);
	assert_int_equal(c->max_string_bytes, 1 << 20);
	assert_int_equal(c->max_depth, 32);
	assert_true(c->max_manifest_bytes == 512 * 1024);
	assert_int_equal(c->max_traces, 128);
	assert_true(c->max_comment_bytes == 60000);
	assert_true(c->max_run_bytes == UINT64_C(40) << 30);
	assert_int_equal(c->max_workloads, 6);
	assert_int_equal(c->max_runs, 12);
	assert_int_equal(c->max_unsigned_branch_runs, 0);
	assert_int_equal(c->recheck_ms, 90000);
	assert_true(c->max_pool_bytes == UINT64_C(3000000000));

	assert_int_equal(c->http_timeout_ms, 60000);
	assert_int_equal(c->http_connect_timeout_ms, 5000);
	assert_int_equal(c->http_retries, 7);
	assert_int_equal(c->http_backoff_ms, 250);
	assert_int_equal(c->http_max_wait_ms, 120000);
	assert_int_equal(c->retention_runs_ms, INT64_C(180) * 86400000);
	assert_string_equal(c->log_level, "debug");
	tg_config_free(c);
	tg_config_free(NULL);
}

static void test_s3_postgresql(void **state)
{
	(void)state;
	tg_config *c = must_load(FIX "ok_s3.yaml");
	const tg_config_storage *s = &c->storage;
	assert_null(s->local);
	assert_string_equal(s->s3_endpoint, "https://s3.eu-west-1.amazonaws.com");
	assert_string_equal(s->s3_bucket, "ci-traces");
	assert_string_equal(s->s3_prefix, "runs/");
	assert_string_equal(s->s3_region, "eu-west-1");
	assert_secret(&s->s3_access_key, "TG_TEST_AWS_KEY", NULL, AWS_KEY);
	/* the file holds "s3-file-secret-0815\r\n\n": trailing newlines go */
	assert_secret(&s->s3_secret_key, NULL, fixpath("secrets/s3-secret"), S3_FILE_SECRET);
	assert_int_equal(s->tls_verify, 0);
	assert_string_equal(s->ca_file, "/etc/ssl/private-ca.pem");
	assert_int_equal(s->poll_interval_ms, 60000);
	assert_null(c->sqlite);
	assert_secret(&c->postgresql, "TG_TEST_PG_URL", NULL, PG_URL);
	assert_int_equal(c->nforges, 1);
	assert_string_equal(c->forges[0].kind, "gitlab");
	assert_int_equal(c->nrepos, 1);
	assert_string_equal(c->repos[0].name, "group/subgroup/project");
	assert_ptr_equal(c->repos[0].forge_ptr, &c->forges[0]);
	assert_int_equal(c->retention_runs_ms, 0);
	tg_config_free(c);

	/* S3 defaults: no prefix, us-east-1, TLS verified */
	c = must_load_mem("storage:\n  s3:\n    endpoint: http://127.0.0.1:4569\n    bucket: b\n"
	                  "    access_key: {env: TG_TEST_AWS_KEY}\n    secret_key: {env: TG_TEST_AWS_KEY}\n"
	                  "database: {postgresql: {env: TG_TEST_PG_URL}}\n"
	                  "forges: [{name: out, kind: outbox, outbox: o}]\n"
	                  "repositories: [{name: a/b, forge: out, clone_url: x}]\n",
	                  NULL);
	assert_string_equal(c->storage.s3_prefix, "");
	assert_string_equal(c->storage.s3_region, "us-east-1");
	assert_int_equal(c->storage.tls_verify, 1);
	assert_null(c->storage.ca_file);
	assert_int_equal(c->storage.poll_interval_ms, 10000);
	assert_string_equal(c->forges[0].outbox, "o"); /* no folder given: as written */
	tg_config_free(c);
}

/* ------------------------------------------------------------ defaults */

static void assert_defaults(const tg_config *c)
{
	assert_int_equal(c->storage.tls_verify, 1);
	assert_null(c->storage.ca_file);
	assert_int_equal(c->storage.poll_interval_ms, 10000);
	assert_int_equal(c->lease_ms, 600000);
	assert_int_equal(c->max_attempts, 5);
	assert_int_equal(c->history_points, 20);
	assert_true(c->max_trace_bytes == UINT64_C(4) << 30); /* issue 14: was 64 GiB */
	assert_int_equal(c->max_ratio, 200);
	assert_true(c->max_events == 0);
	assert_int_equal(c->max_string_bytes, 16 << 20); /* the reader's defaults */
	assert_int_equal(c->max_depth, 64);
	assert_true(c->max_manifest_bytes == 1 << 20);
	assert_int_equal(c->max_traces, 32); /* was 64 */
	assert_true(c->max_comment_bytes == 65000);
	assert_true(c->max_run_bytes == UINT64_C(16) << 30);
	assert_int_equal(c->max_workloads, 16);
	assert_int_equal(c->max_runs, 32);
	assert_int_equal(c->max_unsigned_branch_runs, 4);
	assert_int_equal(c->recheck_ms, 300000);
	assert_true(c->max_pool_bytes == UINT64_C(16) << 30);
	assert_int_equal(c->job_timeout_ms, 600000);
	assert_true(c->job_memory == UINT64_C(4) << 30);
	assert_int_equal(c->http_timeout_ms, 30000);
	assert_int_equal(c->http_connect_timeout_ms, 10000);
	assert_int_equal(c->http_retries, 5);
	assert_int_equal(c->http_backoff_ms, 500);
	assert_int_equal(c->http_max_wait_ms, 60000);
	assert_int_equal(c->retention_runs_ms, 0);
	assert_string_equal(c->log_level, "info");
	const tg_config_repo *r = &c->repos[0];
	assert_secret(&r->git_token, NULL, NULL, NULL);
	assert_int_equal(r->ntarget_branches, 1);
	assert_string_equal(r->target_branches[0], "main");
	assert_null(r->rules);
	assert_null(r->workloads);
	assert_int_equal(r->nworkloads, 0);
	assert_int_equal(r->baseline_depth, 50);
	assert_string_equal(r->status_context, "tracegate");
	assert_null(r->details_url);
	for (int k = 0; k < TG_UNJUDGED_KINDS; k++) /* fail closed: nothing unjudged is a success */
		assert_int_equal(r->on_unjudged[k], TG_UNJUDGED_PENDING);
}

static void test_minimal(void **state)
{
	(void)state;
	tg_config *c = must_load(FIX "ok_minimal.yaml");
	assert_string_equal(c->storage.local, "/srv/artifacts");
	assert_string_equal(c->sqlite, "/var/lib/tracegate/tracegate.db");
	assert_int_equal(c->nforges, 1);
	assert_string_equal(c->forges[0].kind, "outbox");
	assert_string_equal(c->forges[0].outbox, "/var/lib/tracegate/outbox");
	assert_int_equal(c->forges[0].tls_verify, 1);
	assert_int_equal(c->nrepos, 1);
	assert_ptr_equal(c->repos[0].forge_ptr, &c->forges[0]);
	/* the default state_dir is relative, so it is resolved like a written one */
	assert_string_equal(c->state_dir, fixpath("tracegate-state"));
	assert_string_equal(c->tmp_dir, fixpath("tracegate-state/tmp"));
	assert_defaults(c);
	tg_config_free(c);

	/* from memory without a folder: relative paths stay as written */
	c = must_load_mem(MINIMAL, NULL);
	assert_string_equal(c->path, "m.yaml");
	assert_string_equal(c->state_dir, "tracegate-state");
	assert_string_equal(c->tmp_dir, "tracegate-state/tmp");
	assert_defaults(c);
	tg_config_free(c);

	/* empty optional sections are their defaults */
	c = must_load_mem(MINIMAL "daemon: {}\nlimits:\nhttp: ~\nretention: {}\nlog: {}\n", "/etc/tg");
	assert_string_equal(c->state_dir, "/etc/tg/tracegate-state");
	assert_string_equal(c->tmp_dir, "/etc/tg/tracegate-state/tmp");
	assert_defaults(c);
	tg_config_free(c);

	/* tmp_dir follows state_dir */
	c = must_load_mem(MINIMAL "daemon:\n  state_dir: /var/lib/tg/\n", "/etc/tg");
	assert_string_equal(c->state_dir, "/var/lib/tg/");
	assert_string_equal(c->tmp_dir, "/var/lib/tg/tmp");
	tg_config_free(c);

	/* a NULL name */
	c = NULL;
	assert_int_equal(tg_config_load_mem(&c, MINIMAL, strlen(MINIMAL), NULL, NULL), 0);
	assert_string_equal(c->path, "<config>");
	tg_config_free(c);
}

/* ------------------------------------------------------------ paths */

static void test_paths(void **state)
{
	(void)state;
	static const struct {
		const char *written, *dir, *want;
	} cases[] = {
		{"state", "/etc/tg", "/etc/tg/state"},
		{"./state", "/etc/tg", "/etc/tg/state"},
		{".//./state/x", "/etc/tg", "/etc/tg/state/x"},
		{".", "/etc/tg", "/etc/tg"},
		{"./", "/etc/tg", "/etc/tg"},
		{"../state", "/etc/tg", "/etc/tg/../state"},
		{"state", "/etc/tg/", "/etc/tg/state"},
		{"state", "/", "/state"},
		{"/abs/state", "/etc/tg", "/abs/state"},
		{"~/state", "/etc/tg", "/etc/tg/~/state"}, /* no tilde expansion */
		{"state", NULL, "state"},
		{"./state", NULL, "./state"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char y[1024];
		snprintf(y, sizeof(y), MINIMAL "daemon:\n  state_dir: \"%s\"\n", cases[i].written);
		tg_config *c = must_load_mem(y, cases[i].dir);
		if (strcmp(c->state_dir, cases[i].want))
			fail_msg("case %zu: '%s' in %s: '%s', want '%s'", i, cases[i].written,
			         cases[i].dir ? cases[i].dir : "NULL", c->state_dir, cases[i].want);
		tg_config_free(c);
	}

	/* a file given without a folder, and one by an absolute path */
	char cwd[4096], abs[4400];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(abs, sizeof(abs), "%s/" FIX "ok_full.yaml", cwd);
	tg_config *c = must_load(abs);
	assert_string_equal(c->path, abs);
	assert_string_equal(c->storage.local, fixpath("artifacts"));
	tg_config_free(c);
	assert_int_equal(chdir(FIX), 0);
	c = NULL;
	int rc = tg_config_load_file(&c, "ok_full.yaml");
	assert_int_equal(chdir(cwd), 0);
	if (rc)
		fail_msg("%s", tg_error_last());
	assert_string_equal(c->path, "ok_full.yaml");
	assert_string_equal(c->storage.local, fixpath("artifacts"));
	assert_string_equal(c->forges[1].token.value, GITLAB_FILE_TOKEN);
	tg_config_free(c);
}

/* ------------------------------------------------------------ values */

static void test_durations(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int64_t ms;
	} ok[] = {
		{"10s", 10000},       {"1.5h", 5400000},   {"250ms", 250},          {"0", 0},
		{"0s", 0},            {"0.0", 0},          {"00", 0},               {"10m", 600000},
		{"180d", 15552000000}, {"1 s", 1000},       {".5s", 500},            {"2.50s", 2500},
		{"0.001s", 1},        {"1.000000000000s", 1000}, {"1.25m", 75000},  {"36h", 129600000},
		{"9223372036854775807ms", INT64_MAX},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int64_t ms = -1;
		if (tg_config_parse_duration(&ms, ok[i].s))
			fail_msg("'%s': %s", ok[i].s, tg_error_last());
		if (ms != ok[i].ms)
			fail_msg("'%s': %lld ms, want %lld", ok[i].s, (long long)ms, (long long)ok[i].ms);
	}
	static const struct {
		const char *s, *msg;
	} bad[] = {
		{"10", "'10' needs a unit (ms, s, m, h or d), e.g. 10s"},
		{"0.5", "'0.5' needs a unit (ms, s, m, h or d), e.g. 10s"},
		{"10 sec", "'10 sec' has an unknown unit (expected ms, s, m, h or d)"},
		{"10S", "'10S' has an unknown unit (expected ms, s, m, h or d)"},
		{"10us", "'10us' has an unknown unit (expected ms, s, m, h or d)"},
		{"1h30m", "'1h30m' has an unknown unit (expected ms, s, m, h or d)"},
		{"1e3s", "'1e3s' has an unknown unit (expected ms, s, m, h or d)"},
		{"-1s", "'-1s' must not be negative"},
		{"-.5s", "'-.5s' must not be negative"},
		{"s", "'s' is not a duration (write 10s, 1.5h or 250ms)"},
		{"", "'' is not a duration (write 10s, 1.5h or 250ms)"},
		{"+1s", "'+1s' is not a duration (write 10s, 1.5h or 250ms)"},
		{".", "'.' is not a duration (write 10s, 1.5h or 250ms)"},
		{" 1s", "' 1s' is not a duration (write 10s, 1.5h or 250ms)"},
		{"0.5ms", "'0.5ms' is not a whole number of milliseconds"},
		{"1.0001s", "'1.0001s' is not a whole number of milliseconds"},
		{"1.0000000001s", "'1.0000000001s' has too many decimals"},
		{"9223372036854775808ms", "'9223372036854775808ms' is too large"},
		{"106751991167301d", "'106751991167301d' is too large"},
		{"99999999999999999999999s", "'99999999999999999999999s' is too large"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t ms = -7;
		int rc = tg_config_parse_duration(&ms, bad[i].s);
		if (rc != TG_EINVAL || ms != -7 || strcmp(tg_error_last(), bad[i].msg))
			fail_msg("'%s': rc %d, %lld ms, '%s', want '%s'", bad[i].s, rc, (long long)ms, tg_error_last(),
			         bad[i].msg);
	}
	int64_t ms;
	assert_int_equal(tg_config_parse_duration(NULL, "1s"), TG_EINVAL);
	assert_int_equal(tg_config_parse_duration(&ms, NULL), TG_EINVAL);
}

static void test_sizes(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		uint64_t bytes;
	} ok[] = {
		{"512MiB", UINT64_C(512) << 20}, {"1GB", 1000000000}, {"4096", 4096},     {"0", 0},
		{"100B", 100},                   {"3 KB", 3000},      {"4MB", 4000000},   {"1.5KiB", 1536},
		{"64GiB", UINT64_C(64) << 30},   {"1KiB", 1024},      {"0.5MiB", 524288}, {"2.5GB", 2500000000},
		{"18446744073709551615", UINT64_MAX},                 {"0B", 0},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t b = 7;
		if (tg_config_parse_size(&b, ok[i].s))
			fail_msg("'%s': %s", ok[i].s, tg_error_last());
		if (b != ok[i].bytes)
			fail_msg("'%s': %llu bytes, want %llu", ok[i].s, (unsigned long long)b,
			         (unsigned long long)ok[i].bytes);
	}
	static const struct {
		const char *s, *msg;
	} bad[] = {
		{"8gb", "'8gb' has an unknown unit (expected B, KB, MB, GB, KiB, MiB or GiB)"},
		{"1TB", "'1TB' has an unknown unit (expected B, KB, MB, GB, KiB, MiB or GiB)"},
		{"1 MiB/s", "'1 MiB/s' has an unknown unit (expected B, KB, MB, GB, KiB, MiB or GiB)"},
		{"-1MiB", "'-1MiB' must not be negative"},
		{"MiB", "'MiB' is not a size (write 512MiB, 1GB or 4096)"},
		{"", "'' is not a size (write 512MiB, 1GB or 4096)"},
		{"1.5", "'1.5' is not a whole number of bytes"},
		{"1.1KiB", "'1.1KiB' is not a whole number of bytes"},
		{"18446744073709551616", "'18446744073709551616' is too large"},
		{"17179869184GiB", "'17179869184GiB' is too large"},
		{"0.0000000001GB", "'0.0000000001GB' has too many decimals"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t b = 7;
		int rc = tg_config_parse_size(&b, bad[i].s);
		if (rc != TG_EINVAL || b != 7 || strcmp(tg_error_last(), bad[i].msg))
			fail_msg("'%s': rc %d, '%s', want '%s'", bad[i].s, rc, tg_error_last(), bad[i].msg);
	}
	uint64_t b;
	assert_int_equal(tg_config_parse_size(NULL, "1"), TG_EINVAL);
	assert_int_equal(tg_config_parse_size(&b, NULL), TG_EINVAL);
}

static void test_bools(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		int want;
	} cases[] = {{"true", 1}, {"yes", 1}, {"True", 1}, {"YES", 1}, {"\"true\"", 1},
	             {"false", 0}, {"no", 0},  {"No", 0},   {"FALSE", 0}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char y[1024];
		snprintf(y, sizeof(y),
		         "storage: {local: /a}\ndatabase: {sqlite: /b}\nforges:\n  - name: gh\n    kind: github\n"
		         "    api_url: https://api.github.com\n    token: {env: TG_TEST_GITHUB_TOKEN}\n"
		         "    check_runs: %s\n    tls_verify: %s\nrepositories: [{name: a/b, forge: gh, clone_url: x}]\n",
		         cases[i].v, cases[i].v);
		tg_config *c = must_load_mem(y, NULL);
		assert_int_equal(c->nforges, 1);
		assert_int_equal(c->forges[0].check_runs, cases[i].want);
		assert_int_equal(c->forges[0].tls_verify, cases[i].want);
		tg_config_free(c);
	}
}

/* ------------------------------------------------------------ errors */

/* Every error message of a configuration file, with its exact file:line:column,
 * is a fixture of tests/data/bad/config/ run by tests/test_bad_input.c. */

#define ST "storage: {local: /a}\n"
#define DB "database: {sqlite: /b}\n"
#define FG "forges: [{name: gh, kind: github, api_url: \"https://x\", token: {env: TG_TEST_GITHUB_TOKEN}}]\n"
#define RP "repositories: [{name: a/b, forge: gh, clone_url: x}]\n"
#define OK ST DB FG RP
/* One repository named n. */
#define NAMED(n) ST DB FG "repositories: [{forge: gh, clone_url: x, name: " n "}]\n"
/* One github forge with extra keys (a string that ends the flow mapping). */
#define FORGE(extra) ST DB "forges: [{name: gh, kind: github, api_url: \"https://x\", " extra "}]\n" RP
#define REPO(extra) ST DB FG "repositories: [{name: a/b, forge: gh, clone_url: x, " extra "}]\n"

/* http:// forge URLs only to a loopback host (the token would go in clear). */
static void test_http_loopback_only(void **state)
{
	(void)state;
	static const char *const ok[] = {"http://127.0.0.1:8080/api", "http://127.1.2.3", "http://localhost:3000",
	                                 "http://[::1]:9000/", "https://git.example.com"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char yaml[512];
		snprintf(yaml, sizeof(yaml),
		         ST DB "forges: [{name: gh, kind: github, api_url: \"%s\", token: {env: TG_TEST_GITHUB_TOKEN}}]\n" RP,
		         ok[i]);
		tg_config *c = must_load_mem(yaml, NULL);
		assert_string_equal(c->forges[0].api_url, ok[i]);
		tg_config_free(c);
	}
}

/* Inline YAML that loads, through tg_config_load_mem (what does not load is
 * in tests/data/bad/config/). */
static void test_loads_mem(void **state)
{
	(void)state;
	/* inputs that load */
	static const char *const ok[] = {
		OK,
		"---\n" OK "...\n",             /* explicit markers */
		NAMED("a/b/c/d"),               /* GitLab subgroups */
		REPO("target_branches: [\"release/1.x\", main]"),
		REPO("details_url: \"https://ci/{run_id}/{repo}\""),
		FORGE("token: {env: TG_TEST_GITHUB_TOKEN}, check_runs: no"),
		ST DB FG "repositories: &r [{name: a/b, forge: gh, clone_url: x}]\n", /* anchors are fine */
		OK "retention: {runs: 0}\nlimits: {max_events: 0}\n",
		OK "limits: {max_string_bytes: 4294967295, max_depth: 4}\n", /* both ends of the ranges */
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		tg_config *c = NULL;
		if (tg_config_load_mem(&c, ok[i], strlen(ok[i]), "m.yaml", NULL))
			fail_msg("ok case %zu: %s", i, tg_error_last());
		assert_int_equal(c->nforges, 1);
		assert_int_equal(c->nrepos, 1);
		tg_config_free(c);
	}
}

/* Files that cannot be read, bad arguments, secret files of every sort. */
static void test_io(void **state)
{
	(void)state;
	tg_config *c = (tg_config *)1;
	assert_int_equal(tg_config_load_file(&c, FIX "no_such_file.yaml"), TG_EIO);
	assert_null(c);
	assert_string_equal(tg_error_last(), FIX "no_such_file.yaml: cannot open: No such file or directory");
	assert_int_equal(tg_config_load_file(&c, FIX), TG_EIO);
	assert_string_equal(tg_error_last(), FIX ": cannot read: Is a directory");
	assert_int_equal(tg_config_load_file(NULL, FIX "ok_full.yaml"), TG_EINVAL);
	assert_int_equal(tg_config_load_file(&c, NULL), TG_EINVAL);
	assert_int_equal(tg_config_load_mem(NULL, "", 0, "x", NULL), TG_EINVAL);
	assert_int_equal(tg_config_load_mem(&c, NULL, 3, "x", NULL), TG_EINVAL);
	assert_int_equal(tg_config_load_mem(&c, NULL, 0, NULL, NULL), TG_EFORMAT);
	assert_null(c);
	assert_string_equal(tg_error_last(),
	                    "<config>:1:1: empty configuration (expected storage, database, forges, repositories)");

	/* secret files: owner-only, only a newline, a FIFO (never waited on), too large */
	char dir[] = "/tmp/tg-config-test-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256], y[1024];
	static const struct {
		const char *name, *content;
		int mode;
		const char *want; /* the value, or the message after "m.yaml:1:N: forges[0].token: " */
	} files[] = {
		{"owner-only", "tok-0600\n", 0600, "tok-0600"},
		{"group-readable", "tok-0644", 0644, "tok-0644"},
		{"newline", "\n", 0600, "secret file %s is empty"},
		{"nul", "a\0b", 0600, "secret file %s contains a NUL byte"},
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		size_t len = strlen(files[i].content) + (strstr(files[i].name, "nul") ? 2 : 0);
		assert_int_equal(fwrite(files[i].content, 1, len, f), len);
		fclose(f);
		assert_int_equal(chmod(path, (mode_t)files[i].mode), 0);
		snprintf(y, sizeof(y), FORGE("token: {file: \"%s\"}"), path);
		c = NULL;
		int rc = tg_config_load_mem(&c, y, strlen(y), "m.yaml", NULL);
		if (!strchr(files[i].want, ' ')) {
			if (rc)
				fail_msg("%s: %s", files[i].name, tg_error_last());
			assert_string_equal(c->forges[0].token.value, files[i].want);
			assert_string_equal(c->forges[0].token.file, path);
			tg_config_free(c);
		} else {
			char what[512], want[700];
			snprintf(what, sizeof(what), files[i].want, path);
			snprintf(want, sizeof(want), ": forges[0].token: %s", what);
			assert_int_equal(rc, TG_EIO);
			assert_null(c);
			size_t lm = strlen(tg_error_last()), lw = strlen(want);
			if (lm < lw || strcmp(tg_error_last() + lm - lw, want))
				fail_msg("%s: '%s', want '...%s'", files[i].name, tg_error_last(), want);
		}
		unlink(path);
	}

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(y, sizeof(y), FORGE("token: {file: \"%s\"}"), path);
	assert_int_equal(tg_config_load_mem(&c, y, strlen(y), "m.yaml", NULL), TG_EIO);
	assert_non_null(strstr(tg_error_last(), "/fifo is not a regular file"));
	unlink(path);

	snprintf(path, sizeof(path), "%s/big", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	for (int i = 0; i < 64 * 1024 + 1; i++)
		fputc('x', f);
	fclose(f);
	snprintf(y, sizeof(y), FORGE("token: {file: \"%s\"}"), path);
	assert_int_equal(tg_config_load_mem(&c, y, strlen(y), "m.yaml", NULL), TG_EIO);
	assert_non_null(strstr(tg_error_last(), "/big is larger than 64 KiB"));
	assert_int_equal(truncate(path, 64 * 1024), 0);
	c = NULL;
	assert_int_equal(tg_config_load_mem(&c, y, strlen(y), "m.yaml", NULL), 0);
	assert_int_equal(strlen(c->forges[0].token.value), 64 * 1024);
	tg_config_free(c);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

/* ------------------------------------------------------------ secrets stay secret */

/* Fails when msg holds one of the secrets. */
static void assert_no_secret(const char *what, const char *msg)
{
	static const char *const secrets[] = {
		GITHUB_TOKEN, GIT_TOKEN, AWS_KEY, PG_URL, "pw-secret-99", GITLAB_FILE_TOKEN, S3_FILE_SECRET,
		/* written in the file by mistake */
		"ghp_plainTextTokenInTheFile42", "hunter2", "ghp_notreallyatoken123", "glpat-xxxx", "line-one",
		"line-two", "AKIAPLAINKEY", "plain-secret-key", "plain-git-token", "hunter3",
	};
	for (size_t i = 0; i < sizeof(secrets) / sizeof(secrets[0]); i++)
		if (strstr(msg, secrets[i]))
			fail_msg("%s: the message holds the secret '%s': %s", what, secrets[i], msg);
}

static void test_secrets_never_in_messages(void **state)
{
	(void)state;
	/* every bad fixture */
	FILE *ls = popen("ls tests/data/bad/config/*.yaml", "r");
	assert_non_null(ls);
	char path[512];
	int n = 0;
	while (fgets(path, sizeof(path), ls)) {
		path[strcspn(path, "\n")] = 0;
		tg_config *c = NULL;
		assert_int_not_equal(tg_config_load_file(&c, path), 0);
		assert_no_secret(path, tg_error_last());
		n++;
	}
	pclose(ls);
	assert_true(n >= 30);

	/* a plain string in every secret key: refused, never repeated */
	static const struct {
		const char *yaml, *key;
	} plain[] = {
		{"storage:\n  s3:\n    endpoint: https://s3\n    bucket: b\n    access_key: AKIAPLAINKEY\n"
		 "    secret_key: {env: TG_TEST_AWS_KEY}\n" DB FG RP,
		 "storage.s3.access_key"},
		{"storage:\n  s3:\n    endpoint: https://s3\n    bucket: b\n    access_key: {env: TG_TEST_AWS_KEY}\n"
		 "    secret_key: \"plain-secret-key\"\n" DB FG RP,
		 "storage.s3.secret_key"},
		{ST "database:\n  postgresql: 'postgresql://u:hunter3@h/db'\n" FG RP, "database.postgresql"},
		{FORGE("token: ghp_plainTextTokenInTheFile42"), "forges[0].token"},
		{REPO("git_token: plain-git-token"), "repositories[0].git_token"},
		{ST DB FG "repositories:\n  - name: a/b\n    forge: gh\n    clone_url: x\n    git_token: |\n      plain-git-token\n",
		 "repositories[0].git_token"},
	};
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		tg_config *c = NULL;
		assert_int_equal(tg_config_load_mem(&c, plain[i].yaml, strlen(plain[i].yaml), "m.yaml", NULL), TG_EFORMAT);
		assert_no_secret(plain[i].key, tg_error_last());
		char want[256];
		snprintf(want, sizeof(want),
		         "%s: a secret is never written in the configuration: use {env: NAME} or {file: PATH}", plain[i].key);
		if (!strstr(tg_error_last(), want))
			fail_msg("%s: '%s'", plain[i].key, tg_error_last());
	}

	/* secrets read, then an error later in the file */
	static const char *const later[] = {
		FORGE("token: {env: TG_TEST_GITHUB_TOKEN}, tls_verify: maybe"),
		REPO("git_token: {env: TG_TEST_GIT_TOKEN}, baseline_depth: -1"),
	};
	for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++) {
		tg_config *c = NULL;
		assert_int_equal(tg_config_load_mem(&c, later[i], strlen(later[i]), "m.yaml", NULL), TG_EFORMAT);
		assert_no_secret("later", tg_error_last());
	}
}

/* ------------------------------------------------------------ trust */

/* storage.signing_key, ci_url_prefixes and accept_trailers (docs/security.md). */
static void test_trust_keys(void **state)
{
	(void)state;
	setenv("TG_TEST_GITHUB_TOKEN", "t", 1);
	setenv("TG_TEST_SIGNING_KEY", "k e y", 1);
	const char y[] = "storage: {local: /a, signing_key: {env: TG_TEST_SIGNING_KEY}}\n" DB FG
	                 "repositories: [{name: a/b, forge: gh, clone_url: x, ci_url_prefixes: "
	                 "[\"https://ci.example/jobs/\", \"https://gh.example/a/b/actions/\"], accept_trailers: true}]\n";
	tg_config *c = NULL;
	if (tg_config_load_mem(&c, y, strlen(y), "m.yaml", NULL))
		fail_msg("%s", tg_error_last());
	assert_string_equal(c->storage.signing_key.value, "k e y");
	assert_int_equal(c->repos[0].nci_url_prefixes, 2);
	assert_string_equal(c->repos[0].ci_url_prefixes[1], "https://gh.example/a/b/actions/");
	assert_int_equal(c->repos[0].accept_trailers, 1);
	tg_config_free(c);
	/* the defaults: no key, no prefix, trailers off */
	const char d[] = OK;
	assert_int_equal(tg_config_load_mem(&c, d, strlen(d), "m.yaml", NULL), 0);
	assert_null(c->storage.signing_key.value);
	assert_int_equal(c->repos[0].nci_url_prefixes, 0);
	assert_int_equal(c->repos[0].accept_trailers, 0);
	tg_config_free(c);
	unsetenv("TG_TEST_SIGNING_KEY");
}

/* ------------------------------------------------------------ documentation */

/* Every YAML example of docs/config.md loads (secret files from the fixtures). */
/* TG_CONFIG_DATABASE_ONLY (tracegate history): the S3 keys and forge
 * tokens are checked for their form and not read, so unset variables and
 * missing files pass; the database's secret is still read. */
static void test_database_only(void **state)
{
	(void)state;
	char dir[] = "/tmp/tg-config-dbonly-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/t.yaml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "storage:\n"
	           "  s3: {endpoint: \"https://s3.example\", bucket: b, region: r,\n"
	           "       access_key: {env: TG_T_UNSET_A}, secret_key: {file: %s/missing}}\n"
	           "database:\n"
	           "  postgresql: {env: TG_T_DB}\n"
	           "forges:\n"
	           "  - {name: gh, kind: github, api_url: \"https://api.github.com\", token: {env: TG_T_UNSET_B}}\n"
	           "repositories:\n"
	           "  - {name: acme/llm, forge: gh, clone_url: \"https://github.com/acme/llm.git\",\n"
	           "     git_token: {env: TG_T_UNSET_B}}\n",
	           dir);
	fclose(f);
	unsetenv("TG_T_UNSET_A");
	unsetenv("TG_T_UNSET_B");
	setenv("TG_T_DB", "postgresql://tg@db/tg", 1);
	tg_config *c = NULL;
	/* every secret read: the four that cannot be are named at once, in the
	 * file's order, each at its line:column (one run tells them all) */
	assert_int_equal(tg_config_load_file(&c, path), TG_EINVAL);
	assert_null(c);
	char want[1200];
	snprintf(want, sizeof(want),
	         "%s: 4 secrets cannot be read: 3:26: storage.s3.access_key: environment variable TG_T_UNSET_A is not "
	         "set; 3:60: storage.s3.secret_key: cannot read secret file %s/missing: No such file or directory; "
	         "7:78: forges[0].token: environment variable TG_T_UNSET_B is not set; 10:23: "
	         "repositories[0].git_token: environment variable TG_T_UNSET_B is not set",
	         path, dir);
	assert_string_equal(tg_error_last(), want);
	/* one alone: exactly what it said before, file:line:column first */
	setenv("TG_T_UNSET_B", "tok", 1);
	char sf[300];
	snprintf(sf, sizeof(sf), "%s/missing", dir);
	f = fopen(sf, "w");
	assert_non_null(f);
	fputs("s3-secret\n", f);
	fclose(f);
	assert_int_equal(tg_config_load_file(&c, path), TG_EINVAL);
	snprintf(want, sizeof(want), "%s:3:26: storage.s3.access_key: environment variable TG_T_UNSET_A is not set",
	         path);
	assert_string_equal(tg_error_last(), want);
	/* an error of the file itself comes before the secrets */
	static const char both[] = "storage: {local: x, signing_key: {env: TG_T_UNSET_A}}\nbogus: 1\n";
	assert_int_equal(tg_config_load_mem(&c, both, strlen(both), "m.yaml", NULL), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "m.yaml:2:1: unknown key 'bogus'"));
	unsetenv("TG_T_UNSET_B");
	unlink(sf);
	assert_int_equal(tg_config_load_file_for(&c, path, 0), TG_EINVAL);
	/* the database only */
	if (tg_config_load_file_for(&c, path, TG_CONFIG_DATABASE_ONLY))
		fail_msg("%s", tg_error_last());
	assert_string_equal(c->postgresql.value, "postgresql://tg@db/tg");
	assert_null(c->storage.s3_access_key.value);
	assert_string_equal(c->storage.s3_access_key.env, "TG_T_UNSET_A");
	assert_null(c->storage.s3_secret_key.value);
	assert_non_null(strstr(c->storage.s3_secret_key.file, "/missing"));
	assert_null(c->forges[0].token.value);
	assert_null(c->repos[0].git_token.value);
	tg_config_free(c);
	/* ... which is still needed */
	unsetenv("TG_T_DB");
	assert_int_equal(tg_config_load_file_for(&c, path, TG_CONFIG_DATABASE_ONLY), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "database.postgresql: environment variable TG_T_DB is not set"));
	/* the form of the others is still checked */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("storage: {s3: {endpoint: \"https://s3.example\", bucket: b, region: r, access_key: inline, "
	      "secret_key: {env: X}}}\ndatabase: {sqlite: x.db}\nforges: []\nrepositories: []\n",
	      f);
	fclose(f);
	assert_int_equal(tg_config_load_file_for(&c, path, TG_CONFIG_DATABASE_ONLY), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "a secret is never written in the configuration"));
	unlink(path);
	rmdir(dir);
}

static void test_docs_examples(void **state)
{
	(void)state;
	size_t len;
	char *doc = tg_test_slurp("docs/config.md", &len);
	assert_non_null(doc);
	setenv("GITHUB_TOKEN", "docs-github-token", 1);
	setenv("AWS_ACCESS_KEY_ID", "docs-aws-key", 1);
	setenv("TRACEGATE_SIGNING_KEY", "docs-signing-key", 1);
	int n = 0;
	for (char *p = strstr(doc, "```yaml\n"); p; p = strstr(p, "```yaml\n")) {
		p += 8;
		char *end = strstr(p, "```");
		assert_non_null(end);
		/* /run/secrets/NAME -> the fixtures' secrets/NAME */
		char yaml[8192];
		size_t o = 0;
		for (char *q = p; q < end && o + 64 < sizeof(yaml);) {
			if (!strncmp(q, "/run/secrets/", 13)) {
				o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "secrets/");
				q += 13;
			} else
				yaml[o++] = *q++;
		}
		yaml[o] = 0;
		tg_config *c = NULL;
		if (tg_config_load_mem(&c, yaml, o, "docs/config.md", fixdir()))
			fail_msg("example %d: %s", n, tg_error_last());
		assert_true(c->nforges >= 1 && c->nrepos >= 1);
		tg_config_free(c);
		n++;
		p = end + 3;
	}
	assert_int_equal(n, 3); /* the layout and the two complete examples */
	free(doc);
	unsetenv("GITHUB_TOKEN");
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("TRACEGATE_SIGNING_KEY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http_loopback_only),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_s3_postgresql),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_bools),
		cmocka_unit_test(test_loads_mem),
		cmocka_unit_test(test_io),
		cmocka_unit_test(test_secrets_never_in_messages),
		cmocka_unit_test(test_trust_keys),
		cmocka_unit_test(test_database_only),
		cmocka_unit_test(test_docs_examples),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
