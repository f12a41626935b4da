/*
 * arena.h - a bump allocator: many small allocations, freed all at once.
 * Used for interned strings and other data that lives as long as a trace.
 */
#ifndef TG_ARENA_H
#define TG_ARENA_H

#include <stddef.h>

typedef struct tg_arena tg_arena;

/* Creates an arena that grabs blocks of 4 KiB, then twice the last, up to
 * block_size bytes each (an allocation larger than the block gets a block
 * of its own size). Returns NULL on allocation failure (message set).
 * Free with tg_arena_free. */
tg_arena *tg_arena_new(size_t block_size);

/* Returns n bytes aligned to 8, valid until tg_arena_free; NULL when out of
 * memory. The arena owns the memory. */
void *tg_arena_alloc(tg_arena *a, size_t n);

/* Bytes handed out plus the unused tails of blocks (for memory reports). */
size_t tg_arena_bytes(const tg_arena *a);

/* Frees every block. NULL is a no-op. */
void tg_arena_free(tg_arena *a);

#endif
