/*
 * launchers.c - assigns device events to their launching op and aggregates
 * kernel time per launcher, per op name, per category and per kernel.
 */
#include "describe.h"
#include "launchers.h"
#include "categorize.h"
#include "idmap.h"
#include "pyrepr.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

struct tg_launchers {
	const tg_tree *tree;
	const tg_trace *trace;
	tg_launcher *list;
	size_t n;
	uint32_t *koff;    /* n + 1 offsets into kernels */
	uint32_t *kernels; /* direct device events, grouped by launcher, by start */
	uint32_t *owner;   /* per event of the trace: its launcher's index, or TG_NONE */
	uint32_t key_stream;
	tg_idmap *index; /* launcher event -> index in list */
	int32_t step;
	int tracelens_compat;
};

struct tagged {
	uint32_t who;
	tg_span s;
};

static int cmp_tagged(const void *a, const void *b)
{
	const struct tagged *x = a, *y = b;
	if (x->who != y->who)
		return x->who < y->who ? -1 : 1;
	return (x->s.start > y->s.start) - (x->s.start < y->s.start);
}

/* Unions of tagged spans per owner into out[owner] (sorted in place). */
static void union_per_owner(struct tagged *t, size_t n, tg_launcher *list, int subtree)
{
	if (n > 1)
		qsort(t, n, sizeof(*t), cmp_tagged);
	for (size_t i = 0; i < n;) {
		uint32_t who = t[i].who;
		double total = 0, s = t[i].s.start, e = t[i].s.end;
		size_t j = i + 1;
		for (; j < n && t[j].who == who; j++) {
			if (t[j].s.start <= e) {
				if (t[j].s.end > e)
					e = t[j].s.end;
			} else {
				total += e - s;
				s = t[j].s.start;
				e = t[j].s.end;
			}
		}
		total += e - s;
		if (subtree)
			list[who].subtree_us = total;
		else
			list[who].direct_us = total;
		i = j;
	}
}

static uint32_t find_launcher(const tg_tree *tree, const tg_event *ev, uint32_t k, const tg_atoms *atoms,
                              int tracelens)
{
	uint32_t r = tg_tree_parent(tree, k);
	if (r == TG_NONE || !tg_kind_is_launch(ev[r].kind))
		return TG_NONE; /* not linked to a launch: TraceLens leaves it out */
	if (tracelens && !tg_tree_linked_like_tracelens(tree, k))
		return TG_NONE;
	for (uint32_t p = tg_tree_parent(tree, r); p != TG_NONE; p = tg_tree_parent(tree, p)) {
		if (ev[p].kind == TG_KIND_PYTHON)
			continue;
		if (ev[p].kind == TG_KIND_USER_ANNOTATION) {
			/* annotations are not in TraceLens's tree, except those that
			 * name an op it knows (vllm::unified_attention_with_output),
			 * which it applies as the launching op */
			if (strcmp(tg_op_category(tg_atoms_str(atoms, ev[p].name), NULL, 1), "other") != 0)
				return p;
			continue;
		}
		if (ev[p].kind == TG_KIND_CPU_OP) {
			if (!strcmp(tg_atoms_str(atoms, ev[p].name), "execute"))
				continue;
			return p;
		}
		break;
	}
	return r;
}

uint32_t tg_launcher_of(const tg_tree *tree, uint32_t ev, int tracelens)
{
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	return find_launcher(tree, tg_trace_events(t, &ne), ev, tg_trace_atoms(t), tracelens);
}

static int in_step(const tg_tree *tree, uint32_t e, int32_t step)
{
	return step < 0 || tg_tree_step_of(tree, e) == step;
}

/* Spans tagged with their launcher's index, growing. */
struct tagvec {
	struct tagged *v;
	size_t n, cap;
};

static int tag_push(struct tagvec *a, uint32_t who, tg_span s)
{
	if (tg_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v)))
		return TG_ENOMEM;
	a->v[a->n++] = (struct tagged){who, s};
	return 0;
}

/* Step 1: the launcher of every device event of the step into l->owner
 * (TG_NONE: none, or a communication kernel), launchers numbered by their
 * first device event into l->list and l->index, with their kernel counts
 * and summed times; each event's span tagged into direct. *ndev gets the
 * number of events with a launcher. 0 or TG_ENOMEM. */
