/* test_job_accepts.c - which labels and trailers accept a regression
 * (daemon/accepts.c), against the default rules: a tracegate-accept:RULE
 * label (any case) accepts a rule that exists, once, naming who added it;
 * one naming no rule is noted, not applied; a Tracegate-Accept trailer
 * counts only with accept_trailers on and the forge confirming that its
 * author may write, else the comment says why it was ignored. */
#include "testutil.h"

#include "../daemon/accepts.h"

static tg_rules *rules(void)
{
	tg_rules *r = NULL;
	tg_test_must(tg_rules_load_default(&r));
	return r;
}

static void test_labels(void **state)
{
	(void)state;
	tg_rules *r = rules();
	tg_forge_label l[] = {
		{(char *)"tracegate-accept:sdpa-forward", (char *)"alice"},
		{(char *)"bug", NULL},
		{(char *)"Tracegate-Accept:gemm", NULL},
		{(char *)"tracegate-accept:sdpa-forward", (char *)"bob"}, /* once */
		{(char *)"tracegate-accept:no-such-rule", (char *)"carol"},
	};
	tg_accepts x;
	tg_test_must(tg_accepts_begin(&x));
	tg_accepts_labels(&x, r, l, 5);
	tg_accepts_end(&x);
	assert_int_equal(x.n, 2);
	assert_string_equal(x.a[0].rule, "sdpa-forward");
	assert_string_equal(x.a[0].reason, "accepted with a pull-request label");
	assert_string_equal(x.a[0].by, "label tracegate-accept:sdpa-forward added by @alice");
	assert_string_equal(x.a[1].rule, "gemm");
	assert_string_equal(x.a[1].by, "label Tracegate-Accept:gemm");
	assert_string_equal(
		x.notes,
		"\nIgnored: <code>no-such-rule</code> (accepted by label tracegate-accept:no-such-rule added "
		"by @\xe2\x80\x8b" /* a zero-width space: no mention notifies anyone */
		"carol) names no rule.\n");
	tg_accepts_free(&x);
	/* nothing: no accepts, no notes */
	tg_test_must(tg_accepts_begin(&x));
	tg_accepts_labels(&x, r, l + 1, 1);
	tg_accepts_end(&x);
	assert_int_equal(x.n, 0);
	assert_string_equal(x.notes, "");
	tg_accepts_free(&x);
	tg_rules_free(r);
}

static void test_trailers(void **state)
{
	(void)state;
	tg_rules *r = rules();
	tg_git_trailer t[] = {
		{(char *)"Signed-off-by", (char *)"dev <d@x>"},
		{(char *)"Tracegate-Accept", (char *)"gpu-busy : the new scheduler idles by design"},
		{(char *)"tracegate-accept", (char *)"gemm"},
	};
	tg_accepts x;
	/* on, and the forge confirms the author may write: both count */
	tg_test_must(tg_accepts_begin(&x));
	tg_accepts_trailers(&x, r, 1, 1, "dave", "Dave", t, 3);
	tg_accepts_end(&x);
	assert_int_equal(x.n, 2);
	assert_string_equal(x.a[0].rule, "gpu-busy");
	assert_string_equal(x.a[0].reason, "the new scheduler idles by design");
	assert_string_equal(x.a[0].by, "commit trailer of @dave (write access)");
	assert_string_equal(x.a[1].rule, "gemm");
	assert_string_equal(x.a[1].reason, "(no reason given)");
	assert_string_equal(x.notes, "");
	tg_accepts_free(&x);
	/* trailers off: none counts, the comment says to use a label */
	tg_test_must(tg_accepts_begin(&x));
	tg_accepts_trailers(&x, r, 0, 1, "dave", "Dave", t, 3);
	tg_accepts_end(&x);
	assert_int_equal(x.n, 0);
	assert_non_null(strstr(x.notes, "trailers are off: accept_trailers"));
	tg_accepts_free(&x);
	/* the forge does not confirm write access: none counts, naming the author */
	tg_test_must(tg_accepts_begin(&x));
	tg_accepts_trailers(&x, r, 1, 0, NULL, "Mallory", t, 3);
	tg_accepts_end(&x);
	assert_int_equal(x.n, 0);
	assert_string_equal(x.notes,
	                    "\nIgnored: a Tracegate-Accept trailer of Mallory (the forge does not confirm "
	                    "write access to the repository).\n");
	tg_accepts_free(&x);
	/* no Tracegate-Accept trailer: nothing said at all */
	tg_test_must(tg_accepts_begin(&x));
	tg_accepts_trailers(&x, r, 0, 0, NULL, NULL, t, 1);
	tg_accepts_end(&x);
	assert_int_equal(x.n, 0);
	assert_string_equal(x.notes, "");
	tg_accepts_free(&x);
	tg_rules_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_trailers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
