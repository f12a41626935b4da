/* test_collectives.c - collective kernels per rank and matched across
 * ranks: an 8-rank synthetic job whose every number is known, a 2-rank job
 * without process group metadata, and the real traces (HTA's A100 NCCL
 * trace, TraceLens's MI300 and B200 traces against TraceLens's
 * coll_analysis.csv, the real pair of ranks of a 128-rank job). */
#include "testutil.h"

#include "../core/analysis/collectives.h"

#define NRANKS 8
#define PG_RANKS "[0, 1, 2, 3, 4, 5, 6, 7]"

/* ---- the synthetic job ------------------------------------------------ */

/* Arrival offset of rank r (us): rank 3 always 120 us late, the others
 * 10 us apart. */
static int skew_of(int r) { return r == 3 ? 120 : 10 * r; }

struct gen_coll {
	const char *kernel, *coll, *dtype, *pg;
	long long in_n, out_n;
	int stream;
	double base;    /* us: arrival of rank 0 */
	double latency; /* us: duration on the last-arriving rank */
	int sync;       /* 1 when matched (implicit-sync kind) */
};

/* Per rank r, collective k starts at base_k + skew_r and every rank ends
 * at base_k + 120 + latency_k (rank 5 ends 2 us later in collective 3), so
 * that duration_r = latency_k + 120 - skew_r. */
static const struct gen_coll gen[] = {
	{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "allreduce",
	 "BFloat16", "0", 262144, 262144, 7, 1000000.25, 100, 1},
	{"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "_allgather_base",
	 "BFloat16", "0", 131072, 1048576, 7, 1002000.5, 50, 1},
	{"ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "broadcast", "Long",
	 "0", 20, 20, 7, 1003000, 6, 0},
	{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "allreduce",
	 "BFloat16", "0", 262144, 262144, 7, 1004000.125, 125, 1},
	{"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
	 "_reduce_scatter_base", "Float", "1", 1048576, 131072, 9, 1006000, 200, 1},
};
#define NGEN (sizeof(gen) / sizeof(gen[0]))

static double gen_dur(size_t k, int r)
{
	return gen[k].latency + 120 - skew_of(r) + (k == 3 && r == 5 ? 2 : 0);
}

enum gen_flags {
	GEN_NO_META = 1,       /* no collective arguments at all (simplified mode) */
	GEN_ONE_STREAM = 2,    /* every collective on stream 7 */
	GEN_MISMATCH = 4,      /* rank 2's first allreduce claims 262,145 elements */
	GEN_STEPS = 8,         /* ProfilerStep#1 [999000, 1003500) us holds collectives
	                          0-2, #2 [1003500, 1010000) us collectives 3-4 */
	GEN_STRADDLE = 16      /* with GEN_STEPS: rank 3's step 2 starts at 1002050 us,
	                          so that its collectives 1 and 2 fall in step 2 */
};

/* The ProfilerStep annotations of rank r (GEN_STEPS): host user
 * annotations, and on each collective stream GPU annotations, which give
 * the launch-less kernels their step. */
static size_t gen_steps_json(char *s, size_t cap, int r, int flags)
{
	double b = (flags & GEN_STRADDLE) && r == 3 ? 1002050 : 1003500;
	double ts[2] = {999000, b}, dur[2] = {b - 999000, 1010000 - b};
	size_t len = 0;
	for (int k = 0; k < 2; k++) {
		len += (size_t)snprintf(s + len, cap - len,
		                        ",{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\","
		                        "\"pid\":%d,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f}",
		                        k + 1, r, ts[k], dur[k]);
		for (int stream = 7; stream <= 9; stream += 2)
			len += (size_t)snprintf(s + len, cap - len,
			                        ",{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":"
			                        "\"ProfilerStep#%d\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}",
			                        k + 1, r, stream, ts[k], dur[k]);
	}
	return len;
}

/* Writes the Kineto JSON of rank r of the synthetic job into a malloc'ed
 * string, shaped by flags (gen_flags). */
static char *gen_rank_json(int r, int nranks, int flags)
{
	size_t cap = 16384, len = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	len += (size_t)snprintf(s + len, cap - len,
	                        "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\","
	                        "\"rank\":%d,\"world_size\":%d},\"traceEvents\":[",
	                        r, nranks);
	for (size_t k = 0; k < NGEN; k++) {
		const struct gen_coll *g = &gen[k];
		char meta[1024] = "";
		int stream = flags & GEN_ONE_STREAM ? 7 : g->stream;
		long long in_n = (flags & GEN_MISMATCH) && r == 2 && k == 0 ? g->in_n + 1 : g->in_n;
		if (!(flags & GEN_NO_META))
			snprintf(meta, sizeof(meta),
			         ",\"Collective name\":\"%s\",\"In msg nelems\":%lld,\"Out msg nelems\":%lld,"
			         "\"Group size\":%d,\"dtype\":\"%s\",\"In split size\":\"[]\","
			         "\"Out split size\":\"[]\",\"Process Group Name\":\"%s\","
			         "\"Process Group Description\":\"default_pg\",\"Process Group Ranks\":\"%s\"",
			         g->coll, in_n, g->out_n, nranks, g->dtype, g->pg, PG_RANKS);
		len += (size_t)snprintf(
			s + len, cap - len,
			"%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
			"\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"device\":%d,\"stream\":%d,\"correlation\":%zu%s}}",
			k ? "," : "", g->kernel, r, stream, g->base + skew_of(r), gen_dur(k, r), r, stream,
			100 + k, meta);
		assert_true(len < cap);
	}
	if (flags & GEN_STEPS)
		len += gen_steps_json(s + len, cap - len, r, flags);
	assert_true(len < cap);
	/* never collectives: a compute kernel, a "hip" kernel without a
	 * collective name (HTA's class says communication), an NCCL kernel
	 * linked to nothing (TraceLens wants a correlation or External id) */
	len += (size_t)snprintf(
		s + len, cap - len,
		",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":%d,"
		"\"tid\":7,\"ts\":999000,\"dur\":30,\"args\":{\"correlation\":99}}"
		",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"hipFancyKernel\",\"pid\":%d,"
		"\"tid\":7,\"ts\":999100,\"dur\":3,\"args\":{\"correlation\":98}}"
		",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_Stray\",\"pid\":%d,"
		"\"tid\":7,\"ts\":999200,\"dur\":3,\"args\":{\"stream\":7}}]}",
		r, r, r);
	assert_true(len < cap);
	return s;
}

