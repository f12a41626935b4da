/* test_findings.c - the findings (core/analysis/findings.h): each computed on small
 * traces whose numbers are worked out by hand below, the sides of a diff
 * (runs, ranks) and their matching (new, worse, gone), the renderings;
 * then on the shared traces, where every number asserted was checked
 * against the trace by a separate script (docs/findings.md says which). */
#include "testutil.h"

#include "../core/analysis/findings.h"
#include "../core/analysis/findings_impl.h"

#include <jansson.h>

/* ------------------------------------------------------------ helpers */

struct loaded {
	tg_trace *t;
	tg_tree *tree;
};

static void load_mem(struct loaded *l, const char *json)
{
	tg_test_must(tg_trace_read_mem(&l->t, json, strlen(json), "mem.json", NULL));
	tg_test_must(tg_tree_build(&l->tree, l->t));
}

static void unload(struct loaded *l)
{
	tg_tree_free(l->tree);
	tg_trace_free(l->t);
}

/* The finding with id (and subject, when not NULL) of fs; fails when absent. */
static const tg_finding *get(const tg_findings *fs, tg_finding_id id, const char *subject)
{
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	for (size_t i = 0; i < n; i++)
		if (v[i].id == id && (!subject || !strcmp(v[i].subject, subject)))
			return &v[i];
	fail_msg("no finding %s%s%s", tg_finding_name(id), subject ? " " : "", subject ? subject : "");
	return NULL;
}

static size_t count_id(const tg_findings *fs, tg_finding_id id)
{
	size_t n, k = 0;
	const tg_finding *v = tg_findings_list(fs, &n);
	for (size_t i = 0; i < n; i++)
		k += v[i].id == id;
	return k;
}

#define X(cat, name, pid, tid, ts, dur, args)                                                                          \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":" #ts       \
	",\"dur\":" #dur ",\"args\":{" args "}},"

/* ------------------------------------------------------------ names */

static void test_names(void **state)
{
	(void)state;
	static const char *const names[TG_FINDING_COUNT] = {
		"host-sync",       "dataloader-stall",  "launch-bound",   "idle-gap",
		"first-step-slow", "pageable-memcpy",   "attention-backend", "gemm-alignment",
		"low-efficiency",  "no-comm-overlap",   "straggler",      "all-ranks-idle"};
	for (int i = 0; i < TG_FINDING_COUNT; i++) {
		assert_string_equal(tg_finding_name((tg_finding_id)i), names[i]);
		assert_int_equal(tg_finding_parse(names[i]), i);
		assert_true(strlen(tg_finding_fix((tg_finding_id)i)) > 20);
		assert_true(strlen(tg_finding_title((tg_finding_id)i)) > 3);
		assert_int_equal(tg_finding_across_ranks((tg_finding_id)i),
		                 i == TG_FINDING_STRAGGLER || i == TG_FINDING_ALL_RANKS_IDLE);
	}
	assert_null(tg_finding_name(TG_FINDING_COUNT));
	assert_int_equal(tg_finding_parse("host_sync"), -1);
	assert_int_equal(tg_finding_parse(NULL), -1);
	assert_string_equal(tg_finding_status_name(TG_FINDING_NOT_EVALUATED), "not evaluated");
	assert_string_equal(tg_finding_change_name(TG_FINDING_WORSE), "worse");
	/* the fixes the issue names */
	assert_non_null(strstr(tg_finding_fix(TG_FINDING_PAGEABLE_MEMCPY), "pin_memory=True"));
	assert_non_null(strstr(tg_finding_fix(TG_FINDING_PAGEABLE_MEMCPY), "non_blocking=True"));
	assert_non_null(strstr(tg_finding_fix(TG_FINDING_NO_COMM_OVERLAP), "bucket_cap_mb"));
	assert_non_null(strstr(tg_finding_fix(TG_FINDING_NO_COMM_OVERLAP), "find_unused_parameters=False"));
	assert_non_null(strstr(tg_finding_fix(TG_FINDING_GEMM_ALIGNMENT), "multiple of"));
	assert_non_null(strstr(tg_finding_fix(TG_FINDING_ATTENTION_BACKEND), "dropout / mask / dtype"));
}

/* ------------------------------------------------------------ one trace */

/* Two steps of 1000 us, the second the first moved by 1000 us. In each:
 *   python "nn.Module: Block_0" [0,990) > "model.py(48): forward" [1,989)
 *     aten::mm [4,9) > cudaLaunchKernel [5,8) -> K1 [10,110)
 *     aten::item [200,260) > aten::_local_scalar_dense [201,259)
 *       > cudaStreamSynchronize [210,250)
 *     aten::add [390,398) > cudaLaunchKernel [395,397) -> K2 [400,500)
 *     aten::add [505,515) > cudaLaunchKernel [510,512) -> K3 [520,600)
 *   the GPU idles [0,10), [110,400), [500,520), [600,1000).
 * host-sync: the sync's window runs from its start (210) to the next
 *   kernel (400): 190 us idle a step, 19 % of the 1000 us step.
 * gaps: the two steps touch, one window [1000,3000): [110,400) is the
 *   sync's for 190 of 290 us (left to it); [1000,1010), [1500,1520) and
 *   [2500,2520) wait for a launch made after the GPU ran dry (launch-bound:
 *   50 us, 25 a step, 2.5 %); [1600,2010) (410 us, across the steps' edge)
 *   and [2600,3000) (400 us) are idle gaps with min_gap 300 us: 405 us a
 *   step, 40.5 %, the longest in the python forward. */
