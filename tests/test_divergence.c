/*
 * test_divergence.c - core/diff/divergence.c on generated pairs of traces: the
 * re-filing of diverging kernel time under the op where the trees diverge
 * (tg_divergence_attribute), the table of divergences and the choice of
 * what to draw. Pairs: attention split into two kernels under the same op,
 * attention on the math path (bmm, softmax, bmm), an op added at the top
 * level, identical traces, and several changes at once. Kernel times are
 * exact integer nanoseconds (no noise): sums compare to 1e-9 us.
 */
#include "gentrace.h"

#include "../core/diff/call_pairs.h"
#include "../core/diff/divergence.h"
#include "../core/models/kernel_category.h"

#include <time.h>

#define BIG "--steps 8 --seq 4096"
#define CALLS (4 * 8) /* attention calls: 4 layers x 8 steps */

struct pair {
	const gt_side *sb, *sn;
	tg_atoms *keys;
	tg_measure *b, *n;
	tg_tree_diff *d;
};

static void pair_open(struct pair *p, const char *base_args, const char *new_args)
{
	memset(p, 0, sizeof(*p));
	p->sb = gt_trace(base_args);
	p->sn = gt_trace(new_args);
	const tg_tree *bt[1] = {p->sb->tree}, *nt[1] = {p->sn->tree};
	p->keys = tg_atoms_new();
	assert_non_null(p->keys);
	assert_int_equal(tg_measure_build(&p->b, bt, 1, p->keys), 0);
	assert_int_equal(tg_measure_build(&p->n, nt, 1, p->keys), 0);
	assert_int_equal(tg_tree_diff_build(&p->d, p->sb->tree, p->sn->tree, NULL), 0);
}

static void pair_close(struct pair *p)
{
	tg_tree_diff_free(p->d);
	tg_measure_free(p->b);
	tg_measure_free(p->n);
	tg_atoms_free(p->keys);
}

static tg_table *table(const struct pair *p, size_t limit)
{
	tg_divergence_pair dp = {p->d, 0, 0};
	tg_table *t = NULL;
	assert_int_equal(tg_divergence_table(&t, &dp, 1, p->b, p->n, p->keys, limit), 0);
	return t;
}

static size_t attribute(struct pair *p)
{
	size_t moved = (size_t)-1;
	assert_int_equal(tg_divergence_attribute(p->b, p->n, p->d, 0, 0, p->keys, &moved), 0);
	return moved;
}

/* Files the kernel records of m whose op is op under category cat, as a
 * classification that sees only the launching op would (the default one
 * sees the enclosing aten::scaled_dot_product_attention and files the math
 * path under SDPA_fwd already): what the tree diff's re-filing is for when
 * no enclosing op tells. */
static void refile_op(tg_atoms *keys, tg_measure *m, const char *op, const char *cat)
{
	uint32_t key;
	assert_int_equal(tg_atoms_intern(&key, keys, cat, strlen(cat)), 0);
	size_t nk;
	tg_kernel_rec *k = tg_measure_kernels_mut(m, &nk);
	for (size_t i = 0; i < nk; i++)
		if (!strcmp(tg_atoms_str(keys, k[i].op), op)) {
			k[i].category = key;
			k[i].cat_source = TG_CAT_SRC_OP;
		}
}

/* Kernel records of m whose op is op: how many, and how many of them in
 * category cat. */
static void count_op(const struct pair *p, const tg_measure *m, const char *op, const char *cat, size_t *n,
                     size_t *in_cat)
{
	size_t nk;
	const tg_kernel_rec *k = tg_measure_kernels(m, &nk);
	*n = *in_cat = 0;
	for (size_t i = 0; i < nk; i++) {
		if (strcmp(tg_atoms_str(p->keys, k[i].op), op))
			continue;
		(*n)++;
		*in_cat += !strcmp(tg_atoms_str(p->keys, k[i].category), cat);
	}
}

static size_t marked(const uint8_t *mask, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += mask[i];
	return c;
}


