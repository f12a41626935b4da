/* test_augment.c - the augmented trace (core/analysis/augment.h, core/analysis/counters.h):
 * nothing added gives the same bytes; the counters' series and values on a
 * fixture and against the report's queue summary and HTA's test of
 * generate_trace_with_counters on its own trace; marks inserted into args
 * (present, empty, absent) and nothing else of the event changed; instants;
 * the round trip through the reader (same events, counters counted); a
 * file changed between the two reads refused with nothing written. */
#include "testutil.h"

#include "../core/analysis/augment.h"
#include "../core/analysis/counters.h"
#include "../core/analysis/launch_stats.h"

#include <fcntl.h>
#include <jansson.h>
#include <unistd.h>

/* Events, times in us. Thread 1/1 launches on stream 7 (pid 0): three
 * kernels, so the queue goes 1 2 1 2 1 0; a memcpy HtoD at 10 GB/s and a
 * second one overlapping it at 30 GB/s, a memset of 64 bytes in 2 us
 * (0.032 GB/s: bytes / duration); keys spelled with escapes, an event
 * without args, one with empty args, a string pid, B/E, a flow, a counter
 * and an instant of the trace's own, a name with quotes and UTF-8. */
static const char fixture[] =
	"\xEF\xBB\xBF{\"schemaVersion\": 1,\n"
	" \"traceEvents\": [\n"
	"  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": \"GPU 0\"}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 30,"
	" \"args\": {\"External id\": 1}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 102,"
	" \"dur\": 3, \"args\": {\"correlation\": 11}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 106,"
	" \"dur\": 3, \"args\": {\"correlation\": 12}},\n"
	"  {\"p\\u0068\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
	" \"ts\": 115, \"dur\": 3, \"args\": {\"correlation\": 13}},\n"
	"  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k \\\"quoted\\\" \xc3\xa9\", \"pid\": 0, \"tid\": 7,"
	" \"ts\": 110, \"dur\": 5, \"args\": {\"correlation\": 11, \"stream\": 7}},\n"
	"  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 7, \"ts\": 118, \"dur\": 2,"
	" \"args\": {\"correlation\": 12, \"stream\": 7}},\n"
	"  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k3\", \"pid\": 0, \"tid\": 7, \"ts\": 125, \"dur\": 2,"
	" \"args\": {\"correlation\": 13, \"stream\": 7}},\n"
	"  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0,"
	" \"tid\": 8, \"ts\": 200, \"dur\": 10, \"args\": {\"stream\": 8, \"memory bandwidth (GB/s)\": 10.0}},\n"
	"  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", \"pid\": 0,"
	" \"tid\": 9, \"ts\": 205, \"dur\": 10, \"args\": {\"stream\": 9, \"memory bandwidth (GB/s)\": 30}},\n"
	"  {\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 8, \"ts\": 230,"
	" \"dur\": 2, \"args\": {\"stream\": 8, \"bytes\": 64}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"no_args\", \"pid\": 1, \"tid\": 1, \"ts\": 300, \"dur\": 1},\n"
	"  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"empty_args\", \"pid\": 1, \"tid\": 1, \"ts\": 302,"
	" \"dur\": 1, \"args\": { }},\n"
	"  {\"ph\": \"B\", \"cat\": \"user_annotation\", \"name\": \"span\", \"pid\": \"Spans\", \"tid\": 1, \"ts\": 310},\n"
	"  {\"ph\": \"E\", \"pid\": \"Spans\", \"tid\": 1, \"ts\": 320},\n"
	"  {\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 11, \"pid\": 1, \"tid\": 1, \"ts\": 102},\n"
	"  {\"ph\": \"C\", \"name\": \"theirs\", \"pid\": 1, \"ts\": 330, \"args\": {\"v\": 1}},\n"
	"  {\"ph\": \"i\", \"s\": \"t\", \"name\": \"mark\", \"pid\": 1, \"tid\": 1, \"ts\": 340}\n"
	" ],\n"
	" \"displayTimeUnit\": \"ms\"}\n";

