/*
 * forge_ci_runs.c - a CI run as the forge has it (forge.h:
 * tg_forge_ci_run_get): what the daemon asks to confirm a pull request's
 * run came from a CI job that ran for that pull request's head
 * (docs/security.md, "A run belongs to one job").
 *
 *   GitHub   GET /repos/{o}/{r}/actions/runs/{run_id} (a workflow run:
 *            head_sha, head_branch and head_repository.full_name; its
 *            pull_requests list is no proof: GitHub lists every open pull
 *            request whose head matches, and none for a fork's run)
 *   GitLab   GET /projects/{id}/pipelines/{pipeline_id} (sha, and ref:
 *            "refs/merge-requests/N/head" for a merge request pipeline,
 *            else the branch)
 *   Gitea and Forgejo have no request for one Actions run by id (Forgejo
 *   11 lists tasks page by page only), and the outbox no forge: they
 *   cannot tell, and the caller judges such a run alone.
 */
#include "forge_impl.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

void tg_forge_ci_run_clear(tg_forge_ci_run *r)
{
	free(r->ref);
	free(r->repo);
	memset(r, 0, sizeof(*r));
}

/* 40 lower-case hex digits of s into head, else head stays "". */
static void head_of(char head[41], const char *s)
{
	size_t n = 0;
	while (s && n < 41 && ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
		n++;
	if (s && n == 40 && !s[n])
		memcpy(head, s, 41);
}

static int gh_ci_run(tg_forge_ci_run *out, tg_forge *f, const char *repo, const char *id)
{
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, repo);
	if (rc)
		return rc;
	char *url = tg_forge_url(f, "/repos/%s/%s/actions/runs/%s", o, r, id);
	json_t *j = NULL;
	const char *sha = NULL, *branch = NULL;
	rc = url ? tg_forge_get_object(&j, f, url) : TG_ENOMEM;
	if (!rc && !(rc = tg_forge_json_str(&sha, f, "GET workflow run", j, "head_sha")) &&
	    !(rc = tg_forge_json_str(&branch, f, "GET workflow run", j, "head_branch"))) {
		head_of(out->head, sha);
		const char *hr = json_string_value(json_object_get(json_object_get(j, "head_repository"), "full_name"));
		if ((branch && !(out->ref = strdup(branch))) || (hr && !(out->repo = strdup(hr))))
			rc = tg_error_set(TG_ENOMEM, "out of memory");
	}
	json_decref(j);
	free(url);
	free(o);
	free(r);
	return rc;
}

static int gl_ci_run(tg_forge_ci_run *out, tg_forge *f, const char *repo, const char *id)
{
	char *pid = tg_http_escape(repo, 0);
	char *url = pid ? tg_forge_url(f, "/projects/%s/pipelines/%s", pid, id) : NULL;
	free(pid);
	json_t *j = NULL;
	const char *sha = NULL, *ref = NULL;
	int rc = url ? tg_forge_get_object(&j, f, url) : TG_ENOMEM;
	if (!rc && !(rc = tg_forge_json_str(&sha, f, "GET pipeline", j, "sha")) &&
	    !(rc = tg_forge_json_str(&ref, f, "GET pipeline", j, "ref"))) {
		head_of(out->head, sha);
		long long n = 0;
		char tail[8] = "";
		if (ref && sscanf(ref, "refs/merge-requests/%lld/%7s", &n, tail) == 2 && n > 0 && !strcmp(tail, "head"))
			out->pr = (int64_t)n;
		else if (ref && !(out->ref = strdup(ref)))
			rc = tg_error_set(TG_ENOMEM, "out of memory");
	}
	json_decref(j);
	free(url);
	return rc;
}

int tg_forge_ci_run_get(tg_forge_ci_run *out, tg_forge *f, const char *repo, const char *id)
{
	memset(out, 0, sizeof(*out));
	if (!repo || !strchr(repo, '/'))
		return tg_error_set(TG_EINVAL, "%s: repository '%s' is not owner/name", f->name, repo ? repo : "");
	if (f->kind != TG_FORGE_GITHUB && f->kind != TG_FORGE_GITLAB)
		return tg_error_set(TG_EINVAL, "%s: a %s forge cannot tell which commit a CI run ran on", f->name,
		                    tg_forge_kind_name(f->kind));
	size_t n = id ? strspn(id, "0123456789") : 0;
	if (!n || n > 20 || id[n])
		return tg_error_set(TG_ENOTFOUND, "%s: %s has no CI run '%.64s' (ids are numbers)", f->name, repo,
		                    id ? id : "");
	int rc = f->kind == TG_FORGE_GITHUB ? gh_ci_run(out, f, repo, id) : gl_ci_run(out, f, repo, id);
	if (rc)
		tg_forge_ci_run_clear(out);
	return rc;
}
