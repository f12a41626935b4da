/*
 * inflate_zlib.c - the zlib backend of inflate.h: inflate() with gzip
 * wrapping (16 + MAX_WBITS), one member per reset. zlib's own messages
 * ("invalid block type", "incorrect data check") are the ones every
 * corrupt-gzip error of tracegate quotes, whichever backend met it first.
 */
#include "inflate.h"
#include "inflate_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

static void *create(void)
{
	z_stream *zs = calloc(1, sizeof(*zs));
	if (zs && inflateInit2(zs, 16 + MAX_WBITS) != Z_OK) {
		free(zs);
		return NULL;
	}
	return zs;
}

static void reset(void *st) { inflateReset(st); }

/* One inflate() call: the caller (source.c) loops, bringing input or room. */
static int run(void *st, const unsigned char **in, size_t *in_len, unsigned char **out, size_t *out_len,
               const char **msg)
{
	z_stream *zs = st;
	uInt ai = *in_len > UINT_MAX ? UINT_MAX : (uInt)*in_len;
	uInt ao = *out_len > UINT_MAX ? UINT_MAX : (uInt)*out_len;
	zs->next_in = (unsigned char *)*in;
	zs->avail_in = ai;
	zs->next_out = *out;
	zs->avail_out = ao;
	int zr = inflate(zs, Z_NO_FLUSH);
	*in += ai - zs->avail_in;
	*in_len -= ai - zs->avail_in;
	*out += ao - zs->avail_out;
	*out_len -= ao - zs->avail_out;
	if (zr == Z_STREAM_END)
		return TG_INFLATE_END;
	if (zr == Z_OK || zr == Z_BUF_ERROR) /* Z_BUF_ERROR: no input or no room left */
		return TG_INFLATE_MORE;
	*msg = zs->msg ? zs->msg : "inflate error";
	return TG_INFLATE_BAD;
}

static void destroy(void *st)
{
	if (st)
		inflateEnd(st);
	free(st);
}

const struct tg_inflate_ops tg_inflate_zlib_ops = {create, reset, run, destroy};
