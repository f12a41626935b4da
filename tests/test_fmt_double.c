/*
 * test_fmt_double.c - tg_format_double (util/fmt_double.c): the shortest
 * decimal that reads back as the same double, as Python's repr writes it,
 * on fixed edge values and 600,000 generated ones, and on the values of 16
 * and 17 digits its exact integer path decides, 1.1 million of them.
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

/* The values of 16 and 17 digits that tg_format_double decides in exact
 * integer arithmetic (1e-4 <= |v| < 1e15: means, ratios), and the edges
 * where that path steps aside for printf's: the neighbours of short
 * decimals (16 or 17 digits by construction), quotients, every power of
 * two in the range (the gap below is half the gap above), and binary
 * fractions m / 2^s whose exact decimal ends on a 5 just past the 15th,
 * 16th or 17th digit (a tie for "%.Pg": (2^52 + k) / 8 from 5.6e14 up). */
static void check(double v)
{
	char a[64], b[64];
	tg_format_double(a, v);
	format_reference(b, v);
	if (strcmp(a, b))
		fail_msg("%.17g: %s, printf %s", v, a, b);
}

static void test_format_double_exact(void **state)
{
	(void)state;
	for (int k = -14; k <= 50; k++) {
		check(ldexp(1, k));
		check(nextafter(ldexp(1, k), 0));
		check(nextafter(ldexp(1, k), INFINITY));
	}
	for (int sh = 3; sh <= 12; sh++)
		for (uint64_t k = 0; k < 4000; k++) {
			check(ldexp((double)((UINT64_C(1) << 52) + k), -sh));
			check(-ldexp((double)((UINT64_C(1) << 53) - 1 - k * 7919), -sh));
		}
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	for (long i = 0; i < 1000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double d = (double)(x % 100000000) / pow(10, (int)(x % 19) - 4);
		switch (i % 4) {
		case 0: check(nextafter(d, 0)); break;
		case 1: check(nextafter(d, INFINITY)); break;
		case 2: check((double)(x % 1000000007) / (double)(1 + (x >> 40) % 999983)); break;
		default: check(ldexp((double)((x >> 11) | (UINT64_C(1) << 52)), (int)(x % 64) - 66));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_double),
		cmocka_unit_test(test_format_double_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
