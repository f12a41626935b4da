/*
 * launchers.c - assigns device events to their launching op
 * (launchers.h, which states TraceLens's rule): each device event of the
 * selected step to the leaf cpu_op above its runtime launch, the kernels
 * grouped by launcher in start order, and each launcher's direct and
 * subtree kernel time as the union of its events' intervals (the subtree
 * unions merged bottom-up over the launcher tree: memory linear in the
 * events, whatever the depth). The tables built on them are
 * launchers_tables.c's and launchers_args.c's.
 */
#include "../trace/categorize.h"
#include "describe.h"
#include "launchers_impl.h"
#include "../trace/pyrepr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Device event i's launcher's index, or TG_NONE (for a host event too,
 * whose room in l->owner holds something else while the launchers are
 * built: launchers_impl.h). */
static inline uint32_t owner_of(const tg_launchers *l, const tg_event *ev, size_t i)
{
	return tg_kind_is_gpu(ev[i].kind) ? l->owner[i] : TG_NONE;
}

/* Step 1: the launcher of every device event of the step into l->owner
 * (TG_NONE: none, or a communication kernel), launchers numbered by their
 * first device event, their events into l->lev and, in their own room of
 * l->owner (a launcher is a host event), their number (l->owner all
 * TG_NONE on entry). *ndev gets the number of events with a launcher. 0
 * or TG_ENOMEM. */
static int assign_launchers(tg_launchers *l, const tg_launchers_opts *opts, size_t *ndev)
{
	const tg_atoms *atoms = tg_trace_atoms(l->trace);
	size_t ne, lev_cap = 0;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	*ndev = 0;
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind) || !tg_launchers_in_step(l->tree, (uint32_t)i, opts->step))
			continue;
		l->nstep_dev++;
		if (ev[i].kind == TG_KIND_KERNEL && (tg_trace_name_flags(l->trace, ev[i].name) & TG_NAME_COMM)) {
			l->nstep_comm++;
			continue;
		}
		uint32_t who = tg_launchers_find(l->tree, ev, (uint32_t)i, atoms, opts->tracelens_compat);
		if (who == TG_NONE)
			continue;
		uint32_t idx = l->owner[who]; /* (who is a launch or an op: a host event) */
		if (idx == TG_NONE) {
			if (tg_grow((void **)&l->lev, &lev_cap, l->n + 1, sizeof(uint32_t)))
				return TG_ENOMEM;
			idx = (uint32_t)l->n++;
			l->lev[idx] = who;
			l->owner[who] = idx;
		}
		l->owner[i] = idx;
		(*ndev)++;
	}
	/* grown by doubling: give back the unused half (a third of a million
	 * launchers at a gigabyte of JSON) */
	uint32_t *fit = realloc(l->lev, (l->n + 1) * sizeof(uint32_t));
	if (fit)
		l->lev = fit;
	return 0;
}

/* Step 3: l->owner's device room made compact (tg_launchers_owner_of: a bit
 * an event, a count per 64 events, a launcher per linked device event, of
 * which there are ndev); l->owner, 4 bytes an event, the largest of the
 * launchers' arrays, is then only the subtree unions' memo, which frees it
 * as soon as it is read. 0 or TG_ENOMEM. */
static int compact_owners(tg_launchers *l, size_t ndev)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	size_t nw = ne / 64 + 1, k = 0;
	l->nlinked_words = nw;
	l->linked = tg_calloc(nw, sizeof(uint64_t));
	l->linked_rank = tg_malloc(nw * sizeof(uint32_t));
	l->linked_owner = tg_malloc((ndev + 1) * sizeof(uint32_t));
	if (!l->linked || !l->linked_rank || !l->linked_owner)
		return TG_ENOMEM;
	for (size_t w = 0; w < nw; w++) {
		l->linked_rank[w] = (uint32_t)k;
		for (size_t i = w * 64; i < ne && i < w * 64 + 64 && k < ndev; i++) {
			uint32_t o = owner_of(l, ev, i);
			if (o == TG_NONE)
				continue;
			l->linked[w] |= (uint64_t)1 << (i & 63);
			l->linked_owner[k++] = o;
		}
	}
	return 0;
}

