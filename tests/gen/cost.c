/*
 * cost.c - the kernel cost model and the deterministic random numbers.
 *
 * Durations come from the shapes: matrix work at an assumed achieved peak,
 * memory-bound work at an assumed bandwidth, plus a fixed launch cost per
 * kernel (H100-like numbers; --gpu only renames the device). Every base
 * duration is rounded up to a multiple of 100 ns, so that a scale with two
 * decimals (--sdpa-scale 1.07) gives whole nanoseconds: the scaled trace is
 * then exactly F times the plain one.
 */
#include "gen.h"

#include <math.h>

#define GEMM_FLOPS 600e12     /* dense bf16 GEMM, achieved */
#define ATTN_FWD_FLOPS 350e12 /* flash attention forward */
#define ATTN_BWD_FLOPS 250e12 /* flash attention backward */
#define HBM_BYTES 2.8e12      /* achieved device memory bandwidth */
#define PAGEABLE_BYTES 10e9   /* host-to-device copy from pageable memory */

int64_t cost_round(double ns)
{
	double r = ceil(ns / 100.0) * 100.0;
	return r < 1000 ? 1000 : (int64_t)r;
}

int64_t cost_gemm(int64_t m, int64_t n, int64_t k)
{
	double flops = 2.0 * (double)m * (double)n * (double)k;
	double bytes = 2.0 * ((double)m * (double)k + (double)k * (double)n + (double)m * (double)n);
	double t = fmax(flops / GEMM_FLOPS, bytes / HBM_BYTES);
	return cost_round(t * 1e9 + 2000);
}

int64_t cost_memory(double bytes, double fixed_ns)
{
	return cost_round(bytes / HBM_BYTES * 1e9 + fixed_ns);
}

/* Causal attention: half of 4 * B * H * S^2 * d. */
static double attn_flops(int64_t b, int64_t h, int64_t s, int64_t d)
{
	return 2.0 * (double)b * (double)h * (double)s * (double)s * (double)d;
}

int64_t cost_flash_fwd(int64_t b, int64_t h, int64_t s, int64_t d)
{
	return cost_round(attn_flops(b, h, s, d) / ATTN_FWD_FLOPS * 1e9 + 3000);
}

int64_t cost_flash_bwd(int64_t b, int64_t h, int64_t s, int64_t d)
{
	return cost_round(2.5 * attn_flops(b, h, s, d) / ATTN_BWD_FLOPS * 1e9 + 4000);
}

int64_t cost_pageable_copy(int64_t bytes)
{
	return llround((double)bytes / PAGEABLE_BYTES * 1e9) + 1800;
}

/* ---------------------------------------------------------------- random */

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t hash64(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
	uint64_t h = mix64(seed ^ mix64(tag));
	h = mix64(h ^ a);
	return mix64(h ^ (b * 0x2545f4914f6cdd1dull));
}

double hash_unit(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
	return (double)(hash64(seed, tag, a, b) >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

uint64_t rng_seed(uint64_t seed)
{
	return mix64(seed ^ 0x7467u) | 1; /* xorshift needs a nonzero state */
}