/* The indices of the fixture's events in the model (ph X, B, i). */
enum { EV_MM = 0, EV_K1 = 4, EV_NOARGS = 10, EV_EMPTY = 11, EV_SPAN = 12, EV_INSTANT = 13, NEVENTS = 14 };

struct fx {
	char dir[64], in[96], out[96];
	tg_trace *t;
	tg_tree *tree;
	int fd;
};

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/tg-augment-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->in, sizeof(f->in), "%s/in.json", f->dir);
	snprintf(f->out, sizeof(f->out), "%s/out.json", f->dir);
	write_file(f->in, fixture, sizeof(fixture) - 1);
	f->fd = open(f->in, O_RDONLY);
	if (f->fd < 0 || tg_trace_read_fd_named(&f->t, f->fd, f->in, NULL) || tg_tree_build(&f->tree, f->t))
		return -1;
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	tg_tree_free(f->tree);
	tg_trace_free(f->t);
	close(f->fd);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* The output's traceEvents, parsed (the fixture is small). */
static json_t *events_of(const char *path)
{
	json_error_t e;
	size_t len;
	char *text = tg_test_slurp(path, &len);
	size_t bom = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0; /* jansson reads no BOM */
	json_t *doc = json_loadb(text + bom, len - bom, 0, &e);
	free(text);
	if (!doc)
		fail_msg("%s: %s (line %d)", path, e.text, e.line);
	json_t *ev = json_incref(json_object_get(doc, "traceEvents"));
	json_decref(doc);
	return ev;
}

static void test_nothing_added_same_bytes(void **state)
{
	struct fx *f = *state;
	tg_augment_opts o = {.no_counters = 1};
	tg_augment_stats st;
	tg_test_must(tg_augment_write(&st, f->out, f->fd, f->in, f->tree, &o));
	size_t len;
	char *got = tg_test_slurp(f->out, &len);
	assert_int_equal(len, sizeof(fixture) - 1);
	assert_memory_equal(got, fixture, len);
	free(got);
	assert_int_equal(st.elements, 18);
	assert_int_equal(st.events, NEVENTS);
	assert_int_equal(st.marked + st.counters + st.instants, 0);
	assert_int_equal(st.json_in, sizeof(fixture) - 1);
	assert_int_equal(st.json_out, sizeof(fixture) - 1);
}

static void test_counters(void **state)
{
	struct fx *f = *state;
	tg_counters *c;
	tg_test_must(tg_counters_build(&c, f->tree));
	size_t ns, np;
	const tg_counter_series *s = tg_counters_series(c, &ns);
	const tg_counter_point *p = tg_counters_points(c, &np);
	assert_int_equal(ns, 3);
	/* stream 7: launches at 102 106 115, kernels start 110 118 125 */
	assert_int_equal(s[0].kind, TG_COUNTER_QUEUE);
	assert_string_equal(s[0].name, "Queue Length");
	assert_int_equal(s[0].stream, 7);
	assert_int_equal(s[0].n, 6);
	static const int64_t qts[] = {102000, 106000, 110000, 115000, 118000, 125000};
	static const double qv[] = {1, 2, 1, 2, 1, 0};
	for (int i = 0; i < 6; i++) {
		assert_int_equal(p[s[0].first + i].ts, qts[i]);
		assert_true(p[s[0].first + i].value == qv[i]);
	}
	assert_true(s[0].max == 2);
	/* HtoD: 10 GB/s from 200, 40 from 205, 30 from 210, 0 from 215 */
	assert_int_equal(s[1].kind, TG_COUNTER_BANDWIDTH);
	assert_string_equal(s[1].name, "Memcpy HtoD");
	assert_int_equal(s[1].stream, -1);
	assert_int_equal(s[1].n, 4);
	static const double bv[] = {10, 40, 30, 0};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(p[s[1].first + i].ts, 200000 + 5000 * i);
		assert_true(fabs(p[s[1].first + i].value - bv[i]) < 1e-12);
	}
	assert_true(s[1].max == 40);
	/* the memset: 64 bytes in 2 us = 0.032 GB/s */
	assert_string_equal(s[2].name, "Memset");
	assert_int_equal(s[2].n, 2);
	assert_true(fabs(p[s[2].first].value - 0.032) < 1e-12);
	assert_true(p[s[2].first + 1].value == 0);
	tg_counters_free(c);
}

