/*
 * breakdown.c - temporal, idle, overlap and kernel-type breakdowns (see
 * breakdown.h), on integer nanoseconds. No record of every device event is
 * held: the selected device events are walked in the trace's order into
 * one merged list per kernel type, from which one sweep gives the temporal,
 * overlap and kernel-type numbers; twice more for the duration distribution
 * (statistics per kernel name); and once into 16-byte records (start,
 * stream id, event) for the idle table, sorted by stream and start. At a
 * gigabyte of JSON that is 16 bytes a device event at the peak instead of
 * a 56-byte record each with the merged lists and sorts on top.
 */
#include "breakdown.h"
#include "stream_ids.h"
#include "../../util/idmap.h"
#include "../../util/interval.h"
#include "../trace/kernel_class.h"
#include "../tree/step_filter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NTYPES TG_KERNEL_TYPE_COUNT

/* The selected device events' spans, one list per tg_kernel_type, each
 * sorted and merged (disjoint, touching spans joined). */
struct typed {
	tg_interval *m[NTYPES];
	size_t n[NTYPES];
	uint64_t events; /* device events selected */
};

static void typed_free(struct typed *ty)
{
	for (int k = 0; k < NTYPES; k++)
		free(ty->m[k]);
	memset(ty, 0, sizeof(*ty));
}

/* Sorts and merges the n spans of *m in place, and gives back what merging
 * saved (kernels overlap little, but a big block is unmapped). */
static void merge_list(tg_interval **m, size_t *n)
{
	tg_interval *v = *m;
	tg_interval_sort(v, *n);
	size_t o = 0;
	for (size_t i = 0; i < *n; i++) {
		if (o && v[i].start <= v[o - 1].end) {
			if (v[i].end > v[o - 1].end)
				v[o - 1].end = v[i].end;
		} else {
			v[o++] = v[i];
		}
	}
	*n = o;
	tg_interval *fit = realloc(v, (o + 1) * sizeof(tg_interval));
	if (fit)
		*m = fit;
}

/* *ty = the merged lists of the device events f selects: counted by type,
 * then placed. 0 or TG_ENOMEM (ty empty). */
static int typed_lists(struct typed *ty, const tg_step_filter *f)
{
	memset(ty, 0, sizeof(*ty));
	const tg_trace *t = tg_tree_trace(f->tree);
	size_t ne, cnt[NTYPES] = {0};
	const tg_event *ev = tg_trace_events(t, &ne);
	for (size_t i = 0; i < ne; i++)
		if (tg_kind_is_gpu(ev[i].kind) && tg_step_filter_has(f, (uint32_t)i))
			cnt[tg_kernel_class_of(t, &ev[i])]++;
	for (int k = 0; k < NTYPES; k++)
		if (!(ty->m[k] = tg_malloc((cnt[k] + 1) * sizeof(tg_interval)))) {
			typed_free(ty);
			return TG_ENOMEM;
		}
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind) || !tg_step_filter_has(f, (uint32_t)i))
			continue;
		int k = (int)tg_kernel_class_of(t, &ev[i]);
		tg_interval *x = &ty->m[k][ty->n[k]++];
		tg_step_filter_span(f, &ev[i], &x->start, &x->end);
	}
	for (int k = 0; k < NTYPES; k++) {
		ty->events += ty->n[k];
		merge_list(&ty->m[k], &ty->n[k]);
	}
	return 0;
}

static int64_t total_length(const tg_interval *m, size_t n)
{
	int64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += m[i].end - m[i].start;
	return s;
}

/* Length of the intersection of two merged lists. */
static int64_t intersection(const tg_interval *a, size_t na, const tg_interval *b, size_t nb)
{
	int64_t s = 0;
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		int64_t lo = a[i].start > b[j].start ? a[i].start : b[j].start;
		int64_t hi = a[i].end < b[j].end ? a[i].end : b[j].end;
		if (hi > lo)
			s += hi - lo;
		if (a[i].end < b[j].end)
			i++;
		else
			j++;
	}
	return s;
}

