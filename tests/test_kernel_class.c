/* test_kernel_class.c - HTA's kernel types (and where we part from HTA),
 * device streams, and the step filter every analysis uses. */
#include "testutil.h"

#include "../core/trace/categorize.h"
#include "../core/trace/kernel_class.h"
#include "../core/tree/step_filter.h"

#include <pthread.h>

static void test_classes(void **state)
{
	(void)state;
	/* COMMUNICATION: HTA's rules */
	assert_int_equal(tg_kernel_class("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
	                                 TG_KIND_KERNEL),
	                 TG_KERNEL_COMMUNICATION);
	assert_int_equal(tg_kernel_class("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
	                                 TG_KIND_KERNEL),
	                 TG_KERNEL_COMMUNICATION);
	assert_int_equal(tg_kernel_class("void foo::ncclKernel_x", TG_KIND_KERNEL),
	                 TG_KERNEL_COMMUNICATION);
	assert_int_equal(tg_kernel_class("hcclAllReduce", TG_KIND_KERNEL), TG_KERNEL_COMMUNICATION);
	/* HTA: any name starting with "hip" (even a memcpy-looking one) */
	assert_int_equal(tg_kernel_class("hipMemcpyKernel", TG_KIND_KERNEL), TG_KERNEL_COMMUNICATION);
	/* COMMUNICATION beyond HTA (HTA says COMPUTATION for these) */
	assert_int_equal(tg_kernel_class("void (anonymous namespace)::multimem_all_reduce_kernel"
	                                 "<c10::BFloat16, 16>(c10::BFloat16*)",
	                                 TG_KIND_KERNEL),
	                 TG_KERNEL_COMMUNICATION);
	assert_int_equal(tg_kernel_class("void vllm::cross_device_reduce_1stage<half, 8>(...)",
	                                 TG_KIND_KERNEL),
	                 TG_KERNEL_COMMUNICATION);
	assert_int_equal(tg_kernel_class("void NCCLDevKernel_lower", TG_KIND_KERNEL),
	                 TG_KERNEL_COMMUNICATION);
	assert_int_equal(tg_kernel_class("rcclGenericKernel", TG_KIND_KERNEL), TG_KERNEL_COMMUNICATION);
	assert_int_equal(tg_kernel_class("void x::RCCL_allreduce", TG_KIND_KERNEL),
	                 TG_KERNEL_COMMUNICATION);
	/* MEMORY: by kind first, whatever the name, then by name */
	assert_int_equal(tg_kernel_class("Memcpy HtoD (Pageable -> Device)", TG_KIND_MEMCPY),
	                 TG_KERNEL_MEMORY);
	assert_int_equal(tg_kernel_class("Memset (Device)", TG_KIND_MEMSET), TG_KERNEL_MEMORY);
	assert_int_equal(tg_kernel_class("hipMemcpyAsync", TG_KIND_MEMCPY), TG_KERNEL_MEMORY);
	assert_int_equal(tg_kernel_class("dma_copy_in", TG_KIND_MEMCPY), TG_KERNEL_MEMORY);
	assert_int_equal(tg_kernel_class("Memcpy DtoD (Device -> Device)", TG_KIND_KERNEL),
	                 TG_KERNEL_MEMORY);
	assert_int_equal(tg_kernel_class("Memset (Device)", TG_KIND_KERNEL), TG_KERNEL_MEMORY);
	assert_int_equal(tg_kernel_class("dma_transfer", TG_KIND_KERNEL), TG_KERNEL_MEMORY);
	/* OTHER: cuda_sync, and HTA's list of non-computation names */
	assert_int_equal(tg_kernel_class("Stream Sync", TG_KIND_SYNC), TG_KERNEL_OTHER);
	assert_int_equal(tg_kernel_class("Context Sync", TG_KIND_KERNEL), TG_KERNEL_OTHER);
	assert_int_equal(tg_kernel_class("Stream Wait Event", TG_KIND_KERNEL), TG_KERNEL_OTHER);
	assert_int_equal(tg_kernel_class("cudaLaunchKernel", TG_KIND_KERNEL), TG_KERNEL_OTHER);
	assert_int_equal(tg_kernel_class("cudaLaunchKernelExC", TG_KIND_RUNTIME), TG_KERNEL_OTHER);
	assert_int_equal(tg_kernel_class("runFunction - job_prep_and_submit_for_execution",
	                                 TG_KIND_KERNEL),
	                 TG_KERNEL_OTHER);
	assert_int_equal(tg_kernel_class("void fused_dma_kernel", TG_KIND_KERNEL), TG_KERNEL_OTHER);
	assert_int_equal(tg_kernel_class("void batchedMemcpyKernel", TG_KIND_KERNEL), TG_KERNEL_OTHER);
	assert_int_equal(tg_kernel_class("collective_subgraph_execution_3", TG_KIND_KERNEL),
	                 TG_KERNEL_OTHER);
	/* COMPUTATION: the rest */
	assert_int_equal(tg_kernel_class("ampere_sgemm_32x32_sliced1x4_tn", TG_KIND_KERNEL),
	                 TG_KERNEL_COMPUTATION);
	assert_int_equal(tg_kernel_class("void at::native::(anonymous namespace)::CatArrayBatchedCopy",
	                                 TG_KIND_KERNEL),
	                 TG_KERNEL_COMPUTATION);
	assert_int_equal(tg_kernel_class("ncc", TG_KIND_KERNEL), TG_KERNEL_COMPUTATION);
	assert_int_equal(tg_kernel_class("cudaLaunch", TG_KIND_KERNEL), TG_KERNEL_COMPUTATION);
	assert_int_equal(tg_kernel_class("", TG_KIND_KERNEL), TG_KERNEL_COMPUTATION);
	assert_int_equal(tg_kernel_class(NULL, TG_KIND_KERNEL), TG_KERNEL_COMPUTATION);

	assert_string_equal(tg_kernel_class_name(TG_KERNEL_COMPUTATION), "COMPUTATION");
	assert_string_equal(tg_kernel_class_name(TG_KERNEL_COMMUNICATION), "COMMUNICATION");
	assert_string_equal(tg_kernel_class_name(TG_KERNEL_MEMORY), "MEMORY");
	assert_string_equal(tg_kernel_class_name(TG_KERNEL_OTHER), "OTHER");
	assert_string_equal(tg_kernel_class_name(TG_KERNEL_TYPE_COUNT), "?");
}

