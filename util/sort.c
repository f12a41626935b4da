/*
 * sort.c - LSD radix sort of (key, index) pairs and of plain keys, in-place
 * permutation, and selection (see sort.h).
 */
#include "sort.h"
#include "tg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t tg_sort_key_double(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof(u));
	/* negative: flip every bit (larger magnitude sorts first); positive:
	 * flip the sign bit (above every negative) */
	return u >> 63 ? ~u : u ^ (UINT64_C(1) << 63);
}

/* From this few elements down, an insertion sort: no pass over 256
 * counters a digit, no scratch. */
enum { INSERTION_MAX = 24 };
/* Up to this many, the scratch on the stack (4 KiB of pairs, 2 KiB of
 * keys): the many small sorts (a tree node's children, a bucket) allocate
 * nothing. */
enum { STACK_MAX = 256 };

/* Stable insertion sort of v[0..n) by key. */
static void insertion_pairs(tg_sort_pair *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		tg_sort_pair x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1].key > x.key; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Insertion sort of the keys v[0..n). */
static void insertion_u64(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Keys found in order or nearly so (few descents: at most one in this
 * many) are tried by insertion first: the critical path's pairs are
 * mostly in order already (7 of its 12 sorts at 100 MB had no descent,
 * 3 had one in 120), where the radix passes would move every pair four
 * or five times. */
enum { NEARLY_SORTED = 16 };

/* Insertion sort of v[0..n) by key (stable), giving up after budget
 * moves, v then still a permutation of what it was with equal keys in
 * their order (an element moves only past greater keys). 1 when sorted,
 * 0 when it gave up. */
static int insertion_pairs_within(tg_sort_pair *v, size_t n, size_t budget)
{
	for (size_t i = 1; i < n; i++) {
		if (v[i].key >= v[i - 1].key)
			continue;
		tg_sort_pair x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1].key > x.key; j--) {
			if (!budget--)
				break;
			v[j] = v[j - 1];
		}
		v[j] = x;
		if (j > 0 && v[j - 1].key > x.key)
			return 0;
	}
	return 1;
}

int tg_sort_u64_within(uint64_t *v, size_t n, size_t budget)
{
	for (size_t i = 1; i < n; i++) {
		if (v[i] >= v[i - 1])
			continue;
		uint64_t x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--) {
			if (!budget--)
				break;
			v[j] = v[j - 1];
		}
		v[j] = x;
		if (j > 0 && v[j - 1] > x)
			return 0;
	}
	return 1;
}

int tg_sort_u64_presorted(uint64_t *v, size_t n, uint64_t *differ)
{
	uint64_t d = 0;
	size_t descents = 0;
	for (size_t i = 1; i < n; i++) {
		d |= v[i] ^ v[0];
		descents += v[i] < v[i - 1];
	}
	*differ = d;
	if (!d || !descents)
		return 1;
	return descents <= n / NEARLY_SORTED && tg_sort_u64_within(v, n, n);
}

/* Stable LSD passes on the bytes below bit top of v[0..n)'s keys, tmp (n
 * pairs) as scratch, skipping the bytes every key shares; the result in v.
 * count: 8 rows of 256 counters, zeroed here. */
static void lsd_pairs(tg_sort_pair *v, tg_sort_pair *tmp, size_t n, int top, size_t (*count)[256])
{
	int digits = (top + 7) / 8;
	memset(count, 0, (size_t)digits * sizeof(*count));
	for (size_t i = 0; i < n; i++) {
		uint64_t k = v[i].key;
		for (int b = 0; b < digits; b++)
			count[b][(k >> (8 * b)) & 0xff]++;
	}
	tg_sort_pair *src = v, *dst;
	for (int b = 0; b < digits; b++) {
		size_t *c = count[b];
		if (c[(v[0].key >> (8 * b)) & 0xff] == n)
			continue; /* every key has this byte: the pass would keep the order */
		dst = src == v ? tmp : v;
		size_t off = 0;
		for (int d = 0; d < 256; d++) {
			size_t x = c[d];
			c[d] = off;
			off += x;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i].key >> (8 * b)) & 0xff]++] = src[i];
		src = dst;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

