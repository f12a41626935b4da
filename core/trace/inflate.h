/*
 * inflate.h - one gzip member at a time, inflated by zlib or by Intel's
 * ISA-L (isal_inflate), behind one interface: the only way source.c
 * inflates. Internal to core/ (source.c and the tests).
 *
 * Why two: ISA-L inflates a trace about three times as fast as zlib
 * (xdit_sd_3.5's 4 MB gzip, CRC checked: 0.014 s against 0.043 s on the
 * 2-core development machine; docs/scale.md), so it is the default. zlib
 * stays as the fallback: when ISA-L is not built in (make ISAL=0), when a
 * caller asks for it (tg_source_opts.inflater), and for every member ISA-L
 * finds corrupt or truncated, which source.c inflates again with zlib so
 * that a broken file gets zlib's bytes, message and offsets whichever
 * backend read it (docs/reader-and-tree.md).
 *
 * A member is the gzip header, the deflate data and the trailer (CRC-32
 * and length, both checked); what follows a member (another one, padding,
 * garbage) is source.c's business.
 */
#ifndef TG_INFLATE_H
#define TG_INFLATE_H

#include <stddef.h>

typedef struct tg_inflate tg_inflate;

enum tg_inflate_status {
	TG_INFLATE_MORE = 0, /* needs more input or more room for output */
	TG_INFLATE_END,      /* the member is complete and its trailer checked */
	TG_INFLATE_BAD       /* corrupt data: *msg says what, in zlib's words */
};

/* A new inflater of backend (TG_INFLATE_ZLIB or TG_INFLATE_ISAL from
 * source.h; TG_INFLATE_AUTO picks ISA-L when it is built in). *out is the
 * caller's, freed with tg_inflate_free. Returns 0, TG_ENOMEM, or TG_EINVAL
 * (ISA-L asked for but not built in). */
int tg_inflate_new(tg_inflate **out, int backend);

/* Readies the inflater for the next member. */
void tg_inflate_reset(tg_inflate *z);

/* Inflates from *in (*in_len bytes) into *out (*out_len bytes of room),
 * advancing both pointers and lowering both counts by what it used. On
 * TG_INFLATE_BAD *msg is a static string. */
int tg_inflate_run(tg_inflate *z, const unsigned char **in, size_t *in_len, unsigned char **out,
                   size_t *out_len, const char **msg);

/* TG_INFLATE_ZLIB or TG_INFLATE_ISAL. */
int tg_inflate_backend(const tg_inflate *z);

/* 1 when ISA-L is built in. */
int tg_inflate_have_isal(void);

void tg_inflate_free(tg_inflate *z);

#endif
