/*
 * test_fmt_double.c - tg_format_double (util/fmt_double.c): the shortest
 * decimal that reads back as the same double, as Python's repr writes it,
 * on fixed edge values and 600,000 generated ones.
 */
#include "../util/fmt_double.h"
#include "testutil.h"

#include <math.h>

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