static void test_counters_written(void **state)
{
	struct fx *f = *state;
	tg_augment_stats st;
	tg_test_must(tg_augment_write(&st, f->out, f->fd, f->in, f->tree, NULL));
	assert_int_equal(st.counters, 6 + 4 + 2);
	assert_int_equal(st.series, 3);
	json_t *ev = events_of(f->out);
	assert_int_equal(json_array_size(ev), 18 + 12);
	json_t *q = json_array_get(ev, 18 + 1), *b = json_array_get(ev, 18 + 7);
	assert_string_equal(json_string_value(json_object_get(q, "ph")), "C");
	assert_string_equal(json_string_value(json_object_get(q, "cat")), "tracegate");
	assert_string_equal(json_string_value(json_object_get(q, "name")), "Queue Length");
	assert_int_equal(json_integer_value(json_object_get(q, "pid")), 0);
	assert_int_equal(json_integer_value(json_object_get(q, "id")), 7);
	assert_true(json_number_value(json_object_get(q, "ts")) == 106.0);
	assert_true(json_number_value(json_object_get(json_object_get(q, "args"), "Queue Length")) == 2);
	assert_string_equal(json_string_value(json_object_get(b, "name")), "Memcpy HtoD");
	assert_true(json_number_value(json_object_get(json_object_get(b, "args"), "Memcpy BW")) == 40);
	json_decref(ev);
	/* the reader: the same events, the counters counted */
	tg_trace *t2;
	tg_test_must(tg_trace_read_file(&t2, f->out, NULL));
	size_t n1, n2;
	const tg_event *a = tg_trace_events(f->t, &n1), *c = tg_trace_events(t2, &n2);
	assert_int_equal(n2, n1);
	for (size_t i = 0; i < n1; i++) {
		assert_int_equal(a[i].ts, c[i].ts);
		assert_int_equal(tg_event_dur(f->t, &a[i]), tg_event_dur(t2, &c[i]));
		assert_int_equal(a[i].kind, c[i].kind);
		assert_string_equal(tg_trace_str(f->t, a[i].name), tg_trace_str(t2, c[i].name));
	}
	assert_int_equal(tg_trace_stats_get(t2)->counter_events, tg_trace_stats_get(f->t)->counter_events + 12);
	tg_trace_free(t2);
}