#define STEP(o)                                                                                                        \
	X("cpu_op", "aten::mm", 1, 1, o##004, 5, "\"External id\":1") \
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, o##005, 3, "\"correlation\":" #o "1") \
	X("kernel", "K1", 0, 7, o##010, 100, "\"correlation\":" #o "1,\"stream\":7") \
	X("cpu_op", "aten::item", 1, 1, o##200, 60, "") \
	X("cpu_op", "aten::_local_scalar_dense", 1, 1, o##201, 58, "") \
	X("cuda_runtime", "cudaStreamSynchronize", 1, 1, o##210, 40, "\"correlation\":" #o "2") \
	X("cpu_op", "aten::add", 1, 1, o##390, 8, "") \
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, o##395, 2, "\"correlation\":" #o "3") \
	X("kernel", "K2", 0, 7, o##400, 100, "\"correlation\":" #o "3,\"stream\":7") \
	X("cpu_op", "aten::add", 1, 1, o##505, 10, "") \
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, o##510, 2, "\"correlation\":" #o "4") \
	X("kernel", "K3", 0, 7, o##520, 80, "\"correlation\":" #o "4,\"stream\":7")

static const char *const HOST =
	"{\"traceEvents\": ["
	X("user_annotation", "ProfilerStep#1", 1, 1, 1000, 1000, "")
	X("user_annotation", "ProfilerStep#2", 1, 1, 2000, 1000, "")
	X("python_function", "nn.Module: Block_0", 1, 1, 1000, 990, "\"Python id\":1,\"Python parent id\":null")
	X("python_function", "model.py(48): forward", 1, 1, 1001, 988, "\"Python id\":2,\"Python parent id\":1")
	X("python_function", "nn.Module: Block_0", 1, 1, 2000, 990, "\"Python id\":3,\"Python parent id\":null")
	X("python_function", "model.py(48): forward", 1, 1, 2001, 988, "\"Python id\":4,\"Python parent id\":3")
	STEP(1) STEP(2)
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}}]}";

static void test_host(void **state)
{
	(void)state;
	struct loaded l;
	load_mem(&l, HOST);
	tg_findings_opts o;
	tg_findings_opts_default(&o);
	o.limits[TG_FINDING_IDLE_GAP].param = 300e3;
	tg_findings *fs;
	tg_test_must(tg_findings_compute(&fs, l.tree, &o, -1, 1));
	double step;
	assert_int_equal(tg_findings_steps(fs, &step), 2);
	assert_true(step == 1000e3);

	const tg_finding *f = get(fs, TG_FINDING_HOST_SYNC, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_string_equal(f->subject, "Block.forward: aten::item");
	assert_string_equal(f->key, "Block.forward: aten::item");
	assert_true(f->count == 1);
	assert_true(f->cost_ns == 190e3);
	assert_true(fabs(f->cost_pct - 19) < 1e-9);
	assert_true(f->start_ns == 1210000 && f->end_ns == 2400000);
	assert_non_null(strstr(f->evidence, "cudaStreamSynchronize in aten::_local_scalar_dense under aten::item"));

	f = get(fs, TG_FINDING_LAUNCH_BOUND, NULL);
	assert_int_equal(f->status, TG_FINDING_OK);
	assert_true(f->cost_ns == 25e3);
	assert_true(f->count == 1.5);
	f = get(fs, TG_FINDING_IDLE_GAP, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(f->cost_ns == 405e3);
	assert_true(f->count == 1);
	assert_true(f->start_ns == 1600000 && f->end_ns == 2010000);
	assert_non_null(strstr(f->evidence, "the longest, 410.0 us, in model.py(48): forward"));

	assert_int_equal(get(fs, TG_FINDING_FIRST_STEP_SLOW, NULL)->status, TG_FINDING_NOT_EVALUATED);
	assert_string_equal(get(fs, TG_FINDING_FIRST_STEP_SLOW, NULL)->evidence, "2 steps, 3 needed");
	assert_int_equal(get(fs, TG_FINDING_DATALOADER_STALL, NULL)->status, TG_FINDING_NOT_EVALUATED);
	assert_string_equal(get(fs, TG_FINDING_PAGEABLE_MEMCPY, NULL)->evidence, "no host-to-device copies");
	assert_string_equal(get(fs, TG_FINDING_ATTENTION_BACKEND, NULL)->evidence,
	                    "no scaled_dot_product_attention call");
	assert_int_equal(get(fs, TG_FINDING_GEMM_ALIGNMENT, NULL)->status, TG_FINDING_NOT_EVALUATED);
	assert_int_equal(get(fs, TG_FINDING_LOW_EFFICIENCY, NULL)->status, TG_FINDING_NOT_EVALUATED);
	assert_string_equal(get(fs, TG_FINDING_NO_COMM_OVERLAP, NULL)->evidence,
	                    "no communication kernels in the analysed steps");
	assert_string_equal(get(fs, TG_FINDING_STRAGGLER, NULL)->evidence, "one rank");
	assert_int_equal(get(fs, TG_FINDING_ALL_RANKS_IDLE, NULL)->status, TG_FINDING_NOT_EVALUATED);
	/* the list: fired first, costliest first; then not evaluated; then ok */
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	assert_int_equal(n, TG_FINDING_COUNT);
	assert_int_equal(v[0].id, TG_FINDING_IDLE_GAP);
	assert_int_equal(v[1].id, TG_FINDING_HOST_SYNC);
	assert_int_equal(v[2].status, TG_FINDING_NOT_EVALUATED);
	assert_int_equal(v[n - 1].status, TG_FINDING_OK);
	assert_int_equal(tg_findings_count(fs, TG_FINDING_FIRED), 2);
	tg_findings_free(fs);

	/* one step alone: the same numbers; without the across-rank findings */
	tg_test_must(tg_findings_compute(&fs, l.tree, &o, 1, 0));
	assert_true(get(fs, TG_FINDING_HOST_SYNC, NULL)->cost_ns == 190e3);
	assert_string_equal(get(fs, TG_FINDING_FIRST_STEP_SLOW, NULL)->evidence, "one step selected");
	assert_int_equal(count_id(fs, TG_FINDING_STRAGGLER), 0);
	tg_findings_free(fs);
	assert_int_equal(tg_findings_compute(&fs, l.tree, &o, 2, 0), TG_EINVAL);
	assert_null(fs);

	/* thresholds: host-sync off, launch-bound firing at 2 % */
	o.limits[TG_FINDING_HOST_SYNC].enabled = 0;
	o.limits[TG_FINDING_LAUNCH_BOUND].min_cost = 2;
	tg_test_must(tg_findings_compute(&fs, l.tree, &o, -1, 0));
	assert_int_equal(count_id(fs, TG_FINDING_HOST_SYNC), 0);
	assert_int_equal(get(fs, TG_FINDING_LAUNCH_BOUND, NULL)->status, TG_FINDING_FIRED);
	/* with the sync's finding off, [110,400) is no launch gap (290 us > 200 us) */
	assert_true(get(fs, TG_FINDING_LAUNCH_BOUND, NULL)->cost_ns == 25e3);
	tg_findings_free(fs);
	unload(&l);
}

/* A DataLoader's __next__ [600,900) in each of three steps, the GPU idle
 * in it but for K [650,700) in the first: 250, 300, 300 us idle; steps of
 * 1000, 1000 and 2500 us; the first step is not the slow one. */
static const char *const LOADER =
	"{\"traceEvents\": ["
	X("cpu_op", "ProfilerStep#1", 1, 1, 0, 1000, "") X("cpu_op", "ProfilerStep#2", 1, 1, 1000, 1000, "")
	X("cpu_op", "ProfilerStep#3", 1, 1, 2000, 2500, "")
	X("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, 600, 300, "")
	X("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, 1600, 300, "")
	X("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, 2600, 300, "")
	X("cpu_op", "aten::relu", 1, 1, 610, 20, "")
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 612, 5, "\"correlation\":9")
	X("kernel", "K", 0, 7, 650, 50, "\"correlation\":9,\"stream\":7")
	X("cpu_op", "aten::to", 1, 1, 100, 50, "") X("cpu_op", "aten::copy_", 1, 1, 101, 48, "")
	X("cuda_runtime", "cudaMemcpyAsync", 1, 1, 102, 40, "\"correlation\":8")
	X("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, 130, 10,
	  "\"correlation\":8,\"stream\":7,\"bytes\":1000000")
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}}]}";

static void test_loader(void **state)
{
	(void)state;
	struct loaded l;
	load_mem(&l, LOADER);
	tg_findings *fs;
	tg_test_must(tg_findings_compute(&fs, l.tree, NULL, -1, 0));
	double step;
	assert_int_equal(tg_findings_steps(fs, &step), 3);
	assert_true(step == 1500e3);
	const tg_finding *f = get(fs, TG_FINDING_DATALOADER_STALL, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(f->cost_ns == 850e3 / 3);
	assert_true(f->count == 1);
	assert_non_null(strstr(f->evidence, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__: 1 a step"));
	/* the first step against the median of the others (1750 us): 0.57 x */
	f = get(fs, TG_FINDING_FIRST_STEP_SLOW, NULL);
	assert_int_equal(f->status, TG_FINDING_OK);
	assert_non_null(strstr(f->evidence, "ProfilerStep#1 took 1.00 ms, the median of the 2 others 1.75 ms (0.57 x"));
	/* the pageable copy: 10 us of copy, the GPU idle in its call before the
	 * copy [102,130): 28 us; over 3 steps */
	f = get(fs, TG_FINDING_PAGEABLE_MEMCPY, NULL);
	assert_true(f->cost_ns == 38e3 / 3);
	assert_non_null(
		strstr(f->evidence, "Memcpy HtoD (Pageable -> Device) in aten::copy_, 0.333 MB a step at 100 GB/s"));
	assert_int_equal(f->status, TG_FINDING_FIRED); /* 0.84 % >= 0.5 % */
	tg_findings_free(fs);
	unload(&l);
}

/* GEMMs and attention with shapes (one pass, no steps):
 *   aten::mm [[4096,3072],[3072,768]] bf16: 100 us (19,327,352,832 FLOPs)
 *   aten::mm [[4096,3076],[3076,768]] bf16: 300 us (K = 3076: misaligned)
 *   aten::scaled_dot_product_attention [4,16,1024,64] x 3 bf16, not causal
 *     > aten::_scaled_dot_product_attention_math: bmm 400 us, softmax 200
 *       us, bmm 400 us: 1000 us; its FLOPs 4 x 4*16*1024*1024*64 =
 *       17,179,869,184
 *   the trace spans 0..3000 us: one step of 3000 us. */
#define BF16 "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]"
static const char *const OPS =
	"{\"traceEvents\": ["
	X("cpu_op", "aten::mm", 1, 1, 0, 10, "\"Input Dims\":[[4096,3072],[3072,768]]," BF16)
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 1, 5, "\"correlation\":1")
	X("kernel", "gemm_a", 0, 7, 100, 100, "\"correlation\":1,\"stream\":7")
	X("cpu_op", "aten::mm", 1, 1, 20, 10, "\"Input Dims\":[[4096,3076],[3076,768]]," BF16)
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 21, 5, "\"correlation\":2")
	X("kernel", "gemm_b", 0, 7, 200, 300, "\"correlation\":2,\"stream\":7")
	X("cpu_op", "aten::scaled_dot_product_attention", 1, 1, 40, 40,
	  "\"Input Dims\":[[4,16,1024,64],[4,16,1024,64],[4,16,1024,64],[],[],[],[],[]],"
	  "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"Scalar\","
	  "\"Scalar\",\"\",\"Scalar\"],"
	  "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"0.\",\"False\",\"\",\"False\"]")
	X("cpu_op", "aten::_scaled_dot_product_attention_math", 1, 1, 41, 38, "")
	X("cpu_op", "aten::bmm", 1, 1, 42, 5, "")
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 43, 2, "\"correlation\":3")
	X("kernel", "bmm_k", 0, 7, 500, 400, "\"correlation\":3,\"stream\":7")
	X("cpu_op", "aten::_softmax", 1, 1, 50, 5, "")
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 51, 2, "\"correlation\":4")
	X("kernel", "softmax_k", 0, 7, 900, 200, "\"correlation\":4,\"stream\":7")
	X("cpu_op", "aten::bmm", 1, 1, 60, 5, "")
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 61, 2, "\"correlation\":5")
	X("kernel", "bmm_k", 0, 7, 1100, 400, "\"correlation\":5,\"stream\":7")
	X("cpu_op", "aten::relu", 1, 1, 2990, 10, "")
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}}]}";

