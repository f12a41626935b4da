/*
 * test_compare.c - measure.c and measure_units.c (one side flattened) and compare.c (two sides
 * aggregated) on the hand-made sample trace, whose numbers are known.
 */
#include "testutil.h"

#include "../core/analysis/timeline.h"
#include "../core/diff/compare.h"
#include "../core/diff/measure.h"
#include "../rules/gate.h"

#include <zlib.h>

struct side {
	tg_trace *t;
	tg_tree *tree;
	tg_measure *m;
};

static void side_open(struct side *s, const char *json, tg_atoms *keys)
{
	s->t = tg_test_read_str(json);
	assert_int_equal(tg_tree_build(&s->tree, s->t), 0);
	const tg_tree *trees[1] = {s->tree};
	assert_int_equal(tg_measure_build(&s->m, trees, 1, keys), 0);
}

static void side_close(struct side *s)
{
	tg_measure_free(s->m);
	tg_tree_free(s->tree);
	tg_trace_free(s->t);
}

static char *sample(void)
{
	size_t len;
	char *s = tg_test_slurp("tests/fixtures/sample.json", &len);
	assert_non_null(s);
	return s;
}

/* Replaces the first occurrence of from by to (same buffer, realloc'd). */
static char *replace(char *s, const char *from, const char *to)
{
	char *p = strstr(s, from);
	assert_non_null(p);
	size_t a = (size_t)(p - s), lf = strlen(from), lt = strlen(to), n = strlen(s);
	char *r = malloc(n - lf + lt + 1);
	memcpy(r, s, a);
	memcpy(r + a, to, lt);
	memcpy(r + a + lt, p + lf, n - a - lf + 1);
	free(s);
	return r;
}

static const tg_kernel_rec *find_kernel(const tg_measure *m, const tg_atoms *keys, const char *name)
{
	size_t n;
	const tg_kernel_rec *k = tg_measure_kernels(m, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tg_atoms_str(keys, k[i].kernel), name))
			return &k[i];
	fail_msg("no kernel %s", name);
	return NULL;
}

static void test_measure_sample(void **state)
{
	(void)state;
	tg_atoms *keys = tg_atoms_new();
	char *json = sample();
	struct side s;
	side_open(&s, json, keys);
	size_t nk, nu, ni;
	tg_measure_kernels(s.m, &nk);
	const tg_unit *u = tg_measure_units(s.m, &nu);
	tg_measure_invocations(s.m, &ni);
	assert_int_equal(nk, 11); /* 10 linked device events and the orphan */
	assert_int_equal(nu, 2);  /* ProfilerStep#1 and #2 */
	assert_int_equal(u[0].step, 1);
	assert_int_equal(u[1].step, 2);
	const tg_kernel_rec *fl = find_kernel(s.m, keys, "flash_fwd_kernel");
	assert_string_equal(tg_atoms_str(keys, fl->category), "SDPA_fwd");
	assert_string_equal(tg_atoms_str(keys, fl->op), "aten::_scaled_dot_product_flash_attention");
	assert_string_equal(tg_atoms_str(keys, fl->module), "Net_0/Attention_0");
	assert_int_equal(fl->dur_ns, 80000);
	assert_int_equal(fl->unit, 0);
	assert_int_equal(tg_measure_rec_stream(s.m, fl), 7);
	const tg_kernel_rec *orphan = find_kernel(s.m, keys, "orphan_kernel");
	assert_int_equal(orphan->inv, TG_NONE);
	assert_string_equal(tg_atoms_str(keys, orphan->op), "(no launcher)");
	const tg_kernel_rec *g = find_kernel(s.m, keys, "gemm_kernel");
	assert_string_equal(tg_atoms_str(keys, g->category), "GEMM");
	assert_string_equal(tg_atoms_str(keys, g->module), "Net_0/Linear_0");
	/* addmm has a perf model: M 64, N 128, K 32 with bias */
	size_t nin;
	const tg_invocation *inv = tg_measure_invocations(s.m, &nin);
	assert_true(g->inv < nin);
	assert_true(fabs(inv[g->inv].flops - 532480.0) < 1e-6);
	const tg_fingerprint *fp = tg_measure_fingerprint(s.m, NULL);
	assert_int_equal(fp->world_size, 1);
	side_close(&s);
	free(json);
	tg_atoms_free(keys);
}

