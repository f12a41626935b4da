/*
 * test_judge.c - rules/judge.c on its own: two measures of small generated
 * traces (no tree diff, no attribution) judged under rules given as YAML:
 * the min_delta floor, improvements, the switch between per-step and
 * per-invocation samples at min_samples, exact counts, timeline metrics
 * with too few steps, the summary line, and the order of an each rule's
 * items. Tolerances as in test_gate.c: without noise, factors with two
 * decimals give exact integer nanoseconds, so ratios are exact up to the
 * double arithmetic (1e-9 %).
 */
#include "gentrace.h"

#include "judgeutil.h"

/* Small shapes: attention is 3.2 us a call, far under 20 us a step. */
#define SMALL "--layers 2 --batch 2 --seq 256 --hidden 256 --heads 4"
/* Attention ~400 us a call. */
#define BIG "--steps 8 --seq 4096"
#define EXACT 1e-9

static void judge_with(struct judged *x, const char *base_args, const char *new_args, const char *yaml,
                       const tg_judge_opts *o)
{
	const tg_tree *bt[1] = {gt_trace(base_args)->tree}, *nt[1] = {gt_trace(new_args)->tree};
	judge_trees(x, bt, 1, nt, 1, yaml, o);
}


/* An SDPA rule with the given extra lines (YAML under the rule). */
static const char *sdpa_yaml(char *buf, size_t cap, const char *settings, const char *extra)
{
	snprintf(buf, cap,
	         "version: 1\n%s"
	         "rules:\n"
	         "  - name: sdpa\n"
	         "    select: {category: SDPA_fwd}\n"
	         "    metric: kernel_time\n"
	         "    block_above: 5%%\n"
	         "%s",
	         settings ? settings : "", extra ? extra : "");
	return buf;
}

/* ------------------------------------------------------------ floor */

static void test_min_delta_floor(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	char y[1024];
	struct judged x;
	/* +50 % on 6.4 us a step: 3.2 us, under a 20 us floor */
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 1.5",
	           sdpa_yaml(y, sizeof(y), NULL, "    min_delta: 20us\n"), NULL);
	const tg_judged *s = item(&x, "sdpa", "");
	GT_NEAR(s->base, gt_per_step(gt_trace(SMALL " --steps 8"), GT_SDPA_FWD_US) * 1e3, 1e-6);
	GT_NEAR(s->base, 6400, 1e-6);
	GT_NEAR(s->delta, 3200, 1e-6);
	GT_NEAR(s->pct, 50.0, EXACT);
	GT_NEAR(s->pct_lo, 50.0, EXACT);
	assert_int_equal(s->verdict, TG_VERDICT_PASS);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_PASS);
	judged_free(&x);
	/* no floor: blocks */
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 1.5", sdpa_yaml(y, sizeof(y), NULL, NULL),
	           NULL);
	assert_int_equal(item(&x, "sdpa", "")->verdict, TG_VERDICT_BLOCK);
	judged_free(&x);
	/* "at least min_delta": 3.2 us blocks at a 3.2 us floor, not at 3.3 us */
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 1.5",
	           sdpa_yaml(y, sizeof(y), NULL, "    min_delta: 3200ns\n"), NULL);
	assert_int_equal(item(&x, "sdpa", "")->verdict, TG_VERDICT_BLOCK);
	judged_free(&x);
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 1.5",
	           sdpa_yaml(y, sizeof(y), NULL, "    min_delta: 3.3us\n"), NULL);
	assert_int_equal(item(&x, "sdpa", "")->verdict, TG_VERDICT_PASS);
	judged_free(&x);
}

/* A pass never hides a significant change above a threshold: the floor
 * that holds it is named, with the amounts, in the note and on the verdict
 * line; a floor written as a percent is that share of the base's GPU busy
 * time a step. */
