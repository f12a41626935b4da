/*
 * test_gate.c - the gate (rules/gate.c) end to end in-process, on pairs of
 * traces from the synthetic generator with known changes (docs/generator.md):
 * measure, align, attribute, judge, and the numbers it attributes.
 *
 * Tolerances. Without --noise and --jitter every kernel is a multiple of
 * 100 ns and a factor with two decimals (--sdpa-scale 1.07,
 * --split-attention 1.08, --gemm-scale 1.10) gives whole nanoseconds, so
 * the per-step totals are exact integers and their ratio is exact: the only
 * error left is the double arithmetic of the ratio (1e-9 %). With --jitter
 * on both sides of the same seed, the jitter factors are the same (hashes
 * of seed, step and kernel slot) but each scaled kernel is rounded to the
 * nanosecond: half a nanosecond on a ~400 us kernel, 1e-3 % is ample.
 * Noise with different seeds changes the totals themselves: there the tests
 * assert verdicts, counts and intervals, not the point estimate.
 */
#include "gentrace.h"
#include "judgeutil.h"

#include "../core/diff/compare.h"
#include "../core/diff/rundata.h"
#include "../render/diff_render.h"
#include "../rules/gate.h"
#include "gate_render.h"

/* Big enough that attention is ~400 us a step per layer, well above the
 * default rules' min_delta of 20 us. */
#define BIG "--steps 8 --seq 4096"
#define EXACT 1e-9

static tg_rules *rules_default(void)
{
	tg_rules *r = NULL;
	assert_int_equal(tg_rules_load_default(&r), 0);
	return r;
}

static tg_rules *rules_yaml(const char *yaml)
{
	tg_rules *r = NULL;
	if (tg_rules_load_mem(&r, yaml, strlen(yaml), "test.yaml"))
		fail_msg("rules: %s", tg_error_last());
	return r;
}

static tg_gate *gate_sides(const gt_side *b, const gt_side *n, const tg_rules *r, const tg_gate_opts *o)
{
	const tg_tree *bt[1] = {b->tree}, *nt[1] = {n->tree};
	tg_gate *g = NULL;
	if (tg_gate_run(&g, r, bt, 1, nt, 1, o))
		fail_msg("gate: %s", tg_error_last());
	assert_non_null(g);
	return g;
}

static tg_gate *gate(const char *base_args, const char *new_args, const tg_rules *r, const tg_gate_opts *o)
{
	return gate_sides(gt_trace(base_args), gt_trace(new_args), r, o);
}

static const tg_judged *gate_item(const tg_gate *g, const char *rule, const char *it)
{
	return judgement_item(tg_gate_judgement(g), rule, it);
}

static tg_table *compare(const tg_gate *g, tg_compare_by by)
{
	tg_table *t = NULL;
	assert_int_equal(tg_compare_table(&t, tg_gate_base(g), tg_gate_next(g), tg_gate_keys(g), by, 0), 0);
	return t;
}

/* The status cell of the row keyed key in a comparison table. */
static const char *status_of(const tg_table *t, const char *col, const char *key)
{
	long r = gt_row(t, col, key);
	if (r < 0)
		fail_msg("%s: no row %s", tg_table_name(t), key);
	return gt_str(t, (size_t)r, "status");
}

static int count_verdicts(const tg_judgement *j, tg_verdict v)
{
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += it[i].verdict == v;
	return c;
}


/* ------------------------------------------------------------ verdicts */

static void test_sdpa_7_blocks(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	tg_gate *g = gate(BIG, BIG " --sdpa-scale 1.07", r, NULL);
	const gt_side *b = gt_trace(BIG);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
	const tg_judged *s = gate_item(g, "sdpa-forward", "");
	double sdpa = gt_per_step(b, GT_SDPA_FWD_US) * 1e3; /* ns per step: 1582800 */
	assert_int_equal(s->verdict, TG_VERDICT_BLOCK);
	GT_NEAR(s->pct, 7.0, EXACT);
	GT_NEAR(s->pct_lo, 7.0, EXACT); /* identical steps: the interval is the point */
	GT_NEAR(s->pct_hi, 7.0, EXACT);
	GT_NEAR(s->base, sdpa, 1e-6);
	GT_NEAR(s->next, sdpa * 1.07, 1e-6);
	GT_NEAR(s->delta, sdpa * 0.07, 1e-6);
	assert_int_equal(s->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(s->nbase, 8);
	assert_int_equal(s->nnext, 8);
	assert_false(s->accepted || s->improved || s->is_new || s->is_gone);
	/* GEMM did not change; busy time grew by the attention's 110.8 us */
	const tg_judged *gm = gate_item(g, "gemm", "");
	assert_int_equal(gm->verdict, TG_VERDICT_PASS);
	GT_NEAR(gm->pct, 0.0, EXACT);
	GT_NEAR(gm->base, gt_per_step(b, GT_GEMM_US) * 1e3, 1e-6);
	const tg_judged *busy = gate_item(g, "gpu-busy", "");
	GT_NEAR(busy->base, gt_per_step(b, GT_BUSY_US) * 1e3, 1e-3);
	GT_NEAR(busy->delta, sdpa * 0.07, 1e-3);
	assert_int_equal(busy->verdict, TG_VERDICT_WARN); /* +2.1 %: above 2 %, under 3 % */
	assert_true(!strncmp(tg_judgement_summary(tg_gate_judgement(g)), "block: sdpa-forward ", 20));
	/* the trees diverge nowhere: same kernels, other durations */
	assert_string_equal(tg_gate_drawing(g), "");
	assert_int_equal(tg_table_nrows(tg_gate_divergences(g)), 0);
	assert_int_equal(tg_gate_attributed(g), 0);
	tg_gate_free(g);
	tg_rules_free(r);
}

static const char sdpa_rule[] = "version: 1\n"
                                "rules:\n"
                                "  - name: sdpa\n"
                                "    select: {category: SDPA_fwd}\n"
                                "    metric: kernel_time\n"
                                "    block_above: 5%\n"
                                "    warn_above: 2%\n"
                                "    min_delta: 20us\n";

static void test_sdpa_3_warns(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_yaml(sdpa_rule);
	tg_gate *g = gate(BIG, BIG " --sdpa-scale 1.03", r, NULL);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_WARN);
	const tg_judged *s = gate_item(g, "sdpa", "");
	assert_int_equal(s->verdict, TG_VERDICT_WARN);
	GT_NEAR(s->pct, 3.0, EXACT);
	GT_NEAR(s->pct_lo, 3.0, EXACT);
	assert_int_equal(s->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(s->nbase, 8);
	assert_int_equal(s->nnext, 8);
	GT_NEAR(s->delta, gt_per_step(gt_trace(BIG), GT_SDPA_FWD_US) * 30, 1e-6); /* 3 % in ns */
	tg_gate_free(g);
	tg_rules_free(r);
}

static void test_identical_passes(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	/* seed 1 is the default: the same bytes, read twice */
	tg_gate *g = gate(BIG, BIG " --seed 1", r, NULL);
	const tg_judgement *j = tg_gate_judgement(g);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_PASS);
	assert_string_equal(tg_judgement_summary(j), "pass: 6 checks, no regression above the thresholds"
	                    "; not judged: elementwise 13 %");
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		assert_false(it[i].improved);
		if (!strcmp(it[i].rule->name, "exposed-comm")) {
			/* one rank, no collectives: no data, which does not make
			 * the diff inconclusive */
			assert_int_equal(it[i].verdict, TG_VERDICT_INCONCLUSIVE);
			assert_true(it[i].no_data);
			assert_string_equal(it[i].note, "no data: the traces have no collectives");
			continue;
		}
		assert_false(it[i].no_data);
		if (!strcmp(it[i].rule->name, "sdpa-backward")) {
			/* forward only: matches nothing, which is not a pass */
			assert_int_equal(it[i].verdict, TG_VERDICT_INCONCLUSIVE);
			assert_true(it[i].unmatched);
			assert_string_equal(it[i].note, "matches nothing in either trace");
			assert_true(isnan(it[i].pct));
			continue;
		}
		assert_int_equal(it[i].verdict, TG_VERDICT_PASS);
		assert_true(it[i].pct == 0);
		assert_true(it[i].delta == 0);
		assert_true(isnan(it[i].pct_lo) || (it[i].pct_lo == 0 && it[i].pct_hi == 0));
	}
	/* the per-op judgement behind the top regressions: nothing moved */
	tg_diff_doc d = tg_gate_doc(g, NULL, 0, NULL, 0, NULL, NULL);
	it = tg_judgement_items(d.ops, &n);
	assert_int_equal(n, 6); /* flash, addmm, triton, add, layer norm, copy_ */
	for (size_t i = 0; i < n; i++) {
		assert_true(it[i].pct == 0);
		assert_int_equal(it[i].verdict, TG_VERDICT_PASS);
	}
	assert_string_equal(tg_gate_drawing(g), "");
	assert_non_null(tg_gate_divergences(g));
	assert_int_equal(tg_table_nrows(tg_gate_divergences(g)), 0);
	assert_int_equal(tg_gate_attributed(g), 0);
	tg_gate_free(g);
	tg_rules_free(r);
}

