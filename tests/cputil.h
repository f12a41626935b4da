/*
 * cputil.h - for the critical path's tests: a trace read from JSON, its
 * tree and its critical path built (each must succeed, or the test fails
 * there), and the three freed together.
 */
#ifndef TG_CPUTIL_H
#define TG_CPUTIL_H

#include "testutil.h"

#include "../core/analysis/critical_path.h"

/* The critical path of json's trace under o; *t and *tree receive the
 * trace and its tree, which the caller frees with cp_test_done. */
static inline tg_critical_path *cp_test_build(tg_trace **t, tg_tree **tree, const char *json, const tg_cp_opts *o)
{
	*t = tg_test_read_str(json);
	tg_test_must(tg_tree_build(tree, *t));
	tg_critical_path *cp;
	tg_test_must(tg_critical_path_build(&cp, *tree, o));
	return cp;
}

/* Frees cp, tree and t (cp_test_build's). */
static inline void cp_test_done(tg_trace *t, tg_tree *tree, tg_critical_path *cp)
{
	tg_critical_path_free(cp);
	tg_tree_free(tree);
	tg_trace_free(t);
}

#endif
