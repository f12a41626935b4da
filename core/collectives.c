/* collectives.c - collective kernels per rank and matched across ranks
 * (TraceLens's NcclAnalyser; see collectives.h for the rules). */
#include "describe.h"
#include "collectives.h"
#include "kernel_class.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- metadata of one trace -------------------------------------------- */

struct dtype_size {
	const char *name;
	int bytes;
};

static const struct dtype_size dtype_sizes[] = {
	{"Float", 4}, {"Int", 4},    {"Long", 8},   {"BFloat16", 2}, {"Bool", 1},
	{"Byte", 1},  {"Double", 8}, {"Half", 2},   {"Short", 2},
};

int tg_collectives_dtype_bytes(const char *dtype)
{
	if (!dtype)
		return 0;
	for (size_t i = 0; i < sizeof(dtype_sizes) / sizeof(dtype_sizes[0]); i++)
		if (!strcmp(dtype, dtype_sizes[i].name))
			return dtype_sizes[i].bytes;
	return 0;
}

struct kind_name {
	const char *name, *kind;
};

static const struct kind_name kind_names[] = {
	{"allreduce", "allreduce"},
	{"allreduce_coalesced", "allreduce"},
	{"reducescatter", "reducescatter"},
	{"_reduce_scatter_base", "reducescatter"},
	{"reduce_scatter_tensor_coalesced", "reducescatter"},
	{"allgather", "allgather"},
	{"all_gather", "allgather"},
	{"_allgather_base", "allgather"},
	{"all_gather_into_tensor_coalesced", "allgather"},
	{"allgather_into_tensor_coalesced", "allgather"},
	{"all_to_all", "alltoall"},
	{"all_to_allv", "alltoallv"},
};

const char *tg_collectives_kind(const char *collective)
{
	if (!collective)
		return NULL;
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(collective, kind_names[i].name))
			return kind_names[i].kind;
	return NULL;
}

double tg_collectives_bus_factor(const char *collective, int64_t n)
{
	const char *k = tg_collectives_kind(collective);
	if (!k || n < 1)
		return NAN;
	double d = (double)n;
	if (!strcmp(k, "allreduce"))
		return 2.0 * (d - 1) / d;
	if (!strcmp(k, "alltoallv"))
		return NAN;
	return (d - 1) / d;
}

static int is_implicit_sync(const char *kind)
{
	return kind && strcmp(kind, "alltoallv") != 0;
}

/* Case-insensitive substring test (names are ASCII). */
static int contains_ci(const char *s, const char *sub)
{
	size_t m = strlen(sub);
	for (; *s; s++)
		if (!strncasecmp(s, sub, m))
			return 1;
	return 0;
}

/* A collective library's mark in a kernel name (TraceLens: nccl, rccl and
 * custom patterns; plus hccl and PyTorch's symmetric-memory all-reduce). */
static int has_marker(const char *name)
{
	static const char *const marks[] = {"nccl", "rccl", "hccl", "cross_device_reduce",
	                                    "multimem_all_reduce"};
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (contains_ci(name, marks[i]))
			return 1;
	return 0;
}

/* Argument keys of one trace, looked up once. */
struct keys {
	uint32_t coll, dtype, in_n, out_n, gsize, pg_name, pg_desc, pg_ranks, in_split, out_split;
};

static void keys_init(struct keys *k, const tg_trace *t)
{
	k->coll = tg_trace_key(t, "Collective name");
	k->dtype = tg_trace_key(t, "dtype");
	k->in_n = tg_trace_key(t, "In msg nelems");
	k->out_n = tg_trace_key(t, "Out msg nelems");
	k->gsize = tg_trace_key(t, "Group size");
	k->pg_name = tg_trace_key(t, "Process Group Name");
	k->pg_desc = tg_trace_key(t, "Process Group Description");
	k->pg_ranks = tg_trace_key(t, "Process Group Ranks");
	k->in_split = tg_trace_key(t, "In split size");
	k->out_split = tg_trace_key(t, "Out split size");
}

