/* test_tree_buckets.c - the tree's buckets (core/tree/tree_buckets.c):
 * each track's host events in the tree's order (start, longest first,
 * then by index), whatever order they came in: in order, a few runs in
 * order interleaved (merged run by run), many (the merge sort), reversed,
 * shuffled, with equal starts and lengths, on several tracks at once. */
#include "testutil.h"
#include "../core/tree/tree_buckets.h"
#include "../util/buf.h"

/* The events' starts and lengths (us), in file order: cpu_ops on the
 * track of tid (tid[i] of 1 or 2), as JSON. */
static char *events_json(const int *ts, const int *dur, const int *tid, size_t n)
{
	tg_buf b;
	tg_buf_init(&b);
	tg_buf_puts(&b, "{\"traceEvents\":[");
	for (size_t i = 0; i < n; i++)
		tg_buf_appendf(&b,
		               "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%zu\",\"pid\":1,\"tid\":%d,\"ts\":%d,"
		               "\"dur\":%d}",
		               i ? "," : "", i, tid ? tid[i] : 1, ts[i], dur[i]);
	tg_buf_puts(&b, "]}");
	char *s;
	size_t len;
	assert_int_equal(tg_buf_take(&s, &len, &b), 0);
	return s;
}

/* Whether event a comes before b in a track (cpu_ops only: start, longest
 * first, index). */
static int before(const tg_trace *t, const tg_event *ev, uint32_t a, uint32_t b)
{
	if (ev[a].ts != ev[b].ts)
		return ev[a].ts < ev[b].ts;
	int64_t da = tg_event_dur(t, &ev[a]), db = tg_event_dur(t, &ev[b]);
	if (da != db)
		return da > db;
	return a < b;
}

/* Reads the events, buckets them and checks every bucket: each event of
 * its track once, in order. */
static void check_order(const int *ts, const int *dur, const int *tid, size_t n)
{
	char *json = events_json(ts, dur, tid, n);
	tg_trace *t;
	assert_int_equal(tg_trace_read_mem(&t, json, strlen(json), "buckets", NULL), 0);
	size_t ne, nt;
	const tg_event *ev = tg_trace_events(t, &ne);
	tg_trace_tracks(t, &nt);
	assert_int_equal(ne, n);
	tg_tree_buckets b;
	assert_int_equal(tg_tree_buckets_build(&b, t, 0), 0);
	unsigned char *seen = calloc(ne + 1, 1);
	assert_non_null(seen);
	assert_int_equal(b.off[nt], ne);
	for (size_t tr = 0; tr < nt; tr++) {
		for (uint32_t k = b.off[tr]; k < b.off[tr + 1]; k++) {
			uint32_t e = b.keys[k].tie;
			assert_true(e < ne);
			assert_int_equal(ev[e].track, tr);
			assert_false(seen[e]);
			seen[e] = 1;
			if (k > b.off[tr])
				assert_true(before(t, ev, b.keys[k - 1].tie, e));
		}
	}
	free(seen);
	tg_tree_buckets_free(&b);
	tg_trace_free(t);
	free(json);
}

/* runs runs in order, each of len events, dealt out round robin (run r's
 * i-th event at r + i * runs): the file's order is runs interleaved. */
static void interleaved(int runs, int len, int equal_every)
{
	size_t n = (size_t)runs * (size_t)len;
	int *ts = malloc(n * sizeof(int)), *dur = malloc(n * sizeof(int));
	assert_non_null(ts);
	assert_non_null(dur);
	for (int r = 0; r < runs; r++)
		for (int i = 0; i < len; i++) {
			size_t at = (size_t)r * (size_t)len + (size_t)i;
			/* run r starts at r: its events between those of the others */
			ts[at] = equal_every ? (i / equal_every) * 10 : i * runs * 3 + r;
			dur[at] = equal_every ? 1 + (i % 3) : 5;
		}
	check_order(ts, dur, NULL, n);
	free(ts);
	free(dur);
}

static void test_sorted_and_reversed(void **state)
{
	(void)state;
	enum { N = 500 };
	int ts[N], dur[N];
	for (int i = 0; i < N; i++)
		ts[i] = i * 2, dur[i] = 1;
	check_order(ts, dur, NULL, N);
	for (int i = 0; i < N; i++)
		ts[i] = (N - i) * 2, dur[i] = 1 + i % 4;
	check_order(ts, dur, NULL, N); /* N runs of one: the merge sort */
}

/* 2 to 20 runs in order (the run-by-run merge up to 16 runs, then the
 * merge sort), of lengths from 1 to 700, some with equal starts and
 * lengths (the index decides). */
static void test_runs(void **state)
{
	(void)state;
	static const int lens[] = {1, 2, 23, 24, 25, 100, 700};
	for (int runs = 2; runs <= 20; runs++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			interleaved(runs, lens[l], 0);
			interleaved(runs, lens[l], 4);
		}
}

/* Runs of unequal lengths: a long one then a short one (the right run
 * copied out, merged backwards), a short one then a long one, and a
 * short one between long ones. */
static void test_unequal_runs(void **state)
{
	(void)state;
	enum { N = 1200 };
	int ts[N], dur[N];
	for (int split = 1; split < N; split += 97) {
		for (int i = 0; i < N; i++) {
			/* events [0, split) at odd starts, [split, N) at even ones: two runs */
			ts[i] = i < split ? 2 * i + 1 : 2 * (i - split);
			dur[i] = 1 + i % 5;
		}
		check_order(ts, dur, NULL, N);
	}
	for (int i = 0; i < N; i++) /* three runs: 0..549, 550..599, 600..1199 */
		ts[i] = i < 550 ? 3 * i : i < 600 ? 3 * (i - 550) * 11 + 1 : 3 * (i - 600) + 2, dur[i] = 2;
	check_order(ts, dur, NULL, N);
}

/* Shuffled events on two tracks at once, with ties. */
static void test_shuffled_two_tracks(void **state)
{
	(void)state;
	enum { N = 3000 };
	int *ts = malloc(N * sizeof(int)), *dur = malloc(N * sizeof(int)), *tid = malloc(N * sizeof(int));
	assert_non_null(ts);
	assert_non_null(dur);
	assert_non_null(tid);
	unsigned x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		ts[i] = (int)((x >> 8) % 700);
		dur[i] = 1 + (int)((x >> 20) % 3);
		tid[i] = 1 + (int)((x >> 4) & 1);
	}
	check_order(ts, dur, tid, N);
	for (int i = 0; i < N; i++) /* track 1 in order, track 2 in four runs */
		ts[i] = tid[i] == 1 ? i : (i % 4) * 1000 + i / 4;
	check_order(ts, dur, tid, N);
	free(ts);
	free(dur);
	free(tid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_and_reversed),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_unequal_runs),
		cmocka_unit_test(test_shuffled_two_tracks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
