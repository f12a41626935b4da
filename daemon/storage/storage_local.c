/*
 * storage_local.c - artifact storage in a local directory (storage.h).
 *
 * Listing walks the five folder levels of the contract; every folder it
 * walks is (re)added to one inotify instance, so a new run folder or a new
 * manifest wakes tg_storage_wait up. inotify_add_watch on a folder already
 * watched returns its existing watch, so the walk doubles as the watch
 * list's maintenance, and a folder created between two walks is caught by
 * the event on its parent. When inotify is unavailable (no watches left,
 * a filesystem without it) the daemon still rescans at its poll period.
 *
 * Whoever uploads is untrusted. No symbolic link is ever followed: the
 * listing opens each folder from its parent with O_NOFOLLOW, and a file is
 * reached the same way, folder by folder, then opened with O_NOFOLLOW |
 * O_NONBLOCK and checked with fstat (regular files only: a FIFO named
 * manifest.json would block the daemon, a link would lead outside the
 * root or into another repository's folder), with one link only (a hard
 * link to another repository's trace is the same attack as a symbolic
 * one). What was checked is what is read: the file descriptor goes to the
 * reader, not the path.
 */
#include "../../util/tg.h"
#include "storage_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WATCH_MASK (IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR)
#define FILE_WATCH_MASK (IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)

typedef struct local {
	tg_storage base;
	char *root; /* resolved */
	int ino;    /* inotify fd, -1 when unavailable */
	int watch_failed;
} local;

/* Opens root/key without following any symbolic link (each folder with
 * O_NOFOLLOW from the one above, the file with O_NOFOLLOW | O_NONBLOCK, so
 * that a FIFO does not block the open), and checks with fstat that it is a
 * regular file with one link (a hard link is another name for a file
 * that may belong to another repository): *fd (blocking again) and *st.
 * TG_ENOTFOUND when absent, TG_EINVAL for a symbolic link, a file with
 * more than one link or anything but a regular file, TG_EIO. */
