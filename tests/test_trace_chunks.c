/* test_trace_chunks.c - the reader's pipeline (core/trace/trace_chunks.h: chunks
 * cut at guessed event boundaries, parsed ahead on two threads, merged in
 * order) gives exactly what one thread gives: the same events, wide ids, arguments,
 * atoms with the same numbers, tracks, flows, counts and metadata, for
 * every chunk size on a document full of decoys (boundaries inside strings
 * and arguments, B/E pairs, flows, metadata, string ids, empty events,
 * members after traceEvents, the array format), on every shared trace, and
 * the same error, message and byte offset on every truncation and random
 * damage. Run under ASan/UBSan (make check SAN=1) and TSan (docs/testing.md). */
#include "testutil.h"

#include "../util/atoms.h"

/* Exactly the same model, byte for byte where it is plain data. */
static void assert_identical(const tg_trace *a, const tg_trace *b)
{
	size_t na, nb;
	const tg_event *ea = tg_trace_events(a, &na), *eb = tg_trace_events(b, &nb);
	assert_int_equal(na, nb);
	if (na)
		assert_memory_equal(ea, eb, na * sizeof(tg_event));
	for (size_t i = 0; i < na; i++) /* and their second ids, beside them */
		assert_int_equal(tg_trace_id1_field(a, &ea[i]), tg_trace_id1_field(b, &eb[i]));
	const int64_t *wa = tg_trace_wide_ids(a, &na), *wb = tg_trace_wide_ids(b, &nb);
	assert_int_equal(na, nb);
	if (na)
		assert_memory_equal(wa, wb, na * sizeof(int64_t));
	const tg_arg *xa = tg_trace_args(a, &na), *xb = tg_trace_args(b, &nb);
	assert_int_equal(na, nb);
	if (na)
		assert_memory_equal(xa, xb, na * sizeof(tg_arg));
	const tg_track *ta = tg_trace_tracks(a, &na), *tb = tg_trace_tracks(b, &nb);
	assert_int_equal(na, nb);
	if (na)
		assert_memory_equal(ta, tb, na * sizeof(tg_track));
	const tg_flow *fa = tg_trace_flows(a, &na), *fb = tg_trace_flows(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(tg_flow_id(a, &fa[i]), tg_flow_id(b, &fb[i]));
		assert_int_equal(fa[i].ts, fb[i].ts);
		assert_int_equal(fa[i].track, fb[i].track);
		assert_int_equal(fa[i].ph, fb[i].ph);
		assert_int_equal(fa[i].type, fb[i].type);
		assert_int_equal(fa[i].bind_enclosing, fb[i].bind_enclosing);
	}
	const tg_atoms *aa = tg_trace_atoms(a), *ab = tg_trace_atoms(b);
	assert_int_equal(tg_atoms_count(aa), tg_atoms_count(ab));
	for (uint32_t i = 0; i < tg_atoms_count(aa); i++)
		assert_string_equal(tg_atoms_str(aa, i), tg_atoms_str(ab, i));
	assert_memory_equal(tg_trace_stats_get(a), tg_trace_stats_get(b), sizeof(tg_trace_stats));
	assert_true(json_equal((json_t *)tg_trace_meta(a), (json_t *)tg_trace_meta(b)));
	assert_int_equal(tg_trace_rank(a), tg_trace_rank(b));
}

/* A document with every kind of element and many decoy boundaries:
 * "}, {\"" followed by a letter inside strings (escaped quotes), inside
 * argument arrays of objects, inside top-level members; pretty (newlines)
 * or on one line. The caller frees it. */