/* The units (measure_units.c): a step's device events grouped once from
 * the trace's list give each step the GPU timeline that the timeline's
 * own scan of that step gives; without steps, one unit of the whole
 * trace, whose timeline is the whole trace's. */
static void test_units_by_step(void **state)
{
	(void)state;
	tg_atoms *keys = tg_atoms_new();
	char *json = sample();
	for (int stepped = 1; stepped >= 0; stepped--) {
		if (!stepped) /* the steps renamed away: no ProfilerStep# annotation left */
			while (strstr(json, "ProfilerStep#"))
				json = replace(json, "ProfilerStep#", "ProfilerTick#");
		struct side s;
		side_open(&s, json, keys);
		size_t nu, ns;
		const tg_unit *u = tg_measure_units(s.m, &nu);
		tg_tree_steps(s.tree, &ns);
		assert_int_equal(nu, stepped ? 2 : 1);
		assert_int_equal(ns, stepped ? 2 : 0);
		for (size_t k = 0; k < nu; k++) {
			tg_timeline_opts to = {.tb = {0}, .step = stepped ? (int32_t)k : -1, .device = -1};
			tg_gpu_timeline tl;
			assert_int_equal(tg_gpu_timeline_compute(&tl, s.tree, &to), 0);
			assert_int_equal(u[k].step, stepped ? (int64_t)k + 1 : -1);
			assert_int_equal(u[k].busy_ns, llround(tl.busy_us * 1000.0));
			assert_int_equal(u[k].idle_ns, llround(tl.idle_us * 1000.0));
			assert_int_equal(u[k].total_ns, llround(tl.total_us * 1000.0));
			assert_int_equal(u[k].comm_ns, llround(tl.total_comm_us * 1000.0));
			assert_true(u[k].busy_ns > 0);
		}
		/* each record's unit is its step's (none here falls outside) */
		size_t nk;
		const tg_kernel_rec *r = tg_measure_kernels(s.m, &nk);
		for (size_t i = 0; i < nk; i++)
			assert_true(r[i].unit == TG_NONE || r[i].unit < nu);
		side_close(&s);
	}
	free(json);
	tg_atoms_free(keys);
}

/* The runtime as people write it; the fingerprint keeps the number. */
static void test_runtime_text(void **state)
{
	(void)state;
	char b[64];
	tg_fingerprint_runtime_text(b, sizeof(b), "CUDA 13000");
	assert_string_equal(b, "CUDA 13.0");
	tg_fingerprint_runtime_text(b, sizeof(b), "CUDA 12040");
	assert_string_equal(b, "CUDA 12.4");
	tg_fingerprint_runtime_text(b, sizeof(b), "CUDA 12090");
	assert_string_equal(b, "CUDA 12.9");
	tg_fingerprint_runtime_text(b, sizeof(b), "HIP 60443483");
	assert_string_equal(b, "HIP 6.4.43483");
	tg_fingerprint_runtime_text(b, sizeof(b), "HIP 60342134");
	assert_string_equal(b, "HIP 6.3.42134");
	tg_fingerprint_runtime_text(b, sizeof(b), "CUDA 12.4"); /* a string: as it is */
	assert_string_equal(b, "CUDA 12.4");
	tg_fingerprint_runtime_text(b, sizeof(b), "unknown");
	assert_string_equal(b, "unknown");
}

static void test_normalize_name(void **state)
{
	(void)state;
	char buf[64];
	tg_measure_normalize_name(buf, sizeof(buf), "k<0x7f3a00ff>(0xDEAD, 0x)");
	assert_string_equal(buf, "k<0x?>(0x?, 0x)");
	assert_int_equal(tg_measure_normalize_name(buf, 4, "abcdef"), 3);
	assert_string_equal(buf, "abc");
}

