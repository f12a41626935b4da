/* arena.c - bump allocation in a list of blocks, the first 4 KiB, each
 * next twice the last up to the arena's block size: a table of a few
 * strings (the diff's run data holds two, its views one each) holds a
 * few KiB, not a block of 256 KiB. */
#include "arena.h"
#include "tg.h"

#include <stdlib.h>

struct block {
	struct block *prev;
	size_t size, used;
	/* data follows, aligned to 16 by the header's size */
	_Alignas(16) unsigned char data[];
};

struct tg_arena {
	struct block *head;
	size_t block_size; /* the next block's */
	size_t max_block;
	size_t total;
};

tg_arena *tg_arena_new(size_t block_size)
{
	tg_arena *a = tg_calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->block_size = 4096;
	a->max_block = block_size < 4096 ? 4096 : block_size;
	return a;
}

void *tg_arena_alloc(tg_arena *a, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	struct block *b = a->head;
	if (!b || b->size - b->used < n) {
		size_t size = n > a->block_size ? n : a->block_size;
		b = malloc(sizeof(*b) + size);
		if (!b) {
			tg_error_set(TG_ENOMEM, "out of memory (arena block of %zu bytes)", size);
			return NULL;
		}
		b->prev = a->head;
		b->size = size;
		b->used = 0;
		a->head = b;
		a->total += size;
		if (a->block_size < a->max_block)
			a->block_size = 2 * a->block_size < a->max_block ? 2 * a->block_size : a->max_block;
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

size_t tg_arena_bytes(const tg_arena *a) { return a ? a->total : 0; }

void tg_arena_free(tg_arena *a)
{
	if (!a)
		return;
	struct block *b = a->head;
	while (b) {
		struct block *prev = b->prev;
		free(b);
		b = prev;
	}
	free(a);
}
