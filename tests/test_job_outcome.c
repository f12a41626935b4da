/* test_job_outcome.c - what a job decides to post (daemon/job_outcome.c,
 * job_text.c, job_post.c, job_analyse.c's pool cap): the state and verdict
 * each judgement gives (pass, warn, block, inconclusive, not comparable)
 * under the repository's on_unjudged, a run that cannot be judged, one
 * waiting for its commit's runs, the outcome kept in a real SQLite store
 * and loaded again, the comment's marker and the status context, who may
 * post, and how the pooled bytes are shared between the sides. */
#include "storeutil.h"

#include "../daemon/job_impl.h"
#include "../daemon/repos.h"

#include <sys/stat.h>

#define SHA "0123456789abcdef0123456789abcdef01234567"

static tg_job job_of(const char *workload, int64_t pr, int trusted)
{
	tg_job j;
	memset(&j, 0, sizeof(j));
	j.repo = (char *)"acme/llm";
	j.commit = (char *)SHA;
	j.branch = (char *)"feat";
	j.workload = (char *)workload;
	j.run_id = (char *)"ci-7";
	j.prefix = (char *)"acme/llm/" SHA "/train/ci-7";
	j.pr = pr;
	j.trusted = trusted;
	return j;
}

/* A judgement's verdict: block fails, pass and warn succeed, inconclusive
 * takes on_unjudged's state for its kind (pending unless chosen). */
static void test_verdict(void **state)
{
	(void)state;
	tg_config_repo r;
	memset(&r, 0, sizeof(r));
	tg_job_outcome o;
	memset(&o, 0, sizeof(o));
	tg_job_outcome_verdict(&o, &r, TG_VERDICT_PASS, 1, "no regression", SHA, 2);
	assert_int_equal(o.state, TG_FORGE_SUCCESS);
	assert_string_equal(o.verdict, "pass");
	assert_string_equal(o.summary, "no regression");
	assert_string_equal(o.description, "no regression");
	assert_string_equal(o.baseline, SHA);
	assert_int_equal(o.distance, 2);
	assert_int_equal(o.unjudged, 0);
	memset(&o, 0, sizeof(o));
	tg_job_outcome_verdict(&o, &r, TG_VERDICT_WARN, 1, "w", SHA, 0);
	assert_int_equal(o.state, TG_FORGE_SUCCESS);
	assert_string_equal(o.verdict, "warn");
	memset(&o, 0, sizeof(o));
	tg_job_outcome_verdict(&o, &r, TG_VERDICT_BLOCK, 1, "b", SHA, 0);
	assert_int_equal(o.state, TG_FORGE_FAILURE);
	assert_string_equal(o.verdict, "block");
	assert_int_equal(o.unjudged, 0);
	/* inconclusive: no judgement, pending by default (fail closed) */
	memset(&o, 0, sizeof(o));
	tg_job_outcome_verdict(&o, &r, TG_VERDICT_INCONCLUSIVE, 1, "too few samples", SHA, 0);
	assert_int_equal(o.state, TG_FORGE_PENDING);
	assert_string_equal(o.verdict, "inconclusive");
	assert_int_equal(o.unjudged, 1 + TG_UNJUDGED_INCONCLUSIVE);
	/* the operator's choices per kind */
	r.on_unjudged[TG_UNJUDGED_INCONCLUSIVE] = TG_UNJUDGED_SUCCESS;
	r.on_unjudged[TG_UNJUDGED_NOT_COMPARABLE] = TG_UNJUDGED_FAILURE;
	memset(&o, 0, sizeof(o));
	tg_job_outcome_verdict(&o, &r, TG_VERDICT_INCONCLUSIVE, 1, "s", SHA, 0);
	assert_int_equal(o.state, TG_FORGE_SUCCESS);
	assert_int_equal(o.unjudged, 1 + TG_UNJUDGED_INCONCLUSIVE);
	memset(&o, 0, sizeof(o));
	tg_job_outcome_verdict(&o, &r, TG_VERDICT_INCONCLUSIVE, 0, "another GPU", SHA, 0);
	assert_int_equal(o.state, TG_FORGE_FAILURE);
	assert_int_equal(o.unjudged, 1 + TG_UNJUDGED_NOT_COMPARABLE);
	assert_string_equal(o.verdict, "inconclusive");
	/* comparable says nothing about a verdict that is not inconclusive */
	memset(&o, 0, sizeof(o));
	tg_job_outcome_verdict(&o, &r, TG_VERDICT_BLOCK, 0, "b", NULL, -1);
	assert_int_equal(o.state, TG_FORGE_FAILURE);
	assert_string_equal(o.baseline, "");
	assert_int_equal(o.distance, -1);
}

