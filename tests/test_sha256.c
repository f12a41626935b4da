/*
 * test_sha256.c - SHA-256 and HMAC-SHA256 over libcrypto (util/sha256.c).
 *
 * Known answers: FIPS 180-2 appendix B (and NIST's one million 'a'),
 * digests at the padding edges from Python's hashlib, every RFC 4231 test
 * case; the streamed hash fed in uneven pieces and byte by byte gives the
 * one-call digest; the MAC comparison; and libcrypto's allocation failing
 * (CRYPTO_set_mem_functions, set before libcrypto allocates anything):
 * TG_ENOMEM with its message, a zeroed digest, nothing leaked, and the
 * next hash right again.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../util/sha256.h"

#include <limits.h>
#include <openssl/crypto.h>

/* ------------------------------------------------------------ allocation failures */

static int fail_allocs; /* > 0: the allocations libcrypto asks for fail */

static void *test_malloc_fn(size_t n, const char *file, int line)
{
	(void)file, (void)line;
	return fail_allocs ? NULL : malloc(n);
}

static void *test_realloc_fn(void *p, size_t n, const char *file, int line)
{
	(void)file, (void)line;
	return fail_allocs ? NULL : realloc(p, n);
}

static void test_free_fn(void *p, const char *file, int line)
{
	(void)file, (void)line;
	free(p);
}

/* ------------------------------------------------------------ SHA-256 */

static void hex_of(char out[65], const void *data, size_t len)
{
	uint8_t d[TG_SHA256_LEN];
	assert_int_equal(tg_sha256(d, data, len), 0);
	tg_sha256_hex(out, d);
}

/* The streamed digest of data fed in pieces of step(i) bytes. */
static void streamed_hex(char out[65], const uint8_t *data, size_t len, size_t (*step)(size_t))
{
	tg_sha256_ctx c;
	uint8_t d[TG_SHA256_LEN];
	tg_sha256_init(&c);
	for (size_t off = 0, i = 0; off < len; i++) {
		size_t n = step(i) < len - off ? step(i) : len - off;
		tg_sha256_update(&c, data + off, n);
		off += n;
	}
	tg_sha256_update(&c, NULL, 0);
	assert_int_equal(tg_sha256_final(d, &c), 0);
	assert_null(c.md);
	tg_sha256_hex(out, d);
}

static size_t uneven(size_t i)
{
	return (i * 3 + 1) % 1013 + 1;
}

static size_t one(size_t i)
{
	(void)i;
	return 1;
}