static void test_ops(void **state)
{
	(void)state;
	struct loaded l;
	load_mem(&l, OPS);
	tg_findings *fs;
	tg_test_must(tg_findings_compute(&fs, l.tree, NULL, -1, 0));
	double step;
	assert_int_equal(tg_findings_steps(fs, &step), 1);
	assert_true(step == 3000e3);
	/* the aligned GEMM's rate: 19,327,352,832 / 100,000 FLOPs per ns; the
	 * misaligned one's FLOPs (2*4096*768*3076 = 19,352,518,656) at that rate
	 * take 100,130.2 ns: it costs 300,000 - 100,130.2 */
	const tg_finding *f = get(fs, TG_FINDING_GEMM_ALIGNMENT, NULL);
	double rate = 19327352832.0 / 100e3;
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(fabs(f->cost_ns - (300e3 - 19352518656.0 / rate)) < 1e-6);
	assert_true(f->count == 1);
	assert_non_null(strstr(f->evidence, "1 GEMM shape with a dimension not a multiple of 16 bytes"));
	assert_non_null(strstr(f->evidence, "aten::mm M=4096 N=768 K=3076 (K=3076)"));
	assert_non_null(strstr(f->basis, "193 TFLOPS/s"));
	/* attention: 1000 us of math kernels; the same FLOPs at the GEMMs'
	 * rate (both GEMMs: 38,679,871,488 FLOPs in 400 us) take 177.7 us */
	f = get(fs, TG_FINDING_ATTENTION_BACKEND, NULL);
	double gemm_rate = (19327352832.0 + 19352518656.0) / 400e3;
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(fabs(f->cost_ns - (1000e3 - 17179869184.0 / gemm_rate)) < 1e-6);
	assert_non_null(strstr(f->evidence, "1 of 1 scaled_dot_product_attention calls a step ran "
	                                    "aten::_scaled_dot_product_attention_math"));
	assert_non_null(strstr(f->basis, "rate of its GEMMs"));
	/* 16 bytes in fp32 would be 4 elements: 3076 = 4 x 769 passes then;
	 * an alignment of 32 bytes (16 bf16 elements) fails 3076 and 3072 = 16 x 192 passes */
	tg_findings_free(fs);
	tg_findings_opts o;
	tg_findings_opts_default(&o);
	o.limits[TG_FINDING_GEMM_ALIGNMENT].param = 8;
	tg_test_must(tg_findings_compute(&fs, l.tree, &o, -1, 0));
	assert_int_equal(get(fs, TG_FINDING_GEMM_ALIGNMENT, NULL)->status, TG_FINDING_OK);
	tg_findings_free(fs);
	unload(&l);
}

