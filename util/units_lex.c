/*
 * units_lex.c - the number-with-a-unit lexer and the unit table (see
 * units_lex.h).
 *
 * Written by hand: no distribution library reads "1.5 ms" or "512MiB",
 * and strtod follows the C locale (a daemon that calls setlocale would
 * read "1.5" as 1 under a comma locale).
 */
#include "units_lex.h"

#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* The digits at *p: their count, *p moved past them. */
static size_t digits(const char **p)
{
	const char *s = *p;
	while (is_digit(**p))
		(*p)++;
	return (size_t)(*p - s);
}

/* An exponent at p ("e3", "E-2"): its value into *e and the end, or p
 * itself when no digit follows the 'e' and its sign. */
static const char *exponent(const char *p, long *e)
{
	const char *q = p + 1;
	int neg = 0;
	long x = 0;
	if (*p != 'e' && *p != 'E')
		return p;
	if (*q == '+' || *q == '-')
		neg = *q++ == '-';
	if (!is_digit(*q))
		return p;
	for (; is_digit(*q); q++)
		if (x < 100000) /* far beyond a double's range already */
			x = x * 10 + (*q - '0');
	*e = neg ? -x : x;
	return q;
}

int tg_units_lex(tg_units_lexeme *out, const char *s, unsigned flags)
{
	const char *p = s;
	memset(out, 0, sizeof(*out));
	out->neg = *p == '-';
	p += out->neg;
	out->ip = p;
	out->nip = digits(&p);
	out->frac = p;
	if (*p == '.') {
		out->frac = ++p;
		out->nfrac = digits(&p);
	}
	if (!out->nip && !out->nfrac) {
		int neg = out->neg;
		memset(out, 0, sizeof(*out));
		out->neg = neg;
		return -1;
	}
	if (flags & TG_UNITS_EXPONENT)
		p = exponent(p, &out->exp10);
	out->end = p;
	while (*p == ' ' || *p == '\t')
		p++;
	out->unit = p;
	return 0;
}

#define NS_S UINT64_C(1000000000)

static const tg_unit time_units[] = {
	{"ns", 1},           {"us", 1000},          {"\xc2\xb5s", 1000} /* µs */, {"ms", 1000000},
	{"s", NS_S},         {"m", 60 * NS_S},      {"h", 3600 * NS_S},           {"d", 86400 * NS_S},
	{NULL, 0},
};

static const tg_unit byte_units[] = {
	{"B", 1},
	{"KB", 1000},
	{"MB", 1000000},
	{"GB", 1000000000},
	{"KiB", UINT64_C(1) << 10},
	{"MiB", UINT64_C(1) << 20},
	{"GiB", UINT64_C(1) << 30},
	{NULL, 0},
};

const tg_unit *tg_units_find(tg_units_class c, const char *name)
{
	for (const tg_unit *u = c == TG_UNITS_TIME ? time_units : byte_units; u->name; u++)
		if (!strcmp(u->name, name))
			return u;
	return NULL;
}
