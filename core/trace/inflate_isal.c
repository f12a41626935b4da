/*
 * inflate_isal.c - the ISA-L backend of inflate.h: isal_inflate() with
 * ISAL_GZIP (the header parsed, the CRC-32 and length of the trailer
 * checked), one member per reset. ISA-L gives back the bytes after a
 * member's trailer, so the next member (or padding, or garbage) starts
 * where it stopped, as with zlib.
 *
 * Its errors are named in zlib's words, but source.c does not show them:
 * it inflates a member ISA-L refused again with zlib (inflate.h), so that
 * the message and the offsets are zlib's. Built without ISA-L (make
 * ISAL=0, TG_NO_ISAL), this file only says so.
 */
#include "inflate.h"
#include "inflate_impl.h"

#ifdef TG_NO_ISAL

const struct tg_inflate_ops *const tg_inflate_isal_ops = NULL;

#else

#include <isa-l/igzip_lib.h>
#include <limits.h>
#include <stdlib.h>

static void *create(void)
{
	struct inflate_state *st = malloc(sizeof(*st));
	if (st) {
		isal_inflate_init(st);
		st->crc_flag = ISAL_GZIP;
	}
	return st;
}

static void reset(void *p)
{
	struct inflate_state *st = p;
	isal_inflate_reset(st);
	st->crc_flag = ISAL_GZIP;
}

static const char *message(int rc)
{
	switch (rc) {
	case ISAL_INVALID_BLOCK: return "invalid block type";
	case ISAL_INVALID_SYMBOL: return "invalid code";
	case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER: return "incorrect header check";
	case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
	default: return "inflate error";
	}
}

/* One isal_inflate() call: the caller (source.c) loops, bringing input or
 * room. */
static int run(void *p, const unsigned char **in, size_t *in_len, unsigned char **out, size_t *out_len,
               const char **msg)
{
	struct inflate_state *st = p;
	uint32_t ai = *in_len > UINT32_MAX ? UINT32_MAX : (uint32_t)*in_len;
	uint32_t ao = *out_len > UINT32_MAX ? UINT32_MAX : (uint32_t)*out_len;
	st->next_in = (uint8_t *)*in;
	st->avail_in = ai;
	st->next_out = *out;
	st->avail_out = ao;
	int rc = isal_inflate(st);
	*in += ai - st->avail_in;
	*in_len -= ai - st->avail_in;
	*out += ao - st->avail_out;
	*out_len -= ao - st->avail_out;
	if (rc < 0 || rc == ISAL_NEED_DICT) {
		*msg = message(rc);
		return TG_INFLATE_BAD;
	}
	return st->block_state == ISAL_BLOCK_FINISH ? TG_INFLATE_END : TG_INFLATE_MORE;
}

static void destroy(void *st) { free(st); }

static const struct tg_inflate_ops ops = {create, reset, run, destroy};
const struct tg_inflate_ops *const tg_inflate_isal_ops = &ops;

#endif
