/* test_real_traces.c - every real trace of ../shared/traces read and built
 * into a tree, checked against counts computed independently of tracegate.
 *
 * For each trace: raw, metadata, counter, flow and skipped entries and the
 * events of every kind (tg_trace_stats); after tg_tree_build, every parent
 * is TG_NONE or a valid index and no parent chain loops; every device event
 * (kernel, memcpy, memset) whose "correlation" some runtime/driver event
 * also has hangs under such a launch, and their number is the expected one;
 * the number of steps and of device events. Two traces have extra checks
 * taken from the peers' own tests: the nn.Module tree of the SGLang
 * Qwen3-8B trace (TraceLens test_build_nn_module_latency_tree) and the
 * counts of the xDiT SD3.5 trace (TraceLens SOURCES table).
 *
 * Where the numbers come from: a separate Python script (stdlib json and
 * gzip only, not part of the repository) that loads every *.json(.gz) with
 * a top-level "traceEvents" under shared/traces and counts, per entry of
 * traceEvents:
 *   raw       every entry;
 *   ph M / C  metadata / counter; ph s, t, f: flow;
 *   ph X, B, i, I: an event, of a kind given by its "cat": python_function
 *             -> python; cpu_op, Operator, operator -> cpu_op;
 *             user_annotation; cuda_runtime, Runtime, mtia_runtime ->
 *             runtime; cuda_driver -> driver; kernel, Kernel,
 *             mtia_ccp_events -> kernel, except names starting "dma" ->
 *             memcpy; gpu_memcpy, Memcpy -> memcpy; gpu_memset, Memset ->
 *             memset; gpu_user_annotation; cuda_sync -> sync; Trace ->
 *             trace span; cuda_profiler_range; overhead; anything else ->
 *             other; ph i and I are instants whatever their category;
 *   ph E      closes the last open B of its (pid, tid), else skipped;
 *   other ph, or none: skipped;
 *   linkable  kernel/memcpy/memset events whose args.correlation equals the
 *             args.correlation of some runtime or driver event;
 *   steps     events named ProfilerStep#<digits> of kind cpu_op or
 *             user_annotation.
 * No trace of the corpus has B/E pairs, ph t, other phases or unknown
 * categories (skipped and other are 0 everywhere): test_trace_read covers
 * those with synthetic input.
 * Where the SOURCES-*.md tables of shared/traces give the same columns (ev,
 * pyfn, cpu_op, runtime, kernel, memcpy, memset, sync, flows...), they
 * agree with these numbers, except for the two MTIA traces, where
 * SOURCES-hta-kineto.md counts only the literal categories kernel,
 * cuda_runtime and gpu_memcpy (0) while mtia_ccp_events, mtia_runtime and
 * the dma_* kernels count here.
 */
#include "testutil.h"
#include "../core/tree/modules.h"

struct expected;
typedef void (*extra_check)(const struct expected *x, const tg_trace *t, const tg_tree *tree);

struct expected {
	const char *path; /* under the traces folder */
	uint64_t raw, meta, counter, flow, skipped;
	uint64_t kind[TG_KIND_COUNT];
	uint64_t linkable; /* device events whose correlation a launch also has */
	uint64_t steps;    /* ProfilerStep#N events of kind cpu_op or user_annotation */
	extra_check extra; /* or NULL */
};

#define KINDS(py, cpu, ua, rt, drv, kern, mcpy, mset, gann, sync, inst, span, range, ovh, other) \
	{                                                                                            \
		[TG_KIND_PYTHON] = py, [TG_KIND_CPU_OP] = cpu, [TG_KIND_USER_ANNOTATION] = ua,           \
		[TG_KIND_RUNTIME] = rt, [TG_KIND_DRIVER] = drv, [TG_KIND_KERNEL] = kern,                 \
		[TG_KIND_MEMCPY] = mcpy, [TG_KIND_MEMSET] = mset, [TG_KIND_GPU_ANNOTATION] = gann,       \
		[TG_KIND_SYNC] = sync, [TG_KIND_INSTANT] = inst, [TG_KIND_TRACE_SPAN] = span,            \
		[TG_KIND_PROFILER_RANGE] = range, [TG_KIND_OVERHEAD] = ovh, [TG_KIND_OTHER] = other,     \
	}