/* Step 5: the list of launchers (tg_launcher, 24 bytes each) from their
 * events and subtree times, which it replaces: made in the subtree times'
 * room, grown (from the mmap threshold a mapping, moved by mremap, not
 * copied beside a second one) and filled from its end, where each
 * launcher's 24 bytes cover only the times already read (launcher i's
 * lie at 8i, below 24i), so that the two are never held at once. 0 or
 * TG_ENOMEM. */
static int make_list(tg_launchers *l)
{
	tg_launcher *list = tg_realloc(l->sub, (l->n + 1) * sizeof(tg_launcher));
	if (!list)
		return TG_ENOMEM;
	l->sub = NULL;
	l->list = list;
	list[l->n] = (tg_launcher){0};
	for (size_t i = l->n; i-- > 0;) {
		double t;
		memcpy(&t, (const char *)list + i * sizeof(double), sizeof(t)); /* (the times' room, as bytes) */
		list[i] = (tg_launcher){.event = l->lev[i], .subtree_us = t};
	}
	free(l->lev);
	l->lev = NULL;
	return 0;
}

/* The number of category c (a static string) in l->cats, added when new:
 * they are few (categorize.h's), the last one met most often next. 0 or
 * TG_ENOMEM. */
static int category_number(uint32_t *out, tg_launchers *l, size_t *cap, const char *c)
{
	for (size_t k = l->ncats; k-- > 0;)
		if (l->cats[k] == c) {
			*out = (uint32_t)k;
			return 0;
		}
	if (tg_grow((void **)&l->cats, cap, l->ncats + 1, sizeof(*l->cats)))
		return TG_ENOMEM;
	l->cats[l->ncats] = c;
	*out = (uint32_t)l->ncats++;
	return 0;
}

/* The ndev direct device events grouped by launcher into l->kernels, each
 * launcher's in event order, with no offsets array of their own: launcher
 * w's list[w].category (0 from make_list) counts them, then is w's cursor,
 * and is left at w's end (w + 1's start). 0 or TG_ENOMEM. */
static int place_kernels(tg_launchers *l, size_t ndev)
{
	size_t ne;
	tg_trace_events(l->trace, &ne);
	tg_launcher *x = l->list;
	if (!(l->kernels = tg_malloc((ndev + 1) * sizeof(uint32_t))))
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		uint32_t o = tg_launchers_owner_of(l, (uint32_t)i);
		if (o != TG_NONE)
			x[o].category++;
	}
	uint32_t at = 0;
	for (size_t w = 0; w < l->n; w++) {
		uint32_t c = x[w].category;
		x[w].category = at;
		at += c;
	}
	for (size_t i = 0; i < ne; i++) {
		uint32_t o = tg_launchers_owner_of(l, (uint32_t)i);
		if (o != TG_NONE)
			l->kernels[x[o].category++] = (uint32_t)i;
	}
	return 0;
}

/* The m events k in start order: they mostly are; insertion sort the
 * stragglers. */
static void sort_by_start(uint32_t *k, size_t m, const tg_event *ev)
{
	for (size_t a = 1; a < m; a++) {
		uint32_t x = k[a];
		size_t b = a;
		while (b > 0 && ev[k[b - 1]].ts > ev[x].ts) {
			k[b] = k[b - 1];
			b--;
		}
		k[b] = x;
	}
}

/* A launcher's direct time: the union of the spans of its m direct device
 * events k, walked in start order, so that no array of tagged spans as long
 * as the device events is needed. */
static double direct_union(const tg_launchers *l, const tg_timebase *tb, const uint32_t *k, size_t m)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	if (!m)
		return 0;
	tg_span c = tg_span_of(tb, l->trace, &ev[k[0]]);
	double total = 0;
	for (size_t j = 1; j < m; j++) {
		tg_span x = tg_span_of(tb, l->trace, &ev[k[j]]);
		if (x.start <= c.end) {
			if (x.end > c.end)
				c.end = x.end;
		} else {
			total += c.end - c.start;
			c = x;
		}
	}
	return total + (c.end - c.start);
}

