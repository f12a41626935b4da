/*
 * forge_github.c - GitHub REST v3: commit statuses, the issue comment of a
 * pull request, and its labels with who added them (check runs are in
 * forge_github_checks.c).
 *
 *   POST  /repos/{o}/{r}/statuses/{sha}
 *   GET   /repos/{o}/{r}/issues/{n}/comments?per_page=100 (Link rel=next)
 *   POST  /repos/{o}/{r}/issues/{n}/comments
 *   PATCH /repos/{o}/{r}/issues/comments/{id}
 *   GET   /repos/{o}/{r}/issues/{n}/labels?per_page=100
 *   GET   /repos/{o}/{r}/issues/{n}/events?per_page=100 (who labelled)
 */
#include "forge_impl.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

static int gh_post_status(tg_forge *f, const tg_forge_status *s)
{
	int rc = tg_forge_post_repo_status(f, s, TG_FORGE_GITHUB);
	if (!rc && f->check_runs)
		rc = tg_forge_github_check_run(f, s);
	return rc;
}

static int gh_find_comment(tg_forge *f, const tg_forge_comment *c, int64_t *id)
{
	*id = 0;
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, c->repo);
	if (rc)
		return rc;
	char *prefix = tg_forge_url(f, "/repos/%s/%s/issues/%lld/comments?per_page=100&page=", o, r, (long long)c->pr);
	free(o);
	free(r);
	if (!prefix)
		return TG_ENOMEM;
	struct tg_forge_marker_search m = {c->marker, 0, "user"};
	rc = tg_forge_get_pages(f, prefix, tg_forge_marker_page, &m);
	free(prefix);
	*id = m.id;
	return rc;
}

static int gh_create_comment(tg_forge *f, const tg_forge_comment *c, int64_t *id, int *ambiguous)
{
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, c->repo);
	if (rc)
		return rc;
	char *url = tg_forge_url(f, "/repos/%s/%s/issues/%lld/comments", o, r, (long long)c->pr);
	rc = url ? tg_forge_send_body(id, ambiguous, f, "POST", url, c->body, TG_HTTP_NOT_IDEMPOTENT) : TG_ENOMEM;
	free(url);
	free(o);
	free(r);
	return rc;
}

static int gh_update_comment(tg_forge *f, const tg_forge_comment *c, int64_t id)
{
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, c->repo);
	if (rc)
		return rc;
	char *url = tg_forge_url(f, "/repos/%s/%s/issues/comments/%lld", o, r, (long long)id);
	rc = url ? tg_forge_send_body(NULL, NULL, f, "PATCH", url, c->body, TG_HTTP_IDEMPOTENT) : TG_ENOMEM;
	free(url);
	free(o);
	free(r);
	return rc;
}

/* Events in time order: the latest "labeled" event of a label names who. */
int tg_forge_github_event_page(void *ctx, tg_forge *f, const char *url, json_t *items)
{
	(void)f;
	(void)url;
	struct tg_forge_labels_ctx *x = ctx;
	size_t i;
	json_t *ev;
	json_array_foreach(items, i, ev) {
		const char *kind = json_string_value(json_object_get(ev, "event"));
		const char *label = json_string_value(json_object_get(json_object_get(ev, "label"), "name"));
		if (!kind || strcmp(kind, "labeled") || !label)
			continue;
		const char *login = json_string_value(json_object_get(json_object_get(ev, "actor"), "login"));
		for (size_t k = 0; k < *x->n; k++) {
			tg_forge_label *l = &(*x->l)[k];
			if (strcmp(l->name, label))
				continue;
			free(l->by);
			l->by = login ? strdup(login) : NULL;
			if (login && !l->by)
				return tg_error_set(TG_ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int gh_labels(tg_forge *f, const char *repo, int64_t pr, tg_forge_label **out, size_t *n)
{
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, repo);
	if (rc)
		return rc;
	char *lp = tg_forge_url(f, "/repos/%s/%s/issues/%lld/labels?per_page=100&page=", o, r, (long long)pr);
	char *ep = tg_forge_url(f, "/repos/%s/%s/issues/%lld/events?per_page=100&page=", o, r, (long long)pr);
	free(o);
	free(r);
	struct tg_forge_labels_ctx x = {out, n};
	rc = lp && ep ? tg_forge_get_pages(f, lp, tg_forge_label_page, &x) : TG_ENOMEM;
	if (!rc && *n) {
		/* who added a label is a nicety: when the events cannot be read
		 * (all of them), every by is NULL */
		int erc = tg_forge_get_pages(f, ep, tg_forge_github_event_page, &x);
		if (erc == TG_ENOMEM) {
			rc = erc;
		} else if (erc) {
			for (size_t i = 0; i < *n; i++) {
				free((*out)[i].by);
				(*out)[i].by = NULL;
			}
			tg_error_clear();
		}
	}
	free(lp);
	free(ep);
	return rc;
}

static int gh_pr_get(tg_forge *f, const char *repo, int64_t pr, tg_forge_pr *out)
{
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, repo);
	if (rc)
		return rc;
	char *url = tg_forge_url(f, "/repos/%s/%s/pulls/%lld", o, r, (long long)pr);
	json_t *j = NULL;
	rc = url ? tg_forge_get_object(&j, f, url) : TG_ENOMEM;
	if (!rc)
		rc = tg_forge_pr_from_json(out, f, j, "open", "head.sha", "base.ref", "head.ref");
	json_decref(j);
	free(url);
	free(o);
	free(r);
	return rc;
}

static int gh_author_can_write(tg_forge *f, const char *repo, const char *sha, char **login, int *can)
{
	return tg_forge_repo_author_can_write(login, can, f, repo, sha, "/commits/");
}

const tg_forge_ops tg_forge_github_ops = {
	.post_status = gh_post_status,
	.find_comment = gh_find_comment,
	.create_comment = gh_create_comment,
	.update_comment = gh_update_comment,
	.labels = gh_labels,
	.pr_get = gh_pr_get,
	.author_can_write = gh_author_can_write,
};
