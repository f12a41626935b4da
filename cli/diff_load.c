/*
 * diff_load.c - a diff's side read one trace at a time (see diff_load.h).
 *
 * Each trace: tg_cli_load (the reader's threads, the tree, the flows
 * dropped), tg_rundata_build_parts and tg_rundata_detach (the run data
 * owns its names: the tree and the model can go; its measures packed as
 * soon as they are made, TG_RUNDATA_PACKED, so that their 64-byte records
 * are gone before the skeleton is built), then its critical path's
 * summary last (cp_last): the run data held compact, the tree freed and
 * the arguments cut down to the critical path's, so that its graph, the
 * stage's largest thing, has only the events beside it (the 1 GB pair's
 * critical-path phase 193.9 -> 183.3 MB, docs/scale.md i31late); then the
 * model freed, unless the side may need the findings across its ranks:
 * its trees are kept while its traces so far are distinct ranks
 * (tg_gate_data_across on the traces read), dropped as soon as two share
 * a rank, and freed once the findings across ranks are computed.
 *
 * While the next trace is read and analysed (the diff's peak), the run
 * data of the traces before it is held compact (tg_rundata_compact: a
 * quarter of its bytes, a few milliseconds each way): within a side,
 * trace i - 1's as trace i is read; the caller holds a whole side before
 * it reads the next (tg_cli_side_hold), and gives every side its data back
 * (tg_cli_side_expand) once the last trace's model is freed, before the
 * gate reads it; or, for a gate that aligns the skeletons first, only the
 * skeletons (tg_cli_side_expand_skeletons), each trace's measures given
 * back by the gate just before it copies them (tg_cli_expand_measure), so
 * that they sit compact beside the tree diffs' build.
 *
 * A trace's events and arguments, freed, stay mapped (tg_big_keep) until
 * the next trace is read, whose reader maps its own arrays on their pages
 * instead of faulting fresh ones in; only those two: the mappings freed
 * elsewhere (the flows dropped after the tree, the findings' sheets) would
 * take their places and stay resident through the next trace's peak.
 */
#include "diff_load.h"
#include "../util/big.h"

#include <stdlib.h>
#include <string.h>

/* The trees (and their traces) a side keeps for its findings across
 * ranks; keeping is 0 once they are not needed. */
struct kept {
	tg_trace **tr;
	tg_tree **trees;
	size_t n;
	int keeping;
};

static void drop_kept(struct kept *k)
{
	for (size_t i = 0; i < k->n; i++) {
		tg_tree_free(k->trees[i]);
		tg_trace_free(k->tr[i]);
		k->trees[i] = NULL;
		k->tr[i] = NULL;
	}
	k->keeping = 0;
}

/* The critical path's summary of trace tr, found last (its graph is the
 * stage's largest thing): rd's other parts are built and detached, so
 * unless the side keeps its trees (*tree then stays) they are held
 * compact, the tree is freed (*tree NULL) and the arguments cut down to
 * the critical path's (tg_cp_args), leaving the events (28 bytes each, the
 * External ids gone since the tree: tg_cli_load) and little else beside
 * the graph. Its figures are those found on the whole model (test_diff_load).
 * 0 or an error code. */
static int cp_last(tg_rundata *rd, tg_trace *tr, tg_tree **tree, int keeping)
{
	size_t n;
	const tg_step *st = tg_tree_steps(*tree, &n);
	tg_step *steps = malloc((n ? n : 1) * sizeof(*steps));
	if (!steps)
		return tg_error_set(TG_ENOMEM, "out of memory");
	if (n) /* a trace of no steps has none to copy (st may be NULL) */
		memcpy(steps, st, n * sizeof(*steps));
	int rc = 0;
	if (!keeping) {
		/* the tree first and its pages given back, then the run data's
		 * (its skeleton's nodes, coded: 31 MB at 1 GB), before the
		 * arguments' map (a mapping, 4 bytes an argument) is made: with
		 * the tree's and the run data's freed pages still resident, the
		 * compact run data and then the cut were the phase's peak at 1 GB
		 * (147.7 and 151.9 MB, the second trace; docs/scale.md, i36cp) */
		tg_tree_free(*tree);
		*tree = NULL;
		tg_cli_trim_heap();
		rc = tg_rundata_compact(rd);
		tg_cli_trim_heap();
		if (!rc)
			rc = tg_trace_keep_args(tr, tg_cp_args);
	}
	/* the graph's arrays are mappings (tg_big, core/analysis/critical_path*.c):
	 * the pages the tree and the arguments left free in the heap would stay
	 * resident beside them, unused (1 GB pair: 147 -> 75 MB before it) */
	tg_cli_trim_heap();
	/* and again once the graph's build has freed its per-event scratch:
	 * the call stacks' and the GPU stage's heap blocks (under the mappings'
	 * 4 MiB) leave ~12 MB of pages resident under the merge and the longest
	 * path at 1 GB (docs/scale.md, the eleventh round's end) */
	tg_cp_opts o = {.scratch_freed = tg_cli_trim_heap};
	tg_cp_summary cp;
	if (!rc && !(rc = tg_cp_summarize_steps(&cp, tr, steps, n, &o)))
		tg_rundata_set_cp(rd, &cp);
	free(steps);
	return rc;
}

