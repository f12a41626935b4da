/*
 * fmt_double.c - tg_format_double: the shortest decimal that reads back as
 * the same double, like Python's repr. A fast path writes with integer
 * arithmetic the values reports are made of; the general path finds the
 * shortest digits that round-trip; "%.17g" is the last resort. An integral
 * value keeps a ".0". Moved from render/table_render.c (issue 25): the
 * perf sheets format numbers too, and core/ may not call render/.
 */
#include "fmt_double.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pow10_d[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
static const uint64_t pow10_u64[18] = {1ULL,
                                       10ULL,
                                       100ULL,
                                       1000ULL,
                                       10000ULL,
                                       100000ULL,
                                       1000000ULL,
                                       10000000ULL,
                                       100000000ULL,
                                       1000000000ULL,
                                       10000000000ULL,
                                       100000000000ULL,
                                       1000000000000ULL,
                                       10000000000000ULL,
                                       100000000000000ULL,
                                       1000000000000000ULL,
                                       10000000000000000ULL,
                                       100000000000000000ULL};

/* The fast path of tg_format_double, for the values reports are made of
 * (times in us with up to three decimals, counts, percentages): when v is
 * the double nearest to a decimal D with at most 15 significant digits,
 * 1e-4 <= |v| < 1e15, "%.15g" prints D itself (a decimal of 15 digits reads
 * back as v), so D is written with integer arithmetic, without printf's
 * exact arithmetic and strtod's check (4.7 % of a report as JSON). Returns
 * 0 when v is not such a value; the caller takes the general path. */
static int format_double_fast(char *buf, double v)
{
	double a = fabs(v);
	if (!(a >= 1e-4 && a < 1e15))
		return 0;
	int intdigits = 1;
	while (intdigits < 15 && a >= pow10_d[intdigits])
		intdigits++;
	for (int k = 0; intdigits + k <= 15 && k < 16; k++) {
		double r = nearbyint(a * pow10_d[k]);
		if (r / pow10_d[k] != a)
			continue;
		/* a is the double nearest r / 10^k: write r with k decimals */
		char digits[24], rev[24];
		uint64_t u = (uint64_t)r; /* below 10^15 */
		int n = 0, m = 0;
		do
			rev[m++] = (char)('0' + u % 10);
		while (u /= 10);
		while (m)
			digits[n++] = rev[--m];
		digits[n] = 0;
		while (k > 0 && digits[n - 1] == '0') /* %g drops trailing zeros */
			digits[--n] = 0, k--;
		char *o = buf;
		if (v < 0)
			*o++ = '-';
		if (n <= k) { /* below 1: 0.00ddd */
			*o++ = '0';
			*o++ = '.';
			for (int z = 0; z < k - n; z++)
				*o++ = '0';
			memcpy(o, digits, (size_t)n);
			o += n;
		} else {
			memcpy(o, digits, (size_t)(n - k));
			o += n - k;
			*o++ = '.';
			if (k) {
				memcpy(o, digits + n - k, (size_t)k);
				o += k;
			} else {
				*o++ = '0'; /* like Python: an integral float keeps a ".0" */
			}
		}
		*o = 0;
		return 1;
	}
	return 0;
}

/* "%.Pg" of the P significant digits d (ASCII) with decimal exponent x
 * (the value is d[0].d[1]... * 10^x), negative when neg: C's %g rules
 * (fixed when -4 <= x < P, else d.ddde+XX; trailing zeros dropped). */
static void g_style(char *buf, const char *d, int P, int x, int neg)
{
	int n = P;
	while (n > 1 && d[n - 1] == '0')
		n--;
	char *o = buf;
	if (neg)
		*o++ = '-';
	if (x < -4 || x >= P) {
		*o++ = d[0];
		if (n > 1) {
			*o++ = '.';
			memcpy(o, d + 1, (size_t)(n - 1));
			o += n - 1;
		}
		int ax = x < 0 ? -x : x;
		o += sprintf(o, "e%c%02d", x < 0 ? '-' : '+', ax);
	} else if (x >= 0) {
		for (int i = 0; i <= x; i++)
			*o++ = i < n ? d[i] : '0';
		if (n > x + 1) {
			*o++ = '.';
			memcpy(o, d + x + 1, (size_t)(n - x - 1));
			o += n - x - 1;
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -x - 1; i++)
			*o++ = '0';
		memcpy(o, d, (size_t)n);
		o += n;
	}
	*o = 0;
}

#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 u128;

/* 10^k as a 128-bit integer, k <= 20. */
static u128 pow10_u128(int k)
{
	if (k <= 17)
		return pow10_u64[k];
	u128 r = pow10_u64[17];
	while (k-- > 17)
		r *= 10;
	return r;
}

/* The value m / 2^s (m < 2^53, 3 <= s <= 70) times 10^p (0 <= p <= 20)
 * rounded to the nearest integer, exactly (m * 10^p < 2^120); *tie set
 * when it is exactly halfway (then the result is not rounded). */
static uint64_t scaled_round(uint64_t m, int s, int p, int *tie)
{
	u128 t = (u128)m * pow10_u128(p);
	u128 q = t >> s, r = t - (q << s), half = (u128)1 << (s - 1);
	*tie = r == half;
	return (uint64_t)(q + (r > half));
}