enum { MSD_BITS = 11, MSD_RADIX = 1 << MSD_BITS };
/* From this many elements (1 to 2 MiB of them) the array outgrows the
 * second-level cache: one pass by the top digit first (msd_pairs, msd_u64). */
#define MSD_MIN ((size_t)1 << 17)

/* One stable pass by the top 11-bit digit of the bits that differ (below
 * bit top) into tmp, then each bucket sorted (stable) by the bytes below it
 * while it sits in the cache, and copied back: see msd_u64. */
static void msd_pairs(tg_sort_pair *v, tg_sort_pair *tmp, size_t n, int top, size_t (*count)[256])
{
	int shift = top - MSD_BITS;
	size_t *start = calloc(2 * MSD_RADIX, sizeof(size_t)), *next;
	if (!start) { /* no room for the buckets' counters: the whole at once */
		lsd_pairs(v, tmp, n, top, count);
		return;
	}
	next = start + MSD_RADIX;
	for (size_t i = 0; i < n; i++)
		start[(v[i].key >> shift) & (MSD_RADIX - 1)]++;
	size_t off = 0;
	for (size_t d = 0; d < MSD_RADIX; d++) {
		size_t x = start[d];
		start[d] = next[d] = off;
		off += x;
	}
	for (size_t i = 0; i < n; i++)
		tmp[next[(v[i].key >> shift) & (MSD_RADIX - 1)]++] = v[i];
	for (size_t d = 0; d < MSD_RADIX; d++) {
		size_t lo = start[d], m = next[d] - lo;
		if (m > 1 && m <= INSERTION_MAX)
			insertion_pairs(tmp + lo, m);
		else if (m > 1)
			lsd_pairs(tmp + lo, v + lo, m, shift, count);
		memcpy(v + lo, tmp + lo, m * sizeof(*v));
	}
	free(start);
}

int tg_sort_pairs(tg_sort_pair *v, size_t n)
{
	if (n < 2)
		return 0;
	if (n <= INSERTION_MAX) {
		insertion_pairs(v, n);
		return 0;
	}
	uint64_t differ = 0;
	size_t descents = 0;
	for (size_t i = 1; i < n; i++) {
		differ |= v[i].key ^ v[0].key;
		descents += v[i].key < v[i - 1].key;
	}
	if (!differ || !descents)
		return 0; /* one key, or in order: the order is kept */
	if (descents <= n / NEARLY_SORTED && insertion_pairs_within(v, n, n))
		return 0;
	int top = 64 - __builtin_clzll(differ); /* the bits above top are every key's */
	size_t count[8][256]; /* 16 KiB: on the stack, not an allocation a call */
	tg_sort_pair small[STACK_MAX];
	tg_sort_pair *tmp = n <= STACK_MAX ? small : tg_malloc(n * sizeof(*tmp));
	if (!tmp)
		return TG_ENOMEM;
	if (n >= MSD_MIN && top > MSD_BITS + 8)
		msd_pairs(v, tmp, n, top, count);
	else
		lsd_pairs(v, tmp, n, top, count);
	if (tmp != small)
		free(tmp);
	return 0;
}

/* LSD passes over the digits (of bits bits) below bit top of v[0..n), tmp
 * (n keys) as scratch, skipping the digits every key shares; the result in
 * v. count: (top + bits - 1) / bits rows of 1 << bits counters, zeroed here. */
static void lsd_u64(uint64_t *v, uint64_t *tmp, size_t n, int top, int bits, uint32_t *count)
{
	int digits = (top + bits - 1) / bits;
	size_t radix = (size_t)1 << bits;
	uint64_t mask = radix - 1;
	memset(count, 0, (size_t)digits * radix * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < digits; b++)
			count[(size_t)b * radix + ((v[i] >> (bits * b)) & mask)]++;
	uint64_t *src = v, *dst;
	for (int b = 0; b < digits; b++) {
		uint32_t *c = count + (size_t)b * radix;
		if (c[(v[0] >> (bits * b)) & mask] == n)
			continue;
		dst = src == v ? tmp : v;
		uint32_t off = 0;
		for (size_t d = 0; d < radix; d++) {
			uint32_t x = c[d];
			c[d] = off;
			off += x;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i] >> (bits * b)) & mask]++] = src[i];
		src = dst;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

