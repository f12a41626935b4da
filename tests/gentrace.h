/*
 * gentrace.h - traces from the synthetic generator (tests/gen/, build/tg-gen;
 * docs/generator.md) for the cmocka tests of the gate: run the generator
 * into a temporary folder, read the trace and build its tree, and keep the
 * generator's ground truth (--summary).
 *
 * The generator is $TG_GEN (default build/tg-gen, what `make check` builds);
 * a test calls GT_SKIP_WITHOUT_GEN() and is skipped, saying so, without it.
 * Arguments are one string split at spaces; a value holding spaces is
 * written between single quotes: "--gpu 'NVIDIA A100-SXM4-80GB'".
 *
 * Traces asked for by gt_trace() are cached by their arguments (the same
 * options give the same bytes) until gt_cache_free(); gt_load() gives an
 * uncached one the caller frees with gt_unload().
 */
#ifndef TG_GENTRACE_H
#define TG_GENTRACE_H

#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The generator, or NULL when it is not there. */
static inline const char *gt_gen_path(void)
{
	const char *g = getenv("TG_GEN");
	if (!g || !*g)
		g = "build/tg-gen";
	return access(g, X_OK) == 0 ? g : NULL;
}

#define GT_SKIP_WITHOUT_GEN()                                                                                         \
	do {                                                                                                          \
		if (!gt_gen_path()) {                                                                                 \
			print_message("SKIPPED: the trace generator is absent (make build/tg-gen, or set TG_GEN)\n"); \
			skip();                                                                                       \
		}                                                                                                     \
	} while (0)

/* Ground-truth columns of --summary (docs/generator.md), in file order. */
enum {
	GT_KERNELS = 0,
	GT_MEMCPYS,
	GT_GEMM_US,
	GT_SDPA_FWD_US,
	GT_SDPA_BWD_US,
	GT_COMM_US,
	GT_MEMCPY_US,
	GT_KERNEL_US,
	GT_BUSY_US,
	GT_NCOLS
};

/* A generated trace: the trace, its tree, and the ground truth of the whole
 * trace (the "all" row) and the number of steps (rows before it). */
typedef struct gt_side {
	tg_trace *trace;
	tg_tree *tree;
	double truth[GT_NCOLS];
	int steps;
} gt_side;

/* The per-process temporary folder (created on first use, removed by
 * gt_cache_free). */
static char gt_dir[64];

static inline const char *gt_tmpdir(void)
{
	if (!gt_dir[0]) {
		snprintf(gt_dir, sizeof(gt_dir), "/tmp/tg-gentrace.XXXXXX");
		if (!mkdtemp(gt_dir))
			fail_msg("mkdtemp: %s", strerror(errno));
	}
	return gt_dir;
}

/* Splits args at spaces (single quotes group) into argv[1..]; returns argc.
 * buf receives the words. */
static inline int gt_split(char **argv, int max, char *buf, const char *args)
{
	int n = 0;
	const char *p = args;
	char *o = buf;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (n >= max)
			fail_msg("too many generator arguments: %s", args);
		argv[n++] = o;
		while (*p && *p != ' ') {
			if (*p == '\'') {
				for (p++; *p && *p != '\''; p++)
					*o++ = *p;
				if (*p)
					p++;
			} else {
				*o++ = *p++;
			}
		}
		*o++ = 0;
	}
	return n;
}

/* Runs the generator with args into a file of the temporary folder, reads
 * the trace, builds its tree and parses the ground truth. Fails the test on
 * any error. */
