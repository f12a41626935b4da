/* pyrepr.c - JSON values to Python tuple/str reprs (see pyrepr.h). */
#include "pyrepr.h"

#include <stdio.h>
#include <string.h>

struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && o->len + 1 < o->cap; i++)
		o->buf[o->len++] = s[i];
	o->buf[o->len] = 0;
}

static void putc_(struct out *o, char c) { put(o, &c, 1); }

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* A JSON string at p (after the quote) as a Python str repr. */
static const char *string(struct out *o, const char *p)
{
	/* decode first to choose the quote as Python does */
	char tmp[4096];
	size_t n = 0;
	while (*p && *p != '"') {
		char c = *p++;
		if (c == '\\') {
			char e = *p++;
			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': c = '?'; p += 4; break; /* rare in shapes: keep a placeholder */
			case 0: return NULL;
			default: c = e;
			}
		}
		if (n + 1 < sizeof(tmp))
			tmp[n++] = c;
	}
	if (*p != '"')
		return NULL;
	tmp[n] = 0;
	char q = memchr(tmp, '\'', n) && !memchr(tmp, '"', n) ? '"' : '\'';
	putc_(o, q);
	for (size_t i = 0; i < n; i++) {
		char c = tmp[i];
		if (c == q || c == '\\') {
			putc_(o, '\\');
			putc_(o, c);
		} else if (c == '\n') {
			put(o, "\\n", 2);
		} else if (c == '\t') {
			put(o, "\\t", 2);
		} else if (c == '\r') {
			put(o, "\\r", 2);
		} else {
			putc_(o, c);
		}
	}
	putc_(o, q);
	return p + 1;
}

static const char *value(struct out *o, const char *p, int depth)
{
	p = ws(p);
	if (depth > 64)
		return NULL;
	if (*p == '"')
		return string(o, p + 1);
	if (*p == '[') {
		putc_(o, '(');
		p = ws(p + 1);
		int n = 0;
		if (*p == ']') {
			putc_(o, ')');
			return p + 1;
		}
		for (;;) {
			if (n)
				put(o, ", ", 2);
			p = value(o, p, depth + 1);
			if (!p)
				return NULL;
			n++;
			p = ws(p);
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p != ']')
				return NULL;
			if (n == 1)
				putc_(o, ',');
			putc_(o, ')');
			return p + 1;
		}
	}
	if (!strncmp(p, "true", 4)) {
		put(o, "True", 4);
		return p + 4;
	}
	if (!strncmp(p, "false", 5)) {
		put(o, "False", 5);
		return p + 5;
	}
	if (!strncmp(p, "null", 4)) {
		put(o, "None", 4);
		return p + 4;
	}
	const char *s = p;
	while (*p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9'))
		p++;
	if (p == s)
		return NULL;
	put(o, s, (size_t)(p - s));
	return p;
}

int tg_pyrepr(char *buf, size_t cap, const char *json)
{
	struct out o = {buf, cap, 0};
	if (!cap)
		return -1;
	buf[0] = 0;
	const char *end = value(&o, json, 0);
	if (!end || *ws(end)) {
		snprintf(buf, cap, "%s", json);
		return -1;
	}
	return 0;
}
