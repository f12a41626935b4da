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

int tg_util_write_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
	static const char suffix[] = ".tmp-XXXXXX";
	size_t pl = strlen(path);
	char *tmp = malloc(pl + sizeof(suffix));
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(tmp, path, pl);
	memcpy(tmp + pl, suffix, sizeof(suffix));
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	int bad = fchmod(fd, mode) || tg_util_write_all(fd, data, len) || fsync(fd);
	int e = bad ? errno : 0;
	if (close(fd) && !e)
		e = errno;
	if (!e && rename(tmp, path))
		e = errno;
	if (e)
		unlink(tmp);
	free(tmp);
	errno = e;
	return e ? -1 : 0;
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
