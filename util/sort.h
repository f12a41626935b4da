/*
 * sort.h - linear-time sorting for the analyses' big arrays.
 *
 * The launch statistics sort arrays as long as the trace (2 million
 * launches and 4 million queue points at a gigabyte of JSON) by integer
 * keys, where qsort costs n log n comparator calls. A stable LSD radix sort
 * of (key, index) pairs is linear; levels whose value ranges fit in 64 bits
 * together are packed into one key, and a multi-key order is otherwise a
 * sort per key, least significant first, since each pass keeps the order of
 * equal keys:
 *
 *     for (i = 0; i < n; i++) kv[i] = (tg_sort_pair){minor_key(i), i};
 *     tg_sort_pairs(kv, n);
 *     for (i = 0; i < n; i++) kv[i].key = major_key(kv[i].idx);
 *     tg_sort_pairs(kv, n);
 *     tg_sort_apply(base, n, size, kv);   (base now in (major, minor, i) order)
 *
 * The result equals a stable comparison sort on the same keys (and glibc's
 * qsort is its stable merge sort whenever it can allocate its scratch).
 * Measured on a 1 GB generated trace: the launch statistics take 0.33 s
 * instead of 0.36-0.45 s. Arrays of wide records sorted by several keys
 * gain nothing (the final permutation's random accesses cost what the
 * comparisons saved: tried on breakdown.c and launchers.c), so those keep
 * qsort.
 */
#ifndef TG_SORT_H
#define TG_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_sort_pair {
	uint64_t key;
	uint32_t idx; /* the element's position in the array being sorted */
} tg_sort_pair;

/* The key that orders signed integers as unsigned ones. */
static inline uint64_t tg_sort_key_i64(int64_t x)
{
	return (uint64_t)x ^ (UINT64_C(1) << 63);
}

/* The key that orders doubles (not NaN) as unsigned integers: -0 before +0. */
uint64_t tg_sort_key_double(double x);

/* Sorts v[0..n) by key, ascending and stable: LSD radix on bytes, skipping
 * the bytes every key shares; from 131,072 pairs (2 MiB, past the
 * second-level cache) one pass by the top 11 bits that differ first, then
 * each of the 2,048 buckets by bytes while it sits in the cache (a bucket
 * of 24 or fewer by insertion). Up to 24 pairs an insertion sort, up to
 * 256 its scratch on the stack: a small sort allocates nothing. Pairs
 * already in order are left; nearly in order (a descent in 16 at most),
 * an insertion sort within n moves first. 0, or
 * TG_ENOMEM (v unchanged) when its scratch (n pairs) cannot be allocated. */
int tg_sort_pairs(tg_sort_pair *v, size_t n);

/* Sorts the plain keys v[0..n) ascending, for a list whose order alone is
 * wanted (times, to be merged with another list; times packed with a
 * position): LSD radix on 11-bit digits, skipping the digits every key
 * shares, 8 bytes an element; from 131,072 keys one pass by a top digit of
 * the bits that differ as wide as about 8 keys a bucket (11 to 18 bits),
 * then each bucket in the cache: by insertion (up to 24 keys, up to 256
 * within 8 moves a key: nearly sorted times), else by bytes. Up to 24 keys
 * an insertion sort, up to 256 byte digits with the counters and scratch
 * on the stack: a small sort allocates nothing. Keys in order or nearly:
 * as tg_sort_pairs. 0, TG_ENOMEM (v unchanged) when its scratch (n keys
 * and at most 1 MiB of counters) cannot be allocated, TG_ELIMIT past 2^32
 * keys. */
int tg_sort_u64(uint64_t *v, size_t n);

/* Sorts v[0..n) ascending by insertion, moving at most budget values in
 * all (for keys nearly in order, as tg_sort_u64 first tries them): 1 when
 * sorted, 0 when the budget ran out (v then still a permutation of its
 * values, to be sorted another way). Allocates nothing. */
int tg_sort_u64_within(uint64_t *v, size_t n, size_t budget);

/* The check tg_sort_u64 starts with: 1 when v[0..n) is sorted on return
 * (it was in order, every key equal, or nearly in order, a descent in 16
 * at most, and tg_sort_u64_within sorted it within n moves); else 0, v a
 * permutation of its keys. *differ gets the bits in which some key differs
 * from v[0] (its highest set bit bounds a radix sort's digits). */
int tg_sort_u64_presorted(uint64_t *v, size_t n, uint64_t *differ);

/* Reorders base[0..n) (elements of size bytes) in place so that position k
 * holds the element that was at kv[k].idx; kv must hold a permutation of
 * 0..n-1 (its contents are overwritten: elements of at most 16 bytes are
 * gathered into it, wider ones follow the permutation's cycles). 0, or
 * TG_ENOMEM (base unchanged). */
int tg_sort_apply(void *base, size_t n, size_t size, tg_sort_pair *kv);

/* The key at level (0: the most significant) of the element el. */
typedef uint64_t (*tg_sort_key_fn)(const void *el, int level, void *ctx);

/* Sorts base[0..n) (elements of size bytes) stably by the keys of levels
 * 0..nlevels-1 in lexicographic order, in linear time: a radix sort of
 * pairs per level, least significant first, then one in-place permutation.
 * Scratch: 32 bytes an element. 0, or TG_ENOMEM (base unchanged). */
int tg_sort_by_keys(void *base, size_t n, size_t size, int nlevels, tg_sort_key_fn key, void *ctx);

/* The k-th smallest of v[0..n) (k < n), reordering v so that v[k] holds it,
 * everything before it is <= and everything after >= (quickselect,
 * linear on average, median-of-three pivots; after about 2 log2 n
 * partitions what is left is sorted, so that no input makes it worse than
 * n log n). */
int64_t tg_select_i64(int64_t *v, size_t n, size_t k);

/* The median of v[0..n) (the mean of the two middle values when n is
 * even, as ((double)lo + (double)hi) / 2), NAN when n is 0; reorders v.
 * Linear on average (tg_select_i64), no scratch. */
double tg_median_i64(int64_t *v, size_t n);

#endif