/* A launcher's category by its name and first kernel (atoms; TG_NONE: no
 * kernel), remembered in a table of CAT_MEMO slots. */
#define CAT_MEMO 512
struct cat_memo {
	uint32_t name, first;
	const char *cat;
};

/* Step 6: the ndev direct device events grouped by launcher, in start
 * order, each launcher's category from its name and first kernel and its
 * direct time from them; the groups kept (l->koff, l->kernels) with
 * opts->keep_kernels, else freed. Their offsets ride in the categories'
 * room until each launcher's category is known (place_kernels): 4 bytes a
 * launcher less at the build's peak (the list, the owners and the groups).
 * 0 or TG_ENOMEM. */
static int group_kernels(tg_launchers *l, size_t ndev, const tg_launchers_opts *opts)
{
	/* the categories of the launchers' names (and first kernels) met last:
	 * a trace repeats a few hundred ops thousands of times, and the
	 * category's search (tg_op_category: string compares) cost more than
	 * the rest of the step (0.65 % of a 100 MB report's instructions) */
	struct cat_memo memo[CAT_MEMO];
	for (size_t i = 0; i < CAT_MEMO; i++)
		memo[i] = (struct cat_memo){TG_NONE, TG_NONE, NULL};
	size_t cats_cap = 0, ne;
	const tg_atoms *atoms = tg_trace_atoms(l->trace);
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	if (place_kernels(l, ndev))
		return TG_ENOMEM;
	if (opts->keep_kernels) {
		if (!(l->koff = tg_malloc((l->n + 2) * sizeof(uint32_t))))
			return TG_ENOMEM;
		l->koff[0] = 0;
		for (size_t w = 0; w < l->n; w++)
			l->koff[w + 1] = l->list[w].category;
	}
	for (size_t w = 0, begin = 0; w < l->n; w++) {
		tg_launcher *x = &l->list[w];
		uint32_t *k = l->kernels + begin;
		size_t m = x->category - begin;
		begin = x->category;
		sort_by_start(k, m, ev);
		uint32_t name_atom = ev[x->event].name, first_atom = m ? ev[k[0]].name : TG_NONE;
		struct cat_memo *cm = &memo[(name_atom * UINT32_C(2654435761) ^ first_atom) % CAT_MEMO];
		if (!cm->cat || cm->name != name_atom || cm->first != first_atom) { /* the same names, the same category */
			const char *first = m ? tg_atoms_str(atoms, first_atom) : NULL;
			*cm = (struct cat_memo){name_atom, first_atom,
			                        tg_op_category(tg_atoms_str(atoms, name_atom), first, opts->tracelens_compat)};
		}
		if (category_number(&x->category, l, &cats_cap, cm->cat))
			return TG_ENOMEM;
		x->direct_us = direct_union(l, &opts->tb, k, m);
	}
	if (!opts->keep_kernels) { /* (no table reads them) */
		free(l->kernels);
		l->kernels = NULL;
	}
	return 0;
}

/*
 * Subtree times. A device event counts for every launcher above its
 * launch, so tagging it once per launcher costs events times depth
 * (quadratic in a deep chain of launchers, which an untrusted trace can
 * make). Instead each event goes once to the nearest launcher at or above
 * its launch, and the launcher tree (each launcher's parent: the nearest
 * launcher above it) is walked bottom-up: a launcher's union is its own
 * spans merged with its children's unions, each child's list freed once
 * merged. The spans alive at any time are at most the device events, so
 * memory is linear; the union's components are exactly those of the tagged
 * spans merged, summed left to right as before, so the sums are the same
 * to the bit.
 *
 * Memory, the report's peak at a gigabyte of JSON (394,426 launchers,
 * 453,962 kernels): the events are grouped by launcher as 4-byte indexes,
 * a launcher's own spans made from them when it is finished (one scratch
 * as large as the largest group), and only the launchers with children
 * hold a merged list while the walk waits for them; the nearest launcher's
 * memo is l->owner's host room, where the launchers' indexes already are,
 * read for the launcher tree and each linked event's nearest launcher and
 * freed before the groups, the lists and the subtree times are made; the
 * launchers are their events and subtree times (12 bytes each) until the
 * walk is done, the list of 24-byte launchers made in the times' room
 * after it.
 */

