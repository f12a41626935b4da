/*
 * buf.c - the growable string buffer (buf.h).
 *
 * The contents are kept NUL-terminated after every append, so that
 * tg_buf_str costs nothing and a take hands over the memory as it is.
 * tg_buf_appendf formats into the room left first and grows to the exact
 * size and formats again only when that was too little; a failed
 * vsnprintf or growth leaves the contents as they were (the NUL is written
 * back at len).
 */
#include "buf.h"
#include "tg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_MIN_CAP 64

void tg_buf_init(tg_buf *b)
{
	*b = (tg_buf)TG_BUF_INIT;
}

/* Marks b failed with code (its message already set) and returns it. */
static int fail(tg_buf *b, int code)
{
	b->err = code;
	return code;
}

int tg_buf_reserve(tg_buf *b, size_t more)
{
	if (b->err)
		return b->err;
	if (more > SIZE_MAX - 1 - b->len)
		return fail(b, tg_error_set(TG_ENOMEM, "out of memory (a string of %zu + %zu bytes)", b->len, more));
	size_t need = b->len + more + 1;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : BUF_MIN_CAP;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	char *p = tg_realloc(b->data, cap);
	if (!p)
		return fail(b, TG_ENOMEM);
	p[b->len] = 0; /* a first allocation is a string from the start (tg_buf_str, take) */
	b->data = p;
	b->cap = cap;
	return 0;
}

int tg_buf_append(tg_buf *b, const void *data, size_t len)
{
	int rc = tg_buf_reserve(b, len);
	if (rc)
		return rc;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = 0;
	return 0;
}

int tg_buf_puts(tg_buf *b, const char *s)
{
	return tg_buf_append(b, s, strlen(s));
}

int tg_buf_putc(tg_buf *b, char c)
{
	return tg_buf_append(b, &c, 1);
}

int tg_buf_vappendf(tg_buf *b, const char *fmt, va_list ap)
{
	if (b->err)
		return b->err;
	va_list again;
	va_copy(again, ap);
	size_t room = b->cap > b->len ? b->cap - b->len : 0;
	int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap);
	int rc = 0;
	if (n < 0)
		rc = fail(b, tg_error_set(TG_EINVAL, "cannot format \"%.40s\" (vsnprintf refused it)", fmt));
	else if ((size_t)n >= room && !(rc = tg_buf_reserve(b, (size_t)n)))
		n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, again);
	va_end(again);
	if (!rc && n < 0)
		rc = fail(b, tg_error_set(TG_EINVAL, "cannot format \"%.40s\" (vsnprintf refused it)", fmt));
	if (rc) {
		if (b->data)
			b->data[b->len] = 0; /* what a refused or cut vsnprintf wrote goes */
		return rc;
	}
	b->len += (size_t)n;
	return 0;
}

int tg_buf_appendf(tg_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = tg_buf_vappendf(b, fmt, ap);
	va_end(ap);
	return rc;
}

const char *tg_buf_str(const tg_buf *b)
{
	return b->data ? b->data : "";
}

size_t tg_buf_copy_out(char *dst, size_t size, const tg_buf *b)
{
	size_t len = b ? b->len : 0;
	if (size) {
		size_t c = len < size - 1 ? len : size - 1;
		if (c)
			memcpy(dst, b->data, c);
		dst[c] = 0;
	}
	return len;
}

int tg_buf_error(const tg_buf *b)
{
	return b->err;
}

void tg_buf_reset(tg_buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->data)
		b->data[0] = 0;
}

int tg_buf_take(char **out, size_t *len, tg_buf *b)
{
	*out = NULL;
	if (len)
		*len = 0;
	int rc = b->err;
	if (!rc && !b->data)
		rc = tg_buf_reserve(b, 0);
	if (rc) {
		tg_buf_free(b);
		return rc;
	}
	*out = b->data;
	if (len)
		*len = b->len;
	tg_buf_init(b);
	return 0;
}

void tg_buf_free(tg_buf *b)
{
	if (!b)
		return;
	free(b->data);
	tg_buf_init(b);
}
