/* ranks.c - per-kernel statistics across the traces of several ranks. */
#include "ranks.h"
#include "../../util/atoms.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct stat {
	uint64_t count;
	double total, min, max;
};

struct kernel_total {
	uint32_t id;
	double total;
};

static int cmp_total_desc(const void *a, const void *b)
{
	const struct kernel_total *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

int64_t tg_rank_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	int64_t rank = -1;
	for (const char *p = base; *p; p++) {
		if (strncasecmp(p, "rank", 4))
			continue;
		const char *d = p + 4;
		if (*d == '-' || *d == '_')
			d++;
		if (*d < '0' || *d > '9')
			continue;
		int64_t v = 0;
		for (; *d >= '0' && *d <= '9' && v < 100000000; d++)
			v = v * 10 + (*d - '0');
		if (*d < '0' || *d > '9')
			rank = v;
	}
	return rank;
}

int64_t tg_rank_pick(int64_t distributed, int64_t hint, const char *name)
{
	if (distributed >= 0)
		return distributed;
	if (hint >= 0)
		return hint;
	return name ? tg_rank_from_name(name) : -1;
}

int64_t tg_rank_of(const tg_trace *t, int64_t hint)
{
	return tg_rank_pick(tg_trace_rank(t), hint, tg_trace_name(t));
}

static int64_t rank_of(const tg_tree *tree, size_t index)
{
	int64_t r = tg_trace_rank(tg_tree_trace(tree));
	return r >= 0 ? r : (int64_t)index;
}

/* The statistics of every kernel name on every rank: st[kernel * n + rank]. */
struct rank_stats {
	tg_atoms *names; /* kernel names shared by all ranks */
	struct stat *st;
	size_t cap, n;
};

/* The kernels of rank r (in step when step >= 0) added to s. 0 or -1 (out
 * of memory). */
static int add_rank(struct rank_stats *s, const tg_tree *tree, size_t r, int64_t step)
{
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne, n = s->n;
	const tg_event *ev = tg_trace_events(t, &ne);
	int32_t idx = step >= 0 ? tg_tree_step_index(tree, step) : -1;
	if (step >= 0 && idx < 0)
		return 0; /* no such step on this rank: no kernels */
	for (size_t i = 0; i < ne; i++) {
		if (ev[i].kind != TG_KIND_KERNEL || (step >= 0 && tg_tree_step_of(tree, (uint32_t)i) != idx))
			continue;
		const char *name = tg_trace_str(t, ev[i].name);
		uint32_t id;
		if (tg_atoms_intern(&id, s->names, name, strlen(name)))
			return -1;
		size_t need = ((size_t)id + 1) * n;
		if (need > s->cap) {
			size_t old = s->cap;
			if (tg_grow((void **)&s->st, &s->cap, need, sizeof(*s->st)))
				return -1;
			memset(s->st + old, 0, (s->cap - old) * sizeof(*s->st));
		}
		struct stat *x = &s->st[(size_t)id * n + r];
		double d = (double)tg_event_dur(t, &ev[i]) / 1e3;
		if (!x->count || d < x->min)
			x->min = d;
		if (!x->count || d > x->max)
			x->max = d;
		x->count++;
		x->total += d;
	}
	return 0;
}

/* Kernel id's rows: one per rank in dist, one in spread (total min, mean
 * and max over the ranks, the slowest rank). 0 or -1 (out of memory). */
static int kernel_rows(tg_table *dist, tg_table *spread, const struct rank_stats *s, uint32_t id,
                       const tg_tree *const *trees)
{
	size_t n = s->n;
	const char *name = tg_atoms_str(s->names, id);
	double mn = 0, mx = 0, sum = 0;
	int64_t slowest = -1;
	size_t present = 0;
	for (size_t r = 0; r < n; r++) {
		const struct stat *x = &s->st[(size_t)id * n + r];
		int64_t row = tg_table_add_row(dist);
		if (row < 0 || tg_table_set_str(dist, (size_t)row, 0, name))
			return -1;
		tg_table_set_int(dist, (size_t)row, 1, rank_of(trees[r], r));
		tg_table_set_int(dist, (size_t)row, 2, (int64_t)x->count);
		tg_table_set_num(dist, (size_t)row, 3, x->total);
		if (x->count) {
			tg_table_set_num(dist, (size_t)row, 4, x->total / (double)x->count);
			tg_table_set_num(dist, (size_t)row, 5, x->min);
			tg_table_set_num(dist, (size_t)row, 6, x->max);
		}
		if (!present || x->total < mn)
			mn = x->total;
		if (!present || x->total > mx) {
			mx = x->total;
			slowest = rank_of(trees[r], r);
		}
		sum += x->total;
		present++;
	}
	int64_t row = tg_table_add_row(spread);
	if (row < 0 || tg_table_set_str(spread, (size_t)row, 0, name))
		return -1;
	double mean = sum / (double)n;
	tg_table_set_int(spread, (size_t)row, 1, (int64_t)n);
	tg_table_set_num(spread, (size_t)row, 2, mn);
	tg_table_set_num(spread, (size_t)row, 3, mean);
	tg_table_set_num(spread, (size_t)row, 4, mx);
	tg_table_set_num(spread, (size_t)row, 5, mean > 0 ? mx / mean : 0);
	tg_table_set_int(spread, (size_t)row, 6, slowest);
	return 0;
}

int tg_ranks_kernel_tables(tg_table *out[2], const tg_tree *const *trees, size_t n, size_t top, int64_t step)
{
	out[0] = out[1] = NULL;
	if (!top)
		top = 20;
	int rc = TG_ENOMEM;
	struct rank_stats s = {tg_atoms_new(), NULL, 0, n};
	struct kernel_total *tot = NULL;
	if (!s.names)
		goto fail;
	for (size_t r = 0; r < n; r++)
		if (add_rank(&s, trees[r], r, step))
			goto fail;
	size_t nk = tg_atoms_count(s.names);
	tot = tg_calloc(nk + 1, sizeof(*tot));
	if (!tot)
		goto fail;
	for (size_t k = 0; k < nk; k++) {
		tot[k].id = (uint32_t)k;
		for (size_t r = 0; r < n; r++)
			tot[k].total += s.st[k * n + r].total;
	}
	qsort(tot, nk, sizeof(*tot), cmp_total_desc);
	if (nk > top)
		nk = top;
	tg_table *dist = tg_table_new("kernel_distribution_across_ranks", "Kernel durations per rank (top kernels)");
	tg_table *spread = tg_table_new("kernel_rank_spread", "Kernel time spread across ranks (top kernels)");
	out[0] = dist;
	out[1] = spread;
	if (!dist || !spread)
		goto fail;
	static const char *const c0[] = {"Kernel name", "rank", "count", "total (us)", "mean (us)", "min (us)", "max (us)"};
	static const char *const c1[] = {"Kernel name", "ranks", "total min (us)", "total mean (us)",
	                                 "total max (us)", "max/mean", "slowest rank"};
	for (size_t c = 0; c < 7; c++)
		if (tg_table_add_column(dist, c0[c]) < 0 || tg_table_add_column(spread, c1[c]) < 0)
			goto fail;
	for (size_t k = 0; k < nk; k++)
		if (kernel_rows(dist, spread, &s, tot[k].id, trees))
			goto fail;
	rc = 0;
fail:
	if (rc) {
		tg_table_free(out[0]);
		tg_table_free(out[1]);
		out[0] = out[1] = NULL;
		tg_error_set(TG_ENOMEM, "out of memory");
	}
	tg_atoms_free(s.names);
	free(s.st);
	free(tot);
	return rc;
}
