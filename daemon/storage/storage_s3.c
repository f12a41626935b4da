/*
 * storage_s3.c - the S3 backend of storage.h: a bucket and a prefix,
 * polled. Manifests are found by listing every key under the prefix and
 * keeping those at the contract's depth (tg_storage_is_manifest_key);
 * traces are downloaded into a temporary file for the reader.
 */
#include "storage_impl.h"
#include "../../util/tg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_POLL_MS 10000L

typedef struct s3_storage {
	struct tg_storage base;
	tg_s3 *s3;
	char *prefix;        /* "" or ending in '/' */
	long poll_ms;
	struct timespec next; /* CLOCK_MONOTONIC time of the next poll */
} s3_storage;

static const tg_storage_ops s3_ops;

static int64_t ms_until(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
}

static void schedule(s3_storage *s, long from_now_ms)
{
	clock_gettime(CLOCK_MONOTONIC, &s->next);
	s->next.tv_sec += from_now_ms / 1000;
	s->next.tv_nsec += (from_now_ms % 1000) * 1000000L;
	if (s->next.tv_nsec >= 1000000000L) {
		s->next.tv_sec++;
		s->next.tv_nsec -= 1000000000L;
	}
}

/* prefix + key, or NULL (TG_ENOMEM) */
static char *full_key(const s3_storage *s, const char *key)
{
	size_t pl = strlen(s->prefix), kl = strlen(key);
	char *k = tg_malloc(pl + kl + 1);
	if (k) {
		memcpy(k, s->prefix, pl);
		memcpy(k + pl, key, kl + 1);
	}
	return k;
}

static int s3_list_manifests(tg_storage *base, tg_storage_obj **out, size_t *n)
{
	s3_storage *s = (s3_storage *)base;
	tg_s3_object *objs;
	size_t cnt;
	int rc = tg_s3_list(&objs, &cnt, s->s3, s->prefix, NULL, 0);
	if (rc)
		return rc;
	size_t pl = strlen(s->prefix), k = 0, cap = 0;
	tg_storage_obj *res = NULL;
	for (size_t i = 0; i < cnt; i++) {
		const char *key = objs[i].key;
		if (strncmp(key, s->prefix, pl) || !tg_storage_is_manifest_key(key + pl))
			continue;
		if (tg_grow((void **)&res, &cap, k + 1, sizeof(*res))) {
			rc = TG_ENOMEM;
			break;
		}
		res[k].key = strdup(key + pl);
		res[k].etag = objs[i].etag ? strdup(objs[i].etag) : strdup("");
		res[k].size = objs[i].size;
		res[k].mtime = objs[i].mtime;
		k++;
		if (!res[k - 1].key || !res[k - 1].etag) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			break;
		}
	}
	tg_s3_objects_free(objs, cnt);
	if (rc) {
		tg_storage_objs_free(res, k);
		return rc;
	}
	*out = res;
	*n = k;
	return 0;
}

static int s3_read(tg_storage *base, const char *key, char **data, size_t *len, uint64_t max)
{
	s3_storage *s = (s3_storage *)base;
	char *k = full_key(s, key);
	if (!k)
		return TG_ENOMEM;
	int rc = tg_s3_get_mem(data, len, s->s3, k, max);
	free(k);
	return rc;
}

static int s3_fetch(tg_storage *base, const char *key, const char *tmpdir, uint64_t max, int *out_fd)
{
	s3_storage *s = (s3_storage *)base;
	if (!tmpdir || !*tmpdir)
		tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	size_t pl = strlen(tmpdir) + sizeof("/tracegate-s3-XXXXXX");
	char *p = tg_malloc(pl);
	char *k = full_key(s, key);
	if (!p || !k) {
		free(p);
		free(k);
		return TG_ENOMEM;
	}
	snprintf(p, pl, "%s/tracegate-s3-XXXXXX", tmpdir);
	int fd = mkstemp(p);
	if (fd < 0) {
		int rc = tg_error_set(TG_EIO, "%s: cannot create a temporary file in %s: %s", s->base.describe, tmpdir,
		                      strerror(errno));
		free(p);
		free(k);
		return rc;
	}
	FILE *f = fdopen(fd, "w+b");
	if (!f) {
		int rc = tg_error_set(TG_EIO, "%s: fdopen: %s", s->base.describe, strerror(errno));
		close(fd);
		unlink(p);
		free(p);
		free(k);
		return rc;
	}
	int rc = tg_s3_get(NULL, s->s3, k, f, max);
	free(k);
	/* the download, kept open and unlinked: nothing is left behind */
	int keep = rc ? -1 : fcntl(fileno(f), F_DUPFD_CLOEXEC, 0);
	if (!rc && keep < 0)
		rc = tg_error_set(TG_EIO, "%s: dup: %s", s->base.describe, strerror(errno));
	if (fclose(f) && !rc)
		rc = tg_error_set(TG_EIO, "%s: writing %s: %s", s->base.describe, p, strerror(errno));
	unlink(p);
	free(p);
	if (!rc && lseek(keep, 0, SEEK_SET) < 0)
		rc = tg_error_set(TG_EIO, "%s: lseek: %s", s->base.describe, strerror(errno));
	if (rc) {
		if (keep >= 0)
			close(keep);
		return rc;
	}
	*out_fd = keep;
	return 0;
}

