/*
 * launchers_tables.c - TraceLens's tables of kernel time per launcher
 * (launchers.h): ops_summary (per op name), ops_summary_by_category (per op
 * category) and kernel_summary (per kernel under its parent op and
 * category, with its share of the total), from the launchers launchers.c
 * assigned.
 */
#include "../trace/categorize.h"
#include "describe.h"
#include "launchers_impl.h"
#include "../trace/pyrepr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct group {
	uint64_t key;      /* what rows are grouped by (an atom, or an index) */
	const char *label; /* or the category */
	double direct, subtree;
	uint64_t count;
	const char *cats[4];
	int ncats;
	/* kernel_summary */
	const char *category;
	uint32_t op_name, kernel_name;
	int64_t stream;
	double sum, min, max;
	uint32_t first; /* first seen order, for stable ties */
};

static int cmp_direct_desc(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->direct != y->direct)
		return x->direct > y->direct ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

static int cmp_sum_desc(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

static void add_category(struct group *g, const char *c)
{
	for (int i = 0; i < g->ncats; i++)
		if (g->cats[i] == c)
			return;
	if (g->ncats < 4)
		g->cats[g->ncats++] = c;
}

/* Groups launchers by key(); returns groups (caller frees) and *n. The
 * groups (op names or categories) are few next to the launchers: their
 * array and map grow with the groups, not with the launchers. */
static struct group *group_launchers(const tg_launchers *l, int by_category, size_t *n)
{
	const tg_event *ev;
	size_t ne, ng = 0, cap = 0;
	ev = tg_trace_events(l->trace, &ne);
	struct group *g = NULL;
	tg_idmap *idx = tg_idmap_new(64);
	if (!idx || tg_grow((void **)&g, &cap, 1, sizeof(*g)))
		goto fail;
	for (size_t i = 0; i < l->n; i++) {
		const tg_launcher *x = &l->list[i];
		const char *cat = tg_launchers_category(l, x);
		int64_t key = by_category ? (int64_t)x->category : (int64_t)ev[x->event].name;
		uint32_t k = tg_idmap_get(idx, key);
		if (k == TG_NONE) {
			if (tg_grow((void **)&g, &cap, ng + 1, sizeof(*g)))
				goto fail;
			k = (uint32_t)ng++;
			g[k] = (struct group){.key = (uint64_t)key, .first = k};
			g[k].label = by_category ? cat : tg_trace_str(l->trace, ev[x->event].name);
			if (tg_idmap_put(idx, key, k) < 0)
				goto fail;
		}
		g[k].direct += x->direct_us;
		g[k].subtree += x->subtree_us;
		g[k].count++;
		add_category(&g[k], cat);
	}
	tg_idmap_free(idx);
	qsort(g, ng, sizeof(*g), cmp_direct_desc);
	*n = ng;
	return g;
fail:
	free(g);
	tg_idmap_free(idx);
	return NULL;
}

int tg_launchers_ops_summary(tg_table **out, const tg_launchers *l)
{
	*out = NULL;
	size_t ng;
	struct group *g = group_launchers(l, 0, &ng);
	tg_table *t = tg_table_new("ops_summary", "Kernel time by op (leaf CPU op launching the kernels)");
	if (!g || !t)
		goto fail;
	static const char *const cols[] = {
		"name", "total_direct_kernel_time_sum", "total_subtree_kernel_time_sum",
		"total_direct_kernel_time_ms", "total_subtree_kernel_time_ms", "Count", "Categories",
		"Percentage (%)", "Cumulative Percentage (%)"};
	for (size_t c = 0; c < 9; c++)
		if (tg_table_add_column(t, cols[c]) < 0)
			goto fail;
	double total = 0, cum = 0;
	for (size_t i = 0; i < ng; i++)
		total += g[i].direct / 1e3;
	for (size_t i = 0; i < ng; i++) {
		int64_t r = tg_table_add_row(t);
		if (r < 0 || tg_table_set_str(t, (size_t)r, 0, g[i].label))
			goto fail;
		tg_table_set_num(t, (size_t)r, 1, g[i].direct);
		tg_table_set_num(t, (size_t)r, 2, g[i].subtree);
		tg_table_set_num(t, (size_t)r, 3, g[i].direct / 1e3);
		tg_table_set_num(t, (size_t)r, 4, g[i].subtree / 1e3);
		tg_table_set_int(t, (size_t)r, 5, (int64_t)g[i].count);
		char cats[128] = "[";
		for (int k = 0; k < g[i].ncats; k++) {
			if (k)
				strcat(cats, ", ");
			strcat(cats, "'");
			strncat(cats, g[i].cats[k], 30);
			strcat(cats, "'");
		}
		strcat(cats, "]");
		if (tg_table_set_str(t, (size_t)r, 6, cats))
			goto fail;
		double pct = total > 0 ? g[i].direct / 1e3 / total * 100 : 0;
		cum += pct;
		tg_table_set_num(t, (size_t)r, 7, pct);
		tg_table_set_num(t, (size_t)r, 8, cum);
	}
	free(g);
	*out = t;
	return 0;
fail:
	free(g);
	tg_table_free(t);
	return tg_error_set(TG_ENOMEM, "out of memory");
}

int tg_launchers_ops_by_category(tg_table **out, const tg_launchers *l)
{
	*out = NULL;
	size_t ng;
	struct group *g = group_launchers(l, 1, &ng);
	tg_table *t = tg_table_new("ops_summary_by_category", "Kernel time by op category");
	if (!g || !t)
		goto fail;
	static const char *const cols[] = {"op category", "Count", "total_direct_kernel_time_ms",
	                                   "Percentage (%)", "Cumulative Percentage (%)"};
	for (size_t c = 0; c < 5; c++)
		if (tg_table_add_column(t, cols[c]) < 0)
			goto fail;
	double total = 0, cum = 0;
	for (size_t i = 0; i < ng; i++)
		total += g[i].direct / 1e3;
	for (size_t i = 0; i < ng; i++) {
		int64_t r = tg_table_add_row(t);
		if (r < 0 || tg_table_set_str(t, (size_t)r, 0, g[i].label))
			goto fail;
		tg_table_set_int(t, (size_t)r, 1, (int64_t)g[i].count);
		tg_table_set_num(t, (size_t)r, 2, g[i].direct / 1e3);
		double pct = total > 0 ? g[i].direct / 1e3 / total * 100 : 0;
		cum += pct;
		tg_table_set_num(t, (size_t)r, 3, pct);
		tg_table_set_num(t, (size_t)r, 4, cum);
	}
	free(g);
	*out = t;
	return 0;
fail:
	free(g);
	tg_table_free(t);
	return tg_error_set(TG_ENOMEM, "out of memory");
}

/* The parent of kernel i for kernel_summary: its launching op's name into
 * *op_name (TG_NONE without one) and category into *category ("graph" or
 * "runtime" for a bare launch call, "" without a launch). */
static void kernel_parent(const tg_launchers *l, uint32_t i, const char **category, uint32_t *op_name)
{
	const tg_atoms *atoms = tg_trace_atoms(l->trace);
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	*category = "";
	*op_name = TG_NONE;
	uint32_t who = tg_launchers_find(l->tree, ev, i, atoms, l->tracelens_compat);
	if (who == TG_NONE)
		return;
	*op_name = ev[who].name;
	if (ev[who].kind == TG_KIND_CPU_OP || ev[who].kind == TG_KIND_USER_ANNOTATION) {
		uint32_t li = tg_launchers_owner_of(l, i);
		if (li == TG_NONE && l->comm)
			li = tg_idmap_get(l->comm, i);
		const char *op = tg_atoms_str(atoms, ev[who].name), *kernel = tg_atoms_str(atoms, ev[i].name);
		*category = li != TG_NONE ? tg_launchers_category(l, &l->list[li]) : tg_op_category(op, kernel, l->tracelens_compat);
	} else {
		const char *rn = tg_atoms_str(atoms, ev[who].name);
		*category = strstr(rn, "GraphLaunch") ? "graph" : "runtime";
	}
}

/* The groups of kernel_summary, found by a hash of their key. */
struct ks_groups {
	struct group *g;
	size_t ng, gcap;
	tg_idmap *idx; /* hash of a key (probed linearly) -> group */
};

/* A kernel of d us counted into the group (category, op_name, kernel,
 * stream), new when none has it yet. 0 or TG_ENOMEM. */
static int ks_add(struct ks_groups *G, const char *category, uint32_t op_name, uint32_t kernel, int64_t stream,
                  double d)
{
	uint64_t parts[4] = {op_name, kernel, (uint64_t)stream, (uint64_t)(uintptr_t)category};
	int64_t key = (int64_t)tg_hash_bytes(parts, sizeof(parts));
	uint32_t gi;
	for (;; key++) {
		gi = tg_idmap_get(G->idx, key);
		if (gi == TG_NONE || (G->g[gi].op_name == op_name && G->g[gi].kernel_name == kernel &&
		                      G->g[gi].stream == stream && G->g[gi].category == category))
			break;
	}
	if (gi == TG_NONE) {
		if (tg_grow((void **)&G->g, &G->gcap, G->ng + 1, sizeof(*G->g)))
			return TG_ENOMEM;
		gi = (uint32_t)G->ng++;
		G->g[gi] = (struct group){.category = category, .op_name = op_name, .kernel_name = kernel,
		                          .stream = stream, .min = 1e300, .max = -1e300, .first = gi};
		if (tg_idmap_put(G->idx, key, gi) < 0)
			return TG_ENOMEM;
	}
	struct group *x = &G->g[gi];
	x->sum += d;
	x->count++;
	x->min = d < x->min ? d : x->min;
	x->max = d > x->max ? d : x->max;
	return 0;
}

/* Group g's row of kernel_summary; all: every kernel's time (us). Without
 * cpu ops in the trace there is no Parent cpu_op column. 0 or -1. */
static int ks_row(tg_table *t, const struct group *g, const tg_atoms *atoms, int have_cpu_ops, double all,
                  double total_time_us)
{
	size_t o = have_cpu_ops ? 0 : 1; /* column shift without Parent cpu_op */
	int64_t r = tg_table_add_row(t);
	if (r < 0 || tg_table_set_str(t, (size_t)r, 0, g->category) ||
	    (have_cpu_ops &&
	     tg_table_set_str(t, (size_t)r, 1, g->op_name == TG_NONE ? "" : tg_atoms_str(atoms, g->op_name))) ||
	    tg_table_set_str(t, (size_t)r, 2 - o, tg_atoms_str(atoms, g->kernel_name)))
		return -1;
	tg_table_set_int(t, (size_t)r, 3 - o, g->stream);
	tg_table_set_num(t, (size_t)r, 4 - o, g->sum);
	tg_table_set_int(t, (size_t)r, 5 - o, (int64_t)g->count);
	tg_table_set_num(t, (size_t)r, 6 - o, g->sum / (double)g->count);
	tg_table_set_num(t, (size_t)r, 7 - o, g->min);
	tg_table_set_num(t, (size_t)r, 8 - o, g->max);
	tg_table_set_num(t, (size_t)r, 9 - o, all > 0 ? g->sum / all * 100 : 0);
	tg_table_set_num(t, (size_t)r, 10 - o, total_time_us > 0 ? g->sum / total_time_us * 100 : 0);
	return 0;
}

int tg_launchers_kernel_summary(tg_table **out, const tg_launchers *l, double total_time_us)
{
	/* Every kernel of the trace (communication kernels and kernels without
	 * a launch included, as TraceLens does), grouped by (parent category,
	 * parent op, kernel name, stream). The parent is the leaf cpu_op; a
	 * bare launch call is its own parent, of category "graph" for graph
	 * launches and "runtime" otherwise; kernels without a launch have none. */
	*out = NULL;
	const tg_trace *trace = l->trace;
	const tg_atoms *atoms = tg_trace_atoms(trace);
	size_t ne;
	const tg_event *ev = tg_trace_events(trace, &ne);
	/* groups grow as they appear: a handful of kernels and ops, not one a kernel */
	struct ks_groups G = {NULL, 0, 64, tg_idmap_new(1024)};
	G.g = tg_calloc(G.gcap, sizeof(*G.g));
	tg_table *t = tg_table_new("kernel_summary", "Kernels by launching op and stream");
	if (!G.g || !G.idx || !t)
		goto fail;
	int have_cpu_ops = tg_trace_stats_get(trace)->by_kind[TG_KIND_CPU_OP] > 0;
	double all = 0;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (e->kind != TG_KIND_KERNEL || !tg_launchers_in_step(l->tree, (uint32_t)i, l->step))
			continue;
		const char *category;
		uint32_t op_name;
		kernel_parent(l, (uint32_t)i, &category, &op_name);
		int64_t stream = -1;
		tg_arg_int(trace, tg_event_arg(trace, e, tg_trace_key_stream(trace)), &stream);
		double d = tg_ns_to_us_f64(tg_event_dur(trace, e));
		if (ks_add(&G, category, op_name, e->name, stream, d))
			goto fail;
		all += d;
	}
	qsort(G.g, G.ng, sizeof(*G.g), cmp_sum_desc);
	/* a trace without cpu ops (GPU-only) has no Parent cpu_op column */
	static const char *const cols[] = {
		"Parent op category", "Parent cpu_op", "Kernel name", "Kernel stream",
		"Kernel duration (\xc2\xb5s)_sum", "Kernel duration (\xc2\xb5s)_count",
		"Kernel duration (\xc2\xb5s)_mean", "Kernel duration (\xc2\xb5s)_min",
		"Kernel duration (\xc2\xb5s)_max", "Percent of kernels time (%)", "Percent of total time (%)"};
	for (size_t c = 0; c < 11; c++)
		if ((c != 1 || have_cpu_ops) && tg_table_add_column(t, cols[c]) < 0)
			goto fail;
	for (size_t i = 0; i < G.ng; i++)
		if (ks_row(t, &G.g[i], atoms, have_cpu_ops, all, total_time_us))
			goto fail;
	free(G.g);
	tg_idmap_free(G.idx);
	*out = t;
	return 0;
fail:
	free(G.g);
	tg_idmap_free(G.idx);
	tg_table_free(t);
	return tg_error_set(TG_ENOMEM, "out of memory");
}
