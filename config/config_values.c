/*
 * config_values.c - durations ("10s", "1.5h", "250ms") and sizes ("512MiB",
 * "1GB", "4096") of the configuration.
 *
 * The text is split, and the unit looked up, by util/units_lex.c, which
 * the rules' thresholds share; this file gives the configuration's
 * meaning. Numbers are taken as an integer part and at most 9 significant
 * decimals, and converted with integer arithmetic, so "1.5h" is exactly
 * 5,400,000 ms; a value that is not a whole number of milliseconds (or
 * bytes) is refused rather than rounded. No exponent ("2e3s" has an
 * unknown unit).
 */
#include "config_values.h"
#include "../util/tg.h"
#include "../util/units_lex.h"
#include "../util/yaml_node.h"

#include <string.h>

/* A decimal number: integer part, fraction (fdigits decimals, trailing
 * zeros dropped). */
struct number {
	uint64_t ip, frac, pow10; /* value = ip + frac / pow10 */
	int big;                  /* the integer part overflowed */
	int many;                 /* more than 9 significant decimals */
};

/* The value of a lexed number, exactly. */
static void number_of(const tg_units_lexeme *x, struct number *n)
{
	memset(n, 0, sizeof(*n));
	n->pow10 = 1;
	for (size_t i = 0; i < x->nip; i++) {
		unsigned d = (unsigned)(x->ip[i] - '0');
		if (n->ip > (UINT64_MAX - d) / 10)
			n->big = 1;
		else
			n->ip = n->ip * 10 + d;
	}
	/* decimals: remember at most 9 significant ones (trailing zeros do not count) */
	char dec[10];
	int nd = 0, zeros = 0;
	for (size_t i = 0; i < x->nfrac; i++) {
		char c = x->frac[i];
		if (c == '0') {
			zeros++;
			continue;
		}
		if (nd + zeros + 1 > 9) {
			n->many = 1;
			continue;
		}
		while (zeros) {
			dec[nd++] = '0';
			zeros--;
		}
		dec[nd++] = c;
	}
	for (int i = 0; i < nd; i++) {
		n->frac = n->frac * 10 + (uint64_t)(dec[i] - '0');
		n->pow10 *= 10;
	}
}

/* value * unit as an integer no larger than max, or a reason. */
static const char *scale(const struct number *n, uint64_t unit, uint64_t max, const char *not_whole,
                         uint64_t *out)
{
	if (n->many)
		return "has too many decimals";
	if (n->big || (unit && n->ip > max / unit))
		return "is too large";
	uint64_t whole = n->ip * unit;
	uint64_t f = n->frac * unit; /* < 10^9 * 2^30: no overflow */
	if (f % n->pow10)
		return not_whole;
	f /= n->pow10;
	if (whole > max - f)
		return "is too large";
	*out = whole + f;
	return NULL;
}

/* The number at the start of s and *unit the text after it, or the
 * reason why there is none ("-5s" and "-.5s" are negative, "-x" is not a
 * number). */
static const char *parse_number(const char *s, struct number *n, const char **unit, const char *not_a)
{
	tg_units_lexeme x;
	int rc = tg_units_lex(&x, s, 0);
	if (x.neg)
		return x.nip || s[1] == '.' ? "must not be negative" : not_a;
	if (rc)
		return not_a;
	number_of(&x, n);
	*unit = x.unit;
	return NULL;
}

#define NS_PER_MS UINT64_C(1000000) /* the configuration takes times from ms to d (util/units_lex.c also knows ns, us) */

int tg_config_duration_why(int64_t *ms, const char *s, const char **why)
{
	struct number n;
	const char *rest;
	uint64_t v;
	if ((*why = parse_number(s, &n, &rest, "is not a duration (write 10s, 1.5h or 250ms)")))
		return -1;
	if (!*rest) {
		if (n.ip || n.frac || n.big || n.many) {
			*why = "needs a unit (ms, s, m, h or d), e.g. 10s";
			return -1;
		}
		*ms = 0;
		return 0;
	}
	const tg_unit *u = tg_units_find(TG_UNITS_TIME, rest);
	if (!u || u->factor < NS_PER_MS) {
		*why = "has an unknown unit (expected ms, s, m, h or d)";
		return -1;
	}
	if ((*why = scale(&n, u->factor / NS_PER_MS, INT64_MAX, "is not a whole number of milliseconds", &v)))
		return -1;
	*ms = (int64_t)v;
	return 0;
}

int tg_config_size_why(uint64_t *bytes, const char *s, const char **why)
{
	struct number n;
	const char *rest;
	if ((*why = parse_number(s, &n, &rest, "is not a size (write 512MiB, 1GB or 4096)")))
		return -1;
	const tg_unit *u = *rest ? tg_units_find(TG_UNITS_BYTES, rest) : NULL; /* a bare number is bytes */
	if (*rest && !u) {
		*why = "has an unknown unit (expected B, KB, MB, GB, KiB, MiB or GiB)";
		return -1;
	}
	return (*why = scale(&n, u ? u->factor : 1, UINT64_MAX, "is not a whole number of bytes", bytes)) ? -1 : 0;
}

int tg_config_parse_duration(int64_t *ms, const char *s)
{
	const char *why;
	int64_t v;
	if (!ms || !s)
		return tg_error_set(TG_EINVAL, "tg_config_parse_duration: bad argument");
	if (tg_config_duration_why(&v, s, &why))
		return tg_error_set(TG_EINVAL, "'%s' %s", TG_YAML_SHOW(s), why);
	*ms = v;
	return 0;
}

int tg_config_parse_size(uint64_t *bytes, const char *s)
{
	const char *why;
	uint64_t v;
	if (!bytes || !s)
		return tg_error_set(TG_EINVAL, "tg_config_parse_size: bad argument");
	if (tg_config_size_why(&v, s, &why))
		return tg_error_set(TG_EINVAL, "'%s' %s", TG_YAML_SHOW(s), why);
	*bytes = v;
	return 0;
}
