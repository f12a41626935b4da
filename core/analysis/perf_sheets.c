/*
 * perf_sheets.c - the per-category perf sheets (perf_sheets.h): the walk
 * over the tree's ops in step that have a perf model (their model and
 * parameters cached per distinct name and shapes), one row per op with its
 * kernel time, FLOPs and bytes, the rows of a family grouped by name and
 * parameters (perf_sheets_params.c gives those strings), and each group as
 * a sheet row with its statistics and roofline cells.
 */
#include "describe.h"
#include "perf_sheets_impl.h"
#include "../models/roofline.h"
#include "../../util/big.h"
#include "../../util/tg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The perf model and params of each distinct call (name and its four
 * argument atoms). */
struct mentry {
	uint32_t name, a[4];
	uint32_t idx; /* its place in the cache's list (struct row's me) */
	uint64_t hash;
	int done, ok;
	tg_perf m;
	const char *pp[MAXP];
};

/* One op of a sheet (16 bytes, a row an op: 0.63 MB at 100 MB of JSON,
 * 24 with its event and a pointer to its model): its FLOPs, bytes and kind
 * are its model's, its name its key's. Its event is not kept: the rows are
 * made in event order, so that their indexes order them as their events
 * did. */
struct row {
	double kt;    /* kernel time, us */
	uint32_t me;  /* its model: its index in the cache's list (struct group's mes) */
	uint32_t key; /* its (name, params) in the sheet's key table */
};

/* One distinct (op name, params): rows repeat a few shapes, so each row
 * holds an index here instead of its strings (40 bytes a row, not 1 KB). */
struct pkey {
	uint32_t name;
	const char *p[MAXP]; /* param strings, interned: equal strings are equal
	                        pointers; p[MAXP - 1]: Compute Spec */
	uint64_t hash;
};

struct pkeys {
	struct pkey *v;
	size_t n, cap;
	uint32_t *slot; /* index + 1; 0 empty */
	size_t mask;
};

/* The index of (name, p) in k, added when new. Returns TG_NONE when out of memory. */
static uint32_t pkey_get(struct pkeys *k, uint32_t name, const char *const *p)
{
	uint64_t h = tg_hash_bytes(p, MAXP * sizeof(*p)) ^ ((uint64_t)name * 0x9E3779B97F4A7C15ULL);
	if ((k->n + 1) * 2 > k->mask + 1) {
		size_t nm = k->mask ? (k->mask + 1) * 2 : 256;
		uint32_t *ns = tg_calloc(nm, sizeof(uint32_t));
		if (!ns)
			return TG_NONE;
		for (size_t i = 0; i < k->n; i++) {
			size_t j = (size_t)k->v[i].hash & (nm - 1);
			while (ns[j])
				j = (j + 1) & (nm - 1);
			ns[j] = (uint32_t)i + 1;
		}
		free(k->slot);
		k->slot = ns;
		k->mask = nm - 1;
	}
	size_t j = (size_t)h & k->mask;
	for (; k->slot[j]; j = (j + 1) & k->mask) {
		const struct pkey *x = &k->v[k->slot[j] - 1];
		if (x->hash == h && x->name == name && !memcmp(x->p, p, MAXP * sizeof(*p)))
			return k->slot[j] - 1;
	}
	if (tg_grow((void **)&k->v, &k->cap, k->n + 1, sizeof(struct pkey)))
		return TG_NONE;
	struct pkey *x = &k->v[k->n];
	x->name = name;
	memcpy(x->p, p, MAXP * sizeof(*p));
	x->hash = h;
	k->slot[j] = (uint32_t)++k->n;
	return (uint32_t)(k->n - 1);
}

