/*
 * writer.c - buffered output for tg-gen: one big buffer handed to stdio or
 * zlib, and integer formatting by hand (printf per field would cost more
 * than the rest of the generator together at gigabyte sizes).
 */
#include "gen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define WBUF_CAP (4u << 20)

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("tg-gen: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("tg-gen: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

char *xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

int w_open(wbuf *w, const char *path, int level)
{
	memset(w, 0, sizeof(*w));
	if (!strcmp(path, "-")) {
		w->fp = stdout;
	} else if (has_suffix(path, ".gz")) {
		char mode[8];
		snprintf(mode, sizeof(mode), "wb%d", level);
		w->gz = gzopen(path, mode);
		if (!w->gz)
			return -1;
		gzbuffer(w->gz, 1u << 20);
	} else {
		w->fp = fopen(path, "wb");
		if (!w->fp)
			return -1;
		w->close_fp = 1;
	}
	w->cap = WBUF_CAP;
	w->buf = xmalloc(w->cap);
	return 0;
}

void w_flush(wbuf *w)
{
	if (!w->len)
		return;
	if (w->gz) {
		if (gzwrite(w->gz, w->buf, (unsigned)w->len) != (int)w->len)
			w->err = 1;
	} else if (fwrite(w->buf, 1, w->len, w->fp) != w->len) {
		w->err = 1;
	}
	w->len = 0;
}

int w_close(wbuf *w)
{
	w_flush(w);
	if (w->gz) {
		if (gzclose(w->gz) != Z_OK)
			w->err = 1;
	} else if (w->close_fp) {
		if (fclose(w->fp))
			w->err = 1;
	} else if (fflush(w->fp)) {
		w->err = 1;
	}
	free(w->buf);
	w->buf = NULL;
	return w->err ? -1 : 0;
}

void w_mem(wbuf *w, const void *s, size_t n)
{
	w->total += n;
	if (w->len + n > w->cap) {
		w_flush(w);
		if (n > w->cap) { /* larger than the buffer: straight through */
			char *save = w->buf;
			size_t cap = w->cap;
			w->buf = (char *)s;
			w->len = n;
			w_flush(w);
			w->buf = save;
			w->cap = cap;
			return;
		}
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

void w_str(wbuf *w, const char *s)
{
	w_mem(w, s, strlen(s));
}

/* Writes the digits of v (< 10^20) right-aligned ending at end; returns the
 * first digit. */
static char *digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

void w_i64(wbuf *w, int64_t v)
{
	char tmp[24];
	char *end = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	char *p = digits(end, u);
	if (v < 0)
		*--p = '-';
	w_mem(w, p, (size_t)(end - p));
}

void w_us(wbuf *w, int64_t ns)
{
	char tmp[32];
	char *end = tmp + sizeof(tmp);
	uint64_t u = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(u % 1000);
	char *p = end;
	*--p = (char)('0' + frac % 10);
	*--p = (char)('0' + frac / 10 % 10);
	*--p = (char)('0' + frac / 100);
	*--p = '.';
	p = digits(p, u / 1000);
	if (ns < 0)
		*--p = '-';
	w_mem(w, p, (size_t)(end - p));
}

char *json_quote(const char *s)
{
	size_t n = strlen(s);
	char *q = xmalloc(6 * n + 3), *o = q;
	*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': *o++ = '\\'; *o++ = '"'; break;
		case '\\': *o++ = '\\'; *o++ = '\\'; break;
		case '\n': *o++ = '\\'; *o++ = 'n'; break;
		case '\t': *o++ = '\\'; *o++ = 't'; break;
		case '\r': *o++ = '\\'; *o++ = 'r'; break;
		default:
			if (*p < 0x20)
				o += sprintf(o, "\\u%04x", *p);
			else
				*o++ = (char)*p;
		}
	}
	*o++ = '"';
	*o = 0;
	return q;
}
