/* test_critical_path_hta.c - the critical path (core/analysis/critical_path.h)
 * on HTA's four critical-path test traces (../shared/traces/hta, skipped
 * without $TG_SHARED): HTA's own test assertions on the graph's nodes,
 * edges and attribution (test_critical_path_basic_add and
 * test_critical_path_overlaid_trace), the breakdowns docs/critical-path.md
 * says how they were established, and alexnet's summary rows. Split from
 * test_critical_path.c (the hand-made traces, the merge of edges, the
 * failures), which had grown past the house's 800 lines. */
#include "testutil.h"

#include "../core/analysis/critical_path_impl.h"

#define US INT64_C(1000)

static const char ALEX_FWD[] = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";

/* The event of the shared trace with that name and start (us). */
static uint32_t event_at(const tg_trace *t, const char *name, int64_t ts_us)
{
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	for (size_t i = 0; i < n; i++)
		if (ev[i].ts == ts_us * US && !strcmp(tg_trace_str(t, ev[i].name), name))
			return (uint32_t)i;
	fail_msg("no %s at %lld", name, (long long)ts_us);
	return TG_NONE;
}

/* The edge between two nodes of cp, failing when absent. */
static const cp_edge *edge(const tg_critical_path *cp, uint32_t u, uint32_t v)
{
	uint32_t e = cp_find_edge(cp, u, v);
	if (e == TG_NONE)
		fail_msg("no edge %u -> %u", u, v);
	return &cp->edges[e];
}

/* The source of edge e of cp (sorted by source). */
static uint32_t edge_src(const tg_critical_path *cp, const cp_edge *e)
{
	return cp_edge_src(cp, (uint32_t)(e - cp->edges), e->dst);
}

/* The start (start 1) or end node of event ev (the graph keeps no map
 * from events to nodes once built). */
static uint32_t node_of(const tg_critical_path *cp, uint32_t ev, int start)
{
	for (uint32_t v = 0; v < cp->nnodes; v++)
		if (cp_node_ev(cp, v) == ev && cp_node_start(cp, v) == start)
			return v;
	fail_msg("no %s node for event %u", start ? "start" : "end", ev);
	return TG_NONE;
}

/* The launch edge into kernel ev's start node; its source must be a node of
 * the runtime call of the same correlation id. */
static const cp_edge *launch_edge(const tg_critical_path *cp, uint32_t ev)
{
	uint32_t v = node_of(cp, ev, 1);
	for (uint32_t e = 0; e < cp->nedges; e++)
		if (cp->edges[e].dst == v && CP_EDGE_TYPE(&cp->edges[e]) == TG_CP_EDGE_LAUNCH) {
			uint32_t src = cp_node_ev(cp, cp_edge_src(cp, e, v));
			assert_true(cp_node_start(cp, cp_edge_src(cp, e, v)));
			assert_int_equal(cp_corr(cp, src), cp_corr(cp, ev));
			assert_int_not_equal(cp->ev[src].kind, TG_KIND_KERNEL);
			return &cp->edges[e];
		}
	fail_msg("no launch edge into event %u", ev);
	return NULL;
}

/* HTA's test_critical_path_basic_add, with its environment
 * (CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1): node ids of aten::relu_
 * (event 286 of the file), aten::clamp_min_ (287) and cudaLaunchKernel
 * (1005), the weights of the edges around them and their attribution, the
 * launch delay of fft2d_r2c (1051: 27 us), the kernel gap before
 * ampere_gcgemm (1067: 7 us) and its zero-weight launch edge, the sync of
 * epilogue (1275) with cudaDeviceSynchronize (1281), 315 nodes on the path;
 * and test_critical_path_overlaid_trace: 159 events and 314 edges on the
 * path, 21 of them dependency, launch or sync edges. */
