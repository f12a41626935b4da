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
#include "../core/tg.h"

#include <stdlib.h>
#include <string.h>

static int gt_post_status(tg_forge *f, const tg_forge_status *s)
{
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, s->repo);
	if (rc)
		return rc;
	char *desc = tg_forge_trim_description(s->description, tg_forge_description_limit(TG_FORGE_GITEA));
	char *url = tg_forge_url(f, "/repos/%s/%s/statuses/%s", o, r, s->sha);
	json_t *b = desc ? json_pack("{s:s, s:s, s:s}", "state", tg_forge_state_name(s->state), "context", s->context,
	                             "description", desc)
	                 : NULL;
	if (b && s->target_url && *s->target_url && json_object_set_new(b, "target_url", json_string(s->target_url)))
		rc = TG_ENOMEM;
	if (!b || !url || rc) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	} else {
		tg_http_response resp;
		rc = tg_forge_send(&resp, f, "POST", url, b, TG_HTTP_IDEMPOTENT);
		if (!rc)
			rc = tg_forge_check(f, "POST", url, &resp);
		tg_http_response_free(&resp);
	}
	json_decref(b);
	free(url);
	free(desc);
	free(o);
	free(r);
	return rc;
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
	struct tg_forge_marker_search m = {c->marker, 0};
	int rc = tg_forge_get_pages(f, prefix, tg_forge_marker_page, &m);
	free(prefix);
	*id = m.id;
	return rc;
}

static int gt_create_comment(tg_forge *f, const tg_forge_comment *c, int64_t *id, int *ambiguous)
{
	char *url = repo_url(f, c->repo, "/issues/%lld/comments", (long long)c->pr);
	int rc = url ? tg_forge_send_body(f, "POST", url, c->body, TG_HTTP_NOT_IDEMPOTENT, id, ambiguous)
	             : tg_error_last_code();
	free(url);
	return rc;
}

static int gt_update_comment(tg_forge *f, const tg_forge_comment *c, int64_t id)
{
	char *url = repo_url(f, c->repo, "/issues/comments/%lld", (long long)id);
	int rc = url ? tg_forge_send_body(f, "PATCH", url, c->body, TG_HTTP_IDEMPOTENT, NULL, NULL)
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

const tg_forge_ops tg_forge_gitea_ops = {
	.post_status = gt_post_status,
	.find_comment = gt_find_comment,
	.create_comment = gt_create_comment,
	.update_comment = gt_update_comment,
	.labels = gt_labels,
};