static int assign_launchers(tg_launchers *l, const tg_launchers_opts *opts, struct tagvec *direct, size_t *ndev)
{
	const tg_atoms *atoms = tg_trace_atoms(l->trace);
	size_t ne, list_cap = 0;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	*ndev = 0;
	for (size_t i = 0; i < ne; i++) {
		l->owner[i] = TG_NONE;
		if (!tg_kind_is_gpu(ev[i].kind) || !in_step(l->tree, (uint32_t)i, opts->step))
			continue;
		if (ev[i].kind == TG_KIND_KERNEL && (tg_trace_name_flags(l->trace, ev[i].name) & TG_NAME_COMM))
			continue;
		uint32_t who = find_launcher(l->tree, ev, (uint32_t)i, atoms, opts->tracelens_compat);
		if (who == TG_NONE)
			continue;
		uint32_t idx = tg_idmap_get(l->index, who);
		if (idx == TG_NONE) {
			if (tg_grow((void **)&l->list, &list_cap, l->n + 1, sizeof(tg_launcher)))
				return TG_ENOMEM;
			idx = (uint32_t)l->n++;
			l->list[idx] = (tg_launcher){.event = who};
			if (tg_idmap_put(l->index, who, idx) < 0)
				return TG_ENOMEM;
		}
		l->owner[i] = idx;
		l->list[idx].nkernels++;
		l->list[idx].kernel_sum_us += tg_timebase_us(&opts->tb, (double)ev[i].dur);
		if (tag_push(direct, idx, tg_span_of(&opts->tb, &ev[i])))
			return TG_ENOMEM;
		(*ndev)++;
	}
	return 0;
}

/* Step 2: the ndev direct device events grouped by launcher, in start
 * order (l->koff, l->kernels), and each launcher's category from its name
 * and first kernel. 0 or TG_ENOMEM. */
static int group_kernels(tg_launchers *l, size_t ndev, int tracelens_compat)
{
	const tg_atoms *atoms = tg_trace_atoms(l->trace);
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	l->koff = tg_calloc(l->n + 2, sizeof(uint32_t));
	l->kernels = tg_malloc((ndev + 1) * sizeof(uint32_t));
	uint32_t *fill = tg_malloc((l->n + 1) * sizeof(uint32_t));
	if (!l->koff || !l->kernels || !fill) {
		free(fill);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < ne; i++)
		if (l->owner[i] != TG_NONE)
			l->koff[l->owner[i] + 1]++;
	for (size_t i = 0; i < l->n; i++)
		l->koff[i + 1] += l->koff[i];
	memcpy(fill, l->koff, (l->n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < ne; i++)
		if (l->owner[i] != TG_NONE)
			l->kernels[fill[l->owner[i]]++] = (uint32_t)i;
	free(fill);
	for (size_t i = 0; i < l->n; i++) {
		/* events are mostly in time order; insertion sort the stragglers */
		uint32_t *k = l->kernels + l->koff[i];
		size_t m = l->koff[i + 1] - l->koff[i];
		for (size_t a = 1; a < m; a++) {
			uint32_t x = k[a];
			size_t b = a;
			while (b > 0 && ev[k[b - 1]].ts > ev[x].ts) {
				k[b] = k[b - 1];
				b--;
			}
			k[b] = x;
		}
		const char *first = m ? tg_atoms_str(atoms, ev[k[0]].name) : NULL;
		const char *name = tg_atoms_str(atoms, ev[l->list[i].event].name);
		l->list[i].category = tg_op_category(name, first, tracelens_compat);
	}
	return 0;
}

/* Step 3: every linked device event of the step, tagged into sub once for
 * each launcher above it (its subtree time). 0 or TG_ENOMEM. */
static int tag_subtrees(const tg_launchers *l, const tg_launchers_opts *opts, struct tagvec *sub)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind) || !in_step(l->tree, (uint32_t)i, opts->step))
			continue;
		uint32_t r = tg_tree_parent(l->tree, (uint32_t)i);
		if (r == TG_NONE || !tg_kind_is_launch(ev[r].kind) ||
		    (opts->tracelens_compat && !tg_tree_linked_like_tracelens(l->tree, (uint32_t)i)))
			continue;
		tg_span s = tg_span_of(&opts->tb, &ev[i]);
		for (uint32_t p = r; p != TG_NONE; p = tg_tree_parent(l->tree, p)) {
			uint32_t idx = tg_idmap_get(l->index, p);
			if (idx != TG_NONE && tag_push(sub, idx, s))
				return TG_ENOMEM;
		}
	}
	return 0;
}