/* The next boundary of the merged lists after the cursors at[], INT64_MAX
 * when every list is done; in[k]: inside ty->m[k][at[k]]. */
static int64_t next_boundary(const struct typed *ty, const size_t at[NTYPES], const int in[NTYPES])
{
	int64_t t = INT64_MAX;
	for (int k = 0; k < NTYPES; k++) {
		if (at[k] >= ty->n[k])
			continue;
		int64_t b = in[k] ? ty->m[k][at[k]].end : ty->m[k][at[k]].start;
		if (b < t)
			t = b;
	}
	return t;
}

/* Sweeps the merged lists together: sums[mask] gets the time exactly the
 * types of mask run (bit k: tg_kernel_type k). Every boundary at one
 * instant is passed before the next stretch is counted, so no array of
 * boundaries is sorted; each sum is a union's exact length in integers,
 * whatever the order it is added up in. */
static void sweep_types(int64_t sums[1 << NTYPES], const struct typed *ty)
{
	size_t at[NTYPES] = {0};
	int in[NTYPES] = {0};
	unsigned running = 0;
	memset(sums, 0, sizeof(int64_t) << NTYPES);
	int64_t prev = next_boundary(ty, at, in);
	while (prev != INT64_MAX) {
		for (int k = 0; k < NTYPES; k++) /* enter and leave at prev, in the lists' order */
			while (at[k] < ty->n[k] && (in[k] ? ty->m[k][at[k]].end : ty->m[k][at[k]].start) == prev) {
				if (in[k]) {
					running &= ~(1u << k);
					at[k]++;
				} else {
					running |= 1u << k;
				}
				in[k] = !in[k];
			}
		int64_t t = next_boundary(ty, at, in);
		if (t != INT64_MAX && running)
			sums[running] += t - prev;
		prev = t;
	}
}

static void temporal_of(tg_temporal *out, const struct typed *ty, const int64_t sums[1 << NTYPES])
{
	memset(out, 0, sizeof(*out));
	out->events = ty->events;
	int any = 0;
	for (int k = 0; k < NTYPES; k++) {
		if (!ty->n[k])
			continue;
		if (!any || ty->m[k][0].start < out->start_ns)
			out->start_ns = ty->m[k][0].start;
		if (!any || ty->m[k][ty->n[k] - 1].end > out->end_ns)
			out->end_ns = ty->m[k][ty->n[k] - 1].end;
		any = 1;
	}
	out->kernel_time_ns = out->end_ns - out->start_ns;
	for (unsigned mask = 1; mask < 1u << NTYPES; mask++)
		out->busy_ns += sums[mask];
	out->idle_ns = out->kernel_time_ns - out->busy_ns;
	const tg_interval *comp = ty->m[TG_KERNEL_COMPUTATION], *comm = ty->m[TG_KERNEL_COMMUNICATION];
	size_t ncomp = ty->n[TG_KERNEL_COMPUTATION], ncomm = ty->n[TG_KERNEL_COMMUNICATION];
	out->compute_ns = total_length(comp, ncomp);
	out->non_compute_ns = out->busy_ns - out->compute_ns;
	out->comm_ns = total_length(comm, ncomm);
	out->overlap_ns = intersection(comp, ncomp, comm, ncomm);
}

int tg_breakdown_temporal(tg_temporal *out, const tg_tree *tree, int32_t step)
{
	memset(out, 0, sizeof(*out));
	tg_step_filter f;
	struct typed ty;
	int rc = tg_step_filter_init(&f, tree, step);
	if (rc || (rc = typed_lists(&ty, &f)))
		return rc;
	int64_t sums[1 << NTYPES];
	sweep_types(sums, &ty);
	temporal_of(out, &ty, sums);
	typed_free(&ty);
	return 0;
}

/* ---- tables ---- */

static double us(int64_t ns) { return (double)ns / 1000.0; }

static double pct(int64_t x, int64_t of) { return of ? 100.0 * (double)x / (double)of : NAN; }