/* A string (or JSON-text) argument, else NULL. */
static const char *arg_str(const tg_trace *t, const tg_event *e, uint32_t key)
{
	if (key == TG_NONE)
		return NULL;
	const tg_arg *a = tg_event_arg(t, e, key);
	if (!a || (a->type != TG_ARG_STR && a->type != TG_ARG_RAW))
		return NULL;
	return tg_trace_str(t, a->v.atom);
}

static int64_t arg_count(const tg_trace *t, const tg_event *e, uint32_t key)
{
	int64_t v;
	if (key == TG_NONE || tg_arg_int(t, tg_event_arg(t, e, key), &v) || v < 0)
		return -1;
	return v;
}

static int cmp_coll_ts(const void *a, const void *b)
{
	const tg_collective *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->event > y->event) - (x->event < y->event);
}

int tg_collectives_list(tg_collective **out, size_t *n, const tg_trace *t)
{
	*out = NULL;
	*n = 0;
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	struct keys k;
	keys_init(&k, t);
	tg_collective *v = NULL;
	size_t cap = 0, len = 0;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (e->kind != TG_KIND_KERNEL || !(e->flags & (TG_EV_HAS_CORR | TG_EV_HAS_EXT)))
			continue;
		const char *name = tg_trace_str(t, e->name);
		if (tg_kernel_class_of(t, e) != TG_KERNEL_COMMUNICATION)
			continue;
		/* HTA's class also takes any name starting with "hip": keep
		 * those only when they carry a collective name */
		if (!has_marker(name) && (k.coll == TG_NONE || !tg_event_arg(t, e, k.coll)))
			continue;
		if (tg_grow((void **)&v, &cap, len + 1, sizeof(*v))) {
			free(v);
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
		tg_collective *c = &v[len++];
		memset(c, 0, sizeof(*c));
		c->event = (uint32_t)i;
		c->ts = e->ts;
		c->dur = e->dur;
		c->stream = tg_kernel_stream(t, e);
		c->kernel = name;
		c->collective = arg_str(t, e, k.coll);
		if (!c->collective &&
		    (contains_ci(name, "cross_device_reduce") || contains_ci(name, "multimem_all_reduce")))
			c->collective = "allreduce";
		c->dtype = arg_str(t, e, k.dtype);
		c->pg_name = arg_str(t, e, k.pg_name);
		c->pg_desc = arg_str(t, e, k.pg_desc);
		c->pg_ranks = arg_str(t, e, k.pg_ranks);
		c->in_split = arg_str(t, e, k.in_split);
		c->out_split = arg_str(t, e, k.out_split);
		c->in_nelems = arg_count(t, e, k.in_n);
		c->out_nelems = arg_count(t, e, k.out_n);
		c->group_size = arg_count(t, e, k.gsize);
		int bpe = tg_collectives_dtype_bytes(c->dtype);
		c->in_mb = bpe && c->in_nelems >= 0 ? (double)c->in_nelems * bpe / 1048576.0 : NAN;
		c->out_mb = bpe && c->out_nelems >= 0 ? (double)c->out_nelems * bpe / 1048576.0 : NAN;
	}
	if (len > 1)
		qsort(v, len, sizeof(*v), cmp_coll_ts);
	*out = v;
	*n = len;
	return 0;
}

/* ---- records of several ranks ---------------------------------------- */

struct rec {
	tg_collective c;
	int64_t rank;
	size_t pos;        /* position in the rank's list (start-time order) */
	const char *group; /* matching group: pg name, "Unknown_Group", "all", or NULL with gstream */
	int64_t gstream;   /* "stream S" group when group is NULL */
	int64_t index;     /* index_in_group */
	int in_step;       /* 1: the kernel falls in the selected step (or no step selected) */
};

