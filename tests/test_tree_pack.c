/* test_tree_pack.c - the tree's packed columns (core/tree/tree_pack.c):
 * every value read back as given, TG_NONE included, from blocks of 16-bit
 * offsets and from wide blocks, and the bytes each kind of block costs. */
#include "testutil.h"
#include "../core/tree/tree_pack.h"

/* Packs v[0..n), checks every value reads back, and returns the wide
 * blocks' count. */
static size_t roundtrip(const uint32_t *v, size_t n)
{
	tg_tree_pack p;
	assert_int_equal(tg_tree_pack_build(&p, v, n), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(tg_tree_pack_get(&p, i), v[i]);
	size_t nb = (n + TG_TREE_PACK_BLOCK - 1) / TG_TREE_PACK_BLOCK;
	assert_int_equal(tg_tree_pack_bytes(&p), (p.nwide == nb ? 0 : 2 * n) + 4 * nb + 4 * TG_TREE_PACK_BLOCK * p.nwide);
	size_t nwide = p.nwide;
	tg_tree_pack_free(&p);
	assert_null(p.off);
	return nwide;
}

/* Parents as a tree has them: near their children, some roots. */
static void test_near_values(void **state)
{
	(void)state;
	size_t n = 1000;
	uint32_t *v = malloc(n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		v[i] = i % 7 == 0 ? TG_NONE : (uint32_t)(i > 30 ? i - 30 : 0) + 3000000000u / 2;
	assert_int_equal(roundtrip(v, n), 0);
	/* offsets up to 65,534 from the block's smallest fit; 65,535 is TG_NONE's */
	for (size_t i = 0; i < n; i++)
		v[i] = i % 64 == 5 ? 100 + 65534 : 100;
	assert_int_equal(roundtrip(v, n), 0);
	for (size_t i = 0; i < n; i++)
		v[i] = i % 64 == 5 ? 100 + 65535 : 100;
	assert_int_equal(roundtrip(v, n), (n + 63) / 64);
	/* more than half of the blocks wide: all of them, no offsets */
	for (size_t i = 0; i < n; i++)
		v[i] = i % 128 < 64 ? (uint32_t)i : (uint32_t)(i % 2) << 20;
	assert_int_equal(roundtrip(v, n), (n + 63) / 64 / 2);
	v[0] = 1u << 21;
	assert_int_equal(roundtrip(v, n), (n + 63) / 64);
	free(v);
}

/* A block whose values span too much, or hold a top bit, is kept whole;
 * the others stay packed around it; a block of TG_NONE alone packs. */
static void test_wide_blocks(void **state)
{
	(void)state;
	size_t n = 64 * 5 + 17; /* a short last block */
	uint32_t *v = malloc(n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	v[64 + 3] = 1u << 20;        /* block 1 spans a million */
	v[3 * 64 + 9] = 0x80000001u; /* block 3 holds a top bit */
	for (size_t i = 4 * 64; i < 5 * 64; i++)
		v[i] = TG_NONE;          /* block 4: nothing but TG_NONE */
	v[n - 1] = TG_NONE - 1;      /* the last, short block: wide */
	assert_int_equal(roundtrip(v, n), 3);
	free(v);
}

/* No values; one value. */
static void test_empty_and_one(void **state)
{
	(void)state;
	uint32_t one = 42;
	assert_int_equal(roundtrip(&one, 0), 0);
	assert_int_equal(roundtrip(&one, 1), 0);
	one = TG_NONE;
	assert_int_equal(roundtrip(&one, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_near_values),
		cmocka_unit_test(test_wide_blocks),
		cmocka_unit_test(test_empty_and_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