static const tg_compare_row *row(const tg_compare_row *r, size_t n, const tg_atoms *keys, const char *k)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tg_atoms_str(keys, r[i].key), k))
			return &r[i];
	fail_msg("no row %s", k);
	return NULL;
}

static void test_compare_identical(void **state)
{
	(void)state;
	tg_atoms *keys = tg_atoms_new();
	char *json = sample();
	struct side a, b;
	side_open(&a, json, keys);
	side_open(&b, json, keys);
	for (int by = 0; by < TG_COMPARE_BY_COUNT; by++) {
		tg_compare_row *r;
		size_t n;
		assert_int_equal(tg_compare_rows(&r, &n, a.m, b.m, (tg_compare_by)by), 0);
		assert_true(n > 0);
		for (size_t i = 0; i < n; i++) {
			assert_true(r[i].delta_us == 0);
			assert_false(r[i].is_new || r[i].is_gone);
		}
		free(r);
	}
	side_close(&a);
	side_close(&b);
	free(json);
	tg_atoms_free(keys);
}

/* Keys past the first 64 (the sums grow to them) and records of no key
 * (TG_NONE, a row of their own): each row sums its records, side by side. */
static void test_compare_wide_and_no_keys(void **state)
{
	(void)state;
	tg_atoms *keys = tg_atoms_new();
	char *json = sample();
	struct side a, b;
	side_open(&a, json, keys);
	side_open(&b, json, keys);
	uint32_t far = TG_NONE;
	char name[32];
	for (int i = 0; i < 300; i++) { /* atoms up to about 300: a key far past 64 */
		snprintf(name, sizeof(name), "module_%d", i);
		assert_int_equal(tg_atoms_intern(&far, keys, name, strlen(name)), 0);
	}
	assert_true(far >= 300);
	size_t na, nb, ua, ub;
	tg_kernel_rec *ka = tg_measure_kernels_mut(a.m, &na), *kb = tg_measure_kernels_mut(b.m, &nb);
	tg_measure_units(a.m, &ua);
	tg_measure_units(b.m, &ub);
	assert_true(na >= 3 && nb >= 3);
	for (size_t i = 0; i < na; i++)
		ka[i].module = i == 0 ? far : TG_NONE; /* base: one record under far, the rest under none */
	for (size_t i = 0; i < nb; i++)
		kb[i].module = TG_NONE;
	tg_compare_row *r;
	size_t n;
	assert_int_equal(tg_compare_rows(&r, &n, a.m, b.m, TG_COMPARE_MODULE), 0);
	assert_int_equal(n, 2);
	const tg_compare_row *rf = r[0].key == far ? &r[0] : &r[1], *rn = r[0].key == far ? &r[1] : &r[0];
	assert_int_equal(rf->key, far);
	assert_int_equal(rn->key, TG_NONE);
	assert_true(fabs(rf->base_count * (double)ua - 1) < 1e-9);
	assert_true(rf->new_count == 0);
	assert_true(rf->is_gone && !rf->is_new);
	assert_true(fabs(rn->base_count * (double)ua - (double)(na - 1)) < 1e-9);
	assert_true(fabs(rn->new_count * (double)ub - (double)nb) < 1e-9);
	/* the same trace: every record's time, under one key or the other */
	assert_true(fabs(rf->base_us + rn->base_us - rn->new_us) < 1e-6);
	assert_true(rn->new_us > 0);
	free(r);
	side_close(&a);
	side_close(&b);
	free(json);
	tg_atoms_free(keys);
}

