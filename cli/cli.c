/* cli.c - helpers shared by the subcommands. */
#include "cli.h"
#include "../util/affinity.h"
#include "../util/util.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tg_cli_error(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one line, whatever a file name or a trace string holds */
	fputs("tracegate: ", stderr);
	tg_cli_put_name(stderr, msg);
	fputc('\n', stderr);
}

/* A SIZE: digits and an optional K, M or G (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno || *s == '-')
		return -1;
	uint64_t mul = 1;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	default: return -1;
	}
	if (*end || (v && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

/* The reading limits' converters: a positive SIZE, into a uint64_t or a
 * uint32_t (clamped at its largest, or at 1000 levels for the depth). */
static int convert_u64(void *dst, char *value)
{
	uint64_t v;
	if (parse_size(value, &v) || v == 0)
		return -1;
	*(uint64_t *)dst = v;
	return 0;
}

static int convert_u32(void *dst, char *value)
{
	uint64_t v;
	if (convert_u64(&v, value))
		return -1;
	*(uint32_t *)dst = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	return 0;
}

static int convert_depth(void *dst, char *value)
{
	uint64_t v;
	if (convert_u64(&v, value))
		return -1;
	*(uint32_t *)dst = v > 1000 ? 1000 : (uint32_t)v;
	return 0;
}

#define EXPECT_SIZE "a positive size (N, NK, NM or NG)"
#define EXPECT_POSITIVE "a positive number"

const tg_opt_spec tg_cli_limit_opts[] = {
	{TG_OPT_SECTION, .name = "Reading limits (a trace beyond one is rejected with a clear error)"},
	{TG_OPT_VALUE, "max-bytes", 0, "SIZE", offsetof(tg_read_opts, source.max_bytes), convert_u64, EXPECT_SIZE, 0,
	 "most bytes of JSON, after inflating (default 64G)", NULL},
	{TG_OPT_VALUE, "max-ratio", 0, "N", offsetof(tg_read_opts, source.max_ratio), convert_u32, EXPECT_POSITIVE, 0,
	 "most inflate ratio of a gzip file past 32M (default 200)", NULL},
	{TG_OPT_VALUE, "max-depth", 0, "N", offsetof(tg_read_opts, max_depth), convert_depth, EXPECT_POSITIVE, 0,
	 "most JSON nesting (default 64, at least 4)", NULL},
	{TG_OPT_VALUE, "max-events", 0, "N", offsetof(tg_read_opts, max_events), convert_u64, EXPECT_POSITIVE, 0,
	 "most events (default 2147483648)", NULL},
	{TG_OPT_VALUE, "max-string", 0, "SIZE", offsetof(tg_read_opts, max_string), convert_u32, EXPECT_SIZE, 0,
	 "longest string (default 16M)", NULL},
	{TG_OPT_SWITCH, "single-thread", 0, NULL, offsetof(tg_read_opts, source.single_thread), NULL, NULL, 0,
	 "read each trace on one thread", NULL},
	{.kind = TG_OPT_END},
};

/* Reads path and builds its tree; on failure returns -1 with the line
 * tg_cli_load prints in msg (nothing printed). */
static int load_quiet(tg_trace **trace, tg_tree **tree, const char *path, const tg_read_opts *opts, char *msg,
                      size_t cap)
{
	*trace = NULL;
	*tree = NULL;
	/* a parked thread made sure of: it feeds the read, then takes the
	 * tree's second part (core/tree/tree_helper.c); none when each trace
	 * gets one thread (tg_cli_load_many, --single-thread) */
	tg_tree_helper *h = opts && !opts->source.single_thread ? tg_tree_helper_start() : NULL;
	tg_read_opts o = opts ? *opts : (tg_read_opts){0};
	o.launch_flows_only = 1; /* the tree links with no other, and they go after it */
	if (tg_trace_read_file(trace, path, &o)) {
		snprintf(msg, cap, "%s", tg_error_last());
		tg_tree_helper_free(h);
		return -1;
	}
	/* the flows go as soon as the tree has linked with them, the second ids
	 * once it is built: nothing reads them again, and the tree's arrays
	 * peak after */
	if (tg_tree_build_dropping(tree, *trace, h)) {
		snprintf(msg, cap, "%s: %s", path, tg_error_last());
		tg_trace_free(*trace);
		*trace = NULL;
		return -1;
	}
	return 0;
}

int tg_cli_load(tg_trace **trace, tg_tree **tree, const char *path, const tg_read_opts *opts)
{
	char msg[2048];
	if (load_quiet(trace, tree, path, opts, msg, sizeof(msg))) {
		tg_cli_error("%s", msg);
		return -1;
	}
	return 0;
}