/* Device events of ev's subtree into *v (grown as needed). */
static int collect(tg_span **v, size_t *n, size_t *cap, const tg_tree *tree, const tg_event *ev, uint32_t e,
                   const tg_timebase *tb, int depth)
{
	tg_tree_child_iter it;
	uint32_t k;
	if (depth > 4096)
		return 0;
	for (tg_tree_child_iter_init(&it, tree, e); tg_tree_child_next(&it, &k);) {
		if (tg_kind_is_gpu(ev[k].kind)) {
			if (tb->tracelens_float && !tg_tree_linked_like_tracelens(tree, k))
				continue;
			if (*n == *cap) {
				size_t nc2 = *cap ? *cap * 2 : 64;
				tg_span *nv = tg_realloc(*v, nc2 * sizeof(**v));
				if (!nv)
					return TG_ENOMEM;
				*v = nv;
				*cap = nc2;
			}
			(*v)[(*n)++] = tg_span_of(tb, tg_tree_trace(tree), &ev[k]);
		}
		int rc = collect(v, n, cap, tree, ev, k, tb, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

/* same name and params (Compute Spec included) */
static int same_group(const struct row *x, const struct row *y)
{
	return x->key == y->key;
}

/* Brings the rows of a group together, each group's rows by event: a
 * sheet's rows are 4-byte indexes into the walk's rows (ctx), not
 * pointers, and so is the sort's scratch. Which group comes first does not
 * matter (groups are sorted by kernel time after). */
static int cmp_key(const void *a, const void *b, void *ctx)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct row *rows = ctx, *x = &rows[i], *y = &rows[j];
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (i > j) - (i < j); /* by event */
}

/* The rows of one (name, params): indexes into base. */
struct group {
	const struct row *base;
	const struct mentry *const *mes; /* the models (the cache's list) */
	const uint32_t *rows;
	size_t n;
	double kt_sum;
};

/* Row k of group G. */
static inline const struct row *row_of(const struct group *G, size_t k)
{
	return &G->base[G->rows[k]];
}

/* The model of row x of group G. */
static inline const tg_perf *perf_of(const struct group *G, const struct row *x)
{
	return &G->mes[x->me]->m;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->kt_sum != y->kt_sum)
		return x->kt_sum > y->kt_sum ? -1 : 1;
	return (x->rows[0] > y->rows[0]) - (x->rows[0] < y->rows[0]); /* by first event */
}

static void set_num(tg_table *t, size_t r, int c, double v)
{
	if (c >= 0 && !isnan(v))
		tg_table_set_num(t, r, (size_t)c, v);
}

/* The roofline columns of one group: the roofline time and bound of its
 * first op (TraceLens's _first), and the statistics of every op's percent
 * of roofline (roofline time / kernel time). Ops without kernel time or
 * without a known peak are left out of the statistics. */
static int roofline_cells(tg_table *t, size_t r, int c, const struct group *G, const char *cspec,
                          const tg_gpu_spec *spec, double *vals)
{
	const struct row *f = row_of(G, 0);
	tg_roofline rl;
	/* no compute spec (integer dtypes), or a peak the GPU lacks: no roofline */
	if (tg_roofline_compute(&rl, perf_of(G, f)->flops, perf_of(G, f)->bytes, cspec, f->kt, spec)) {
		tg_error_clear();
		return 0;
	}
	set_num(t, r, c, rl.roofline_us);
	if (rl.bound != TG_BOUND_UNKNOWN && tg_table_set_str(t, r, (size_t)c + 1, tg_roofline_bound_name(rl.bound)))
		return -1;
	size_t nv = 0;
	for (size_t k = 0; k < G->n; k++) {
		const struct row *x = row_of(G, k);
		if (x->kt <= 0 || tg_roofline_compute(&rl, perf_of(G, x)->flops, perf_of(G, x)->bytes, cspec, x->kt, spec)) {
			tg_error_clear();
			continue;
		}
		if (!isnan(rl.pct_roofline))
			vals[nv++] = rl.pct_roofline;
	}
	if (nv) {
		double st[6];
		tg_describe6(st, vals, nv);
		for (int s = 0; s < 5; s++)
			set_num(t, r, c + 2 + s, st[s]);
	}
	return 0;
}

/* Where a sheet's column groups start (-1: absent). */
struct sheet_cols {
	int np;     /* parameter columns, from 1 */
	int c_tbs;  /* TB/s and TFLOPS/s statistics, 5 each */
	int c_spec; /* Compute Spec */
	int c_roof; /* roofline time, bound and 5 Pct Roofline statistics (with a GPU spec) */
	int c_kt;   /* the 6 kernel time statistics */
	int c_count;
};

static const char *const stat_names[6] = {"mean", "median", "std", "min", "max", "sum"};

/* The columns of the sheet of kind into t, where they start into *c. 0 or
 * -1 (out of memory). */
static int add_sheet_columns(tg_table *t, tg_perf_kind kind, const tg_gpu_spec *spec, struct sheet_cols *c)
{
	if (tg_table_add_column(t, "name") < 0)
		return -1;
	for (c->np = 0; tg_perf_sheets_param_col(kind, c->np); c->np++) {
		char col[64];
		snprintf(col, sizeof(col), "param: %s", tg_perf_sheets_param_col(kind, c->np));
		if (tg_table_add_column(t, col) < 0)
			return -1;
	}
	static const char *const rest[] = {"GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first", NULL};
	for (int i = 0; rest[i]; i++)
		if (tg_table_add_column(t, rest[i]) < 0)
			return -1;
	c->c_tbs = (int)tg_table_ncols(t);
	for (int m = 0; m < 2; m++)
		for (int s = 0; s < 5; s++) {
			char col[64];
			snprintf(col, sizeof(col), "%s_%s", m ? "TFLOPS/s" : "TB/s", stat_names[s]);
			if (tg_table_add_column(t, col) < 0)
				return -1;
		}
	c->c_spec = tg_table_add_column(t, "Compute Spec");
	c->c_roof = -1;
	if (spec) {
		c->c_roof = (int)tg_table_ncols(t);
		if (tg_table_add_column(t, "Roofline Time (\xc2\xb5s)_first") < 0 ||
		    tg_table_add_column(t, "Roofline Bound_first") < 0)
			return -1;
		for (int s = 0; s < 5; s++) {
			char col[64];
			snprintf(col, sizeof(col), "Pct Roofline_%s", stat_names[s]);
			if (tg_table_add_column(t, col) < 0)
				return -1;
		}
	}
	c->c_kt = (int)tg_table_ncols(t);
	for (int s = 0; s < 6; s++) {
		char col[64];
		snprintf(col, sizeof(col), "Kernel Time (\xc2\xb5s)_%s", stat_names[s]);
		if (tg_table_add_column(t, col) < 0)
			return -1;
	}
	c->c_count = tg_table_add_column(t, "name_count");
	return c->c_spec < 0 || c->c_count < 0 ? -1 : 0;
}

/* The n rows (indexes into base, sorted by key: cmp_key; their models in
 * mes) as groups of one key into *out (allocated to their count, the
 * caller frees it), by kernel time summed, largest first; *most gets the
 * largest group's size. Returns the number of groups; *out NULL when out
 * of memory. */
static size_t group_rows(struct group **out, size_t *most, const struct row *base, const struct mentry *const *mes,
                         const uint32_t *rows, size_t n)
{
	size_t ng = 0;
	for (size_t i = 0; i < n; i++)
		ng += !i || !same_group(&base[rows[i]], &base[rows[i - 1]]);
	struct group *g = *out = tg_calloc(ng ? ng : 1, sizeof(*g));
	if (!g)
		return 0;
	ng = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && same_group(&base[rows[j]], &base[rows[i]]))
			j++;
		g[ng].base = base;
		g[ng].mes = mes;
		g[ng].rows = rows + i;
		g[ng].n = j - i;
		*most = j - i > *most ? j - i : *most;
		for (size_t k = i; k < j; k++)
			g[ng].kt_sum += base[rows[k]].kt;
		ng++;
		i = j;
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	return ng;
}