struct job {
	tg_trace *t[NRANKS];
	tg_tree *tree[NRANKS];
	int n;
};

static void job_build(struct job *j, int n, int flags)
{
	j->n = n;
	for (int r = 0; r < n; r++) {
		char *json = gen_rank_json(r, n, flags);
		assert_int_equal(tg_trace_read_mem(&j->t[r], json, strlen(json), "gen.json", NULL), 0);
		free(json);
		assert_int_equal(tg_tree_build(&j->tree[r], j->t[r]), 0);
	}
}

static void job_free(struct job *j)
{
	for (int r = 0; r < j->n; r++) {
		tg_tree_free(j->tree[r]);
		tg_trace_free(j->t[r]);
	}
}

static void free_tables(tg_table **t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tg_table_free(t[i]);
}

static const char *str_cell(const tg_table *t, size_t row, const char *col)
{
	const tg_cell *c = tg_test_cell(t, row, col);
	return c->type == TG_CELL_STR ? c->v.s : NULL;
}

static int empty_cell(const tg_table *t, size_t row, const char *col)
{
	return tg_test_cell(t, row, col)->type == TG_CELL_EMPTY;
}

static void test_helpers(void **state)
{
	(void)state;
	assert_int_equal(tg_collectives_dtype_bytes("BFloat16"), 2);
	assert_int_equal(tg_collectives_dtype_bytes("Float"), 4);
	assert_int_equal(tg_collectives_dtype_bytes("Long"), 8);
	assert_int_equal(tg_collectives_dtype_bytes("Byte"), 1);
	assert_int_equal(tg_collectives_dtype_bytes("Float8_e4m3fn"), 0);
	assert_int_equal(tg_collectives_dtype_bytes(NULL), 0);
	assert_string_equal(tg_collectives_kind("_allgather_base"), "allgather");
	assert_string_equal(tg_collectives_kind("reduce_scatter_tensor_coalesced"), "reducescatter");
	assert_string_equal(tg_collectives_kind("all_to_allv"), "alltoallv");
	assert_null(tg_collectives_kind("broadcast"));
	assert_true(tg_collectives_bus_factor("allreduce", 8) == 2.0 * 7 / 8);
	assert_true(tg_collectives_bus_factor("all_to_all", 4) == 3.0 / 4);
	assert_true(isnan(tg_collectives_bus_factor("broadcast", 8)));
	assert_true(isnan(tg_collectives_bus_factor("allreduce", 0)));
}

static void test_synthetic_list(void **state)
{
	(void)state;
	struct job j;
	job_build(&j, NRANKS, 0);
	tg_collective *c;
	size_t n;
	assert_int_equal(tg_collectives_list(&c, &n, j.t[3]), 0);
	assert_int_equal(n, NGEN); /* the gemm is not a collective */
	for (size_t k = 0; k < NGEN; k++) {
		assert_string_equal(c[k].collective, gen[k].coll);
		assert_string_equal(c[k].dtype, gen[k].dtype);
		assert_string_equal(c[k].pg_name, gen[k].pg);
		assert_string_equal(c[k].pg_desc, "default_pg");
		assert_string_equal(c[k].pg_ranks, PG_RANKS);
		assert_string_equal(c[k].in_split, "[]");
		assert_int_equal(c[k].in_nelems, gen[k].in_n);
		assert_int_equal(c[k].out_nelems, gen[k].out_n);
		assert_int_equal(c[k].group_size, 8);
		assert_int_equal(c[k].stream, gen[k].stream);
		assert_int_equal(c[k].ts, (int64_t)((gen[k].base + 120) * 1000));
		assert_int_equal(c[k].dur, (int64_t)(gen[k].latency * 1000));
	}
	assert_true(c[0].in_mb == 0.5 && c[0].out_mb == 0.5);
	assert_true(c[1].in_mb == 0.25 && c[1].out_mb == 2.0);
	assert_true(c[2].in_mb == 20.0 * 8 / 1048576);
	assert_true(c[4].in_mb == 4.0 && c[4].out_mb == 0.5);
	free(c);
	job_free(&j);
}