static char *tricky_doc(size_t *len, int pretty, int array_format, int nev)
{
	size_t cap = 4096 + (size_t)nev * 600, n = 0;
	char *d = malloc(cap);
	const char *nl = pretty ? "\n  " : " ";
	if (array_format)
		n += (size_t)sprintf(d + n, "[");
	else
		n += (size_t)sprintf(d + n, "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 3, \"pg_config\": "
		                            "[{\"pg_name\": \"0\"}, {\"pg_name\": \"1\"}]}, \"traceEvents\": [");
	for (int i = 0; i < nev; i++) {
		if (i)
			n += (size_t)sprintf(d + n, ",%s", nl);
		long long ts = 1000000 + i * 7;
		switch (i % 13) {
		case 0:
			n += (size_t)sprintf(d + n, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, "
			                            "\"tid\": 1, \"ts\": %lld.125, \"dur\": 5.5, \"args\": {\"External id\": %d, "
			                            "\"Input Dims\": [[%d, 4], []], \"Concrete Inputs\": [\"}, {\\\"ph\\\": \\\"X\\\"\", "
			                            "\"\"], \"Sequence number\": %d}}",
			                     i % 5, ts, i, i % 7, i);
			break;
		case 1:
			n += (size_t)sprintf(d + n, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
			                            "\"pid\": 1, \"tid\": 1, \"ts\": %lld, \"dur\": 2, \"args\": {\"correlation\": %d, "
			                            "\"External id\": %lld, \"cbid\": 211}}",
			                     ts + 1, i, (i - 1) - (i % 2 ? 0 : 5000000000LL)); /* every other one wide */
			break;
		case 2:
			n += (size_t)sprintf(d + n, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_%d\", \"pid\": 0, "
			                            "\"tid\": \"stream 7\", \"ts\": %lld.9999, \"dur\": 3.0005, \"args\": {\"correlation\": %d, "
			                            "\"stream\": 7, \"grid\": [1, 2, 3], \"objs\": [{\"a\": 1},%s{\"b\": [{\"c\": null}]}]}}",
			                     i % 3, ts + 2, i - 1, nl);
			break;
		case 3:
			n += (size_t)sprintf(d + n, "{\"ph\": \"s\", \"id\": \"0x%x\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
			                            "\"cat\": \"ac2g\", \"name\": \"ac2g\"}",
			                     i, ts);
			break;
		case 4:
			n += (size_t)sprintf(d + n, "{\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %lld, "
			                            "\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
			                     i - 1, ts);
			break;
		case 5:
			n += (size_t)sprintf(d + n, "{\"ph\": \"B\", \"name\": \"range %d\", \"pid\": 2, \"tid\": 2, \"ts\": %lld}",
			                     i, ts);
			break;
		case 6:
			n += (size_t)sprintf(d + n, "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(%d): g\", "
			                            "\"pid\": 1, \"tid\": 0, \"ts\": %lld, \"dur\": 9, \"args\": {\"Python parent id\": "
			                            "null, \"Python id\": %d, \"Ev Idx\": %d}}",
			                     i % 11, ts, i, i);
			break;
		case 7:
			n += (size_t)sprintf(d + n, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 2, \"tid\": %d, "
			                            "\"args\": {\"name\": \"thread %d\"}}",
			                     i % 4, i % 4);
			break;
		case 8:
			n += (size_t)sprintf(d + n, "{}");
			break;
		case 9:
			n += (size_t)sprintf(d + n, "{\"ph\": \"E\", \"pid\": 2, \"tid\": 2, \"ts\": %lld}", ts);
			break;
		case 10:
			n += (size_t)sprintf(d + n, "{\"ph\": \"X\", \"cat\": \"mystery %d\", \"name\": \"\\u00e9v\\\"}, {\\\"ph\", "
			                            "\"pid\": \"Spans\", \"tid\": \"%d\", \"ts\": %lld, \"dur\": 1}",
			                     i % 2, i % 6, ts);
			break;
		case 11:
			n += (size_t)sprintf(d + n, "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
			                            "\"args\": {\"v\": %d}}",
			                     ts, i);
			break;
		default:
			n += (size_t)sprintf(d + n, "{\"name\": \"process_labels\", \"ph\": \"M\", \"pid\": %d, \"args\": "
			                            "{\"labels\": \"GPU %d\"}}, {\"ph\": \"i\", \"s\": \"g\", \"name\": \"mark\", "
			                            "\"pid\": 1, \"tid\": 1, \"ts\": %lld}",
			                     i % 3, i % 3, ts);
		}
		assert_true(n < cap - 1024);
	}
	if (array_format)
		n += (size_t)sprintf(d + n, "]\n");
	else
		n += (size_t)sprintf(d + n, "],%s\"traceName\": \"x}, {\\\"y\", \"deviceProperties\": [{\"id\": 0, "
		                            "\"name\": \"GPU\"}, {\"id\": 1, \"name\": \"GPU\"}]}\n",
		                     nl);
	*len = n;
	return d;
}

