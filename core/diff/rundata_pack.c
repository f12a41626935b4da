/*
 * rundata_pack.c - the envelope of encoded run data and of the findings
 * across ranks: magic (4 bytes), format (u32) and raw length (u64),
 * little-endian, then the payload deflated with zlib at level 1 (the data
 * is small next to the trace, and level 1 keeps encoding a 1 GB trace's
 * data well under a second; higher levels save little on these arrays of
 * ids). Unpacking checks the magic, the format and the claimed length
 * before it allocates. A file of its own because rundata.c and
 * rundata_findings.c both wrap their bytes in it (and rundata.c calls
 * rundata_findings.c: no circle of calls, tests/cycles.sh).
 */
#include "rundata_impl.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define HEADER_BYTES 16 /* magic, format (u32), raw length (u64) */

int tg_rundata_pack(void **out, size_t *len, const char *magic, uint32_t format, struct wr *w)
{
	*out = NULL;
	*len = 0;
	int rc = w->bad ? TG_ENOMEM : 0;
	uLongf cap = compressBound((uLong)w->n);
	uint8_t *z = rc ? NULL : tg_malloc(HEADER_BYTES + cap);
	if (!rc && !z)
		rc = TG_ENOMEM;
	if (!rc && compress2(z + HEADER_BYTES, &cap, w->p, (uLong)w->n, 1) != Z_OK)
		rc = tg_error_set(TG_ENOMEM, "run data: deflate failed");
	if (rc) {
		free(w->p);
		free(z);
		return rc;
	}
	memcpy(z, magic, 4);
	for (int i = 0; i < 4; i++)
		z[4 + i] = (uint8_t)(format >> (8 * i));
	for (int i = 0; i < 8; i++)
		z[8 + i] = (uint8_t)((uint64_t)w->n >> (8 * i));
	free(w->p);
	*out = z;
	*len = HEADER_BYTES + cap;
	return 0;
}

int tg_rundata_unpack(uint8_t **raw, size_t *n, const uint8_t *data, size_t len, const char *magic,
                      uint32_t format_want, uint64_t max_bytes, const char *kind, const char *what)
{
	*raw = NULL;
	if (len < HEADER_BYTES || memcmp(data, magic, 4))
		return tg_error_set(TG_EFORMAT, "%s: not tracegate %s", what, kind);
	uint32_t format = 0;
	uint64_t rawlen = 0;
	for (int i = 0; i < 4; i++)
		format |= (uint32_t)data[4 + i] << (8 * i);
	for (int i = 0; i < 8; i++)
		rawlen |= (uint64_t)data[8 + i] << (8 * i);
	if (format != format_want)
		return tg_error_set(TG_EFORMAT, "%s: %s of format %u (this tracegate reads %u)", what, kind, format,
		                    format_want);
	if (max_bytes && rawlen > max_bytes)
		return tg_error_set(TG_ELIMIT, "%s: %s of %llu bytes (limit %llu)", what, kind,
		                    (unsigned long long)rawlen, (unsigned long long)max_bytes);
	/* deflate cannot shrink data more than about 1032 times */
	if (rawlen > (uint64_t)(len - HEADER_BYTES) * 1100 + 4096 || rawlen >= SIZE_MAX / 2)
		return tg_error_set(TG_EFORMAT, "%s: %s claims %llu bytes from %zu", what, kind,
		                    (unsigned long long)rawlen, len);
	uint8_t *p = tg_malloc(rawlen ? rawlen : 1);
	if (!p)
		return TG_ENOMEM;
	uLongf got = (uLongf)rawlen;
	int zr = uncompress(p, &got, data + HEADER_BYTES, (uLong)(len - HEADER_BYTES));
	if (zr != Z_OK || got != rawlen) {
		free(p);
		return zr == Z_MEM_ERROR ? TG_ENOMEM : tg_error_set(TG_EFORMAT, "%s: %s does not inflate", what, kind);
	}
	*raw = p;
	*n = (size_t)rawlen;
	return 0;
}