static void test_sha256_fips(void **state)
{
	(void)state;
	char h[65];
	hex_of(h, "", 0);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	hex_of(h, NULL, 0);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	hex_of(h, "abc", 3);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	hex_of(h, m448, strlen(m448));
	assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopq"
	                   "rsmnopqrstnopqrstu";
	hex_of(h, m896, strlen(m896));
	assert_string_equal(h, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	/* one million 'a', in one call and streamed in uneven pieces */
	uint8_t *a = malloc(1000000);
	assert_non_null(a);
	memset(a, 'a', 1000000);
	hex_of(h, a, 1000000);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	streamed_hex(h, a, 1000000, uneven);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

static void test_sha256_padding_edges(void **state)
{
	(void)state;
	/* bytes (i*7+3) & 0xff; digests from Python's hashlib. 55/56/64 bytes
	 * are the edges of the one- and two-block padding */
	static const struct {
		size_t n;
		const char *hex;
	} v[] = {
		{55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
		{56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
		{57, "35df609437dcfea3279283ab79fd554e2bf78f8f7ae2de532d8ee300b09e8f73"},
		{63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
		{64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
		{65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
		{119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
		{120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
		{127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07"},
		{128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
	};
	uint8_t buf[128];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char h[65];
		hex_of(h, buf, v[i].n);
		assert_string_equal(h, v[i].hex);
		streamed_hex(h, buf, v[i].n, one);
		assert_string_equal(h, v[i].hex);
	}
}

static void test_sha256_context_reuse(void **state)
{
	(void)state;
	tg_sha256_ctx c;
	uint8_t d[TG_SHA256_LEN];
	char h[65];
	/* no bytes at all: the digest of "" */
	tg_sha256_init(&c);
	assert_int_equal(tg_sha256_final(d, &c), 0);
	tg_sha256_hex(h, d);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* initialised again after its end: a fresh hash */
	tg_sha256_init(&c);
	tg_sha256_update(&c, "ab", 2);
	tg_sha256_update(&c, "c", 1);
	assert_int_equal(tg_sha256_final(d, &c), 0);
	tg_sha256_hex(h, d);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* abandoned mid-way: freed (twice is harmless), nothing leaks (valgrind, ASan) */
	tg_sha256_init(&c);
	tg_sha256_update(&c, "abc", 3);
	assert_non_null(c.md);
	tg_sha256_free(&c);
	assert_null(c.md);
	tg_sha256_free(&c);
}

/* ------------------------------------------------------------ HMAC-SHA256 */

static void hmac_hex(char out[65], const void *k, size_t kl, const void *d, size_t dl)
{
	uint8_t dig[TG_SHA256_LEN];
	assert_int_equal(tg_hmac_sha256(dig, k, kl, d, dl), 0);
	tg_sha256_hex(out, dig);
}

static void test_hmac_rfc4231(void **state)
{
	(void)state;
	char hex[65];
	uint8_t k[131], m[50];
	memset(k, 0x0b, 20); /* test case 1 */
	hmac_hex(hex, k, 20, "Hi There", 8);
	assert_string_equal(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	hmac_hex(hex, "Jefe", 4, "what do ya want for nothing?", 28); /* 2: a key shorter than the MAC */
	assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k, 0xaa, 20); /* 3: 50 bytes of 0xdd */
	memset(m, 0xdd, sizeof(m));
	hmac_hex(hex, k, 20, m, sizeof(m));
	assert_string_equal(hex, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (int i = 0; i < 25; i++) /* 4: key 0x01..0x19, 50 bytes of 0xcd */
		k[i] = (uint8_t)(i + 1);
	memset(m, 0xcd, sizeof(m));
	hmac_hex(hex, k, 25, m, sizeof(m));
	assert_string_equal(hex, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
	memset(k, 0x0c, 20); /* 5: its first 128 bits */
	hmac_hex(hex, k, 20, "Test With Truncation", 20);
	assert_memory_equal(hex, "a3b6167473100ee06e0c796c2955552b", 32);
	memset(k, 0xaa, sizeof(k)); /* 6 and 7: a key longer than the block is hashed first */
	const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	hmac_hex(hex, k, sizeof(k), m6, strlen(m6));
	assert_string_equal(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	const char *m7 = "This is a test using a larger than block-size key and a larger than block-size data. The key "
	                 "needs to be hashed before being used by the HMAC algorithm.";
	hmac_hex(hex, k, sizeof(k), m7, strlen(m7));
	assert_string_equal(hex, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
	/* an empty key and no data (Python's hmac agrees) */
	hmac_hex(hex, NULL, 0, NULL, 0);
	assert_string_equal(hex, "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

static void test_mac_equal(void **state)
{
	(void)state;
	uint8_t a[TG_SHA256_LEN], b[TG_SHA256_LEN];
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = b[i] = (uint8_t)(i * 13);
	assert_true(tg_sha256_equal(a, b, sizeof(a)));
	for (size_t i = 0; i < sizeof(a); i++) { /* a difference anywhere, of any bit */
		b[i] ^= (uint8_t)(1u << (i % 8));
		assert_false(tg_sha256_equal(a, b, sizeof(a)));
		b[i] = a[i];
	}
	assert_true(tg_sha256_equal(a, b, 0));
}

/* ------------------------------------------------------------ libcrypto failing */

static void assert_zero_digest(const uint8_t d[TG_SHA256_LEN])
{
	static const uint8_t zero[TG_SHA256_LEN];
	assert_memory_equal(d, zero, TG_SHA256_LEN);
}

static void test_out_of_memory(void **state)
{
	(void)state;
	uint8_t d[TG_SHA256_LEN];
	char h[65];
	tg_sha256_ctx c;
	fail_allocs = 1;
	memset(d, 0xff, sizeof(d));
	assert_int_equal(tg_sha256(d, "abc", 3), TG_ENOMEM);
	assert_zero_digest(d);
	assert_non_null(strstr(tg_error_last(), "SHA-256: libcrypto failed"));
	memset(d, 0xff, sizeof(d));
	assert_int_equal(tg_hmac_sha256(d, "k", 1, "abc", 3), TG_ENOMEM);
	assert_zero_digest(d);
	assert_non_null(strstr(tg_error_last(), "HMAC-SHA256: libcrypto failed"));
	fail_allocs = 0;
	memset(d, 0xff, sizeof(d)); /* a key longer than HMAC() takes (never read) */
	assert_int_equal(tg_hmac_sha256(d, "k", (size_t)INT_MAX + 1, "abc", 3), TG_EINVAL);
	assert_zero_digest(d);
	assert_string_equal(tg_error_last(), "HMAC-SHA256: a key of 2147483648 bytes is more than libcrypto takes");
	fail_allocs = 1;
	/* streamed: the failure at the first bytes is kept and told at the end,
	 * even when another message came in between */
	tg_sha256_init(&c);
	tg_sha256_update(&c, "abc", 3);
	fail_allocs = 0;
	tg_sha256_update(&c, "def", 3);
	tg_error_set(TG_EFORMAT, "something else");
	memset(d, 0xff, sizeof(d));
	assert_int_equal(tg_sha256_final(d, &c), TG_ENOMEM);
	assert_zero_digest(d);
	assert_string_equal(tg_error_last(), "SHA-256: libcrypto failed while hashing (out of memory)");
	assert_null(c.md);
	/* and nothing is left over: the next hashes are right */
	tg_sha256_init(&c);
	tg_sha256_update(&c, "abc", 3);
	assert_int_equal(tg_sha256_final(d, &c), 0);
	tg_sha256_hex(h, d);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	hmac_hex(h, "Jefe", 4, "what do ya want for nothing?", 28);
	assert_string_equal(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

int main(void)
{
	/* before anything of libcrypto runs, or it refuses (returns 0) */
	int hooked = CRYPTO_set_mem_functions(test_malloc_fn, test_realloc_fn, test_free_fn);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_fips),
		cmocka_unit_test(test_sha256_padding_edges),
		cmocka_unit_test(test_sha256_context_reuse),
		cmocka_unit_test(test_hmac_rfc4231),
		cmocka_unit_test(test_mac_equal),
		cmocka_unit_test(test_out_of_memory),
	};
	if (!hooked) {
		fprintf(stderr, "test_sha256: libcrypto's allocator could not be hooked\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
