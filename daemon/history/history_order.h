/*
 * history_order.h - a branch's history in the order of its first-parent
 * history (history_order.c), as the daemon's mirror of the repository has
 * it, so that a rebuilt commit's run sits where its commit is and not where
 * its run happened to land. Nothing is fetched: the readers of the history
 * (`tracegate history`, the published pages) never go to the network.
 */
#ifndef TG_HISTORY_ORDER_H
#define TG_HISTORY_ORDER_H

#include "../store/store.h"

#include <stddef.h>

/* Reorders the n points p (oldest first, as tg_store_history gives them)
 * by the first-parent history of branch in the mirror of repo (clone_url)
 * under state_dir: oldest commit first; the runs of one commit in the
 * order they ran; the commits not on the chain after, in the order they
 * ran. Nothing changes when there is no mirror, it lacks the branch, or
 * memory runs out (the order is then the order the runs ran in). */
void tg_history_order_first_parent(tg_history_point *p, size_t n, const char *state_dir, const char *repo,
                                   const char *clone_url, const char *branch);

#endif
