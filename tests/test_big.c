/* test_big.c - the large-array allocator: small blocks and mapped ones keep
 * their bytes through growth across the threshold, mremap growth and
 * shrinking (a shrunk mapping resident only up to its 4 KiB page); calloc is zero; a mapped block starts 64 bytes past a 2 MiB
 * boundary and its mapping is advised for huge pages (smaps) only under
 * TG_HUGE_PAGES=1; overflowing
 * sizes fail with TG_ENOMEM; tg_big_grow doubles; mappings freed under
 * tg_big_keep are reused (the largest first, resized, their bytes kept;
 * calloc never takes one), as many as asked, and unmapped by
 * tg_big_keep(0), two threads at once too (make check-tsan). */
#include "testutil.h"

#include "../util/big.h"
#include "../util/tg.h"

#include <pthread.h>

#define MIB ((size_t)1 << 20)

#if defined(__SANITIZE_ADDRESS__)
#define MAPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MAPS 0
#endif
#endif
#ifndef MAPS
#define MAPS 1
#endif

static void fill(uint32_t *a, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		a[i] = (uint32_t)(i * 2654435761u);
}

static size_t first_bad(const uint32_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != (uint32_t)(i * 2654435761u))
			return i;
	return n;
}

/* Copies into line (size bytes) the line of /proc/self/smaps that starts
 * with field ("VmFlags:", "Rss:") in the mapping holding p: 1, or 0 when
 * there is none, -1 when smaps cannot be read. */
static int smaps_line(const void *p, const char *field, char *line, size_t size)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	int in = 0, found = 0;
	while (!found && fgets(line, (int)size, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else
			found = in && !strncmp(line, field, strlen(field));
	}
	fclose(f);
	return found;
}

/* Whether the mapping holding p is advised for huge pages ("hg" in its
 * VmFlags): -1 when smaps cannot be read. */
static int advised_huge(const void *p)
{
	char line[512];
	int rc = smaps_line(p, "VmFlags:", line, sizeof(line));
	return rc < 0 ? -1 : rc && strstr(line, " hg") != NULL;
}

/* The resident KiB of the mapping holding p (its "Rss:"), or -1. */
static long resident_kb(const void *p)
{
	char line[512];
	long rss = -1;
	if (smaps_line(p, "Rss:", line, sizeof(line)) == 1 && sscanf(line, "Rss: %ld kB", &rss) != 1)
		rss = -1;
	return rss;
}

static void test_small(void **state)
{
	(void)state;
	uint32_t *a = tg_big_alloc(1000 * sizeof(uint32_t));
	assert_non_null(a);
	assert_int_equal((uintptr_t)a % 16, 0);
	fill(a, 0, 1000);
	a = tg_big_realloc(a, 100000 * sizeof(uint32_t)); /* 400 KB: still malloc */
	assert_non_null(a);
	assert_int_equal(first_bad(a, 1000), 1000);
	fill(a, 1000, 100000);
	a = tg_big_realloc(a, 10 * sizeof(uint32_t));
	assert_non_null(a);
	assert_int_equal(first_bad(a, 10), 10);
	tg_big_free(a);
	tg_big_free(NULL);
	uint8_t *z = tg_big_calloc(3000, 7);
	assert_non_null(z);
	size_t nz = 0;
	for (size_t i = 0; i < 21000; i++)
		nz += z[i] != 0;
	assert_int_equal(nz, 0);
	tg_big_free(z);
}

/* tg_big_set_min moves the threshold: a 600 KiB block is malloc by
 * default and a mapping under `diff`'s 512 KiB; a malloc block grown past
 * the threshold moves into a mapping with its contents; n under 4 KiB
 * counts as 4 KiB. */
