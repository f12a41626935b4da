/*
 * findings_gaps.c - the findings of the GPU's idle time (findings.h):
 * launch-bound, idle-gap and first-step-slow.
 *
 * The gaps are the complement of the device's busy intervals inside the
 * analysed windows (every stream and device pooled: the GPU is idle when
 * nothing runs). A gap the host family explains (a host sync's window, a
 * DataLoader __next__: findings_host.c) for at least half of its length is
 * left to that finding. Of the others:
 *
 *   launch-bound  gaps up to `param` (200 us) before a device event whose
 *                 launch call started after the gap began: the GPU ran out
 *                 of work and waited for the host to launch the next
 *                 kernel (HTA's host_wait idle category, short gaps only)
 *   idle-gap      gaps of at least `param` (1 ms), whatever their cause;
 *                 the evidence names what the host ran in the longest one
 *   first-step-slow  the first analysed step against the median of the
 *                 others (at least three steps)
 */
#include "findings_impl.h"
#include "describe.h"
#include "../../util/sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gaps {
	double launch_ns, idle_ns; /* unexplained time in each kind */
	size_t nlaunch, nidle;
	int64_t long_a, long_b;  /* the longest idle gap */
	int64_t first_a, last_b; /* span of the counted gaps */
};

/* Classifies the gap [a, b) of window [ws, we). */
static void one_gap(struct gaps *g, const tg_fctx *c, int64_t a, int64_t b)
{
	int64_t len = b - a, expl = tg_fctx_explained_in(c, a, b);
	if (len <= 0 || 2 * expl >= len)
		return;
	double u = (double)(len - expl);
	int64_t max_launch = (int64_t)tg_fctx_limits(c, TG_FINDING_LAUNCH_BOUND)->param;
	int64_t min_idle = (int64_t)tg_fctx_limits(c, TG_FINDING_IDLE_GAP)->param;
	if (len >= min_idle) {
		g->idle_ns += u;
		g->nidle++;
		if (len > g->long_b - g->long_a) {
			g->long_a = a;
			g->long_b = b;
		}
		return;
	}
	if (len > max_launch)
		return;
	uint32_t nx = tg_fctx_next_device(c, b);
	uint32_t launch = nx != TG_NONE ? tg_tree_launch(c->tree, nx) : TG_NONE;
	if (launch == TG_NONE || c->ev[launch].ts < a)
		return; /* queued before the GPU ran dry: it waited on something else */
	g->launch_ns += u;
	g->nlaunch++;
	if (!g->first_a || a < g->first_a)
		g->first_a = a;
	if (b > g->last_b)
		g->last_b = b;
}

static void all_gaps(struct gaps *g, const tg_fctx *c)
{
	memset(g, 0, sizeof(*g));
	for (size_t w = 0; w < c->nwin; w++) {
		int64_t ws = c->win[w].start, we = c->win[w].end, at = ws;
		/* busy intervals overlapping the window, by binary search */
		size_t lo = 0, hi = c->nbusy;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (c->busy[mid].end <= ws)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < c->nbusy && c->busy[i].start < we; i++) {
			if (c->busy[i].start > at)
				one_gap(g, c, at, c->busy[i].start);
			if (c->busy[i].end > at)
				at = c->busy[i].end;
		}
		if (at < we)
			one_gap(g, c, at, we);
	}
}

static int launch_bound(tg_fctx *c, const struct gaps *g)
{
	const tg_finding_limits *lim = tg_fctx_limits(c, TG_FINDING_LAUNCH_BOUND);
	if (!lim->enabled)
		return 0;
	if (!c->nhost)
		return tg_fctx_not_evaluated(c, TG_FINDING_LAUNCH_BOUND, "no CPU side in the trace (no launch calls)");
	if (!c->ndev)
		return tg_fctx_not_evaluated(c, TG_FINDING_LAUNCH_BOUND, "no device events in the trace");
	double mk = c->median_kernel_ns, ml = c->median_launch_ns; /* (tg_fctx_init's) */
	tg_finding *f = tg_fctx_add(c, TG_FINDING_LAUNCH_BOUND);
	if (!f)
		return TG_ENOMEM;
	f->count = (double)g->nlaunch / (double)c->nsteps;
	f->start_ns = g->first_a;
	f->end_ns = g->last_b;
	tg_fctx_cost(f, c, g->launch_ns,
	             "GPU idle in gaps up to the limit before a kernel launched after the GPU ran dry");
	double busy = 0;
	for (size_t w = 0; w < c->nwin; w++)
		busy += (double)tg_fctx_busy_in(c, c->win[w].start, c->win[w].end);
	char cost[32], lim_s[32], k[32], l[32];
	tg_fstr_time(cost, sizeof(cost), f->cost_ns);
	tg_fstr_time(lim_s, sizeof(lim_s), lim->param);
	tg_fstr_time(k, sizeof(k), mk);
	tg_fstr_time(l, sizeof(l), ml);
	snprintf(f->evidence, sizeof(f->evidence),
	         "%.4g gaps a step of at most %s where the GPU waited for the host to launch the next kernel: "
	         "%s a step; the GPU was busy %.1f %% of the step; median kernel %s, median launch call %s",
	         f->count, lim_s, cost, c->win_ns > 0 ? 100 * busy / (double)c->win_ns : 0.0, k, l);
	return 0;
}

/* What the host ran at time ts: the deepest cpu op or annotation and the
 * deepest Python source frame active then, into buf. */
