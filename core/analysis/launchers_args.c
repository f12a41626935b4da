/*
 * launchers_args.c - TraceLens's ops_unique_args table (launchers.h:
 * tg_launchers_unique_args): the launchers grouped by name, category,
 * process and thread and their recorded arguments (input dims, types,
 * strides, concrete inputs), each group with its count, the statistics of
 * its direct and subtree kernel times and its share of the direct time,
 * from the launchers launchers.c assigned.
 *
 * A group keeps its launchers as a chain through one array by launcher
 * (4 bytes each), in launcher order, and their times are read from the
 * launchers' list when its row is filled: two lists of doubles per group,
 * grown by doubling, were up to 32 bytes a launcher (6.7 MB at a gigabyte
 * of JSON, beside the launchers). The statistics see the same values in
 * the same order.
 */
#include "../trace/categorize.h"
#include "describe.h"
#include "launchers_impl.h"
#include "../trace/pyrepr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ua_key {
	uint32_t name, dims, type, strides, concrete, pname, plabel, tname;
	const char *category;
};

struct ua_group {
	struct ua_key key;
	uint32_t first;      /* smallest launcher event index: file order, TraceLens's ex_UID order */
	uint32_t head, tail; /* its first and last launcher (the chain goes through ua_groups.next) */
	size_t n;
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
	struct ua_group *g; /* grown as groups appear: they are few next to the launchers */
	size_t ng, gcap;
	tg_idmap *idx;   /* hash of a key (probed linearly) -> group */
	tg_atoms *names; /* process names and labels, interned here */
	uint32_t *next;  /* per launcher: the next launcher of its group, or TG_NONE */
	double *vd, *vs; /* scratch: a group's direct and subtree times, as many as the largest's */
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
	                       .pname = TG_NONE, .plabel = TG_NONE, .tname = tr->thread_name,
	                       .category = tg_launchers_category(l, x)};
	if ((pn && tg_atoms_intern(&key->pname, u->names, pn, strlen(pn))) ||
	    (pl && tg_atoms_intern(&key->plabel, u->names, pl, strlen(pl))))
		return TG_ENOMEM;
	return 0;
}

/* Launcher i (x) added to the group of key (a new group when none has it
 * yet). 0 or TG_ENOMEM. */
static int ua_add(struct ua_groups *u, const struct ua_key *key, const tg_launcher *x, uint32_t i)
{
	int64_t hk = (int64_t)tg_hash_bytes(key, sizeof(*key));
	uint32_t gi;
	for (;; hk++) {
		gi = tg_idmap_get(u->idx, hk);
		if (gi == TG_NONE || !memcmp(&u->g[gi].key, key, sizeof(*key)))
			break;
	}
	if (gi == TG_NONE) {
		if (tg_grow((void **)&u->g, &u->gcap, u->ng + 1, sizeof(*u->g)))
			return TG_ENOMEM;
		gi = (uint32_t)u->ng++;
		u->g[gi] = (struct ua_group){.key = *key, .first = x->event, .head = i};
		if (tg_idmap_put(u->idx, hk, gi) < 0)
			return TG_ENOMEM;
	} else {
		u->next[u->g[gi].tail] = i;
	}
	struct ua_group *gr = &u->g[gi];
	if (x->event < gr->first)
		gr->first = x->event;
	u->next[i] = TG_NONE;
	gr->tail = i;
	gr->n++;
	gr->direct_sum += x->direct_us;
	return 0;
}

/* The scratch of the largest group's times. 0 or TG_ENOMEM. */
static int ua_scratch(struct ua_groups *u)
{
	size_t most = 1;
	for (size_t i = 0; i < u->ng; i++)
		if (u->g[i].n > most)
			most = u->g[i].n;
	u->vd = tg_malloc(most * sizeof(double));
	u->vs = tg_malloc(most * sizeof(double));
	return u->vd && u->vs ? 0 : TG_ENOMEM;
}

/* Row row of ops_unique_args for group G: its key (shape arguments as
 * Python reprs, in buf of size cap), count, the statistics of its direct
 * and subtree times, and its percent of total (*cum accumulates). 0 or -1
 * (out of memory). */
static int ua_fill_row(tg_table *tab, size_t row, struct ua_group *G, const struct ua_groups *u, const tg_launchers *l,
                       double total, double *cum, char *buf, size_t cap)
{
	const tg_trace *t = l->trace;
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
	uint32_t j = G->head;
	for (size_t k = 0; k < G->n; k++, j = u->next[j]) {
		u->vd[k] = l->list[j].direct_us;
		u->vs[k] = l->list[j].subtree_us;
	}
	double d[6], s[6];
	tg_describe6(d, u->vd, G->n);
	tg_describe6(s, u->vs, G->n);
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
	u.idx = tg_idmap_new(64);
	u.names = tg_atoms_new();
	u.next = tg_malloc((l->n + 1) * sizeof(uint32_t));
	tg_table *tab = tg_table_new("ops_unique_args", "Kernel time by op and arguments (shapes, types, strides)");
	int ok = 0;
	if (!u.idx || !tab || !u.names || !u.next)
		goto done;
	for (size_t i = 0; i < l->n; i++) {
		struct ua_key key;
		if (ua_key_of(&key, &u, l, &l->list[i]) || ua_add(&u, &key, &l->list[i], (uint32_t)i))
			goto done;
	}
	tg_idmap_free(u.idx); /* the groups are known: the rows read the chains */
	u.idx = NULL;
	if (ua_scratch(&u))
		goto done;
	if (u.ng > 1) /* u.g is NULL without launchers: qsort(NULL, 0) is undefined */
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
		if (r < 0 || ua_fill_row(tab, (size_t)r, &u.g[i], &u, l, total, &cum, buf, sizeof(buf)))
			goto done;
	}
	ok = 1;
done:
	free(u.g);
	free(u.next);
	free(u.vd);
	free(u.vs);
	tg_idmap_free(u.idx);
	tg_atoms_free(u.names);
	if (!ok) {
		tg_table_free(tab);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	*out = tab;
	return 0;
}