static void test_set_min(void **state)
{
	(void)state;
	size_t n = 600 * 1024 / sizeof(uint32_t);
	uint32_t *a = tg_big_alloc(n * sizeof(uint32_t));
	assert_non_null(a);
	if (MAPS)
		assert_int_not_equal((uintptr_t)a % (2 * MIB), 64);
	tg_big_set_min(512 * 1024);
	uint32_t *b = tg_big_alloc(n * sizeof(uint32_t));
	assert_non_null(b);
	if (MAPS)
		assert_int_equal((uintptr_t)b % (2 * MIB), 64);
	uint32_t *c = tg_big_alloc(1000 * sizeof(uint32_t)); /* under it: malloc */
	assert_non_null(c);
	if (MAPS)
		assert_int_not_equal((uintptr_t)c % (2 * MIB), 64);
	fill(c, 0, 1000);
	c = tg_big_realloc(c, n * sizeof(uint32_t));
	assert_non_null(c);
	if (MAPS)
		assert_int_equal((uintptr_t)c % (2 * MIB), 64);
	assert_int_equal(first_bad(c, 1000), 1000);
	tg_big_set_min(0);
	uint32_t *d = tg_big_alloc(4096);
	assert_non_null(d);
	if (MAPS)
		assert_int_equal((uintptr_t)d % (2 * MIB), 64);
	tg_big_set_min(TG_BIG_MIN);
	uint32_t *e = tg_big_alloc(n * sizeof(uint32_t));
	assert_non_null(e);
	if (MAPS)
		assert_int_not_equal((uintptr_t)e % (2 * MIB), 64);
	tg_big_free(a);
	tg_big_free(b);
	tg_big_free(c);
	tg_big_free(d);
	tg_big_free(e);
}

static void test_mapped(void **state)
{
	(void)state;
	size_t n = TG_BIG_MIN / sizeof(uint32_t) + 5; /* just past the threshold */
	uint32_t *a = tg_big_alloc(n * sizeof(uint32_t));
	assert_non_null(a);
	if (MAPS) {
		assert_int_equal((uintptr_t)a % (2 * MIB), 64);
		int hg = advised_huge(a);
		if (hg >= 0)
			assert_int_equal(hg, 0); /* huge pages only when asked for */
		setenv("TG_HUGE_PAGES", "1", 1);
		void *b = tg_big_alloc(TG_BIG_MIN);
		unsetenv("TG_HUGE_PAGES");
		assert_non_null(b);
		hg = advised_huge(b);
		if (hg >= 0)
			assert_int_equal(hg, 1);
		tg_big_free(b);
	}
	fill(a, 0, n);
	/* grown to 64 MiB (mremap), then shrunk below the threshold */
	size_t m = 64 * MIB / sizeof(uint32_t);
	a = tg_big_realloc(a, m * sizeof(uint32_t));
	assert_non_null(a);
	assert_int_equal(first_bad(a, n), n);
	fill(a, n, m);
	assert_int_equal(first_bad(a, m), m);
	/* shrunk to 40 MB and a few bytes: the tail past them is given back
	 * (the block's mapping ends on the 4 KiB page after its last byte) */
	size_t k = 10 * MIB + 3;
	a = tg_big_realloc(a, k * sizeof(uint32_t));
	assert_non_null(a);
	assert_int_equal(first_bad(a, k), k);
	if (MAPS) {
		long rss = resident_kb(a);
		assert_true(rss >= 40 * 1024 && rss <= 40 * 1024 + 4);
	}
	a = tg_big_realloc(a, 1000 * sizeof(uint32_t));
	assert_non_null(a);
	assert_int_equal(first_bad(a, 1000), 1000);
	tg_big_free(a);
	/* calloc of a mapped size: every byte zero, and writable */
	uint64_t *z = tg_big_calloc(TG_BIG_MIN / 8 * 3, 8);
	assert_non_null(z);
	uint64_t or = 0;
	for (size_t i = 0; i < TG_BIG_MIN / 8 * 3; i++)
		or |= z[i];
	assert_int_equal(or, 0);
	z[TG_BIG_MIN / 8 * 3 - 1] = 7;
	tg_big_free(z);
}

/* A malloc block grown past the threshold moves into a mapping with its
 * bytes. */
static void test_cross(void **state)
{
	(void)state;
	size_t n = 300000; /* 1.2 MB */
	uint32_t *a = tg_big_alloc(n * sizeof(uint32_t));
	assert_non_null(a);
	fill(a, 0, n);
	size_t m = 3 * n * 4; /* 14.4 MB */
	a = tg_big_realloc(a, m * sizeof(uint32_t));
	assert_non_null(a);
	if (MAPS)
		assert_int_equal((uintptr_t)a % (2 * MIB), 64);
	assert_int_equal(first_bad(a, n), n);
	fill(a, n, m);
	assert_int_equal(first_bad(a, m), m);
	tg_big_free(a);
}