/* Times in us. Steps [0,100) [100,200) [200,300) on thread 1/1.
 *   op_a (cpu_op) [5, 50) -> cudaLaunchKernel [10, 15) corr 1 -> k1 [20, 30) stream 7
 *   op_b (cpu_op) [150, 160) -> cudaLaunchKernel [151, 152) corr 2 -> k2 [199.5, 210.2)
 *   cudaLaunchKernel [250, 251) corr 3 -> k3 [260, 261) on track 0/9, no stream arg
 *   k_orphan [310, 311) stream 7, no launch
 *   [memory] instants at 50 (step 0), 250 (step 2), 350 (no step) */
static const char *const TRACE =
	"{\"traceEvents\": ["
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#7\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#8\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#9\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_a\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":45},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"args\":{\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_b\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":10},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":151,\"dur\":1,\"args\":{\"correlation\":2}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":250,\"dur\":1,\"args\":{\"correlation\":3}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":10,\"args\":{\"correlation\":1,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":199.5,\"dur\":10.7,\"args\":{\"correlation\":2,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":9,\"ts\":260,\"dur\":1,\"args\":{\"correlation\":3}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_orphan\",\"pid\":0,\"tid\":7,\"ts\":310,\"dur\":1,\"args\":{\"stream\":\"0x7\"}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":50,\"args\":{\"Bytes\":1}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":250,\"args\":{\"Bytes\":1}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":350,\"args\":{\"Bytes\":1}}"
	"]}";

