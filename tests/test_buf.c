/*
 * test_buf.c - the growable string buffer (util/buf.c): contents and
 * lengths after each kind of append, growth across many appends (bytes
 * with NULs, a megabyte one character at a time), printf-style appends
 * that fit the room left and that do not (arguments of 100 kB), reset
 * keeping the memory, take handing it over, copy_out cutting like
 * snprintf, and the failures: a length
 * that would overflow, a format vsnprintf refuses, and how they stick.
 */
#include "testutil.h"

#include "../util/buf.h"
#include "../util/tg.h"

#include <locale.h>
#include <stdint.h>
#include <wchar.h>

static void test_empty(void **state)
{
	(void)state;
	tg_buf b = TG_BUF_INIT;
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_string_equal(tg_buf_str(&b), "");
	assert_int_equal(tg_buf_error(&b), 0);
	tg_buf_free(&b); /* nothing held: nothing to do */
	tg_buf_free(NULL);
	char *s;
	size_t n = 99;
	assert_int_equal(tg_buf_take(&s, &n, &b), 0); /* "" of its own, to free */
	assert_string_equal(s, "");
	assert_int_equal(n, 0);
	free(s);
	tg_buf_init(&b);
	assert_int_equal(tg_buf_append(&b, NULL, 0), 0);
	assert_string_equal(tg_buf_str(&b), "");
	assert_int_equal(b.len, 0);
	tg_buf_free(&b);
	assert_null(b.data);
}

static void test_appends(void **state)
{
	(void)state;
	tg_buf b = TG_BUF_INIT;
	assert_int_equal(tg_buf_puts(&b, "conv"), 0);
	assert_int_equal(tg_buf_putc(&b, '2'), 0);
	assert_int_equal(tg_buf_putc(&b, 'd'), 0);
	assert_int_equal(tg_buf_append(&b, " | gemm", 7), 0);
	assert_int_equal(tg_buf_appendf(&b, " x%d (%.1f us, %s)", 3, 12.25, "bf16"), 0);
	assert_string_equal(tg_buf_str(&b), "conv2d | gemm x3 (12.2 us, bf16)");
	assert_int_equal(b.len, 32);
	assert_int_equal(strlen(b.data), b.len);
	/* bytes with NULs count as bytes */
	assert_int_equal(tg_buf_append(&b, "a\0b", 3), 0);
	assert_int_equal(b.len, 35);
	assert_memory_equal(b.data + 32, "a\0b\0", 4);
	tg_buf_free(&b);
}

static void test_growth(void **state)
{
	(void)state;
	tg_buf b = TG_BUF_INIT;
	size_t caps = 0, last = 0;
	for (size_t i = 0; i < 1000000; i++) {
		assert_int_equal(tg_buf_putc(&b, (char)('a' + i % 26)), 0);
		if (b.cap != last) {
			caps++;
			last = b.cap;
		}
	}
	assert_int_equal(b.len, 1000000);
	assert_true(b.cap > b.len && b.cap <= 2 * (b.len + 1));
	assert_int_equal(caps, 15); /* 64, 128, ... 2^20: doubling, not one per append */
	for (size_t i = 0; i < b.len; i += 99991)
		assert_int_equal(b.data[i], 'a' + i % 26);
	assert_int_equal(b.data[b.len], 0);
	/* many appends of many sizes: the contents are their concatenation */
	tg_buf_reset(&b);
	size_t want = 0;
	for (size_t i = 0; i < 5000; i++) {
		char piece[40];
		int n = snprintf(piece, sizeof(piece), "<%zu>", i * 7919);
		assert_int_equal(i % 2 ? tg_buf_puts(&b, piece) : tg_buf_appendf(&b, "<%zu>", i * 7919), 0);
		want += (size_t)n;
	}
	assert_int_equal(b.len, want);
	assert_int_equal(strlen(b.data), want);
	assert_memory_equal(b.data, "<0><7919><15838>", 16);
	assert_non_null(strstr(b.data, "<39587081>")); /* 4999 * 7919, the last */
	assert_int_equal(strcmp(b.data + b.len - 10, "<39587081>"), 0);
	tg_buf_free(&b);
}