static void host_at(char *buf, size_t cap, const tg_fctx *c, int64_t ts)
{
	uint32_t op = TG_NONE, frame = TG_NONE;
	int dop = -1, dframe = -1;
	for (size_t i = 0; i < c->ne; i++) {
		const tg_event *e = &c->ev[i];
		if (e->ts > ts || tg_event_end(c->t, e) <= ts)
			continue;
		int isop = e->kind == TG_KIND_CPU_OP || e->kind == TG_KIND_USER_ANNOTATION;
		const char *name = tg_trace_str(c->t, e->name);
		int isframe = e->kind == TG_KIND_PYTHON && name[0] != '<' && strstr(name, ".py(");
		if ((!isop && !isframe) || !strncmp(name, "ProfilerStep#", 13))
			continue;
		int d = 0;
		for (uint32_t p = tg_tree_parent(c->tree, (uint32_t)i); p != TG_NONE && d < 512;
		     p = tg_tree_parent(c->tree, p))
			d++;
		if (isop && d > dop) {
			dop = d;
			op = (uint32_t)i;
		} else if (isframe && d > dframe) {
			dframe = d;
			frame = (uint32_t)i;
		}
	}
	if (op == TG_NONE && frame == TG_NONE)
		snprintf(buf, cap, "no host op running");
	else if (op == TG_NONE || frame == TG_NONE)
		snprintf(buf, cap, "in %s", tg_trace_str(c->t, c->ev[op != TG_NONE ? op : frame].name));
	else
		snprintf(buf, cap, "in %s (%s)", tg_trace_str(c->t, c->ev[op].name),
		         tg_trace_str(c->t, c->ev[frame].name));
}

static int idle_gap(tg_fctx *c, const struct gaps *g)
{
	const tg_finding_limits *lim = tg_fctx_limits(c, TG_FINDING_IDLE_GAP);
	if (!lim->enabled)
		return 0;
	if (!c->ndev)
		return tg_fctx_not_evaluated(c, TG_FINDING_IDLE_GAP, "no device events in the trace");
	tg_finding *f = tg_fctx_add(c, TG_FINDING_IDLE_GAP);
	if (!f)
		return TG_ENOMEM;
	f->count = (double)g->nidle / (double)c->nsteps;
	tg_fctx_cost(f, c, g->idle_ns,
	             "GPU idle in gaps of at least the limit that no host sync or DataLoader explains");
	char cost[32], lim_s[32];
	tg_fstr_time(cost, sizeof(cost), f->cost_ns);
	tg_fstr_time(lim_s, sizeof(lim_s), lim->param);
	snprintf(f->evidence, sizeof(f->evidence), "%.3g gaps a step of %s or more with the GPU idle: %s a step",
	         f->count, lim_s, cost);
	if (g->nidle) {
		f->start_ns = g->long_a;
		f->end_ns = g->long_b;
		char len[32], what[384];
		tg_fstr_time(len, sizeof(len), (double)(g->long_b - g->long_a));
		host_at(what, sizeof(what), c, g->long_a + (g->long_b - g->long_a) / 2);
		tg_fstr_add(f->evidence, sizeof(f->evidence), "; the longest, %s, %s", len, what);
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int first_step(tg_fctx *c)
{
	const tg_finding_limits *lim = tg_fctx_limits(c, TG_FINDING_FIRST_STEP_SLOW);
	if (!lim->enabled)
		return 0;
	size_t ns;
	const tg_step *st = tg_tree_steps(c->tree, &ns);
	if (!ns)
		return tg_fctx_not_evaluated(c, TG_FINDING_FIRST_STEP_SLOW, "no ProfilerStep in the trace");
	if (c->step >= 0)
		return tg_fctx_not_evaluated(c, TG_FINDING_FIRST_STEP_SLOW, "one step selected");
	if (ns < 3)
		return tg_fctx_not_evaluated(c, TG_FINDING_FIRST_STEP_SLOW, "%zu step%s, 3 needed", ns,
		                             ns == 1 ? "" : "s");
	int64_t *d = tg_malloc((ns - 1) * sizeof(*d));
	if (!d)
		return TG_ENOMEM;
	for (size_t s = 1; s < ns; s++)
		d[s - 1] = st[s].dur;
	qsort(d, ns - 1, sizeof(*d), cmp_i64);
	size_t m = ns - 1;
	double median = m % 2 ? (double)d[m / 2] : ((double)d[m / 2 - 1] + (double)d[m / 2]) / 2;
	free(d);
	tg_finding *f = tg_fctx_add(c, TG_FINDING_FIRST_STEP_SLOW);
	if (!f)
		return TG_ENOMEM;
	double ratio = median > 0 ? (double)st[0].dur / median : NAN;
	double extra = (double)st[0].dur - median;
	f->count = 1.0 / (double)c->nsteps;
	f->start_ns = st[0].ts;
	f->end_ns = st[0].ts + st[0].dur;
	tg_fctx_cost(f, c, extra > 0 ? extra : 0,
	             "the first step's time above the median of the others, over the steps");
	if (f->status == TG_FINDING_FIRED && !(ratio >= lim->param))
		f->status = TG_FINDING_OK;
	char a[32], b[32];
	tg_fstr_time(a, sizeof(a), (double)st[0].dur);
	tg_fstr_time(b, sizeof(b), median);
	snprintf(f->evidence, sizeof(f->evidence),
	         "ProfilerStep#%lld took %s, the median of the %zu others %s (%.2f x; "
	         "the limit %.2f x)",
	         (long long)st[0].number, a, ns - 1, b, ratio, lim->param);
	return 0;
}

int tg_findings_check_gaps(tg_fctx *c)
{
	struct gaps g;
	all_gaps(&g, c);
	int rc = launch_bound(c, &g);
	if (!rc)
		rc = idle_gap(c, &g);
	if (!rc)
		rc = first_step(c);
	return rc;
}
