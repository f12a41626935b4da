/*
 * test_judge_metrics.c - rules/judge.c end to end on the metrics and
 * selectors that test_judge.c and test_gate.c leave out: exposed_comm,
 * exposed_memcpy, tbs, launch_overhead, peak_memory, gpu_idle, and the
 * selectors module, shape, stream and rank; and rules without data (no
 * memory events, no collectives), which are inconclusive without making
 * the diff inconclusive (docs/rules.md, "No data").
 *
 * Two sources of traces with known values:
 *   - the synthetic generator (docs/generator.md), whose ground truth gives
 *     the communication, copy and attention time per step;
 *   - small traces written here (fx_trace), where every duration is set:
 *     two kernels a step, each started `delay` us after its launch call,
 *     `gap` us apart on the GPU (the step's idle time), and optionally one
 *     [memory] allocation of `peak` bytes a step.
 * Without --noise and --jitter, per-step values are identical from step to
 * step, so the interval is the point and ratios are exact up to the double
 * arithmetic.
 */
#include "gentrace.h"

#include "judgeutil.h"

#define BIG "--steps 8 --seq 4096"
#define EXACT 1e-9

/* Judges one generated trace against another. */
static void judge_gen(struct judged *x, const char *base_args, const char *new_args, const char *yaml)
{
	const tg_tree *bt[1] = {gt_trace(base_args)->tree}, *nt[1] = {gt_trace(new_args)->tree};
	judge_trees(x, bt, 1, nt, 1, yaml, NULL);
}

static int is_unmatched(const struct judged *x, const char *rule)
{
	size_t n;
	const char *const *u = tg_judgement_unmatched(x->j, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(u[i], rule))
			return 1;
	return 0;
}


/* ------------------------------------------------------------ fixtures */

#define FX_STEPS 6

/* A hand-written trace of FX_STEPS steps, 10 ms apart. Each step: aten::mm
 * launches gemm_kernel (100 us) and myext::fused_add (a custom op, without
 * a perf model) launches add_kernel (100 us)
 * gap us after it; each kernel starts delay us after its launch call
 * (delay >= 10). With peak >= 0, a [memory] allocation of peak bytes at the
 * step's start, freed at its end. So per step: busy 200 us, idle gap us,
 * launch overhead delay us, peak memory peak bytes. */
struct fx {
	tg_trace *trace;
	tg_tree *tree;
};

/* With fx_warmup_us > 0, fx_load adds a warm-up aten::mm before
 * ProfilerStep#1 whose gemm_kernel lasts that long. */
static int fx_warmup_us;

static void fx_load(struct fx *f, int delay, int gap, long long peak)
{
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap);
	assert_non_null(s);
