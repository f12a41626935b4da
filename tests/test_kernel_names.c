/*
 * test_kernel_names.c - the kernel-name table (core/models/kernel_names.tsv) and
 * the default classification it feeds (kernel_category.h):
 *
 *   - the glob matcher;
 *   - every line of the table against the real kernel names it was written
 *     for (tests/fixtures/kernel_names.tsv: "category TAB name TAB where it
 *     was seen"; each name
 *     must get its category, and each rule must be the first match of at
 *     least one real name, so no line is dead or shadowed);
 *   - over every trace under ../shared/traces, the share of GPU kernel time
 *     that nothing classifies ("other", "unlinked"), printed per trace and
 *     asserted at most 5 % on the vLLM, SGLang, torch.compile and h200-dev
 *     traces (docs/categories.md names what remains elsewhere).
 */
#include "testutil.h"
#include "../core/analysis/kernel_categories.h"
#include "../core/models/kernel_category.h"
#include "../core/models/kernel_names.h"
#include "../core/analysis/launchers.h"


static void test_glob(void **state)
{
	(void)state;
	assert_true(tg_glob_match("abc", "abc"));
	assert_false(tg_glob_match("abc", "abcd"));
	assert_true(tg_glob_match("*", ""));
	assert_true(tg_glob_match("*", "anything"));
	assert_true(tg_glob_match("ab*", "abc"));
	assert_false(tg_glob_match("ab*", "xabc"));
	assert_true(tg_glob_match("*bc", "abc"));
	assert_false(tg_glob_match("*bc", "abcd"));
	assert_true(tg_glob_match("*flash*bwd*", "void flash::flash_bwd_kernel<>"));
	assert_false(tg_glob_match("*flash*bwd*", "void flash::flash_fwd_kernel<>"));
	assert_true(tg_glob_match("a*b*c", "a-b-b-c"));
	assert_false(tg_glob_match("a*b*c", "a-c-b"));
	/* pieces may not overlap the anchored start or end */
	assert_false(tg_glob_match("ab*ba", "aba"));
	assert_true(tg_glob_match("ab*ba", "abba"));
	assert_true(tg_glob_match("**x**", "x"));
	assert_true(tg_glob_match("triton_*_fused_*native_layer_norm_backward*",
	                          "triton_per_fused__to_copy_add_native_layer_norm_backward_view_9"));
}

/* The fixture: real kernel names with the category they must get. */
static void test_table_lines(void **state)
{
	(void)state;
	FILE *f = fopen("tests/fixtures/kernel_names.tsv", "r");
	assert_non_null(f);
	size_t *hits = calloc(tg_kernel_name_nrules + 1, sizeof(size_t));
	char line[16384];
	int lineno = 0, names = 0, bad = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		size_t len = strlen(line);
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		char *tab = strchr(line, '\t');
		if (!tab)
			fail_msg("tests/fixtures/kernel_names.tsv:%d: no TAB", lineno);
		*tab = 0;
		const char *want = line;
		char *name = tab + 1, *source = strchr(name, '\t');
		if (source)
			*source = 0; /* the third column says where the name was seen */
		const tg_kernel_name_rule *r = tg_kernel_name_classify(name);
		const char *got = r ? r->category : "other";
		if (strcmp(got, want)) {
			print_error("tests/fixtures/kernel_names.tsv:%d: %s: got %s (kernel_names.tsv:%u), want %s\n",
			            lineno, name, got, r ? r->line : 0, want);
			bad++;
		}
		if (r)
			hits[r - tg_kernel_name_rules]++;
		names++;
	}
	fclose(f);
	int dead = 0;
	for (size_t i = 0; i < tg_kernel_name_nrules; i++)
		if (!hits[i]) {
			print_error("core/models/kernel_names.tsv:%u: '%s' (%s) is the first match of no real name in the fixture\n",
			            tg_kernel_name_rules[i].line, tg_kernel_name_rules[i].pattern,
			            tg_kernel_name_rules[i].category);
			dead++;
		}
	print_message("%d real kernel names, %zu rules\n", names, tg_kernel_name_nrules);
	free(hits);
	assert_int_equal(bad, 0);
	assert_int_equal(dead, 0);
	assert_true(names >= 200);
}

/* The first match by every rule's glob in turn, without the filter. */
static const tg_kernel_name_rule *classify_naive(const char *name)
{
	for (size_t i = 0; i < tg_kernel_name_nrules; i++)
		if (tg_glob_match(tg_kernel_name_rules[i].pattern, name))
			return &tg_kernel_name_rules[i];
	return NULL;
}

