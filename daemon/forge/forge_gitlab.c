/*
 * forge_gitlab.c - GitLab REST v4: commit statuses, the merge request's
 * note, and its labels. The project is named by its URL-encoded path
 * ("group%2Fsub%2Fproject").
 *
 *   POST /projects/{id}/statuses/{sha}                 (200 or 201)
 *   GET  /projects/{id}/merge_requests/{iid}/notes?per_page=100&page=N
 *        (Link rel=next, else x-next-page)
 *   POST /projects/{id}/merge_requests/{iid}/notes
 *   PUT  /projects/{id}/merge_requests/{iid}/notes/{note_id}
 *   GET  /projects/{id}/merge_requests/{iid}           (labels)
 *
 * States: pending -> running, success -> success, failure and error ->
 * failed (an error's description starts with "error: ").
 */
#include "forge_impl.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

static const char *gl_state(tg_forge_state s)
{
	switch (s) {
	case TG_FORGE_PENDING: return "running";
	case TG_FORGE_SUCCESS: return "success";
	case TG_FORGE_FAILURE:
	case TG_FORGE_ERROR: return "failed";
	}
	return "failed";
}

static char *gl_description(const tg_forge_status *s)
{
	const char *d = s->description ? s->description : "";
	if (s->state != TG_FORGE_ERROR)
		return tg_forge_trim_description(d, tg_forge_description_limit(TG_FORGE_GITLAB));
	char *e = tg_malloc(strlen(d) + 8);
	if (!e)
		return NULL;
	sprintf(e, "error: %s", d);
	char *t = tg_forge_trim_description(e, tg_forge_description_limit(TG_FORGE_GITLAB));
	free(e);
	return t;
}

static int gl_post_status(tg_forge *f, const tg_forge_status *s)
{
	char *id = tg_http_escape(s->repo, 0);
	char *desc = gl_description(s);
	char *url = id ? tg_forge_url(f, "/projects/%s/statuses/%s", id, s->sha) : NULL;
	json_t *b = desc ? json_pack("{s:s, s:s, s:s}", "state", gl_state(s->state), "name", s->context,
	                             "description", desc)
	                 : NULL;
	int rc = 0;
	if (b && s->target_url && *s->target_url && json_object_set_new(b, "target_url", json_string(s->target_url)))
		rc = TG_ENOMEM;
	if (!b || !url || rc) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	} else {
		tg_http_response r;
		rc = tg_forge_send(&r, f, "POST", url, b, TG_HTTP_IDEMPOTENT);
		/* GitLab refuses to move a status to the state it already has
		 * ("Cannot transition status via :run from :running"): a retry
		 * of a post that worked, or a repeated pending; both are done. */
		if (!rc && r.status == 400 && strstr(r.body, "Cannot transition status"))
			r.status = 200;
		if (!rc)
			rc = tg_forge_check(f, "POST", url, &r);
		tg_http_response_free(&r);
	}
	json_decref(b);
	free(url);
	free(desc);
	free(id);
	return rc;
}

/* "/projects/{id}/merge_requests/{iid}" + rest, or NULL. */
static char *mr_url(tg_forge *f, const char *repo, int64_t iid, const char *rest)
{
	char *id = tg_http_escape(repo, 0);
	char *u = id ? tg_forge_url(f, "/projects/%s/merge_requests/%lld%s", id, (long long)iid, rest) : NULL;
	free(id);
	return u;
}

static int gl_find_comment(tg_forge *f, const tg_forge_comment *c, int64_t *id)
{
	*id = 0;
	char *prefix = mr_url(f, c->repo, c->pr, "/notes?per_page=100&page=");
	if (!prefix)
		return TG_ENOMEM;
	struct tg_forge_marker_search m = {c->marker, 0, "author"};
	int rc = tg_forge_get_pages(f, prefix, tg_forge_marker_page, &m);
	free(prefix);
	*id = m.id;
	return rc;
}

static int gl_create_comment(tg_forge *f, const tg_forge_comment *c, int64_t *id, int *ambiguous)
{
	char *url = mr_url(f, c->repo, c->pr, "/notes");
	int rc = url ? tg_forge_send_body(id, ambiguous, f, "POST", url, c->body, TG_HTTP_NOT_IDEMPOTENT) : TG_ENOMEM;
	free(url);
	return rc;
}

static int gl_update_comment(tg_forge *f, const tg_forge_comment *c, int64_t id)
{
	char rest[48];
	snprintf(rest, sizeof(rest), "/notes/%lld", (long long)id);
	char *url = mr_url(f, c->repo, c->pr, rest);
	int rc = url ? tg_forge_send_body(NULL, NULL, f, "PUT", url, c->body, TG_HTTP_IDEMPOTENT) : TG_ENOMEM;
	free(url);
	return rc;
}

int tg_forge_gitlab_mr_labels(tg_forge_label **out, size_t *n, tg_forge *f, const char *repo, int64_t pr,
                              const json_t *mr)
{
	json_t *labels = json_object_get(mr, "labels");
	if (labels && !json_is_array(labels) && !json_is_null(labels))
		return tg_error_set(TG_EFORMAT, "%s: GET merge request %s!%lld: \"labels\" is not an array", f->name, repo,
		                    (long long)pr);
	size_t i;
	json_t *l;
	json_array_foreach(labels, i, l) {
		/* names, or objects with a name (with_labels_details=true) */
		const char *name = json_is_string(l) ? json_string_value(l) : json_string_value(json_object_get(l, "name"));
		if (!name)
			return tg_error_set(TG_EFORMAT, "%s: GET merge request %s!%lld: label %zu has no name", f->name, repo,
			                    (long long)pr, i);
		int rc = tg_forge_label_push(out, n, name, NULL);
		if (rc)
			return rc;
	}
	return 0;
}

static int gl_labels(tg_forge *f, const char *repo, int64_t pr, tg_forge_label **out, size_t *n)
{
	char *url = mr_url(f, repo, pr, "");
	if (!url)
		return TG_ENOMEM;
	tg_http_response r;
	json_t *mr = NULL;
	int rc = tg_forge_send(&r, f, "GET", url, NULL, TG_HTTP_IDEMPOTENT);
	if (!rc)
		rc = tg_forge_check(f, "GET", url, &r);
	if (!rc)
		rc = tg_forge_json(&mr, f, "GET", url, &r, JSON_OBJECT);
	if (!rc)
		rc = tg_forge_gitlab_mr_labels(out, n, f, repo, pr, mr);
	json_decref(mr);
	tg_http_response_free(&r);
	free(url);
	return rc;
}

static int gl_pr_get(tg_forge *f, const char *repo, int64_t pr, tg_forge_pr *out)
{
	char *url = mr_url(f, repo, pr, "");
	if (!url)
		return TG_ENOMEM;
	json_t *j = NULL;
	int rc = tg_forge_get_object(&j, f, url);
	if (!rc)
		rc = tg_forge_pr_from_json(out, f, j, "opened", "sha", "target_branch", "source_branch");
	json_decref(j);
	free(url);
	return rc;
}

const tg_forge_ops tg_forge_gitlab_ops = {
	.post_status = gl_post_status,
	.find_comment = gl_find_comment,
	.create_comment = gl_create_comment,
	.update_comment = gl_update_comment,
	.labels = gl_labels,
	.pr_get = gl_pr_get,
};
