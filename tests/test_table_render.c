/*
 * test_table_render.c - tg_table_write_text_rows: the first rows of a
 * table, the columns as wide as those rows need; tg_table_write_csv's
 * quoting (RFC 4180: a field with a comma, a quote or a line break in
 * quotes, its quotes doubled). (The escaping and the
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

/* Every field that needs quotes gets them, and each quote in it doubled,
 * at its start, its end, side by side and in a long field (the kernel
 * sequences: kilobytes of names with commas, written a span at a time). */
static void test_csv_quoting(void **state)
{
	(void)state;
	const char *cols[] = {"name", "a,b", NULL};
	tg_table *t = tg_table_new_cols("t", "Title", cols);
	assert_non_null(t);
	const char *cells[][2] = {{"plain", "\"lead"}, {"tail\"", "two\"\"side"}, {"line\nbreak", "cr\r"}};
	for (size_t i = 0; i < 3; i++) {
		int64_t r = tg_table_add_row(t);
		assert_true(r >= 0);
		assert_int_equal(tg_table_set_str(t, (size_t)r, 0, cells[i][0]), 0);
		assert_int_equal(tg_table_set_str(t, (size_t)r, 1, cells[i][1]), 0);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(tg_table_write_csv(t, f), 0);
	fclose(f);
	assert_string_equal(buf, "name,\"a,b\"\nplain,\"\"\"lead\"\n\"tail\"\"\",\"two\"\"\"\"side\"\n"
	                         "\"line\nbreak\",\"cr\r\"\n");
	free(buf);
	tg_table_free(t);
	/* a long field: 2,000 names "k<i>, x" with a quote every 100th */
	t = tg_table_new_cols("t", "Title", (const char *[]){"kernels", NULL});
	char *big = malloc(20000), *want = malloc(40000);
	size_t o = 0, w = 0;
	want[w++] = '"';
	for (int i = 0; i < 2000; i++) {
		int n = snprintf(big + o, 20000 - o, i % 100 ? "k%d, " : "k\"%d, ", i % 10);
		for (int k = 0; k < n; k++) {
			if (big[o + k] == '"')
				want[w++] = '"';
			want[w++] = big[o + k];
		}
		o += (size_t)n;
	}
	snprintf(want + w, 40000 - w, "\"\n");
	int64_t r = tg_table_add_row(t);
	assert_int_equal(tg_table_set_str(t, (size_t)r, 0, big), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(tg_table_write_csv(t, f), 0);
	fclose(f);
	assert_int_equal(strncmp(buf, "kernels\n", 8), 0);
	assert_string_equal(buf + 8, want);
	assert_int_equal(len, 8 + w + 2);
	free(buf);
	free(big);
	free(want);
	tg_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_rows),
		cmocka_unit_test(test_csv_quoting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