#define FX_PUT(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__), assert_true(len < cap))
	FX_PUT("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", "
	       "\"totalGlobalMem\": 85018279936, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}],\n"
	       "\"traceEvents\": [\n"
	       "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"python3\"}}");
	if (fx_warmup_us > 0) {
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, "
		       "\"dur\": 50, \"args\": {\"External id\": 9001, \"Input Dims\": [[64, 64], [64, 64]]}}");
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
		       "\"ts\": 1010, \"dur\": 5, \"args\": {\"External id\": 9001, \"correlation\": 9001}}");
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1100, "
		       "\"dur\": %d, \"args\": {\"External id\": 9001, \"correlation\": 9001, \"device\": 0, \"stream\": 7}}",
		       fx_warmup_us);
	}
	for (int i = 0; i < FX_STEPS; i++) {
		long long t = 10000LL * (i + 1), k1 = t + 20 + delay, k2 = t + 120 + delay + gap;
		int e1 = 100 * i + 1, e2 = 100 * i + 2;
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, \"tid\": 1, "
		       "\"ts\": %lld, \"dur\": 5000, \"args\": {\"External id\": %d}}",
		       i + 1, t, 100 * i + 50);
		if (peak >= 0) {
			FX_PUT(",\n{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, "
			       "\"tid\": 1, \"ts\": %lld, \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Bytes\": %lld, "
			       "\"Total Allocated\": %lld, \"Total Reserved\": %lld}}",
			       t + 5, peak, peak, peak);
			FX_PUT(",\n{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, "
			       "\"tid\": 1, \"ts\": %lld, \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Bytes\": %lld, "
			       "\"Total Allocated\": 0, \"Total Reserved\": %lld}}",
			       t + 4900, -peak, peak);
		}
		/* aten::mm [t+10, t+60], its launch at t+20 */
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
		       "\"dur\": 50, \"args\": {\"External id\": %d, \"Input Dims\": [[64, 64], [64, 64]]}}",
		       t + 10, e1);
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
		       "\"ts\": %lld, \"dur\": 5, \"args\": {\"External id\": %d, \"correlation\": %d}}",
		       t + 20, e1, e1);
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": %lld, "
		       "\"dur\": 100, \"args\": {\"External id\": %d, \"correlation\": %d, \"device\": 0, \"stream\": 7}}",
		       k1, e1, e1);
		/* myext::fused_add [k2 - delay - 5, +20], its launch at k2 - delay */
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"myext::fused_add\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
		       "\"dur\": 20, \"args\": {\"External id\": %d, \"Input Dims\": [[64, 64], [64, 64]]}}",
		       k2 - delay - 5, e2);
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
		       "\"ts\": %lld, \"dur\": 5, \"args\": {\"External id\": %d, \"correlation\": %d}}",
		       k2 - delay, e2, e2);
		FX_PUT(",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"add_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": %lld, "
		       "\"dur\": 100, \"args\": {\"External id\": %d, \"correlation\": %d, \"device\": 0, \"stream\": 7}}",
		       k2, e2, e2);
	}
	FX_PUT("\n]}\n");
#undef FX_PUT
	if (tg_trace_read_mem(&f->trace, s, len, "fixture.json", NULL))
		fail_msg("fixture: %s", tg_error_last());
	free(s);
	assert_int_equal(tg_tree_build(&f->tree, f->trace), 0);
}

static void fx_free(struct fx *f)
{
	tg_tree_free(f->tree);
	tg_trace_free(f->trace);
}

/* Judges fixture a against fixture b. */
static void judge_fx(struct judged *x, struct fx *a, struct fx *b, const char *yaml)
{
	const tg_tree *bt[1] = {a->tree}, *nt[1] = {b->tree};
	judge_trees(x, bt, 1, nt, 1, yaml, NULL);
}

/* tg_judge of a against b under yaml, which must fail: its code (the
 * message in tg_error_last()), nothing left to free. */
static int judge_fx_fails(struct fx *a, struct fx *b, const char *yaml)
{
	const tg_tree *bt[1] = {a->tree}, *nt[1] = {b->tree};
	tg_atoms *keys = tg_atoms_new();
	tg_measure *mb, *mn;
	tg_rules *rules;
	tg_judgement *j = NULL;
	assert_int_equal(tg_measure_build(&mb, bt, 1, keys), 0);
	assert_int_equal(tg_measure_build(&mn, nt, 1, keys), 0);
	assert_int_equal(tg_rules_load_mem(&rules, yaml, strlen(yaml), "test.yaml"), 0);
	int rc = tg_judge(&j, rules, mb, mn, keys, NULL);
	assert_null(j);
	tg_rules_free(rules);
	tg_measure_free(mb);
	tg_measure_free(mn);
	tg_atoms_free(keys);
	return rc;
}

/* ------------------------------------------------------------ fixtures: launch, idle, memory */

