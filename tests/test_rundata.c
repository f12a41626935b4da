/*
 * test_rundata.c - core/diff/rundata.c and core/diff/skeleton.c: a trace's measures,
 * op skeleton, findings and critical path kept without the trace. What a
 * judgement from stored run data says must be exactly what the judgement
 * from the traces says, so the central test renders the gate both ways
 * (text, md, json: the verdict, the divergences, the findings that are
 * new, worse or gone, how the critical path moved) on pairs that diverge
 * in different ways (a split attention kernel, the math path, an extra
 * op, two ranks a side with a straggler, the sides' traces given in
 * another order, every name in reverse order) and compares the bytes, and
 * a third time with the base side's tree-diff views made beforehand
 * (tg_gate_data.views: what the daemon keeps for a baseline). The same
 * bytes again from built run data made its own (tg_rundata_detach), with
 * only the parts a diff's options need, the noise runs as measures alone,
 * and the gate freeing what it has read: what `tracegate diff` does
 * (cli/diff_load.c); a part the judgement needs and the data lacks is
 * refused. Also:
 * encoding is stable (encode, decode, encode gives the same bytes), run
 * data stored with the kernel records' starts loads and encodes again as
 * today's (test_old_starts), the
 * decoded arrays equal the built ones, and damaged bytes
 * (every truncation, flipped bytes, another format, a limit) are an error,
 * never a crash; a side's measure reserved exactly and fitted holds the
 * records appended to it.
 */
#include "gentrace.h"

#include "../core/diff/rundata.h"
#include "../rules/rules.h"

#include <math.h>
#include <zlib.h>
#include "../render/diff_render.h"
#include "../rules/gate.h"
#include "gate_render.h"

/* Encodes rd and decodes the bytes again into *out; the bytes in *blob
 * (*len), the caller frees them. */
static void round_trip(tg_rundata **out, void **blob, size_t *len, const tg_rundata *rd)
{
	assert_int_equal(tg_rundata_encode(blob, len, rd), 0);
	assert_true(*len > 16);
	assert_int_equal(tg_rundata_decode(out, *blob, *len, 0, "test"), 0);
}

static tg_rundata *decoded(const tg_tree *tree, const tg_findings_opts *fo)
{
	tg_rundata *rd, *back;
	void *blob;
	size_t len;
	assert_int_equal(tg_rundata_build(&rd, tree, fo), 0);
	round_trip(&back, &blob, &len, rd);
	free(blob);
	tg_rundata_free(rd);
	return back;
}

/* Side s of trees t (n) as run data: decoded data in d, names, and the
 * findings across its ranks when the gate needs them (computed from the
 * trees in the order it gives, and through their encoding). */
static void data_side(tg_gate_data *s, tg_rundata **d, const char **names, tg_findings **across, const tg_tree **t,
                      size_t n, const tg_rules *rules)
{
	for (size_t i = 0; i < n; i++) {
		d[i] = decoded(t[i], tg_rules_findings(rules));
		names[i] = tg_trace_name(tg_tree_trace(t[i]));
	}
	*s = (tg_gate_data){(const tg_rundata *const *)d, names, NULL, n, NULL, NULL};
	size_t order[4];
	*across = NULL;
	if (tg_gate_data_across(order, s) != 1)
		return;
	const tg_tree *sorted[4];
	for (size_t i = 0; i < n; i++)
		sorted[i] = t[order[i]];
	tg_findings *f;
	void *blob;
	size_t len;
	assert_int_equal(tg_gate_across(&f, rules, sorted, n), 0);
	assert_int_equal(tg_rundata_across_encode(&blob, &len, f), 0);
	assert_int_equal(tg_rundata_across_decode(across, blob, len, "across"), 0);
	free(blob);
	tg_findings_free(f);
	s->across = *across;
}

/* The gate on base against next (nb and nn traces of generator arguments)
 * from the trees and from decoded run data: the same bytes. */
static void same_verdict(const char *const *bargs, size_t nb, const char *const *nargs, size_t nn)
{
	const tg_tree *bt[4], *nt[4];
	tg_rundata *br[4], *nr[4];
	const char *bnames[4], *nnames[4];
	tg_findings *bacross, *nacross;
	for (size_t i = 0; i < nb; i++)
		bt[i] = gt_trace(bargs[i])->tree;
	for (size_t i = 0; i < nn; i++)
		nt[i] = gt_trace(nargs[i])->tree;
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	tg_gate_data bd, nd;
	data_side(&bd, br, bnames, &bacross, bt, nb, rules);
	data_side(&nd, nr, nnames, &nacross, nt, nn, rules);
	tg_gate *g1, *g2;
	assert_int_equal(tg_gate_run(&g1, rules, bt, nb, nt, nn, NULL), 0);
	assert_int_equal(tg_gate_run_data(&g2, rules, &bd, &nd, NULL), 0);
	/* the base side's views made beforehand: the same bytes again; views
	 * of other run data (another decoding of the same traces) are not
	 * used (their skeletons are not the side's), and the same again */
	tg_tree_diff_side *views[4], *foreign[4];
	tg_rundata *again[4];
	for (size_t i = 0; i < nb; i++) {
		again[i] = decoded(bt[i], tg_rules_findings(rules));
		assert_int_equal(tg_tree_diff_side_new(&views[i], tg_rundata_skeleton(br[i]), NULL), 0);
		assert_int_equal(tg_tree_diff_side_new(&foreign[i], tg_rundata_skeleton(again[i]), NULL), 0);
	}
	tg_gate *g3, *g4;
	bd.views = (const tg_tree_diff_side *const *)views;
	assert_int_equal(tg_gate_run_data(&g3, rules, &bd, &nd, NULL), 0);
	bd.views = (const tg_tree_diff_side *const *)foreign;
	assert_int_equal(tg_gate_run_data(&g4, rules, &bd, &nd, NULL), 0);
	bd.views = NULL;
	char *c = gt_gate_render(g3), *e = gt_gate_render(g4);
	tg_gate_free(g3);
	tg_gate_free(g4);
	for (size_t i = 0; i < nb; i++) {
		tg_tree_diff_side_free(views[i]);
		tg_tree_diff_side_free(foreign[i]);
		tg_rundata_free(again[i]);
	}
	char *a = gt_gate_render(g1), *b = gt_gate_render(g2);
	assert_string_equal(a, c);
	assert_string_equal(a, e);
	free(c);
	free(e);
	assert_true(strlen(a) > 1000);
	assert_non_null(strstr(a, "critical path")); /* the critical paths compared */
	assert_non_null(strstr(a, "\"findings\""));  /* the findings, in the json */
	assert_string_equal(a, b);
	size_t nf;
	const tg_finding *f = tg_findings_list(nacross, &nf);
	for (size_t i = 0; i < nf; i++) /* two ranks: evaluated across them */
		assert_int_not_equal(f[i].status, TG_FINDING_NOT_EVALUATED);
	assert_int_equal(tg_gate_verdict(g1), tg_gate_verdict(g2));
	assert_int_equal(tg_gate_attributed(g1), tg_gate_attributed(g2));
	free(a);
	free(b);
	tg_gate_free(g1);
	tg_gate_free(g2);
	/* a side whose findings across ranks are needed and not given, or
	 * whose data holds findings under other thresholds: refused */
	if (nacross) {
		nd.across = NULL;
		assert_int_equal(tg_gate_run_data(&g2, rules, &bd, &nd, NULL), TG_EINVAL);
		nd.across = nacross;
	}
	tg_rules *other;
	const char *yaml = "version: 1\nfindings:\n  host-sync: {min_cost: 3%}\nrules: []\n";
	assert_int_equal(tg_rules_load_mem(&other, yaml, strlen(yaml), "other"), 0);
	assert_int_equal(tg_gate_run_data(&g2, other, &bd, &nd, NULL), TG_EINVAL);
	tg_rules_free(other);
	tg_rules_free(rules);
	tg_findings_free(bacross);
	tg_findings_free(nacross);
	for (size_t i = 0; i < nb; i++)
		tg_rundata_free(br[i]);
	for (size_t i = 0; i < nn; i++)
		tg_rundata_free(nr[i]);
}

