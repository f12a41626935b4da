/*
 * rundata_impl.h - what rundata.c, rundata_findings.c and rundata_pack.c
 * share: the byte writer and the checked reader of the encoded form
 * (integers little-endian byte by byte, doubles as their IEEE-754 bits,
 * strings as a length and their bytes), the envelope (rundata_pack.c:
 * magic, format, raw length, deflated payload), and the parts
 * rundata_findings.c encodes: a trace's findings and its critical-path
 * summary.
 */
#ifndef TG_RUNDATA_IMPL_H
#define TG_RUNDATA_IMPL_H

#include "rundata.h"

#include <stdlib.h>
#include <string.h>

struct wr {
	uint8_t *p;
	size_t n, cap;
	int bad; /* out of memory */
};

static inline void put(struct wr *w, const void *s, size_t n)
{
	if (w->bad || tg_grow((void **)&w->p, &w->cap, w->n + n + 1, 1)) {
		w->bad = 1;
		return;
	}
	memcpy(w->p + w->n, s, n);
	w->n += n;
}

static inline void put_u64(struct wr *w, uint64_t v, int bytes)
{
	uint8_t b[8];
	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(w, b, (size_t)bytes);
}

#define PUT_U8(w, v) put_u64((w), (uint64_t)(v), 1)
#define PUT_U32(w, v) put_u64((w), (uint64_t)(v), 4)
#define PUT_I64(w, v) put_u64((w), (uint64_t)(int64_t)(v), 8)

static inline void put_f64(struct wr *w, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof(v));
	put_u64(w, v, 8);
}

static inline void put_str(struct wr *w, const char *s, size_t n)
{
	PUT_U32(w, n);
	put(w, s, n);
}

struct rd_cur {
	const uint8_t *p;
	size_t n, at;
	const char *bad; /* what was wrong, NULL while fine */
};

static inline uint64_t get_u64(struct rd_cur *c, int bytes)
{
	if (c->bad || c->n - c->at < (size_t)bytes) {
		if (!c->bad)
			c->bad = "truncated";
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)c->p[c->at + (size_t)i] << (8 * i);
	c->at += (size_t)bytes;
	return v;
}

#define GET_U8(c) ((uint8_t)get_u64((c), 1))
#define GET_U32(c) ((uint32_t)get_u64((c), 4))
#define GET_I64(c) ((int64_t)get_u64((c), 8))

static inline double get_f64(struct rd_cur *c)
{
	uint64_t v = get_u64(c, 8);
	double d;
	memcpy(&d, &v, sizeof(d));
	return d;
}

/* A count of items of at least `each` bytes that the bytes left can hold. */
static inline uint32_t get_count(struct rd_cur *c, size_t each, const char *what)
{
	uint32_t n = GET_U32(c);
	if (!c->bad && (n >= TG_NONE - 1 || (uint64_t)n * each > c->n - c->at)) {
		c->bad = what;
		return 0;
	}
	return c->bad ? 0 : n;
}

/* A string of at most max - 1 bytes into buf (NUL-terminated). */
static inline void get_fixed_str(struct rd_cur *c, char *buf, size_t max, const char *what)
{
	uint32_t n = GET_U32(c);
	if (!c->bad && (n >= max || n > c->n - c->at))
		c->bad = what;
	if (c->bad) {
		buf[0] = 0;
		return;
	}
	memcpy(buf, c->p + c->at, n);
	buf[n] = 0;
	if (strlen(buf) != n)
		c->bad = what; /* a NUL inside */
	c->at += n;
}

/* rundata_pack.c. The envelope: w's bytes deflated behind magic (4 bytes), format and the
 * raw length, into *out (*len bytes, the caller frees; w's bytes freed).
 * 0 or TG_ENOMEM. */
int tg_rundata_pack(void **out, size_t *len, const char *magic, uint32_t format, struct wr *w);

/* The payload of an envelope of magic and format into *raw (*n bytes, the
 * caller frees). kind names the data in messages ("run data"). 0,
 * TG_EFORMAT, TG_ELIMIT (more than max_bytes, when not 0) or TG_ENOMEM. */
int tg_rundata_unpack(uint8_t **raw, size_t *n, const uint8_t *data, size_t len, const char *magic, uint32_t format,
                      uint64_t max_bytes, const char *kind, const char *what);

/* rundata_findings.c: a findings list and a critical-path summary, written
 * and read back (a damaged one sets c->bad; get_findings returns NULL
 * then, or when out of memory, with c->bad "out of memory"). */
void tg_rundata_put_findings(struct wr *w, const tg_findings *f);
tg_findings *tg_rundata_get_findings(struct rd_cur *c);
void tg_rundata_put_cp(struct wr *w, const tg_cp_summary *s);
void tg_rundata_get_cp(struct rd_cur *c, tg_cp_summary *s);

#endif
