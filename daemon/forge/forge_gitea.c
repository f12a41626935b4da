/*
 * forge_gitea.c - Gitea and Forgejo REST v1: commit statuses, the pull
 * request's issue comment, and its labels.
 *
 *   POST  /repos/{o}/{r}/statuses/{sha}       pending, success, failure, error
 *   GET   /repos/{o}/{r}/issues/{n}/comments?limit=50&page=N
 *         (Link rel=next, else x-total-count; a server that ignores the
 *         paging and sends every comment at once is fine too)
 *   POST  /repos/{o}/{r}/issues/{n}/comments
 *   PATCH /repos/{o}/{r}/issues/comments/{id}
 *   GET   /repos/{o}/{r}/issues/{n}/labels
 */
#include "forge_impl.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

static int gt_post_status(tg_forge *f, const tg_forge_status *s)
{
	return tg_forge_post_repo_status(f, s, TG_FORGE_GITEA);
}

/* "/repos/{o}/{r}" + the printf'd rest, or NULL. */
static char *repo_url(tg_forge *f, const char *repo, const char *rest_fmt, long long n)
{
	char *o, *r;
	if (tg_forge_split_repo(&o, &r, f, repo))
		return NULL;
	char rest[128];
	snprintf(rest, sizeof(rest), rest_fmt, n);
	char *u = tg_forge_url(f, "/repos/%s/%s%s", o, r, rest);
	free(o);
	free(r);
	return u;
}

static int gt_find_comment(tg_forge *f, const tg_forge_comment *c, int64_t *id)
{
	*id = 0;
	char *prefix = repo_url(f, c->repo, "/issues/%lld/comments?limit=50&page=", (long long)c->pr);
	if (!prefix)
		return tg_error_last_code() ? tg_error_last_code() : TG_ENOMEM;
	struct tg_forge_marker_search m = {c->marker, 0, "user"};
	int rc = tg_forge_get_pages(f, prefix, tg_forge_marker_page, &m);
	free(prefix);
	*id = m.id;
	return rc;
}

static int gt_create_comment(tg_forge *f, const tg_forge_comment *c, int64_t *id, int *ambiguous)
{
	char *url = repo_url(f, c->repo, "/issues/%lld/comments", (long long)c->pr);
	int rc = url ? tg_forge_send_body(id, ambiguous, f, "POST", url, c->body, TG_HTTP_NOT_IDEMPOTENT)
	             : tg_error_last_code();
	free(url);
	return rc;
}

static int gt_update_comment(tg_forge *f, const tg_forge_comment *c, int64_t id)
{
	char *url = repo_url(f, c->repo, "/issues/comments/%lld", (long long)id);
	int rc = url ? tg_forge_send_body(NULL, NULL, f, "PATCH", url, c->body, TG_HTTP_IDEMPOTENT)
	             : tg_error_last_code();
	free(url);
	return rc;
}

static int gt_labels(tg_forge *f, const char *repo, int64_t pr, tg_forge_label **out, size_t *n)
{
	char *prefix = repo_url(f, repo, "/issues/%lld/labels?limit=50&page=", (long long)pr);
	if (!prefix)
		return tg_error_last_code();
	struct tg_forge_labels_ctx x = {out, n};
	int rc = tg_forge_get_pages(f, prefix, tg_forge_label_page, &x);
	free(prefix);
	return rc;
}

static int gt_pr_get(tg_forge *f, const char *repo, int64_t pr, tg_forge_pr *out)
{
	char *url = repo_url(f, repo, "/pulls/%lld", (long long)pr);
	if (!url)
		return tg_error_last_code() ? tg_error_last_code() : TG_ENOMEM;
	json_t *j = NULL;
	int rc = tg_forge_get_object(&j, f, url);
	if (!rc)
		rc = tg_forge_pr_from_json(out, f, j, "open", "head.sha", "base.ref", "head.ref");
	json_decref(j);
	free(url);
	return rc;
}

static int gt_author_can_write(tg_forge *f, const char *repo, const char *sha, char **login, int *can)
{
	return tg_forge_repo_author_can_write(login, can, f, repo, sha, "/git/commits/");
}

const tg_forge_ops tg_forge_gitea_ops = {
	.post_status = gt_post_status,
	.find_comment = gt_find_comment,
	.create_comment = gt_create_comment,
	.update_comment = gt_update_comment,
	.labels = gt_labels,
	.pr_get = gt_pr_get,
	.author_can_write = gt_author_can_write,
};
