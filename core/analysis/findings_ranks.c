/*
 * findings_ranks.c - the findings of communication (findings.h):
 * no-comm-overlap on one trace, straggler and all-ranks-idle across the
 * ranks of one job.
 *
 *   no-comm-overlap  communication kernels (tg_kernel_class COMMUNICATION)
 *                    of the analysed steps; cost: their time with no
 *                    computation kernel running (TraceLens's exposed
 *                    communication, per kernel)
 *   straggler        the collectives matched across ranks
 *                    (tg_collectives_sync_tables, TraceLens's implicit
 *                    sync): the rank that arrived last at more than
 *                    `param` % of them; cost: the start skew of those
 *                    collectives (how long the earliest rank waited)
 *   all-ranks-idle   stretches of at least `param` (1 ms) inside the first
 *                    rank's steps when no rank's GPU runs anything (the
 *                    union of every rank's device events, by the traces'
 *                    timestamps; not evaluated when the ranks' spans do not
 *                    overlap, their clocks being unrelated)
 */
#include "collectives.h"
#include "findings_impl.h"
#include "../trace/kernel_class.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ point to point */

/* 1 for point-to-point communication: a "Collective name" of send or recv
 * when the trace gives one, else a kernel named for it (NCCL's SendRecv,
 * Send, Recv kernels; NCCL also runs all_to_all as SendRecv, which only the
 * collective name tells apart). Ranks waiting for each other at send and
 * recv is the pipeline's schedule, not a straggler; and its time is not
 * the gradient communication that overlapping with compute hides. */
static int p2p(const char *kernel, const char *collective)
{
	if (collective && *collective)
		return (strcasestr(collective, "send") || strcasestr(collective, "recv")) &&
		       !strcasestr(collective, "all");
	return kernel && (strstr(kernel, "SendRecv") || strstr(kernel, "_Send") || strstr(kernel, "_Recv"));
}

/* The point-to-point collectives of t, by event (1 = p2p), in *out (the
 * caller frees it; NULL when the trace has no collective). */
static int p2p_events(uint8_t **out, const tg_trace *t, size_t ne)
{
	tg_collective *v;
	size_t n;
	*out = NULL;
	if (tg_collectives_list(&v, &n, t))
		return TG_ENOMEM;
	if (n && !(*out = tg_calloc(ne ? ne : 1, 1))) {
		free(v);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].event < ne)
			(*out)[v[i].event] = (uint8_t)p2p(v[i].kernel, v[i].collective);
	free(v);
	return 0;
}

/* ------------------------------------------------------------ one trace */

/* A communication kernel of the steps: its event and its time with no
 * computation kernel running (16 bytes; the rest is read from the event). */
struct comm_kernel {
	uint32_t ev;
	double exposed;
};

/* By name, then as listed (the device events' order: start, then event):
 * the order a stable sort by name leaves them in. */
static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct comm_kernel *x = a, *y = b;
	const tg_event *ev = arg, *ex = &ev[x->ev], *ey = &ev[y->ev];
	if (ex->name != ey->name)
		return ex->name < ey->name ? -1 : 1;
	if (ex->ts != ey->ts)
		return ex->ts < ey->ts ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

/* Appends [a, b) to the merged intervals v (*n of them, *cap allocated),
 * the intervals coming by start. 0 or TG_ENOMEM. */
static int union_add(tg_interval **v, size_t *n, size_t *cap, int64_t a, int64_t b)
{
	if (*n && a <= (*v)[*n - 1].end) {
		if (b > (*v)[*n - 1].end)
			(*v)[*n - 1].end = b;
		return 0;
	}
	if (tg_grow((void **)v, cap, *n + 1, sizeof(**v)))
		return TG_ENOMEM;
	(*v)[(*n)++] = (tg_interval){a, b};
	return 0;
}

/* The communication kernels of the steps into *comm, grown to what they
 * hold (point-to-point ones counted apart: *np2p of them, *p2p_ns their
 * time). 0 or TG_ENOMEM. */