int tg_launchers_build(tg_launchers **out, const tg_tree *tree, const tg_launchers_opts *opts)
{
	*out = NULL;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	tg_trace_events(t, &ne);
	int rc = TG_ENOMEM;
	struct tagvec direct = {0}, sub = {0};
	size_t ndev;
	tg_launchers *l = tg_calloc(1, sizeof(*l));
	if (!l)
		return TG_ENOMEM;
	l->tree = tree;
	l->trace = t;
	l->key_stream = tg_trace_key(t, "stream");
	l->step = opts->step;
	l->tracelens_compat = opts->tracelens_compat;
	l->owner = tg_malloc((ne + 1) * sizeof(uint32_t));
	l->index = tg_idmap_new(1024);
	if (!l->owner || !l->index || assign_launchers(l, opts, &direct, &ndev) ||
	    group_kernels(l, ndev, opts->tracelens_compat) || tag_subtrees(l, opts, &sub))
		goto fail;
	union_per_owner(direct.v, direct.n, l->list, 0);
	union_per_owner(sub.v, sub.n, l->list, 1);
	for (size_t i = 0; i < l->n; i++) {
		l->list[i].direct_us = tg_timebase_us(&opts->tb, l->list[i].direct_us);
		l->list[i].subtree_us = tg_timebase_us(&opts->tb, l->list[i].subtree_us);
	}
	rc = 0;
	*out = l;
	l = NULL;
fail:
	tg_launchers_free(l);
	free(direct.v);
	free(sub.v);
	return rc;
}

const tg_launcher *tg_launchers_list(const tg_launchers *l, size_t *n)
{
	*n = l->n;
	return l->list;
}

const uint32_t *tg_launchers_kernels(const tg_launchers *l, size_t i, size_t *n)
{
	*n = l->koff[i + 1] - l->koff[i];
	return l->kernels + l->koff[i];
}

const uint32_t *tg_launchers_owners(const tg_launchers *l)
{
	return l->owner;
}

void tg_launchers_free(tg_launchers *l)
{
	if (!l)
		return;
	free(l->list);
	free(l->koff);
	free(l->kernels);
	free(l->owner);
	tg_idmap_free(l->index);
	free(l);
}

/* ---------------------------------------------------------------- tables */

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

