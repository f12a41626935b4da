/*
 * atoms.c - open-addressing hash table of interned strings.
 *
 * Slots hold atom ids; entries (string pointer, length, hash) live in a dense
 * array indexed by atom. Strings are copied into an arena, NUL-terminated.
 * Hash: 8 bytes at a time with a 64x64->128 multiply fold, written here
 * because interning is on the hot path of the trace reader (every name and
 * argument key of every event goes through it).
 */
#include "atoms.h"
#include "arena.h"
#include "tg.h"

#include <stdlib.h>
#include <string.h>

struct entry {
	const char *str;
	uint32_t len;
	uint32_t hash; /* low 32 bits of the 64-bit hash */
};

struct tg_atoms {
	uint32_t *slots; /* atom + 1; 0 = empty */
	size_t mask;     /* slot count - 1 */
	struct entry *entries;
	size_t count, cap;
	tg_arena *arena;
};

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

uint64_t tg_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	const uint64_t k0 = 0xa0761d6478bd642fULL, k1 = 0xe7037ed1a0b428dbULL;
	uint64_t h = 0x8bb84b93962eacc9ULL ^ (len * k0);
	while (len >= 16) {
		h = mix(load64(p) ^ k0, load64(p + 8) ^ h);
		p += 16;
		len -= 16;
	}
	uint64_t a = 0, b = 0;
	if (len >= 8) {
		a = load64(p);
		b = load64(p + len - 8);
	} else if (len > 0) {
		unsigned char tmp[8] = {0};
		memcpy(tmp, p, len);
		a = load64(tmp);
		b = len;
	}
	return mix(a ^ k1, b ^ h ^ k0);
}

tg_atoms *tg_atoms_new(void)
{
	tg_atoms *t = tg_calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->mask = 1023;
	t->slots = tg_calloc(t->mask + 1, sizeof(uint32_t));
	t->arena = tg_arena_new(256 * 1024);
	if (!t->slots || !t->arena) {
		tg_atoms_free(t);
		return NULL;
	}
	return t;
}

static int rehash(tg_atoms *t)
{
	size_t nmask = t->mask * 2 + 1;
	uint32_t *ns = tg_calloc(nmask + 1, sizeof(uint32_t));
	if (!ns)
		return TG_ENOMEM;
	for (size_t i = 0; i < t->count; i++) {
		size_t s = t->entries[i].hash & nmask;
		while (ns[s])
			s = (s + 1) & nmask;
		ns[s] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = ns;
	t->mask = nmask;
	return 0;
}

static inline uint32_t slot_hash(uint64_t h) { return (uint32_t)(h ^ (h >> 32)); }

uint32_t tg_atoms_find(const tg_atoms *t, const char *s, size_t len)
{
	uint32_t h = slot_hash(tg_hash_bytes(s, len));
	for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
		uint32_t a = t->slots[i];
		if (!a)
			return TG_NONE;
		const struct entry *e = &t->entries[a - 1];
		if (e->hash == h && e->len == len && memcmp(e->str, s, len) == 0)
			return a - 1;
	}
}

int tg_atoms_intern(uint32_t *out, tg_atoms *t, const char *s, size_t len)
{
	if (len > UINT32_MAX - 1)
		return tg_error_set(TG_ELIMIT, "string of %zu bytes is too long to intern", len);
	uint32_t h = slot_hash(tg_hash_bytes(s, len));
	size_t i = h & t->mask;
	for (;; i = (i + 1) & t->mask) {
		uint32_t a = t->slots[i];
		if (!a)
			break;
		const struct entry *e = &t->entries[a - 1];
		if (e->hash == h && e->len == len && memcmp(e->str, s, len) == 0) {
			*out = a - 1;
			return 0;
		}
	}
	if (t->count >= UINT32_MAX - 2)
		return tg_error_set(TG_ELIMIT, "more than %u distinct strings", UINT32_MAX - 2);
	if (tg_grow((void **)&t->entries, &t->cap, t->count + 1, sizeof(struct entry)))
		return TG_ENOMEM;
	char *copy = tg_arena_alloc(t->arena, len + 1);
	if (!copy)
		return TG_ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	uint32_t atom = (uint32_t)t->count++;
	t->entries[atom] = (struct entry){copy, (uint32_t)len, h};
	t->slots[i] = atom + 1;
	if (t->count * 4 > (t->mask + 1) * 3 && rehash(t))
		return TG_ENOMEM;
	*out = atom;
	return 0;
}

const char *tg_atoms_str(const tg_atoms *t, uint32_t atom)
{
	if (!t || atom >= t->count)
		return "";
	return t->entries[atom].str;
}

size_t tg_atoms_len(const tg_atoms *t, uint32_t atom)
{
	if (!t || atom >= t->count)
		return 0;
	return t->entries[atom].len;
}

uint32_t tg_atoms_count(const tg_atoms *t) { return (uint32_t)t->count; }

size_t tg_atoms_bytes(const tg_atoms *t)
{
	return (t->mask + 1) * sizeof(uint32_t) + t->cap * sizeof(struct entry) +
	       tg_arena_bytes(t->arena);
}

void tg_atoms_free(tg_atoms *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t->entries);
	tg_arena_free(t->arena);
	free(t);
}