#define SMALL "--steps 3 --layers 2 --seq 512 --train"

static void test_same_verdict_split(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const char *b[] = {SMALL}, *n[] = {SMALL " --split-attention 1.2 --extra-op aten::gelu"};
	same_verdict(b, 1, n, 1);
}

static void test_same_verdict_math(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const char *b[] = {SMALL " --python"}, *n[] = {SMALL " --python --sdpa-math 1.5 --seed 2"};
	same_verdict(b, 1, n, 1);
}

static void test_same_verdict_ranks(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const char *b[] = {SMALL " --ranks 2 --rank 0", SMALL " --ranks 2 --rank 1"};
	const char *n[] = {SMALL " --ranks 2 --rank 0 --gemm-scale 1.1",
	                   SMALL " --ranks 2 --rank 1 --gemm-scale 1.1 --straggler 1 --skew-us 30"};
	same_verdict(b, 2, n, 2);
}

/* The new side's ranks given in the other order: the gate sorts them by
 * rank both ways. */
static void test_same_verdict_rank_order(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const char *b[] = {SMALL " --ranks 2 --rank 0", SMALL " --ranks 2 --rank 1"};
	const char *n[] = {SMALL " --ranks 2 --rank 1 --host-sync 4", SMALL " --ranks 2 --rank 0"};
	same_verdict(b, 2, n, 2);
}

static void test_same_verdict_reversed(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const char *b[] = {"--steps 2 --distinct-ops 3000"}, *n[] = {"--steps 2 --distinct-ops 3000 --reverse-ops"};
	same_verdict(b, 1, n, 1);
}

/* Built run data made its own (tg_rundata_detach) with the parts asked
 * for: its measure no longer names the tree, its skeleton's names are its
 * own; detaching twice changes nothing. */
static tg_rundata *detached(const tg_tree *tree, const tg_rules *rules, unsigned parts)
{
	tg_rundata *rd;
	assert_int_equal(tg_rundata_build_parts(&rd, tree, tg_rules_findings(rules), parts), 0);
	assert_int_equal(tg_rundata_parts(rd), (parts & TG_RUNDATA_ALL) | TG_RUNDATA_MEASURE);
	assert_ptr_equal(tg_measure_tree(tg_rundata_measure(rd), 0), tree);
	/* each node's name as a string, before: the same strings after */
	size_t nn = 0;
	const tg_skeleton *sk = tg_rundata_skeleton(rd);
	const tg_skel_node *x = sk ? tg_skeleton_nodes(sk, &nn) : NULL;
	const char **before = calloc(nn + 1, sizeof(*before));
	assert_non_null(before);
	for (size_t i = 0; i < nn; i++)
		before[i] = tg_atoms_str(tg_skeleton_atoms(sk), x[i].name);
	size_t nsteps, nr1, nr2;
	tg_tree_steps(tree, &nsteps);
	tg_measure_kernels(tg_rundata_measure(rd), &nr1);
	/* detached, the measure is packed: the same bytes encoded, fewer held */
	void *whole = NULL;
	size_t wlen = 0;
	uint64_t held = tg_measure_mem_bytes(tg_rundata_measure(rd));
	if ((parts & TG_RUNDATA_ALL) == TG_RUNDATA_ALL)
		assert_int_equal(tg_rundata_encode(&whole, &wlen, rd), 0);
	assert_int_equal(tg_rundata_detach(rd), 0);
	assert_true(tg_measure_packed(tg_rundata_measure(rd)));
	assert_true(!nr1 || (parts & TG_RUNDATA_PACKED) || tg_measure_mem_bytes(tg_rundata_measure(rd)) < held);
	assert_null(tg_measure_tree(tg_rundata_measure(rd), 0));
	assert_string_equal(tg_measure_trace_name(tg_rundata_measure(rd), 0), "");
	assert_int_equal(tg_measure_trace_steps(tg_rundata_measure(rd), 0), nsteps);
	assert_null(tg_measure_kernels(tg_rundata_measure(rd), &nr2));
	assert_int_equal(nr1, nr2);
	for (size_t i = 0; i < nn; i++) /* the trace's atoms are still alive here */
		assert_string_equal(tg_atoms_str(tg_skeleton_atoms(sk), x[i].name), before[i]);
	assert_true(!sk || tg_atoms_count(tg_skeleton_atoms(sk)) < tg_atoms_count(tg_trace_atoms(tg_tree_trace(tree))));
	free(before);
	assert_int_equal(tg_rundata_detach(rd), 0);
	if (whole) {
		void *packed = NULL;
		size_t plen = 0;
		assert_int_equal(tg_rundata_encode(&packed, &plen, rd), 0);
		assert_int_equal(plen, wlen);
		assert_memory_equal(packed, whole, wlen);
		free(packed);
		free(whole);
	}
	if (parts & TG_RUNDATA_SKELETON)
		assert_ptr_not_equal(tg_skeleton_atoms(tg_rundata_skeleton(rd)), tg_trace_atoms(tg_tree_trace(tree)));
	else
		assert_null(tg_rundata_skeleton(rd));
	if (!(parts & TG_RUNDATA_FINDINGS))
		assert_null(tg_rundata_findings(rd));
	assert_int_equal(tg_rundata_cp(rd)->ok, (parts & TG_RUNDATA_CP) != 0);
	void *blob = NULL;
	size_t len = 0;
	if ((parts & TG_RUNDATA_ALL) != TG_RUNDATA_ALL) /* a part missing: not kept */
		assert_int_equal(tg_rundata_encode(&blob, &len, rd), TG_EINVAL);
	return rd;
}

/* What `tracegate diff` does (cli/diff_load.c): each trace's run data
 * built with the parts o needs, detached, held compact and given back
 * (the base's and the noise run's), the noise run's measures alone
 * (noise_data), the gate freeing what it has read (release_data): the
 * bytes of tg_gate_run on the trees under o. */