/* Row r of the sheet: group G's name, params and first op's model, the
 * statistics of its rates and kernel times, the roofline with a spec.
 * vals: scratch of G->n. 0 or -1 (out of memory). */
static int fill_group_row(tg_table *t, size_t r, const struct sheet_cols *c, const struct group *G,
                          const struct pkey *keys, const tg_trace *trace, double *vals, const tg_gpu_spec *spec)
{
	const struct row *f = row_of(G, 0);
	if (tg_table_set_str(t, r, 0, tg_trace_str(trace, keys[f->key].name)))
		return -1;
	const char *const *fp = keys[f->key].p;
	for (int i = 0; i < c->np; i++)
		if (fp[i][0] && tg_table_set_str(t, r, (size_t)(1 + i), fp[i]))
			return -1;
	const tg_perf *fm = perf_of(G, f);
	set_num(t, r, 1 + c->np, fm->flops / 1e9);
	set_num(t, r, 2 + c->np, fm->bytes / (1024.0 * 1024.0));
	set_num(t, r, 3 + c->np, fm->flops / fm->bytes);
	double st[6];
	for (int m = 0; m < 2; m++) {
		size_t nv = 0;
		for (size_t k = 0; k < G->n; k++) {
			const struct row *x = row_of(G, k);
			const tg_perf *xm = perf_of(G, x);
			/* rates of ops without kernel time are left out (TraceLens: NaN) */
			double v = x->kt <= 0 ? NAN
			           : m ? (xm->flops / 1e9 / 1e3) / (x->kt / 1e6) : (xm->bytes / 1e12) / (x->kt / 1e6);
			if (!isnan(v))
				vals[nv++] = v;
		}
		if (!nv)
			continue;
		tg_describe6(st, vals, nv);
		for (int s = 0; s < 5; s++)
			set_num(t, r, c->c_tbs + m * 5 + s, st[s]);
	}
	if (tg_table_set_str(t, r, (size_t)c->c_spec, fp[MAXP - 1]))
		return -1;
	if (spec && roofline_cells(t, r, c->c_roof, G, fp[MAXP - 1], spec, vals))
		return -1;
	for (size_t k = 0; k < G->n; k++)
		vals[k] = row_of(G, k)->kt;
	tg_describe6(st, vals, G->n);
	for (int s = 0; s < 6; s++)
		set_num(t, r, c->c_kt + s, st[s]);
	tg_table_set_int(t, r, (size_t)c->c_count, (int64_t)G->n);
	return 0;
}

