/*
 * findings_ctx.c - the context of one trace's findings and the list they
 * go into (findings_impl.h): the analysed windows (the host spans of the
 * selected ProfilerSteps; a trace without steps is one window from its
 * first event to its last end), the device's busy intervals (every
 * kernel, memcpy and memset of the trace, all streams and devices pooled
 * as TraceLens's GPU timeline pools them), and the helpers that turn a
 * measured time into a cost per step.
 */
#include "findings_impl.h"
#include "../../util/big.h"
#include "../../util/sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_interval(const void *a, const void *b)
{
	const tg_interval *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

size_t tg_fctx_merge(tg_interval *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_interval);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && v[i].start <= v[m - 1].end) {
			if (v[i].end > v[m - 1].end)
				v[m - 1].end = v[i].end;
		} else {
			v[m++] = v[i];
		}
	}
	return m;
}

int64_t tg_fctx_overlap(const tg_interval *v, size_t n, int64_t a, int64_t b)
{
	if (b <= a || !n)
		return 0;
	size_t lo = 0, hi = n; /* first interval ending after a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t sum = 0;
	for (size_t i = lo; i < n && v[i].start < b; i++) {
		int64_t s = v[i].start > a ? v[i].start : a, e = v[i].end < b ? v[i].end : b;
		if (e > s)
			sum += e - s;
	}
	return sum;
}

/* The union of the device events c->dev (by start) into c->busy, sized to
 * the intervals it holds: a sweep in start order merges them as
 * tg_fctx_merge does, without its copy and its sort's scratch. */
static int busy_union(tg_fctx *c)
{
	size_t nb = 0;
	int64_t end = INT64_MIN;
	for (size_t i = 0; i < c->ndev; i++) { /* count */
		const tg_event *e = &c->ev[c->dev[i]];
		if (!nb || e->ts > end) {
			nb++;
			end = tg_event_end(c->t, e);
		} else if (tg_event_end(c->t, e) > end) {
			end = tg_event_end(c->t, e);
		}
	}
	c->busy = tg_big_alloc((nb ? nb : 1) * sizeof(*c->busy)); /* a mapping from 4 MiB: given back when dropped */
	if (!c->busy)
		return TG_ENOMEM;
	for (size_t i = 0; i < c->ndev; i++) { /* fill */
		const tg_event *e = &c->ev[c->dev[i]];
		int64_t b = tg_event_end(c->t, e);
		if (c->nbusy && e->ts <= c->busy[c->nbusy - 1].end) {
			if (b > c->busy[c->nbusy - 1].end)
				c->busy[c->nbusy - 1].end = b;
		} else {
			c->busy[c->nbusy++] = (tg_interval){e->ts, b};
		}
	}
	return 0;
}

/* c->dev (in event order) stably sorted by start. The pairs and the
 * sort's scratch are 32 bytes a device event (14.5 MB at a gigabyte of
 * JSON, the findings' peak), so a list already in start order, as a
 * single-stream trace's device events are in the file, is left as it is:
 * the stable sort would not move it. 0 or TG_ENOMEM. */
static int sort_by_start(tg_fctx *c)
{
	size_t i = 1;
	while (i < c->ndev && c->ev[c->dev[i - 1]].ts <= c->ev[c->dev[i]].ts)
		i++;
	if (i >= c->ndev)
		return 0;
	tg_sort_pair *kv = tg_malloc(c->ndev * sizeof(*kv));
	if (!kv)
		return TG_ENOMEM;
	for (i = 0; i < c->ndev; i++)
		kv[i] = (tg_sort_pair){tg_sort_key_i64(c->ev[c->dev[i]].ts), (uint32_t)i};
	int rc = tg_sort_pairs(kv, c->ndev);
	if (!rc)
		rc = tg_sort_apply(c->dev, c->ndev, sizeof(*c->dev), kv);
	free(kv);
	return rc;
}

/* The median duration (ns) of the selected kernels (launch 0) or of their
 * launch calls (launch 1) into *out, NAN where there are none: one list at
 * a time (selection, not a sort: at 1 GB these are a million kernels).
 * 0 or TG_ENOMEM. */
static int median_of(double *out, const tg_fctx *c, int launch)
{
	int64_t *v = tg_malloc((c->ndev ? c->ndev : 1) * sizeof(*v));
	size_t n = 0;
	if (!v)
		return TG_ENOMEM;
	for (size_t i = 0; i < c->ndev; i++) {
		uint32_t d = c->dev[i];
		if (c->ev[d].kind != TG_KIND_KERNEL || !tg_fctx_selected(c, d))
			continue;
		uint32_t x = launch ? tg_tree_launch(c->tree, d) : d;
		if (x != TG_NONE)
			v[n++] = tg_event_dur(c->t, &c->ev[x]);
	}
	*out = tg_median_i64(v, n);
	free(v);
	return 0;
}

/* The median durations (ns) of the selected kernels and of their launch
 * calls (NAN where there are none) for the launch-bound family, when it
 * runs: made before the busy intervals, so that their list, 8 bytes a
 * device event, is not held beside the busy intervals' 16 bytes an
 * interval (the findings' peak: 1.28 -> 0.92 MB at 100 MB of JSON). 0 or
 * TG_ENOMEM. */
static int medians(tg_fctx *c, int gaps)
{
	c->median_kernel_ns = c->median_launch_ns = NAN;
	if (!gaps || !tg_fctx_limits(c, TG_FINDING_LAUNCH_BOUND)->enabled || !c->nhost || !c->ndev)
		return 0;
	return median_of(&c->median_kernel_ns, c, 0) || median_of(&c->median_launch_ns, c, 1) ? TG_ENOMEM : 0;
}

/* The device events by start (4 bytes each), the launch-bound family's
 * medians (with gaps) and the device events' merged busy intervals; the
 * host event count. */
static int device_events(tg_fctx *c, int gaps)
{
	size_t nd = 0;
	for (size_t i = 0; i < c->ne; i++) {
		if (tg_kind_is_gpu(c->ev[i].kind))
			nd++;
		else if (c->ev[i].kind == TG_KIND_CPU_OP || c->ev[i].kind == TG_KIND_PYTHON ||
		         tg_kind_is_launch(c->ev[i].kind))
			c->nhost++;
	}
	c->dev = tg_malloc((nd ? nd : 1) * sizeof(*c->dev));
	int rc = c->dev ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < c->ne; i++)
		if (tg_kind_is_gpu(c->ev[i].kind))
			c->dev[c->ndev++] = (uint32_t)i;
	if (!rc)
		rc = sort_by_start(c);
	if (!rc)
		rc = medians(c, gaps);
	if (!rc)
		rc = busy_union(c);
	return rc ? tg_error_set(TG_ENOMEM, "findings: out of memory") : 0;
}

