/*
 * tree_helper.c - the tree's second thread made sure of before a trace is
 * read (tree.h): a parked thread (util/park.h), there when the build
 * begins, which tree.c hands part of the build to. A thread created when
 * the build starts waits behind the other programs on a busy machine (a
 * new thread is queued after them, 0.5-3 ms on a two-core machine at
 * load 2-4, longer than the build); a parked one that is woken runs at
 * once, as a sleeper. While the trace is read it feeds the read
 * (core/trace/trace_chunks.c takes a parked thread too), or sleeps and
 * costs nothing.
 *
 * The helper is a token, not a thread of its own: each was, created on
 * the caller's path before every read (0.085 ms of a report's 10, two of
 * them in a diff), while the parked thread that fed the read is idle
 * again by the time the build hands out its part (tg_park_run_detached:
 * nobody joins it, and its thread parks again when it is done).
 */
#include "tree.h"
#include "../../util/park.h"

/* What tg_tree_helper_start hands out: whether a thread was parked. */
struct tg_tree_helper {
	char unused;
};

static tg_tree_helper parked_one;

tg_tree_helper *tg_tree_helper_start(void) { return tg_park_start() ? NULL : &parked_one; }

void tg_tree_helper_free(tg_tree_helper *h) { (void)h; /* the parked thread stays for the next job */ }
