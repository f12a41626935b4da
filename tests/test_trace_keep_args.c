/* test_trace_keep_args.c - tg_trace_keep_args and tg_trace_drop_id1s
 * (core/trace/trace_keep.c, trace.c) and the critical path found last on
 * what they leave (`diff`: cli/diff_load.c's load_one and cp_last): a
 * hand-made trace whose lists are shared, emptied or kept whole keeps
 * exactly the asked arguments of every event, in order, and shrinks; with
 * its second ids dropped, every event keeps every field (wide ids and
 * durations read back), the model is 4 bytes an event smaller, and the
 * cpu_op a parentless sync names by its External id is still found
 * (tg_tree_sync_op); on every shared trace ($TG_SHARED/traces, skipped,
 * saying so, without it) and on generated ones, the summary found with
 * the tree freed, only tg_cp_args left and the second ids dropped
 * (tg_cp_summarize_steps) is the one found on the whole model
 * (tg_cp_summarize), field for field, in the defaults and with exact
 * nanoseconds, and every event's kept arguments are the ones it had. */
#include "testutil.h"
#include "gentrace.h"
#include "../core/analysis/critical_path.h"


/* One event's value for one key: present, type and its 8 bytes. */
struct val {
	int has;
	int type;
	uint64_t bits;
};

/* vals[i * nk + k]: event i's argument names[k], as it is now. */
static struct val *snapshot(const tg_trace *t, const char *const *names, size_t nk)
{
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	struct val *v = calloc(n * nk + 1, sizeof(*v));
	assert_non_null(v);
	for (size_t k = 0; k < nk; k++) {
		uint32_t key = tg_trace_key(t, names[k]);
		for (size_t i = 0; i < n; i++) {
			const tg_arg *a = tg_event_arg(t, &ev[i], key);
			struct val *x = &v[i * nk + k];
			if (!a)
				continue;
			x->has = 1;
			x->type = a->type;
			memcpy(&x->bits, &a->v, sizeof(x->bits));
			if (a->type == TG_ARG_STR || a->type == TG_ARG_RAW)
				x->bits = a->v.atom;
			else if (a->type == TG_ARG_BOOL)
				x->bits = (uint64_t)a->v.b;
		}
	}
	return v;
}

/* Every event's kept arguments as before, and no other: its list is as
 * long as the kept keys it had. */
static void check_kept(const tg_trace *t, const struct val *before, const char *const *names, size_t nk)
{
	struct val *after = snapshot(t, names, nk);
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	for (size_t i = 0; i < n; i++) {
		size_t had = 0;
		for (size_t k = 0; k < nk; k++) {
			const struct val *b = &before[i * nk + k], *a = &after[i * nk + k];
			assert_int_equal(a->has, b->has);
			if (b->has) {
				had++;
				assert_int_equal(a->type, b->type);
				assert_true(a->bits == b->bits);
			}
		}
		assert_int_equal(tg_event_nargs(t, &ev[i]), had);
	}
	free(after);
}

static const char *const hand_keys[] = {"stream", "wait_on_stream", NULL};

