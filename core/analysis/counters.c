/*
 * counters.c - the queue length and memory bandwidth time series of
 * counters.h: the changes of every series in one array, sorted by (series
 * key, time), then summed into one point per distinct time.
 */
#include "counters.h"
#include "../trace/kernel_class.h"
#include "launch_stats.h"
#include "../../util/sort.h"
#include "../../util/tg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_US INT64_C(1000)

struct tg_counters {
	tg_counter_series *s;
	size_t ns, caps;
	tg_counter_point *p;
	size_t np, capp;
};

/* One change of a series. */
struct change {
	int64_t device, stream; /* stream: the memory kind's index for a bandwidth */
	int64_t t;
	double delta;
	uint32_t ev;
};

struct changes {
	struct change *v;
	size_t n, cap;
};

static int add_change(struct changes *c, int64_t device, int64_t stream, int64_t t, double delta, uint32_t ev)
{
	if (tg_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return TG_ENOMEM;
	c->v[c->n++] = (struct change){device, stream, t, delta, ev};
	return 0;
}

/* By (device, stream, time), increases first at equal times (a launch
 * before the start of the kernel at the same time; for a bandwidth the
 * order does not change the value left at that time). */
static uint64_t change_key(const void *el, int level, void *ctx)
{
	(void)ctx;
	const struct change *x = el;
	switch (level) {
	case 0: return tg_sort_key_i64(x->device);
	case 1: return tg_sort_key_i64(x->stream);
	case 2: return tg_sort_key_i64(x->t);
	default: return x->delta > 0 ? 0 : 1;
	}
}

/* The series of the sorted changes c, named by name_of, into out. */
static int sum_series(tg_counters *out, const struct changes *c, tg_counter_kind kind, const tg_trace *t,
                      const char (*kinds)[16])
{
	const tg_event *ev = tg_trace_events(t, &(size_t){0});
	for (size_t i = 0; i < c->n;) {
		if (tg_grow((void **)&out->s, &out->caps, out->ns + 1, sizeof(*out->s)))
			return TG_ENOMEM;
		tg_counter_series *s = &out->s[out->ns++];
		memset(s, 0, sizeof(*s));
		s->kind = kind;
		strcpy(s->name, kind == TG_COUNTER_QUEUE ? "Queue Length" : kinds[c->v[i].stream]);
		s->device = c->v[i].device;
		s->stream = kind == TG_COUNTER_QUEUE ? c->v[i].stream : -1;
		s->track = ev[c->v[i].ev].track;
		s->first = out->np;
		double v = 0;
		size_t j = i;
		for (; j < c->n && c->v[j].device == c->v[i].device && c->v[j].stream == c->v[i].stream; j++) {
			v += c->v[j].delta;
			if (fabs(v) < 1e-9)
				v = 0; /* what a sum of GB/s leaves of its additions and removals */
			if (j + 1 < c->n && c->v[j + 1].t == c->v[j].t && c->v[j + 1].device == c->v[j].device &&
			    c->v[j + 1].stream == c->v[j].stream)
				continue;
			if (tg_grow((void **)&out->p, &out->capp, out->np + 1, sizeof(*out->p)))
				return TG_ENOMEM;
			out->p[out->np++] = (tg_counter_point){c->v[j].t, v};
			if (v > s->max)
				s->max = v;
		}
		s->n = out->np - s->first;
		i = j;
	}
	return 0;
}

/* +1 at each launch's start, -1 at its device event's start. */
static int queue_changes(struct changes *c, const tg_tree *tree)
{
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind))
			continue;
		uint32_t l = tg_tree_launch(tree, (uint32_t)i);
		if (l == TG_NONE)
			continue;
		int64_t d = tg_kernel_device(t, &ev[i]), s = tg_kernel_stream(t, &ev[i]);
		if (add_change(c, d, s, ev[l].ts, 1, (uint32_t)i) || add_change(c, d, s, ev[i].ts, -1, (uint32_t)i))
			return TG_ENOMEM;
	}
	return 0;
}

/* The GB/s of a memory event: its own figure, else bytes / duration; NAN
 * when neither is known. */
