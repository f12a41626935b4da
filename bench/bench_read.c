/*
 * bench_read.c - reads a trace and builds its tree, then exits: the work
 * `make bench` times against `gzip -dc`. With -v it prints the counts and
 * the time of each stage on stderr.
 */
#include "../core/trace/trace.h"
#include "../core/tree/tree.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int verbose = argc > 2 && !strcmp(argv[1], "-v");
	const char *path = argv[argc - 1];
	if (argc < 2) {
		fprintf(stderr, "usage: bench_read [-v] TRACE\n");
		return 2;
	}
	double t0 = now();
	tg_trace *t;
	if (tg_trace_read_file(&t, path, NULL)) {
		fprintf(stderr, "%s\n", tg_error_last());
		return 2;
	}
	double t1 = now();
	tg_tree *tree;
	if (tg_tree_build(&tree, t)) {
		fprintf(stderr, "%s\n", tg_error_last());
		return 2;
	}
	double t2 = now();
	if (verbose) {
		const tg_trace_stats *s = tg_trace_stats_get(t);
		const tg_tree_stats *ts = tg_tree_stats_get(tree);
		size_t ne, na, nt, nf;
		tg_trace_events(t, &ne);
		tg_trace_args(t, &na);
		tg_trace_tracks(t, &nt);
		tg_trace_flows(t, &nf);
		fprintf(stderr, "read %.3f s, tree %.3f s; %llu JSON bytes, %llu raw events, %zu kept, "
		        "%zu args, %zu tracks, %zu flows, %u atoms, model %.1f MB\n",
		        t1 - t0, t2 - t1, (unsigned long long)s->json_bytes,
		        (unsigned long long)s->raw_events, ne, na, nt, nf,
		        tg_atoms_count(tg_trace_atoms(t)), (double)tg_trace_memory(t) / 1e6);
		for (int k = 0; k < TG_KIND_COUNT; k++)
			if (s->by_kind[k])
				fprintf(stderr, "  %-20s %llu\n", tg_kind_name((tg_kind)k),
				        (unsigned long long)s->by_kind[k]);
		fprintf(stderr, "  gpu %llu: corr %llu flow %llu ext %llu orphan %llu; graph launches %llu; "
		        "bleeds %llu; python reparented %llu; syncs linked %llu\n",
		        (unsigned long long)ts->gpu_events, (unsigned long long)ts->gpu_by_correlation,
		        (unsigned long long)ts->gpu_by_flow, (unsigned long long)ts->gpu_by_external_id,
		        (unsigned long long)ts->gpu_orphans, (unsigned long long)ts->graph_launches,
		        (unsigned long long)ts->bleeds, (unsigned long long)ts->python_reparented,
		        (unsigned long long)ts->syncs_linked);
	}
	tg_tree_free(tree);
	tg_trace_free(t);
	return 0;
}