static void test_synthetic_rank_tables(void **state)
{
	(void)state;
	struct job j;
	job_build(&j, NRANKS, 0);
	tg_table *out[2];
	const tg_tree *trees[NRANKS];
	for (int r = 0; r < NRANKS; r++)
		trees[r] = j.tree[NRANKS - 1 - r]; /* reversed: ranks come from distributedInfo */
	assert_int_equal(tg_collectives_rank_tables(out, trees, NRANKS, -1), 0);
	const tg_table *list = tg_test_table(out, 2, "coll_per_rank");
	const tg_table *sum = tg_test_table(out, 2, "coll_analysis");
	assert_int_equal(tg_table_nrows(list), NRANKS * NGEN);
	assert_int_equal(tg_test_num(list, 0, "rank"), 0);
	assert_true(tg_test_num(list, 0, "ts (us)") == 1000000.25);
	assert_true(tg_test_num(list, 0, "dur (us)") == 220.0);
	assert_true(tg_test_num(list, 0, "In msg size (MB)") == 0.5);
	assert_int_equal(tg_test_num(list, NGEN, "rank"), 1);
	/* 4 groups per rank (the two allreduces share one) */
	assert_int_equal(tg_table_nrows(sum), NRANKS * 4);
	int found_r3 = 0, found_r5 = 0;
	for (size_t i = 0; i < tg_table_nrows(sum); i++) {
		int64_t rank = (int64_t)tg_test_num(sum, i, "rank");
		const char *coll = str_cell(sum, i, "Collective name");
		if (strcmp(coll, "allreduce"))
			continue;
		assert_int_equal(tg_test_num(sum, i, "operation_count"), 2);
		assert_int_equal(tg_test_num(sum, i, "In msg nelems"), 262144);
		assert_int_equal(tg_test_num(sum, i, "Group size"), 8);
		assert_int_equal(tg_test_num(sum, i, "stream"), 7);
		assert_string_equal(str_cell(sum, i, "Process Group Name"), "0");
		assert_string_equal(str_cell(sum, i, "Process Group Ranks"), PG_RANKS);
		assert_true(tg_test_num(sum, i, "In msg size (MB)_first") == 0.5);
		if (rank == 3) { /* the straggler: durations 100 and 125 */
			found_r3 = 1;
			assert_true(tg_test_num(sum, i, "dur_sum") == 225.0);
			assert_true(tg_test_num(sum, i, "dur_mean") == 112.5);
			assert_true(fabs(tg_test_num(sum, i, "dur_std") - sqrt(312.5)) < 1e-12);
			assert_true(tg_test_num(sum, i, "dur_min") == 100.0);
			assert_true(tg_test_num(sum, i, "dur_max") == 125.0);
		}
		if (rank == 5) { /* 100 + 70 and 125 + 70 + 2 */
			found_r5 = 1;
			assert_true(tg_test_num(sum, i, "dur_sum") == 367.0);
		}
	}
	assert_true(found_r3 && found_r5);
	/* sorted by dur_sum: rank 0's reduce-scatter (200 + 120) * 1 vs allreduce 240 + 245 */
	assert_string_equal(str_cell(sum, 0, "Collective name"), "allreduce");
	assert_int_equal(tg_test_num(sum, 0, "rank"), 0);
	assert_true(tg_test_num(sum, 0, "dur_sum") == 465.0);
	for (size_t i = 1; i < tg_table_nrows(sum); i++)
		assert_true(tg_test_num(sum, i - 1, "dur_sum") >= tg_test_num(sum, i, "dur_sum"));
	/* a single broadcast per rank: no sample std */
	for (size_t i = 0; i < tg_table_nrows(sum); i++)
		if (!strcmp(str_cell(sum, i, "Collective name"), "broadcast")) {
			assert_true(empty_cell(sum, i, "dur_std"));
			assert_string_equal(str_cell(sum, i, "dtype"), "Long");
		}
	free_tables(out, 2);
	job_free(&j);
}

static void test_synthetic_sync(void **state)
{
	(void)state;
	struct job j;
	job_build(&j, NRANKS, 0);
	tg_table *out[3];
	tg_collectives_sync_info info;
	assert_int_equal(tg_collectives_sync_tables(out, &info, (const tg_tree *const *)j.tree, NRANKS, -1), 0);
	assert_int_equal(info.simplified, 0);
	assert_int_equal(info.matched, 4); /* the broadcast is not implicit-sync */
	assert_int_equal(info.skipped_mismatch, 0);
	assert_int_equal(info.straggler, 3);
	const tg_table *s = tg_test_table(out, 3, "nccl_implicit_sync");
	assert_int_equal(tg_table_nrows(s), 4);
	/* group "0" first (seen first), by index; broadcast (index 2) left out */
	static const char *const ids[] = {"0_0", "0_1", "0_3", "1_0"};
	static const size_t gk[] = {0, 1, 3, 4};
	for (size_t i = 0; i < 4; i++) {
		const struct gen_coll *g = &gen[gk[i]];
		assert_string_equal(str_cell(s, i, "collective_id"), ids[i]);
		assert_string_equal(str_cell(s, i, "Collective name"), g->coll);
		assert_int_equal(tg_test_num(s, i, "ranks"), 8);
		assert_true(tg_test_num(s, i, "comm_latency") == g->latency);
		assert_true(tg_test_num(s, i, "skew in start time") == 120.0);
		assert_int_equal(tg_test_num(s, i, "earliest arrival rank"), 0);
		assert_int_equal(tg_test_num(s, i, "latest arrival rank"), 3);
		/* waits 120,110,100,0,80,70,60,50 */
		assert_true(tg_test_num(s, i, "avg_wait_time") == 590.0 / 8);
		assert_true(tg_test_num(s, i, "skew in end time") == (gk[i] == 3 ? 2.0 : 0.0));
		double full = gk[i] == 1 ? 2.0 : gk[i] == 4 ? 4.0 : 0.5;
		assert_true(tg_test_num(s, i, "Full msg size (MB)") == full);
		double algo = (full / 1024) / (g->latency / 1e6);
		assert_true(tg_test_num(s, i, "algo bw (GB/s)") == algo);
		double f = !strcmp(g->coll, "allreduce") ? 2.0 * (8 - 1) / 8 : (8 - 1) / 8.0;
		assert_true(tg_test_num(s, i, "bus bw (GB/s)") == algo * f);
	}
	/* the first: 0.5 MB in 100 us */
	assert_true(fabs(tg_test_num(s, 0, "algo bw (GB/s)") - 4.8828125) < 1e-12);
	assert_true(fabs(tg_test_num(s, 0, "bus bw (GB/s)") - 4.8828125 * 1.75) < 1e-12);

	const tg_table *sum = tg_test_table(out, 3, "nccl_summary_implicit_sync");
	assert_int_equal(tg_table_nrows(sum), 3);
	/* by total latency: allreduce 0.225 ms, reduce-scatter 0.2, allgather 0.05 */
	assert_string_equal(str_cell(sum, 0, "Collective name"), "allreduce");
	assert_string_equal(str_cell(sum, 0, "dtype"), "BFloat16");
	assert_int_equal(tg_test_num(sum, 0, "In msg nelems"), 262144);
	assert_string_equal(str_cell(sum, 0, "Process Group Name"), "0");
	assert_int_equal(tg_test_num(sum, 0, "Group size"), 8);
	assert_true(tg_test_num(sum, 0, "Full msg size (MB)") == 0.5);
	assert_int_equal(tg_test_num(sum, 0, "count"), 2);
	assert_true(tg_test_num(sum, 0, "comm_latency_mean") == 112.5);
	assert_true(tg_test_num(sum, 0, "comm_latency_median") == 112.5);
	assert_true(tg_test_num(sum, 0, "comm_latency_min") == 100.0);
	assert_true(tg_test_num(sum, 0, "comm_latency_max") == 125.0);
	assert_true(tg_test_num(sum, 0, "skew in start time_mean") == 120.0);
	assert_true(tg_test_num(sum, 0, "skew in end time_mean") == 1.0);
	assert_true(tg_test_num(sum, 0, "skew in end time_max") == 2.0);
	double a100 = (0.5 / 1024) / (100 / 1e6), a125 = (0.5 / 1024) / (125 / 1e6);
	assert_true(tg_test_num(sum, 0, "algo bw (GB/s)_max") == a100);
	assert_true(tg_test_num(sum, 0, "algo bw (GB/s)_min") == a125);
	assert_true(tg_test_num(sum, 0, "algo bw (GB/s)_mean") == (a125 + a100) / 2);
	assert_true(tg_test_num(sum, 0, "bus bw (GB/s)_max") == a100 * 1.75);
	assert_true(tg_test_num(sum, 0, "Total comm latency (ms)") == 0.225);
	assert_string_equal(str_cell(sum, 1, "Collective name"), "_reduce_scatter_base");
	assert_string_equal(str_cell(sum, 1, "Process Group Name"), "1");
	assert_true(tg_test_num(sum, 1, "Full msg size (MB)") == 4.0);
	assert_true(tg_test_num(sum, 1, "Total comm latency (ms)") == 0.2);
	assert_string_equal(str_cell(sum, 2, "Collective name"), "_allgather_base");
	assert_true(tg_test_num(sum, 2, "Full msg size (MB)") == 2.0); /* the output for allgather */
	assert_true(tg_test_num(sum, 2, "bus bw (GB/s)_mean") == (2.0 / 1024) / (50 / 1e6) * 7 / 8);
	assert_true(tg_test_num(sum, 2, "Total comm latency (ms)") == 0.05);

	const tg_table *st = tg_test_table(out, 3, "nccl_straggler_summary");
	assert_int_equal(tg_table_nrows(st), 8);
	/* smallest total wait first: rank 3 never waits */
	assert_int_equal(tg_test_num(st, 0, "rank"), 3);
	assert_true(tg_test_num(st, 0, "total_wait_time_us") == 0.0);
	assert_int_equal(tg_test_num(st, 0, "times_arrived_last"), 4);
	assert_int_equal(tg_test_num(st, 0, "times_arrived_first"), 0);
	assert_true(tg_test_num(st, 0, "pct_arrived_last") == 100.0);
	assert_int_equal(tg_test_num(st, 0, "num_collectives"), 4);
	assert_int_equal(tg_test_num(st, 0, "straggler"), 1);
	/* rank 3's 5 kernels: 100 + 50 + 6 + 125 + 200 */
	assert_true(tg_test_num(st, 0, "total_nccl_dur_us") == 481.0);
	/* then 7 (wait 50 each), ..., rank 0 last (120 each) */
	assert_int_equal(tg_test_num(st, 1, "rank"), 7);
	assert_true(tg_test_num(st, 1, "total_wait_time_us") == 200.0);
	assert_true(tg_test_num(st, 1, "mean_wait_time_us") == 50.0);
	assert_int_equal(tg_test_num(st, 7, "rank"), 0);
	assert_true(tg_test_num(st, 7, "total_wait_time_us") == 480.0);
	assert_int_equal(tg_test_num(st, 7, "times_arrived_first"), 4);
	assert_int_equal(tg_test_num(st, 7, "times_arrived_last"), 0);
	assert_int_equal(tg_test_num(st, 7, "straggler"), 0);
	free_tables(out, 3);
	job_free(&j);
}