enum { U64_BITS = 11, U64_RADIX = 1 << U64_BITS, U64_DIGITS = (64 + U64_BITS - 1) / U64_BITS };

/* The top digit's width for n keys of top differing bits: about 8 keys a
 * bucket (log2 n - 3 bits), at least 11 bits, at most 18 (a table of 1
 * MiB: within the second-level cache), never past top. */
static int msd_bits(size_t n, int top)
{
	int b = 63 - __builtin_clzll((unsigned long long)n) - 3;
	b = b < U64_BITS ? U64_BITS : b > 18 ? 18 : b;
	return b < top ? b : top;
}

/* One pass by the top digit of the bits that differ (below bit top; a
 * bucket of about 8 keys, msd_bits) into tmp, then each bucket sorted
 * where it sits, in the cache: 24 keys or fewer by insertion, up to 256
 * by insertion within 8 moves a key, else (and more) by byte digits
 * (11-bit ones for a skewed bucket of MSD_MIN or more), and all copied
 * back. Why: an LSD pass over a large array writes to 2,048
 * places at once, each a cache and TLB miss once the array outgrows them
 * (the critical path's 4 M times at a gigabyte of JSON: 18x the time of
 * a tenth of them); times are nearly sorted, so that the top digit's pass
 * writes few places at a time, and a bucket of 8 nearby times is nearly in
 * order: 1.4 insertion moves a key at 100 MB (the critical path's 387 k
 * packed times) where an 11-bit top digit left buckets of ~190 keys and
 * five byte passes each. at: 1 << bits counters, count: 11-bit digits'
 * (U64_DIGITS rows). */
static void msd_u64(uint64_t *v, uint64_t *tmp, size_t n, int top, int bits, uint32_t *at, uint32_t *count)
{
	int shift = top - bits;
	size_t radix = (size_t)1 << bits;
	uint64_t mask = radix - 1;
	uint32_t small[8 * 256];
	memset(at, 0, radix * sizeof(*at));
	for (size_t i = 0; i < n; i++)
		at[(v[i] >> shift) & mask]++;
	uint32_t off = 0;
	for (size_t d = 0; d < radix; d++) {
		uint32_t x = at[d];
		at[d] = off;
		off += x;
	}
	/* filled, at[d] is where bucket d ends (and d + 1 begins): one table */
	for (size_t i = 0; i < n; i++)
		tmp[at[(v[i] >> shift) & mask]++] = v[i];
	for (size_t d = 0, lo = 0; d < radix; lo = at[d++]) {
		size_t m = at[d] - lo;
		if (m <= 1 || !shift)
			continue; /* no bits below the digit: its keys are equal */
		if (m <= INSERTION_MAX)
			insertion_u64(tmp + lo, m);
		else if (m >= MSD_MIN) /* a skewed bucket: wide digits, as the whole */
			lsd_u64(tmp + lo, v + lo, m, shift, U64_BITS, count);
		else if (m > STACK_MAX || !tg_sort_u64_within(tmp + lo, m, 8 * m))
			lsd_u64(tmp + lo, v + lo, m, shift, 8, small);
	}
	memcpy(v, tmp, n * sizeof(*v));
}

