/* test_memory.c - peak allocated/reserved memory per device from [memory]
 * events: totals, the "Bytes"-only 2021 schema, the op at the peak, steps;
 * shared traces checked against a Python scan of the same events. */
#include "testutil.h"

#include "../core/trace/kernel_class.h"
#include "../core/analysis/memory.h"

#include <math.h>

static const char *str(const tg_table *t, size_t row, const char *col)
{
	const tg_cell *c = tg_test_cell(t, row, col);
	return c->type == TG_CELL_STR ? c->v.s : "";
}

static const char *op_name(const tg_trace *t, uint32_t ev)
{
	size_t n;
	return ev == TG_NONE ? "(none)" : tg_trace_str(t, tg_trace_events(t, &n)[ev].name);
}

/* Times in us, thread 1/1; steps [0,100) [100,200).
 *   aten::zeros [10,30) > aten::empty [11,15);  aten::add [40,50);  aten::mul [120,140)
 * CUDA:0 (totals):   ts 12 alloc 100 res 512 | 20: 300/1024 (zeros, after empty ended) |
 *                    45: 250/1024 | 125: 300/1024 (ties: the first stays) | 130: 280 |
 *                    210: 50 (no step)
 * CPU (totals):      ts 41: 64/0 (add)
 * CUDA:1 (Bytes):    13: +1000 | 46: +500 -> 1500 (add) | 47: -1200 | 126: +800 -> 1100 (mul) */
static const char *const TRACE =
	"{\"traceEvents\": ["
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::zeros\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":11,\"dur\":4},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":10},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":1,\"tid\":1,\"ts\":120,\"dur\":20},"
	"{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":12,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":100,\"Total Allocated\":100,\"Total Reserved\":512}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":200,\"Total Allocated\":300,\"Total Reserved\":1024}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":45,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":-50,\"Total Allocated\":250,\"Total Reserved\":1024}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":125,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":50,\"Total Allocated\":300,\"Total Reserved\":1024}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":130,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":-20,\"Total Allocated\":280,\"Total Reserved\":1024}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":210,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":-230,\"Total Allocated\":50,\"Total Reserved\":1024}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":41,\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Bytes\":64,\"Total Allocated\":64,\"Total Reserved\":0}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":13,\"args\":{\"Device Type\":1,\"Device Id\":1,\"Bytes\":1000}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":47,\"args\":{\"Device Type\":1,\"Device Id\":1,\"Bytes\":-1200}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":46,\"args\":{\"Device Type\":1,\"Device Id\":1,\"Bytes\":500}},"
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":126,\"args\":{\"Device Type\":1,\"Device Id\":1,\"Bytes\":800}}"
	"]}";

/* Reads doc, builds its tree and its peaks over the whole trace: *t and
 * *tree are the caller's to free, as is the array returned (*n peaks). */
static tg_memory_peak *read_peaks(const char *doc, tg_trace **t, tg_tree **tree, size_t *n)
{
	*t = tg_test_read_str(doc);
	assert_int_equal(tg_tree_build(tree, *t), 0);
	tg_memory_peak *p;
	assert_int_equal(tg_memory_peaks(&p, n, *tree, TG_STEP_ALL), 0);
	return p;
}

