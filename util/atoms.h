/*
 * atoms.h - string interning. Every distinct string (event name, category,
 * argument key, raw shape text) is stored once and named by a dense uint32_t
 * id, its atom. Equal strings get equal atoms, so grouping by name or by
 * shape is an integer comparison.
 */
#ifndef TG_ATOMS_H
#define TG_ATOMS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_atoms tg_atoms;

/* Creates an empty table. NULL on allocation failure. */
tg_atoms *tg_atoms_new(void);

/* Interns len bytes at s (need not be NUL-terminated; may contain any byte).
 * Stores the atom in *out. Returns 0, or TG_ENOMEM / TG_ELIMIT (more than
 * 2^32-2 strings). The table copies the bytes. */
int tg_atoms_intern(uint32_t *out, tg_atoms *t, const char *s, size_t len);

/* Looks a string up without adding it: its atom, or TG_NONE. */
uint32_t tg_atoms_find(const tg_atoms *t, const char *s, size_t len);

/* The NUL-terminated string of an atom; owned by the table. "" for TG_NONE
 * or an out-of-range atom. */
const char *tg_atoms_str(const tg_atoms *t, uint32_t atom);

/* Length in bytes of an atom's string (0 for TG_NONE). */
size_t tg_atoms_len(const tg_atoms *t, uint32_t atom);

/* Number of distinct strings. */
uint32_t tg_atoms_count(const tg_atoms *t);

/* Bytes used by the table and its strings. */
size_t tg_atoms_bytes(const tg_atoms *t);

/* The hash the table uses (exposed for tests and other hash tables). */
uint64_t tg_hash_bytes(const void *p, size_t len);

/* Frees the table and every string. NULL is a no-op. */
void tg_atoms_free(tg_atoms *t);

#endif