/* Whether the decimal q / 10^pp (q < 10^17, pp <= 20) reads back as
 * m / 2^s (m in [2^52, 2^53), not 2^52 itself: the neighbours are then
 * one ulp 2^-s away on both sides): closer than half an ulp, or exactly
 * half way with m even (strtod rounds a tie to even). In integers, times
 * 2 * 10^pp * 2^s: |2 q 2^s - 2 m 10^pp| against 10^pp. */
static int reads_back(uint64_t q, int pp, uint64_t m, int s)
{
	u128 c = ((u128)q << s) << 1, v = ((u128)m * pow10_u128(pp)) << 1, lim = pow10_u128(pp);
	u128 d = c > v ? c - v : v - c;
	return d < lim || (d == lim && !(m & 1));
}

/* The second path of tg_format_double for 1e-4 <= |v| < 1e15 (every mean
 * and ratio of a report), in exact integer arithmetic: |v| = m / 2^s, its
 * P significant digits (P = 15, 16, 17, as "%.Pg" rounds them) are
 * m * 10^p / 2^s rounded, and whether they read back is an integer
 * comparison with half an ulp (issue 24: printf's and strtod's exact
 * arithmetic was 12 M of the 17 M instructions of an h200-dev report's
 * csv files). Returns 0 where it does not decide (a tie, a rounding into
 * one more digit, m a power of two): the caller's paths then do. */
static int format_double_exact(char *buf, double v)
{
	double a = fabs(v);
	if (!(a >= 1e-4 && a < 1e15))
		return 0;
	/* a = m / 2^s, m its 53-bit significand, read from its bits (a is
	 * positive and normal here): frexp and ldexp were calls into libm */
	uint64_t bits;
	memcpy(&bits, &a, sizeof(bits));
	uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
	int s = 1075 - (int)(bits >> 52), tie;
	if (m == (UINT64_C(1) << 52))
		return 0;
	int x = 0; /* decimal exponent: 10^x <= a < 10^(x+1) */
	while (x < 15 && a >= pow10_d[x + 1])
		x++;
	if (a < 1)
		x = a >= 1e-1 ? -1 : a >= 1e-2 ? -2 : a >= 1e-3 ? -3 : -4;
	for (int P = 15; P <= 17; P++) {
		int pp = P - 1 - x; /* digits after the point */
		uint64_t q = scaled_round(m, s, pp, &tie);
		if (tie || q < pow10_u64[P - 1] || q >= pow10_u64[P])
			return 0; /* a tie, a carry into one more digit, or x was wrong */
		if (P < 17 && !reads_back(q, pp, m, s))
			continue;
		char d[24];
		for (int i = P - 1; i >= 0; i--, q /= 10)
			d[i] = (char)('0' + q % 10);
		g_style(buf, d, P, x, v < 0);
		return 1;
	}
	return 0;
}
#else
static int format_double_exact(char *buf, double v)
{
	(void)buf;
	(void)v;
	return 0;
}
#endif

/* The second path of tg_format_double, for values that need 16 or 17
 * digits (means, ratios): one printf of 17 digits, then 15 and 16 digits
 * rounded from them in decimal, each tried with strtod as the general path
 * tries "%.15g" and "%.16g" (printf does its exact arithmetic once, not
 * three times). Rounding the 17 digits again is only exact away from a
 * tie: a rounding whose dropped digits are exactly "5" or "50", or that
 * carries into a new digit, returns 0 for the general path. */
static int format_double_digits(char *buf, double v)
{
	char e17[40];
	snprintf(e17, sizeof(e17), "%.16e", v);
	const char *s = e17;
	int neg = *s == '-';
	s += neg;
	if (s[0] < '0' || s[0] > '9' || s[1] != '.')
		return 0; /* inf, nan */
	char d[18];
	d[0] = s[0];
	memcpy(d + 1, s + 2, 16);
	d[17] = 0;
	if (s[18] != 'e')
		return 0;
	int x = atoi(s + 19);
	for (int P = 15; P <= 16; P++) {
		const char *tail = d + P;
		if ((P == 16 && tail[0] == '5') || (P == 15 && tail[0] == '5' && tail[1] == '0'))
			return 0;
		char r[18];
		memcpy(r, d, (size_t)P);
		if (tail[0] >= '5') {
			int i = P - 1;
			while (i >= 0 && r[i] == '9')
				r[i--] = '0';
			if (i < 0)
				return 0;
			r[i]++;
		}
		char cand[48], *c = cand; /* "-d.ddde-x" */
		if (neg)
			*c++ = '-';
		*c++ = r[0];
		*c++ = '.';
		memcpy(c, r + 1, (size_t)(P - 1));
		c += P - 1;
		sprintf(c, "e%d", x);
		if (strtod(cand, NULL) == v) {
			g_style(buf, r, P, x, neg);
			return 1;
		}
	}
	g_style(buf, d, 17, x, neg);
	return 1;
}

void tg_format_double(char *buf, double v)
{
	if (v == 0) {
		strcpy(buf, "0.0");
		return;
	}
	if (format_double_fast(buf, v) || format_double_exact(buf, v) || format_double_digits(buf, v)) {
		if (!strpbrk(buf, ".eEn"))
			strcat(buf, ".0");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* like Python: an integral float keeps a ".0" */
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
}
