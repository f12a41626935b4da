/*
 * big.h - memory for the large per-event arrays (events, tree links,
 * critical-path nodes and edges, radix sort scratch): transparent huge pages
 * where the kernel gives them.
 *
 * Why: a gigabyte trace holds two million events, and its per-event arrays
 * (tens of megabytes each) are walked out of order (sort scatters, lookups
 * by correlation id, parent links). With 4 KiB pages every such access past
 * the TLB's reach also walks the page table, and each array costs one page
 * fault per 4 KiB on first touch. This machine's kernel has transparent
 * huge pages in "madvise" mode: an anonymous mapping gets 2 MiB pages only
 * where it is 2 MiB-aligned and madvise(MADV_HUGEPAGE)d. A block of at
 * least TG_BIG_MIN bytes is such a mapping (its start 2 MiB-aligned, its
 * length a multiple of 2 MiB); a smaller one is plain malloc. Growing a
 * mapped block is mremap (pages moved, never copied); shrinking it gives the
 * tail back.
 *
 * The advice is given only when the environment has TG_HUGE_PAGES=1: on
 * this project's 2-core VM (THP defrag "madvise") a report of 1 GB, run
 * beside `gzip -dc` as make bench runs it, took 1.14-1.22 s with it against
 * 0.99-1.08 s without (the read faults in and clears whole 2 MiB pages,
 * compacting memory first, on its serial path), and the 1 GB diff was the
 * same either way (docs/scale.md, "Cost linear in size"). Without the
 * advice a block is still one mapping, grown by mremap, its tail given back.
 *
 * A huge page is resident as soon as one byte of it is touched, so a block
 * costs at most 2 MiB more resident memory than its touched bytes do with
 * 4 KiB pages (the part-filled last page).
 *
 * Freed mappings kept for the next block (tg_big_keep): a command that
 * reads several traces one after the other (`diff`) frees one trace's
 * events and arguments just before the next trace's reader maps its own;
 * kept, their pages are reused as they are instead of unmapped and then
 * faulted in and cleared again (the events' and the arguments' arrays:
 * about 1,900 page faults a trace at 100 MB of JSON, 19,000 at 1 GB). A kept
 * block stays resident until it is reused or tg_big_keep(0); once every
 * kept block is reused, blocks freed after are unmapped again (the next
 * trace's flows, dropped after its tree: kept, they stayed resident under
 * the tree's peak, 1.4 MB at 100 MB of JSON, 14 MB at 1 GB).
 *
 * Rule: a block from tg_big_* is freed and resized only by tg_big_* (never
 * free or realloc), and a block from malloc never reaches tg_big_*. Under
 * AddressSanitizer every block is malloc, so that overflows are still found.
 */
#ifndef TG_BIG_H
#define TG_BIG_H

#include <stddef.h>

/* Blocks from this many bytes up are mapped with huge pages, unless a
 * command set another threshold (tg_big_set_min). */
#define TG_BIG_MIN ((size_t)4 << 20)

/* Blocks from n bytes up (at least 4 KiB) are mappings from now on, those
 * under it malloc; TG_BIG_MIN until it is called. A command's heap policy:
 * a freed mapping goes back to the OS at once, where a freed malloc block
 * stays resident in a heap that keeps freed memory until it is trimmed
 * (`diff`, cli/cmd_diff.c). Called before any thread is started (not
 * thread-safe); blocks already allocated keep their kind. */
void tg_big_set_min(size_t n);

/* The smallest block that is a mapping now (TG_BIG_MIN or tg_big_set_min's):
 * for code that sizes its scratch to what stays out of the heap. */
size_t tg_big_min(void);

/* A block of n bytes (contents undefined). NULL with TG_ENOMEM's message
 * when out of memory. Freed with tg_big_free. */
void *tg_big_alloc(size_t n);

/* A zeroed block of n * size bytes (a mapped block is zero already: no
 * pass over it). NULL with TG_ENOMEM's message when out of memory or when
 * n * size overflows. Freed with tg_big_free. */
void *tg_big_calloc(size_t n, size_t size);

/* Resizes p (NULL or a block from tg_big_*) to n bytes, keeping its first
 * min(old, n) bytes, as realloc. NULL with TG_ENOMEM's message when out of
 * memory: p is then untouched and still the caller's. */
void *tg_big_realloc(void *p, size_t n);

/* tg_grow for a block from tg_big_*: grows *items (*cap items of
 * item_size bytes) to hold at least need items, doubling. 0 or TG_ENOMEM
 * (*items and *cap untouched). Inline for the common case (room already
 * there), as tg_grow: the reader calls it once per event. */
int tg_big_grow_slow(void **items, size_t *cap, size_t need, size_t item_size);
static inline int tg_big_grow(void **items, size_t *cap, size_t need, size_t item_size)
{
	return need <= *cap ? 0 : tg_big_grow_slow(items, cap, need, item_size);
}

/* Frees a block from tg_big_*; NULL is a no-op. A mapped block is kept
 * (tg_big_keep) while fewer than the number asked are, else unmapped. */
void tg_big_free(void *p);

/* Most mappings tg_big_keep keeps. */
#define TG_BIG_KEEP_MAX 4

/* From now on, keeps up to n (at most TG_BIG_KEEP_MAX) mappings that
 * tg_big_free frees, for tg_big_alloc and tg_big_realloc to reuse when
 * they map a block (the largest kept first, resized to the block with
 * mremap: its pages kept, its contents undefined; tg_big_calloc maps a
 * fresh one, zero); unmaps those kept beyond n (n = 0: all of them, the
 * default). Once the blocks kept are all taken again, it is back to 0: the
 * blocks freed after are unmapped. Thread-safe. Who calls it with n > 0
 * calls it with 0 once the blocks it expects are mapped, so that none
 * stays resident unused. */
void tg_big_keep(size_t n);

#endif
