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
 * Every path handed out is resolved (symbolic links followed) and must stay
 * under the resolved root: a link in a run folder cannot make the daemon
 * read outside the storage.
 */
#include "../core/tg.h"
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

/* root/key resolved, or NULL (TG_ENOTFOUND when absent, TG_EINVAL when it
 * leaves the root). */
static char *resolve(local *l, const char *key, int *rc)
{
	char *joined = NULL;
	if (asprintf(&joined, "%s/%s", l->root, key) < 0) {
		*rc = tg_error_set(TG_ENOMEM, "out of memory");
		return NULL;
	}
	char *real = realpath(joined, NULL);
	int e = errno;
	free(joined);
	if (!real) {
		*rc = e == ENOENT || e == ENOTDIR
		          ? tg_error_set(TG_ENOTFOUND, "%s: %s: no such file", l->base.describe, key)
		          : tg_error_set(TG_EIO, "%s: %s: %s", l->base.describe, key, strerror(e));
		return NULL;
	}
	size_t rl = strlen(l->root);
	if (strncmp(real, l->root, rl) || (real[rl] != '/' && real[rl] != 0)) {
		free(real);
		*rc = tg_error_set(TG_EINVAL, "%s: %s resolves outside the storage root", l->base.describe, key);
		return NULL;
	}
	return real;
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

/* Walks dir (key prefix rel, depth 0 = root) down to the run folders. */
static int walk(local *l, const char *dir, const char *rel, int depth, tg_storage_obj **out, size_t *n, size_t *cap)
{
	if (depth < 5)
		watch(l, dir, WATCH_MASK);
	if (depth == 5) {
		char path[PATH_MAX];
		struct stat st;
		if ((size_t)snprintf(path, sizeof(path), "%s/manifest.json", dir) >= sizeof(path))
			return 0;
		if (lstat(path, &st) || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
			/* a run still uploading: watch it for its manifest */
			watch(l, dir, FILE_WATCH_MASK);
			return 0;
		}
		/* a complete run needs no watch (one may remain from before) */
		if (l->ino >= 0) {
			int wd = inotify_add_watch(l->ino, dir, FILE_WATCH_MASK);
			if (wd >= 0)
				inotify_rm_watch(l->ino, wd);
		}
		char key[PATH_MAX];
		snprintf(key, sizeof(key), "%s/manifest.json", rel);
		return tg_storage_is_manifest_key(key) ? push(out, n, cap, key, &st) : 0;
	}
	DIR *d = opendir(dir);
	if (!d)
		return depth == 0 ? tg_error_set(TG_EIO, "%s: cannot list: %s", l->base.describe, strerror(errno)) : 0;
	char **names = NULL;
	size_t nn = 0, nc = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue; /* ".", "..", and hidden folders (uploads in progress) */
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
			continue;
		if (tg_grow((void **)&names, &nc, nn + 1, sizeof(char *)) || !(names[nn] = strdup(e->d_name))) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			break;
		}
		nn++;
	}
	closedir(d);
	if (nn > 1)
		qsort(names, nn, sizeof(char *), cmp_name);
	for (size_t i = 0; i < nn && !rc; i++) {
		char sub[PATH_MAX], subrel[PATH_MAX];
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]) >= sizeof(sub) ||
		    (size_t)snprintf(subrel, sizeof(subrel), "%s%s%s", rel, *rel ? "/" : "", names[i]) >= sizeof(subrel))
			continue;
		struct stat st;
		if (stat(sub, &st) || !S_ISDIR(st.st_mode))
			continue;
		rc = walk(l, sub, subrel, depth + 1, out, n, cap);
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int local_list(tg_storage *s, tg_storage_obj **out, size_t *n)
{
	local *l = (local *)s;
	size_t cap = 0;
	int rc = walk(l, l->root, "", 0, out, n, &cap);
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
	int rc = 0;
	char *path = resolve(l, key, &rc);
	if (!path)
		return rc;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return errno == ENOENT ? tg_error_set(TG_ENOTFOUND, "%s: %s: no such file", s->describe, key)
		                       : tg_error_set(TG_EIO, "%s: %s: %s", s->describe, key, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return tg_error_set(TG_EIO, "%s: %s: not a regular file", s->describe, key);
	}
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

static int local_fetch(tg_storage *s, const char *key, const char *tmpdir, uint64_t max, char **path, int *is_temp)
{
	(void)tmpdir;
	local *l = (local *)s;
	int rc = 0;
	char *p = resolve(l, key, &rc);
	if (!p)
		return rc;
	struct stat st;
	if (stat(p, &st) || !S_ISREG(st.st_mode)) {
		free(p);
		return tg_error_set(TG_EIO, "%s: %s: not a regular file", s->describe, key);
	}
	(void)max; /* the trace reader enforces the decompressed limit */
	*path = p;
	*is_temp = 0;
	return 0;
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