static void test_hta_basic_add(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_critical_path_simple_add_A100_cuda_sync_rank0.json.gz");
	tg_cp_opts o = {.annotation = ALEX_FWD, .first = 1, .last = 1, .zero_weight_launch = 1, .keep_graph = 1};
	tg_critical_path *cp;
	tg_test_must(tg_critical_path_build(&cp, tree, &o));
	uint32_t relu = event_at(t, "aten::relu_", 1694040009871913);
	uint32_t clamp = event_at(t, "aten::clamp_min_", 1694040009871928);
	uint32_t launch = event_at(t, "cudaLaunchKernel", 1694040009871942);
	assert_int_equal(node_of(cp, relu, 1), 57);
	assert_int_equal(node_of(cp, relu, 0), 62);
	assert_int_equal(node_of(cp, clamp, 1), 58);
	assert_int_equal(node_of(cp, clamp, 0), 61);
	assert_int_equal(node_of(cp, launch, 1), 59);
	assert_int_equal(node_of(cp, launch, 0), 60);
	const uint32_t u[] = {57, 58, 59, 60, 61}, v[] = {58, 59, 60, 61, 62}, w[] = {15, 14, 17, 15, 32};
	const uint32_t attr[] = {relu, clamp, launch, clamp, relu};
	for (int k = 0; k < 5; k++) {
		assert_int_equal(cp_edge_w(cp, u[k], edge(cp, u[k], v[k])), w[k] * US);
		assert_int_equal(cp_edge_attr(cp, edge(cp, u[k], v[k])), attr[k]);
	}
	uint32_t fft = event_at(t,
	                        "void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int, int, "
	                        "int, int, int, int, int, int, int, cudnn::reduced_divisor, bool, int2, int, int)",
	                        1694040010076734);
	const cp_edge *e = launch_edge(cp, fft);
	assert_int_equal(CP_EDGE_TYPE(e), TG_CP_EDGE_LAUNCH);
	assert_int_equal(cp_edge_w(cp, edge_src(cp, e), e), 27 * US);
	uint32_t gemm = event_at(t, "ampere_gcgemm_64x64_nt", 1694040010076804);
	e = edge(cp, node_of(cp, fft, 0), node_of(cp, gemm, 1));
	assert_int_equal(CP_EDGE_TYPE(e), TG_CP_EDGE_KERNEL_KERNEL);
	assert_int_equal(cp_edge_w(cp, edge_src(cp, e), e), 7 * US);
	e = launch_edge(cp, gemm);
	assert_int_equal(CP_EDGE_TYPE(e), TG_CP_EDGE_LAUNCH);
	assert_int_equal(cp_edge_w(cp, edge_src(cp, e), e), 0);
	uint32_t sync = event_at(t, "cudaDeviceSynchronize", 1694040010097115);
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	uint32_t epilogue = TG_NONE;
	for (uint32_t i = 0; i < n; i++)
		if (ev[i].ts == 1694040010096876 * US && ev[i].kind == TG_KIND_KERNEL)
			epilogue = i;
	e = edge(cp, node_of(cp, epilogue, 0), node_of(cp, sync, 0));
	assert_int_equal(CP_EDGE_TYPE(e), TG_CP_EDGE_SYNC);
	assert_int_equal(cp_edge_w(cp, edge_src(cp, e), e), 0);
	const tg_cp_stats *s = tg_cp_stats_get(cp);
	assert_int_equal(s->path_nodes, 315);
	assert_int_equal(s->path_events, 159);
	const tg_cp_step *st = tg_cp_steps(cp, &n);
	assert_int_equal(n, 314);
	size_t shown = 0;
	for (size_t i = 0; i < n; i++)
		shown += st[i].type == TG_CP_EDGE_DEPENDENCY || st[i].type == TG_CP_EDGE_LAUNCH ||
		         st[i].type == TG_CP_EDGE_SYNC;
	assert_int_equal(shown, 21);
	tg_critical_path_free(cp);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* The breakdown (us) of each test trace in both settings. The simple_add
 * forward window is HTA's notebook example (examples/critical_path_analysis
 * .ipynb prints 99.779087 / 0.210157 / 0.003723 / 0.007033 %); the whole
 * simple_add trace is HTA's end-to-end test, whose expected output marks
 * 624 events critical and holds 1572 us of launch-delay edges; the other
 * values come from a re-derivation of HTA's algorithm on networkx
 * (docs/critical-path.md). */
struct expect {
	const char *file, *annotation;
	int64_t instance;
	int zero;
	int64_t length, cpu, compute, gap, launch;
	uint64_t path_nodes, path_events;
};

