/*
 * augment_sink.c - the augmented trace's output file (augment_impl.h):
 * written whole or not at all. A temporary file beside the target
 * ("<path>.tmp-<pid>-<n>", created with O_EXCL and mode 0666 so that the
 * umask applies as to any file the user writes), synced and renamed over
 * it at the end, removed on failure; a target that exists and is not a
 * regular file (/dev/null, a FIFO) is written as it is. gzip through zlib's
 * gz* functions when the name ends in ".gz" (the reader detects gzip by its
 * magic bytes, so either reads back).
 */
#include "augment_impl.h"
#include "../../util/tg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define PLAIN_BUF (1u << 20)

struct tg_sink {
	char *path, *tmp; /* tmp NULL: writing path itself */
	int fd;
	gzFile gz;
	char *buf; /* plain: bytes waiting for write() */
	size_t nbuf;
	uint64_t bytes;
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Opens the temporary file beside path into s->tmp and s->fd. */
static int open_tmp(tg_sink *s)
{
	static unsigned counter;
	for (int tries = 0; tries < 100; tries++) {
		free(s->tmp);
		if (asprintf(&s->tmp, "%s.tmp-%ld-%u", s->path, (long)getpid(), counter++) < 0) {
			s->tmp = NULL;
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
		s->fd = open(s->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (s->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	free(s->tmp);
	s->tmp = NULL;
	return tg_error_set(TG_EIO, "%s: cannot create: %s", s->path, strerror(e));
}

int tg_sink_open(tg_sink **out, const char *out_path, int level)
{
	*out = NULL;
	tg_sink *s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(out_path))) {
		free(s);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	s->fd = -1;
	struct stat st;
	int rc = 0;
	if (stat(out_path, &st) == 0 && !S_ISREG(st.st_mode)) {
		s->fd = open(out_path, O_WRONLY | O_CLOEXEC);
		if (s->fd < 0)
			rc = tg_error_set(TG_EIO, "%s: cannot open: %s", out_path, strerror(errno));
	} else {
		rc = open_tmp(s);
	}
	if (!rc && ends_with(out_path, ".gz")) {
		char mode[8];
		snprintf(mode, sizeof(mode), "wb%d", level >= 1 && level <= 9 ? level : 6);
		int gzfd = dup(s->fd); /* gzclose closes it; s->fd stays for fsync */
		s->gz = gzfd < 0 ? NULL : gzdopen(gzfd, mode);
		if (!s->gz) {
			if (gzfd >= 0)
				close(gzfd);
			rc = tg_error_set(TG_EIO, "%s: cannot start gzip: %s", out_path, strerror(errno));
		}
	} else if (!rc && !(s->buf = malloc(PLAIN_BUF))) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	}
	if (rc) {
		tg_sink_close(s, 0);
		return rc;
	}
	*out = s;
	return 0;
}

static int plain_flush(tg_sink *s)
{
	if (s->nbuf && write_all(s->fd, s->buf, s->nbuf))
		return tg_error_set(TG_EIO, "%s: cannot write: %s", s->path, strerror(errno));
	s->nbuf = 0;
	return 0;
}

int tg_sink_write(tg_sink *s, const void *data, size_t len)
{
	s->bytes += len;
	if (s->gz) {
		const char *p = data;
		while (len) {
			unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;
			if (gzwrite(s->gz, p, chunk) != (int)chunk) {
				int zerr;
				const char *msg = gzerror(s->gz, &zerr);
				return tg_error_set(TG_EIO, "%s: cannot write: %s", s->path,
				                    zerr == Z_ERRNO ? strerror(errno) : msg);
			}
			p += chunk;
			len -= chunk;
		}
		return 0;
	}
	if (s->nbuf + len > PLAIN_BUF && plain_flush(s))
		return TG_EIO;
	if (len >= PLAIN_BUF)
		return write_all(s->fd, data, len)
		               ? tg_error_set(TG_EIO, "%s: cannot write: %s", s->path, strerror(errno))
		               : 0;
	memcpy(s->buf + s->nbuf, data, len);
	s->nbuf += len;
	return 0;
}

uint64_t tg_sink_bytes(const tg_sink *s)
{
	return s->bytes;
}

int tg_sink_close(tg_sink *s, int commit)
{
	if (!s)
		return 0;
	int rc = 0;
	if (s->gz) {
		int z = gzclose(s->gz);
		if (commit && z != Z_OK)
			rc = tg_error_set(TG_EIO, "%s: cannot write: %s", s->path,
			                  z == Z_ERRNO ? strerror(errno) : "gzip failed");
	} else if (s->fd >= 0 && commit) {
		rc = plain_flush(s);
	}
	if (s->tmp && s->fd >= 0 && commit && !rc && fsync(s->fd))
		rc = tg_error_set(TG_EIO, "%s: cannot write: %s", s->path, strerror(errno));
	if (s->fd >= 0 && close(s->fd) && commit && !rc)
		rc = tg_error_set(TG_EIO, "%s: cannot write: %s", s->path, strerror(errno));
	if (s->tmp) {
		if (commit && !rc && rename(s->tmp, s->path))
			rc = tg_error_set(TG_EIO, "%s: cannot write: %s", s->path, strerror(errno));
		if (!commit || rc)
			unlink(s->tmp);
	}
	free(s->tmp);
	free(s->path);
	free(s->buf);
	free(s);
	return rc;
}
