/*
 * util.c - the daemon's shared helpers (util.h): atomic writes, mkdir -p,
 * path segments, hex. libc only, so that any room may use it without pulling another in.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tg_util_write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

FILE *tg_util_atomic_open(char *tmp, size_t cap, const char *path, mode_t mode)
{
	if ((size_t)snprintf(tmp, cap, "%s.tmp-XXXXXX", path) >= cap) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	int fd = mkstemp(tmp);
	if (fd < 0)
		return NULL;
	FILE *f = fchmod(fd, mode) ? NULL : fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
	}
	return f;
}

int tg_util_atomic_close(FILE *f, const char *tmp, const char *path, int keep)
{
	int bad = keep && (fflush(f) || ferror(f) || fsync(fileno(f)));
	int e = bad ? errno : 0;
	if (fclose(f) && keep && !e)
		e = errno ? errno : EIO;
	if (keep && !e && rename(tmp, path))
		e = errno;
	if (e || !keep)
		unlink(tmp);
	errno = e;
	return e ? -1 : 0;
}

int tg_util_write_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
	size_t cap = strlen(path) + sizeof(".tmp-XXXXXX");
	char *tmp = malloc(cap);
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	FILE *f = tg_util_atomic_open(tmp, cap, path, mode);
	int rc = -1;
	if (f) {
		/* on the descriptor, the FILE's buffer still empty: again after
		 * EINTR and short writes */
		int bad = tg_util_write_all(fileno(f), data, len);
		int e = errno;
		rc = tg_util_atomic_close(f, tmp, path, !bad);
		if (bad) {
			errno = e;
			rc = -1;
		}
	}
	int e = errno;
	free(tmp);
	errno = e;
	return rc;
}

mode_t tg_util_umask_mode(void)
{
	mode_t mask = umask(0077);
	umask(mask);
	return 0666 & ~mask;
}

static int failed_at(char *failed, size_t cap, const char *dir)
{
	int e = errno;
	if (failed && cap)
		snprintf(failed, cap, "%s", dir);
	errno = e;
	return -1;
}

int tg_util_mkdir_p(char *failed, size_t cap, const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	if (strlen(path) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return failed_at(failed, cap, path);
	}
	strcpy(buf, path);
	for (char *p = buf[0] ? buf + 1 : buf; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, mode) && errno != EEXIST)
			return failed_at(failed, cap, buf);
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return failed_at(failed, cap, buf);
	return 0;
}

int tg_util_is_hex(const char *s, size_t n)
{
	size_t i = 0;
	for (; s && s[i]; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return s && i == n;
}

const char *tg_util_path_segments(char (*seg)[TG_UTIL_SEGMENT_MAX + 1], size_t n, const char *path)
{
	const char *p = path;
	for (size_t i = 0; i < n; i++) {
		const char *slash = strchr(p, '/');
		if (!slash || (size_t)(slash - p) > TG_UTIL_SEGMENT_MAX) {
			errno = EINVAL;
			return NULL;
		}
		memcpy(seg[i], p, (size_t)(slash - p));
		seg[i][slash - p] = 0;
		p = slash + 1;
	}
	return p;
}