static void set_rank(tg_table *t, size_t row, size_t col, const tg_trace *tr)
{
	int64_t r = tg_trace_rank(tr);
	if (r >= 0)
		tg_table_set_int(t, row, col, r);
}

static tg_table *temporal_table(const tg_temporal *tp, const tg_trace *tr)
{
	static const char *const cols[] = {
		"rank", "idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)",
		"idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg", NULL};
	tg_table *t = tg_table_new_cols("temporal_breakdown", "Temporal breakdown (GPU time)", cols);
	if (!t || tg_table_add_row(t) < 0) {
		tg_table_free(t);
		return NULL;
	}
	set_rank(t, 0, 0, tr);
	tg_table_set_num(t, 0, 1, us(tp->idle_ns));
	tg_table_set_num(t, 0, 2, us(tp->compute_ns));
	tg_table_set_num(t, 0, 3, us(tp->non_compute_ns));
	tg_table_set_num(t, 0, 4, us(tp->kernel_time_ns));
	tg_table_set_num(t, 0, 5, pct(tp->idle_ns, tp->kernel_time_ns));
	tg_table_set_num(t, 0, 6, pct(tp->compute_ns, tp->kernel_time_ns));
	tg_table_set_num(t, 0, 7, pct(tp->non_compute_ns, tp->kernel_time_ns));
	return t;
}

static tg_table *overlap_table(const tg_temporal *tp, const tg_trace *tr)
{
	static const char *const cols[] = {"rank", "comm_time(us)", "overlap_time(us)",
	                                   "comp_comm_overlap_pctg", NULL};
	tg_table *t = tg_table_new_cols("comm_comp_overlap",
	                        "Communication time overlapped by computation", cols);
	if (!t || tg_table_add_row(t) < 0) {
		tg_table_free(t);
		return NULL;
	}
	set_rank(t, 0, 0, tr);
	tg_table_set_num(t, 0, 1, us(tp->comm_ns));
	tg_table_set_num(t, 0, 2, us(tp->overlap_ns));
	tg_table_set_num(t, 0, 3, pct(tp->overlap_ns, tp->comm_ns));
	return t;
}

/* A selected device event in the idle table's order: 16 bytes. */
struct idle_ev {
	int64_t ts;
	uint32_t sid; /* its stream's id, numbered in (device, stream) order */
	uint32_t ev;
};

