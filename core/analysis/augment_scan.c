/*
 * augment_scan.c - the byte-level JSON scanning of the augmented trace's
 * second read (augment_impl.h): where a string or a value ends, whether a
 * key is a given one. The reader (trace_read.c) validated the same bytes on
 * the first read; this only walks them, bounded and defensive, so that a
 * file changed in between gives an error and never a wrong read past the
 * buffer. Written apart from the reader so that neither depends on the
 * other's inside (the reader's lexer works in place with a sentinel and
 * longjmps; this works on ranges and returns).
 */
#include "augment_impl.h"

#include <string.h>

#define MAX_DEPTH 10000

const char *tg_scan_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

const char *tg_scan_string_end(const char *p, const char *end, int *bad)
{
	if (p >= end)
		return NULL;
	if (*p != '"') {
		if (bad)
			*bad = 1;
		return NULL;
	}
	for (p++; p < end; p++) {
		if (*p == '"')
			return p + 1;
		if (*p == '\\') {
			if (++p >= end)
				return NULL;
		} else if ((unsigned char)*p < 0x20) {
			if (bad)
				*bad = 1;
			return NULL;
		}
	}
	return NULL;
}

/* One past a number or literal at p: the run of bytes that can be in one. */
static const char *scalar_end(const char *p, const char *end, int *bad)
{
	const char *s = p;
	while (p < end && strchr("0123456789+-.eEtrufalsn", *p) && *p)
		p++;
	if (p == end)
		return NULL; /* it may go on */
	if (p == s && bad)
		*bad = 1;
	return p == s ? NULL : p;
}

const char *tg_scan_value_end(const char *p, const char *end, int *bad)
{
	int depth = 0;
	while (p < end) {
		char c = *p;
		if (c == '"') {
			p = tg_scan_string_end(p, end, bad);
			if (!p)
				return NULL;
		} else if (c == '{' || c == '[') {
			if (++depth > MAX_DEPTH) {
				if (bad)
					*bad = 1;
				return NULL;
			}
			p++;
		} else if (c == '}' || c == ']') {
			if (--depth < 0) {
				if (bad)
					*bad = 1;
				return NULL;
			}
			p++;
		} else if (depth > 0 && (c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
			p++;
		} else {
			p = scalar_end(p, end, bad);
			if (!p)
				return NULL;
		}
		if (depth == 0)
			return p;
	}
	return NULL;
}

static int hex(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

/* The next decoded character of the string body at *p (before q): an ASCII
 * byte, or -1 for anything else (a non-ASCII character or escape). */
static int next_char(const char **p, const char *q)
{
	const char *s = *p;
	if (*s != '\\') {
		*p = s + 1;
		return (unsigned char)*s < 0x80 ? (unsigned char)*s : -1;
	}
	if (s + 1 >= q)
		return -1;
	const char *esc = "\"\"\\\\//b\bf\fn\nr\rt\t";
	for (const char *e = esc; *e; e += 2)
		if (s[1] == e[0]) {
			*p = s + 2;
			return (unsigned char)e[1];
		}
	if (s[1] != 'u' || q - s < 6)
		return -1;
	int v = 0;
	for (int i = 2; i < 6; i++) {
		int h = hex(s[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	*p = s + 6;
	return v < 0x80 ? v : -1;
}

int tg_scan_string_is(const char *p, const char *q, const char *lit)
{
	if (q - p < 2)
		return 0;
	const char *s = p + 1, *e = q - 1;
	size_t n = strlen(lit);
	if ((size_t)(e - s) == n && !memchr(s, '\\', n))
		return !memcmp(s, lit, n);
	while (s < e && *lit) {
		if (next_char(&s, e) != (unsigned char)*lit++)
			return 0;
	}
	return s == e && !*lit;
}

int tg_scan_string_char(const char *p, const char *q)
{
	if (q - p < 3)
		return 0;
	const char *s = p + 1, *e = q - 1;
	int c = next_char(&s, e);
	return s == e && c > 0 ? c : 0;
}