/* A communication kernel [100,400) over a compute kernel [300,350): 250 us
 * exposed of 300; a SendRecv kernel [500,600), point to point, left out. */
static const char *const COMM =
	"{\"traceEvents\": ["
	X("cpu_op", "ProfilerStep#1", 1, 1, 0, 1000, "")
	X("cpu_op", "record_param_comms", 1, 1, 10, 10, "")
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 11, 2, "\"correlation\":1")
	X("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 0, 24, 100, 300,
	  "\"correlation\":1,\"stream\":24")
	X("cpu_op", "aten::mm", 1, 1, 30, 10, "")
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 31, 2, "\"correlation\":2")
	X("kernel", "gemm", 0, 7, 300, 50, "\"correlation\":2,\"stream\":7")
	X("cpu_op", "record_param_comms", 1, 1, 40, 10, "")
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 41, 2, "\"correlation\":3")
	X("kernel", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", 0, 24, 500,
	  100,
	  "\"correlation\":3,\"stream\":24")
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}}]}";

static void test_comm(void **state)
{
	(void)state;
	struct loaded l;
	load_mem(&l, COMM);
	tg_findings *fs;
	tg_test_must(tg_findings_compute(&fs, l.tree, NULL, -1, 0));
	const tg_finding *f = get(fs, TG_FINDING_NO_COMM_OVERLAP, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(f->cost_ns == 250e3);
	assert_true(fabs(f->cost_pct - 25) < 1e-9);
	assert_true(f->count == 1);
	assert_true(f->start_ns == 100000 && f->end_ns == 400000);
	assert_non_null(strstr(f->evidence, "300.0 us a step, 250.0 us of it (83 %)"));
	assert_non_null(strstr(f->evidence, "1 point-to-point kernels a step (100.0 us) left out"));
	tg_findings_free(fs);
	unload(&l);
}

/* Two ranks, three steps of 1000 us each; an allreduce a step, rank 1
 * arriving 200 us after rank 0 in steps 1 and 2, 100 us before it in
 * step 3; both GPUs idle together for [1500,3000) at least (rank 0's
 * kernels end at 1500 in step 2, rank 1's idle from 1450). */
#define RANK_EVENTS(r, d1, d2, d3)                                                                                     \
	X("cpu_op", "ProfilerStep#1", 1, 1, 0, 1000, "") \
	X("cpu_op", "ProfilerStep#2", 1, 1, 1000, 1000, "") \
	X("cpu_op", "ProfilerStep#3", 1, 1, 2000, 1000, "") \
	X("cpu_op", "record_param_comms", 1, 1, 10, 5, "") \
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 11, 2, "\"correlation\":1") \
	X("kernel", K_AR, 0, 24, d1, 100, "\"correlation\":1,\"stream\":24," COLL) \
	X("cpu_op", "record_param_comms", 1, 1, 1010, 5, "") \
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 1011, 2, "\"correlation\":2") \
	X("kernel", K_AR, 0, 24, d2, 100, "\"correlation\":2,\"stream\":24," COLL) \
	X("cpu_op", "record_param_comms", 1, 1, 2010, 5, "") \
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 2011, 2, "\"correlation\":3") \
	X("kernel", K_AR, 0, 24, d3, 100, "\"correlation\":3,\"stream\":24," COLL) \
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}}]," \
	"\"distributedInfo\":{\"rank\":" #r ",\"world_size\":2,\"backend\":\"nccl\"}}"
#define K_AR "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
#define COLL                                                                                                           \
	"\"Collective name\":\"allreduce\",\"dtype\":\"Float\",\"In msg nelems\":1024,\"Out msg nelems\":1024," \
	"\"Group size\":2,\"Process Group Name\":\"0\",\"Process Group Ranks\":\"[0, 1]\""
static const char *const RANK0 = "{\"traceEvents\": [" RANK_EVENTS(0, 100, 1400, 2300);
static const char *const RANK1 = "{\"traceEvents\": [" RANK_EVENTS(1, 300, 1600, 2200);