static void test_compare_changed(void **state)
{
	(void)state;
	tg_atoms *keys = tg_atoms_new();
	char *base = sample();
	char *next = replace(strdup(base), "\"flash_fwd_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1160, \"dur\": 80",
	                     "\"flash_fwd_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1160, \"dur\": 88");
	next = replace(next, "\"orphan_kernel\"", "\"orphan_kernel_v2\"");
	struct side a, b;
	side_open(&a, base, keys);
	side_open(&b, next, keys);
	tg_compare_row *r;
	size_t n;
	assert_int_equal(tg_compare_rows(&r, &n, a.m, b.m, TG_COMPARE_CATEGORY), 0);
	const tg_compare_row *sd = row(r, n, keys, "SDPA_fwd");
	/* two steps: per step 80 + 60 (softmax_aux) = 140 us / 2 = 70 us base,
	 * 148 / 2 = 74 us new */
	assert_true(fabs(sd->base_us - 70.0) < 1e-9);
	assert_true(fabs(sd->new_us - 74.0) < 1e-9);
	assert_true(fabs(sd->delta_pct - 100.0 * 4.0 / 70.0) < 1e-9);
	assert_true(fabs(sd->base_count - 1.0) < 1e-12);
	/* the biggest change comes first */
	assert_string_equal(tg_atoms_str(keys, r[0].key), "SDPA_fwd");
	free(r);
	assert_int_equal(tg_compare_rows(&r, &n, a.m, b.m, TG_COMPARE_KERNEL), 0);
	const tg_compare_row *o1 = row(r, n, keys, "orphan_kernel"), *o2 = row(r, n, keys, "orphan_kernel_v2");
	assert_true(o1->is_gone && !o1->is_new);
	assert_true(o2->is_new && !o2->is_gone);
	assert_true(isinf(o2->delta_pct));
	free(r);
	tg_table *t;
	assert_int_equal(tg_compare_table(&t, a.m, b.m, keys, TG_COMPARE_KERNEL, 3), 0);
	assert_string_equal(tg_table_name(t), "diff_by_kernel");
	assert_int_equal(tg_table_nrows(t), 3);
	/* the table is per step like the rules: the orphan kernels ran outside
	 * every step, so they are in no row of it (they were its first rows) */
	assert_string_equal(tg_table_cell(t, 0, 0)->v.s, "flash_fwd_kernel");
	tg_table_free(t);
	assert_int_equal(tg_compare_table(&t, a.m, b.m, keys, TG_COMPARE_KERNEL, 0), 0);
	for (size_t i = 0; i < tg_table_nrows(t); i++)
		assert_null(strstr(tg_table_cell(t, i, 0)->v.s, "orphan_kernel"));
	tg_table_free(t);
	size_t outside;
	int64_t outside_ns;
	tg_compare_outside(&outside, &outside_ns, a.m);
	assert_int_equal(outside, 1);
	assert_true(outside_ns > 0);
	side_close(&a);
	side_close(&b);
	free(base);
	free(next);
	tg_atoms_free(keys);
}

/* Where each category's kernel time came from, in one pass for several
 * (tg_compare_category_froms), as one at a time gives it; a name repeated
 * or unknown. pad: that many keys made before the sample's, so that its
 * categories' keys are past the array the pass looks them up in (a hash
 * map then). */
