/*
 * test_kernel_category.c - the default classification (kernel_category.h):
 * where each kernel's category comes from, on hand-written traces and on
 * the generator's math-SDPA training step, and what the judge says when a
 * rule's category is given by its kernels' names but not by their ops.
 */
#include "testutil.h"
#include "gentrace.h"
#include "judgeutil.h"
#include "../core/trace/categorize.h"
#include "../core/analysis/kernel_categories.h"
#include "../core/models/kernel_names.h"
#include "../rules/rules.h"
#include "../core/models/kernel_category.h"
#include "../core/analysis/launchers.h"
#include "../core/diff/measure.h"

#define EXACT 1e-9

/* A trace of one step: a graph launch replaying a flash forward and an
 * nvjet GEMM; aten::mm launching a kernel named like flash attention (a
 * custom kernel behind a GEMM op); an orphan triton kernel; an NCCL kernel
 * without a launch; a memset. */
static const char graph_trace[] =
	"{\"traceEvents\":["
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"CompiledFunction\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":100,"
	"\"args\":{\"External id\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10,"
	"\"args\":{\"correlation\":7,\"External id\":1}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>(Flash_fwd_params)\","
	"\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":40,\"args\":{\"correlation\":7,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"nvjet_sm90_tst_128x128_64x6_2x4_h_bz_NTT\",\"pid\":0,\"tid\":7,"
	"\"ts\":150,\"dur\":60,\"args\":{\"correlation\":7,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":50,"
	"\"args\":{\"External id\":2}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":210,\"dur\":10,"
	"\"args\":{\"correlation\":8,\"External id\":2}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"my_flash_fwd_kernel\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":30,"
	"\"args\":{\"correlation\":8,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"triton_red_fused_add_mean_mul_pow_rsqrt_0\",\"pid\":0,\"tid\":7,"
	"\"ts\":400,\"dur\":20,\"args\":{\"correlation\":99,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)\","
	"\"pid\":0,\"tid\":9,\"ts\":500,\"dur\":50,\"args\":{\"stream\":9}},"
	"{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":600,\"dur\":5,"
	"\"args\":{\"stream\":7}}"
	"]}";

struct cats {
	tg_trace *t;
	tg_tree *tree;
	tg_launchers *l;
	tg_categorizer *c;
};

static void cats_open(struct cats *x, const char *json)
{
	x->t = tg_test_read_str(json);
	assert_int_equal(tg_tree_build(&x->tree, x->t), 0);
	tg_launchers_opts lo = {.step = -1, .keep_kernels = 1};
	assert_int_equal(tg_launchers_build(&x->l, x->tree, &lo), 0);
	assert_int_equal(tg_categorizer_new(&x->c, x->tree), 0);
}

static void cats_close(struct cats *x)
{
	tg_categorizer_free(x->c);
	tg_launchers_free(x->l);
	tg_tree_free(x->tree);
	tg_trace_free(x->t);
}

/* The category of the device event named name (a prefix). */
static tg_kernel_cat cat_of(struct cats *x, const char *name)
{
	size_t ne, nl;
	const tg_event *ev = tg_trace_events(x->t, &ne);
	const tg_launcher *list = tg_launchers_list(x->l, &nl);
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind) || strncmp(tg_trace_str(x->t, ev[i].name), name, strlen(name)))
			continue;
		uint32_t li = TG_NONE;
		for (size_t k = 0; k < nl && li == TG_NONE; k++) {
			size_t nk;
			const uint32_t *ks = tg_launchers_kernels(x->l, k, &nk);
			for (size_t q = 0; q < nk; q++)
				if (ks[q] == i)
					li = (uint32_t)k;
		}
		tg_kernel_cat kc;
		assert_int_equal(tg_categorizer_kernel(&kc, x->c, (uint32_t)i, li == TG_NONE ? TG_NONE : list[li].event,
		                                       li == TG_NONE ? NULL : tg_launchers_category(x->l, &list[li])),
		                 0);
		return kc;
	}
	fail_msg("no device event %s", name);
	return (tg_kernel_cat){0};
}

