/* test_trace_read.c - the streaming reader: every schema variant, exact
 * nanosecond timestamps, string and numeric tids, big integers, escapes,
 * metadata, B/E pairs, the array format; identical results whatever the
 * window size (every buffer boundary) and whatever the guess of the
 * arrays' sizes from the input's; every truncation of a document and
 * random corruptions rejected cleanly with the byte offset. */
#include "testutil.h"

/* Reads with every argument kept (the default keeps only those an analysis reads). */
static tg_trace *read_all_args(const char *json)
{
	tg_read_opts o = {.keep_all_args = 1};
	tg_trace *t = NULL;
	if (tg_trace_read_mem(&t, json, strlen(json), "test.json", &o))
		fail_msg("read failed: %s", tg_error_last());
	return t;
}

static const tg_arg *arg_of(const tg_trace *t, uint32_t ev, const char *key)
{
	size_t n;
	const tg_event *e = &tg_trace_events(t, &n)[ev];
	return tg_event_arg(t, e, tg_trace_key(t, key));
}

static void test_timestamps_exact(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1419247332972.313,\"dur\":4426.114},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1610366387140599,\"dur\":14},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1.5e3,\"dur\":0.0005},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":1234.5674,\"dur\":1234.5675},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":4458676524648.797,\"dur\":-3},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1E-3}"
		"]}");
	size_t n;
	const tg_event *e = tg_trace_events(t, &n);
	assert_int_equal(n, 6);
	assert_int_equal(e[0].ts, 1419247332972313LL);
	assert_int_equal(tg_event_dur(t, &e[0]), 4426114);
	assert_int_equal(e[1].ts, 1610366387140599000LL);
	assert_int_equal(tg_event_dur(t, &e[1]), 14000);
	assert_int_equal(e[2].ts, 1500000);
	assert_int_equal(tg_event_dur(t, &e[2]), 1); /* 0.5 ns rounds half away from zero */
	assert_int_equal(e[3].ts, 1234567);
	assert_int_equal(tg_event_dur(t, &e[3]), 1234568);
	assert_int_equal(e[4].ts, 4458676524648797LL);
	assert_int_equal(tg_event_dur(t, &e[4]), 0); /* negative durations are clamped and counted */
	assert_int_equal(tg_trace_stats_get(t)->negative_durations, 1);
	assert_int_equal(tg_event_dur(t, &e[5]), 1);
	tg_trace_free(t);
}

/* The reader's fast path for the usual numbers (up to 18 digits, no
 * exponent) and its general path give the same nanoseconds, and the same
 * integers: 20,000 random values, each written once as a decimal (the fast
 * path when it is short enough) and once with an exponent (always the
 * general path); rounding half away from zero below 1 ns included. */
static void test_numbers_fast_and_general_agree(void **state)
{
	(void)state;
	srand(24);
	size_t cap = 1 << 22, len = 0;
	char *a = malloc(cap), *b = malloc(cap);
	int nev = 20000;
	len = (size_t)sprintf(a, "{\"traceEvents\":[");
	size_t lb = (size_t)sprintf(b, "{\"traceEvents\":[");
	for (int i = 0; i < nev; i++) {
		char digits[40];
		int nint = 1 + rand() % 15, nfrac = rand() % 9, nd = 0; /* below TS_LIMIT */
		for (int k = 0; k < nint + nfrac; k++)
			digits[nd++] = (char)('0' + (k == 0 && nint > 1 ? 1 + rand() % 9 : rand() % 10));
		digits[nd] = 0;
		int neg = rand() % 4 == 0;
		int64_t tid = (int64_t)(rand() % 100000) * (rand() % 2 ? 1 : -1) * 1000003LL;
		/* ts: D.F, and the same digits as DFe-n */
		len += (size_t)sprintf(a + len, "%s{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":%lld,\"ts\":%s%.*s%s%s,"
		                       "\"dur\":%.*s%s%s}", i ? "," : "", (long long)tid, neg ? "-" : "", nint, digits,
		                       nfrac ? "." : "", digits + nint, nint, digits, nfrac ? "." : "", digits + nint);
		const char *m = digits; /* the mantissa without leading zeros */
		while (m[0] == '0' && m[1])
			m++;
		lb += (size_t)sprintf(b + lb, "%s{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":\"%lld\",\"ts\":%s%se-%d,"
		                      "\"dur\":%se-%d}", i ? "," : "", (long long)tid, neg ? "-" : "", m, nfrac, m, nfrac);
		assert_true(len < cap - 300 && lb < cap - 300);
	}
	strcpy(a + len, "]}");
	strcpy(b + lb, "]}");
	tg_trace *ta, *tb;
	tg_test_must(tg_trace_read_mem(&ta, a, strlen(a), "a", NULL));
	tg_test_must(tg_trace_read_mem(&tb, b, strlen(b), "b", NULL));
	size_t na, nb;
	const tg_event *ea = tg_trace_events(ta, &na), *eb = tg_trace_events(tb, &nb);
	assert_int_equal(na, (size_t)nev);
	assert_int_equal(nb, (size_t)nev);
	size_t ntr;
	const tg_track *tra = tg_trace_tracks(ta, &ntr), *trb = tg_trace_tracks(tb, &ntr);
	for (int i = 0; i < nev; i++) {
		if (ea[i].ts != eb[i].ts || tg_event_dur(ta, &ea[i]) != tg_event_dur(tb, &eb[i]))
			fail_msg("event %d: ts %lld / %lld, dur %lld / %lld", i, (long long)ea[i].ts, (long long)eb[i].ts,
			         (long long)tg_event_dur(ta, &ea[i]), (long long)tg_event_dur(tb, &eb[i]));
		assert_int_equal(tra[ea[i].track].tid, trb[eb[i].track].tid); /* numeric tid and its string */
	}
	tg_trace_free(ta);
	tg_trace_free(tb);
	free(a);
	free(b);
}

/* A kept argument whose value is an array (an op's "Input Dims", "Input
 * type"...) is skipped by a fast path for integers, plain strings and
 * arrays of them, and by the general one otherwise: either way the value
 * kept is its text, and every error, message and byte offset is the
 * general path's (the messages below are those the reader gave before the
 * fast path was written). */
struct array_case {
	const char *value;
	const char *error; /* NULL: read, the value's text kept */
};

static void read_array_arg(const char *value, const char *error, uint32_t max_string)
{
	char json[1024];
	snprintf(json, sizeof(json),
	         "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"n\",\"pid\":1,\"tid\":1,\"ts\":1,"
	         "\"dur\":1,\"args\":{\"Input Dims\":%s}}]}",
	         value);
	tg_read_opts o = {.max_string = max_string};
	tg_trace *t = NULL;
	int rc = tg_trace_read_mem(&t, json, strlen(json), "arr.json", &o);
	if (error) {
		if (!rc)
			fail_msg("%s: read, expected %s", value, error);
		assert_string_equal(tg_error_last(), error);
		return;
	}
	if (rc)
		fail_msg("%s: %s", value, tg_error_last());
	assert_string_equal(tg_trace_str(t, arg_of(t, 0, "Input Dims")->v.atom), value);
	tg_trace_free(t);
}

