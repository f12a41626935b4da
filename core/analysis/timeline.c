/* timeline.c - the GPU timeline breakdown (see timeline.h). */
#include "timeline.h"
#include "../trace/categorize.h"
#include "../trace/kernel_class.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Which list device event i goes into: 0 computation, 1 communication, 2
 * memcpy; -1 when opts leave it out (step, link, device). */
static int span_class(const tg_tree *tree, const tg_trace *t, const tg_event *ev, size_t i,
                      const tg_timeline_opts *opts)
{
	const tg_event *e = &ev[i];
	if (!tg_kind_is_gpu(e->kind))
		return -1;
	if (!opts->events && opts->step >= 0 && tg_tree_step_of(tree, (uint32_t)i) != opts->step)
		return -1;
	if (!opts->include_unlinked &&
	    (opts->tb.tracelens_float ? !tg_tree_linked_like_tracelens(tree, (uint32_t)i)
	                              : tg_tree_launch(tree, (uint32_t)i) == TG_NONE))
		return -1;
	if (opts->device >= 0 && tg_kernel_device(t, e) != opts->device)
		return -1;
	uint8_t nf = tg_trace_name_flags(t, e->name);
	if (e->kind == TG_KIND_MEMCPY || (e->kind == TG_KIND_KERNEL && (nf & TG_NAME_COPY)))
		return 2;
	return nf & TG_NAME_COMM ? 1 : 0;
}

/* The union of the merged lists a and b (each by start), an interval at a
 * time in start order: a sweep of the two lists (the same intervals, summed
 * in the same order, as merging them together after a sort, without the
 * sort), stopped at each interval it closes, so that no list of them is
 * kept: the timeline reads the union of computation and communication
 * twice, as it goes. */
struct union_iter {
	const tg_span *a, *b;
	size_t na, nb, i, j;
	tg_span cur; /* the interval being grown, when open */
	int open;
};

/* The union's next interval into *out: 1, or 0 when there is none left. */
static int union_next(struct union_iter *u, tg_span *out)
{
	while (u->i < u->na || u->j < u->nb) {
		const tg_span *s = u->j >= u->nb || (u->i < u->na && u->a[u->i].start <= u->b[u->j].start)
		                       ? &u->a[u->i++]
		                       : &u->b[u->j++];
		if (u->open && s->start <= u->cur.end) {
			if (s->end > u->cur.end)
				u->cur.end = s->end;
			continue;
		}
		tg_span done = u->cur;
		int had = u->open;
		u->cur = *s;
		u->open = 1;
		if (had) {
			*out = done;
			return 1;
		}
	}
	if (!u->open)
		return 0;
	*out = u->cur;
	u->open = 0;
	return 1;
}

/* The overlap of the merged list m with the union u (tg_span_overlap's
 * sweep, the union read as it is made). */
static double overlap_union(const tg_span *m, size_t nm, struct union_iter *u)
{
	double total = 0;
	size_t i = 0;
	tg_span b;
	int have = union_next(u, &b);
	while (i < nm && have) {
		double s = fmax(m[i].start, b.start), e = fmin(m[i].end, b.end);
		if (e > s)
			total += e - s;
		if (m[i].end < b.end)
			i++;
		else
			have = union_next(u, &b);
	}
	return total;
}

/* The length of the union of u and the merged list m: the sweep of
 * union_next with u's intervals for its first list. */
static double length_union(struct union_iter *u, const tg_span *m, size_t nm)
{
	double total = 0;
	size_t j = 0;
	tg_span head, cur = {0, 0}, s;
	int have = union_next(u, &head), open = 0;
	while (have || j < nm) {
		if (j >= nm || (have && head.start <= m[j].start)) {
			s = head;
			have = union_next(u, &head);
		} else {
			s = m[j++];
		}
		if (open && s.start <= cur.end) {
			if (s.end > cur.end)
				cur.end = s.end;
			continue;
		}
		if (open)
			total += cur.end - cur.start;
		cur = s;
		open = 1;
	}
	if (open)
		total += cur.end - cur.start;
	return total;
}

/* The three lists' figures, each list merged (sorted in place): c the
 * computation spans, y the communication's, m the memcpys'. Busy time is
 * the union of the three, the union of every span; the union of c and y
 * is swept twice (for the memcpys' overlap with it, then for the busy
 * time), never held. */
