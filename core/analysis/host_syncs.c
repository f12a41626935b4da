/*
 * host_syncs.c - blocking runtime calls and where they come from (see
 * host_syncs.h). One pass picks the syncs and walks up to their cpu_op and
 * python frame; a sort groups them.
 */
#include "host_syncs.h"
#include "../tree/step_filter.h"

#include <stdlib.h>
#include <string.h>

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static int ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

int tg_host_syncs_is_sync(const char *name, int kind)
{
	if (!name)
		return 0;
	if (kind == TG_KIND_SYNC)
		return strcmp(name, "Stream Wait Event") != 0;
	if (!tg_kind_is_launch(kind))
		return 0;
	if ((starts(name, "cu") || starts(name, "hip")) && ends(name, "Synchronize"))
		return 1;
	return (starts(name, "cudaMemcpy") || starts(name, "cuMemcpy") || starts(name, "hipMemcpy")) &&
	       !strstr(name, "Async");
}

/* A python frame name that points at source: "file.py(123): func". */
static int is_source_frame(const char *name)
{
	const char *p = strstr(name, ".py(");
	return p && name[0] != '<';
}

struct sync {
	uint32_t name, op, frame; /* atoms; TG_NONE when absent */
	int64_t dur;
	uint32_t ev;
	int32_t step; /* the step the sync belongs to (tg_step_filter_step_of) */
};

/* Calls f(ctx, sync) for every selected host sync. */
static int each_sync(const tg_tree *tree, int32_t step, void (*f)(void *, const struct sync *),
                     void *ctx)
{
	tg_step_filter flt;
	int rc = tg_step_filter_init(&flt, tree, step);
	if (rc)
		return rc;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	/* one decision per distinct name and kind class */
	uint32_t natoms = tg_atoms_count(tg_trace_atoms(t));
	uint8_t *known = tg_calloc((size_t)natoms + 1, 2); /* [atom*2 + is_sync_kind]: 0 ?, 1 no, 2 yes */
	if (!known)
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (!tg_kind_is_launch(e->kind) && e->kind != TG_KIND_SYNC)
			continue;
		if (e->name < natoms) {
			uint8_t *k = &known[(size_t)e->name * 2 + (e->kind == TG_KIND_SYNC)];
			if (!*k)
				*k = tg_host_syncs_is_sync(tg_trace_str(t, e->name), e->kind) ? 2 : 1;
			if (*k == 1)
				continue;
		} else if (!tg_host_syncs_is_sync(tg_trace_str(t, e->name), e->kind)) {
			continue;
		}
		if (!tg_step_filter_has(&flt, (uint32_t)i))
			continue;
		uint32_t p = tg_tree_parent(tree, (uint32_t)i);
		if (e->kind == TG_KIND_SYNC && p != TG_NONE &&
		    tg_host_syncs_is_sync(tg_trace_str(t, ev[p].name), ev[p].kind))
			continue; /* counted with its runtime call */
		struct sync s = {e->name, TG_NONE, TG_NONE, 0, (uint32_t)i, tg_step_filter_step_of(&flt, (uint32_t)i)};
		uint32_t any_frame = TG_NONE;
		for (; p != TG_NONE && (s.frame == TG_NONE || s.op == TG_NONE); p = tg_tree_parent(tree, p)) {
			if (ev[p].kind == TG_KIND_CPU_OP && s.op == TG_NONE)
				s.op = ev[p].name;
			if (ev[p].kind == TG_KIND_PYTHON && s.frame == TG_NONE) {
				if (is_source_frame(tg_trace_str(t, ev[p].name)))
					s.frame = ev[p].name;
				else if (any_frame == TG_NONE)
					any_frame = ev[p].name;
			}
		}
		if (s.frame == TG_NONE)
			s.frame = any_frame;
		int64_t ts, end;
		tg_step_filter_span(&flt, e, &ts, &end);
		s.dur = end - ts;
		f(ctx, &s);
	}
	free(known);
	return 0;
}

static void add_summary(void *ctx, const struct sync *s)
{
	tg_host_sync_summary *out = ctx;
	out->count++;
	out->total_ns += s->dur;
	if (s->dur > out->max_ns)
		out->max_ns = s->dur;
}

int tg_host_syncs_summary(tg_host_sync_summary *out, const tg_tree *tree, int32_t step)
{
	memset(out, 0, sizeof(*out));
	return each_sync(tree, step, add_summary, out);
}