static void test_peaks(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	size_t n;
	tg_memory_peak *p = read_peaks(TRACE, &t, &tree, &n);
	assert_int_equal(n, 3);
	/* by (type, id): CPU, CUDA:0, CUDA:1 */
	assert_int_equal(p[0].device_type, 0);
	assert_int_equal(p[0].device_id, -1);
	assert_int_equal(p[0].events, 1);
	assert_int_equal(p[0].peak_allocated, 64);
	assert_int_equal(p[0].peak_allocated_ts, 41000);
	assert_string_equal(op_name(t, p[0].peak_allocated_op), "aten::add");
	assert_int_equal(p[0].peak_reserved, 0);

	assert_int_equal(p[1].device_type, 1);
	assert_int_equal(p[1].device_id, 0);
	assert_int_equal(p[1].events, 6);
	assert_true(p[1].from_totals);
	assert_int_equal(p[1].peak_allocated, 300);
	assert_int_equal(p[1].peak_allocated_ts, 20000);
	assert_string_equal(op_name(t, p[1].peak_allocated_op), "aten::zeros");
	assert_int_equal(p[1].peak_reserved, 1024);
	assert_int_equal(p[1].peak_reserved_ts, 20000);

	/* sum of Bytes in time order (the file has 47 before 46) */
	assert_int_equal(p[2].device_id, 1);
	assert_false(p[2].from_totals);
	assert_int_equal(p[2].events, 4);
	assert_int_equal(p[2].peak_allocated, 1500);
	assert_int_equal(p[2].peak_allocated_ts, 46000);
	assert_string_equal(op_name(t, p[2].peak_allocated_op), "aten::add");
	assert_int_equal(p[2].peak_reserved, -1);
	assert_int_equal(p[2].peak_reserved_op, TG_NONE);
	free(p);

	/* step 1 (ProfilerStep#2): no CPU events; CUDA:0 peaks at 125 in
	 * aten::mul; CUDA:1's running sum still starts at the trace's start */
	assert_int_equal(tg_memory_peaks(&p, &n, tree, 1), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].device_id, 0);
	assert_int_equal(p[0].events, 2);
	assert_int_equal(p[0].peak_allocated, 300);
	assert_int_equal(p[0].peak_allocated_ts, 125000);
	assert_string_equal(op_name(t, p[0].peak_allocated_op), "aten::mul");
	assert_int_equal(p[1].device_id, 1);
	assert_int_equal(p[1].peak_allocated, 1100);
	assert_string_equal(op_name(t, p[1].peak_allocated_op), "aten::mul");
	free(p);

	/* HTA's window: before the last step */
	assert_int_equal(tg_memory_peaks(&p, &n, tree, TG_STEP_HTA), 0);
	assert_int_equal(n, 3);
	assert_int_equal(p[1].events, 3);
	assert_int_equal(p[2].events, 3);
	free(p);
	assert_int_equal(tg_memory_peaks(&p, &n, tree, 2), TG_EINVAL);
	assert_null(p);

	tg_table **tabs;
	assert_int_equal(tg_memory_tables(&tabs, &n, tree, TG_STEP_ALL), 0);
	assert_int_equal(n, 1);
	const tg_table *m = tabs[0];
	assert_string_equal(tg_table_name(m), "memory_peaks");
	assert_int_equal(tg_table_nrows(m), 3);
	assert_string_equal(str(m, 0, "device"), "CPU");
	assert_string_equal(str(m, 1, "device"), "CUDA:0");
	assert_string_equal(str(m, 1, "basis"), "Total Allocated");
	assert_int_equal(tg_test_num(m, 1, "peak_allocated(bytes)"), 300);
	NEAR(tg_test_num(m, 1, "peak_allocated_at(ms)"), 0.020, 1e-12); /* since ProfilerStep#1 at 0 */
	assert_string_equal(str(m, 1, "peak_allocated_op"), "aten::zeros");
	assert_int_equal(tg_test_num(m, 1, "peak_reserved(bytes)"), 1024);
	assert_string_equal(str(m, 1, "peak_reserved_op"), "aten::zeros");
	assert_string_equal(str(m, 2, "device"), "CUDA:1");
	assert_string_equal(str(m, 2, "basis"), "sum of Bytes");
	assert_true(isnan(tg_test_num(m, 2, "peak_reserved(bytes)")));
	assert_true(isnan(tg_test_num(m, 2, "peak_reserved_at(ms)")));
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* More devices than the sort splits its events by (16): the events of 20
 * devices, written from device 19 down, two each, the second earlier; the
 * peaks still come by device id, each its earlier event's "Total Allocated"
 * (the larger).
 * And 3 devices, each run out of time order: the same peaks. */
static void test_many_devices(void **state)
{
	(void)state;
	for (int ndev = 3; ndev <= 20; ndev += 17) {
		char *doc = malloc(64 * 1024);
		size_t o = (size_t)sprintf(doc, "{\"traceEvents\": ["), start = o;
		for (int d = ndev - 1; d >= 0; d--)
			for (int k = 0; k < 2; k++)
				o += (size_t)sprintf(doc + o,
				                     "%s{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"
				                     "\"ts\":%d,\"args\":{\"Device Type\":1,\"Device Id\":%d,"
				                     "\"Bytes\":1,\"Total Allocated\":%d}}",
				                     o > start ? "," : "", 100 - 10 * k, d, 1000 * d + k);
		strcpy(doc + o, "]}");
		tg_trace *t;
		tg_tree *tree;
		size_t n;
		tg_memory_peak *p = read_peaks(doc, &t, &tree, &n);
		assert_int_equal(n, (size_t)ndev);
		for (int d = 0; d < ndev; d++) {
			assert_int_equal(p[d].device_id, d);
			assert_int_equal(p[d].events, 2);
			/* the k = 1 event, written second, at 90 us: 1000 d + 1 */
			assert_int_equal(p[d].peak_allocated, 1000 * d + 1);
			assert_int_equal(p[d].peak_allocated_ts, 90000);
		}
		free(p);
		tg_tree_free(tree);
		tg_trace_free(t);
		free(doc);
	}
}