/* A merged span list (owned, or a view of the own spans' scratch). */
struct spanlist {
	tg_span *v;
	uint32_t n; /* (spans are device events: fewer than 2^32) */
	uint32_t owned;
};

/* A launcher with children: their union so far, and how many are not in
 * it yet. */
struct accum {
	struct spanlist u;
	uint32_t pending;
};

/* The state of the subtree unions (subtree_unions). */
struct subtree {
	const tg_event *ev;    /* the trace's events */
	const tg_timebase *tb;
	uint32_t *near;        /* per host event (l->owner's room): its index if a launcher, else the
	                        * nearest launcher above it, NEAR_NONE, or TG_NONE (not known yet) */
	uint32_t *at;          /* n + 1: where each launcher's events end in idx (begin while placed) */
	uint32_t *idx;         /* the linked device events of the step, grouped by nearest launcher */
	uint32_t *parent;      /* per launcher: the nearest launcher above it, or TG_NONE */
	uint32_t *kids;        /* per launcher: its children's count while the launcher tree is made,
	                        * then its place in acc if it has children, else TG_NONE */
	struct accum *acc;     /* per launcher with children: their union so far */
	size_t nacc;
	tg_span *own;          /* scratch: one launcher's own spans */
	struct near_ex *ex;    /* the linked events whose nearest launcher is not their owner, by event */
	size_t nex, excap;
};

/* A linked device event whose nearest launcher (at or above its launch) is
 * not its launcher (tg_launchers_owner_of): a communication kernel, which
 * has none; for every other the two are the same launcher (the ops between
 * a launch and its launcher are never launchers), so that they are all
 * the memo's reads need to keep. */
struct near_ex {
	uint32_t ev, near;
};

#define NEAR_NONE (TG_NONE - 1) /* no launcher above */

/* Whether node e's nearest launcher is memoized in st->near: host events
 * only (the walks start at launches and go up through host events; a
 * device event, were one ever on the way, keeps its owner). */
static inline int memo(const struct subtree *st, uint32_t e)
{
	return !tg_kind_is_gpu(st->ev[e].kind);
}

/* The index of the nearest launcher at or above tree node e, or TG_NONE;
 * memoized in st->near for every node on the way, so that all the calls
 * together walk each node once (a launcher's room holds its own index). */
static uint32_t nearest_launcher(const tg_launchers *l, struct subtree *st, uint32_t e)
{
	uint32_t p = e, found = TG_NONE;
	while (p != TG_NONE) {
		if (memo(st, p) && st->near[p] != TG_NONE) {
			found = st->near[p] == NEAR_NONE ? TG_NONE : st->near[p];
			break;
		}
		p = tg_tree_parent(l->tree, p);
	}
	uint32_t keep = found == TG_NONE ? NEAR_NONE : found;
	for (uint32_t q = e; q != p; q = tg_tree_parent(l->tree, q))
		if (memo(st, q))
			st->near[q] = keep;
	return found;
}

/* Whether device event i of the step is linked to a launch: that launch,
 * else TG_NONE. */
static inline uint32_t linked_launch(const tg_launchers *l, const tg_launchers_opts *opts, const tg_event *ev, size_t i)
{
	if (!tg_kind_is_gpu(ev[i].kind) || !tg_launchers_in_step(l->tree, (uint32_t)i, opts->step))
		return TG_NONE;
	uint32_t r = tg_tree_parent(l->tree, (uint32_t)i);
	if (r == TG_NONE || !tg_kind_is_launch(ev[r].kind) ||
	    (opts->tracelens_compat && !tg_tree_linked_like_tracelens(l->tree, (uint32_t)i)))
		return TG_NONE;
	return r;
}

/* The nearest launcher at or above the launch of every linked device event
 * of the step, read from the memo, which is freed after: where it is not
 * the event's launcher (the compact owners), into st->ex. 0 or TG_ENOMEM. */