static const char fx_rules[] = "version: 1\n"
                               "rules:\n"
                               "  - name: launch\n"
                               "    metric: launch_overhead\n"
                               "    block_above: 15%\n"
                               "    warn_above: 5%\n"
                               "    min_delta: 1us\n"
                               "  - name: idle\n"
                               "    metric: gpu_idle\n"
                               "    block_above: 10%\n"
                               "    min_delta: 10us\n"
                               "  - name: memory\n"
                               "    metric: peak_memory\n"
                               "    block_above: 10%\n"
                               "    warn_above: 5%\n"
                               "    min_delta: 1MiB\n";

/* A kernel before ProfilerStep#1 (warm-up) is in no step's sample: a
 * 5 ms warm-up GEMM on one side only does not make the 100 us a step of
 * aten::mm look 50x slower in step 1. */
static void test_warmup_outside_steps(void **state)
{
	(void)state;
	struct fx a, b;
	fx_load(&a, 10, 300, -1);
	fx_warmup_us = 5000;
	fx_load(&b, 10, 300, -1);
	fx_warmup_us = 0;
	static const char rules[] = "version: 1\n"
	                            "rules:\n"
	                            "  - name: mm\n"
	                            "    metric: kernel_time\n"
	                            "    select: {op: aten::mm}\n"
	                            "    block_above: 5%\n";
	struct judged x;
	judge_fx(&x, &a, &b, rules);
	size_t nk, n_none = 0;
	const tg_kernel_rec *k = tg_measure_kernels(x.n, &nk);
	assert_int_equal(nk, 2 * FX_STEPS + 1); /* the warm-up kernel is measured... */
	for (size_t i = 0; i < nk; i++)
		n_none += k[i].unit == TG_NONE;
	assert_int_equal(n_none, 1); /* ...in no step */
	const tg_judged *m = item(&x, "mm", "");
	GT_NEAR(m->base, 100e3, 1e-6); /* ns a step */
	GT_NEAR(m->next, 100e3, 1e-6);
	GT_NEAR(m->pct, 0.0, EXACT);
	assert_int_equal(m->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(m->nnext, FX_STEPS);
	assert_int_equal(m->verdict, TG_VERDICT_PASS);
	judged_free(&x);
	fx_free(&a);
	fx_free(&b);
}

static void test_launch_overhead(void **state)
{
	(void)state;
	struct fx a, b, c;
	fx_load(&a, 10, 300, -1);
	fx_load(&b, 12, 300, -1); /* +20 % */
	fx_load(&c, 11, 300, -1); /* +10 %: warns, under block_above */
	struct judged x;
	judge_fx(&x, &a, &b, fx_rules);
	const tg_judged *l = item(&x, "launch", "");
	GT_NEAR(l->base, 10e3, 1e-6); /* ns: the mean delay */
	GT_NEAR(l->next, 12e3, 1e-6);
	GT_NEAR(l->delta, 2e3, 1e-6);
	GT_NEAR(l->pct, 20.0, 1e-9);
	GT_NEAR(l->pct_lo, 20.0, 1e-9);
	assert_int_equal(l->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(l->nbase, FX_STEPS);
	assert_int_equal(l->verdict, TG_VERDICT_BLOCK);
	/* nothing else moved; no memory events: no data, not inconclusive overall */
	const tg_judged *i = item(&x, "idle", "");
	GT_NEAR(i->base, 300e3, 1e-6);
	GT_NEAR(i->pct, 0.0, EXACT);
	assert_int_equal(i->verdict, TG_VERDICT_PASS);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_BLOCK);
	judged_free(&x);
	judge_fx(&x, &a, &c, fx_rules);
	l = item(&x, "launch", "");
	GT_NEAR(l->pct, 10.0, 1e-9);
	assert_int_equal(l->verdict, TG_VERDICT_WARN);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_WARN);
	judged_free(&x);
	/* faster launches: improved, pass */
	judge_fx(&x, &b, &a, fx_rules);
	l = item(&x, "launch", "");
	GT_NEAR(l->delta, -2e3, 1e-6);
	assert_true(l->improved);
	assert_int_equal(l->verdict, TG_VERDICT_PASS);
	judged_free(&x);
	fx_free(&a);
	fx_free(&b);
	fx_free(&c);
}

