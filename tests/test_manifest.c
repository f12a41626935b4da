/*
 * test_manifest.c - the run manifest: what is accepted, and the exact
 * message for each thing that is not.
 */
#include "testutil.h"

#include "../daemon/manifest.h"

#define SHA "0123456789abcdef0123456789abcdef01234567"
#define KEY "acme/llm/" SHA "/train/ci-1/manifest.json"

static const char good[] = "{\"schema\": \"tracegate.run/1\", \"repo\": \"acme/llm\", \"commit\": \"" SHA "\",\n"
                           " \"branch\": \"feature-x\", \"pull_request\": 123, \"target_branch\": \"main\",\n"
                           " \"workload\": \"train\", \"run_id\": \"ci-1\",\n"
                           " \"created_at\": \"2026-11-23T18:00:00Z\", \"ci_url\": \"https://ci.example/1\",\n"
                           " \"traces\": [{\"path\": \"rank1.json.gz\", \"rank\": 1}, {\"path\": \"rank0.json.gz\", \"rank\": 0}],\n"
                           " \"x-extra\": {\"ignored\": true}}";

static void test_good(void **state)
{
	(void)state;
	tg_manifest *m;
	assert_int_equal(tg_manifest_parse(&m, good, strlen(good), KEY, 0), 0);
	assert_string_equal(m->repo, "acme/llm");
	assert_string_equal(m->commit, SHA);
	assert_string_equal(m->branch, "feature-x");
	assert_string_equal(m->target_branch, "main");
	assert_int_equal(m->pr, 123);
	assert_string_equal(m->workload, "train");
	assert_string_equal(m->run_id, "ci-1");
	assert_string_equal(m->ci_url, "https://ci.example/1");
	assert_int_equal(m->created_at, 1795456800); /* 2026-11-23T18:00:00Z */
	assert_string_equal(m->prefix, "acme/llm/" SHA "/train/ci-1");
	assert_int_equal(m->ntraces, 2);
	assert_string_equal(m->traces[0].path, "rank1.json.gz");
	assert_int_equal(m->traces[0].rank, 1);
	assert_int_equal(m->traces[1].rank, 0);
	char *k = tg_manifest_trace_key(m, 1);
	assert_string_equal(k, "acme/llm/" SHA "/train/ci-1/rank0.json.gz");
	free(k);
	tg_manifest_free(m);
}

static void test_minimal(void **state)
{
	(void)state;
	const char *j = "{\"schema\":\"tracegate.run/1\",\"repo\":\"acme/llm\",\"commit\":\"" SHA "\",\"branch\":\"main\","
	                "\"workload\":\"train\",\"run_id\":\"ci-1\",\"traces\":[{\"path\":\"t.json\"}]}";
	tg_manifest *m;
	assert_int_equal(tg_manifest_parse(&m, j, strlen(j), KEY, 0), 0);
	assert_null(m->target_branch);
	assert_int_equal(m->pr, 0);
	assert_null(m->ci_url);
	assert_int_equal(m->created_at, 0);
	assert_int_equal(m->traces[0].rank, -1);
	tg_manifest_free(m);
	/* an upper-case commit is the same commit */
	const char *u = "{\"schema\":\"tracegate.run/1\",\"repo\":\"acme/llm\",\"commit\":\"0123456789ABCDEF0123456789abcdef01234567\","
	                "\"branch\":\"main\",\"workload\":\"train\",\"run_id\":\"ci-1\",\"traces\":[{\"path\":\"t.json\"}],"
	                "\"created_at\":\"2026-11-23T19:30:00.5+01:30\"}";
	assert_int_equal(tg_manifest_parse(&m, u, strlen(u), KEY, 0), 0);
	assert_string_equal(m->commit, SHA);
	assert_int_equal(m->created_at, 1795456800);
	tg_manifest_free(m);
}

/* Replaces the first occurrence of from in good by to and expects msg. */
static void bad(const char *from, const char *to, const char *msg)
{
	char buf[4096];
	const char *p = strstr(good, from);
	assert_non_null(p);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - good), good, to, p + strlen(from));
	tg_manifest *m = NULL;
	int rc = tg_manifest_parse(&m, buf, strlen(buf), KEY, 4);
	if (rc != TG_EFORMAT)
		fail_msg("accepted (%d): %s", rc, buf);
	assert_null(m);
	if (strcmp(tg_error_last(), msg))
		fail_msg("message\n  got:  %s\n  want: %s", tg_error_last(), msg);
}

