/*
 * test_manifest.c - the run manifest: what is accepted, and the exact
 * message for each thing that is not.
 */
#include "testutil.h"

#include "../daemon/manifest.h"
#include "../daemon/signature.h"

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

/* The compact form the store keeps: the fields tracegate reads, parsed
 * back to the same manifest (so the same canonical text a signature
 * covers), without the padding an uploader added. */
static void test_compact(void **state)
{
	(void)state;
	size_t pad = 200000;
	char *big = malloc(strlen(good) + pad + 64);
	int n = sprintf(big, "{\"padding\": \"");
	memset(big + n, 'x', pad);
	strcpy(big + n + pad, "\", ");
	strcat(big, good + 1);
	tg_manifest *m, *back;
	assert_int_equal(tg_manifest_parse(&m, big, strlen(big), KEY, 0), 0);
	free(m->signature);
	m->signature = strdup("hmac-sha256:" SHA "0123456789abcdef01234567");
	strcpy(m->traces[0].sha256, SHA "0123456789abcdef01234567");
	char *c = NULL;
	assert_int_equal(tg_manifest_compact(&c, m, SHA "0123456789abcdef01234567"), 0);
	assert_true(strlen(c) < 800);
	char up[65];
	assert_int_equal(tg_manifest_uploaded_sha256(up, c), 0);
	assert_string_equal(up, SHA "0123456789abcdef01234567");
	assert_int_equal(tg_manifest_uploaded_sha256(up, good), -1);
	assert_int_equal(tg_manifest_parse(&back, c, strlen(c), KEY, 0), 0);
	char *s1 = NULL, *s2 = NULL;
	assert_int_equal(tg_signature_canonical(&s1, m), 0);
	assert_int_equal(tg_signature_canonical(&s2, back), 0);
	assert_string_equal(s1, s2);
	assert_string_equal(back->signature, m->signature);
	assert_string_equal(back->created_at_text, "2026-11-23T18:00:00Z");
	assert_int_equal(back->created_at, m->created_at);
	assert_int_equal(back->pr, 123);
	assert_int_equal(back->ntraces, 2);
	assert_int_equal(back->traces[1].rank, 0);
	assert_string_equal(back->traces[0].sha256, m->traces[0].sha256);
	assert_string_equal(back->traces[1].sha256, "");
	free(s1);
	free(s2);
	free(c);
	free(big);
	tg_manifest_free(m);
	tg_manifest_free(back);
}

/* Each error message of a manifest is a fixture of tests/data/bad/manifest/
 * (test_bad_input.c); here: what depends on the key. */
static void test_bad(void **state)
{
	(void)state;
	tg_manifest *m = NULL;
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
		cmocka_unit_test(test_compact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