struct ranked {
	const tg_tree *tree;
	int64_t rank;
	size_t pos;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* All collectives of all ranks, rank by rank (ascending), each in
 * start-time order; in_step marks those whose kernel falls in
 * ProfilerStep#step on its rank (all of them when step < 0). */
static int gather(struct rec **out, size_t *nout, const tg_tree *const *trees, size_t n, int64_t step)
{
	*out = NULL;
	*nout = 0;
	struct ranked *rk = tg_calloc(n ? n : 1, sizeof(*rk));
	if (!rk)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int64_t r = tg_trace_rank(tg_tree_trace(trees[i]));
		rk[i] = (struct ranked){trees[i], r >= 0 ? r : (int64_t)i, i};
	}
	qsort(rk, n, sizeof(*rk), cmp_ranked);
	struct rec *v = NULL;
	size_t cap = 0, len = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		tg_collective *c;
		size_t m;
		rc = tg_collectives_list(&c, &m, tg_tree_trace(rk[i].tree));
		if (rc)
			break;
		int32_t idx = step >= 0 ? tg_tree_step_index(rk[i].tree, step) : -1;
		if (m && tg_grow((void **)&v, &cap, len + m, sizeof(*v)))
			rc = TG_ENOMEM;
		for (size_t j = 0; j < m && !rc; j++) {
			struct rec *x = &v[len++];
			memset(x, 0, sizeof(*x));
			x->c = c[j];
			x->rank = rk[i].rank;
			x->pos = j;
			x->in_step = step < 0 || (idx >= 0 && tg_tree_step_of(rk[i].tree, c[j].event) == idx);
		}
		free(c);
	}
	free(rk);
	if (rc) {
		free(v);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	*out = v;
	*nout = len;
	return 0;
}

/* NULL sorts first. */
static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int fail_nomem(void) { return tg_error_set(TG_ENOMEM, "out of memory"); }

static void set_opt_str(tg_table *t, size_t row, size_t col, const char *s, int *rc)
{
	if (s && tg_table_set_str(t, row, col, s))
		*rc = TG_ENOMEM;
}

static void set_opt_int(tg_table *t, size_t row, size_t col, int64_t v)
{
	if (v >= 0)
		tg_table_set_int(t, row, col, v);
}

static void set_opt_num(tg_table *t, size_t row, size_t col, double v)
{
	if (!isnan(v))
		tg_table_set_num(t, row, col, v);
}

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
	int rc = gather(&v, &nv, trees, n, step);
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

/* ---- matching across ranks ------------------------------------------- */

/* Matching group, then rank, then start order. */
static int cmp_group(const struct rec *x, const struct rec *y)
{
	int c = cmp_str(x->group, y->group);
	return c ? c : cmp_i64(x->gstream, y->gstream);
}

static int cmp_group_rank_pos(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c;
	if ((c = cmp_group(x, y)) || (c = cmp_i64(x->rank, y->rank)))
		return c;
	return cmp_i64((int64_t)x->pos, (int64_t)y->pos);
}

/* Group, index, rank. */
static int cmp_match(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c;
	if ((c = cmp_group(x, y)) || (c = cmp_i64(x->index, y->index)))
		return c;
	return cmp_i64(x->rank, y->rank);
}

/* One matched collective. */
struct match {
	size_t first, count; /* range of records (one per rank, ascending rank) */
	size_t seen;         /* first gather position of its group, for ordering */
	const struct rec *meta;
	const char *kind;
	double latency, skew_start, avg_wait, skew_end, full_mb, algo, bus; /* us, MB, GB/s */
	int64_t earliest, latest;
};

static int meta_differs(const struct rec *a, const struct rec *b)
{
	return cmp_str(a->c.collective, b->c.collective) || cmp_str(a->c.dtype, b->c.dtype) ||
	       a->c.in_nelems != b->c.in_nelems || a->c.out_nelems != b->c.out_nelems ||
	       a->c.group_size != b->c.group_size || cmp_str(a->c.pg_ranks, b->c.pg_ranks);
}

