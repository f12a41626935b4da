/*
 * fuzz_augment.c - libFuzzer target for what is made from a trace that read
 * well: the replay scripts (core/analysis/replay.h) and the augmented trace
 * (core/analysis/augment.h, its second read of the same bytes).
 *
 * Input: a trace (JSON or gzip; the seeds in tests/fuzz/corpus/augment/ are
 * small valid traces). Inputs the reader refuses are skipped (fuzz_reader
 * covers them). Beyond the sanitizers, the target aborts when a promise
 * breaks:
 *   - replay: for every cpu_op name of the trace, each distinct invocation
 *     is refused with a one-line reason, or its script's CALL block has the
 *     fixed number of lines (nine and one per input: no text of the trace
 *     adds a line) of printable ASCII only;
 *   - augment: the copy (with every event marked and an instant added) is
 *     a trace tracegate reads, with the same events plus the instant and
 *     the counters counted; with nothing added it is the input's bytes.
 *
 * Build and run: make fuzz FUZZ_TARGETS=augment (build-fuzz/fuzz_augment).
 */
#include "../../core/analysis/augment.h"
#include "../../core/analysis/replay.h"
#include "../../core/trace/trace.h"
#include "../../core/tree/tree.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NAME "<fuzz>"
#define MAX_OPS 8

#define CHECK(cond)                                                                                              \
	do {                                                                                                     \
		if (!(cond)) {                                                                                   \
			fprintf(stderr, "fuzz_augment: %s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                                 \
		}                                                                                                \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "print_stacktrace=1"; }

/* The CALL block of a script: its lines between "CALL = {" and "}\n\n". */
static void check_script(const char *s, size_t n_inputs)
{
	const char *call = strstr(s, "\nCALL = {\n"), *end = call ? strstr(call, "\n}\n\n") : NULL;
	CHECK(call && end);
	size_t lines = 0;
	for (const char *p = call + 1; p < end + 2; p++) {
		CHECK((*p >= 0x20 && *p < 0x7f) || *p == '\n');
		lines += *p == '\n';
	}
	/* newlines after: CALL = {, op, family, family_label, trace, signature,
	 * inputs: [, each input, ], sdpa */
	CHECK(lines == 9 + n_inputs);
}

static void replay_ops(const tg_tree *tree)
{
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	uint32_t seen[MAX_OPS];
	size_t nseen = 0;
	for (size_t i = 0; i < ne && nseen < MAX_OPS; i++) {
		int dup = 0;
		for (size_t k = 0; k < nseen; k++)
			dup |= seen[k] == ev[i].name;
		if (ev[i].kind != TG_KIND_CPU_OP || dup)
			continue;
		seen[nseen++] = ev[i].name;
		tg_replay_set *s = NULL;
		int rc = tg_replay_find(&s, tree, tg_trace_str(t, ev[i].name), NULL);
		CHECK(rc == 0 || rc == TG_ENOMEM);
		size_t n;
		const tg_replay_call *c = s ? tg_replay_calls(s, &n) : NULL;
		for (size_t k = 0; c && k < n; k++) {
			char *text = NULL;
			size_t len;
			rc = tg_replay_script(&text, &len, tree, &c[k], "x'\n.json", k + 1, n);
			if (c[k].family == TG_REPLAY_REFUSED) {
				CHECK(rc == TG_EINVAL && !text && c[k].reason[0] && !strchr(c[k].reason, '\n'));
				continue;
			}
			CHECK(rc == 0 || rc == TG_ENOMEM);
			if (text) {
				size_t inputs = 0;
				for (const char *p = strstr(text, "    'inputs': [\n"); p && (p = strstr(p, "\n        {"));
				     p++)
					inputs++;
				check_script(text, inputs);
			}
			free(text);
		}
		tg_replay_set_free(s);
	}
}

static void augment(const tg_trace *t, const tg_tree *tree, int fd, const uint8_t *data, size_t size)
{
	char out[64];
	snprintf(out, sizeof(out), "/tmp/fuzz_augment_%ld.json", (long)getpid());
	size_t ne;
	tg_trace_events(t, &ne);
	/* nothing added: the same bytes */
	tg_augment_opts none = {.no_counters = 1};
	tg_augment_stats st;
	if (tg_augment_write(&st, out, fd, NAME, tree, &none) == 0 && st.json_in == size) {
		FILE *f = fopen(out, "rb");
		CHECK(f);
		uint8_t *back = malloc(size + 1);
		CHECK(back && fread(back, 1, size + 1, f) == size && !memcmp(back, data, size));
		free(back);
		fclose(f);
	}
	/* every event marked, one instant, the counters: read back */
	json_t *note = json_pack("{s:s}", "k", "v\"\n");
	const json_t *notes[] = {note};
	tg_augment_mark *marks = calloc(ne + 1, sizeof(*marks));
	CHECK(note && marks);
	for (size_t i = 0; i < ne; i++)
		marks[i] = (tg_augment_mark){(uint32_t)i, 0};
	tg_augment_instant in = {1000, "x\"\n\xff", 'g', TG_NONE, note};
	tg_augment_opts o = {.marks = marks, .nmarks = ne, .notes = notes, .nnotes = 1, .instants = &in, .ninstants = 1};
	int rc = tg_augment_write(&st, out, fd, NAME, tree, &o);
	CHECK(rc == 0 || rc == TG_ENOMEM || rc == TG_ELIMIT);
	if (rc == 0) {
		tg_trace *t2 = NULL;
		CHECK(tg_trace_read_file(&t2, out, NULL) == 0);
		size_t n2;
		tg_trace_events(t2, &n2);
		CHECK(n2 == ne + 1);
		CHECK(tg_trace_stats_get(t2)->counter_events == tg_trace_stats_get(t)->counter_events + st.counters);
		tg_trace_free(t2);
	}
	unlink(out);
	free(marks);
	json_decref(note);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tg_read_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.max_depth = 64;
	opts.max_string = 1u << 20;
	opts.max_unit = 1u << 20;
	opts.max_events = 1u << 16;
	opts.source.max_bytes = 16u << 20;
	tg_trace *t = NULL;
	if (tg_trace_read_mem(&t, data, size, NAME, &opts))
		return 0;
	tg_tree *tree = NULL;
	if (tg_tree_build(&tree, t)) {
		tg_trace_free(t);
		return 0;
	}
	replay_ops(tree);
	int fd = memfd_create("fuzz_augment", MFD_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(write(fd, data, size) == (ssize_t)size);
	augment(t, tree, fd, data, size);
	close(fd);
	tg_tree_free(tree);
	tg_trace_free(t);
	return 0;
}
