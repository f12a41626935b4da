/*
 * modules.c - aggregates GPU time by nn.Module path.
 *
 * 1. Module events (python "nn.Module: ...") get a row keyed by
 *    (parent module's row, name), parents first (events sorted by depth).
 * 2. Every device event walks up its ancestors; each module ancestor gets
 *    the event's interval, the nearest one also as "self".
 * 3. Intervals are sorted by (row, start) and merged per row.
 */
#include "modules.h"
#include "../../util/idmap.h"
#include "../../util/interval.h"

#include <stdlib.h>
#include <string.h>

struct tg_modules {
	tg_module_row *rows;
	size_t nrows;
	int64_t busy_ns;
};

struct tagged {
	uint32_t row;
	tg_interval iv;
};

struct depth_ev {
	uint32_t depth, ev;
};

int tg_module_name_is_module(const char *name) { return strncmp(name, "nn.Module: ", 11) == 0; }

static int cmp_depth(const void *a, const void *b)
{
	const struct depth_ev *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

static int cmp_tagged(const void *a, const void *b)
{
	const struct tagged *x = a, *y = b;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return (x->iv.start > y->iv.start) - (x->iv.start < y->iv.start);
}

/* Merges runs of equal row in t (sorted) into out[row]. */
static void union_by_row(struct tagged *t, size_t n, tg_module_row *rows, int self)
{
	if (n > 1)
		qsort(t, n, sizeof(*t), cmp_tagged);
	for (size_t i = 0; i < n;) {
		uint32_t row = t[i].row;
		int64_t total = 0, s = t[i].iv.start, e = t[i].iv.end;
		size_t j = i + 1;
		for (; j < n && t[j].row == row; j++) {
			if (t[j].iv.start <= e) {
				if (t[j].iv.end > e)
					e = t[j].iv.end;
			} else {
				total += e - s;
				s = t[j].iv.start;
				e = t[j].iv.end;
			}
		}
		total += e - s;
		if (self)
			rows[row].self_gpu_ns = total;
		else
			rows[row].gpu_ns = total;
		i = j;
	}
}

struct child_key {
	uint32_t parent; /* TG_NONE sorts last: treated as the root's children */
	int64_t first_ts;
	uint32_t row;
};

static int cmp_child_key(const void *a, const void *b)
{
	const struct child_key *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

/* Depth-first order of rows, children by first call. */
static int order_rows(tg_modules *m)
{
	size_t n = m->nrows;
	if (!n)
		return 0;
	int rc = TG_ENOMEM;
	struct child_key *keys = tg_malloc(n * sizeof(*keys));
	uint32_t *first = tg_malloc((n + 1) * sizeof(uint32_t)); /* first child key of a parent */
	uint32_t *stack = tg_malloc((n + 1) * sizeof(uint32_t)), *pos = tg_malloc((n + 1) * sizeof(uint32_t));
	uint32_t *remap = tg_malloc(n * sizeof(uint32_t));
	tg_module_row *out = tg_malloc(n * sizeof(tg_module_row));
	if (!keys || !first || !stack || !pos || !remap || !out)
		goto done;
	for (size_t i = 0; i < n; i++)
		keys[i] = (struct child_key){m->rows[i].parent, m->rows[i].first_ts, (uint32_t)i};
	qsort(keys, n, sizeof(*keys), cmp_child_key);
	/* first[r] = index in keys of the first child of row r (n: none) */
	for (size_t i = 0; i <= n; i++)
		first[i] = (uint32_t)n;
	size_t nroots = 0;
	for (size_t i = n; i-- > 0;) {
		if (keys[i].parent == TG_NONE)
			nroots++;
		else
			first[keys[i].parent] = (uint32_t)i;
	}
	size_t no = 0;
	/* roots are the last nroots keys (TG_NONE sorts last) */
	for (size_t r = n - nroots; r < n; r++) {
		size_t sp = 0;
		stack[sp] = keys[r].row;
		pos[sp++] = first[keys[r].row];
		remap[keys[r].row] = (uint32_t)no;
		out[no++] = m->rows[keys[r].row];
		while (sp) {
			uint32_t top = stack[sp - 1];
			uint32_t k = pos[sp - 1];
			if (k < n && keys[k].parent == top) {
				pos[sp - 1] = k + 1;
				uint32_t c = keys[k].row;
				remap[c] = (uint32_t)no;
				out[no++] = m->rows[c];
				stack[sp] = c;
				pos[sp++] = first[c];
			} else {
				sp--;
			}
		}
	}
	for (size_t i = 0; i < no; i++)
		if (out[i].parent != TG_NONE)
			out[i].parent = remap[out[i].parent];
	free(m->rows);
	m->rows = out;
	out = NULL;
	m->nrows = no;
	rc = 0;
done:
	free(keys), free(first), free(stack), free(pos), free(remap), free(out);
	return rc;
}

/* Intervals tagged with their module row, growing. */
struct tagvec {
	struct tagged *v;
	size_t n, cap;
};

static int tag_push(struct tagvec *a, uint32_t row, tg_interval iv)
{
	if (tg_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v)))
		return TG_ENOMEM;
	a->v[a->n++] = (struct tagged){row, iv};
	return 0;
}