static void measure(struct match *m, const struct rec *r)
{
	int64_t latest_start = INT64_MIN, min_end = INT64_MAX, max_end = INT64_MIN, lat = INT64_MAX;
	for (size_t i = 0; i < m->count; i++) {
		const struct rec *x = &r[i];
		if (x->c.ts > latest_start)
			latest_start = x->c.ts;
		int64_t end = x->c.ts + x->c.dur;
		if (end < min_end)
			min_end = end;
		if (end > max_end)
			max_end = end;
		if (x->c.dur < lat)
			lat = x->c.dur;
	}
	int64_t max_wait = -1, min_wait = INT64_MAX, sum_wait = 0;
	for (size_t i = 0; i < m->count; i++) {
		int64_t w = latest_start - r[i].c.ts;
		sum_wait += w;
		if (w >= max_wait) { /* ties: the highest rank */
			max_wait = w;
			m->earliest = r[i].rank;
		}
		if (w < min_wait) { /* ties: the lowest rank */
			min_wait = w;
			m->latest = r[i].rank;
		}
	}
	m->latency = (double)lat / 1e3;
	m->skew_start = (double)max_wait / 1e3;
	m->avg_wait = (double)sum_wait / 1e3 / (double)m->count;
	m->skew_end = (double)(max_end - min_end) / 1e3;
	const tg_collective *c = &m->meta->c;
	m->full_mb = m->algo = m->bus = NAN;
	if (m->kind && !isnan(c->in_mb) && !isnan(c->out_mb)) {
		m->full_mb = !strcmp(m->kind, "allgather") ? c->out_mb : c->in_mb;
		m->algo = m->latency > 0 ? (m->full_mb / 1024) / (m->latency / 1e6) : NAN;
		if (c->group_size >= 0)
			m->bus = m->algo * tg_collectives_bus_factor(c->collective, c->group_size);
	}
}

static int cmp_match_order(const void *a, const void *b)
{
	const struct match *x = a, *y = b;
	int c = cmp_i64((int64_t)x->seen, (int64_t)y->seen);
	return c ? c : cmp_i64((int64_t)x->first, (int64_t)y->first);
}

/* The matching group's name: its process group, or "stream S". */
static void group_name(char *buf, size_t len, const struct rec *x)
{
	if (x->group)
		snprintf(buf, len, "%s", x->group);
	else
		snprintf(buf, len, "stream %lld", (long long)x->gstream);
}

/* Summary statistics of up to n values (NaN skipped). */
struct stats {
	double mean, median, min, max;
	size_t n;
};

static void stats_of(struct stats *s, double *vals, size_t n)
{
	size_t k = 0;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(vals[i])) {
			vals[k++] = vals[i];
			sum += vals[i];
		}
	s->n = k;
	if (!k)
		return;
	qsort(vals, k, sizeof(*vals), tg_cmp_double);
	s->mean = sum / (double)k;
	s->median = k % 2 ? vals[k / 2] : (vals[k / 2 - 1] + vals[k / 2]) / 2;
	s->min = vals[0];
	s->max = vals[k - 1];
}

/* Summary key: Collective name, dtype, In msg nelems. */
static int cmp_summary_key(const struct match *x, const struct match *y)
{
	const tg_collective *a = &x->meta->c, *b = &y->meta->c;
	int c;
	if ((c = cmp_str(a->collective, b->collective)) || (c = cmp_str(a->dtype, b->dtype)))
		return c;
	return cmp_i64(a->in_nelems, b->in_nelems);
}

static int cmp_summary(const void *a, const void *b)
{
	const struct match *const *x = a, *const *y = b;
	int c = cmp_summary_key(*x, *y);
	return c ? c : cmp_match_order(*x, *y);
}

struct sum_group {
	size_t first, count; /* range in the sorted pointer array */
	double total;
};

static int cmp_sum_group(const void *a, const void *b)
{
	const struct sum_group *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return cmp_i64((int64_t)x->first, (int64_t)y->first);
}

