/* test_bits.c - util/bits.h's inline bit counts against the compiler's
 * builtin and a bit-by-bit loop: every single bit, the edge words, and a
 * million random words of every density (sparse, dense, uniform). */
#include "testutil.h"

#include "../util/bits.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The bits of x counted one by one. */
static uint32_t slow_count(uint64_t x)
{
	uint32_t n = 0;
	for (int b = 0; b < 64; b++)
		n += (uint32_t)((x >> b) & 1);
	return n;
}

static void test_edges(void **state)
{
	(void)state;
	assert_int_equal(tg_popcount64(0), 0);
	assert_int_equal(tg_popcount64(UINT64_MAX), 64);
	assert_int_equal(tg_popcount64(UINT64_C(0x8000000000000000)), 1);
	assert_int_equal(tg_popcount64(UINT64_C(0x5555555555555555)), 32);
	assert_int_equal(tg_popcount64(UINT64_C(0xaaaaaaaaaaaaaaaa)), 32);
	assert_int_equal(tg_popcount64(UINT64_C(0x00000000ffffffff)), 32);
	assert_int_equal(tg_popcount64(UINT64_C(0xff00ff00ff00ff01)), 33);
	for (int b = 0; b < 64; b++) {
		assert_int_equal(tg_popcount64(UINT64_C(1) << b), 1);
		assert_int_equal(tg_popcount64(~(UINT64_C(1) << b)), 63);
		/* the low b bits set: b of them */
		assert_int_equal(tg_popcount64((UINT64_C(1) << b) - 1), (uint32_t)b);
	}
}

/* A million random words: uniform (32 bits on average), sparse (an AND of
 * three: 8) and dense (an OR of three: 56), each equal to the builtin's
 * count and to the bit-by-bit one. */
static void test_random_words(void **state)
{
	(void)state;
	uint64_t sum = 0;
	for (int i = 0; i < 1000000; i++) {
		uint64_t a = next(), b = next(), c = next();
		uint64_t w[3] = {a, a & b & c, a | b | c};
		for (int k = 0; k < 3; k++) {
			uint32_t n = tg_popcount64(w[k]);
			assert_int_equal(n, (uint32_t)__builtin_popcountll(w[k]));
			if (i < 20000)
				assert_int_equal(n, slow_count(w[k]));
			sum += n;
		}
	}
	/* 32 + 8 + 56 bits a triple on average, within 0.1 % over 3 million words */
	assert_true(sum > 95900000 && sum < 96100000);
}

/* The rank of a bit within its word: the bits set below it. */
static void test_bits_below(void **state)
{
	(void)state;
	uint64_t w = UINT64_C(0xf0f0000000000301);
	assert_int_equal(tg_bits_below(w, 0), 0);
	assert_int_equal(tg_bits_below(w, 1), 1);
	assert_int_equal(tg_bits_below(w, 9), 2);
	assert_int_equal(tg_bits_below(w, 10), 3);
	assert_int_equal(tg_bits_below(w, 56), 7); /* 0, 8, 9, 52-55 */
	assert_int_equal(tg_bits_below(w, 63), 10);
	for (int i = 0; i < 100000; i++) {
		uint64_t x = next();
		unsigned b = (unsigned)(next() & 63);
		assert_int_equal(tg_bits_below(x, b), slow_count(x & ((UINT64_C(1) << b) - 1)));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random_words),
		cmocka_unit_test(test_bits_below),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
