/*
 * test_signature.c - HMAC-SHA256 (RFC 4231 vectors), the canonical text of
 * a manifest, and which manifests count as signed.
 */
#include "testutil.h"

#include "../daemon/manifest.h"
#include "../daemon/sha256.h"
#include "../daemon/signature.h"

#include <unistd.h>

#define SHA "0123456789abcdef0123456789abcdef01234567"
#define KEY "acme/llm/" SHA "/train/ci-1/manifest.json"
#define H0 "cf8187e9a5d4c53e63790f6350ea61dee4929bf6b6402c10307df634a741dd41"

static void hmac_hex(char out[65], const void *k, size_t kl, const void *d, size_t dl)
{
	uint8_t dig[TG_SHA256_LEN];
	tg_hmac_sha256(dig, k, kl, d, dl);
	tg_sha256_hex(out, dig);
}

static void test_hmac_rfc4231(void **state)
{
	(void)state;
	char hex[65];
	uint8_t k1[20];
	memset(k1, 0x0b, sizeof(k1));
	hmac_hex(hex, k1, sizeof(k1), "Hi There", 8);
	assert_string_equal(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	hmac_hex(hex, "Jefe", 4, "what do ya want for nothing?", 28);
	assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	/* test case 6: a key longer than the block is hashed first */
	uint8_t k6[131];
	memset(k6, 0xaa, sizeof(k6));
	const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	hmac_hex(hex, k6, sizeof(k6), m6, strlen(m6));
	assert_string_equal(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
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
		cmocka_unit_test(test_hmac_rfc4231),
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_manifest_sha256_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