static void test_gpu_idle(void **state)
{
	(void)state;
	struct fx a, b, c;
	fx_load(&a, 10, 300, -1);
	fx_load(&b, 10, 360, -1); /* +20 % idle, +60 us a step */
	fx_load(&c, 10, 305, -1); /* +1.7 %, +5 us: under min_delta */
	struct judged x;
	judge_fx(&x, &a, &b, fx_rules);
	const tg_judged *i = item(&x, "idle", "");
	GT_NEAR(i->base, 300e3, 1e-6);
	GT_NEAR(i->next, 360e3, 1e-6);
	GT_NEAR(i->pct, 20.0, 1e-9);
	GT_NEAR(i->pct_lo, 20.0, 1e-9);
	assert_int_equal(i->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(i->verdict, TG_VERDICT_BLOCK);
	assert_int_equal(item(&x, "launch", "")->verdict, TG_VERDICT_PASS);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_BLOCK);
	judged_free(&x);
	judge_fx(&x, &a, &c, fx_rules);
	i = item(&x, "idle", "");
	GT_NEAR(i->delta, 5e3, 1e-6);
	assert_int_equal(i->verdict, TG_VERDICT_PASS);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_PASS);
	judged_free(&x);
	fx_free(&a);
	fx_free(&b);
	fx_free(&c);
}

static void test_peak_memory(void **state)
{
	(void)state;
	struct fx a, b, c, none;
	const long long GiB = 1LL << 30;
	fx_load(&a, 10, 300, 10 * GiB);
	fx_load(&b, 10, 300, 12 * GiB); /* +20 %: block */
	fx_load(&c, 10, 300, 10 * GiB + GiB * 6 / 10); /* +6 %: warn */
	fx_load(&none, 10, 300, -1);
	struct judged x;
	judge_fx(&x, &a, &b, fx_rules);
	const tg_judged *m = item(&x, "memory", "");
	assert_true(m->base == 10.0 * GiB && m->next == 12.0 * GiB && m->delta == 2.0 * GiB);
	GT_NEAR(m->pct, 20.0, EXACT);
	assert_int_equal(m->sampling, TG_SAMPLING_EXACT);
	assert_int_equal(m->nbase, FX_STEPS);
	assert_false(m->no_data);
	assert_int_equal(m->verdict, TG_VERDICT_BLOCK);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_BLOCK);
	judged_free(&x);
	judge_fx(&x, &a, &c, fx_rules);
	m = item(&x, "memory", "");
	GT_NEAR(m->pct, 6.0, 1e-6);
	assert_int_equal(m->verdict, TG_VERDICT_WARN);
	judged_free(&x);
	/* no memory events on either side: inconclusive, no data, said so; the
	 * diff's verdict is the other rules' (pass) */
	judge_fx(&x, &none, &none, fx_rules);
	m = item(&x, "memory", "");
	assert_int_equal(m->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_true(m->no_data);
	assert_string_equal(m->note, "no data: the traces have no memory events");
	assert_int_equal(m->nbase, 0);
	assert_int_equal(m->nnext, 0);
	assert_true(isnan(m->pct));
	assert_false(is_unmatched(&x, "memory"));
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_PASS);
	assert_string_equal(tg_judgement_summary(x.j), "pass: 3 checks, no regression above the thresholds");
	judged_free(&x);
	/* on one side only: nothing to judge, an error naming the side (not a
	 * verdict: a pass or an inconclusive would post success) */
	assert_int_equal(judge_fx_fails(&none, &b, fx_rules), TG_ENODATA);
	assert_string_equal(tg_error_last(), "nothing to judge: rule memory (peak_memory) needs memory events (profile "
	                                     "with profile_memory=True), and the base side (fixture.json) has none");
	assert_int_equal(judge_fx_fails(&a, &none, fx_rules), TG_ENODATA);
	assert_string_equal(tg_error_last(), "nothing to judge: rule memory (peak_memory) needs memory events (profile "
	                                     "with profile_memory=True), and the new side (fixture.json) has none");
	fx_free(&a);
	fx_free(&b);
	fx_free(&c);
	fx_free(&none);
}

