/*
 * units.c - numbers with units in rules files ("5%", "20us", "512MiB").
 *
 * Written by hand: no distribution library parses "1.5 ms" or "512MiB",
 * and strtod follows the C locale (a daemon that calls setlocale would
 * read "1.5" as 1 under a comma locale). Decimal numbers are converted
 * exactly for up to 15 significant digits and exponents up to 22 (the
 * classic fast path: an exact integer times or divided by an exact power
 * of ten, one rounding), which covers every threshold a person writes.
 */
#include "units.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#define MANT_MAX UINT64_C(100000000000000000) /* 1e17: room for one more digit */
#define EXACT_MANT (UINT64_C(1) << 53)

/* mant * 10^e as a double. */
static double scale(uint64_t mant, long e)
{
	if (mant == 0)
		return 0;
	if (mant <= EXACT_MANT && e >= -22 && e <= 22)
		return e >= 0 ? (double)mant * pow10_exact[e] : (double)mant / pow10_exact[-e];
	return (double)mant * pow(10, (double)e);
}

int tg_units_parse_number(double *out, const char *s, const char **end)
{
	const char *p = s;
	uint64_t mant = 0;
	long e = 0;
	int digits = 0;
	for (; is_digit(*p); p++, digits++) {
		if (mant < MANT_MAX)
			mant = mant * 10 + (uint64_t)(*p - '0');
		else
			e++; /* a digit beyond the precision kept */
	}
	if (*p == '.') {
		p++;
		for (; is_digit(*p); p++, digits++)
			if (mant < MANT_MAX) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				e--;
			}
	}
	if (!digits)
		return -1;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		int neg = 0;
		if (*q == '+' || *q == '-')
			neg = *q++ == '-';
		if (is_digit(*q)) {
			long x = 0;
			for (; is_digit(*q); q++)
				if (x < 100000)
					x = x * 10 + (*q - '0');
			e += neg ? -x : x;
			p = q;
		}
	}
	*out = scale(mant, e);
	*end = p;
	return 0;
}

static const char *skip_spaces(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

int tg_units_parse_percent(double *out, const char *s, const char **why)
{
	const char *end;
	double v;
	int neg = s[0] == '-';
	if (tg_units_parse_number(&v, s + neg, &end)) {
		*why = "is not a percent (write 5% or 5)";
		return -1;
	}
	end = skip_spaces(end);
	if (*end == '%')
		end++;
	if (*end) {
		*why = "is not a percent (write 5% or 5)";
		return -1;
	}
	if (neg && v != 0) {
		*why = "must not be negative";
		return -1;
	}
	if (!isfinite(v)) {
		*why = "is too large";
		return -1;
	}
	*out = v;
	return 0;
}

struct unit_name {
	const char *name;
	double factor;
};

static const struct unit_name time_units[] = {
	{"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3} /* µs */, {"ms", 1e6}, {"s", 1e9}, {NULL, 0}};

static const struct unit_name byte_units[] = {
	{"B", 1},          {"KB", 1e3},          {"MB", 1e6},          {"GB", 1e9},
	{"KiB", 1 << 10},  {"MiB", 1 << 20},     {"GiB", 1 << 30},     {NULL, 0}};

static const struct unit_name *find_unit(const struct unit_name *u, const char *name)
{
	for (; u->name; u++)
		if (!strcmp(u->name, name))
			return u;
	return NULL;
}

int tg_units_parse_quantity(double *out, const char *s, tg_rule_unit unit, const char **why)
{
	const char *end;
	double v;
	int neg = s[0] == '-';
	if (tg_units_parse_number(&v, s + neg, &end)) {
		switch (unit) {
		case TG_UNIT_TIME: *why = "is not a time (write 20us or 1.5ms)"; break;
		case TG_UNIT_BYTES: *why = "is not a size (write 512MiB or 2GB)"; break;
		default: *why = "is not a number"; break;
		}
		return -1;
	}
	if (neg && v != 0) {
		*why = "must not be negative";
		return -1;
	}
	const char *name = skip_spaces(end);
	double factor = 1;
	switch (unit) {
	case TG_UNIT_TIME:
	case TG_UNIT_BYTES: {
		int time = unit == TG_UNIT_TIME;
		if (!*name) {
			if (v != 0) {
				*why = time ? "needs a time unit (ns, us, ms, s), e.g. 20us"
				            : "needs a byte unit (B, KB, MB, GB, KiB, MiB, GiB), e.g. 512MiB";
				return -1;
			}
			break;
		}
		const struct unit_name *u = find_unit(time ? time_units : byte_units, name);
		if (!u) {
			*why = time ? "has an unknown time unit (expected ns, us, ms or s)"
			            : "has an unknown byte unit (expected B, KB, MB, GB, KiB, MiB or GiB)";
			return -1;
		}
		factor = u->factor;
		break;
	}
	case TG_UNIT_COUNT:
	case TG_UNIT_RATE:
	default:
		if (*name) {
			*why = unit == TG_UNIT_RATE ? "takes a bare number in the metric's unit (TFLOPS/s or TB/s)"
			                            : "takes a bare number (a count), without a unit";
			return -1;
		}
		break;
	}
	v *= factor;
	if (unit == TG_UNIT_TIME || unit == TG_UNIT_BYTES)
		v = round(v);
	if (!isfinite(v)) {
		*why = "is too large";
		return -1;
	}
	*out = v;
	return 0;
}