static void test_array_values(void **state)
{
	(void)state;
	static const struct array_case cases[] = {
		{"[[2048, 4096], [4096]]", NULL},
		{"[]", NULL},
		{"[[], [[]], [1,-2, 3]]", NULL},
		{"[\"c10::BFloat16\", \"\", \"Scalar\"]", NULL},
		{"[ 1 , 2 ]", NULL},
		{"[\"x\", 1, [2, \"y\"]]", NULL},
		{"[1.5, 2]", NULL}, /* the general path from here: floats, literals, objects, escapes, UTF-8 */
		{"[1e5]", NULL},
		{"[true, null]", NULL},
		{"[\"a\\u00e9\", \"b\"]", NULL},
		{"[\"\xc3\xa9\"]", NULL},
		{"[1, {\"a\": 1}]", NULL},
		{"[99999999999999999999]", NULL},
		{"[-9223372036854775809]", NULL},
		{"[1,]", "arr.json: byte 107: expected a JSON value, found ']'"},
		{"[1 2]", "arr.json: byte 107: expected ',' or ']', found '2'"},
		{"[[1, 2], [3,, 4]]", "arr.json: byte 116: expected a JSON value, found ','"},
		{"[01]", "arr.json: byte 105: leading zero in a number"},
		{"[-]", "arr.json: byte 106: expected a digit, found ']'"},
		{"[\"a\\x01\"]", "arr.json: byte 107: invalid escape in a string"},
		{"[\"a\x01\"]", "arr.json: byte 107: control character 0x01 in a string"},
		{"[[1, 2]", "arr.json: byte 111: expected ',' or ']', found '}'"},
		{"[[1, 2]]]", "arr.json: byte 112: expected ',' or '}' in \"args\", found ']'"},
		{"[\"abc", "arr.json: byte 113: unexpected end of data (truncated JSON)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		read_array_arg(cases[i].value, cases[i].error, 0);
	/* the depth limit (64: the value sits at level 4) and the string limit */
	char deep[256];
	for (int d = 59; d <= 61; d++) {
		int n = 0;
		for (int k = 0; k < d; k++)
			deep[n++] = '[';
		deep[n++] = '1';
		for (int k = 0; k < d; k++)
			deep[n++] = ']';
		deep[n] = 0;
		read_array_arg(deep, d <= 60 ? NULL : "arr.json: byte 164: nesting deeper than 64 levels (limit)", 0);
	}
	read_array_arg("[\"abcdefghijklmn\", \"ab\"]", "arr.json: byte 106: string longer than 12 bytes (limit)", 12);
	read_array_arg("[\"abcdefghijklmn\", \"ab\"]", NULL, 14);
}

/* Reads an op whose "Input Dims" is first (key: "Input Dims", kept, so
 * that the reader caches it; "Input Dimz", skipped, so that it does not),
 * then an op of the same name whose "Input Dims" is second; the document
 * is cut after second's bytes when cut. Returns the read's code; *value
 * the second value's kept text (NULL on error), *msg the error. */
static int read_after(const char *key, const char *first, const char *second, int cut, char **value,
                      char *msg, size_t cap, uint32_t window)
{
	char json[1024];
	int n = snprintf(json, sizeof(json),
	                 "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"n\",\"pid\":1,\"tid\":1,"
	                 "\"ts\":1,\"dur\":1,\"args\":{\"%s\":%s}},{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"n\","
	                 "\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,\"args\":{\"Input Dims\":%s",
	                 key, first, second);
	if (!cut)
		snprintf(json + n, sizeof(json) - (size_t)n, "}}]}");
	tg_read_opts o = {.window = window};
	tg_trace *t = NULL;
	int rc = tg_trace_read_mem(&t, json, strlen(json), "rep.json", &o);
	*value = NULL;
	snprintf(msg, cap, "%s", rc ? tg_error_last() : "");
	if (!rc) {
		*value = strdup(tg_trace_str(t, arg_of(t, 1, "Input Dims")->v.atom));
		tg_trace_free(t);
	}
	return rc;
}

/* An array value read again from a cache of the values last kept
 * (trace_read_model.h, parse_raw_arg) reads as the first time: the same
 * text and atom when the bytes begin with a cached value, and for anything
 * else (a prefix of one, one with more after it, one that differs further
 * on, a document cut inside or right after it) the same error, message and
 * byte offset as with nothing cached; at every window size. */
static void test_repeated_array_values(void **state)
{
	(void)state;
	static const char *const pairs[][2] = {
		{"[1, 2]", "[1, 2]"},
		{"[1, 2]", "[1, 2]]"},
		{"[1, 2]", "[1, 2}"},
		{"[1, 2]", "[1, 2"},
		{"[1, 2]", "[1, 2 ]"},
		{"[[4, 1024, 768], [768]]", "[[4, 1024, 768], [768]]"},
		{"[[4, 1024, 768], [768]]", "[[4, 1024, 768], [768, 3]]"},
		{"[[4, 1024, 768], [768]]", "[[4, 1024, 768], [768,, 3]]"},
		{"[[4, 1024, 768], [768]]", "[[4, 1024, 768], [768]"},
		{"[\"float\", \"\", \"Scalar\"]", "[\"float\", \"\", \"Scalar\"]"},
		{"[\"float\", \"\", \"Scalar\"]", "[\"float\", \"\", \"Scalar\"]x"},
		{"[\"a]\", {\"b\": [1]}]", "[\"a]\", {\"b\": [1]}]"},
		{"[\"a\\u00e9\"]", "[\"a\\u00e9\"]"},
		{"[]", "[]"},
		{"[]", "[ ]"},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		for (int cut = 0; cut < 2; cut++)
			for (uint32_t w = 16; w <= 400; w += w < 64 ? 1 : 37) {
				char *with, *without, m1[512], m2[512];
				int r1 = read_after("Input Dims", pairs[i][0], pairs[i][1], cut, &with, m1, sizeof(m1), w);
				int r2 = read_after("Input Dimz", pairs[i][0], pairs[i][1], cut, &without, m2, sizeof(m2), w);
				if (r1 != r2 || strcmp(m1, m2) || (with && strcmp(with, without)))
					fail_msg("%s then %s (cut %d, window %u): %d '%s' '%s' against %d '%s' '%s'", pairs[i][0],
					         pairs[i][1], cut, w, r1, m1, with ? with : "", r2, m2, without ? without : "");
				if (!r1 && strcmp(with, pairs[i][1]))
					fail_msg("%s: kept as %s", pairs[i][1], with);
				free(with);
				free(without);
			}
}

/* Events with equal argument lists share one stored list; a list that
 * differs in any value has its own; a trace of nothing but distinct lists
 * stops looking after 65,536 of them and reads the same. */
static void test_argument_lists_shared(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"Input Dims\":[[1,2]],\"Input type\":[\"float\"]}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"ts\":2,\"dur\":1,\"args\":{\"Input Dims\":[[1,2]],\"Input type\":[\"float\"]}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"ts\":3,\"dur\":1,\"args\":{\"Input Dims\":[[1,3]],\"Input type\":[\"float\"]}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"d\",\"ts\":4,\"dur\":1,\"args\":{\"Input type\":[\"float\"],\"Input Dims\":[[1,2]]}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e\",\"ts\":5,\"dur\":1}]}");
	size_t n, na;
	const tg_event *e = tg_trace_events(t, &n);
	tg_trace_args(t, &na);
	assert_int_equal(n, 5);
	assert_int_equal(e[0].args, e[1].args); /* the same list, stored once */
	assert_int_equal(tg_event_nargs(t, &e[1]), 2);
	assert_int_not_equal(e[2].args, e[0].args); /* another shape */
	assert_int_not_equal(e[3].args, e[0].args); /* the same arguments in another order */
	assert_int_equal(na, 6);
	assert_string_equal(tg_trace_str(t, arg_of(t, 1, "Input Dims")->v.atom), "[[1,2]]");
	assert_string_equal(tg_trace_str(t, arg_of(t, 2, "Input Dims")->v.atom), "[[1,3]]");
	assert_int_equal(tg_event_nargs(t, &e[4]), 0);
	assert_int_equal(e[4].args, TG_NONE);
	tg_trace_free(t);
	/* 70,000 distinct lists, then 10 equal ones: no longer looked for */
	size_t cap = 8u << 20, len = 0;
	char *doc = malloc(cap);
	len += (size_t)sprintf(doc, "{\"traceEvents\":[");
	for (int i = 0; i < 70010; i++)
		len += (size_t)sprintf(doc + len, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"ts\":%d,\"dur\":1,"
		                       "\"args\":{\"Sequence number\":%d}}", i ? "," : "", i, i < 70000 ? i : 7);
	strcpy(doc + len, "]}");
	tg_test_must(tg_trace_read_mem(&t, doc, strlen(doc), "many", NULL));
	e = tg_trace_events(t, &n);
	tg_trace_args(t, &na);
	assert_int_equal(n, 70010);
	assert_int_equal(na, 70010);
	int64_t v;
	assert_int_equal(tg_arg_int(t, arg_of(t, 70005, "Sequence number"), &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(tg_arg_int(t, arg_of(t, 69999, "Sequence number"), &v), 0);
	assert_int_equal(v, 69999);
	tg_trace_free(t);
	free(doc);
}

static void test_schema_2021(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"schemaVersion\":1,\"traceEvents\":[\n"
		"{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::conv2d\",\"pid\":118664,\"tid\":\"1441273664\","
		"\"ts\":1610366387140599,\"dur\":14,\"args\":{\"Input dims\":[[1,3]],\"Device\":0,\"External id\":1,"
		"\"Trace name\":\"PyTorch Profiler\",\"Trace iteration\":0}},\n"
		"{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":118664,\"tid\":\"1441273664\","
		"\"ts\":1610366387140600,\"dur\":5,\"args\":{\"cbid\":211,\"correlation\":6,\"external id\":1,\"external ts\":1}},\n"
		"{\"ph\":\"s\",\"id\":6,\"pid\":118664,\"tid\":1441273664,\"ts\":1610366387140600,\"cat\":\"async\",\"name\":\"launch\"},\n"
		"{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"implicit_convolve_sgemm\",\"pid\":0,\"tid\":\"stream 7\","
		"\"ts\":1610366387140610,\"dur\":100,\"args\":{\"queued\":0,\"device\":0,\"context\":1,\"stream\":7,\"correlation\":6,\"external id\":1}},\n"
		"{\"ph\":\"f\",\"id\":6,\"pid\":0,\"tid\":\"stream 7\",\"ts\":1610366387140610,\"cat\":\"async\",\"name\":\"launch\",\"bp\":\"e\"},\n"
		"{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":1610366387140700,\"dur\":1,"
		"\"args\":{\"device\":0,\"stream\":7,\"correlation\":7,\"bytes\":15360}},\n"
		"{\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":1610366387140800,\"dur\":2,"
		"\"args\":{\"stream\":7,\"correlation\":8}},\n"
		"{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Iteration Start: PyTorch Profiler\",\"pid\":\"Traces\",\"tid\":\"Trace PyTorch Profiler\",\"ts\":1610366387140419}\n"
		"]}");
	const tg_trace_stats *s = tg_trace_stats_get(t);
	assert_int_equal(s->raw_events, 8);
	assert_int_equal(s->by_kind[TG_KIND_CPU_OP], 1);
	assert_int_equal(s->by_kind[TG_KIND_RUNTIME], 1);
	assert_int_equal(s->by_kind[TG_KIND_KERNEL], 1);
	assert_int_equal(s->by_kind[TG_KIND_MEMSET], 1);
	assert_int_equal(s->by_kind[TG_KIND_MEMCPY], 1);
	assert_int_equal(s->by_kind[TG_KIND_INSTANT], 1);
	assert_int_equal(s->flow_events, 2);
	size_t n, nt, nf;
	const tg_event *e = tg_trace_events(t, &n);
	const tg_track *tr = tg_trace_tracks(t, &nt);
	const tg_flow *f = tg_trace_flows(t, &nf);
	/* "1441273664" and 1441273664 are one thread */
	assert_int_equal(e[0].track, e[1].track);
	assert_int_equal(f[0].track, e[1].track);
	assert_int_equal(tr[e[0].track].tid, 1441273664);
	assert_int_equal(tr[e[0].track].tid_str, TG_NONE);
	/* "stream 7" stays a string */
	assert_string_equal(tg_trace_str(t, tr[e[2].track].tid_str), "stream 7");
	assert_int_equal(tg_event_corr(t, &e[1]), 6);
	assert_int_equal(tg_event_ext(t, &e[1]), 1);
	assert_true(e[1].flags & TG_EV_HAS_EXT);
	assert_int_equal(f[0].type, TG_FLOW_LAUNCH);
	assert_int_equal(f[1].bind_enclosing, 1);
	/* noise keys are dropped, the rest kept */
	assert_null(arg_of(t, 0, "Trace name"));
	assert_null(arg_of(t, 1, "cbid"));
	const tg_arg *dims = arg_of(t, 0, "Input Dims"); /* 2021's "Input dims", renamed */
	assert_non_null(dims);
	assert_int_equal(dims->type, TG_ARG_RAW);
	assert_string_equal(tg_trace_str(t, dims->v.atom), "[[1,3]]");
	int64_t stream;
	assert_int_equal(tg_arg_int(t, arg_of(t, 2, "stream"), &stream), 0);
	assert_int_equal(stream, 7);
	tg_trace_free(t);
}

static void test_args_values(void **state)
{
	(void)state;
	tg_trace *t = read_all_args(
		"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"n\\\"q\\\\u\\u00e9\\ud83d\\ude00\\n\","
		"\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{"
		"\"Comms Id\":10159970886766084423,\"neg\":-9223372036854775808,\"huge\":123456789012345678901234,"
		"\"bw\":8.26927127726691,\"flag\":true,\"none\":null,\"s\":\"0x0\","
		"\"Concrete Inputs\":[\"\", \"1\"],\"obj\":{\"a\":[1,{\"b\":2}]}}}]}");
	size_t n;
	const tg_event *e = tg_trace_events(t, &n);
	assert_string_equal(tg_trace_str(t, e[0].name), "n\"q\\u\xc3\xa9\xf0\x9f\x98\x80\n");
	const tg_arg *a = arg_of(t, 0, "Comms Id");
	assert_int_equal(a->type, TG_ARG_UINT);
	assert_true(a->v.u == 10159970886766084423ULL);
	a = arg_of(t, 0, "neg");
	assert_int_equal(a->type, TG_ARG_INT);
	assert_true(a->v.i == INT64_MIN);
	a = arg_of(t, 0, "huge");
	assert_int_equal(a->type, TG_ARG_DOUBLE);
	assert_true(a->v.d > 1.2345e23 && a->v.d < 1.2346e23);
	a = arg_of(t, 0, "bw");
	assert_int_equal(a->type, TG_ARG_DOUBLE);
	assert_true(a->v.d == 8.26927127726691);
	assert_int_equal(arg_of(t, 0, "flag")->type, TG_ARG_BOOL);
	assert_int_equal(arg_of(t, 0, "none")->type, TG_ARG_NULL);
	int64_t v;
	assert_int_equal(tg_arg_int(t, arg_of(t, 0, "s"), &v), 0); /* AMD's "0x0" stream */
	assert_int_equal(v, 0);
	assert_string_equal(tg_trace_str(t, arg_of(t, 0, "Concrete Inputs")->v.atom), "[\"\", \"1\"]");
	assert_string_equal(tg_trace_str(t, arg_of(t, 0, "obj")->v.atom), "{\"a\":[1,{\"b\":2}]}");
	tg_trace_free(t);
}

static void test_metadata_and_kinds(void **state)
{
	(void)state;
	tg_trace *t = tg_trace_read_file(&t, "tests/fixtures/sample.json", NULL) ? NULL : t;
	assert_non_null(t);
	size_t nd;
	const tg_device *d = tg_trace_devices(t, &nd);
	assert_int_equal(nd, 1);
	assert_string_equal(tg_trace_str(t, d[0].name), "NVIDIA H100 80GB HBM3");
	assert_int_equal(d[0].num_sms, 132);
	assert_int_equal(d[0].total_memory, 85018279936LL);
	assert_int_equal(tg_trace_rank(t), 0);
	assert_int_equal(tg_trace_world_size(t), 1);
	assert_string_equal(tg_trace_process_name(t, 100), "python3");
	assert_string_equal(tg_trace_process_name(t, 0), "GPU 0");
	assert_null(tg_trace_process_name(t, 5));
	const json_t *base = json_object_get(tg_trace_meta(t), "baseTimeNanoseconds");
	assert_true(json_is_integer(base));
	assert_true(json_integer_value(base) == 1700000000000000000LL);
	assert_true(json_is_integer(json_object_get(tg_trace_meta(t), "cuda_runtime_version")));
	assert_null(json_object_get(tg_trace_meta(t), "traceEvents"));
	const tg_trace_stats *s = tg_trace_stats_get(t);
	assert_int_equal(s->raw_events, 44);
	assert_int_equal(s->metadata_events, 4);
	assert_int_equal(s->flow_events, 4);
	assert_int_equal(s->by_kind[TG_KIND_PYTHON], 6);
	assert_int_equal(s->by_kind[TG_KIND_CPU_OP], 8);
	assert_int_equal(s->by_kind[TG_KIND_USER_ANNOTATION], 2);
	assert_int_equal(s->by_kind[TG_KIND_RUNTIME], 7);
	assert_int_equal(s->by_kind[TG_KIND_KERNEL], 10);
	assert_int_equal(s->by_kind[TG_KIND_MEMCPY], 1);
	assert_int_equal(s->by_kind[TG_KIND_INSTANT], 1);
	assert_int_equal(s->by_kind[TG_KIND_TRACE_SPAN], 1);
	size_t nt;
	const tg_track *tr = tg_trace_tracks(t, &nt);
	size_t ne;
	const tg_event *e = tg_trace_events(t, &ne);
	assert_string_equal(tg_trace_str(t, tr[e[0].track].thread_name), "thread 100 (python3)");
	/* python ids; null parent leaves the flag clear */
	uint32_t main_ev = tg_test_find(t, "train.py(10): main", TG_KIND_PYTHON);
	assert_int_equal(tg_event_pyid(t, &e[main_ev]), 1);
	assert_false(e[main_ev].flags & TG_EV_HAS_PYPARENT);
	tg_trace_free(t);
}

static void test_other_phases_and_formats(void **state)
{
	(void)state;
	/* array format, B/E pairs, counters, unknown category, MTIA dma */
	tg_trace *t = tg_test_read_str(
		"[{\"ph\":\"B\",\"name\":\"outer\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":2,\"ts\":10},"
		"{\"ph\":\"B\",\"name\":\"inner\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":2,\"ts\":11},"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":12.5},"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":20},"
		"{\"ph\":\"C\",\"name\":\"GPU 0 Utilization\",\"pid\":0,\"ts\":10,\"args\":{\"GPU Utilization\":1}},"
		"{\"ph\":\"X\",\"cat\":\"my_thing\",\"name\":\"custom\",\"pid\":1,\"tid\":2,\"ts\":30,\"dur\":1},"
		"{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"dma_request\",\"pid\":9,\"tid\":801,\"ts\":30,\"dur\":1},"
		"{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"matmul\",\"pid\":9,\"tid\":802,\"ts\":30,\"dur\":1},"
		"{\"ph\":\"P\",\"name\":\"sample\",\"pid\":1,\"tid\":2,\"ts\":30},"
		"{}]");
	size_t n;
	const tg_event *e = tg_trace_events(t, &n);
	assert_int_equal(n, 5);
	assert_int_equal(tg_event_dur(t, &e[0]), 10000);
	assert_int_equal(tg_event_dur(t, &e[1]), 1500);
	assert_false(e[0].flags & TG_EV_UNCLOSED);
	assert_int_equal(e[2].kind, TG_KIND_OTHER);
	assert_string_equal(tg_trace_str(t, arg_of(t, 2, "cat")->v.atom), "my_thing");
	assert_int_equal(e[3].kind, TG_KIND_MEMCPY);
	assert_int_equal(e[4].kind, TG_KIND_KERNEL);
	const tg_trace_stats *s = tg_trace_stats_get(t);
	assert_int_equal(s->raw_events, 10);
	assert_int_equal(s->counter_events, 1);
	assert_int_equal(s->skipped_events, 2);
	tg_trace_free(t);
}

/* Same events, same strings, same args: a full comparison of two reads. */
static void assert_same_trace(const tg_trace *a, const tg_trace *b)
{
	size_t na, nb, aa, ab;
	const tg_event *ea = tg_trace_events(a, &na), *eb = tg_trace_events(b, &nb);
	const tg_arg *xa = tg_trace_args(a, &aa), *xb = tg_trace_args(b, &ab);
	assert_int_equal(na, nb);
	assert_int_equal(aa, ab);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ea[i].ts, eb[i].ts);
		assert_int_equal(tg_event_dur(a, &ea[i]), tg_event_dur(b, &eb[i]));
		assert_int_equal(ea[i].kind, eb[i].kind);
		assert_int_equal(ea[i].flags, eb[i].flags);
		assert_int_equal(tg_event_nargs(a, &ea[i]), tg_event_nargs(b, &eb[i]));
		assert_string_equal(tg_trace_str(a, ea[i].name), tg_trace_str(b, eb[i].name));
		for (unsigned k = 0; k < tg_event_nargs(a, &ea[i]); k++) {
			const tg_arg *p = &xa[ea[i].args + k], *q = &xb[eb[i].args + k];
			assert_string_equal(tg_trace_str(a, p->key), tg_trace_str(b, q->key));
			assert_int_equal(p->type, q->type);
			if (p->type == TG_ARG_STR || p->type == TG_ARG_RAW)
				assert_string_equal(tg_trace_str(a, p->v.atom), tg_trace_str(b, q->v.atom));
			else
				assert_memory_equal(&p->v, &q->v, sizeof(p->v));
		}
	}
	assert_int_equal(tg_trace_stats_get(a)->raw_events, tg_trace_stats_get(b)->raw_events);
	assert_int_equal(tg_trace_stats_get(a)->flow_events, tg_trace_stats_get(b)->flow_events);
}

static void test_every_window_size(void **state)
{
	(void)state;
	size_t len = 0;
	char *doc = tg_test_slurp("tests/fixtures/sample.json", &len);
	assert_non_null(doc);
	tg_trace *ref;
	assert_int_equal(tg_trace_read_mem(&ref, doc, len, "sample", NULL), 0);
	for (uint32_t w = 16; w <= 700; w++) {
		tg_read_opts o = {.window = w};
		tg_trace *t;
		int rc = tg_trace_read_mem(&t, doc, len, "sample", &o);
		if (rc)
			fail_msg("window %u: %s", w, tg_error_last());
		assert_same_trace(ref, t);
		tg_trace_free(t);
	}
	tg_trace_free(ref);
	free(doc);
}

/* An event's keys written with escapes (scan_string reads them, key_id
 * names them) read as written plainly; keys near the ten (same length,
 * same first letter) are skipped as any other. */
static void test_escaped_keys(void **state)
{
	(void)state;
	static const char plain[] =
		"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":3,\"tid\":4,\"ts\":5,\"dur\":6,"
		"\"args\":{\"correlation\":9}},{\"ph\":\"s\",\"id\":12,\"pid\":3,\"tid\":4,\"ts\":5,\"cat\":\"ac2g\","
		"\"name\":\"f\",\"bp\":\"e\"}]}";
	static const char escaped[] =
		"{\"traceEvents\":[{\"p\\u0068\":\"\\u0058\",\"c\\u0061t\":\"kernel\",\"na\\u006de\":\"k\",\"pi\\u0064\":3,"
		"\"\\u0074id\":4,\"t\\u0073\":5,\"du\\u0072\":6,\"pq\":1,\"cax\":2,\"nam3\":[1],\"arg\\u0073\":{\"correlation\":9}},"
		"{\"ph\":\"s\",\"i\\u0064\":12,\"pid\":3,\"tid\":4,\"ts\":5,\"cat\":\"ac2g\",\"name\":\"f\",\"b\\u0070\":\"e\"}]}";
	tg_trace *a, *b;
	assert_int_equal(tg_trace_read_mem(&a, plain, strlen(plain), "keys", NULL), 0);
	assert_int_equal(tg_trace_read_mem(&b, escaped, strlen(escaped), "keys", NULL), 0);
	assert_same_trace(a, b);
	size_t nf;
	tg_trace_flows(b, &nf);
	assert_int_equal(nf, 1);
	tg_trace_free(a);
	tg_trace_free(b);
}

/* An event's "ph": one printable byte between quotes (read without a
 * scan), or anything else read by scan_string: escapes, two bytes, none, a
 * control byte, no string; the same phases and messages either way. */
static void test_ph_values(void **state)
{
	(void)state;
	static const struct {
		const char *value; /* as written */
		char ph;           /* 0: an error */
		const char *msg;
	} cases[] = {
		{"\"X\"", 'X', NULL},
		{"\"\\u0058\"", 'X', NULL},
		{"\"~\"", 0, NULL}, /* read, and skipped: no phase the reader knows */
		{"\"\\\"\"", 0, NULL},
		{"\"XY\"", 0, "byte 22: \"ph\" must be one character"},
		{"\"\"", 0, "byte 22: \"ph\" must be one character"},
		{"\"\t\"", 0, "byte 23: control character 0x09 in a string"},
		{"X", 0, "byte 22: \"ph\" must be a string"},
		{"\"X", 0, "byte 22: \"ph\" must be one character"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char doc[256];
		snprintf(doc, sizeof(doc),
		         "{\"traceEvents\":[{\"ph\":%s,\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":2}]}",
		         cases[i].value);
		tg_trace *t;
		int rc = tg_trace_read_mem(&t, doc, strlen(doc), "ph", NULL);
		if (cases[i].msg) {
			assert_int_not_equal(rc, 0);
			if (!strstr(tg_error_last(), cases[i].msg))
				fail_msg("%s: '%s'", cases[i].value, tg_error_last());
			continue;
		}
		assert_int_equal(rc, 0);
		size_t ne;
		const tg_event *ev = tg_trace_events(t, &ne);
		assert_int_equal(ne, cases[i].ph ? 1 : 0);
		if (ne)
			assert_int_equal(ev[0].kind, TG_KIND_KERNEL);
		tg_trace_free(t);
	}
}

