/*
 * critical_path_edges.c - the edge store of the critical-path graph
 * (critical_path_impl.h): edges in the order first added, found again by
 * (source, destination) in an open-addressing hash so that an edge added
 * twice keeps its place and takes the later type and weight, as a networkx
 * DiGraph does; HTA's attribution of span edges to events; and the small
 * helpers the other critical_path files share (an event's correlation id,
 * its name's flags, a stable sort of event indices by a time), here so
 * that no two files of core/ call each other.
 */
#include "critical_path_impl.h"
#include "../../util/sort.h"

#include <stdlib.h>
#include <string.h>

int64_t cp_corr(const tg_critical_path *cp, uint32_t ev)
{
	const tg_event *e = &cp->ev[ev];
	return e->kind != TG_KIND_PYTHON && (e->flags & TG_EV_HAS_CORR) ? tg_event_corr(cp->t, e) : -1;
}

uint16_t cp_name_flags(const tg_critical_path *cp, uint32_t ev)
{
	uint32_t atom = cp->ev[ev].name;
	return atom < cp->natoms ? cp->namef[atom] : 0;
}

static size_t hslot(const tg_critical_path *cp, uint64_t key)
{
	uint64_t h = key * UINT64_C(0x9E3779B97F4A7C15);
	size_t mask = cp->hcap - 1, s = (size_t)(h >> 20) & mask;
	while (cp->hkeys[s] && cp->hkeys[s] != key)
		s = (s + 1) & mask;
	return s;
}

static int hgrow(tg_critical_path *cp)
{
	size_t ocap = cp->hcap;
	uint64_t *ok = cp->hkeys;
	uint32_t *ov = cp->hvals;
	cp->hcap = ocap ? ocap * 2 : 1024;
	cp->hkeys = tg_calloc(cp->hcap, sizeof(uint64_t));
	cp->hvals = tg_malloc(cp->hcap * sizeof(uint32_t));
	if (!cp->hkeys || !cp->hvals) {
		free(cp->hkeys);
		free(cp->hvals);
		cp->hkeys = ok;
		cp->hvals = ov;
		cp->hcap = ocap;
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < ocap; i++)
		if (ok[i]) {
			size_t s = hslot(cp, ok[i]);
			cp->hkeys[s] = ok[i];
			cp->hvals[s] = ov[i];
		}
	free(ok);
	free(ov);
	return 0;
}

/* The edge src -> dst, or TG_NONE. */
uint32_t cp_find_edge(const tg_critical_path *cp, uint32_t src, uint32_t dst)
{
	if (!cp->hcap)
		return TG_NONE;
	uint64_t key = (((uint64_t)src << 32) | dst) + 1;
	size_t s = hslot(cp, key);
	return cp->hkeys[s] ? cp->hvals[s] : TG_NONE;
}

/* HTA's _attribute_edge: a span edge belongs to the event whose inside it
 * is: the source for start -> x, the destination for end -> end, the
 * parent of both for end -> start; a kernel gap to the kernel before. */
static uint32_t attribute(const tg_critical_path *cp, uint32_t src, uint32_t dst, int type, uint32_t parent)
{
	if (type == TG_CP_EDGE_KERNEL_KERNEL || cp->node_start[src])
		return cp->node_ev[src];
	if (!cp->node_start[dst])
		return cp->node_ev[dst];
	return parent;
}

int cp_add_edge(tg_critical_path *cp, uint32_t src, uint32_t dst, int type, int zero, uint32_t attr_parent)
{
	if (src == dst)
		return 0;
	if (type == TG_CP_EDGE_SYNC) {
		int64_t a = cp->stream[cp->node_ev[src]], b = cp->stream[cp->node_ev[dst]];
		if (a != -1 && a == b) {
			cp->stats.same_stream_syncs++;
			return 0;
		}
	}
	if ((cp->nedges + 1) * 2 > cp->hcap && hgrow(cp))
		return TG_ENOMEM;
	uint64_t key = (((uint64_t)src << 32) | dst) + 1;
	size_t s = hslot(cp, key);
	uint32_t idx;
	if (cp->hkeys[s]) {
		idx = cp->hvals[s];
	} else {
		if (tg_grow((void **)&cp->edges, &cp->cap, cp->nedges + 1, sizeof(cp_edge)))
			return TG_ENOMEM;
		idx = (uint32_t)cp->nedges++;
		cp->edges[idx] = (cp_edge){src, dst, TG_NONE, 0, 0};
		cp->hkeys[s] = key;
		cp->hvals[s] = idx;
	}
	cp_edge *e = &cp->edges[idx];
	e->type = (uint8_t)type;
	e->w = type == TG_CP_EDGE_DEPENDENCY || type == TG_CP_EDGE_SYNC || zero ? 0
	                                                                        : cp->node_ts[dst] - cp->node_ts[src];
	if (type == TG_CP_EDGE_OPERATOR || type == TG_CP_EDGE_KERNEL_KERNEL)
		e->attr = attribute(cp, src, dst, type, attr_parent);
	return 0;
}

int cp_sort_by(uint32_t *idx, size_t n, const int64_t *key)
{
	tg_sort_pair *kv = tg_malloc((n + 1) * sizeof(*kv));
	uint32_t *tmp = tg_malloc((n + 1) * sizeof(*tmp));
	if (!kv || !tmp) {
		free(kv);
		free(tmp);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		kv[i] = (tg_sort_pair){tg_sort_key_i64(key[idx[i]]), (uint32_t)i};
	int rc = tg_sort_pairs(kv, n);
	if (!rc) {
		for (size_t i = 0; i < n; i++)
			tmp[i] = idx[kv[i].idx];
		memcpy(idx, tmp, n * sizeof(*idx));
	}
	free(kv);
	free(tmp);
	return rc;
}