static void test_no_memory_events(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str("{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"cpu_op\","
	                               "\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
	                               "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,"
	                               "\"tid\":1,\"ts\":5,\"args\":{\"Device Type\":7,\"Device Id\":2,"
	                               "\"Total Allocated\":9}}]}");
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_memory_tables(&tabs, &n, tree, TG_STEP_ALL), 0);
	/* an unnamed device type; no host event runs at 5 */
	assert_int_equal(tg_table_nrows(tabs[0]), 1);
	assert_string_equal(str(tabs[0], 0, "device"), "type 7:2");
	assert_int_equal(tg_test_cell(tabs[0], 0, "peak_allocated_op")->type, TG_CELL_EMPTY);
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
	assert_null(tg_memory_device_type_name(7));
	assert_string_equal(tg_memory_device_type_name(6), "HIP");

	t = tg_test_read_str("{\"traceEvents\": []}");
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_memory_peak *p = (tg_memory_peak *)1;
	assert_int_equal(tg_memory_peaks(&p, &n, tree, TG_STEP_ALL), 0);
	assert_null(p);
	assert_int_equal(n, 0);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Expected values from a Python scan of the JSON: per (Device Type, Device
 * Id), the largest "Total Allocated"/"Total Reserved" (or running sum of
 * "Bytes"), its first time since the trace's first event, and the innermost
 * cpu_op on the event's thread enclosing it. */
static void test_real_traces(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz");
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_memory_tables(&tabs, &n, tree, TG_STEP_ALL), 0);
	const tg_table *m = tabs[0];
	assert_int_equal(tg_table_nrows(m), 2);
	assert_string_equal(str(m, 0, "device"), "CPU");
	assert_int_equal(tg_test_num(m, 0, "events"), 1240);
	assert_int_equal(tg_test_num(m, 0, "peak_allocated(bytes)"), 8);
	assert_string_equal(str(m, 1, "device"), "CUDA:1");
	assert_int_equal(tg_test_num(m, 1, "events"), 26770);
	assert_int_equal(tg_test_num(m, 1, "peak_allocated(bytes)"), 6629508096);
	NEAR(tg_test_num(m, 1, "peak_allocated_at(ms)"), 226.886, 1e-9);
	assert_string_equal(str(m, 1, "peak_allocated_op"), "aten::empty");
	assert_int_equal(tg_test_num(m, 1, "peak_reserved(bytes)"), 12782141440);
	NEAR(tg_test_num(m, 1, "peak_reserved_at(ms)"), 51.849, 1e-9);
	assert_string_equal(str(m, 1, "peak_reserved_op"), "aten::empty_strided");
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);

	/* 2021 schema: "Bytes" only */
	tree = tg_test_load_shared(&t, "kineto/kineto_tbplugin_resnet50_V100_num_workers_0_worker0.1623143089861.pt.trace.json.gz");
	assert_int_equal(tg_memory_tables(&tabs, &n, tree, TG_STEP_ALL), 0);
	m = tabs[0];
	assert_int_equal(tg_table_nrows(m), 2);
	assert_string_equal(str(m, 0, "basis"), "sum of Bytes");
	assert_int_equal(tg_test_num(m, 0, "events"), 4618);
	assert_int_equal(tg_test_num(m, 0, "peak_allocated(bytes)"), 57803264);
	NEAR(tg_test_num(m, 0, "peak_allocated_at(ms)"), 244.905, 1e-9);
	assert_string_equal(str(m, 0, "peak_allocated_op"), "aten::empty");
	assert_string_equal(str(m, 1, "device"), "CUDA:0");
	assert_int_equal(tg_test_num(m, 1, "events"), 8220);
	assert_int_equal(tg_test_num(m, 1, "peak_allocated(bytes)"), 2791636480);
	NEAR(tg_test_num(m, 1, "peak_allocated_at(ms)"), 122.067, 1e-9);
	assert_string_equal(str(m, 1, "peak_allocated_op"), "aten::empty");
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);

	/* H100 Qwen (Device Type 1 = CUDA) */
	tree = tg_test_load_shared(&t, "tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
	tg_memory_peak *p;
	assert_int_equal(tg_memory_peaks(&p, &n, tree, TG_STEP_ALL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[1].device_type, 1);
	assert_int_equal(p[1].events, 2250);
	assert_int_equal(p[1].peak_allocated, 2088508416);
	assert_string_equal(op_name(t, p[1].peak_allocated_op), "aten::mul");
	assert_int_equal(p[1].peak_reserved, 2629828608);
	assert_string_equal(op_name(t, p[1].peak_reserved_op), "aten::resize_");
	free(p);
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peaks),
		cmocka_unit_test(test_many_devices),
		cmocka_unit_test(test_no_memory_events),
		cmocka_unit_test(test_real_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
