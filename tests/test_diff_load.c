/*
 * test_diff_load.c - cli/diff_load.c: a diff's side read one trace at a
 * time. Each trace's run data holds the parts asked for and owns them
 * (its measure names no tree), the names are the reader's; the findings
 * across ranks are computed for a side of distinct ranks (a straggler
 * among them) and not for runs of one rank or one trace; a side that fails
 * on its second trace keeps the first one's data for the caller to free
 * (no leak under ASan); the run data of each trace but a side's last held
 * compact (tg_rundata_compact) until given back, a side's last too when
 * its critical path is found last, its trees not kept (cp_last); and the
 * gate judging the loaded sides, held and given back as `tracegate diff`
 * does, gives the bytes tg_gate_run gives on the trees (the critical
 * paths' figures among them), calling the caller's heap policy once after
 * the alignment (tg_gate_opts.heap_hint, TG_GATE_ALIGNED). The trim
 * before each trace's read (tg_cli_trim_heap_over) trims only a heap with
 * enough free.
 */
#include "gentrace.h"

#include "../cli/diff_load.h"
#include "../render/diff_render.h"
#include "gate_render.h"

#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static char dir[64];

/* The generator's trace of args into dir/name.json (its path in out). */
static void gen(char *out, size_t cap, const char *name, const char *args)
{
	snprintf(out, cap, "%s/%s.json", dir, name);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s %s -o %s 2>/dev/null", gt_gen_path(), args, out);
	assert_int_equal(system(cmd), 0);
}

#define ARGS "--steps 3 --layers 2 --seq 512"

static char base[256], next[256], r0[256], r1[256], cut[256];

static int setup(void **state)
{
	(void)state;
	if (!gt_gen_path())
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/tg-diff-load-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	gen(base, sizeof(base), "base", ARGS);
	gen(next, sizeof(next), "next", ARGS " --gemm-scale 1.1");
	gen(r0, sizeof(r0), "r0", ARGS " --ranks 2 --rank 0 --straggler 1 --skew-us 300");
	gen(r1, sizeof(r1), "r1", ARGS " --ranks 2 --rank 1 --straggler 1 --skew-us 300");
	snprintf(cut, sizeof(cut), "%s/cut.json", dir);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "head -c 5000 %s > %s", next, cut);
	return system(cmd);
}

static int teardown(void **state)
{
	(void)state;
	if (*dir) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return -1;
	}
	return gt_teardown(state);
}

static int load(tg_cli_side *s, const char *const *paths, size_t n, unsigned parts, int across, tg_rules *rules)
{
	tg_read_opts ro;
	memset(&ro, 0, sizeof(ro));
	return tg_cli_side_load(s, paths, n, parts, across, rules, &ro);
}

/* Two ranks of one job: their data detached with the parts asked for, the
 * reader's names, and the findings across them with the straggler. */
