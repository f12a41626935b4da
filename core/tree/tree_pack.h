/*
 * tree_pack.h - a column of 32-bit values by event in about 2 bytes each,
 * or 1 (tree_pack.c), for the tree's parents, children, child offsets and
 * steps, which the report reads through its whole run. Private to
 * core/tree: tree.h includes it only for tg_tree_child_next's inline read.
 *
 * The values are cut into blocks of TG_TREE_PACK_BLOCK; a block keeps its
 * smallest value (4 bytes) and each value as a 16-bit (or 8-bit) offset
 * from it. That
 * fits where the values of nearby events are near each other, as they are
 * in the tree: a block's events are neighbours in the file, their parents
 * (the enclosing op, the launch of a kernel) and their children's offsets
 * too. A block whose values span 65,535 (255) or more (a graph launch's
 * kernels, kernels far from their launches) keeps them whole in a side
 * array. TG_NONE is kept as an offset of 0xffff (0xff). When the wide
 * blocks would cost more than the offsets save (half of them, for 16-bit
 * offsets), all of them are wide (4 bytes a value, as the plain array, and
 * no offsets).
 */
#ifndef TG_TREE_PACK_H
#define TG_TREE_PACK_H

#include "../../util/tg.h"

#include <stddef.h>
#include <stdint.h>

#define TG_TREE_PACK_BLOCK 64
/* The tree packs its columns from this many events on: below, the pass
 * and the reads through the packs cost more than the bytes weigh (1-2 % of
 * the CPU of a report of h200-dev's 25,000 events), and the 15 % target
 * is from 100 MB of JSON up (198,378 events) */
#define TG_TREE_PACK_MIN ((size_t)1 << 17)
#define TG_TREE_PACK_WIDE 0x80000000u /* base[b]: block b is whole, at wide[(base & ~WIDE) * BLOCK] */
#define TG_TREE_PACK_NONE 0xffffu     /* off[i]: value i is TG_NONE */
#define TG_TREE_PACK_NONE8 0xffu      /* off8[i]: value i is TG_NONE */

typedef struct tg_tree_pack {
	uint16_t *off;  /* n: each value's offset from its block's base; NULL when every block is wide */
	uint8_t *off8;  /* the same in a byte (tg_tree_pack_steps), else NULL */
	uint32_t *base; /* a block: its smallest value, or TG_TREE_PACK_WIDE | the block's number among the wide ones */
	uint32_t *wide; /* TG_TREE_PACK_BLOCK values a wide block */
	size_t n;
	size_t nwide; /* wide blocks */
} tg_tree_pack;

/* Packs v[0..n) into *out, which owns its arrays (tg_tree_pack_free), on
 * failure too; v is the caller's, unchanged. 0 or TG_ENOMEM (error set). */
int tg_tree_pack_build(tg_tree_pack *out, const uint32_t *v, size_t n);

/* tg_tree_pack_build with offsets of a byte (a block's values spanning
 * less than 255): the child offsets, which grow by about one a child, 60
 * over a block of 64 events. Read them with tg_tree_pack_get8 or
 * tg_tree_pack_pair8. */
int tg_tree_pack_build8(tg_tree_pack *out, const uint32_t *v, size_t n);

/* tg_tree_pack_build (obytes 2) or tg_tree_pack_build8 (obytes 1) of
 * *whole, then frees *whole (NULL after); unless every block would be wide
 * (xdit_sd_3.5's parents): then *whole is kept, and *out left empty (read
 * both with tg_tree_pack_at, tg_tree_pack_pair8_at). 0 or TG_ENOMEM
 * (*whole kept). */
int tg_tree_pack_take(tg_tree_pack *out, uint32_t **whole, size_t n, int obytes);

/* Packs the steps of n events (tree.c's step16, else step_of; -1 for
 * none) with offsets of a byte: a block's events are in a few steps, a
 * block of events 255 or more steps apart is kept whole. Read them with
 * tg_tree_pack_get8 (-1 comes back as TG_NONE). As tg_tree_pack_build
 * otherwise. */
