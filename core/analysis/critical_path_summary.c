/*
 * critical_path_summary.c - one trace's critical path in a few figures
 * (critical_path.h: tg_cp_summarize), what a diff compares and what run
 * data keeps of it, so that a stored run is compared without its trace.
 *
 * A summary is the full builder's graph and longest path with none of the
 * path's steps, ops or events, built lean (cp_build): once the longest path
 * has the nodes' 32-bit times, the nodes' events (4 bytes a node, in the
 * graph's highest phase) are given back, and the breakdown reads the times.
 * Its figures are the full builder's, field for field
 * (tests/test_critical_path_summary.c compares them on every trace). A
 * cycle's message names an event of it, which the lean build no longer
 * knows: such a trace is built again, not lean, for the same message
 * (tg_cp_summary_fallbacks counts those builds).
 */
#include "critical_path_impl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_ulong fallbacks;

/* critical_path.c's prepare_events reads "stream" of every event,
 * critical_path_edges.c's cp_wait_arg the two stream-wait keys of a sync
 * event: nothing else of the arguments (test_trace_keep_args builds every
 * shared trace's summary with these alone and compares). */
const char *const tg_cp_args[] = {"stream", "wait_on_stream", "wait_on_cuda_event_record_corr_id", NULL};

uint64_t tg_cp_summary_fallbacks(void)
{
	return atomic_load(&fallbacks);
}

int tg_cp_summarize_opts(tg_cp_summary *out, const tg_tree *tree, const tg_cp_opts *opts)
{
	size_t nsteps;
	const tg_step *steps = tg_tree_steps(tree, &nsteps);
	return tg_cp_summarize_steps(out, tg_tree_trace(tree), steps, nsteps, opts);
}

int tg_cp_summarize_steps(tg_cp_summary *out, const tg_trace *t, const tg_step *steps, size_t nsteps,
                          const tg_cp_opts *opts)
{
	memset(out, 0, sizeof(*out));
	tg_critical_path *cp;
	tg_cp_opts o = opts ? *opts : (tg_cp_opts){0};
	o.summary_only = 1;
	o.keep_graph = 0;
	int rc = cp_build(&cp, t, steps, nsteps, &o, 1);
	if (rc == TG_EFORMAT) { /* a cycle: its message from a build that keeps the nodes' events */
		atomic_fetch_add(&fallbacks, 1);
		rc = cp_build(&cp, t, steps, nsteps, &o, 0);
		if (!rc) /* cannot happen: the same graph */
			tg_critical_path_free(cp);
		if (!rc)
			rc = tg_error_set(TG_EFORMAT, "critical path: the events make a cycle of dependencies");
	}
	if (rc == TG_ENOMEM)
		return rc;
	if (rc) {
		const char *why = tg_error_last();
		if (!strncmp(why, "critical path: ", 15))
			why += 15;
		snprintf(out->why, sizeof(out->why), "%s", why);
		return 0;
	}
	const tg_cp_stats *st = tg_cp_stats_get(cp);
	const int64_t *b = tg_cp_breakdown(cp);
	out->ok = 1;
	out->steps = st->steps;
	out->length_ns = tg_cp_length_ns(cp);
	for (int k = 0; k < TG_CP_NBOUND; k++)
		out->bound_ns[k] = b[k];
	tg_critical_path_free(cp);
	return 0;
}

int tg_cp_summarize(tg_cp_summary *out, const tg_tree *tree)
{
	return tg_cp_summarize_opts(out, tree, NULL);
}
