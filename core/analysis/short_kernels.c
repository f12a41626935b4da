/* short_kernels.c - histogram and summary of short kernels. */
#include "short_kernels.h"
#include "../../util/idmap.h"
#include "../trace/timebase.h"
#include "launchers.h"
#include "../trace/pyrepr.h"

#include <stdlib.h>
#include <string.h>

struct group {
	uint32_t op, dims, strides, concrete, kernel; /* atoms (TG_NONE: absent) */
	double sum;
	uint64_t count;
	uint32_t first;
};

static int cmp_sum_desc(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/* numpy.histogram(values, bins) with uniform bins over [min, max]. */
static int histogram(tg_table *t, const double *v, size_t n, int bins)
{
	if (!n)
		return 0;
	double lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	if (lo == hi) {
		lo -= 0.5;
		hi += 0.5;
	}
	double *edge = malloc((size_t)(bins + 1) * sizeof(double));
	uint64_t *count = calloc((size_t)bins, sizeof(uint64_t));
	if (!edge || !count) {
		free(edge);
		free(count);
		return TG_ENOMEM;
	}
	double step = (hi - lo) / bins;
	for (int i = 0; i <= bins; i++)
		edge[i] = lo + i * step;
	edge[bins] = hi;
	double norm = bins / (hi - lo);
	for (size_t i = 0; i < n; i++) {
		int k = (int)((v[i] - lo) * norm);
		if (k == bins)
			k--;
		if (v[i] < edge[k])
			k--;
		else if (k != bins - 1 && v[i] >= edge[k + 1])
			k++;
		count[k]++;
	}
	int rc = 0;
	for (int i = 0; i < bins && !rc; i++) {
		int64_t r = tg_table_add_row(t);
		if (r < 0) {
			rc = TG_ENOMEM;
			break;
		}
		tg_table_set_num(t, (size_t)r, 0, edge[i]);
		tg_table_set_num(t, (size_t)r, 1, edge[i + 1]);
		tg_table_set_int(t, (size_t)r, 2, (int64_t)count[i]);
	}
	free(edge);
	free(count);
	return rc;
}

static uint32_t arg_atom(const tg_trace *t, const tg_event *e, uint32_t key)
{
	const tg_arg *a = tg_event_arg(t, e, key);
	return a && (a->type == TG_ARG_RAW || a->type == TG_ARG_STR) ? a->v.atom : TG_NONE;
}

/* The groups of short kernels, found by a hash of their key. */
struct short_groups {
	struct group *g;
	size_t ng, gcap;
	tg_idmap *idx; /* hash of a key (probed linearly) -> group */
};

/* The group key of short kernel i into *key: with ops in the trace, its
 * launching op and the op's shape arguments (keys: the atoms of "Input
 * Dims", "Input Strides", "Concrete Inputs"), then its name. Returns 0 when
 * TraceLens's groupby drops the kernel (no launcher, or a shape missing). */
static int short_key(struct group *key, const tg_tree *tree, uint32_t i, int have_ops, const uint32_t keys[3],
                     int tracelens)
{
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	*key = (struct group){.op = TG_NONE, .dims = TG_NONE, .strides = TG_NONE, .concrete = TG_NONE,
	                      .kernel = ev[i].name};
	if (!have_ops)
		return 1;
	uint32_t l = tg_launcher_of(tree, i, tracelens);
	if (l == TG_NONE)
		return 0; /* no parent: TraceLens's groupby drops the row */
	key->op = ev[l].name;
	key->dims = arg_atom(t, &ev[l], keys[0]);
	key->strides = arg_atom(t, &ev[l], keys[1]);
	key->concrete = arg_atom(t, &ev[l], keys[2]);
	/* missing shapes are NaN keys: dropped too */
	return key->dims != TG_NONE && key->strides != TG_NONE && key->concrete != TG_NONE;
}

/* A kernel of duration d (us) counted into the group of key (new when
 * none has it yet). 0 or TG_ENOMEM. */
static int short_add(struct short_groups *G, const struct group *key, double d)
{
	uint32_t parts[5] = {key->op, key->dims, key->strides, key->concrete, key->kernel};
	int64_t hk = (int64_t)tg_hash_bytes(parts, sizeof(parts));
	uint32_t gi;
	for (;; hk++) {
		gi = tg_idmap_get(G->idx, hk);
		if (gi == TG_NONE || !memcmp(&G->g[gi], key, 5 * sizeof(uint32_t)))
			break;
	}
	if (gi == TG_NONE) {
		if (tg_grow((void **)&G->g, &G->gcap, G->ng + 1, sizeof(*G->g)))
			return TG_ENOMEM;
		gi = (uint32_t)G->ng++;
		G->g[gi] = *key;
		G->g[gi].first = gi;
		if (tg_idmap_put(G->idx, hk, gi) < 0)
			return TG_ENOMEM;
	}
	G->g[gi].sum += d;
	G->g[gi].count++;
	return 0;
}

/* Group g's row of short_kernels_summary (the op's columns with ops in the
 * trace; shapes as Python reprs, buf of 8192 bytes as scratch). 0 or -1. */
static int summary_row(tg_table *s, const struct group *g, const tg_trace *t, int have_ops, double total_time_us,
                       char *buf)
{
	int64_t r = tg_table_add_row(s);
	if (r < 0)
		return -1;
	size_t c = 0;
	if (have_ops) {
		uint32_t shape[3] = {g->dims, g->strides, g->concrete};
		if (tg_table_set_str(s, (size_t)r, c++, tg_trace_str(t, g->op)))
			return -1;
		for (int k = 0; k < 3; k++) {
			tg_pyrepr(buf, 8192, tg_trace_str(t, shape[k]));
			if (tg_table_set_str(s, (size_t)r, c++, buf))
				return -1;
		}
	}
	if (tg_table_set_str(s, (size_t)r, c++, tg_trace_str(t, g->kernel)))
		return -1;
	tg_table_set_num(s, (size_t)r, c++, g->sum);
	tg_table_set_int(s, (size_t)r, c++, (int64_t)g->count);
	tg_table_set_num(s, (size_t)r, c++, g->sum / (double)g->count);
	tg_table_set_num(s, (size_t)r, c++, total_time_us > 0 ? g->sum / total_time_us * 100 : 0);
	return 0;
}

int tg_short_kernel_tables(tg_table *out[2], const tg_tree *tree, const tg_short_kernel_opts *opts)
{
	out[0] = out[1] = NULL;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	double threshold = opts->threshold_us > 0 ? opts->threshold_us : 10.0;
	int bins = opts->bins > 0 ? opts->bins : 100;
	int have_ops = tg_trace_stats_get(t)->by_kind[TG_KIND_CPU_OP] > 0;
	const uint32_t keys[3] = {tg_trace_key(t, "Input Dims"), tg_trace_key(t, "Input Strides"),
	                          tg_trace_key(t, "Concrete Inputs")};
	int rc = TG_ENOMEM;
	size_t nk = 0;
	for (size_t i = 0; i < ne; i++)
		nk += ev[i].kind == TG_KIND_KERNEL;
	double *dur = tg_malloc((nk + 1) * sizeof(double)); /* the short kernels' */
	struct short_groups G = {NULL, 0, 64, tg_idmap_new(256)}; /* groups grow as they appear */
	G.g = tg_calloc(G.gcap, sizeof(*G.g));
	size_t nd = 0;
	tg_table *h = tg_table_new("short_kernel_histogram", "Short kernels: duration histogram (us)");
	tg_table *s = tg_table_new("short_kernels_summary", "Short kernels by launching op and kernel");
	out[0] = h;
	out[1] = s;
	if (!dur || !G.g || !G.idx || !h || !s)
		goto fail;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (e->kind != TG_KIND_KERNEL || (opts->step >= 0 && tg_tree_step_of(tree, (uint32_t)i) != opts->step))
			continue;
		double d = tg_ns_to_us_f64(tg_event_dur(t, e));
		if (!(d < threshold))
			continue;
		dur[nd++] = d;
		struct group key;
		if (!short_key(&key, tree, (uint32_t)i, have_ops, keys, opts->tracelens))
			continue;
		if (short_add(&G, &key, d))
			goto fail;
	}
	if (tg_table_add_column(h, "bin_start") < 0 || tg_table_add_column(h, "bin_end") < 0 ||
	    tg_table_add_column(h, "count") < 0 || histogram(h, dur, nd, bins))
		goto fail;
	static const char *const cols[] = {
		"Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs", "Kernel name",
		"Short Kernel duration (\xc2\xb5s) sum", "Short Kernel count",
		"Short Kernel duration (\xc2\xb5s) mean", "Short Kernel duration (\xc2\xb5s) percent of total time"};
	size_t first = have_ops ? 0 : 4;
	for (size_t c = first; c < 9; c++)
		if (tg_table_add_column(s, cols[c]) < 0)
			goto fail;
	qsort(G.g, G.ng, sizeof(*G.g), cmp_sum_desc);
	char buf[8192];
	for (size_t i = 0; i < G.ng; i++)
		if (summary_row(s, &G.g[i], t, have_ops, opts->total_time_us, buf))
			goto fail;
	rc = 0;
fail:
	if (rc) {
		tg_table_free(h);
		tg_table_free(s);
		out[0] = out[1] = NULL;
		tg_error_set(TG_ENOMEM, "out of memory");
	}
	free(dur);
	free(G.g);
	tg_idmap_free(G.idx);
	return rc;
}