static int nearest_of_events(const tg_launchers *l, const tg_launchers_opts *opts, struct subtree *st)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	for (size_t i = 0; i < ne; i++) {
		uint32_t r = linked_launch(l, opts, ev, i);
		if (r == TG_NONE)
			continue;
		uint32_t w = nearest_launcher(l, st, r);
		if (w == tg_launchers_owner_of(l, (uint32_t)i))
			continue;
		if (tg_grow((void **)&st->ex, &st->excap, st->nex + 1, sizeof(*st->ex)))
			return TG_ENOMEM;
		st->ex[st->nex++] = (struct near_ex){(uint32_t)i, w};
	}
	return 0;
}

/* The linked device events of the step by their nearest launcher w: counted
 * into st->at[w + 1] (st->idx NULL), else stored at st->idx[st->at[w]],
 * which moves on to w's end. They are the events with a launcher (the
 * compact owners' bits, whose launcher is their nearest) and st->ex's,
 * merged in event order: no pass over the trace's events. */
static void place_events(const tg_launchers *l, struct subtree *st)
{
	size_t k = 0, x = 0; /* the next owner, the next exception */
	for (size_t wd = 0; wd < l->nlinked_words; wd++) {
		uint64_t bits = l->linked[wd];
		uint32_t end = (uint32_t)(wd * 64 + 64);
		while (bits || (x < st->nex && st->ex[x].ev < end)) {
			uint32_t b = bits ? (uint32_t)(wd * 64) + (uint32_t)__builtin_ctzll(bits) : TG_NONE;
			uint32_t e = x < st->nex ? st->ex[x].ev : TG_NONE, i, w;
			if (e <= b) { /* an exception (its owner, if any, passed over) */
				i = e;
				w = st->ex[x++].near;
				if (e == b) {
					bits &= bits - 1;
					k++;
				}
			} else {
				i = b;
				w = l->linked_owner[k++];
				bits &= bits - 1;
			}
			if (w == TG_NONE)
				continue;
			if (st->idx)
				st->idx[st->at[w]++] = i;
			else
				st->at[w + 1]++;
		}
	}
}

/* *out = the union of the merged span lists a and b (touching spans merge,
 * as tg_span_merge does); a and b freed if owned. 0 or TG_ENOMEM. */
static int merge_lists(struct spanlist *out, struct spanlist *a, struct spanlist *b)
{
	tg_span *m = tg_malloc((a->n + b->n + 1) * sizeof(*m));
	if (!m)
		return TG_ENOMEM;
	size_t i = 0, j = 0, o = 0;
	while (i < a->n || j < b->n) {
		tg_span x = (j >= b->n || (i < a->n && a->v[i].start <= b->v[j].start)) ? a->v[i++] : b->v[j++];
		if (o && x.start <= m[o - 1].end) {
			if (x.end > m[o - 1].end)
				m[o - 1].end = x.end;
		} else {
			m[o++] = x;
		}
	}
	if (a->owned)
		free(a->v);
	if (b->owned)
		free(b->v);
	*a = *b = (struct spanlist){NULL, 0, 0};
	*out = (struct spanlist){m, (uint32_t)o, 1};
	return 0;
}

/* Launcher w's own spans, merged, as a view of st->own. */
static struct spanlist own_union(const tg_launchers *l, struct subtree *st, uint32_t w)
{
	size_t m = 0;
	for (uint32_t j = w ? st->at[w - 1] : 0; j < st->at[w]; j++)
		st->own[m++] = tg_span_of(st->tb, l->trace, &st->ev[st->idx[j]]);
	return (struct spanlist){st->own, (uint32_t)tg_span_merge(st->own, m), 0};
}

/* Launcher w's children are all merged: its union is its own spans merged
 * with theirs, its subtree time that union's length; the union is then
 * merged into its parent's (or dropped at a root). *next gets the parent
 * when that was its last child (its turn now), else TG_NONE. 0 or
 * TG_ENOMEM. */