/* The module events (python events named like a module, marked in
 * is_mod) with their depth in the tree, shallowest first, into *out (the
 * caller's, freed with free); *n their count. 0 or TG_ENOMEM. */
static int find_modules(struct depth_ev **out, size_t *n, const tg_tree *tree, uint8_t *is_mod)
{
	const tg_trace *t = tg_tree_trace(tree);
	const tg_atoms *atoms = tg_trace_atoms(t);
	size_t ne, nmods = 0;
	const tg_event *ev = tg_trace_events(t, &ne);
	for (size_t i = 0; i < ne; i++)
		if (ev[i].kind == TG_KIND_PYTHON && tg_module_name_is_module(tg_atoms_str(atoms, ev[i].name)))
			is_mod[i] = 1, nmods++;
	struct depth_ev *mods = tg_malloc((nmods + 1) * sizeof(*mods));
	if (!mods)
		return TG_ENOMEM;
	nmods = 0;
	for (size_t i = 0; i < ne; i++) {
		if (!is_mod[i])
			continue;
		uint32_t d = 0;
		for (uint32_t p = tg_tree_parent(tree, (uint32_t)i); p != TG_NONE; p = tg_tree_parent(tree, p))
			d++;
		mods[nmods++] = (struct depth_ev){d, (uint32_t)i};
	}
	qsort(mods, nmods, sizeof(*mods), cmp_depth);
	*out = mods;
	*n = nmods;
	return 0;
}

/* One row per (parent row, module name), parents first: each module event
 * counted into its row (calls, CPU time, first start); row_of[e] gets the
 * row of module event e. 0 or TG_ENOMEM. */
static int add_module_rows(tg_modules *m, const tg_tree *tree, const struct depth_ev *mods, size_t nmods,
                           const uint8_t *is_mod, uint32_t *row_of)
{
	size_t ne, rows_cap = 0;
	const tg_event *ev = tg_trace_events(tg_tree_trace(tree), &ne);
	tg_idmap *key_to_row = tg_idmap_new(256);
	if (!key_to_row)
		return TG_ENOMEM;
	int rc = TG_ENOMEM;
	for (size_t k = 0; k < nmods; k++) {
		uint32_t e = mods[k].ev;
		uint32_t pm = tg_tree_parent(tree, e);
		while (pm != TG_NONE && !is_mod[pm])
			pm = tg_tree_parent(tree, pm);
		uint32_t prow = pm == TG_NONE ? TG_NONE : row_of[pm];
		int64_t key = (int64_t)(((uint64_t)prow << 32) | ev[e].name);
		uint32_t row = tg_idmap_get(key_to_row, key);
		if (row == TG_NONE) {
			if (tg_grow((void **)&m->rows, &rows_cap, m->nrows + 1, sizeof(tg_module_row)))
				goto out;
			row = (uint32_t)m->nrows++;
			m->rows[row] = (tg_module_row){.name = ev[e].name, .parent = prow,
			                               .depth = prow == TG_NONE ? 0 : m->rows[prow].depth + 1,
			                               .first_ts = ev[e].ts};
			if (tg_idmap_put(key_to_row, key, row) < 0)
				goto out;
		}
		row_of[e] = row;
		tg_module_row *r = &m->rows[row];
		r->calls++;
		r->cpu_ns += tg_event_dur(tg_tree_trace(tree), &ev[e]);
		if (ev[e].ts < r->first_ts)
			r->first_ts = ev[e].ts;
	}
	rc = 0;
out:
	tg_idmap_free(key_to_row);
	return rc;
}

