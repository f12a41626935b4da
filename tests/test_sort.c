/* test_sort.c - the radix sort of (key, index) pairs against a stable
 * comparison sort on the same keys (random keys with many ties, signed and
 * double keys, two-key orders), the plain-key sort against qsort, the
 * in-place permutation (gathered and by cycles), and selection against a full sort. */
#include "testutil.h"

#include "../util/sort.h"

#include <math.h>
#include <stdlib.h>

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct rec {
	int64_t major, minor;
	uint32_t pos;
};

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos); /* stable */
}

/* Two signed keys with few distinct values (ties) and wide ones (every
 * byte in play), sorted minor then major, equal to a stable sort (300,000:
 * the top digit's pass first, stable too). */
static void test_two_keys(void **state)
{
	(void)state;
	size_t sizes[] = {0, 1, 2, 3, 24, 25, 100, 256, 257, 5000, 100000, 300000};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		struct rec *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
		tg_sort_pair *kv = malloc((n + 1) * sizeof(*kv));
		for (size_t i = 0; i < n; i++) {
			a[i].major = (int64_t)(next() % 7) - 3;
			a[i].minor = (i % 3) ? (int64_t)next() : (int64_t)(next() % 5) - 2;
			a[i].pos = (uint32_t)i;
			b[i] = a[i];
		}
		qsort(b, n, sizeof(*b), cmp_rec);
		for (size_t i = 0; i < n; i++)
			kv[i] = (tg_sort_pair){tg_sort_key_i64(a[i].minor), (uint32_t)i};
		assert_int_equal(tg_sort_pairs(kv, n), 0);
		for (size_t i = 0; i < n; i++)
			kv[i].key = tg_sort_key_i64(a[kv[i].idx].major);
		assert_int_equal(tg_sort_pairs(kv, n), 0);
		assert_int_equal(tg_sort_apply(a, n, sizeof(*a), kv), 0);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(a[i].major, b[i].major);
			assert_int_equal(a[i].minor, b[i].minor);
			assert_int_equal(a[i].pos, b[i].pos);
		}
		free(a);
		free(b);
		free(kv);
	}
}

static uint64_t rec_key(const void *el, int level, void *ctx)
{
	(void)ctx;
	const struct rec *x = el;
	return tg_sort_key_i64(level == 0 ? x->major : x->minor);
}

/* tg_sort_by_keys: the same order as the stable sort, whether the two
 * levels pack into one key (narrow minor keys) or not (wide ones). */
static void test_by_keys(void **state)
{
	(void)state;
	for (int wide = 0; wide < 2; wide++) {
		size_t n = 50000;
		struct rec *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
		for (size_t i = 0; i < n; i++) {
			a[i].major = (int64_t)(next() % 11) - 5;
			a[i].minor = wide ? (int64_t)next() : (int64_t)(next() % 100000) - 50000;
			a[i].pos = (uint32_t)i;
			b[i] = a[i];
		}
		qsort(b, n, sizeof(*b), cmp_rec);
		assert_int_equal(tg_sort_by_keys(a, n, sizeof(*a), 2, rec_key, NULL), 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(a[i].pos, b[i].pos);
		free(a);
		free(b);
	}
}

/* 300,000 pairs (the top digit's pass first) whose top buckets but the
 * first hold a few keys each (insertion sorted), with ties: the order of
 * a stable sort. */
static void test_pairs_small_buckets(void **state)
{
	(void)state;
	size_t n = 300000;
	struct rec *a = malloc(n * sizeof(*a));
	tg_sort_pair *kv = malloc(n * sizeof(*kv));
	for (size_t i = 0; i < n; i++) {
		uint64_t k = i < 20000 ? ((uint64_t)(i % 2048) << 40) | (next() % 4) : next() % 4;
		a[i] = (struct rec){(int64_t)k, 0, (uint32_t)i};
		kv[i] = (tg_sort_pair){k, (uint32_t)i};
	}
	qsort(a, n, sizeof(*a), cmp_rec);
	assert_int_equal(tg_sort_pairs(kv, n), 0);
	for (size_t i = 0; i < n; i++) {
		assert_true(kv[i].key == (uint64_t)a[i].major);
		assert_int_equal(kv[i].idx, a[i].pos);
	}
	free(a);
	free(kv);
}

static int cmp_u64(const void *a, const void *b);

static int cmp_pair(const void *a, const void *b)
{
	const tg_sort_pair *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx); /* stable */
}

/* Keys in order or nearly (the insertion first): in order with ties; a
 * few swapped neighbours; a few far from their place (the insertion's
 * budget, n moves, runs out: the radix passes finish from where it
 * stopped); one out of place at the end. Pairs against a stable sort,
 * plain keys against qsort. */