/* The sheet of kind over its n rows (one line per distinct name and
 * params; their models in mes); NULL when out of memory. The statistics'
 * scratch is as large as the largest group, not the sheet. */
static tg_table *build_sheet(tg_perf_kind kind, const struct row *base, const struct mentry *const *mes,
                             uint32_t *rows, size_t n, const struct pkey *keys, const tg_trace *trace,
                             const tg_gpu_spec *spec)
{
	const char *sheet = tg_perf_sheet_name(kind);
	char title[96];
	snprintf(title, sizeof(title), "%s ops: kernel time and perf model metrics", sheet);
	tg_table *t = tg_table_new(sheet, title);
	struct group *g = NULL;
	double *vals = NULL;
	struct sheet_cols c;
	if (!t || add_sheet_columns(t, kind, spec, &c))
		goto fail;
	qsort_r(rows, n, sizeof(*rows), cmp_key, (void *)base);
	size_t most = 1, ng = group_rows(&g, &most, base, mes, rows, n);
	if (!g || !(vals = tg_malloc(most * sizeof(double))))
		goto fail;
	for (size_t gi = 0; gi < ng; gi++) {
		int64_t r = tg_table_add_row(t);
		if (r < 0 || fill_group_row(t, (size_t)r, &c, &g[gi], keys, trace, vals, spec))
			goto fail;
	}
	free(g);
	free(vals);
	return t;
fail:
	free(g);
	free(vals);
	tg_table_free(t);
	return NULL;
}


struct mcache {
	struct mentry **v; /* entries are allocated one by one: pointers stay valid */
	size_t n, cap;
	uint32_t *slot;    /* index + 1; 0 empty */
	size_t mask;
};

static void mcache_free(struct mcache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	free(c->slot);
}