static double gbps_of(const tg_trace *t, const tg_event *e, uint32_t k_bw, uint32_t k_bytes)
{
	const tg_arg *a = k_bw == TG_NONE ? NULL : tg_event_arg(t, e, k_bw);
	if (a && a->type == TG_ARG_DOUBLE && isfinite(a->v.d) && a->v.d >= 0)
		return a->v.d;
	int64_t v;
	if (a && (a->type == TG_ARG_INT || a->type == TG_ARG_UINT) && !tg_arg_int(t, a, &v) && v >= 0)
		return (double)v;
	a = k_bytes == TG_NONE ? NULL : tg_event_arg(t, e, k_bytes);
	if (a && !tg_arg_int(t, a, &v) && v >= 0 && tg_event_dur(t, e) > 0)
		return (double)v / (double)tg_event_dur(t, e); /* bytes per ns = GB/s */
	return NAN;
}

/* + the GB/s at each memory event's start, - at its end; the memory kinds
 * into kinds (*nk of them, their index is the change's stream). */
static int bandwidth_changes(struct changes *c, char (*kinds)[16], size_t *nk, const tg_tree *tree)
{
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	uint32_t k_bw = tg_trace_key(t, "memory bandwidth (GB/s)"), k_bytes = tg_trace_key(t, "bytes");
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!tg_kind_is_gpu(e->kind) || tg_kernel_class_of(t, e) != TG_KERNEL_MEMORY)
			continue;
		double g = gbps_of(t, e, k_bw, k_bytes);
		if (isnan(g))
			continue;
		char kn[16];
		tg_launch_memory_kind(kn, tg_trace_str(t, e->name), e->kind);
		size_t k = 0;
		while (k < *nk && strcmp(kinds[k], kn))
			k++;
		if (k == *nk) {
			if (*nk == 64)
				continue; /* cannot happen: a kind is 11 characters of "Memcpy ..." */
			strcpy(kinds[(*nk)++], kn);
		}
		int64_t d = tg_kernel_device(t, e), dur = tg_event_dur(t, e) > 0 ? tg_event_dur(t, e) : NS_PER_US;
		if (add_change(c, d, (int64_t)k, e->ts, g, (uint32_t)i) ||
		    add_change(c, d, (int64_t)k, e->ts + dur, -g, (uint32_t)i))
			return TG_ENOMEM;
	}
	return 0;
}

int tg_counters_build(tg_counters **out, const tg_tree *tree)
{
	*out = NULL;
	tg_counters *c = calloc(1, sizeof(*c));
	struct changes q = {0}, b = {0};
	char kinds[64][16];
	size_t nk = 0;
	const tg_trace *t = tg_tree_trace(tree);
	int rc = c ? 0 : TG_ENOMEM;
	if (!rc)
		rc = queue_changes(&q, tree);
	if (!rc)
		rc = tg_sort_by_keys(q.v, q.n, sizeof(*q.v), 4, change_key, NULL);
	if (!rc)
		rc = sum_series(c, &q, TG_COUNTER_QUEUE, t, NULL);
	if (!rc)
		rc = bandwidth_changes(&b, kinds, &nk, tree);
	if (!rc)
		rc = tg_sort_by_keys(b.v, b.n, sizeof(*b.v), 3, change_key, NULL);
	if (!rc)
		rc = sum_series(c, &b, TG_COUNTER_BANDWIDTH, t, (const char(*)[16])kinds);
	free(q.v);
	free(b.v);
	if (rc) {
		tg_counters_free(c);
		return tg_error_set(TG_ENOMEM, "out of memory building the counters");
	}
	*out = c;
	return 0;
}

const tg_counter_series *tg_counters_series(const tg_counters *c, size_t *n)
{
	*n = c->ns;
	return c->s;
}

const tg_counter_point *tg_counters_points(const tg_counters *c, size_t *n)
{
	*n = c->np;
	return c->p;
}

void tg_counters_free(tg_counters *c)
{
	if (!c)
		return;
	free(c->s);
	free(c->p);
	free(c);
}
