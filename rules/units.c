/*
 * units.c - numbers with units in rules files ("5%", "20us", "512MiB").
 *
 * The text is split, and the unit looked up, by util/units_lex.c, which
 * the configuration's durations and sizes share; this file gives the
 * rules' meaning: a double, times in ns (ns to s), sizes in bytes, and
 * the rules' refusals. Decimal numbers are converted exactly for up to 15
 * significant digits and exponents up to 22 (the classic fast path: an
 * exact integer times or divided by an exact power of ten, one rounding),
 * which covers every threshold a person writes.
 */
#include "units.h"
#include "../util/units_lex.h"

#include <math.h>
#include <stdint.h>

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

/* The value of a lexed number: at most 17 significant digits kept, the
 * integer digits beyond them counted in the exponent. */
static double value_of(const tg_units_lexeme *x)
{
	uint64_t mant = 0;
	long e = x->exp10;
	for (size_t i = 0; i < x->nip; i++) {
		if (mant < MANT_MAX)
			mant = mant * 10 + (uint64_t)(x->ip[i] - '0');
		else
			e++; /* a digit beyond the precision kept */
	}
	for (size_t i = 0; i < x->nfrac; i++)
		if (mant < MANT_MAX) {
			mant = mant * 10 + (uint64_t)(x->frac[i] - '0');
			e--;
		}
	return scale(mant, e);
}

int tg_units_parse_number(double *out, const char *s, const char **end)
{
	tg_units_lexeme x;
	if (tg_units_lex(&x, s, TG_UNITS_EXPONENT) || x.neg)
		return -1;
	*out = value_of(&x);
	*end = x.end;
	return 0;
}

int tg_units_parse_percent(double *out, const char *s, const char **why)
{
	tg_units_lexeme x;
	if (tg_units_lex(&x, s, TG_UNITS_EXPONENT)) {
		*why = "is not a percent (write 5% or 5)";
		return -1;
	}
	double v = value_of(&x);
	const char *end = x.unit;
	if (*end == '%')
		end++;
	if (*end) {
		*why = "is not a percent (write 5% or 5)";
		return -1;
	}
	if (x.neg && v != 0) {
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

#define NS_PER_S 1e9 /* the rules take times from ns to s (util/units_lex.c also knows m, h, d) */

int tg_units_parse_quantity(double *out, const char *s, tg_rule_unit unit, const char **why)
{
	tg_units_lexeme x;
	if (tg_units_lex(&x, s, TG_UNITS_EXPONENT)) {
		switch (unit) {
		case TG_UNIT_TIME: *why = "is not a time (write 20us or 1.5ms)"; break;
		case TG_UNIT_BYTES: *why = "is not a size (write 512MiB or 2GB)"; break;
		default: *why = "is not a number"; break;
		}
		return -1;
	}
	double v = value_of(&x);
	if (x.neg && v != 0) {
		*why = "must not be negative";
		return -1;
	}
	const char *name = x.unit;
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
		const tg_unit *u = tg_units_find(time ? TG_UNITS_TIME : TG_UNITS_BYTES, name);
		if (!u || (time && (double)u->factor > NS_PER_S)) {
			*why = time ? "has an unknown time unit (expected ns, us, ms or s)"
			            : "has an unknown byte unit (expected B, KB, MB, GB, KiB, MiB or GiB)";
			return -1;
		}
		factor = (double)u->factor;
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
