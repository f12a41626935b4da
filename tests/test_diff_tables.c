/*
 * test_diff_tables.c - the computed diff document (rules/diff_tables.c):
 * what tg_gate_run computes once for the renderers is what the computing
 * modules give (the kernel time tables cell for cell, the categories and
 * their origin, the kernels outside every step, the fingerprints and
 * steps), the per-op lists are sorted and picked as the comment and the
 * json show them, with the numbers of a known change (the generator's
 * attention 7 % slower, docs/generator.md), and a document without its
 * tables is refused by every renderer.
 */
#include "gentrace.h"
#include "judgeutil.h"

#include "../core/diff/compare.h"
#include "../render/diff_render.h"
#include "../rules/gate.h"

#include <math.h>

#define BIG "--steps 8 --seq 4096"

static tg_gate *gate_of(const char *base_args, const char *new_args, tg_rules **r)
{
	assert_int_equal(tg_rules_load_default(r), 0);
	const tg_tree *bt[1] = {gt_trace(base_args)->tree}, *nt[1] = {gt_trace(new_args)->tree};
	tg_gate *g = NULL;
	if (tg_gate_run(&g, *r, bt, 1, nt, 1, NULL))
		fail_msg("gate: %s", tg_error_last());
	return g;
}

/* t as its json, into a malloc'd string. */
static char *table_json(const tg_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(tg_table_write_json(t, f), 0);
	fclose(f);
	return buf;
}

/* What the renderers read is what the computing modules give. */
static void check_against_compare(const tg_gate *g, const tg_diff_tables *t)
{
	static const char *names[] = {"category", "op", "op_shape", "kernel", "module"};
	const tg_measure *b = tg_gate_base(g), *x = tg_gate_next(g);
	for (int by = 0; by < TG_DIFF_BY_COUNT; by++) {
		tg_table *want;
		assert_int_equal(tg_compare_table(&want, b, x, tg_gate_keys(g), (tg_compare_by)by, 0), 0);
		char *a = table_json(t->by[by]), *w = table_json(want);
		assert_string_equal(a, w);
		assert_string_equal(t->by_name[by], names[by]);
		free(a);
		free(w);
		tg_table_free(want);
	}
	const tg_measure *m[2] = {b, x};
	for (int s = 0; s < 2; s++) {
		size_t n, c;
		int64_t ns;
		tg_measure_units(m[s], &n);
		assert_int_equal(t->side[s].steps, n);
		assert_ptr_equal(t->side[s].fp, tg_measure_fingerprint(m[s], NULL));
		tg_compare_outside(&c, &ns, m[s]);
		assert_int_equal(t->side[s].outside, c);
		assert_int_equal(t->side[s].outside_ns, ns);
	}
	size_t n;
	tg_judgement_items(tg_gate_judgement(g), &n);
	assert_int_equal(t->nitems, n);
	for (size_t i = 0; i < n; i++) {
		char from[TG_DIFF_FROM_CAP] = "";
		if (t->item_category[i][0])
			assert_int_equal(tg_compare_category_from(from, sizeof(from), b, x, tg_gate_keys(g),
			                                          t->item_category[i]),
			                 0);
		assert_string_equal(t->item_from[i], from);
	}
}

/* Each list by |delta|, largest first, and what it picks. */
static void check_sorted(const tg_judged *const *v, size_t n, int sign)
{
	for (size_t i = 0; i < n; i++) {
		assert_string_not_equal(v[i]->item, "(no launcher)");
		if (sign)
			assert_true(sign > 0 ? v[i]->delta > 0 : v[i]->delta < 0);
		if (i)
			assert_true(fabs(v[i - 1]->delta) >= fabs(v[i]->delta));
	}
}

/* Attention 7 % slower: the tables are compare's, the top significant
 * regression is the attention forward op by its 7 % of the base's
 * per-step time, filed under SDPA_fwd, and offered for replay as the
 * entry above it (all its shapes: no --match). */
