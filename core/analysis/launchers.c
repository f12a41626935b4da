/*
 * launchers.c - assigns device events to their launching op
 * (launchers.h, which states TraceLens's rule): each device event of the
 * selected step to the leaf cpu_op above its runtime launch, the kernels
 * grouped by launcher in start order, and each launcher's direct and
 * subtree kernel time as the union of its events' intervals. The tables built on them are
 * launchers_tables.c's and launchers_args.c's.
 */
#include "../trace/categorize.h"
#include "describe.h"
#include "launchers_impl.h"
#include "../trace/pyrepr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_start(const void *a, const void *b)
{
	const tg_span *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* Unions of each owner's spans (t grouped by owner, at[w] the end
 * of owner w's group) into list[owner].subtree_us; a group not in start
 * order is sorted in place first. */
static void union_per_owner(tg_span *t, const size_t *at, size_t nowners, tg_launcher *list)
{
	for (size_t w = 0, i = 0; w < nowners; i = at[w++]) {
		size_t n = at[w] - i;
		if (!n)
			continue;
		tg_span *g = t + i;
		size_t k = 1;
		while (k < n && g[k - 1].start <= g[k].start)
			k++;
		if (k < n)
			qsort(g, n, sizeof(*g), cmp_start);
		double total = 0, s = g[0].start, e = g[0].end;
		for (size_t j = 1; j < n; j++) {
			if (g[j].start <= e) {
				if (g[j].end > e)
					e = g[j].end;
			} else {
				total += e - s;
				s = g[j].start;
				e = g[j].end;
			}
		}
		list[w].subtree_us = total + (e - s);
	}
}

uint32_t tg_launchers_find(const tg_tree *tree, const tg_event *ev, uint32_t k, const tg_atoms *atoms, int tracelens)
{
	uint32_t r = tg_tree_parent(tree, k);
	if (r == TG_NONE || !tg_kind_is_launch(ev[r].kind))
		return TG_NONE; /* not linked to a launch: TraceLens leaves it out */
	if (tracelens && !tg_tree_linked_like_tracelens(tree, k))
		return TG_NONE;
	for (uint32_t p = tg_tree_parent(tree, r); p != TG_NONE; p = tg_tree_parent(tree, p)) {
		if (ev[p].kind == TG_KIND_PYTHON)
			continue;
		if (ev[p].kind == TG_KIND_USER_ANNOTATION) {
			/* annotations are not in TraceLens's tree, except those that
			 * name an op it knows (vllm::unified_attention_with_output),
			 * which it applies as the launching op */
			if (strcmp(tg_op_category(tg_atoms_str(atoms, ev[p].name), NULL, 1), "other") != 0)
				return p;
			continue;
		}
		if (ev[p].kind == TG_KIND_CPU_OP) {
			if (!strcmp(tg_atoms_str(atoms, ev[p].name), "execute"))
				continue;
			return p;
		}
		break;
	}
	return r;
}

uint32_t tg_launcher_of(const tg_tree *tree, uint32_t ev, int tracelens)
{
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	return tg_launchers_find(tree, tg_trace_events(t, &ne), ev, tg_trace_atoms(t), tracelens);
}

/* Device events' spans, grouped by launcher above them: at[w]
 * counts launcher w's tags, then (as offsets) where the next one goes. */
struct tagvec {
	tg_span *v;
	size_t *at; /* nowners + 1; size_t: the tags are events times their
	             * launchers above, beyond 2^32 in a deep enough tree */
	size_t n;
};

/* Step 1: the launcher of every device event of the step into l->owner
 * (TG_NONE: none, or a communication kernel), launchers numbered by their
 * first device event into l->list and l->index (all TG_NONE on entry), with their kernel counts
 * and summed times. *ndev gets the number of events with a launcher. 0 or
 * TG_ENOMEM. */
static int assign_launchers(tg_launchers *l, const tg_launchers_opts *opts, size_t *ndev)
{
	const tg_atoms *atoms = tg_trace_atoms(l->trace);
	size_t ne, list_cap = 0;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	*ndev = 0;
	for (size_t i = 0; i < ne; i++) {
		l->owner[i] = TG_NONE;
		if (!tg_kind_is_gpu(ev[i].kind) || !tg_launchers_in_step(l->tree, (uint32_t)i, opts->step))
			continue;
		if (ev[i].kind == TG_KIND_KERNEL && (tg_trace_name_flags(l->trace, ev[i].name) & TG_NAME_COMM))
			continue;
		uint32_t who = tg_launchers_find(l->tree, ev, (uint32_t)i, atoms, opts->tracelens_compat);
		if (who == TG_NONE)
			continue;
		uint32_t idx = l->index[who];
		if (idx == TG_NONE) {
			if (tg_grow((void **)&l->list, &list_cap, l->n + 1, sizeof(tg_launcher)))
				return TG_ENOMEM;
			idx = (uint32_t)l->n++;
			l->list[idx] = (tg_launcher){.event = who};
			l->index[who] = idx;
		}
		l->owner[i] = idx;
		l->list[idx].nkernels++;
		l->list[idx].kernel_sum_us += tg_timebase_us(&opts->tb, (double)ev[i].dur);
		(*ndev)++;
	}
	return 0;
}

/* Step 2: the ndev direct device events grouped by launcher, in start
 * order (l->koff, l->kernels), and each launcher's category from its name
 * and first kernel. 0 or TG_ENOMEM. */
static int group_kernels(tg_launchers *l, size_t ndev, int tracelens_compat)
{
	const tg_atoms *atoms = tg_trace_atoms(l->trace);
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	l->koff = tg_calloc(l->n + 2, sizeof(uint32_t));
	l->kernels = tg_malloc((ndev + 1) * sizeof(uint32_t));
	uint32_t *fill = tg_malloc((l->n + 1) * sizeof(uint32_t));
	if (!l->koff || !l->kernels || !fill) {
		free(fill);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < ne; i++)
		if (l->owner[i] != TG_NONE)
			l->koff[l->owner[i] + 1]++;
	for (size_t i = 0; i < l->n; i++)
		l->koff[i + 1] += l->koff[i];
	memcpy(fill, l->koff, (l->n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < ne; i++)
		if (l->owner[i] != TG_NONE)
			l->kernels[fill[l->owner[i]]++] = (uint32_t)i;
	free(fill);
	for (size_t i = 0; i < l->n; i++) {
		/* events are mostly in time order; insertion sort the stragglers */
		uint32_t *k = l->kernels + l->koff[i];
		size_t m = l->koff[i + 1] - l->koff[i];
		for (size_t a = 1; a < m; a++) {
			uint32_t x = k[a];
			size_t b = a;
			while (b > 0 && ev[k[b - 1]].ts > ev[x].ts) {
				k[b] = k[b - 1];
				b--;
			}
			k[b] = x;
		}
		const char *first = m ? tg_atoms_str(atoms, ev[k[0]].name) : NULL;
		const char *name = tg_atoms_str(atoms, ev[l->list[i].event].name);
		l->list[i].category = tg_op_category(name, first, tracelens_compat);
	}
	return 0;
}

/* Each launcher's direct time: the union of its direct device events'
 * spans, walked in start order (group_kernels sorted them), so that no
 * array of tagged spans as long as the device events is needed. */
static void direct_unions(tg_launchers *l, const tg_timebase *tb)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	for (size_t i = 0; i < l->n; i++) {
		size_t m;
		const uint32_t *k = tg_launchers_kernels(l, i, &m);
		if (!m)
			continue;
		tg_span c = tg_span_of(tb, &ev[k[0]]);
		double total = 0;
		for (size_t j = 1; j < m; j++) {
			tg_span x = tg_span_of(tb, &ev[k[j]]);
			if (x.start <= c.end) {
				if (x.end > c.end)
					c.end = x.end;
			} else {
				total += c.end - c.start;
				c = x;
			}
		}
		l->list[i].direct_us = total + (c.end - c.start);
	}
}

/* Step 3: every linked device event of the step, tagged into sub once for
 * each launcher above it (its subtree time), in two passes: sub->v NULL,
 * the tags are counted per launcher into sub->at; else each goes to its
 * launcher's group, at the offset sub->at holds. No array grows, none is
 * sorted as a whole. */
static void tag_subtrees(const tg_launchers *l, const tg_launchers_opts *opts, struct tagvec *sub)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind) || !tg_launchers_in_step(l->tree, (uint32_t)i, opts->step))
			continue;
		uint32_t r = tg_tree_parent(l->tree, (uint32_t)i);
		if (r == TG_NONE || !tg_kind_is_launch(ev[r].kind) ||
		    (opts->tracelens_compat && !tg_tree_linked_like_tracelens(l->tree, (uint32_t)i)))
			continue;
		tg_span s = tg_span_of(&opts->tb, &ev[i]);
		for (uint32_t p = r; p != TG_NONE; p = tg_tree_parent(l->tree, p)) {
			uint32_t idx = l->index[p];
			if (idx == TG_NONE)
				continue;
			if (!sub->v)
				sub->at[idx]++;
			else
				sub->v[sub->at[idx]++] = s;
		}
	}
}