/* No process group metadata and two streams per rank (7 and 9): matched
 * by order per stream (TraceLens matches nothing here; with one stream it
 * uses group "all"); without names no bandwidth. */
static void test_simplified_mode(void **state)
{
	(void)state;
	struct job j;
	job_build(&j, 2, GEN_NO_META);
	tg_table *out[3];
	tg_collectives_sync_info info;
	/* streams 7 and 9 per rank: matched per stream */
	assert_int_equal(tg_collectives_sync_tables(out, &info, (const tg_tree *const *)j.tree, 2, -1), 0);
	assert_int_equal(info.simplified, 1);
	assert_int_equal(info.matched, NGEN);
	const tg_table *s = tg_test_table(out, 3, "nccl_implicit_sync");
	assert_string_equal(str_cell(s, 0, "collective_id"), "stream 7_0");
	assert_string_equal(str_cell(s, 3, "collective_id"), "stream 7_3");
	assert_string_equal(str_cell(s, 4, "collective_id"), "stream 9_0");
	/* 2 ranks: rank 1 arrives 10 us after rank 0 */
	assert_true(tg_test_num(s, 0, "skew in start time") == 10.0);
	assert_true(tg_test_num(s, 0, "comm_latency") == 210.0); /* 100 + 120 - 10 */
	assert_int_equal(tg_test_num(s, 0, "latest arrival rank"), 1);
	assert_true(empty_cell(s, 0, "algo bw (GB/s)"));
	assert_true(empty_cell(s, 0, "Collective name"));
	const tg_table *sum = tg_test_table(out, 3, "nccl_summary_implicit_sync");
	assert_int_equal(tg_table_nrows(sum), 1);
	assert_string_equal(str_cell(sum, 0, "Collective name"), "Unknown");
	assert_string_equal(str_cell(sum, 0, "In msg nelems"), "Unknown");
	assert_int_equal(tg_test_num(sum, 0, "count"), NGEN);
	assert_true(empty_cell(sum, 0, "bus bw (GB/s)_mean"));
	assert_int_equal(info.straggler, 1);
	free_tables(out, 3);
	job_free(&j);
}

/* One stream per rank, no metadata: TraceLens's simplified mode, group
 * "all", every collective matched by its order on the rank. */
