/*
 * collectives_rank.c - the collective tables of each rank on its own
 * (collectives.h: tg_collectives_rank_tables): every collective of every
 * rank in a long list, and per rank the summary by collective, process
 * group, size and dtype, with counts, times and bus bandwidths, like
 * TraceLens's NcclAnalyser's per-rank output.
 */
#include "collectives_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- per-rank tables ------------------------------------------------- */

/* The coll_analysis group key. */
static int cmp_long_key(const struct rec *x, const struct rec *y)
{
	int c;
	if ((c = cmp_i64(x->rank, y->rank)) || (c = cmp_str(x->c.pg_name, y->c.pg_name)) ||
	    (c = cmp_str(x->c.pg_ranks, y->c.pg_ranks)) ||
	    (c = cmp_str(x->c.collective, y->c.collective)) ||
	    (c = cmp_i64(x->c.group_size, y->c.group_size)) || (c = cmp_str(x->c.dtype, y->c.dtype)) ||
	    (c = cmp_i64(x->c.in_nelems, y->c.in_nelems)) ||
	    (c = cmp_i64(x->c.out_nelems, y->c.out_nelems)) ||
	    (c = cmp_str(x->c.in_split, y->c.in_split)) ||
	    (c = cmp_str(x->c.out_split, y->c.out_split)) || (c = cmp_i64(x->c.stream, y->c.stream)))
		return c;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c = cmp_long_key(x, y);
	return c ? c : cmp_i64((int64_t)x->pos, (int64_t)y->pos);
}

struct group_row {
	size_t first, count; /* range in the sorted records */
	double sum;
};

static int cmp_group_sum_desc(const void *a, const void *b)
{
	const struct group_row *x = a, *y = b;
	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return cmp_i64((int64_t)x->first, (int64_t)y->first);
}

static int fill_rank_list(tg_table *t, const struct rec *v, size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const tg_collective *c = &v[i].c;
		int64_t row = tg_table_add_row(t);
		if (row < 0)
			return TG_ENOMEM;
		size_t r = (size_t)row;
		tg_table_set_int(t, r, 0, v[i].rank);
		set_opt_str(t, r, 1, c->pg_name, &rc);
		set_opt_str(t, r, 2, c->pg_ranks, &rc);
		set_opt_str(t, r, 3, c->collective, &rc);
		set_opt_int(t, r, 4, c->group_size);
		set_opt_str(t, r, 5, c->dtype, &rc);
		set_opt_int(t, r, 6, c->in_nelems);
		set_opt_num(t, r, 7, c->in_mb);
		set_opt_int(t, r, 8, c->out_nelems);
		set_opt_num(t, r, 9, c->out_mb);
		set_opt_str(t, r, 10, c->in_split, &rc);
		set_opt_str(t, r, 11, c->out_split, &rc);
		tg_table_set_int(t, r, 12, c->stream);
		tg_table_set_num(t, r, 13, (double)c->ts / 1e3);
		tg_table_set_num(t, r, 14, (double)c->dur / 1e3);
		set_opt_str(t, r, 15, c->kernel, &rc);
	}
	return rc;
}

static int fill_rank_summary(tg_table *t, struct rec *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_long);
	struct group_row *g = tg_calloc(n, sizeof(*g));
	if (!g)
		return TG_ENOMEM;
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		if (!i || cmp_long_key(&v[i - 1], &v[i]))
			g[ng++] = (struct group_row){i, 0, 0};
		g[ng - 1].count++;
		g[ng - 1].sum += (double)v[i].c.dur / 1e3;
	}
	qsort(g, ng, sizeof(*g), cmp_group_sum_desc);
	int rc = 0;
	for (size_t k = 0; k < ng && !rc; k++) {
		const struct rec *f = &v[g[k].first];
		int64_t row = tg_table_add_row(t);
		if (row < 0) {
			rc = TG_ENOMEM;
			break;
		}
		size_t r = (size_t)row;
		tg_table_set_int(t, r, 0, f->rank);
		set_opt_str(t, r, 1, f->c.pg_name, &rc);
		set_opt_str(t, r, 2, f->c.pg_ranks, &rc);
		set_opt_str(t, r, 3, f->c.collective, &rc);
		set_opt_int(t, r, 4, f->c.group_size);
		set_opt_str(t, r, 5, f->c.dtype, &rc);
		set_opt_int(t, r, 6, f->c.in_nelems);
		set_opt_int(t, r, 7, f->c.out_nelems);
		set_opt_str(t, r, 8, f->c.in_split, &rc);
		set_opt_str(t, r, 9, f->c.out_split, &rc);
		tg_table_set_int(t, r, 10, f->c.stream);
		set_opt_num(t, r, 11, f->c.in_mb);
		set_opt_num(t, r, 12, f->c.out_mb);
		size_t cnt = g[k].count;
		double sum = g[k].sum, mean = sum / (double)cnt, ss = 0, mn = 0, mx = 0;
		for (size_t i = 0; i < cnt; i++) {
			double d = (double)v[g[k].first + i].c.dur / 1e3;
			ss += (d - mean) * (d - mean);
			if (!i || d < mn)
				mn = d;
			if (!i || d > mx)
				mx = d;
		}
		tg_table_set_num(t, r, 13, sum);
		tg_table_set_num(t, r, 14, mean);
		if (cnt > 1)
			tg_table_set_num(t, r, 15, sqrt(ss / (double)(cnt - 1)));
		tg_table_set_num(t, r, 16, mn);
		tg_table_set_num(t, r, 17, mx);
		tg_table_set_int(t, r, 18, (int64_t)cnt);
	}
	free(g);
	return rc;
}

int tg_collectives_rank_tables(tg_table *out[2], const tg_tree *const *trees, size_t n, int64_t step)
{
	static const char *const c0[] = {"rank", "Process Group Name", "Process Group Ranks",
	                                 "Collective name", "Group size", "dtype", "In msg nelems",
	                                 "In msg size (MB)", "Out msg nelems", "Out msg size (MB)",
	                                 "In split size", "Out split size", "stream", "ts (us)",
	                                 "dur (us)", "kernel", NULL};
	static const char *const c1[] = {"rank", "Process Group Name", "Process Group Ranks",
	                                 "Collective name", "Group size", "dtype", "In msg nelems",
	                                 "Out msg nelems", "In split size", "Out split size", "stream",
	                                 "In msg size (MB)_first", "Out msg size (MB)_first", "dur_sum",
	                                 "dur_mean", "dur_std", "dur_min", "dur_max",
	                                 "operation_count", NULL};
	out[0] = out[1] = NULL;
	struct rec *v = NULL;
	size_t nv = 0;
	int rc = tg_collectives_gather(&v, &nv, trees, n, step);
	if (rc)
		return rc;
	size_t kept = 0; /* the step's collectives only, in the same order */
	for (size_t i = 0; i < nv; i++)
		if (v[i].in_step)
			v[kept++] = v[i];
	nv = kept;
	out[0] = tg_table_new_cols("coll_per_rank", "Collective kernels per rank", c0);
	out[1] = tg_table_new_cols("coll_analysis", "Collectives per rank, grouped by metadata", c1);
	if (!out[0] || !out[1])
		rc = TG_ENOMEM;
	if (!rc)
		rc = fill_rank_list(out[0], v, nv);
	if (!rc)
		rc = fill_rank_summary(out[1], v, nv);
	free(v);
	if (rc) {
		tg_table_free(out[0]);
		tg_table_free(out[1]);
		out[0] = out[1] = NULL;
		return fail_nomem();
	}
	return 0;
}
