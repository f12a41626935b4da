/*
 * forge_outbox.c - the forge that writes files instead of calling a server
 * (dry runs, the demo, tests):
 *
 *   <outbox>/statuses.log                        every status, one JSON line each
 *                                                ("neutral": true where a check run would be neutral)
 *   <outbox>/<owner__repo>/<sha>/status-<context>.json   the latest status
 *   <outbox>/<owner__repo>/pr-<n>/comment-<hash of marker>.md   the comment
 *
 * Every path component is sanitised ([A-Za-z0-9._-], no leading dot), so a
 * repository, commit or context never leads out of the folder. Files are
 * replaced atomically (a temporary file, then rename). A comment's id is a
 * hash of repository, pull request and marker: the same on every run.
 */
#include "forge_impl.h"
#include "../../util/tg.h"
#include "../../util/util.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void tg_forge_outbox_component(char *buf, size_t cap, const char *s)
{
	size_t k = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && k + 1 < cap && k < 120; p++) {
		unsigned char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		         c == '_' || c == '-';
		buf[k] = ok && !(k == 0 && c == '.') ? (char)c : '_';
		k++;
	}
	if (!k && cap > 1)
		buf[k++] = '_';
	buf[k] = 0;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ull

int64_t tg_forge_outbox_comment_id(const char *repo, int64_t pr, const char *marker)
{
	char num[32];
	int nl = snprintf(num, sizeof(num), "\n%lld\n", (long long)pr);
	uint64_t h = fnv1a(FNV_OFFSET, repo, strlen(repo));
	h = fnv1a(h, num, (size_t)nl);
	h = fnv1a(h, marker, strlen(marker));
	int64_t id = (int64_t)(h & 0x3fffffffffffffffull);
	return id ? id : 1;
}

/* mkdir -p of path (which is under the outbox). */
static int mkdirs(const tg_forge *f, const char *path)
{
	char failed[PATH_MAX];
	if (tg_util_mkdir_p(failed, sizeof(failed), path, 0755))
		return tg_error_set(TG_EIO, "%s: cannot create %s: %s", f->name, failed, strerror(errno));
	return 0;
}

/* Writes data to path through a temporary file in the same folder. */
static int write_atomic(const tg_forge *f, const char *path, const char *data, size_t len)
{
	if (tg_util_write_atomic(path, data, len, 0644))
		return errno == ENOMEM ? tg_error_set(TG_ENOMEM, "out of memory (%zu bytes)", strlen(path) + 16)
		                       : tg_error_set(TG_EIO, "%s: cannot write %s: %s", f->name, path, strerror(errno));
	return 0;
}

static int append_line(const tg_forge *f, const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return tg_error_set(TG_EIO, "%s: cannot open %s: %s", f->name, path, strerror(errno));
	size_t n = strlen(line);
	/* one write: lines of concurrent writers do not interleave */
	char *buf = tg_malloc(n + 1);
	if (!buf) {
		close(fd);
		return TG_ENOMEM;
	}
	memcpy(buf, line, n);
	buf[n] = '\n';
	ssize_t w = write(fd, buf, n + 1);
	int e = w == (ssize_t)(n + 1) ? 0 : errno ? errno : EIO;
	free(buf);
	if (close(fd) && !e)
		e = errno;
	return e ? tg_error_set(TG_EIO, "%s: cannot append to %s: %s", f->name, path, strerror(e)) : 0;
}

/* "<outbox>/<owner__repo>/<sub>", a new string or NULL. */
static char *repo_dir(const tg_forge *f, const char *repo, const char *sub)
{
	size_t rl = strlen(repo);
	char *flat = tg_malloc(2 * rl + 1), name[128];
	if (!flat)
		return NULL;
	size_t k = 0;
	for (const char *p = repo; *p; p++) {
		if (*p == '/') {
			flat[k++] = '_';
			flat[k++] = '_';
		} else {
			flat[k++] = *p;
		}
	}
	flat[k] = 0;
	tg_forge_outbox_component(name, sizeof(name), flat);
	free(flat);
	size_t n = strlen(f->outbox_dir) + strlen(name) + strlen(sub) + 3;
	char *d = tg_malloc(n);
	if (d)
		snprintf(d, n, "%s/%s/%s", f->outbox_dir, name, sub);
	return d;
}

