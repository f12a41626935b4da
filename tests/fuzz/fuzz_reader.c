/*
 * fuzz_reader.c - libFuzzer target for the streaming trace reader and what
 * is built on its output: the event tree and the nn.Module view.
 *
 * Input layout: the first byte picks the reader's initial window, from 16
 * bytes (0x00) to 4096 bytes (0xff), so that units, strings, numbers and
 * escapes get split at every possible window boundary; the remaining bytes
 * are the trace (JSON or gzip, detected by the magic bytes as for files).
 * The seeds in tests/fuzz/corpus/reader/ therefore start with one window
 * byte followed by a valid trace.
 *
 * Limits are small (nesting 64, strings 1 MiB, 16 MiB of inflated JSON) so
 * that every input runs quickly. Beyond the sanitizers, the target aborts
 * when the library breaks one of its documented promises:
 *   - a failure returns a TG_E* code, leaves *out NULL and one message line
 *     naming the input; format errors name a byte offset;
 *   - every tree edge goes both ways (parent <-> children), the tree has no
 *     cycle and every event with a parent is reachable from the roots;
 *   - module rows come parents first, with consistent depths, and
 *     self GPU time <= GPU time <= GPU busy time.
 *
 * Undefined behaviour found by UBSan stops the run like a crash (the
 * Makefile builds with -fno-sanitize-recover=all), with a stack trace, and
 * the input is kept as a crash file.
 *
 * Build and run: make fuzz FUZZ_TARGETS=reader (build-fuzz/fuzz_reader).
 */
#include "../../core/tree/modules.h"
#include "../../core/trace/trace.h"
#include "../../core/tree/tree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "<fuzz>"

#define CHECK(cond)                                                                       \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "fuzz_reader: %s:%d: broken promise: %s\n", __FILE__, \
			        __LINE__, #cond);                                                 \
			abort();                                                          \
		}                                                                         \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

/* UBSan's defaults for this binary (UBSAN_OPTIONS still overrides them). */
const char *__ubsan_default_options(void) { return "print_stacktrace=1"; }

/* The message of a failed read: one line, starting with the input's name. */
static void check_error(int rc)
{
	const char *msg = tg_error_last();
	CHECK(rc == TG_EFORMAT || rc == TG_ELIMIT || rc == TG_ENOMEM);
	CHECK(tg_error_last_code() == rc);
	CHECK(strncmp(msg, NAME ": ", strlen(NAME ": ")) == 0);
	CHECK(strchr(msg, '\n') == NULL && strchr(msg, '\r') == NULL);
	if (rc == TG_EFORMAT)
		CHECK(strstr(msg, "byte ") != NULL);
}

/* Reads everything the accessors give, as the commands do. */
static void walk_trace(const tg_trace *t)
{
	size_t ne, na, nt, nf, nd;
	const tg_event *ev = tg_trace_events(t, &ne);
	const tg_arg *args = tg_trace_args(t, &na);
	const tg_track *tracks = tg_trace_tracks(t, &nt);
	tg_trace_flows(t, &nf);
	const tg_device *dev = tg_trace_devices(t, &nd);
	uint32_t key_stream = tg_trace_key(t, "stream");
	volatile size_t sink = 0;
	for (size_t i = 0; i < ne; i++) {
		CHECK(ev[i].track < nt);
		CHECK(ev[i].args == TG_NONE || ((size_t)ev[i].args < na && args[na - 1].last));
		CHECK(ev[i].args == TG_NONE || (size_t)ev[i].args + tg_event_nargs(t, &ev[i]) <= na);
		CHECK(tg_event_dur(t, &ev[i]) >= 0);
		CHECK(ev[i].kind < TG_KIND_COUNT);
		sink += strlen(tg_trace_str(t, ev[i].name));
		sink += strlen(tg_kind_name((tg_kind)ev[i].kind));
		int64_t v;
		if (!tg_arg_int(t, tg_event_arg(t, &ev[i], key_stream), &v))
			sink += (size_t)v;
	}
	for (size_t i = 0; i < na; i++) {
		int64_t v;
		sink += strlen(tg_trace_str(t, args[i].key));
		if (args[i].type == TG_ARG_STR || args[i].type == TG_ARG_RAW)
			sink += strlen(tg_trace_str(t, args[i].v.atom));
		if (!tg_arg_int(t, &args[i], &v))
			sink += (size_t)v;
	}
	for (size_t i = 0; i < nt; i++) {
		const char *pn = tg_trace_process_name(t, tracks[i].pid);
		if (pn)
			sink += strlen(pn);
		if (tracks[i].thread_name != TG_NONE)
			sink += strlen(tg_trace_str(t, tracks[i].thread_name));
	}
	for (size_t i = 0; i < nd; i++)
		sink += strlen(tg_trace_str(t, dev[i].name));
	sink += tg_trace_memory(t) + (size_t)tg_trace_rank(t) + (size_t)tg_trace_world_size(t);
	sink += (size_t)json_object_size(tg_trace_meta(t));
	(void)sink;
}