static void test_columns(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct pair p;
	pair_open(&p, BIG, BIG " --seed 1");
	tg_table *t = table(&p, 0);
	static const char *const cols[] = {"where",     "category", "base kernels", "new kernels", "count",
	                                   "base (us)", "new (us)", "delta (us)",   "delta (%)"};
	assert_string_equal(tg_table_name(t), "diff_by_divergence");
	assert_int_equal(tg_table_ncols(t), 9);
	for (size_t c = 0; c < 9; c++)
		assert_string_equal(tg_table_column(t, c), cols[c]);
	/* identical traces: no divergence, nothing moved, nothing to draw */
	assert_int_equal(tg_table_nrows(t), 0);
	tg_table_free(t);
	size_t nl;
	tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 0);
	assert_int_equal(attribute(&p), 0);
	uint8_t mask[1] = {7};
	size_t kinds = 99;
	assert_int_equal(tg_divergence_pick(mask, p.d, 5, &kinds), 0);
	assert_int_equal(kinds, 0);
	pair_close(&p);
}

static void test_split_attention(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct pair p;
	pair_open(&p, BIG, BIG " --split-attention 1.08");
	double sdpa = gt_per_step(p.sb, GT_SDPA_FWD_US);
	size_t nl;
	const tg_diff_lca *l = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, CALLS);
	for (size_t i = 0; i < nl; i++) {
		assert_int_equal(l[i].nbase, 1);
		assert_int_equal(l[i].nnew, 2);
		/* each LCA holds one call: 1.08 x the flash kernel, to the nanosecond */
		assert_int_equal(l[i].new_sum_ns * 100, l[i].base_sum_ns * 108);
	}
	/* the two new kernels run under the flash op: already SDPA_fwd */
	assert_int_equal(attribute(&p), 0);
	tg_table *t = table(&p, 0);
	assert_int_equal(tg_table_nrows(t), 1);
	assert_string_equal(gt_str(t, 0, "where"), "aten::_flash_attention_forward");
	assert_string_equal(gt_str(t, 0, "category"), "SDPA_fwd");
	const char *bk = gt_str(t, 0, "base kernels"), *nk = gt_str(t, 0, "new kernels");
	assert_true(!strncmp(bk, "void pytorch_flash::flash_fwd_kernel<", 37));
	assert_null(strstr(bk, " + "));
	assert_true(!strncmp(nk, "void pytorch_flash::flash_fwd_splitkv_kernel<", 45));
	assert_non_null(
		strstr(nk, ">(pytorch_flash::Flash_fwd_params) + void pytorch_flash::flash_fwd_splitkv_combine_kernel<"));
	GT_NEAR(tg_test_num(t, 0, "count"), CALLS, 0);
	GT_NEAR(tg_test_num(t, 0, "base (us)"), sdpa, 1e-9);
	GT_NEAR(tg_test_num(t, 0, "new (us)"), sdpa * 1.08, 1e-9);
	GT_NEAR(tg_test_num(t, 0, "delta (us)"), sdpa * 0.08, 1e-9);
	GT_NEAR(tg_test_num(t, 0, "delta (%)"), 8.0, 1e-9);
	tg_table_free(t);
	/* one kind: its first LCA is drawn */
	uint8_t mask[CALLS];
	size_t kinds = 0;
	assert_int_equal(tg_divergence_pick(mask, p.d, 5, &kinds), 0);
	assert_int_equal(kinds, 1);
	assert_int_equal(marked(mask, nl), 1);
	assert_int_equal(mask[0], 1);
	assert_int_equal(tg_divergence_pick(mask, p.d, 0, &kinds), 0);
	assert_int_equal(marked(mask, nl), 0);
	pair_close(&p);
}