static void category_froms(uint32_t pad)
{
	tg_atoms *keys = tg_atoms_new();
	char name[32];
	for (uint32_t i = 0; i < pad; i++) {
		uint32_t id;
		snprintf(name, sizeof(name), "pad%u", i);
		assert_int_equal(tg_atoms_intern(&id, keys, name, strlen(name)), 0);
	}
	char *base = sample();
	struct side a, b;
	side_open(&a, base, keys);
	side_open(&b, base, keys);
	tg_compare_row *r;
	size_t n;
	assert_int_equal(tg_compare_rows(&r, &n, a.m, b.m, TG_COMPARE_CATEGORY), 0);
	const char *names[16];
	size_t nn = 0;
	for (size_t i = 0; i < n && nn < 12; i++)
		names[nn++] = tg_atoms_str(keys, r[i].key);
	names[nn++] = "no such category";
	names[nn++] = names[0];
	char froms[16][TG_COMPARE_FROM_CAP], one[TG_COMPARE_FROM_CAP];
	assert_int_equal(tg_compare_category_froms(froms, a.m, b.m, keys, names, nn), 0);
	for (size_t i = 0; i < nn; i++) {
		assert_int_equal(tg_compare_category_from(one, sizeof(one), a.m, b.m, keys, names[i]), 0);
		assert_string_equal(froms[i], one);
		if (!strcmp(names[i], "SDPA_fwd") || !strcmp(names[i], "GEMM"))
			assert_string_equal(froms[i], "op 100 %");
		if (!strcmp(names[i], "other"))
			assert_string_equal(froms[i], "none 100 %");
	}
	assert_int_equal(nn, 7); /* SDPA_fwd, GEMM, other, elementwise, unlinked, unknown, SDPA_fwd */
	assert_true(tg_atoms_find(keys, "SDPA_fwd", 8) >= pad);
	assert_string_equal(froms[nn - 2], "");
	assert_string_equal(froms[nn - 1], froms[0]);
	assert_int_equal(tg_compare_category_froms(froms, a.m, b.m, keys, names, 0), 0);
	free(r);
	side_close(&a);
	side_close(&b);
	free(base);
	tg_atoms_free(keys);
}

static void test_category_froms(void **state)
{
	(void)state;
	category_froms(0);
	category_froms((uint32_t)1 << 20);
}

/* ------------------------------------------------------------ real pairs */

/* Sums of TraceLens's TraceDiff diff_stats.csv (plain or gzip) per
 * (cpu_op_name, source): kernel time (us) and kernel count per side. */
struct ref_op {
	char name[128];
	double us[2];
	long n[2];
};