static void test_nearly_sorted(void **state)
{
	(void)state;
	size_t n = 100000;
	tg_sort_pair *kv = malloc(n * sizeof(*kv)), *ref = malloc(n * sizeof(*ref));
	uint64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	for (int kind = 0; kind < 4; kind++) {
		for (size_t i = 0; i < n; i++) {
			uint64_t k = (uint64_t)(i / 3) * 10; /* ties of three */
			if (kind == 1 && i % 1000 == 7)
				k = (uint64_t)((i + 3) / 3) * 10 + 5; /* above the next few */
			if (kind == 2 && i >= n - 200)
				k = next() % 50; /* 200 keys that belong near the front */
			if (kind == 3 && i == n - 1)
				k = 15;
			kv[i] = ref[i] = (tg_sort_pair){k, (uint32_t)i};
			a[i] = b[i] = k;
		}
		qsort(ref, n, sizeof(*ref), cmp_pair);
		qsort(b, n, sizeof(*b), cmp_u64);
		assert_int_equal(tg_sort_pairs(kv, n), 0);
		assert_int_equal(tg_sort_u64(a, n), 0);
		for (size_t i = 0; i < n; i++) {
			assert_true(kv[i].key == ref[i].key);
			assert_int_equal(kv[i].idx, ref[i].idx);
			assert_true(a[i] == b[i]);
		}
	}
	free(kv);
	free(ref);
	free(a);
	free(b);
}

/* All keys equal: nothing moves. */
static void test_constant(void **state)
{
	(void)state;
	tg_sort_pair kv[64];
	for (uint32_t i = 0; i < 64; i++)
		kv[i] = (tg_sort_pair){42, 63 - i};
	assert_int_equal(tg_sort_pairs(kv, 64), 0);
	for (uint32_t i = 0; i < 64; i++)
		assert_int_equal(kv[i].idx, 63 - i);
}

static void test_double_keys(void **state)
{
	(void)state;
	const double v[] = {3.5, -0.0, 1e300, -1e-300, 0.0, -7.25, 2.0, -1e300, 0.5, -0.5};
	const size_t n = sizeof(v) / sizeof(v[0]);
	tg_sort_pair kv[10];
	for (size_t i = 0; i < n; i++)
		kv[i] = (tg_sort_pair){tg_sort_key_double(v[i]), (uint32_t)i};
	assert_int_equal(tg_sort_pairs(kv, n), 0);
	for (size_t i = 1; i < n; i++)
		assert_true(v[kv[i - 1].idx] <= v[kv[i].idx]);
	assert_true(v[kv[0].idx] == -1e300);
	assert_true(v[kv[n - 1].idx] == 1e300);
	/* -0 sorts before +0 */
	assert_true(signbit(v[kv[4].idx]) && v[kv[4].idx] == 0 && !signbit(v[kv[5].idx]));
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Plain keys: small ranges (few passes), full-width ones, all equal. */
static void test_u64(void **state)
{
	(void)state;
	/* 300,000 keys: the top digit's pass first (nearly sorted
	 * times packed with their position, as the critical path's; wide random
	 * keys; a narrow range; one key apart from the rest in a bucket of its
	 * own; descending keys, every one moved; 16 wide values, each repeated
	 * in its own bucket; a few keys in each top bucket but the first,
	 * sorted by insertion; runs of 100 descending keys, a top bucket each,
	 * past the insertion's budget, by bytes); and the small sizes: by insertion (up to 24),
	 * on the stack (up to 256), allocated */
	size_t sizes[] = {0, 1, 2, 7, 24, 25, 200, 256, 257, 1000, 70000, 300000};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int kind = 0; kind < 9; kind++) {
			size_t n = sizes[s];
			uint64_t *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
			for (size_t i = 0; i < n; i++)
				a[i] = b[i] = kind == 0   ? UINT64_C(1700000000000000) + next() % 3000000
				              : kind == 1 ? next()
				              : kind == 2 ? 42
				              : kind == 3 ? ((i * 1000 + next() % 5000) << 20) | i
				              : kind == 4 ? (i == n / 2 ? UINT64_C(1) << 40 : next() % 100000)
				              : kind == 5 ? ((uint64_t)(n - i) << 24) + next() % 1000
				              : kind == 6 ? (next() % 16) << 36
				              : kind == 7 ? (i < 20000 ? ((uint64_t)(i % 2048) << 40) | (next() % 1000)
				                                       : next() % 1000)
				                          : ((uint64_t)(i / 100) << 30) | (1000 - i % 100);
			qsort(b, n, sizeof(*b), cmp_u64);
			assert_int_equal(tg_sort_u64(a, n), 0);
			for (size_t i = 0; i < n; i++)
				assert_true(a[i] == b[i]);
			free(a);
			free(b);
		}
	uint64_t two[] = {UINT64_MAX, 0};
	assert_int_equal(tg_sort_u64(two, 2), 0);
	assert_true(two[0] == 0 && two[1] == UINT64_MAX);
}

/* tg_sort_u64_within: nearly sorted keys sorted within the budget; past
 * it 0, the keys still a permutation of the input. */