static void test_math_path(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct pair p;
	pair_open(&p, BIG, BIG " --sdpa-math 1.08");
	double sdpa = gt_per_step(p.sb, GT_SDPA_FWD_US);
	size_t nl;
	const tg_diff_lca *l = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, CALLS);
	for (size_t i = 0; i < nl; i++) {
		assert_int_equal(l[i].nbase, 1); /* flash */
		assert_int_equal(l[i].nnew, 3);  /* bmm, softmax, bmm */
	}
	/* the default classification files bmm, softmax, bmm under the
	 * enclosing aten::scaled_dot_product_attention: nothing to re-file */
	size_t n, in;
	count_op(&p, p.n, "aten::bmm", "SDPA_fwd", &n, &in);
	assert_int_equal(n, 2 * CALLS);
	assert_int_equal(in, 2 * CALLS);
	tg_table *t = table(&p, 0);
	assert_int_equal(tg_table_nrows(t), 1);
	assert_string_equal(gt_str(t, 0, "category"), "SDPA_fwd");
	tg_table_free(t);
	assert_int_equal(attribute(&p), 0);
	/* filed by their launching ops alone (GEMM, reduce), the tree diff
	 * re-files them under the SDPA op's category */
	refile_op(p.keys, p.n, "aten::bmm", "GEMM");
	refile_op(p.keys, p.n, "aten::_softmax", "reduce");
	/* before: the LCA's kernels are SDPA_fwd on one side, GEMM and reduce on the other */
	t = table(&p, 0);
	assert_int_equal(tg_table_nrows(t), 1);
	assert_string_equal(gt_str(t, 0, "category"), "mixed");
	tg_table_free(t);
	count_op(&p, p.n, "aten::bmm", "GEMM", &n, &in);
	assert_int_equal(n, 2 * CALLS);
	assert_int_equal(in, 2 * CALLS);
	/* bmm, softmax, bmm of every call re-filed under the SDPA op's category */
	assert_int_equal(attribute(&p), 3 * CALLS);
	count_op(&p, p.n, "aten::bmm", "SDPA_fwd", &n, &in);
	assert_int_equal(in, 2 * CALLS); /* the op key is kept: the op tables show the dispatch */
	count_op(&p, p.n, "aten::_softmax", "SDPA_fwd", &n, &in);
	assert_int_equal(n, CALLS);
	assert_int_equal(in, CALLS);
	count_op(&p, p.n, "aten::addmm", "GEMM", &n, &in); /* outside the LCAs: untouched */
	assert_int_equal(n, 4 * 8 * 4);
	assert_int_equal(in, n);
	count_op(&p, p.b, "aten::_flash_attention_forward", "SDPA_fwd", &n, &in);
	assert_int_equal(in, CALLS);
	/* once is enough: a second pass moves nothing */
	assert_int_equal(attribute(&p), 0);
	t = table(&p, 0);
	assert_int_equal(tg_table_nrows(t), 1);
	assert_string_equal(gt_str(t, 0, "where"),
	                    "aten::_scaled_dot_product_flash_attention | aten::_scaled_dot_product_attention_math");
	assert_string_equal(gt_str(t, 0, "category"), "SDPA_fwd");
	assert_true(!strncmp(gt_str(t, 0, "new kernels"),
	                     "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn x2 + void at::native::", 82));
	assert_non_null(strstr(gt_str(t, 0, "new kernels"), "cunn_SoftMaxForward<"));
	GT_NEAR(tg_test_num(t, 0, "count"), CALLS, 0);
	GT_NEAR(tg_test_num(t, 0, "base (us)"), sdpa, 1e-9);
	GT_NEAR(tg_test_num(t, 0, "delta (%)"), 8.0, 1e-9);
	tg_table_free(t);
	pair_close(&p);
}

/* tg_call_pairs_fill (core/diff/call_pairs.c, which searches forward from
 * its last find) against a search of every new record for each base
 * record's matched event: the same pairs, on identical traces, attention on
 * the math path (kernels gone and new), an op added at the top level, and
 * each of them with the base records reversed (every matched event then
 * falls behind the last find instead of rising). */
static void check_pairs(struct pair *p, size_t want_min)
{
	size_t nb, nx;
	tg_kernel_rec *kb = tg_measure_kernels_mut(p->b, &nb), *kx = tg_measure_kernels_mut(p->n, &nx);
	uint32_t *want = malloc((nb + 1) * sizeof(uint32_t));
	uint8_t *taken = calloc(nx + 1, 1);
	assert_non_null(want);
	assert_non_null(taken);
	size_t made = 0;
	for (size_t i = 0; i < nb; i++) {
		want[i] = TG_NONE;
		uint32_t ev = tg_tree_diff_match(p->d, TG_DIFF_SIDE_BASE, kb[i].event);
		for (size_t j = 0; ev != TG_NONE && j < nx; j++)
			if (kx[j].trace == 0 && kx[j].event == ev) {
				if (!taken[j]) {
					want[i] = (uint32_t)j;
					taken[j] = 1;
					made++;
				}
				break;
			}
	}
	for (size_t i = 0; i < nb; i++)
		kb[i].pair = TG_NONE;
	for (size_t j = 0; j < nx; j++)
		kx[j].pair = TG_NONE;
	size_t npaired = 0;
	assert_int_equal(tg_call_pairs_fill(p->b, p->n, p->d, 0, 0, &npaired), 0);
	assert_int_equal(npaired, made);
	assert_true(made >= want_min);
	for (size_t i = 0; i < nb; i++) {
		assert_int_equal(kb[i].pair, want[i]);
		if (want[i] != TG_NONE)
			assert_int_equal(kx[want[i]].pair, i);
	}
	free(want);
	free(taken);
}