/* Each launcher's subtree time: its tags (tag_subtrees) merged. 0 or
 * TG_ENOMEM. */
static int subtree_unions(tg_launchers *l, const tg_launchers_opts *opts)
{
	struct tagvec sub = {NULL, tg_calloc(l->n + 1, sizeof(size_t)), 0};
	if (!sub.at)
		return TG_ENOMEM;
	tag_subtrees(l, opts, &sub); /* counts */
	for (size_t w = 0, start = 0; w < l->n; w++) {
		size_t c = sub.at[w];
		sub.at[w] = start; /* where launcher w's tags begin */
		start += c;
		sub.n = start;
	}
	if (sub.n >= SIZE_MAX / sizeof(*sub.v)) {
		free(sub.at);
		return tg_error_set(TG_ENOMEM, "out of memory (%zu subtree spans)", sub.n);
	}
	if (!(sub.v = tg_malloc((sub.n + 1) * sizeof(*sub.v)))) {
		free(sub.at);
		return TG_ENOMEM;
	}
	tag_subtrees(l, opts, &sub); /* at[w]: now where launcher w's tags end */
	union_per_owner(sub.v, sub.at, l->n, l->list);
	free(sub.v);
	free(sub.at);
	return 0;
}

int tg_launchers_build(tg_launchers **out, const tg_tree *tree, const tg_launchers_opts *opts)
{
	*out = NULL;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	tg_trace_events(t, &ne);
	int rc = TG_ENOMEM;
	size_t ndev;
	tg_launchers *l = tg_calloc(1, sizeof(*l));
	if (!l)
		return TG_ENOMEM;
	l->tree = tree;
	l->trace = t;
	l->key_stream = tg_trace_key(t, "stream");
	l->step = opts->step;
	l->tracelens_compat = opts->tracelens_compat;
	l->owner = tg_malloc((ne + 1) * sizeof(uint32_t));
	l->index = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (l->index) /* launchers may come after their kernels in the file */
		memset(l->index, 0xff, (ne + 1) * sizeof(uint32_t));
	if (!l->owner || !l->index || assign_launchers(l, opts, &ndev) ||
	    group_kernels(l, ndev, opts->tracelens_compat))
		goto fail;
	direct_unions(l, &opts->tb);
	if (subtree_unions(l, opts))
		goto fail;
	for (size_t i = 0; i < l->n; i++) {
		l->list[i].direct_us = tg_timebase_us(&opts->tb, l->list[i].direct_us);
		l->list[i].subtree_us = tg_timebase_us(&opts->tb, l->list[i].subtree_us);
	}
	rc = 0;
	*out = l;
	l = NULL;
fail:
	tg_launchers_free(l);
	return rc;
}

const tg_launcher *tg_launchers_list(const tg_launchers *l, size_t *n)
{
	*n = l->n;
	return l->list;
}

const uint32_t *tg_launchers_kernels(const tg_launchers *l, size_t i, size_t *n)
{
	*n = l->koff[i + 1] - l->koff[i];
	return l->kernels + l->koff[i];
}

const uint32_t *tg_launchers_owners(const tg_launchers *l)
{
	return l->owner;
}

void tg_launchers_free(tg_launchers *l)
{
	if (!l)
		return;
	free(l->list);
	free(l->koff);
	free(l->kernels);
	free(l->owner);
	free(l->index);
	free(l);
}
