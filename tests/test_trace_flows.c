/* test_trace_flows.c - the flows a read keeps (tg_read_opts.launch_flows_only,
 * which tg_cli_load sets): only a kernel launch's start and end, the rest
 * (fwdbwd, a launch's step 't', any other category) dropped but their
 * tracks made all the same; the tree links the same events either way, on
 * one thread and with the pipeline of chunks, and when its build drops the
 * flows once linked (tg_tree_build_dropping, as tg_cli_load builds). */
#include "testutil.h"

/* One launch linked by correlation (id 6), one by its flow alone (id 9:
 * the kernel carries no correlation), a fwdbwd pair whose end is on a
 * thread of its own, a launch's step 't' on another, and an "async" flow's
 * start (a launch category) on the launching thread. */
static const char *const flows_json =
	"{\"traceEvents\":[\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50,"
	"\"args\":{\"External id\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":5,"
	"\"args\":{\"correlation\":6,\"External id\":1}},\n"
	"{\"ph\":\"s\",\"id\":6,\"pid\":1,\"tid\":1,\"ts\":110,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":120,\"dur\":5,"
	"\"args\":{}},\n"
	"{\"ph\":\"s\",\"id\":9,\"pid\":1,\"tid\":1,\"ts\":120,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
	"{\"ph\":\"t\",\"id\":9,\"pid\":1,\"tid\":3,\"ts\":121,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
	"{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":100,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\"},\n"
	"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":2,\"ts\":300,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"bp\":\"e\"},\n"
	"{\"ph\":\"s\",\"id\":4,\"pid\":1,\"tid\":1,\"ts\":130,\"cat\":\"user\",\"name\":\"other\"},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":10,"
	"\"args\":{\"correlation\":6,\"stream\":7}},\n"
	"{\"ph\":\"f\",\"id\":6,\"pid\":0,\"tid\":7,\"ts\":200,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu\",\"pid\":0,\"tid\":7,\"ts\":220,\"dur\":10,"
	"\"args\":{\"stream\":7}},\n"
	"{\"ph\":\"f\",\"id\":9,\"pid\":0,\"tid\":7,\"ts\":220,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}\n"
	"]}";

static tg_trace *read_flows(int launch_only, uint32_t chunk)
{
	tg_read_opts o = {.launch_flows_only = launch_only, .chunk = chunk};
	o.source.single_thread = chunk == 0;
	tg_trace *t = NULL;
	if (tg_trace_read_mem(&t, flows_json, strlen(flows_json), "flows.json", &o))
		fail_msg("read failed: %s", tg_error_last());
	return t;
}

static void test_every_flow_by_default(void **state)
{
	(void)state;
	tg_trace *t = read_flows(0, 0);
	size_t nf, nt;
	const tg_flow *f = tg_trace_flows(t, &nf);
	tg_trace_tracks(t, &nt);
	assert_int_equal(nf, 8);
	assert_int_equal(nt, 4); /* threads 1, 2, 3 and stream 7 */
	assert_int_equal(tg_trace_stats_get(t)->flow_events, 8);
	assert_int_equal(f[2].ph, 't');
	assert_int_equal(f[3].type, TG_FLOW_FWDBWD);
	assert_int_equal(f[5].type, TG_FLOW_OTHER);
	tg_trace_free(t);
}

static void test_launch_flows_only(void **state)
{
	(void)state;
	for (uint32_t chunk = 0; chunk <= 512; chunk += 256) { /* one thread, then chunks parsed ahead */
		tg_trace *all = read_flows(0, chunk), *t = read_flows(1, chunk);
		size_t nf, nt, nt_all;
		const tg_flow *f = tg_trace_flows(t, &nf);
		const tg_track *tr = tg_trace_tracks(t, &nt), *tr_all = tg_trace_tracks(all, &nt_all);
		/* the launches' s and f in the order read: 6 s, 9 s, 6 f, 9 f */
		assert_int_equal(nf, 4);
		int64_t ids[] = {6, 9, 6, 9};
		char phs[] = {'s', 's', 'f', 'f'};
		for (size_t i = 0; i < nf; i++) {
			assert_int_equal(tg_flow_id(t, &f[i]), ids[i]);
			assert_int_equal(f[i].ph, phs[i]);
			assert_int_equal(f[i].type, TG_FLOW_LAUNCH);
		}
		assert_int_equal(f[3].ts, 220000);
		assert_int_equal(f[3].bind_enclosing, 1);
		assert_int_equal(tr[f[3].track].tid, 7);
		/* the dropped flows' threads are tracks still, in the same order */
		assert_int_equal(nt, nt_all);
		for (size_t i = 0; i < nt; i++) {
			assert_int_equal(tr[i].pid, tr_all[i].pid);
			assert_int_equal(tr[i].tid, tr_all[i].tid);
		}
		assert_int_equal(tg_trace_stats_get(t)->flow_events, 8); /* counted as read */
		tg_trace_free(all);
		tg_trace_free(t);
	}
}

