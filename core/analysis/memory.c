/*
 * memory.c - peak allocated and reserved memory per device (see memory.h).
 * The [memory] events are sorted by (device, time) and swept once; the op
 * at each peak is found by one scan of the host events (a few peaks, so a
 * linear scan each is cheaper than an index).
 */
#include "memory.h"
#include "../tree/step_filter.h"
#include "../../util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mem_ev {
	int64_t type, id, ts;
	uint32_t ev;
};

static int cmp_mem_ev(const void *a, const void *b)
{
	const struct mem_ev *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

/* The most devices sort_mem_evs ranks (a trace with more, never seen, is
 * sorted by qsort). */
#define MAX_DEVICES 16

/* A device of the [memory] events in sort_mem_evs. */
struct mem_dev {
	int64_t type, id;
	uint64_t rank; /* its place in (type, id) order */
};

/* The index of x's device among dev[0..nd), or nd when it is not there. */
static size_t device_of(const struct mem_dev *dev, size_t nd, const struct mem_ev *x)
{
	size_t d = 0;
	while (d < nd && (dev[d].type != x->type || dev[d].id != x->id))
		d++;
	return d;
}

/* Sorts m[0..n), which is in the events' order, by cmp_mem_ev: a total
 * order (the event indexes differ), so the result is qsort's. Two stable
 * radix sorts (util/sort.h): by time, then by the device's rank among the
 * trace's few devices, leaving equal times in the events' order. qsort
 * was 2.3 M of the 6 M instructions of an h200-dev report's memory table
 * (4,248 events; the allocators of two threads interleave, so a device's
 * events are not in time order either). More than MAX_DEVICES devices
 * (never seen) go to qsort. 0 or TG_ENOMEM. */
static int sort_mem_evs(struct mem_ev *m, size_t n)
{
	struct mem_dev dev[MAX_DEVICES];
	size_t nd = 0;
	for (size_t i = 0; i < n; i++) {
		if (device_of(dev, nd, &m[i]) == nd) {
			if (nd == MAX_DEVICES) {
				qsort(m, n, sizeof(*m), cmp_mem_ev);
				return 0;
			}
			dev[nd].type = m[i].type;
			dev[nd++].id = m[i].id;
		}
	}
	/* each device's rank in (type, id) order */
	for (size_t d = 0; d < nd; d++) {
		dev[d].rank = 0;
		for (size_t e = 0; e < nd; e++)
			dev[d].rank += dev[e].type < dev[d].type || (dev[e].type == dev[d].type && dev[e].id < dev[d].id);
	}
	tg_sort_pair *kv = tg_malloc(n * sizeof(*kv));
	if (!kv)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		kv[i] = (tg_sort_pair){tg_sort_key_i64(m[i].ts), (uint32_t)i};
	int rc = tg_sort_pairs(kv, n);
	for (size_t i = 0; !rc && i < n; i++)
		kv[i].key = dev[device_of(dev, nd, &m[kv[i].idx])].rank;
	if (!rc)
		rc = tg_sort_pairs(kv, n);
	if (!rc)
		rc = tg_sort_apply(m, n, sizeof(*m), kv);
	free(kv);
	return rc;
}

const char *tg_memory_device_type_name(int64_t device_type)
{
	switch (device_type) {
	case 0: return "CPU";
	case 1: return "CUDA";
	case 6: return "HIP";
	case 12: return "XPU";
	case 13: return "MPS";
	case 19: return "MTIA";
	default: return NULL;
	}
}

static int is_host_kind(int k)
{
	return k == TG_KIND_PYTHON || k == TG_KIND_CPU_OP || k == TG_KIND_USER_ANNOTATION ||
	       tg_kind_is_launch(k);
}

/* The innermost host event on track that runs at ts, cpu_ops first. */
static uint32_t op_at(const tg_trace *t, uint32_t track, int64_t ts)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	uint32_t best = TG_NONE;
	int best_rank = 0;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (e->track != track || !is_host_kind(e->kind) || e->ts > ts || tg_event_end(t, e) < ts)
			continue;
		int rank = e->kind == TG_KIND_CPU_OP ? 2 : 1;
		if (best != TG_NONE) {
			const tg_event *b = &ev[best];
			if (rank != best_rank) {
				if (rank < best_rank)
					continue;
			} else if (e->ts != b->ts ? e->ts < b->ts : tg_event_dur(t, e) > tg_event_dur(t, b)) {
				continue;
			}
		}
		best = (uint32_t)i;
		best_rank = rank;
	}
	return best;
}