static void test_floor_said(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	char y[1024];
	struct judged x;
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 1.5",
	           sdpa_yaml(y, sizeof(y), NULL, "    min_delta: 20us\n"), NULL);
	const tg_judged *s = item(&x, "sdpa", "");
	assert_int_equal(s->verdict, TG_VERDICT_PASS);
	assert_true(s->held);
	assert_string_equal(s->note, "held under min_delta: 3.2 us a step < 20.0 us; would block: +50.0 % > 5 %");
	assert_non_null(strstr(tg_judgement_summary(x.j), "pass: 1 checks, no regression above the thresholds; sdpa "
	                                                  "+50.0 %: held under min_delta: 3.2 us a step < 20.0 us; "
	                                                  "would block: +50.0 % > 5 %"));
	judged_free(&x);
	/* the base's busy time a step, and 3.2 us as a share of it: a floor
	 * just above holds the change, just below lets it block */
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 1.5", sdpa_yaml(y, sizeof(y), NULL, NULL), NULL);
	size_t nu;
	const tg_unit *u = tg_measure_units(x.b, &nu);
	double busy = 0;
	for (size_t i = 0; i < nu; i++)
		busy += (double)u[i].busy_ns / (double)nu;
	judged_free(&x);
	double share = 100 * 3200 / busy;
	char extra[96];
	snprintf(extra, sizeof(extra), "    min_delta: %.6f%%\n", share * 1.01);
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 1.5", sdpa_yaml(y, sizeof(y), NULL, extra),
	           NULL);
	s = item(&x, "sdpa", "");
	assert_int_equal(s->verdict, TG_VERDICT_PASS);
	char want[256];
	snprintf(want, sizeof(want), "held under min_delta: 3.2 us a step < %.1f us (%g %% of the base's %.3f ms of GPU "
	                             "time a step); would block: +50.0 %% > 5 %%",
	         busy * share * 1.01 / 100 / 1e3, share * 1.01, busy / 1e6);
	assert_string_equal(s->note, want);
	judged_free(&x);
	snprintf(extra, sizeof(extra), "    min_delta: %.6f%%\n", share * 0.99);
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 1.5", sdpa_yaml(y, sizeof(y), NULL, extra),
	           NULL);
	assert_int_equal(item(&x, "sdpa", "")->verdict, TG_VERDICT_BLOCK);
	judged_free(&x);
	/* decide: surely: +3.2 % significant above a 3 % threshold, the lower
	 * bound +2.5 %: said too, not passed in silence */
	judge_with(&x, BIG, BIG " --sdpa-scale 1.04 --seed 2 --noise 2",
	           "version: 1\nrules:\n  - name: sdpa\n    select: {category: SDPA_fwd}\n    metric: kernel_time\n"
	           "    block_above: 3%\n    decide: surely\n",
	           NULL);
	s = item(&x, "sdpa", "");
	assert_int_equal(s->verdict, TG_VERDICT_PASS);
	assert_true(s->held);
	assert_string_equal(s->note, "decide surely: the interval's lower bound +2.5 % is not above 3 %");
	assert_non_null(strstr(tg_judgement_summary(x.j), "; sdpa +3.2 %: decide surely: the interval's lower bound"));
	judged_free(&x);
}

/* The categories no rule selects, over 5 % of a side's kernel time, are
 * named: the generator's elementwise kernels (13.3 %) under the default
 * rules; with an SDPA rule alone, GEMM too; none under a rule of every
 * kernel. */
static void test_not_judged(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	char y[1024];
	struct judged x;
	size_t n;
	judge_with(&x, BIG, BIG " --seed 2", NULL, NULL);
	const tg_not_judged *v = tg_judgement_not_judged(x.j, &n);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].category, "elementwise");
	assert_true(v[0].pct > 13 && v[0].pct < 14);
	judged_free(&x);
	judge_with(&x, BIG, BIG " --seed 2", sdpa_yaml(y, sizeof(y), NULL, NULL), NULL);
	v = tg_judgement_not_judged(x.j, &n);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].category, "GEMM");
	assert_string_equal(v[1].category, "elementwise");
	assert_non_null(strstr(tg_judgement_summary(x.j), "; not judged: GEMM 53 %, elementwise 13 %"));
	judged_free(&x);
	judge_with(&x, BIG, BIG " --seed 2", "version: 1\nrules:\n  - name: all\n    metric: kernel_time\n"
	                                     "    block_above: 5%\n", NULL);
	tg_judgement_not_judged(x.j, &n);
	assert_int_equal(n, 0);
	assert_null(strstr(tg_judgement_summary(x.j), "not judged"));
	judged_free(&x);
}