/* Names that agree in their first and last 8 bytes and their length (one
 * slot of the reader's string cache) but not between: each reads back as
 * written, for lengths 17 to 40 and a difference at every middle byte. */
static void test_names_same_ends(void **state)
{
	(void)state;
	size_t cap = 1 << 20, k = 0;
	char *doc = malloc(cap);
	assert_non_null(doc);
	k += (size_t)snprintf(doc + k, cap - k, "{\"traceEvents\":[");
	int nev = 0;
	for (int len = 17; len <= 40; len++)
		for (int at = 8; at < len - 8; at++)
			for (int twice = 0; twice < 2; twice++) { /* each name twice: the second from the cache */
				char name[64];
				for (int i = 0; i < len; i++)
					name[i] = (char)('a' + i % 26);
				name[at] = 'Z';
				name[len] = 0;
				k += (size_t)snprintf(doc + k, cap - k,
				                      "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,"
				                      "\"ts\":%d,\"dur\":1}",
				                      nev ? "," : "", name, nev);
				nev++;
			}
	k += (size_t)snprintf(doc + k, cap - k, "]}");
	tg_trace *t;
	assert_int_equal(tg_trace_read_mem(&t, doc, k, "ends", NULL), 0);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	assert_int_equal(ne, (size_t)nev);
	size_t i = 0;
	for (int len = 17; len <= 40; len++)
		for (int at = 8; at < len - 8; at++)
			for (int twice = 0; twice < 2; twice++, i++) {
				char name[64];
				for (int j = 0; j < len; j++)
					name[j] = (char)('a' + j % 26);
				name[at] = 'Z';
				name[len] = 0;
				assert_string_equal(tg_trace_str(t, ev[i].name), name);
			}
	tg_trace_free(t);
	free(doc);
}