struct by_step {
	uint64_t *counts;
	size_t n;
};

static void add_by_step(void *ctx, const struct sync *s)
{
	struct by_step *b = ctx;
	if (s->step >= 0 && (size_t)s->step < b->n)
		b->counts[s->step]++;
}

int tg_host_syncs_count_by_step(uint64_t *counts, size_t nsteps, const tg_tree *tree)
{
	memset(counts, 0, nsteps * sizeof(*counts));
	struct by_step b = {counts, nsteps};
	return each_sync(tree, TG_STEP_ALL, add_by_step, &b);
}

struct list {
	struct sync *v;
	size_t n, cap;
	int failed;
};

static void add_list(void *ctx, const struct sync *s)
{
	struct list *l = ctx;
	if (l->failed || tg_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*s))) {
		l->failed = 1;
		return;
	}
	l->v[l->n++] = *s;
}

static int cmp_key(const void *a, const void *b)
{
	const struct sync *x = a, *y = b;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return (x->frame > y->frame) - (x->frame < y->frame);
}

struct group {
	const char *name, *op, *frame;
	uint64_t count;
	int64_t total, max;
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->op ? x->op : "", y->op ? y->op : "");
	if (!c)
		c = strcmp(x->frame ? x->frame : "", y->frame ? y->frame : "");
	return c;
}

int tg_host_syncs_tables(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step)
{
	static const char *const cols[] = {"sync", "op", "python_frame", "count", "total_time(us)",
	                                   "max_time(us)", "mean_time(us)", NULL};
	*out = NULL;
	*n = 0;
	const tg_trace *t = tg_tree_trace(tree);
	struct list l = {0};
	struct group *g = NULL;
	tg_table **tabs = NULL;
	tg_table *tab = NULL;
	int rc = each_sync(tree, step, add_list, &l);
	if (rc) {
		free(l.v);
		return rc;
	}
	rc = TG_ENOMEM;
	if (l.failed || !(g = tg_malloc((l.n + 1) * sizeof(*g))))
		goto fail;
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), cmp_key);
	size_t ng = 0;
	for (size_t i = 0; i < l.n;) {
		size_t j = i;
		struct group x = {tg_trace_str(t, l.v[i].name),
		                  l.v[i].op == TG_NONE ? NULL : tg_trace_str(t, l.v[i].op),
		                  l.v[i].frame == TG_NONE ? NULL : tg_trace_str(t, l.v[i].frame), 0, 0, 0};
		for (; j < l.n && cmp_key(&l.v[i], &l.v[j]) == 0; j++) {
			x.count++;
			x.total += l.v[j].dur;
			x.max = l.v[j].dur > x.max ? l.v[j].dur : x.max;
		}
		g[ng++] = x;
		i = j;
	}
	if (ng > 1)
		qsort(g, ng, sizeof(*g), cmp_group);
	tab = tg_table_new("host_syncs", "Host syncs (the host waits for the GPU)");
	if (!tab)
		goto fail;
	for (const char *const *c = cols; *c; c++)
		if (tg_table_add_column(tab, *c) < 0)
			goto fail;
	for (size_t i = 0; i < ng; i++) {
		int64_t r = tg_table_add_row(tab);
		if (r < 0 || tg_table_set_str(tab, (size_t)r, 0, g[i].name) ||
		    tg_table_set_str(tab, (size_t)r, 1, g[i].op) ||
		    tg_table_set_str(tab, (size_t)r, 2, g[i].frame))
			goto fail;
		size_t row = (size_t)r;
		tg_table_set_int(tab, row, 3, (int64_t)g[i].count);
		tg_table_set_num(tab, row, 4, (double)g[i].total / 1000.0);
		tg_table_set_num(tab, row, 5, (double)g[i].max / 1000.0);
		tg_table_set_num(tab, row, 6, (double)g[i].total / (double)g[i].count / 1000.0);
	}
	if (!(tabs = tg_malloc(sizeof(*tabs))))
		goto fail;
	tabs[0] = tab;
	free(l.v);
	free(g);
	*out = tabs;
	*n = 1;
	return 0;
fail:
	tg_table_free(tab);
	free(l.v);
	free(g);
	return tg_error_set(rc, "host syncs: out of memory");
}
