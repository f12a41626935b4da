/*
 * testutil.h - shared helpers of the cmocka tests.
 *
 * Tests run from the repository root (tests/run.sh does that). Real traces
 * are read from $TG_SHARED/traces (default ../shared/traces); a suite that
 * needs them calls TG_SKIP_WITHOUT_SHARED() and is skipped, saying so, when
 * the folder is absent.
 */
#ifndef TG_TESTUTIL_H
#define TG_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../core/trace/trace.h"
#include "../core/analysis/table.h"
#include "../core/tree/tree.h"

#include <math.h>

/* Directory of the shared traces, or NULL when absent. */
static inline const char *tg_test_shared_traces(void)
{
	static char path[4096];
	const char *base = getenv("TG_SHARED");
	snprintf(path, sizeof(path), "%s/traces", base && *base ? base : "../shared");
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path : NULL;
}

#define TG_SKIP_WITHOUT_SHARED()                                                               \
	do {                                                                                       \
		if (!tg_test_shared_traces()) {                                                        \
			print_message("SKIPPED: ../shared/traces is absent (set TG_SHARED)\n");            \
			skip();                                                                            \
		}                                                                                      \
	} while (0)

/* Fails the test with tg_error_last() unless rc is 0. */
static inline void tg_test_must(int rc)
{
	if (rc)
		fail_msg("%s", tg_error_last());
}

/* Reads the shared trace rel (a path under the shared traces folder) into
 * *t and returns its tree; fails the test on error. The caller frees both
 * (tg_tree_free, tg_trace_free). */
static inline tg_tree *tg_test_load_shared(tg_trace **t, const char *rel)
{
	char path[8192];
	snprintf(path, sizeof(path), "%.4000s/%s", tg_test_shared_traces(), rel);
	if (tg_trace_read_file(t, path, NULL))
		fail_msg("%s: %s", path, tg_error_last());
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, *t), 0);
	return tree;
}

/* Reads a JSON text given as a C string; fails the test on error. */
static inline tg_trace *tg_test_read_str(const char *json)
{
	tg_trace *t = NULL;
	int rc = tg_trace_read_mem(&t, json, strlen(json), "test.json", NULL);
	if (rc)
		fail_msg("read failed: %s", tg_error_last());
	return t;
}

/* Reads and expects failure; returns the error code, message in tg_error_last(). */
static inline int tg_test_read_fails(const char *json, size_t len, const tg_read_opts *opts)
{
	tg_trace *t = NULL;
	int rc = tg_trace_read_mem(&t, json, len, "bad.json", opts);
	if (!rc) {
		tg_trace_free(t);
		fail_msg("read of a bad input succeeded");
	}
	assert_null(t);
	return rc;
}

/* Index of the first event named name (and of kind, unless kind < 0). */
static inline uint32_t tg_test_find(const tg_trace *t, const char *name, int kind)
{
	size_t n;
	const tg_event *ev = tg_trace_events(t, &n);
	for (size_t i = 0; i < n; i++)
		if ((kind < 0 || ev[i].kind == kind) && strcmp(tg_trace_str(t, ev[i].name), name) == 0)
			return (uint32_t)i;
	fail_msg("no event named %s", name);
	return TG_NONE;
}

/* The table named name among t[0..n), failing the test when absent. */
static inline const tg_table *tg_test_table(tg_table **t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tg_table_name(t[i]), name))
			return t[i];
	fail_msg("no table %s", name);
	return NULL;
}

/* The cell of row in the column named col, failing the test when absent. */
static inline const tg_cell *tg_test_cell(const tg_table *t, size_t row, const char *col)
{
	int c = tg_table_find_column(t, col);
	if (c < 0)
		fail_msg("%s: no column %s", tg_table_name(t), col);
	assert_true(row < tg_table_nrows(t));
	return tg_table_cell(t, row, (size_t)c);
}

/* A number cell as a double (NAN when empty). */
static inline double tg_test_num(const tg_table *t, size_t row, const char *col)
{
	const tg_cell *c = tg_test_cell(t, row, col);
	if (c->type == TG_CELL_EMPTY)
		return NAN;
	if (c->type == TG_CELL_INT)
		return (double)c->v.i;
	assert_int_equal(c->type, TG_CELL_NUM);
	return c->v.d;
}

