/*
 * tree_access.c - the built tree read (tree.h): its parents, whether an
 * event is in it, launches, TraceLens's links, the stats; and freed.
 */
#include "tree_impl.h"

#include <stdlib.h>

void tg_tree_free(tg_tree *tree)
{
	if (!tree)
		return;
	free(tree->parent);
	free(tree->child_off);
	tg_tree_pack_free(&tree->parents);
	tg_tree_pack_free(&tree->offs);
	free(tree->children);
	tg_tree_pack_free(&tree->kids);
	free(tree->roots);
	free(tree->step_of);
	free(tree->step16);
	tg_tree_pack_free(&tree->steps_of);
	free(tree->tl_linked);
	free(tree->steps);
	tg_idmap_free(tree->sync_ops);
	free(tree);
}

uint32_t tg_tree_sync_op(const tg_tree *tree, uint32_t ev)
{
	return tree->sync_ops ? tg_idmap_get(tree->sync_ops, ev) : TG_NONE;
}

const tg_trace *tg_tree_trace(const tg_tree *tree) { return tree->trace; }

uint32_t tg_tree_parent(const tg_tree *tree, uint32_t ev) { return tg_tree_pack_at(&tree->parents, tree->parent, ev); }

int tg_tree_contains(const tg_tree *tree, uint32_t ev)
{
	return tg_tree_is_host_kind(tree->ev[ev].kind) || tg_tree_is_device_event(&tree->ev[ev]);
}

uint32_t tg_tree_launch(const tg_tree *tree, uint32_t ev)
{
	size_t ne;
	const tg_event *e = tg_trace_events(tree->trace, &ne);
	uint32_t p = tg_tree_parent(tree, ev);
	return p != TG_NONE && tg_kind_is_launch(e[p].kind) ? p : TG_NONE;
}

int tg_tree_linked_like_tracelens(const tg_tree *tree, uint32_t ev)
{
	return (tree->tl_linked[ev >> 3] >> (ev & 7)) & 1;
}

const tg_tree_stats *tg_tree_stats_get(const tg_tree *tree) { return &tree->stats; }