/* A document large enough that the reader reserves its arrays from its
 * size (192 bytes an event): the flows too, in a mapping of their own, so
 * that they never grow through the heap. Padded, it reserves far more than
 * it holds, and the room is given back after the read; dense, its flows
 * outgrow the room and the array grows as before. Either way the flows are
 * the ones read, in order, with the pipeline and on one thread. */
static void test_flows_reserved(void **state)
{
	(void)state;
	for (int padded = 0; padded <= 1; padded++) {
		size_t nflows = padded ? 2000 : 40000, cap = 16u << 20, len = 0;
		char *doc = malloc(cap);
		len += (size_t)sprintf(doc, "{\"traceEvents\":[");
		for (size_t i = 0; i < nflows; i++) {
			len += (size_t)sprintf(doc + len, "%s{\"ph\":\"%c\",\"id\":%zu,\"pid\":1,\"tid\":%d,\"ts\":%zu,"
			                       "\"cat\":\"ac2g\",\"name\":\"ac2g\"}", i ? "," : "", i % 2 ? 'f' : 's', i / 2,
			                       i % 2 ? 7 : 1, i);
			if (padded) { /* 4 kB of blanks an event */
				memset(doc + len, ' ', 4096);
				len += 4096;
			}
		}
		strcpy(doc + len, "]}");
		len += 2;
		for (uint32_t chunk = 0; chunk <= 65536; chunk += 65536) {
			tg_read_opts o = {.launch_flows_only = 1, .chunk = chunk};
			o.source.single_thread = chunk == 0;
			tg_trace *t = NULL;
			assert_int_equal(tg_trace_read_mem(&t, doc, len, "many-flows.json", &o), 0);
			size_t nf;
			const tg_flow *f = tg_trace_flows(t, &nf);
			assert_int_equal(nf, nflows);
			for (size_t i = 0; i < nf; i += 997) {
				assert_int_equal(tg_flow_id(t, &f[i]), i / 2);
				assert_int_equal(f[i].ph, i % 2 ? 'f' : 's');
				assert_int_equal(f[i].ts, (int64_t)i * 1000);
			}
			assert_int_equal(f[nf - 1].ts, (int64_t)(nf - 1) * 1000);
			/* the room reserved for len / 192 events, flows and arguments
			 * (42,000 of each when padded: 2.5 MB) is given back */
			size_t atoms = tg_atoms_bytes(tg_trace_atoms(t));
			assert_true(tg_trace_memory(t) - atoms < nflows * sizeof(tg_flow) + 4096 * 64);
			tg_trace_drop_flows(t);
			tg_trace_flows(t, &nf);
			assert_int_equal(nf, 0);
			tg_trace_free(t);
		}
		free(doc);
	}
}

static void test_tree_links_the_same(void **state)
{
	(void)state;
	tg_trace *all = read_flows(0, 0), *t = read_flows(1, 0);
	tg_tree *tree_all = NULL, *tree = NULL;
	assert_int_equal(tg_tree_build(&tree_all, all), 0);
	assert_int_equal(tg_tree_build(&tree, t), 0);
	const tg_tree_stats *s = tg_tree_stats_get(tree);
	assert_int_equal(s->gpu_by_correlation, 1);
	assert_int_equal(s->gpu_by_flow, 1);
	assert_int_equal(s->gpu_orphans, 0);
	assert_memory_equal(s, tg_tree_stats_get(tree_all), sizeof(*s));
	size_t ne;
	tg_trace_events(t, &ne);
	for (uint32_t i = 0; i < ne; i++)
		assert_int_equal(tg_tree_parent(tree, i), tg_tree_parent(tree_all, i));
	uint32_t relu = tg_test_find(t, "relu", TG_KIND_KERNEL);
	assert_int_equal(tg_tree_parent(tree, relu), 2); /* the second launch, by its flow */
	/* built as tg_cli_load builds it: the flows dropped once linked, the
	 * second ids once built */
	tg_trace *dropped = read_flows(1, 0);
	tg_tree *tree_dropped = NULL;
	size_t nf;
	assert_int_equal(tg_tree_build_dropping(&tree_dropped, dropped, NULL), 0);
	assert_non_null(tg_trace_flows(t, &nf));
	assert_int_equal(nf, 4);
	assert_null(tg_trace_flows(dropped, &nf));
	assert_int_equal(nf, 0);
	assert_true(tg_trace_has_id1s(t)); /* and the second ids, once the tree is built */
	assert_false(tg_trace_has_id1s(dropped));
	assert_memory_equal(tg_tree_stats_get(tree_dropped), s, sizeof(*s));
	for (uint32_t i = 0; i < ne; i++) {
		assert_int_equal(tg_tree_parent(tree_dropped, i), tg_tree_parent(tree, i));
		assert_int_equal(tg_tree_linked_like_tracelens(tree_dropped, i),
		                 tg_tree_linked_like_tracelens(tree, i));
	}
	assert_true(tg_tree_linked_like_tracelens(tree_dropped, tg_test_find(t, "gemm", TG_KIND_KERNEL)));
	tg_tree_free(tree_dropped);
	tg_trace_free(dropped);
	tg_tree_free(tree_all);
	tg_tree_free(tree);
	tg_trace_free(all);
	tg_trace_free(t);
}