/* The traces of tg_cli_load_many, taken in turn by two threads. */
struct many {
	tg_trace **tr;
	tg_tree **trees;
	const char *const *paths;
	size_t n;
	tg_read_opts opts;
	pthread_mutex_t mu;
	size_t next;
	int *rc;
	char (*msg)[2048];
};

static void *load_some(void *arg)
{
	struct many *m = arg;
	for (;;) {
		pthread_mutex_lock(&m->mu);
		size_t i = m->next++;
		pthread_mutex_unlock(&m->mu);
		if (i >= m->n)
			return NULL;
		m->rc[i] = load_quiet(&m->tr[i], &m->trees[i], m->paths[i], &m->opts, m->msg[i], sizeof(m->msg[i]));
	}
}

int tg_cli_load_many(tg_trace **tr, tg_tree **trees, const char *const *paths, size_t n, const tg_read_opts *opts)
{
	if (n < 2) {
		for (size_t i = 0; i < n; i++)
			if (tg_cli_load(&tr[i], &trees[i], paths[i], opts))
				return -1;
		return 0;
	}
	struct many m = {tr, trees, paths, n, *opts, PTHREAD_MUTEX_INITIALIZER, 0, calloc(n, sizeof(int)),
	                 calloc(n, sizeof(*m.msg))};
	if (!m.rc || !m.msg) {
		free(m.rc);
		free(m.msg);
		tg_cli_error("out of memory");
		return -1;
	}
	m.opts.source.single_thread = 1; /* a trace a thread: two traces use the two cores */
	pthread_t th;
	int threaded = tg_affinity_thread_create(&th, load_some, &m) == 0;
	load_some(&m);
	if (threaded)
		pthread_join(th, NULL);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (m.rc[i]) { /* the first failure in order, as one at a time would stop at */
			tg_cli_error("%s", m.msg[i]);
			rc = -1;
		}
	free(m.rc);
	free(m.msg);
	return rc;
}

void tg_cli_put_name(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			putc(*p, f);
			continue;
		}
		switch (*p) {
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default: fprintf(f, "\\x%02x", *p);
		}
	}
}

void tg_cli_put_duration(FILE *f, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	if (ns >= 1000000)
		fprintf(f, "%.3f ms", (double)ns / 1e6);
	else
		fprintf(f, "%.3f us", (double)ns / 1e3);
}

int tg_cli_fchmod_umask(int fd)
{
	return fchmod(fd, tg_util_umask_mode());
}

int tg_cli_write_file(const char *path, const char *data, size_t len)
{
	if (!path) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
			tg_cli_error("cannot write to standard output: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	/* a device or a pipe (-o /dev/null, -o /dev/stdout, a FIFO) is written
	 * to as it is: the temporary file renamed over it would replace it with
	 * a regular file (as root, /dev/null itself) */
	struct stat st;
	if (!stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		int bad = fd < 0 || tg_util_write_all(fd, data, len);
		int e = errno;
		if ((fd >= 0 && close(fd)) || bad) {
			tg_cli_error("%s: cannot write: %s", path, strerror(bad ? e : errno));
			return -1;
		}
		return 0;
	}
	if (tg_util_write_atomic(path, data, len, tg_util_umask_mode())) {
		tg_cli_error("%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int tg_cli_stream_file(const char *path, int (*fn)(FILE *f, void *arg), void *arg)
{
	struct stat st;
	int in_place = path && (stat(path, &st) ? errno == ENOENT : S_ISREG(st.st_mode));
	if (!in_place) {
		char *doc = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&doc, &len);
		if (!f) {
			tg_cli_error("out of memory");
			return -1;
		}
		int rc = fn(f, arg) ? 1 : 0;
		if (fclose(f) && !rc) {
			tg_cli_error("out of memory");
			rc = -1;
		}
		if (!rc && tg_cli_write_file(path, doc, len))
			rc = -1;
		free(doc);
		return rc;
	}
	char tmp[8192];
	FILE *f = tg_util_atomic_open(tmp, sizeof(tmp), path, tg_util_umask_mode());
	if (!f) {
		tg_cli_error("%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	int failed = fn(f, arg);
	if (tg_util_atomic_close(f, tmp, path, !failed) && !failed) {
		tg_cli_error("%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	return failed ? 1 : 0;
}

/* Whether tg_cli_trim_heap trims (tg_cli_heap_trims): on unless a
 * command's policy turned it off. */
static int heap_trims = 1;

void tg_cli_heap_trims(int on)
{
	heap_trims = on;
}

void tg_cli_trim_heap(void)
{
	if (!heap_trims)
		return;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

int tg_cli_trim_heap_over(size_t min_free)
{
	if (!heap_trims)
		return 0;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	struct mallinfo2 mi = mallinfo2();
	if (mi.fordblks < min_free)
		return 0;
#else
	(void)min_free;
#endif
	tg_cli_trim_heap();
	return 1;
}