static void check_tree(const tg_trace *t, const tg_tree *tree)
{
	size_t ne, nroots, nsteps;
	const tg_event *ev = tg_trace_events(t, &ne);
	const uint32_t *roots = tg_tree_roots(tree, &nroots);
	const tg_step *steps = tg_tree_steps(tree, &nsteps);
	CHECK(tg_tree_trace(tree) == t);
	CHECK(nroots <= ne);
	for (size_t i = 0; i < ne; i++) {
		tg_tree_child_iter it;
		uint32_t c;
		size_t n = 0;
		for (tg_tree_child_iter_init(&it, tree, (uint32_t)i); tg_tree_child_next(&it, &c); n++) {
			CHECK(c < ne);
			CHECK(tg_tree_parent(tree, c) == i);
			CHECK(tg_tree_child(tree, (uint32_t)i, n) == c);
		}
		CHECK(n == tg_tree_child_count(tree, (uint32_t)i));
		uint32_t p = tg_tree_parent(tree, (uint32_t)i);
		CHECK(p == TG_NONE || (p < ne && tg_tree_contains(tree, (uint32_t)i)));
		uint32_t l = tg_tree_launch(tree, (uint32_t)i);
		CHECK(l == TG_NONE || (l < ne && tg_kind_is_launch(ev[l].kind)));
		int32_t s = tg_tree_step_of(tree, (uint32_t)i);
		CHECK(s >= -1 && (s < 0 || (size_t)s < nsteps));
	}
	for (size_t k = 1; k < nsteps; k++)
		CHECK(steps[k - 1].ts <= steps[k].ts);
	for (size_t k = 0; k < nsteps; k++)
		CHECK(steps[k].event < ne);

	/* depth-first from the roots: every node once, no cycle */
	uint8_t *seen = calloc(ne + 1, 1);
	uint32_t *stack = malloc((ne + 1) * sizeof(uint32_t));
	if (!seen || !stack) {
		free(seen);
		free(stack);
		return;
	}
	size_t sp = 0, visited = 0;
	for (size_t r = 0; r < nroots; r++) {
		CHECK(roots[r] < ne);
		CHECK(tg_tree_parent(tree, roots[r]) == TG_NONE);
		CHECK(tg_tree_contains(tree, roots[r]));
		stack[sp++] = roots[r];
		while (sp) {
			uint32_t e = stack[--sp];
			CHECK(!seen[e]);
			seen[e] = 1;
			visited++;
			CHECK(sp + tg_tree_child_count(tree, e) <= ne);
			tg_tree_child_iter it;
			uint32_t c;
			for (tg_tree_child_iter_init(&it, tree, e); tg_tree_child_next(&it, &c);)
				stack[sp++] = c;
		}
	}
	CHECK(visited <= ne);
	for (size_t i = 0; i < ne; i++)
		if (tg_tree_parent(tree, (uint32_t)i) != TG_NONE)
			CHECK(seen[i]);
	free(seen);
	free(stack);
}

static void check_modules(const tg_trace *t, const tg_modules *m)
{
	size_t n;
	const tg_module_row *rows = tg_modules_rows(m, &n);
	int64_t busy = tg_modules_gpu_busy_ns(m);
	CHECK(busy >= 0);
	for (size_t i = 0; i < n; i++) {
		const tg_module_row *r = &rows[i];
		if (r->parent == TG_NONE)
			CHECK(r->depth == 0);
		else
			CHECK(r->parent < i && r->depth == rows[r->parent].depth + 1);
		CHECK(tg_module_name_is_module(tg_trace_str(t, r->name)));
		CHECK(r->calls > 0);
		CHECK(r->self_gpu_ns >= 0 && r->self_gpu_ns <= r->gpu_ns && r->gpu_ns <= busy);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	tg_read_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.max_depth = 64;
	opts.max_string = 1u << 20;
	opts.max_unit = 1u << 20;
	opts.max_events = 1u << 20;
	opts.source.max_bytes = 16u << 20;
	opts.window = 16u + (uint32_t)data[0] * (4096u - 16u) / 255u;

	tg_trace *t = (tg_trace *)1;
	int rc = tg_trace_read_mem(&t, data + 1, size - 1, NAME, &opts);
	if (rc) {
		CHECK(t == NULL);
		check_error(rc);
		return 0;
	}
	CHECK(t != NULL);
	CHECK(strcmp(tg_trace_name(t), NAME) == 0);
	walk_trace(t);

	tg_tree *tree = NULL;
	rc = tg_tree_build(&tree, t);
	if (rc) {
		CHECK(rc == TG_ENOMEM && tree == NULL);
		tg_trace_free(t);
		return 0;
	}
	check_tree(t, tree);

	tg_modules *m = NULL;
	rc = tg_modules_build(&m, tree);
	if (rc)
		CHECK(rc == TG_ENOMEM && m == NULL);
	else
		check_modules(t, m);

	tg_modules_free(m);
	tg_tree_free(tree);
	tg_trace_free(t);
	return 0;
}