/* Whole file into memory (caller frees); NULL on error. */
static inline char *tg_test_slurp(const char *path, size_t *len)
{
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		*len = (size_t)n;
	}
	return buf;
}

/* a equals b within the absolute tolerance tol (both converted to double). */
#define NEAR(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* ------------------------------------------------------------ CSV reader */

/* A CSV file read whole: rows[r][c] point into buf; row 0 is the header and
 * ncols its width. Freed with csv_free. */
struct csv {
	char *buf;
	char ***rows; /* rows[r][c] */
	size_t nrows, ncols;
};

static inline void csv_free(struct csv *c)
{
	for (size_t r = 0; r < c->nrows; r++)
		free(c->rows[r]);
	free(c->rows);
	free(c->buf);
}

/* Reads path (RFC 4180: quoted fields, doubled quotes, newlines inside
 * quotes) into *c; 0, or -1 when the file cannot be read. */
static inline int csv_read(struct csv *c, const char *path)
{
	size_t len;
	memset(c, 0, sizeof(*c));
	c->buf = tg_test_slurp(path, &len);
	if (!c->buf)
		return -1;
	char *p = c->buf, *end = c->buf + len;
	size_t cap = 0;
	while (p < end) {
		char **row = NULL;
		size_t n = 0, rcap = 0;
		for (;;) {
			char *field = p, *o = p;
			if (*p == '"') {
				p++;
				for (;;) {
					if (p >= end)
						break;
					if (*p == '"') {
						if (p + 1 < end && p[1] == '"') {
							*o++ = '"';
							p += 2;
							continue;
						}
						p++;
						break;
					}
					*o++ = *p++;
				}
			} else {
				while (p < end && *p != ',' && *p != '\n' && *p != '\r')
					*o++ = *p++;
			}
			char sep = p < end ? *p : '\n';
			/* step over the separator before terminating the field in place */
			if (sep == ',')
				p++;
			else {
				if (p < end && *p == '\r')
					p++;
				if (p < end && *p == '\n')
					p++;
			}
			*o = 0;
			if (n == rcap)
				row = realloc(row, (rcap = rcap ? rcap * 2 : 16) * sizeof(char *));
			row[n++] = field;
			if (sep == ',')
				continue;
			break;
		}
		if (c->nrows == cap)
			c->rows = realloc(c->rows, (cap = cap ? cap * 2 : 64) * sizeof(char **));
		c->rows[c->nrows++] = row;
		if (c->nrows == 1)
			c->ncols = n;
	}
	return 0;
}

/* Every .json and .json.gz file under the shared traces folder, sorted
 * (some are configs or results, not traces: a caller skips what does not
 * read). *n of them; the caller frees each path and the array with
 * tg_test_paths_free. NULL with *n 0 when the folder is absent. */
static struct {
	char **paths;
	size_t n, cap;
} tg_test_walk; /* nftw has no user pointer */

static inline int tg_test_walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t len = strlen(path);
	if (type != FTW_F)
		return 0;
	if ((len > 5 && !strcmp(path + len - 5, ".json")) || (len > 8 && !strcmp(path + len - 8, ".json.gz"))) {
		if (tg_test_walk.n == tg_test_walk.cap) {
			tg_test_walk.cap = tg_test_walk.cap ? tg_test_walk.cap * 2 : 64;
			tg_test_walk.paths = realloc(tg_test_walk.paths, tg_test_walk.cap * sizeof(char *));
			assert_non_null(tg_test_walk.paths);
		}
		tg_test_walk.paths[tg_test_walk.n++] = strdup(path);
	}
	return 0;
}

static inline int tg_test_cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline char **tg_test_shared_trace_files(size_t *n)
{
	memset(&tg_test_walk, 0, sizeof(tg_test_walk));
	*n = 0;
	if (!tg_test_shared_traces())
		return NULL;
	assert_int_equal(nftw(tg_test_shared_traces(), tg_test_walk_one, 16, FTW_PHYS), 0);
	if (tg_test_walk.n > 1)
		qsort(tg_test_walk.paths, tg_test_walk.n, sizeof(char *), tg_test_cmp_path);
	*n = tg_test_walk.n;
	return tg_test_walk.paths;
}

static inline void tg_test_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

static inline int tg_test_rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* Removes path and everything under it (a test's temporary folder);
 * symbolic links are removed, not followed. */
static inline void tg_test_rm_tree(const char *path)
{
	nftw(path, tg_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