static int fill_summary(tg_table *t, const struct match *m, size_t nm)
{
	if (!nm)
		return 0;
	const struct match **p = tg_calloc(nm, sizeof(*p));
	struct sum_group *g = tg_calloc(nm, sizeof(*g));
	double *vals = tg_calloc(nm, sizeof(*vals));
	int rc = 0;
	if (!p || !g || !vals) {
		rc = TG_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < nm; i++)
		p[i] = &m[i];
	qsort(p, nm, sizeof(*p), cmp_summary);
	size_t ng = 0;
	for (size_t i = 0; i < nm; i++) {
		if (!i || cmp_summary_key(p[i - 1], p[i]))
			g[ng++] = (struct sum_group){i, 0, 0};
		g[ng - 1].count++;
		g[ng - 1].total += p[i]->latency;
	}
	qsort(g, ng, sizeof(*g), cmp_sum_group);
	for (size_t k = 0; k < ng && !rc; k++) {
		const struct match *const *q = &p[g[k].first];
		size_t cnt = g[k].count;
		const tg_collective *c = &q[0]->meta->c;
		int64_t row = tg_table_add_row(t);
		if (row < 0) {
			rc = TG_ENOMEM;
			break;
		}
		size_t r = (size_t)row;
		if (tg_table_set_str(t, r, 0, c->collective ? c->collective : "Unknown") ||
		    tg_table_set_str(t, r, 1, c->dtype ? c->dtype : "Unknown"))
			rc = TG_ENOMEM;
		if (c->in_nelems >= 0)
			tg_table_set_int(t, r, 2, c->in_nelems);
		else if (tg_table_set_str(t, r, 2, "Unknown"))
			rc = TG_ENOMEM;
		char gb[256];
		group_name(gb, sizeof(gb), q[0]->meta);
		set_opt_str(t, r, 3, gb, &rc);
		set_opt_int(t, r, 4, c->group_size);
		set_opt_num(t, r, 5, q[0]->full_mb);
		for (int f = 0; f < 5; f++) {
			for (size_t i = 0; i < cnt; i++) {
				const struct match *x = q[i];
				vals[i] = f == 0   ? x->latency
				          : f == 1 ? x->skew_start
				          : f == 2 ? x->skew_end
				          : f == 3 ? x->algo
				                   : x->bus;
			}
			struct stats s;
			stats_of(&s, vals, cnt);
			if (s.n) {
				tg_table_set_num(t, r, 6 + 4 * (size_t)f, s.mean);
				tg_table_set_num(t, r, 7 + 4 * (size_t)f, s.median);
				tg_table_set_num(t, r, 8 + 4 * (size_t)f, s.min);
				tg_table_set_num(t, r, 9 + 4 * (size_t)f, s.max);
			}
		}
		tg_table_set_int(t, r, 26, (int64_t)cnt);
		double tot = 0;
		for (size_t i = 0; i < cnt; i++) /* in collective order, as pandas sums */
			tot += q[i]->latency;
		tg_table_set_num(t, r, 27, tot / 1000);
	}
done:
	free(p);
	free(g);
	free(vals);
	return rc;
}

struct rank_wait {
	int64_t rank;
	double total_wait, nccl_dur; /* us */
	size_t present, last, first;
};

static int cmp_rank_wait(const void *a, const void *b)
{
	const struct rank_wait *x = a, *y = b;
	if (x->total_wait != y->total_wait)
		return x->total_wait < y->total_wait ? -1 : 1;
	return cmp_i64(x->rank, y->rank);
}

static const char *const sync_cols[] = {
	"collective_id", "Process Group Name", "Process Group Ranks", "Collective name",
	"Group size", "dtype", "In msg nelems", "Out msg nelems", "In msg size (MB)",
	"Out msg size (MB)", "Full msg size (MB)", "ranks", "comm_latency", "skew in start time",
	"earliest arrival rank", "latest arrival rank", "avg_wait_time", "skew in end time",
	"algo bw (GB/s)", "bus bw (GB/s)", NULL};

