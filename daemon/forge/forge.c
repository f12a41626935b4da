/*
 * forge.c - the forge interface: the client's life cycle, dispatch to the
 * backend, and the upsert of the one comment (with its no-duplicate rule).
 * The words every backend shares (kind and state names, descriptions cut
 * at a UTF-8 boundary, marker lines) are forge_text.c's.
 */
#include "forge_impl.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s, int *oom)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*oom = 1;
	return d;
}

static char *printf_dup(int *oom, const char *fmt, const char *a)
{
	size_t n = strlen(fmt) + strlen(a) + 1;
	char *s = malloc(n);
	if (!s) {
		*oom = 1;
		return NULL;
	}
	snprintf(s, n, fmt, a);
	return s;
}

int tg_forge_new(tg_forge **out, const tg_forge_opts *o)
{
	*out = NULL;
	if (!o || (unsigned)o->kind > TG_FORGE_OUTBOX)
		return tg_error_set(TG_EINVAL, "forge: no options or an unknown kind");
	const char *name = o->name && *o->name ? o->name : tg_forge_kind_name(o->kind);
	if (o->kind == TG_FORGE_OUTBOX) {
		if (!o->outbox_dir || !*o->outbox_dir)
			return tg_error_set(TG_EINVAL, "%s: an outbox forge needs a folder", name);
	} else {
		if (!o->api_url || !*o->api_url)
			return tg_error_set(TG_EINVAL, "%s: no api_url", name);
		if (strncmp(o->api_url, "https://", 8) && strncmp(o->api_url, "http://", 7))
			return tg_error_set(TG_EINVAL, "%s: api_url must start with https:// or http://", name);
		if (!o->token || !*o->token)
			return tg_error_set(TG_EINVAL, "%s: no token", name);
		if (strpbrk(o->token, "\r\n"))
			return tg_error_set(TG_EINVAL, "%s: the token has a line break", name);
	}
	tg_forge *f = tg_calloc(1, sizeof(*f));
	if (!f)
		return TG_ENOMEM;
	int oom = 0;
	f->kind = o->kind;
	f->check_runs = o->check_runs;
	f->outbox_echo = o->outbox_echo;
	f->name = dup_or_null(name, &oom);
	f->outbox_dir = dup_or_null(o->outbox_dir, &oom);
	f->token = dup_or_null(o->token, &oom);
	if (o->api_url) {
		f->api = dup_or_null(o->api_url, &oom);
		for (size_t n = f->api ? strlen(f->api) : 0; n > 0 && f->api[n - 1] == '/'; n--)
			f->api[n - 1] = 0;
	}
	size_t h = 0;
	switch (o->kind) {
	case TG_FORGE_GITHUB:
		f->ops = &tg_forge_github_ops;
		f->headers[h++] = "Accept: application/vnd.github+json";
		f->headers[h++] = "X-GitHub-Api-Version: 2022-11-28";
		f->auth_header = printf_dup(&oom, "Authorization: Bearer %s", o->token);
		break;
	case TG_FORGE_GITLAB:
		f->ops = &tg_forge_gitlab_ops;
		f->headers[h++] = "Accept: application/json";
		f->auth_header = printf_dup(&oom, "PRIVATE-TOKEN: %s", o->token);
		break;
	case TG_FORGE_GITEA:
		f->ops = &tg_forge_gitea_ops;
		f->headers[h++] = "Accept: application/json";
		f->auth_header = printf_dup(&oom, "Authorization: token %s", o->token);
		break;
	case TG_FORGE_OUTBOX:
		f->ops = &tg_forge_outbox_ops;
		break;
	}
	if (f->auth_header)
		f->headers[h++] = f->auth_header;
	f->headers[h] = NULL;
	for (size_t i = 0; i < h; i++)
		f->headers_json[i] = f->headers[i];
	f->headers_json[h] = "Content-Type: application/json";
	f->headers_json[h + 1] = NULL;
	if (oom) {
		tg_forge_free(f);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	if (o->kind != TG_FORGE_OUTBOX) {
		int rc = tg_http_new(&f->http, &o->http);
		if (rc) {
			tg_forge_free(f);
			return rc;
		}
	}
	*out = f;
	return 0;
}

static void wipe_free(char *s)
{
	if (!s)
		return;
	volatile char *v = s;
	while (*v)
		*v++ = 0;
	free(s);
}

void tg_forge_free(tg_forge *f)
{
	if (!f)
		return;
	tg_http_free(f->http);
	wipe_free(f->token);
	wipe_free(f->auth_header);
	free(f->name);
	free(f->api);
	free(f->outbox_dir);
	free(f);
}

tg_forge_kind tg_forge_get_kind(const tg_forge *f)
{
	return f->kind;
}

/* --------------------------------------------------------------- calls */

static int repo_ok(const tg_forge *f, const char *repo)
{
	if (!repo || !*repo || !strchr(repo, '/') || strlen(repo) > 512)
		return tg_error_set(TG_EINVAL, "%s: repository '%s' is not owner/name", f->name, repo ? repo : "");
	return 0;
}

int tg_forge_post_status(tg_forge *f, const tg_forge_status *s)
{
	if (!s)
		return tg_error_set(TG_EINVAL, "%s: no status", f->name);
	int rc = repo_ok(f, s->repo);
	if (rc)
		return rc;
	if (!s->sha || !*s->sha || strlen(s->sha) > 64 || strspn(s->sha, "0123456789abcdefABCDEF") != strlen(s->sha))
		return tg_error_set(TG_EINVAL, "%s: '%s' is not a commit id", f->name, s->sha ? s->sha : "");
	if ((unsigned)s->state > TG_FORGE_ERROR)
		return tg_error_set(TG_EINVAL, "%s: unknown status state %d", f->name, (int)s->state);
	if (!s->context || !*s->context || !tg_forge_utf8_valid(s->context, strlen(s->context)))
		return tg_error_set(TG_EINVAL, "%s: a status needs a context (UTF-8)", f->name);
	if (s->target_url && !tg_forge_utf8_valid(s->target_url, strlen(s->target_url)))
		return tg_error_set(TG_EINVAL, "%s: target_url is not UTF-8", f->name);
	return f->ops->post_status(f, s);
}

static int comment_ok(const tg_forge *f, const tg_forge_comment *c)
{
	int rc;
	if (!c)
		return tg_error_set(TG_EINVAL, "%s: no comment", f->name);
	if ((rc = repo_ok(f, c->repo)))
		return rc;
	if (c->pr <= 0)
		return tg_error_set(TG_EINVAL, "%s: %s: pull request number %lld", f->name, c->repo, (long long)c->pr);
	if (!c->marker || !*c->marker || strpbrk(c->marker, "\r\n"))
		return tg_error_set(TG_EINVAL, "%s: the comment marker must be one non-empty line", f->name);
	if (!c->body)
		return tg_error_set(TG_EINVAL, "%s: no comment body", f->name);
	size_t n = strlen(c->body);
	if (n > TG_FORGE_MAX_BODY)
		return tg_error_set(TG_EINVAL, "%s: %s#%lld: the comment has %zu bytes, more than %u", f->name, c->repo,
		                    (long long)c->pr, n, TG_FORGE_MAX_BODY);
	if (!tg_forge_utf8_valid(c->body, n) || !tg_forge_utf8_valid(c->marker, strlen(c->marker)))
		return tg_error_set(TG_EINVAL, "%s: %s#%lld: the comment is not valid UTF-8", f->name, c->repo,
		                    (long long)c->pr);
	if (!tg_forge_has_marker_line(c->body, c->marker))
		return tg_error_set(TG_EINVAL, "%s: %s#%lld: the comment body lacks its marker line %s", f->name, c->repo,
		                    (long long)c->pr, c->marker);
	return 0;
}

int tg_forge_upsert_comment(int64_t *id, int *created, tg_forge *f, const tg_forge_comment *c)
{
	if (id)
		*id = 0;
	if (created)
		*created = 0;
	int rc = comment_ok(f, c);
	if (rc)
		return rc;
	int64_t found = 0;
	if ((rc = f->ops->find_comment(f, c, &found)))
		return rc;
	if (found) {
		rc = f->ops->update_comment(f, c, found);
		if (rc != TG_ENOTFOUND) {
			if (!rc && id)
				*id = found;
			return rc;
		}
		found = 0; /* deleted since the search: make a new one */
	}
	/* Create; when that may have taken effect, look before the one more try. */
	for (int attempt = 0; attempt < 2; attempt++) {
		int64_t nid = 0;
		int ambiguous = 0;
		rc = f->ops->create_comment(f, c, &nid, &ambiguous);
		if (!rc) {
			found = nid;
			break;
		}
		if (!ambiguous || attempt == 1)
			return rc;
		char why[1024];
		snprintf(why, sizeof(why), "%s", tg_error_last());
		int rc2 = f->ops->find_comment(f, c, &found);
		if (rc2)
			return tg_error_set(rc2, "%s (after a create that may have worked: %s)", tg_error_last(), why);
		if (found)
			break; /* the ambiguous create did work */
	}
	if (id)
		*id = found;
	if (created)
		*created = 1;
	return 0;
}

void tg_forge_pr_clear(tg_forge_pr *p)
{
	free(p->base);
	free(p->head_ref);
	free(p->head_repo);
	memset(p, 0, sizeof(*p));
}

int tg_forge_pr_get(tg_forge_pr *out, tg_forge *f, const char *repo, int64_t pr)
{
	memset(out, 0, sizeof(*out));
	int rc = repo_ok(f, repo);
	if (rc)
		return rc;
	if (pr <= 0)
		return tg_error_set(TG_EINVAL, "%s: %s: pull request number %lld", f->name, repo, (long long)pr);
	if (!f->ops->pr_get)
		return tg_error_set(TG_EINVAL, "%s: a %s forge cannot tell what pull request %s#%lld is", f->name,
		                    tg_forge_kind_name(f->kind), repo, (long long)pr);
	rc = f->ops->pr_get(f, repo, pr, out);
	if (rc)
		tg_forge_pr_clear(out);
	return rc;
}

int tg_forge_author_can_write(char **login, int *can, tg_forge *f, const char *repo, const char *sha)
{
	*login = NULL;
	*can = 0;
	int rc = repo_ok(f, repo);
	if (rc)
		return rc;
	if (!f->ops->author_can_write)
		return tg_error_set(TG_EINVAL, "%s: a %s forge cannot tell who may write to %s", f->name,
		                    tg_forge_kind_name(f->kind), repo);
	size_t n = 0;
	while (sha && ((sha[n] >= '0' && sha[n] <= '9') || (sha[n] >= 'a' && sha[n] <= 'f')))
		n++;
	if (!sha || n != 40 || sha[n])
		return tg_error_set(TG_EINVAL, "%s: not a commit: %.48s", f->name, sha ? sha : "(null)");
	rc = f->ops->author_can_write(f, repo, sha, login, can);
	if (rc) {
		free(*login);
		*login = NULL;
		*can = 0;
	}
	return rc;
}

int tg_forge_pr_labels(tg_forge_label **out, size_t *n, tg_forge *f, const char *repo, int64_t pr)
{
	*out = NULL;
	*n = 0;
	int rc = repo_ok(f, repo);
	if (rc)
		return rc;
	if (pr <= 0)
		return tg_error_set(TG_EINVAL, "%s: %s: pull request number %lld", f->name, repo, (long long)pr);
	rc = f->ops->labels(f, repo, pr, out, n);
	if (rc) {
		tg_forge_labels_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

void tg_forge_labels_free(tg_forge_label *l, size_t n)
{
	for (size_t i = 0; l && i < n; i++) {
		free(l[i].name);
		free(l[i].by);
	}
	free(l);
}