/* Reads doc on one thread, then with the pipeline in chunks of every size
 * in [lo, hi) by step, and checks the models are identical. */
static void same_every_chunk(const char *doc, size_t len, uint32_t lo, uint32_t hi, uint32_t step, int keep_all)
{
	tg_read_opts one = {.source = {.single_thread = 1}, .keep_all_args = keep_all};
	tg_trace *ref;
	tg_test_must(tg_trace_read_mem(&ref, doc, len, "doc", &one));
	for (uint32_t c = lo; c < hi; c += step) {
		tg_read_opts o = {.chunk = c, .keep_all_args = keep_all, .window = 64 + c % 200};
		tg_trace *t;
		if (tg_trace_read_mem(&t, doc, len, "doc", &o))
			fail_msg("chunk %u: %s", c, tg_error_last());
		assert_identical(ref, t);
		tg_trace_free(t);
	}
	tg_trace_free(ref);
}

static void test_every_chunk_size(void **state)
{
	(void)state;
	size_t len;
	for (int v = 0; v < 4; v++) {
		char *doc = tricky_doc(&len, v & 1, v == 3, 260);
		same_every_chunk(doc, len, 64, 1200, v < 2 ? 1 : 7, v == 1);
		same_every_chunk(doc, len, 1200, (uint32_t)len + 100, 997, 0);
		free(doc);
	}
	char *sample = tg_test_slurp("tests/fixtures/sample.json", &len);
	assert_non_null(sample);
	same_every_chunk(sample, len, 64, 3000, 3, 0);
	free(sample);
}

/* One thread and the pipeline on doc: the same rc, and the same message. */
static void same_outcome(const char *doc, size_t len, uint32_t chunk)
{
	tg_read_opts one = {.source = {.single_thread = 1}}, o = {.chunk = chunk};
	tg_trace *t1 = NULL, *t2 = NULL;
	char m1[512];
	int r1 = tg_trace_read_mem(&t1, doc, len, "d", &one);
	snprintf(m1, sizeof(m1), "%s", r1 ? tg_error_last() : "");
	int r2 = tg_trace_read_mem(&t2, doc, len, "d", &o);
	assert_int_equal(r1, r2);
	assert_string_equal(r2 ? tg_error_last() : "", m1);
	if (!r1)
		assert_identical(t1, t2);
	tg_trace_free(t1);
	tg_trace_free(t2);
}

/* Every truncation of a tricky document, and thousands of random
 * damages: the pipeline fails (or not) exactly as one thread does. */
static void test_errors_the_same(void **state)
{
	(void)state;
	size_t len;
	char *doc = tricky_doc(&len, 0, 0, 60);
	for (size_t cut = 0; cut < len; cut += 1 + cut % 3)
		same_outcome(doc, cut, 64 + (uint32_t)(cut % 300));
	char *bad = malloc(len);
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	for (int round = 0; round < 4000; round++) {
		memcpy(bad, doc, len);
		for (int k = 0; k < 1 + round % 3; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			size_t at = x % len;
			/* the characters that matter most, or any byte */
			static const char some[] = "{}[],:\"\\ 0-.eE\x01\x80\xff";
			bad[at] = round % 2 ? some[(x >> 20) % (sizeof(some) - 1)] : (char)(x >> 40);
		}
		same_outcome(bad, len, 64 + (uint32_t)(x % 700));
	}
	free(bad);
	free(doc);
}