static void test_grow(void **state)
{
	(void)state;
	uint32_t *a = NULL;
	size_t cap = 0;
	assert_int_equal(tg_big_grow((void **)&a, &cap, 1, sizeof(*a)), 0);
	assert_int_equal(cap, 16);
	for (size_t i = 0; i < 3000000; i++) { /* 12 MB: past the threshold */
		assert_int_equal(tg_big_grow((void **)&a, &cap, i + 1, sizeof(*a)), 0);
		a[i] = (uint32_t)(i * 2654435761u);
	}
	assert_int_equal(cap, 4194304);
	assert_int_equal(first_bad(a, 3000000), 3000000);
	assert_int_equal(tg_big_grow((void **)&a, &cap, 100, sizeof(*a)), 0);
	assert_int_equal(cap, 4194304);
	tg_big_free(a);
}

static void test_overflow(void **state)
{
	(void)state;
	tg_error_clear();
	assert_null(tg_big_calloc(SIZE_MAX / 2, 4));
	assert_int_equal(tg_error_last_code(), TG_ENOMEM);
	assert_null(tg_big_alloc(SIZE_MAX - 8));
	assert_int_equal(tg_error_last_code(), TG_ENOMEM);
	void *p = tg_big_alloc(100);
	assert_non_null(p);
	assert_null(tg_big_realloc(p, SIZE_MAX - 8)); /* p untouched, still ours */
	tg_big_free(p);
	uint64_t *a = NULL;
	size_t cap = 0;
	assert_int_equal(tg_big_grow((void **)&a, &cap, SIZE_MAX / 4, sizeof(*a)), TG_ENOMEM);
	assert_null(a);
	assert_int_equal(cap, 0);
}

/* A mapped block of n bytes, filled as fill() does (n a multiple of 4). */
static uint32_t *filled(size_t n)
{
	uint32_t *a = tg_big_alloc(n);
	assert_non_null(a);
	fill(a, 0, n / 4);
	return a;
}

static void test_keep_reuse(void **state)
{
	(void)state;
	tg_big_keep(2);
	uint32_t *a = filled(8 * MIB);
	tg_big_free(a);
	if (MAPS)
		assert_true(resident_kb(a) >= 8 * 1024); /* kept, resident */
	uint8_t *z = tg_big_calloc(8 * MIB, 1); /* calloc: a fresh mapping, zero */
	assert_non_null(z);
	assert_ptr_not_equal(z, a);
	size_t nz = 0;
	for (size_t i = 0; i < 8 * MIB; i += 512)
		nz += z[i] != 0;
	assert_int_equal(nz, 0);
	tg_big_free(z); /* kept beside a: two asked for */
	uint32_t *b = tg_big_alloc(8 * MIB);
	assert_non_null(b);
	if (MAPS) { /* the largest kept (a tie: the one kept first, a), as it is */
		assert_ptr_equal(b, a);
		assert_int_equal(first_bad(b, 2 * MIB), 2 * MIB);
	}
	fill(b, 0, 2 * MIB);
	tg_big_free(b);
	tg_big_keep(0);
	if (MAPS) {
		assert_int_equal(resident_kb(a), -1);
		assert_int_equal(resident_kb(z), -1);
	}
}

/* Once the kept mappings are all taken, a block freed after is unmapped,
 * not kept: the keep served the blocks mapped just after it. */
static void test_keep_ends_when_taken(void **state)
{
	(void)state;
	tg_big_keep(2);
	uint32_t *a = filled(4 * MIB), *b = filled(4 * MIB);
	tg_big_free(a);
	tg_big_free(b);
	uint32_t *x = tg_big_alloc(4 * MIB), *y = tg_big_alloc(4 * MIB); /* both taken */
	assert_non_null(x);
	assert_non_null(y);
	uint32_t *w = filled(4 * MIB); /* a fresh mapping */
	tg_big_free(w);
	if (MAPS) {
		assert_true((x == a && y == b) || (x == b && y == a));
		assert_int_equal(resident_kb(w), -1); /* unmapped at once */
	}
	tg_big_free(x);
	tg_big_free(y);
	if (MAPS) {
		assert_int_equal(resident_kb(x), -1);
		assert_int_equal(resident_kb(y), -1);
	}
	tg_big_keep(0);
}

