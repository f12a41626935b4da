/*
 * tg.h - what every tracegate module shares: error codes, the error message
 * of the calling thread, and a few constants.
 *
 * Functions that can fail return 0 or a negative TG_E* code and leave a
 * one-line message that tg_error_last() returns until the next failure on
 * the same thread.
 */
#ifndef TG_H
#define TG_H

#include <stddef.h>
#include <stdint.h>

#define TG_VERSION "0.1.0"

/* "No such index" for every uint32_t reference (atoms, events, tracks). */
#define TG_NONE UINT32_MAX

enum tg_error_code {
	TG_OK = 0,
	TG_EIO = -1,       /* cannot open or read a file */
	TG_EFORMAT = -2,   /* malformed input: JSON, gzip, schema */
	TG_ELIMIT = -3,    /* a configured resource limit was exceeded */
	TG_ENOMEM = -4,    /* allocation failed */
	TG_EINVAL = -5,    /* bad argument from the caller */
	TG_ENOTFOUND = -6, /* a looked-up item does not exist */
	TG_EAGAIN = -7,    /* not now: waiting for something else to finish first */
	TG_ENODATA = -8    /* nothing to judge: an input holds none of the data asked of it
	                      (a trace without GPU activity, a side without the events a rule needs) */
};

/* Sets the calling thread's error message (printf-style) and returns code. */
int tg_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The calling thread's last error message; "" when none. Owned by the
 * library, valid until the next tg_error_set on this thread. */
const char *tg_error_last(void);

/* The code passed to the last tg_error_set on this thread (0 if none). */
int tg_error_last_code(void);

/* Clears the calling thread's error. */
void tg_error_clear(void);

/* malloc/realloc/calloc that set TG_ENOMEM's message on failure. */
void *tg_malloc(size_t n);
void *tg_calloc(size_t n, size_t size);
void *tg_realloc(void *p, size_t n);

/* Grows *items (of item_size bytes, *cap capacity) so that it holds at least
 * need items; doubles. Returns 0 or TG_ENOMEM. Inline for the common case
 * (room already there): it is called once per item appended, millions of
 * times a trace. */
int tg_grow_slow(void **items, size_t *cap, size_t need, size_t item_size);

/* tg_grow's doubling with resize (tg_realloc, tg_big_realloc, ...) in
 * place of realloc; resize sets TG_ENOMEM's message when it fails.
 * *items and *cap are untouched on failure. */
int tg_grow_with(void **items, size_t *cap, size_t need, size_t item_size, void *(*resize)(void *, size_t));

static inline int tg_grow(void **items, size_t *cap, size_t need, size_t item_size)
{
	return need <= *cap ? 0 : tg_grow_slow(items, cap, need, item_size);
}

#endif
