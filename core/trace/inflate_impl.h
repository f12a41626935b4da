/*
 * inflate_impl.h - the two backends behind inflate.h, shared by inflate.c
 * (which picks one) and inflate_zlib.c / inflate_isal.c (which implement
 * it). Not for other modules. Each backend's state is opaque; the
 * functions mean what inflate.h's of the same verb mean.
 */
#ifndef TG_INFLATE_IMPL_H
#define TG_INFLATE_IMPL_H

#include <stddef.h>

struct tg_inflate_ops {
	void *(*create)(void); /* NULL: out of memory */
	void (*reset)(void *st);
	int (*run)(void *st, const unsigned char **in, size_t *in_len, unsigned char **out, size_t *out_len,
	           const char **msg);
	void (*destroy)(void *st);
};

extern const struct tg_inflate_ops tg_inflate_zlib_ops;
/* NULL when ISA-L is not built in (make ISAL=0) */
extern const struct tg_inflate_ops *const tg_inflate_isal_ops;

#endif