static void test_marks_and_instants(void **state)
{
	struct fx *f = *state;
	json_t *n0 = json_pack("{s:s,s:f}", "regressed_op", "aten::mm", "change_pct", 12.5);
	json_t *n1 = json_pack("{s:s}", "why", "a \"quoted\" \xc3\xa9 note");
	const json_t *notes[] = {n0, n1};
	tg_augment_mark marks[] = {{EV_K1, 0}, {EV_MM, 0}, {EV_NOARGS, 1}, {EV_EMPTY, 0}, {EV_MM, 1}, {EV_SPAN, 1}};
	json_t *iargs = json_pack("{s:i}", "n", 3);
	tg_augment_instant in[] = {{150000, "tracegate: block \"x\"", 'g', TG_NONE, iargs},
	                           {-2500, "e", 'q', 0, NULL}};
	tg_augment_opts o = {.no_counters = 1,
	                     .marks = marks,
	                     .nmarks = 6,
	                     .notes = notes,
	                     .nnotes = 2,
	                     .instants = in,
	                     .ninstants = 2};
	tg_augment_stats st;
	tg_test_must(tg_augment_write(&st, f->out, f->fd, f->in, f->tree, &o));
	assert_int_equal(st.marked, 5);
	assert_int_equal(st.instants, 2);
	json_t *ev = events_of(f->out);
	/* aten::mm: both notes merged, its own args kept */
	json_t *mm = json_object_get(json_array_get(ev, 1), "args");
	assert_int_equal(json_integer_value(json_object_get(mm, "External id")), 1);
	json_t *tg = json_object_get(mm, "tracegate");
	assert_string_equal(json_string_value(json_object_get(tg, "regressed_op")), "aten::mm");
	assert_string_equal(json_string_value(json_object_get(tg, "why")), "a \"quoted\" \xc3\xa9 note");
	/* the kernel with the quoted name keeps its name */
	json_t *k1 = json_array_get(ev, 5);
	assert_string_equal(json_string_value(json_object_get(k1, "name")), "k \"quoted\" \xc3\xa9");
	assert_true(json_real_value(json_object_get(json_object_get(json_object_get(k1, "args"), "tracegate"),
	                                            "change_pct")) == 12.5);
	/* no args: an args object made; empty args: filled */
	json_t *na = json_object_get(json_object_get(json_array_get(ev, 11), "args"), "tracegate");
	assert_non_null(json_object_get(na, "why"));
	assert_int_equal(json_object_size(json_object_get(json_array_get(ev, 12), "args")), 1);
	/* the instants, after the elements */
	json_t *i0 = json_array_get(ev, 18), *i1 = json_array_get(ev, 19);
	assert_string_equal(json_string_value(json_object_get(i0, "name")), "tracegate: block \"x\"");
	assert_string_equal(json_string_value(json_object_get(i0, "s")), "g");
	assert_true(json_number_value(json_object_get(i0, "ts")) == 150.0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(i0, "args"), "n")), 3);
	assert_int_equal(json_integer_value(json_object_get(i0, "pid")), 1);   /* the first event's track */
	assert_string_equal(json_string_value(json_object_get(i1, "s")), "g"); /* a bad scope is global */
	assert_string_equal(json_string_value(json_object_get(i1, "name")), "e");
	assert_true(json_number_value(json_object_get(i1, "ts")) == -2.5);
	assert_int_equal(json_array_size(ev), 20);
	json_decref(ev);
	/* the reader: the same events, then the two instants */
	tg_trace *t2;
	tg_test_must(tg_trace_read_file(&t2, f->out, NULL));
	size_t n2;
	const tg_event *c = tg_trace_events(t2, &n2);
	assert_int_equal(n2, NEVENTS + 2);
	assert_int_equal(c[NEVENTS].kind, TG_KIND_INSTANT);
	assert_int_equal(c[NEVENTS].ts, 150000);
	assert_string_equal(tg_trace_str(t2, c[EV_SPAN].name), "span");
	tg_trace_free(t2);
	json_decref(n0);
	json_decref(n1);
	json_decref(iargs);
}

static void test_bad_marks(void **state)
{
	struct fx *f = *state;
	json_t *arr = json_array();
	const json_t *notes[] = {arr};
	tg_augment_mark m = {NEVENTS, 0};
	tg_augment_opts o = {.marks = &m, .nmarks = 1, .notes = notes, .nnotes = 1};
	assert_int_equal(tg_augment_write(NULL, f->out, f->fd, f->in, f->tree, &o), TG_EINVAL);
	m.event = 0;
	assert_int_equal(tg_augment_write(NULL, f->out, f->fd, f->in, f->tree, &o), TG_EINVAL);
	assert_string_equal(tg_error_last(), "augment: note 0 is not a JSON object");
	assert_int_equal(access(f->out, F_OK), -1);
	json_decref(arr);
}