/* ------------------------------------------------------------ improvement */

static void test_improvement(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	char y[1024];
	struct judged x;
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 0.9", sdpa_yaml(y, sizeof(y), NULL, NULL),
	           NULL);
	const tg_judged *s = item(&x, "sdpa", "");
	GT_NEAR(s->pct, -10.0, EXACT);
	GT_NEAR(s->pct_hi, -10.0, EXACT);
	GT_NEAR(s->delta, -640, 1e-6);
	assert_true(s->improved); /* above the default 1 % */
	assert_int_equal(s->verdict, TG_VERDICT_PASS);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_PASS);
	judged_free(&x);
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 0.9",
	           sdpa_yaml(y, sizeof(y), NULL, "    improvement_below: 15%\n"), NULL);
	s = item(&x, "sdpa", "");
	assert_false(s->improved);
	assert_int_equal(s->verdict, TG_VERDICT_PASS);
	judged_free(&x);
	/* slower is never improved */
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --sdpa-scale 1.5", sdpa_yaml(y, sizeof(y), NULL, NULL),
	           NULL);
	assert_false(item(&x, "sdpa", "")->improved);
	judged_free(&x);
}

/* ------------------------------------------------------------ samples */

static void test_sampling_switch(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	char y[1024];
	struct judged x;
	/* 4 steps, min_samples 5: the 2 x 4 attention calls are the samples */
	judge_with(&x, SMALL " --steps 4", SMALL " --steps 4 --sdpa-scale 1.5", sdpa_yaml(y, sizeof(y), NULL, NULL),
	           NULL);
	const tg_judged *s = item(&x, "sdpa", "");
	assert_int_equal(s->sampling, TG_SAMPLING_INVOCATIONS);
	assert_int_equal(s->nbase, 8);
	assert_int_equal(s->nnext, 8);
	GT_NEAR(s->pct, 50.0, EXACT);
	assert_int_equal(s->verdict, TG_VERDICT_BLOCK);
	judged_free(&x);
	/* 5 steps: the steps */
	judge_with(&x, SMALL " --steps 5", SMALL " --steps 5 --sdpa-scale 1.5", sdpa_yaml(y, sizeof(y), NULL, NULL),
	           NULL);
	s = item(&x, "sdpa", "");
	assert_int_equal(s->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(s->nbase, 5);
	assert_int_equal(s->nnext, 5);
	judged_free(&x);
	/* 4 steps with min_samples 4: the steps */
	judge_with(&x, SMALL " --steps 4", SMALL " --steps 4 --sdpa-scale 1.5",
	           sdpa_yaml(y, sizeof(y), "settings: {min_samples: 4}\n", NULL), NULL);
	s = item(&x, "sdpa", "");
	assert_int_equal(s->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(s->nbase, 4);
	judged_free(&x);
	/* 4 steps with min_samples 9: 8 invocations are too few */
	judge_with(&x, SMALL " --steps 4", SMALL " --steps 4 --sdpa-scale 1.5",
	           sdpa_yaml(y, sizeof(y), "settings: {min_samples: 9}\n", NULL), NULL);
	s = item(&x, "sdpa", "");
	assert_int_equal(s->sampling, TG_SAMPLING_INVOCATIONS);
	assert_int_equal(s->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_string_equal(s->note, "8 and 8 samples, 9 needed");
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_INCONCLUSIVE);
	judged_free(&x);
	/* one side with 4 steps, the other with 8: per invocation, per step values */
	judge_with(&x, SMALL " --steps 4", SMALL " --steps 8 --sdpa-scale 1.5", sdpa_yaml(y, sizeof(y), NULL, NULL),
	           NULL);
	s = item(&x, "sdpa", "");
	assert_int_equal(s->sampling, TG_SAMPLING_INVOCATIONS);
	assert_int_equal(s->nbase, 8);
	assert_int_equal(s->nnext, 16);
	GT_NEAR(s->pct, 50.0, EXACT); /* per step: 6.4 us against 9.6 us */
	judged_free(&x);
}

/* Sides of different lengths (4 and 8 steps, fewer than min_samples on
 * one side: per invocation): the estimate is per step and the p-values
 * compare the invocations as measured, so that no change stays no change. */
static void test_unequal_lengths(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct judged x;
	judge_with(&x, BIG " --steps 4 --jitter 2", BIG " --steps 8 --jitter 2 --seed 5",
	           "version: 1\n"
	           "rules:\n"
	           "  - name: ops\n"
	           "    metric: kernel_time\n"
	           "    aggregate: each\n"
	           "    by: op\n"
	           "    block_above: 0\n",
	           NULL);
	size_t n;
	const tg_judged *v = tg_judgement_items(x.j, &n);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(v[i].sampling, TG_SAMPLING_INVOCATIONS);
		assert_true(fabs(v[i].pct) < 1.5); /* jitter of +-2 % a kernel, no change */
		if (!strcmp(v[i].item, "aten::copy_")) /* one copy a step: 4 and 8 samples */
			continue;
		assert_int_equal(v[i].nnext, 2 * v[i].nbase);
		assert_true(v[i].p_value > 0.01);
		assert_int_not_equal(v[i].verdict, TG_VERDICT_BLOCK);
	}
	judged_free(&x);
	/* a real +10 % on GEMM is found */
	judge_with(&x, BIG " --steps 4 --jitter 2", BIG " --steps 8 --jitter 2 --seed 5 --gemm-scale 1.10",
	           "version: 1\n"
	           "rules:\n"
	           "  - name: ops\n"
	           "    metric: kernel_time\n"
	           "    aggregate: each\n"
	           "    by: op\n"
	           "    block_above: 5%\n",
	           NULL);
	const tg_judged *g = item(&x, "ops", "aten::addmm");
	assert_int_equal(g->verdict, TG_VERDICT_BLOCK);
	GT_NEAR(g->pct, 10.0, 1.0);
	assert_true(g->p_value < 1e-3);
	judged_free(&x);
}

static void test_count_exact(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct judged x;
	judge_with(&x, SMALL " --steps 8", SMALL " --steps 8 --split-attention 1.08",
	           "version: 1\n"
	           "rules:\n"
	           "  - name: sdpa-kernels\n"
	           "    select: {category: SDPA_fwd}\n"
	           "    metric: count\n"
	           "    block_above: 50%\n"
	           "  - name: kernels\n"
	           "    metric: count\n"
	           "    aggregate: each\n"
	           "    by: kernel\n"
	           "    warn_above: 0\n"
	           "    min_delta: 1\n",
	           NULL);
	const tg_judged *c = item(&x, "sdpa-kernels", "");
	assert_int_equal(c->sampling, TG_SAMPLING_EXACT);
	assert_true(c->base == 2 && c->next == 4 && c->delta == 2); /* per step: 2 layers, then 2 kernels each */
	GT_NEAR(c->pct, 100.0, EXACT);
	assert_true(isnan(c->pct_lo));
	assert_int_equal(c->nbase, 16); /* the kernels counted */
	assert_int_equal(c->nnext, 32);
	assert_int_equal(c->verdict, TG_VERDICT_BLOCK);
	/* per kernel: the flash kernel gone, the two split kernels new (warn) */
	size_t n;
	const tg_judged *v = tg_judgement_items(x.j, &n);
	int fresh = 0, gone = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].rule->name, "kernels"))
			continue;
		if (v[i].is_new) {
			fresh++;
			assert_int_equal(v[i].verdict, TG_VERDICT_WARN);
			assert_true(v[i].next == 2);
		} else if (v[i].is_gone) {
			gone++;
			assert_non_null(strstr(v[i].item, "flash_fwd_kernel<"));
			assert_true(v[i].improved);
		} else {
			assert_true(v[i].pct == 0);
			assert_int_equal(v[i].verdict, TG_VERDICT_PASS);
		}
		assert_int_equal(v[i].sampling, TG_SAMPLING_EXACT);
	}
	assert_int_equal(fresh, 2);
	assert_int_equal(gone, 1);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_BLOCK);
	judged_free(&x);
}