/* Every device event's interval into busy (*nbusy), tagged into all for
 * every module row above it and into self for the nearest one; each of
 * those rows counts the event. 0 or TG_ENOMEM. */
static int tag_device_events(tg_modules *m, const tg_tree *tree, const uint8_t *is_mod, const uint32_t *row_of,
                             tg_interval *busy, size_t *nbusy, struct tagvec *all, struct tagvec *self)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(tg_tree_trace(tree), &ne);
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind))
			continue;
		tg_interval iv = {ev[i].ts, tg_event_end(tg_tree_trace(tree), &ev[i])};
		busy[(*nbusy)++] = iv;
		int nearest = 1;
		uint32_t last_row = TG_NONE;
		for (uint32_t p = tg_tree_parent(tree, (uint32_t)i); p != TG_NONE; p = tg_tree_parent(tree, p)) {
			if (!is_mod[p])
				continue;
			uint32_t row = row_of[p];
			if (row == last_row)
				continue; /* recursion into the same path cannot happen, but be safe */
			last_row = row;
			m->rows[row].gpu_events++;
			if (tag_push(all, row, iv))
				return TG_ENOMEM;
			if (nearest) {
				if (tag_push(self, row, iv))
					return TG_ENOMEM;
				nearest = 0;
			}
		}
	}
	return 0;
}

int tg_modules_build(tg_modules **out, const tg_tree *tree)
{
	*out = NULL;
	size_t ne;
	tg_trace_events(tg_tree_trace(tree), &ne);
	int rc = TG_ENOMEM;
	tg_modules *m = tg_calloc(1, sizeof(*m));
	uint32_t *row_of = tg_malloc((ne + 1) * sizeof(uint32_t));
	uint8_t *is_mod = tg_calloc(ne + 1, 1);
	tg_interval *busy = tg_malloc((ne + 1) * sizeof(tg_interval));
	struct depth_ev *mods = NULL;
	struct tagvec all = {0}, self = {0};
	size_t nmods = 0, nbusy = 0;
	if (!m || !row_of || !is_mod || !busy)
		goto fail;
	for (size_t i = 0; i < ne; i++)
		row_of[i] = TG_NONE;
	if (find_modules(&mods, &nmods, tree, is_mod) || add_module_rows(m, tree, mods, nmods, is_mod, row_of) ||
	    tag_device_events(m, tree, is_mod, row_of, busy, &nbusy, &all, &self))
		goto fail;
	m->busy_ns = tg_interval_union(busy, nbusy);
	union_by_row(all.v, all.n, m->rows, 0);
	union_by_row(self.v, self.n, m->rows, 1);
	if (order_rows(m))
		goto fail;
	rc = 0;
	*out = m;
	m = NULL;
fail:
	tg_modules_free(m);
	free(row_of);
	free(is_mod);
	free(mods);
	free(all.v);
	free(self.v);
	free(busy);
	return rc;
}

const tg_module_row *tg_modules_rows(const tg_modules *m, size_t *n)
{
	*n = m->nrows;
	return m->rows;
}

int64_t tg_modules_gpu_busy_ns(const tg_modules *m) { return m->busy_ns; }

void tg_modules_free(tg_modules *m)
{
	if (!m)
		return;
	free(m->rows);
	free(m);
}