/* The file changed between the reads: refused, nothing written. */
static void test_changed_file(void **state)
{
	struct fx *f = *state;
	char other[128];
	snprintf(other, sizeof(other), "%s/other.json", f->dir);
	static const char more[] = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1}]}";
	write_file(other, more, sizeof(more) - 1);
	int fd = open(other, O_RDONLY);
	assert_int_equal(tg_augment_write(NULL, f->out, fd, other, f->tree, NULL), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "1 events on the second read, 14 on the first: the file changed"));
	close(fd);
	write_file(other, fixture, 600); /* cut inside an event */
	fd = open(other, O_RDONLY);
	assert_int_equal(tg_augment_write(NULL, f->out, fd, other, f->tree, NULL), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "the file ends early"));
	close(fd);
	write_file(other, "{\"traceEvents\": [{\"ph\": \"X\" \"name\": 1}]}", 40);
	fd = open(other, O_RDONLY);
	assert_int_equal(tg_augment_write(NULL, f->out, fd, other, f->tree, NULL), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "other.json: byte 28: expected ',' or '}' in an event"));
	close(fd);
	assert_int_equal(access(f->out, F_OK), -1);
	/* a tiny window limit: an event larger than it */
	tg_augment_opts o = {.max_unit = 64};
	assert_int_equal(tg_augment_write(NULL, f->out, f->fd, f->in, f->tree, &o), TG_ELIMIT);
	assert_int_equal(access(f->out, F_OK), -1);
}

/* gzip output; /dev/null written as it is. */
static void test_gzip_and_devnull(void **state)
{
	struct fx *f = *state;
	char gz[128];
	snprintf(gz, sizeof(gz), "%s/out.json.gz", f->dir);
	tg_test_must(tg_augment_write(NULL, gz, f->fd, f->in, f->tree, NULL));
	size_t len;
	char *b = tg_test_slurp(gz, &len);
	assert_true(len > 2 && (unsigned char)b[0] == 0x1f && (unsigned char)b[1] == 0x8b);
	free(b);
	tg_trace *t2;
	tg_test_must(tg_trace_read_file(&t2, gz, NULL));
	assert_int_equal(tg_trace_stats_get(t2)->counter_events, 1 + 12);
	tg_trace_free(t2);
	tg_test_must(tg_augment_write(NULL, "/dev/null", f->fd, f->in, f->tree, NULL));
	char bad[160];
	snprintf(bad, sizeof(bad), "%s/no/such/dir/out.json", f->dir);
	assert_int_equal(tg_augment_write(NULL, bad, f->fd, f->in, f->tree, NULL), TG_EIO);
	assert_non_null(strstr(tg_error_last(), "out.json: cannot create: No such file or directory"));
}

