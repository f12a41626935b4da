/*
 * test_escape.c - tg_md_escape, tg_md_code, tg_md_name,
 * tg_html_attr_escape and tg_html_escape_inert (util/escape.c): Markdown
 * stays text and nothing in it mentions, references or links; a tooltip
 * holds the whole name and cannot end its attribute or split a table cell.
 */
#include "../util/escape.h"
#include "testutil.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md_escape),
		cmocka_unit_test(test_md_code),
		cmocka_unit_test(test_html_inert),
		cmocka_unit_test(test_md_name),
		cmocka_unit_test(test_html_attr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