static void test_hand_made(void **state)
{
	(void)state;
	static const char json[] =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
		"\"args\":{\"device\":1,\"stream\":7,\"Input type\":\"s\",\"wait_on_stream\":3}},"
		"{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,"
		"\"args\":{\"device\":1,\"stream\":7,\"Input type\":\"s\",\"wait_on_stream\":3}},"
		"{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1,\"args\":{\"device\":2,\"Input type\":\"t\"}},"
		"{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1},"
		"{\"ph\":\"X\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1,\"args\":{\"stream\":-1}},"
		"{\"ph\":\"X\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":1,"
		"\"args\":{\"wait_on_stream\":\"9\",\"Input Dims\":[1,2],\"stream\":2.5}},"
		"{\"ph\":\"X\",\"name\":\"g\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1,\"args\":{\"device\":3,\"stream\":8}}"
		"]}";
	tg_trace *t;
	tg_test_must(tg_trace_read_mem(&t, json, sizeof(json) - 1, "hand", NULL));
	size_t nargs, nk = 2;
	tg_trace_args(t, &nargs);
	struct val *before = snapshot(t, hand_keys, nk);
	tg_test_must(tg_trace_keep_args(t, hand_keys));
	size_t kept;
	tg_trace_args(t, &kept);
	assert_int_equal(nargs, 12);
	/* a and b share one list (the reader keeps one copy): 2; e 1, f 2, g 1 */
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	assert_int_equal(ev[0].args, ev[1].args);
	assert_int_equal(kept, 6);
	assert_int_equal(ev[2].args, TG_NONE);
	assert_int_equal(ev[3].args, TG_NONE);
	check_kept(t, before, hand_keys, nk);
	/* the order within a list stays: f's wait_on_stream before its stream */
	const tg_arg *args = tg_trace_args(t, &kept);
	assert_int_equal(args[ev[5].args].key, tg_trace_key(t, "wait_on_stream"));
	assert_true(args[ev[5].args + 1].last);
	free(before);
	/* no key left at all: no arguments */
	static const char *const none[] = {"absent", NULL};
	tg_test_must(tg_trace_keep_args(t, none));
	tg_trace_args(t, &kept);
	assert_int_equal(kept, 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ev[i].args, TG_NONE);
	tg_trace_free(t);
}

/* An event's fields but its second id, as read by the accessors (wide ids
 * and durations included). */
struct kept_event {
	int64_t ts, dur, id0, end;
	uint32_t name, args, kind, track, flags;
};

static struct kept_event kept_of(const tg_trace *t, const tg_event *e)
{
	return (struct kept_event){e->ts, tg_event_dur(t, e), tg_event_id(t, e, 0), tg_event_end(t, e),
	                           e->name, e->args, e->kind, e->track, e->flags};
}

/* Drops t's second ids (twice: the second a no-op) and checks every event
 * against what it was, and the model's bytes. */
static void check_dropped(tg_trace *t)
{
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	struct kept_event *before = malloc((n + 1) * sizeof(*before));
	assert_non_null(before);
	for (size_t i = 0; i < n; i++)
		before[i] = kept_of(t, &ev[i]);
	size_t bytes = tg_trace_memory(t);
	assert_true(tg_trace_has_id1s(t));
	tg_trace_drop_id1s(t);
	tg_trace_drop_id1s(t);
	assert_false(tg_trace_has_id1s(t));
	assert_true(tg_trace_memory(t) <= bytes - n * sizeof(uint32_t)); /* and the room beyond n */
	size_t m;
	ev = tg_trace_events(t, &m);
	assert_int_equal(m, n);
	for (size_t i = 0; i < n; i++) {
		struct kept_event now = kept_of(t, &ev[i]);
		assert_true(now.ts == before[i].ts && now.dur == before[i].dur && now.end == before[i].end);
		assert_true(now.id0 == before[i].id0);
		assert_int_equal(now.name, before[i].name);
		assert_int_equal(now.args, before[i].args);
		assert_int_equal(now.kind, before[i].kind);
		assert_int_equal(now.track, before[i].track);
		assert_int_equal(now.flags, before[i].flags);
	}
	free(before);
}

/* Ids and durations beyond 32 bits (kept in the trace's wide tables), a
 * Python event, a wide External id and a wide Python parent id read before
 * the second ids are dropped; the rest read back after, with their
 * arguments. */