/* gpu_idle with too few steps can warn but not block; with enough it blocks. */
static void test_timeline_few_steps(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	static const char idle[] = "version: 1\n"
	                           "rules:\n"
	                           "  - name: idle\n"
	                           "    metric: gpu_idle\n"
	                           "    block_above: 1%\n";
	struct judged x;
	/* blocking .item() calls leave the GPU waiting for the host */
	judge_with(&x, "--steps 2 --seq 4096", "--steps 2 --seq 4096 --host-sync 4", idle, NULL);
	const tg_judged *i = item(&x, "idle", "");
	assert_true(i->pct > 50);
	assert_int_equal(i->verdict, TG_VERDICT_WARN);
	assert_string_equal(i->note, "too few steps to block on this metric");
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_WARN);
	judged_free(&x);
	judge_with(&x, BIG, BIG " --host-sync 4", idle, NULL);
	i = item(&x, "idle", "");
	assert_int_equal(i->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(i->verdict, TG_VERDICT_BLOCK);
	assert_true(i->pct_lo > 50);
	judged_free(&x);
}

/* ------------------------------------------------------------ summary */

static void test_summary_lines(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	char y[1024];
	struct judged x;
	judge_with(&x, BIG, BIG " --sdpa-scale 1.07", NULL, NULL);
	assert_string_equal(tg_judgement_summary(x.j),
	                    "block: sdpa-forward SDPA_fwd kernel_time +7.0 % (95 % CI +7.0..+7.0 %, 8 steps a side) > 5 %; "
	                    "not judged: elementwise 13 %");
	judged_free(&x);
	judge_with(&x, BIG, BIG " --sdpa-scale 1.03", sdpa_yaml(y, sizeof(y), NULL, "    warn_above: 2%\n"), NULL);
	assert_string_equal(tg_judgement_summary(x.j), "warn: sdpa SDPA_fwd kernel_time +3.0 % (95 % CI +3.0..+3.0 %, 8 steps a side) > 2 %"
	                    "; not judged: GEMM 53 %, elementwise 13 %");
	judged_free(&x);
	judge_with(&x, BIG, BIG " --seed 1", NULL, NULL);
	assert_string_equal(tg_judgement_summary(x.j), "pass: 6 checks, no regression above the thresholds"
	                    "; not judged: elementwise 13 %");
	judged_free(&x);
	judge_with(&x, BIG, BIG " --gpu 'NVIDIA A100-SXM4-80GB'", NULL, NULL);
	assert_string_equal(tg_judgement_summary(x.j),
	                    "inconclusive: not comparable (GPU NVIDIA H100 80GB HBM3 -> NVIDIA A100-SXM4-80GB)");
	judged_free(&x);
	judge_with(&x, "--steps 1 --seq 4096 --jitter 1", "--steps 1 --seq 4096 --jitter 1 --sdpa-scale 1.07", NULL, NULL);
	assert_string_equal(tg_judgement_summary(x.j), "inconclusive: sdpa-forward SDPA_fwd: 4 and 4 samples, 5 needed"
	                    "; not judged: elementwise 13 %");
	judged_free(&x);
	/* an accepted item is left out: the next worst is named */
	tg_accept acc = {"sdpa-forward", "intended", NULL};
	tg_judge_opts o = {.accepts = &acc, .n_accepts = 1};
	judge_with(&x, BIG, BIG " --sdpa-scale 1.07", NULL, &o);
	assert_string_equal(tg_judgement_summary(x.j), "warn: gpu-busy gpu_busy +2.1 % (95 % CI +2.1..+2.1 %, 8 steps a side) > 2 %"
	                    "; not judged: elementwise 13 %");
	judged_free(&x);
	/* each rule: the item; new items */
	judge_with(&x, BIG, BIG " --gemm-scale 1.10",
	           "version: 1\n"
	           "rules:\n"
	           "  - name: ops\n"
	           "    metric: kernel_time\n"
	           "    aggregate: each\n"
	           "    by: op\n"
	           "    block_above: 5%\n",
	           NULL);
	assert_string_equal(tg_judgement_summary(x.j),
	                    "block: ops aten::addmm kernel_time +10.0 % (95 % CI +10.0..+10.0 %, 8 steps a side) > 5 %");
	judged_free(&x);
	judge_with(&x, BIG, BIG " --host-sync 2", NULL, NULL);
	assert_string_equal(tg_judgement_summary(x.j), "warn: host-syncs host_syncs is new"
	                    "; not judged: elementwise 13 %");
	judged_free(&x);
	/* names */
	assert_string_equal(tg_verdict_name(TG_VERDICT_PASS), "pass");
	assert_string_equal(tg_verdict_name(TG_VERDICT_WARN), "warn");
	assert_string_equal(tg_verdict_name(TG_VERDICT_INCONCLUSIVE), "inconclusive");
	assert_string_equal(tg_verdict_name(TG_VERDICT_BLOCK), "block");
	assert_string_equal(tg_sampling_name(TG_SAMPLING_STEPS), "steps");
	assert_string_equal(tg_sampling_name(TG_SAMPLING_INVOCATIONS), "invocations");
	assert_string_equal(tg_sampling_name(TG_SAMPLING_EXACT), "exact");
}

