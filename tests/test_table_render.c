/*
 * test_table_render.c - tg_md_escape, tg_md_code, tg_md_name,
 * tg_html_attr_escape and tg_html_escape_inert: Markdown stays text and
 * nothing in it mentions, references or links; a tooltip holds the whole
 * name and cannot end its attribute or split a table cell; and
 * tg_table_write_text_rows: the first rows, as wide as they need.
 */
#include "testutil.h"

#include "../core/analysis/table.h"

#define Z "\xe2\x80\x8b"

static char *render(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	fn(f, s);
	fclose(f);
	return buf;
}

static void same(void (*fn)(FILE *, const char *), const char *in, const char *want)
{
	char *got = render(fn, in);
	assert_string_equal(got, want);
	free(got);
}

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

static void test_md_escape(void **state)
{
	(void)state;
	same(tg_md_escape, "a|b `c` *d* _e_ [f](g) \\ <h> & i\nj", "a\\|b \\`c\\` \\*d\\* \\_e\\_ \\[f\\](g) \\\\ &lt;h&gt; &amp; i j");
	same(tg_md_escape, "@org/team cc @alice", "@" Z "org/team cc @" Z "alice");
	same(tg_md_escape, "fixes #123, !45, ~bug, %\"v1\", $x", "fixes #" Z "123, !" Z "45, ~" Z "bug, %" Z "\"v1\", \\$x");
	same(tg_md_escape, "see https://evil.example/x and www.evil.example", "see https:" Z "//evil.example/x and www" Z ".evil.example");
	same(tg_md_escape, "# 1 and 8 % and a:b", "# 1 and 8 % and a:b");
	same(tg_md_escape, "w --> <img src=x>", "w --&gt; &lt;img src=x&gt;");
}

static void test_md_code(void **state)
{
	(void)state;
	same(tg_md_code, "a`b_c @x", "<code>a\\`b\\_c @" Z "x</code>");
}

static void md_name_20(FILE *f, const char *s)
{
	tg_md_name(f, s, 20);
}

static void test_md_name(void **state)
{
	(void)state;
	/* short: inline code as tg_md_code */
	same(md_name_20, "aten::mm", "<code>aten::mm</code>");
	/* long: shortened with an ellipsis, the whole name in the title */
	same(md_name_20, "void flash_fwd_kernel<Traits<64, 128>>",
	     "<span title=\"void flash_fwd_kernel&lt;Traits&lt;64, 128&gt;&gt;\"><code>void flash\\_fwd\\_kern\xe2\x80\xa6</code></span>");
	/* hostile: the attribute cannot be ended, the cell cannot be split */
	same(md_name_20, "x\" onmouseover='a' |<script>@bob\n..........",
	     "<span title=\"x&quot; onmouseover=&#x27;a&#x27; &#x7c;&lt;script&gt;@" Z "bob ..........\"><code>x\" onmouseover='a' \xe2\x80\xa6</code></span>");
	/* a UTF-8 character is never cut in two */
	same(md_name_20, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
	     "<span title=\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"><code>\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xe2\x80\xa6</code></span>");
}

static void test_html_attr(void **state)
{
	(void)state;
	same(tg_html_attr_escape, "a&b<c>\"d'e|f\tg", "a&amp;b&lt;c&gt;&quot;d&#x27;e&#x7c;f g");
	same(tg_html_attr_escape, "@org #12 https://evil", "@" Z "org #" Z "12 https:" Z "//evil");
}

static void test_html_inert(void **state)
{
	(void)state;
	same(tg_html_escape_inert, "<a> & @b #1 http://c", "&lt;a&gt; &amp; @" Z "b #" Z "1 http:" Z "//c");
}

/* The definition tg_format_double keeps (Python's repr): "%.15g", else
 * "%.16g", else "%.17g", the first that reads back as v; ".0" when
 * integral. */
static void format_reference(char *buf, double v)
{
	if (v == 0) {
		strcpy(buf, "0.0");
		return;
	}
	for (int p = 15; p <= 17; p++) {
		snprintf(buf, 32, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
}

/* tg_format_double's integer fast path prints what printf does: 600,000
 * values of the kinds reports hold (microseconds with three decimals,
 * ratios, hundredths, negatives) and any bit pattern at all. */
static void test_format_double(void **state)
{
	(void)state;
	static const double fixed[] = {1e-4, 9.9999e-5, 1e15, 999999999999999.0, 0.1, 0.3, 1.0 / 3, -2.5, 123.456,
	                               1e14 + 0.5, 5e-324, 1.7976931348623157e308, -0.0, 100.0, 4422.114};
	char a[64], b[64];
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		tg_format_double(a, fixed[i]);
		format_reference(b, fixed[i]);
		assert_string_equal(a, b);
	}
	uint64_t x = 88172645463325252ULL;
	for (long i = 0; i < 600000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v;
		switch (i % 6) {
		case 0: v = (double)(int64_t)(x % 2000000000000ULL) / 1000.0; break;
		case 1: v = (double)(x >> 11) / 9007199254740992.0 * pow(10, (int)(x % 40) - 20); break;
		case 2: v = (double)(int64_t)(x % 100000) / (double)(1 + x % 1000); break;
		case 3:
			memcpy(&v, &x, sizeof(v));
			if (!isfinite(v))
				v = 1.5;
			break;
		case 4: v = (double)(int64_t)(x % 10000000) / 100.0; break;
		default: v = -(double)(x % 1000000000) / 1e6;
		}
		tg_format_double(a, v);
		format_reference(b, v);
		if (strcmp(a, b))
			fail_msg("%.17g: %s, printf %s", v, a, b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_double),
		cmocka_unit_test(test_text_rows),
		cmocka_unit_test(test_md_escape),
		cmocka_unit_test(test_md_code),
		cmocka_unit_test(test_html_inert),
		cmocka_unit_test(test_md_name),
		cmocka_unit_test(test_html_attr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