static void same_as_trees(const char *bargs, const char *nargs, const char *noise_args, tg_gate_opts o, unsigned parts)
{
	const tg_tree *b = gt_trace(bargs)->tree, *x = gt_trace(nargs)->tree;
	const tg_tree *z = noise_args ? gt_trace(noise_args)->tree : NULL;
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	tg_gate *g1, *g2;
	o.noise = z ? &z : NULL;
	o.nnoise = z ? 1 : 0;
	assert_int_equal(tg_gate_run(&g1, rules, &b, 1, &x, 1, &o), 0);
	/* the base's findings on a second thread while the rest is built */
	tg_rundata *bd = detached(b, rules, parts | TG_RUNDATA_THREADS | TG_RUNDATA_PACKED);
	tg_rundata *xd = detached(x, rules, parts);
	tg_rundata *zd = z ? detached(z, rules, 0) : NULL;
	/* held compact while the next trace is read, given back before the gate */
	assert_int_equal(tg_rundata_compact(bd), 0);
	assert_true(!zd || tg_rundata_compact(zd) == 0);
	assert_int_equal(tg_rundata_expand(bd), 0);
	assert_true(!zd || tg_rundata_expand(zd) == 0);
	const char *bn = tg_trace_name(tg_tree_trace(b)), *xn = tg_trace_name(tg_tree_trace(x));
	const char *zn = z ? tg_trace_name(tg_tree_trace(z)) : NULL;
	tg_gate_data bs = {.data = (const tg_rundata *const *)&bd, .names = &bn, .n = 1};
	tg_gate_data xs = {.data = (const tg_rundata *const *)&xd, .names = &xn, .n = 1};
	tg_gate_data zs = {.data = (const tg_rundata *const *)&zd, .names = &zn, .n = 1};
	tg_gate_opts od = o;
	od.noise = NULL;
	od.nnoise = 0;
	od.noise_data = z ? &zs : NULL;
	od.release_data = 1;
	assert_int_equal(tg_gate_run_data(&g2, rules, &bs, &xs, &od), 0);
	/* what the gate read is gone; the rest stays */
	assert_null(tg_rundata_measure(bd));
	assert_null(tg_rundata_measure(xd));
	assert_null(tg_rundata_skeleton(bd));
	assert_non_null(tg_rundata_findings(xd));
	assert_int_equal(tg_rundata_parts(bd) & (TG_RUNDATA_MEASURE | TG_RUNDATA_SKELETON), 0);
	assert_true(!zd || !tg_rundata_measure(zd));
	void *blob = NULL;
	size_t len = 0;
	assert_int_equal(tg_rundata_encode(&blob, &len, bd), TG_EINVAL);
	char *a = gt_gate_render(g1), *c = gt_gate_render(g2);
	assert_true(strlen(a) > 1000);
	assert_string_equal(a, c);
	assert_int_equal(tg_gate_verdict(g1), tg_gate_verdict(g2));
	free(a);
	free(c);
	tg_gate_free(g1);
	tg_gate_free(g2);
	tg_rundata_free(bd);
	tg_rundata_free(xd);
	tg_rundata_free(zd);
	tg_rules_free(rules);
}

#define SPLIT SMALL " --split-attention 1.2 --extra-op aten::gelu"

static void test_detached_all(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	same_as_trees(SMALL, SPLIT, NULL, (tg_gate_opts){0}, TG_RUNDATA_ALL);
	same_as_trees(SMALL " --python", SMALL " --python --sdpa-math 1.5 --seed 2", NULL, (tg_gate_opts){0},
	              TG_RUNDATA_ALL);
}

/* --no-critical-path and --no-tree-diff: the parts they skip are not
 * built, and the bytes are the trees' under the same options. */
static void test_detached_parts(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	same_as_trees(SMALL, SPLIT, NULL, (tg_gate_opts){.no_critical_path = 1},
	              TG_RUNDATA_FINDINGS | TG_RUNDATA_SKELETON);
	same_as_trees(SMALL, SPLIT, NULL, (tg_gate_opts){.no_tree_diff = 1}, TG_RUNDATA_FINDINGS | TG_RUNDATA_CP);
	same_as_trees(SMALL, SPLIT, NULL, (tg_gate_opts){.no_tree_diff = 1, .no_critical_path = 1},
	              TG_RUNDATA_FINDINGS);
}

/* --noise-from as run data of the measures alone: the widened intervals
 * of the trees' noise run, to the byte. */
static void test_detached_noise(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	same_as_trees(SMALL, SMALL " --gemm-scale 1.04 --seed 4", SMALL " --seed 3 --noise 3", (tg_gate_opts){0},
	              TG_RUNDATA_ALL);
}

/* A part the judgement reads and the data lacks: refused, never judged
 * without it. */
static void test_missing_part(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const tg_tree *b = gt_trace(SMALL)->tree, *x = gt_trace(SPLIT)->tree;
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	const unsigned lack[] = {TG_RUNDATA_CP, TG_RUNDATA_SKELETON, TG_RUNDATA_FINDINGS};
	for (size_t k = 0; k < 3; k++) {
		tg_rundata *bd = detached(b, rules, TG_RUNDATA_ALL & ~lack[k]);
		tg_rundata *xd = detached(x, rules, TG_RUNDATA_ALL);
		tg_gate_data bs = {.data = (const tg_rundata *const *)&bd, .n = 1};
		tg_gate_data xs = {.data = (const tg_rundata *const *)&xd, .n = 1};
		tg_gate *g = NULL;
		assert_int_equal(tg_gate_run_data(&g, rules, &bs, &xs, NULL), TG_EINVAL);
		assert_null(g);
		assert_non_null(strstr(tg_error_last(), "gate: "));
		tg_rundata_free(bd);
		tg_rundata_free(xd);
	}
	tg_rules_free(rules);
}

/* Encoding is stable, and the decoded arrays are the built ones: every
 * record, invocation, unit and skeleton node, keys compared as strings. */
