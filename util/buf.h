/*
 * buf.h - tg_buf, the one growable string buffer: bytes appended as they
 * come (raw, a string, a character, printf-style), always NUL-terminated
 * once anything was appended, then read in place or taken as a malloc'd
 * string.
 *
 * A buffer is a plain struct the caller owns (on the stack, in another
 * struct); TG_BUF_INIT or tg_buf_init make an empty one that holds no
 * memory, tg_buf_free gives its memory back. Growth doubles (from 64
 * bytes), so n appends cost O(total bytes).
 *
 * Errors stick: an append that fails (out of memory, a length that would
 * overflow, a format vsnprintf refuses) returns TG_ENOMEM / TG_EINVAL with
 * the message set, leaves the contents as they were and marks the buffer,
 * so that every later append returns the same code without appending, and
 * tg_buf_take fails with it. A builder may then append without checking
 * each call and check once, at tg_buf_take or tg_buf_error, the way an
 * open_memstream is checked at fclose. tg_buf_reset clears the mark.
 *
 * A buffer is one thread's at a time. This header moves to util/ with
 * the other helpers (issue 25).
 */
#ifndef TG_BUF_H
#define TG_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct tg_buf {
	char *data; /* len bytes and a NUL; NULL while nothing was ever appended */
	size_t len; /* bytes held, the NUL not counted */
	size_t cap; /* bytes allocated */
	int err;    /* the TG_E* code of the first failed append, else 0 */
} tg_buf;

#define TG_BUF_INIT {NULL, 0, 0, 0}

/* Makes b empty, holding no memory (what TG_BUF_INIT gives). */
void tg_buf_init(tg_buf *b);

/* Appends len bytes at data (data may be NULL when len is 0; the bytes
 * may hold NULs). 0, TG_ENOMEM, or the code of an earlier failure. */
int tg_buf_append(tg_buf *b, const void *data, size_t len);

/* Appends the string s. 0, TG_ENOMEM, or the code of an earlier failure. */
int tg_buf_puts(tg_buf *b, const char *s);

/* Appends the character c. 0, TG_ENOMEM, or the code of an earlier
 * failure. */
int tg_buf_putc(tg_buf *b, char c);

/* Appends what printf would write for fmt and its arguments, of any
 * length. 0, TG_ENOMEM, TG_EINVAL (vsnprintf refused the format or an
 * argument, such as a wide string it cannot convert), or the code of an
 * earlier failure. */
int tg_buf_appendf(tg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tg_buf_appendf with a va_list (ap is used once, as vprintf does). */
int tg_buf_vappendf(tg_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Makes room for more bytes after the current ones, so that the appends
 * that fill them cannot fail. 0, TG_ENOMEM, or an earlier failure's code. */
int tg_buf_reserve(tg_buf *b, size_t more);

/* The contents as a string: "" (a static string) while nothing was
 * appended. Owned by b, valid until its next append, take or free. */
const char *tg_buf_str(const tg_buf *b);

/* snprintf's contract for a finished buffer: the contents of b (NULL: none)
 * copied into dst of size bytes, cut to size - 1 and NUL-terminated when
 * size is not 0; returns the length b holds (0 for NULL), so that a result
 * >= size says it was cut. */
size_t tg_buf_copy_out(char *dst, size_t size, const tg_buf *b);

/* The code of the first append that failed since init or reset, else 0.
 * The message was set when it failed. */
int tg_buf_error(const tg_buf *b);

/* Empties b (len 0, the error mark cleared) and keeps its memory for the
 * next appends. */
void tg_buf_reset(tg_buf *b);

/* Hands the contents over: *out is the NUL-terminated string (malloc'd,
 * the caller frees it; "" when nothing was appended), *len its length
 * when len is not NULL; b is left empty, holding nothing. When an append
 * had failed, or "" cannot be allocated, returns that code, *out is NULL
 * and b is freed. */
int tg_buf_take(char **out, size_t *len, tg_buf *b);

/* Gives b's memory back and makes it empty (NULL-safe: b may be NULL). */
void tg_buf_free(tg_buf *b);

#endif