/* A flow is 16 bytes: its id in 32 bits, a wider one (2^32 and up, or a
 * string id's hash) in the trace's wide flow ids, read back whole by
 * tg_flow_id and freed with the flows. */
static void test_wide_flow_ids(void **state)
{
	(void)state;
	static const char *const json =
		"{\"traceEvents\":[\n"
		"{\"ph\":\"s\",\"id\":4294967295,\"pid\":1,\"tid\":1,\"ts\":1,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
		"{\"ph\":\"s\",\"id\":4294967296,\"pid\":1,\"tid\":1,\"ts\":2,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
		"{\"ph\":\"f\",\"id\":4611686018427387904,\"pid\":0,\"tid\":7,\"ts\":3,\"cat\":\"ac2g\","
		"\"name\":\"ac2g\",\"bp\":\"e\"},\n"
		"{\"ph\":\"f\",\"id\":18446744073709551615,\"pid\":0,\"tid\":7,\"ts\":4,\"cat\":\"ac2g\","
		"\"name\":\"ac2g\"},\n"
		"{\"ph\":\"t\",\"id\":0,\"pid\":0,\"tid\":7,\"ts\":5,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\"}\n"
		"]}";
	assert_int_equal(sizeof(tg_flow), 16);
	tg_trace *t = NULL;
	tg_read_opts o = {0};
	assert_int_equal(tg_trace_read_mem(&t, json, strlen(json), "wide.json", &o), 0);
	size_t nf, nw;
	const tg_flow *f = tg_trace_flows(t, &nf);
	const uint64_t *w = tg_trace_wide_flow_ids(t, &nw);
	assert_int_equal(nf, 5);
	assert_int_equal(nw, 3);
	uint64_t ids[] = {4294967295u, 4294967296u, 4611686018427387904u, 18446744073709551615u, 0};
	int wide[] = {0, 1, 1, 1, 0};
	for (size_t i = 0; i < nf; i++) {
		assert_true(tg_flow_id(t, &f[i]) == ids[i]);
		assert_int_equal(f[i].wide_id, wide[i]);
		assert_int_equal(f[i].ts, (int64_t)(i + 1) * 1000);
	}
	assert_true(w[2] == 18446744073709551615u);
	assert_int_equal(f[2].ph, 'f');
	assert_int_equal(f[2].bind_enclosing, 1);
	assert_int_equal(f[3].bind_enclosing, 0);
	assert_int_equal(f[4].ph, 't');
	assert_int_equal(f[4].type, TG_FLOW_FWDBWD);
	tg_trace_drop_flows(t);
	assert_null(tg_trace_wide_flow_ids(t, &nw));
	assert_int_equal(nw, 0);
	tg_trace_free(t);
}

/* A flow keeps its track in 19 bits, as an event does: flows on more
 * than TG_TRACK_MAX + 1 tracks are refused with one line naming the flow,
 * one less is read, each flow on its own track. */
static void test_flow_track_limit(void **state)
{
	(void)state;
	for (uint32_t ntr = TG_TRACK_MAX + 1; ntr <= TG_TRACK_MAX + 2; ntr++) {
		size_t cap = (size_t)ntr * 80 + 64, k = 0;
		char *doc = malloc(cap);
		assert_non_null(doc);
		k += (size_t)sprintf(doc + k, "{\"traceEvents\":[");
		for (uint32_t i = 0; i < ntr; i++)
			k += (size_t)sprintf(doc + k,
			                     "%s{\"ph\":\"s\",\"id\":%u,\"ts\":1,\"pid\":0,\"tid\":%u,\"cat\":\"ac2g\"}",
			                     i ? "," : "", i, i);
		k += (size_t)sprintf(doc + k, "]}");
		tg_trace *t = NULL;
		int rc = tg_trace_read_mem(&t, doc, k, "flow_tracks.json", NULL);
		if (ntr == TG_TRACK_MAX + 1) {
			assert_int_equal(rc, 0);
			size_t nf;
			const tg_flow *f = tg_trace_flows(t, &nf);
			assert_int_equal(nf, ntr);
			assert_int_equal(f[nf - 1].track, TG_TRACK_MAX);
			assert_int_equal(tg_flow_id(t, &f[nf - 1]), TG_TRACK_MAX);
			tg_trace_free(t);
		} else {
			assert_int_equal(rc, TG_ELIMIT);
			assert_null(t);
			assert_non_null(strstr(tg_error_last(), "flow_tracks.json: "));
			assert_non_null(strstr(tg_error_last(), "more than 524288 tracks (limit)"));
		}
		free(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_flow_by_default),
		cmocka_unit_test(test_launch_flows_only),
		cmocka_unit_test(test_wide_flow_ids),
		cmocka_unit_test(test_flow_track_limit),
		cmocka_unit_test(test_tree_links_the_same),
		cmocka_unit_test(test_flows_reserved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