static const char *const summary_cols[] = {
	"Collective name", "dtype", "In msg nelems", "Process Group Name", "Group size",
	"Full msg size (MB)", "comm_latency_mean", "comm_latency_median", "comm_latency_min",
	"comm_latency_max", "skew in start time_mean", "skew in start time_median",
	"skew in start time_min", "skew in start time_max", "skew in end time_mean",
	"skew in end time_median", "skew in end time_min", "skew in end time_max",
	"algo bw (GB/s)_mean", "algo bw (GB/s)_median", "algo bw (GB/s)_min", "algo bw (GB/s)_max",
	"bus bw (GB/s)_mean", "bus bw (GB/s)_median", "bus bw (GB/s)_min", "bus bw (GB/s)_max",
	"count", "Total comm latency (ms)", NULL};

static const char *const straggler_cols[] = {
	"rank", "total_wait_time_us", "mean_wait_time_us", "times_arrived_last",
	"times_arrived_first", "pct_arrived_last", "num_collectives", "total_nccl_dur_us",
	"straggler", NULL};

static int fill_sync(tg_table *t, const struct match *m, size_t nm, const struct rec *v)
{
	int rc = 0;
	for (size_t k = 0; k < nm && !rc; k++) {
		const struct match *x = &m[k];
		const tg_collective *c = &x->meta->c;
		int64_t row = tg_table_add_row(t);
		if (row < 0)
			return TG_ENOMEM;
		size_t r = (size_t)row;
		char gb[256], id[300];
		group_name(gb, sizeof(gb), x->meta);
		snprintf(id, sizeof(id), "%s_%lld", gb, (long long)v[x->first].index);
		set_opt_str(t, r, 0, id, &rc);
		set_opt_str(t, r, 1, gb, &rc);
		set_opt_str(t, r, 2, c->pg_ranks, &rc);
		set_opt_str(t, r, 3, c->collective, &rc);
		set_opt_int(t, r, 4, c->group_size);
		set_opt_str(t, r, 5, c->dtype, &rc);
		set_opt_int(t, r, 6, c->in_nelems);
		set_opt_int(t, r, 7, c->out_nelems);
		set_opt_num(t, r, 8, c->in_mb);
		set_opt_num(t, r, 9, c->out_mb);
		set_opt_num(t, r, 10, x->full_mb);
		tg_table_set_int(t, r, 11, (int64_t)x->count);
		tg_table_set_num(t, r, 12, x->latency);
		tg_table_set_num(t, r, 13, x->skew_start);
		tg_table_set_int(t, r, 14, x->earliest);
		tg_table_set_int(t, r, 15, x->latest);
		tg_table_set_num(t, r, 16, x->avg_wait);
		tg_table_set_num(t, r, 17, x->skew_end);
		set_opt_num(t, r, 18, x->algo);
		set_opt_num(t, r, 19, x->bus);
	}
	return rc;
}