static void test_u64_within(void **state)
{
	(void)state;
	uint64_t v[64], sum = 0;
	for (int i = 0; i < 64; i++)
		v[i] = (uint64_t)(i ^ 1); /* each pair swapped: 32 moves */
	assert_int_equal(tg_sort_u64_within(v, 64, 64), 1);
	for (int i = 0; i < 64; i++)
		assert_int_equal(v[i], i);
	for (int i = 0; i < 64; i++)
		v[i] = (uint64_t)(63 - i); /* reversed: 2,016 moves */
	assert_int_equal(tg_sort_u64_within(v, 64, 100), 0);
	uint64_t seen = 0;
	for (int i = 0; i < 64; i++) {
		sum += v[i];
		seen |= UINT64_C(1) << v[i];
	}
	assert_int_equal(sum, 63 * 64 / 2);
	assert_true(seen == UINT64_MAX);
	assert_int_equal(tg_sort_u64_within(v, 64, 64 * 64), 1);
	for (int i = 0; i < 64; i++)
		assert_int_equal(v[i], i);
}

static void test_select(void **state)
{
	(void)state;
	size_t sizes[] = {1, 2, 3, 10, 1001, 20000};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		int64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
		for (int mode = 0; mode < 6; mode++) {
			for (size_t i = 0; i < n; i++)
				a[i] = mode == 0   ? (int64_t)(next() % 1000000)
				       : mode == 1 ? (int64_t)(next() % 3)                      /* ties */
				       : mode == 2 ? (int64_t)i                                  /* sorted */
				       : mode == 3 ? (int64_t)(n - i)                            /* reversed */
				       : mode == 4 ? (int64_t)(i < n / 2 ? i : n - i)           /* organ pipe */
				                   : (int64_t)((i % 2 ? i : n + i) * (i % 7 + 1)); /* zig-zag */
			memcpy(b, a, n * sizeof(*a));
			qsort(b, n, sizeof(*b), cmp_i64);
			size_t ks[] = {0, (n - 1) / 2, n / 2, n - 1};
			for (size_t q = 0; q < 4; q++) {
				size_t k = ks[q];
				assert_int_equal(tg_select_i64(a, n, k), b[k]);
				for (size_t i = 0; i < k; i++)
					assert_true(a[i] <= a[k]);
				for (size_t i = k + 1; i < n; i++)
					assert_true(a[i] >= a[k]);
			}
		}
		free(a);
		free(b);
	}
}

/* The median: NAN of nothing, the middle value, the mean of the two
 * middle ones (each a double first, so values near INT64_MAX do not
 * overflow), the same as sorting. */
static void test_median(void **state)
{
	(void)state;
	assert_true(isnan(tg_median_i64(NULL, 0)));
	int64_t one[] = {7};
	assert_true(tg_median_i64(one, 1) == 7.0);
	int64_t odd[] = {9, 1, 5, 3, 7};
	assert_true(tg_median_i64(odd, 5) == 5.0);
	int64_t even[] = {8, 2, 6, 4};
	assert_true(tg_median_i64(even, 4) == 5.0);
	int64_t big[] = {INT64_MAX, INT64_MAX - 2};
	assert_true(tg_median_i64(big, 2) == ((double)INT64_MAX + (double)(INT64_MAX - 2)) / 2.0);
	size_t n = 100000;
	int64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	for (size_t m = n - 1; m <= n; m++) {
		for (size_t i = 0; i < m; i++)
			a[i] = (int64_t)(next() % 5000) - 2500;
		memcpy(b, a, m * sizeof(*a));
		qsort(b, m, sizeof(*b), cmp_i64);
		double want = m % 2 ? (double)b[m / 2] : ((double)b[m / 2 - 1] + (double)b[m / 2]) / 2.0;
		assert_true(tg_median_i64(a, m) == want);
	}
	free(a);
	free(b);
}

/* The permutation applied to elements of 4, 8, 12, 16 (gathered into the
 * pairs) and 20 bytes (the permutation's cycles): position k holds the
 * element that was at kv[k].idx, byte for byte. */
static void test_apply_sizes(void **state)
{
	(void)state;
	size_t sizes[] = {4, 8, 12, 16, 20}, n = 5000;
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t size = sizes[z];
		unsigned char *a = malloc(n * size), *orig = malloc(n * size);
		tg_sort_pair *kv = malloc(n * sizeof(*kv));
		uint32_t *perm = malloc(n * sizeof(*perm));
		for (size_t i = 0; i < n * size; i++)
			orig[i] = (unsigned char)next();
		memcpy(a, orig, n * size);
		for (size_t i = 0; i < n; i++)
			perm[i] = (uint32_t)i;
		for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
			size_t j = next() % (i + 1);
			uint32_t t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		for (size_t i = 0; i < n; i++)
			kv[i] = (tg_sort_pair){i, perm[i]};
		assert_int_equal(tg_sort_apply(a, n, size, kv), 0);
		size_t bad = 0;
		for (size_t k = 0; k < n; k++)
			bad += memcmp(a + k * size, orig + (size_t)perm[k] * size, size) != 0;
		assert_int_equal(bad, 0);
		free(a);
		free(orig);
		free(kv);
		free(perm);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_keys),
		cmocka_unit_test(test_by_keys),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_double_keys),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_pairs_small_buckets),
		cmocka_unit_test(test_nearly_sorted),
		cmocka_unit_test(test_apply_sizes),
		cmocka_unit_test(test_u64_within),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_median),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
