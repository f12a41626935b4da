/*
 * launch_stats.c - launch statistics, memory bandwidth and frequent kernel
 * sequences (see launch_stats.h; the queue lengths are launch_queue.c's).
 * Each is a pass over the selected device events; the summary keeps one
 * 8-byte delay a launch (for the median), and only the per-launch table,
 * which the report leaves out, holds a 24-byte record a launch, sorted.
 */
#include "launch_stats.h"
#include "launch_stats_impl.h"
#include "../../util/buf.h"
#include "../../util/sort.h"
#include "../trace/kernel_class.h"
#include "../tree/step_filter.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A launch for the per-launch table: 24 bytes, the rest read from the
 * trace when its row is written. */
struct launch {
	int64_t lts, ts; /* the launch call's start, the device event's */
	uint32_t launch, ev;
};

struct launches {
	struct launch *v;
	size_t n;
};

/* Launches by (launch start, kernel start); collect() appends them in
 * event order, which the stable sort keeps for ties. */
static uint64_t launch_key(const void *el, int level, void *ctx)
{
	(void)ctx;
	const struct launch *x = el;
	return tg_sort_key_i64(level == 0 ? x->lts : x->ts);
}

/* The number of device events of t (a bound on the launches). */
static size_t device_events(const tg_trace *t)
{
	size_t ne, cnt = 0;
	const tg_event *ev = tg_trace_events(t, &ne);
	for (size_t i = 0; i < ne; i++)
		cnt += tg_kind_is_gpu(ev[i].kind);
	return cnt;
}

/* Selected device events with a launch (nlaunch of them), by launch start. */
static int collect(struct launches *l, const tg_step_filter *f, size_t nlaunch)
{
	memset(l, 0, sizeof(*l));
	const tg_trace *t = tg_tree_trace(f->tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	l->v = tg_malloc((nlaunch + 1) * sizeof(*l->v));
	if (!l->v)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		uint32_t p = tg_launch_of(f, ev, i);
		if (p == TG_NONE)
			continue;
		struct launch *x = &l->v[l->n++];
		int64_t end;
		tg_step_filter_span(f, &ev[p], &x->lts, &end);
		tg_step_filter_span(f, &ev[i], &x->ts, &end);
		x->launch = p;
		x->ev = (uint32_t)i;
	}
	int rc = tg_sort_by_keys(l->v, l->n, sizeof(*l->v), 2, launch_key, NULL);
	if (rc) {
		free(l->v);
		l->v = NULL;
	}
	return rc;
}

static int64_t delay_of(int64_t ts, int64_t lend)
{
	return ts > lend ? ts - lend : 0;
}

/* The summary of the launches f selects, in one pass over the trace (every
 * sum an integer, the median a value: the order does not matter); ndev:
 * the trace's device events. */
static int summarize(tg_launch_summary *s, const tg_step_filter *f, size_t ndev)
{
	memset(s, 0, sizeof(*s));
	const tg_trace *t = tg_tree_trace(f->tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	int64_t *d = tg_malloc((ndev + 1) * sizeof(int64_t));
	if (!d)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		uint32_t p = tg_launch_of(f, ev, i);
		if (p == TG_NONE)
			continue;
		int64_t lts, lend, ts, end;
		tg_step_filter_span(f, &ev[p], &lts, &lend);
		tg_step_filter_span(f, &ev[i], &ts, &end);
		int64_t cpu = lend - lts, gpu = end - ts, delay = delay_of(ts, lend);
		d[s->launches++] = delay;
		s->short_kernels += cpu <= TG_LAUNCH_RUNTIME_CUTOFF_NS && gpu < cpu;
		s->runtime_outliers += cpu > TG_LAUNCH_RUNTIME_CUTOFF_NS;
		s->delay_outliers += delay > TG_LAUNCH_DELAY_CUTOFF_NS;
		s->sum_cpu_ns += cpu;
		s->sum_gpu_ns += gpu;
		s->sum_delay_ns += delay;
		s->max_delay_ns = delay > s->max_delay_ns ? delay : s->max_delay_ns;
	}
	if (s->launches)
		s->median_delay_ns = tg_median_i64(d, s->launches);
	free(d);
	return 0;
}