static int finish_launcher(tg_launchers *l, struct subtree *st, uint32_t w, uint32_t *next)
{
	struct spanlist mine = own_union(l, st, w), merged;
	*next = TG_NONE;
	if (st->kids[w] != TG_NONE) {
		if (merge_lists(&merged, &st->acc[st->kids[w]].u, &mine))
			return TG_ENOMEM;
		mine = merged;
	}
	l->sub[w] = tg_span_length(mine.v, mine.n);
	uint32_t p = st->parent[w];
	if (p == TG_NONE) {
		if (mine.owned)
			free(mine.v);
		return 0;
	}
	struct accum *theirs = &st->acc[st->kids[p]];
	if (merge_lists(&merged, &theirs->u, &mine)) {
		if (mine.owned)
			free(mine.v);
		return TG_ENOMEM;
	}
	theirs->u = merged;
	if (--theirs->pending == 0)
		*next = p;
	return 0;
}

/* The launcher tree: st->parent (from the memo). */
static void launcher_tree(tg_launchers *l, struct subtree *st)
{
	for (size_t w = 0; w < l->n; w++) {
		uint32_t up = tg_tree_parent(l->tree, l->lev[w]);
		st->parent[w] = up == TG_NONE ? TG_NONE : nearest_launcher(l, st, up);
	}
}

/* st->kids counting each launcher's children, st->at[w] where launcher w's
 * events begin in st->idx, and st->idx allocated. 0 or TG_ENOMEM. */
static int group_alloc(tg_launchers *l, struct subtree *st)
{
	if (!(st->at = tg_calloc(l->n + 2, sizeof(uint32_t))) || !(st->kids = tg_calloc(l->n + 1, sizeof(uint32_t))))
		return TG_ENOMEM;
	for (size_t w = 0; w < l->n; w++)
		if (st->parent[w] != TG_NONE)
			st->kids[st->parent[w]]++;
	place_events(l, st); /* (counts) */
	for (size_t w = 0; w < l->n; w++)
		st->at[w + 1] += st->at[w];
	st->idx = tg_malloc((st->at[l->n] + 1) * sizeof(uint32_t));
	return st->idx ? 0 : TG_ENOMEM;
}

/* The merged lists of the launchers with children (st->acc, their place
 * in st->kids, their count moved there) and the own spans' scratch, as
 * large as the largest group. 0 or TG_ENOMEM. */
static int walk_alloc(const tg_launchers *l, struct subtree *st)
{
	size_t nacc = 0, most = 0;
	for (size_t w = 0; w < l->n; w++) {
		nacc += st->kids[w] != 0;
		size_t m = st->at[w] - (w ? st->at[w - 1] : 0);
		if (m > most)
			most = m;
	}
	st->acc = tg_calloc(nacc + 1, sizeof(struct accum));
	st->own = tg_malloc((most + 1) * sizeof(tg_span));
	if (!st->acc || !st->own)
		return TG_ENOMEM;
	st->nacc = nacc;
	nacc = 0;
	for (size_t w = 0; w < l->n; w++) {
		if (st->kids[w])
			st->acc[nacc].pending = st->kids[w];
		st->kids[w] = st->kids[w] ? (uint32_t)nacc++ : TG_NONE;
	}
	return 0;
}

/* Bottom-up over the launcher tree (st set up), each launcher's subtree
 * time into l->sub: every leaf in turn, and from each, up through the
 * parents whose last child it finished (no queue: each launcher is
 * finished once, when its children are; the unions do not depend on the
 * order). 0 or TG_ENOMEM. */
static int walk_up(tg_launchers *l, struct subtree *st)
{
	int rc = walk_alloc(l, st);
	for (size_t w = 0; w < l->n && !rc; w++)
		if (st->kids[w] == TG_NONE) /* a leaf */
			for (uint32_t x = (uint32_t)w; x != TG_NONE && !rc;)
				rc = finish_launcher(l, st, x, &x);
	for (size_t k = 0; k < st->nacc; k++)
		if (st->acc[k].u.owned)
			free(st->acc[k].u.v); /* left by a failure */
	return rc;
}