/* Per-step noise of +-2 % and no real change, 200 seed pairs: the default
 * rules neither block nor warn. */
static void test_noise_200_seeds(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	int blocks = 0, warns = 0, item_blocks = 0, item_warns = 0, inconclusive = 0;
	double worst_lo = -INFINITY, worst_pct = 0;
	for (int s = 1; s <= 200; s++) {
		char a[128], b[128];
		snprintf(a, sizeof(a), BIG " --noise 2 --seed %d", s);
		snprintf(b, sizeof(b), BIG " --noise 2 --seed %d", s + 1000);
		gt_side sb, sn;
		gt_load(&sb, a);
		gt_load(&sn, b);
		tg_gate *g = gate_sides(&sb, &sn, r, NULL);
		tg_verdict v = tg_gate_verdict(g);
		blocks += v == TG_VERDICT_BLOCK;
		warns += v == TG_VERDICT_WARN;
		inconclusive += v == TG_VERDICT_INCONCLUSIVE;
		item_blocks += count_verdicts(tg_gate_judgement(g), TG_VERDICT_BLOCK);
		item_warns += count_verdicts(tg_gate_judgement(g), TG_VERDICT_WARN);
		const tg_judged *sd = gate_item(g, "sdpa-forward", "");
		assert_int_equal(sd->sampling, TG_SAMPLING_STEPS);
		if (sd->pct_lo > worst_lo)
			worst_lo = sd->pct_lo;
		if (fabs(sd->pct) > fabs(worst_pct))
			worst_pct = sd->pct;
		tg_gate_free(g);
		gt_unload(&sb);
		gt_unload(&sn);
	}
	print_message("noise +-2 %%, 200 seed pairs: %d blocks, %d warns (%d and %d items), %d inconclusive; "
	              "sdpa-forward: largest |change| %+.2f %%, highest lower bound %+.2f %%\n",
	              blocks, warns, item_blocks, item_warns, inconclusive, worst_pct, worst_lo);
	assert_int_equal(blocks, 0);
	assert_int_equal(item_blocks, 0);
	assert_int_equal(warns, 0);
	assert_int_equal(item_warns, 0);
	assert_int_equal(inconclusive, 0);
	tg_rules_free(r);
}

/* ------------------------------------------------- changed kernels */

static void test_split_attention(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	tg_gate *g = gate(BIG, BIG " --split-attention 1.08", r, NULL);
	double sdpa = gt_per_step(gt_trace(BIG), GT_SDPA_FWD_US); /* us per step */
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
	const tg_judged *s = gate_item(g, "sdpa-forward", "");
	assert_int_equal(s->verdict, TG_VERDICT_BLOCK);
	GT_NEAR(s->pct, 8.0, EXACT);
	GT_NEAR(s->pct_lo, 8.0, EXACT);
	assert_int_equal(s->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(s->nbase, 8);
	/* kernel level: the flash kernel gone, two new ones */
	tg_table *t = compare(g, TG_COMPARE_KERNEL);
	int gone = 0, fresh = 0;
	for (size_t i = 0; i < tg_table_nrows(t); i++) {
		const char *k = gt_str(t, i, "kernel"), *st = gt_str(t, i, "status");
		if (strstr(k, "pytorch_flash::flash_fwd_kernel<")) {
			assert_string_equal(st, "gone");
			GT_NEAR(tg_test_num(t, i, "base (us)"), sdpa, 1e-9);
		} else if (strstr(k, "pytorch_flash::flash_fwd_splitkv_kernel<") ||
		           strstr(k, "pytorch_flash::flash_fwd_splitkv_combine_kernel<")) {
			assert_string_equal(st, "new");
			GT_NEAR(tg_test_num(t, i, "new count"), 4, 0); /* one per layer and step */
		} else {
			assert_string_equal(st, "");
		}
		gone += !strcmp(st, "gone");
		fresh += !strcmp(st, "new");
	}
	assert_int_equal(gone, 1);
	assert_int_equal(fresh, 2);
	tg_table_free(t);
	/* one kind of divergence, at the op, filed under SDPA_fwd */
	const tg_table *dv = tg_gate_divergences(g);
	assert_int_equal(tg_table_nrows(dv), 1);
	assert_string_equal(gt_str(dv, 0, "where"), "aten::_flash_attention_forward");
	assert_string_equal(gt_str(dv, 0, "category"), "SDPA_fwd");
	assert_true(strstr(gt_str(dv, 0, "base kernels"), "flash_fwd_kernel<") != NULL);
	assert_true(strstr(gt_str(dv, 0, "new kernels"), "flash_fwd_splitkv_kernel<") != NULL);
	assert_true(strstr(gt_str(dv, 0, "new kernels"), " + void pytorch_flash::flash_fwd_splitkv_combine_kernel<") !=
	            NULL);
	GT_NEAR(tg_test_num(dv, 0, "count"), 4 * 8, 0); /* layers x steps */
	GT_NEAR(tg_test_num(dv, 0, "base (us)"), sdpa, 1e-9);
	GT_NEAR(tg_test_num(dv, 0, "new (us)"), sdpa * 1.08, 1e-9);
	GT_NEAR(tg_test_num(dv, 0, "delta (us)"), sdpa * 0.08, 1e-9);
	GT_NEAR(tg_test_num(dv, 0, "delta (%)"), 8.0, EXACT);
	/* the new kernels were SDPA_fwd already: nothing to re-file */
	assert_int_equal(tg_gate_attributed(g), 0);
	const char *dr = tg_gate_drawing(g);
	assert_non_null(strstr(dr, "aten::_flash_attention_forward  [LCA: base 1 kernel"));
	assert_non_null(strstr(dr, "new 2 kernels"));
	assert_non_null(strstr(dr, "(32 points of divergence of 1 kind;"));
	tg_gate_free(g);
	tg_rules_free(r);
}

static void test_math_path_attributed(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	tg_gate *g = gate(BIG, BIG " --sdpa-math 1.08", r, NULL);
	double sdpa = gt_per_step(gt_trace(BIG), GT_SDPA_FWD_US);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
	const tg_judged *s = gate_item(g, "sdpa-forward", "");
	assert_int_equal(s->verdict, TG_VERDICT_BLOCK);
	GT_NEAR(s->pct, 8.0, EXACT);
	GT_NEAR(s->pct_lo, 8.0, EXACT);
	GT_NEAR(s->base, sdpa * 1e3, 1e-6);
	/* the bmm kernels count as attention, not as a GEMM regression */
	const tg_judged *gm = gate_item(g, "gemm", "");
	assert_int_equal(gm->verdict, TG_VERDICT_PASS);
	GT_NEAR(gm->pct, 0.0, EXACT);
	/* bmm, softmax, bmm are SDPA_fwd already, from the enclosing
	 * aten::scaled_dot_product_attention: the tree diff re-files nothing */
	assert_int_equal(tg_gate_attributed(g), 0);
	tg_table *ops = compare(g, TG_COMPARE_OP);
	assert_string_equal(status_of(ops, "op", "aten::_flash_attention_forward"), "gone");
	assert_string_equal(status_of(ops, "op", "aten::bmm"), "new");
	assert_string_equal(status_of(ops, "op", "aten::_softmax"), "new");
	GT_NEAR(tg_test_num(ops, (size_t)gt_row(ops, "op", "aten::bmm"), "new count"), 8, 0);
	tg_table_free(ops);
	tg_table *cat = compare(g, TG_COMPARE_CATEGORY);
	long row = gt_row(cat, "category", "SDPA_fwd");
	assert_true(row >= 0);
	GT_NEAR(tg_test_num(cat, (size_t)row, "base count"), 4, 0);
	GT_NEAR(tg_test_num(cat, (size_t)row, "new count"), 12, 0);
	GT_NEAR(tg_test_num(cat, (size_t)row, "delta (%)"), 8.0, EXACT);
	tg_table_free(cat);
	const tg_table *dv = tg_gate_divergences(g);
	assert_int_equal(tg_table_nrows(dv), 1);
	assert_string_equal(gt_str(dv, 0, "where"),
	                    "aten::_scaled_dot_product_flash_attention | aten::_scaled_dot_product_attention_math");
	assert_string_equal(gt_str(dv, 0, "category"), "SDPA_fwd");
	GT_NEAR(tg_test_num(dv, 0, "count"), 32, 0);
	GT_NEAR(tg_test_num(dv, 0, "delta (us)"), sdpa * 0.08, 1e-9);
	tg_gate_free(g);

	/* without the alignment too: the enclosing op says it is attention
	 * (before the default classification: "SDPA gone, GEMM +49 %") */
	tg_gate_opts o = {.no_tree_diff = 1};
	g = gate(BIG, BIG " --sdpa-math 1.08", r, &o);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
	s = gate_item(g, "sdpa-forward", "");
	assert_false(s->is_gone);
	assert_int_equal(s->verdict, TG_VERDICT_BLOCK);
	GT_NEAR(s->pct, 8.0, EXACT);
	gm = gate_item(g, "gemm", "");
	assert_int_equal(gm->verdict, TG_VERDICT_PASS);
	GT_NEAR(gm->pct, 0.0, EXACT);
	assert_int_equal(tg_gate_attributed(g), 0);
	assert_null(tg_gate_divergences(g));
	assert_string_equal(tg_gate_drawing(g), "");
	tg_gate_free(g);
	tg_rules_free(r);
}

static const char each_op_rule[] = "version: 1\n"
                                   "rules:\n"
                                   "  - name: ops\n"
                                   "    metric: kernel_time\n"
                                   "    aggregate: each\n"
                                   "    by: op\n"
                                   "    warn_above: 5%\n"
                                   "    min_delta: 20us\n";

static void test_extra_op(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const char *xa = BIG " --extra-op aten::gelu";
	const gt_side *b = gt_trace(BIG), *x = gt_trace(xa);
	double gelu = gt_per_step(x, GT_KERNEL_US) - gt_per_step(b, GT_KERNEL_US); /* us per step */
	assert_true(gelu > 20);
	tg_rules *r = rules_default();
	tg_gate *g = gate(BIG, xa, r, NULL);
	/* default rules: no rule on elementwise time; busy +1.9 % is under 2 % */
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_PASS);
	const tg_judged *busy = gate_item(g, "gpu-busy", "");
	assert_int_equal(busy->verdict, TG_VERDICT_PASS);
	GT_NEAR(busy->delta, gelu * 1e3, 1e-3);
	assert_true(busy->pct > 1 && busy->pct < 2);
	tg_table *ops = compare(g, TG_COMPARE_OP);
	long row = gt_row(ops, "op", "aten::gelu");
	assert_true(row >= 0);
	assert_string_equal(gt_str(ops, (size_t)row, "status"), "new");
	GT_NEAR(tg_test_num(ops, (size_t)row, "base count"), 0, 0);
	GT_NEAR(tg_test_num(ops, (size_t)row, "new count"), 4, 0);
	GT_NEAR(tg_test_num(ops, (size_t)row, "new (us)"), gelu, 1e-9);
	for (size_t i = 0; i < tg_table_nrows(ops); i++)
		if ((long)i != row)
			assert_string_equal(gt_str(ops, i, "status"), "");
	tg_table_free(ops);
	/* added at the top level: a divergence at the root, categories unchanged */
	assert_int_equal(tg_gate_attributed(g), 0);
	const tg_table *dv = tg_gate_divergences(g);
	assert_int_equal(tg_table_nrows(dv), 1);
	assert_string_equal(gt_str(dv, 0, "where"), "(top level)");
	assert_string_equal(gt_str(dv, 0, "category"), "elementwise");
	GT_NEAR(tg_test_num(dv, 0, "delta (us)"), gelu, 1e-9);
	tg_gate_free(g);
	tg_rules_free(r);

	/* an each rule by op reports it new, and warns */
	r = rules_yaml(each_op_rule);
	g = gate(BIG, xa, r, NULL);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_WARN);
	const tg_judged *it = gate_item(g, "ops", "aten::gelu");
	assert_true(it->is_new);
	assert_int_equal(it->verdict, TG_VERDICT_WARN);
	assert_string_equal(it->note, "new");
	assert_true(isinf(it->pct) && it->pct > 0);
	assert_true(it->base == 0);
	GT_NEAR(it->next, gelu * 1e3, 1e-6);
	size_t n;
	const tg_judged *all = tg_judgement_items(tg_gate_judgement(g), &n);
	assert_int_equal(n, 7); /* the 6 ops of the base and gelu */
	assert_ptr_equal(&all[0], it); /* worst first */
	for (size_t i = 1; i < n; i++) {
		assert_int_equal(all[i].verdict, TG_VERDICT_PASS);
		assert_true(all[i].pct == 0);
	}
	assert_true(!strcmp(tg_judgement_summary(tg_gate_judgement(g)), "warn: ops aten::gelu kernel_time is new"));
	tg_gate_free(g);
	tg_rules_free(r);
}