static int comm_kernels(struct comm_kernel **comm, size_t *ncomm, size_t *np2p, double *p2p_ns, const tg_fctx *c)
{
	uint8_t *pp = NULL;
	size_t cap = 0;
	if (p2p_events(&pp, c->t, c->ne))
		return TG_ENOMEM;
	int rc = 0;
	for (size_t i = 0; !rc && i < c->ndev; i++) {
		const tg_event *e = &c->ev[c->dev[i]];
		if (tg_kernel_class_of(c->t, e) != TG_KERNEL_COMMUNICATION || !tg_fctx_selected(c, c->dev[i]))
			continue;
		if (pp ? pp[c->dev[i]] : p2p(tg_trace_str(c->t, e->name), NULL)) {
			++*np2p;
			*p2p_ns += (double)tg_event_dur(c->t, e);
		} else if (!(rc = tg_grow((void **)comm, &cap, *ncomm + 1, sizeof(**comm)))) {
			(*comm)[(*ncomm)++] = (struct comm_kernel){c->dev[i], 0};
		}
	}
	free(pp);
	return rc;
}

/* The communication kernels of the steps, each with its time with no
 * computation kernel running; the computation kernels merged into *comp
 * only when there are some (a single GPU's trace has none): the device
 * events come by start, so they merge as they are read. Lists sized to
 * what they hold; the caller frees both. 0 or TG_ENOMEM. */
static int comm_lists(tg_interval **comp, size_t *ncomp, struct comm_kernel **comm, size_t *ncomm, size_t *np2p,
                      double *p2p_ns, const tg_fctx *c)
{
	size_t cap = 0;
	*comp = NULL;
	*comm = NULL;
	*ncomp = *ncomm = *np2p = 0;
	*p2p_ns = 0;
	int rc = comm_kernels(comm, ncomm, np2p, p2p_ns, c);
	for (size_t i = 0; !rc && *ncomm && i < c->ndev; i++) {
		const tg_event *e = &c->ev[c->dev[i]];
		if (e->kind == TG_KIND_KERNEL && tg_kernel_class_of(c->t, e) == TG_KERNEL_COMPUTATION)
			rc = union_add(comp, ncomp, &cap, e->ts, tg_event_end(c->t, e));
	}
	for (size_t i = 0; !rc && i < *ncomm; i++) {
		const tg_event *e = &c->ev[(*comm)[i].ev];
		int64_t ts = e->ts, end = tg_event_end(c->t, e);
		(*comm)[i].exposed = (double)((end - ts) - tg_fctx_overlap(*comp, *ncomp, ts, end));
	}
	return rc;
}

int tg_findings_check_comm(tg_fctx *c)
{
	if (!tg_fctx_limits(c, TG_FINDING_NO_COMM_OVERLAP)->enabled)
		return 0;
	tg_interval *comp;
	struct comm_kernel *comm;
	size_t ncomp, ncomm, np2p;
	double p2p_ns;
	int rc = comm_lists(&comp, &ncomp, &comm, &ncomm, &np2p, &p2p_ns, c);
	if (!rc && !ncomm && np2p)
		rc = tg_fctx_not_evaluated(
			c, TG_FINDING_NO_COMM_OVERLAP,
			"only point-to-point communication (send/recv kernels) in the analysed steps");
	else if (!rc && !ncomm)
		rc = tg_fctx_not_evaluated(c, TG_FINDING_NO_COMM_OVERLAP,
		                           "no communication kernels in the analysed steps");
	if (rc || !ncomm)
		goto done;
	tg_finding *f = tg_fctx_add(c, TG_FINDING_NO_COMM_OVERLAP);
	if (!f) {
		rc = TG_ENOMEM;
		goto done;
	}
	double total = 0, exposed = 0;
	for (size_t i = 0; i < ncomm; i++) {
		total += (double)tg_event_dur(c->t, &c->ev[comm[i].ev]);
		exposed += comm[i].exposed;
	}
	f->count = (double)ncomm / (double)c->nsteps;
	f->start_ns = c->ev[comm[0].ev].ts;
	f->end_ns = tg_event_end(c->t, &c->ev[comm[ncomm - 1].ev]);
	tg_fctx_cost(f, c, exposed, "communication kernels' time with no computation kernel running");
	/* the kernel with the most exposed time */
	qsort_r(comm, ncomm, sizeof(*comm), cmp_name, (void *)c->ev);
	double best = -1, best_total = 0;
	uint32_t name = c->ev[comm[0].ev].name;
	int64_t stream = tg_kernel_stream(c->t, &c->ev[comm[0].ev]);
	size_t best_n = 0;
	for (size_t i = 0; i < ncomm;) {
		size_t j = i;
		double e = 0, t = 0;
		uint32_t ni = c->ev[comm[i].ev].name;
		for (; j < ncomm && c->ev[comm[j].ev].name == ni; j++) {
			e += comm[j].exposed;
			t += (double)tg_event_dur(c->t, &c->ev[comm[j].ev]);
		}
		if (e > best) {
			best = e;
			best_total = t;
			name = ni;
			stream = tg_kernel_stream(c->t, &c->ev[comm[i].ev]);
			best_n = j - i;
		}
		i = j;
	}
	char t[32], x[32], bt[32], bx[32];
	tg_fstr_time(t, sizeof(t), total / (double)c->nsteps);
	tg_fstr_time(x, sizeof(x), f->cost_ns);
	tg_fstr_time(bt, sizeof(bt), best_total / (double)c->nsteps);
	tg_fstr_time(bx, sizeof(bx), best / (double)c->nsteps);
	snprintf(f->evidence, sizeof(f->evidence),
	         "%.3g communication kernels a step, %s a step, %s of it (%.0f %%) with "
	         "no computation running; most exposed: %s on stream %lld, %.3g a step, %s a step, %s exposed",
	         f->count, t, x, total > 0 ? 100 * exposed / total : 0.0, tg_trace_str(c->t, name), (long long)stream,
	         (double)best_n / (double)c->nsteps, bt, bx);
	if (np2p) {
		char pt[32];
		tg_fstr_time(pt, sizeof(pt), p2p_ns / (double)c->nsteps);
		tg_fstr_add(f->evidence, sizeof(f->evidence), "; %.3g point-to-point kernels a step (%s) left out",
		            (double)np2p / (double)c->nsteps, pt);
	}
done:
	free(comp);
	free(comm);
	return rc;
}

