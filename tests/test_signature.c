/*
 * test_signature.c - the canonical text of a manifest, which manifests
 * count as signed, and the digest of a trace as it is read (HMAC-SHA256's
 * own RFC 4231 vectors are in test_sha256.c).
 */
#include "testutil.h"

#include "../daemon/manifest.h"
#include "../util/sha256.h"
#include "../daemon/signature.h"

#include <unistd.h>

#define SHA "0123456789abcdef0123456789abcdef01234567"
#define KEY "acme/llm/" SHA "/train/ci-1/manifest.json"
#define H0 "cf8187e9a5d4c53e63790f6350ea61dee4929bf6b6402c10307df634a741dd41"

static void hmac_hex(char out[65], const void *k, size_t kl, const void *d, size_t dl)
{
	uint8_t dig[TG_SHA256_LEN];
	assert_int_equal(tg_hmac_sha256(dig, k, kl, d, dl), 0);
	tg_sha256_hex(out, dig);
}

static char *manifest(const char *extra_top, const char *trace_extra)
{
	char *s = NULL;
	assert_true(asprintf(&s,
	                     "{\"schema\": \"tracegate.run/1\", \"repo\": \"acme/llm\", \"commit\": \"" SHA "\","
	                     " \"branch\": \"main\", \"workload\": \"train\", \"run_id\": \"ci-1\","
	                     " \"created_at\": \"2026-11-23T18:00:00Z\"%s,"
	                     " \"traces\": [{\"path\": \"rank0.json.gz\", \"rank\": 0%s}]}",
	                     extra_top, trace_extra) > 0);
	return s;
}

static void test_canonical(void **state)
{
	(void)state;
	char *j = manifest(", \"pull_request\": 7, \"target_branch\": \"main\", \"ci_url\": \"https://ci.example/1\"",
	                   ", \"sha256\": \"" H0 "\"");
	tg_manifest *m;
	assert_int_equal(tg_manifest_parse(&m, j, strlen(j), KEY, 0), 0);
	char *t;
	assert_int_equal(tg_signature_canonical(&t, m), 0);
	assert_string_equal(t, "tracegate.sig/1\nrepo=acme/llm\ncommit=" SHA "\nbranch=main\npull_request=7\n"
	                       "target_branch=main\nworkload=train\nrun_id=ci-1\ncreated_at=2026-11-23T18:00:00Z\n"
	                       "ci_url=https://ci.example/1\ntrace=" H0 " 0 rank0.json.gz\n");
	free(t);
	tg_manifest_free(m);
	free(j);
}

/* A manifest signed with key (the signature computed over its canonical text). */
static char *signed_manifest(const char *key, const char *trace_extra)
{
	char *j = manifest("", trace_extra);
	tg_manifest *m;
	assert_int_equal(tg_manifest_parse(&m, j, strlen(j), KEY, 0), 0);
	char *t, hex[65], *out;
	assert_int_equal(tg_signature_canonical(&t, m), 0);
	hmac_hex(hex, key, strlen(key), t, strlen(t));
	char top[128];
	snprintf(top, sizeof(top), ", \"signature\": \"hmac-sha256:%s\"", hex);
	out = manifest(top, trace_extra);
	free(t);
	free(j);
	tg_manifest_free(m);
	return out;
}

static int check(const char *json, const char *key, const char **why)
{
	tg_manifest *m;
	assert_int_equal(tg_manifest_parse(&m, json, strlen(json), KEY, 0), 0);
	int ok = tg_signature_check(why, m, key, strlen(key));
	tg_manifest_free(m);
	return ok;
}

static void test_check(void **state)
{
	(void)state;
	const char *why;
	char *s = signed_manifest("k", ", \"sha256\": \"" H0 "\"");
	assert_int_equal(check(s, "k", &why), 1);
	assert_int_equal(check(s, "K", &why), 0);
	assert_string_equal(why, "the signature does not match (another key, or the manifest was changed)");
	/* the MAC's first or last byte changed (the comparison looks at every byte) */
	char *sig = strstr(s, "hmac-sha256:") + strlen("hmac-sha256:");
	for (int end = 0; end < 2; end++) {
		char *c = sig + (end ? 63 : 0), was = *c;
		*c = was == '0' ? '1' : '0';
		assert_int_equal(check(s, "k", &why), 0);
		assert_string_equal(why, "the signature does not match (another key, or the manifest was changed)");
		*c = was;
	}
	assert_int_equal(check(s, "k", &why), 1);
	/* one field changed after signing */
	char *p = strstr(s, "\"branch\": \"main\"");
	memcpy(p, "\"branch\": \"mair\"", 16);
	assert_int_equal(check(s, "k", &why), 0);
	free(s);
	/* unsigned */
	s = manifest("", "");
	assert_int_equal(check(s, "k", &why), 0);
	assert_string_equal(why, "unsigned");
	free(s);
	/* signed, but a trace without its digest */
	s = signed_manifest("k", "");
	assert_int_equal(check(s, "k", &why), 0);
	assert_string_equal(why, "a signed manifest must give every trace's sha256");
	free(s);
	/* malformed */
	s = manifest(", \"signature\": \"hmac-sha256:zz\"", ", \"sha256\": \"" H0 "\"");
	assert_int_equal(check(s, "k", &why), 0);
	assert_string_equal(why, "the signature is not hmac-sha256:<64 lower-case hex>");
	free(s);
}

/* The digest as a reader's observer: the bytes seen, in any chunks. */
static void test_digest(void **state)
{
	(void)state;
	tg_signature_digest d;
	tg_signature_digest_init(&d);
	tg_signature_digest_observe(&d, "a", 1);
	tg_signature_digest_observe(&d, "bc", 2);
	assert_int_equal(d.bytes, 3);
	assert_int_equal(tg_signature_digest_check(&d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "k/t"), 0);
	tg_signature_digest_init(&d);
	tg_signature_digest_observe(&d, "abd", 3);
	assert_int_equal(tg_signature_digest_check(&d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "k/t"),
	                 TG_EFORMAT);
	assert_string_equal(tg_error_last(), "k/t: does not match the sha256 its manifest gives");
	/* a digest the reader abandons (the read failed): released, twice harmlessly */
	tg_signature_digest_init(&d);
	tg_signature_digest_observe(&d, "ab", 2);
	tg_signature_digest_free(&d);
	tg_signature_digest_free(&d);
	assert_null(d.c.md);
}

static void test_manifest_sha256_checked(void **state)
{
	(void)state;
	char *s = manifest("", ", \"sha256\": \"ABC\"");
	tg_manifest *m;
	assert_int_equal(tg_manifest_parse(&m, s, strlen(s), KEY, 0), TG_EFORMAT);
	assert_string_equal(tg_error_last(), KEY ": traces[0].sha256 must be 64 lower-case hexadecimal digits");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_manifest_sha256_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
