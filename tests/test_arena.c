/* test_arena.c - the bump allocator: alignment, big allocations, byte count. */
#include "testutil.h"

#include "../util/arena.h"

#include <stdint.h>

static void test_alloc(void **state)
{
	(void)state;
	tg_arena *a = tg_arena_new(0);
	assert_non_null(a);
	char *prev = NULL;
	for (int i = 0; i < 10000; i++) {
		char *p = tg_arena_alloc(a, (size_t)(i % 37) + 1);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 8, 0);
		memset(p, 0xab, (size_t)(i % 37) + 1);
		assert_true(p != prev);
		prev = p;
	}
	char *big = tg_arena_alloc(a, 1 << 20); /* larger than a block */
	assert_non_null(big);
	memset(big, 1, 1 << 20);
	assert_true(tg_arena_bytes(a) >= (1 << 20) + 10000);
	tg_arena_free(a);
	tg_arena_free(NULL);
}

static void test_error_message(void **state)
{
	(void)state;
	tg_error_clear();
	assert_string_equal(tg_error_last(), "");
	assert_int_equal(tg_error_set(TG_EFORMAT, "%s: byte %d: %s", "f.json", 12, "bad"), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "f.json: byte 12: bad");
	assert_int_equal(tg_error_last_code(), TG_EFORMAT);
	void *items = NULL;
	size_t cap = 0;
	assert_int_equal(tg_grow(&items, &cap, 100, 8), 0);
	assert_true(cap >= 100);
	free(items);
}

/* Blocks grow from 4 KiB, doubling up to the arena's block size: a few
 * small strings hold one block of 4 KiB; more hold 4 + 8 + ... KiB, then
 * blocks of the size asked for. */
static void test_block_growth(void **state)
{
	(void)state;
	tg_arena *a = tg_arena_new(256 * 1024);
	assert_non_null(tg_arena_alloc(a, 100));
	assert_int_equal(tg_arena_bytes(a), 4096);
	for (int i = 0; i < 40; i++) /* 40 x 100 bytes more: the first block and an 8 KiB one */
		assert_non_null(tg_arena_alloc(a, 100));
	assert_int_equal(tg_arena_bytes(a), 4096 + 8192);
	size_t want = 4096 + 8192, next = 16384;
	while (tg_arena_bytes(a) < 2 * 1024 * 1024) {
		size_t before = tg_arena_bytes(a);
		assert_non_null(tg_arena_alloc(a, 4000));
		if (tg_arena_bytes(a) != before) {
			want += next;
			assert_int_equal(tg_arena_bytes(a), want);
			next = next * 2 > 256 * 1024 ? 256 * 1024 : next * 2;
		}
	}
	tg_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_block_growth),
		cmocka_unit_test(test_error_message),
	};
	return cmocka_run_group_tests_name("arena_and_error", tests, NULL, NULL);
}