/* Members separated as pretty-printers write them (": " and ", ", which
 * the reader skips in one step) and otherwise (no space, two, a newline,
 * a space before): the same trace as the compact document at every
 * window size; cut at any byte, the same error and message at every
 * window size as with the whole document in one window. */
static void test_separators(void **state)
{
	(void)state;
	static const char compact[] =
		"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":5,"
		"\"args\":{\"External id\":7,\"Ev Idx\":3,\"Input Dims\":[[1,2]],\"s\":\"x\"}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,\"tid\":9,\"ts\":11,\"dur\":1,"
		"\"args\":{\"correlation\":4}}]}";
	static const char spaced[] =
		"{\"traceEvents\": [{\n    \"ph\": \"X\", \"cat\":  \"cpu_op\",\"name\" : \"a\", \"pid\":\n1,\n \"tid\": 2 ,"
		" \"ts\": 10,  \"dur\":5,\n    \"args\": {\n      \"External id\": 7,\"Ev Idx\" :3 , \"Input Dims\": [[1,2]],"
		"\t\"s\":\t\"x\"\n    }\n  },\n  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 1,"
		" \"tid\": 9, \"ts\": 11, \"dur\": 1, \"args\": {\"correlation\": 4}}]}";
	tg_trace *ref, *t;
	assert_int_equal(tg_trace_read_mem(&ref, compact, strlen(compact), "sep", NULL), 0);
	for (uint32_t w = 16; w <= 300; w++) {
		tg_read_opts o = {.window = w};
		int rc = tg_trace_read_mem(&t, spaced, strlen(spaced), "sep", &o);
		if (rc)
			fail_msg("window %u: %s", w, tg_error_last());
		assert_same_trace(ref, t);
		tg_trace_free(t);
	}
	tg_trace_free(ref);
	size_t n = strlen(spaced);
	for (size_t cut = 1; cut < n; cut++) {
		tg_read_opts whole = {.window = (uint32_t)n + 64, .source = {.single_thread = 1}};
		char msg[512];
		int rc = tg_trace_read_mem(&t, spaced, cut, "sep", &whole);
		snprintf(msg, sizeof(msg), "%s", rc ? tg_error_last() : "");
		if (!rc)
			tg_trace_free(t);
		static const uint32_t windows[] = {16, 17, 31, 64};
		for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
			tg_read_opts o = {.window = windows[i]};
			int rc2 = tg_trace_read_mem(&t, spaced, cut, "sep", &o);
			if (rc2 != rc || (rc && strcmp(msg, tg_error_last())))
				fail_msg("cut %zu, window %u: %d '%s' against %d '%s'", cut, windows[i], rc2,
				         rc2 ? tg_error_last() : "", rc, msg);
			if (!rc2)
				tg_trace_free(t);
		}
	}
}