static void test_round_trip(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const gt_side *s = gt_trace(SMALL " --ranks 2 --rank 1");
	tg_rundata *rd, *back, *again;
	void *b1, *b2;
	size_t l1, l2;
	assert_int_equal(tg_rundata_build(&rd, s->tree, NULL), 0);
	round_trip(&back, &b1, &l1, rd);
	round_trip(&again, &b2, &l2, back);
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	const tg_measure *m1 = tg_rundata_measure(rd), *m2 = tg_rundata_measure(back);
	size_t n1, n2;
	const tg_kernel_rec *r1 = tg_measure_kernels(m1, &n1), *r2 = tg_measure_kernels(m2, &n2);
	assert_int_equal(n1, n2);
	assert_true(n1 > 50);
	const tg_atoms *k1 = tg_measure_keys(m1), *k2 = tg_measure_keys(m2);
	for (size_t i = 0; i < n1; i++) {
		assert_string_equal(tg_atoms_str(k1, r1[i].kernel), tg_atoms_str(k2, r2[i].kernel));
		assert_string_equal(tg_atoms_str(k1, r1[i].op_shape), tg_atoms_str(k2, r2[i].op_shape));
		assert_string_equal(tg_atoms_str(k1, r1[i].module), tg_atoms_str(k2, r2[i].module));
		assert_int_equal(r1[i].category, r2[i].category); /* the same numbering */
		assert_int_equal(r1[i].event, r2[i].event);
		assert_int_equal(r1[i].unit, r2[i].unit);
		assert_int_equal(r1[i].inv, r2[i].inv);
		assert_int_equal(r1[i].dur_ns, r2[i].dur_ns);
		assert_int_equal(r1[i].delay_ns, r2[i].delay_ns);
		assert_int_equal(tg_measure_rec_rank(m1, &r1[i]), tg_measure_rec_rank(m2, &r2[i]));
		assert_int_equal(r1[i].cat_source, r2[i].cat_source);
		assert_int_equal(tg_measure_rec_stream(m1, &r1[i]), tg_measure_rec_stream(m2, &r2[i]));
	}
	assert_int_equal(tg_measure_trace_rank(m2, 0), 1);
	const tg_unit *u1 = tg_measure_units(m1, &n1), *u2 = tg_measure_units(m2, &n2);
	assert_int_equal(n1, 3);
	assert_int_equal(n2, 3);
	for (size_t i = 0; i < n1; i++) {
		assert_int_equal(u1[i].step, u2[i].step);
		assert_int_equal(u1[i].busy_ns, u2[i].busy_ns);
		assert_int_equal(u1[i].idle_ns, u2[i].idle_ns);
		assert_int_equal(u1[i].exposed_comm_ns, u2[i].exposed_comm_ns);
		assert_int_equal(u1[i].comm_ns, u2[i].comm_ns);
		assert_int_equal(u1[i].host_syncs, u2[i].host_syncs);
		assert_int_equal(u1[i].peak_memory, u2[i].peak_memory);
	}
	const tg_invocation *i1 = tg_measure_invocations(m1, &n1), *i2 = tg_measure_invocations(m2, &n2);
	assert_int_equal(n1, n2);
	for (size_t i = 0; i < n1; i++) {
		assert_int_equal(i1[i].event, i2[i].event);
		assert_true(i1[i].flops == i2[i].flops || (i1[i].flops != i1[i].flops && i2[i].flops != i2[i].flops));
	}
	const tg_fingerprint *f1 = tg_measure_fingerprint(m1, NULL), *f2 = tg_measure_fingerprint(m2, NULL);
	assert_string_equal(f1->gpu, f2->gpu);
	assert_string_equal(f1->runtime, f2->runtime);
	assert_int_equal(f2->world_size, 2);
	const tg_skel_node *s1 = tg_skeleton_nodes(tg_rundata_skeleton(rd), &n1);
	const tg_skel_node *s2 = tg_skeleton_nodes(tg_rundata_skeleton(back), &n2);
	assert_int_equal(n1, n2);
	for (size_t i = 0; i < n1; i++) {
		assert_int_equal(tg_skeleton_event(tg_rundata_skeleton(rd), i), tg_skeleton_event(tg_rundata_skeleton(back), i));
		assert_int_equal(s1[i].parent, s2[i].parent);
		assert_int_equal(tg_skeleton_ts(tg_rundata_skeleton(rd), i), tg_skeleton_ts(tg_rundata_skeleton(back), i));
		assert_int_equal(s1[i].kind, s2[i].kind);
		assert_string_equal(tg_atoms_str(tg_skeleton_atoms(tg_rundata_skeleton(rd)), s1[i].name),
		                    tg_atoms_str(tg_skeleton_atoms(tg_rundata_skeleton(back)), s2[i].name));
	}
	assert_int_equal(tg_rundata_json_bytes(back), tg_trace_stats_get(s->trace)->json_bytes);
	print_message("run data: %zu bytes for %llu bytes of JSON (%.1f %%), %zu skeleton nodes\n", l1,
	              (unsigned long long)tg_rundata_json_bytes(back),
	              100.0 * (double)l1 / (double)tg_rundata_json_bytes(back), n1);
	assert_true(l1 * 10 < tg_rundata_json_bytes(back));
	free(b1);
	free(b2);
	tg_rundata_free(rd);
	tg_rundata_free(back);
	tg_rundata_free(again);
}

/* Little-endian fixed-width numbers of the raw encoding, as rundata_impl.h
 * reads them. */