static int fill_straggler(tg_table *t, int64_t *straggler, const struct match *m, size_t nm,
                          const struct rec *v, size_t nv)
{
	*straggler = -1;
	/* the distinct ranks, ascending (v is sorted by group, index, rank: collect and sort) */
	struct rank_wait *w = NULL;
	size_t nw = 0, cap = 0;
	for (size_t i = 0; i < nv; i++) {
		size_t j = 0;
		while (j < nw && w[j].rank != v[i].rank)
			j++;
		if (j == nw) {
			if (tg_grow((void **)&w, &cap, nw + 1, sizeof(*w))) {
				free(w);
				return TG_ENOMEM;
			}
			memset(&w[nw], 0, sizeof(*w));
			w[nw++].rank = v[i].rank;
		}
		if (v[i].in_step)
			w[j].nccl_dur += (double)v[i].c.dur / 1e3;
	}
	for (size_t k = 0; k < nm; k++) {
		const struct match *x = &m[k];
		int64_t latest_start = INT64_MIN;
		for (size_t i = 0; i < x->count; i++)
			if (v[x->first + i].c.ts > latest_start)
				latest_start = v[x->first + i].c.ts;
		for (size_t i = 0; i < x->count; i++) {
			const struct rec *r = &v[x->first + i];
			for (size_t j = 0; j < nw; j++)
				if (w[j].rank == r->rank) {
					w[j].total_wait += (double)(latest_start - r->c.ts) / 1e3;
					w[j].present++;
					w[j].last += x->latest == r->rank;
					w[j].first += x->earliest == r->rank;
				}
		}
	}
	if (nw)
		qsort(w, nw, sizeof(*w), cmp_rank_wait);
	for (size_t j = 0; j < nw; j++)
		if (nw > 1 && nm && 2 * w[j].last > nm)
			*straggler = w[j].rank;
	int rc = 0;
	for (size_t j = 0; j < nw && nm; j++) {
		int64_t row = tg_table_add_row(t);
		if (row < 0) {
			rc = TG_ENOMEM;
			break;
		}
		size_t r = (size_t)row;
		tg_table_set_int(t, r, 0, w[j].rank);
		tg_table_set_num(t, r, 1, w[j].total_wait);
		if (w[j].present)
			tg_table_set_num(t, r, 2, w[j].total_wait / (double)w[j].present);
		tg_table_set_int(t, r, 3, (int64_t)w[j].last);
		tg_table_set_int(t, r, 4, (int64_t)w[j].first);
		tg_table_set_num(t, r, 5, 100.0 * (double)w[j].last / (double)nm);
		tg_table_set_int(t, r, 6, (int64_t)nm);
		tg_table_set_num(t, r, 7, w[j].nccl_dur);
		tg_table_set_int(t, r, 8, w[j].rank == *straggler);
	}
	free(w);
	return rc;
}

/* Whether the matched collective at v[first..first+count) belongs to the
 * selected step: 1 when its kernel falls in the step on every rank, 0 when
 * on none, -1 when on some ranks only (it straddles a step boundary). */
static int match_in_step(const struct rec *v, size_t count)
{
	size_t in = 0;
	for (size_t i = 0; i < count; i++)
		in += v[i].in_step != 0;
	return in == count ? 1 : in ? -1 : 0;
}

/* The group of every collective (its process group; with no process group
 * name anywhere, TraceLens's simplified mode: "all", or its stream when a
 * rank has several streams; info->simplified) and its gather position. */
static void assign_groups(struct rec *v, size_t nv, tg_collectives_sync_info *info)
{
	/* Simplified mode: no process group name anywhere. Several streams
	 * on one rank? (v is rank-major) */
	int pg_missing = 1, multi_stream = 0;
	for (size_t i = 0; i < nv; i++)
		if (v[i].c.pg_name && strcmp(v[i].c.pg_name, "Unknown_Group"))
			pg_missing = 0;
	for (size_t i = 0, s = 0; i < nv; i++) {
		if (v[i].rank != v[s].rank)
			s = i;
		if (v[i].c.stream != v[s].c.stream)
			multi_stream = 1;
	}
	info->simplified = pg_missing && nv;
	for (size_t i = 0; i < nv; i++) {
		v[i].pos = i; /* gather order: rank-major, start order */
		if (!pg_missing)
			v[i].group = v[i].c.pg_name ? v[i].c.pg_name : "Unknown_Group";
		else if (!multi_stream)
			v[i].group = "all";
		else {
			v[i].group = NULL;
			v[i].gstream = v[i].c.stream;
		}
	}
}

/* Each collective's index in its (group, rank) by start time, and pos
 * becomes its group's first gather position; then v is sorted so that a
 * match (group, index) is a run, in output order (cmp_match). */
static void number_in_groups(struct rec *v, size_t nv)
{
	/* index_in_group: position by start time within (group, rank) */
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_group_rank_pos);
	for (size_t i = 0; i < nv; i++)
		v[i].index = i && !cmp_group(&v[i - 1], &v[i]) && v[i - 1].rank == v[i].rank
		                     ? v[i - 1].index + 1
		                     : 0;
	/* first gather position of each group, for ordering the output */
	for (size_t i = 0, s = 0; i < nv; i++) {
		if (!i || cmp_group(&v[i - 1], &v[i])) {
			s = v[i].pos;
			for (size_t j = i; j < nv && !cmp_group(&v[i], &v[j]); j++)
				if (v[j].pos < s)
					s = v[j].pos;
		}
		v[i].pos = s; /* from here on: the group's first position */
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_match);
}