/* The events (names, in file order) f selects, joined by spaces. */
static void selected(char *out, size_t cap, const tg_trace *t, const tg_step_filter *f)
{
	size_t ne, o = 0;
	const tg_event *ev = tg_trace_events(t, &ne);
	out[0] = 0;
	for (size_t i = 0; i < ne; i++) {
		const char *nm = tg_trace_str(t, ev[i].name);
		if (strncmp(nm, "ProfilerStep", 12) == 0 || !tg_step_filter_has(f, (uint32_t)i))
			continue;
		const char *short_name = strcmp(nm, "cudaLaunchKernel") == 0 ? "L" : strcmp(nm, "[memory]") == 0 ? "M" : nm;
		o += (size_t)snprintf(out + o, cap - o, "%s%s@%lld", o ? " " : "", short_name,
		                      (long long)(ev[i].ts / 1000));
	}
}

static void test_step_filter(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(TRACE);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_step_filter f;
	char buf[1024];

	assert_int_equal(tg_step_filter_init(&f, tree, TG_STEP_ALL), 0);
	selected(buf, sizeof(buf), t, &f);
	assert_string_equal(buf, "op_a@5 L@10 op_b@150 L@151 L@250 k1@20 k2@199 k3@260 k_orphan@310 "
	                         "M@50 M@250 M@350");
	/* a step: host events by time, device events by their launch's step
	 * (k2 starts at 199.5 but runs past the step: it goes with its launch),
	 * instants by time */
	assert_int_equal(tg_step_filter_init(&f, tree, 0), 0);
	selected(buf, sizeof(buf), t, &f);
	assert_string_equal(buf, "op_a@5 L@10 k1@20 M@50");
	assert_int_equal(tg_step_filter_init(&f, tree, 1), 0);
	selected(buf, sizeof(buf), t, &f);
	assert_string_equal(buf, "op_b@150 L@151 k2@199");
	assert_int_equal(tg_step_filter_init(&f, tree, 2), 0);
	selected(buf, sizeof(buf), t, &f);
	assert_string_equal(buf, "L@250 k3@260 M@250");
	/* HTA: before the last step (200), device events by their launch; the
	 * orphan is dropped */
	assert_int_equal(tg_step_filter_init(&f, tree, TG_STEP_HTA), 0);
	selected(buf, sizeof(buf), t, &f);
	assert_string_equal(buf, "op_a@5 L@10 op_b@150 L@151 k1@20 k2@199 M@50");
	assert_int_equal(tg_step_filter_init(&f, tree, TG_STEP_HTA_ROUNDED), 0);
	selected(buf, sizeof(buf), t, &f);
	assert_string_equal(buf, "op_a@5 L@10 op_b@150 L@151 k1@20 k2@199 M@50");
	/* rounding: start up, end down to whole microseconds */
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	const tg_event *k2 = &ev[tg_test_find(t, "k2", TG_KIND_KERNEL)];
	int64_t ts, end;
	tg_step_filter_span(&f, k2, &ts, &end);
	assert_int_equal(ts, 200000);
	assert_int_equal(end, 210000);
	assert_int_equal(tg_step_filter_init(&f, tree, TG_STEP_HTA), 0);
	tg_step_filter_span(&f, k2, &ts, &end);
	assert_int_equal(ts, 199500);
	assert_int_equal(end, 210200);
	/* bad steps */
	assert_int_equal(tg_step_filter_init(&f, tree, 3), TG_EINVAL);
	assert_int_equal(tg_step_filter_init(&f, tree, -4), TG_EINVAL);
	assert_int_equal(tg_step_filter_init(&f, tree, INT32_MIN), TG_EINVAL);

	/* streams: the argument (numeric strings too), else the track's tid */
	assert_int_equal(tg_kernel_stream(t, k2), 7);
	assert_int_equal(tg_kernel_stream(t, &ev[tg_test_find(t, "k3", TG_KIND_KERNEL)]), 9);
	assert_int_equal(tg_kernel_stream(t, &ev[tg_test_find(t, "k_orphan", TG_KIND_KERNEL)]), 7);
	assert_int_equal(tg_kernel_device(t, k2), 0);
	tg_tree_free(tree);
	tg_trace_free(t);
}

