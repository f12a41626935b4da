/*
 * big.c - large arrays in mappings of their own, on transparent huge pages
 * when asked for (see big.h).
 *
 * Every block starts with a 64-byte header (the array after it stays
 * cache-line aligned in a mapping): the bytes mapped (0 for a malloc
 * block) and the bytes asked for (what realloc keeps when it moves a
 * malloc block into a mapping). A mapping is made 2 MiB larger than asked,
 * then its unaligned head and its tail are unmapped, so that it starts on a
 * 2 MiB boundary; its length is rounded up to 2 MiB so that its last page
 * can be huge too (what is never touched is never resident). A shrunk
 * mapping ends on the 4 KiB page after its last byte (remap_block).
 *
 * The mappings kept (tg_big_keep) are a short list under a mutex, taken
 * and filled only where a block is mapped or unmapped (never per element).
 * A kept mapping reused is resized to the new block's length by mremap,
 * which may move it off its 2 MiB boundary (its head then 4 KiB pages
 * under TG_HUGE_PAGES=1): its pages, already resident, are what it saves.
 */
#include "big.h"
#include "tg.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define HEADER ((size_t)64)
#define SMALL_PAGE ((size_t)4096)

#if defined(__SANITIZE_ADDRESS__)
#define BIG_MAPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_MAPS 0
#endif
#endif
#ifndef BIG_MAPS
#define BIG_MAPS 1
#endif

struct header {
	size_t map;  /* bytes mapped from the header on; 0: a malloc block */
	size_t size; /* bytes asked for */
};

/* The smallest block that is a mapping (tg_big_set_min). */
static size_t big_min = TG_BIG_MIN;

void tg_big_set_min(size_t n)
{
	big_min = n < SMALL_PAGE ? SMALL_PAGE : n;
}

size_t tg_big_min(void)
{
	return big_min;
}

/* The mappings tg_big_free kept: kept[0..nkept), at most keep_max. */
static pthread_mutex_t keep_mu = PTHREAD_MUTEX_INITIALIZER;
static struct header *kept[TG_BIG_KEEP_MAX];
static size_t nkept, keep_max;

static struct header *header_of(void *p)
{
	return (struct header *)((char *)p - HEADER);
}

/* Bytes to map for n bytes of array: header and array, whole huge pages;
 * 0 when that overflows. */
