/*
 * breakdown.c - temporal, idle, overlap and kernel-type breakdowns (see
 * breakdown.h). One pass collects the selected device events with their
 * type; every number is then a sort and a sweep on integer nanoseconds.
 */
#include "breakdown.h"
#include "../../util/interval.h"
#include "../trace/kernel_class.h"
#include "../tree/step_filter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct dev {
	int64_t ts, end;
	int64_t device, stream;
	int64_t launch_ts; /* INT64_MIN: no launch */
	uint32_t ev, name;
	uint8_t type;
};

struct devs {
	struct dev *v;
	size_t n;
};

/* Selected device events, in event order. */
static int collect(struct devs *d, const tg_tree *tree, int32_t step)
{
	memset(d, 0, sizeof(*d));
	tg_step_filter f;
	int rc = tg_step_filter_init(&f, tree, step);
	if (rc)
		return rc;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	size_t cnt = 0;
	for (size_t i = 0; i < ne; i++)
		cnt += tg_kind_is_gpu(ev[i].kind);
	d->v = tg_malloc((cnt + 1) * sizeof(*d->v));
	if (!d->v)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!tg_kind_is_gpu(e->kind) || !tg_step_filter_has(&f, (uint32_t)i))
			continue;
		uint8_t type = (uint8_t)tg_kernel_class_of(t, e);
		uint32_t l = tg_tree_launch(tree, (uint32_t)i);
		int64_t ts, end, lts = INT64_MIN, lend;
		tg_step_filter_span(&f, e, &ts, &end);
		if (l != TG_NONE)
			tg_step_filter_span(&f, &ev[l], &lts, &lend);
		d->v[d->n++] = (struct dev){
			.ts = ts,
			.end = end,
			.device = tg_kernel_device(t, e),
			.stream = tg_kernel_stream(t, e),
			.launch_ts = lts,
			.ev = (uint32_t)i,
			.name = e->name,
			.type = type,
		};
	}
	return 0;
}

/* Union of the events whose type is in mask (bit per tg_kernel_type), as
 * merged intervals in *m (caller frees); returns the count. */
static int merged(tg_interval **m, size_t *nm, const struct devs *d, unsigned mask)
{
	size_t want = 0;
	for (size_t i = 0; i < d->n; i++)
		want += (mask >> d->v[i].type) & 1;
	*m = tg_malloc((want + 1) * sizeof(tg_interval));
	*nm = 0;
	if (!*m)
		return TG_ENOMEM;
	tg_interval *v = *m;
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		if (mask & (1u << d->v[i].type))
			v[n++] = (tg_interval){d->v[i].ts, d->v[i].end};
	tg_interval_sort(v, n);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (o && v[i].start <= v[o - 1].end) {
			if (v[i].end > v[o - 1].end)
				v[o - 1].end = v[i].end;
		} else {
			v[o++] = v[i];
		}
	}
	*nm = o;
	/* kernels overlap little: the merged list is about as long as the
	 * events, but give back what merging saved (a big block is unmapped) */
	tg_interval *fit = realloc(v, (o + 1) * sizeof(tg_interval));
	if (fit)
		*m = fit;
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

#define ALL_TYPES ((1u << TG_KERNEL_TYPE_COUNT) - 1)
#define BIT(t) (1u << (t))

static int temporal_of(tg_temporal *out, const struct devs *d)
{
	memset(out, 0, sizeof(*out));
	out->events = d->n;
	tg_interval *all = NULL, *comp = NULL, *comm = NULL;
	size_t nall, ncomp, ncomm;
	int rc = TG_ENOMEM;
	if (merged(&all, &nall, d, ALL_TYPES) || merged(&comp, &ncomp, d, BIT(TG_KERNEL_COMPUTATION)) ||
	    merged(&comm, &ncomm, d, BIT(TG_KERNEL_COMMUNICATION)))
		goto out;
	if (nall) {
		out->start_ns = all[0].start;
		out->end_ns = all[nall - 1].end;
	}
	out->kernel_time_ns = out->end_ns - out->start_ns;
	out->busy_ns = total_length(all, nall);
	out->idle_ns = out->kernel_time_ns - out->busy_ns;
	out->compute_ns = total_length(comp, ncomp);
	out->non_compute_ns = out->busy_ns - out->compute_ns;
	out->comm_ns = total_length(comm, ncomm);
	out->overlap_ns = intersection(comp, ncomp, comm, ncomm);
	rc = 0;
out:
	free(all);
	free(comp);
	free(comm);
	return rc;
}

