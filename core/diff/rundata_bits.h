/*
 * rundata_bits.h - the bit stream that run data is held in between the
 * traces of `tracegate diff` (tg_rundata_compact): a writer and a reader
 * of bits, least significant first, in 64-bit words, and an adaptive Rice
 * code for the small numbers its predictors leave (skeleton_hold.c,
 * measure_pack.c).
 *
 * Why Rice and not deflate: the stored encoding (rundata.c) writes every
 * field as whole bytes and deflates them, 145 ms to encode and 57 to
 * decode a 100 MB trace's run data (docs/scale.md, i27lin): zlib's match
 * search over 9 MB of bytes, then the reverse. What is left of a field
 * once it is predicted (a start from the end of the node before, a
 * duration from the last one of the same name) is a number of a few to
 * fifteen bits whose size follows the data; a Rice code whose parameter
 * follows the running mean of the last values takes within a bit of its
 * entropy, and costs a shift, a mask and a count of trailing zeros a value
 * each way. Values of more than RICE_MAX_Q times 2^k are escaped (the
 * quotient's zeros, then the value whole), so that a wild value costs 88
 * bits, never a long unary run.
 *
 * The stream is this process's own memory, written and read back by the
 * same code: it is never stored nor read from outside (the stored format
 * is rundata.c's), so the reader does not check for its end beyond the
 * words the writer padded it with.
 *
 * The words are a tg_big block (freed with tg_big_free, never free): a
 * 1 GB trace's skeleton codes into 8.4 MB, and a heap block grown by
 * doubling is copied at each step, the old copy's pages left resident in
 * the heap's free list (the critical path's phase started 13-17 MB above
 * the parts' peak: docs/scale.md, the twelfth round); a mapped block grows
 * by mremap, its pages moved, and its shrink to fit gives the tail back.
 */
#ifndef TG_RUNDATA_BITS_H
#define TG_RUNDATA_BITS_H

#include "../../util/big.h"
#include "../../util/tg.h"

#include <stdint.h>
#include <stdlib.h>

/* A quotient this large or larger is an escape: the value follows whole. */
#define RICE_MAX_Q 24
/* The most bits one value takes (an escape), and the words n values may
 * fill (bitw_room). */
#define RICE_MAX_BITS (RICE_MAX_Q + 64)
#define RICE_WORDS(n) (((n) * RICE_MAX_BITS + 63) / 64 + 1)

struct bitw {
	uint64_t *w; /* words written */
	size_t n, cap;
	uint64_t acc; /* bits not yet in a word */
	unsigned nacc;
	int bad; /* out of memory */
};

/* Room for `words` more words (a caller asks before each item, with a
 * bound on what the item can write: RICE_MAX_BITS a value), so that
 * writing checks nothing. Inline, and taking no address of b, so that b's
 * state can stay in registers through the caller's loop. 0 or TG_ENOMEM
 * (b->bad set). */
__attribute__((always_inline)) static inline int bitw_room(struct bitw *b, size_t words)
{
	if (b->cap - b->n >= words)
		return 0;
	size_t cap = (b->n + words) * 2;
	uint64_t *w = b->bad ? NULL : tg_big_realloc(b->w, cap * sizeof(uint64_t));
	if (!w) {
		b->bad = 1;
		return TG_ENOMEM;
	}
	b->w = w;
	b->cap = cap;
	return 0;
}

static inline void bitw_word(struct bitw *b, uint64_t v)
{
	b->w[b->n++] = v;
}

/* The low nbits (1 to 64) of v; v has no bits above them. */
__attribute__((always_inline)) static inline void bitw_put(struct bitw *b, uint64_t v, unsigned nbits)
{
	b->acc |= v << b->nacc;
	if (b->nacc + nbits < 64) {
		b->nacc += nbits;
		return;
	}
	bitw_word(b, b->acc);
	unsigned used = 64 - b->nacc; /* bits of v in that word */
	b->acc = used < 64 ? v >> used : 0;
	b->nacc = b->nacc + nbits - 64;
}