static void test_call_pairs(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const char *news[] = {BIG, BIG " --sdpa-math 1.08", BIG " --extra-op aten::gelu"};
	for (size_t k = 0; k < sizeof(news) / sizeof(news[0]); k++) {
		struct pair p;
		pair_open(&p, BIG, news[k]);
		size_t nb;
		tg_measure_kernels(p.b, &nb);
		/* every base kernel paired but the flash attention ones on the math path */
		check_pairs(&p, k == 1 ? nb - CALLS : nb);
		tg_kernel_rec *kb = tg_measure_kernels_mut(p.b, &nb);
		for (size_t i = 0; i < nb / 2; i++) {
			tg_kernel_rec x = kb[i];
			kb[i] = kb[nb - 1 - i];
			kb[nb - 1 - i] = x;
		}
		check_pairs(&p, k == 1 ? nb - CALLS : nb);
		pair_close(&p);
	}
}

static void test_extra_op_top_level(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct pair p;
	pair_open(&p, BIG, BIG " --extra-op aten::gelu");
	double gelu = gt_per_step(p.sn, GT_KERNEL_US) - gt_per_step(p.sb, GT_KERNEL_US);
	size_t nl;
	const tg_diff_lca *l = tg_tree_diff_lcas(p.d, &nl);
	/* ops added between top-level ops: one LCA, the virtual root */
	assert_int_equal(nl, 1);
	assert_int_equal(l[0].node, 0);
	assert_int_equal(l[0].nbase, 0);
	assert_int_equal(l[0].nnew, CALLS);
	/* the root has no category: the kernels keep their own */
	assert_int_equal(attribute(&p), 0);
	size_t n, in;
	count_op(&p, p.n, "aten::gelu", "elementwise", &n, &in);
	assert_int_equal(n, CALLS);
	assert_int_equal(in, CALLS);
	tg_table *t = table(&p, 0);
	assert_int_equal(tg_table_nrows(t), 1);
	assert_string_equal(gt_str(t, 0, "where"), "(top level)");
	assert_string_equal(gt_str(t, 0, "category"), "elementwise");
	assert_string_equal(gt_str(t, 0, "base kernels"), "(none)");
	const char *nk = gt_str(t, 0, "new kernels");
	size_t len = strlen(nk);
	assert_true(!strncmp(nk, "void at::native::vectorized_elementwise_kernel<4, at::native::", 62));
	assert_non_null(strstr(nk, "gelu_kernel_cuda"));
	assert_true(len > 4 && !strcmp(nk + len - 4, " x32"));
	GT_NEAR(tg_test_num(t, 0, "count"), 1, 0);
	GT_NEAR(tg_test_num(t, 0, "base (us)"), 0, 0);
	GT_NEAR(tg_test_num(t, 0, "new (us)"), gelu, 1e-9);
	GT_NEAR(tg_test_num(t, 0, "delta (us)"), gelu, 1e-9);
	assert_true(isnan(tg_test_num(t, 0, "delta (%)"))); /* nothing before: no percent */
	tg_table_free(t);
	uint8_t mask[1] = {0};
	size_t kinds = 0;
	assert_int_equal(tg_divergence_pick(mask, p.d, 5, &kinds), 0);
	assert_int_equal(kinds, 1);
	assert_int_equal(mask[0], 1);
	pair_close(&p);
}

/* Two kinds at once: the table orders them by |delta|, pick draws the kind
 * whose time changed most first. */
