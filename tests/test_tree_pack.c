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
	for (size_t i = 0; i + 1 < n; i++) {
		uint32_t a, b;
		tg_tree_pack_pair(&a, &b, &p, i);
		if (v[i] != TG_NONE && v[i + 1] != TG_NONE) {
			assert_int_equal(a, v[i]);
			assert_int_equal(b, v[i + 1]);
		}
	}
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
	free(v);
	/* wide blocks costing more than the offsets save (half of them, for
	 * 16-bit offsets): all of them wide, no offsets */
	n = 1024;
	v = malloc(n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		v[i] = i % 128 < 64 ? (uint32_t)i : (uint32_t)(i % 2) << 20;
	assert_int_equal(roundtrip(v, n), n / 64 / 2);
	v[0] = 1u << 21;
	assert_int_equal(roundtrip(v, n), n / 64);
	free(v);
}

/* A block whose values span too much, or hold a top bit, is kept whole;
 * the others stay packed around it; a block of TG_NONE alone packs. */
static void test_wide_blocks(void **state)
{
	(void)state;
	size_t n = 64 * 16 + 17; /* a short last block */
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

/* Steps in a byte: -1 comes back as TG_NONE, a block 255 steps apart or
 * more whole, from 16-bit steps or 32-bit ones. */
static void test_steps(void **state)
{
	(void)state;
	size_t n = 64 * 8 + 3;
	int16_t *s16 = malloc(n * sizeof(int16_t));
	int32_t *s32 = malloc(n * sizeof(int32_t));
	for (size_t i = 0; i < n; i++)
		s16[i] = (int16_t)(i % 5 == 0 ? -1 : (int)(i / 3));
	s16[64 + 1] = 64 / 3 + 254; /* block 1: 254 steps from its smallest, fits */
	s16[2 * 64 + 1] = 2 * 64 / 3 + 255; /* block 2: 255, wide */
	s16[n - 1] = 30000;
	for (size_t i = 0; i < n; i++)
		s32[i] = i == 7 ? 100000 : s16[i];
	for (int way = 0; way < 2; way++) {
		tg_tree_pack p;
		assert_int_equal(tg_tree_pack_steps(&p, way ? NULL : s16, way ? s32 : NULL, n), 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal((int32_t)tg_tree_pack_get8(&p, i), way ? s32[i] : s16[i]);
		assert_int_equal(p.nwide, way ? 3 : 2); /* block 0 too with 32-bit steps, and the last */
		assert_non_null(p.off8);
		assert_null(p.off);
		assert_int_equal(tg_tree_pack_bytes(&p), n + 4 * 9 + 4 * 64 * p.nwide);
		tg_tree_pack_free(&p);
	}
	free(s16);
	free(s32);
}

/* Child offsets in a byte: growing by a few an event, one block growing by
 * 255 or more (a graph launch's kernels) whole; read in pairs. */
static void test_offsets8(void **state)
{
	(void)state;
	size_t n = 64 * 10 + 1;
	uint32_t *v = malloc(n * sizeof(uint32_t));
	v[0] = 0;
	for (size_t i = 1; i < n; i++)
		v[i] = v[i - 1] + (i % 3) + (i == 64 * 4 + 7 ? 300 : 0);
	tg_tree_pack p;
	assert_int_equal(tg_tree_pack_build8(&p, v, n), 0);
	assert_int_equal(p.nwide, 1);
	assert_non_null(p.off8);
	assert_int_equal(tg_tree_pack_bytes(&p), n + 4 * 11 + 4 * 64);
	for (size_t i = 0; i + 1 < n; i++) {
		uint32_t a, b;
		tg_tree_pack_pair8(&a, &b, &p, i);
		assert_int_equal(a, v[i]);
		assert_int_equal(b, v[i + 1]);
		assert_int_equal(tg_tree_pack_get8(&p, i), v[i]);
	}
	tg_tree_pack_free(&p);
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
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_offsets8),
		cmocka_unit_test(test_empty_and_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
