/*
 * test_table_fit.c - render/table_fit.c: middle elision of UTF-8 text, and a
 * table drawn within a width (strings widened left to right, columns left
 * out from the right, numbers never cut, rows capped, the note saying
 * what was left out).
 */
#include "testutil.h"

#include "../render/table_fit.h"

#include <stdlib.h>
#include <string.h>

static void test_elide(void **state)
{
	(void)state;
	char out[256];
	tg_text_elide(out, sizeof(out), "aten::_flash_attention_backward", 40);
	assert_string_equal(out, "aten::_flash_attention_backward"); /* fits: whole */
	tg_text_elide(out, sizeof(out), "aten::_flash_attention_backward", 31);
	assert_string_equal(out, "aten::_flash_attention_backward");
	tg_text_elide(out, sizeof(out), "aten::_flash_attention_backward", 11);
	assert_string_equal(out, "aten:\xe2\x80\xa6kward"); /* 5 + ellipsis + 5 */
	assert_int_equal(tg_text_width(out), 11);
	tg_text_elide(out, sizeof(out), "abcdefghij", 6);
	assert_string_equal(out, "abc\xe2\x80\xa6ij"); /* the start gets the odd point */
	tg_text_elide(out, sizeof(out), "abcdefghij", 1);
	assert_string_equal(out, "\xe2\x80\xa6");
	tg_text_elide(out, sizeof(out), "abcdefghij", 0);
	assert_string_equal(out, "");
	/* whole UTF-8 characters: µ is two bytes, one column */
	tg_text_elide(out, sizeof(out), "\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5", 4);
	assert_string_equal(out, "\xc2\xb5\xc2\xb5\xe2\x80\xa6\xc2\xb5");
	assert_int_equal(tg_text_width(out), 4);
	/* a small buffer is never overrun */
	char small[5];
	tg_text_elide(small, sizeof(small), "abcdefghij", 8);
	assert_int_equal(strlen(small), 4);
}

/* Writes t fitted into a string (freed by the caller). */
static char *fitted(const tg_table *t, size_t width, size_t rows)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	assert_non_null(f);
	assert_int_equal(tg_table_write_fit(t, f, width, rows), 0);
	fclose(f);
	return s;
}

/* The widest line of s, in code points. */
static size_t widest(const char *s)
{
	size_t w = 0;
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "\n");
		char line[4096];
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (tg_text_width(line) > w)
			w = tg_text_width(line);
		p += n + (p[n] == '\n');
	}
	return w;
}

static tg_table *kernels_table(size_t nrows)
{
	static const char *const cols[] = {"op", "kernel", "calls", "sum us", "note", NULL};
	tg_table *t = tg_table_new_cols("k", "Kernels", cols);
	assert_non_null(t);
	for (size_t r = 0; r < nrows; r++) {
		assert_int_equal(tg_table_add_row(t), (int64_t)r);
		assert_int_equal(tg_table_set_str(t, r, 0, r ? "aten::mm" : "aten::_flash_attention_backward"), 0);
		assert_int_equal(tg_table_set_str(t, r, 1,
		                                  "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<"
		                                  "Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 4, 4, false>>"),
		                 0);
		tg_table_set_int(t, r, 2, 24 + (int64_t)r);
		tg_table_set_num(t, r, 3, 2420.052 + (double)r);
		assert_int_equal(tg_table_set_str(t, r, 4, "a note that says little but takes room"), 0);
	}
	return t;
}

static void test_fit(void **state)
{
	(void)state;
	tg_table *t = kernels_table(3);
	/* wide enough: every column whole */
	char *s = fitted(t, 400, 0);
	assert_non_null(strstr(s, "aten::_flash_attention_backward  void pytorch_flash::"));
	assert_null(strstr(s, "\xe2\x80\xa6"));
	assert_null(strstr(s, "more"));
	free(s);
	/* 100 columns: the note leaves (from the right), the first names stay
	 * whole, the kernel is elided in the middle, the numbers whole and
	 * right-aligned under their headings */
	s = fitted(t, 100, 0);
	assert_true(widest(s) <= 100);
	assert_null(strstr(s, "a note"));
	assert_non_null(strstr(s, "\naten::_flash_attention_backward  void pytorch_flash::"));
	assert_non_null(strstr(s, "4, false>>"));
	assert_non_null(strstr(s, "calls    sum us\n"));
	assert_non_null(strstr(s, "   24  2420.052\n"));
	assert_non_null(strstr(s, "\n(1 more column: --wide shows every one)\n"));
	free(s);
	/* 40 columns: the first column alone (never dropped), elided */
	s = fitted(t, 40, 0);
	assert_true(widest(s) <= 40);
	assert_non_null(strstr(s, "\n(4 more columns: --wide shows every one)\n"));
	free(s);
	/* rows capped, the note counts both */
	tg_table_free(t);
	t = kernels_table(25);
	s = fitted(t, 100, 20);
	assert_non_null(strstr(s, "\n(5 more rows, 1 more column: --wide shows every one)\n"));
	size_t lines = 0;
	for (const char *p = s; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1 + 1 + 20 + 1); /* title, headings, rows, note */
	free(s);
	s = fitted(t, 400, 25);
	assert_null(strstr(s, "more"));
	free(s);
	tg_table_free(t);
	/* control characters are escaped as tg_table_write_text does */
	static const char *const c1[] = {"name", NULL};
	t = tg_table_new_cols("x", "X", c1);
	tg_table_add_row(t);
	tg_table_set_str(t, 0, 0, "a\tb\x1b[31m");
	s = fitted(t, 120, 0);
	assert_non_null(strstr(s, "a\\x09b\\x1b[31m"));
	free(s);
	tg_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elide),
		cmocka_unit_test(test_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