/* Rules on data no trace holds: inconclusive lines, a pass overall. */
static void test_no_data(void **state)
{
	(void)state;
	struct fx a;
	fx_load(&a, 10, 300, -1);
	struct judged x;
	judge_fx(&x, &a, &a,
	         "version: 1\n"
	         "rules:\n"
	         "  - name: comm\n"
	         "    metric: exposed_comm\n"
	         "    block_above: 5%\n"
	         "  - name: copies\n"
	         "    metric: exposed_memcpy\n"
	         "    block_above: 5%\n"
	         "  - name: flops\n"
	         "    select: {op: 'myext::fused_add'}\n"
	         "    metric: tflops\n"
	         "    block_above: 5%\n"
	         "  - name: rank9\n"
	         "    select: {rank: 9}\n"
	         "    metric: gpu_busy\n"
	         "    block_above: 5%\n"
	         "  - name: busy\n"
	         "    metric: gpu_busy\n"
	         "    block_above: 5%\n");
	static const struct {
		const char *rule, *note;
	} want[] = {
		{"comm", "no data: the traces have no collectives"},
		{"copies", "no data: the traces have no memory copies"},
		{"flops", "no data: the traces have no selected op with a FLOPs model"},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const tg_judged *j = item(&x, want[i].rule, "");
		assert_int_equal(j->verdict, TG_VERDICT_INCONCLUSIVE);
		assert_true(j->no_data);
		assert_string_equal(j->note, want[i].note);
		assert_false(is_unmatched(&x, want[i].rule));
	}
	/* a rank in neither trace matches nothing, like any selector: not a
	 * silent pass, but it does not make the diff inconclusive */
	const tg_judged *r9 = item(&x, "rank9", "");
	assert_int_equal(r9->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_true(r9->unmatched);
	assert_false(r9->no_data);
	assert_string_equal(r9->note, "matches nothing in either trace");
	assert_true(is_unmatched(&x, "rank9"));
	const tg_judged *b = item(&x, "busy", "");
	GT_NEAR(b->base, 200e3, 1e-6);
	assert_int_equal(b->verdict, TG_VERDICT_PASS);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_PASS);
	judged_free(&x);
	fx_free(&a);
}

/* ------------------------------------------------------------ generator: comm, memcpy, tbs */

#define RANKS "--steps 8 --seq 4096 --ranks 2"

static const char comm_rules[] = "version: 1\n"
                                 "rules:\n"
                                 "  - name: comm\n"
                                 "    metric: exposed_comm\n"
                                 "    block_above: 10%\n"
                                 "    warn_above: 5%\n"
                                 "    min_delta: 20us\n"
                                 "  - name: comm-rank1\n"
                                 "    select: {rank: 1}\n"
                                 "    metric: exposed_comm\n"
                                 "    block_above: 10%\n"
                                 "    min_delta: 20us\n"
                                 "  - name: nccl-stream\n"
                                 "    select: {stream: 24}\n"
                                 "    metric: kernel_time\n"
                                 "    block_above: 10%\n"
                                 "  - name: compute-stream\n"
                                 "    select: {stream: 7}\n"
                                 "    metric: kernel_time\n"
                                 "    block_above: 10%\n"
                                 "  - name: sdpa-rank0\n"
                                 "    select: {rank: 0, category: SDPA_fwd}\n"
                                 "    metric: kernel_time\n"
                                 "    block_above: 5%\n"
                                 "  - name: sdpa-rank1\n"
                                 "    select: {rank: 1, category: SDPA_fwd}\n"
                                 "    metric: kernel_time\n"
                                 "    block_above: 5%\n";