static int cmp_idle(const void *a, const void *b)
{
	const struct idle_ev *x = a, *y = b;
	if (x->sid != y->sid)
		return x->sid < y->sid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

/* Sorts v[0..n) by cmp_idle (a total order: the event breaks ties). A
 * trace's device events mostly come in that order already (every one of the
 * generated traces' and xdit_sd_3.5's, all but one of h200-dev base_r1's
 * 1,626), so an insertion sort goes first and gives up after n moves, to
 * qsort: the common case sorts in one pass without qsort's scratch (a copy
 * of v: 0.7 MB at 100 MB of JSON, 7 MB at 1 GB), and no input costs more
 * than n moves over qsort. */
static void sort_idle(struct idle_ev *v, size_t n)
{
	size_t moves = 0;
	for (size_t i = 1; i < n; i++) {
		struct idle_ev x = v[i];
		size_t j = i;
		while (j > 0 && cmp_idle(&v[j - 1], &x) > 0) {
			if (++moves > n) {
				v[j] = x;
				qsort(v, n, sizeof(*v), cmp_idle);
				return;
			}
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* *out (n) = the nsel device events f selects, sorted by (device, stream,
 * start, event); s gets their streams, ranked in that order. 0 or
 * TG_ENOMEM. */
static int idle_events(struct idle_ev **out, size_t *n, tg_stream_ids *s, const tg_step_filter *f, size_t nsel)
{
	const tg_trace *t = tg_tree_trace(f->tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	uint32_t *rank = NULL;
	*n = 0;
	struct idle_ev *v = *out = tg_malloc((nsel + 1) * sizeof(*v));
	if (!v)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!tg_kind_is_gpu(e->kind) || !tg_step_filter_has(f, (uint32_t)i))
			continue;
		struct idle_ev *x = &v[(*n)++];
		int64_t end;
		tg_step_filter_span(f, e, &x->ts, &end);
		x->ev = (uint32_t)i;
		if (tg_stream_ids_get(&x->sid, s, tg_kernel_device(t, e), tg_kernel_stream(t, e)))
			return TG_ENOMEM;
	}
	if (tg_stream_ids_sort(&rank, s))
		return TG_ENOMEM;
	for (size_t i = 0; i < *n; i++)
		v[i].sid = rank[v[i].sid];
	free(rank);
	sort_idle(v, *n);
	return 0;
}

enum { IDLE_HOST, IDLE_KERNEL, IDLE_OTHER, IDLE_N };

/* The three rows of one stream, its gaps summed by category. -1: out of
 * memory. */
static int idle_rows(tg_table *t, const tg_stream_key *k, const int64_t sum[IDLE_N], const int64_t cnt[IDLE_N])
{
	static const char *const names[IDLE_N] = {"host_wait", "kernel_wait", "other"};
	int64_t total = sum[0] + sum[1] + sum[2];
	for (int c = 0; c < IDLE_N; c++) {
		int64_t r = tg_table_add_row(t);
		if (r < 0 || tg_table_set_str(t, (size_t)r, 2, names[c]))
			return -1;
		tg_table_set_int(t, (size_t)r, 0, k->device);
		tg_table_set_int(t, (size_t)r, 1, k->stream);
		tg_table_set_num(t, (size_t)r, 3, us(sum[c]));
		tg_table_set_int(t, (size_t)r, 4, cnt[c]);
		tg_table_set_num(t, (size_t)r, 5, total ? (double)sum[c] / (double)total : NAN);
	}
	return 0;
}

/* The gaps of each stream, by category: the end of the event before and
 * the start of the launch of the one after are read from the trace. */
static tg_table *idle_table(const tg_step_filter *f, int64_t delay_ns, size_t nsel)
{
	static const char *const cols[] = {"device", "stream", "idle_category", "idle_time(us)",
	                                   "gaps", "idle_time_ratio", NULL};
	tg_table *t = tg_table_new_cols("idle_time_breakdown", "GPU idle time per stream", cols);
	tg_stream_ids s = TG_STREAM_IDS_INIT;
	struct idle_ev *v = NULL;
	size_t n;
	const tg_event *ev = f->events;
	if (!t || idle_events(&v, &n, &s, f, nsel))
		goto fail;
	for (size_t i = 0, j; i < n; i = j) {
		int64_t sum[IDLE_N] = {0}, cnt[IDLE_N] = {0}, ts, prev_end;
		tg_step_filter_span(f, &ev[v[i].ev], &ts, &prev_end);
		for (j = i + 1; j < n && v[j].sid == v[i].sid; j++) {
			int64_t gap = v[j].ts - prev_end, lts = INT64_MIN, lend, end;
			uint32_t l = tg_tree_launch(f->tree, v[j].ev);
			if (l != TG_NONE)
				tg_step_filter_span(f, &ev[l], &lts, &lend);
			int c = lts != INT64_MIN && lts > prev_end ? IDLE_HOST : gap < delay_ns ? IDLE_KERNEL : IDLE_OTHER;
			sum[c] += gap;
			cnt[c]++;
			tg_step_filter_span(f, &ev[v[j].ev], &ts, &end);
			prev_end = end;
		}
		if (idle_rows(t, &s.v[v[i].sid], sum, cnt))
			goto fail;
	}
	free(v);
	tg_stream_ids_free(&s);
	return t;
fail:
	free(v);
	tg_stream_ids_free(&s);
	tg_table_free(t);
	return NULL;
}

struct label_sum {
	unsigned mask;
	int64_t ns;
};

static int cmp_label(const void *a, const void *b)
{
	const struct label_sum *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return (x->mask > y->mask) - (x->mask < y->mask);
}

/* HTA's _get_gpu_kernel_type_time from the sweep's sums: the time exactly
 * a set of COMPUTATION, COMMUNICATION and MEMORY runs (OTHER or not). */
static tg_table *kernel_type_table(const int64_t sums[1 << NTYPES])
{
	static const char *const cols[] = {"kernel_type", "sum(us)", "percentage", NULL};
	static const tg_kernel_type types[3] = {TG_KERNEL_COMPUTATION, TG_KERNEL_COMMUNICATION,
	                                        TG_KERNEL_MEMORY};
	tg_table *t = tg_table_new_cols("kernel_type_breakdown", "GPU time by kernel type", cols);
	if (!t)
		return NULL;
	struct label_sum by[8];
	int64_t total = 0;
	for (unsigned k = 0; k < 8; k++)
		by[k] = (struct label_sum){k, 0};
	for (unsigned mask = 1; mask < 1u << NTYPES; mask++) {
		unsigned m = 0; /* bit b: types[b] runs */
		for (int b = 0; b < 3; b++)
			m |= ((mask >> types[b]) & 1u) << b;
		by[m].ns += m ? sums[mask] : 0;
		total += m ? sums[mask] : 0;
	}
	qsort(by, 8, sizeof(by[0]), cmp_label);
	for (int k = 0; k < 8; k++) {
		if (by[k].mask == 0 || by[k].ns <= 0)
			continue;
		char label[128] = "";
		for (int b = 0; b < 3; b++)
			if (by[k].mask & (1u << b)) {
				if (label[0])
					strcat(label, " overlapping ");
				strcat(label, tg_kernel_class_name(types[b]));
			}
		int64_t r = tg_table_add_row(t);
		if (r < 0 || tg_table_set_str(t, (size_t)r, 0, label)) {
			tg_table_free(t);
			return NULL;
		}
		tg_table_set_num(t, (size_t)r, 1, us(by[k].ns));
		tg_table_set_num(t, (size_t)r, 2, pct(by[k].ns, total));
	}
	return t;
}

/* Duration statistics of one (kernel type, kernel name). */
struct kstat {
	uint8_t type;
	uint32_t name;
	uint64_t count;
	int64_t sum, min, max;
	double mean, m2; /* m2: sum of squared deviations */
	const char *str;
};

static int cmp_kstat(const void *a, const void *b)
{
	const struct kstat *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return strcmp(x->str, y->str);
}

/* One pass over the device events f selects. first: each one's (type,
 * name) found in map, or added to *v (*n, *cap), its count, sum, min and
 * max updated; else its squared deviation from its group's mean added. 0
 * or TG_ENOMEM. */
static int stats_pass(struct kstat **v, size_t *n, size_t *cap, tg_idmap *map, const tg_step_filter *f, int first)
{
	const tg_trace *t = tg_tree_trace(f->tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!tg_kind_is_gpu(e->kind) || !tg_step_filter_has(f, (uint32_t)i))
			continue;
		uint8_t type = (uint8_t)tg_kernel_class_of(t, e);
		int64_t key = (int64_t)e->name * NTYPES + type, ts, end;
		tg_step_filter_span(f, e, &ts, &end);
		uint32_t k = tg_idmap_get(map, key);
		if (!first) {
			double dv = (double)(end - ts) - (*v)[k].mean;
			(*v)[k].m2 += dv * dv;
			continue;
		}
		if (k == TG_NONE) {
			if (*n >= UINT32_MAX - 1 || tg_grow((void **)v, cap, *n + 1, sizeof(**v)) ||
			    tg_idmap_put(map, key, (uint32_t)*n) < 0)
				return TG_ENOMEM;
			k = (uint32_t)(*n)++;
			(*v)[k] = (struct kstat){type, e->name, 0, 0, INT64_MAX, INT64_MIN, 0, 0, tg_trace_str(t, e->name)};
		}
		struct kstat *s = &(*v)[k];
		int64_t dur = end - ts;
		s->count++;
		s->sum += dur;
		s->min = dur < s->min ? dur : s->min;
		s->max = dur > s->max ? dur : s->max;
	}
	return 0;
}

/* The statistics of the device events f selects, one per (type, name), in
 * *out (*nk; the caller frees it): two passes over the trace, the second
 * adding each group's squared deviations in event order (the order they
 * had when the events were sorted by type, name and event: the same
 * doubles). 0 or TG_ENOMEM. */
static int kernel_stats(struct kstat **out, size_t *nk, const tg_step_filter *f)
{
	size_t cap = 0;
	tg_idmap *map = tg_idmap_new(1024);
	*out = NULL;
	*nk = 0;
	int rc = map ? stats_pass(out, nk, &cap, map, f, 1) : TG_ENOMEM;
	for (size_t k = 0; !rc && k < *nk; k++)
		(*out)[k].mean = (double)(*out)[k].sum / (double)(*out)[k].count;
	if (!rc)
		rc = stats_pass(out, nk, &cap, map, f, 0);
	tg_idmap_free(map);
	if (rc) {
		free(*out);
		*out = NULL;
		*nk = 0;
	}
	return rc;
}

static tg_table *distribution_table(const tg_step_filter *f)
{
	static const char *const cols[] = {"kernel_type", "name", "count", "sum(us)", "mean(us)",
	                                   "min(us)", "max(us)", "std(us)", NULL};
	tg_table *t = tg_table_new_cols("kernel_duration_distribution", "Kernel duration distribution", cols);
	struct kstat *ks = NULL; /* one per kernel name, not one per event */
	size_t nk = 0;
	if (!t || kernel_stats(&ks, &nk, f))
		goto fail;
	if (nk > 1)
		qsort(ks, nk, sizeof(*ks), cmp_kstat);
	for (size_t k = 0; k < nk; k++) {
		int64_t r = tg_table_add_row(t);
		if (r < 0 || tg_table_set_str(t, (size_t)r, 0, tg_kernel_class_name(ks[k].type)) ||
		    tg_table_set_str(t, (size_t)r, 1, ks[k].str))
			goto fail;
		size_t row = (size_t)r;
		tg_table_set_int(t, row, 2, (int64_t)ks[k].count);
		tg_table_set_num(t, row, 3, us(ks[k].sum));
		tg_table_set_num(t, row, 4, (double)ks[k].sum / (double)ks[k].count / 1000.0);
		tg_table_set_num(t, row, 5, us(ks[k].min));
		tg_table_set_num(t, row, 6, us(ks[k].max));
		tg_table_set_num(t, row, 7,
		                 ks[k].count > 1 ? sqrt(ks[k].m2 / (double)(ks[k].count - 1)) / 1000.0 : 0.0);
	}
	free(ks);
	return t;
fail:
	free(ks);
	tg_table_free(t);
	return NULL;
}

int tg_breakdown_tables(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step)
{
	*out = NULL;
	*n = 0;
	tg_step_filter f;
	struct typed ty;
	int rc = tg_step_filter_init(&f, tree, step);
	if (rc || (rc = typed_lists(&ty, &f)))
		return rc;
	const tg_trace *tr = tg_tree_trace(tree);
	enum { NT = 5 };
	tg_table **tabs = tg_calloc(NT, sizeof(*tabs));
	tg_temporal tp;
	int64_t sums[1 << NTYPES];
	sweep_types(sums, &ty);
	temporal_of(&tp, &ty, sums);
	typed_free(&ty); /* the lists are done with before the idle table's records */
	if (!tabs || !(tabs[0] = temporal_table(&tp, tr)) || !(tabs[2] = overlap_table(&tp, tr)) ||
	    !(tabs[3] = kernel_type_table(sums)) || !(tabs[1] = idle_table(&f, TG_BREAKDOWN_KERNEL_DELAY_NS, tp.events)) ||
	    !(tabs[4] = distribution_table(&f))) {
		tg_tables_free(tabs, NT);
		return tg_error_set(TG_ENOMEM, "breakdown: out of memory");
	}
	*out = tabs;
	*n = NT;
	return 0;
}