/* ------------------------------------------------------------ order */

static void test_each_worst_first(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct judged x;
	judge_with(&x, BIG " --train", BIG " --train --gemm-scale 1.10 --sdpa-scale 1.03 --extra-op aten::gelu",
	           "version: 1\n"
	           "rules:\n"
	           "  - name: total\n"
	           "    metric: kernel_time\n"
	           "    block_above: 50%\n"
	           "  - name: ops\n"
	           "    metric: kernel_time\n"
	           "    aggregate: each\n"
	           "    by: op\n"
	           "    block_above: 5%\n"
	           "    warn_above: 2%\n"
	           "    min_delta: 20us\n",
	           NULL);
	size_t n;
	const tg_judged *v = tg_judgement_items(x.j, &n);
	assert_true(n > 10);
	/* rules in file order: the total first */
	assert_string_equal(v[0].rule->name, "total");
	assert_string_equal(v[0].item, "");
	/* then the ops: by verdict (block, inconclusive, warn, pass), then |delta| */
	for (size_t i = 2; i < n; i++) {
		assert_string_equal(v[i].rule->name, "ops");
		assert_true(v[i - 1].verdict >= v[i].verdict);
		if (v[i - 1].verdict == v[i].verdict)
			assert_true(fabs(v[i - 1].delta) >= fabs(v[i].delta));
	}
	/* the two GEMM ops block, the biggest first; attention +3 % and gelu (new) warn */
	assert_string_equal(v[1].item, fabs(item(&x, "ops", "aten::addmm")->delta) > fabs(item(&x, "ops", "aten::mm")->delta)
	                                   ? "aten::addmm"
	                                   : "aten::mm");
	assert_int_equal(item(&x, "ops", "aten::addmm")->verdict, TG_VERDICT_BLOCK);
	assert_int_equal(item(&x, "ops", "aten::mm")->verdict, TG_VERDICT_BLOCK);
	assert_int_equal(v[3].verdict, TG_VERDICT_WARN);
	assert_int_equal(item(&x, "ops", "aten::_flash_attention_forward")->verdict, TG_VERDICT_WARN);
	assert_int_equal(item(&x, "ops", "aten::_flash_attention_backward")->verdict, TG_VERDICT_WARN);
	assert_int_equal(item(&x, "ops", "aten::gelu")->verdict, TG_VERDICT_WARN);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_BLOCK);
	judged_free(&x);
}

static void test_bad_accept(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct judged x;
	judge_with(&x, BIG, BIG " --seed 1", NULL, NULL);
	tg_accept acc = {"nosuchrule", "x", NULL};
	tg_judge_opts o = {.accepts = &acc, .n_accepts = 1};
	tg_judgement *j = (tg_judgement *)1;
	assert_int_equal(tg_judge(&j, x.rules, x.b, x.n, x.keys, &o), TG_EINVAL);
	assert_null(j);
	assert_string_equal(tg_error_last(), "accept: no rule named 'nosuchrule'");
	judged_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_min_delta_floor),
		cmocka_unit_test(test_floor_said),
		cmocka_unit_test(test_not_judged),
		cmocka_unit_test(test_improvement),
		cmocka_unit_test(test_sampling_switch),
		cmocka_unit_test(test_unequal_lengths),
		cmocka_unit_test(test_count_exact),
		cmocka_unit_test(test_timeline_few_steps),
		cmocka_unit_test(test_summary_lines),
		cmocka_unit_test(test_each_worst_first),
		cmocka_unit_test(test_bad_accept),
	};
	return cmocka_run_group_tests(tests, NULL, gt_teardown);
}