static void test_fewer_than_two_steps(void **state)
{
	(void)state;
	/* HTA filters nothing with fewer than two steps */
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\": ["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":1},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":1}"
		"]}");
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_step_filter f;
	char buf[256];
	assert_int_equal(tg_step_filter_init(&f, tree, TG_STEP_HTA), 0);
	selected(buf, sizeof(buf), t, &f);
	assert_string_equal(buf, "aten::mm@20 k@30");
	assert_int_equal(tg_step_filter_init(&f, tree, 0), 0);
	selected(buf, sizeof(buf), t, &f);
	assert_string_equal(buf, "");
	assert_int_equal(tg_step_filter_init(&f, tree, 1), TG_EINVAL);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Device events (kernels, memcpys, memsets, cuda_sync) by type on real
 * traces; expected counts from an independent Python implementation of the
 * same rules (HTA's regexes plus ours). */
struct golden_count {
	const char *trace;
	unsigned comp, comm, mem, other;
};

static void test_real_traces(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const struct golden_count G[] = {
		/* HTA's test_nccl_parser_config: 21 ncclKernel kernels */
		{"hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz", 2679, 21, 1074, 0},
		/* vLLM TP=8: 73 multimem_all_reduce kernels and one ncclDevKernel;
		 * HTA's rules count only the latter as COMMUNICATION (1) */
		{"tracelens/tests/traces/b200/eager_trace.json.gz", 694, 74, 161, 0},
		/* RCCL's ncclDevKernel_Generic on MI300 */
		{"tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz", 2978, 17, 658, 0},
		/* 16 Stream Sync, 5 Context Sync, 20 Stream Wait Event */
		{"hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz", 79, 0, 19, 41},
	};
	for (size_t g = 0; g < sizeof(G) / sizeof(G[0]); g++) {
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", tg_test_shared_traces(), G[g].trace);
		tg_trace *t;
		if (tg_trace_read_file(&t, path, NULL))
			fail_msg("%s: %s", path, tg_error_last());
		size_t ne;
		const tg_event *ev = tg_trace_events(t, &ne);
		unsigned c[TG_KERNEL_TYPE_COUNT] = {0};
		for (size_t i = 0; i < ne; i++)
			if (tg_kind_is_gpu(ev[i].kind) || ev[i].kind == TG_KIND_SYNC)
				c[tg_kernel_class(tg_trace_str(t, ev[i].name), ev[i].kind)]++;
		print_message("%s: %u %u %u %u\n", G[g].trace, c[0], c[1], c[2], c[3]);
		assert_int_equal(c[TG_KERNEL_COMPUTATION], G[g].comp);
		assert_int_equal(c[TG_KERNEL_COMMUNICATION], G[g].comm);
		assert_int_equal(c[TG_KERNEL_MEMORY], G[g].mem);
		assert_int_equal(c[TG_KERNEL_OTHER], G[g].other);
		tg_trace_free(t);
	}
}

/* tg_trace_name_flags: the flags of an event's name, computed when first
 * asked for (core/trace/trace_names.c), the same the second time and from
 * two threads at once, 0 past the atoms; what the functions they come
 * from say. */
static const char name_flags_json[] =
	"{\"traceEvents\":["
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)\","
	"\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2,\"args\":{\"device\":0,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"__amd_rocclr_copyBuffer\","
	"\"pid\":0,\"tid\":7,\"ts\":4,\"dur\":2,\"args\":{\"device\":0,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void gemm_kernel<float>(float*)\","
	"\"pid\":0,\"tid\":7,\"ts\":7,\"dur\":2,\"args\":{\"device\":0,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":9}"
	"]}";

static uint8_t expected_flags(const char *s)
{
	return (uint8_t)((tg_kernel_is_comm(s) ? TG_NAME_COMM : 0) | (tg_kernel_is_copy(s) ? TG_NAME_COPY : 0) |
	                 tg_kernel_class(s, TG_KIND_KERNEL) << TG_NAME_CLASS_SHIFT);
}