static void test_sdpa_slower(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r;
	tg_gate *g = gate_of(BIG, BIG " --sdpa-scale 1.07", &r);
	tg_diff_doc d = tg_gate_doc(g, NULL, 0, NULL, 0, NULL, NULL);
	const tg_diff_tables *t = d.tables;
	assert_non_null(t);
	check_against_compare(g, t);
	assert_int_equal(t->side[0].steps, 8);
	assert_int_equal(t->side[1].steps, 8);
	assert_true(t->nsignificant >= 1);
	check_sorted(t->significant, t->nsignificant, 0);
	check_sorted(t->regressions, t->nregressions, 1);
	check_sorted(t->improvements, t->nimprovements, -1);
	for (size_t i = 0; i < t->nsignificant; i++)
		assert_true(tg_diff_tables_op_significant(t->significant[i]));
	for (size_t i = 0; i < t->nrest; i++)
		assert_false(tg_diff_tables_op_significant(t->rest[i]));
	assert_int_equal(t->nimprovements, 0);
	const tg_judged *top = t->significant[0];
	assert_ptr_equal(top, t->regressions[0]);
	double sdpa = gt_per_step(gt_trace(BIG), GT_SDPA_FWD_US) * 1e3;
	GT_NEAR(top->delta, sdpa * 0.07, 1e-3);
	GT_NEAR(top->pct, 7.0, 1e-6);
	assert_string_equal(tg_diff_tables_op_category(t, top), "SDPA_fwd");
	assert_string_equal(t->replay_op, "aten::_scaled_dot_product_flash_attention");
	assert_string_equal(t->replay_match, "");
	assert_string_equal(tg_diff_tables_op_category(t, NULL), "");
	tg_gate_free(g);
	tg_rules_free(r);
}

/* Nothing moved: nothing significant, nothing to replay, no module
 * subtree to name. */
static void test_identical(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r;
	tg_gate *g = gate_of(BIG, BIG, &r);
	tg_diff_doc d = tg_gate_doc(g, NULL, 0, NULL, 0, NULL, NULL);
	const tg_diff_tables *t = d.tables;
	check_against_compare(g, t);
	assert_int_equal(t->nsignificant, 0);
	assert_int_equal(t->nregressions, 0);
	assert_int_equal(t->nimprovements, 0);
	assert_int_equal(t->nrest, 0);
	assert_null(t->replay_op);
	assert_int_equal(t->modules.n, 0);
	tg_gate_free(g);
	tg_rules_free(r);
}

/* Attention 7 % slower in every layer, with nn.Module frames: the change
 * inside modules is the attention's (110.796 us a step), three of the four
 * blocks hold 75 % of it (83.097 us), but they are most of the model (over
 * 60 % of the kernel time inside modules): no subtree is named. */
static void test_modules(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r;
	tg_gate *g = gate_of(BIG " --python", BIG " --python --sdpa-scale 1.07", &r);
	tg_diff_doc d = tg_gate_doc(g, NULL, 0, NULL, 0, NULL, NULL);
	const tg_diff_tables *t = d.tables;
	check_against_compare(g, t);
	double sdpa = gt_per_step(gt_trace(BIG " --python"), GT_SDPA_FWD_US);
	GT_NEAR(t->modules.change, sdpa * 0.07, 1e-6);
	GT_NEAR(t->modules.change, 110.796, 1e-6);
	GT_NEAR(t->modules.held, 0.75 * t->modules.change, 1e-6);
	GT_NEAR(t->modules.outside_change, 0.0, 1e-9);
	assert_int_equal(t->modules.n, 0);
	tg_gate_free(g);
	tg_rules_free(r);
}

/* GEMMs 10 % slower: the top regression is aten::addmm, which has several
 * shapes: the replay line selects its most regressed one. */
static void test_replay_match(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rules *r;
	tg_gate *g = gate_of(BIG, BIG " --gemm-scale 1.10", &r);
	tg_diff_doc d = tg_gate_doc(g, NULL, 0, NULL, 0, NULL, NULL);
	const tg_diff_tables *t = d.tables;
	check_against_compare(g, t);
	assert_string_equal(t->significant[0]->item, "aten::addmm");
	assert_string_equal(tg_diff_tables_op_category(t, t->significant[0]), "GEMM");
	assert_ptr_equal(t->replay_op, t->significant[0]->item);
	assert_string_equal(t->replay_match,
	                    "^dims=\\(\\(4096,\\), \\(16384, 1024\\), \\(1024, 4096\\), \\(\\), \\(\\)\\) ");
	tg_gate_free(g);
	tg_rules_free(r);
}

/* A document without its tables is refused by each renderer, with a
 * message, and nothing written. */
static void test_without_tables(void **state)
{
	(void)state;
	tg_diff_doc d = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(tg_diff_write_text(f, &d), TG_EINVAL);
	assert_string_equal(tg_error_last(), "a diff document without its tables (diff_tables.h)");
	assert_int_equal(tg_diff_write_md(f, &d, 0), TG_EINVAL);
	assert_int_equal(tg_diff_write_json(f, &d), TG_EINVAL);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
	tg_diff_tables_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sdpa_slower),
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_replay_match),
		cmocka_unit_test(test_without_tables),
	};
	return cmocka_run_group_tests(tests, NULL, gt_teardown);
}