static void test_simplified_one_stream(void **state)
{
	(void)state;
	struct job j;
	job_build(&j, 3, GEN_NO_META | GEN_ONE_STREAM);
	tg_table *out[3];
	tg_collectives_sync_info info;
	assert_int_equal(tg_collectives_sync_tables(out, &info, (const tg_tree *const *)j.tree, 3, -1), 0);
	assert_int_equal(info.simplified, 1);
	assert_int_equal(info.matched, NGEN);
	const tg_table *s = tg_test_table(out, 3, "nccl_implicit_sync");
	for (size_t k = 0; k < NGEN; k++) {
		char id[16];
		snprintf(id, sizeof(id), "all_%zu", k);
		assert_string_equal(str_cell(s, k, "collective_id"), id);
		assert_string_equal(str_cell(s, k, "Process Group Name"), "all");
		assert_int_equal(tg_test_num(s, k, "ranks"), 3);
		assert_true(tg_test_num(s, k, "skew in start time") == 20.0); /* ranks 0..2: 0, 10, 20 */
		assert_true(tg_test_num(s, k, "avg_wait_time") == 10.0);
		assert_true(tg_test_num(s, k, "comm_latency") == gen[k].latency + 100);
		assert_int_equal(tg_test_num(s, k, "latest arrival rank"), 2);
		assert_int_equal(tg_test_num(s, k, "earliest arrival rank"), 0);
	}
	assert_int_equal(info.straggler, 2);
	free_tables(out, 3);
	job_free(&j);
}

/* Metadata that differ across ranks: the collective is left out, counted. */
static void test_mismatch(void **state)
{
	(void)state;
	struct job j;
	job_build(&j, NRANKS, GEN_MISMATCH);
	tg_table *out[3];
	tg_collectives_sync_info info;
	assert_int_equal(tg_collectives_sync_tables(out, &info, (const tg_tree *const *)j.tree, NRANKS, -1), 0);
	assert_int_equal(info.matched, 3);
	assert_int_equal(info.skipped_mismatch, 1);
	const tg_table *s = tg_test_table(out, 3, "nccl_implicit_sync");
	assert_string_equal(str_cell(s, 0, "collective_id"), "0_1");
	assert_int_equal(info.straggler, 3);
	free_tables(out, 3);
	job_free(&j);
}

/* ---- real traces -------------------------------------------------------- */

static tg_tree *read_real(tg_trace **t, const char *rel)
{
	char path[4096];
	int w = snprintf(path, sizeof(path), "%s/%s", tg_test_shared_traces(), rel);
	assert_true(w > 0 && (size_t)w < sizeof(path));
	assert_int_equal(tg_trace_read_file(t, path, NULL), 0);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, *t), 0);
	return tree;
}

static void test_hta_nccl(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = read_real(&t, "hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz");
	tg_collective *c;
	size_t n;
	assert_int_equal(tg_collectives_list(&c, &n, t), 0);
	assert_int_equal(n, 21);
	size_t longest = 0, ar = 0, bc = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].dur > c[longest].dur)
			longest = i;
		ar += !strcmp(c[i].collective, "allreduce");
		bc += !strcmp(c[i].collective, "broadcast");
		assert_int_equal(c[i].stream, 40);
		if (i)
			assert_true(c[i - 1].ts <= c[i].ts);
	}
	assert_int_equal(ar, 15);
	assert_int_equal(bc, 6);
	const tg_collective *l = &c[longest]; /* HTA's test */
	assert_string_equal(l->collective, "allreduce");
	assert_int_equal(l->in_nelems, 2049000);
	assert_int_equal(l->out_nelems, 2049000);
	assert_string_equal(l->pg_name, "0");
	assert_string_equal(l->pg_desc, "default_pg");
	assert_string_equal(l->pg_ranks, "[0, 1]");
	assert_int_equal(l->group_size, 2);
	assert_string_equal(l->dtype, "Float");
	assert_int_equal(l->dur, 5993392);
	assert_true(l->in_mb == 2049000.0 * 4 / 1048576);
	free(c);

	tg_table *rt[2];
	const tg_tree *trees[1] = {tree};
	assert_int_equal(tg_collectives_rank_tables(rt, trees, 1, -1), 0);
	const tg_table *sum = tg_test_table(rt, 2, "coll_analysis");
	assert_int_equal(tg_table_nrows(sum), 7); /* 5 allreduce sizes, 2 broadcasts, 3 each */
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(tg_test_num(sum, i, "operation_count"), 3);
	/* the 2,049,000-element allreduce: 3306.963 + 2520.607 + 5993.392 us */
	assert_string_equal(str_cell(sum, 0, "Collective name"), "allreduce");
	assert_int_equal(tg_test_num(sum, 0, "In msg nelems"), 2049000);
	assert_true(fabs(tg_test_num(sum, 0, "dur_sum") - 11820.962) < 1e-6);
	assert_true(fabs(tg_test_num(sum, 0, "dur_max") - 5993.392) < 1e-9);
	free_tables(rt, 2);

	/* one rank: every allreduce matched with itself, no skew */
	tg_table *out[3];
	tg_collectives_sync_info info;
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, 1, -1), 0);
	assert_int_equal(info.matched, 15);
	assert_int_equal(info.straggler, -1); /* no straggler among one rank */
	const tg_table *s = tg_test_table(out, 3, "nccl_implicit_sync");
	double total = 0;
	for (size_t i = 0; i < 15; i++) {
		assert_true(tg_test_num(s, i, "skew in start time") == 0.0);
		double lat = tg_test_num(s, i, "comm_latency");
		double full = tg_test_num(s, i, "Full msg size (MB)");
		assert_true(tg_test_num(s, i, "algo bw (GB/s)") == full / 1024 / (lat / 1e6));
		assert_true(tg_test_num(s, i, "bus bw (GB/s)") == full / 1024 / (lat / 1e6) * 1.0);
		total += lat;
	}
	assert_true(fabs(total - 46762.159) < 1e-6);
	free_tables(out, 3);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* A reference CSV row of coll_analysis.csv, the columns we compare. */
struct ref_row {
	const char *coll, *dtype;
	long long in_n, out_n;
	double in_mb, out_mb, sum, mean, std, min, max;
	int count;
};