static inline void gt_load(gt_side *s, const char *args)
{
	static unsigned counter;
	const char *gen = gt_gen_path();
	if (!gen)
		fail_msg("the trace generator is absent");
	memset(s, 0, sizeof(*s));
	char out[128], sum[128];
	snprintf(out, sizeof(out), "%s/t%u-%d.json", gt_tmpdir(), counter, (int)getpid());
	snprintf(sum, sizeof(sum), "%s/t%u-%d.sum", gt_tmpdir(), counter, (int)getpid());
	counter++;
	char *buf = malloc(strlen(args) + 1);
	char *argv[64];
	assert_non_null(buf);
	int n = gt_split(argv + 1, 58, buf, args);
	argv[0] = (char *)gen;
	argv[n + 1] = "--summary";
	argv[n + 2] = "-o";
	argv[n + 3] = out;
	argv[n + 4] = NULL;
	pid_t pid = fork();
	if (pid < 0)
		fail_msg("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(sum, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execv(gen, argv);
		_exit(127);
	}
	free(buf);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		size_t len;
		char *err = tg_test_slurp(sum, &len);
		fail_msg("%s %s: exit %d: %.300s", gen, args, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		         err ? err : "");
	}
	if (tg_trace_read_file(&s->trace, out, NULL))
		fail_msg("reading the trace of '%s': %s", args, tg_error_last());
	assert_int_equal(tg_tree_build(&s->tree, s->trace), 0);
	/* the ground truth: a header, one row per step, then "all" */
	FILE *f = fopen(sum, "r");
	assert_non_null(f);
	char line[1024];
	int all = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "step,", 5))
			continue;
		if (strncmp(line, "all,", 4)) {
			s->steps++;
			continue;
		}
		char *p = line + 4;
		for (int c = 0; c < GT_NCOLS; c++) {
			s->truth[c] = strtod(p, &p);
			if (*p == ',')
				p++;
		}
		all = 1;
	}
	fclose(f);
	if (!all)
		fail_msg("no ground truth for '%s'", args);
	unlink(out);
	unlink(sum);
}

static inline void gt_unload(gt_side *s)
{
	tg_tree_free(s->tree);
	tg_trace_free(s->trace);
	memset(s, 0, sizeof(*s));
}

/* The cache of gt_trace(). */
struct gt_cached {
	char *args;
	gt_side side;
};
static struct gt_cached gt_cache[64];
static size_t gt_ncache;

/* The trace generated with args, cached (borrowed until gt_cache_free). */
static inline const gt_side *gt_trace(const char *args)
{
	for (size_t i = 0; i < gt_ncache; i++)
		if (!strcmp(gt_cache[i].args, args))
			return &gt_cache[i].side;
	if (gt_ncache == sizeof(gt_cache) / sizeof(gt_cache[0]))
		fail_msg("gentrace: cache full");
	struct gt_cached *c = &gt_cache[gt_ncache];
	gt_load(&c->side, args);
	c->args = strdup(args);
	gt_ncache++;
	return &c->side;
}

static inline void gt_cache_free(void)
{
	for (size_t i = 0; i < gt_ncache; i++) {
		gt_unload(&gt_cache[i].side);
		free(gt_cache[i].args);
	}
	gt_ncache = 0;
	if (gt_dir[0])
		rmdir(gt_dir);
	gt_dir[0] = 0;
}

/* A cmocka group teardown that frees the cached traces. */
static inline int gt_teardown(void **state)
{
	(void)state;
	gt_cache_free();
	return 0;
}

/* The ground truth per step of column c. */
static inline double gt_per_step(const gt_side *s, int c)
{
	return s->truth[c] / (s->steps ? s->steps : 1);
}

/* The row of t whose string column col is key, or -1. */
static inline long gt_row(const tg_table *t, const char *col, const char *key)
{
	int c = tg_table_find_column(t, col);
	if (c < 0)
		fail_msg("%s: no column %s", tg_table_name(t), col);
	for (size_t r = 0; r < tg_table_nrows(t); r++) {
		const tg_cell *x = tg_table_cell(t, r, (size_t)c);
		if (x->type == TG_CELL_STR && !strcmp(x->v.s, key))
			return (long)r;
	}
	return -1;
}

/* The string in column col of row r ("" when empty). */
static inline const char *gt_str(const tg_table *t, size_t r, const char *col)
{
	const tg_cell *x = tg_test_cell(t, r, col);
	return x->type == TG_CELL_STR ? x->v.s : "";
}

/* |a - b| <= tol, with both values in the failure message. */
#define GT_NEAR(a, b, tol)                                                                                            \
	do {                                                                                                          \
		double gt_a_ = (a), gt_b_ = (b);                                                                      \
		if (!(fabs(gt_a_ - gt_b_) <= (tol)))                                                                  \
			fail_msg("%s = %.9g, expected %.9g (tolerance %g)", #a, gt_a_, gt_b_, (double)(tol));        \
	} while (0)

#endif
