/* test_atoms.c - string interning: equal strings, equal atoms; growth;
 * binary-safe; lookups without insertion. */
#include "testutil.h"

#include "../util/atoms.h"

static void test_intern_same_atom(void **state)
{
	(void)state;
	tg_atoms *t = tg_atoms_new();
	uint32_t a, b, c;
	assert_int_equal(tg_atoms_intern(&a, t, "aten::mm", 8), 0);
	assert_int_equal(tg_atoms_intern(&b, t, "aten::mm", 8), 0);
	assert_int_equal(tg_atoms_intern(&c, t, "aten::mm_", 9), 0);
	assert_int_equal(a, b);
	assert_int_not_equal(a, c);
	assert_string_equal(tg_atoms_str(t, a), "aten::mm");
	assert_int_equal(tg_atoms_len(t, c), 9);
	assert_int_equal(tg_atoms_count(t), 2);
	tg_atoms_free(t);
}

static void test_binary_and_empty(void **state)
{
	(void)state;
	tg_atoms *t = tg_atoms_new();
	uint32_t e, z1, z2;
	assert_int_equal(tg_atoms_intern(&e, t, "", 0), 0);
	assert_int_equal(tg_atoms_intern(&z1, t, "a\0b", 3), 0);
	assert_int_equal(tg_atoms_intern(&z2, t, "a\0c", 3), 0);
	assert_int_not_equal(z1, z2);
	assert_int_equal(tg_atoms_len(t, e), 0);
	assert_string_equal(tg_atoms_str(t, e), "");
	assert_string_equal(tg_atoms_str(t, TG_NONE), "");
	assert_int_equal(tg_atoms_find(t, "a\0c", 3), z2);
	assert_int_equal(tg_atoms_find(t, "nope", 4), TG_NONE);
	tg_atoms_free(t);
}

static void test_growth_keeps_atoms(void **state)
{
	(void)state;
	tg_atoms *t = tg_atoms_new();
	char buf[64];
	for (uint32_t i = 0; i < 100000; i++) {
		int n = snprintf(buf, sizeof(buf), "kernel_%u_with_a_longer_name", i);
		uint32_t a;
		assert_int_equal(tg_atoms_intern(&a, t, buf, (size_t)n), 0);
		assert_int_equal(a, i);
	}
	assert_int_equal(tg_atoms_count(t), 100000);
	for (uint32_t i = 0; i < 100000; i += 997) {
		int n = snprintf(buf, sizeof(buf), "kernel_%u_with_a_longer_name", i);
		assert_int_equal(tg_atoms_find(t, buf, (size_t)n), i);
		assert_string_equal(tg_atoms_str(t, i), buf);
	}
	tg_atoms_free(t);
}

static void test_hash_differs_on_every_byte(void **state)
{
	(void)state;
	char a[40], b[40];
	memset(a, 'x', sizeof(a));
	for (size_t len = 1; len <= sizeof(a); len++)
		for (size_t i = 0; i < len; i++) {
			memcpy(b, a, sizeof(a));
			b[i] = 'y';
			assert_true(tg_hash_bytes(a, len) != tg_hash_bytes(b, len));
		}
	assert_true(tg_hash_bytes(a, 8) != tg_hash_bytes(a, 9));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern_same_atom),
		cmocka_unit_test(test_binary_and_empty),
		cmocka_unit_test(test_growth_keeps_atoms),
		cmocka_unit_test(test_hash_differs_on_every_byte),
	};
	return cmocka_run_group_tests_name("atoms", tests, NULL, NULL);
}