int tg_breakdown_temporal(tg_temporal *out, const tg_tree *tree, int32_t step)
{
	memset(out, 0, sizeof(*out));
	struct devs d;
	int rc = collect(&d, tree, step);
	if (rc)
		return rc;
	rc = temporal_of(out, &d);
	free(d.v);
	return rc;
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

static int cmp_stream_ts(const void *a, const void *b)
{
	const struct dev *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

enum { IDLE_HOST, IDLE_KERNEL, IDLE_OTHER, IDLE_N };

/* Sorts d by (device, stream, ts). */
static tg_table *idle_table(struct devs *d, int64_t delay_ns)
{
	static const char *const cols[] = {"device", "stream", "idle_category", "idle_time(us)",
	                                   "gaps", "idle_time_ratio", NULL};
	static const char *const names[IDLE_N] = {"host_wait", "kernel_wait", "other"};
	tg_table *t = tg_table_new_cols("idle_time_breakdown", "GPU idle time per stream", cols);
	if (!t)
		return NULL;
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), cmp_stream_ts);
	for (size_t i = 0; i < d->n;) {
		size_t j = i + 1;
		int64_t sum[IDLE_N] = {0}, cnt[IDLE_N] = {0};
		for (; j < d->n && d->v[j].device == d->v[i].device && d->v[j].stream == d->v[i].stream;
		     j++) {
			const struct dev *k = &d->v[j];
			int64_t prev_end = d->v[j - 1].end, gap = k->ts - prev_end;
			int c = k->launch_ts != INT64_MIN && k->launch_ts > prev_end ? IDLE_HOST
			        : gap < delay_ns                                     ? IDLE_KERNEL
			                                                             : IDLE_OTHER;
			sum[c] += gap;
			cnt[c]++;
		}
		int64_t total = sum[0] + sum[1] + sum[2];
		for (int c = 0; c < IDLE_N; c++) {
			int64_t r = tg_table_add_row(t);
			if (r < 0 || tg_table_set_str(t, (size_t)r, 2, names[c])) {
				tg_table_free(t);
				return NULL;
			}
			tg_table_set_int(t, (size_t)r, 0, d->v[i].device);
			tg_table_set_int(t, (size_t)r, 1, d->v[i].stream);
			tg_table_set_num(t, (size_t)r, 3, us(sum[c]));
			tg_table_set_int(t, (size_t)r, 4, cnt[c]);
			tg_table_set_num(t, (size_t)r, 5, total ? (double)sum[c] / (double)total : NAN);
		}
		i = j;
	}
	return t;
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

/* The next boundary of the three merged lists m after the cursors at[],
 * INT64_MAX when every list is done; in[k]: inside m[k][at[k]]. */
static int64_t next_boundary(tg_interval *const m[3], const size_t nm[3], const size_t at[3], const int in[3])
{
	int64_t t = INT64_MAX;
	for (int k = 0; k < 3; k++) {
		if (at[k] >= nm[k])
			continue;
		int64_t b = in[k] ? m[k][at[k]].end : m[k][at[k]].start;
		if (b < t)
			t = b;
	}
	return t;
}

/* Sweeps the three merged lists m (each sorted and disjoint) together:
 * sums[mask] gets the time exactly the types of mask run (bit k: list k),
 * *total their sum. Every boundary at one instant is passed before the
 * next stretch is counted, so no array of boundaries is sorted. */
static void sweep_types(struct label_sum sums[8], int64_t *total, tg_interval *const m[3], const size_t nm[3])
{
	size_t at[3] = {0, 0, 0};
	int in[3] = {0, 0, 0};
	unsigned running = 0;
	int64_t prev = next_boundary(m, nm, at, in);
	*total = 0;
	while (prev != INT64_MAX) {
		for (int k = 0; k < 3; k++) /* enter and leave at prev, in the lists' order */
			while (at[k] < nm[k] && (in[k] ? m[k][at[k]].end : m[k][at[k]].start) == prev) {
				if (in[k]) {
					running &= ~(1u << k);
					at[k]++;
				} else {
					running |= 1u << k;
				}
				in[k] = !in[k];
			}
		int64_t t = next_boundary(m, nm, at, in);
		if (t != INT64_MAX && running > 0 && running < 8) {
			sums[running].ns += t - prev;
			*total += t - prev;
		}
		prev = t;
	}
}

/* HTA's _get_gpu_kernel_type_time: merge each type, sweep the starts and
 * ends, attribute each stretch to the set of types running. */
static tg_table *kernel_type_table(const struct devs *d)
{
	static const char *const cols[] = {"kernel_type", "sum(us)", "percentage", NULL};
	static const tg_kernel_type types[3] = {TG_KERNEL_COMPUTATION, TG_KERNEL_COMMUNICATION,
	                                        TG_KERNEL_MEMORY};
	tg_table *t = tg_table_new_cols("kernel_type_breakdown", "GPU time by kernel type", cols);
	tg_interval *m[3] = {NULL, NULL, NULL};
	size_t nm[3] = {0, 0, 0};
	if (!t)
		return NULL;
	for (int k = 0; k < 3; k++)
		if (merged(&m[k], &nm[k], d, BIT(types[k])))
			goto fail;
	struct label_sum sums[8];
	for (unsigned k = 0; k < 8; k++)
		sums[k] = (struct label_sum){k, 0};
	int64_t total;
	sweep_types(sums, &total, m, nm);
	qsort(sums, 8, sizeof(sums[0]), cmp_label);
	for (int k = 0; k < 8; k++) {
		if (sums[k].mask == 0 || sums[k].ns <= 0)
			continue;
		char label[128] = "";
		for (int b = 0; b < 3; b++)
			if (sums[k].mask & (1u << b)) {
				if (label[0])
					strcat(label, " overlapping ");
				strcat(label, tg_kernel_class_name(types[b]));
			}
		int64_t r = tg_table_add_row(t);
		if (r < 0 || tg_table_set_str(t, (size_t)r, 0, label))
			goto fail;
		tg_table_set_num(t, (size_t)r, 1, us(sums[k].ns));
		tg_table_set_num(t, (size_t)r, 2, pct(sums[k].ns, total));
	}
	for (int k = 0; k < 3; k++)
		free(m[k]);
	return t;
fail:
	for (int k = 0; k < 3; k++)
		free(m[k]);
	tg_table_free(t);
	return NULL;
}

struct kstat {
	uint8_t type;
	uint32_t name;
	uint64_t count;
	int64_t sum, min, max;
	double m2; /* sum of squared deviations */
	const char *str;
};

static int cmp_type_name(const void *a, const void *b)
{
	const struct dev *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

static int cmp_kstat(const void *a, const void *b)
{
	const struct kstat *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return strcmp(x->str, y->str);
}

/* Sorts d by (type, name). */
static tg_table *distribution_table(struct devs *d, const tg_trace *tr)
{
	static const char *const cols[] = {"kernel_type", "name", "count", "sum(us)", "mean(us)",
	                                   "min(us)", "max(us)", "std(us)", NULL};
	tg_table *t = tg_table_new_cols("kernel_duration_distribution", "Kernel duration distribution", cols);
	struct kstat *ks = NULL; /* one per kernel name: grown, not one per event */
	size_t nk = 0, capk = 0;
	if (!t)
		goto fail;
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), cmp_type_name);
	for (size_t i = 0; i < d->n;) {
		size_t j = i;
		struct kstat s = {d->v[i].type, d->v[i].name, 0, 0, INT64_MAX, INT64_MIN, 0,
		                  tg_trace_str(tr, d->v[i].name)};
		for (; j < d->n && d->v[j].type == s.type && d->v[j].name == s.name; j++) {
			int64_t dur = d->v[j].end - d->v[j].ts;
			s.count++;
			s.sum += dur;
			s.min = dur < s.min ? dur : s.min;
			s.max = dur > s.max ? dur : s.max;
		}
		double mean = (double)s.sum / (double)s.count;
		for (size_t k = i; k < j; k++) {
			double dv = (double)(d->v[k].end - d->v[k].ts) - mean;
			s.m2 += dv * dv;
		}
		if (tg_grow((void **)&ks, &capk, nk + 1, sizeof(*ks)))
			goto fail;
		ks[nk++] = s;
		i = j;
	}
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
	struct devs d;
	int rc = collect(&d, tree, step);
	if (rc)
		return rc;
	const tg_trace *tr = tg_tree_trace(tree);
	enum { NT = 5 };
	tg_table **tabs = tg_calloc(NT, sizeof(*tabs));
	tg_temporal tp;
	rc = TG_ENOMEM;
	if (!tabs || temporal_of(&tp, &d))
		goto fail;
	/* idle_table and distribution_table reorder d: they come last */
	if (!(tabs[0] = temporal_table(&tp, tr)) || !(tabs[2] = overlap_table(&tp, tr)) ||
	    !(tabs[3] = kernel_type_table(&d)) ||
	    !(tabs[1] = idle_table(&d, TG_BREAKDOWN_KERNEL_DELAY_NS)) ||
	    !(tabs[4] = distribution_table(&d, tr)))
		goto fail;
	free(d.v);
	*out = tabs;
	*n = NT;
	return 0;
fail:
	tg_tables_free(tabs, NT);
	free(d.v);
	return tg_error_set(rc, "breakdown: out of memory");
}