int tg_sort_u64(uint64_t *v, size_t n)
{
	if (n < 2)
		return 0;
	if (n > UINT32_MAX)
		return tg_error_set(TG_ELIMIT, "cannot sort %zu keys", n);
	if (n <= INSERTION_MAX) {
		insertion_u64(v, n);
		return 0;
	}
	uint64_t differ;
	if (tg_sort_u64_presorted(v, n, &differ))
		return 0;
	int top = 64 - __builtin_clzll(differ); /* the bits above top are every key's */
	if (n <= STACK_MAX) {
		/* a few keys: byte digits (256 counters a pass, not 2,048), the
		 * counters and the scratch on the stack */
		uint32_t count[8 * 256];
		uint64_t tmp[STACK_MAX];
		lsd_u64(v, tmp, n, top, 8, count);
		return 0;
	}
	/* 11-bit digits: 2048 counters a digit still fit the cache, and a key
	 * of 33 to 44 bits (times, packed times and slots) takes 3 or 4 passes
	 * instead of 5 or 6 */
	int msd = n >= MSD_MIN && top > U64_BITS + 8, bits = msd ? msd_bits(n, top) : 0;
	/* the 11-bit digits' counters, then msd_u64's table */
	uint32_t *count = tg_malloc((U64_DIGITS * U64_RADIX + (msd ? (size_t)1 << bits : 0)) * sizeof(*count));
	uint64_t *tmp = tg_malloc(n * sizeof(*tmp));
	if (!count || !tmp) {
		free(count);
		free(tmp);
		return TG_ENOMEM;
	}
	if (msd)
		msd_u64(v, tmp, n, top, bits, count + U64_DIGITS * U64_RADIX, count);
	else
		lsd_u64(v, tmp, n, top, U64_BITS, count);
	free(tmp);
	free(count);
	return 0;
}

/* Elements no wider than a pair: gathered into kv's own storage (position k
 * overwrites kv[0..k], whose indexes were read already), then copied back.
 * The loads are independent of each other, so that the memory system
 * overlaps their misses: following the permutation's cycles makes each
 * access wait for the one before it, a cache and TLB miss each once the
 * array outgrows the caches (tg_compare_categories' sort of four million
 * records at a gigabyte of JSON: 110x the time of a tenth of them). */
static void apply_gather(char *a, size_t n, size_t size, tg_sort_pair *kv)
{
	char *g = (char *)kv;
	switch (size) {
	case 16:
		for (size_t k = 0; k < n; k++) {
			uint64_t w[2];
			memcpy(w, a + (size_t)kv[k].idx * 16, 16);
			memcpy(g + k * 16, w, 16);
		}
		break;
	case 8:
		for (size_t k = 0; k < n; k++) {
			uint64_t w;
			memcpy(&w, a + (size_t)kv[k].idx * 8, 8);
			memcpy(g + k * 8, &w, 8);
		}
		break;
	default:
		for (size_t k = 0; k < n; k++) {
			char w[sizeof(tg_sort_pair)];
			memcpy(w, a + (size_t)kv[k].idx * size, size);
			memcpy(g + k * size, w, size);
		}
	}
	memcpy(a, g, n * size);
}

int tg_sort_apply(void *base, size_t n, size_t size, tg_sort_pair *kv)
{
	if (n < 2)
		return 0;
	if (size <= sizeof(tg_sort_pair)) {
		apply_gather(base, n, size, kv);
		return 0;
	}
	char *a = base, *hold = tg_malloc(size);
	if (!hold)
		return TG_ENOMEM;
	/* follow each cycle of the permutation: position k takes the element
	 * at kv[k].idx; a done position gets idx == k */
	for (size_t s = 0; s < n; s++) {
		if (kv[s].idx == s)
			continue;
		memcpy(hold, a + s * size, size);
		size_t k = s;
		for (;;) {
			size_t j = kv[k].idx;
			kv[k].idx = (uint32_t)k;
			if (j == s) {
				memcpy(a + k * size, hold, size);
				break;
			}
			memcpy(a + k * size, a + j * size, size);
			k = j;
		}
	}
	free(hold);
	return 0;
}

/* Bits needed for the values 0..range. */
static int bits_for(uint64_t range)
{
	return range ? 64 - __builtin_clzll(range) : 0;
}

