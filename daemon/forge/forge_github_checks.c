/*
 * forge_github_checks.c - GitHub check runs, one per status context and
 * commit, created once and then updated:
 *
 *   GET   /repos/{o}/{r}/commits/{sha}/check-runs?check_name=NAME
 *   POST  /repos/{o}/{r}/check-runs
 *   PATCH /repos/{o}/{r}/check-runs/{id}
 *
 * Only GitHub Apps may write check runs; a token that may not (403) or a
 * repository it cannot see (404) gets a warning on stderr, not an error:
 * the commit status is the gate.
 *
 *   state     status        conclusion
 *   pending   in_progress   -
 *   success   completed     success   ("neutral" when s->neutral: no baseline, inconclusive)
 *   failure   completed     failure
 *   error     completed     failure   (GitHub has no "error"; fail closed)
 */
#include "forge_impl.h"
#include "../../util/tg.h"
#include "../../util/log.h"

#include <stdlib.h>
#include <string.h>

/* The output summary's limit (GitHub: 65,535 characters; bytes are safe). */
#define SUMMARY_MAX 65535

/* The conclusion of a completed run: GitHub has no "error" (fail closed:
 * failure); a success the gate could not judge is "neutral". */
static const char *conclusion(const tg_forge_status *s)
{
	if (s->state != TG_FORGE_SUCCESS)
		return "failure";
	return s->neutral ? "neutral" : "success";
}

static json_t *run_body(const tg_forge_status *s, int create)
{
	char *title = tg_forge_trim_description(s->description && *s->description ? s->description
	                                                                            : tg_forge_state_name(s->state),
	                                        255);
	char *summary = tg_forge_cut_utf8(s->summary_md && *s->summary_md ? s->summary_md
	                                  : s->description                ? s->description
	                                                                  : "",
	                                  SUMMARY_MAX);
	json_t *b = NULL;
	if (title && summary)
		b = json_pack("{s:s, s:s, s:{s:s, s:s}}", "name", s->context, "status",
		              s->state == TG_FORGE_PENDING ? "in_progress" : "completed", "output", "title", title,
		              "summary", summary);
	int bad = !b;
	if (b && create)
		bad |= json_object_set_new(b, "head_sha", json_string(s->sha));
	if (b && s->state != TG_FORGE_PENDING)
		bad |= json_object_set_new(b, "conclusion", json_string(conclusion(s)));
	if (b && s->target_url && *s->target_url)
		bad |= json_object_set_new(b, "details_url", json_string(s->target_url));
	free(title);
	free(summary);
	if (bad) {
		json_decref(b);
		return NULL;
	}
	return b;
}

int tg_forge_github_run_id(int64_t *id, tg_forge *f, const char *sha, const char *context, const json_t *j)
{
	*id = 0;
	json_t *runs = json_object_get(j, "check_runs");
	if (!json_is_array(runs))
		return tg_error_set(TG_EFORMAT, "%s: GET check-runs of %s: no \"check_runs\" array", f->name, sha);
	size_t i;
	json_t *run;
	json_array_foreach(runs, i, run) {
		int64_t rid;
		const char *rn;
		int rc;
		if ((rc = tg_forge_json_id(&rid, f, "GET check-runs", run, "id")) ||
		    (rc = tg_forge_json_str(&rn, f, "GET check-runs", run, "name"))) {
			*id = 0;
			return rc;
		}
		if (rn && !strcmp(rn, context) && rid > *id)
			*id = rid;
	}
	return 0;
}

/* The newest check run named s->context on s->sha: *id, or 0. */
static int find_run(tg_forge *f, const tg_forge_status *s, const char *o, const char *r, int64_t *id, long *status)
{
	*id = 0;
	*status = 0;
	char *name = tg_http_escape(s->context, 0);
	char *url = name ? tg_forge_url(f, "/repos/%s/%s/commits/%s/check-runs?check_name=%s&per_page=100", o, r,
	                                s->sha, name)
	                 : NULL;
	free(name);
	if (!url)
		return TG_ENOMEM;
	tg_http_response resp;
	json_t *j = NULL;
	int rc = tg_forge_send(&resp, f, "GET", url, NULL, TG_HTTP_IDEMPOTENT);
	*status = resp.status;
	if (!rc)
		rc = tg_forge_check(f, "GET", url, &resp);
	if (!rc)
		rc = tg_forge_json(&j, f, "GET", url, &resp, JSON_OBJECT);
	if (!rc)
		rc = tg_forge_github_run_id(id, f, s->sha, s->context, j);
	json_decref(j);
	tg_http_response_free(&resp);
	free(url);
	return rc;
}

/* Sends body; *status gets the HTTP status (0: none). */
static int send_run(tg_forge *f, const char *method, const char *url, json_t *body, tg_http_retry retry,
                    long *status, int *ambiguous)
{
	tg_http_response resp;
	int rc = tg_forge_send(&resp, f, method, url, body, retry);
	*status = resp.status;
	*ambiguous = resp.ambiguous;
	if (!rc)
		rc = tg_forge_check(f, method, url, &resp);
	tg_http_response_free(&resp);
	return rc;
}

static int skipped(int rc, long status)
{
	if (rc && (status == 403 || status == 404)) {
		tg_log(TG_LOG_WARN, "%s; check run skipped (the commit status is set)", tg_error_last());
		tg_error_clear();
		return 0;
	}
	return rc;
}

int tg_forge_github_check_run(tg_forge *f, const tg_forge_status *s)
{
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, s->repo);
	if (rc)
		return rc;
	int64_t id = 0;
	long status = 0;
	int ambiguous = 0;
	char *url = NULL;
	json_t *b = NULL;
	rc = find_run(f, s, o, r, &id, &status);
	if (rc)
		goto out;
	for (int attempt = 0; !id && attempt < 2; attempt++) {
		b = run_body(s, 1);
		url = tg_forge_url(f, "/repos/%s/%s/check-runs", o, r);
		if (!b || !url) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			goto out;
		}
		rc = send_run(f, "POST", url, b, TG_HTTP_NOT_IDEMPOTENT, &status, &ambiguous);
		json_decref(b);
		free(url);
		b = NULL;
		url = NULL;
		if (!rc || !ambiguous || attempt == 1)
			goto out;
		/* it may exist now: look before the one more try */
		if ((rc = find_run(f, s, o, r, &id, &status)))
			goto out;
		if (id)
			goto out;
	}
	if (id) {
		b = run_body(s, 0);
		url = tg_forge_url(f, "/repos/%s/%s/check-runs/%lld", o, r, (long long)id);
		if (!b || !url)
			rc = tg_error_set(TG_ENOMEM, "out of memory");
		else
			rc = send_run(f, "PATCH", url, b, TG_HTTP_IDEMPOTENT, &status, &ambiguous);
	}
out:
	json_decref(b);
	free(url);
	free(o);
	free(r);
	return skipped(rc, status);
}