/* The filter that skips rules (a pair of bytes of a rule's longest piece
 * missing from the name) never changes the answer: on every real name of
 * the fixture, on every rule's pattern written out (its stars as nothing,
 * as "x", as "*"), on those with their last byte cut, and on names of one
 * or no byte. */
static void test_filter_changes_nothing(void **state)
{
	(void)state;
	FILE *f = fopen("tests/fixtures/kernel_names.tsv", "r");
	assert_non_null(f);
	char line[16384];
	size_t checked = 0, matched = 0;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');
		if (line[0] == '#' || !tab)
			continue;
		char *name = tab + 1;
		name[strcspn(name, "\t\r\n")] = 0;
		const tg_kernel_name_rule *r = tg_kernel_name_classify(name);
		assert_ptr_equal(r, classify_naive(name));
		matched += r != NULL;
		checked++;
	}
	fclose(f);
	static const char *const stars[] = {"", "x", "*"};
	for (size_t i = 0; i < tg_kernel_name_nrules; i++)
		for (size_t s = 0; s < 3; s++) {
			char name[1024];
			size_t n = 0;
			for (const char *p = tg_kernel_name_rules[i].pattern; *p && n + 2 < sizeof(name); p++)
				if (*p != '*')
					name[n++] = *p;
				else if (stars[s][0])
					name[n++] = stars[s][0]; /* "x" or "*": one byte */
			name[n] = 0;
			const tg_kernel_name_rule *r = tg_kernel_name_classify(name);
			assert_ptr_equal(r, classify_naive(name));
			assert_non_null(r); /* a rule's own pattern written out matches it or one before */
			assert_true(r <= &tg_kernel_name_rules[i]);
			if (n) {
				name[n - 1] = 0;
				assert_ptr_equal(tg_kernel_name_classify(name), classify_naive(name));
			}
			checked += 2;
		}
	assert_ptr_equal(tg_kernel_name_classify(""), classify_naive(""));
	assert_ptr_equal(tg_kernel_name_classify("a"), classify_naive("a"));
	assert_null(tg_kernel_name_classify(NULL));
	assert_true(checked > 1000);
	assert_true(matched > 200);
}

/* ------------------------------------------------------------ shared traces */

/* The traces held to the 5 % bar: inference engines (graph replays, custom
 * ops) and torch.compile (CUDA graphs, inductor kernels). */
static int must_classify(const char *path)
{
	return strstr(path, "/inference/vllm_") || strstr(path, "/inference/sglang_") || strstr(path, "h200-dev/") ||
	       strstr(path, "torch_compile");
}

static void test_shared_traces_other_share(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	size_t nfound;
	char **paths = tg_test_shared_trace_files(&nfound);
	size_t prefix = strlen(tg_test_shared_traces()) + 1;
	int checked = 0, failed = 0;
	print_message("unclassified share of GPU kernel time (other + unlinked), default classification:\n");
	for (size_t i = 0; i < nfound; i++) {
		tg_trace *t = NULL;
		tg_tree *tree = NULL;
		tg_launchers *l = NULL;
		tg_table *tab = NULL;
		if (tg_trace_read_file(&t, paths[i], NULL))
			continue; /* a few files under traces/ are not traces */
		assert_int_equal(tg_tree_build(&tree, t), 0);
		tg_launchers_opts lo = {.step = -1};
		assert_int_equal(tg_launchers_build(&l, tree, &lo), 0);
		tg_category_totals tot;
		assert_int_equal(tg_kernel_categories_table(&tab, &tot, tree, l, -1), 0);
		if (tot.total_ns > 0) {
			double share = 100.0 * (double)tot.unclassified_ns / (double)tot.total_ns;
			double by_name = 100.0 * (double)tot.by_source_ns[TG_CAT_SRC_KERNEL] / (double)tot.total_ns;
			int held = must_classify(paths[i]);
			print_message("  %6.2f %%  (%5.1f %% by kernel name)  %s%s\n", share, by_name,
			              paths[i] + prefix, held ? "  [<= 5 %]" : "");
			if (held) {
				checked++;
				if (share > 5.0) {
					print_error("%s: %.2f %% of kernel time unclassified (> 5 %%)\n", paths[i], share);
					failed++;
				}
			}
		}
		tg_table_free(tab);
		tg_launchers_free(l);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
	tg_test_paths_free(paths, nfound);
	assert_int_equal(failed, 0);
	assert_true(checked >= 12); /* 9 h200-dev, 2+ vLLM, 2+ SGLang, torch_compile */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_table_lines),
		cmocka_unit_test(test_filter_changes_nothing),
		cmocka_unit_test(test_shared_traces_other_share),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