/* A document of n kernel events with arguments, each followed by pad
 * blanks (a bigger file for as many events: the reader's size guess too
 * large); *len its length. */
static char *events_doc(size_t n, size_t pad, size_t *len)
{
	size_t cap = n * (160 + pad) + 64, k = 0;
	char *d = malloc(cap);
	k += (size_t)snprintf(d + k, cap - k, "{\"traceEvents\":[");
	for (size_t i = 0; i < n; i++) {
		k += (size_t)snprintf(d + k, cap - k,
		                      "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%zu\",\"pid\":1,\"tid\":7,"
		                      "\"ts\":%zu,\"dur\":3,\"args\":{\"correlation\":%zu}}",
		                      i ? "," : "", i % 97, 10 * i, i);
		memset(d + k, ' ', pad);
		k += pad;
	}
	k += (size_t)snprintf(d + k, cap - k, "]}");
	*len = k;
	return d;
}

/* The events' and arguments' arrays sized from the input's size before
 * reading (trace_read.c, reserve_arrays): a guess too small (short events)
 * grows as before, one too large (the same events padded) is given back
 * after the read; both read the same trace as one thread and as the
 * smallest window, and the padded one holds no more memory. */
static void test_arrays_sized_from_input(void **state)
{
	(void)state;
	size_t n = 40000, len, plen;
	char *doc = events_doc(n, 0, &len), *padded = events_doc(n, 400, &plen);
	assert_true(len / 192 < n);   /* the guess falls short */
	assert_true(plen / 192 > 2 * n); /* the guess is over twice too large */
	tg_trace *a, *b, *c;
	tg_read_opts one = {.source = {.single_thread = 1}, .window = 64};
	assert_int_equal(tg_trace_read_mem(&a, doc, len, "short", NULL), 0);
	assert_int_equal(tg_trace_read_mem(&b, padded, plen, "padded", NULL), 0);
	assert_int_equal(tg_trace_read_mem(&c, doc, len, "one", &one), 0);
	size_t ne;
	tg_trace_events(a, &ne);
	assert_int_equal(ne, n);
	assert_same_trace(a, b);
	assert_same_trace(a, c);
	assert_true(tg_trace_memory(b) <= tg_trace_memory(a));
	tg_trace_free(a);
	tg_trace_free(b);
	tg_trace_free(c);
	free(doc);
	free(padded);
}