static void test_keep_resize(void **state)
{
	(void)state;
	tg_big_keep(2);
	uint32_t *small = filled(4 * MIB + 4096), *big = filled(12 * MIB);
	memset(small, 0, 4 * MIB);
	tg_big_free(small);
	tg_big_free(big);
	/* grown: the largest kept (big, 12 MiB) remapped to 20 MiB, its bytes kept */
	uint32_t *g = tg_big_alloc(20 * MIB);
	assert_non_null(g);
	if (MAPS)
		assert_int_equal(first_bad(g, 3 * MIB), 3 * MIB);
	fill(g, 0, 5 * MIB);
	assert_int_equal(first_bad(g, 5 * MIB), 5 * MIB);
	/* a malloc block grown into a mapping takes the other (small), shrunk
	 * to 6 MiB in place: its first bytes are the malloc block's */
	uint32_t *m = tg_big_alloc(1000 * sizeof(uint32_t));
	assert_non_null(m);
	fill(m, 0, 1000);
	m = tg_big_realloc(m, 5 * MIB);
	assert_non_null(m);
	if (MAPS)
		assert_ptr_equal(m, small);
	assert_int_equal(first_bad(m, 1000), 1000);
	tg_big_free(g);
	tg_big_free(m);
	tg_big_keep(0);
	if (MAPS) {
		assert_int_equal(resident_kb(g), -1);
		assert_int_equal(resident_kb(m), -1);
	}
}

static void test_keep_limit(void **state)
{
	(void)state;
	tg_big_keep(TG_BIG_KEEP_MAX + 5); /* at most TG_BIG_KEEP_MAX */
	uint32_t *p[TG_BIG_KEEP_MAX + 1];
	for (size_t i = 0; i <= TG_BIG_KEEP_MAX; i++)
		p[i] = filled(TG_BIG_MIN);
	for (size_t i = 0; i <= TG_BIG_KEEP_MAX; i++)
		tg_big_free(p[i]);
	if (MAPS) {
		for (size_t i = 0; i < TG_BIG_KEEP_MAX; i++)
			assert_true(resident_kb(p[i]) > 0);
		assert_int_equal(resident_kb(p[TG_BIG_KEEP_MAX]), -1); /* one too many: unmapped */
	}
	tg_big_keep(1); /* the others unmapped now */
	size_t mapped = 0;
	for (size_t i = 0; MAPS && i < TG_BIG_KEEP_MAX; i++)
		mapped += resident_kb(p[i]) > 0;
	if (MAPS)
		assert_int_equal(mapped, 1);
	tg_big_keep(0);
	for (size_t i = 0; MAPS && i < TG_BIG_KEEP_MAX; i++)
		assert_int_equal(resident_kb(p[i]), -1);
	/* not keeping: a freed mapping goes at once */
	uint32_t *q = filled(TG_BIG_MIN);
	tg_big_free(q);
	if (MAPS)
		assert_int_equal(resident_kb(q), -1);
}

/* One thread's turns: mapped blocks allocated, written and freed. */
static void *churn(void *arg)
{
	size_t *bad = arg;
	for (int i = 0; i < 20; i++) {
		uint32_t *a = filled(TG_BIG_MIN + (size_t)(i % 3) * MIB);
		*bad += first_bad(a, TG_BIG_MIN / 4) != TG_BIG_MIN / 4;
		tg_big_free(a);
	}
	return NULL;
}

/* Two threads taking and giving back kept mappings at once (ThreadSanitizer:
 * make check-tsan), every block whole. */
static void test_keep_threads(void **state)
{
	(void)state;
	tg_big_keep(2);
	pthread_t t;
	size_t bad[2] = {0, 0};
	assert_int_equal(pthread_create(&t, NULL, churn, &bad[0]), 0);
	churn(&bad[1]);
	assert_int_equal(pthread_join(t, NULL), 0);
	tg_big_keep(0);
	assert_int_equal(bad[0] + bad[1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_mapped),
		cmocka_unit_test(test_set_min),
		cmocka_unit_test(test_cross),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_keep_reuse),
		cmocka_unit_test(test_keep_resize),
		cmocka_unit_test(test_keep_ends_when_taken),
		cmocka_unit_test(test_keep_limit),
		cmocka_unit_test(test_keep_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