/* The last bits, and two zero words the reader may look ahead into; the
 * words fitted to their number. 0 or TG_ENOMEM (b's words freed). */
static inline int bitw_finish(struct bitw *b)
{
	if (!bitw_room(b, 3)) {
		if (b->nacc)
			bitw_word(b, b->acc);
		bitw_word(b, 0);
		bitw_word(b, 0);
	}
	if (b->bad) {
		tg_big_free(b->w);
		b->w = NULL;
		return TG_ENOMEM;
	}
	uint64_t *fit = tg_big_realloc(b->w, b->n * sizeof(uint64_t));
	if (fit)
		b->w = fit;
	b->cap = b->n;
	return 0;
}

struct bitr {
	const uint64_t *w;
	size_t at; /* bits read */
};

/* The next 64 bits, without reading them. */
static inline uint64_t bitr_peek(const struct bitr *r)
{
	size_t i = r->at >> 6;
	unsigned s = (unsigned)(r->at & 63);
	return r->w[i] >> s | (r->w[i + 1] << 1) << (63 - s); /* no shift by 64 when s is 0 */
}

/* The next nbits (1 to 64). */
static inline uint64_t bitr_get(struct bitr *r, unsigned nbits)
{
	uint64_t v = bitr_peek(r);
	r->at += nbits;
	return nbits < 64 ? v & (((uint64_t)1 << nbits) - 1) : v;
}

/* A Rice code's state: a running sum of the last values (16 times their
 * mean), from which its parameter k follows. */
struct rice {
	uint64_t sum;
};

static inline unsigned rice_k(const struct rice *c)
{
	uint64_t mean = c->sum >> 4;
	return mean ? 63 - (unsigned)__builtin_clzll(mean) : 0;
}

static inline void rice_next(struct rice *c, uint64_t v)
{
	c->sum += (v > ((uint64_t)1 << 40) ? (uint64_t)1 << 40 : v) - (c->sum >> 4);
}

/* v in c's code: the quotient v >> k in unary (its zeros, then a one),
 * then the k low bits; one write when both fit a word. */
__attribute__((always_inline)) static inline void rice_put(struct bitw *b, struct rice *c, uint64_t v)
{
	unsigned k = rice_k(c);
	uint64_t q = v >> k;
	if (q < RICE_MAX_Q && q + 1 + k <= 64)
		bitw_put(b, ((uint64_t)1 << q) | (v & (((uint64_t)1 << k) - 1)) << q << 1, (unsigned)q + 1 + k);
	else if (q < RICE_MAX_Q) {
		bitw_put(b, (uint64_t)1 << q, (unsigned)q + 1);
		bitw_put(b, v & (((uint64_t)1 << k) - 1), k);
	} else {
		bitw_put(b, 0, RICE_MAX_Q);
		bitw_put(b, v, 64);
	}
	rice_next(c, v);
}

/* The next value of c's code (rice_put's reverse): one look at the bits
 * when the quotient and the low bits are in it. */
__attribute__((always_inline)) static inline uint64_t rice_get(struct bitr *r, struct rice *c)
{
	unsigned k = rice_k(c);
	uint64_t w = bitr_peek(r), v;
	unsigned q = w ? (unsigned)__builtin_ctzll(w) : 64;
	if (q < RICE_MAX_Q && q + 1 + k <= 64) {
		v = (uint64_t)q << k | ((w >> q >> 1) & (((uint64_t)1 << k) - 1));
		r->at += q + 1 + k;
	} else if (q < RICE_MAX_Q) {
		r->at += q + 1;
		v = (uint64_t)q << k | bitr_get(r, k);
	} else {
		r->at += RICE_MAX_Q;
		v = bitr_get(r, 64);
	}
	rice_next(c, v);
	return v;
}

/* a - b and a + b as two's complement (wrapping: a start near INT64_MAX
 * plus its duration, a difference of two far starts), without signed
 * overflow; a value comes back exactly from its guess and difference. */
static inline int64_t wrap_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static inline int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* A signed difference as an unsigned number, small when near 0. */
static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

#endif