static void test_two_kinds(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct pair p;
	pair_open(&p, BIG, BIG " --split-attention 1.08 --extra-op aten::gelu");
	double sdpa = gt_per_step(p.sb, GT_SDPA_FWD_US);
	double gelu = gt_per_step(p.sn, GT_KERNEL_US) - gt_per_step(p.sb, GT_KERNEL_US) - 0.08 * sdpa;
	assert_true(0.08 * sdpa > gelu); /* 126.6 us against 102 us a step */
	size_t nl;
	const tg_diff_lca *l = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, CALLS + 1);
	size_t root = nl;
	for (size_t i = 0; i < nl; i++)
		if (l[i].node == 0)
			root = i;
	assert_true(root < nl);
	assert_int_equal(attribute(&p), 0);
	tg_table *t = table(&p, 0);
	assert_int_equal(tg_table_nrows(t), 2);
	assert_string_equal(gt_str(t, 0, "where"), "aten::_flash_attention_forward");
	GT_NEAR(tg_test_num(t, 0, "delta (us)"), 0.08 * sdpa, 1e-9);
	assert_string_equal(gt_str(t, 1, "where"), "(top level)");
	GT_NEAR(tg_test_num(t, 1, "delta (us)"), gelu, 1e-9);
	tg_table_free(t);
	t = table(&p, 1); /* limit */
	assert_int_equal(tg_table_nrows(t), 1);
	assert_string_equal(gt_str(t, 0, "where"), "aten::_flash_attention_forward");
	tg_table_free(t);
	uint8_t mask[CALLS + 1];
	size_t kinds = 0;
	assert_int_equal(tg_divergence_pick(mask, p.d, 1, &kinds), 0);
	assert_int_equal(kinds, 2);
	assert_int_equal(marked(mask, nl), 1);
	assert_int_equal(mask[root], 0);
	size_t first_split = root == 0 ? 1 : 0; /* the first split LCA in tree order */
	assert_int_equal(mask[first_split], 1);
	assert_int_equal(tg_divergence_pick(mask, p.d, 5, &kinds), 0);
	assert_int_equal(marked(mask, nl), 2);
	assert_int_equal(mask[root], 1);
	assert_int_equal(mask[first_split], 1);
	pair_close(&p);
}

/* Two traces a side (two runs): one diff per pair, one table over both;
 * per-step values stay per step. */
static void test_two_traces_a_side(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const gt_side *b0 = gt_trace(BIG), *b1 = gt_trace(BIG " --seed 2");
	const gt_side *n0 = gt_trace(BIG " --sdpa-math 1.08"), *n1 = gt_trace(BIG " --sdpa-math 1.08 --seed 2");
	const tg_tree *bt[2] = {b0->tree, b1->tree}, *nt[2] = {n0->tree, n1->tree};
	tg_atoms *keys = tg_atoms_new();
	tg_measure *b, *n;
	assert_int_equal(tg_measure_build(&b, bt, 2, keys), 0);
	assert_int_equal(tg_measure_build(&n, nt, 2, keys), 0);
	tg_tree_diff *d[2];
	tg_divergence_pair dp[2];
	size_t total = 0;
	for (uint32_t i = 0; i < 2; i++) {
		assert_int_equal(tg_tree_diff_build(&d[i], bt[i], nt[i], NULL), 0);
		if (i == 0) { /* as a launching-op-only classification files them */
			refile_op(keys, n, "aten::bmm", "GEMM");
			refile_op(keys, n, "aten::_softmax", "reduce");
		}
		size_t moved = 0;
		assert_int_equal(tg_divergence_attribute(b, n, d[i], i, i, keys, &moved), 0);
		assert_int_equal(moved, 3 * CALLS); /* each pair moves its own trace's records */
		total += moved;
		dp[i] = (tg_divergence_pair){d[i], i, i};
	}
	assert_int_equal(total, 6 * CALLS);
	tg_table *t = NULL;
	assert_int_equal(tg_divergence_table(&t, dp, 2, b, n, keys, 0), 0);
	assert_int_equal(tg_table_nrows(t), 1);
	assert_string_equal(gt_str(t, 0, "category"), "SDPA_fwd");
	GT_NEAR(tg_test_num(t, 0, "count"), 2 * CALLS, 0);
	/* kernel times do not depend on the seed: the same per step as one trace */
	GT_NEAR(tg_test_num(t, 0, "base (us)"), gt_per_step(b0, GT_SDPA_FWD_US), 1e-9);
	GT_NEAR(tg_test_num(t, 0, "delta (%)"), 8.0, 1e-9);
	tg_table_free(t);
	for (int i = 0; i < 2; i++)
		tg_tree_diff_free(d[i]);
	tg_measure_free(b);
	tg_measure_free(n);
	tg_atoms_free(keys);
}

/* A trace of n ops under one step, op i ("aten::op_" and i in letters)
 * launching kernel "k_<letters of i>_<suffix>": built in memory. */