/* No baseline, waiting for runs: on_unjudged by kind. */
static void test_unjudged_waiting(void **state)
{
	(void)state;
	tg_config_repo r;
	memset(&r, 0, sizeof(r));
	r.runs_per_commit = 3;
	r.on_unjudged[TG_UNJUDGED_NO_BASELINE] = TG_UNJUDGED_SUCCESS;
	tg_job_outcome o;
	memset(&o, 0, sizeof(o));
	tg_job_outcome_unjudged(&o, &r, TG_UNJUDGED_NO_BASELINE);
	assert_int_equal(o.state, TG_FORGE_SUCCESS);
	assert_int_equal(o.unjudged, 1 + TG_UNJUDGED_NO_BASELINE);
	assert_string_equal(o.verdict, "inconclusive");
	memset(&o, 0, sizeof(o));
	tg_job_outcome_unjudged(&o, &r, TG_UNJUDGED_BASELINE_UNUSABLE);
	assert_int_equal(o.state, TG_FORGE_PENDING);
	memset(&o, 0, sizeof(o));
	tg_job_outcome_waiting(&o, &r, 2);
	assert_int_equal(o.state, TG_FORGE_PENDING);
	assert_int_equal(o.unjudged, 1 + TG_UNJUDGED_WAITING);
	assert_string_equal(o.description, "waiting for runs: 2 of 3 runs of this commit");
	assert_string_equal(o.summary, o.description);
}

/* A run that cannot be judged: error, files named relative to its folder,
 * no URL's userinfo. */
static void test_error(void **state)
{
	(void)state;
	tg_job j = job_of("train", 12, 0);
	tg_job_outcome o;
	memset(&o, 0, sizeof(o));
	tg_job_outcome_error(&o, &j, "bad trace",
	                     "acme/llm/" SHA "/train/ci-7/rank0.json: byte 42: bad JSON (https://u:tok@h/x)");
	assert_int_equal(o.state, TG_FORGE_ERROR);
	assert_string_equal(o.verdict, "error");
	assert_non_null(strstr(o.description, "cannot judge: rank0.json: byte 42: bad JSON"));
	assert_null(strstr(o.description, "acme/llm/"));
	assert_null(strstr(o.description, "tok"));
	assert_int_equal(strncmp(o.summary, "error: bad trace: acme/llm/" SHA "/train/ci-7/rank0.json", 76), 0);
	assert_null(strstr(o.summary, "tok"));
	char *c = tg_job_error_comment(&j, &o);
	assert_non_null(c);
	assert_int_equal(strncmp(c, "<!-- tracegate:train -->\n", 25), 0);
	assert_non_null(strstr(c, "could not judge <code>train</code>"));
	free(c);
}

/* The marker and status context: the workload when it is a name, else a
 * hash of it (16 hex digits of its SHA-256). */
static void test_marker(void **state)
{
	(void)state;
	char buf[600];
	tg_job j = job_of("train-1.b_x", 0, 1);
	tg_job_marker(buf, sizeof(buf), &j);
	assert_string_equal(buf, "tracegate:train-1.b_x");
	tg_config_repo r;
	memset(&r, 0, sizeof(r));
	r.status_context = (char *)"perf";
	tg_job_status_context(buf, sizeof(buf), &r, &j);
	assert_string_equal(buf, "perf/train-1.b_x");
	/* sha256("a b") = c8687a08aa5d6ed2044328fa6a697ab8e96dc34291e8c2034ae8c38e6fcc6d65 */
	j.workload = (char *)"a b";
	tg_job_marker(buf, sizeof(buf), &j);
	assert_string_equal(buf, "tracegate:h-c8687a08aa5d6ed2");
	char w65[66];
	memset(w65, 'a', 65);
	w65[65] = 0;
	j.workload = w65; /* 65 characters: not a name */
	tg_job_marker(buf, sizeof(buf), &j);
	assert_int_equal(strncmp(buf, "tracegate:h-", 12), 0);
	assert_int_equal(strlen(buf), 12 + 16);
	w65[64] = 0; /* 64: a name */
	tg_job_marker(buf, sizeof(buf), &j);
	assert_string_equal(buf + 10, w65);
}