int tg_launch_stats_summary(tg_launch_summary *out, const tg_tree *tree, int32_t step)
{
	memset(out, 0, sizeof(*out));
	tg_step_filter f;
	int rc = tg_step_filter_init(&f, tree, step);
	return rc ? rc : summarize(out, &f, device_events(tg_tree_trace(tree)));
}

/* ---- tables ---- */

static double us(int64_t ns) { return (double)ns / 1000.0; }

static tg_table *summary_table(const tg_launch_summary *s)
{
	static const char *const cols[] = {
		"launches", "short_kernels", "runtime_outliers", "launch_delay_outliers",
		"sum_cpu_duration(us)", "sum_gpu_duration(us)", "sum_launch_delay(us)",
		"mean_launch_delay(us)", "median_launch_delay(us)", "max_launch_delay(us)", NULL};
	tg_table *t = tg_table_new_cols("kernel_launch_summary", "Kernel launch statistics", cols);
	if (!t || tg_table_add_row(t) < 0) {
		tg_table_free(t);
		return NULL;
	}
	tg_table_set_int(t, 0, 0, (int64_t)s->launches);
	tg_table_set_int(t, 0, 1, (int64_t)s->short_kernels);
	tg_table_set_int(t, 0, 2, (int64_t)s->runtime_outliers);
	tg_table_set_int(t, 0, 3, (int64_t)s->delay_outliers);
	tg_table_set_num(t, 0, 4, us(s->sum_cpu_ns));
	tg_table_set_num(t, 0, 5, us(s->sum_gpu_ns));
	tg_table_set_num(t, 0, 6, us(s->sum_delay_ns));
	if (s->launches) {
		tg_table_set_num(t, 0, 7, (double)s->sum_delay_ns / (double)s->launches / 1000.0);
		tg_table_set_num(t, 0, 8, s->median_delay_ns / 1000.0);
		tg_table_set_num(t, 0, 9, us(s->max_delay_ns));
	}
	return t;
}

static tg_table *rows_table(const struct launches *l, const tg_step_filter *f)
{
	const tg_tree *tree = f->tree;
	static const char *const cols[] = {"step", "launch", "kernel", "correlation", "device",
	                                   "stream", "cpu_duration(us)", "gpu_duration(us)",
	                                   "launch_delay(us)", NULL};
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne, ns;
	const tg_event *ev = tg_trace_events(t, &ne);
	const tg_step *steps = tg_tree_steps(tree, &ns);
	tg_table *tab = tg_table_new_cols("kernel_launches", "Kernel launches", cols);
	if (!tab)
		return NULL;
	for (size_t i = 0; i < l->n; i++) {
		const struct launch *x = &l->v[i];
		int64_t r = tg_table_add_row(tab);
		if (r < 0 || tg_table_set_str(tab, (size_t)r, 1, tg_trace_str(t, ev[x->launch].name)) ||
		    tg_table_set_str(tab, (size_t)r, 2, tg_trace_str(t, ev[x->ev].name))) {
			tg_table_free(tab);
			return NULL;
		}
		size_t row = (size_t)r;
		int64_t lts, lend, ts, end;
		tg_step_filter_span(f, &ev[x->launch], &lts, &lend);
		tg_step_filter_span(f, &ev[x->ev], &ts, &end);
		int32_t s = tg_tree_step_of(tree, x->ev);
		if (s >= 0 && (size_t)s < ns)
			tg_table_set_int(tab, row, 0, steps[s].number);
		if (ev[x->launch].flags & TG_EV_HAS_CORR)
			tg_table_set_int(tab, row, 3, tg_event_corr(t, &ev[x->launch]));
		tg_table_set_int(tab, row, 4, tg_kernel_device(t, &ev[x->ev]));
		tg_table_set_int(tab, row, 5, tg_kernel_stream(t, &ev[x->ev]));
		tg_table_set_num(tab, row, 6, us(lend - lts));
		tg_table_set_num(tab, row, 7, us(end - ts));
		tg_table_set_num(tab, row, 8, us(delay_of(ts, lend)));
	}
	return tab;
}

