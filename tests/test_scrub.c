/*
 * test_scrub.c - URLs lose their userinfo wherever they sit in a text.
 */
#include "testutil.h"

#include "../util/scrub.h"

static void same(const char *in, const char *want)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", in);
	size_t n = tg_scrub_urls(buf);
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

static void test_scrub(void **state)
{
	(void)state;
	same("https://x-access-token:ghp_abc@github.com/acme/llm.git", "https://github.com/acme/llm.git");
	same("commit 0123 and branch main share no history in https://oauth2:T0K@gitlab.example/a/b.git",
	     "commit 0123 and branch main share no history in https://gitlab.example/a/b.git");
	same("two: http://u:p@h1/x and git+ssh://me@h2:22/y.", "two: http://h1/x and git+ssh://h2:22/y.");
	same("token only: https://ghp_abc@github.com", "token only: https://github.com");
	same("an @ in the path stays: https://h/a@b and mail a@b", "an @ in the path stays: https://h/a@b and mail a@b");
	same("'https://u:p@h'", "'https://h'");
	same("no scheme ://u:p@h", "no scheme ://u:p@h");
	same("", "");
	assert_int_equal(tg_scrub_urls(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scrub),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