static tg_trace *many_ops_trace(size_t n, const char *suffix)
{
	size_t cap = n * 700 + 4096, len = 0;
	char *j = malloc(cap);
	assert_non_null(j);
	len += (size_t)snprintf(j + len, cap - len,
	                        "{\"schemaVersion\": 1, \"traceEvents\": [\n"
	                        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", "
	                        "\"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": %zu, \"args\": {}}",
	                        n * 10 + 10);
	for (size_t i = 0; i < n; i++) {
		char name[16];
		size_t k = 0;
		for (size_t v = i; k == 0 || v; v /= 26)
			name[k++] = (char)('a' + v % 26);
		name[k] = 0;
		size_t ts = 1 + i * 10, c = i + 1;
		len += (size_t)snprintf(
		    j + len, cap - len,
		    ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op_%s\", \"pid\": 1, \"tid\": 1, "
		    "\"ts\": %zu, \"dur\": 8, \"args\": {\"External id\": %zu}}"
		    ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
		    "\"tid\": 1, \"ts\": %zu, \"dur\": 2, \"args\": {\"External id\": %zu, \"correlation\": %zu}}"
		    ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_%s_%s\", \"pid\": 0, \"tid\": 7, "
		    "\"ts\": %zu, \"dur\": 3, \"args\": {\"External id\": %zu, \"correlation\": %zu, \"device\": 0, "
		    "\"stream\": 7}}"
		    ",\n{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": %zu, \"pid\": 1, \"tid\": 1, "
		    "\"ts\": %zu}"
		    ",\n{\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": %zu, \"pid\": 0, \"tid\": 7, "
		    "\"ts\": %zu, \"bp\": \"e\"}",
		    name, ts, c, ts + 1, c, c, name, suffix, ts + 4, c, c, c, ts + 1, c, ts + 4);
		assert_true(len < cap);
	}
	len += (size_t)snprintf(j + len, cap - len, "\n]}\n");
	tg_trace *t = NULL;
	assert_int_equal(tg_trace_read_mem(&t, j, len, "many.json", NULL), 0);
	free(j);
	return t;
}

/* 120,000 points of divergence of 120,000 kinds (every op launches a
 * kernel of another name on the new side): one table row per kind, built
 * in linear time. A linear search per point took minutes here. */
static void test_many_kinds_linear(void **state)
{
	(void)state;
	enum { N = 120000 };
	tg_trace *bt = many_ops_trace(N, "base"), *nt = many_ops_trace(N, "new");
	tg_tree *btree, *ntree;
	assert_int_equal(tg_tree_build(&btree, bt), 0);
	assert_int_equal(tg_tree_build(&ntree, nt), 0);
	const tg_tree *bts[1] = {btree}, *nts[1] = {ntree};
	tg_atoms *keys = tg_atoms_new();
	tg_measure *b, *n;
	assert_int_equal(tg_measure_build(&b, bts, 1, keys), 0);
	assert_int_equal(tg_measure_build(&n, nts, 1, keys), 0);
	tg_tree_diff *d;
	assert_int_equal(tg_tree_diff_build(&d, btree, ntree, NULL), 0);
	size_t nl;
	tg_tree_diff_lcas(d, &nl);
	assert_int_equal(nl, N);
	tg_divergence_pair dp = {d, 0, 0};
	tg_table *t = NULL;
	clock_t c0 = clock();
	assert_int_equal(tg_divergence_table(&t, &dp, 1, b, n, keys, 0), 0);
	double cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
	print_message("divergence table of %d kinds: %.2f s of CPU\n", N, cpu_s);
	assert_true(cpu_s < 10.0);
	assert_int_equal(tg_table_nrows(t), N);
	GT_NEAR(tg_test_num(t, 0, "count"), 1, 0);
	GT_NEAR(tg_test_num(t, N - 1, "count"), 1, 0);
	/* equal deltas: ordered by where */
	assert_string_equal(gt_str(t, 0, "where"), "aten::op_a");
	assert_string_equal(gt_str(t, 0, "base kernels"), "k_a_base");
	assert_string_equal(gt_str(t, 0, "new kernels"), "k_a_new");
	tg_table_free(t);
	tg_tree_diff_free(d);
	tg_measure_free(b);
	tg_measure_free(n);
	tg_atoms_free(keys);
	tg_tree_free(btree);
	tg_tree_free(ntree);
	tg_trace_free(bt);
	tg_trace_free(nt);
}

