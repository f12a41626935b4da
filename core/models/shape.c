/*
 * shape.c - parses the raw JSON texts of shape arguments. Written by hand
 * rather than with jansson: the texts are tiny, parsed for every op of a
 * trace, and a fixed-size result without allocation keeps the perf models
 * allocation-free.
 */
#include "shape.h"
#include "../../util/tg.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* Skips any JSON value (depth-limited); NULL on error. */
static const char *skip_value(const char *p, int depth)
{
	p = ws(p);
	if (depth > 64)
		return NULL;
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++)
			if (*p == '\\' && !*++p)
				return NULL;
		return *p ? p + 1 : NULL;
	}
	if (*p == '[' || *p == '{') {
		char close = *p == '[' ? ']' : '}';
		p = ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			p = skip_value(p, depth + 1);
			if (!p)
				return NULL;
			p = ws(p);
			if (close == '}' && *p == ':') {
				p = skip_value(p + 1, depth + 1);
				if (!p)
					return NULL;
				p = ws(p);
			}
			if (*p == ',') {
				p++;
				continue;
			}
			return *p == close ? p + 1 : NULL;
		}
	}
	const char *s = p;
	while (*p && (isalnum((unsigned char)*p) || *p == '-' || *p == '+' || *p == '.'))
		p++;
	if (p == s)
		return NULL;
	/* a number, true, false or null */
	if (*s == '-' || isdigit((unsigned char)*s))
		return p;
	size_t n = (size_t)(p - s);
	if ((n == 4 && (!strncmp(s, "true", 4) || !strncmp(s, "null", 4))) || (n == 5 && !strncmp(s, "false", 5)))
		return p;
	return NULL;
}

/* Parses a string at p into it->s; returns the end or NULL. */
static const char *parse_str(const char *p, tg_shape_item *it)
{
	size_t o = 0;
	for (p++; *p && *p != '"'; p++) {
		char c = *p;
		if (c == '\\') {
			c = *++p;
			if (!c)
				return NULL;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c == 'u') { /* keep \uXXXX as '?' */
				for (int k = 0; k < 4; k++)
					if (!isxdigit((unsigned char)*++p))
						return NULL;
				c = '?';
			}
		}
		if (o + 1 < TG_SHAPE_MAX_STR)
			it->s[o++] = c;
		else
			it->cut = 1;
	}
	it->s[o] = 0;
	return *p ? p + 1 : NULL;
}

/* Parses a list of integers at p (after '['); OTHER when it holds anything else. */
static const char *parse_dims(const char *p, tg_shape_item *it)
{
	const char *start = p;
	p = ws(p + 1);
	it->kind = TG_SHAPE_DIMS;
	if (*p == ']')
		return p + 1;
	for (;;) {
		p = ws(p);
		char *end;
		if (*p == '-' || isdigit((unsigned char)*p)) {
			long long v = strtoll(p, &end, 10);
			if (end == p || *end == '.' || *end == 'e' || *end == 'E')
				goto other;
			if (it->nd < TG_SHAPE_MAX_DIMS)
				it->d[it->nd++] = v;
			else
				it->cut = 1;
			p = ws(end);
		} else
			goto other;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == ']')
			return p + 1;
		return NULL;
	}
other:
	it->kind = TG_SHAPE_OTHER;
	it->nd = 0;
	return skip_value(start, 0);
}

int tg_shape_parse(tg_shape_list *out, const char *json)
{
	out->n = 0;
	out->cut = 0;
	if (!json)
		return 0;
	const char *p = ws(json);
	if (*p != '[')
		return TG_EFORMAT;
	p = ws(p + 1);
	if (*p == ']')
		return 0;
	for (;;) {
		tg_shape_item tmp, *it = out->n < TG_SHAPE_MAX_ITEMS ? &out->v[out->n] : &tmp;
		memset(it, 0, sizeof(*it));
		p = ws(p);
		if (*p == '"')
			it->kind = TG_SHAPE_STR, p = parse_str(p, it);
		else if (*p == '[')
			p = parse_dims(p, it);
		else if (!strncmp(p, "null", 4))
			it->kind = TG_SHAPE_NONE, p += 4;
		else if (*p == '-' || isdigit((unsigned char)*p)) {
			char *end;
			it->kind = TG_SHAPE_NUM;
			it->num = strtod(p, &end);
			p = end > p ? end : NULL;
		} else
			it->kind = TG_SHAPE_OTHER, p = skip_value(p, 0);
		if (!p)
			goto bad;
		if (it == &tmp)
			out->cut = 1;
		else
			out->n++;
		p = ws(p);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == ']')
			return 0;
		goto bad;
	}
