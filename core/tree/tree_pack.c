/*
 * tree_pack.c - implements tree_pack.h: a block's values as 16-bit offsets
 * from its smallest, or whole when they span too much.
 *
 * One pass finds each block's smallest and largest value and writes its
 * offsets, or counts it wide; a second copies the wide blocks, if any,
 * into their array, allocated to their count. A value
 * with its top bit set (never an event's index, which the reader keeps
 * under 2^31) makes its block wide, so that a base never needs that bit.
 * When the offsets and the wide blocks would cost more than 4 bytes a
 * value (16-bit offsets: half of the blocks wide), every block is made
 * wide and the offsets are freed (xdit_sd_3.5's parents: kernels far from
 * their launches, on the same blocks as host events near theirs).
 */
#include "tree_pack.h"

#include <stdlib.h>
#include <string.h>

/* The values to pack: 32-bit, or 16-bit signed (the steps: -1 is TG_NONE). */
struct input {
	const uint32_t *v32;
	const int16_t *v16;
};

/* The len values of in from at: in place when 32-bit, else widened into
 * buf (TG_TREE_PACK_BLOCK of them). */
static const uint32_t *load(uint32_t *buf, const struct input *in, size_t at, size_t len)
{
	if (in->v32)
		return in->v32 + at;
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint32_t)(int32_t)in->v16[at + i];
	return buf;
}

/* The smallest of x[0..len) other than TG_NONE (0 when all are); 1 when
 * they fit offsets from it below none. Without a branch a value: TG_NONE
 * is the largest value, and the smallest once one is added. Inlined in
 * block_fits twice, so that a whole block's loop has a constant count,
 * which the compiler unrolls (a quarter fewer instructions). */
static inline __attribute__((always_inline)) int fits(uint32_t *lo_out, const uint32_t *x, size_t len,
                                                       uint32_t none)
{
	uint32_t lo = UINT32_MAX, hi1 = 0, any = 0;
	for (size_t i = 0; i < len; i++) {
		uint32_t x1 = x[i] + 1; /* 0 for TG_NONE */
		lo = x[i] < lo ? x[i] : lo;
		hi1 = x1 > hi1 ? x1 : hi1;
		any |= x1;
	}
	*lo_out = hi1 ? lo : 0;
	if (any & TG_TREE_PACK_WIDE) /* a top bit (or 2^31 - 1: whole, harmlessly) */
		return 0;
	return !hi1 || hi1 - 1 - lo < none;
}

static int block_fits(uint32_t *lo_out, const uint32_t *x, size_t len, uint32_t none)
{
	if (len == TG_TREE_PACK_BLOCK)
		return fits(lo_out, x, TG_TREE_PACK_BLOCK, none);
	return fits(lo_out, x, len, none);
}

/* The offsets of x[0..len) from base into off or off8 from at (inlined
 * as fits is). */
static inline __attribute__((always_inline)) void offsets(tg_tree_pack *out, const uint32_t *x, size_t at,
                                                          size_t len, uint32_t base)
{
	if (out->off) {
		for (size_t i = 0; i < len; i++)
			out->off[at + i] = x[i] == TG_NONE ? TG_TREE_PACK_NONE : (uint16_t)(x[i] - base);
	} else {
		for (size_t i = 0; i < len; i++)
			out->off8[at + i] = x[i] == TG_NONE ? TG_TREE_PACK_NONE8 : (uint8_t)(x[i] - base);
	}
}

static void put_offsets(tg_tree_pack *out, const uint32_t *x, size_t at, size_t len, uint32_t base)
{
	if (len == TG_TREE_PACK_BLOCK)
		offsets(out, x, at, TG_TREE_PACK_BLOCK, base);
	else
		offsets(out, x, at, len, base);
}

/* Packs in's n values with offsets of obytes bytes (1 or 2): the offsets
 * written as the blocks are measured, the wide blocks copied after. */