/* The analysed windows: the selected steps' spans, or the trace's span. */
static int windows(tg_fctx *c)
{
	size_t ns;
	const tg_step *st = tg_tree_steps(c->tree, &ns);
	c->has_steps = ns > 0;
	if (c->step >= 0 && (size_t)c->step >= ns)
		return tg_error_set(TG_EINVAL, "findings: no step %d (%zu steps)", (int)c->step, ns);
	c->win = tg_malloc((ns ? ns : 1) * sizeof(*c->win));
	if (!c->win)
		return TG_ENOMEM;
	if (ns) {
		for (size_t s = 0; s < ns; s++)
			if (c->step < 0 || (size_t)c->step == s)
				c->win[c->nwin++] = (tg_interval){st[s].ts, st[s].ts + st[s].dur};
		c->nsteps = c->nwin;
	} else {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (size_t i = 0; i < c->ne; i++) {
			const tg_event *e = &c->ev[i];
			if (!tg_tree_contains(c->tree, (uint32_t)i) || (e->flags & TG_EV_INSTANT))
				continue;
			lo = e->ts < lo ? e->ts : lo;
			hi = tg_event_end(c->t, e) > hi ? tg_event_end(c->t, e) : hi;
		}
		if (lo < hi)
			c->win[c->nwin++] = (tg_interval){lo, hi};
		c->nsteps = 1;
	}
	c->nwin = tg_fctx_merge(c->win, c->nwin);
	for (size_t i = 0; i < c->nwin; i++)
		c->win_ns += c->win[i].end - c->win[i].start;
	c->step_ns = (double)c->win_ns / (double)c->nsteps;
	return 0;
}

int tg_fctx_init(tg_fctx *c, const tg_tree *tree, const tg_findings_opts *opts, int32_t step, tg_findings *out,
                 int gaps)
{
	memset(c, 0, sizeof(*c));
	c->tree = tree;
	c->t = tg_tree_trace(tree);
	c->ev = tg_trace_events(c->t, &c->ne);
	c->o = opts;
	c->step = step < 0 ? -1 : step;
	c->rank = tg_trace_rank(c->t);
	c->out = out;
	int rc = windows(c);
	if (!rc)
		rc = device_events(c, gaps);
	if (!rc) {
		out->nsteps = c->nsteps;
		out->step_ns = c->step_ns;
	}
	return rc;
}

void tg_fctx_free(tg_fctx *c)
{
	free(c->win);
	tg_big_free(c->busy);
	free(c->dev);
	free(c->expl);
	memset(c, 0, sizeof(*c));
}

void tg_fctx_drop_busy(tg_fctx *c)
{
	tg_big_free(c->busy);
	c->busy = NULL;
	c->nbusy = 0;
}