static void test_bad(void **state)
{
	(void)state;
	bad("\"schema\": \"tracegate.run/1\"", "\"schema\": \"tracegate.run/2\"",
	    KEY ": schema 'tracegate.run/2' is not tracegate.run/1");
	bad("\"schema\": \"tracegate.run/1\", ", "", KEY ": 'schema' is missing");
	bad("\"repo\": \"acme/llm\"", "\"repo\": \"evil/other\"", KEY ": repo 'evil/other' does not match the folder (acme/llm)");
	bad("\"repo\": \"acme/llm\"", "\"repo\": 5", KEY ": 'repo' must be a string");
	bad("\"commit\": \"" SHA "\"", "\"commit\": \"abc\"", KEY ": commit 'abc' is not 40 hexadecimal digits");
	bad("\"commit\": \"" SHA "\"", "\"commit\": \"1123456789abcdef0123456789abcdef01234567\"",
	    KEY ": commit does not match the folder (" SHA ")");
	bad("\"branch\": \"feature-x\"", "\"branch\": \"\"", KEY ": 'branch' is empty");
	bad("\"branch\": \"feature-x\"", "\"branch\": \"a\\nb\"", KEY ": 'branch' contains a control character");
	bad("\"workload\": \"train\"", "\"workload\": \"infer\"", KEY ": workload 'infer' does not match the folder (train)");
	bad("\"run_id\": \"ci-1\"", "\"run_id\": \"ci-2\"", KEY ": run_id 'ci-2' does not match the folder (ci-1)");
	/* names go into statuses and comments: [A-Za-z0-9._-]{1,64} only */
	bad("\"workload\": \"train\"", "\"workload\": \"w --> <img src=x> @org/team\"",
	    KEY ": workload 'w --> <img src=x> @org/team' must be 1 to 64 of A-Z a-z 0-9 . _ -");
	bad("\"run_id\": \"ci-1\"", "\"run_id\": \"ci#1\"", KEY ": run_id 'ci#1' must be 1 to 64 of A-Z a-z 0-9 . _ -");
	bad("\"run_id\": \"ci-1\"",
	    "\"run_id\": \"r12345678901234567890123456789012345678901234567890123456789012345\"",
	    KEY ": run_id 'r12345678901234567890123456789012345678901234567890123456789012345' must be 1 to 64 of A-Z a-z 0-9 . _ -");
	bad("\"pull_request\": 123", "\"pull_request\": -4", KEY ": pull_request must be a positive integer (or null)");
	bad("\"pull_request\": 123", "\"pull_request\": \"123\"", KEY ": pull_request must be a positive integer (or null)");
	bad("\"created_at\": \"2026-11-23T18:00:00Z\"", "\"created_at\": \"yesterday\"",
	    KEY ": created_at 'yesterday' is not an RFC 3339 time such as 2026-11-23T18:00:00Z");
	bad("\"ci_url\": \"https://ci.example/1\"", "\"ci_url\": \"javascript:alert(1)\"", KEY ": ci_url must be an http(s) URL");
	bad("\"path\": \"rank1.json.gz\"", "\"path\": \"../../../../etc/passwd\"",
	    KEY ": traces[0].path '../../../../etc/passwd' must be a relative path inside the run's folder (no '..', '.', "
	        "empty segment, leading '/', or backslash)");
	bad("\"path\": \"rank1.json.gz\"", "\"path\": \"/etc/passwd\"",
	    KEY ": traces[0].path '/etc/passwd' must be a relative path inside the run's folder (no '..', '.', empty "
	        "segment, leading '/', or backslash)");
	bad("\"path\": \"rank1.json.gz\"", "\"path\": \"a\\\\..\\\\b\"",
	    KEY ": traces[0].path 'a\\..\\b' must be a relative path inside the run's folder (no '..', '.', empty segment, "
	        "leading '/', or backslash)");
	bad("\"path\": \"rank1.json.gz\"", "\"path\": \"manifest.json\"", KEY ": traces[0].path names the manifest itself");
	bad("\"path\": \"rank1.json.gz\"", "\"path\": \"rank0.json.gz\"", KEY ": traces[1].path repeats traces[0]");
	bad("\"rank\": 1", "\"rank\": 0", KEY ": traces[1].rank 0 repeats traces[0]");
	bad("\"rank\": 1", "\"rank\": -1", KEY ": traces[0].rank must be an integer >= 0");
	bad("\"traces\": [{\"path\": \"rank1.json.gz\", \"rank\": 1}, {\"path\": \"rank0.json.gz\", \"rank\": 0}]",
	    "\"traces\": []", KEY ": 'traces' must be a non-empty list");
	bad("\"traces\": [{\"path\": \"rank1.json.gz\", \"rank\": 1},", "\"traces\": [1,", KEY ": traces[0] must be an object with a path");
	bad("{\"path\": \"rank0.json.gz\", \"rank\": 0}",
	    "{\"path\": \"a\"}, {\"path\": \"b\"}, {\"path\": \"c\"}, {\"path\": \"d\"}",
	    KEY ": 5 traces, more than the limit of 4");
	bad("\"schema\"", "\"schema\" \"", KEY ": 1:14: bad JSON: ':' expected near '\": \"'");
	bad("\"branch\": \"feature-x\",", "\"branch\": \"feature-x\", \"branch\": \"y\",",
	    KEY ": 2:32: bad JSON: duplicate object key near '\"branch\"'");
	/* the JSON error quotes the input: one line still (found by fuzz_manifest) */
	bad("\"branch\": \"feature-x\"", "\"branch\": \"feature-x\\\n\"",
	    KEY ": 3:0: bad JSON: invalid escape near '\"feature-x\\\\x0a'");
	/* not an object */
	tg_manifest *m = NULL;
	assert_int_equal(tg_manifest_parse(&m, "[1]", 3, KEY, 0), TG_EFORMAT);
	assert_string_equal(tg_error_last(), KEY ": expected a JSON object");
	/* a key not at the contract's depth */
	assert_int_equal(tg_manifest_parse(&m, good, strlen(good), "acme/llm/manifest.json", 0), TG_EFORMAT);
	assert_string_equal(tg_error_last(),
	                    "acme/llm/manifest.json: not at <owner>/<repo>/<commit>/<workload>/<run-id>/manifest.json");
	assert_int_equal(tg_manifest_parse(&m, good, strlen(good), "acme/llm/" SHA "/train/../manifest.json", 0),
	                 TG_EFORMAT);
	/* empty input */
	assert_int_equal(tg_manifest_parse(&m, "", 0, KEY, 0), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "bad JSON"));
}