/* ------------------------------------------------------------ across ranks */

static const tg_table *find(tg_table *const *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tg_table_name(t[i]), name))
			return t[i];
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static double num(const tg_table *t, size_t r, const char *col)
{
	int k = tg_table_find_column(t, col);
	const tg_cell *x = k < 0 ? NULL : tg_table_cell(t, r, (size_t)k);
	return !x ? NAN : x->type == TG_CELL_NUM ? x->v.d : x->type == TG_CELL_INT ? (double)x->v.i : NAN;
}

static const char *str(const tg_table *t, size_t r, const char *col)
{
	int k = tg_table_find_column(t, col);
	const tg_cell *x = k < 0 ? NULL : tg_table_cell(t, r, (size_t)k);
	return x && x->type == TG_CELL_STR ? x->v.s : "";
}

/* 1 when the matched collective row r of t is point to point: its
 * Collective name says so, or, without one, every collective of its group
 * on the first rank (v, n: "stream S" groups by stream, others by process
 * group name) is a point-to-point kernel. */
static int row_p2p(const tg_table *t, size_t r, const tg_collective *v, size_t n)
{
	const char *name = str(t, r, "Collective name"), *id = str(t, r, "collective_id");
	if (name[0])
		return p2p(NULL, name);
	const char *us = strrchr(id, '_');
	size_t glen = us ? (size_t)(us - id) : strlen(id);
	int by_stream = !strncmp(id, "stream ", 7);
	int64_t stream = by_stream ? strtoll(id + 7, NULL, 10) : -1;
	size_t seen = 0;
	for (size_t i = 0; i < n; i++) {
		int in = by_stream ? v[i].stream == stream && !v[i].pg_name
		                   : !strncmp(id, "all", glen) || (v[i].pg_name && strlen(v[i].pg_name) == glen &&
		                                                   !strncmp(v[i].pg_name, id, glen));
		if (!in)
			continue;
		if (!p2p(v[i].kernel, v[i].collective))
			return 0;
		seen++;
	}
	return seen > 0;
}