/* Who may post: without a key everyone; with one a trusted run, or any
 * run on its own pull request. */
static void test_may_post(void **state)
{
	(void)state;
	tg_job j = job_of("train", 0, 0);
	assert_int_equal(tg_job_may_post(0, &j), 1);
	assert_int_equal(tg_job_may_post(1, &j), 0);
	j.pr = 3;
	assert_int_equal(tg_job_may_post(1, &j), 1);
	j.pr = 0;
	j.trusted = 1;
	assert_int_equal(tg_job_may_post(1, &j), 1);
}

/* limits.max_pool_bytes: the new side pools up to half, the base side up
 * to what the new side left. */
static void test_pool_cap(void **state)
{
	(void)state;
	assert_int_equal(tg_job_pool_cap(1000, 0, 0), 500);
	assert_int_equal(tg_job_pool_cap(1001, 900, 0), 500);
	assert_int_equal(tg_job_pool_cap(1000, 300, 1), 700);
	assert_int_equal(tg_job_pool_cap(1000, 1000, 1), 0);
	assert_int_equal(tg_job_pool_cap(1000, 4000, 1), 0); /* the judged run alone is past it */
	assert_int_equal(tg_job_pool_cap(0, 0, 0), 0);
}

/* The details link: the template with the run's fields escaped, else the
 * manifest's ci_url only under an allowed prefix. */
static void test_details_url(void **state)
{
	(void)state;
	tg_config_repo r;
	memset(&r, 0, sizeof(r));
	tg_job j = job_of("tr ain", 0, 1);
	char *prefixes[] = {(char *)"https://ci.example/"};
	assert_null(tg_job_details_url(&r, &j, "https://ci.example/1"));
	r.ci_url_prefixes = prefixes;
	r.nci_url_prefixes = 1;
	char *u = tg_job_details_url(&r, &j, "https://ci.example/1");
	assert_string_equal(u, "https://ci.example/1");
	free(u);
	assert_null(tg_job_details_url(&r, &j, "https://evil.example/1"));
	assert_int_equal(tg_job_ci_url_allowed(&r, NULL), 0);
	r.details_url = (char *)"https://perf/{repo}/{commit}/{workload}/{run_id}{x}";
	u = tg_job_details_url(&r, &j, "https://ci.example/1");
	assert_string_equal(u, "https://perf/acme/llm/" SHA "/tr%20ain/ci-7{x}");
	free(u);
}

/* The comment of a run without a baseline: its numbers, not the rules'. */
static void test_no_baseline_comment(void **state)
{
	(void)state;
	tg_job j = job_of("train", 5, 0);
	tg_metric m[] = {{"gpu_busy_ms", 12.5}, {"rule:x", 1}, {"kernel_time_ms:a|b", 0.25}};
	char *c = tg_job_no_baseline_comment(&j, "no baseline", "no run on main", m, 3);
	assert_non_null(c);
	assert_int_equal(strncmp(c, "<!-- tracegate:train -->\n### ", 29), 0);
	assert_non_null(strstr(c, "tracegate: no baseline for <code>train</code>"));
	assert_non_null(strstr(c, "| gpu\\_busy\\_ms | 12.5 |\n"));
	assert_non_null(strstr(c, "| kernel\\_time\\_ms:a\\|b | 0.25 |\n"));
	assert_null(strstr(c, "rule:x"));
	free(c);
}

/* The outcome kept in a real SQLite store and loaded again, the same; the
 * files an older daemon left are read when the store has none; a result
 * recorded on the job. */