static uint64_t raw_get(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void raw_put(uint8_t *p, int bytes, uint64_t v)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The offset of the kernel records' count in a raw encoding: past the
 * trace's header and keys, the units (80 bytes each) and the invocations
 * (24 bytes each). */
static size_t raw_records_at(const uint8_t *raw)
{
	size_t at = 8 + 4 + 8 + 8;
	for (int k = 0; k < 3; k++) /* the fingerprint's strings */
		at += 4 + raw_get(raw + at, 4);
	at += 8; /* world size */
	uint32_t nk = (uint32_t)raw_get(raw + at, 4);
	at += 4;
	for (uint32_t k = 0; k < nk; k++)
		at += 4 + raw_get(raw + at, 4);
	at += 4 + 80 * raw_get(raw + at, 4);
	return at + 4 + 24 * raw_get(raw + at, 4);
}

/* Run data stored before the kernel record dropped its start (and held its
 * stream's number, not an index): the stored bytes carry every record's
 * start, which decoding reads past; they load, and encode again to the
 * bytes of today's encoding but for the starts (0 now), so that they judge
 * the same. The records' streams are stored as numbers, one a 41-bit one
 * that an index table must give back whole. */
static void test_old_starts(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rundata *rd, *old, *back;
	void *blob, *again;
	size_t len, alen;
	assert_int_equal(tg_rundata_build(&rd, gt_trace(SMALL " --ranks 2 --rank 1")->tree, NULL), 0);
	assert_int_equal(tg_rundata_encode(&blob, &len, rd), 0);
	uLongf raw_len = (uLongf)raw_get((uint8_t *)blob + 8, 8), got = raw_len;
	uint8_t *raw = malloc(raw_len), *z = malloc(compressBound(raw_len) + 16);
	assert_int_equal(uncompress(raw, &got, (uint8_t *)blob + 16, (uLong)(len - 16)), Z_OK);
	size_t at = raw_records_at(raw), nr;
	const tg_measure *m = tg_rundata_measure(rd);
	const tg_kernel_rec *r = tg_measure_kernels(m, &nr);
	assert_int_equal(raw_get(raw + at, 4), nr);
	size_t streams7 = 0;
	for (size_t i = 0; i < nr; i++) {
		uint8_t *rec = raw + at + 4 + 69 * i;
		assert_int_equal(raw_get(rec + 32, 4), r[i].event);
		assert_int_equal(raw_get(rec + 36, 8), tg_measure_rec_stream(m, &r[i]));
		assert_int_equal(raw_get(rec + 44, 8), r[i].dur_ns);
		assert_int_equal(raw_get(rec + 60, 8), 0); /* no start written */
		streams7 += tg_measure_rec_stream(m, &r[i]) == 7;
		raw_put(rec + 60, 8, 1000000 + 7 * i); /* an old encoder's starts */
	}
	assert_true(streams7 > 0 && streams7 < nr); /* more than one stream */
	uLongf zl = compressBound(raw_len);
	assert_int_equal(compress2(z + 16, &zl, raw, raw_len, 1), Z_OK);
	memcpy(z, blob, 16);
	assert_int_equal(tg_rundata_decode(&old, z, zl + 16, 0, "old"), 0);
	assert_int_equal(tg_rundata_encode(&again, &alen, old), 0);
	assert_int_equal(alen, len);
	assert_memory_equal(again, blob, len);
	free(again);
	/* a stream number past 32 bits, kept whole */
	raw_put(raw + at + 4 + 36, 8, (uint64_t)1 << 40);
	zl = compressBound(raw_len);
	assert_int_equal(compress2(z + 16, &zl, raw, raw_len, 1), Z_OK);
	assert_int_equal(tg_rundata_decode(&back, z, zl + 16, 0, "wide"), 0);
	const tg_kernel_rec *rb = tg_measure_kernels(tg_rundata_measure(back), &nr);
	assert_int_equal(tg_measure_rec_stream(tg_rundata_measure(back), &rb[0]), (int64_t)1 << 40);
	assert_int_equal(tg_measure_rec_stream(tg_rundata_measure(back), &rb[1]), tg_measure_rec_stream(m, &r[1]));
	assert_int_equal(sizeof(tg_kernel_rec), 64);
	free(raw);
	free(z);
	free(blob);
	tg_rundata_free(rd);
	tg_rundata_free(old);
	tg_rundata_free(back);
}

/* Run data built with TG_RUNDATA_PACKED (what cli/diff_load.c asks for):
 * its measure packed as it is made (tg_measure_build_packed), the same
 * parts, every record and invocation read back as the whole ones, and,
 * detached, the same bytes as run data packed when detached. */
static void test_packed_at_build(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const tg_tree *t = gt_trace(SPLIT)->tree;
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	tg_rundata *a, *b;
	assert_int_equal(tg_rundata_build_parts(&a, t, tg_rules_findings(rules), TG_RUNDATA_ALL), 0);
	assert_int_equal(tg_rundata_build_parts(&b, t, tg_rules_findings(rules), TG_RUNDATA_ALL | TG_RUNDATA_PACKED), 0);
	assert_false(tg_measure_packed(tg_rundata_measure(a)));
	assert_true(tg_measure_packed(tg_rundata_measure(b)));
	assert_int_equal(tg_rundata_parts(b), TG_RUNDATA_ALL | TG_RUNDATA_MEASURE);
	size_t na, nb;
	tg_measure_kernels(tg_rundata_measure(a), &na);
	assert_null(tg_measure_kernels(tg_rundata_measure(b), &nb));
	assert_true(na > 50);
	assert_int_equal(na, nb);
	const tg_measure *ma = tg_rundata_measure(a), *mb = tg_rundata_measure(b);
	for (size_t i = 0; i < na; i++) {
		tg_kernel_rec ra, rb;
		tg_measure_kernel_get(&ra, ma, i);
		tg_measure_kernel_get(&rb, mb, i);
		const uint32_t ka[] = {ra.unit, ra.inv, ra.category, ra.name_category, ra.op, ra.op_shape, ra.kernel,
		                       ra.module, ra.event, ra.stream, ra.trace, ra.cat_source};
		const uint32_t kb[] = {rb.unit, rb.inv, rb.category, rb.name_category, rb.op, rb.op_shape, rb.kernel,
		                       rb.module, rb.event, rb.stream, rb.trace, rb.cat_source};
		assert_memory_equal(ka, kb, sizeof(ka));
		assert_int_equal(ra.dur_ns, rb.dur_ns);
		assert_int_equal(ra.delay_ns, rb.delay_ns);
	}
	size_t nia, nib;
	tg_measure_invocations(ma, &nia);
	assert_null(tg_measure_invocations(mb, &nib));
	assert_int_equal(nia, nib);
	for (size_t i = 0; i < nia; i++) {
		tg_invocation va, vb;
		tg_measure_invocation_get(&va, ma, i);
		tg_measure_invocation_get(&vb, mb, i);
		assert_int_equal(va.event, vb.event);
		assert_int_equal(va.op_shape, vb.op_shape);
		assert_true(va.flops == vb.flops || (isnan(va.flops) && isnan(vb.flops)));
		assert_true(va.bytes == vb.bytes || (isnan(va.bytes) && isnan(vb.bytes)));
	}
	assert_int_equal(tg_rundata_detach(a), 0);
	assert_int_equal(tg_rundata_detach(b), 0);
	assert_int_equal(tg_rundata_mem_bytes(a), tg_rundata_mem_bytes(b));
	void *ea = NULL, *eb = NULL;
	size_t la = 0, lb = 0;
	assert_int_equal(tg_rundata_encode(&ea, &la, a), 0);
	assert_int_equal(tg_rundata_encode(&eb, &lb, b), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(ea, eb, la);
	free(ea);
	free(eb);
	tg_rundata_free(a);
	tg_rundata_free(b);
	tg_rules_free(rules);
}

static int between_calls; /* test_staged: tg_rundata_build_staged's between's calls */

static void count_between(void)
{
	between_calls++;
}

/* tg_rundata_build_staged (what cli/diff_load.c calls, its heap policy
 * between the parts): between called after the measures, after the
 * findings and after the skeleton when they are asked for, the findings
 * threaded or not; the run data the same bytes as tg_rundata_build_parts'. */
static void test_staged(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const tg_tree *t = gt_trace(SPLIT)->tree;
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	const tg_findings_opts *fo = tg_rules_findings(rules);
	tg_rundata *a, *b;
	assert_int_equal(tg_rundata_build_parts(&a, t, fo, TG_RUNDATA_ALL | TG_RUNDATA_PACKED), 0);
	between_calls = 0;
	assert_int_equal(
	        tg_rundata_build_staged(&b, t, fo, TG_RUNDATA_ALL | TG_RUNDATA_PACKED | TG_RUNDATA_THREADS, count_between),
	        0);
	assert_int_equal(between_calls, 3);
	assert_int_equal(tg_rundata_detach(a), 0);
	assert_int_equal(tg_rundata_detach(b), 0);
	void *ea = NULL, *eb = NULL;
	size_t la = 0, lb = 0;
	assert_int_equal(tg_rundata_encode(&ea, &la, a), 0);
	assert_int_equal(tg_rundata_encode(&eb, &lb, b), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(ea, eb, la);
	free(ea);
	free(eb);
	tg_rundata_free(b);
	between_calls = 0; /* no skeleton, findings on this thread: after the measures and the findings */
	assert_int_equal(tg_rundata_build_staged(&b, t, fo, TG_RUNDATA_FINDINGS | TG_RUNDATA_PACKED, count_between), 0);
	assert_int_equal(between_calls, 2);
	assert_null(tg_rundata_skeleton(b));
	tg_rundata_free(b);
	between_calls = 0; /* NULL: nothing to call */
	assert_int_equal(tg_rundata_build_staged(&b, t, fo, TG_RUNDATA_SKELETON, NULL), 0);
	assert_int_equal(between_calls, 0);
	tg_rundata_free(b);
	tg_rundata_free(a);
	tg_rules_free(rules);
}

/* Run data built with TG_RUNDATA_HOLD (what cli/diff_load.c asks for):
 * its measures compact from the start, refused by the encoder until
 * given back, then held and given back by tg_rundata_compact and
 * tg_rundata_expand as any, or given back alone; either way the same
 * bytes as run data built packed; t of at least min_recs records. */
static void hold_at_build_on(const tg_tree *t, size_t min_recs)
{
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	const tg_findings_opts *fo = tg_rules_findings(rules);
	unsigned parts = TG_RUNDATA_ALL | TG_RUNDATA_PACKED | TG_RUNDATA_THREADS;
	tg_rundata *a, *b, *c;
	assert_int_equal(tg_rundata_build_parts(&a, t, fo, parts), 0);
	assert_int_equal(tg_rundata_build_parts(&b, t, fo, parts | TG_RUNDATA_HOLD), 0);
	assert_int_equal(tg_rundata_build_parts(&c, t, fo, parts | TG_RUNDATA_HOLD), 0);
	assert_false(tg_measure_compacted(tg_rundata_measure(a)));
	assert_true(tg_measure_compacted(tg_rundata_measure(b)));
	size_t nrecs;
	tg_measure_kernels(tg_rundata_measure(a), &nrecs);
	assert_true(nrecs >= min_recs);
	assert_non_null(tg_rundata_skeleton(b));
	assert_true(tg_measure_mem_bytes(tg_rundata_measure(b)) < tg_measure_mem_bytes(tg_rundata_measure(a)));
	void *ea = NULL, *eb = NULL, *ec = NULL;
	size_t la = 0, lb = 0, lc = 0;
	assert_int_equal(tg_rundata_encode(&eb, &lb, b), TG_EINVAL);
	assert_null(eb);
	assert_int_equal(tg_rundata_detach(a), 0);
	assert_int_equal(tg_rundata_detach(b), 0);
	assert_int_equal(tg_rundata_detach(c), 0);
	assert_int_equal(tg_rundata_compact(b), 0); /* the skeleton too, as diff holds it */
	assert_true(tg_rundata_compacted(b));
	assert_int_equal(tg_rundata_expand(b), 0);
	assert_int_equal(tg_rundata_expand(c), 0); /* the measures alone */
	assert_false(tg_measure_compacted(tg_rundata_measure(c)));
	assert_int_equal(tg_rundata_encode(&ea, &la, a), 0);
	assert_int_equal(tg_rundata_encode(&eb, &lb, b), 0);
	assert_int_equal(tg_rundata_encode(&ec, &lc, c), 0);
	assert_int_equal(la, lb);
	assert_int_equal(la, lc);
	assert_memory_equal(ea, eb, la);
	assert_memory_equal(ea, ec, la);
	free(ea);
	free(eb);
	free(ec);
	tg_rundata_free(a);
	tg_rundata_free(b);
	tg_rundata_free(c);
	tg_rules_free(rules);
}

static void test_hold_at_build(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	hold_at_build_on(gt_trace(SPLIT)->tree, 1);
	/* rows coded 4096 at a time as they are packed (TG_HOLD_WINDOW):
	 * several windows and a partial last one */
	hold_at_build_on(gt_trace("--steps 24 --layers 24 --seq 512 --train")->tree, 3 * 4096 + 1);
}

/* Detached run data held compact (what `tracegate diff` does while the
 * next trace is read) and given back: the same stored bytes before and
 * after (format 2 unchanged), its skeleton's nodes and its measure in
 * under a third of their bytes while compact (a small trace: a quarter
 * at 100 MB, docs/scale.md), refused by the encoder while
 * compact; data not detached, or decoded, is not compacted (TG_EINVAL). */
static void test_compact(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const tg_tree *t = gt_trace(SMALL " --steps 6")->tree;
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	tg_rundata *rd, *back;
	assert_int_equal(tg_rundata_build_parts(&rd, t, tg_rules_findings(rules), TG_RUNDATA_ALL | TG_RUNDATA_PACKED), 0);
	assert_int_equal(tg_rundata_compact(rd), TG_EINVAL); /* still borrows the tree */
	assert_int_equal(tg_rundata_detach(rd), 0);
	void *before = NULL, *after = NULL, *none = NULL;
	size_t lb = 0, la = 0, ln = 0;
	assert_int_equal(tg_rundata_encode(&before, &lb, rd), 0);
	uint64_t whole = tg_rundata_mem_bytes(rd), wm = tg_measure_mem_bytes(tg_rundata_measure(rd));
	size_t nn;
	tg_skeleton_nodes(tg_rundata_skeleton(rd), &nn);
	assert_true(nn > 1000);
	assert_false(tg_rundata_compacted(rd));
	assert_int_equal(tg_rundata_compact(rd), 0);
	assert_true(tg_rundata_compacted(rd));
	uint64_t held = tg_rundata_mem_bytes(rd), hsk = tg_skeleton_mem_bytes(tg_rundata_skeleton(rd));
	uint64_t hm = tg_measure_mem_bytes(tg_rundata_measure(rd));
	assert_true(hsk * 3 < nn * sizeof(tg_skel_node)); /* 16 bytes a node: under 5.3 held */
	assert_true(hm * 3 < wm);
	assert_int_equal(held, whole - nn * sizeof(tg_skel_node) - wm + hsk + hm); /* nothing else moved */
	assert_int_equal(tg_rundata_encode(&none, &ln, rd), TG_EINVAL);
	assert_null(none);
	assert_non_null(tg_rundata_findings(rd)); /* what is not held coded reads as before */
	assert_true(tg_rundata_cp(rd)->ok);
	assert_int_equal(tg_rundata_expand(rd), 0);
	assert_false(tg_rundata_compacted(rd));
	assert_int_equal(tg_rundata_mem_bytes(rd), whole);
	assert_int_equal(tg_rundata_encode(&after, &la, rd), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(after, before, lb);
	assert_int_equal(tg_rundata_decode(&back, before, lb, 0, "test"), 0);
	assert_int_equal(tg_rundata_compact(back), TG_EINVAL); /* decoded: not packed */
	assert_int_equal(tg_rundata_expand(back), 0);       /* not compact: as it is */
	free(before);
	free(after);
	tg_rundata_free(back);
	assert_int_equal(tg_rundata_compact(rd), 0);
	tg_rundata_free(rd); /* compact: freed as it is */
	tg_rules_free(rules);
}

/* Every shared trace's run data (the skeleton and the measures: what is
 * held compact) held and given back: the same skeleton nodes and the
 * same records and invocations, byte for byte; fewer bytes from 100 nodes
 * up (29-39 % from 10,000 nodes, up to 69 % on the small traces), under a
 * third on the h200-dev runs. */
static void test_compact_shared(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	size_t nfound;
	char **paths = tg_test_shared_trace_files(&nfound);
	int checked = 0;
	for (size_t i = 0; i < nfound; i++) {
		tg_trace *t = NULL;
		tg_tree *tree = NULL;
		if (tg_trace_read_file(&t, paths[i], NULL))
			continue; /* a few files under traces/ are not traces */
		assert_int_equal(tg_tree_build(&tree, t), 0);
		tg_rundata *rd;
		assert_int_equal(tg_rundata_build_parts(&rd, tree, NULL, TG_RUNDATA_SKELETON | TG_RUNDATA_PACKED), 0);
		assert_int_equal(tg_rundata_detach(rd), 0);
		tg_tree_free(tree);
		tg_trace_free(t);
		const tg_skeleton *sk = tg_rundata_skeleton(rd);
		const tg_measure *m = tg_rundata_measure(rd);
		size_t nn, nr, ni;
		const tg_skel_node *x = tg_skeleton_nodes(sk, &nn);
		tg_measure_kernels(m, &nr);
		tg_measure_invocations(m, &ni);
		tg_skel_node *nodes = malloc((nn + 1) * sizeof(*nodes));
		tg_kernel_rec *recs = malloc((nr + 1) * sizeof(*recs));
		tg_invocation *invs = malloc((ni + 1) * sizeof(*invs));
		memcpy(nodes, x, nn * sizeof(*nodes));
		for (size_t k = 0; k < nr; k++)
			tg_measure_kernel_get(&recs[k], m, k);
		for (size_t k = 0; k < ni; k++)
			tg_measure_invocation_get(&invs[k], m, k);
		uint64_t whole = tg_skeleton_mem_bytes(sk) + tg_measure_mem_bytes(m);
		assert_int_equal(tg_rundata_compact(rd), 0);
		uint64_t held = tg_skeleton_mem_bytes(sk) + tg_measure_mem_bytes(m);
		if (nn >= 100)
			assert_true(held < whole);
		if (strstr(paths[i], "h200-dev/")) /* 29-30 % (the generated 100 MB trace: 25 %) */
			assert_true(held * 3 < whole);
		assert_int_equal(tg_rundata_expand(rd), 0);
		x = tg_skeleton_nodes(sk, &nn);
		assert_memory_equal(x, nodes, nn * sizeof(*nodes));
		for (size_t k = 0; k < nr; k++) {
			tg_kernel_rec r;
			tg_measure_kernel_get(&r, m, k);
			assert_memory_equal(&r, &recs[k], sizeof(r));
		}
		for (size_t k = 0; k < ni; k++) {
			tg_invocation v;
			tg_measure_invocation_get(&v, m, k);
			assert_memory_equal(&v, &invs[k], sizeof(v));
		}
		free(nodes);
		free(recs);
		free(invs);
		tg_rundata_free(rd);
		checked++;
	}
	tg_test_paths_free(paths, nfound);
	assert_true(checked >= 20);
}

/* A side's measure reserved exactly for the traces appended to it
 * (tg_measure_reserve: what the gate does before appending its side's
 * run data) and fitted to its records (tg_measure_fit: what run data
 * kept between traces does): the records are those appended, in order,
 * with their keys through the side's table, and appending after a fit
 * grows the arrays again. */
static void test_measure_reserve_fit(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const gt_side *s = gt_trace(SMALL);
	tg_rundata *rd;
	assert_int_equal(tg_rundata_build(&rd, s->tree, NULL), 0);
	const tg_measure *src = tg_rundata_measure(rd);
	size_t nr, ni, nu;
	const tg_kernel_rec *r = tg_measure_kernels(src, &nr);
	tg_measure_invocations(src, &ni);
	tg_measure_units(src, &nu);
	assert_true(nr > 50);
	tg_atoms *keys = tg_atoms_new();
	tg_measure *m;
	assert_int_equal(tg_measure_new(&m, keys), 0);
	assert_int_equal(tg_measure_reserve(m, 2 * nr, 2 * ni, 2 * nu), 0);
	int64_t rank = 3;
	for (int k = 0; k < 2; k++)
		assert_int_equal(tg_measure_append(m, src, &rank, NULL), 0);
	assert_int_equal(tg_measure_fit(m), 0);
	assert_int_equal(tg_measure_append(m, src, &rank, NULL), 0); /* grows again */
	size_t n, n2, n3;
	const tg_kernel_rec *x = tg_measure_kernels(m, &n);
	tg_measure_invocations(m, &n2);
	tg_measure_units(m, &n3);
	assert_int_equal(n, 3 * nr);
	assert_int_equal(n2, 3 * ni);
	assert_int_equal(n3, 3 * nu);
	assert_int_equal(tg_measure_traces(m), 3);
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < nr; i++) {
			const tg_kernel_rec *y = &x[k * nr + i];
			assert_int_equal(y->event, r[i].event);
			assert_int_equal(y->dur_ns, r[i].dur_ns);
			assert_int_equal(y->trace, k);
			assert_int_equal(tg_measure_rec_rank(m, y), 3);
			assert_int_equal(y->unit, r[i].unit == TG_NONE ? TG_NONE : r[i].unit + k * nu);
			assert_string_equal(tg_atoms_str(keys, y->kernel), tg_atoms_str(tg_measure_keys(src), r[i].kernel));
		}
	tg_measure_free(m);
	tg_atoms_free(keys);
	/* run data fitted when built: its measure reads as before */
	assert_int_equal(tg_rundata_detach(rd), 0);
	tg_measure_kernels(tg_rundata_measure(rd), &n);
	assert_int_equal(n, nr);
	tg_rundata_free(rd);
}

/* Every truncation, and bytes flipped all over the payload (re-deflated, so
 * that the damage reaches the decoder rather than zlib's check): an
 * error, never a crash, never a half-made result. */
static void test_damaged(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rundata *rd, *back = NULL;
	void *blob;
	size_t len;
	assert_int_equal(tg_rundata_build(&rd, gt_trace("--steps 1 --layers 1 --seq 256")->tree, NULL), 0);
	assert_int_equal(tg_rundata_encode(&blob, &len, rd), 0);
	for (size_t cut = 0; cut < len; cut++) {
		int rc = tg_rundata_decode(&back, blob, cut, 0, "cut");
		assert_int_equal(rc, TG_EFORMAT);
		assert_null(back);
	}
	/* the payload itself damaged */
	uLongf raw_len = 0;
	for (int i = 0; i < 8; i++)
		raw_len |= (uLongf)((uint8_t *)blob)[8 + i] << (8 * i);
	uint8_t *raw = malloc(raw_len), *z = malloc(compressBound(raw_len) + 16);
	uLongf got = raw_len;
	assert_int_equal(uncompress(raw, &got, (uint8_t *)blob + 16, (uLong)(len - 16)), Z_OK);
	size_t errors = 0, fine = 0;
	uint64_t seed = 7;
	for (int t = 0; t < 3000; t++) {
		uint8_t *copy = malloc(raw_len);
		memcpy(copy, raw, raw_len);
		for (int k = 0; k < 1 + t % 3; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			copy[(seed >> 33) % raw_len] ^= (uint8_t)(1u << ((seed >> 20) % 8));
		}
		uLongf zl = compressBound(raw_len);
		assert_int_equal(compress2(z + 16, &zl, copy, raw_len, 1), Z_OK);
		memcpy(z, blob, 16);
		int rc = tg_rundata_decode(&back, z, zl + 16, 0, "flipped");
		assert_true(rc == 0 || rc == TG_EFORMAT);
		if (rc) {
			assert_null(back);
			errors++;
		} else {
			tg_rundata_free(back); /* a flip in a number: still well formed */
			back = NULL;
			fine++;
		}
		free(copy);
	}
	print_message("3000 damaged payloads: %zu refused, %zu still well formed\n", errors, fine);
	assert_true(errors > 300);
	/* another format, and a limit */
	((uint8_t *)blob)[4] ^= 2;
	assert_int_equal(tg_rundata_decode(&back, blob, len, 0, "run 9 trace 0"), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "run 9 trace 0: run data of format 0 (this tracegate reads 2)");
	((uint8_t *)blob)[4] ^= 2;
	assert_int_equal(tg_rundata_decode(&back, blob, len, 1000, "run 9 trace 0"), TG_ELIMIT);
	assert_int_equal(tg_rundata_decode(&back, "TGRX", 4, 0, "x"), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "x: not tracegate run data");
	free(raw);
	free(z);
	free(blob);
	tg_rundata_free(rd);
}

/* A skeleton whose parents make a cycle, or point past the end, is
 * refused; the entries are freed either way. Durations are read back
 * whole, those of 2^32 - 1 ns and more held beside the 16-byte nodes. */
static void test_skeleton_adopt(void **state)
{
	(void)state;
	tg_atoms *a = tg_atoms_new();
	uint32_t id;
	assert_int_equal(tg_atoms_intern(&id, a, "aten::mm", 8), 0);
	tg_skel_entry *x = calloc(3, sizeof(*x));
	for (int i = 0; i < 3; i++)
		x[i] = (tg_skel_entry){.ts = i,
		                       .dur = 1,
		                       .event = (uint32_t)i * 2,
		                       .parent = (uint32_t)(i + 1) % 3,
		                       .name = 0,
		                       .kind = TG_KIND_CPU_OP};
	tg_skeleton *s;
	assert_int_equal(tg_skeleton_adopt(&s, x, 3, 10, a, 0, "t"), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "t: skeleton node 0: its parents make a cycle");
	a = tg_atoms_new();
	assert_int_equal(tg_atoms_intern(&id, a, "aten::mm", 8), 0);
	x = calloc(2, sizeof(*x));
	x[0] = (tg_skel_entry){.event = 1, .parent = TG_NONE, .kind = TG_KIND_CPU_OP};
	x[1] = (tg_skel_entry){.event = 3, .parent = 0, .kind = TG_KIND_PYTHON};
	assert_int_equal(tg_skeleton_adopt(&s, x, 2, 10, a, 0, "t"), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "t: skeleton node 1: kind not held");
	a = tg_atoms_new();
	assert_int_equal(tg_atoms_intern(&id, a, "aten::mm", 8), 0);
	x = calloc(2, sizeof(*x));
	x[0] = (tg_skel_entry){.event = 1, .parent = TG_NONE, .kind = TG_KIND_CPU_OP};
	x[1] = (tg_skel_entry){.event = 3, .parent = 0, .kind = TG_KIND_KERNEL};
	assert_int_equal(tg_skeleton_adopt(&s, x, 2, 10, a, 0, "t"), 0);
	assert_int_equal(tg_skeleton_find(s, 3), 1);
	assert_int_equal(tg_skeleton_find(s, 2), TG_NONE);
	assert_int_equal(tg_skeleton_find(s, 10), TG_NONE);
	assert_int_equal(tg_skeleton_event(s, 0), 1);
	assert_int_equal(tg_skeleton_event(s, 1), 3);
	tg_skeleton_free(s);
	/* durations: 4.29 s and more held whole, a negative one refused */
	const int64_t durs[] = {5000000000LL, 4294967294LL, 4294967295LL, 7};
	a = tg_atoms_new();
	assert_int_equal(tg_atoms_intern(&id, a, "aten::mm", 8), 0);
	x = calloc(4, sizeof(*x));
	for (int i = 0; i < 4; i++)
		x[i] = (tg_skel_entry){.dur = durs[i], .event = (uint32_t)i, .parent = i ? 0 : TG_NONE, .kind = TG_KIND_CPU_OP};
	assert_int_equal(sizeof(tg_skel_node), 16);
	assert_int_equal(tg_skeleton_adopt(&s, x, 4, 10, a, 0, "t"), 0);
	size_t n;
	const tg_skel_node *y = tg_skeleton_nodes(s, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(tg_skeleton_dur(s, i), durs[i]);
	assert_int_equal(y[0].dur, TG_SKEL_WIDE_DUR);
	assert_int_equal(y[1].dur, 4294967294u);
	assert_int_equal(y[2].dur, TG_SKEL_WIDE_DUR);
	assert_int_equal(y[3].dur, 7);
	tg_skeleton_free(s);
	a = tg_atoms_new();
	assert_int_equal(tg_atoms_intern(&id, a, "aten::mm", 8), 0);
	x = calloc(2, sizeof(*x));
	x[0] = (tg_skel_entry){.dur = 1, .event = 1, .parent = TG_NONE, .kind = TG_KIND_CPU_OP};
	x[1] = (tg_skel_entry){.dur = -1, .event = 3, .parent = 0, .kind = TG_KIND_KERNEL};
	assert_int_equal(tg_skeleton_adopt(&s, x, 2, 10, a, 0, "t"), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "t: skeleton node 1: negative duration");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_verdict_split),
		cmocka_unit_test(test_same_verdict_math),
		cmocka_unit_test(test_same_verdict_ranks),
		cmocka_unit_test(test_same_verdict_rank_order),
		cmocka_unit_test(test_same_verdict_reversed),
		cmocka_unit_test(test_detached_all),
		cmocka_unit_test(test_detached_parts),
		cmocka_unit_test(test_detached_noise),
		cmocka_unit_test(test_missing_part),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_old_starts),
		cmocka_unit_test(test_packed_at_build),
		cmocka_unit_test(test_staged),
		cmocka_unit_test(test_hold_at_build),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_compact_shared),
		cmocka_unit_test(test_measure_reserve_fit),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_skeleton_adopt),
	};
	return cmocka_run_group_tests(tests, NULL, gt_teardown);
}