static int ob_post_status(tg_forge *f, const tg_forge_status *s)
{
	char sha[128], ctx[128];
	tg_forge_outbox_component(sha, sizeof(sha), s->sha);
	tg_forge_outbox_component(ctx, sizeof(ctx), s->context);
	char *desc = tg_forge_trim_description(s->description, tg_forge_description_limit(TG_FORGE_OUTBOX));
	char *dir = repo_dir(f, s->repo, sha);
	json_t *j = desc ? json_pack("{s:s, s:s, s:s, s:s, s:s, s:s?, s:s?}", "repo", s->repo, "sha", s->sha, "state",
	                             tg_forge_state_name(s->state), "context", s->context, "description", desc,
	                             "target_url", s->target_url, "summary_md", s->summary_md)
	                 : NULL;
	char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	int rc = 0;
	if (j && json_object_set_new(j, "time", json_string(stamp)))
		rc = TG_ENOMEM;
	if (j && s->neutral && json_object_set_new(j, "neutral", json_true()))
		rc = TG_ENOMEM;
	/* the log keeps one short line per status; the check-run summary (the
	 * whole comment) stays in the status's own file */
	if (j)
		json_object_del(j, "summary_md");
	char *line = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	char *path = dir ? tg_malloc(strlen(dir) + strlen(ctx) + 16) : NULL;
	char *log = tg_malloc(strlen(f->outbox_dir) + 16);
	if (!desc || !dir || !j || !text || !line || !path || !log || rc) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	} else {
		sprintf(path, "%s/status-%s.json", dir, ctx);
		sprintf(log, "%s/statuses.log", f->outbox_dir);
		size_t tl = strlen(text);
		text[tl] = '\n'; /* json_dumps leaves room: overwrite the NUL, write tl + 1 */
		rc = mkdirs(f, dir);
		if (!rc)
			rc = write_atomic(f, path, text, tl + 1);
		text[tl] = 0;
		if (!rc)
			rc = append_line(f, log, line);
	}
	free(log);
	free(path);
	free(line);
	free(text);
	json_decref(j);
	free(dir);
	free(desc);
	return rc;
}

/* The comment's file: "<outbox>/<owner__repo>/pr-<n>/comment-<16 hex>.md". */
static char *comment_path(const tg_forge *f, const tg_forge_comment *c, char **dir)
{
	char sub[48];
	snprintf(sub, sizeof(sub), "pr-%lld", (long long)c->pr);
	*dir = repo_dir(f, c->repo, sub);
	if (!*dir)
		return NULL;
	char *p = tg_malloc(strlen(*dir) + 40);
	if (!p) {
		free(*dir);
		*dir = NULL;
		return NULL;
	}
	sprintf(p, "%s/comment-%016llx.md", *dir,
	        (unsigned long long)fnv1a(FNV_OFFSET, c->marker, strlen(c->marker)));
	return p;
}

static int ob_find_comment(tg_forge *f, const tg_forge_comment *c, int64_t *id)
{
	*id = 0;
	char *dir, *path = comment_path(f, c, &dir);
	if (!path)
		return TG_ENOMEM;
	struct stat st;
	if (!stat(path, &st))
		*id = tg_forge_outbox_comment_id(c->repo, c->pr, c->marker);
	free(path);
	free(dir);
	return 0;
}

static int write_comment(tg_forge *f, const tg_forge_comment *c, const char *what)
{
	char *dir, *path = comment_path(f, c, &dir);
	if (!path)
		return TG_ENOMEM;
	int rc = mkdirs(f, dir);
	if (!rc)
		rc = write_atomic(f, path, c->body, strlen(c->body));
	if (!rc && f->outbox_echo) {
		fprintf(f->outbox_echo, "--- %s: comment on %s#%lld %s (%s) ---\n%s%s", f->name, c->repo,
		        (long long)c->pr, what, path, c->body,
		        *c->body && c->body[strlen(c->body) - 1] == '\n' ? "" : "\n");
		fflush(f->outbox_echo);
	}
	free(path);
	free(dir);
	return rc;
}

static int ob_create_comment(tg_forge *f, const tg_forge_comment *c, int64_t *id, int *ambiguous)
{
	*ambiguous = 0;
	int rc = write_comment(f, c, "created");
	*id = rc ? 0 : tg_forge_outbox_comment_id(c->repo, c->pr, c->marker);
	return rc;
}

static int ob_update_comment(tg_forge *f, const tg_forge_comment *c, int64_t id)
{
	(void)id;
	return write_comment(f, c, "updated");
}

static int ob_labels(tg_forge *f, const char *repo, int64_t pr, tg_forge_label **out, size_t *n)
{
	(void)f;
	(void)repo;
	(void)pr;
	*out = NULL;
	*n = 0;
	return 0;
}

const tg_forge_ops tg_forge_outbox_ops = {
	.post_status = ob_post_status,
	.find_comment = ob_find_comment,
	.create_comment = ob_create_comment,
	.update_comment = ob_update_comment,
	.labels = ob_labels,
};