static void test_ranks(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	const char *paths[] = {r1, r0};
	tg_cli_side s;
	assert_int_equal(load(&s, paths, 2, TG_RUNDATA_FINDINGS | TG_RUNDATA_CP, 1, rules), 0);
	assert_int_equal(s.n, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_string_equal(s.names[i], paths[i]);
		assert_null(tg_measure_tree(tg_rundata_measure(s.data[i]), 0));
		assert_null(tg_rundata_skeleton(s.data[i]));
		assert_int_equal(tg_rundata_parts(s.data[i]), TG_RUNDATA_FINDINGS | TG_RUNDATA_CP | TG_RUNDATA_MEASURE);
		assert_int_equal(tg_rundata_rank(s.data[i]), (int64_t)(1 - i));
	}
	assert_true(tg_rundata_compacted(s.data[0])); /* held compact while the second was read */
	assert_false(tg_rundata_compacted(s.data[1]));
	assert_int_equal(tg_cli_side_hold(&s), 0);
	assert_true(tg_rundata_compacted(s.data[1]));
	/* the skeletons alone (none here): the measures still compact, until the gate's call */
	assert_int_equal(tg_cli_side_expand_skeletons(&s), 0);
	assert_true(tg_rundata_compacted(s.data[0]) && tg_rundata_compacted(s.data[1]));
	assert_int_equal(tg_cli_expand_measure(s.data[0]), 0);
	assert_false(tg_rundata_compacted(s.data[0]));
	assert_true(tg_rundata_compacted(s.data[1]));
	assert_int_equal(tg_cli_side_expand(&s), 0);
	assert_false(tg_rundata_compacted(s.data[0]) || tg_rundata_compacted(s.data[1]));
	/* the measures alone held, as `diff` holds the last side's */
	assert_int_equal(tg_cli_side_hold_measures(&s), 0);
	assert_true(tg_rundata_compacted(s.data[0]) && tg_rundata_compacted(s.data[1]));
	assert_int_equal(tg_cli_expand_measure(s.data[0]), 0);
	assert_int_equal(tg_cli_expand_measure(s.data[1]), 0);
	assert_false(tg_rundata_compacted(s.data[0]) || tg_rundata_compacted(s.data[1]));
	assert_non_null(s.across);
	size_t nf, stragglers = 0;
	const tg_finding *f = tg_findings_list(s.across, &nf);
	for (size_t i = 0; i < nf; i++)
		stragglers += !strcmp(tg_finding_name(f[i].id), "straggler") && f[i].status == TG_FINDING_FIRED;
	assert_int_equal(stragglers, 1);
	tg_cli_side_free(&s);
	/* not asked for, or runs of one rank, or one trace: none */
	assert_int_equal(load(&s, paths, 2, TG_RUNDATA_FINDINGS, 0, rules), 0);
	assert_null(s.across);
	tg_cli_side_free(&s);
	const char *runs[] = {r0, r0, r1};
	assert_int_equal(load(&s, runs, 3, TG_RUNDATA_FINDINGS, 1, rules), 0);
	assert_int_equal(s.n, 3);
	assert_null(s.across);
	tg_cli_side_free(&s);
	assert_int_equal(load(&s, paths, 1, TG_RUNDATA_FINDINGS, 1, rules), 0);
	assert_null(s.across);
	tg_cli_side_free(&s);
	tg_rules_free(rules);
}

/* A side whose second trace is cut: -1, the first trace's data kept for
 * the caller to free; a first trace that does not exist: nothing. */
static void test_bad_second(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	const char *paths[] = {r0, cut, r1};
	tg_cli_side s;
	assert_int_equal(load(&s, paths, 3, TG_RUNDATA_ALL, 1, rules), -1);
	assert_int_equal(s.n, 1);
	assert_null(s.across);
	tg_cli_side_free(&s);
	assert_int_equal(s.n, 0);
	const char *missing[] = {"/nonexistent/x.json"};
	assert_int_equal(load(&s, missing, 1, TG_RUNDATA_ALL, 1, rules), -1);
	assert_int_equal(s.n, 0);
	tg_cli_side_free(&s);
	tg_rules_free(rules);
}

/* test_same_as_trees: the gate's heap policy's calls by stage (ctx: int[]) */
static void count_stages(void *ctx, enum tg_gate_stage stage)
{
	((int *)ctx)[stage]++;
}

/* The loaded sides judged as `tracegate diff` judges them (a side of one
 * trace, then of two runs: the first held compact while the second is
 * read; the base side held while the new one is read, every side given
 * back before the gate, or, with two base runs, the skeletons alone and
 * each trace's measures by the gate): the bytes of the trees. */
