/* stream_ids.c - (device, stream) pairs numbered (see stream_ids.h). */
#include "stream_ids.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(int64_t device, int64_t stream)
{
	uint64_t h = (uint64_t)device * 0x9E3779B97F4A7C15ULL ^ (uint64_t)stream * 0xC2B2AE3D27D4EB4FULL;
	return h ^ (h >> 29);
}

/* Doubles the slots (or makes the first 64) and places every id again. */
static int rehash(tg_stream_ids *s)
{
	size_t nm = s->mask ? (s->mask + 1) * 2 : 64;
	while ((s->n + 1) * 2 > nm) /* (after tg_stream_ids_sort: no slots, n ids) */
		nm *= 2;
	uint32_t *ns = tg_calloc(nm, sizeof(uint32_t));
	if (!ns)
		return TG_ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		size_t k = (size_t)hash_key(s->v[i].device, s->v[i].stream) & (nm - 1);
		while (ns[k])
			k = (k + 1) & (nm - 1);
		ns[k] = (uint32_t)i + 1;
	}
	free(s->slot);
	s->slot = ns;
	s->mask = nm - 1;
	return 0;
}

int tg_stream_ids_get(uint32_t *id, tg_stream_ids *s, int64_t device, int64_t stream)
{
	if (s->last != UINT32_MAX && s->v[s->last].device == device && s->v[s->last].stream == stream) {
		*id = s->last;
		return 0;
	}
	if ((s->n + 1) * 2 > s->mask + 1 && rehash(s))
		return TG_ENOMEM;
	size_t k = (size_t)hash_key(device, stream) & s->mask;
	for (; s->slot[k]; k = (k + 1) & s->mask) {
		const tg_stream_key *x = &s->v[s->slot[k] - 1];
		if (x->device == device && x->stream == stream) {
			*id = s->last = s->slot[k] - 1;
			return 0;
		}
	}
	if (s->n >= UINT32_MAX - 1 || tg_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
		return TG_ENOMEM;
	s->v[s->n] = (tg_stream_key){device, stream};
	s->slot[k] = (uint32_t)++s->n;
	*id = s->last = (uint32_t)(s->n - 1);
	return 0;
}

static int cmp_key(const void *a, const void *b, void *ctx)
{
	const tg_stream_key *v = ctx;
	const tg_stream_key *x = &v[*(const uint32_t *)a], *y = &v[*(const uint32_t *)b];
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->stream > y->stream) - (x->stream < y->stream);
}

int tg_stream_ids_sort(uint32_t **rank, tg_stream_ids *s)
{
	uint32_t *order = tg_malloc((s->n + 1) * sizeof(uint32_t));
	tg_stream_key *v = tg_malloc((s->n + 1) * sizeof(tg_stream_key));
	*rank = tg_malloc((s->n + 1) * sizeof(uint32_t));
	if (!order || !v || !*rank) {
		free(order);
		free(v);
		free(*rank);
		*rank = NULL;
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++)
		order[i] = (uint32_t)i;
	if (s->n > 1) /* (qsort takes no NULL, even for nothing) */
		qsort_r(order, s->n, sizeof(uint32_t), cmp_key, s->v);
	for (size_t i = 0; i < s->n; i++) {
		v[i] = s->v[order[i]];
		(*rank)[order[i]] = (uint32_t)i;
	}
	free(order);
	free(s->v);
	free(s->slot); /* placed again, by the new ids, at the next lookup */
	s->v = v;
	s->cap = s->n + 1;
	s->slot = NULL;
	s->mask = 0;
	s->last = UINT32_MAX;
	return 0;
}

void tg_stream_ids_free(tg_stream_ids *s)
{
	free(s->v);
	free(s->slot);
	*s = (tg_stream_ids)TG_STREAM_IDS_INIT;
}