/* Splits one CSV record (RFC 4180 quotes) into at most max fields, in place. */
static int csv_fields(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;
	while (*p && n < max) {
		if (*p == '"') {
			char *w = ++p;
			f[n++] = w;
			while (*p) {
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
			*w = 0;
			if (*p == ',')
				p++;
		} else {
			f[n++] = p;
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				p++;
			if (*p)
				*p++ = 0;
		}
	}
	return n;
}

static size_t read_diff_stats(struct ref_op *ops, size_t cap, const char *path)
{
	gzFile g = gzopen(path, "rb");
	assert_non_null(g);
	static char line[1 << 16];
	char *f[32];
	size_t n = 0;
	assert_non_null(gzgets(g, line, sizeof(line))); /* header */
	while (gzgets(g, line, sizeof(line))) {
		int nf = csv_fields(line, f, 32);
		assert_true(nf >= 9);
		/* name,cpu_op_name,cpu_op_uid,source,Input Dims,Input Strides,Input type,Concrete Inputs,kernel_time */
		int side = strcmp(f[3], "trace1") ? 1 : 0;
		size_t i = 0;
		while (i < n && strcmp(ops[i].name, f[1]))
			i++;
		if (i == n) {
			assert_true(n < cap);
			memset(&ops[n], 0, sizeof(ops[n]));
			snprintf(ops[n].name, sizeof(ops[n].name), "%s", f[1]);
			n++;
		}
		ops[i].us[side] += strtod(f[8], NULL);
		ops[i].n[side]++;
	}
	gzclose(g);
	return n;
}

static tg_tree *load_tree(tg_trace **tr, const char *path)
{
	assert_int_equal(tg_trace_read_file(tr, path, NULL), 0);
	tg_tree *t = NULL;
	assert_int_equal(tg_tree_build(&t, *tr), 0);
	return t;
}

/* The gate's kernel time per op agrees with TraceDiff's rows summed per
 * cpu op, on both reference pairs (every kernel of these cross-vendor
 * pairs is under a lowest common ancestor, so TraceDiff's rows are all
 * kernels TraceLens links). The default verdict is inconclusive
 * (hardware changed). Ours has one more row, "(no launcher)": kernels
 * TraceLens does not link to an op (docs/tree-diff.md). */
static void check_pair(const char *base, const char *next, const char *ref, size_t want_ops, size_t want_unlinked)
{
	char pb[8192], pn[8192], pr[8192];
	snprintf(pb, sizeof(pb), "%s/tracelens/tests/traces/%s", tg_test_shared_traces(), base);
	snprintf(pn, sizeof(pn), "%s/tracelens/tests/traces/%s", tg_test_shared_traces(), next);
	snprintf(pr, sizeof(pr), "%s/../reference/tracelens/tracediff/%s", tg_test_shared_traces(), ref);
	struct ref_op *ops = calloc(256, sizeof(*ops));
	assert_non_null(ops);
	size_t nops = read_diff_stats(ops, 256, pr);
	assert_int_equal(nops, want_ops);
	tg_trace *tb, *tn;
	tg_tree *b = load_tree(&tb, pb), *n = load_tree(&tn, pn);
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	tg_gate *g;
	assert_int_equal(tg_gate_run(&g, rules, (const tg_tree *const *)&b, 1, (const tg_tree *const *)&n, 1, NULL), 0);
	assert_int_equal(tg_gate_verdict(g), TG_VERDICT_INCONCLUSIVE);
	const char *why;
	assert_false(tg_judgement_comparable(tg_gate_judgement(g), &why));
	assert_non_null(strstr(why, "GPU AMD Instinct MI300X VF -> NVIDIA H100 80GB HBM3"));
	tg_gate_free(g);
	tg_gate_opts o = {.allow_hardware_change = 1};
	assert_int_equal(tg_gate_run(&g, rules, (const tg_tree *const *)&b, 1, (const tg_tree *const *)&n, 1, &o), 0);
	assert_int_not_equal(tg_gate_verdict(g), TG_VERDICT_INCONCLUSIVE);
	tg_compare_row *rows;
	size_t nrows;
	assert_int_equal(tg_compare_rows(&rows, &nrows, tg_gate_base(g), tg_gate_next(g), TG_COMPARE_OP), 0);
	assert_int_equal(nrows, nops + (want_unlinked ? 1 : 0));
	size_t matched = 0;
	for (size_t i = 0; i < nrows; i++) {
		const char *k = tg_atoms_str(tg_gate_keys(g), rows[i].key);
		if (!strcmp(k, "(no launcher)")) {
			assert_true(fabs(rows[i].base_count - (double)want_unlinked) < 1e-9);
			continue;
		}
		size_t j = 0;
		while (j < nops && strcmp(ops[j].name, k))
			j++;
		assert_true(j < nops);
		/* one step per side: per-step values are the totals */
		assert_true(fabs(rows[i].base_us - ops[j].us[0]) <= 1e-3);
		assert_true(fabs(rows[i].new_us - ops[j].us[1]) <= 1e-3);
		assert_true(fabs(rows[i].base_count - (double)ops[j].n[0]) < 1e-9);
		assert_true(fabs(rows[i].new_count - (double)ops[j].n[1]) < 1e-9);
		matched++;
	}
	assert_int_equal(matched, nops);
	free(rows);
	tg_gate_free(g);
	tg_rules_free(rules);
	tg_tree_free(b);
	tg_tree_free(n);
	tg_trace_free(tb);
	tg_trace_free(tn);
	free(ops);
}

static void test_tracediff_timesformer(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	check_pair("mi300/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
	           "h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
	           "timesformer_mi300_vs_h100/diff_stats.csv", 14, 0);
}

static void test_tracediff_qwen(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	check_pair("mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
	           "qwen1.5_mi300_vs_h100/diff_stats.csv.gz", 21, 463);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measure_sample),
		cmocka_unit_test(test_units_by_step),
		cmocka_unit_test(test_normalize_name),
		cmocka_unit_test(test_runtime_text),
		cmocka_unit_test(test_compare_identical),
		cmocka_unit_test(test_compare_changed),
		cmocka_unit_test(test_compare_wide_and_no_keys),
		cmocka_unit_test(test_category_froms),
		cmocka_unit_test(test_tracediff_timesformer),
		cmocka_unit_test(test_tracediff_qwen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