int tg_memory_peaks(tg_memory_peak **out, size_t *n, const tg_tree *tree, int32_t step)
{
	*out = NULL;
	*n = 0;
	tg_step_filter f;
	int rc = tg_step_filter_init(&f, tree, step);
	if (rc)
		return rc;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	const tg_atoms *atoms = tg_trace_atoms(t);
	uint32_t mem = tg_atoms_find(atoms, "[memory]", 8);
	uint32_t k_type = tg_trace_key(t, "Device Type"), k_id = tg_trace_key(t, "Device Id");
	uint32_t k_bytes = tg_trace_key(t, "Bytes"), k_alloc = tg_trace_key(t, "Total Allocated");
	uint32_t k_res = tg_trace_key(t, "Total Reserved");
	if (mem == TG_NONE)
		return 0;
	size_t cnt = 0;
	for (size_t i = 0; i < ne; i++)
		cnt += ev[i].name == mem;
	struct mem_ev *m = tg_malloc((cnt + 1) * sizeof(*m));
	tg_memory_peak *p = tg_malloc((cnt + 1) * sizeof(*p));
	if (!m || !p) {
		free(m);
		free(p);
		return TG_ENOMEM;
	}
	size_t nm = 0, np = 0;
	for (size_t i = 0; i < ne; i++) {
		if (ev[i].name != mem)
			continue;
		struct mem_ev x = {0, -1, 0, (uint32_t)i};
		int64_t end;
		tg_arg_int(t, tg_event_arg(t, &ev[i], k_type), &x.type);
		if (tg_arg_int(t, tg_event_arg(t, &ev[i], k_id), &x.id))
			x.id = -1;
		tg_step_filter_span(&f, &ev[i], &x.ts, &end);
		m[nm++] = x;
	}
	if (nm > 1 && sort_mem_evs(m, nm)) {
		free(m);
		free(p);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < nm;) {
		size_t j = i;
		int64_t running = 0, v;
		tg_memory_peak pk = {m[i].type, m[i].id, 0, 0, -1, 0, TG_NONE, -1, 0, TG_NONE};
		uint32_t alloc_ev = TG_NONE, res_ev = TG_NONE;
		for (; j < nm && m[j].type == m[i].type && m[j].id == m[i].id; j++)
			if (tg_event_arg(t, &ev[m[j].ev], k_alloc))
				pk.from_totals = 1;
		for (size_t k = i; k < j; k++) {
			const tg_event *e = &ev[m[k].ev];
			if (tg_arg_int(t, tg_event_arg(t, e, k_bytes), &v) == 0)
				running += v;
			int sel = tg_step_filter_has(&f, m[k].ev);
			pk.events += sel;
			if (!sel)
				continue;
			int have = 1;
			if (pk.from_totals)
				have = tg_arg_int(t, tg_event_arg(t, e, k_alloc), &v) == 0;
			else
				v = running;
			if (have && (alloc_ev == TG_NONE || v > pk.peak_allocated)) {
				pk.peak_allocated = v;
				pk.peak_allocated_ts = m[k].ts;
				alloc_ev = m[k].ev;
			}
			if (tg_arg_int(t, tg_event_arg(t, e, k_res), &v) == 0 &&
			    (res_ev == TG_NONE || v > pk.peak_reserved)) {
				pk.peak_reserved = v;
				pk.peak_reserved_ts = m[k].ts;
				res_ev = m[k].ev;
			}
		}
		if (pk.events) {
			if (alloc_ev != TG_NONE)
				pk.peak_allocated_op = op_at(t, ev[alloc_ev].track, ev[alloc_ev].ts);
			if (res_ev != TG_NONE)
				pk.peak_reserved_op = res_ev == alloc_ev
				                          ? pk.peak_allocated_op
				                          : op_at(t, ev[res_ev].track, ev[res_ev].ts);
			p[np++] = pk;
		}
		i = j;
	}
	free(m);
	if (!np) {
		free(p);
		p = NULL;
	}
	*out = p;
	*n = np;
	return 0;
}