/* ------------------------------------------------ sampling */

/* One step (or none): the calls the alignment pairs are the samples. The
 * new side has another seed: its jitter is independent of the base's. */
static void test_one_step(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	for (int steps = 0; steps <= 1; steps++) {
		for (int layers = 4; layers <= 8; layers += 4) {
			char a[128], b[160];
			snprintf(a, sizeof(a), "--steps %d --seq 4096 --layers %d --jitter 1", steps, layers);
			snprintf(b, sizeof(b), "%s --seed 2 --sdpa-scale 1.07", a);
			tg_gate *g = gate(a, b, r, NULL);
			const tg_judged *s = gate_item(g, "sdpa-forward", "");
			assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
			assert_int_equal(s->verdict, TG_VERDICT_BLOCK);
			assert_int_equal(s->sampling, TG_SAMPLING_PAIRS);
			/* one attention call a layer, each paired with its layer's */
			assert_int_equal(s->npairs, (size_t)layers);
			assert_int_equal(s->nbase, (size_t)layers);
			assert_int_equal(s->nnext, (size_t)layers);
			/* the noise of a call, from the other paired calls (GEMMs,
			 * norms, elementwise: jitter of +-1 % on each side) */
			assert_true(s->noise_calls > 20);
			assert_true(s->call_noise_pct > 0.3 && s->call_noise_pct < 1.5);
			assert_true(fabs(s->pct - 7.0) < 1.0);
			assert_true(s->pct_lo > 5 && s->pct_lo < s->pct && s->pct_hi > s->pct);
			char want[96];
			snprintf(want, sizeof(want), ", %d paired calls in 1 step) > 5 %%", layers);
			assert_non_null(strstr(tg_judgement_summary(tg_gate_judgement(g)), want));
			/* gpu_busy borrows the interval of the total kernel time */
			const tg_judged *busy = gate_item(g, "gpu-busy", "");
			assert_int_equal(busy->sampling, TG_SAMPLING_PAIRS);
			assert_false(isnan(busy->pct_lo));
			assert_true(busy->pct_lo < busy->pct && busy->pct < busy->pct_hi);
			tg_gate_free(g);
			/* unchanged code on one step passes */
			snprintf(b, sizeof(b), "%s --seed 3", a);
			g = gate(a, b, r, NULL);
			assert_int_equal(tg_gate_verdict(g), TG_VERDICT_PASS);
			tg_gate_free(g);
		}
	}
	/* without the alignment nothing is paired: per invocation, as before */
	tg_gate_opts o = {.no_tree_diff = 1};
	tg_gate *g = gate("--steps 1 --seq 4096 --jitter 1", "--steps 1 --seq 4096 --jitter 1 --seed 2 --sdpa-scale 1.07",
	                  r, &o);
	const tg_judged *s = gate_item(g, "sdpa-forward", "");
	assert_int_equal(s->sampling, TG_SAMPLING_INVOCATIONS);
	assert_int_equal(s->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_string_equal(s->note, "4 and 4 samples, 5 needed");
	tg_gate_free(g);
	tg_rules_free(r);
}

/* The generator's default workload (4 steps, 110 us of attention a step):
 * a +10 % attention change (+11 us a step) passed in every one of 75 runs
 * under a fixed 20 us floor; the default floor is 0.1 % of the base's GPU
 * busy time a step (1.1 us here). 10 seeds, jitter of 2 % a kernel: every
 * +10 % blocks, every A/A passes. */
static void test_default_workload_judged(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	int blocked = 0, passed = 0;
	for (int s = 1; s <= 10; s++) {
		gt_side a, b, c;
		char x[96], y[96], z[96];
		snprintf(x, sizeof(x), "--seed %d --jitter 2", s);
		snprintf(y, sizeof(y), "--seed %d --jitter 2 --sdpa-scale 1.10", s + 50);
		snprintf(z, sizeof(z), "--seed %d --jitter 2", s + 90);
		gt_load(&a, x);
		gt_load(&b, y);
		gt_load(&c, z);
		tg_gate *g = gate_sides(&a, &b, r, NULL);
		const tg_judged *sd = gate_item(g, "sdpa-forward", "");
		blocked += sd->verdict == TG_VERDICT_BLOCK && sd->sampling == TG_SAMPLING_PAIRS;
		tg_gate_free(g);
		g = gate_sides(&a, &c, r, NULL);
		passed += tg_gate_verdict(g) == TG_VERDICT_PASS;
		tg_gate_free(g);
		gt_unload(&a);
		gt_unload(&b);
		gt_unload(&c);
	}
	print_message("default workload: +10 %% attention blocked in %d of 10, A/A passed in %d of 10\n", blocked,
	              passed);
	assert_int_equal(blocked, 10);
	assert_int_equal(passed, 10);
	tg_rules_free(r);
}

/* 3 steps (fewer than min_samples): paired calls are the samples, and the
 * interval is widened by the variation between steps (of the steps'
 * paired ratios). */
static void test_few_steps_widened(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	double wq = 0, wn = 0;
	for (int s = 1; s <= 6; s++) {
		double w[2];
		for (int noisy = 0; noisy <= 1; noisy++) {
			gt_side sb, sn;
			char a[160], b[160];
			snprintf(a, sizeof(a), "--steps 3 --seq 4096 --jitter 1 %s --seed %d", noisy ? "--noise 2" : "", s);
			snprintf(b, sizeof(b), "--steps 3 --seq 4096 --jitter 1 %s --seed %d --sdpa-scale 1.07",
			         noisy ? "--noise 2" : "", s + 1000);
			gt_load(&sb, a);
			gt_load(&sn, b);
			tg_gate *g = gate_sides(&sb, &sn, r, NULL);
			const tg_judged *x = gate_item(g, "sdpa-forward", "");
			assert_int_equal(x->sampling, TG_SAMPLING_PAIRS);
			assert_int_equal(x->npairs, 12);
			assert_int_equal(x->nbase, 12);
			assert_int_equal(x->nnext, 12);
			assert_true(x->pct_lo < x->pct && x->pct < x->pct_hi);
			w[noisy] = x->pct_hi - x->pct_lo;
			if (noisy) /* the widened interval still holds the true +7 % */
				assert_true(x->pct_lo < 7 && 7 < x->pct_hi);
			tg_gate_free(g);
			gt_unload(&sb);
			gt_unload(&sn);
		}
		assert_true(w[1] > w[0]);
		wq += w[0];
		wn += w[1];
	}
	print_message("3 steps, 6 seeds: mean CI width %.2f %% with jitter only, %.2f %% with per-step noise\n", wq / 6,
	              wn / 6);
	assert_true(wn > 2 * wq);
	tg_rules_free(r);
}

/* ------------------------------------------------ comparability */

static void hardware_case(const char *change, const char *why, tg_verdict allowed)
{
	char b[160];
	snprintf(b, sizeof(b), BIG " %s", change);
	tg_rules *r = rules_default();
	tg_gate *g = gate(BIG, b, r, NULL);
	const tg_judgement *j = tg_gate_judgement(g);
	const char *w;
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_INCONCLUSIVE);
	assert_int_equal(tg_judgement_comparable(j, &w), 0);
	assert_string_equal(w, why);
	char summary[256];
	snprintf(summary, sizeof(summary), "inconclusive: not comparable (%s)", why);
	assert_string_equal(tg_judgement_summary(j), summary);
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(it[i].verdict, TG_VERDICT_INCONCLUSIVE);
		assert_string_equal(it[i].note, "not comparable");
	}
	tg_gate_free(g);
	/* allowed by the option: judged, and the change still said */
	tg_gate_opts o = {.allow_hardware_change = 1};
	g = gate(BIG, b, r, &o);
	assert_int_equal(tg_judgement_comparable(tg_gate_judgement(g), &w), 1);
	assert_string_equal(w, why);
	assert_int_equal(tg_gate_verdict(g), allowed);
	const tg_judged *s = gate_item(g, "sdpa-forward", "");
	assert_int_equal(s->verdict, TG_VERDICT_PASS);
	GT_NEAR(s->pct, 0.0, EXACT);
	tg_gate_free(g);
	tg_rules_free(r);
	/* allowed by the rules, with a real change: judged normally */
	r = rules_yaml("version: 1\n"
	               "settings:\n"
	               "  allow_hardware_change: true\n"
	               "rules:\n"
	               "  - name: sdpa\n"
	               "    select: {category: SDPA_fwd}\n"
	               "    metric: kernel_time\n"
	               "    block_above: 5%\n"
	               "    min_delta: 20us\n");
	snprintf(b, sizeof(b), BIG " %s --sdpa-scale 1.07", change);
	g = gate(BIG, b, r, NULL);
	assert_int_equal(tg_judgement_comparable(tg_gate_judgement(g), &w), 1);
	assert_string_equal(w, why);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
	GT_NEAR(gate_item(g, "sdpa", "")->pct, 7.0, EXACT);
	tg_gate_free(g);
	tg_rules_free(r);
}

