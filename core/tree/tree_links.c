/*
 * tree_links.c - which device events TraceLens would link to their launch
 * (tree.h, tg_tree_linked_like_tracelens): TraceLens links a kernel by its
 * launch flow, so a kernel counts as linked when both ends of the launch
 * flow with its correlation id are in the trace, or when its launch is a
 * graph launch.
 *
 * The ends are taken from the flows early in the build (tg_tree_ends_take),
 * as two sets of keys, the starts' ids and the finishes' ids, each id
 * whole (one set of keys id << 1 | finish gave up an id's top bit, so that
 * the start of id x and the finish of id x + 2^63 made a link): a bit a
 * key over a set's range when the keys are dense (flow ids are correlation
 * ids, mostly dense: 2 bits a correlation id, 1/8 of a byte a key where a
 * dense map of values takes 4 and a hash 32), a map of the keys otherwise. The flows (16 bytes each, two a launch) can
 * then go before the tree's own arrays grow; the marks are made at the end
 * of the build, from the set and the parents.
 */
#include "tree_links.h"

#include <stdlib.h>
#include <string.h>

/* Keys' range (in keys) up to which a set is a bitmap: 64 bits a key
 * and 64 Ki more (8 bytes a key at most, a hash's quarter). */
#define BITS_PER_KEY_MAX 64
#define BITS_SLACK 65536

/* The set of launch flow ends flow f belongs to in ends (its starts or its
 * finishes), with its key, the flow's whole 64-bit id; NULL for a flow
 * that is not a launch flow's start or finish. */
static tg_tree_keys *launch_end_set(tg_tree_ends *ends, const tg_trace *t, const tg_flow *f, int64_t *key)
{
	if (f->type != TG_FLOW_LAUNCH || (f->ph != 's' && f->ph != 'f'))
		return NULL;
	*key = (int64_t)tg_flow_id(t, f);
	return f->ph == 'f' ? &ends->finish : &ends->start;
}

/* Sizes the bitmap of keys' nk keys from lo to hi, when they are dense
 * enough; 0, 1 when they are not (keys left without bits: a map), or
 * TG_ENOMEM. */
static int keys_bits(tg_tree_keys *keys, size_t nk, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo;
	if (span > (uint64_t)nk * BITS_PER_KEY_MAX + BITS_SLACK)
		return 1;
	keys->lo = lo;
	keys->range = span + 1;
	keys->bits = tg_calloc((size_t)(span / 64 + 1), sizeof(uint64_t));
	return keys->bits ? 0 : TG_ENOMEM;
}

/* Makes keys' room for its nk keys from lo to hi: a bitmap or a map. 0 or
 * TG_ENOMEM. */
static int keys_make(tg_tree_keys *keys, size_t nk, int64_t lo, int64_t hi)
{
	if (!nk)
		return 0;
	int rc = keys_bits(keys, nk, lo, hi);
	if (rc < 0)
		return rc;
	if (rc == 1 && !(keys->sparse = tg_idmap_new(nk)))
		return TG_ENOMEM;
	return 0;
}

/* Adds key to keys (made by keys_make). 0 or TG_ENOMEM. */
static int keys_add(tg_tree_keys *keys, int64_t key)
{
	if (keys->bits) {
		uint64_t k = (uint64_t)key - (uint64_t)keys->lo;
		keys->bits[k >> 6] |= 1ULL << (k & 63);
		return 0;
	}
	return tg_idmap_put(keys->sparse, key, 1) < 0 ? TG_ENOMEM : 0;
}

int tg_tree_ends_take(tg_tree_ends *ends, const tg_trace *t)
{
	size_t nf;
	const tg_flow *fl = tg_trace_flows(t, &nf);
	memset(ends, 0, sizeof(*ends));
	size_t nk[2] = {0, 0};
	int64_t lo[2] = {INT64_MAX, INT64_MAX}, hi[2] = {INT64_MIN, INT64_MIN}, key;
	tg_tree_keys *keys;
	for (size_t i = 0; i < nf; i++) {
		if (!(keys = launch_end_set(ends, t, &fl[i], &key)))
			continue;
		int s = keys == &ends->finish;
		lo[s] = key < lo[s] ? key : lo[s];
		hi[s] = key > hi[s] ? key : hi[s];
		nk[s]++;
	}
	int rc = keys_make(&ends->start, nk[0], lo[0], hi[0]);
	if (!rc)
		rc = keys_make(&ends->finish, nk[1], lo[1], hi[1]);
	for (size_t i = 0; !rc && i < nf; i++)
		if ((keys = launch_end_set(ends, t, &fl[i], &key)))
			rc = keys_add(keys, key);
	return rc;
}

/* Frees keys' memory. */
static void keys_free(tg_tree_keys *keys)
{
	free(keys->bits);
	tg_idmap_free(keys->sparse);
}

void tg_tree_ends_free(tg_tree_ends *ends)
{
	keys_free(&ends->start);
	keys_free(&ends->finish);
	memset(ends, 0, sizeof(*ends));
}

/* 1 when key is one of keys'. */
static int keys_has(const tg_tree_keys *keys, int64_t key)
{
	if (keys->bits) {
		uint64_t k = (uint64_t)key - (uint64_t)keys->lo;
		return k < keys->range && (keys->bits[k >> 6] >> (k & 63) & 1);
	}
	return keys->sparse && tg_idmap_get(keys->sparse, key) != TG_NONE;
}

int tg_tree_tracelens_links(uint8_t **out, const tg_trace *t, const tg_tree_pack *parents, const uint32_t *parent,
                            const tg_tree_ends *ends)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	uint8_t *linked = *out = tg_calloc(ne / 8 + 1, 1);
	if (!linked)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind))
			continue;
		uint32_t p = tg_tree_pack_at(parents, parent, i);
		if (p == TG_NONE || !tg_kind_is_launch(ev[p].kind) || !(ev[i].flags & TG_EV_HAS_CORR))
			continue;
		const char *name = tg_trace_str(t, ev[p].name);
		uint64_t id = (uint64_t)tg_event_corr(t, &ev[i]);
		if (!strcmp(name, "cudaGraphLaunch") || !strcmp(name, "hipGraphLaunch") ||
		    (keys_has(&ends->start, (int64_t)id) && keys_has(&ends->finish, (int64_t)id)))
			linked[i >> 3] |= (uint8_t)(1u << (i & 7));
	}
	return 0;
}