int tg_memory_tables(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step)
{
	static const char *const cols[] = {
		"device", "device_type", "device_id", "events", "basis", "peak_allocated(bytes)",
		"peak_allocated_at(ms)", "peak_allocated_op", "peak_reserved(bytes)",
		"peak_reserved_at(ms)", "peak_reserved_op", NULL};
	*out = NULL;
	*n = 0;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne, np;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_memory_peak *p;
	int rc = tg_memory_peaks(&p, &np, tree, step);
	if (rc)
		return rc;
	int64_t t0 = INT64_MAX;
	for (size_t i = 0; i < ne; i++)
		t0 = ev[i].ts < t0 ? ev[i].ts : t0;
	tg_table **tabs = NULL;
	tg_table *tab = tg_table_new("memory_peaks", "Peak memory per device");
	if (!tab)
		goto fail;
	for (const char *const *c = cols; *c; c++)
		if (tg_table_add_column(tab, *c) < 0)
			goto fail;
	for (size_t i = 0; i < np; i++) {
		const tg_memory_peak *x = &p[i];
		char dev[64];
		const char *tn = tg_memory_device_type_name(x->device_type);
		if (tn && x->device_id < 0)
			snprintf(dev, sizeof(dev), "%s", tn);
		else if (tn)
			snprintf(dev, sizeof(dev), "%s:%lld", tn, (long long)x->device_id);
		else
			snprintf(dev, sizeof(dev), "type %lld:%lld", (long long)x->device_type,
			         (long long)x->device_id);
		int64_t r = tg_table_add_row(tab);
		if (r < 0 || tg_table_set_str(tab, (size_t)r, 0, dev) ||
		    tg_table_set_str(tab, (size_t)r, 4, x->from_totals ? "Total Allocated" : "sum of Bytes") ||
		    (x->peak_allocated_op != TG_NONE &&
		     tg_table_set_str(tab, (size_t)r, 7, tg_trace_str(t, ev[x->peak_allocated_op].name))) ||
		    (x->peak_reserved_op != TG_NONE &&
		     tg_table_set_str(tab, (size_t)r, 10, tg_trace_str(t, ev[x->peak_reserved_op].name))))
			goto fail;
		size_t row = (size_t)r;
		tg_table_set_int(tab, row, 1, x->device_type);
		tg_table_set_int(tab, row, 2, x->device_id);
		tg_table_set_int(tab, row, 3, (int64_t)x->events);
		tg_table_set_int(tab, row, 5, x->peak_allocated);
		tg_table_set_num(tab, row, 6, (double)(x->peak_allocated_ts - t0) / 1e6);
		if (x->peak_reserved >= 0) {
			tg_table_set_int(tab, row, 8, x->peak_reserved);
			tg_table_set_num(tab, row, 9, (double)(x->peak_reserved_ts - t0) / 1e6);
		}
	}
	if (!(tabs = tg_malloc(sizeof(*tabs))))
		goto fail;
	tabs[0] = tab;
	free(p);
	*out = tabs;
	*n = 1;
	return 0;
fail:
	tg_table_free(tab);
	free(p);
	return tg_error_set(TG_ENOMEM, "memory: out of memory");
}