/* h200-dev: the queue series are the report's queue_length_summary. */
static void test_h200_queue_is_the_report(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "h200-dev/base_r1/rank0.pt.trace.json.gz");
	tg_counters *c;
	tg_test_must(tg_counters_build(&c, tree));
	tg_table **tabs;
	size_t ntabs, ns;
	tg_test_must(tg_launch_stats_tables(&tabs, &ntabs, tree, TG_STEP_ALL));
	const tg_table *q = tg_test_table(tabs, ntabs, "queue_length_summary");
	const tg_counter_series *s = tg_counters_series(c, &ns);
	size_t nq = 0;
	for (size_t i = 0; i < ns; i++) {
		if (s[i].kind != TG_COUNTER_QUEUE)
			continue;
		assert_true(s[i].max == tg_test_num(q, nq, "queue_length_max"));
		assert_int_equal(s[i].stream, (int64_t)tg_test_num(q, nq, "stream"));
		nq++;
	}
	assert_int_equal(nq, tg_table_nrows(q));
	tg_tables_free(tabs, ntabs);
	tg_counters_free(c);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* HTA's test_generate_trace_with_counters on its trace: at least 12,000
 * counter events, the names exactly Queue Length and the four memory kinds,
 * no negative value, 6 streams and 4 memory kinds. Our stream 7 peaks at
 * 994 (the report's queue_length_max); HTA's at 946 (its launches are a
 * subset, and it sorts the changes unstably). */
static void test_hta_counters(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_negative_queue_len_A100-80GB_triton_rank0_of16.json.gz");
	tg_counters *c;
	tg_test_must(tg_counters_build(&c, tree));
	size_t ns, np, queues = 0, kinds = 0;
	const tg_counter_series *s = tg_counters_series(c, &ns);
	const tg_counter_point *p = tg_counters_points(c, &np);
	assert_true(np >= 12000);
	for (size_t i = 0; i < np; i++)
		assert_true(p[i].value >= 0);
	for (size_t i = 0; i < ns; i++) {
		if (s[i].kind == TG_COUNTER_QUEUE) {
			queues++;
			if (s[i].stream == 7)
				assert_true(s[i].max == 994);
			continue;
		}
		kinds++;
		assert_true(!strcmp(s[i].name, "Memcpy DtoD") || !strcmp(s[i].name, "Memcpy DtoH") ||
		            !strcmp(s[i].name, "Memcpy HtoD") || !strcmp(s[i].name, "Memset"));
	}
	assert_int_equal(queues, 6);
	assert_int_equal(kinds, 4);
	tg_counters_free(c);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Real traces of each schema read back as the same events. */
static void test_round_trip_real(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const char *const traces[] = {
		"h200-dev/compiled_r1/rank0.pt.trace.json.gz",
		"kineto/kineto_tbplugin_resnet50_V100_num_workers_4_worker0.1623212756351.pt.trace.json.gz",
		"kineto/kineto_tbplugin_test_gpu_metrics_expected.json.gz",
		"hta/hta_amd_mi250_rocm6.2_minitoy_train.json.gz",
		"hta/hta_inference_legacy_schema_rank1.json.gz",
	};
	char dir[] = "/tmp/tg-augment-real-XXXXXX", out[64];
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.json.gz", dir);
	for (size_t k = 0; k < sizeof(traces) / sizeof(traces[0]); k++) {
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s", tg_test_shared_traces(), traces[k]);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			fail_msg("%s: cannot open", path);
		tg_trace *t, *t2;
		tg_tree *tree;
		tg_test_must(tg_trace_read_fd_named(&t, fd, path, NULL));
		assert_int_equal(tg_tree_build(&tree, t), 0);
		tg_augment_stats st;
		tg_test_must(tg_augment_write(&st, out, fd, path, tree, NULL));
		close(fd);
		tg_test_must(tg_trace_read_file(&t2, out, NULL));
		size_t n1, n2;
		const tg_event *a = tg_trace_events(t, &n1), *b = tg_trace_events(t2, &n2);
		assert_int_equal(n1, n2);
		assert_int_equal(st.events, n1);
		for (size_t i = 0; i < n1; i++)
			if (a[i].ts != b[i].ts || tg_event_dur(t, &a[i]) != tg_event_dur(t2, &b[i]) ||
			    tg_event_nargs(t, &a[i]) != tg_event_nargs(t2, &b[i]) ||
			    strcmp(tg_trace_str(t, a[i].name), tg_trace_str(t2, b[i].name)))
				fail_msg("%s: event %zu differs", traces[k], i);
		assert_int_equal(tg_trace_stats_get(t2)->counter_events,
		                 tg_trace_stats_get(t)->counter_events + st.counters);
		assert_int_equal(tg_trace_stats_get(t2)->raw_events, tg_trace_stats_get(t)->raw_events + st.counters);
		tg_trace_free(t2);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
	unlink(out);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nothing_added_same_bytes, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_counters, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_counters_written, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_marks_and_instants, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_marks, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_changed_file, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_gzip_and_devnull, fx_setup, fx_teardown),
		cmocka_unit_test(test_h200_queue_is_the_report),
		cmocka_unit_test(test_hta_counters),
		cmocka_unit_test(test_round_trip_real),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