#define MAX_MEM_KINDS 64

struct memkind {
	char name[16];
	uint64_t count;
	int64_t bytes, time_ns, time_with_bytes_ns;
	double max_gbps;
};

void tg_launch_memory_kind(char out[16], const char *name, int kind)
{
	if (strncmp(name, "Memset", 6) == 0 || (kind == TG_KIND_MEMSET && strncmp(name, "Memcpy", 6))) {
		strcpy(out, "Memset");
	} else if (strncmp(name, "Memcpy", 6) == 0) {
		size_t n = strlen(name);
		n = n < 11 ? n : 11;
		memcpy(out, name, n);
		out[n] = 0;
	} else {
		strcpy(out, "Memcpy Unknown");
	}
}

static int cmp_memkind(const void *a, const void *b)
{
	return strcmp(((const struct memkind *)a)->name, ((const struct memkind *)b)->name);
}

static tg_table *bandwidth_table(const tg_step_filter *f)
{
	static const char *const cols[] = {"memory_kind", "count", "bytes", "time(us)",
	                                   "achieved_gbps", "max_gbps", NULL};
	const tg_trace *t = tg_tree_trace(f->tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	uint32_t bytes_key = tg_trace_key(t, "bytes");
	struct memkind k[MAX_MEM_KINDS];
	size_t nk = 0;
	tg_table *tab = tg_table_new_cols("memory_bandwidth", "Memcpy and memset bandwidth", cols);
	if (!tab)
		return NULL;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!tg_kind_is_gpu(e->kind))
			continue;
		const char *name = tg_trace_str(t, e->name);
		if (tg_kernel_class_of(t, e) != TG_KERNEL_MEMORY ||
		    !tg_step_filter_has(f, (uint32_t)i))
			continue;
		char kn[16];
		tg_launch_memory_kind(kn, name, e->kind);
		size_t j = 0;
		while (j < nk && strcmp(k[j].name, kn))
			j++;
		if (j == nk) {
			if (nk == MAX_MEM_KINDS)
				continue; /* cannot happen: names are at most 11 characters of "Memcpy ..." */
			memset(&k[nk], 0, sizeof(k[nk]));
			k[nk].max_gbps = -1;
			strcpy(k[nk++].name, kn);
		}
		int64_t ts, end, b;
		tg_step_filter_span(f, e, &ts, &end);
		k[j].count++;
		k[j].time_ns += end - ts;
		if (tg_arg_int(t, tg_event_arg(t, e, bytes_key), &b) == 0) {
			k[j].bytes += b;
			k[j].time_with_bytes_ns += end - ts;
			if (end > ts && (double)b / (double)(end - ts) > k[j].max_gbps)
				k[j].max_gbps = (double)b / (double)(end - ts);
		}
	}
	qsort(k, nk, sizeof(k[0]), cmp_memkind);
	for (size_t j = 0; j < nk; j++) {
		int64_t r = tg_table_add_row(tab);
		if (r < 0 || tg_table_set_str(tab, (size_t)r, 0, k[j].name)) {
			tg_table_free(tab);
			return NULL;
		}
		size_t row = (size_t)r;
		tg_table_set_int(tab, row, 1, (int64_t)k[j].count);
		tg_table_set_int(tab, row, 2, k[j].bytes);
		tg_table_set_num(tab, row, 3, us(k[j].time_ns));
		tg_table_set_num(tab, row, 4, k[j].time_with_bytes_ns > 0
		                                  ? (double)k[j].bytes / (double)k[j].time_with_bytes_ns
		                                  : NAN);
		tg_table_set_num(tab, row, 5, k[j].max_gbps >= 0 ? k[j].max_gbps : NAN);
	}
	return tab;
}