static size_t map_length(size_t n)
{
	if (n > SIZE_MAX - HEADER - HUGE_PAGE)
		return 0;
	return (n + HEADER + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

static void *nomem(size_t n)
{
	tg_error_set(TG_ENOMEM, "out of memory (%zu bytes)", n);
	return NULL;
}

/* A 2 MiB-aligned mapping of len bytes (a multiple of 2 MiB) advised for
 * huge pages, or NULL. */
static char *map_aligned(size_t len)
{
	if (len > SIZE_MAX - HUGE_PAGE)
		return NULL;
	char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uintptr_t at = ((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	char *base = (char *)at;
	if (base > raw)
		munmap(raw, (size_t)(base - raw));
	if (raw + HUGE_PAGE > base)
		munmap(base + len, (size_t)(raw + HUGE_PAGE - base));
	/* asked for only (TG_HUGE_PAGES=1, big.h: on this machine they cost the
	 * report's read more than they saved); none (THP off, an old kernel)
	 * is no error: 4 KiB pages */
	const char *hp = getenv("TG_HUGE_PAGES");
	if (hp && hp[0] == '1')
		(void)madvise(base, len, MADV_HUGEPAGE);
	return base;
}

/* The largest mapping kept, taken from the list, or NULL. */
static struct header *take_kept(void)
{
	pthread_mutex_lock(&keep_mu);
	struct header *h = NULL;
	size_t at = 0;
	for (size_t i = 0; i < nkept; i++)
		if (!h || kept[i]->map > h->map) {
			h = kept[i];
			at = i;
		}
	if (h) {
		kept[at] = kept[--nkept];
		if (!nkept) /* the last taken: a keep serves the blocks mapped after it, no later frees */
			keep_max = 0;
	}
	pthread_mutex_unlock(&keep_mu);
	return h;
}

/* A mapping of len bytes (a multiple of 2 MiB): a kept one resized
 * (reuse: its resident pages) when there is one and reuse is set, else a
 * fresh one (zero); NULL when out of memory. */
static char *map_block(size_t len, int reuse)
{
	struct header *h = reuse ? take_kept() : NULL;
	if (h && h->map != len) {
		void *q = mremap(h, h->map, len, MREMAP_MAYMOVE);
		if (q == MAP_FAILED) {
			munmap(h, h->map);
			h = NULL;
		} else {
			h = q;
		}
	}
	return h ? (char *)h : map_aligned(len);
}

/* A block of n bytes; a mapped one may reuse a kept mapping (reuse: its
 * contents are then undefined, not zero). */
static void *alloc_block(size_t n, int reuse)
{
	if (BIG_MAPS && n >= big_min) {
		size_t len = map_length(n);
		char *base = len ? map_block(len, reuse) : NULL;
		if (!base)
			return nomem(n);
		*(struct header *)base = (struct header){len, n};
		return base + HEADER;
	}
	if (n > SIZE_MAX - HEADER)
		return nomem(n);
	char *base = malloc(n + HEADER);
	if (!base)
		return nomem(n);
	*(struct header *)base = (struct header){0, n};
	return base + HEADER;
}

void *tg_big_alloc(size_t n)
{
	return alloc_block(n, 1);
}

void *tg_big_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return nomem(SIZE_MAX);
	void *p = alloc_block(n * size, 0);
	if (p && !header_of(p)->map)
		memset(p, 0, n * size); /* a fresh mapping is zero already */
	return p;
}

/* A mapped block resized by mremap: moved, not copied, when it cannot grow
 * in place; its huge-page advice goes with it. A block grows by whole huge
 * pages but shrinks to whole 4 KiB pages: the kernel then splits the last
 * huge page and frees what lies past the block's new end, which the
 * reader's arrays, trimmed to their events once read, would otherwise keep
 * resident (up to 2 MiB each: +1.8 MB of peak for a 100 MB report). */
static void *remap_block(struct header *h, size_t n)
{
	size_t len = map_length(n);
	if (!len)
		return nomem(n);
	if (n < h->size)
		len = (n + HEADER + SMALL_PAGE - 1) & ~(SMALL_PAGE - 1);
	else if (n + HEADER <= h->map)
		len = h->map; /* grown within the mapping */
	if (len != h->map) {
		void *q = mremap(h, h->map, len, MREMAP_MAYMOVE);
		if (q == MAP_FAILED)
			return nomem(n);
		h = q;
		h->map = len;
	}
	h->size = n;
	return (char *)h + HEADER;
}

void *tg_big_realloc(void *p, size_t n)
{
	if (!p)
		return alloc_block(n, 1);
	struct header *h = header_of(p);
	if (h->map)
		return remap_block(h, n);
	if (!BIG_MAPS || n < big_min) {
		if (n > SIZE_MAX - HEADER)
			return nomem(n);
		struct header *q = realloc(h, n + HEADER);
		if (!q)
			return nomem(n);
		q->size = n;
		return (char *)q + HEADER;
	}
	void *q = alloc_block(n, 1); /* a malloc block grown into a mapping */
	if (!q)
		return NULL;
	memcpy(q, p, h->size < n ? h->size : n);
	free(h);
	return q;
}

int tg_big_grow_slow(void **items, size_t *cap, size_t need, size_t item_size)
{
	return tg_grow_with(items, cap, need, item_size, tg_big_realloc);
}

void tg_big_free(void *p)
{
	if (!p)
		return;
	struct header *h = header_of(p);
	if (!h->map) {
		free(h);
		return;
	}
	pthread_mutex_lock(&keep_mu);
	int keep = nkept < keep_max;
	if (keep)
		kept[nkept++] = h;
	pthread_mutex_unlock(&keep_mu);
	if (!keep)
		munmap(h, h->map);
}

void tg_big_keep(size_t n)
{
	struct header *drop[TG_BIG_KEEP_MAX];
	size_t ndrop = 0;
	pthread_mutex_lock(&keep_mu);
	keep_max = n < TG_BIG_KEEP_MAX ? n : TG_BIG_KEEP_MAX;
	while (nkept > keep_max)
		drop[ndrop++] = kept[--nkept];
	pthread_mutex_unlock(&keep_mu);
	for (size_t i = 0; i < ndrop; i++)
		munmap(drop[i], drop[i]->map);
}