static void check_qwen3_modules(const struct expected *x, const tg_trace *t, const tg_tree *tree);
static void check_xdit_peer_counts(const struct expected *x, const tg_trace *t, const tg_tree *tree);

/* path,
 *  raw, meta, counter, flow, skipped,
 *  KINDS(python, cpu_op, user_annotation, runtime, driver, kernel, memcpy,
 *        memset, gpu_annotation, sync, instant, trace_span, profiler_range,
 *        overhead, other), linkable, steps, extra check or NULL */
static const struct expected expected[] = {
	{"hta/hta_amd_mi250_rocm6.2_minitoy_train.json.gz",
	 220, 60, 0, 45, 0, KINDS(0, 70, 3, 21, 0, 14, 2, 0, 2, 0, 2, 1, 0, 0, 0), 16, 2, NULL},
	{"hta/hta_cpu_only_gloo_rank-34_of300.pt.trace.json.gz",
	 7604, 12, 0, 110, 0, KINDS(0, 7379, 100, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0), 0, 5, NULL},
	{"hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz",
	 1408, 38, 0, 500, 0, KINDS(0, 359, 8, 361, 0, 79, 16, 3, 0, 41, 2, 1, 0, 0, 0), 98, 0, NULL},
	{"hta/hta_critical_path_cuda_event_sync_A100_rank0.json.gz",
	 92, 36, 0, 21, 0, KINDS(0, 10, 1, 12, 0, 4, 1, 0, 0, 4, 2, 1, 0, 0, 0), 5, 1, NULL},
	{"hta/hta_critical_path_cuda_event_sync_multistream_A100_rank0.json.gz",
	 149, 40, 0, 50, 0, KINDS(0, 6, 0, 39, 0, 3, 0, 3, 0, 5, 2, 1, 0, 0, 0), 6, 0, NULL},
	{"hta/hta_critical_path_simple_add_A100_cuda_sync_rank0.json.gz",
	 1348, 38, 0, 470, 0, KINDS(0, 359, 8, 331, 0, 79, 16, 3, 0, 41, 2, 1, 0, 0, 0), 98, 0, NULL},
	{"hta/hta_cupti_profiler_range_counters_A100_rank0.json.gz",
	 4222, 33, 0, 1862, 0, KINDS(0, 375, 8, 1862, 0, 0, 0, 0, 0, 0, 3, 2, 77, 0, 0), 0, 0, NULL},
	{"hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz",
	 216092, 38, 0, 64663, 0, KINDS(0, 56680, 2035, 42373, 0, 19370, 2040, 880, 0, 0, 28012, 1, 0, 0, 0), 22290, 5, NULL},
	{"hta/hta_edge_SYNTHETIC_large_uint64_arg_rank-70.json.gz",
	 2, 0, 0, 0, 0, KINDS(0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0, 0, NULL},
	{"hta/hta_edge_no_distributedInfo_cpu_ops_only.json.gz",
	 2467, 0, 0, 0, 0, KINDS(0, 2424, 43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0, 1, NULL},
	{"hta/hta_gpu_user_annotation_QuadroGP100_rank0.json.gz",
	 1344, 38, 0, 320, 0, KINDS(0, 643, 10, 180, 0, 130, 10, 0, 10, 0, 2, 1, 0, 0, 0), 140, 0, NULL},
	{"hta/hta_inference_legacy_schema_rank1.json.gz",
	 54, 32, 0, 8, 0, KINDS(0, 0, 0, 8, 0, 4, 0, 0, 0, 0, 1, 1, 0, 0, 0), 4, 0, NULL},
	{"hta/hta_mtia_inference_no_profilerstep_rank0.json.gz",
	 16158, 176, 0, 1801, 0, KINDS(0, 10346, 1696, 823, 0, 436, 877, 0, 0, 0, 2, 1, 0, 0, 0), 991, 0, NULL},
	{"hta/hta_mtia_train_rank0_of1.json.gz",
	 455739, 310046, 0, 7316, 0, KINDS(0, 108889, 214, 3453, 0, 3453, 22361, 0, 0, 0, 4, 3, 0, 0, 0), 3453, 1, NULL},
	{"hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz",
	 40573, 38, 0, 13600, 0, KINDS(0, 14346, 42, 8740, 0, 2700, 960, 114, 30, 0, 2, 1, 0, 0, 0), 3774, 3, NULL},
	{"hta/hta_negative_queue_len_A100-80GB_triton_rank0_of16.json.gz",
	 108936, 46, 0, 41671, 0, KINDS(0, 25185, 360, 33924, 0, 6080, 1390, 277, 0, 0, 2, 1, 0, 0, 0), 6875, 5, NULL},
	{"hta/hta_sampled_128rank_job_rank-0.json.gz",
	 4855, 44, 0, 0, 0, KINDS(0, 2329, 73, 1204, 0, 1154, 40, 10, 0, 0, 0, 1, 0, 0, 0), 1204, 2, NULL},
	{"hta/hta_sampled_128rank_job_rank-1.json.gz",
	 4720, 44, 0, 0, 0, KINDS(0, 2302, 65, 1154, 0, 1104, 40, 10, 0, 0, 0, 1, 0, 0, 0), 1154, 2, NULL},
	{"hta/hta_trace_compare_base_rank1.json.gz",
	 33, 0, 0, 0, 0, KINDS(0, 6, 4, 5, 0, 6, 6, 6, 0, 0, 0, 0, 0, 0, 0), 2, 2, NULL},
	{"hta/hta_trace_compare_test_rank1.json.gz",
	 34, 0, 0, 0, 0, KINDS(0, 9, 3, 5, 0, 5, 6, 6, 0, 0, 0, 0, 0, 0, 0), 1, 2, NULL},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz",
	 109123, 42, 0, 34142, 0, KINDS(0, 40506, 288, 24692, 0, 8568, 228, 654, 0, 0, 2, 1, 0, 0, 0), 9450, 6, NULL},
	{"hta/hta_trace_diff_test_V100_rank1_of2.json.gz",
	 105167, 42, 0, 36799, 0, KINDS(0, 31236, 288, 21167, 0, 9876, 4856, 900, 0, 0, 2, 1, 0, 0, 0), 15018, 6, NULL},
	{"hta/hta_triton_example_A100_cuLaunchKernel.json.gz",
	 71, 58, 0, 3, 0, KINDS(0, 3, 1, 1, 1, 1, 0, 0, 0, 0, 2, 1, 0, 0, 0), 1, 1, NULL},
	{"kineto/kineto_MOCK_unittest_H100_cuda_sync_after_fix.json.gz",
	 75, 60, 0, 4, 0, KINDS(0, 4, 0, 1, 0, 1, 0, 0, 0, 2, 2, 1, 0, 0, 0), 1, 0, NULL},
	{"kineto/kineto_MOCK_unittest_H100_cuda_sync_before_fix.json.gz",
	 75, 60, 0, 4, 0, KINDS(0, 4, 0, 1, 0, 1, 0, 0, 0, 2, 2, 1, 0, 0, 0), 1, 0, NULL},
	{"kineto/kineto_tbplugin_resnet50_V100_num_workers_0_worker0.1623143089861.pt.trace.json.gz",
	 75718, 20, 0, 18192, 0, KINDS(0, 23646, 0, 11923, 0, 8772, 12, 312, 0, 0, 12840, 1, 0, 0, 0), 9096, 6, NULL},
	{"kineto/kineto_tbplugin_resnet50_V100_num_workers_4_worker0.1623212756351.pt.trace.json.gz",
	 71424, 20, 0, 18516, 0, KINDS(0, 20562, 0, 12085, 0, 8868, 12, 378, 0, 0, 10982, 1, 0, 0, 0), 9258, 6, NULL},
	{"kineto/kineto_tbplugin_resnet50_autograd_api_2021-01_schema_worker0.pt.trace.json.gz",
	 79711, 20, 0, 20266, 0, KINDS(0, 33535, 0, 15754, 0, 9329, 338, 466, 0, 0, 2, 1, 0, 0, 0), 10133, 0, NULL},
	{"kineto/kineto_tbplugin_test_gpu_metrics_expected.json.gz",
	 418, 20, 78, 64, 0, KINDS(0, 179, 0, 42, 0, 30, 2, 0, 0, 0, 2, 1, 0, 0, 0), 32, 1, NULL},
	{"kineto/kineto_tbplugin_test_gpu_metrics_input.json.gz",
	 340, 20, 0, 64, 0, KINDS(0, 179, 0, 42, 0, 30, 2, 0, 0, 0, 2, 1, 0, 0, 0), 32, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test01_moe_fused_vs_unfused/trace1.json.gz",
	 22, 0, 0, 8, 0, KINDS(0, 5, 1, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0), 4, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test01_moe_fused_vs_unfused/trace2.json.gz",
	 7, 0, 0, 2, 0, KINDS(0, 2, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test02_attention_both_unfused/trace1.json.gz",
	 17, 0, 0, 6, 0, KINDS(0, 4, 1, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0), 3, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test02_attention_both_unfused/trace2.json.gz",
	 17, 0, 0, 6, 0, KINDS(0, 4, 1, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0), 3, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test03_attention_fused_vs_unfused/trace1.json.gz",
	 7, 0, 0, 2, 0, KINDS(0, 2, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test03_attention_fused_vs_unfused/trace2.json.gz",
	 17, 0, 0, 6, 0, KINDS(0, 4, 1, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0), 3, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test04_gemm_mm_vs_linear/trace1.json.gz",
	 10, 0, 0, 4, 0, KINDS(0, 1, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0), 2, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test04_gemm_mm_vs_linear/trace2.json.gz",
	 6, 0, 0, 2, 0, KINDS(0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test05_gemm_identical_runtime_roofline/trace1.json.gz",
	 7, 0, 0, 2, 0, KINDS(0, 2, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test05_gemm_identical_runtime_roofline/trace2.json.gz",
	 7, 0, 0, 2, 0, KINDS(0, 2, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test06_conv_gap_exceeds_roofline/trace1.json.gz",
	 6, 0, 0, 2, 0, KINDS(0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_comparative/test06_conv_gap_exceeds_roofline/trace2.json.gz",
	 6, 0, 0, 2, 0, KINDS(0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, 1, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_standalone/attention/sdpa_01_long_seq_low_eff_analysis_output/sdpa_01_long_seq_low_eff.json.gz",
	 585, 58, 0, 62, 0, KINDS(130, 270, 0, 52, 0, 10, 0, 0, 0, 0, 2, 1, 0, 0, 0), 10, 0, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_standalone/elementwise/elem_01_add_poor_bw_analysis_output/elem_01_add_poor_bw.json.gz",
	 244, 58, 0, 22, 0, KINDS(129, 10, 0, 12, 0, 10, 0, 0, 0, 0, 2, 1, 0, 0, 0), 10, 0, NULL},
	{"tracelens/agent_evals_head/agent_evals/Analysis/analysis_tests/unit_tests_standalone/gemm/gemm_01_compute_few_tiles_analysis_output/gemm_01_compute_few_tiles.json.gz",
	 275, 32, 0, 52, 0, KINDS(126, 10, 0, 32, 0, 20, 0, 0, 0, 0, 2, 1, 0, 0, 0), 0, 0, NULL},
	{"tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_deepseek_r1/B300/1782843274.7730265-TP-0-DECODE.trace.json.gz",
	 3387, 62, 0, 458, 0, KINDS(2142, 258, 2, 60, 1, 393, 4, 0, 3, 0, 2, 1, 0, 1, 0), 397, 0, NULL},
	{"tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_deepseek_r1/MI300/1782841132.2905657-TP-0-DECODE.trace.json.gz",
	 3280, 64, 0, 439, 0, KINDS(2132, 198, 2, 50, 0, 386, 3, 0, 3, 0, 2, 1, 0, 0, 0), 389, 0, NULL},
	{"tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_qwen3_30b_a3b/B300/1782799835.6885648-TP-0-DECODE.trace.json.gz",
	 4033, 64, 0, 780, 0, KINDS(2142, 258, 2, 61, 1, 713, 4, 1, 3, 0, 2, 1, 0, 1, 0), 718, 0, NULL},
	{"tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_qwen3_30b_a3b/MI300/1782859605.7198358-TP-0-DECODE.trace.json.gz",
	 4112, 64, 0, 855, 0, KINDS(2132, 198, 2, 50, 0, 802, 3, 0, 3, 0, 2, 1, 0, 0, 0), 805, 0, NULL},
	{"tracelens/hist/86d615a3/tests/traces/mi300/ddp_resnet18_no_pool/train_resnet18.json.gz",
	 29746, 60, 0, 8672, 0, KINDS(6649, 6175, 10, 5587, 0, 2360, 5, 10, 5, 0, 212, 1, 0, 0, 0), 2375, 0, NULL},
	{"tracelens/tests/traces/b200/eager_trace.json.gz",
	 24656, 0, 0, 2301, 0, KINDS(15230, 4809, 3, 1151, 221, 768, 161, 0, 3, 0, 0, 0, 0, 9, 0), 929, 0, NULL},
	{"tracelens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz",
	 5138, 60, 0, 539, 0, KINDS(2117, 1258, 1, 334, 49, 154, 0, 2, 1, 0, 622, 1, 0, 0, 0), 156, 1, NULL},
	{"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
	 18221, 60, 0, 3629, 0, KINDS(4262, 4186, 1, 1921, 1, 1465, 1, 241, 1, 0, 2452, 1, 0, 0, 0), 1198, 1, NULL},
	{"tracelens/tests/traces/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
	 50125, 60, 0, 1463, 0, KINDS(42330, 3540, 1, 881, 48, 446, 2, 86, 1, 0, 1266, 1, 0, 0, 0), 534, 1, NULL},
	{"tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
	 2551, 60, 0, 193, 0, KINDS(1385, 479, 1, 110, 22, 60, 1, 0, 1, 0, 238, 1, 0, 0, 0), 61, 1, NULL},
	{"tracelens/tests/traces/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz",
	 2058, 0, 0, 587, 0, KINDS(821, 61, 2, 29, 0, 555, 3, 0, 0, 0, 0, 0, 0, 0, 0), 558, 0, NULL},
	{"tracelens/tests/traces/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz",
	 60315, 0, 0, 1603, 0, KINDS(53321, 3786, 2, 1069, 0, 527, 7, 0, 0, 0, 0, 0, 0, 0, 0), 534, 0, check_qwen3_modules},
	{"tracelens/tests/traces/inference/vllm_decode_full/capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz",
	 131243, 58, 0, 3138, 0, KINDS(119876, 3819, 26, 3128, 0, 7, 3, 0, 1, 0, 1186, 1, 0, 0, 0), 10, 0, NULL},
	{"tracelens/tests/traces/inference/vllm_decode_full/graph_execution.json.gz",
	 1993, 0, 0, 454, 0, KINDS(984, 100, 1, 20, 0, 425, 9, 0, 0, 0, 0, 0, 0, 0, 0), 434, 0, NULL},
	{"tracelens/tests/traces/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz",
	 19289, 0, 0, 804, 0, KINDS(17038, 642, 1, 381, 0, 413, 10, 0, 0, 0, 0, 0, 0, 0, 0), 423, 0, NULL},
	{"tracelens/tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz",
	 239093, 58, 0, 38519, 0, KINDS(134628, 27354, 7, 30453, 0, 8042, 23, 1, 5, 0, 2, 1, 0, 0, 0), 8066, 1, check_xdit_peer_counts},
	{"tracelens/tests/traces/mi210/gpu_only_trace/gpu_only_trace.json.gz",
	 2443, 54, 0, 1193, 0, KINDS(0, 0, 0, 631, 0, 562, 0, 0, 0, 0, 2, 1, 0, 0, 0), 562, 0, NULL},
	{"tracelens/tests/traces/mi300/Falconsai_nsfw_image_detection__1016002.json.gz",
	 5371, 60, 0, 592, 0, KINDS(2121, 1381, 1, 437, 0, 155, 0, 0, 1, 0, 622, 1, 0, 0, 0), 155, 1, NULL},
	{"tracelens/tests/traces/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
	 18090, 60, 0, 3224, 0, KINDS(4266, 4619, 1, 1707, 0, 1516, 1, 0, 1, 0, 2694, 1, 0, 0, 0), 1054, 1, NULL},
	{"tracelens/tests/traces/mi300/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
	 49950, 60, 0, 1300, 0, KINDS(42334, 3591, 1, 851, 0, 447, 2, 0, 1, 0, 1362, 1, 0, 0, 0), 449, 1, NULL},
	{"tracelens/tests/traces/mi300/gaunernst_bert-small-uncased__1016001.json.gz",
	 2653, 60, 0, 222, 0, KINDS(1389, 519, 1, 161, 0, 60, 1, 0, 1, 0, 238, 1, 0, 0, 0), 61, 1, NULL},
	{"tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz",
	 56451, 62, 0, 7179, 0, KINDS(34405, 8004, 24, 3100, 0, 2995, 550, 108, 21, 0, 2, 1, 0, 0, 0), 2685, 3, NULL},
	{"tracelens/tests/traces/perf_model/normalization/normalization_layer_test.json.gz",
	 8500, 60, 0, 511, 0, KINDS(6004, 978, 30, 236, 0, 168, 0, 5, 30, 0, 477, 1, 0, 0, 0), 173, 0, NULL},
	{"tracelens/tests/traces/torch_compile_triton/trace.json.gz",
	 246, 58, 0, 71, 0, KINDS(0, 41, 1, 59, 0, 12, 0, 0, 1, 0, 2, 1, 0, 0, 0), 12, 0, NULL},
};

#define NTRACES (sizeof(expected) / sizeof(expected[0]))

/* Mismatches of one trace are all reported, then the test fails once. */
struct report {
	const char *path;
	unsigned failures;
};

static void expect_u64(struct report *r, const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return;
	print_error("%s: %s: expected %llu, got %llu\n", r->path, what, (unsigned long long)want,
	            (unsigned long long)got);
	r->failures++;
}

static void check_counts(struct report *r, const struct expected *x, const tg_trace *t)
{
	const tg_trace_stats *s = tg_trace_stats_get(t);
	expect_u64(r, "raw events", s->raw_events, x->raw);
	expect_u64(r, "metadata events", s->metadata_events, x->meta);
	expect_u64(r, "counter events", s->counter_events, x->counter);
	expect_u64(r, "flow events", s->flow_events, x->flow);
	expect_u64(r, "skipped events", s->skipped_events, x->skipped);
	uint64_t kinds = 0;
	for (int k = 0; k < TG_KIND_COUNT; k++) {
		char what[64];
		snprintf(what, sizeof(what), "%s events", tg_kind_name((tg_kind)k));
		expect_u64(r, what, s->by_kind[k], x->kind[k]);
		kinds += x->kind[k];
	}
	size_t n;
	tg_trace_events(t, &n);
	expect_u64(r, "events kept", n, kinds);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Parents in range, no cycle: each event's chain is walked once (state 1 =
 * on the chain being walked, 2 = known to reach a root). */
static void check_parents(struct report *r, const tg_trace *t, const tg_tree *tree)
{
	size_t n;
	tg_trace_events(t, &n);
	uint8_t *state = calloc(n + 1, 1);
	assert_non_null(state);
	unsigned bad = 0, loops = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t p = tg_tree_parent(tree, (uint32_t)i);
		if (p != TG_NONE && p >= n && bad++ < 5)
			print_error("%s: event %zu has parent %u, not below %zu\n", r->path, i, p, n);
	}
	if (bad) {
		r->failures++;
		free(state);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t e = (uint32_t)i;
		size_t steps = 0;
		while (e != TG_NONE && state[e] == 0 && steps++ <= n) {
			state[e] = 1;
			e = tg_tree_parent(tree, e);
		}
		if (e != TG_NONE && state[e] == 1 && loops++ < 5)
			print_error("%s: the parent chain of event %zu loops at event %u\n", r->path, i, e);
		for (e = (uint32_t)i; e != TG_NONE && state[e] == 1; e = tg_tree_parent(tree, e))
			state[e] = 2;
	}
	if (loops)
		r->failures++;
	free(state);
}

/* Device events with the correlation of a launch hang under such a launch. */
static void check_launch_links(struct report *r, const struct expected *x, const tg_trace *t,
                               const tg_tree *tree)
{
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	int64_t *corr = malloc((n + 1) * sizeof(int64_t));
	assert_non_null(corr);
	size_t nc = 0;
	for (size_t i = 0; i < n; i++)
		if (tg_kind_is_launch(ev[i].kind) && (ev[i].flags & TG_EV_HAS_CORR))
			corr[nc++] = tg_event_corr(t, &ev[i]);
	qsort(corr, nc, sizeof(int64_t), cmp_i64);
	uint64_t linkable = 0, linked = 0;
	unsigned shown = 0;
	for (size_t i = 0; i < n; i++) {
		const tg_event *e = &ev[i];
		int64_t ec = tg_event_corr(t, e);
		if (!tg_kind_is_gpu(e->kind) || !(e->flags & TG_EV_HAS_CORR) ||
		    !bsearch(&ec, corr, nc, sizeof(int64_t), cmp_i64))
			continue;
		linkable++;
		uint32_t p = tg_tree_parent(tree, (uint32_t)i);
		if (p != TG_NONE && tg_kind_is_launch(ev[p].kind) && (ev[p].flags & TG_EV_HAS_CORR) &&
		    tg_event_corr(t, &ev[p]) == ec) {
			linked++;
			continue;
		}
		if (shown++ < 5)
			print_error("%s: %s event %zu (%s, correlation %lld) hangs under %s\n", r->path,
			            tg_kind_name((tg_kind)e->kind), i, tg_trace_str(t, e->name),
			            (long long)ec,
			            p == TG_NONE ? "nothing" : tg_trace_str(t, ev[p].name));
	}
	free(corr);
	expect_u64(r, "device events linkable by correlation", linkable, x->linkable);
	expect_u64(r, "device events under their launch", linked, x->linkable);
	expect_u64(r, "tree gpu_by_correlation", tg_tree_stats_get(tree)->gpu_by_correlation, x->linkable);
}

static void test_trace(void **state)
{
	TG_SKIP_WITHOUT_SHARED();
	const struct expected *x = *state;
	char path[8192];
	snprintf(path, sizeof(path), "%s/%s", tg_test_shared_traces(), x->path);
	tg_trace *t = NULL;
	if (tg_trace_read_file(&t, path, NULL))
		fail_msg("%s: read failed: %s", x->path, tg_error_last());
	struct report r = {x->path, 0};
	check_counts(&r, x, t);

	tg_tree *tree = NULL;
	if (tg_tree_build(&tree, t)) {
		tg_trace_free(t);
		fail_msg("%s: tree build failed", x->path);
	}
	check_parents(&r, t, tree);
	check_launch_links(&r, x, t, tree);
	size_t nsteps;
	tg_tree_steps(tree, &nsteps);
	expect_u64(&r, "steps", nsteps, x->steps);
	expect_u64(&r, "tree gpu_events", tg_tree_stats_get(tree)->gpu_events,
	           x->kind[TG_KIND_KERNEL] + x->kind[TG_KIND_MEMCPY] + x->kind[TG_KIND_MEMSET]);
	if (x->extra && r.failures == 0)
		x->extra(x, t, tree);
	tg_tree_free(tree);
	tg_trace_free(t);
	if (r.failures)
		fail_msg("%s: %u mismatches (see above)", x->path, r.failures);
}

/* TraceLens tests/test_treeperf.py::test_build_nn_module_latency_tree: the
 * root "nn.Module: Qwen3Model_0" has 36 "nn.Module: Qwen3DecoderLayer_*"
 * children and a GPU time of 492163.76953125 us. That trace has one call of
 * the root, whose subtree holds 506 device events (of 534) with disjoint
 * intervals; TraceLens sums their float microsecond lengths, which at
 * timestamps near 4.9e12 us lose up to ~1 ns each. The same union in exact
 * integer nanoseconds of the file's decimal timestamps is 492163781 ns
 * (computed by the Python script with fractions), 11.47 ns more than
 * TraceLens's float result. Our row merges calls of the same path; with one
 * call it is that one python event. */
static void check_qwen3_modules(const struct expected *x, const tg_trace *t, const tg_tree *tree)
{
	tg_modules *m = NULL;
	assert_int_equal(tg_modules_build(&m, tree), 0);
	size_t n;
	const tg_module_row *rows = tg_modules_rows(m, &n);
	size_t root = n;
	for (size_t i = 0; i < n; i++)
		if (rows[i].depth == 0 && strcmp(tg_trace_str(t, rows[i].name), "nn.Module: Qwen3Model_0") == 0) {
			assert_int_equal(root, n); /* only one such row */
			root = i;
		}
	if (root == n)
		fail_msg("%s: no depth-0 row \"nn.Module: Qwen3Model_0\"", x->path);
	static const char layer[] = "nn.Module: Qwen3DecoderLayer_";
	unsigned layers = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].parent == root && strncmp(tg_trace_str(t, rows[i].name), layer, sizeof(layer) - 1) == 0)
			layers++;
	const tg_module_row *r = &rows[root];
	print_message("%s: nn.Module: Qwen3Model_0: calls %llu, gpu_events %llu, gpu_ns %lld, "
	              "self_gpu_ns %lld, decoder layers %u (TraceLens: 492163.76953125 us)\n",
	              x->path, (unsigned long long)r->calls, (unsigned long long)r->gpu_events,
	              (long long)r->gpu_ns, (long long)r->self_gpu_ns, layers);
	assert_int_equal(layers, 36);
	assert_int_equal(r->calls, 1);
	assert_int_equal(r->gpu_events, 506);
	assert_int_equal(r->gpu_ns, 492163781);
	/* within 1 ns per device event of TraceLens's float sum */
	assert_true(llabs(r->gpu_ns * 1000 - 492163769531) <= 506 * 1000);
	tg_modules_free(m);
}

/* The TraceLens SOURCES table for the largest trace. */
static void check_xdit_peer_counts(const struct expected *x, const tg_trace *t, const tg_tree *tree)
{
	(void)x;
	(void)tree;
	const tg_trace_stats *s = tg_trace_stats_get(t);
	assert_int_equal(s->raw_events, 239093);
	assert_int_equal(s->by_kind[TG_KIND_PYTHON], 134628);
	assert_int_equal(s->by_kind[TG_KIND_CPU_OP], 27354);
	assert_int_equal(s->by_kind[TG_KIND_RUNTIME], 30453);
	assert_int_equal(s->by_kind[TG_KIND_KERNEL], 8042);
}

/* The two traces with extra checks are in the table. */
static void test_table(void **state)
{
	(void)state;
	unsigned extras = 0;
	for (size_t i = 0; i < NTRACES; i++)
		extras += expected[i].extra != NULL;
	assert_int_equal(extras, 2);
}

int main(void)
{
	struct CMUnitTest tests[NTRACES + 1];
	tests[0] = (struct CMUnitTest)cmocka_unit_test(test_table);
	for (size_t i = 0; i < NTRACES; i++) {
		tests[i + 1] = (struct CMUnitTest)cmocka_unit_test_prestate(test_trace, (void *)&expected[i]);
		tests[i + 1].name = expected[i].path; /* failures name the trace */
	}
	return cmocka_run_group_tests_name("real_traces", tests, NULL, NULL);
}