static void timeline_figures(tg_gpu_timeline *out, const tg_timeline_opts *opts, tg_span *c, size_t nc, tg_span *y,
                             size_t ny, tg_span *m, size_t nm)
{
	nc = tg_span_merge(c, nc);
	ny = tg_span_merge(y, ny);
	nm = tg_span_merge(m, nm);
	double computation = tg_span_length(c, nc);
	double total_comm = tg_span_length(y, ny);
	double total_memcpy = tg_span_length(m, nm);
	double exposed_comm = total_comm - tg_span_overlap(y, ny, c, nc);
	struct union_iter cc = {.a = c, .na = nc, .b = y, .nb = ny}; /* comp u comm */
	double exposed_memcpy = total_memcpy - overlap_union(m, nm, &cc);
	cc = (struct union_iter){.a = c, .na = nc, .b = y, .nb = ny};
	double busy = length_union(&cc, m, nm);
	out->computation_us = tg_timebase_us(&opts->tb, computation);
	out->total_comm_us = tg_timebase_us(&opts->tb, total_comm);
	out->exposed_comm_us = tg_timebase_us(&opts->tb, exposed_comm);
	out->total_memcpy_us = tg_timebase_us(&opts->tb, total_memcpy);
	out->exposed_memcpy_us = tg_timebase_us(&opts->tb, exposed_memcpy);
	out->busy_us = tg_timebase_us(&opts->tb, busy);
}

int tg_gpu_timeline_compute(tg_gpu_timeline *out, const tg_tree *tree, const tg_timeline_opts *opts)
{
	memset(out, 0, sizeof(*out));
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	size_t nscan = opts->events ? opts->nevents : ne, ngpu = 0, cnt[3] = {0, 0, 0};
	for (size_t x = 0; x < nscan; x++)
		ngpu += tg_kind_is_gpu(ev[opts->events ? opts->events[x] : x].kind);
	/* each device event's list (0xff: left out), classified once */
	int8_t *cls = tg_malloc(ngpu ? ngpu : 1);
	if (!cls)
		return TG_ENOMEM;
	for (size_t x = 0, g = 0; x < nscan; x++) {
		size_t i = opts->events ? opts->events[x] : x;
		if (!tg_kind_is_gpu(ev[i].kind))
			continue;
		cls[g] = (int8_t)span_class(tree, t, ev, i, opts);
		if (cls[g] >= 0)
			cnt[cls[g]]++;
		g++;
	}
	size_t na = cnt[0] + cnt[1] + cnt[2];
	out->events = na;
	/* comp | comm | memcpy */
	tg_span *buf = na ? tg_malloc(na * sizeof(tg_span)) : NULL;
	if (!na || !buf) {
		free(cls);
		return na ? TG_ENOMEM : 0;
	}
	tg_span *list[3] = {buf, buf + cnt[0], buf + cnt[0] + cnt[1]};
	size_t n[3] = {0, 0, 0};
	double first = 0, last = 0;
	for (size_t x = 0, g = 0, k = 0; x < nscan; x++) {
		size_t i = opts->events ? opts->events[x] : x;
		if (!tg_kind_is_gpu(ev[i].kind) || cls[g++] < 0)
			continue;
		tg_span s = tg_span_of(&opts->tb, t, &ev[i]);
		list[cls[g - 1]][n[cls[g - 1]]++] = s;
		if (!k++ || s.start < first)
			first = s.start;
		if (k == 1 || s.end > last)
			last = s.end;
	}
	free(cls);
	timeline_figures(out, opts, list[0], n[0], list[1], n[1], list[2], n[2]);
	out->total_us = tg_timebase_us(&opts->tb, last - first);
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

int tg_gpu_timeline_by_device_table(tg_table **out, const tg_tree *tree, const tg_timeline_opts *opts,
                                    const tg_gpu_timeline *pooled)
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
		/* one device: every device event is on it (the scan above saw
		 * them all), so its timeline is the pooled one */
		if (nd == 1 && pooled && opts->device < 0)
			tl = *pooled;
		else if (tg_gpu_timeline_compute(&tl, tree, &o)) {
			tg_table_free(tab);
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
		if ((r = tg_table_add_row(tab)) < 0) {
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
