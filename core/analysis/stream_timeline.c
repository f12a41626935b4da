/*
 * stream_timeline.c - each GPU stream's busy time in bins (stream_timeline.h).
 * Two passes over the device events: the span and the streams, then each
 * event's time spread over the bins it covers (a long kernel touches few
 * bins, a short one one), so the cost is the events plus the bins filled.
 */
#include "stream_timeline.h"
#include "../trace/kernel_class.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

/* Whether device event i counts, as the GPU timeline decides. */
static int counted(const tg_tree *tree, const tg_event *e, uint32_t i, int32_t step, int include_unlinked)
{
	if (!tg_kind_is_gpu(e->kind))
		return 0;
	if (step >= 0 && tg_tree_step_of(tree, i) != step)
		return 0;
	return include_unlinked || tg_tree_launch(tree, i) != TG_NONE;
}

static tg_stream_kind kind_of(const tg_trace *t, const tg_event *e)
{
	uint8_t nf = tg_trace_name_flags(t, e->name);
	if (e->kind == TG_KIND_MEMCPY || (e->kind == TG_KIND_KERNEL && (nf & TG_NAME_COPY)))
		return TG_STREAM_MEMCPY;
	return nf & TG_NAME_COMM ? TG_STREAM_COMM : TG_STREAM_COMPUTE;
}

static int cmp_row(const void *a, const void *b)
{
	const tg_stream_row *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->stream > y->stream) - (x->stream < y->stream);
}

/* The row of (device, stream), added when new; NULL when out of memory.
 * *hint is the row found last: events of one stream come in runs. */
static tg_stream_row *row_of(tg_stream_timeline *s, size_t *cap, size_t *hint, int64_t device, int64_t stream)
{
	if (*hint < s->nrows && s->rows[*hint].device == device && s->rows[*hint].stream == stream)
		return &s->rows[*hint];
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].device == device && s->rows[i].stream == stream) {
			*hint = i;
			return &s->rows[i];
		}
	*hint = s->nrows;
	if (tg_grow((void **)&s->rows, cap, s->nrows + 1, sizeof(tg_stream_row)))
		return NULL;
	tg_stream_row *r = &s->rows[s->nrows++];
	memset(r, 0, sizeof(*r));
	r->device = device;
	r->stream = stream;
	return r;
}

/* Spreads [a, b) (ns from the start) of kind k over r's bins. */
static void spread(tg_stream_row *r, const tg_stream_timeline *s, double a, double b, tg_stream_kind k)
{
	if (!(s->bin_ns > 0) || b <= a)
		return;
	size_t first = (size_t)(a / s->bin_ns), last = (size_t)(b / s->bin_ns);
	if (last >= TG_STREAM_BINS)
		last = TG_STREAM_BINS - 1;
	for (size_t i = first; i <= last && i < TG_STREAM_BINS; i++) {
		double lo = (double)i * s->bin_ns, hi = lo + s->bin_ns;
		double from = a > lo ? a : lo, to = b < hi ? b : hi;
		if (i == last && b > hi)
			to = b; /* the end of the timeline falls in the last bin */
		if (to > from)
			r->bins[i][k] += (float)(to - from);
	}
}

int tg_stream_timeline_build(tg_stream_timeline **out, const tg_tree *tree, int32_t step, int include_unlinked)
{
	*out = NULL;
	tg_stream_timeline *s = tg_calloc(1, sizeof(*s));
	if (!s)
		return TG_ENOMEM;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne, cap = 0, hint = 0;
	const tg_event *ev = tg_trace_events(t, &ne);
	int64_t first = 0, last = 0;
	int any = 0;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!counted(tree, e, (uint32_t)i, step, include_unlinked))
			continue;
		if (!any || e->ts < first)
			first = e->ts;
		if (!any || tg_event_end(t, e) > last)
			last = tg_event_end(t, e);
		any = 1;
		if (!row_of(s, &cap, &hint, tg_kernel_device(t, e), tg_kernel_stream(t, e))) {
			tg_stream_timeline_free(s);
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
	}
	s->start_ns = first;
	s->span_ns = (double)(last - first);
	s->bin_ns = s->span_ns / TG_STREAM_BINS;
	for (size_t i = 0; any && i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!counted(tree, e, (uint32_t)i, step, include_unlinked))
			continue;
		tg_stream_row *r = row_of(s, &cap, &hint, tg_kernel_device(t, e), tg_kernel_stream(t, e));
		double a = (double)(e->ts - first);
		r->events++;
		r->busy_ns += (double)tg_event_dur(t, e);
		spread(r, s, a, a + (double)tg_event_dur(t, e), kind_of(t, e));
	}
	if (s->nrows > 1) /* (qsort takes no NULL, even for nothing) */
		qsort(s->rows, s->nrows, sizeof(tg_stream_row), cmp_row);
	*out = s;
	return 0;
}

void tg_stream_timeline_free(tg_stream_timeline *s)
{
	if (!s)
		return;
	free(s->rows);
	free(s);
}