static int straggler(tg_fctx *c0, const tg_tree *const *trees, size_t n, int64_t step_number)
{
	const tg_finding_limits *lim = tg_fctx_limits(c0, TG_FINDING_STRAGGLER);
	if (!lim->enabled)
		return 0;
	tg_table *tabs[3];
	tg_collectives_sync_info info;
	int rc = tg_collectives_sync_tables(tabs, &info, trees, n, step_number);
	if (rc)
		return rc;
	const tg_table *t = find(tabs, 3, "nccl_implicit_sync");
	size_t nrows = t ? tg_table_nrows(t) : 0, nr = 0, np2p = 0;
	tg_collective *cv = NULL;
	size_t ncv = 0;
	uint8_t *keep = tg_calloc(nrows ? nrows : 1, 1);
	int64_t *last = tg_malloc((nrows ? nrows : 1) * sizeof(*last)), rank = -1;
	if (!keep || !last || tg_collectives_list(&cv, &ncv, tg_tree_trace(trees[0]))) {
		free(keep);
		free(last);
		rc = TG_ENOMEM;
		goto done;
	}
	for (size_t r = 0; r < nrows; r++) {
		if (row_p2p(t, r, cv, ncv)) {
			np2p++;
			continue;
		}
		keep[r] = 1;
		last[nr++] = (int64_t)num(t, r, "latest arrival rank");
	}
	free(cv);
	if (!nr) {
		free(keep);
		free(last);
		rc = tg_fctx_not_evaluated(c0, TG_FINDING_STRAGGLER,
		                           np2p ? "the collectives matched across the ranks are "
		                                  "point-to-point send/recv kernels, where ranks "
		                                  "wait by the pipeline's schedule"
		                                : "no collective matched across the ranks");
		goto done;
	}
	/* the rank arriving last most often (the lowest of a tie), and what its lateness cost */
	size_t best = 0;
	qsort(last, nr, sizeof(*last), cmp_i64);
	for (size_t r = 0; r < nr;) {
		size_t q = r;
		while (q < nr && last[q] == last[r])
			q++;
		if (q - r > best) {
			best = q - r;
			rank = last[r];
		}
		r = q;
	}
	free(last);
	double lost = 0, max = 0;
	const char *coll = "";
	for (size_t r = 0; r < nrows; r++) {
		if (!keep[r] || (int64_t)num(t, r, "latest arrival rank") != rank)
			continue;
		double s = num(t, r, "skew in start time");
		if (!isnan(s))
			lost += s * 1e3;
		if (s * 1e3 > max) {
			max = s * 1e3;
			coll = str(t, r, "Collective name");
		}
	}
	free(keep);
	tg_finding *f = tg_fctx_add(c0, TG_FINDING_STRAGGLER);
	if (!f) {
		rc = TG_ENOMEM;
		goto done;
	}
	double pct_last = 100.0 * (double)best / (double)nr;
	f->rank = rank;
	f->count = (double)best / (double)c0->nsteps;
	snprintf(f->subject, sizeof(f->subject), "rank %lld", (long long)rank);
	snprintf(f->key, sizeof(f->key), "%s", "");
	tg_fctx_cost(f, c0, lost, "the start skew of the collectives it arrived last at: the earliest rank's wait");
	if (f->status == TG_FINDING_FIRED && !(pct_last > lim->param))
		f->status = TG_FINDING_OK;
	char l[32], m[32];
	tg_fstr_time(l, sizeof(l), f->cost_ns);
	tg_fstr_time(m, sizeof(m), max);
	snprintf(f->evidence, sizeof(f->evidence),
	         "rank %lld arrived last at %zu of %zu collectives matched across %zu "
	         "ranks (%.0f %%; the limit %g %%); the earliest rank waited %s a step for it, %s at most (%s%s)",
	         (long long)rank, best, nr, n, pct_last, lim->param, l, m, coll[0] ? coll : "collective",
	         info.skipped_mismatch ? ", some skipped: metadata differ" : "");
	if (np2p)
		tg_fstr_add(f->evidence, sizeof(f->evidence), "; %zu point-to-point ones left out", np2p);
done:
	for (int i = 0; i < 3; i++)
		tg_table_free(tabs[i]);
	return rc;
}