static void test_gpu_change(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	hardware_case("--gpu 'NVIDIA A100-SXM4-80GB'", "GPU NVIDIA H100 80GB HBM3 -> NVIDIA A100-SXM4-80GB",
	              TG_VERDICT_PASS);
}

static void test_runtime_and_driver_change(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	hardware_case("--cuda 12.1", "runtime CUDA 12.4 -> CUDA 12.1", TG_VERDICT_PASS);
	hardware_case("--driver 12.2", "driver CUDA 12.9 -> CUDA 12.2", TG_VERDICT_PASS);
}

static void test_world_size_change(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	/* allowed, rank 0 of 2 is judged: its allreduce is real busy time and
	 * exposed communication the single GPU did not have */
	hardware_case("--ranks 2 --rank 0", "world size 1 -> 2", TG_VERDICT_BLOCK);
	tg_rules *r = rules_default();
	tg_gate_opts o = {.allow_hardware_change = 1};
	tg_gate *g = gate(BIG, BIG " --ranks 2 --rank 0", r, &o);
	assert_int_equal(gate_item(g, "gpu-busy", "")->verdict, TG_VERDICT_BLOCK);
	const tg_judged *c = gate_item(g, "exposed-comm", "");
	assert_true(c->is_new);
	assert_int_equal(c->verdict, TG_VERDICT_WARN);
	tg_gate_free(g);
	tg_rules_free(r);
}

/* Nothing to judge is an error naming the side and what is missing, never
 * a verdict: an empty profile passed ("pass: 6 checks"), and a trace without
 * GPU activity against a real one was "not comparable (GPU NVIDIA H200 ->
 * ?)". A side whose fingerprint lacks a field (no deviceProperties) is not
 * comparable, and the reason names the field instead of a change of GPU. */
static void test_nothing_to_judge(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_trace *empty = tg_test_read_str("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
	                                   "\"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 5}]}");
	/* one step whose kernel runs after it: GPU events, none in a step */
	tg_trace *outside = tg_test_read_str(
		"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", "
		"\"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 10}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
		"\"pid\": 0, \"tid\": 7, \"ts\": 50, \"dur\": 5, \"args\": {\"stream\": 7}}]}");
	tg_tree *te, *to;
	assert_int_equal(tg_tree_build(&te, empty), 0);
	assert_int_equal(tg_tree_build(&to, outside), 0);
	const gt_side *real = gt_trace(BIG);
	tg_rules *r = rules_default();
	const tg_tree *e[1] = {te}, *o[1] = {to}, *g1[1] = {real->tree};
	tg_gate *g = NULL;
	assert_int_equal(tg_gate_run(&g, r, e, 1, e, 1, NULL), TG_ENODATA);
	assert_null(g);
	assert_string_equal(tg_error_last(),
	                    "nothing to judge: the base trace test.json has no GPU activity (no kernel, memcpy or memset)");
	assert_int_equal(tg_gate_run(&g, r, g1, 1, e, 1, NULL), TG_ENODATA);
	assert_string_equal(tg_error_last(),
	                    "nothing to judge: the new trace test.json has no GPU activity (no kernel, memcpy or memset)");
	assert_int_equal(tg_gate_run(&g, r, g1, 1, o, 1, NULL), TG_ENODATA);
	assert_string_equal(tg_error_last(), "nothing to judge: the new trace test.json has 1 GPU events, none in its 1 "
	                                     "profiled steps");
	tg_gate_opts go = {.noise = e, .nnoise = 1};
	assert_int_equal(tg_gate_run(&g, r, g1, 1, g1, 1, &go), TG_ENODATA);
	assert_string_equal(tg_error_last(), "nothing to judge: the --noise-from trace test.json has no GPU activity "
	                                     "(no kernel, memcpy or memset)");
	/* a real trace against one with kernels but no deviceProperties nor
	 * versions: not comparable, each missing field named as missing */
	tg_trace *bare = tg_test_read_str(
		"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, "
		"\"ts\": 1, \"dur\": 10, \"args\": {\"External id\": 1}}, {\"ph\": \"X\", \"cat\": \"cuda_runtime\", "
		"\"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 3, \"args\": {\"correlation\": "
		"1, \"External id\": 1}}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
		"\"ts\": 50, \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 1}}]}");
	tg_tree *tb;
	assert_int_equal(tg_tree_build(&tb, bare), 0);
	const tg_tree *b1[1] = {tb};
	assert_int_equal(tg_gate_run(&g, r, g1, 1, b1, 1, NULL), 0);
	const char *why;
	assert_int_equal(tg_judgement_comparable(tg_gate_judgement(g), &why), 0);
	assert_string_equal(why, "GPU model not recorded in the new trace (no deviceProperties; base: NVIDIA H100 80GB "
	                         "HBM3); driver version not recorded in the new trace (no cuda_driver_version; base: "
	                         "CUDA 12.9); runtime version not recorded in the new trace (no cuda_runtime_version; "
	                         "base: CUDA 12.4)");
	tg_gate_free(g);
	tg_rules_free(r);
	tg_tree_free(te);
	tg_tree_free(to);
	tg_tree_free(tb);
	tg_trace_free(empty);
	tg_trace_free(outside);
	tg_trace_free(bare);
}