static const struct expect expects[] = {
	{"simple_add", ALEX_FWD, 1, 0, 241724, 241190, 508, 9, 17, 315, 159},
	{"simple_add", ALEX_FWD, 1, 1, 241724, 241190, 508, 9, 17, 315, 159},
	{"alexnet", ALEX_FWD, 1, 0, 35834, 32042, 3712, 50, 30, 149, 77},
	{"alexnet", ALEX_FWD, 1, 1, 35834, 32042, 3712, 50, 30, 149, 77},
	{"cuda_event_sync", "ProfilerStep", 0, 0, 2411, 2365, 36, 0, 10, 40, 21},
	{"cuda_event_sync", "ProfilerStep", 0, 1, 2411, 2365, 36, 0, 10, 40, 21},
	{"cuda_event_sync_multistream", "", 0, 0, 1178, 1025, 124, 15, 14, 59, 31},
	{"cuda_event_sync_multistream", "", 0, 1, 1178, 1025, 124, 15, 14, 59, 31},
	{"simple_add", "", 0, 0, 41435012, 41393843, 39588, 9, 1572, 1212, 624},
	{"simple_add", "", 0, 1, 41435045, 41393773, 39689, 11, 1572, 1210, 625},
};

static void test_hta_breakdowns(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	for (size_t k = 0; k < sizeof(expects) / sizeof(expects[0]); k++) {
		const struct expect *x = &expects[k];
		char rel[256];
		snprintf(rel, sizeof(rel), "hta/hta_critical_path_%s_A100_%srank0.json.gz", x->file,
		         strstr(x->file, "event_sync") ? "" : "cuda_sync_");
		tg_trace *t;
		tg_tree *tree = tg_test_load_shared(&t, rel);
		tg_cp_opts o = {.annotation = x->annotation, .first = x->instance, .last = x->instance,
		                .zero_weight_launch = x->zero};
		tg_critical_path *cp;
		tg_test_must(tg_critical_path_build(&cp, tree, &o));
		const int64_t *b = tg_cp_breakdown(cp);
		print_message("%s '%s' zero=%d: %lld us\n", x->file, x->annotation, x->zero,
		              (long long)(tg_cp_length_ns(cp) / US));
		assert_int_equal(tg_cp_length_ns(cp), x->length * US);
		assert_int_equal(b[TG_CP_CPU], x->cpu * US);
		assert_int_equal(b[TG_CP_GPU_COMPUTE], x->compute * US);
		assert_int_equal(b[TG_CP_KERNEL_KERNEL], x->gap * US);
		assert_int_equal(b[TG_CP_LAUNCH], x->launch * US);
		assert_int_equal(b[TG_CP_GPU_COMM] + b[TG_CP_DATA_LOADING] + b[TG_CP_DEPENDENCY], 0);
		assert_int_equal(tg_cp_stats_get(cp)->path_nodes, x->path_nodes);
		assert_int_equal(tg_cp_stats_get(cp)->path_events, x->path_events);
		tg_critical_path_free(cp);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
}

/* HTA's test_critical_path_breakdown_and_save_restore: alexnet's summary
 * has 5 bound_by rows (cpu, compute, kernel gap, launch and ""). */
static void test_hta_alexnet_rows(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz");
	tg_cp_opts o = {.annotation = ALEX_FWD, .first = 1, .last = 1, .zero_weight_launch = 1};
	tg_critical_path *cp;
	tg_test_must(tg_critical_path_build(&cp, tree, &o));
	size_t n, rows = 0;
	const tg_cp_step *st = tg_cp_steps(cp, &n);
	int seen[TG_CP_NBOUND] = {0};
	for (size_t i = 0; i < n; i++)
		seen[st[i].bound] = 1;
	for (int k = 0; k < TG_CP_NBOUND; k++)
		rows += (size_t)seen[k];
	assert_int_equal(rows, 5);
	assert_true(tg_cp_stats_get(cp)->edges_by_type[TG_CP_EDGE_SYNC] > 0);
	tg_critical_path_free(cp);
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hta_basic_add),
		cmocka_unit_test(test_hta_breakdowns),
		cmocka_unit_test(test_hta_alexnet_rows),
	};
	return cmocka_run_group_tests_name("critical_path_hta", tests, NULL, NULL);
}