static int open_key(local *l, const char *key, int *fd, struct stat *st)
{
	*fd = -1;
	int dfd = open(l->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return tg_error_set(TG_EIO, "%s: %s", l->base.describe, strerror(errno));
	char seg[PATH_MAX];
	const char *p = key;
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n >= sizeof(seg)) {
			close(dfd);
			return tg_error_set(TG_EINVAL, "%s: %s: name too long", l->base.describe, key);
		}
		memcpy(seg, p, n);
		seg[n] = 0;
		int flags = slash ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
		                  : O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
		int nfd = openat(dfd, seg, flags);
		int e = errno;
		if (nfd < 0) {
			struct stat ls;
			int is_link = fstatat(dfd, seg, &ls, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(ls.st_mode);
			close(dfd);
			if (is_link && !slash)
				return tg_error_set(TG_EINVAL, "%s: %s is a symbolic link (storage links are never followed)",
				                    l->base.describe, key);
			if (is_link)
				return tg_error_set(TG_EINVAL, "%s: %s: folder %s is a symbolic link (storage links are never followed)",
				                    l->base.describe, key, seg);
			if (e == ENOENT)
				return tg_error_set(TG_ENOTFOUND, "%s: %s: no such file", l->base.describe, key);
			if (e == ENOTDIR)
				return tg_error_set(TG_EINVAL, "%s: %s: %s is not a folder", l->base.describe, key, seg);
			return tg_error_set(TG_EIO, "%s: %s: %s", l->base.describe, key, strerror(e));
		}
		close(dfd);
		dfd = nfd;
		if (!slash)
			break;
		p = slash + 1;
	}
	if (fstat(dfd, st)) {
		int e = errno;
		close(dfd);
		return tg_error_set(TG_EIO, "%s: %s: %s", l->base.describe, key, strerror(e));
	}
	if (!S_ISREG(st->st_mode)) {
		const char *what = S_ISDIR(st->st_mode)    ? "a folder"
		                   : S_ISFIFO(st->st_mode) ? "a FIFO"
		                   : S_ISSOCK(st->st_mode) ? "a socket"
		                   : S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device"
		                                                                  : "a special file";
		close(dfd);
		return tg_error_set(TG_EINVAL, "%s: %s: %s, not a regular file", l->base.describe, key, what);
	}
	if (st->st_nlink > 1) {
		/* another name for the same file, which may be another
		 * repository's trace: refused like a symbolic link */
		nlink_t links = st->st_nlink;
		close(dfd);
		return tg_error_set(TG_EINVAL, "%s: %s has %lu hard links (storage links are never followed)",
		                    l->base.describe, key, (unsigned long)links);
	}
	int fl = fcntl(dfd, F_GETFL);
	if (fl < 0 || fcntl(dfd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int e = errno;
		close(dfd);
		return tg_error_set(TG_EIO, "%s: %s: %s", l->base.describe, key, strerror(e));
	}
	*fd = dfd;
	return 0;
}

static int push(tg_storage_obj **out, size_t *n, size_t *cap, const char *key, const struct stat *st)
{
	if (tg_grow((void **)out, cap, *n + 1, sizeof(tg_storage_obj)))
		return TG_ENOMEM;
	tg_storage_obj *o = &(*out)[*n];
	memset(o, 0, sizeof(*o));
	o->key = strdup(key);
	if (asprintf(&o->etag, "%lld.%09ld-%lld", (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
	             (long long)st->st_size) < 0)
		o->etag = NULL;
	if (!o->key || !o->etag) {
		free(o->key);
		free(o->etag);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	o->size = (uint64_t)st->st_size;
	o->mtime = (int64_t)st->st_mtim.tv_sec;
	(*n)++;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds (or refreshes) a watch on dir. */
static void watch(local *l, const char *dir, uint32_t mask)
{
	if (l->ino >= 0 && !l->watch_failed && inotify_add_watch(l->ino, dir, mask) < 0 &&
	    (errno == ENOSPC || errno == ENOMEM))
		l->watch_failed = 1; /* out of watches: rescans only */
}

/* Walks the folder dfd (its path dir, for the watches; key prefix rel;
 * depth 0 = root) down to the run folders. Folders are opened from their
 * parent with O_NOFOLLOW: a symbolic link is never walked into (it could
 * lead outside the root). dfd is closed. */
static int walk(local *l, int dfd, const char *dir, const char *rel, int depth, tg_storage_obj **out, size_t *n,
                size_t *cap)
{
	if (depth < 5)
		watch(l, dir, WATCH_MASK | IN_DONT_FOLLOW);
	if (depth == 5) {
		struct stat st;
		/* any entry but a folder is listed: reading it says what is wrong
		 * with it (a link or a FIFO is refused there, with a message) */
		if (fstatat(dfd, "manifest.json", &st, AT_SYMLINK_NOFOLLOW) || S_ISDIR(st.st_mode)) {
			close(dfd);
			/* a run still uploading: watch it for its manifest */
			watch(l, dir, FILE_WATCH_MASK | IN_DONT_FOLLOW);
			return 0;
		}
		close(dfd);
		/* a complete run needs no watch (one may remain from before) */
		if (l->ino >= 0) {
			int wd = inotify_add_watch(l->ino, dir, FILE_WATCH_MASK | IN_DONT_FOLLOW);
			if (wd >= 0)
				inotify_rm_watch(l->ino, wd);
		}
		char key[PATH_MAX];
		snprintf(key, sizeof(key), "%s/manifest.json", rel);
		return tg_storage_is_manifest_key(key) ? push(out, n, cap, key, &st) : 0;
	}
	DIR *d = fdopendir(dfd);
	if (!d) {
		int e = errno;
		close(dfd);
		return depth == 0 ? tg_error_set(TG_EIO, "%s: cannot list: %s", l->base.describe, strerror(e)) : 0;
	}
	char **names = NULL;
	size_t nn = 0, nc = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue; /* ".", "..", and hidden folders (uploads in progress) */
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue; /* files, and symbolic links (never followed) */
		if (tg_grow((void **)&names, &nc, nn + 1, sizeof(char *)) || !(names[nn] = strdup(e->d_name))) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			break;
		}
		nn++;
	}
	if (nn > 1)
		qsort(names, nn, sizeof(char *), cmp_name);
	for (size_t i = 0; i < nn && !rc; i++) {
		char sub[PATH_MAX], subrel[PATH_MAX];
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]) >= sizeof(sub) ||
		    (size_t)snprintf(subrel, sizeof(subrel), "%s%s%s", rel, *rel ? "/" : "", names[i]) >= sizeof(subrel))
			continue;
		int sfd = openat(dirfd(d), names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd < 0)
			continue; /* a link, a file, or gone since */
		rc = walk(l, sfd, sub, subrel, depth + 1, out, n, cap);
	}
	closedir(d);
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int local_list(tg_storage *s, tg_storage_obj **out, size_t *n)
{
	local *l = (local *)s;
	size_t cap = 0;
	int dfd = open(l->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return tg_error_set(TG_EIO, "%s: cannot list: %s", l->base.describe, strerror(errno));
	int rc = walk(l, dfd, l->root, "", 0, out, n, &cap);
	if (rc) {
		tg_storage_objs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

static int local_read(tg_storage *s, const char *key, char **data, size_t *len, uint64_t max)
{
	local *l = (local *)s;
	int fd, rc;
	struct stat st;
	if ((rc = open_key(l, key, &fd, &st)))
		return rc;
	if (max && (uint64_t)st.st_size > max) {
		close(fd);
		return tg_error_set(TG_ELIMIT, "%s: %s: %lld bytes, more than the limit of %llu", s->describe, key,
		                    (long long)st.st_size, (unsigned long long)max);
	}
	size_t cap = (size_t)st.st_size + 1, got = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	for (;;) {
		if (got + 1 >= cap) {
			if (max && got >= max) {
				free(buf);
				close(fd);
				return tg_error_set(TG_ELIMIT, "%s: %s: more than the limit of %llu bytes", s->describe, key,
				                    (unsigned long long)max);
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				close(fd);
				return tg_error_set(TG_ENOMEM, "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + got, cap - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = tg_error_set(TG_EIO, "%s: %s: %s", s->describe, key, strerror(errno));
			free(buf);
			close(fd);
			return rc;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = 0;
	*data = buf;
	*len = got;
	return 0;
}

static int local_fetch(tg_storage *s, const char *key, const char *tmpdir, uint64_t max, int *fd)
{
	(void)tmpdir;
	(void)max; /* the trace reader enforces the decompressed limit */
	struct stat st;
	return open_key((local *)s, key, fd, &st);
}

static int local_wait(tg_storage *s, long timeout_ms)
{
	local *l = (local *)s;
	if (l->ino < 0) {
		struct timespec ts = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
		return 0;
	}
	/* until a real change or the timeout: each listing removes the watch it
	 * adds on a complete run's folder, and the IN_IGNORED events that leaves
	 * wake poll up without being a change; returning then would make an idle
	 * daemon rescan the storage at once, about 20 times a second */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long left = timeout_ms;
	for (;;) {
		struct pollfd pf = {l->ino, POLLIN, 0};
		int r = poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r < 0)
			return errno == EINTR ? 0 : tg_error_set(TG_EIO, "%s: poll: %s", s->describe, strerror(errno));
		if (r == 0)
			return 0;
		/* drain what came, and what comes within 50 ms (a burst of uploads);
		 * IN_IGNORED (a watch removed by the walk) is not a change */
		char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
		int changed = 0;
		do {
			ssize_t got;
			while ((got = read(l->ino, buf, sizeof(buf))) > 0)
				for (char *p = buf; p < buf + got;) {
					const struct inotify_event *e = (const struct inotify_event *)p;
					if (!(e->mask & IN_IGNORED))
						changed = 1;
					p += sizeof(*e) + e->len;
				}
		} while (poll(&pf, 1, 50) > 0);
		if (changed)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout_ms - (long)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return 0;
	}
}

static void local_free(tg_storage *s)
{
	local *l = (local *)s;
	if (l->ino >= 0)
		close(l->ino);
	free(l->root);
	free(l);
}

static const tg_storage_ops local_ops = {"local", local_list, local_read, local_fetch, local_wait, local_free};

int tg_storage_local_new(tg_storage **out, const char *root)
{
	*out = NULL;
	char *real = realpath(root, NULL);
	if (!real)
		return tg_error_set(TG_EIO, "%s: storage folder: %s", root, strerror(errno));
	struct stat st;
	if (stat(real, &st) || !S_ISDIR(st.st_mode)) {
		free(real);
		return tg_error_set(TG_EIO, "%s: storage folder: not a directory", root);
	}
	local *l = tg_calloc(1, sizeof(*l));
	if (!l) {
		free(real);
		return TG_ENOMEM;
	}
	l->base.ops = &local_ops;
	snprintf(l->base.describe, sizeof(l->base.describe), "%s", real);
	l->root = real;
	l->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	*out = &l->base;
	return 0;
}
