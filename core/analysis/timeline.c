/* timeline.c - the GPU timeline breakdown (see timeline.h). */
#include "timeline.h"
#include "../trace/categorize.h"
#include "../trace/kernel_class.h"

#include <stdlib.h>
#include <string.h>

int tg_gpu_timeline_compute(tg_gpu_timeline *out, const tg_tree *tree, const tg_timeline_opts *opts)
{
	memset(out, 0, sizeof(*out));
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	size_t n = 0;
	if (opts->events)
		n = opts->nevents;
	else
		for (size_t i = 0; i < ne; i++)
			n += tg_kind_is_gpu(ev[i].kind);
	/* one buffer: comp | comm | memcpy | all, each up to n spans */
	tg_span *buf = tg_malloc((4 * n + 4) * sizeof(tg_span));
	if (!buf)
		return TG_ENOMEM;
	tg_span *comp = buf, *comm = buf + n, *mem = buf + 2 * n, *all = buf + 3 * n;
	size_t nc = 0, nm = 0, ny = 0, na = 0;
	double first = 0, last = 0;
	size_t nscan = opts->events ? opts->nevents : ne;
	for (size_t x = 0; x < nscan; x++) {
		size_t i = opts->events ? opts->events[x] : x;
		const tg_event *e = &ev[i];
		if (!tg_kind_is_gpu(e->kind))
			continue;
		if (!opts->events && opts->step >= 0 && tg_tree_step_of(tree, (uint32_t)i) != opts->step)
			continue;
		if (!opts->include_unlinked &&
		    (opts->tb.tracelens_float ? !tg_tree_linked_like_tracelens(tree, (uint32_t)i)
		                              : tg_tree_launch(tree, (uint32_t)i) == TG_NONE))
			continue;
		if (opts->device >= 0 && tg_kernel_device(t, e) != opts->device)
			continue;
		tg_span s = tg_span_of(&opts->tb, t, e);
		uint8_t nf = tg_trace_name_flags(t, e->name);
		if (e->kind == TG_KIND_MEMCPY || (e->kind == TG_KIND_KERNEL && (nf & TG_NAME_COPY)))
			mem[nm++] = s;
		else if (nf & TG_NAME_COMM)
			comm[ny++] = s;
		else
			comp[nc++] = s;
		if (!na || s.start < first)
			first = s.start;
		if (!na || s.end > last)
			last = s.end;
		all[na++] = s;
	}
	out->events = na;
	if (!na) {
		free(buf);
		return 0;
	}
	nc = tg_span_merge(comp, nc);
	ny = tg_span_merge(comm, ny);
	nm = tg_span_merge(mem, nm);
	double computation = tg_span_length(comp, nc);
	double total_comm = tg_span_length(comm, ny);
	double total_memcpy = tg_span_length(mem, nm);
	double exposed_comm = total_comm - tg_span_overlap(comm, ny, comp, nc);
	/* comp u comm, reusing the "all" area for it after computing busy */
	double busy = tg_span_union(all, na);
	size_t ncc = 0;
	for (size_t i = 0; i < nc; i++)
		all[ncc++] = comp[i];
	for (size_t i = 0; i < ny; i++)
		all[ncc++] = comm[i];
	ncc = tg_span_merge(all, ncc);
	double exposed_memcpy = total_memcpy - tg_span_overlap(mem, nm, all, ncc);
	double total = last - first;
	out->computation_us = tg_timebase_us(&opts->tb, computation);
	out->total_comm_us = tg_timebase_us(&opts->tb, total_comm);
	out->exposed_comm_us = tg_timebase_us(&opts->tb, exposed_comm);
	out->total_memcpy_us = tg_timebase_us(&opts->tb, total_memcpy);
	out->exposed_memcpy_us = tg_timebase_us(&opts->tb, exposed_memcpy);
	out->busy_us = tg_timebase_us(&opts->tb, busy);
	out->total_us = tg_timebase_us(&opts->tb, total);
	out->idle_us = out->total_us - out->busy_us;
	free(buf);
	return 0;
}

int tg_gpu_timeline_table(tg_table **out, const tg_gpu_timeline *tl)
{
	*out = NULL;
	tg_table *t = tg_table_new("gpu_timeline", "GPU timeline");
	if (!t || tg_table_add_column(t, "type") < 0 || tg_table_add_column(t, "time ms") < 0 ||
	    tg_table_add_column(t, "percent") < 0) {
		tg_table_free(t);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	const struct {
		const char *name;
		double us;
	} rows[] = {
		{"computation_time", tl->computation_us}, {"exposed_comm_time", tl->exposed_comm_us},
		{"exposed_memcpy_time", tl->exposed_memcpy_us}, {"busy_time", tl->busy_us},
		{"idle_time", tl->idle_us}, {"total_time", tl->total_us},
		{"total_comm_time", tl->total_comm_us}, {"total_memcpy_time", tl->total_memcpy_us},
	};
	for (size_t i = 0; i < 8; i++) {
		int64_t r = tg_table_add_row(t);
		if (r < 0 || tg_table_set_str(t, (size_t)r, 0, rows[i].name)) {
			tg_table_free(t);
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
		tg_table_set_num(t, (size_t)r, 1, rows[i].us / 1e3);
		tg_table_set_num(t, (size_t)r, 2, tl->total_us > 0 ? rows[i].us / tl->total_us * 100 : 0);
	}
	*out = t;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int tg_gpu_timeline_by_device_table(tg_table **out, const tg_tree *tree, const tg_timeline_opts *opts)
{
	*out = NULL;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	int64_t devs[64];
	size_t nd = 0;
	for (size_t i = 0; i < ne && nd < 64; i++) {
		if (!tg_kind_is_gpu(ev[i].kind))
			continue;
		int64_t d = tg_kernel_device(t, &ev[i]);
		size_t k = 0;
		while (k < nd && devs[k] != d)
			k++;
		if (k == nd)
			devs[nd++] = d;
	}
	qsort(devs, nd, sizeof(int64_t), cmp_i64);
	tg_table *tab = tg_table_new("gpu_timeline_by_device", "GPU timeline per device (ms)");
	static const char *const cols[] = {"device", "computation_time", "exposed_comm_time",
	                                   "exposed_memcpy_time", "busy_time", "idle_time", "total_time",
	                                   "total_comm_time", "total_memcpy_time"};
	if (!tab)
		return tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t c = 0; c < 9; c++)
		if (tg_table_add_column(tab, cols[c]) < 0) {
			tg_table_free(tab);
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
	for (size_t k = 0; k < nd; k++) {
		tg_timeline_opts o = *opts;
		o.device = devs[k];
		tg_gpu_timeline tl;
		int64_t r;
		if (tg_gpu_timeline_compute(&tl, tree, &o) || (r = tg_table_add_row(tab)) < 0) {
			tg_table_free(tab);
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
		double v[8] = {tl.computation_us, tl.exposed_comm_us, tl.exposed_memcpy_us, tl.busy_us,
		               tl.idle_us, tl.total_us, tl.total_comm_us, tl.total_memcpy_us};
		tg_table_set_int(tab, (size_t)r, 0, devs[k]);
		for (size_t c = 0; c < 8; c++)
			tg_table_set_num(tab, (size_t)r, c + 1, v[c] / 1e3);
	}
	*out = tab;
	return 0;
}