static void test_across(void **state)
{
	(void)state;
	struct loaded a, b;
	load_mem(&a, RANK0);
	load_mem(&b, RANK1);
	const tg_tree *trees[2] = {a.tree, b.tree};
	tg_findings *fs;
	tg_test_must(tg_findings_across(&fs, trees, 2, NULL, -1));
	/* rank 1 last at 2 of 3 (67 % > 50 %); the earliest waited 200 + 200 us */
	const tg_finding *f = get(fs, TG_FINDING_STRAGGLER, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_int_equal(f->rank, 1);
	assert_string_equal(f->subject, "rank 1");
	assert_true(fabs(f->cost_ns - 400e3 / 3) < 1e-6);
	assert_non_null(strstr(f->evidence, "rank 1 arrived last at 2 of 3 collectives matched across 2 ranks (67 %"));
	assert_non_null(strstr(f->evidence, "(allreduce)"));
	/* every GPU idle: [400,1400) (1000 us) and [1700,2200) (500: under 1 ms) */
	f = get(fs, TG_FINDING_ALL_RANKS_IDLE, NULL);
	assert_true(fabs(f->cost_ns - 1000e3 / 3) < 1e-6);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(f->start_ns == 400000 && f->end_ns == 1400000);
	tg_findings_free(fs);
	/* one step: ProfilerStep#3 only: rank 0 last there, no stretch of 1 ms */
	tg_test_must(tg_findings_across(&fs, trees, 2, NULL, 3));
	f = get(fs, TG_FINDING_STRAGGLER, NULL);
	assert_int_equal(f->rank, 0);
	assert_true(f->cost_ns == 100e3);
	tg_findings_free(fs);
	/* one rank, or the same rank twice (runs): not evaluated */
	tg_test_must(tg_findings_across(&fs, trees, 1, NULL, -1));
	assert_string_equal(get(fs, TG_FINDING_STRAGGLER, NULL)->evidence, "one rank (give every rank's trace)");
	tg_findings_free(fs);
	const tg_tree *twice[2] = {a.tree, a.tree};
	tg_test_must(tg_findings_across(&fs, twice, 2, NULL, -1));
	assert_non_null(strstr(get(fs, TG_FINDING_ALL_RANKS_IDLE, NULL)->evidence, "rank 0 twice"));
	tg_findings_free(fs);
	/* a rank alone says which rank of how many it is */
	tg_test_must(tg_findings_compute(&fs, b.tree, NULL, -1, 1));
	assert_string_equal(get(fs, TG_FINDING_STRAGGLER, NULL)->evidence, "one rank of 2 (give every rank's trace)");
	assert_int_equal(get(fs, TG_FINDING_NO_COMM_OVERLAP, NULL)->rank, 1);
	tg_findings_free(fs);
	unload(&a);
	unload(&b);
}

/* ------------------------------------------------------------ sides */

static void test_compare(void **state)
{
	(void)state;
	struct loaded l;
	load_mem(&l, HOST);
	tg_findings_opts o;
	tg_findings_opts_default(&o);
	o.limits[TG_FINDING_IDLE_GAP].param = 300e3;
	tg_findings *base, *next, *gone;
	tg_test_must(tg_findings_compute(&base, l.tree, &o, -1, 0));
	tg_test_must(tg_findings_compute(&next, l.tree, &o, -1, 0));
	/* the same trace: everything the same */
	tg_finding_delta *d;
	size_t n;
	tg_test_must(tg_findings_compare(&d, &n, base, next, &o));
	assert_int_equal(n, 2);
	assert_int_equal(d[0].change, TG_FINDING_SAME);
	assert_int_equal(d[1].change, TG_FINDING_SAME);
	free(d);
	/* host syncs off on the base side: new on the other, with its fix */
	o.limits[TG_FINDING_HOST_SYNC].enabled = 0;
	tg_test_must(tg_findings_compute(&gone, l.tree, &o, -1, 0));
	tg_test_must(tg_findings_compare(&d, &n, gone, next, &o));
	assert_int_equal(n, 2);
	assert_int_equal(d[0].change, TG_FINDING_NEW);
	assert_int_equal(d[0].next->id, TG_FINDING_HOST_SYNC);
	assert_null(d[0].base);
	assert_string_equal(d[0].note, "the base could not evaluate it");
	char s[1024];
	tg_finding_delta_sentence(s, sizeof(s), &d[0]);
	assert_string_equal(s, "new: host sync in Block.forward: aten::item (1 a step) costs 190.0 us a step "
	                       "(19.0 % of the step) (the base could not evaluate it); fix: keep values on the GPU: "
	                       "remove or defer "
	                       "the .item() / .cpu() / .tolist() / torch.cuda.synchronize() (log every N steps, copy "
	                       "with non_blocking=True)");
	free(d);
	/* and gone the other way */
	tg_test_must(tg_findings_compare(&d, &n, next, gone, &o));
	assert_int_equal(d[0].change, TG_FINDING_GONE);
	tg_finding_delta_sentence(s, sizeof(s), &d[0]);
	assert_string_equal(s, "gone: host sync in Block.forward: aten::item (1 a step), which cost 190.0 us a step "
	                       "(19.0 % of the step) (the new side could not evaluate it)");
	free(d);
	/* worse: the idle gap 60 % dearer on the new side (40 % is the limit) */
	o.worse_above = 40;
	next->v[0].cost_ns *= 1.6;
	tg_test_must(tg_findings_compare(&d, &n, base, next, &o));
	assert_int_equal(d[0].change, TG_FINDING_WORSE);
	assert_int_equal(d[0].next->id, TG_FINDING_IDLE_GAP);
	free(d);
	o.worse_above = 70;
	tg_test_must(tg_findings_compare(&d, &n, base, next, &o));
	assert_int_equal(d[1].change, TG_FINDING_SAME);
	free(d);
	next->v[0].cost_ns /= 8;
	tg_test_must(tg_findings_compare(&d, &n, base, next, &o));
	assert_int_equal(d[0].change, TG_FINDING_BETTER);
	free(d);
	tg_findings_free(base);
	tg_findings_free(next);
	tg_findings_free(gone);
	unload(&l);
}

/* A side of two runs of rank 0 and one of rank 1: the mean over the runs
 * of a rank, the largest over the ranks; fired when it fired in any. */
static void test_side(void **state)
{
	(void)state;
	struct loaded l;
	load_mem(&l, HOST);
	tg_findings_opts o;
	tg_findings_opts_default(&o);
	o.limits[TG_FINDING_IDLE_GAP].param = 300e3;
	tg_findings *t[3];
	for (int i = 0; i < 3; i++)
		tg_test_must(tg_findings_compute(&t[i], l.tree, &o, -1, 0));
	/* host-sync: 190 us in run 1 of rank 0, ok at 60 us in run 2, 100 us on rank 1 */
	for (size_t k = 0; k < t[1]->n; k++)
		if (t[1]->v[k].id == TG_FINDING_HOST_SYNC) {
			t[1]->v[k].cost_ns = 60e3;
			t[1]->v[k].cost_pct = 6;
			t[1]->v[k].status = TG_FINDING_OK;
		}
	for (size_t k = 0; k < t[2]->n; k++)
		if (t[2]->v[k].id == TG_FINDING_HOST_SYNC) {
			t[2]->v[k].cost_ns = 100e3;
			t[2]->v[k].cost_pct = 10;
		}
	int64_t ranks[3] = {0, 0, 1};
	tg_findings *side;
	tg_test_must(tg_findings_side(&side, (const tg_findings *const *)t, ranks, 3, NULL));
	const tg_finding *f = get(side, TG_FINDING_HOST_SYNC, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(f->cost_ns == 125e3); /* rank 0: (190 + 60) / 2 > rank 1: 100 */
	assert_true(f->cost_pct == 12.5);
	assert_int_equal(count_id(side, TG_FINDING_HOST_SYNC), 1);
	tg_findings_free(side);
	for (int i = 0; i < 3; i++)
		tg_findings_free(t[i]);
	unload(&l);
}

/* ------------------------------------------------------------ rendering */

static char *render(int (*w)(FILE *, const tg_findings *), const tg_findings *fs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	tg_test_must(w(f, fs));
	fclose(f);
	return buf;
}

static int text100(FILE *f, const tg_findings *fs)
{
	return tg_findings_write_text(f, fs, 100);
}

static void test_render(void **state)
{
	(void)state;
	struct loaded l;
	load_mem(&l, HOST);
	tg_findings_opts o;
	tg_findings_opts_default(&o);
	o.limits[TG_FINDING_IDLE_GAP].param = 300e3;
	tg_findings *fs;
	tg_test_must(tg_findings_compute(&fs, l.tree, &o, -1, 1));
	char *txt = render(text100, fs);
	assert_non_null(strstr(txt, "Findings: 2 fired, 7 not evaluated, 3 ok (over 2 steps of 1.00 ms)\n"));
	assert_non_null(
		strstr(txt, "  host-sync Block.forward: aten::item: costs 190.0 us a step (19.0 % of the step)\n"));
	assert_non_null(strstr(txt, "      fix: keep values on the GPU"));
	assert_non_null(strstr(txt, "  ok: launch-bound (2.5 %), pageable-memcpy (0.0 %), attention-backend (0.0 %)"));
	for (char *p = txt, *nl; (nl = strchr(p, '\n')); p = nl + 1)
		assert_true(nl - p <= 100);
	free(txt);
	char *md = render(tg_findings_write_md, fs);
	assert_non_null(strstr(md, "### Findings\n\n| finding | where | cost a step | evidence | fix |\n"));
	assert_non_null(strstr(md, "| **host-sync** | <code>Block.forward: aten::item</code> | 190.0 us a step "
	                           "(19.0 % of "
	                           "the step) |"));
	assert_non_null(strstr(md, "Not evaluated: **dataloader-stall** ("));
	free(md);
	char *js = render(tg_findings_write_json, fs);
	json_error_t err;
	json_t *a = json_loads(js, 0, &err);
	assert_non_null(a);
	assert_int_equal(json_array_size(a), TG_FINDING_COUNT);
	json_t *h = json_array_get(a, 1);
	assert_string_equal(json_string_value(json_object_get(h, "id")), "host-sync");
	assert_string_equal(json_string_value(json_object_get(h, "status")), "fired");
	assert_true(json_real_value(json_object_get(h, "cost_per_step_us")) == 190);
	assert_true(json_real_value(json_object_get(h, "cost_pct")) == 19);
	assert_true(json_real_value(json_object_get(h, "start_us")) == 1210);
	assert_true(json_is_null(json_object_get(h, "rank")));
	json_t *ne = json_array_get(a, 2);
	assert_string_equal(json_string_value(json_object_get(ne, "status")), "not evaluated");
	assert_true(json_is_null(json_object_get(ne, "cost_per_step_us")));
	json_decref(a);
	free(js);
	tg_table *t;
	tg_test_must(tg_findings_table(&t, fs));
	assert_string_equal(tg_table_name(t), "findings");
	assert_int_equal(tg_table_nrows(t), TG_FINDING_COUNT);
	assert_string_equal(tg_test_cell(t, 1, "subject")->v.s, "Block.forward: aten::item");
	assert_true(tg_test_cell(t, 1, "cost_per_step(us)")->v.d == 190);
	assert_int_equal(tg_test_cell(t, 2, "cost_per_step(us)")->type, TG_CELL_EMPTY);
	tg_table_free(t);
	/* the changes: md escapes, json parses */
	tg_findings *none;
	o.limits[TG_FINDING_HOST_SYNC].enabled = 0;
	tg_test_must(tg_findings_compute(&none, l.tree, &o, -1, 0));
	tg_finding_delta *d;
	size_t n;
	tg_test_must(tg_findings_compare(&d, &n, none, fs, &o));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	tg_test_must(tg_findings_compare_write_md(f, d, n));
	fclose(f);
	assert_non_null(strstr(buf, "#### Findings\n\n- **new**: host sync in <code>Block.forward: aten::item</code> "
	                            "(1 a step) costs 190.0 us a step (19.0 % of the step) (the base could not "
	                            "evaluate it); "
	                            "fix: keep values on the GPU: remove or defer the .item() / .cpu() / .tolist() / "
	                            "torch.cuda.synchronize() (log every N steps, copy with "
	                            "non\\_blocking=True)<br>\n"));
	assert_non_null(strstr(buf, "\nThe same on both sides: idle-gap.\n"));
	free(buf);
	f = open_memstream(&buf, &len);
	tg_test_must(tg_findings_compare_write_json(f, d, n));
	fclose(f);
	a = json_loads(buf, 0, &err);
	assert_non_null(a);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0), "change")), "new");
	assert_true(json_is_null(json_object_get(json_array_get(a, 0), "base")));
	json_decref(a);
	free(buf);
	free(d);
	tg_findings_free(none);
	tg_findings_free(fs);
	unload(&l);
}