static void test_drop_hand_made(void **state)
{
	(void)state;
	static const char json[] =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":5000000000,"
		"\"args\":{\"correlation\":8589934593,\"External id\":4,\"stream\":7}},"
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":0,"
		"\"dur\":1,\"args\":{\"correlation\":-3,\"External id\":-5}},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":2,"
		"\"args\":{\"Python id\":11,\"Python parent id\":10000000000}},"
		"{\"ph\":\"X\",\"name\":\"plain\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1}"
		"]}";
	tg_trace *t;
	tg_test_must(tg_trace_read_mem(&t, json, sizeof(json) - 1, "drop", NULL));
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	assert_int_equal(n, 4);
	int wide_id = 0, wide_dur = 0;
	for (size_t i = 0; i < n; i++) {
		wide_id |= (ev[i].flags & TG_EV_WIDE_ID0) != 0;
		wide_dur |= (ev[i].flags & TG_EV_WIDE_DUR) != 0;
		if (ev[i].kind == TG_KIND_KERNEL)
			assert_true(tg_event_ext(t, &ev[i]) == 4);
		else if (ev[i].kind == TG_KIND_RUNTIME)
			assert_true(tg_event_ext(t, &ev[i]) == -5 && (ev[i].flags & TG_EV_WIDE_ID1));
		else if (ev[i].kind == TG_KIND_PYTHON)
			assert_true(tg_event_pyparent(t, &ev[i]) == INT64_C(10000000000));
	}
	assert_true(wide_id && wide_dur); /* the wide tables are read after the drop too */
	check_dropped(t);
	ev = tg_trace_events(t, &n);
	int found = 0;
	for (size_t i = 0; i < n; i++) {
		const tg_event *e = &ev[i];
		if (e->kind == TG_KIND_KERNEL) {
			assert_true(tg_event_corr(t, e) == INT64_C(8589934593));
			assert_true(tg_event_dur(t, e) == INT64_C(5000000000000));
			const tg_arg *a = tg_event_arg(t, e, tg_trace_key(t, "stream"));
			assert_non_null(a);
			assert_true(a->v.i == 7);
			found++;
		} else if (e->kind == TG_KIND_RUNTIME) {
			assert_true(tg_event_corr(t, e) == -3);
			found++;
		} else if (e->kind == TG_KIND_PYTHON) {
			assert_true(tg_event_pyid(t, e) == 11);
			found++;
		}
	}
	assert_int_equal(found, 3);
	/* the arguments cut after the drop too */
	static const char *const stream_only[] = {"stream", NULL};
	tg_test_must(tg_trace_keep_args(t, stream_only));
	ev = tg_trace_events(t, &n);
	for (size_t i = 0; i < n; i++) {
		const tg_arg *a = tg_event_arg(t, &ev[i], tg_trace_key(t, "stream"));
		assert_int_equal(a != NULL, ev[i].kind == TG_KIND_KERNEL);
		assert_int_equal(tg_event_nargs(t, &ev[i]), ev[i].kind == TG_KIND_KERNEL);
	}
	tg_trace_free(t);
}

/* A cuda_sync event on the device's track without its runtime call (no
 * correlation: the tree gives it no parent) names its op by External id:
 * tg_tree_sync_op finds the op of the lowest index with it (two share
 * it), wide ids too, and still does once the trace's second ids are
 * dropped; any other event has none. */
static void test_sync_op(void **state)
{
	(void)state;
	static const char json[] =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::other\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,"
		"\"args\":{\"External id\":9}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::item\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":50,"
		"\"args\":{\"External id\":7}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::item\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50,"
		"\"args\":{\"External id\":7}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::wide\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":5,"
		"\"args\":{\"External id\":8589934592}},"
		"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":30,"
		"\"args\":{\"External id\":7}},"
		"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":201,\"dur\":3,"
		"\"args\":{\"External id\":8589934592}},"
		"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":3,"
		"\"args\":{\"External id\":12345}}"
		"]}";
	tg_trace *t;
	tg_tree *tree;
	tg_test_must(tg_trace_read_mem(&t, json, sizeof(json) - 1, "syncs", NULL));
	tg_test_must(tg_tree_build(&tree, t));
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	assert_int_equal(n, 7);
	for (int drop = 0; drop < 2; drop++) {
		for (uint32_t i = 0; i < 7; i++) {
			uint32_t want = i == 4 ? 1 : i == 5 ? 3 : TG_NONE; /* the sync of id 12345 names no op */
			assert_int_equal(ev[i].kind, i < 4 ? TG_KIND_CPU_OP : TG_KIND_SYNC);
			if (i >= 4)
				assert_int_equal(tg_tree_parent(tree, i), TG_NONE);
			assert_int_equal(tg_tree_sync_op(tree, i), want);
		}
		tg_trace_drop_id1s(t);
	}
	tg_tree_free(tree);
	tg_trace_free(t);
}