static void check_ref_rows(const tg_table *sum, const struct ref_row *ref, size_t nref,
                           const char *pg, const char *ranks, int64_t stream)
{
	for (size_t k = 0; k < nref; k++) {
		size_t i, nrows = tg_table_nrows(sum);
		for (i = 0; i < nrows; i++) {
			const char *coll = str_cell(sum, i, "Collective name");
			const char *dt = str_cell(sum, i, "dtype");
			if (coll && dt && !strcmp(coll, ref[k].coll) && !strcmp(dt, ref[k].dtype) &&
			    tg_test_num(sum, i, "In msg nelems") == (double)ref[k].in_n)
				break;
		}
		assert_true(i < nrows);
		assert_int_equal(tg_test_num(sum, i, "rank"), 0);
		assert_string_equal(str_cell(sum, i, "Process Group Name"), pg);
		assert_string_equal(str_cell(sum, i, "Process Group Ranks"), ranks);
		assert_int_equal(tg_test_num(sum, i, "Group size"), 8);
		assert_int_equal(tg_test_num(sum, i, "Out msg nelems"), ref[k].out_n);
		assert_string_equal(str_cell(sum, i, "In split size"), "[]");
		assert_string_equal(str_cell(sum, i, "Out split size"), "[]");
		assert_int_equal(tg_test_num(sum, i, "stream"), stream);
		assert_true(tg_test_num(sum, i, "In msg size (MB)_first") == ref[k].in_mb);
		assert_true(tg_test_num(sum, i, "Out msg size (MB)_first") == ref[k].out_mb);
		assert_true(fabs(tg_test_num(sum, i, "dur_sum") - ref[k].sum) < 1e-6);
		assert_true(fabs(tg_test_num(sum, i, "dur_mean") - ref[k].mean) < 1e-6);
		if (isnan(ref[k].std))
			assert_true(empty_cell(sum, i, "dur_std"));
		else
			assert_true(fabs(tg_test_num(sum, i, "dur_std") - ref[k].std) < 1e-6);
		assert_true(fabs(tg_test_num(sum, i, "dur_min") - ref[k].min) < 1e-6);
		assert_true(fabs(tg_test_num(sum, i, "dur_max") - ref[k].max) < 1e-6);
		assert_int_equal(tg_test_num(sum, i, "operation_count"), ref[k].count);
	}
}

/* TraceLens's reference/tracelens/mi300_resnet_act_checkpoint_perf_report_csvs/coll_analysis.csv */
static void test_mi300_resnet(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const struct ref_row ref[] = {
		{"allreduce", "BFloat16", 8816192, 8816192, 16.8155517578125, 16.8155517578125, 26798.24,
		 8932.746666666668, 276.099019776118, 8656.708, 9208.906, 3},
		{"allreduce", "BFloat16", 2873320, 2873320, 5.4804229736328125, 5.4804229736328125,
		 20338.798, 6779.599333333333, 119.66539283073179, 6678.4, 6911.678, 3},
		{"broadcast", "BFloat16", 9600, 9600, 0.018310546875, 0.018310546875, 43.675,
		 14.558333333333332, 0.21128495765986952, 14.319, 14.719, 3},
		{"broadcast", "Long", 20, 20, 0.000152587890625, 0.000152587890625, 19.597,
		 6.532333333333334, 0.8102674455593867, 5.879, 7.439, 3},
	};
	tg_trace *t;
	tg_tree *tree = read_real(&t, "tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz");
	const tg_tree *trees[1] = {tree};
	tg_table *rt[2];
	assert_int_equal(tg_collectives_rank_tables(rt, trees, 1, -1), 0);
	const tg_table *list = tg_test_table(rt, 2, "coll_per_rank");
	assert_int_equal(tg_table_nrows(list), 17);
	const tg_table *sum = tg_test_table(rt, 2, "coll_analysis");
	/* TraceLens's 4 rows, plus the 5 kernels without metadata that pandas
	 * drops (24316.213 us, between the two allreduce rows) */
	assert_int_equal(tg_table_nrows(sum), 5);
	check_ref_rows(sum, ref, 4, "0", "[0, 1, 2, 3, 4, 5, 6, 7]", 4);
	assert_true(empty_cell(sum, 1, "Collective name"));
	assert_int_equal(tg_test_num(sum, 1, "operation_count"), 5);
	assert_true(fabs(tg_test_num(sum, 1, "dur_sum") - 24316.213) < 1e-6);
	assert_string_equal(str_cell(sum, 0, "Collective name"), "allreduce");
	assert_int_equal(tg_test_num(sum, 0, "In msg nelems"), 8816192);
	free_tables(rt, 2);

	/* one rank of 8: the 6 allreduces matched alone, bus bw = algo * 14/8 */
	tg_table *out[3];
	tg_collectives_sync_info info;
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, 1, -1), 0);
	assert_int_equal(info.simplified, 0);
	assert_int_equal(info.matched, 6); /* the unnamed kernels are "Unknown_Group", not implicit-sync */
	const tg_table *s = tg_test_table(out, 3, "nccl_summary_implicit_sync");
	assert_int_equal(tg_table_nrows(s), 2);
	assert_int_equal(tg_test_num(s, 0, "In msg nelems"), 8816192);
	assert_true(fabs(tg_test_num(s, 0, "Total comm latency (ms)") - 26.79824) < 1e-9);
	assert_true(tg_test_num(s, 0, "comm_latency_min") == 8656.708);
	assert_true(tg_test_num(s, 0, "algo bw (GB/s)_max") ==
	            16.8155517578125 / 1024 / (8656.708 / 1e6));
	assert_true(fabs(tg_test_num(s, 0, "bus bw (GB/s)_max") -
	                 16.8155517578125 / 1024 / (8656.708 / 1e6) * 1.75) < 1e-12);
	free_tables(out, 3);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* reference/tracelens/b200_eager_trace_perf_report_csvs/coll_analysis.csv */
