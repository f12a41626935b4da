/*
 * regex.c - a regular expression's size estimated before regcomp (regex.h).
 * One pass over the pattern, a level per open group: an atom (a character,
 * an escape, a bracket expression) costs 1; a group costs what its
 * alternatives cost together; `*`, `+`, `?` double what they repeat (and
 * one more), `{m,n}` multiplies it by its largest count and one. Sums
 * saturate at TG_REGEX_MAX_COST + 1, so that no pattern overflows them.
 */
#include "regex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#define OVER (TG_REGEX_MAX_COST + 1)
#define DEPTH_MAX 64 /* deeper groups than this are refused outright */

struct level {
	size_t total; /* of this group so far */
	size_t last;  /* the last atom's cost: what a repetition repeats */
};

static size_t sat_add(size_t a, size_t b)
{
	return a >= OVER || b >= OVER || a + b >= OVER ? OVER : a + b;
}

static size_t sat_mul(size_t a, size_t b)
{
	return a && b > OVER / a ? OVER : a * b >= OVER ? OVER : a * b;
}

/* The end of the bracket expression opening at p[0] == '[' (past its ']'). */
static const char *bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			char close = p[1];
			p += 2;
			while (*p && !(p[0] == close && p[1] == ']'))
				p++;
			if (*p)
				p += 2;
		} else {
			p++;
		}
	}
	return *p ? p + 1 : p;
}

/* The count a {m}, {m,} or {m,n} at p repeats by (its largest, m + 1 when
 * unbounded), and its end in *end; 0 when p is not one (a literal '{'). */
static size_t braces(const char *p, const char **end)
{
	char *e;
	unsigned long m = strtoul(p + 1, &e, 10), n = m;
	if (e == p + 1)
		return 0;
	if (*e == ',') {
		const char *f = e + 1;
		if (isdigit((unsigned char)*f)) {
			n = strtoul(f, &e, 10);
		} else {
			n = m + 1; /* {m,}: unbounded */
			e = (char *)f;
		}
	}
	if (*e != '}')
		return 0;
	*end = e + 1;
	return (m > n ? m : n) + 1;
}

static void add_atom(struct level *l, size_t cost)
{
	l->total = sat_add(l->total, cost);
	l->last = cost;
}

static void repeat(struct level *l, size_t times)
{
	size_t grown = sat_add(sat_mul(l->last, times), 1);
	l->total = l->total >= OVER || grown >= OVER ? OVER : sat_add(l->total - l->last, grown);
	l->last = grown;
}

size_t tg_regex_cost(const char *re)
{
	struct level st[DEPTH_MAX + 1] = {{0, 0}};
	size_t d = 0;
	for (const char *p = re; *p && st[0].total < OVER;) {
		const char *end = p + 1;
		size_t times;
		if (*p == '\\') {
			add_atom(&st[d], 1);
			end = p[1] ? p + 2 : p + 1;
		} else if (*p == '[') {
			add_atom(&st[d], 1);
			end = bracket_end(p);
		} else if (*p == '(') {
			if (d == DEPTH_MAX)
				return OVER;
			st[++d] = (struct level){0, 0};
		} else if (*p == ')' && d > 0) {
			size_t group = st[d].total ? st[d].total : 1;
			d--;
			add_atom(&st[d], group);
		} else if (*p == '|') {
			st[d].last = 0;
		} else if (*p == '*' || *p == '+' || *p == '?') {
			repeat(&st[d], 2);
		} else if (*p == '{' && (times = braces(p, &end)) > 0) {
			repeat(&st[d], times);
		} else {
			add_atom(&st[d], 1);
		}
		if (st[d].total >= OVER)
			return OVER;
		p = end;
	}
	while (d > 0) {
		size_t group = st[d].total;
		d--;
		st[d].total = sat_add(st[d].total, group);
	}
	return st[0].total >= OVER ? OVER : st[0].total;
}

int tg_regex_compile(regex_t *out, const char *re, char *msg, size_t cap)
{
	if (tg_regex_cost(re) > TG_REGEX_MAX_COST) {
		snprintf(msg, cap, "too complex (its repetitions would expand to more than %d pieces)",
		         TG_REGEX_MAX_COST);
		return -1;
	}
	int rc = regcomp(out, re, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, out, msg, cap); /* a failed regcomp holds nothing to free */
		return -1;
	}
	return 0;
}