/* ---- frequent kernel sequences ---- */

struct frame {
	uint32_t node;
	uint32_t next;     /* next child to visit; 0: not entered yet */
	uint32_t first;    /* device events seen before the node */
	int64_t gpu_first; /* their GPU time */
};

/* One distinct (op, kernel sequence), accumulated over its calls. */
struct group {
	uint32_t op_name;
	uint32_t len;
	const uint32_t *seq; /* kernel name atoms of its first call (in tree order) */
	uint64_t hash;
	uint64_t count;
	int64_t gpu_ns, cpu_ns;
	uint64_t calls; /* calls of the op (all groups of the op) */
};

struct out_row {
	const char *op;
	uint32_t rank;
	const struct group *g;
};

/* By op, then the op's most frequent sequence first (then most GPU time,
 * then first seen). */
static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->op_name != y->op_name)
		return x->op_name < y->op_name ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->gpu_ns != y->gpu_ns)
		return x->gpu_ns > y->gpu_ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_out_row(const void *a, const void *b)
{
	const struct out_row *x = a, *y = b;
	int c = strcmp(x->op, y->op);
	if (c)
		return c;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The groups, found by hash: the calls are not kept (one a cpu_op with
 * device work: millions in a large trace), only the distinct sequences. */
struct groups {
	struct group *v;
	size_t n, cap;
	uint32_t *slot; /* index + 1, 0 empty */
	size_t mask;
};

static int groups_add(struct groups *G, uint32_t op, const uint32_t *seq, uint32_t len, int64_t gpu, int64_t cpu)
{
	uint64_t h = tg_hash_bytes(seq, len * sizeof(uint32_t)) ^ ((uint64_t)op * 0x9E3779B97F4A7C15ULL) ^ len;
	if ((G->n + 1) * 2 > G->mask + 1) {
		size_t nm = G->mask ? (G->mask + 1) * 2 : 1024;
		uint32_t *ns = tg_calloc(nm, sizeof(uint32_t));
		if (!ns)
			return TG_ENOMEM;
		for (size_t i = 0; i < G->n; i++) {
			size_t k = (size_t)G->v[i].hash & (nm - 1);
			while (ns[k])
				k = (k + 1) & (nm - 1);
			ns[k] = (uint32_t)i + 1;
		}
		free(G->slot);
		G->slot = ns;
		G->mask = nm - 1;
	}
	size_t k = (size_t)h & G->mask;
	for (; G->slot[k]; k = (k + 1) & G->mask) {
		struct group *g = &G->v[G->slot[k] - 1];
		if (g->hash == h && g->op_name == op && g->len == len && !memcmp(g->seq, seq, len * sizeof(uint32_t))) {
			g->count++;
			g->gpu_ns += gpu;
			g->cpu_ns += cpu;
			if (seq < g->seq)
				g->seq = seq;
			return 0;
		}
	}
	if (tg_grow((void **)&G->v, &G->cap, G->n + 1, sizeof(struct group)))
		return TG_ENOMEM;
	G->v[G->n] = (struct group){op, len, seq, h, 1, gpu, cpu, 0};
	G->slot[k] = (uint32_t)++G->n;
	return 0;
}

#define TOP_SEQUENCES 5

/* One depth-first walk of the tree in tree order (children by start time),
 * where the device events under a node are a contiguous run of names
 * (room for every event; G's groups point into it, so it lives as long as
 * they do): every cpu_op of the step with device work under it adds its
 * kernel sequence, GPU time and CPU time to G. 0 or -1 (out of memory). */
static int group_sequences(struct groups *G, uint32_t *names, const tg_step_filter *f)
{
	const tg_tree *tree = f->tree;
	size_t ne, nroots;
	const tg_event *ev = tg_trace_events(tg_tree_trace(tree), &ne);
	const uint32_t *roots = tg_tree_roots(tree, &nroots);
	int64_t gpu = 0; /* GPU time of the device events seen so far */
	struct frame *stack = NULL;
	size_t nd = 0, sp = 0, scap = 0;
	int rc = -1;
	for (size_t r = 0; r < nroots; r++) {
		if (tg_grow((void **)&stack, &scap, 1, sizeof(*stack)))
			goto out;
		stack[0] = (struct frame){roots[r], 0, 0, 0};
		sp = 1;
		while (sp) {
			struct frame *fr = &stack[sp - 1];
			if (fr->next == 0) {
				fr->first = (uint32_t)nd;
				fr->gpu_first = gpu;
				const tg_event *e = &ev[fr->node];
				if (tg_kind_is_gpu(e->kind)) {
					int64_t ts, end;
					tg_step_filter_span(f, e, &ts, &end);
					names[nd++] = e->name;
					gpu += end - ts;
				}
			}
			uint32_t c = tg_tree_child(tree, fr->node, fr->next);
			if (c != TG_NONE) {
				fr->next++;
				if (tg_grow((void **)&stack, &scap, sp + 1, sizeof(*stack)))
					goto out;
				stack[sp++] = (struct frame){c, 0, 0, 0};
				continue;
			}
			/* leaving the node */
			const tg_event *e = &ev[fr->node];
			if (e->kind == TG_KIND_CPU_OP && nd > fr->first && tg_step_filter_has(f, fr->node)) {
				int64_t ts, end;
				tg_step_filter_span(f, e, &ts, &end);
				if (groups_add(G, e->name, names + fr->first, (uint32_t)(nd - fr->first),
				               gpu - fr->gpu_first, end - ts))
					goto out;
			}
			sp--;
		}
	}
	rc = 0;
out:
	free(stack);
	return rc;
}

/* The rows of the table into rows (*nr): of each op, its TOP_SEQUENCES
 * most frequent sequences ranked 1, 2, ..., each knowing the op's calls;
 * then in output order. G is sorted (op, most frequent first) on entry. */
static void top_sequences(struct out_row *rows, size_t *nr, struct groups *G, const tg_trace *t)
{
	*nr = 0;
	for (size_t i = 0; i < G->n;) {
		/* the groups of one op: i..j, most frequent first */
		size_t j = i;
		uint64_t calls = 0;
		for (; j < G->n && G->v[j].op_name == G->v[i].op_name; j++)
			calls += G->v[j].count;
		for (size_t g = i; g < j && g < i + TOP_SEQUENCES; g++) {
			G->v[g].calls = calls;
			const char *op = tg_trace_str(t, G->v[i].op_name);
			rows[(*nr)++] = (struct out_row){op, (uint32_t)(g - i + 1), &G->v[g]};
		}
		i = j;
	}
	if (*nr > 1)
		qsort(rows, *nr, sizeof(*rows), cmp_out_row);
}

/* One row of frequent_kernel_sequences; buf (reused from row to row)
 * holds the sequence " | "-joined, as far as *left (the bytes the column
 * may still take, TG_LAUNCH_SEQ_TEXT_MAX in all) allows, then what was
 * left out counted. 0 or -1 (out of memory). */
static int sequence_row(tg_table *tab, const struct out_row *o, const tg_trace *t, tg_buf *buf, size_t *left)
{
	const struct group *g = o->g;
	tg_buf_reset(buf);
	uint32_t k = 0;
	const tg_atoms *atoms = tg_trace_atoms(t);
	for (; k < g->len; k++) {
		/* the name's length from its atom: one strlen a kernel of a
		 * 650 KB table was counted twice */
		size_t n = tg_atoms_len(atoms, g->seq[k]);
		if (buf->len + n + 3 > *left)
			break;
		if (k)
			tg_buf_append(buf, " | ", 3);
		tg_buf_append(buf, tg_trace_str(t, g->seq[k]), n);
	}
	if (k < g->len)
		tg_buf_appendf(buf, "%s... (%" PRIu32 " more kernel%s)", k ? " | " : "", g->len - k, g->len - k > 1 ? "s" : "");
	*left = buf->len < *left ? *left - buf->len : 0;
	if (tg_buf_error(buf))
		return -1;
	int64_t r = tg_table_add_row(tab);
	if (r < 0 || tg_table_set_str(tab, (size_t)r, 0, o->op) ||
	    tg_table_set_strn(tab, (size_t)r, 8, tg_buf_str(buf), buf->len))
		return -1;
	size_t row = (size_t)r;
	tg_table_set_int(tab, row, 1, o->rank);
	tg_table_set_int(tab, row, 2, (int64_t)g->count);
	tg_table_set_int(tab, row, 3, (int64_t)g->calls);
	tg_table_set_int(tab, row, 4, g->len);
	tg_table_set_num(tab, row, 5, us(g->gpu_ns));
	tg_table_set_num(tab, row, 6, (double)g->gpu_ns / (double)g->count / 1000.0);
	tg_table_set_num(tab, row, 7, us(g->cpu_ns));
	return 0;
}

static tg_table *sequences_table(const tg_step_filter *f, size_t ndev)
{
	static const char *const cols[] = {"op", "rank", "count", "calls", "num_kernels",
	                                   "gpu_time(us)", "gpu_time_mean(us)", "cpu_time(us)",
	                                   "kernels", NULL};
	const tg_trace *t = tg_tree_trace(f->tree);
	uint32_t *names = tg_malloc((ndev + 1) * sizeof(*names)); /* device events' names in tree order */
	struct groups G = {0};
	struct out_row *rows = NULL;
	tg_buf buf = TG_BUF_INIT;
	size_t nr = 0;
	tg_table *tab = tg_table_new_cols("frequent_kernel_sequences", "Kernel sequences launched by each op",
	                          cols);
	if (!tab || !names || group_sequences(&G, names, f))
		goto fail;
	if (G.n > 1)
		qsort(G.v, G.n, sizeof(*G.v), cmp_group);
	rows = tg_malloc((G.n + 1) * sizeof(*rows));
	if (!rows)
		goto fail;
	top_sequences(rows, &nr, &G, t);
	size_t left = TG_LAUNCH_SEQ_TEXT_MAX;
	for (size_t i = 0; i < nr; i++)
		if (sequence_row(tab, &rows[i], t, &buf, &left))
			goto fail;
	free(names);
	free(G.v);
	free(G.slot);
	free(rows);
	tg_buf_free(&buf);
	return tab;
fail:
	free(names);
	free(G.v);
	free(G.slot);
	free(rows);
	tg_buf_free(&buf);
	tg_table_free(tab);
	return NULL;
}

int tg_launch_stats_tables(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step)
{
	return tg_launch_stats_tables_ex(out, n, tree, step, 1);
}

int tg_launch_stats_tables_ex(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step, int with_rows)
{
	*out = NULL;
	*n = 0;
	tg_step_filter f;
	tg_launch_summary s;
	int rc = tg_step_filter_init(&f, tree, step);
	if (rc)
		return rc;
	enum { NT = 5 };
	tg_table **tabs = tg_calloc(NT, sizeof(*tabs));
	size_t ndev = device_events(tg_tree_trace(tree));
	int bad = !tabs || summarize(&s, &f, ndev) || !(tabs[0] = summary_table(&s));
	size_t k = 1;
	if (!bad && with_rows) {
		struct launches l;
		bad = collect(&l, &f, s.launches) || !(tabs[k++] = rows_table(&l, &f));
		free(l.v); /* each table's scratch goes before the next one's */
	}
	if (!bad)
		bad = !(tabs[k++] = tg_launch_queue_table(&f, s.launches)) || !(tabs[k++] = bandwidth_table(&f)) ||
		      !(tabs[k++] = sequences_table(&f, ndev));
	if (bad) {
		tg_tables_free(tabs, NT);
		return tg_error_set(TG_ENOMEM, "launch statistics: out of memory");
	}
	*out = tabs;
	*n = k;
	return 0;
}