static void test_every_truncation_fails(void **state)
{
	(void)state;
	size_t len = 0;
	char *doc = tg_test_slurp("tests/fixtures/sample.json", &len);
	while (len && (doc[len - 1] == '\n' || doc[len - 1] == ' '))
		len--;
	for (size_t cut = 0; cut < len; cut++) {
		tg_read_opts o = {.window = 64 + (uint32_t)(cut % 97)};
		int rc = tg_test_read_fails(doc, cut, &o);
		assert_int_equal(rc, TG_EFORMAT);
		const char *m = tg_error_last();
		assert_true(strncmp(m, "bad.json: byte ", 15) == 0);
		if (cut > 0 && !strstr(m, "unexpected end of data"))
			fail_msg("cut %zu: %s", cut, m);
	}
	free(doc);
}

static void test_random_corruption_is_clean(void **state)
{
	(void)state;
	size_t len = 0;
	char *doc = tg_test_slurp("tests/fixtures/sample.json", &len);
	char *bad = malloc(len);
	uint64_t x = 88172645463325252ULL;
	for (int round = 0; round < 3000; round++) {
		memcpy(bad, doc, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			bad[x % len] = (char)(x >> 40);
		}
		tg_read_opts o = {.window = 32 + (uint32_t)(x % 300)};
		tg_trace *t;
		if (tg_trace_read_mem(&t, bad, len, "fuzz", &o) == 0) {
			tg_tree *tree;
			assert_int_equal(tg_tree_build(&tree, t), 0);
			tg_tree_free(tree);
			tg_trace_free(t);
		} else {
			const char *m = tg_error_last();
			assert_true(strncmp(m, "fuzz: ", 6) == 0);
			assert_null(strchr(m, '\n'));
		}
	}
	free(bad);
	free(doc);
}

static void test_review_regressions(void **state)
{
	(void)state;
	/* events without pid/tid share the numeric track 0/0 */
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":1,\"dur\":1},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":0,\"tid\":0,\"ts\":7,\"dur\":1}]}");
	size_t n, nt;
	const tg_event *e = tg_trace_events(t, &n);
	const tg_track *tr = tg_trace_tracks(t, &nt);
	assert_int_equal(nt, 1);
	assert_int_equal(e[0].track, e[1].track);
	assert_int_equal(tr[0].pid_str, TG_NONE);
	assert_int_equal(tr[0].tid_str, TG_NONE);
	tg_trace_free(t);
	/* timestamps that overflow ts + dur, and a double beyond range in args,
	 * are errors: tests/data/bad/trace/ (test_bad_input.c) */
	/* an argument no analysis reads is skipped (its syntax checked, not
	 * its value converted); kept, it is converted and rejected */
	tg_trace *sk = tg_test_read_str("{\"traceEvents\":[{\"args\":{\"x\":1e400}}]}");
	tg_trace_free(sk);
	tg_read_opts all = {.keep_all_args = 1};
	const char *x400 = "{\"traceEvents\":[{\"args\":{\"x\":1e400}}]}";
	assert_int_equal(tg_test_read_fails(x400, strlen(x400), &all), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "bad.json: byte 29: number out of the range of a double");
	/* a huge double does not become a bogus integer */
	t = tg_test_read_str("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":1,"
	                     "\"args\":{\"stream\":1e300}}]}");
	e = tg_trace_events(t, &n);
	int64_t v;
	assert_int_equal(tg_arg_int(t, tg_event_arg(t, &e[0], tg_trace_key(t, "stream")), &v), -1);
	tg_trace_free(t);
	/* whitespace between events never grows the window */
	size_t blank = 8u << 20;
	char *doc = malloc(blank + 64);
	size_t k = (size_t)sprintf(doc, "{\"traceEvents\":[");
	memset(doc + k, ' ', blank);
	k += blank;
	k += (size_t)sprintf(doc + k, "]}");
	tg_read_opts o = {.window = 4096, .max_unit = 65536};
	assert_int_equal(tg_trace_read_mem(&t, doc, k, "blank", &o), 0);
	tg_trace_free(t);
	free(doc);
}

/* A top-level member whose key holds escapes keeps that key whole while
 * its value's escaped strings are decoded: both go through the reader's
 * scratch, and a long escaped value moved it under the key (a use after
 * free the fuzzer found) or a short one overwrote it. */
