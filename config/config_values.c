/*
 * config_values.c - durations ("10s", "1.5h", "250ms") and sizes ("512MiB",
 * "1GB", "4096") of the configuration.
 *
 * Written by hand: no distribution library reads these units, and strtod
 * would follow the C locale. Numbers are parsed as an integer part and at
 * most 9 significant decimals, and converted with integer arithmetic, so
 * "1.5h" is exactly 5,400,000 ms; a value that is not a whole number of
 * milliseconds (or bytes) is refused rather than rounded.
 */
#include "config_impl.h"

#include <string.h>

/* A decimal number: integer part, fraction (fdigits decimals, trailing
 * zeros dropped). */
struct number {
	uint64_t ip, frac, pow10; /* value = ip + frac / pow10 */
	int big;                  /* the integer part overflowed */
	int many;                 /* more than 9 significant decimals */
};

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Parses [digits][.digits] at s; returns the end, or NULL without digits. */
static const char *number(const char *s, struct number *n)
{
	const char *p = s;
	int digits = 0;
	memset(n, 0, sizeof(*n));
	n->pow10 = 1;
	for (; is_digit(*p); p++, digits++) {
		unsigned d = (unsigned)(*p - '0');
		if (n->ip > (UINT64_MAX - d) / 10)
			n->big = 1;
		else
			n->ip = n->ip * 10 + d;
	}
	if (*p == '.') {
		/* decimals: remember at most 9 significant ones (trailing zeros do not count) */
		char dec[10];
		int nd = 0, zeros = 0;
		for (p++; is_digit(*p); p++, digits++) {
			if (*p == '0') {
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
			dec[nd++] = *p;
		}
		for (int i = 0; i < nd; i++) {
			n->frac = n->frac * 10 + (uint64_t)(dec[i] - '0');
			n->pow10 *= 10;
		}
	}
	return digits ? p : NULL;
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

static const char *skip_spaces(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The number at the start of s, or the reason why there is none. */
static const char *parse_number(const char *s, struct number *n, const char **rest, const char *not_a)
{
	if (*s == '-' && (is_digit(s[1]) || s[1] == '.'))
		return "must not be negative";
	const char *p = number(s, n);
	if (!p)
		return not_a;
	*rest = skip_spaces(p);
	return NULL;
}

int tg_config_duration_why(int64_t *ms, const char *s, const char **why)
{
	static const struct {
		const char *name;
		uint64_t ms;
	} units[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000}};
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
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(rest, units[i].name))
			continue;
		if ((*why = scale(&n, units[i].ms, INT64_MAX, "is not a whole number of milliseconds", &v)))
			return -1;
		*ms = (int64_t)v;
		return 0;
	}
	*why = "has an unknown unit (expected ms, s, m, h or d)";
	return -1;
}

int tg_config_size_why(uint64_t *bytes, const char *s, const char **why)
{
	static const struct {
		const char *name;
		uint64_t bytes;
	} units[] = {{"", 1},
	             {"B", 1},
	             {"KB", 1000},
	             {"MB", 1000000},
	             {"GB", 1000000000},
	             {"KiB", UINT64_C(1) << 10},
	             {"MiB", UINT64_C(1) << 20},
	             {"GiB", UINT64_C(1) << 30}};
	struct number n;
	const char *rest;
	if ((*why = parse_number(s, &n, &rest, "is not a size (write 512MiB, 1GB or 4096)")))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(rest, units[i].name))
			return (*why = scale(&n, units[i].bytes, UINT64_MAX, "is not a whole number of bytes", bytes)) ? -1 : 0;
	*why = "has an unknown unit (expected B, KB, MB, GB, KiB, MiB or GiB)";
	return -1;
}

int tg_config_parse_duration(int64_t *ms, const char *s)
{
	const char *why;
	int64_t v;
	if (!ms || !s)
		return tg_error_set(TG_EINVAL, "tg_config_parse_duration: bad argument");
	if (tg_config_duration_why(&v, s, &why))
		return tg_error_set(TG_EINVAL, "'%s' %s", TG_SHOW(s), why);
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
		return tg_error_set(TG_EINVAL, "'%s' %s", TG_SHOW(s), why);
	*bytes = v;
	return 0;
}