/* load_one gives the heap's free pages back before a trace is read: `diff` keeps
 * freed memory (M_TRIM_THRESHOLD at its maximum, cmd_diff.c) so that each
 * stage reuses its pages, but the pages the trace before left free in the
 * heap (its stage's scratch, its critical path's graph: 13 MB at 100 MB
 * of JSON, 110 MB at 1 GB) would sit resident under the next trace's read,
 * whose arrays are mappings (tg_big) that cannot take them: the second
 * trace's read was the 100 MB pair's peak (26.4 MB; after: 24.7-25.8 MB
 * for the run, the gate's alignment next), for 3,000 more page faults
 * (docs/scale.md, i32).
 *
 * Only when at least LOAD_TRIM_MIN_FREE bytes are free: the trace's stages
 * fault the pages a trim gives back in again (about 3.7 us a 4 KiB page on
 * this project's VM), so a small heap's trim costs more time than its
 * memory is worth. The h200-dev pairs (12 MB of JSON) have 5.7 MB free
 * there: their trim was 690 of their 2,100 page faults, 2-3 % of their
 * CPU, for 1.2 MB of a 7-8 MB peak that no target asks about (issue 24's
 * memory target starts at 100 MB of JSON, 11.5 MB free there; docs/scale.md,
 * i33speed). */
#define LOAD_TRIM_MIN_FREE ((size_t)8 << 20)

/* Trace i of the side, at path: read, its run data built and made its
 * own (the critical path last: cp_last), its model and tree kept in k
 * (k->keeping) or freed. 0, or -1 after printing the error. */
static int load_one(tg_cli_side *s, struct kept *k, const char *path, size_t i, unsigned parts,
                    const tg_rules *rules, const tg_read_opts *ropts)
{
	tg_trace *tr;
	tg_tree *tree;
	tg_cli_trim_heap_over(LOAD_TRIM_MIN_FREE);
	if (tg_cli_load(&tr, &tree, path, ropts))
		return -1;
	tg_big_keep(0); /* read: what the trace before left mapped and this one's reader did not take */
	/* the heap's free pages given back after each part, as before the read;
	 * the measures held compact as soon as they are made (TG_RUNDATA_HOLD:
	 * cp_last, or the next trace's read, holds them so anyway), so that
	 * the skeleton is built beside 3 MB of them at 1 GB of JSON, not 14 */
	int rc = tg_rundata_build_staged(&s->data[i], tree, tg_rules_findings(rules),
	                                 (parts & ~TG_RUNDATA_CP) | TG_RUNDATA_PACKED | TG_RUNDATA_HOLD,
	                                 tg_cli_trim_heap);
	if (!rc) {
		s->n = i + 1;
		rc = tg_rundata_detach(s->data[i]);
	}
	if (!rc && !(s->names[i] = strdup(tg_trace_name(tr))))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc && (parts & TG_RUNDATA_CP))
		rc = cp_last(s->data[i], tr, &tree, k->keeping);
	if (rc || !k->keeping) {
		tg_tree_free(tree);
		tg_big_keep(2); /* its events and arguments, for the next trace's reader */
		tg_trace_free(tr);
	} else {
		k->tr[i] = tr;
		k->trees[i] = tree;
		k->n = i + 1;
	}
	if (rc) {
		tg_cli_error("%s: %s", path, tg_error_last());
		return -1;
	}
	return 0;
}

