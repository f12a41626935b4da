/*
 * collectives_sync.c - collectives matched across ranks
 * (collectives.h: tg_collectives_sync_tables, after TraceLens's
 * NcclAnalyser): the same collective on every rank of its group, matched
 * by process group and index in it (by order when the traces carry no
 * process group metadata: "simplified"); for each, the latency, the skews
 * in start and end, the earliest and latest rank and the wait times and
 * bandwidths (nccl_implicit_sync; alltoallv, which does not synchronise
 * the ranks, is left out), their summary by collective, dtype and size,
 * and the straggler summary per rank. Matched collectives whose metadata
 * differ across ranks, or that fall in the selected step on some ranks
 * only, are left out and counted in the sync info.
 */
#include "collectives_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a collective of this kind synchronises its ranks. */
static int is_implicit_sync(const char *kind)
{
	return kind && strcmp(kind, "alltoallv") != 0;
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
	int rc = tg_collectives_gather(&v, &nv, trees, n, step);
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
