/*
 * cputil.h - for the critical path's tests: a trace read from JSON, its
 * tree and its critical path built (each must succeed, or the test fails
 * there), and the three freed together.
 */
#ifndef TG_CPUTIL_H
#define TG_CPUTIL_H

#include "testutil.h"

#include "../core/analysis/critical_path_impl.h"

/* Asserts that the lean build under o (summary_only set here) found the
 * path full found: its nodes, length and breakdown, and the graph's edges
 * by type (the chains counted apart: cp->nchain), so that the chains'
 * ties are seen to go as the edges' ranks went even where the path's
 * figures would not tell. */
static inline void cp_test_same_lean(const tg_tree *tree, const tg_cp_opts *o, const tg_critical_path *full)
{
	tg_cp_opts lo = *o;
	lo.summary_only = 1;
	size_t ns;
	const tg_step *st = tg_tree_steps(tree, &ns);
	tg_critical_path *lean;
	tg_test_must(cp_build(&lean, tg_tree_trace(tree), st, ns, &lo, 1));
	const tg_cp_stats *a = tg_cp_stats_get(lean), *b = tg_cp_stats_get(full);
	assert_int_equal(a->path_nodes, b->path_nodes);
	assert_int_equal(a->edges, b->edges);
	for (int k = 0; k < TG_CP_EDGE_NTYPES; k++)
		assert_int_equal(a->edges_by_type[k], b->edges_by_type[k]);
	assert_int_equal(tg_cp_length_ns(lean), tg_cp_length_ns(full));
	for (int k = 0; k < TG_CP_NBOUND; k++)
		assert_int_equal(tg_cp_breakdown(lean)[k], tg_cp_breakdown(full)[k]);
	tg_critical_path_free(lean);
}

/* Asserts that tree's summary under o (tg_cp_summarize_opts: the lean
 * build; NULL: tg_cp_summarize's defaults, which it also checks) equals
 * the full builder's figures field for field: ok and why, the steps, the
 * length and each bound's ns. Returns 1 when the trace has a path. */
static inline int cp_test_same_summary(const tg_tree *tree, const tg_cp_opts *o)
{
	tg_cp_summary s, d;
	tg_cp_opts fo = o ? *o : (tg_cp_opts){0};
	fo.summary_only = 0;
	fo.keep_graph = 0;
	tg_test_must(tg_cp_summarize_opts(&s, tree, o));
	if (!o) {
		tg_test_must(tg_cp_summarize(&d, tree));
		assert_memory_equal(&s, &d, sizeof(s));
	}
	tg_critical_path *cp;
	int rc = tg_critical_path_build(&cp, tree, &fo);
	if (rc) {
		assert_int_not_equal(rc, TG_ENOMEM);
		const char *why = tg_error_last();
		if (!strncmp(why, "critical path: ", 15))
			why += 15;
		assert_int_equal(s.ok, 0);
		assert_string_equal(s.why, why);
		return 0;
	}
	assert_int_equal(s.ok, 1);
	assert_string_equal(s.why, "");
	assert_int_equal(s.steps, tg_cp_stats_get(cp)->steps);
	assert_int_equal(s.length_ns, tg_cp_length_ns(cp));
	for (int k = 0; k < TG_CP_NBOUND; k++)
		if (s.bound_ns[k] != tg_cp_breakdown(cp)[k])
			fail_msg("%s: summary %lld ns, full builder %lld", tg_cp_bound_name((tg_cp_bound)k),
			         (long long)s.bound_ns[k], (long long)tg_cp_breakdown(cp)[k]);
	cp_test_same_lean(tree, &fo, cp);
	tg_critical_path_free(cp);
	return 1;
}

/* The critical path of json's trace under o; *t and *tree receive the
 * trace and its tree, which the caller frees with cp_test_done. The
 * summary of the trace is checked against the full builder on the way,
 * under o and under the defaults (cp_test_same_summary). */
static inline tg_critical_path *cp_test_build(tg_trace **t, tg_tree **tree, const char *json, const tg_cp_opts *o)
{
	*t = tg_test_read_str(json);
	tg_test_must(tg_tree_build(tree, *t));
	cp_test_same_summary(*tree, NULL);
	if (o && !o->keep_graph)
		cp_test_same_summary(*tree, o);
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