/* The entry of (name, a), added (not done) when new; NULL when out of memory. */
static struct mentry *mcache_get(struct mcache *c, uint32_t name, const uint32_t a[4])
{
	uint32_t key[5] = {name, a[0], a[1], a[2], a[3]};
	uint64_t h = tg_hash_bytes(key, sizeof(key));
	if ((c->n + 1) * 2 > c->mask + 1) {
		size_t nm = c->mask ? (c->mask + 1) * 2 : 256;
		uint32_t *ns = tg_calloc(nm, sizeof(uint32_t));
		if (!ns)
			return NULL;
		for (size_t i = 0; i < c->n; i++) {
			size_t j = (size_t)c->v[i]->hash & (nm - 1);
			while (ns[j])
				j = (j + 1) & (nm - 1);
			ns[j] = (uint32_t)i + 1;
		}
		free(c->slot);
		c->slot = ns;
		c->mask = nm - 1;
	}
	size_t j = (size_t)h & c->mask;
	for (; c->slot[j]; j = (j + 1) & c->mask) {
		struct mentry *e = c->v[c->slot[j] - 1];
		if (e->hash == h && e->name == name && !memcmp(e->a, a, sizeof(e->a)))
			return e;
	}
	if (tg_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return NULL;
	struct mentry *e = tg_calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->name = name;
	memcpy(e->a, a, sizeof(e->a));
	e->hash = h;
	e->idx = (uint32_t)c->n;
	c->v[c->n] = e;
	c->slot[j] = (uint32_t)++c->n;
	return e;
}

/* The perf-model kind of each op name, looked up once per distinct name
 * (tg_perf_kind_of walks lists of names with strcmp). */
struct kinds {
	const tg_atoms *atoms;
	uint8_t *kind; /* per atom; 0xff: not looked up yet */
	size_t n;
};

static tg_perf_kind kind_of(struct kinds *k, uint32_t atom)
{
	if (atom >= k->n)
		return tg_perf_kind_of(tg_atoms_str(k->atoms, atom));
	if (k->kind[atom] == 0xff)
		k->kind[atom] = (uint8_t)tg_perf_kind_of(tg_atoms_str(k->atoms, atom));
	return (tg_perf_kind)k->kind[atom];
}

/* 1 if an ancestor of ev has the same model kind: the attention entry
 * points nest (aten::_scaled_dot_product_flash_attention calls
 * aten::_flash_attention_forward); the outer one carries the metrics. */
static int inside_same(const tg_tree *tree, const tg_event *ev, struct kinds *k, uint32_t e, tg_perf_kind kind)
{
	for (uint32_t p = tg_tree_parent(tree, e); p != TG_NONE; p = tg_tree_parent(tree, p))
		if (ev[p].kind == TG_KIND_CPU_OP && kind_of(k, ev[p].name) == kind)
			return 1;
	return 0;
}

/* What tg_perf_sheets gathers while it walks the ops. */
struct sheets_walk {
	const tg_tree *tree;
	const tg_trace *trace;
	const tg_atoms *atoms;
	const tg_event *ev;
	const tg_timebase *tb;
	uint32_t keys[4]; /* the atoms of "Input Dims", "Input type", "Input Strides", "Concrete Inputs" */
	tg_perf_opts opts;
	struct row *rows;
	size_t nrows, cap;
	size_t nby[TG_PERF_KIND_COUNT]; /* rows per kind */
	tg_span *spans;
	size_t scap;
	tg_atoms *pstr; /* the rows' parameter strings */
	struct pkeys pk;
	struct mcache mc;
	struct kinds kinds;
};

/* The model and params of op i (named name) into *out, from the cache or
 * computed once per distinct call (name and its four argument atoms). raw:
 * the four arguments' text. 0 or TG_ENOMEM. */
static int model_of(struct sheets_walk *w, uint32_t i, const char *name, const char *const raw[4],
                    const uint32_t ra[4], struct mentry **out)
{
	/* the model and the params are functions of the name and the four
	 * arguments (and, for a GEMM, of the transposes its children show):
	 * computed once per distinct call, not once per call */
	struct mentry *me = mcache_get(&w->mc, w->ev[i].name, ra);
	if (!me)
		return TG_ENOMEM;
	*out = me;
	if (me->done)
		return 0;
	me->done = 1;
	tg_perf_args args = {name, raw[0], raw[1], raw[2], raw[3]};
	me->ok = tg_perf_model(&me->m, &args, &w->opts) == 0;
	if (!me->ok) {
		tg_error_clear();
		return 0;
	}
	char scratch[MAXP][PLEN];
	tg_perf_sheets_params(scratch, i, name, &me->m, raw, w->tree, w->atoms);
	/* Compute Spec rides in the key's tail slot */
	const char *maf = me->m.kind <= TG_PERF_CONV_BWD ? "matrix" : "vector";
	snprintf(scratch[MAXP - 1], PLEN, "%s%s%s", me->m.precision ? maf : "", me->m.precision ? "_" : "",
	         me->m.precision ? me->m.precision : "");
	for (int k = 0; k < MAXP; k++) {
		uint32_t a;
		if (tg_atoms_intern(&a, w->pstr, scratch[k], strlen(scratch[k])))
			return TG_ENOMEM;
		me->pp[k] = tg_atoms_str(w->pstr, a);
	}
	return 0;
}

/* A row for op i modelled by me: its kernel time (the union of its
 * subtree's device events; 0 without any, as TraceLens) and its key. 0 or
 * TG_ENOMEM. */
static int add_row(struct sheets_walk *w, uint32_t i, const struct mentry *me)
{
	const tg_perf *mp = &me->m;
	size_t ns = 0;
	if (collect(&w->spans, &ns, &w->scap, w->tree, w->ev, i, w->tb, 0))
		return TG_ENOMEM;
	if (tg_big_grow((void **)&w->rows, &w->cap, w->nrows + 1, sizeof(*w->rows)))
		return TG_ENOMEM;
	struct row *r = &w->rows[w->nrows++];
	r->me = me->idx;
	r->kt = ns ? tg_timebase_us(w->tb, tg_span_union(w->spans, ns)) : 0;
	const char *pp[MAXP];
	memcpy(pp, me->pp, sizeof(pp));
	if (mp->kind == TG_PERF_GEMM) {
		/* the transposes come from this call's children */
		char tr[PLEN] = "";
		tg_perf_sheets_transpose(tr, w->tree, i, w->atoms);
		uint32_t a;
		if (tg_atoms_intern(&a, w->pstr, tr, strlen(tr)))
			return TG_ENOMEM;
		pp[8] = tg_atoms_str(w->pstr, a);
	}
	if ((r->key = pkey_get(&w->pk, w->ev[i].name, pp)) == TG_NONE)
		return TG_ENOMEM;
	w->nby[mp->kind]++;
	return 0;
}

/* Op i as a row when it is a cpu_op of the tree in step with a perf model
 * (not an attention entry point nested in another). 0 or TG_ENOMEM. */
static int walk_op(struct sheets_walk *w, uint32_t i, int32_t step)
{
	const tg_event *e = &w->ev[i];
	if (e->kind != TG_KIND_CPU_OP || !tg_tree_contains(w->tree, i))
		return 0;
	if (step >= 0 && tg_tree_step_of(w->tree, i) != step)
		return 0;
	const char *name = tg_atoms_str(w->atoms, e->name);
	tg_perf_kind kind = kind_of(&w->kinds, e->name);
	if (kind == TG_PERF_NONE ||
	    (kind <= TG_PERF_SDPA_BWD && kind >= TG_PERF_SDPA_FWD && inside_same(w->tree, w->ev, &w->kinds, i, kind)))
		return 0;
	const char *raw[4] = {NULL, NULL, NULL, NULL};
	uint32_t ra[4] = {TG_NONE, TG_NONE, TG_NONE, TG_NONE};
	for (int k = 0; k < 4; k++) {
		const tg_arg *a = w->keys[k] == TG_NONE ? NULL : tg_event_arg(w->trace, e, w->keys[k]);
		if (a && (a->type == TG_ARG_RAW || a->type == TG_ARG_STR)) {
			raw[k] = tg_trace_str(w->trace, a->v.atom);
			ra[k] = a->v.atom;
		}
	}
	struct mentry *me;
	if (model_of(w, i, name, raw, ra, &me))
		return TG_ENOMEM;
	return me->ok ? add_row(w, i, me) : 0;
}

/* One sheet per kind with rows into tabs (*ntabs of them), a kind at a
 * time: its rows' indexes gathered, its sheet built, the indexes freed
 * (4 bytes a row of one sheet, not of them all). 0 or TG_ENOMEM (the
 * sheets made so far stay in tabs for the caller to free). */
static int sheets_of_rows(tg_table **tabs, size_t *ntabs, struct sheets_walk *w, const tg_gpu_spec *spec)
{
	const struct mentry *const *mes = (const struct mentry *const *)w->mc.v;
	for (int k = 1; k < TG_PERF_KIND_COUNT; k++) {
		if (!w->nby[k])
			continue;
		uint32_t *by = tg_malloc(w->nby[k] * sizeof(uint32_t)), n = 0;
		if (!by)
			return TG_ENOMEM;
		for (size_t i = 0; i < w->nrows; i++)
			if (mes[w->rows[i].me]->m.kind == (tg_perf_kind)k)
				by[n++] = (uint32_t)i;
		tg_table *t = build_sheet((tg_perf_kind)k, w->rows, mes, by, n, w->pk.v, w->trace, spec);
		free(by);
		if (!t)
			return TG_ENOMEM;
		tabs[(*ntabs)++] = t;
	}
	return 0;
}

int tg_perf_sheets(tg_table ***out, size_t *n, const tg_tree *tree, const tg_timebase *tb, int32_t step,
                   const tg_gpu_spec *spec)
{
	*out = NULL;
	*n = 0;
	struct sheets_walk w = {0};
	w.tree = tree;
	w.trace = tg_tree_trace(tree);
	w.atoms = tg_trace_atoms(w.trace);
	size_t ne;
	w.ev = tg_trace_events(w.trace, &ne);
	w.tb = tb;
	w.keys[0] = tg_trace_key(w.trace, "Input Dims");
	w.keys[1] = tg_trace_key(w.trace, "Input type");
	w.keys[2] = tg_trace_key(w.trace, "Input Strides");
	w.keys[3] = tg_trace_key(w.trace, "Concrete Inputs");
	w.opts = (tg_perf_opts){.tracelens = tb->tracelens_float};
	w.pstr = tg_atoms_new();
	w.kinds = (struct kinds){w.atoms, NULL, tg_atoms_count(w.atoms)};
	w.kinds.kind = malloc(w.kinds.n ? w.kinds.n : 1);
	if (w.kinds.kind)
		memset(w.kinds.kind, 0xff, w.kinds.n ? w.kinds.n : 1);
	else
		w.kinds.n = 0;
	tg_table **tabs = NULL;
	size_t ntabs = 0;
	int rc = TG_ENOMEM;
	/* at most a row an event: room for them all, from the start, so that
	 * the list is never copied as it grows (a doubling realloc held the old
	 * list beside one twice its size: 2.4 MB at 100 MB of JSON, for 0.9 MB
	 * of rows); from 4 MiB a mapping whose pages are touched only as rows
	 * are written, trimmed to the rows after the walk (util/big.h) */
	if (ne && (w.rows = tg_big_alloc(ne * sizeof(*w.rows))))
		w.cap = ne;
	for (size_t i = 0; w.pstr && i < ne; i++)
		if (walk_op(&w, (uint32_t)i, step))
			goto done;
	free(w.spans); /* the walk's scratch, before the sheets' */
	w.spans = NULL;
	if (w.nrows && w.nrows < w.cap) { /* the rows without the room left */
		struct row *nr = tg_big_realloc(w.rows, w.nrows * sizeof(*w.rows));
		if (nr)
			w.rows = nr;
		else
			tg_error_clear(); /* kept as it was */
	}
	tabs = tg_calloc(TG_PERF_KIND_COUNT, sizeof(*tabs));
	if (!tabs)
		goto done;
	rc = sheets_of_rows(tabs, &ntabs, &w, spec);
done:
	if (rc) {
		tg_tables_free(tabs, ntabs);
		tabs = NULL;
		ntabs = 0;
	}
	tg_big_free(w.rows);
	free(w.spans);
	tg_atoms_free(w.pstr);
	free(w.pk.v);
	free(w.pk.slot);
	mcache_free(&w.mc);
	free(w.kinds.kind);
	*out = tabs;
	*n = ntabs;
	return rc;
}