static void test_keep_load(void **state)
{
	(void)state;
	char dir[4200], jobs[4300], path[4400];
	tg_store *s = tg_test_sqlite_store(dir, sizeof(dir), "job-outcome");
	int64_t id = tg_test_done_run(s, 1, "main", NULL, 0, 1);
	tg_job j = job_of("train", 0, 1);
	j.id = id;
	tg_config_repo r;
	memset(&r, 0, sizeof(r));
	tg_job_outcome o, back;
	memset(&o, 0, sizeof(o));
	tg_job_outcome_verdict(&o, &r, TG_VERDICT_INCONCLUSIVE, 0, "another GPU", SHA, 3);
	snprintf(o.merge_base, sizeof(o.merge_base), "%s", SHA);
	snprintf(o.target, sizeof(o.target), "main");
	o.target_url = strdup("https://ci/1");
	o.comment = strdup("<!-- tracegate:train -->\nhi");
	snprintf(jobs, sizeof(jobs), "%s/jobs", dir);
	assert_int_equal(tg_job_outcome_load(&back, s, jobs, &j), TG_ENOTFOUND);
	tg_test_must(tg_job_outcome_save(s, &j, &o));
	tg_test_must(tg_job_outcome_load(&back, s, jobs, &j));
	assert_int_equal(back.state, TG_FORGE_PENDING);
	assert_string_equal(back.verdict, "inconclusive");
	assert_int_equal(back.unjudged, 1 + TG_UNJUDGED_NOT_COMPARABLE);
	assert_string_equal(back.summary, "another GPU");
	assert_string_equal(back.baseline, SHA);
	assert_int_equal(back.distance, 3);
	assert_string_equal(back.merge_base, SHA);
	assert_string_equal(back.target, "main");
	assert_string_equal(back.target_url, "https://ci/1");
	assert_string_equal(back.comment, o.comment);
	tg_job_outcome_free(&back);
	/* the result on the job */
	tg_test_must(tg_job_outcome_store(s, &j, &o));
	tg_job got;
	tg_test_must(tg_store_job_get(&got, s, id));
	assert_string_equal(got.verdict, "inconclusive");
	assert_string_equal(got.baseline_commit, SHA);
	assert_int_equal(got.baseline_distance, 3);
	tg_job_clear(&got);
	/* an older daemon's files, for a job the store kept nothing for */
	tg_job k = j;
	k.id = tg_test_done_run(s, 2, "main", NULL, 0, 1);
	snprintf(path, sizeof(path), "%s/%lld", jobs, (long long)k.id);
	assert_int_equal(tg_daemon_make_dirs(path), 0);
	char *text = tg_job_outcome_json(&o);
	snprintf(path, sizeof(path), "%s/%lld/outcome.json", jobs, (long long)k.id);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	free(text);
	snprintf(path, sizeof(path), "%s/%lld/comment.md", jobs, (long long)k.id);
	f = fopen(path, "w");
	fputs("old comment", f);
	fclose(f);
	tg_test_must(tg_job_outcome_load(&back, s, jobs, &k));
	assert_string_equal(back.verdict, "inconclusive");
	assert_string_equal(back.comment, "old comment");
	tg_job_outcome_free(&back);
	/* not an outcome: refused, saying so */
	assert_int_equal(tg_job_outcome_parse(&back, "{\"state\":1}", NULL, "x"), TG_ENOTFOUND);
	assert_non_null(strstr(tg_error_last(), "x: not an outcome"));
	assert_int_equal(tg_job_outcome_parse(&back, "{", NULL, "y"), TG_ENOTFOUND);
	tg_job_outcome_free(&o);
	tg_store_close(s);
	tg_test_rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict),     cmocka_unit_test(test_unjudged_waiting),
		cmocka_unit_test(test_error),       cmocka_unit_test(test_marker),
		cmocka_unit_test(test_may_post),    cmocka_unit_test(test_pool_cap),
		cmocka_unit_test(test_details_url), cmocka_unit_test(test_no_baseline_comment),
		cmocka_unit_test(test_keep_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
