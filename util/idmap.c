/* idmap.c - a dense array for compact id ranges, else open addressing with
 * linear probing (keys and values inline); keys outside a dense map's range
 * go to its hash part. */
#include "idmap.h"
#include "tg.h"

#include <stdlib.h>
#include <string.h>

struct slot {
	int64_t key;
	uint32_t value; /* TG_NONE = empty */
};

struct tg_idmap {
	uint32_t *dense; /* value of key min + i, or TG_NONE */
	int64_t min;
	uint64_t range;
	struct slot *slots;
	size_t mask, count;
};

static inline size_t hash64(int64_t k)
{
	uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ULL;
	return (size_t)(x ^ (x >> 29));
}

static int alloc_slots(tg_idmap *m, size_t nslots)
{
	m->slots = tg_malloc(nslots * sizeof(struct slot));
	if (!m->slots)
		return TG_ENOMEM;
	for (size_t i = 0; i < nslots; i++)
		m->slots[i].value = TG_NONE;
	m->mask = nslots - 1;
	return 0;
}

tg_idmap *tg_idmap_new(size_t n)
{
	tg_idmap *m = tg_calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	size_t nslots = 16;
	while (nslots < n * 2)
		nslots *= 2;
	if (alloc_slots(m, nslots)) {
		free(m);
		return NULL;
	}
	return m;
}

tg_idmap *tg_idmap_new_range(size_t n, int64_t min, int64_t max)
{
	if (n == 0 || max < min || (uint64_t)max - (uint64_t)min > 4 * (uint64_t)n + 1024)
		return tg_idmap_new(n);
	tg_idmap *m = tg_idmap_new(0);
	if (!m)
		return NULL;
	m->min = min;
	m->range = (uint64_t)max - (uint64_t)min + 1;
	m->dense = tg_malloc(m->range * sizeof(uint32_t));
	if (!m->dense) {
		tg_idmap_free(m);
		return NULL;
	}
	memset(m->dense, 0xff, m->range * sizeof(uint32_t));
	return m;
}

static inline int in_dense(const tg_idmap *m, int64_t key)
{
	return m->dense && (uint64_t)key - (uint64_t)m->min < m->range;
}

int tg_idmap_put(tg_idmap *m, int64_t key, uint32_t value)
{
	if (in_dense(m, key)) {
		uint32_t *v = &m->dense[(uint64_t)key - (uint64_t)m->min];
		if (*v != TG_NONE)
			return 1;
		*v = value;
		return 0;
	}
	if ((m->count + 1) * 2 > m->mask + 1) {
		struct slot *old = m->slots;
		size_t oldn = m->mask + 1;
		if (alloc_slots(m, oldn * 2)) {
			m->slots = old;
			return TG_ENOMEM;
		}
		for (size_t i = 0; i < oldn; i++) {
			if (old[i].value == TG_NONE)
				continue;
			size_t s = hash64(old[i].key) & m->mask;
			while (m->slots[s].value != TG_NONE)
				s = (s + 1) & m->mask;
			m->slots[s] = old[i];
		}
		free(old);
	}
	size_t s = hash64(key) & m->mask;
	for (; m->slots[s].value != TG_NONE; s = (s + 1) & m->mask)
		if (m->slots[s].key == key)
			return 1;
	m->slots[s].key = key;
	m->slots[s].value = value;
	m->count++;
	return 0;
}

uint32_t tg_idmap_get(const tg_idmap *m, int64_t key)
{
	if (in_dense(m, key))
		return m->dense[(uint64_t)key - (uint64_t)m->min];
	for (size_t s = hash64(key) & m->mask; m->slots[s].value != TG_NONE; s = (s + 1) & m->mask)
		if (m->slots[s].key == key)
			return m->slots[s].value;
	return TG_NONE;
}

void tg_idmap_free(tg_idmap *m)
{
	if (!m)
		return;
	free(m->dense);
	free(m->slots);
	free(m);
}