static void *ask_all(void *arg)
{
	const tg_trace *t = arg;
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	uintptr_t sum = 0;
	for (size_t i = 0; i < ne; i++)
		sum += tg_trace_name_flags(t, ev[i].name);
	return (void *)sum;
}

static void test_name_flags(void **state)
{
	(void)state;
	tg_trace *t;
	tg_test_must(tg_trace_read_mem(&t, name_flags_json, strlen(name_flags_json), "flags.json", NULL));
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	assert_int_equal(ne, 4);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, ask_all, t), 0); /* the first asks race */
	uintptr_t here = (uintptr_t)ask_all(t), there;
	pthread_join(th, (void **)&there);
	assert_int_equal(here, there);
	uintptr_t want = 0;
	for (size_t i = 0; i < ne; i++) {
		const char *s = tg_trace_str(t, ev[i].name);
		uint8_t f = expected_flags(s);
		want += f;
		assert_int_equal(tg_trace_name_flags(t, ev[i].name), f);
		assert_int_equal(tg_trace_name_flags(t, ev[i].name), f); /* once known */
	}
	assert_int_equal(here, want);
	assert_int_equal(tg_trace_name_flags(t, ev[0].name), TG_NAME_COMM | TG_KERNEL_COMMUNICATION << TG_NAME_CLASS_SHIFT);
	assert_true(tg_trace_name_flags(t, ev[1].name) & TG_NAME_COPY);
	assert_int_equal(tg_trace_name_flags(t, ev[2].name), TG_KERNEL_COMPUTATION << TG_NAME_CLASS_SHIFT);
	assert_int_equal(tg_trace_name_flags(t, 1u << 30), 0);
	tg_trace_free(t);
}

/* The keys found once read: the same atoms as tg_trace_key's; a kernel's
 * stream and device from its arguments, else from its track (tid, pid). */
static void test_kernel_keys(void **state)
{
	(void)state;
	static const char with[] =
	    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":3,\"tid\":9,"
	    "\"ts\":1,\"dur\":2,\"args\":{\"device\":1,\"stream\":7}},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemv\",\"pid\":4,\"tid\":11,\"ts\":5,\"dur\":2}]}";
	static const char without[] =
	    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":3,\"tid\":9,"
	    "\"ts\":1,\"dur\":2,\"args\":{\"grid\":[1,1,1]}}]}";
	tg_trace *t;
	tg_test_must(tg_trace_read_mem(&t, with, strlen(with), "with.json", NULL));
	assert_int_not_equal(tg_trace_key_stream(t), TG_NONE);
	assert_int_not_equal(tg_trace_key_device(t), TG_NONE);
	assert_int_equal(tg_trace_key_stream(t), tg_trace_key(t, "stream"));
	assert_int_equal(tg_trace_key_device(t), tg_trace_key(t, "device"));
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	assert_int_equal(ne, 2);
	assert_int_equal(tg_kernel_stream(t, &ev[0]), 7);
	assert_int_equal(tg_kernel_device(t, &ev[0]), 1);
	assert_int_equal(tg_kernel_stream(t, &ev[1]), 11);
	assert_int_equal(tg_kernel_device(t, &ev[1]), 4);
	tg_trace_free(t);
	tg_test_must(tg_trace_read_mem(&t, without, strlen(without), "without.json", NULL));
	assert_int_equal(tg_trace_key_stream(t), tg_trace_key(t, "stream")); /* the reader may know it: no argument has it */
	assert_int_equal(tg_trace_key_device(t), tg_trace_key(t, "device"));
	ev = tg_trace_events(t, &ne);
	assert_int_equal(tg_kernel_stream(t, &ev[0]), 9);
	assert_int_equal(tg_kernel_device(t, &ev[0]), 3);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_step_filter),
		cmocka_unit_test(test_fewer_than_two_steps),
		cmocka_unit_test(test_real_traces),
		cmocka_unit_test(test_name_flags),
		cmocka_unit_test(test_kernel_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