/* The json document of g, into a malloc'd string. */
static char *gate_json(const tg_gate *g, const char *const *bf, size_t nb, const char *const *xf, size_t nx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	tg_diff_doc d = tg_gate_doc(g, bf, nb, xf, nx, NULL, NULL);
	assert_int_equal(tg_diff_write_json(f, &d), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Ranks are matched by their rank id, never by the order of the traces: a
 * GEMM slowdown on rank 1 of 2 gives the same document byte for byte
 * whichever order the new side's ranks come in, blocks on rank 1's item of
 * the gemm rule, and the summary names rank 1. */
static void test_ranks_by_id(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const gt_side *b0 = gt_trace(BIG " --ranks 2 --rank 0"), *b1 = gt_trace(BIG " --ranks 2 --rank 1");
	const gt_side *n0 = gt_trace(BIG " --ranks 2 --rank 0 --seed 2");
	const gt_side *n1 = gt_trace(BIG " --ranks 2 --rank 1 --seed 2 --gemm-scale 1.30");
	tg_rules *r = rules_default();
	const tg_tree *bt[2] = {b0->tree, b1->tree}, *in_order[2] = {n0->tree, n1->tree}, *swapped[2] = {n1->tree, n0->tree};
	const char *bf[2] = {"b0.json", "b1.json"}, *xf[2] = {"n0.json", "n1.json"}, *xs[2] = {"n1.json", "n0.json"};
	tg_gate *g1 = NULL, *g2 = NULL;
	assert_int_equal(tg_gate_run(&g1, r, bt, 2, in_order, 2, NULL), 0);
	assert_int_equal(tg_gate_run(&g2, r, bt, 2, swapped, 2, NULL), 0);
	char *j1 = gate_json(g1, bf, 2, xf, 2), *j2 = gate_json(g2, bf, 2, xs, 2);
	assert_string_equal(j1, j2);
	const tg_judged *one = NULL, *total = NULL;
	size_t n;
	const tg_judged *it = tg_judgement_items(tg_gate_judgement(g1), &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(it[i].rule->name, "gemm")) {
			if (it[i].rank == 1)
				one = &it[i];
			else if (it[i].rank < 0)
				total = &it[i];
			else
				assert_int_equal(it[i].verdict, TG_VERDICT_PASS);
		}
	assert_non_null(one);
	assert_non_null(total);
	assert_int_equal(one->verdict, TG_VERDICT_BLOCK);
	GT_NEAR(one->pct, 30.0, 0.5);
	GT_NEAR(total->pct, 15.0, 1.0);
	assert_int_equal(tg_gate_verdict(g1), TG_VERDICT_BLOCK);
	const char *sum = tg_judgement_summary(tg_gate_judgement(g1));
	assert_non_null(strstr(sum, "block: gemm GEMM on rank 1 kernel_time +30."));
	assert_non_null(strstr(sum, "; ranks: slowest 1 ("));
	assert_non_null(strstr(sum, "most changed 1 (gemm +30."));
	const tg_rank_compare *rk = tg_judgement_ranks(tg_gate_judgement(g1));
	assert_non_null(rk);
	assert_int_equal(rk->nranks, 2);
	assert_int_equal(rk->slowest, 1);
	assert_int_equal(rk->most_changed, 1);
	assert_true(rk->most_changed_pct > 1);
	/* one rank a side: no per-rank items, nothing named */
	tg_gate *g3 = gate_sides(b1, n1, r, NULL);
	assert_null(tg_judgement_ranks(tg_gate_judgement(g3)));
	it = tg_judgement_items(tg_gate_judgement(g3), &n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(it[i].rank, -1);
	free(j1);
	free(j2);
	tg_gate_free(g1);
	tg_gate_free(g2);
	tg_gate_free(g3);
	tg_rules_free(r);
}

/* ------------------------------------------------ overrides */

static void test_accept(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	tg_accept acc[2] = {{"sdpa-forward", "intended", NULL}, {"gpu-busy", "follows", "octocat"}};
	tg_gate_opts o = {.accepts = acc, .naccepts = 1};
	tg_gate *g = gate(BIG, BIG " --sdpa-scale 1.07", r, &o);
	const tg_judgement *j = tg_gate_judgement(g);
	const tg_judged *s = gate_item(g, "sdpa-forward", "");
	assert_true(s->accepted);
	assert_int_equal(s->verdict, TG_VERDICT_BLOCK); /* the item keeps its verdict, marked accepted */
	/* the busy time's +2.1 % still warns */
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_WARN);
	assert_true(!strncmp(tg_judgement_summary(j), "warn: gpu-busy ", 15));
	size_t n;
	const tg_accept *a = tg_judgement_accepts(j, &n);
	assert_int_equal(n, 1);
	assert_string_equal(a[0].rule, "sdpa-forward");
	assert_string_equal(a[0].reason, "intended");
	tg_gate_free(g);
	/* both accepted: pass */
	o.naccepts = 2;
	g = gate(BIG, BIG " --sdpa-scale 1.07", r, &o);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_PASS);
	assert_true(gate_item(g, "gpu-busy", "")->accepted);
	a = tg_judgement_accepts(tg_gate_judgement(g), &n);
	assert_int_equal(n, 2);
	assert_string_equal(a[1].by, "octocat");
	tg_gate_free(g);
	/* an accept of a rule that passes changes nothing */
	tg_accept gemm = {"gemm", "noop", NULL};
	o = (tg_gate_opts){.accepts = &gemm, .naccepts = 1};
	g = gate(BIG, BIG " --sdpa-scale 1.07", r, &o);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
	assert_false(gate_item(g, "gemm", "")->accepted);
	tg_gate_free(g);
	/* an accept naming no rule is an error */
	tg_accept bad = {"nosuchrule", "x", NULL};
	o = (tg_gate_opts){.accepts = &bad, .naccepts = 1};
	const tg_tree *bt[1] = {gt_trace(BIG)->tree}, *nt[1] = {gt_trace(BIG " --sdpa-scale 1.07")->tree};
	g = (tg_gate *)1;
	assert_int_equal(tg_gate_run(&g, r, bt, 1, nt, 1, &o), TG_EINVAL);
	assert_null(g);
	assert_non_null(strstr(tg_error_last(), "'nosuchrule'"));
	tg_rules_free(r);
}

/* ------------------------------------------------ each rules and FDR */

static void test_fdr(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	/* (1) noise of +-2 % per step and +-2 % per kernel, no change, a per-op
	 * rule at 2 %: no block on any of 20 seed pairs */
	tg_rules *r = rules_yaml("version: 1\n"
	                         "rules:\n"
	                         "  - name: ops\n"
	                         "    metric: kernel_time\n"
	                         "    aggregate: each\n"
	                         "    by: op\n"
	                         "    block_above: 2%\n"
	                         "    warn_above: 1%\n");
	int blocks = 0, warns = 0;
	for (int s = 1; s <= 20; s++) {
		char a[160], b[160];
		snprintf(a, sizeof(a), BIG " --train --noise 2 --jitter 2 --seed %d", s);
		snprintf(b, sizeof(b), BIG " --train --noise 2 --jitter 2 --seed %d", s + 1000);
		gt_side sb, sn;
		gt_load(&sb, a);
		gt_load(&sn, b);
		tg_gate *g = gate_sides(&sb, &sn, r, NULL);
		blocks += count_verdicts(tg_gate_judgement(g), TG_VERDICT_BLOCK);
		warns += count_verdicts(tg_gate_judgement(g), TG_VERDICT_WARN);
		tg_gate_free(g);
		gt_unload(&sb);
		gt_unload(&sn);
	}
	print_message("each op, noise, 20 seed pairs: %d blocked items, %d warned\n", blocks, warns);
	assert_int_equal(blocks, 0);
	tg_rules_free(r);

	/* (2) block on any surely positive change (block_above 0) per op and
	 * shape, independent per-kernel noise: the bootstrap's interval alone
	 * would block on some of the 24 items of many pairs; Benjamini-Hochberg
	 * keeps the pairs with a false block near q = 5 % */
	r = rules_yaml("version: 1\n"
	               "rules:\n"
	               "  - name: shapes\n"
	               "    metric: kernel_time\n"
	               "    aggregate: each\n"
	               "    by: op_shape\n"
	               "    block_above: 0\n");
	int demoted = 0, blocked_pairs = 0, pairs = 40;
	blocks = 0;
	for (int s = 1; s <= pairs; s++) {
		char a[160], b[160];
		snprintf(a, sizeof(a), BIG " --train --jitter 2 --seed %d", s);
		snprintf(b, sizeof(b), BIG " --train --jitter 2 --seed %d", s + 1000);
		gt_side sb, sn;
		gt_load(&sb, a);
		gt_load(&sn, b);
		tg_gate *g = gate_sides(&sb, &sn, r, NULL);
		size_t n;
		const tg_judged *it = tg_judgement_items(tg_gate_judgement(g), &n);
		int b0 = blocks;
		for (size_t i = 0; i < n; i++) {
			blocks += it[i].verdict == TG_VERDICT_BLOCK;
			if (strstr(it[i].note, "not significant after FDR control")) {
				demoted++;
				assert_int_equal(it[i].verdict, TG_VERDICT_PASS);
				assert_true(it[i].pct_lo > 0); /* it would have blocked */
			}
		}
		blocked_pairs += blocks > b0;
		tg_gate_free(g);
		gt_unload(&sb);
		gt_unload(&sn);
	}
	print_message("each op+shape at 0 %%, jitter, %d seed pairs: FDR demoted %d items, %d items on %d pairs "
	              "still block\n",
	              pairs, demoted, blocks, blocked_pairs);
	assert_true(demoted > blocks);
	assert_true(blocked_pairs * 10 <= pairs); /* at most 10 % of the pairs */
	tg_rules_free(r);

	/* (3) a real +10 % on GEMM: both GEMM ops block, nothing else */
	r = rules_yaml("version: 1\n"
	               "rules:\n"
	               "  - name: ops\n"
	               "    metric: kernel_time\n"
	               "    aggregate: each\n"
	               "    by: op\n"
	               "    block_above: 5%\n"
	               "    min_delta: 20us\n");
	tg_gate *g = gate(BIG " --train --noise 2 --jitter 2 --seed 3",
	                  BIG " --train --noise 2 --jitter 2 --seed 1003 --gemm-scale 1.10", r, NULL);
	size_t n;
	const tg_judged *it = tg_judgement_items(tg_gate_judgement(g), &n);
	assert_true(n > 10);
	for (size_t i = 0; i < n; i++) {
		int is_gemm = !strcmp(it[i].item, "aten::addmm") || !strcmp(it[i].item, "aten::mm");
		if (is_gemm) {
			assert_int_equal(it[i].verdict, TG_VERDICT_BLOCK);
			GT_NEAR(it[i].pct, 10.0, 2.0);
			assert_true(it[i].pct_lo > 5);
			assert_true(i < 2); /* worst first */
		} else {
			assert_int_not_equal(it[i].verdict, TG_VERDICT_BLOCK);
		}
	}
	assert_int_equal(count_verdicts(tg_gate_judgement(g), TG_VERDICT_BLOCK), 2);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
	tg_gate_free(g);
	tg_rules_free(r);
}

/* ------------------------------------------------ other metrics */

static void test_tflops(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_yaml("version: 1\n"
	                         "rules:\n"
	                         "  - name: gemm-tflops\n"
	                         "    select: {category: GEMM}\n"
	                         "    metric: tflops\n"
	                         "    block_above: 5%\n"
	                         "    warn_above: 2%\n");
	tg_gate *g = gate(BIG, BIG " --gemm-scale 1.10", r, NULL);
	const tg_judged *t = gate_item(g, "gemm-tflops", "");
	/* GEMMs run at most 600 TFLOP/s in the generator's cost model */
	assert_true(t->base > 100 && t->base <= 600);
	GT_NEAR(t->next / t->base, 1 / 1.10, 1e-12);
	assert_true(t->delta < 0);
	/* docs/rules.md: positive is worse, "for tflops a 4 % drop is +4 %":
	 * throughput 1/1.1 of the base is a drop of 9.09 % */
	GT_NEAR(t->pct, 100 * (1 - 1 / 1.10), 1e-9);
	GT_NEAR(t->pct_lo, t->pct, 1e-9);
	assert_int_equal(t->verdict, TG_VERDICT_BLOCK);
	assert_int_equal(t->sampling, TG_SAMPLING_STEPS);
	tg_gate_free(g);
	/* faster GEMMs: higher throughput, a negative change, improved */
	g = gate(BIG, BIG " --gemm-scale 0.90", r, NULL);
	t = gate_item(g, "gemm-tflops", "");
	GT_NEAR(t->next / t->base, 1 / 0.90, 1e-12);
	GT_NEAR(t->pct, 100 * (1 - 1 / 0.90), 1e-9);
	assert_true(t->improved);
	assert_int_equal(t->verdict, TG_VERDICT_PASS);
	tg_gate_free(g);
	tg_rules_free(r);
}

static void test_host_syncs(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	tg_gate *g = gate(BIG, BIG " --host-sync 2", r, NULL);
	const tg_judged *h = gate_item(g, "host-syncs", "");
	assert_int_equal(h->verdict, TG_VERDICT_WARN);
	assert_int_equal(h->sampling, TG_SAMPLING_EXACT);
	assert_true(h->base == 0 && h->next == 2 && h->delta == 2);
	assert_true(h->is_new);
	assert_int_equal(h->nbase, 8);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_WARN);
	assert_string_equal(tg_judgement_summary(tg_gate_judgement(g)), "warn: host-syncs host_syncs is new"
	                    "; not judged: elementwise 13 %");
	tg_gate_free(g);
	g = gate(BIG " --host-sync 1", BIG " --host-sync 3", r, NULL);
	h = gate_item(g, "host-syncs", "");
	assert_int_equal(h->verdict, TG_VERDICT_WARN);
	assert_true(h->base == 1 && h->next == 3 && h->delta == 2);
	GT_NEAR(h->pct, 200.0, EXACT);
	assert_false(h->is_new);
	tg_gate_free(g);
	/* fewer syncs: pass */
	g = gate(BIG " --host-sync 3", BIG " --host-sync 1", r, NULL);
	h = gate_item(g, "host-syncs", "");
	assert_int_equal(h->verdict, TG_VERDICT_PASS);
	assert_true(h->delta == -2);
	tg_gate_free(g);
	tg_rules_free(r);
}