static void test_appendf_long(void **state)
{
	(void)state;
	tg_buf b = TG_BUF_INIT;
	size_t n = 100000;
	char *arg = malloc(n + 1);
	assert_non_null(arg);
	for (size_t i = 0; i < n; i++)
		arg[i] = (char)('A' + i % 23);
	arg[n] = 0;
	assert_int_equal(tg_buf_puts(&b, "head "), 0); /* room left: 58 bytes, far too little */
	assert_int_equal(tg_buf_appendf(&b, "[%s|%zu|%s]", arg, n, arg), 0);
	char tail[32];
	int tn = snprintf(tail, sizeof(tail), "|%zu|", n);
	assert_int_equal(b.len, 5 + 1 + n + (size_t)tn + n + 1);
	assert_memory_equal(b.data, "head [", 6);
	assert_memory_equal(b.data + 6, arg, n);
	assert_memory_equal(b.data + 6 + n, tail, (size_t)tn);
	assert_memory_equal(b.data + 6 + n + tn, arg, n);
	assert_string_equal(b.data + b.len - 1, "]");
	/* one that fits the room left exactly: no growth */
	tg_buf_reset(&b);
	size_t cap = b.cap;
	assert_int_equal(tg_buf_appendf(&b, "%*s", (int)(cap - 1), "!"), 0); /* cap - 2 spaces and a '!' */
	assert_int_equal(b.data[cap - 2], '!');
	assert_int_equal(b.data[0], ' ');
	assert_int_equal(b.len, cap - 1);
	assert_int_equal(b.cap, cap);
	assert_int_equal(tg_buf_appendf(&b, "%c", 'z'), 0); /* and one byte more grows */
	assert_int_equal(b.len, cap);
	assert_true(b.cap > cap);
	assert_string_equal(b.data + cap - 1, "z");
	free(arg);
	tg_buf_free(&b);
}

static void test_reset_and_take(void **state)
{
	(void)state;
	tg_buf b = TG_BUF_INIT;
	assert_int_equal(tg_buf_puts(&b, "first row, long enough to keep"), 0);
	char *mem = b.data;
	size_t cap = b.cap;
	tg_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(tg_buf_str(&b), "");
	assert_ptr_equal(b.data, mem); /* the memory is kept for the next row */
	assert_int_equal(b.cap, cap);
	assert_int_equal(tg_buf_puts(&b, "second"), 0);
	assert_string_equal(tg_buf_str(&b), "second");
	char *s;
	size_t n;
	assert_int_equal(tg_buf_take(&s, &n, &b), 0);
	assert_ptr_equal(s, mem);
	assert_string_equal(s, "second");
	assert_int_equal(n, 6);
	assert_null(b.data); /* b is empty and usable again */
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	assert_int_equal(tg_buf_puts(&b, "third"), 0);
	char *third;
	assert_int_equal(tg_buf_take(&third, NULL, &b), 0);
	assert_string_equal(third, "third");
	free(third);
	free(s);
	/* reserve: the appends that fill the room do not move the memory */
	assert_int_equal(tg_buf_reserve(&b, 1000), 0);
	assert_true(b.cap >= 1001);
	assert_string_equal(tg_buf_str(&b), ""); /* reserved, nothing appended: still "" */
	assert_int_equal(b.len, 0);
	mem = b.data;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(tg_buf_putc(&b, 'x'), 0);
	assert_ptr_equal(b.data, mem);
	assert_int_equal(b.len, 1000);
	tg_buf_free(&b);
}