static void test_sources(void **state)
{
	(void)state;
	struct cats x;
	cats_open(&x, graph_trace);
	/* a graph replay says nothing: the kernels' names do */
	tg_kernel_cat k = cat_of(&x, "void flash::flash_fwd_kernel");
	assert_string_equal(k.category, "SDPA_fwd");
	assert_int_equal(k.source, TG_CAT_SRC_KERNEL);
	assert_string_equal(k.rule->label, "FlashAttention-2 forward");
	k = cat_of(&x, "nvjet_");
	assert_string_equal(k.category, "GEMM");
	assert_int_equal(k.source, TG_CAT_SRC_KERNEL);
	/* an informative op wins over the name; the name is kept as evidence */
	k = cat_of(&x, "my_flash_fwd_kernel");
	assert_string_equal(k.category, "GEMM");
	assert_int_equal(k.source, TG_CAT_SRC_OP);
	assert_non_null(k.rule);
	assert_string_equal(k.rule->category, "SDPA_fwd");
	/* an orphan inductor kernel: its fused name says RMS norm */
	k = cat_of(&x, "triton_red_fused_add_mean");
	assert_string_equal(k.category, "NORM_fwd");
	assert_int_equal(k.source, TG_CAT_SRC_KERNEL);
	/* no launch: the event itself */
	k = cat_of(&x, "ncclDevKernel");
	assert_string_equal(k.category, "communication");
	assert_int_equal(k.source, TG_CAT_SRC_EVENT);
	k = cat_of(&x, "Memset");
	assert_string_equal(k.category, "memset");
	assert_int_equal(k.source, TG_CAT_SRC_EVENT);
	assert_string_equal(tg_cat_source_name(TG_CAT_SRC_BACKWARD), "backward link");
	assert_string_equal(tg_cat_source_name(TG_CAT_SRC_TREE_DIFF), "tree diff");
	cats_close(&x);
}

/* The report's table: one row per (category, source, evidence). */
static void test_table(void **state)
{
	(void)state;
	struct cats x;
	cats_open(&x, graph_trace);
	tg_table *t = NULL;
	tg_category_totals tot;
	assert_int_equal(tg_kernel_categories_table(&t, &tot, x.tree, x.l, -1), 0);
	assert_int_equal(tot.total_ns, (40 + 60 + 30 + 20 + 50 + 5) * 1000);
	assert_int_equal(tot.unclassified_ns, 0);
	assert_int_equal(tot.by_source_ns[TG_CAT_SRC_KERNEL], (40 + 60 + 20) * 1000);
	assert_int_equal(tot.by_source_ns[TG_CAT_SRC_EVENT], (50 + 5) * 1000);
	assert_int_equal(tot.by_source_ns[TG_CAT_SRC_OP], 30 * 1000);
	assert_int_equal(tg_table_nrows(t), 6);
	/* largest first: the nvjet GEMM */
	assert_string_equal(gt_str(t, 0, "category"), "GEMM");
	assert_string_equal(gt_str(t, 0, "from"), "kernel name");
	assert_string_equal(gt_str(t, 0, "evidence"), "nvjet (cuBLAS)");
	GT_NEAR(tg_test_num(t, 0, "time ms"), 0.060, EXACT);
	GT_NEAR(tg_test_num(t, 0, "percent"), 100.0 * 60 / 205, 1e-9);
	long r = gt_row(t, "evidence", "aten::mm");
	assert_true(r >= 0);
	assert_string_equal(gt_str(t, (size_t)r, "from"), "op");
	tg_table_free(t);
	cats_close(&x);
}

/* A rule that selects nothing is inconclusive and says which kernels its
 * category's names would have matched. */