/* Stretches of at least param ns in c0's windows with no rank busy. */
static int all_idle(tg_fctx *c0, const tg_fctx *cs, size_t n)
{
	const tg_finding_limits *lim = tg_fctx_limits(c0, TG_FINDING_ALL_RANKS_IDLE);
	if (!lim->enabled)
		return 0;
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		if (!cs[i].nbusy)
			return tg_fctx_not_evaluated(c0, TG_FINDING_ALL_RANKS_IDLE, "a rank without device events");
		lo = cs[i].busy[0].start > lo ? cs[i].busy[0].start : lo;
		hi = cs[i].busy[cs[i].nbusy - 1].end < hi ? cs[i].busy[cs[i].nbusy - 1].end : hi;
		total += cs[i].nbusy;
	}
	if (lo >= hi)
		return tg_fctx_not_evaluated(c0, TG_FINDING_ALL_RANKS_IDLE,
		                             "the ranks' device activity does not overlap in time (unrelated clocks)");
	tg_interval *u = tg_malloc(total * sizeof(*u));
	if (!u)
		return TG_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < cs[i].nbusy; j++)
			u[k++] = cs[i].busy[j];
	size_t nu = tg_fctx_merge(u, k);
	double idle = 0;
	size_t stretches = 0;
	int64_t la = 0, lb = 0;
	for (size_t j = 1; j < nu; j++) {
		int64_t a = u[j - 1].end, b = u[j].start;
		if (a < lo || b > hi || b - a < (int64_t)lim->param || tg_fctx_in_windows(c0, a, b) < (b - a) / 2)
			continue;
		idle += (double)tg_fctx_in_windows(c0, a, b);
		stretches++;
		if (b - a > lb - la) {
			la = a;
			lb = b;
		}
	}
	free(u);
	tg_finding *f = tg_fctx_add(c0, TG_FINDING_ALL_RANKS_IDLE);
	if (!f)
		return TG_ENOMEM;
	f->rank = -1;
	f->count = (double)stretches / (double)c0->nsteps;
	f->start_ns = la;
	f->end_ns = lb;
	tg_fctx_cost(f, c0, idle, "time in the first rank's steps with no device event on any rank");
	char x[32], lim_s[32], l[32];
	tg_fstr_time(x, sizeof(x), f->cost_ns);
	tg_fstr_time(lim_s, sizeof(lim_s), lim->param);
	tg_fstr_time(l, sizeof(l), (double)(lb - la));
	snprintf(f->evidence, sizeof(f->evidence),
	         "%.3g stretches a step of %s or more with every one of the %zu ranks' "
	         "GPUs idle: %s a step",
	         f->count, lim_s, n, x);
	if (stretches)
		tg_fstr_add(f->evidence, sizeof(f->evidence), "; the longest %s", l);
	return 0;
}

/* The ranks of trees are distinct: 0, else why not in why. */
static int distinct_ranks(char *why, size_t cap, const tg_tree *const *trees, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			int64_t a = tg_trace_rank(tg_tree_trace(trees[i])), b = tg_trace_rank(tg_tree_trace(trees[j]));
			if (a >= 0 && a == b) {
				snprintf(why, cap, "rank %lld twice: the traces are runs, not the ranks of one job",
				         (long long)a);
				return -1;
			}
		}
	return 0;
}

int tg_findings_across(tg_findings **out, const tg_tree *const *trees, size_t n, const tg_findings_opts *opts,
                       int64_t step_number)
{
	tg_findings_opts def;
	if (!opts) {
		tg_findings_opts_default(&def);
		opts = &def;
	}
	*out = NULL;
	tg_findings *l = tg_calloc(1, sizeof(*l));
	tg_fctx *cs = tg_calloc(n ? n : 1, sizeof(*cs));
	int rc = l && cs ? 0 : TG_ENOMEM;
	size_t ready = 0;
	char why[160] = "";
	if (!rc && (n < 2 || distinct_ranks(why, sizeof(why), trees, n))) {
		tg_fctx c = {.o = opts, .out = l, .rank = -1};
		const char *reason = n < 2 ? "one rank (give every rank's trace)" : why;
		for (int id = TG_FINDING_STRAGGLER; !rc && id <= TG_FINDING_ALL_RANKS_IDLE; id++)
			if (opts->limits[id].enabled)
				rc = tg_fctx_not_evaluated(&c, (tg_finding_id)id, "%s", reason);
		goto done;
	}
	for (; !rc && ready < n; ready++) {
		int32_t step = step_number < 0 ? -1 : tg_tree_step_index(trees[ready], step_number);
		tg_findings scratch = {0};
		rc = step_number >= 0 && step < 0
		             ? TG_EINVAL
		             : tg_fctx_init(&cs[ready], trees[ready], opts, step, ready ? &scratch : l, 0);
		if (rc == TG_EINVAL)
			rc = tg_error_set(TG_EINVAL, "findings: a rank without ProfilerStep#%lld",
			                  (long long)step_number);
	}
	if (!rc) {
		cs[0].rank = -1;
		rc = straggler(&cs[0], trees, n, step_number);
	}
	if (!rc)
		rc = all_idle(&cs[0], cs, n);
done:
	for (size_t i = 0; cs && i < ready; i++)
		tg_fctx_free(&cs[i]);
	free(cs);
	if (!rc)
		tg_findings_sort(l);
	if (rc && l) {
		free(l->v);
		free(l);
		l = NULL;
	}
	*out = l;
	return rc;
}
