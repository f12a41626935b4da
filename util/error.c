/* error.c - the per-thread error message behind tg_error_last(). */
#include "tg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One message per thread, so that the reader's inflate thread and the caller
 * never overwrite each other's message. */
static _Thread_local char tls_message[1024];
static _Thread_local int tls_code;

int tg_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tls_message, sizeof(tls_message), fmt, ap);
	va_end(ap);
	tls_code = code;
	return code;
}

const char *tg_error_last(void) { return tls_message; }

int tg_error_last_code(void) { return tls_code; }

void tg_error_clear(void)
{
	tls_message[0] = '\0';
	tls_code = 0;
}

void *tg_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		tg_error_set(TG_ENOMEM, "out of memory (%zu bytes)", n);
	return p;
}

void *tg_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		tg_error_set(TG_ENOMEM, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *tg_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		tg_error_set(TG_ENOMEM, "out of memory (%zu bytes)", n);
	return q;
}

int tg_grow_with(void **items, size_t *cap, size_t need, size_t item_size, void *(*resize)(void *, size_t))
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / item_size)
			return tg_error_set(TG_ENOMEM, "out of memory (array of %zu)", need);
		ncap *= 2;
	}
	void *p = resize(*items, ncap * item_size);
	if (!p)
		return TG_ENOMEM;
	*items = p;
	*cap = ncap;
	return 0;
}

int tg_grow_slow(void **items, size_t *cap, size_t need, size_t item_size)
{
	return tg_grow_with(items, cap, need, item_size, tg_realloc);
}