/* Groups launchers by key(); returns groups (caller frees) and *n. */
static struct group *group_launchers(const tg_launchers *l, int by_category, size_t *n)
{
	const tg_event *ev;
	size_t ne;
	ev = tg_trace_events(l->trace, &ne);
	struct group *g = tg_calloc(l->n + 1, sizeof(*g));
	tg_idmap *idx = tg_idmap_new(l->n);
	if (!g || !idx) {
		free(g);
		tg_idmap_free(idx);
		return NULL;
	}
	size_t ng = 0;
	for (size_t i = 0; i < l->n; i++) {
		const tg_launcher *x = &l->list[i];
		int64_t key = by_category ? (int64_t)(uintptr_t)x->category : (int64_t)ev[x->event].name;
		uint32_t k = tg_idmap_get(idx, key);
		if (k == TG_NONE) {
			k = (uint32_t)ng++;
			g[k].key = (uint64_t)key;
			g[k].label = by_category ? x->category : tg_trace_str(l->trace, ev[x->event].name);
			g[k].first = k;
			if (tg_idmap_put(idx, key, k) < 0) {
				free(g);
				tg_idmap_free(idx);
				return NULL;
			}
		}
		g[k].direct += x->direct_us;
		g[k].subtree += x->subtree_us;
		g[k].count++;
		add_category(&g[k], x->category);
	}
	tg_idmap_free(idx);
	qsort(g, ng, sizeof(*g), cmp_direct_desc);
	*n = ng;
	return g;
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
	uint32_t who = find_launcher(l->tree, ev, i, atoms, l->tracelens_compat);
	if (who == TG_NONE)
		return;
	*op_name = ev[who].name;
	if (ev[who].kind == TG_KIND_CPU_OP || ev[who].kind == TG_KIND_USER_ANNOTATION) {
		uint32_t li = tg_idmap_get(l->index, who);
		const char *op = tg_atoms_str(atoms, ev[who].name), *kernel = tg_atoms_str(atoms, ev[i].name);
		*category = li != TG_NONE ? l->list[li].category : tg_op_category(op, kernel, l->tracelens_compat);
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
		if (e->kind != TG_KIND_KERNEL || !in_step(l->tree, (uint32_t)i, l->step))
			continue;
		const char *category;
		uint32_t op_name;
		kernel_parent(l, (uint32_t)i, &category, &op_name);
		int64_t stream = -1;
		tg_arg_int(trace, tg_event_arg(trace, e, l->key_stream), &stream);
		double d = tg_ns_to_us_f64(e->dur);
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

/* ------------------------------------------------------- ops_unique_args */

struct ua_key {
	uint32_t name, dims, type, strides, concrete, pname, plabel, tname;
	const char *category;
};

struct ua_group {
	struct ua_key key;
	uint32_t first; /* smallest launcher event index: file order, TraceLens's ex_UID order */
	size_t n, cap;
	double *direct, *subtree;
	double direct_sum;
};

static int cmp_ua(const void *a, const void *b)
{
	const struct ua_group *x = a, *y = b;
	if (x->direct_sum != y->direct_sum)
		return x->direct_sum > y->direct_sum ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

static uint32_t str_atom(const tg_trace *t, const tg_event *e, uint32_t key)
{
	const tg_arg *a = tg_event_arg(t, e, key);
	return a && (a->type == TG_ARG_RAW || a->type == TG_ARG_STR) ? a->v.atom : TG_NONE;
}

/* The launchers grouped by ua_key while tg_launchers_unique_args walks them. */
struct ua_groups {
	struct ua_group *g;
	size_t ng;
	tg_idmap *idx;   /* hash of a key (probed linearly) -> group */
	tg_atoms *names; /* process names and labels, interned here */
	uint32_t keys[4]; /* the atoms of "Input Dims", "Input type", "Input Strides", "Concrete Inputs" */
};

/* The grouping key of launcher x: its name, shape arguments, process,
 * thread and category. 0 or TG_ENOMEM. */
static int ua_key_of(struct ua_key *key, struct ua_groups *u, const tg_launchers *l, const tg_launcher *x)
{
	const tg_trace *t = l->trace;
	size_t ne, nt;
	const tg_event *e = &tg_trace_events(t, &ne)[x->event];
	const tg_track *tr = &tg_trace_tracks(t, &nt)[e->track];
	const char *pn = tg_trace_process_name(t, tr->pid);
	const char *pl = tg_trace_process_labels(t, tr->pid);
	*key = (struct ua_key){.name = e->name, .dims = str_atom(t, e, u->keys[0]), .type = str_atom(t, e, u->keys[1]),
	                       .strides = str_atom(t, e, u->keys[2]), .concrete = str_atom(t, e, u->keys[3]),
	                       .pname = TG_NONE, .plabel = TG_NONE, .tname = tr->thread_name, .category = x->category};
	if ((pn && tg_atoms_intern(&key->pname, u->names, pn, strlen(pn))) ||
	    (pl && tg_atoms_intern(&key->plabel, u->names, pl, strlen(pl))))
		return TG_ENOMEM;
	return 0;
}

/* Launcher x's times added to the group of key (a new group when none
 * has it yet). 0 or TG_ENOMEM. */
static int ua_add(struct ua_groups *u, const struct ua_key *key, const tg_launcher *x)
{
	int64_t hk = (int64_t)tg_hash_bytes(key, sizeof(*key));
	uint32_t gi;
	for (;; hk++) {
		gi = tg_idmap_get(u->idx, hk);
		if (gi == TG_NONE || !memcmp(&u->g[gi].key, key, sizeof(*key)))
			break;
	}
	if (gi == TG_NONE) {
		gi = (uint32_t)u->ng++;
		u->g[gi].key = *key;
		u->g[gi].first = x->event;
		if (tg_idmap_put(u->idx, hk, gi) < 0)
			return TG_ENOMEM;
	}
	struct ua_group *gr = &u->g[gi];
	if (x->event < gr->first)
		gr->first = x->event;
	if (gr->n == gr->cap) {
		size_t ncap = gr->cap ? gr->cap * 2 : 4;
		double *a = realloc(gr->direct, ncap * sizeof(double)), *b;
		if (!a)
			return TG_ENOMEM;
		gr->direct = a;
		b = realloc(gr->subtree, ncap * sizeof(double));
		if (!b)
			return TG_ENOMEM;
		gr->subtree = b;
		gr->cap = ncap;
	}
	gr->direct[gr->n] = x->direct_us;
	gr->subtree[gr->n++] = x->subtree_us;
	gr->direct_sum += x->direct_us;
	return 0;
}

/* Row row of ops_unique_args for group G: its key (shape arguments as
 * Python reprs, in buf of size cap), count, the statistics of its direct
 * and subtree times, and its percent of total (*cum accumulates). 0 or -1
 * (out of memory). */
static int ua_fill_row(tg_table *tab, size_t row, struct ua_group *G, const struct ua_groups *u, const tg_trace *t,
                       double total, double *cum, char *buf, size_t cap)
{
	const struct ua_key *k = &G->key;
	const uint32_t shape[4] = {k->dims, k->type, k->strides, k->concrete};
	if (tg_table_set_str(tab, row, 0, tg_trace_str(t, k->name)) || tg_table_set_str(tab, row, 1, k->category) ||
	    /* TraceLens's word for a process or thread without a name */
	    tg_table_set_str(tab, row, 2, k->pname == TG_NONE ? "Unknown" : tg_atoms_str(u->names, k->pname)) ||
	    tg_table_set_str(tab, row, 3, k->plabel == TG_NONE ? "Unknown" : tg_atoms_str(u->names, k->plabel)) ||
	    tg_table_set_str(tab, row, 4, k->tname == TG_NONE ? "Unknown" : tg_trace_str(t, k->tname)))
		return -1;
	for (int c = 0; c < 4; c++) {
		if (shape[c] == TG_NONE)
			continue;
		tg_pyrepr(buf, cap, tg_trace_str(t, shape[c]));
		if (tg_table_set_str(tab, row, 5 + (size_t)c, buf))
			return -1;
	}
	tg_table_set_int(tab, row, 9, (int64_t)G->n);
	double d[6], s[6];
	tg_describe6(d, G->direct, G->n);
	tg_describe6(s, G->subtree, G->n);
	for (int c = 0; c < 6; c++) {
		tg_table_set_num(tab, row, 10 + 2 * (size_t)c, d[c]);
		tg_table_set_num(tab, row, 11 + 2 * (size_t)c, s[c]);
	}
	double pct = total > 0 ? G->direct_sum / total * 100 : 0;
	*cum += pct;
	tg_table_set_num(tab, row, 22, pct);
	tg_table_set_num(tab, row, 23, *cum);
	return 0;
}

int tg_launchers_unique_args(tg_table **out, const tg_launchers *l)
{
	*out = NULL;
	const tg_trace *t = l->trace;
	struct ua_groups u = {0};
	u.keys[0] = tg_trace_key(t, "Input Dims");
	u.keys[1] = tg_trace_key(t, "Input type");
	u.keys[2] = tg_trace_key(t, "Input Strides");
	u.keys[3] = tg_trace_key(t, "Concrete Inputs");
	u.g = tg_calloc(l->n + 1, sizeof(*u.g));
	u.idx = tg_idmap_new(l->n);
	u.names = tg_atoms_new();
	tg_table *tab = tg_table_new("ops_unique_args", "Kernel time by op and arguments (shapes, types, strides)");
	int ok = 0;
	if (!u.g || !u.idx || !tab || !u.names)
		goto done;
	for (size_t i = 0; i < l->n; i++) {
		struct ua_key key;
		if (ua_key_of(&key, &u, l, &l->list[i]) || ua_add(&u, &key, &l->list[i]))
			goto done;
	}
	qsort(u.g, u.ng, sizeof(*u.g), cmp_ua);
	static const char *const cols[] = {
		"name", "op category", "process_name", "process_label", "thread_name", "Input Dims",
		"Input type", "Input Strides", "Concrete Inputs", "operation_count",
		"total_direct_kernel_time_mean", "total_subtree_kernel_time_mean",
		"total_direct_kernel_time_median", "total_subtree_kernel_time_median",
		"total_direct_kernel_time_std", "total_subtree_kernel_time_std",
		"total_direct_kernel_time_min", "total_subtree_kernel_time_min",
		"total_direct_kernel_time_max", "total_subtree_kernel_time_max",
		"total_direct_kernel_time_sum", "total_subtree_kernel_time_sum",
		"Percentage (%)", "Cumulative Percentage (%)"};
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		if (tg_table_add_column(tab, cols[c]) < 0)
			goto done;
	double total = 0, cum = 0;
	for (size_t i = 0; i < u.ng; i++)
		total += u.g[i].direct_sum;
	char buf[8192];
	for (size_t i = 0; i < u.ng; i++) {
		int64_t r = tg_table_add_row(tab);
		if (r < 0 || ua_fill_row(tab, (size_t)r, &u.g[i], &u, t, total, &cum, buf, sizeof(buf)))
			goto done;
	}
	ok = 1;
done:
	for (size_t i = 0; u.g && i < u.ng; i++) {
		free(u.g[i].direct);
		free(u.g[i].subtree);
	}
	free(u.g);
	tg_idmap_free(u.idx);
	tg_atoms_free(u.names);
	if (!ok) {
		tg_table_free(tab);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	*out = tab;
	return 0;
}