/* Rules on findings (docs/findings.md): a host sync new in the pull
 * request blocks through `select: {finding: host-sync}`; the attention's
 * math path warns; the gate lists both as new, with the numbers of the
 * new side's findings (--host-sync 2: 115.58775 us a step of GPU idle
 * after the two .item() calls of each step, 2.13 % of its 5.43 ms). */
static void test_findings(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_yaml("version: 1\n"
	                         "rules:\n"
	                         "  - name: no-new-sync\n"
	                         "    select: {finding: host-sync}\n"
	                         "    block_above: 0%\n"
	                         "    min_delta: 50us\n"
	                         "  - name: attention\n"
	                         "    select: {finding: attention-backend}\n"
	                         "    warn_above: 10%\n"
	                         "  - name: every\n"
	                         "    select: {finding: \"*\"}\n"
	                         "    aggregate: each\n"
	                         "    warn_above: 50%\n");
	tg_gate *g = gate(BIG, BIG " --host-sync 2", r, NULL);
	const tg_judged *h = gate_item(g, "no-new-sync", "");
	assert_int_equal(h->verdict, TG_VERDICT_BLOCK);
	assert_int_equal(h->sampling, TG_SAMPLING_EXACT);
	assert_true(h->is_new && h->base == 0);
	GT_NEAR(h->next, 115587.75, 1e-6);
	assert_true(isinf(h->pct));
	assert_string_equal(h->note, "new: host-sync in aten::item, 0.116 ms a step");
	assert_int_equal(gate_item(g, "attention", "")->verdict, TG_VERDICT_PASS);
	/* each: the sync new (warn); the pageable copy's cost, 1.21 % of the base's
	 * step, is 0.43 % of the new one's (its GPU already drained): gone, pass */
	assert_int_equal(gate_item(g, "every", "host-sync aten::item")->verdict, TG_VERDICT_WARN);
	assert_int_equal(gate_item(g, "every", "pageable-memcpy ")->verdict, TG_VERDICT_PASS);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
	size_t n;
	const tg_finding_delta *d = tg_gate_finding_changes(g, &n);
	assert_int_equal(n, 2);
	assert_int_equal(d[0].change, TG_FINDING_NEW);
	assert_int_equal(d[0].next->id, TG_FINDING_HOST_SYNC);
	assert_string_equal(d[0].next->subject, "aten::item");
	assert_int_equal(d[1].change, TG_FINDING_GONE);
	assert_int_equal(d[1].base->id, TG_FINDING_PAGEABLE_MEMCPY);
	assert_null(d[1].next);
	/* the comment says it, with the fix */
	tg_diff_doc doc = tg_gate_doc(g, NULL, 0, NULL, 0, NULL, NULL);
	char *md = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&md, &len);
	assert_int_equal(tg_diff_write_md(f, &doc, 0), 0);
	fclose(f);
	assert_non_null(strstr(md, "#### Findings\n\n- **new**: host sync in <code>aten::item</code> (2 a step) costs "
	                           "115.6 us a step (2.1 % of the step); fix: keep values on the GPU"));
	assert_non_null(
		strstr(md, "\n- **gone**: pageable copy (1 a step), which cost 58.0 us a step (1.2 % of the step)\n"));
	free(md);
	tg_gate_free(g);
	/* under min_delta: pass */
	tg_rules_free(r);
	r = rules_yaml("version: 1\nrules:\n  - name: s\n    select: {finding: host-sync}\n    block_above: 0%\n"
	               "    min_delta: 200us\n");
	g = gate(BIG, BIG " --host-sync 2", r, NULL);
	assert_int_equal(gate_item(g, "s", "")->verdict, TG_VERDICT_PASS);
	tg_gate_free(g);
	/* min_delta as a percent: of the base's step (4.80 ms): 5 % is 240 us,
	 * over the sync's 115.6 us (pass); 1 % is 48 us (block) */
	tg_rules_free(r);
	r = rules_yaml("version: 1\nrules:\n  - name: s5\n    select: {finding: host-sync}\n    block_above: 0%\n"
	               "    min_delta: 5%\n  - name: s1\n    select: {finding: host-sync}\n    block_above: 0%\n"
	               "    min_delta: 1%\n");
	g = gate(BIG, BIG " --host-sync 2", r, NULL);
	assert_int_equal(gate_item(g, "s5", "")->verdict, TG_VERDICT_PASS);
	assert_int_equal(gate_item(g, "s1", "")->verdict, TG_VERDICT_BLOCK);
	tg_gate_free(g);
	/* the same sync on both sides, its cost within 100 %: pass; the math
	 * path: new, warns */
	tg_rules_free(r);
	r = rules_yaml("version: 1\nrules:\n  - name: s\n    select: {finding: host-sync}\n    block_above: 100%\n"
	               "  - name: a\n    select: {finding: attention-backend}\n    warn_above: 10%\n");
	g = gate(BIG " --host-sync 2", BIG " --host-sync 2 --sdpa-math 3", r, NULL);
	assert_int_equal(gate_item(g, "s", "")->verdict, TG_VERDICT_PASS);
	h = gate_item(g, "a", "");
	assert_int_equal(h->verdict, TG_VERDICT_WARN);
	assert_true(h->is_new);
	d = tg_gate_finding_changes(g, &n);
	assert_int_equal(d[0].change, TG_FINDING_NEW);
	assert_int_equal(d[0].next->id, TG_FINDING_ATTENTION_BACKEND);
	tg_gate_free(g);
	tg_rules_free(r);
	/* a finding no side can evaluate (one rank a side), or one turned off:
	 * inconclusive on its line, not for the diff */
	r = rules_yaml("version: 1\nfindings:\n  host-sync: off\n"
	               "rules:\n  - name: st\n    select: {finding: straggler}\n    block_above: 0%\n"
	               "  - name: off\n    select: {finding: host-sync}\n    block_above: 0%\n");
	g = gate(BIG, BIG " --host-sync 2", r, NULL);
	h = gate_item(g, "st", "");
	assert_int_equal(h->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_true(h->no_data && !h->unmatched);
	assert_string_equal(h->note, "not evaluated on either side");
	h = gate_item(g, "off", "");
	assert_true(h->no_data && h->unmatched);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_PASS);
	d = tg_gate_finding_changes(g, &n);
	assert_int_equal(n, 1); /* the pageable copy, gone */
	tg_gate_free(g);
	tg_rules_free(r);
}