/* Two ranks a side. The allreduce is fully exposed (it starts when the
 * compute stream is done, and the compute stream waits for it), so its
 * exposed time is the generator's comm_us; half the link bandwidth doubles
 * it. Rank 1 of the new side also runs attention 7 % slower. */
static void test_comm_stream_rank(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	const gt_side *b0 = gt_trace(RANKS " --rank 0"), *b1 = gt_trace(RANKS " --rank 1");
	const gt_side *n0 = gt_trace(RANKS " --rank 0 --link-gbps 50"),
	              *n1 = gt_trace(RANKS " --rank 1 --link-gbps 50 --sdpa-scale 1.07");
	double comm = gt_per_step(b0, GT_COMM_US) * 1e3; /* ns per step */
	assert_true(comm > 20e3);
	GT_NEAR(gt_per_step(n0, GT_COMM_US) * 1e3, 2 * comm, 2.0);
	const tg_tree *bt[2] = {b0->tree, b1->tree}, *nt[2] = {n0->tree, n1->tree};
	struct judged x;
	judge_trees(&x, bt, 2, nt, 2, comm_rules, NULL);
	const tg_judged *c = item(&x, "comm", "");
	GT_NEAR(c->base, comm, 1.0);
	GT_NEAR(c->next, 2 * comm, 2.0);
	GT_NEAR(c->pct, 100.0, 0.01);
	assert_int_equal(c->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(c->nbase, 16); /* 2 ranks x 8 steps */
	assert_false(c->no_data);
	assert_int_equal(c->verdict, TG_VERDICT_BLOCK);
	const tg_judged *c1 = item(&x, "comm-rank1", "");
	assert_int_equal(c1->nbase, 8);
	GT_NEAR(c1->base, gt_per_step(b1, GT_COMM_US) * 1e3, 1.0);
	assert_int_equal(c1->verdict, TG_VERDICT_BLOCK);
	/* stream 24 holds the NCCL kernels (all of their time), stream 7 the compute */
	const tg_judged *s24 = item(&x, "nccl-stream", "");
	GT_NEAR(s24->base, comm, 1.0); /* per step: both ranks' kernels over 16 units, 2 x comm / 2 */
	GT_NEAR(s24->pct, 100.0, 0.01);
	assert_int_equal(s24->verdict, TG_VERDICT_BLOCK);
	const tg_judged *s7 = item(&x, "compute-stream", "");
	double sdpa = gt_per_step(b0, GT_SDPA_FWD_US) * 1e3;
	GT_NEAR(s7->delta, sdpa * 0.07 / 2, 1e-6); /* rank 1's attention, per unit of 2 ranks */
	assert_int_equal(s7->verdict, TG_VERDICT_PASS); /* +1 % of all compute */
	/* rank selectors: only rank 1's attention changed */
	const tg_judged *r0 = item(&x, "sdpa-rank0", ""), *r1 = item(&x, "sdpa-rank1", "");
	GT_NEAR(r0->pct, 0.0, EXACT);
	assert_int_equal(r0->verdict, TG_VERDICT_PASS);
	GT_NEAR(r1->pct, 7.0, EXACT);
	GT_NEAR(r1->base, sdpa, 1e-6); /* per step of rank 1, not over both ranks' steps */
	GT_NEAR(r1->next, sdpa * 1.07, 1e-6);
	assert_int_equal(r1->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(r1->nbase, 8);
	GT_NEAR(r1->pct_lo, 7.0, EXACT); /* identical steps of rank 1 */
	assert_int_equal(r1->verdict, TG_VERDICT_BLOCK);
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_BLOCK);
	judged_free(&x);
	/* the same ranks again: every rule passes, and comm has data */
	judge_trees(&x, bt, 2, bt, 2, comm_rules, NULL);
	size_t n;
	const tg_judged *it = tg_judgement_items(x.j, &n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(it[i].verdict, TG_VERDICT_PASS);
		assert_false(it[i].no_data);
	}
	judged_free(&x);
}

/* exposed_memcpy: the pageable HtoD copy at each step's start blocks the
 * host, and each .item() adds a DtoH copy; nothing overlaps them, so the
 * exposed copy time is the generator's memcpy_us. */
static void test_exposed_memcpy(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	static const char y[] = "version: 1\n"
	                        "rules:\n"
	                        "  - name: copies\n"
	                        "    metric: exposed_memcpy\n"
	                        "    block_above: 10%\n"
	                        "    warn_above: 5%\n"
	                        "    min_delta: 1us\n";
	const gt_side *b = gt_trace(BIG), *n = gt_trace(BIG " --host-sync 4");
	double mb = gt_per_step(b, GT_MEMCPY_US) * 1e3, mn = gt_per_step(n, GT_MEMCPY_US) * 1e3;
	assert_true(mn > mb);
	struct judged x;
	judge_gen(&x, BIG, BIG " --host-sync 4", y);
	const tg_judged *c = item(&x, "copies", "");
	GT_NEAR(c->base, mb, 1.0);
	GT_NEAR(c->next, mn, 1.0);
	GT_NEAR(c->pct, 100 * (mn / mb - 1), 0.01);
	assert_int_equal(c->sampling, TG_SAMPLING_STEPS);
	assert_false(c->no_data);
	GT_NEAR(c->pct_lo, c->pct, 1e-9); /* identical steps */
	assert_int_equal(c->verdict, TG_VERDICT_BLOCK);
	print_message("exposed memcpy %.3f -> %.3f us a step (%+.1f %%): %s\n", mb / 1e3, mn / 1e3, c->pct,
	              tg_verdict_name(c->verdict));
	judged_free(&x);
	judge_gen(&x, BIG, BIG " --seed 1", y);
	c = item(&x, "copies", "");
	GT_NEAR(c->pct, 0.0, EXACT);
	assert_int_equal(c->verdict, TG_VERDICT_PASS);
	judged_free(&x);
}

/* tbs: the bytes of the GEMMs' perf model over their kernel time; GEMMs
 * 10 % slower move the same bytes at 1/1.1 the rate, a drop of 9.09 %. */
static void test_tbs(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	static const char y[] = "version: 1\n"
	                        "rules:\n"
	                        "  - name: gemm-tbs\n"
	                        "    select: {category: GEMM}\n"
	                        "    metric: tbs\n"
	                        "    block_above: 5%\n"
	                        "    warn_above: 2%\n"
	                        "  - name: gemm-tbs-mild\n"
	                        "    select: {category: GEMM}\n"
	                        "    metric: tbs\n"
	                        "    block_above: 20%\n"
	                        "    warn_above: 5%\n";
	struct judged x;
	judge_gen(&x, BIG, BIG " --gemm-scale 1.10", y);
	const tg_judged *t = item(&x, "gemm-tbs", "");
	/* GEMMs move at most 2.8 TB/s in the generator's cost model */
	assert_true(t->base > 0.01 && t->base <= 2.8);
	GT_NEAR(t->next / t->base, 1 / 1.10, 1e-12);
	GT_NEAR(t->pct, 100 * (1 - 1 / 1.10), 1e-9);
	GT_NEAR(t->pct_lo, t->pct, 1e-9);
	assert_true(t->delta < 0);
	assert_int_equal(t->sampling, TG_SAMPLING_STEPS);
	assert_int_equal(t->verdict, TG_VERDICT_BLOCK);
	assert_int_equal(item(&x, "gemm-tbs-mild", "")->verdict, TG_VERDICT_WARN);
	judged_free(&x);
	judge_gen(&x, BIG, BIG " --gemm-scale 0.90", y);
	t = item(&x, "gemm-tbs", "");
	GT_NEAR(t->pct, 100 * (1 - 1 / 0.90), 1e-9);
	assert_true(t->improved);
	assert_int_equal(t->verdict, TG_VERDICT_PASS);
	judged_free(&x);
}

/* ------------------------------------------------------------ generator: module, shape */

static void test_module_and_shape(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	static const char y[] = "version: 1\n"
	                        "rules:\n"
	                        "  - name: layer1-attention\n"
	                        "    select: {module: '/TransformerLayer_1\\/Attention_/', category: SDPA_fwd}\n"
	                        "    metric: kernel_time\n"
	                        "    block_above: 5%\n"
	                        "  - name: layer1\n"
	                        "    select: {module: '*TransformerLayer_1*'}\n"
	                        "    metric: kernel_time\n"
	                        "    aggregate: each\n"
	                        "    by: module\n"
	                        "    warn_above: 2%\n"
	                        "  - name: attention-shape\n"
	                        "    select: {op: 'aten::_flash_attention_forward', shape: '*\\[4, 4096, 16, 64\\]*'}\n"
	                        "    metric: kernel_time\n"
	                        "    block_above: 5%\n"
	                        "  - name: other-shape\n"
	                        "    select: {op: 'aten::_flash_attention_forward', shape: '*\\[4, 1234, 16, 64\\]*'}\n"
	                        "    metric: kernel_time\n"
	                        "    block_above: 5%\n";
	const char *ba = BIG " --python", *na = BIG " --python --sdpa-scale 1.07";
	double sdpa = gt_per_step(gt_trace(ba), GT_SDPA_FWD_US) * 1e3; /* 4 layers */
	struct judged x;
	judge_gen(&x, ba, na, y);
	const tg_judged *m = item(&x, "layer1-attention", "");
	GT_NEAR(m->base, sdpa / 4, 1e-6); /* one layer of four */
	GT_NEAR(m->pct, 7.0, EXACT);
	assert_int_equal(m->verdict, TG_VERDICT_BLOCK);
	/* each by module: the items are layer 1's modules; attention warns */
	size_t n, mods = 0;
	const tg_judged *it = tg_judgement_items(x.j, &n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(it[i].rule->name, "layer1"))
			continue;
		mods++;
		assert_non_null(strstr(it[i].item, "TransformerLayer_1"));
		size_t len = strlen(it[i].item);
		if (len > 12 && !strcmp(it[i].item + len - 12, "/Attention_1")) {
			/* the attention module's own kernels: flash attention only */
			GT_NEAR(it[i].pct, 7.0, EXACT);
			GT_NEAR(it[i].base, sdpa / 4, 1e-6);
			assert_int_equal(it[i].verdict, TG_VERDICT_WARN);
		} else {
			GT_NEAR(it[i].pct, 0.0, EXACT);
			assert_int_equal(it[i].verdict, TG_VERDICT_PASS);
		}
	}
	assert_true(mods >= 2);
	const tg_judged *s = item(&x, "attention-shape", "");
	GT_NEAR(s->base, sdpa, 1e-6);
	GT_NEAR(s->pct, 7.0, EXACT);
	assert_int_equal(s->verdict, TG_VERDICT_BLOCK);
	const tg_judged *o = item(&x, "other-shape", "");
	assert_string_equal(o->note, "matches nothing in either trace");
	assert_int_equal(o->verdict, TG_VERDICT_INCONCLUSIVE);
	assert_true(is_unmatched(&x, "other-shape"));
	assert_int_equal(tg_judgement_verdict(x.j), TG_VERDICT_BLOCK);
	judged_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warmup_outside_steps),
		cmocka_unit_test(test_launch_overhead),
		cmocka_unit_test(test_gpu_idle),
		cmocka_unit_test(test_peak_memory),
		cmocka_unit_test(test_no_data),
		cmocka_unit_test(test_comm_stream_rank),
		cmocka_unit_test(test_exposed_memcpy),
		cmocka_unit_test(test_tbs),
		cmocka_unit_test(test_module_and_shape),
	};
	return cmocka_run_group_tests(tests, NULL, gt_teardown);
}
