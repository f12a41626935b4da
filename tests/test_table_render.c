/*
 * test_table_render.c - tg_table_write_text_rows: the first rows of a
 * table, the columns as wide as those rows need. (The escaping and the
 * number form it uses have their own tests: test_escape.c,
 * test_fmt_double.c.)
 */
#include "testutil.h"

#include "../core/analysis/table.h"

/* The first rows of a table as text: the columns as wide as those rows
 * need (the long name of the third row widens nothing), the same bytes as
 * the whole table when rows covers it. */
static void test_text_rows(void **state)
{
	(void)state;
	const char *cols[] = {"name", "us", NULL};
	tg_table *t = tg_table_new_cols("t", "Title", cols);
	assert_non_null(t);
	const char *names[] = {"a", "bb", "a much longer name"};
	for (size_t i = 0; i < 3; i++) {
		int64_t r = tg_table_add_row(t);
		assert_true(r >= 0);
		assert_int_equal(tg_table_set_str(t, (size_t)r, 0, names[i]), 0);
		tg_table_set_num(t, (size_t)r, 1, 1.5 * (double)(i + 1));
	}
	char *buf = NULL, *all = NULL;
	size_t len = 0, alen = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(tg_table_write_text_rows(t, f, 80, 2), 0);
	fclose(f);
	assert_string_equal(buf, "Title\nname  us   \na     1.500\nbb    3.000\n");
	free(buf);
	f = open_memstream(&buf, &len);
	assert_int_equal(tg_table_write_text_rows(t, f, 80, 3), 0);
	fclose(f);
	FILE *g = open_memstream(&all, &alen);
	assert_int_equal(tg_table_write_text(t, g, 80), 0);
	fclose(g);
	assert_string_equal(buf, all);
	free(buf);
	free(all);
	tg_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