/* Step 2: the launcher of each communication kernel of the step into
 * l->comm (kernel_summary names it; owner leaves those kernels out), read
 * from the launchers' indexes in l->owner's host room before the subtree
 * unions' memo shares it. 0 or TG_ENOMEM. */
static int comm_launchers(tg_launchers *l, const tg_launchers_opts *opts)
{
	const tg_atoms *atoms = tg_trace_atoms(l->trace);
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	if (!l->nstep_comm) /* (no pass at all without them) */
		return 0;
	if (!(l->comm = tg_idmap_new(l->nstep_comm)))
		return TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		if (ev[i].kind != TG_KIND_KERNEL || !(tg_trace_name_flags(l->trace, ev[i].name) & TG_NAME_COMM) ||
		    !tg_launchers_in_step(l->tree, (uint32_t)i, opts->step))
			continue;
		uint32_t who = tg_launchers_find(l->tree, ev, (uint32_t)i, atoms, opts->tracelens_compat);
		if (who != TG_NONE && l->owner[who] != TG_NONE && tg_idmap_put(l->comm, (int64_t)i, l->owner[who]) < 0)
			return TG_ENOMEM;
	}
	return 0;
}

/* Step 4: each launcher's subtree time into l->sub (allocated here), the
 * union of the spans of every linked device event of the step whose launch
 * is under it (in the time base, converted to us by the caller). The
 * memo (l->owner, whose device room compact_owners has read) is read for
 * the launcher tree and each linked event's nearest launcher (kept where it
 * is not the event's launcher: st.ex), then freed, before the events'
 * groups, the walk's lists and the subtree times are made: the build's
 * peak was the memo beside all of them (1.9 MB over the model at 100 MB of
 * JSON). 0 or TG_ENOMEM. */
static int subtree_unions(tg_launchers *l, const tg_launchers_opts *opts)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(l->trace, &ne);
	struct subtree st = {.ev = ev, .tb = &opts->tb, .near = l->owner};
	int rc = TG_ENOMEM;
	if (!(st.parent = tg_malloc((l->n + 1) * sizeof(uint32_t))))
		goto out;
	launcher_tree(l, &st);
	if (nearest_of_events(l, opts, &st))
		goto out;
	free(l->owner);
	l->owner = st.near = NULL;
	if (group_alloc(l, &st))
		goto out;
	place_events(l, &st); /* at[w]: now where launcher w's events end */
	free(st.ex);
	st.ex = NULL;
	if ((l->sub = tg_malloc((l->n + 1) * sizeof(double))))
		rc = walk_up(l, &st);
out:
	free(st.ex);
	free(st.at);
	free(st.idx);
	free(st.parent);
	free(st.kids);
	free(st.acc);
	free(st.own);
	return rc;
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
	l->step = opts->step;
	l->tracelens_compat = opts->tracelens_compat;
	l->owner = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (l->owner) /* launchers may come after their kernels in the file */
		memset(l->owner, 0xff, (ne + 1) * sizeof(uint32_t));
	/* the owners made compact before the subtree unions, which free the
	 * memo they share a room with; the kernels' groups, which the unions do
	 * not read, after them */
	if (!l->owner || assign_launchers(l, opts, &ndev) || comm_launchers(l, opts) || compact_owners(l, ndev) ||
	    subtree_unions(l, opts) || make_list(l) || group_kernels(l, ndev, opts))
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
	*n = 0;
	if (!l->koff)
		return NULL;
	*n = l->koff[i + 1] - l->koff[i];
	return l->kernels + l->koff[i];
}

const char *tg_launchers_category(const tg_launchers *l, const tg_launcher *x)
{
	return l->cats[x->category];
}

uint32_t tg_launchers_owner(const tg_launchers *l, uint32_t ev)
{
	return tg_launchers_owner_of(l, ev);
}

void tg_launchers_free(tg_launchers *l)
{
	if (!l)
		return;
	free(l->list);
	free(l->lev);
	free(l->sub);
	free(l->cats);
	free(l->koff);
	free(l->kernels);
	free(l->owner);
	free(l->linked);
	free(l->linked_rank);
	free(l->linked_owner);
	tg_idmap_free(l->comm);
	free(l);
}