static void test_b200_allgather(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const struct ref_row ref[] = {
		{"_allgather_base", "BFloat16", 25136, 201088, 0.047943115234375, 0.383544921875, 21.953,
		 21.953, NAN, 21.953, 21.953, 1},
	};
	tg_trace *t;
	tg_tree *tree = read_real(&t, "tracelens/tests/traces/b200/eager_trace.json.gz");
	const tg_tree *trees[1] = {tree};
	tg_table *rt[2];
	assert_int_equal(tg_collectives_rank_tables(rt, trees, 1, -1), 0);
	const tg_table *sum = tg_test_table(rt, 2, "coll_analysis");
	/* TraceLens's row, plus the 73 symmetric-memory multimem_all_reduce
	 * kernels that TraceLens does not look at (tracegate files them as
	 * communication, collective name inferred, no metadata) */
	assert_int_equal(tg_table_nrows(sum), 2);
	check_ref_rows(sum, ref, 1, "3", "[0, 1, 2, 3, 4, 5, 6, 7]", 7);
	assert_string_equal(str_cell(sum, 0, "Collective name"), "allreduce");
	assert_true(empty_cell(sum, 0, "Process Group Name"));
	assert_int_equal(tg_test_num(sum, 0, "operation_count"), 73);
	assert_true(fabs(tg_test_num(sum, 0, "dur_sum") - 2119.548) < 1e-6);
	assert_true(tg_test_num(sum, 0, "dur_min") == 24.704 && tg_test_num(sum, 0, "dur_max") == 223.2);
	free_tables(rt, 2);
	tg_table *out[3];
	tg_collectives_sync_info info;
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, 1, -1), 0);
	assert_int_equal(info.matched, 74); /* the allreduces in "Unknown_Group", as TraceLens would */
	const tg_table *s = tg_test_table(out, 3, "nccl_implicit_sync");
	size_t ag = 0;
	while (ag < tg_table_nrows(s) && strcmp(str_cell(s, ag, "collective_id"), "3_0"))
		ag++;
	assert_true(ag < tg_table_nrows(s));
	assert_true(empty_cell(s, 0, "algo bw (GB/s)")); /* allreduce without size */
	assert_true(tg_test_num(s, ag, "Full msg size (MB)") == 0.383544921875); /* the output */
	double algo = 0.383544921875 / 1024 / (21.953 / 1e6);
	assert_true(tg_test_num(s, ag, "algo bw (GB/s)") == algo);
	assert_true(tg_test_num(s, ag, "bus bw (GB/s)") == algo * (7.0 / 8));
	free_tables(out, 3);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Ranks 0 and 1 of a 128-rank job: 10 SendRecv kernels each, no metadata,
 * streams 84 (8) and 203 (2): matched per stream by order. */
static void test_sampled_pair(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t0, *t1;
	tg_tree *a = read_real(&t0, "hta/hta_sampled_128rank_job_rank-0.json.gz");
	tg_tree *b = read_real(&t1, "hta/hta_sampled_128rank_job_rank-1.json.gz");
	const tg_tree *trees[2] = {b, a};
	tg_table *out[3];
	tg_collectives_sync_info info;
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, 2, -1), 0);
	assert_int_equal(info.simplified, 1);
	assert_int_equal(info.matched, 10);
	const tg_table *s = tg_test_table(out, 3, "nccl_implicit_sync");
	assert_string_equal(str_cell(s, 0, "collective_id"), "stream 84_0");
	assert_string_equal(str_cell(s, 8, "collective_id"), "stream 203_0");
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(tg_test_num(s, i, "ranks"), 2);
	/* stream 84 #0: rank 0 at ...094377 for 30669 us, rank 1 at ...129911 for 57924 */
	assert_true(tg_test_num(s, 0, "skew in start time") == 35534.0);
	assert_true(tg_test_num(s, 0, "comm_latency") == 30669.0);
	assert_true(tg_test_num(s, 0, "skew in end time") == 62789.0);
	assert_true(tg_test_num(s, 0, "avg_wait_time") == 17767.0);
	assert_int_equal(tg_test_num(s, 0, "earliest arrival rank"), 0);
	assert_int_equal(tg_test_num(s, 0, "latest arrival rank"), 1);
	/* stream 203 #0: ...585321 + 42496 and ...585405 + 42744 */
	assert_true(tg_test_num(s, 8, "skew in start time") == 84.0);
	assert_true(tg_test_num(s, 8, "comm_latency") == 42496.0);
	assert_true(tg_test_num(s, 8, "skew in end time") == 332.0);
	/* stream 203 #1: ...185890 + 63644 and ...187182 + 62163 */
	assert_true(tg_test_num(s, 9, "skew in start time") == 1292.0);
	assert_true(tg_test_num(s, 9, "comm_latency") == 62163.0);
	assert_true(tg_test_num(s, 9, "skew in end time") == 189.0);
	assert_true(empty_cell(s, 0, "algo bw (GB/s)"));
	/* rank 1 arrives last in 8 of 10 (stream 84 #4 and #6 are rank 0's) */
	assert_int_equal(info.straggler, 1);
	const tg_table *st = tg_test_table(out, 3, "nccl_straggler_summary");
	assert_int_equal(tg_table_nrows(st), 2);
	size_t r1 = tg_test_num(st, 0, "rank") == 1 ? 0 : 1;
	assert_int_equal(tg_test_num(st, r1, "times_arrived_last"), 8);
	assert_int_equal(tg_test_num(st, r1, "times_arrived_first"), 2);
	assert_true(tg_test_num(st, r1, "pct_arrived_last") == 80.0);
	assert_int_equal(tg_test_num(st, 1 - r1, "times_arrived_last"), 2);
	/* sums of the waits and of the kernel durations (checked in Python) */
	assert_true(tg_test_num(st, r1, "total_wait_time_us") == 132166.0);
	assert_true(tg_test_num(st, 1 - r1, "total_wait_time_us") == 381329.0);
	assert_true(tg_test_num(st, r1, "total_nccl_dur_us") == 379053.0);
	assert_true(tg_test_num(st, 1 - r1, "total_nccl_dur_us") == 396199.0);
	assert_int_equal(r1, 0); /* less waiting first */
	free_tables(out, 3);

	tg_table *rt[2];
	assert_int_equal(tg_collectives_rank_tables(rt, trees, 2, -1), 0);
	const tg_table *list = tg_test_table(rt, 2, "coll_per_rank");
	assert_int_equal(tg_table_nrows(list), 20);
	assert_int_equal(tg_test_num(list, 0, "rank"), 0);
	assert_int_equal(tg_test_num(list, 10, "rank"), 1);
	const tg_table *sum = tg_test_table(rt, 2, "coll_analysis");
	assert_int_equal(tg_table_nrows(sum), 4); /* rank x stream */
	free_tables(rt, 2);
	tg_tree_free(a);
	tg_tree_free(b);
	tg_trace_free(t0);
	tg_trace_free(t1);
}