/* Whether the traces of s read so far are still distinct ranks (the
 * findings across ranks may be needed): 1, with their rank order in
 * order; 0; or -1 after printing the error. */
static int still_distinct(size_t *order, const tg_cli_side *s)
{
	tg_gate_data g = tg_cli_side_gate(s);
	int d = tg_gate_data_across(order, &g);
	if (d < 0)
		tg_cli_error("out of memory");
	return d < 0 ? -1 : d;
}

/* The findings across the ranks of s from the kept trees, in the rank
 * order tg_gate_data_across gives. 0, or -1 after printing the error. */
static int across_from(tg_cli_side *s, const struct kept *k, const size_t *order, const tg_rules *rules)
{
	const tg_tree **sorted = calloc(s->n ? s->n : 1, sizeof(*sorted));
	if (!sorted) {
		tg_cli_error("out of memory");
		return -1;
	}
	for (size_t i = 0; i < s->n; i++)
		sorted[i] = k->trees[order[i]];
	int rc = tg_gate_across(&s->across, rules, sorted, s->n);
	free((void *)sorted);
	if (rc)
		tg_cli_error("diff: %s", tg_error_last());
	return rc ? -1 : 0;
}

int tg_cli_side_load(tg_cli_side *s, const char *const *paths, size_t n, unsigned parts, int across,
                      const tg_rules *rules, const tg_read_opts *ropts)
{
	memset(s, 0, sizeof(*s));
	size_t cap = n ? n : 1;
	struct kept k = {calloc(cap, sizeof(tg_trace *)), calloc(cap, sizeof(tg_tree *)), 0, across && n > 1};
	size_t *order = calloc(cap, sizeof(size_t));
	s->data = calloc(cap, sizeof(*s->data));
	s->names = calloc(cap, sizeof(*s->names));
	int rc = 0;
	if (!k.tr || !k.trees || !order || !s->data || !s->names) {
		tg_cli_error("out of memory");
		rc = -1;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		if (i > 0 && tg_rundata_compact(s->data[i - 1])) { /* held small while trace i is read */
			tg_cli_error("%s: %s", paths[i - 1], tg_error_last());
			rc = -1;
			break;
		}
		rc = load_one(s, &k, paths[i], i, parts, rules, ropts);
		int d = !rc && k.keeping && i > 0 ? still_distinct(order, s) : 1;
		if (d < 0)
			rc = -1;
		else if (!d) /* two runs of one rank: no findings across ranks */
			drop_kept(&k);
	}
	if (!rc && k.keeping)
		rc = across_from(s, &k, order, rules);
	drop_kept(&k);
	free(k.tr);
	free(k.trees);
	free(order);
	return rc;
}

/* fn on each of side s's run data, the first failure printed. 0 or -1. */
static int each_data(tg_cli_side *s, int (*fn)(tg_rundata *))
{
	for (size_t i = 0; i < s->n; i++)
		if (fn(s->data[i])) {
			tg_cli_error("diff: %s", tg_error_last());
			return -1;
		}
	return 0;
}

int tg_cli_side_hold(tg_cli_side *s)
{
	return each_data(s, tg_rundata_compact);
}

int tg_cli_side_expand(tg_cli_side *s)
{
	return each_data(s, tg_rundata_expand);
}

int tg_cli_side_hold_measures(tg_cli_side *s)
{
	return each_data(s, tg_rundata_compact_measure);
}

static int expand_skeleton(tg_rundata *rd)
{
	return tg_rundata_expand_parts(rd, TG_RUNDATA_SKELETON);
}

int tg_cli_side_expand_skeletons(tg_cli_side *s)
{
	return each_data(s, expand_skeleton);
}

int tg_cli_expand_measure(const tg_rundata *rd)
{
	return tg_rundata_expand_parts((tg_rundata *)rd, TG_RUNDATA_MEASURE); /* a side's, lent to the gate */
}

tg_gate_data tg_cli_side_gate(const tg_cli_side *s)
{
	return (tg_gate_data){.data = (const tg_rundata *const *)s->data,
	                      .names = (const char *const *)s->names,
	                      .n = s->n,
	                      .across = s->across};
}

void tg_cli_side_free(tg_cli_side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		tg_rundata_free(s->data[i]);
		free(s->names[i]);
	}
	free(s->data);
	free(s->names);
	tg_findings_free(s->across);
	memset(s, 0, sizeof(*s));
}
