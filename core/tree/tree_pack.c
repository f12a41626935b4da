/*
 * tree_pack.c - implements tree_pack.h: a block's values as 16-bit offsets
 * from its smallest, or whole when they span too much.
 *
 * Two passes: the first finds each block's smallest and largest value and
 * counts the wide blocks, so that every array is allocated to its size
 * once; the second writes the offsets or copies the wide blocks. A value
 * with its top bit set (never an event's index, which the reader keeps
 * under 2^31) makes its block wide, so that a base never needs that bit.
 * When more than half of the blocks are wide, the offsets would cost more
 * than they save: every block is then wide, and the offsets are not
 * allocated (xdit_sd_3.5's parents: kernels far from their launches, on
 * the same blocks as host events near theirs).
 */
#include "tree_pack.h"

#include <stdlib.h>
#include <string.h>

/* The values to pack: 32-bit, or 16-bit signed (the steps: -1 is TG_NONE). */
struct input {
	const uint32_t *v32;
	const int16_t *v16;
};

static inline uint32_t value(const struct input *in, size_t i)
{
	return in->v32 ? in->v32[i] : (uint32_t)(int32_t)in->v16[i];
}

/* The smallest and largest of block b's values other than TG_NONE (lo >
 * hi when it has none); 1 when they fit offsets from lo below none. */
static int block_fits(uint32_t *lo_out, const struct input *in, size_t n, size_t b, uint32_t none)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	size_t end = (b + 1) * TG_TREE_PACK_BLOCK < n ? (b + 1) * TG_TREE_PACK_BLOCK : n;
	for (size_t i = b * TG_TREE_PACK_BLOCK; i < end; i++) {
		uint32_t x = value(in, i);
		if (x == TG_NONE)
			continue;
		if (x & TG_TREE_PACK_WIDE)
			return 0;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	*lo_out = lo > hi ? 0 : lo;
	return lo > hi || hi - lo < none;
}

/* Block b's offsets (1 or 2 bytes each, as out has them). */
static void put_offsets(tg_tree_pack *out, const struct input *in, size_t at, size_t len, uint32_t base)
{
	for (size_t i = at; i < at + len; i++) {
		uint32_t x = value(in, i);
		if (out->off)
			out->off[i] = x == TG_NONE ? TG_TREE_PACK_NONE : (uint16_t)(x - base);
		else
			out->off8[i] = x == TG_NONE ? TG_TREE_PACK_NONE8 : (uint8_t)(x - base);
	}
}

/* Packs in's n values with offsets of obytes bytes (1 or 2). */
static int pack(tg_tree_pack *out, const struct input *in, size_t n, size_t obytes)
{
	memset(out, 0, sizeof(*out));
	size_t nb = (n + TG_TREE_PACK_BLOCK - 1) / TG_TREE_PACK_BLOCK;
	uint32_t none = obytes == 1 ? TG_TREE_PACK_NONE8 : TG_TREE_PACK_NONE;
	out->n = n;
	out->base = tg_malloc((nb + 1) * sizeof(uint32_t));
	if (!out->base)
		return TG_ENOMEM;
	for (size_t b = 0; b < nb; b++) {
		uint32_t lo;
		out->base[b] = block_fits(&lo, in, n, b, none) ? lo : TG_TREE_PACK_WIDE | (uint32_t)out->nwide++;
	}
	/* the offsets and the wide blocks' values against 4 bytes a value */
	if (n * obytes + out->nwide * TG_TREE_PACK_BLOCK * sizeof(uint32_t) > n * sizeof(uint32_t)) {
		for (size_t b = 0; b < nb; b++)
			out->base[b] = TG_TREE_PACK_WIDE | (uint32_t)b;
		out->nwide = nb;
	} else if (!(obytes == 1 ? (void *)(out->off8 = tg_malloc(n + 1))
	                         : (void *)(out->off = tg_malloc((n + 1) * sizeof(uint16_t))))) {
		tg_tree_pack_free(out);
		return TG_ENOMEM;
	}
	if (out->nwide && !(out->wide = tg_malloc(out->nwide * TG_TREE_PACK_BLOCK * sizeof(uint32_t)))) {
		tg_tree_pack_free(out);
		return TG_ENOMEM;
	}
	for (size_t b = 0; b < nb; b++) {
		size_t at = b * TG_TREE_PACK_BLOCK, len = n - at < TG_TREE_PACK_BLOCK ? n - at : TG_TREE_PACK_BLOCK;
		uint32_t base = out->base[b];
		if (base & TG_TREE_PACK_WIDE) {
			/* its offsets are never read nor written: pages of wide blocks
			 * alone are never resident */
			uint32_t *w = out->wide + (size_t)(base & ~TG_TREE_PACK_WIDE) * TG_TREE_PACK_BLOCK;
			for (size_t i = 0; i < len; i++)
				w[i] = value(in, at + i);
			continue;
		}
		put_offsets(out, in, at, len, base);
	}
	return 0;
}

int tg_tree_pack_build(tg_tree_pack *out, const uint32_t *v, size_t n)
{
	struct input in = {v, NULL};
	return pack(out, &in, n, 2);
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