bad:
	out->n = 0;
	out->cut = 0;
	return TG_EFORMAT;
}

const tg_shape_item *tg_shape_get(const tg_shape_list *l, size_t i, tg_shape_kind kind)
{
	if (!l || i >= l->n || l->v[i].kind != kind)
		return NULL;
	return &l->v[i];
}

int64_t tg_shape_numel(const tg_shape_item *it)
{
	if (!it || it->kind != TG_SHAPE_DIMS)
		return 0;
	int64_t n = 1;
	for (int i = 0; i < it->nd; i++) {
		int64_t d = it->d[i];
		if (d <= 0)
			return 0;
		if (n > INT64_MAX / d)
			return INT64_MAX;
		n *= d;
	}
	return n;
}

size_t tg_shape_ints(int64_t *v, size_t cap, const char *text)
{
	size_t n = 0;
	if (!text)
		return 0;
	for (const char *p = text; *p && n < cap;) {
		if (*p == '-' || isdigit((unsigned char)*p)) {
			char *end;
			long long x = strtoll(p, &end, 10);
			if (end == p) {
				p++;
				continue;
			}
			v[n++] = x;
			p = end;
		} else
			p++;
	}
	return n;
}

int tg_shape_dtype_bytes(const char *type)
{
	if (!type)
		return 0;
	char low[TG_SHAPE_MAX_STR];
	size_t i = 0;
	for (; type[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)type[i]);
	low[i] = 0;
	if (!strcmp(low, "double") || !strcmp(low, "long int") || !strcmp(low, "long"))
		return 8;
	if (!strcmp(low, "float") || !strcmp(low, "scalar") || !strcmp(low, "int"))
		return 4;
	if (!strcmp(low, "c10::half") || !strcmp(low, "c10::bfloat16"))
		return 2;
	if (!strncmp(low, "c10::float8_", 12) || !strcmp(low, "unsigned char") || !strcmp(low, "signed char") ||
	    !strcmp(low, "fp8") || !strcmp(low, "c10::float4_e2m1fn_x2") || !strcmp(low, "fp4"))
		return 1;
	return 0;
}

const char *tg_shape_dtype_precision(const char *type)
{
	if (!type)
		return NULL;
	char low[TG_SHAPE_MAX_STR];
	size_t i = 0;
	for (; type[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)type[i]);
	low[i] = 0;
	if (!strcmp(low, "float"))
		return "fp32";
	if (!strcmp(low, "double"))
		return "fp64";
	if (!strcmp(low, "c10::half"))
		return "fp16";
	if (!strcmp(low, "c10::bfloat16"))
		return "bf16";
	if (strstr(low, "float4") || !strcmp(low, "fp4"))
		return "fp4";
	if (!strncmp(low, "c10::float8_", 12) || !strcmp(low, "unsigned char") || !strcmp(low, "fp8"))
		return "fp8";
	return NULL;
}

void tg_shape_tuple(char *buf, size_t cap, const tg_shape_item *it)
{
	size_t o = 0;
	if (!cap)
		return;
	buf[0] = 0;
	if (!it || it->kind != TG_SHAPE_DIMS)
		return;
	o += (size_t)snprintf(buf + o, cap - o, "(");
	for (int i = 0; i < it->nd && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, i ? ", %lld" : "%lld", (long long)it->d[i]);
	if (o < cap)
		snprintf(buf + o, cap - o, it->nd == 1 ? ",)" : ")");
}