/* The names' check itself, and a manifest the daemon could not read. */
static void test_names_and_unreadable(void **state)
{
	(void)state;
	assert_true(tg_manifest_name_ok("llama-8b_train.v2"));
	assert_true(tg_manifest_name_ok("1234567890123456789012345678901234567890123456789012345678901234")); /* 64 */
	assert_false(tg_manifest_name_ok("12345678901234567890123456789012345678901234567890123456789012345"));
	assert_false(tg_manifest_name_ok(""));
	assert_false(tg_manifest_name_ok("a b"));
	assert_false(tg_manifest_name_ok("a/b"));
	assert_false(tg_manifest_name_ok("<b>"));
	assert_false(tg_manifest_name_ok("caf\xc3\xa9"));
	const char *u = TG_MANIFEST_UNREADABLE "manifest.json: a FIFO, not a regular file";
	tg_manifest *m = NULL;
	assert_int_equal(tg_manifest_parse(&m, u, strlen(u), KEY, 0), TG_EFORMAT);
	assert_string_equal(tg_error_last(), KEY ": manifest not read: manifest.json: a FIFO, not a regular file");
	/* the text is len bytes, not a C string: nothing past them is read */
	char *cut = malloc(12);
	memcpy(cut, u, 12);
	assert_int_equal(tg_manifest_parse(&m, cut, 12, KEY, 0), TG_EFORMAT);
	assert_string_equal(tg_error_last(), KEY ": manifest not read: manifest.js");
	free(cut);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_unreadable),
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