int tg_tree_pack_steps(tg_tree_pack *out, const int16_t *v16, const int32_t *v32, size_t n);

/* Value i (i < n) of p, as it was given (tg_tree_pack_build's). */
static inline uint32_t tg_tree_pack_get(const tg_tree_pack *p, size_t i)
{
	uint32_t b = p->base[i / TG_TREE_PACK_BLOCK];
	if (__builtin_expect(b & TG_TREE_PACK_WIDE, 0))
		return p->wide[(size_t)(b & ~TG_TREE_PACK_WIDE) * TG_TREE_PACK_BLOCK + i % TG_TREE_PACK_BLOCK];
	uint16_t o = p->off[i];
	return o == TG_TREE_PACK_NONE ? TG_NONE : b + o;
}

/* Values i and i + 1 (i + 1 < n) of p, which holds no TG_NONE (the
 * child offsets): one base and two offsets when both are in one block. */
static inline void tg_tree_pack_pair(uint32_t *a, uint32_t *b, const tg_tree_pack *p, size_t i)
{
	uint32_t base = p->base[i / TG_TREE_PACK_BLOCK];
	if (__builtin_expect(!(base & TG_TREE_PACK_WIDE) && (i + 1) % TG_TREE_PACK_BLOCK, 1)) {
		*a = base + p->off[i];
		*b = base + p->off[i + 1];
		return;
	}
	*a = tg_tree_pack_get(p, i);
	*b = tg_tree_pack_get(p, i + 1);
}

/* Value i (i < n) of p, as it was given (tg_tree_pack_steps'). */
static inline uint32_t tg_tree_pack_get8(const tg_tree_pack *p, size_t i)
{
	uint32_t b = p->base[i / TG_TREE_PACK_BLOCK];
	if (__builtin_expect(b & TG_TREE_PACK_WIDE, 0))
		return p->wide[(size_t)(b & ~TG_TREE_PACK_WIDE) * TG_TREE_PACK_BLOCK + i % TG_TREE_PACK_BLOCK];
	uint8_t o = p->off8[i];
	return o == TG_TREE_PACK_NONE8 ? TG_NONE : b + o;
}

/* tg_tree_pack_pair for tg_tree_pack_build8's p. */
static inline void tg_tree_pack_pair8(uint32_t *a, uint32_t *b, const tg_tree_pack *p, size_t i)
{
	uint32_t base = p->base[i / TG_TREE_PACK_BLOCK];
	if (__builtin_expect(!(base & TG_TREE_PACK_WIDE) && (i + 1) % TG_TREE_PACK_BLOCK, 1)) {
		*a = base + p->off8[i];
		*b = base + p->off8[i + 1];
		return;
	}
	*a = tg_tree_pack_get8(p, i);
	*b = tg_tree_pack_get8(p, i + 1);
}

/* Value i of a column kept whole (whole not NULL) or packed in p. */
static inline uint32_t tg_tree_pack_at(const tg_tree_pack *p, const uint32_t *whole, size_t i)
{
	return whole ? whole[i] : tg_tree_pack_get(p, i);
}

/* Values i and i + 1 of a column kept whole or packed in p by
 * tg_tree_pack_build8, which holds no TG_NONE. */
static inline void tg_tree_pack_pair8_at(uint32_t *a, uint32_t *b, const tg_tree_pack *p, const uint32_t *whole,
                                         size_t i)
{
	if (whole) {
		*a = whole[i];
		*b = whole[i + 1];
	} else {
		tg_tree_pack_pair8(a, b, p, i);
	}
}

/* Bytes p holds. */
size_t tg_tree_pack_bytes(const tg_tree_pack *p);

/* Frees p's arrays and zeroes it. */
void tg_tree_pack_free(tg_tree_pack *p);

#endif