/* ------------------------------------------------------------ shared traces */

static tg_findings *shared(const char *rel, int with_across)
{
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, rel);
	tg_findings *fs;
	tg_test_must(tg_findings_compute(&fs, tree, NULL, -1, with_across));
	tg_tree_free(tree);
	tg_trace_free(t);
	return fs;
}

/* The Kineto unit-test pair: one Event Sync in op_evt_sync (found by its
 * External id: the sync event has no runtime call), 20 ns with the GPU
 * idle, of a 130 ns span; the same on both (the fix was Kineto's). */
static void test_kineto_pair(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_findings *a = shared("kineto/kineto_MOCK_unittest_H100_cuda_sync_before_fix.json.gz", 1);
	tg_findings *b = shared("kineto/kineto_MOCK_unittest_H100_cuda_sync_after_fix.json.gz", 1);
	for (int i = 0; i < 2; i++) {
		const tg_finding *f = get(i ? b : a, TG_FINDING_HOST_SYNC, NULL);
		assert_int_equal(f->status, TG_FINDING_FIRED);
		assert_string_equal(f->subject, "op_evt_sync");
		assert_true(f->cost_ns == 20);
		assert_true(f->step_ns == 130);
		assert_true(f->count == 1);
	}
	tg_finding_delta *d;
	size_t n;
	tg_test_must(tg_findings_compare(&d, &n, a, b, NULL));
	assert_int_equal(n, 1);
	assert_int_equal(d[0].change, TG_FINDING_SAME);
	free(d);
	tg_findings_free(a);
	tg_findings_free(b);
}

