/* cli.c - helpers shared by the subcommands. */
#include "cli.h"
#include "../util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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

const char tg_cli_limits_help[] =
	"Reading limits (a trace beyond one is rejected with a clear error):\n"
	"  --max-bytes SIZE   most bytes of JSON, after inflating (default 64G)\n"
	"  --max-ratio N      most inflate ratio of a gzip file past 32M (default 200)\n"
	"  --max-depth N      most JSON nesting (default 64, at least 4)\n"
	"  --max-events N     most events (default 2147483648)\n"
	"  --max-string SIZE  longest string (default 16M)\n"
	"  --single-thread    inflate on the parsing thread\n";

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

int tg_cli_limit_option(tg_read_opts *opts, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (!strcmp(a, "--single-thread")) {
		opts->source.single_thread = 1;
		return 1;
	}
	static const char *const names[] = {"--max-bytes", "--max-ratio", "--max-depth",
	                                    "--max-events", "--max-string"};
	int which = -1;
	for (int k = 0; k < 5; k++)
		if (!strcmp(a, names[k]))
			which = k;
	if (which < 0)
		return 0;
	uint64_t v;
	if (*i + 1 >= argc || parse_size(argv[*i + 1], &v) || v == 0) {
		tg_cli_error("%s needs a positive number", a);
		return -1;
	}
	(*i)++;
	switch (which) {
	case 0: opts->source.max_bytes = v; break;
	case 1: opts->source.max_ratio = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; break;
	case 2: opts->max_depth = v > 1000 ? 1000 : (uint32_t)v; break;
	case 3: opts->max_events = v; break;
	case 4: opts->max_string = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; break;
	}
	return 1;
}

int tg_cli_load(tg_trace **trace, tg_tree **tree, const char *path, const tg_read_opts *opts)
{
	*trace = NULL;
	*tree = NULL;
	if (tg_trace_read_file(trace, path, opts)) {
		tg_cli_error("%s", tg_error_last());
		return -1;
	}
	if (tg_tree_build(tree, *trace)) {
		tg_cli_error("%s: %s", path, tg_error_last());
		tg_trace_free(*trace);
		*trace = NULL;
		return -1;
	}
	tg_trace_drop_flows(*trace); /* linked now: nothing reads them again */
	return 0;
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
