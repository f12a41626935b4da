/*
 * tree_links.c - which device events TraceLens would link to their launch
 * (tree.h, tg_tree_linked_like_tracelens): TraceLens links a kernel by its
 * launch flow, so a kernel counts as linked when both ends of the launch
 * flow with its correlation id are in the trace, or when its launch is a
 * graph launch.
 *
 * The ends are taken from the flows early in the build (tg_tree_ends_take),
 * as a set of keys: a bit a key over the keys' range when they are dense
 * (flow ids are correlation ids, mostly dense: 2 bits a correlation id,
 * 1/8 of a byte a key where a dense map of values takes 4 and a hash 32),
 * a map of the keys otherwise. The flows (16 bytes each, two a launch) can
 * then go before the tree's own arrays grow; the marks are made at the end
 * of the build, from the set and the parents.
 */
#include "tree_links.h"

#include <stdlib.h>
#include <string.h>

/* Keys' range (in keys) up to which the set is a bitmap: 64 bits a key
 * and 64 Ki more (8 bytes a key at most, a hash's quarter). */
#define BITS_PER_KEY_MAX 64
#define BITS_SLACK 65536

/* The key of flow f in the set of launch flow ends: its id, then 0 for a
 * start or 1 for a finish; 0 for a flow that is not a launch flow's start
 * or finish. */
static int launch_end_key(const tg_trace *t, const tg_flow *f, int64_t *key)
{
	if (f->type != TG_FLOW_LAUNCH || (f->ph != 's' && f->ph != 'f'))
		return 0;
	*key = (int64_t)(tg_flow_id(t, f) << 1 | (f->ph == 'f'));
	return 1;
}

/* The bitmap of nk keys from lo to hi, when they are dense enough; 0, 1
 * when they are not (ends left without bits), or TG_ENOMEM. */
static int ends_bits(tg_tree_ends *ends, size_t nk, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo;
	if (span > (uint64_t)nk * BITS_PER_KEY_MAX + BITS_SLACK)
		return 1;
	ends->lo = lo;
	ends->range = span + 1;
	ends->bits = tg_calloc((size_t)(span / 64 + 1), sizeof(uint64_t));
	return ends->bits ? 0 : TG_ENOMEM;
}

int tg_tree_ends_take(tg_tree_ends *ends, const tg_trace *t)
{
	size_t nf;
	const tg_flow *fl = tg_trace_flows(t, &nf);
	memset(ends, 0, sizeof(*ends));
	size_t nk = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN, key;
	for (size_t i = 0; i < nf; i++) {
		if (!launch_end_key(t, &fl[i], &key))
			continue;
		lo = key < lo ? key : lo;
		hi = key > hi ? key : hi;
		nk++;
	}
	if (!nk)
		return 0;
	int rc = ends_bits(ends, nk, lo, hi);
	if (rc < 0)
		return rc;
	if (rc == 1 && !(ends->sparse = tg_idmap_new(nk)))
		return TG_ENOMEM;
	for (size_t i = 0; i < nf; i++) {
		if (!launch_end_key(t, &fl[i], &key))
			continue;
		if (ends->bits) {
			uint64_t k = (uint64_t)key - (uint64_t)ends->lo;
			ends->bits[k >> 6] |= 1ULL << (k & 63);
		} else if (tg_idmap_put(ends->sparse, key, 1) < 0) {
			return TG_ENOMEM;
		}
	}
	return 0;
}

void tg_tree_ends_free(tg_tree_ends *ends)
{
	free(ends->bits);
	tg_idmap_free(ends->sparse);
	memset(ends, 0, sizeof(*ends));
}

/* 1 when key is one of ends' keys. */
static int ends_has(const tg_tree_ends *ends, int64_t key)
{
	if (ends->bits) {
		uint64_t k = (uint64_t)key - (uint64_t)ends->lo;
		return k < ends->range && (ends->bits[k >> 6] >> (k & 63) & 1);
	}
	return ends->sparse && tg_idmap_get(ends->sparse, key) != TG_NONE;
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
		    (ends_has(ends, (int64_t)(id << 1)) && ends_has(ends, (int64_t)(id << 1 | 1))))
			linked[i >> 3] |= (uint8_t)(1u << (i & 7));
	}
	return 0;
}