/* A generated pair of about 120,000 ops a side (108 training steps of 16
 * layers), every attention call split and a gelu added per layer: the
 * table of 1,729 points of divergence, in a small fraction of a second. */
static void test_generated_120k_ops(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	struct pair p;
	pair_open(&p, "--train --steps 108 --layers 16", "--train --steps 108 --layers 16 --split-attention 1.0 --extra-op aten::gelu");
	size_t nev;
	tg_trace_events(tg_tree_trace(p.sb->tree), &nev);
	assert_true(nev > 120000);
	size_t nl;
	tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 108 * 16 + 1); /* each attention call, and the top level */
	clock_t c0 = clock();
	tg_table *t = table(&p, 0);
	double cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
	print_message("divergence table of a 120k-op pair: %.3f s of CPU\n", cpu_s);
	assert_true(cpu_s < 2.0);
	assert_int_equal(tg_table_nrows(t), 2);
	GT_NEAR(tg_test_num(t, 0, "count") + tg_test_num(t, 1, "count"), 108 * 16 + 1, 0);
	tg_table_free(t);
	pair_close(&p);
}

/* Every op of the new side named like the base's in reverse order (tg-gen
 * --distinct-ops N --reverse-ops, issue 21): nearly every kernel of both
 * sides falls under one point of divergence at the top level, whose lists
 * name N distinct kernels each. The row counts each name once, in the
 * order met, and sums every kernel's time; the drawing picks that kind.
 * (The list was a linear search per name: quadratic, 134 s at 120,000
 * ops; make bench times the curve.) */
static void test_reversed_names(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	enum { N = 20000 };
	struct pair p;
	pair_open(&p, "--steps 1 --distinct-ops 20000", "--steps 1 --distinct-ops 20000 --reverse-ops");
	tg_table *t = table(&p, 0);
	assert_int_equal(tg_table_nrows(t), 1);
	assert_string_equal(gt_str(t, 0, "where"), "(top level)");
	const char *bk = gt_str(t, 0, "base kernels"), *nk = gt_str(t, 0, "new kernels");
	assert_true(!strncmp(bk, "kernel_op_0000001 + kernel_op_0000002 + ", 40));
	assert_true(!strncmp(nk, "kernel_op_0020000 + kernel_op_0019999 + ", 40));
	size_t plus_b = 0, plus_n = 0, kb = 0;
	for (const char *q = strstr(bk, " + "); q; q = strstr(q + 3, " + "))
		plus_b++;
	for (const char *q = strstr(nk, " + "); q; q = strstr(q + 3, " + "))
		plus_n++;
	assert_null(strstr(bk, " x2")); /* every name once */
	/* the kernels outside the LCA are matched pairs: the LCA holds the rest */
	size_t nrec;
	tg_measure_kernels(p.b, &nrec);
	assert_int_equal(nrec, N);
	for (size_t i = 0; i < nrec; i++)
		kb += tg_tree_diff_lca_of(p.d, TG_DIFF_SIDE_BASE, tg_measure_kernels(p.b, &nrec)[i].event) != TG_NONE;
	assert_int_equal(plus_b + 1, kb);
	assert_int_equal(plus_n + 1, kb);
	assert_int_equal(kb, N - 3); /* 3 pairs of the same name: the alignment's matches */
	/* base and new times are equal: the same kernels in another order */
	GT_NEAR(tg_test_num(t, 0, "base (us)"), tg_test_num(t, 0, "new (us)"), 1e-6);
	size_t nl;
	tg_tree_diff_lcas(p.d, &nl);
	uint8_t *mask = calloc(nl, 1);
	size_t kinds = 0;
	assert_int_equal(tg_divergence_pick(mask, p.d, 5, &kinds), 0);
	assert_int_equal(kinds, 1);
	assert_int_equal(marked(mask, nl), 1);
	free(mask);
	tg_table_free(t);
	pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_split_attention),
		cmocka_unit_test(test_math_path),
		cmocka_unit_test(test_extra_op_top_level),
		cmocka_unit_test(test_call_pairs),
		cmocka_unit_test(test_two_kinds),
		cmocka_unit_test(test_two_traces_a_side),
		cmocka_unit_test(test_many_kinds_linear),
		cmocka_unit_test(test_generated_120k_ops),
		cmocka_unit_test(test_reversed_names),
	};
	return cmocka_run_group_tests(tests, NULL, gt_teardown);
}
