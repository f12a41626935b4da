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

/* The smallest and largest of block b's values other than TG_NONE (lo >
 * hi when it has none); 1 when they fit offsets from lo. */
static int block_fits(uint32_t *lo_out, const uint32_t *v, size_t n, size_t b)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	size_t end = (b + 1) * TG_TREE_PACK_BLOCK < n ? (b + 1) * TG_TREE_PACK_BLOCK : n;
	for (size_t i = b * TG_TREE_PACK_BLOCK; i < end; i++) {
		if (v[i] == TG_NONE)
			continue;
		if (v[i] & TG_TREE_PACK_WIDE)
			return 0;
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	*lo_out = lo > hi ? 0 : lo;
	return lo > hi || hi - lo < TG_TREE_PACK_NONE;
}

int tg_tree_pack_build(tg_tree_pack *out, const uint32_t *v, size_t n)
{
	memset(out, 0, sizeof(*out));
	size_t nb = (n + TG_TREE_PACK_BLOCK - 1) / TG_TREE_PACK_BLOCK;
	out->n = n;
	out->base = tg_malloc((nb + 1) * sizeof(uint32_t));
	if (!out->base)
		return TG_ENOMEM;
	for (size_t b = 0; b < nb; b++) {
		uint32_t lo;
		out->base[b] = block_fits(&lo, v, n, b) ? lo : TG_TREE_PACK_WIDE | (uint32_t)out->nwide++;
	}
	if (out->nwide > nb / 2) {
		for (size_t b = 0; b < nb; b++)
			out->base[b] = TG_TREE_PACK_WIDE | (uint32_t)b;
		out->nwide = nb;
	} else if (!(out->off = tg_malloc((n + 1) * sizeof(uint16_t)))) {
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
			memcpy(out->wide + (size_t)(base & ~TG_TREE_PACK_WIDE) * TG_TREE_PACK_BLOCK, v + at,
			       len * sizeof(uint32_t));
			continue;
		}
		for (size_t i = at; i < at + len; i++)
			out->off[i] = v[i] == TG_NONE ? TG_TREE_PACK_NONE : (uint16_t)(v[i] - base);
	}
	return 0;
}

size_t tg_tree_pack_bytes(const tg_tree_pack *p)
{
	size_t nb = (p->n + TG_TREE_PACK_BLOCK - 1) / TG_TREE_PACK_BLOCK;
	return (p->off ? p->n * sizeof(uint16_t) : 0) + nb * sizeof(uint32_t) +
	       p->nwide * TG_TREE_PACK_BLOCK * sizeof(uint32_t);
}

void tg_tree_pack_free(tg_tree_pack *p)
{
	free(p->off);
	free(p->base);
	free(p->wide);
	memset(p, 0, sizeof(*p));
}