static void test_unmatched_rules(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	tg_gate *g = gate(BIG, BIG " --seed 1", r, NULL);
	size_t n;
	const char *const *u = tg_judgement_unmatched(tg_gate_judgement(g), &n);
	assert_int_equal(n, 1); /* forward only: no SDPA backward */
	assert_string_equal(u[0], "sdpa-backward");
	tg_gate_free(g);
	g = gate(BIG " --train", BIG " --train --seed 1", r, NULL);
	tg_judgement_unmatched(tg_gate_judgement(g), &n);
	assert_int_equal(n, 0);
	tg_gate_free(g);
	tg_rules_free(r);
	r = rules_yaml("version: 1\n"
	               "rules:\n"
	               "  - name: ghost\n"
	               "    select: {op: 'aten::nonexistent'}\n"
	               "    metric: kernel_time\n"
	               "    block_above: 5%\n"
	               "  - name: ghost-kernels\n"
	               "    select: {kernel: '/^nothing_like_this$/'}\n"
	               "    metric: count\n"
	               "    aggregate: each\n"
	               "    warn_above: 1%\n"
	               "  - name: sdpa\n"
	               "    select: {category: SDPA_fwd}\n"
	               "    metric: kernel_time\n"
	               "    block_above: 5%\n");
	g = gate(BIG, BIG " --sdpa-scale 1.07", r, NULL);
	u = tg_judgement_unmatched(tg_gate_judgement(g), &n);
	assert_int_equal(n, 2);
	assert_string_equal(u[0], "ghost");
	assert_string_equal(u[1], "ghost-kernels");
	const tg_judged *x = gate_item(g, "ghost", "");
	assert_int_equal(x->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_true(x->unmatched);
	assert_string_equal(x->note, "matches nothing in either trace");
	/* an each rule that matches nothing gets one inconclusive line too */
	const tg_judged *xk = gate_item(g, "ghost-kernels", "");
	assert_int_equal(xk->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_true(xk->unmatched);
	/* the rest of the verdict stands: a rule that matches nothing does not
	 * hide the SDPA block behind "inconclusive" */
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_BLOCK);
	tg_gate_free(g);
	tg_rules_free(r);
}


/* ------------------------------------------------------------ run data */

static const tg_rundata *lean_rd[2]; /* test_run_data_lean: the sides' run data */

/* The heap policy's calls by stage, and whether the gate may free run
 * data (test_run_data_lean's tg_gate_opts.heap_ctx). */
struct stages {
	int calls[TG_GATE_JUDGE_STAGE + 1];
	int release;
};

/* The heap policy's calls counted (ctx: struct stages); when the
 * judgement's measures have their room (TG_GATE_ALIGNED), both skeletons
 * already released if the gate may free run data (the pair aligned
 * without a point of divergence). */
static void count_stages(void *ctx, enum tg_gate_stage stage)
{
	struct stages *s = ctx;
	assert_true(stage <= TG_GATE_JUDGE_STAGE);
	s->calls[stage]++;
	if (stage == TG_GATE_ALIGNED && s->release) {
		assert_null(tg_rundata_skeleton(lean_rd[0]));
		assert_null(tg_rundata_skeleton(lean_rd[1]));
	}
}

/* The gate on run data whose pair aligns without divergence: the diff made
 * lean and, when the gate may free run data, both skeletons released
 * before the measures are made; the tree diff's build and the judgement
 * call the heap policy twice each; the document the same as from the
 * trees. */
static void test_run_data_lean(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	const gt_side *b = gt_trace(BIG), *x = gt_trace(BIG " --seed 1");
	tg_gate *want = gate_sides(b, x, r, NULL);
	char *a = gt_gate_render(want);
	for (int release = 0; release <= 1; release++) {
		tg_rundata *rd[2];
		assert_int_equal(tg_rundata_build(&rd[0], b->tree, tg_rules_findings(r)), 0);
		assert_int_equal(tg_rundata_build(&rd[1], x->tree, tg_rules_findings(r)), 0);
		lean_rd[0] = rd[0];
		lean_rd[1] = rd[1];
		const tg_rundata *bd[1] = {rd[0]}, *xd[1] = {rd[1]};
		tg_gate_data bs = {.data = bd, .n = 1}, xs = {.data = xd, .n = 1};
		struct stages st = {.release = release};
		tg_gate_opts o = {.release_data = release, .heap_hint = count_stages, .heap_ctx = &st};
		tg_gate *got = NULL;
		assert_int_equal(tg_gate_run_data(&got, r, &bs, &xs, &o), 0);
		assert_int_equal(st.calls[TG_GATE_ALIGNED], 1);
		assert_int_equal(st.calls[TG_GATE_RELEASED], release);
		/* before the build, then the views' build's, the roots' alignment's */
		assert_int_equal(st.calls[TG_GATE_DIFF_SCRATCH], 3);
		assert_int_equal(st.calls[TG_GATE_JUDGE_STAGE], 2); /* the rules judged, the per-op judgement */
		/* kept when the gate may not free run data */
		assert_int_equal(tg_rundata_skeleton(rd[0]) == NULL, release);
		assert_int_equal(tg_rundata_skeleton(rd[1]) == NULL, release);
		assert_string_equal(tg_gate_drawing(got), "");
		char *c = gt_gate_render(got);
		assert_string_equal(a, c);
		free(c);
		tg_gate_free(got);
		tg_rundata_free(rd[0]);
		tg_rundata_free(rd[1]);
	}
	free(a);
	tg_gate_free(want);
	tg_rules_free(r);
}

static const tg_rundata *mixed_rd[4]; /* test_run_data_mixed: base 0, 1, new 0, 1 */

/* At the measures' room (TG_GATE_ALIGNED, counted into ctx: an int):
 * the pair aligned without divergence gave its skeletons back; the pair
 * with points of divergence keeps them. */
static void check_mixed(void *ctx, enum tg_gate_stage stage)
{
	if (stage != TG_GATE_ALIGNED)
		return;
	++*(int *)ctx;
	assert_null(tg_rundata_skeleton(mixed_rd[0]));
	assert_non_null(tg_rundata_skeleton(mixed_rd[1]));
	assert_null(tg_rundata_skeleton(mixed_rd[2]));
	assert_non_null(tg_rundata_skeleton(mixed_rd[3]));
}

/* Two pairs, the second split attention (points of divergence): that
 * pair's diff keeps its merged tree and skeletons through the attribution
 * and the table, the first pair's go before the measures; the document
 * the same as from the trees. */
static void test_run_data_mixed(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	const gt_side *a = gt_trace(BIG), *sp = gt_trace(BIG " --split-attention 1.08");
	const tg_tree *bt[2] = {a->tree, a->tree}, *xt[2] = {a->tree, sp->tree};
	tg_gate *want = NULL;
	assert_int_equal(tg_gate_run(&want, r, bt, 2, xt, 2, NULL), 0);
	tg_rundata *rd[4];
	for (int i = 0; i < 4; i++) {
		assert_int_equal(tg_rundata_build(&rd[i], i < 3 ? a->tree : sp->tree, tg_rules_findings(r)), 0);
		mixed_rd[i] = rd[i];
	}
	const tg_rundata *bd[2] = {rd[0], rd[1]}, *xd[2] = {rd[2], rd[3]};
	tg_gate_data bs = {.data = bd, .n = 2}, xs = {.data = xd, .n = 2};
	int aligned_calls = 0;
	tg_gate_opts o = {.release_data = 1, .heap_hint = check_mixed, .heap_ctx = &aligned_calls};
	tg_gate *got = NULL;
	assert_int_equal(tg_gate_run_data(&got, r, &bs, &xs, &o), 0);
	assert_int_equal(aligned_calls, 1);
	/* the first pair is drawn (it has nothing to draw); the second's
	 * divergences are tabulated */
	assert_string_equal(tg_gate_drawing(got), "");
	assert_true(tg_table_nrows(tg_gate_divergences(got)) > 0);
	char *c = gt_gate_render(got), *w = gt_gate_render(want);
	assert_string_equal(w, c);
	free(c);
	free(w);
	tg_gate_free(got);
	tg_gate_free(want);
	for (int i = 0; i < 4; i++)
		tg_rundata_free(rd[i]);
	tg_rules_free(r);
}

static int compact_expands, compact_fail; /* test_run_data_compact */

/* tg_gate_opts.expand_measure: the measures still compact when the gate
 * asks for them (they sat compact through the alignment), given back. */
static int expand_held(const tg_rundata *rd)
{
	compact_expands++;
	assert_true(tg_rundata_compacted(rd));
	if (compact_fail)
		return tg_error_set(TG_ENOMEM, "out of memory");
	int rc = tg_rundata_expand_parts((tg_rundata *)rd, TG_RUNDATA_MEASURE);
	assert_false(tg_rundata_compacted(rd));
	return rc;
}

/* Run data held compact (`tracegate diff`), the skeletons alone given
 * back before the gate: each trace's measures given back by the gate
 * just before it copies them (tg_gate_opts.expand_measure), once each;
 * the document the same as from the trees; a failure to give them back
 * is the gate's error. */
static void test_run_data_compact(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r = rules_default();
	const gt_side *a = gt_trace(BIG), *sp = gt_trace(BIG " --split-attention 1.08");
	const tg_tree *bt[2] = {a->tree, a->tree}, *xt[2] = {a->tree, sp->tree};
	tg_gate *want = NULL;
	assert_int_equal(tg_gate_run(&want, r, bt, 2, xt, 2, NULL), 0);
	char *w = gt_gate_render(want);
	for (compact_fail = 0; compact_fail <= 1; compact_fail++) {
		tg_rundata *rd[4];
		for (int i = 0; i < 4; i++) {
			assert_int_equal(tg_rundata_build(&rd[i], i < 3 ? a->tree : sp->tree, tg_rules_findings(r)), 0);
			assert_int_equal(tg_rundata_detach(rd[i]), 0);
			assert_int_equal(tg_rundata_compact(rd[i]), 0);
			assert_non_null(tg_rundata_skeleton(rd[i]));
			assert_int_equal(tg_rundata_expand_parts(rd[i], TG_RUNDATA_SKELETON), 0);
			assert_true(tg_rundata_compacted(rd[i])); /* its measures */
		}
		const tg_rundata *bd[2] = {rd[0], rd[1]}, *xd[2] = {rd[2], rd[3]};
		tg_gate_data bs = {.data = bd, .n = 2}, xs = {.data = xd, .n = 2};
		tg_gate_opts o = {.release_data = 1, .expand_measure = expand_held};
		tg_gate *got = NULL;
		compact_expands = 0;
		int rc = tg_gate_run_data(&got, r, &bs, &xs, &o);
		if (compact_fail) {
			assert_int_equal(rc, TG_ENOMEM);
			assert_null(got);
			assert_int_equal(compact_expands, 1);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(compact_expands, 4);
			char *c = gt_gate_render(got);
			assert_string_equal(w, c);
			free(c);
			tg_gate_free(got);
		}
		for (int i = 0; i < 4; i++)
			tg_rundata_free(rd[i]);
	}
	free(w);
	tg_gate_free(want);
	tg_rules_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sdpa_7_blocks),
		cmocka_unit_test(test_sdpa_3_warns),
		cmocka_unit_test(test_identical_passes),
		cmocka_unit_test(test_noise_200_seeds),
		cmocka_unit_test(test_split_attention),
		cmocka_unit_test(test_math_path_attributed),
		cmocka_unit_test(test_extra_op),
		cmocka_unit_test(test_one_step),
		cmocka_unit_test(test_default_workload_judged),
		cmocka_unit_test(test_few_steps_widened),
		cmocka_unit_test(test_gpu_change),
		cmocka_unit_test(test_runtime_and_driver_change),
		cmocka_unit_test(test_world_size_change),
		cmocka_unit_test(test_nothing_to_judge),
		cmocka_unit_test(test_ranks_by_id),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_fdr),
		cmocka_unit_test(test_tflops),
		cmocka_unit_test(test_host_syncs),
		cmocka_unit_test(test_unmatched_rules),
		cmocka_unit_test(test_findings),
		cmocka_unit_test(test_run_data_lean),
		cmocka_unit_test(test_run_data_mixed),
		cmocka_unit_test(test_run_data_compact),
	};
	return cmocka_run_group_tests(tests, NULL, gt_teardown);
}
