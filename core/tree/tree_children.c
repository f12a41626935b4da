/*
 * tree_children.c - the children's layout (tree_impl.h): the roots, read
 * from the buckets; then, the buckets freed, the children in CSR form
 * (child_off[] indexes children[], allocated to its count), filled in file
 * order and each event's children sorted by start, longest first, index
 * where they are not in that order already; the stats read from the laid
 * out tree;
 * the children (tree.h's iterator) and roots read back.
 */
#include "tree_impl.h"

#include <stdlib.h>

/* The trace and its events, for cmp_child. */
struct child_ctx {
	const tg_trace *t;
	const tg_event *ev;
};

static int cmp_child(const void *a, const void *b, void *ctx)
{
	const struct child_ctx *cc = ctx;
	const tg_trace *t = cc->t;
	const tg_event *ev = cc->ev;
	const tg_event *x = &ev[*(const uint32_t *)a], *y = &ev[*(const uint32_t *)b];
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	int64_t dx = tg_event_dur(t, x), dy = tg_event_dur(t, y);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

int tg_tree_gather_roots(tg_tree *tree, const tg_trace *t, const tg_tree_buckets *hb, const tg_tree_buckets *db)
{
	size_t ne, nt;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_trace_tracks(t, &nt);
	/* a slot an event: the untouched slots are never resident, and sized
	 * to their count (a few hundred) the roots moved the diff's 1 GB peak
	 * up by 11 MB through glibc's heap layout (the diff never trims its
	 * heap: cli/cmd_diff.c) */
	tree->roots = tg_malloc((ne + 1) * sizeof(uint32_t));
	if (!tree->roots)
		return TG_ENOMEM;
	/* in sorted track order: host tracks, then device tracks' orphans */
	const tg_tree_buckets *bs[2] = {hb, db};
	for (int b = 0; b < 2; b++)
		for (size_t tr = 0; tr < nt; tr++)
			for (uint32_t k = bs[b]->off[tr]; k < bs[b]->off[tr + 1]; k++) {
				uint32_t e = (uint32_t)bs[b]->keys[k].tie;
				if (tg_tree_parent_at(tree, e) == TG_NONE && (b == 0 || tg_kind_is_gpu(ev[e].kind)))
					tree->roots[tree->nroots++] = e;
			}
	return 0;
}

int tg_tree_layout_children(tg_tree *tree, const tg_trace *t)
{
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	tree->child_off = tg_calloc(ne + 2, sizeof(uint32_t));
	if (!tree->child_off)
		return TG_ENOMEM;
	/* the counts one slot further on, summed: child_off[p + 1] is then where
	 * p's children start, the cursor that fills them, and ends where the
	 * next one's start (no cursor array: 4 bytes an event less at the
	 * build's peak). The children are counted first and allocated to
	 * their count. */
	size_t nchildren = 0;
	for (size_t i = 0; i < ne; i++) {
		uint32_t p = tg_tree_parent_at(tree, i);
		if (p != TG_NONE) {
			tree->child_off[p + 2]++;
			nchildren++;
		}
	}
	for (size_t i = 0; i < ne; i++)
		tree->child_off[i + 1] += tree->child_off[i];
	tree->children = tg_malloc((nchildren + 1) * sizeof(uint32_t));
	if (!tree->children)
		return TG_ENOMEM;
	/* in file order, each event's then sorted where they are not in order
	 * already (children from several tracks, python reparenting,
	 * multi-stream graph launches, a file out of time order): the order is
	 * cmp_child's, a total one, whatever order they are filled in */
	for (size_t i = 0; i < ne; i++) {
		uint32_t p = tg_tree_parent_at(tree, i);
		if (p != TG_NONE)
			tree->children[tree->child_off[p + 1]++] = (uint32_t)i;
	}
	struct child_ctx cc = {t, ev};
	for (size_t i = 0; i < ne; i++) {
		uint32_t *c = tree->children + tree->child_off[i];
		size_t n = tree->child_off[i + 1] - tree->child_off[i];
		for (size_t j = 1; j < n; j++)
			if (cmp_child(&c[j - 1], &c[j], &cc) > 0) {
				qsort_r(c, n, sizeof(uint32_t), cmp_child, &cc);
				break;
			}
	}
	return 0;
}

void tg_tree_count_links(tg_tree *tree, const tg_event *ev, size_t ne)
{
	for (size_t i = 0; i < ne; i++) {
		if (tg_kind_is_gpu(ev[i].kind) && tg_tree_parent_at(tree, i) == TG_NONE)
			tree->stats.gpu_orphans++;
		if (tg_kind_is_launch(ev[i].kind) && tree->child_off[i + 1] - tree->child_off[i] > 1) {
			unsigned ndev = 0;
			for (uint32_t k = tree->child_off[i]; k < tree->child_off[i + 1]; k++)
				ndev += tg_kind_is_gpu(ev[tree->children[k]].kind);
			tree->stats.graph_launches += ndev > 1;
		}
	}
}

void tg_tree_child_iter_init(tg_tree_child_iter *it, const tg_tree *tree, uint32_t ev)
{
	tg_tree_pack_pair8_at(&it->at, &it->end, &tree->offs, tree->child_off, ev);
	it->pack = &tree->kids;
	it->whole = tree->children;
}

size_t tg_tree_child_count(const tg_tree *tree, uint32_t ev)
{
	uint32_t at, end;
	tg_tree_pack_pair8_at(&at, &end, &tree->offs, tree->child_off, ev);
	return end - at;
}

uint32_t tg_tree_child(const tg_tree *tree, uint32_t ev, size_t i)
{
	uint32_t at, end;
	tg_tree_pack_pair8_at(&at, &end, &tree->offs, tree->child_off, ev);
	return i < end - at ? tg_tree_pack_at(&tree->kids, tree->children, at + i) : TG_NONE;
}

const uint32_t *tg_tree_roots(const tg_tree *tree, size_t *n)
{
	*n = tree->nroots;
	return tree->roots;
}