static void test_copy_out(void **state)
{
	(void)state;
	tg_buf b = TG_BUF_INIT;
	char dst[8];
	memset(dst, 'X', sizeof(dst));
	assert_int_equal(tg_buf_copy_out(dst, sizeof(dst), NULL), 0);
	assert_string_equal(dst, "");
	assert_int_equal(tg_buf_copy_out(dst, sizeof(dst), &b), 0); /* nothing appended */
	assert_string_equal(dst, "");
	assert_int_equal(tg_buf_puts(&b, "aten::mm"), 0); /* 8 bytes: cut to 7 */
	assert_int_equal(tg_buf_copy_out(dst, sizeof(dst), &b), 8);
	assert_string_equal(dst, "aten::m");
	assert_int_equal(tg_buf_copy_out(dst, 1, &b), 8); /* size 1: "" */
	assert_string_equal(dst, "");
	memset(dst, 'X', sizeof(dst));
	assert_int_equal(tg_buf_copy_out(dst, 0, &b), 8); /* size 0: nothing written */
	assert_int_equal(dst[0], 'X');
	tg_buf_reset(&b);
	assert_int_equal(tg_buf_puts(&b, "mm"), 0);
	assert_int_equal(tg_buf_copy_out(dst, sizeof(dst), &b), 2);
	assert_string_equal(dst, "mm");
	tg_buf_free(&b);
}

static void test_overflow_sticks(void **state)
{
	(void)state;
	tg_buf b = TG_BUF_INIT;
	assert_int_equal(tg_buf_puts(&b, "kept"), 0);
	assert_int_equal(tg_buf_append(&b, "x", SIZE_MAX - 2), TG_ENOMEM);
	assert_string_equal(tg_error_last(), "out of memory (a string of 4 + 18446744073709551613 bytes)");
	assert_string_equal(tg_buf_str(&b), "kept"); /* the contents as they were */
	assert_int_equal(b.len, 4);
	assert_int_equal(tg_buf_error(&b), TG_ENOMEM);
	/* every later append says so and appends nothing; take fails and frees */
	assert_int_equal(tg_buf_puts(&b, "more"), TG_ENOMEM);
	assert_int_equal(tg_buf_putc(&b, 'c'), TG_ENOMEM);
	assert_int_equal(tg_buf_appendf(&b, "%d", 1), TG_ENOMEM);
	assert_int_equal(tg_buf_reserve(&b, 1), TG_ENOMEM);
	assert_string_equal(tg_buf_str(&b), "kept");
	char *s = (char *)"untouched";
	size_t n = 7;
	assert_int_equal(tg_buf_take(&s, &n, &b), TG_ENOMEM);
	assert_null(s);
	assert_int_equal(n, 0);
	assert_null(b.data);
	assert_int_equal(tg_buf_error(&b), 0);
	/* reset clears the mark */
	assert_int_equal(tg_buf_puts(&b, "a"), 0);
	assert_int_equal(tg_buf_reserve(&b, SIZE_MAX), TG_ENOMEM);
	tg_buf_reset(&b);
	assert_int_equal(tg_buf_error(&b), 0);
	assert_int_equal(tg_buf_puts(&b, "b"), 0);
	assert_string_equal(tg_buf_str(&b), "b");
	tg_buf_free(&b);
}

static void test_format_refused(void **state)
{
	(void)state;
	/* in the C locale vsnprintf cannot write a wide character above 0x7f: EILSEQ, -1 */
	setlocale(LC_ALL, "C");
	const wchar_t ws[] = {L'a', (wchar_t)0x20ac, 0};
	tg_buf b = TG_BUF_INIT;
	assert_int_equal(tg_buf_puts(&b, "before"), 0);
	assert_int_equal(tg_buf_appendf(&b, "%ls", ws), TG_EINVAL);
	assert_string_equal(tg_error_last(), "cannot format \"%ls\" (vsnprintf refused it)");
	assert_string_equal(tg_buf_str(&b), "before");
	assert_int_equal(b.len, 6);
	assert_int_equal(tg_buf_puts(&b, "after"), TG_EINVAL);
	/* refused after growing (the text does not fit the room left) */
	tg_buf_free(&b);
	char big[200];
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_int_equal(tg_buf_puts(&b, "x"), 0);
	assert_int_equal(tg_buf_appendf(&b, "%s%ls", big, ws), TG_EINVAL);
	assert_string_equal(tg_buf_str(&b), "x");
	char *s;
	assert_int_equal(tg_buf_take(&s, NULL, &b), TG_EINVAL);
	assert_null(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_appendf_long),
		cmocka_unit_test(test_reset_and_take),
		cmocka_unit_test(test_copy_out),
		cmocka_unit_test(test_overflow_sticks),
		cmocka_unit_test(test_format_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
