/* test_units_lex.c - the number-with-a-unit lexer and the unit table that
 * the rules and the configuration share (util/units_lex.c): where each
 * part of the text starts and how long it is, the exponent only when
 * asked for, the refusals, and every unit's factor. */
#include "testutil.h"

#include "../util/units_lex.h"

/* s lexed with flags: 0, or fails the test. */
static tg_units_lexeme must_lex(const char *s, unsigned flags)
{
	tg_units_lexeme x;
	if (tg_units_lex(&x, s, flags))
		fail_msg("'%s' did not lex", s);
	return x;
}

static void test_parts(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		unsigned flags;
		int neg;
		size_t ip_at, nip, frac_at, nfrac;
		long exp10;
		size_t end_at;
		const char *unit;
	} cases[] = {
		{"20us", 0, 0, 0, 2, 2, 0, 0, 2, "us"},
		{"1.5 ms", 0, 0, 0, 1, 2, 1, 0, 3, "ms"},
		{"1.5\t \th", 0, 0, 0, 1, 2, 1, 0, 3, "h"},
		{".5", 0, 0, 0, 0, 1, 1, 0, 2, ""},
		{"5.", 0, 0, 0, 1, 2, 0, 0, 2, ""},
		{"-0", 0, 1, 1, 1, 2, 0, 0, 2, ""},
		{"-.25KiB", 0, 1, 1, 0, 2, 2, 0, 4, "KiB"},
		{"007", 0, 0, 0, 3, 3, 0, 0, 3, ""},
		{"12.25e2x", TG_UNITS_EXPONENT, 0, 0, 2, 3, 2, 2, 7, "x"},
		{"12.25e2x", 0, 0, 0, 2, 3, 2, 0, 5, "e2x"},         /* no exponent asked for */
		{"1E-3 s", TG_UNITS_EXPONENT, 0, 0, 1, 1, 0, -3, 4, "s"},
		{"1e+3", TG_UNITS_EXPONENT, 0, 0, 1, 1, 0, 3, 4, ""},
		{"3e", TG_UNITS_EXPONENT, 0, 0, 1, 1, 0, 0, 1, "e"},   /* 'e' without digits: the unit */
		{"3e-s", TG_UNITS_EXPONENT, 0, 0, 1, 1, 0, 0, 1, "e-s"},
		{"2 %", 0, 0, 0, 1, 1, 0, 0, 1, "%"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *s = cases[i].s;
		tg_units_lexeme x = must_lex(s, cases[i].flags);
		if (x.neg != cases[i].neg || x.ip != s + cases[i].ip_at || x.nip != cases[i].nip ||
		    x.frac != s + cases[i].frac_at || x.nfrac != cases[i].nfrac || x.exp10 != cases[i].exp10 ||
		    x.end != s + cases[i].end_at || strcmp(x.unit, cases[i].unit))
			fail_msg("'%s': neg %d ip@%td/%zu frac@%td/%zu e%ld end@%td unit '%s'", s, x.neg, x.ip - s, x.nip,
			         x.frac - s, x.nfrac, x.exp10, x.end - s, x.unit);
	}
	/* a huge exponent saturates instead of overflowing */
	tg_units_lexeme x = must_lex("1e99999999999999999999", TG_UNITS_EXPONENT);
	assert_true(x.exp10 >= 100000 && x.exp10 < 1000000);
	assert_string_equal(x.unit, "");
	x = must_lex("1e-99999999999999999999", TG_UNITS_EXPONENT);
	assert_true(x.exp10 <= -100000 && x.exp10 > -1000000);
}

static void test_refusals(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int neg;
	} bad[] = {{"", 0}, {".", 0}, {"abc", 0}, {"+1", 0}, {"ms", 0}, {" 5", 0}, {"-", 1}, {"- 5", 1}, {"-.", 1},
	           {"--5", 1}, {"e3", 0}, {"\xc2\xb5s", 0}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tg_units_lexeme x;
		x.neg = -1;
		if (tg_units_lex(&x, bad[i].s, TG_UNITS_EXPONENT) != -1)
			fail_msg("'%s' lexed", bad[i].s);
		if (x.neg != bad[i].neg || x.nip || x.nfrac || x.unit)
			fail_msg("'%s': neg %d, want %d, and nothing else set", bad[i].s, x.neg, bad[i].neg);
	}
}

static void test_units(void **state)
{
	(void)state;
	static const struct {
		tg_units_class c;
		const char *name;
		uint64_t factor;
	} ok[] = {
		{TG_UNITS_TIME, "ns", 1},
		{TG_UNITS_TIME, "us", 1000},
		{TG_UNITS_TIME, "\xc2\xb5s", 1000},
		{TG_UNITS_TIME, "ms", 1000000},
		{TG_UNITS_TIME, "s", UINT64_C(1000000000)},
		{TG_UNITS_TIME, "m", UINT64_C(60000000000)},
		{TG_UNITS_TIME, "h", UINT64_C(3600000000000)},
		{TG_UNITS_TIME, "d", UINT64_C(86400000000000)},
		{TG_UNITS_BYTES, "B", 1},
		{TG_UNITS_BYTES, "KB", 1000},
		{TG_UNITS_BYTES, "MB", 1000000},
		{TG_UNITS_BYTES, "GB", 1000000000},
		{TG_UNITS_BYTES, "KiB", 1024},
		{TG_UNITS_BYTES, "MiB", 1048576},
		{TG_UNITS_BYTES, "GiB", 1073741824},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		const tg_unit *u = tg_units_find(ok[i].c, ok[i].name);
		if (!u || strcmp(u->name, ok[i].name) || u->factor != ok[i].factor)
			fail_msg("'%s': %s %llu", ok[i].name, u ? u->name : "(none)",
			         u ? (unsigned long long)u->factor : 0ULL);
	}
	static const struct {
		tg_units_class c;
		const char *name;
	} bad[] = {{TG_UNITS_TIME, ""},   {TG_UNITS_TIME, "US"},   {TG_UNITS_TIME, "sec"}, {TG_UNITS_TIME, "s "},
	           {TG_UNITS_TIME, "MB"}, {TG_UNITS_BYTES, "mb"}, {TG_UNITS_BYTES, "b"},  {TG_UNITS_BYTES, ""},
	           {TG_UNITS_BYTES, "ms"}, {TG_UNITS_BYTES, "TB"}, {TG_UNITS_BYTES, "kib"}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (tg_units_find(bad[i].c, bad[i].name))
			fail_msg("'%s' found", bad[i].name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