static int pack(tg_tree_pack *out, const struct input *in, size_t n, size_t obytes)
{
	memset(out, 0, sizeof(*out));
	size_t nb = (n + TG_TREE_PACK_BLOCK - 1) / TG_TREE_PACK_BLOCK;
	uint32_t none = obytes == 1 ? TG_TREE_PACK_NONE8 : TG_TREE_PACK_NONE;
	out->n = n;
	out->base = tg_malloc((nb + 1) * sizeof(uint32_t));
	if (!out->base || !(obytes == 1 ? (void *)(out->off8 = tg_malloc(n + 1))
	                                : (void *)(out->off = tg_malloc((n + 1) * sizeof(uint16_t))))) {
		tg_tree_pack_free(out);
		return TG_ENOMEM;
	}
	uint32_t buf[TG_TREE_PACK_BLOCK];
	for (size_t b = 0; b < nb; b++) {
		size_t at = b * TG_TREE_PACK_BLOCK, len = n - at < TG_TREE_PACK_BLOCK ? n - at : TG_TREE_PACK_BLOCK;
		const uint32_t *x = load(buf, in, at, len);
		uint32_t lo;
		if (block_fits(&lo, x, len, none)) {
			out->base[b] = lo;
			put_offsets(out, x, at, len, lo);
		} else { /* its offsets never written nor read: never resident alone */
			out->base[b] = TG_TREE_PACK_WIDE | (uint32_t)out->nwide++;
			if (out->nwide * TG_TREE_PACK_BLOCK * sizeof(uint32_t) > n * (sizeof(uint32_t) - obytes))
				break; /* all of them whole, below: the rest need not be measured */
		}
	}
	/* the offsets and the wide blocks' values against 4 bytes a value */
	if (n * obytes + out->nwide * TG_TREE_PACK_BLOCK * sizeof(uint32_t) > n * sizeof(uint32_t)) {
		for (size_t b = 0; b < nb; b++)
			out->base[b] = TG_TREE_PACK_WIDE | (uint32_t)b;
		out->nwide = nb;
		free(out->off);
		free(out->off8);
		out->off = NULL;
		out->off8 = NULL;
	}
	if (out->nwide && !(out->wide = tg_malloc(out->nwide * TG_TREE_PACK_BLOCK * sizeof(uint32_t)))) {
		tg_tree_pack_free(out);
		return TG_ENOMEM;
	}
	for (size_t b = 0; b < nb && out->nwide; b++) {
		size_t at = b * TG_TREE_PACK_BLOCK, len = n - at < TG_TREE_PACK_BLOCK ? n - at : TG_TREE_PACK_BLOCK;
		uint32_t base = out->base[b];
		if (base & TG_TREE_PACK_WIDE)
			memcpy(out->wide + (size_t)(base & ~TG_TREE_PACK_WIDE) * TG_TREE_PACK_BLOCK, load(buf, in, at, len),
			       len * sizeof(uint32_t));
	}
	return 0;
}

int tg_tree_pack_build(tg_tree_pack *out, const uint32_t *v, size_t n)
{
	struct input in = {v, NULL};
	return pack(out, &in, n, 2);
}

int tg_tree_pack_build8(tg_tree_pack *out, const uint32_t *v, size_t n)
{
	struct input in = {v, NULL};
	return pack(out, &in, n, 1);
}

int tg_tree_pack_take(tg_tree_pack *out, uint32_t **whole, size_t n, int obytes)
{
	if (obytes == 1 ? tg_tree_pack_build8(out, *whole, n) : tg_tree_pack_build(out, *whole, n))
		return TG_ENOMEM;
	if (!out->off && !out->off8) { /* every block wide: the copy is *whole */
		tg_tree_pack_free(out);
		return 0;
	}
	free(*whole);
	*whole = NULL;
	return 0;
}

int tg_tree_pack_steps(tg_tree_pack *out, const int16_t *v16, const int32_t *v32, size_t n)
{
	struct input in = {(const uint32_t *)v32, v16};
	return pack(out, &in, n, 1);
}

size_t tg_tree_pack_bytes(const tg_tree_pack *p)
{
	size_t nb = (p->n + TG_TREE_PACK_BLOCK - 1) / TG_TREE_PACK_BLOCK;
	return (p->off ? p->n * sizeof(uint16_t) : p->off8 ? p->n : 0) + nb * sizeof(uint32_t) +
	       p->nwide * TG_TREE_PACK_BLOCK * sizeof(uint32_t);
}

void tg_tree_pack_free(tg_tree_pack *p)
{
	free(p->off);
	free(p->off8);
	free(p->base);
	free(p->wide);
	memset(p, 0, sizeof(*p));
}