/* Sleeps until the next poll when it comes within timeout_ms (returns 1),
 * or for timeout_ms (returns 0). Polls keep their period whatever the
 * caller did in between. A negative timeout waits for the poll. A signal
 * cuts the sleep short (returns 0), so that a daemon sees its stop flag. */
static int s3_wait(tg_storage *base, long timeout_ms)
{
	s3_storage *s = (s3_storage *)base;
	int64_t due = ms_until(&s->next);
	if (due < 0)
		due = 0;
	int poll = timeout_ms < 0 || due <= timeout_ms;
	int64_t ms = poll ? due : timeout_ms;
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	int interrupted = ms > 0 && nanosleep(&ts, NULL) != 0;
	if (interrupted)
		return 0;
	if (poll) {
		/* the next poll one period after this one, or after now when the
		 * caller was late by more than a period */
		s->next.tv_sec += s->poll_ms / 1000;
		s->next.tv_nsec += (s->poll_ms % 1000) * 1000000L;
		if (s->next.tv_nsec >= 1000000000L) {
			s->next.tv_sec++;
			s->next.tv_nsec -= 1000000000L;
		}
		if (ms_until(&s->next) < 0)
			schedule(s, s->poll_ms);
		return 1;
	}
	return 0;
}

static void s3_free(tg_storage *base)
{
	s3_storage *s = (s3_storage *)base;
	tg_s3_free(s->s3);
	free(s->prefix);
	free(s);
}

static const tg_storage_ops s3_ops = {
	"s3", s3_list_manifests, s3_read, s3_fetch, s3_wait, s3_free,
};

int tg_storage_s3_new(tg_storage **out, const tg_s3_opts *opts, const char *prefix)
{
	*out = NULL;
	if (!prefix)
		prefix = "";
	while (*prefix == '/')
		prefix++;
	size_t pl = strlen(prefix);
	while (pl && prefix[pl - 1] == '/')
		pl--;
	char *p = tg_malloc(pl + 2);
	if (!p)
		return TG_ENOMEM;
	memcpy(p, prefix, pl);
	p[pl] = pl ? '/' : 0;
	p[pl + 1] = 0;
	if (pl) {
		p[pl] = 0;
		int ok = tg_storage_key_ok(p);
		p[pl] = '/';
		if (!ok) {
			free(p);
			return tg_error_set(TG_EINVAL, "S3 storage: bad prefix '%.200s'", prefix);
		}
	}
	s3_storage *s = tg_calloc(1, sizeof(*s));
	if (!s) {
		free(p);
		return TG_ENOMEM;
	}
	s->base.ops = &s3_ops;
	s->prefix = p;
	s->poll_ms = DEFAULT_POLL_MS;
	int rc = tg_s3_new(&s->s3, opts);
	if (rc) {
		s3_free(&s->base);
		return rc;
	}
	snprintf(s->base.describe, sizeof(s->base.describe), "s3://%.200s/%.280s", opts->bucket, p);
	schedule(s, s->poll_ms);
	*out = &s->base;
	return 0;
}

int tg_storage_s3_set_poll(tg_storage *st, long ms)
{
	if (!st || st->ops != &s3_ops || ms <= 0)
		return tg_error_set(TG_EINVAL, "tg_storage_s3_set_poll: an S3 storage and a period > 0 are needed");
	s3_storage *s = (s3_storage *)st;
	s->poll_ms = ms;
	schedule(s, ms);
	return 0;
}