static void test_meta_escaped_key(void **state)
{
	(void)state;
	char json[4096];
	char longv[2048];
	size_t n = 0;
	for (; n + 2 < 1800; n += 2) { /* escaped all along: decoded into the scratch */
		longv[n] = '\\';
		longv[n + 1] = 'n';
	}
	longv[n] = 0;
	snprintf(json, sizeof(json),
	         "{\"a\\tkey\": {\"x\\ty\": \"%s\"}, \"b\\nkey\": \"s\\tt\", \"traceEvents\": []}", longv);
	tg_trace *t = tg_test_read_str(json);
	const json_t *meta = tg_trace_meta(t);
	const json_t *a = json_object_get(meta, "a\tkey");
	assert_non_null(a);
	const json_t *x = json_object_get(a, "x\ty");
	assert_non_null(x);
	assert_int_equal(strlen(json_string_value(x)), n / 2);
	const json_t *b = json_object_get(meta, "b\nkey");
	assert_non_null(b);
	assert_string_equal(json_string_value(b), "s\tt");
	tg_trace_free(t);
}

/* Ids are 32-bit (the first in the event, the second beside it); one
 * outside 0..UINT32_MAX goes to the trace's wide ids and reads back
 * whole. */
static void test_wide_ids(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"narrow\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
		"\"args\":{\"correlation\":4294967295,\"External id\":0}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"wide\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,"
		"\"args\":{\"correlation\":4294967296,\"External id\":-1}},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"py\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1,"
		"\"args\":{\"Python id\":9223372036854775807,\"Python parent id\":-9223372036854775808}},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"py2\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,"
		"\"args\":{\"Python id\":7,\"Python parent id\":5000000000}}"
		"]}");
	size_t n, nw;
	const tg_event *e = tg_trace_events(t, &n);
	assert_int_equal(n, 4);
	assert_int_equal(sizeof(tg_event), 28); /* the second id beside it (tg_trace_id1_field) */
	assert_int_equal(tg_event_corr(t, &e[0]), 4294967295LL);
	assert_int_equal(tg_event_ext(t, &e[0]), 0);
	assert_false(e[0].flags & (TG_EV_WIDE_ID0 | TG_EV_WIDE_ID1));
	assert_true(e[0].flags & TG_EV_HAS_CORR);
	assert_true(e[0].flags & TG_EV_HAS_EXT);
	assert_int_equal(tg_event_corr(t, &e[1]), 4294967296LL);
	assert_int_equal(tg_event_ext(t, &e[1]), -1);
	assert_true(e[1].flags & TG_EV_WIDE_ID0);
	assert_true(e[1].flags & TG_EV_WIDE_ID1);
	assert_int_equal(tg_event_pyid(t, &e[2]), INT64_MAX);
	assert_int_equal(tg_event_pyparent(t, &e[2]), INT64_MIN);
	assert_true(e[2].flags & TG_EV_HAS_PYPARENT);
	assert_int_equal(tg_event_pyid(t, &e[3]), 7);
	assert_false(e[3].flags & TG_EV_WIDE_ID0);
	assert_int_equal(tg_event_pyparent(t, &e[3]), 5000000000LL);
	const int64_t *w = tg_trace_wide_ids(t, &nw);
	assert_int_equal(nw, 5); /* in reading order */
	assert_int_equal(w[0], 4294967296LL);
	assert_int_equal(w[1], -1);
	assert_int_equal(w[4], 5000000000LL);
	assert_int_equal(e[1].id0, 0);
	assert_int_equal(tg_trace_id1_field(t, &e[1]), 1);
	assert_int_equal(tg_trace_id1_field(t, &e[3]), 4);
	tg_trace_free(t);
}

/* Durations are 32 bits of ns in the event (4.29 s); a longer one goes to
 * the trace's wide durations and reads back whole, up to the reader's
 * limit (2^61 ns), the B/E pairs' as the X events'; negative ones are
 * clamped to 0 as before. */
static void test_wide_durs(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"max32\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":4294967.295},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"wide\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":4294967.296},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"neg\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":-5000000},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"limit\",\"pid\":1,\"tid\":1,\"ts\":-4,"
		"\"dur\":2305843009213693.951},"
		"{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"long\",\"pid\":1,\"tid\":2,\"ts\":10},"
		"{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"short\",\"pid\":1,\"tid\":3,\"ts\":10},"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":3,\"ts\":4294977.295},"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":86400000010},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"zero\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":0}"
		"]}");
	size_t n, nw;
	const tg_event *e = tg_trace_events(t, &n);
	assert_int_equal(n, 7);
	assert_int_equal(tg_event_dur(t, &e[0]), 4294967295LL);
	assert_false(e[0].flags & TG_EV_WIDE_DUR);
	assert_int_equal(tg_event_dur(t, &e[1]), 4294967296LL);
	assert_true(e[1].flags & TG_EV_WIDE_DUR);
	assert_int_equal(tg_event_end(t, &e[1]), 2000 + 4294967296LL);
	assert_int_equal(tg_event_dur(t, &e[2]), 0);
	assert_false(e[2].flags & TG_EV_WIDE_DUR);
	assert_int_equal(tg_trace_stats_get(t)->negative_durations, 1);
	assert_int_equal(tg_event_dur(t, &e[3]), 2305843009213693951LL);
	assert_int_equal(tg_event_end(t, &e[3]), 2305843009213693951LL - 4000);
	assert_int_equal(tg_event_dur(t, &e[4]), 86400000000000LL); /* a day, closed by its E */
	assert_true(e[4].flags & TG_EV_WIDE_DUR);
	assert_false(e[4].flags & TG_EV_UNCLOSED);
	assert_int_equal(tg_event_dur(t, &e[5]), 4294967295LL);
	assert_false(e[5].flags & TG_EV_WIDE_DUR);
	assert_int_equal(tg_event_dur(t, &e[6]), 0);
	const int64_t *w = tg_trace_wide_durs(t, &nw);
	assert_int_equal(nw, 3); /* in the order they were set */
	assert_int_equal(w[0], 4294967296LL);
	assert_int_equal(w[1], 2305843009213693951LL);
	assert_int_equal(w[2], 86400000000000LL);
	assert_int_equal(e[1].dur32, 0);
	assert_int_equal(e[4].dur32, 2);
	tg_trace_free(t);
	/* past the limit: refused, as before */
	tg_trace *bad = NULL;
	const char *doc = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"x\",\"ts\":1,\"dur\":2305843009213693.952}]}";
	assert_int_equal(tg_trace_read_mem(&bad, doc, strlen(doc), "lim.json", NULL), TG_EFORMAT);
	assert_null(bad);
	assert_non_null(strstr(tg_error_last(), "\"dur\" out of range"));
}

/* An event keeps its track in 19 bits: a trace whose events use more
 * than TG_TRACK_MAX + 1 tracks is refused with one line naming the event,
 * one less is read. */
static void test_track_limit(void **state)
{
	(void)state;
	for (uint32_t ntr = TG_TRACK_MAX + 1; ntr <= TG_TRACK_MAX + 2; ntr++) {
		size_t cap = (size_t)ntr * 48 + 64, k = 0;
		char *doc = malloc(cap);
		assert_non_null(doc);
		k += (size_t)sprintf(doc + k, "{\"traceEvents\":[");
		for (uint32_t i = 0; i < ntr; i++)
			k += (size_t)sprintf(doc + k, "%s{\"ph\":\"i\",\"ts\":1,\"pid\":0,\"tid\":%u}", i ? "," : "", i);
		k += (size_t)sprintf(doc + k, "]}");
		tg_trace *t = NULL;
		int rc = tg_trace_read_mem(&t, doc, k, "tracks.json", NULL);
		if (ntr == TG_TRACK_MAX + 1) {
			assert_int_equal(rc, 0);
			size_t n;
			const tg_event *e = tg_trace_events(t, &n);
			assert_int_equal(n, ntr);
			assert_int_equal(e[n - 1].track, TG_TRACK_MAX);
			tg_trace_free(t);
		} else {
			assert_int_equal(rc, TG_ELIMIT);
			assert_null(t);
			assert_non_null(strstr(tg_error_last(), "tracks.json: "));
			assert_non_null(strstr(tg_error_last(), "more than 524288 tracks (limit)"));
		}
		free(doc);
	}
}

