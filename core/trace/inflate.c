/*
 * inflate.c - implements inflate.h: picks the backend (ISA-L when built in
 * and not refused, else zlib) and hands every call to it.
 */
#include "inflate.h"
#include "inflate_impl.h"
#include "source.h"
#include "../../util/tg.h"

#include <stdlib.h>

struct tg_inflate {
	const struct tg_inflate_ops *ops;
	void *st;
	int backend;
};

int tg_inflate_have_isal(void) { return tg_inflate_isal_ops != NULL; }

int tg_inflate_new(tg_inflate **out, int backend)
{
	*out = NULL;
	if (backend == TG_INFLATE_AUTO)
		backend = tg_inflate_isal_ops ? TG_INFLATE_ISAL : TG_INFLATE_ZLIB;
	const struct tg_inflate_ops *ops = backend == TG_INFLATE_ISAL ? tg_inflate_isal_ops
	                                   : backend == TG_INFLATE_ZLIB ? &tg_inflate_zlib_ops : NULL;
	if (!ops)
		return tg_error_set(TG_EINVAL, "inflate backend %d is not built in", backend);
	tg_inflate *z = tg_calloc(1, sizeof(*z));
	if (!z)
		return TG_ENOMEM;
	z->ops = ops;
	z->backend = backend;
	z->st = ops->create();
	if (!z->st) {
		free(z);
		return tg_error_set(TG_ENOMEM, "out of memory (inflate state)");
	}
	*out = z;
	return 0;
}

void tg_inflate_reset(tg_inflate *z) { z->ops->reset(z->st); }

int tg_inflate_run(tg_inflate *z, const unsigned char **in, size_t *in_len, unsigned char **out,
                   size_t *out_len, const char **msg)
{
	return z->ops->run(z->st, in, in_len, out, out_len, msg);
}

int tg_inflate_backend(const tg_inflate *z) { return z->backend; }

void tg_inflate_free(tg_inflate *z)
{
	if (!z)
		return;
	z->ops->destroy(z->st);
	free(z);
}