/* The matched collectives kept into m (nm of them, in output order): in
 * the step on every rank, of an implicit-sync kind (any kind in simplified
 * mode), with the same metadata on every rank (not checked in simplified
 * mode); info counts what was skipped and why. */
static void match_collectives(struct match *m, size_t *nm, struct rec *v, size_t nv, tg_collectives_sync_info *info)
{
	*nm = 0;
	for (size_t i = 0; i < nv;) {
		size_t j = i + 1;
		while (j < nv && !cmp_group(&v[i], &v[j]) && v[j].index == v[i].index)
			j++;
		struct match x = {.first = i, .count = j - i, .seen = v[i].pos, .meta = &v[i]};
		int in = match_in_step(&v[i], j - i);
		if (!in) { /* not in the step on any rank */
			i = j;
			continue;
		}
		x.kind = tg_collectives_kind(v[i].c.collective);
		/* simplified mode keeps unknown kinds too (TraceLens: broadcast,
		 * unnamed kernels), the default mode implicit-sync kinds only */
		int keep = is_implicit_sync(x.kind) || (info->simplified && !x.kind);
		if (keep) {
			for (size_t k = i + 1; k < j; k++)
				if (!info->simplified && meta_differs(&v[i], &v[k]))
					keep = 0;
			if (!keep)
				info->skipped_mismatch++;
		}
		if (keep && in < 0) { /* straddles the step: in it on some ranks only */
			keep = 0;
			info->skipped_step++;
		}
		if (keep) {
			measure(&x, &v[i]);
			m[(*nm)++] = x;
		}
		i = j;
	}
	if (*nm)
		qsort(m, *nm, sizeof(*m), cmp_match_order);
}

int tg_collectives_sync_tables(tg_table *out[3], tg_collectives_sync_info *info,
                               const tg_tree *const *trees, size_t n, int64_t step)
{
	tg_collectives_sync_info dummy;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	info->straggler = -1;
	out[0] = out[1] = out[2] = NULL;
	struct rec *v = NULL;
	size_t nv = 0;
	struct match *m = NULL;
	size_t nm = 0;
	int rc = gather(&v, &nv, trees, n, step);
	if (rc)
		return rc;

	/* Matching runs over the whole traces, so that a step's collectives
	 * keep the ids (group, index) they have in the whole-trace tables;
	 * the step filter applies to the matched collectives below. */
	assign_groups(v, nv, info);
	number_in_groups(v, nv);
	m = tg_calloc(nv ? nv : 1, sizeof(*m));
	if (!m) {
		rc = TG_ENOMEM;
		goto done;
	}
	match_collectives(m, &nm, v, nv, info);
	info->matched = nm;
	out[0] = tg_table_new_cols("nccl_implicit_sync", "Collectives matched across ranks", sync_cols);
	out[1] = tg_table_new_cols("nccl_summary_implicit_sync",
	                           "Matched collectives by name, dtype and size", summary_cols);
	out[2] = tg_table_new_cols("nccl_straggler_summary", "Wait time and late arrivals per rank",
	                           straggler_cols);
	if (!out[0] || !out[1] || !out[2])
		rc = TG_ENOMEM;
	if (!rc)
		rc = fill_sync(out[0], m, nm, v);
	if (!rc)
		rc = fill_summary(out[1], m, nm);
	if (!rc)
		rc = fill_straggler(out[2], &info->straggler, m, nm, v, nv);
done:
	free(v);
	free(m);
	if (rc) {
		for (int i = 0; i < 3; i++) {
			tg_table_free(out[i]);
			out[i] = NULL;
		}
		return fail_nomem();
	}
	return 0;
}
