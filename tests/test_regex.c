/*
 * test_regex.c - util/regex.h: a pattern's estimated size, and refusing the
 * ones regcomp would blow up on (the rules fuzzer's "v++++..." took 2 GB).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../util/regex.h"

#include <string.h>

static void test_cost_of_plain_patterns(void **state)
{
	(void)state;
	assert_int_equal(tg_regex_cost(""), 0);
	assert_int_equal(tg_regex_cost("abc"), 3);
	assert_int_equal(tg_regex_cost("a\\.b"), 3);             /* an escape is one atom */
	assert_int_equal(tg_regex_cost("[a-z]x"), 2);            /* a bracket is one atom */
	assert_int_equal(tg_regex_cost("[]a]"), 1);              /* ']' first is a member */
	assert_int_equal(tg_regex_cost("[[:digit:]]+"), 3);      /* 1, repeated: 2 x 1 + 1 */
	assert_int_equal(tg_regex_cost("(fwd|bwd)"), 6);         /* a group: its alternatives */
	assert_int_equal(tg_regex_cost("a{3}"), 5);              /* 1 x (3 + 1) + 1 */
	assert_int_equal(tg_regex_cost("a{2,5}"), 7);            /* the largest count */
	assert_int_equal(tg_regex_cost("a{2,}"), 5);             /* unbounded: m + 1 */
	assert_int_equal(tg_regex_cost("a{x"), 3);               /* not a count: literal '{' */
	assert_int_equal(tg_regex_cost("flash_(fwd|bwd)"), 12);
}

static void test_stacked_repetitions_are_refused(void **state)
{
	(void)state;
	/* each + repeats the piece before it, doubling it; nested counts multiply (five {9}: 10^5) */
	assert_true(tg_regex_cost("v++++++++++") < TG_REGEX_MAX_COST);
	assert_int_equal(tg_regex_cost("v++++++++++++++++"), TG_REGEX_MAX_COST + 1);
	assert_int_equal(tg_regex_cost("((((a{9}){9}){9}){9}){9}"), TG_REGEX_MAX_COST + 1);
	assert_int_equal(tg_regex_cost("a{1000}{1000}"), TG_REGEX_MAX_COST + 1);
	char deep[200];
	memset(deep, '(', 100);
	deep[100] = 'a';
	memset(deep + 101, ')', 90);
	deep[191] = 0;
	assert_int_equal(tg_regex_cost(deep), TG_REGEX_MAX_COST + 1); /* groups deeper than 64 */

	regex_t re;
	char msg[128];
	assert_int_equal(tg_regex_compile(&re, "flash_(fwd|bwd)\\/v++++++++++++++++", msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "too complex"));
}

static void test_compile(void **state)
{
	(void)state;
	regex_t re;
	char msg[128];
	assert_int_equal(tg_regex_compile(&re, "^aten::(mm|addmm|bmm)$", msg, sizeof(msg)), 0);
	assert_int_equal(regexec(&re, "aten::addmm", 0, NULL, 0), 0);
	assert_int_not_equal(regexec(&re, "aten::add", 0, NULL, 0), 0);
	regfree(&re);
	assert_int_equal(tg_regex_compile(&re, "a(b", msg, sizeof(msg)), -1); /* regcomp's own reason */
	assert_true(msg[0] != 0);
	assert_null(strstr(msg, "too complex"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost_of_plain_patterns),
		cmocka_unit_test(test_stacked_repetitions_are_refused),
		cmocka_unit_test(test_compile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