/* Row of nccl_straggler_summary for rank r. */
static size_t straggler_row(const tg_table *t, int64_t r)
{
	for (size_t i = 0; i < tg_table_nrows(t); i++)
		if ((int64_t)tg_test_num(t, i, "rank") == r)
			return i;
	fail_msg("no row for rank %lld", (long long)r);
	return 0;
}

/* --step: per rank, only the step's collectives; across ranks, only the
 * matched collectives whose kernels fall in the step on every rank, with
 * the ids they have in the whole trace. */
static void test_steps(void **state)
{
	(void)state;
	struct job j;
	job_build(&j, NRANKS, GEN_STEPS);
	const tg_tree *const *trees = (const tg_tree *const *)j.tree;
	tg_table *rt[2], *out[3];
	tg_collectives_sync_info info;

	/* the whole trace: 5 collectives a rank, 4 matched */
	assert_int_equal(tg_collectives_rank_tables(rt, trees, NRANKS, -1), 0);
	assert_int_equal(tg_table_nrows(rt[0]), NRANKS * NGEN);
	free_tables(rt, 2);
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, NRANKS, -1), 0);
	assert_int_equal(info.matched, 4);
	free_tables(out, 3);

	/* step 1: allreduce, allgather, broadcast; the first two matched */
	assert_int_equal(tg_collectives_rank_tables(rt, trees, NRANKS, 1), 0);
	assert_int_equal(tg_table_nrows(rt[0]), NRANKS * 3);
	double sum = 0;
	for (size_t i = 0; i < tg_table_nrows(rt[0]); i++)
		if (tg_test_num(rt[0], i, "rank") == 0)
			sum += tg_test_num(rt[0], i, "dur (us)");
	assert_true(sum == gen_dur(0, 0) + gen_dur(1, 0) + gen_dur(2, 0)); /* 516 us */
	free_tables(rt, 2);
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, NRANKS, 1), 0);
	assert_int_equal(info.matched, 2);
	assert_int_equal(info.skipped_step, 0);
	assert_int_equal(info.straggler, 3);
	assert_int_equal(tg_table_nrows(out[0]), 2);
	assert_string_equal(str_cell(out[0], 0, "collective_id"), "0_0");
	assert_string_equal(str_cell(out[0], 1, "collective_id"), "0_1");
	size_t r0 = straggler_row(out[2], 0);
	assert_int_equal(tg_test_num(out[2], r0, "num_collectives"), 2);
	assert_true(tg_test_num(out[2], r0, "total_nccl_dur_us") == 516.0);
	assert_int_equal(tg_test_num(out[2], straggler_row(out[2], 3), "times_arrived_last"), 2);
	free_tables(out, 3);

	/* step 2: the second allreduce and the reduce-scatter, with their
	 * whole-trace ids (the allreduce is the 4th collective of group 0) */
	assert_int_equal(tg_collectives_rank_tables(rt, trees, NRANKS, 2), 0);
	assert_int_equal(tg_table_nrows(rt[0]), NRANKS * 2);
	free_tables(rt, 2);
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, NRANKS, 2), 0);
	assert_int_equal(info.matched, 2);
	assert_string_equal(str_cell(out[0], 0, "collective_id"), "0_3");
	assert_string_equal(str_cell(out[0], 1, "collective_id"), "1_0");
	assert_true(tg_test_num(out[0], 0, "comm_latency") == 125.0);
	assert_true(tg_test_num(out[0], 1, "comm_latency") == 200.0);
	r0 = straggler_row(out[2], 0);
	assert_true(tg_test_num(out[2], r0, "total_nccl_dur_us") == gen_dur(3, 0) + gen_dur(4, 0));
	free_tables(out, 3);

	/* a step no rank has: empty tables */
	assert_int_equal(tg_collectives_rank_tables(rt, trees, NRANKS, 7), 0);
	assert_int_equal(tg_table_nrows(rt[0]), 0);
	assert_int_equal(tg_table_nrows(rt[1]), 0);
	free_tables(rt, 2);
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, NRANKS, 7), 0);
	assert_int_equal(info.matched, 0);
	assert_int_equal(tg_table_nrows(out[0]) + tg_table_nrows(out[2]), 0);
	free_tables(out, 3);
	job_free(&j);
}

/* A collective whose kernel falls in step 1 on some ranks and step 2 on
 * another is in neither step's matched tables, and counted. */
static void test_steps_straddle(void **state)
{
	(void)state;
	struct job j;
	job_build(&j, NRANKS, GEN_STEPS | GEN_STRADDLE);
	const tg_tree *const *trees = (const tg_tree *const *)j.tree;
	tg_table *rt[2], *out[3];
	tg_collectives_sync_info info;
	/* per rank: rank 3 has 1 collective in step 1 and 4 in step 2 */
	assert_int_equal(tg_collectives_rank_tables(rt, trees, NRANKS, 1), 0);
	assert_int_equal(tg_table_nrows(rt[0]), (NRANKS - 1) * 3 + 1);
	free_tables(rt, 2);
	assert_int_equal(tg_collectives_rank_tables(rt, trees, NRANKS, 2), 0);
	assert_int_equal(tg_table_nrows(rt[0]), (NRANKS - 1) * 2 + 4);
	free_tables(rt, 2);
	/* step 1: the allgather straddles (the broadcast too, but it is never matched) */
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, NRANKS, 1), 0);
	assert_int_equal(info.matched, 1);
	assert_int_equal(info.skipped_step, 1);
	assert_string_equal(str_cell(out[0], 0, "collective_id"), "0_0");
	free_tables(out, 3);
	assert_int_equal(tg_collectives_sync_tables(out, &info, trees, NRANKS, 2), 0);
	assert_int_equal(info.matched, 2);
	assert_int_equal(info.skipped_step, 1);
	free_tables(out, 3);
	job_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_synthetic_list),
		cmocka_unit_test(test_synthetic_rank_tables),
		cmocka_unit_test(test_synthetic_sync),
		cmocka_unit_test(test_simplified_mode),
		cmocka_unit_test(test_simplified_one_stream),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_hta_nccl),
		cmocka_unit_test(test_mi300_resnet),
		cmocka_unit_test(test_b200_allgather),
		cmocka_unit_test(test_sampled_pair),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_steps_straddle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
