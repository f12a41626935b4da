/*
 * bits.h - bit counting inline, for the rank lookups of the bitmaps that
 * stand for sparse arrays (a bit an event; the slot of a set bit is the
 * number of bits set before it).
 *
 * Why not __builtin_popcountll: the build targets plain x86-64 (no
 * -mpopcnt), where the builtin is a call into libgcc (__popcountdi2) on
 * every lookup, out of line. tg_popcount64 is the SWAR count (a dozen
 * ALU operations and one multiply, no branch, no table), inlined into the
 * loop that reads it; where the compiler may use the popcnt instruction
 * (-mpopcnt, -march=native, any other target that defines __POPCNT__) it
 * is the builtin, one instruction. Both give the same count for every
 * word (tests/test_bits.c checks them against each other).
 */
#ifndef TG_BITS_H
#define TG_BITS_H

#include <stdint.h>

/* The number of bits set in x (0 to 64). */
static inline uint32_t tg_popcount64(uint64_t x)
{
#if defined(__POPCNT__)
	return (uint32_t)__builtin_popcountll(x);
#else
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (uint32_t)((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

/* The number of bits of w set below bit b (0 <= b < 64): the rank of bit
 * b within its word. */
static inline uint32_t tg_bits_below(uint64_t w, unsigned b)
{
	return tg_popcount64(w & ((UINT64_C(1) << b) - 1));
}

#endif