static void test_judge_name_hint(void **state)
{
	(void)state;
	tg_trace *a = tg_test_read_str(graph_trace), *b = tg_test_read_str(graph_trace);
	tg_tree *ta, *tb;
	assert_int_equal(tg_tree_build(&ta, a), 0);
	assert_int_equal(tg_tree_build(&tb, b), 0);
	const tg_tree *bt[1] = {ta}, *nt[1] = {tb};
	struct judged x;
	judge_trees(&x, bt, 1, nt, 1,
	            "version: 1\n"
	            "rules:\n"
	            "  - name: sdpa-backward\n"
	            "    select: {category: SDPA_bwd}\n"
	            "    metric: kernel_time\n"
	            "    block_above: 5%\n"
	            "  - name: custom-attention\n"
	            "    select: {category: SDPA_fwd, op: aten::mm}\n"
	            "    metric: kernel_time\n"
	            "    block_above: 5%\n"
	            "  - name: sdpa-forward\n"
	            "    select: {category: SDPA_fwd}\n"
	            "    metric: kernel_time\n"
	            "    block_above: 5%\n",
	            NULL);
	const tg_judged *j = item(&x, "sdpa-backward", "");
	assert_int_equal(j->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_true(j->unmatched);
	assert_string_equal(j->note, "matches nothing in either trace");
	j = item(&x, "custom-attention", "");
	assert_int_equal(j->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_true(j->unmatched);
	assert_string_equal(j->note, "matches nothing in either trace: 2 kernels (60.0 us) are named like SDPA_fwd "
	                             "but filed under GEMM by their launching op");
	/* matched, with the evidence of what it did not select */
	j = item(&x, "sdpa-forward", "");
	assert_false(j->unmatched);
	assert_non_null(strstr(j->note, "not selected: 2 kernels (60.0 us) are named like SDPA_fwd but filed under "
	                                "GEMM by their launching op"));
	/* the unmatched rules do not decide the diff's verdict */
	assert_int_equal(tg_judgement_verdict(x.j), j->verdict == TG_VERDICT_INCONCLUSIVE ? TG_VERDICT_INCONCLUSIVE
	                                                                                  : TG_VERDICT_PASS);
	judged_free(&x);
	tg_tree_free(ta);
	tg_tree_free(tb);
	tg_trace_free(a);
	tg_trace_free(b);
}

/* The math SDPA path in training (tg-gen --sdpa-math --train): its forward
 * bmm, softmax, bmm are SDPA_fwd by their enclosing op, and its backward
 * (BmmBackward0, SoftmaxBackward0 on the autograd thread) SDPA_bwd by the
 * backward link; the totals are the generator's ground truth. */
static void test_math_sdpa_backward(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const gt_side *s = gt_trace("--train --steps 4 --sdpa-math 1.0");
	const tg_tree *tr[1] = {s->tree};
	tg_atoms *keys = tg_atoms_new();
	tg_measure *m;
	assert_int_equal(tg_measure_build(&m, tr, 1, keys), 0);
	size_t nk, nu;
	const tg_kernel_rec *k = tg_measure_kernels(m, &nk);
	tg_measure_units(m, &nu);
	double fwd = 0, bwd = 0;
	size_t bmm_bwd = 0, bmm_fwd = 0;
	for (size_t i = 0; i < nk; i++) {
		const char *cat = tg_atoms_str(keys, k[i].category), *op = tg_atoms_str(keys, k[i].op);
		if (!strcmp(cat, "SDPA_fwd"))
			fwd += (double)k[i].dur_ns;
		if (!strcmp(cat, "SDPA_bwd"))
			bwd += (double)k[i].dur_ns;
		if (!strcmp(op, "aten::bmm")) {
			if (!strcmp(cat, "SDPA_bwd")) {
				assert_int_equal(k[i].cat_source, TG_CAT_SRC_BACKWARD);
				bmm_bwd++;
			} else {
				assert_string_equal(cat, "SDPA_fwd");
				assert_int_equal(k[i].cat_source, TG_CAT_SRC_ENCLOSING);
				bmm_fwd++;
			}
			/* the name alone says GEMM: the evidence is kept */
			assert_string_equal(tg_atoms_str(keys, k[i].name_category), "GEMM");
		}
	}
	/* 4 layers x 4 steps: 2 bmm forward, 4 backward per layer */
	assert_int_equal(bmm_fwd, 2 * 4 * 4);
	assert_int_equal(bmm_bwd, 4 * 4 * 4);
	GT_NEAR(fwd / 1e3 / 4, gt_per_step(s, GT_SDPA_FWD_US), 1e-6);
	GT_NEAR(bwd / 1e3 / 4, gt_per_step(s, GT_SDPA_BWD_US), 1e-6);
	tg_measure_free(m);
	tg_atoms_free(keys);
}

/* The kernel-name labels that say attention (FlashAttention, cuDNN SDPA,
 * CK and AITER fMHA, paged, prefill and decode attention of vLLM, SGLang,
 * FlashInfer, TensorRT-LLM, MLA, xformers). */
static int label_says_attention(const char *label)
{
	static const char *const words[] = {"ttention", "fMHA", "MLA", "MMHA", "XQA", "FlashInfer decode",
	                                    "FlashInfer prefill"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(label, words[i]))
			return 1;
	return 0;
}

/* Every attention category the default classification produces is one the
 * default sdpa-forward and sdpa-backward rules select (docs/categories.md):
 * no registered op is InferenceAttention outside --tracelens (the engines'
 * attention ops are SDPA_fwd, their cache writes KV_cache), and every
 * kernel-name rule that says attention files SDPA_fwd or SDPA_bwd. */
static void test_attention_is_judged(void **state)
{
	(void)state;
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	const tg_rule *fwd = tg_rules_find(rules, "sdpa-forward"), *bwd = tg_rules_find(rules, "sdpa-backward");
	assert_non_null(fwd);
	assert_non_null(bwd);
	size_t engine = 0;
	for (size_t i = 0; tg_op_registry_name(i); i++) {
		const char *op = tg_op_registry_name(i), *tl = tg_op_category(op, NULL, 1), *c = tg_op_category(op, NULL, 0);
		if (strcmp(c, "InferenceAttention") == 0)
			fail_msg("%s is InferenceAttention in the default classification", op);
		if (strcmp(tl, "InferenceAttention"))
			continue;
		engine++;
		if (strstr(op, "cache"))
			assert_string_equal(c, "KV_cache");
		else
			assert_true(tg_pattern_match(&fwd->category, c));
	}
	assert_int_equal(engine, 4); /* reshape_and_cache_flash, mha_batch_prefill, store_cache, unified_attention */
	assert_string_equal(tg_op_category("aiter::mha_batch_prefill", NULL, 0), "SDPA_fwd");
	assert_string_equal(tg_op_category("aiter::mha_batch_prefill", NULL, 1), "InferenceAttention");
	size_t attention = 0;
	for (size_t i = 0; i < tg_kernel_name_nrules; i++) {
		const tg_kernel_name_rule *r = &tg_kernel_name_rules[i];
		if (!label_says_attention(r->label) || !strcmp(r->category, "KV_cache"))
			continue; /* a cache write is not attention, whatever its engine */
		attention++;
		if (!tg_pattern_match(&fwd->category, r->category) && !tg_pattern_match(&bwd->category, r->category))
			fail_msg("kernel_names.tsv:%u (%s) files attention under %s, which no default SDPA rule selects",
			         r->line, r->label, r->category);
	}
	assert_true(attention >= 30);
	tg_rules_free(rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_judge_name_hint),
		cmocka_unit_test(test_math_sdpa_backward),
		cmocka_unit_test(test_attention_is_judged),
	};
	return cmocka_run_group_tests(tests, NULL, gt_teardown);
}
