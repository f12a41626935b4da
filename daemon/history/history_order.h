/*
 * history_order.h - a branch's history in the order of its first-parent
 * history (history_order.c), as the daemon's mirror of the repository has
 * it, so that a rebuilt commit's run sits where its commit is and not where
 * its run happened to land. The chain comes from the caller (the mirror is
 * the git room's: tg_git_first_parent_chain), so history never uses git.
 */
#ifndef TG_HISTORY_ORDER_H
#define TG_HISTORY_ORDER_H

#include "../store/store.h"

#include <stddef.h>

/* Reorders the n points p (oldest first, as tg_store_history gives them)
 * by the first-parent chain fp of their branch (nfp commits, tip first, as
 * tg_git_first_parent_chain gives it): oldest commit first; the runs of one
 * commit in the order they ran; the commits not on the chain after, in the
 * order they ran. Nothing changes when the chain is empty or memory runs
 * out (the order is then the order the runs ran in). */
/* Commits a chain is read to at most (100,000 first parents: years of a
 * busy branch). */
#define TG_HISTORY_CHAIN_MAX 100000

void tg_history_order_by_chain(tg_history_point *p, size_t n, const char (*fp)[41], size_t nfp);

#endif