static void same_summary(const tg_cp_summary *a, const tg_cp_summary *b)
{
	assert_int_equal(a->ok, b->ok);
	assert_string_equal(a->why, b->why);
	assert_true(a->steps == b->steps);
	assert_true(a->length_ns == b->length_ns);
	for (int k = 0; k < TG_CP_NBOUND; k++)
		assert_true(a->bound_ns[k] == b->bound_ns[k]);
}

/* The summaries of tree (defaults, exact ns) against those found with the
 * tree freed and the arguments cut down; frees tree and t. 1 when the
 * defaults found a path. */
static int check_late(tg_tree *tree, tg_trace *t)
{
	tg_cp_opts exact = {.exact_ns = 1};
	tg_cp_summary whole[2], late[2];
	tg_test_must(tg_cp_summarize(&whole[0], tree));
	tg_test_must(tg_cp_summarize_opts(&whole[1], tree, &exact));
	size_t n, nk = 0;
	const tg_step *st = tg_tree_steps(tree, &n);
	tg_step *steps = malloc((n + 1) * sizeof(*steps));
	assert_non_null(steps);
	if (n) /* st may be NULL without steps */
		memcpy(steps, st, n * sizeof(*steps));
	while (tg_cp_args[nk])
		nk++;
	struct val *before = snapshot(t, tg_cp_args, nk);
	tg_tree_free(tree);
	tg_test_must(tg_trace_keep_args(t, tg_cp_args));
	check_kept(t, before, tg_cp_args, nk);
	free(before);
	check_dropped(t);
	tg_test_must(tg_cp_summarize_steps(&late[0], t, steps, n, NULL));
	tg_test_must(tg_cp_summarize_steps(&late[1], t, steps, n, &exact));
	same_summary(&late[0], &whole[0]);
	same_summary(&late[1], &whole[1]);
	free(steps);
	tg_trace_free(t);
	return whole[0].ok;
}

static void test_shared_traces(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	size_t n, traces = 0, paths = 0;
	char **files = tg_test_shared_trace_files(&n);
	for (size_t i = 0; i < n; i++) {
		tg_trace *t;
		if (tg_trace_read_file(&t, files[i], NULL)) /* not a trace the reader takes: no critical path */
			continue;
		tg_tree *tree;
		tg_test_must(tg_tree_build(&tree, t));
		traces++;
		paths += check_late(tree, t);
	}
	tg_test_paths_free(files, n);
	print_message("%zu shared traces, %zu with a path: the summary found last, on the kept arguments and "
	              "the second ids dropped, "
	              "equal in two settings\n", traces, paths);
	assert_true(traces >= 40);
	assert_true(paths >= 20);
}

static void test_generated(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	static const char *const args[] = {
		"--steps 3 --layers 2 --batch 1 --seq 256 --train",
		"--steps 3 --layers 1 --batch 1 --seq 128 --host-sync 3 --jitter 20",
		"--steps 2 --layers 2 --batch 1 --seq 128 --ranks 4 --rank 1 --straggler 1 --skew-us 300",
	};
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		gt_side s;
		gt_load(&s, args[i]);
		assert_true(check_late(s.tree, s.trace));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_made),
		cmocka_unit_test(test_drop_hand_made),
		cmocka_unit_test(test_sync_op),
		cmocka_unit_test(test_shared_traces),
		cmocka_unit_test(test_generated),
	};
	return cmocka_run_group_tests(tests, NULL, gt_teardown);
}
