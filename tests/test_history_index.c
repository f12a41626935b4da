/*
 * test_history_index.c - the published history's file names and index
 * (daemon/history/history_index.c): a branch's page file is one safe path
 * segment, the same for the same branch and different for different ones
 * (long names included); the index page groups rows by repository, links
 * each page, colours each verdict, says the change points, and escapes
 * every name.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/history/history_index.h"

static const char *file_of(const char *branch)
{
	static char buf[4][TG_HISTORY_PAGE_FILE_MAX];
	static int k;
	char *b = buf[k++ % 4];
	tg_history_page_file(b, branch);
	return b;
}

/* 1 when name is one segment of A-Z a-z 0-9 . _ - ~, not hidden, ending
 * in .html. */
static int safe(const char *name)
{
	size_t n = strlen(name);
	if (!n || name[0] == '.' || n >= TG_HISTORY_PAGE_FILE_MAX || n < 6 || strcmp(name + n - 5, ".html"))
		return 0;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("._-~", *c)))
			return 0;
	return 1;
}

static void test_page_file(void **state)
{
	(void)state;
	assert_string_equal(file_of("main"), "main.html");
	assert_string_equal(file_of("release-2.1_rc"), "release-2.1_rc.html");
	assert_string_equal(file_of("feat/x"), "feat~2Fx.html");
	assert_string_equal(file_of("fix/é"), "fix~2F~C3~A9.html");
	assert_string_equal(file_of("a~b"), "a~7Eb.html");       /* '~' itself escaped: no two names meet */
	assert_string_equal(file_of(".."), "~2E..html");          /* never "." or ".." or hidden */
	assert_string_equal(file_of(".hidden"), "~2Ehidden.html");
	assert_string_equal(file_of("a b\"<>\\?#%"), "a~20b~22~3C~3E~5C~3F~23~25.html");
	assert_string_equal(file_of(""), "~.html");
	const char *odd[] = {"main", "feat/x", "feat~2Fx", "feat%2Fx", "a~b", "..", "~", ""};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		assert_true(safe(file_of(odd[i])));
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(file_of(odd[i]), file_of(odd[j]));
	}
	/* long names: cut, made unique by a hash, still safe */
	char a[400], b[400];
	memset(a, 'x', sizeof(a) - 1);
	a[sizeof(a) - 1] = 0;
	memcpy(b, a, sizeof(a));
	b[398] = 'y';
	char fa[TG_HISTORY_PAGE_FILE_MAX], fb[TG_HISTORY_PAGE_FILE_MAX];
	tg_history_page_file(fa, a);
	tg_history_page_file(fb, b);
	assert_true(safe(fa) && safe(fb));
	assert_string_not_equal(fa, fb);
	assert_non_null(strstr(fa, "~~"));
	assert_true(strlen(fa) < TG_HISTORY_PAGE_FILE_MAX);
	/* long UTF-8: the cut never splits a ~XX */
	char u[300] = "";
	for (int i = 0; i < 90; i++)
		strcat(u, "é");
	tg_history_page_file(fa, u);
	assert_true(safe(fa));
	const char *cut = strstr(fa, "~~");
	assert_non_null(cut);
	assert_int_equal((cut - fa) % 3, 0); /* whole ~C3~A9 pairs before the mark */
	/* the same branch, the same name */
	tg_history_page_file(fb, u);
	assert_string_equal(fa, fb);
	/* a name of exactly the limit is not cut; one more byte is */
	char edge[300];
	memset(edge, 'e', 194);
	edge[194] = 0;
	tg_history_page_file(fa, edge);
	assert_int_equal(strlen(fa), 199);
	assert_null(strstr(fa, "~~"));
	edge[194] = 'e';
	edge[195] = 0;
	tg_history_page_file(fa, edge);
	assert_non_null(strstr(fa, "~~"));
}

static char *index_of(const tg_history_index_row *r, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	tg_test_must(tg_history_index_write(f, r, n, INT64_C(1700000000)));
	fclose(f);
	return buf;
}

static void test_index(void **state)
{
	(void)state;
	const char *c1 = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d";
	tg_history_index_row rows[] = {
		{"acme/llm", "feat/<x>", "train", 2, c1, INT64_C(1700000000), "block", 7, 0, NULL},
		{"acme/llm", "main", "train", 40, c1, INT64_C(1700003600), "pass", 0, 2,
		 "latest: gpu_busy_ms +6.1 % at 1a2b3c4, 3 runs ago"},
		{"acme/kernels", "main", "gemm&co", 1, "not a commit", 0, NULL, 0, 0, NULL},
	};
	char *h = index_of(rows, 3);
	assert_true(!strncmp(h, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(h, "</body></html>\n"));
	/* two repositories, two tables */
	assert_non_null(strstr(h, "<h2><code>acme/llm</code></h2>"));
	assert_non_null(strstr(h, "<h2><code>acme/kernels</code></h2>"));
	assert_non_null(strstr(h, "<td><a href=\"acme/llm/feat~2F~3Cx~3E.html\"><code>feat/&lt;x&gt;</code></a></td>"
	                          "<td>train</td><td class=\"n\">2</td><td><code>1a2b3c4</code> (pull request 7)<br>"
	                          "<small>2023-11-14 22:13 UTC</small></td><td><span class=\"v\" "
	                          "style=\"background:#cf222e\">block</span></td><td>none</td></tr>"));
	assert_non_null(strstr(h, "style=\"background:#1a7f37\">pass</span></td><td>2, the latest: gpu_busy_ms +6.1 % at "
	                          "1a2b3c4, 3 runs ago</td></tr>"));
	/* a verdict missing, a commit that is not one, a name to escape */
	assert_non_null(strstr(h, "<td>gemm&amp;co</td><td class=\"n\">1</td><td><code>?</code><br><small>?</small></td>"
	                          "<td><span class=\"v\" style=\"background:#57606a\">none</span></td>"));
	assert_null(strstr(h, "<x>"));
	assert_non_null(strstr(h, "written 2023-11-14 22:13 UTC by tracegate " TG_VERSION));
	free(h);
	h = index_of(NULL, 0);
	assert_non_null(strstr(h, "<p>No run has been judged yet.</p>"));
	assert_null(strstr(h, "<table>"));
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_page_file), cmocka_unit_test(test_index)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