static void test_same_as_trees(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	tg_trace *bt, *xt;
	tg_tree *b, *x;
	assert_int_equal(tg_cli_load(&bt, &b, base, NULL), 0);
	assert_int_equal(tg_cli_load(&xt, &x, next, NULL), 0);
	for (size_t nb = 1; nb <= 2; nb++) {
		const tg_tree *bb[] = {b, b};
		tg_gate *g1, *g2;
		assert_int_equal(tg_gate_run(&g1, rules, bb, nb, (const tg_tree *const *)&x, 1, NULL), 0);
		const char *bp[] = {base, base}, *xp[] = {next};
		tg_cli_side bs, xs;
		assert_int_equal(load(&bs, bp, nb, TG_RUNDATA_ALL, 1, rules), 0);
		assert_int_equal(tg_cli_side_hold(&bs), 0);
		assert_true(tg_rundata_compacted(bs.data[nb - 1]));
		assert_int_equal(load(&xs, xp, 1, TG_RUNDATA_ALL, 1, rules), 0);
		/* its critical path found last (cp_last), its data held compact while it was */
		assert_true(tg_rundata_compacted(xs.data[0]));
		assert_int_equal(tg_rundata_parts(xs.data[0]), TG_RUNDATA_ALL | TG_RUNDATA_MEASURE);
		assert_true(tg_rundata_cp(xs.data[0])->ok);
		/* two base runs: the skeletons alone given back, as `diff` does;
		 * the gate gives each trace's measures back as it copies them */
		int held = nb == 2;
		assert_int_equal(held ? tg_cli_side_expand_skeletons(&bs) : tg_cli_side_expand(&bs), 0);
		assert_int_equal(held ? tg_cli_side_expand_skeletons(&xs) : tg_cli_side_expand(&xs), 0);
		assert_int_equal(tg_rundata_compacted(xs.data[0]), held);
		tg_gate_data bd = tg_cli_side_gate(&bs), xd = tg_cli_side_gate(&xs);
		int calls[TG_GATE_JUDGE_STAGE + 1] = {0};
		tg_gate_opts o = {.release_data = 1,
		                  .heap_hint = count_stages,
		                  .heap_ctx = calls,
		                  .expand_measure = held ? tg_cli_expand_measure : NULL};
		assert_int_equal(tg_gate_run_data(&g2, rules, &bd, &xd, &o), 0);
		assert_int_equal(calls[TG_GATE_ALIGNED], 1); /* once, after the alignment */
		assert_int_equal(calls[TG_GATE_RELEASED], 1); /* once, the base side's measures freed */
		char *a = gt_gate_render(g1), *c = gt_gate_render(g2);
		assert_true(strlen(a) > 1000);
		assert_string_equal(a, c);
		free(a);
		free(c);
		tg_gate_free(g1);
		tg_gate_free(g2);
		tg_cli_side_free(&bs);
		tg_cli_side_free(&xs);
	}
	tg_tree_free(b);
	tg_tree_free(x);
	tg_trace_free(bt);
	tg_trace_free(xt);
	tg_rules_free(rules);
}

/* tg_cli_trim_heap_over: no trim while fewer bytes are free than asked
 * (glibc counts them from 2.33 on; before, it always trims), a trim once
 * as many are: 16 MiB freed in 64 KiB blocks (below glibc's mapping
 * threshold: they stay in the heap, kept there as `diff` keeps them) are
 * more than load_one's 8 MiB. */
static void test_trim_over(void **state)
{
	(void)state;
	enum { N = 256, BLOCK = 64 << 10 };
#ifdef __GLIBC__
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
	void **blocks = malloc(N * sizeof(*blocks));
	assert_non_null(blocks);
	for (size_t i = 0; i < N; i++) {
		blocks[i] = malloc(BLOCK);
		assert_non_null(blocks[i]);
		memset(blocks[i], 1, BLOCK);
	}
	for (size_t i = 0; i < N; i++)
		free(blocks[i]);
	free(blocks);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33)) && !defined(__SANITIZE_ADDRESS__)
	assert_int_equal(tg_cli_trim_heap_over(SIZE_MAX), 0);
	assert_int_equal(tg_cli_trim_heap_over((size_t)8 << 20), 1);
#endif
	assert_int_equal(tg_cli_trim_heap_over(0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_bad_second),
		cmocka_unit_test(test_same_as_trees),
		cmocka_unit_test(test_trim_over),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