/* ResNet-50: the DataLoader without workers costs the GPU 59.26 ms of a
 * 174.83 ms step idle (33.9 %); with 4 workers 1.19 ms of 139.69 (0.85 %).
 * Both copy their inputs from pageable memory. */
static void test_resnet_dataloader(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_findings *w0 = shared("kineto/kineto_tbplugin_resnet50_V100_num_workers_0_worker0."
	                         "1623143089861.pt.trace.json.gz", 0);
	tg_findings *w4 = shared("kineto/kineto_tbplugin_resnet50_V100_num_workers_4_worker0."
	                         "1623212756351.pt.trace.json.gz", 0);
	const tg_finding *f = get(w0, TG_FINDING_DATALOADER_STALL, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(fabs(f->cost_ns - 59261833.333) < 1);
	assert_true(fabs(f->step_ns - 174829333.333) < 1);
	assert_non_null(strstr(f->evidence, "_SingleProcessDataLoaderIter.__next__: 1 a step, 69.30 ms a step"));
	f = get(w4, TG_FINDING_DATALOADER_STALL, NULL);
	assert_int_equal(f->status, TG_FINDING_OK);
	assert_true(fabs(f->cost_ns - 1186166.667) < 1);
	assert_true(fabs(f->cost_pct - 0.849) < 0.001);
	for (int i = 0; i < 2; i++) {
		f = get(i ? w4 : w0, TG_FINDING_PAGEABLE_MEMCPY, NULL);
		assert_int_equal(f->status, TG_FINDING_FIRED);
		assert_true(f->count == 2);
		assert_non_null(strstr(f->evidence, "Memcpy HtoD (Pageable -> Device) in aten::copy_, 19.3 MB a step"));
	}
	tg_findings_free(w0);
	tg_findings_free(w4);
}

/* h200-dev: the MLP width 3076 (gemm_misaligned_r1) makes six GEMM shapes
 * misaligned, 2.503 ms of kernel time a step at 177-197 TFLOPS/s where the
 * aligned ones reach 571.9: 1.690 ms a step lost. None on the base; the
 * dropout runs keep the flash backend (SOURCES-h200-dev.md). */
static void test_h200(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_findings *mis = shared("h200-dev/gemm_misaligned_r1/rank0.pt.trace.json.gz", 0);
	const tg_finding *f = get(mis, TG_FINDING_GEMM_ALIGNMENT, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(fabs(f->cost_ns - 1690491.0) < 1);
	assert_true(f->count == 24);
	assert_non_null(strstr(f->evidence, "6 GEMM shapes with a dimension not a multiple of 16 bytes, 24 calls and "
	                                    "2.50 ms of kernel time a step"));
	assert_non_null(strstr(f->evidence, "aten::addmm M=4096 N=3076 K=768 (N=3076) at 177 TFLOPS/s"));
	assert_non_null(strstr(f->basis, "572 TFLOPS/s"));
	tg_findings_free(mis);
	static const char *const clean[] = {"h200-dev/base_r1/rank0.pt.trace.json.gz",
	                                    "h200-dev/dropout2_r1/rank0.pt.trace.json.gz"};
	for (int i = 0; i < 2; i++) {
		tg_findings *fs = shared(clean[i], 0);
		static const tg_finding_id quiet[] = {TG_FINDING_HOST_SYNC, TG_FINDING_PAGEABLE_MEMCPY,
		                                      TG_FINDING_ATTENTION_BACKEND, TG_FINDING_GEMM_ALIGNMENT,
		                                      TG_FINDING_FIRST_STEP_SLOW, TG_FINDING_LOW_EFFICIENCY};
		for (size_t q = 0; q < sizeof(quiet) / sizeof(quiet[0]); q++)
			assert_int_equal(get(fs, quiet[q], NULL)->status, TG_FINDING_OK);
		assert_int_equal(get(fs, TG_FINDING_DATALOADER_STALL, NULL)->status, TG_FINDING_NOT_EVALUATED);
		assert_int_equal(get(fs, TG_FINDING_NO_COMM_OVERLAP, NULL)->status, TG_FINDING_NOT_EVALUATED);
		/* flash, dropout or not: 24 of 24 calls (4 layers x 6 steps) */
		assert_non_null(strstr(get(fs, TG_FINDING_ATTENTION_BACKEND, NULL)->evidence,
		                       "4 scaled_dot_product_attention calls a step, none on the math path "
		                       "(aten::_scaled_dot_product_flash_attention)"));
		/* what SOURCES-h200-dev.md says of it: launch-bound */
		assert_int_equal(get(fs, TG_FINDING_LAUNCH_BOUND, NULL)->status, TG_FINDING_FIRED);
		tg_findings_free(fs);
	}
}

/* Communication: the V100 rank's 404 all-reduces a step run with no
 * compute at all (71.47 ms of 347.54); the sampled 128-rank job's pair only
 * sends and receives (pipeline: no straggler claimed). */
static void test_comm_shared(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_findings *fs = shared("hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz", 1);
	const tg_finding *f = get(fs, TG_FINDING_NO_COMM_OVERLAP, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(f->cost_ns == 71468600);
	assert_true(f->count == 404);
	assert_int_equal(f->rank, 1);
	assert_non_null(strstr(f->evidence, "(100 %) with no computation running"));
	assert_string_equal(get(fs, TG_FINDING_STRAGGLER, NULL)->evidence, "one rank of 2 (give every rank's trace)");
	tg_findings_free(fs);

	tg_trace *t0, *t1;
	tg_tree *r0 = tg_test_load_shared(&t0, "hta/hta_sampled_128rank_job_rank-0.json.gz");
	tg_tree *r1 = tg_test_load_shared(&t1, "hta/hta_sampled_128rank_job_rank-1.json.gz");
	const tg_tree *trees[2] = {r0, r1};
	tg_test_must(tg_findings_across(&fs, trees, 2, NULL, -1));
	f = get(fs, TG_FINDING_STRAGGLER, NULL);
	assert_int_equal(f->status, TG_FINDING_NOT_EVALUATED);
	assert_non_null(strstr(f->evidence, "point-to-point send/recv kernels"));
	tg_findings_free(fs);
	tg_findings *one = NULL;
	tg_test_must(tg_findings_compute(&one, r0, NULL, -1, 0));
	assert_string_equal(get(one, TG_FINDING_NO_COMM_OVERLAP, NULL)->evidence,
	                    "only point-to-point communication (send/recv kernels) in the analysed steps");
	tg_findings_free(one);
	tg_tree_free(r0);
	tg_tree_free(r1);
	tg_trace_free(t0);
	tg_trace_free(t1);
}

/* Nothing crashes or misleads on any shared trace: every finding is listed
 * once (host-sync places aside), with a status, and a fired one has a cost. */
static void test_every_shared(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const char *const rel[] = {"hta/hta_mtia_train_rank0_of1.json.gz",
	                                  "hta/hta_cpu_only_gloo_rank-34_of300.pt.trace.json.gz",
	                                  "tracelens/tests/traces/mi210/gpu_only_trace/gpu_only_trace.json.gz",
	                                  "hta/hta_edge_SYNTHETIC_large_uint64_arg_rank-70.json.gz",
	                                  "tracelens/tests/traces/inference/sglang_decode/"
	                                  "sglang_Qwen3-8B_decode.json.gz",
	                                  "hta/hta_amd_mi250_rocm6.2_minitoy_train.json.gz"};
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		tg_findings *fs = shared(rel[i], 1);
		size_t n;
		const tg_finding *v = tg_findings_list(fs, &n);
		for (int id = 0; id < TG_FINDING_COUNT; id++)
			assert_true(count_id(fs, (tg_finding_id)id) >= 1);
		for (size_t k = 0; k < n; k++)
			if (v[k].status == TG_FINDING_FIRED)
				assert_true(v[k].cost_ns > 0 && v[k].cost_pct >= v[k].threshold);
		tg_findings_free(fs);
	}
}

/* Device events alone: what needs the host is not evaluated, and says so. */
/* tg_fctx_drop_busy (tg_findings_compute frees the busy intervals once
 * pageable-memcpy has read them, before the ops' perf sheets): the intervals
 * are there after tg_fctx_init, gone after the drop (the busy time then
 * 0), and a second drop and tg_fctx_free are harmless. */
static void test_drop_busy(void **state)
{
	(void)state;
	struct loaded l;
	load_mem(&l, "{\"traceEvents\": [" X("kernel", "K", 0, 7, 0, 100, "\"stream\":7")
	             X("kernel", "K", 0, 7, 5000, 100, "\"stream\":7") "{\"ph\":\"M\",\"name\":\"x\",\"pid\":0}]}");
	tg_findings_opts o;
	tg_findings_opts_default(&o);
	tg_findings *out = tg_calloc(1, sizeof(*out));
	assert_non_null(out);
	tg_fctx c;
	tg_test_must(tg_fctx_init(&c, l.tree, &o, -1, out, 1));
	assert_int_equal(c.nbusy, 2);
	int64_t busy = tg_fctx_busy_in(&c, 0, 6000);
	assert_true(busy > 0);
	tg_fctx_drop_busy(&c);
	assert_null(c.busy);
	assert_int_equal(c.nbusy, 0);
	assert_int_equal(tg_fctx_busy_in(&c, 0, 6000), 0);
	tg_fctx_drop_busy(&c);
	tg_fctx_free(&c);
	tg_findings_free(out);
	unload(&l);
}

static void test_gpu_only(void **state)
{
	(void)state;
	struct loaded l;
	load_mem(&l, "{\"traceEvents\": [" X("kernel", "K", 0, 7, 0, 100, "\"stream\":7")
	             X("kernel", "K", 0, 7, 5000, 100, "\"stream\":7") "{\"ph\":\"M\",\"name\":\"x\",\"pid\":0}]}");
	tg_findings *fs;
	tg_test_must(tg_findings_compute(&fs, l.tree, NULL, -1, 0));
	static const tg_finding_id ids[] = {TG_FINDING_HOST_SYNC, TG_FINDING_DATALOADER_STALL, TG_FINDING_LAUNCH_BOUND,
	                                    TG_FINDING_ATTENTION_BACKEND, TG_FINDING_GEMM_ALIGNMENT};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const tg_finding *f = get(fs, ids[i], NULL);
		assert_int_equal(f->status, TG_FINDING_NOT_EVALUATED);
		assert_non_null(strstr(f->evidence, "no CPU side in the trace"));
	}
	/* the gap is seen all the same: 4.9 ms of a 5.1 ms span */
	const tg_finding *f = get(fs, TG_FINDING_IDLE_GAP, NULL);
	assert_int_equal(f->status, TG_FINDING_FIRED);
	assert_true(f->cost_ns == 4900e3);
	tg_findings_free(fs);
	unload(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),        cmocka_unit_test(test_host),
		cmocka_unit_test(test_loader),       cmocka_unit_test(test_ops),
		cmocka_unit_test(test_comm),         cmocka_unit_test(test_across),
		cmocka_unit_test(test_compare),      cmocka_unit_test(test_side),
		cmocka_unit_test(test_render),       cmocka_unit_test(test_kineto_pair),
		cmocka_unit_test(test_resnet_dataloader), cmocka_unit_test(test_h200),
		cmocka_unit_test(test_comm_shared),  cmocka_unit_test(test_every_shared),
		cmocka_unit_test(test_gpu_only),     cmocka_unit_test(test_drop_busy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