/* The limits are the sequential reader's: a large event (max_unit), too
 * many events (max_events), and a deep nesting (max_depth), each at the
 * same byte. */
static void test_limits_the_same(void **state)
{
	(void)state;
	size_t len;
	char *doc = tricky_doc(&len, 1, 0, 200);
	tg_read_opts lim[] = {{.max_events = 50}, {.max_unit = 256}, {.max_depth = 4}, {.max_string = 8}};
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		for (uint32_t c = 64; c < 3000; c += 211) {
			tg_read_opts one = lim[i], o = lim[i];
			one.source.single_thread = 1;
			o.chunk = c;
			tg_trace *t;
			int r1 = tg_trace_read_mem(&t, doc, len, "d", &one);
			tg_trace_free(t);
			char m1[512];
			snprintf(m1, sizeof(m1), "%s", tg_error_last());
			int r2 = tg_trace_read_mem(&t, doc, len, "d", &o);
			tg_trace_free(t);
			assert_int_equal(r1, r2);
			if (r1)
				assert_string_equal(tg_error_last(), m1);
		}
	}
	free(doc);
}

/* The gzip fixtures of tests/data/bad read through the pipeline (a tiny
 * chunk), on one thread, and with the source's inflate thread: the same
 * error, word for word (a bomb trips at the same MiB, a truncation names
 * the same counts). */
static void test_gzip_errors_the_same(void **state)
{
	(void)state;
	const char *files[] = {"bomb", "corrupt", "crc_mismatch", "gzip_header_only", "gzip_trailing_garbage",
	                       "truncated", "nan", "empty"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[256], m[3][512];
		snprintf(path, sizeof(path), "tests/data/bad/trace/%s.json.gz", files[i]);
		tg_read_opts o[3] = {{.chunk = 64}, {.source = {.single_thread = 1}}, {.chunk = 1u << 30}};
		for (int k = 0; k < 3; k++) {
			tg_trace *t = NULL;
			assert_int_not_equal(tg_trace_read_file(&t, path, &o[k]), 0);
			assert_null(t);
			snprintf(m[k], sizeof(m[k]), "%s", tg_error_last());
		}
		assert_string_equal(m[0], m[1]);
		assert_string_equal(m[0], m[2]);
	}
}

/* Every shared trace: the pipeline (default chunks, and small ones for
 * many more boundaries) reads exactly what one thread reads. */
static void test_shared_traces(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	size_t np, nread = 0;
	char **paths = tg_test_shared_trace_files(&np);
	for (size_t i = 0; i < np; i++) {
		tg_read_opts one = {.source = {.single_thread = 1}};
		tg_trace *ref;
		if (tg_trace_read_file(&ref, paths[i], &one))
			continue; /* not a trace: a config or a result */
		uint32_t chunks[] = {0, 4096};
		for (int k = 0; k < 2; k++) {
			tg_read_opts o = {.chunk = chunks[k]};
			tg_trace *t;
			if (tg_trace_read_file(&t, paths[i], &o))
				fail_msg("%s: %s", paths[i], tg_error_last());
			assert_identical(ref, t);
			tg_trace_free(t);
		}
		tg_trace_free(ref);
		nread++;
	}
	assert_true(nread >= 70);
	tg_test_paths_free(paths, np);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_chunk_size),
		cmocka_unit_test(test_errors_the_same),
		cmocka_unit_test(test_limits_the_same),
		cmocka_unit_test(test_gzip_errors_the_same),
		cmocka_unit_test(test_shared_traces),
	};
	return cmocka_run_group_tests_name("trace_chunks", tests, NULL, NULL);
}