int tg_fctx_selected(const tg_fctx *c, uint32_t ev)
{
	if (!c->has_steps)
		return 1;
	int32_t s = tg_tree_step_of(c->tree, ev);
	return c->step < 0 ? s >= 0 : s == c->step;
}

int64_t tg_fctx_busy_in(const tg_fctx *c, int64_t a, int64_t b)
{
	return tg_fctx_overlap(c->busy, c->nbusy, a, b);
}

int64_t tg_fctx_idle_in(const tg_fctx *c, int64_t a, int64_t b)
{
	return b > a ? (b - a) - tg_fctx_overlap(c->busy, c->nbusy, a, b) : 0;
}

int64_t tg_fctx_in_windows(const tg_fctx *c, int64_t a, int64_t b)
{
	return tg_fctx_overlap(c->win, c->nwin, a, b);
}

uint32_t tg_fctx_next_device(const tg_fctx *c, int64_t ts)
{
	size_t lo = 0, hi = c->ndev;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ev[c->dev[mid]].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ndev ? c->dev[lo] : TG_NONE;
}

int tg_fctx_explain(tg_fctx *c, int64_t a, int64_t b)
{
	if (b <= a)
		return 0;
	if (tg_grow((void **)&c->expl, &c->capexpl, c->nexpl + 1, sizeof(*c->expl)))
		return TG_ENOMEM;
	c->expl[c->nexpl++] = (tg_interval){a, b};
	return 0;
}

void tg_fctx_explained_done(tg_fctx *c)
{
	c->nexpl = tg_fctx_merge(c->expl, c->nexpl);
}

int64_t tg_fctx_explained_in(const tg_fctx *c, int64_t a, int64_t b)
{
	return tg_fctx_overlap(c->expl, c->nexpl, a, b);
}

const tg_finding_limits *tg_fctx_limits(const tg_fctx *c, tg_finding_id id)
{
	return &c->o->limits[id];
}

tg_finding *tg_findings_push(tg_findings *l, tg_finding_id id)
{
	if (tg_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return NULL;
	tg_finding *f = &l->v[l->n++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->status = TG_FINDING_OK;
	f->rank = -1;
	f->cost_ns = f->cost_pct = NAN;
	f->step_ns = l->step_ns;
	return f;
}

tg_finding *tg_fctx_add(tg_fctx *c, tg_finding_id id)
{
	tg_finding *f = tg_findings_push(c->out, id);
	if (!f)
		return NULL;
	f->rank = c->rank;
	f->step_ns = c->step_ns;
	f->threshold = c->o->limits[id].min_cost;
	return f;
}

int tg_fctx_not_evaluated(tg_fctx *c, tg_finding_id id, const char *fmt, ...)
{
	tg_finding *f = tg_fctx_add(c, id);
	if (!f)
		return TG_ENOMEM;
	f->status = TG_FINDING_NOT_EVALUATED;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->evidence, sizeof(f->evidence), fmt, ap);
	va_end(ap);
	return 0;
}

void tg_fctx_cost(tg_finding *f, const tg_fctx *c, double total_ns, const char *basis)
{
	f->cost_ns = total_ns / (double)(c->nsteps ? c->nsteps : 1);
	f->cost_pct = c->step_ns > 0 ? 100 * f->cost_ns / c->step_ns : NAN;
	f->status =
		!isnan(f->cost_pct) && f->cost_pct >= f->threshold && f->cost_ns > 0 ? TG_FINDING_FIRED : TG_FINDING_OK;
	snprintf(f->basis, sizeof(f->basis), "%s", basis ? basis : "");
}

static int rank_of(tg_finding_status s)
{
	return s == TG_FINDING_FIRED ? 0 : s == TG_FINDING_NOT_EVALUATED ? 1 : 2;
}

static int cmp_finding(const void *a, const void *b)
{
	const tg_finding *x = a, *y = b;
	int rx = rank_of(x->status), ry = rank_of(y->status);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->status == TG_FINDING_FIRED) {
		double cx = isnan(x->cost_ns) ? -1 : x->cost_ns, cy = isnan(y->cost_ns) ? -1 : y->cost_ns;
		if (cx != cy)
			return cx > cy ? -1 : 1;
	}
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	int k = strcmp(x->key, y->key);
	return k ? k : strcmp(x->subject, y->subject);
}

void tg_findings_sort(tg_findings *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_finding);
}

int tg_findings_adopt(tg_findings **out, tg_finding *v, size_t n, size_t nsteps, double step_ns)
{
	*out = NULL;
	tg_findings *l = tg_calloc(1, sizeof(*l));
	if (!l) {
		free(v);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	l->v = v;
	l->n = l->cap = n;
	l->nsteps = nsteps;
	l->step_ns = step_ns;
	*out = l;
	return 0;
}