int tg_sort_by_keys(void *base, size_t n, size_t size, int nlevels, tg_sort_key_fn key, void *ctx)
{
	enum { MAX_LEVELS = 8 };
	if (n < 2)
		return 0;
	if (n > UINT32_MAX || nlevels < 1 || nlevels > MAX_LEVELS)
		return tg_error_set(TG_ELIMIT, "cannot sort %zu elements on %d keys", n, nlevels);
	const char *a = base;
	/* each level's range, in one sequential pass: levels whose ranges fit
	 * in 64 bits together become one key (offset by their minimum), so
	 * that most orders take one radix sort, filled in array order */
	uint64_t lo[MAX_LEVELS], hi[MAX_LEVELS];
	for (int l = 0; l < nlevels; l++) {
		lo[l] = UINT64_MAX;
		hi[l] = 0;
	}
	for (size_t i = 0; i < n; i++)
		for (int l = 0; l < nlevels; l++) {
			uint64_t k = key(a + i * size, l, ctx);
			lo[l] = k < lo[l] ? k : lo[l];
			hi[l] = k > hi[l] ? k : hi[l];
		}
	tg_sort_pair *kv = tg_malloc(n * sizeof(*kv));
	if (!kv)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		kv[i].idx = (uint32_t)i;
	int rc = 0;
	/* groups of levels, least significant first: [first, last] */
	for (int last = nlevels - 1; !rc && last >= 0;) {
		int first = last, used = bits_for(hi[last] - lo[last]);
		while (first > 0 && used + bits_for(hi[first - 1] - lo[first - 1]) <= 64) {
			first--;
			used += bits_for(hi[first] - lo[first]);
		}
		if (used) {
			for (size_t i = 0; i < n; i++) {
				const char *el = a + (size_t)kv[i].idx * size;
				uint64_t k = 0;
				for (int l = first; l <= last; l++) {
					int b = bits_for(hi[l] - lo[l]);
					k = (b == 64 ? 0 : k << b) | (key(el, l, ctx) - lo[l]);
				}
				kv[i].key = k;
			}
			rc = tg_sort_pairs(kv, n);
		}
		last = first - 1;
	}
	if (!rc)
		rc = tg_sort_apply(base, n, size, kv);
	free(kv);
	return rc;
}

static void swap_i64(int64_t *a, int64_t *b)
{
	int64_t t = *a;
	*a = *b;
	*b = t;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int64_t tg_select_i64(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	/* Partitions allowed before the rest is sorted instead: the values
	 * come from traces anyone writes, and a median-of-three killer
	 * sequence would make quickselect quadratic (introselect's guard). */
	int budget = 16;
	for (size_t m = n; m > 1; m >>= 1)
		budget += 2;
	while (hi > lo) {
		if (budget-- == 0) {
			qsort(v + lo, hi - lo + 1, sizeof(*v), cmp_i64);
			return v[k];
		}
		/* median of three to v[lo]; then Hoare partition around it */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < v[lo])
			swap_i64(&v[mid], &v[lo]);
		if (v[hi] < v[lo])
			swap_i64(&v[hi], &v[lo]);
		if (v[hi] < v[mid])
			swap_i64(&v[hi], &v[mid]);
		swap_i64(&v[lo], &v[mid]);
		int64_t p = v[lo];
		size_t i = lo, j = hi + 1;
		for (;;) {
			do
				i++;
			while (i <= hi && v[i] < p);
			do
				j--;
			while (v[j] > p);
			if (i >= j)
				break;
			swap_i64(&v[i], &v[j]);
		}
		swap_i64(&v[lo], &v[j]);
		if (j == k)
			return v[k];
		if (j > k)
			hi = j - 1;
		else
			lo = j + 1;
	}
	return v[k];
}

double tg_median_i64(int64_t *v, size_t n)
{
	if (!n)
		return NAN;
	/* the two middle values: the lower one selected, the upper one the
	 * smallest of what selection left above it */
	size_t lo = (n - 1) / 2;
	int64_t a = tg_select_i64(v, n, lo), b = a;
	if (n % 2 == 0) {
		b = v[lo + 1];
		for (size_t i = lo + 2; i < n; i++)
			b = v[i] < b ? v[i] : b;
	}
	return ((double)a + (double)b) / 2.0;
}