/* pad: spaces before the closing bracket, so that the input's size asks
 * the set of lists for more slots at its first growth (dedup_grow). */
static void check_argument_lists_prefixes(size_t pad)
{
	size_t cap = (4u << 20) + pad, len = 0;
	char *doc = malloc(cap);
	len += (size_t)sprintf(doc, "{\"traceEvents\":[");
	/* 6,000 distinct lists of one, two or three arguments, each the one
	 * before it with an argument more or less, then all of them again */
	for (int i = 0; i < 12000; i++) {
		int k = i % 6000, n = 1 + k % 3;
		len += (size_t)sprintf(doc + len, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"ts\":%d,"
		                       "\"dur\":1,\"args\":{\"Sequence number\":%d%s%s}}", i ? "," : "", i, k / 3,
		                       n > 1 ? ",\"stream\":7" : "", n > 2 ? ",\"device\":0" : "");
	}
	memset(doc + len, ' ', pad);
	len += pad;
	strcpy(doc + len, "]}");
	tg_trace *t;
	tg_test_must(tg_trace_read_mem(&t, doc, strlen(doc), "prefixes", NULL));
	size_t n, na;
	const tg_event *e = tg_trace_events(t, &n);
	tg_trace_args(t, &na);
	assert_int_equal(n, 12000);
	assert_int_equal(na, 2000 * (1 + 2 + 3)); /* the first 6,000 stored, the rest shared */
	for (size_t i = 0; i < 6000; i++) {
		assert_int_equal(e[i + 6000].args, e[i].args);
		assert_int_equal(tg_event_nargs(t, &e[i]), 1 + i % 3);
		assert_int_equal(tg_event_nargs(t, &e[i + 6000]), 1 + i % 3);
		if (i % 3)
			assert_int_not_equal(e[i].args, e[i - 1].args);
	}
	int64_t v;
	assert_int_equal(tg_arg_int(t, arg_of(t, 11999, "Sequence number"), &v), 0);
	assert_int_equal(v, 1999);
	assert_non_null(arg_of(t, 11999, "device"));
	assert_null(arg_of(t, 11997, "stream"));
	tg_trace_free(t);
	free(doc);
}

/* The set of shared lists holds no count: a list that begins as a stored
 * one but is longer or shorter is not taken for it (their .last bits
 * differ), also once the set has grown past its first 4,096 slots and
 * every stored list's count was found again from its .last: with the set
 * doubling as it fills, and with it jumping to the size a 24 MB input asks
 * for (16 Ki slots) at its first growth. */
static void test_argument_lists_prefixes(void **state)
{
	(void)state;
	check_argument_lists_prefixes(0);
	check_argument_lists_prefixes(24u << 20);
}

/* An event's argument list ends at the argument marked last: no count in
 * the event; a shared list is marked once. */
static void test_args_last(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":1,\"dur\":1,"
		"\"args\":{\"Sequence number\":3,\"stream\":7}},"
		"{\"ph\":\"X\",\"cat\":\"other_cat\",\"name\":\"b\",\"ts\":2,\"dur\":1},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"ts\":3,\"dur\":1,"
		"\"args\":{\"Sequence number\":3,\"stream\":7}}"
		"]}");
	size_t n, na;
	const tg_event *e = tg_trace_events(t, &n);
	const tg_arg *a = tg_trace_args(t, &na);
	assert_int_equal(n, 3);
	assert_int_equal(na, 3); /* a's two, shared by c; b's category */
	assert_int_equal(tg_event_nargs(t, &e[0]), 2);
	assert_int_equal(tg_event_nargs(t, &e[1]), 1);
	assert_int_equal(tg_event_nargs(t, &e[2]), 2);
	assert_int_equal(e[2].args, e[0].args);
	assert_false(a[0].last);
	assert_true(a[1].last);
	assert_true(a[2].last);
	int64_t v;
	assert_int_equal(tg_arg_int(t, tg_event_arg(t, &e[2], tg_trace_key(t, "stream")), &v), 0);
	assert_int_equal(v, 7);
	assert_null(tg_event_arg(t, &e[1], tg_trace_key(t, "stream")));
	tg_trace_free(t);
}

/* More kept arguments than the limit (at most 2^32 - 1: an event holds its
 * first argument's index in 32 bits) are refused with one line at the event
 * that passes it; shared equal lists do not count twice. */
static void test_args_limit(void **state)
{
	(void)state;
	static const char doc[] = "{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":1,\"dur\":1,"
		"\"args\":{\"Sequence number\":1,\"stream\":7}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":2,\"dur\":1,"
		"\"args\":{\"Sequence number\":1,\"stream\":7}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"ts\":3,\"dur\":1,"
		"\"args\":{\"Sequence number\":2,\"stream\":7}}"
		"]}";
	tg_read_opts o = {.max_args = 4};
	tg_trace *t = NULL;
	assert_int_equal(tg_trace_read_mem(&t, doc, sizeof doc - 1, "args.json", &o), 0);
	size_t na;
	tg_trace_args(t, &na);
	assert_int_equal(na, 4); /* the second event shares the first's list */
	tg_trace_free(t);
	t = NULL;
	o.max_args = 3;
	assert_int_equal(tg_trace_read_mem(&t, doc, sizeof doc - 1, "args.json", &o), TG_ELIMIT);
	assert_null(t);
	assert_non_null(strstr(tg_error_last(), "args.json: byte "));
	assert_non_null(strstr(tg_error_last(), ": more than 3 arguments (limit)"));
	const char *at = strstr(doc, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\"");
	char want[64];
	snprintf(want, sizeof want, "byte %zu: more", (size_t)(at - doc));
	assert_non_null(strstr(tg_error_last(), want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timestamps_exact),
		cmocka_unit_test(test_numbers_fast_and_general_agree),
		cmocka_unit_test(test_argument_lists_shared),
		cmocka_unit_test(test_argument_lists_prefixes),
		cmocka_unit_test(test_schema_2021),
		cmocka_unit_test(test_args_values),
		cmocka_unit_test(test_array_values),
		cmocka_unit_test(test_repeated_array_values),
		cmocka_unit_test(test_metadata_and_kinds),
		cmocka_unit_test(test_other_phases_and_formats),
		cmocka_unit_test(test_every_window_size),
		cmocka_unit_test(test_separators),
		cmocka_unit_test(test_names_same_ends),
		cmocka_unit_test(test_escaped_keys),
		cmocka_unit_test(test_ph_values),
		cmocka_unit_test(test_arrays_sized_from_input),
		cmocka_unit_test(test_every_truncation_fails),
		cmocka_unit_test(test_random_corruption_is_clean),
		cmocka_unit_test(test_review_regressions),
		cmocka_unit_test(test_meta_escaped_key),
		cmocka_unit_test(test_wide_ids),
		cmocka_unit_test(test_wide_durs),
		cmocka_unit_test(test_args_last),
		cmocka_unit_test(test_track_limit),
		cmocka_unit_test(test_args_limit),
	};
	return cmocka_run_group_tests_name("trace_read", tests, NULL, NULL);
}
