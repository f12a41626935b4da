/*
 * check.c - `tracegate daemon --check`'s connectivity checks (daemon.h:
 * tg_daemon_check_connect): what the daemon will talk to, tried the way it
 * will talk to it, before it is trusted to run unattended.
 *
 *   database   opened (and migrated, as the daemon would), its leases read
 *   storage    the manifests listed (S3: a signed ListObjectsV2, so a wrong
 *              key, region or bucket shows here)
 *   forge      per repository, its forge's API asked who the token is (GET
 *              /user: reachable, the token accepted, its login shown), then
 *              for the repository: the token allowed to post statuses
 *              (GitHub and Gitea: permissions.push; GitLab: access level
 *              Developer or more); an outbox: its folder writable
 *   git        per repository, clone_url's references listed with the token
 *
 * Each check says ok or FAIL with the reason on one line of out; requests
 * are tried once (no retries), so that a dead endpoint fails in seconds.
 */
#include "daemon.h"
#include "../util/tg.h"
#include "git/git.h"
#include "../net/http.h"
#include "storage/storage.h"
#include "store/store.h"

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tally {
	FILE *out;
	size_t failed, total;
	char names[512]; /* what failed, comma-separated */
};

static void result(struct tally *t, const char *what, int ok, const char *detail)
{
	t->total++;
	fprintf(t->out, "  %-4s  %s: %s\n", ok ? "ok" : "FAIL", what, detail);
	if (!ok) {
		size_t n = strlen(t->names);
		snprintf(t->names + n, sizeof(t->names) - n, "%s%s", t->failed ? ", " : "", what);
		t->failed++;
	}
}

static void http_opts_for_check(tg_http_opts *h, const tg_config *c, int tls_verify, const char *ca_file)
{
	memset(h, 0, sizeof(*h));
	h->ca_file = ca_file;
	h->insecure = !tls_verify;
	h->timeout_ms = (long)c->http_timeout_ms;
	h->connect_timeout_ms = (long)c->http_connect_timeout_ms;
	h->max_attempts = 1;
}

static void check_database(struct tally *t, const tg_config *c)
{
	char *url = NULL, detail[1100];
	if (c->sqlite && asprintf(&url, "sqlite:%s", c->sqlite) < 0)
		url = NULL;
	tg_store *s = NULL;
	tg_lease *l = NULL;
	size_t n = 0;
	int rc = tg_store_open(&s, url ? url : c->postgresql.value);
	if (!rc)
		rc = tg_store_leases(&l, &n, s);
	if (rc)
		snprintf(detail, sizeof(detail), "%s", tg_error_last());
	else
		snprintf(detail, sizeof(detail), "%s store, %zu job%s leased now", tg_store_backend(s), n,
		         n == 1 ? "" : "s");
	free(l);
	tg_store_close(s);
	free(url);
	result(t, "database", !rc, detail);
}

static void check_storage(struct tally *t, const tg_config *c)
{
	const tg_config_storage *cs = &c->storage;
	tg_storage *s = NULL;
	int rc;
	char detail[1100];
	if (cs->local) {
		rc = tg_storage_local_new(&s, cs->local);
	} else {
		tg_s3_opts o;
		memset(&o, 0, sizeof(o));
		o.endpoint = cs->s3_endpoint;
		o.bucket = cs->s3_bucket;
		o.region = cs->s3_region;
		o.access_key = cs->s3_access_key.value;
		o.secret_key = cs->s3_secret_key.value;
		http_opts_for_check(&o.http, c, cs->tls_verify, cs->ca_file);
		rc = tg_storage_s3_new(&s, &o, cs->s3_prefix);
	}
	tg_storage_obj *objs = NULL;
	size_t n = 0;
	if (!rc)
		rc = tg_storage_list_manifests(&objs, &n, s);
	if (rc)
		snprintf(detail, sizeof(detail), "%s", tg_error_last());
	else
		snprintf(detail, sizeof(detail), "%s %s listed, %zu manifest%s", tg_storage_kind(s),
		         tg_storage_describe(s), n, n == 1 ? "" : "s");
	tg_storage_objs_free(objs, n);
	tg_storage_free(s);
	result(t, "storage", !rc, detail);
}

/* The access a forge's answer about a repository gives the token: 1 may
 * post statuses, 0 may not (*why says so), -1 the answer does not say. */
static int may_post(const char *kind, const char *body, char *why, size_t cap)
{
	json_t *j = json_loads(body, 0, NULL);
	int r = -1;
	if (!j)
		return -1;
	json_t *p = json_object_get(j, "permissions");
	if (!strcmp(kind, "gitlab")) {
		long level = 0;
		const char *keys[] = {"project_access", "group_access"};
		for (int i = 0; i < 2; i++) {
			json_t *a = json_object_get(p, keys[i]);
			long v = (long)json_integer_value(json_object_get(a, "access_level"));
			if (v > level)
				level = v;
		}
		if (json_is_object(p)) {
			r = level >= 30;
			if (!r)
				snprintf(why, cap, "access level %ld (statuses need Developer, 30)", level);
		}
	} else if (json_is_object(p) && json_object_get(p, "push")) {
		r = json_is_true(json_object_get(p, "push"));
		if (!r)
			snprintf(why, cap,
			         "may not write to the repository (permissions.push is false): it cannot post "
			         "statuses");
	}
	json_decref(j);
	return r;
}

/* A forge's API as the probe calls it: the token's header, and the URLs
 * of "who is this token" (GET /user) and of the repository. */
struct forge_probe {
	const char *api; /* api_url without its trailing slashes (api_len bytes) */
	int api_len;
	char auth[1024], user_url[2048], repo_url[2048];
	tg_http *h;
};

static void probe_urls(struct forge_probe *p, const tg_config_forge *f, const char *repo)
{
	p->api = f->api_url ? f->api_url : "";
	size_t al = strlen(p->api);
	while (al && p->api[al - 1] == '/')
		al--;
	p->api_len = (int)al;
	const char *token = f->token.value ? f->token.value : "";
	snprintf(p->user_url, sizeof(p->user_url), "%.*s/user", p->api_len, p->api);
	if (!strcmp(f->kind, "gitlab")) {
		char *enc = curl_easy_escape(NULL, repo, 0);
		snprintf(p->repo_url, sizeof(p->repo_url), "%.*s/projects/%s", p->api_len, p->api, enc ? enc : repo);
		curl_free(enc);
		snprintf(p->auth, sizeof(p->auth), "PRIVATE-TOKEN: %s", token);
	} else {
		snprintf(p->repo_url, sizeof(p->repo_url), "%.*s/repos/%s", p->api_len, p->api, repo);
		snprintf(p->auth, sizeof(p->auth), "Authorization: %s %s",
		         strcmp(f->kind, "github") ? "token" : "Bearer", token);
	}
}

/* GET url with the token, once. Returns 0 with *resp filled (any status),
 * or the transport's error (tg_error_last). */
static int probe_get(tg_http_response *resp, struct forge_probe *p, const char *url)
{
	const char *headers[] = {p->auth, "Accept: application/json", NULL};
	tg_http_req req = {"GET", url, headers, NULL, 0, TG_HTTP_IDEMPOTENT, NULL, NULL, NULL, 1 << 20};
	memset(resp, 0, sizeof(*resp));
	return tg_http_do(resp, p->h, &req);
}

/* A status that is not 200 as one line into detail; 0 when it is 200. */
static int refused(char *detail, size_t cap, const char *url, long status)
{
	if (status == 200)
		return 0;
	if (status == 401)
		snprintf(detail, cap, "GET %s: 401: the token was refused (expired, revoked or wrong)", url);
	else if (status == 403)
		snprintf(detail, cap, "GET %s: 403: the token may not read the repository", url);
	else if (status == 404)
		snprintf(detail, cap, "GET %s: 404: no such repository, or the token cannot see it", url);
	else
		snprintf(detail, cap, "GET %s: HTTP %ld", url, status);
	return 1;
}

/* Who the token is (GitHub and Gitea: login; GitLab: username) into who,
 * from GET /user. Returns 0, or 1 with detail saying why not. */
static int probe_identity(char *who, size_t wcap, char *detail, size_t cap, struct forge_probe *p)
{
	tg_http_response resp;
	int rc = probe_get(&resp, p, p->user_url), bad = 1;
	if (rc) {
		snprintf(detail, cap, "%s", tg_error_last());
	} else if (!refused(detail, cap, p->user_url, resp.status)) {
		json_t *j = json_loads(resp.body, 0, NULL);
		const char *name = json_string_value(json_object_get(j, "login"));
		if (!name)
			name = json_string_value(json_object_get(j, "username"));
		if (name) {
			snprintf(who, wcap, "%s", name);
			bad = 0;
		} else {
			snprintf(detail, cap, "GET %s: the answer names no login or username: is api_url the API's?",
			         p->user_url);
		}
		json_decref(j);
	}
	tg_http_response_free(&resp);
	return bad;
}

/* What the repository's answer says the token may do: ok 1 (may post, or
 * the answer does not say), 0 (detail says why). */
static int probe_repository(char *detail, size_t cap, struct forge_probe *p, const tg_config_forge *f, const char *repo,
                            const char *who)
{
	tg_http_response resp;
	int rc = probe_get(&resp, p, p->repo_url), ok = 0;
	if (rc) {
		snprintf(detail, cap, "%s", tg_error_last());
	} else if (!refused(detail, cap, p->repo_url, resp.status)) {
		char why[300] = "";
		int may = may_post(f->kind, resp.body, why, sizeof(why));
		ok = may != 0;
		if (may == 0)
			snprintf(detail, cap, "the token of %s on %s: %s", who, repo, why);
		else
			snprintf(detail, cap, "%s %.*s: the token of %s is accepted%s", f->kind, p->api_len, p->api,
			         who,
			         may > 0 ? " and may post statuses" : " (the answer does not show its permissions)");
	}
	tg_http_response_free(&resp);
	return ok;
}

/* The forge of repository r: an outbox's folder writable; an API asked who
 * the token is (a wrong token fails here), then for the repository and
 * what the token may do there (a token without push fails here). */
static void check_forge(struct tally *t, const tg_config *c, const tg_config_repo *r)
{
	const tg_config_forge *f = r->forge_ptr;
	char what[300], detail[2600];
	snprintf(what, sizeof(what), "forge %s (%s)", f ? f->name : "?", r->name);
	if (!f) {
		result(t, what, 0, "no forge");
		return;
	}
	if (!strcmp(f->kind, "outbox")) {
		int ok = f->outbox && (!access(f->outbox, W_OK) || errno == ENOENT);
		snprintf(detail, sizeof(detail), "outbox %s %s", f->outbox ? f->outbox : "?",
		         ok ? "writable" : strerror(errno));
		result(t, what, ok, detail);
		return;
	}
	struct forge_probe p;
	memset(&p, 0, sizeof(p));
	probe_urls(&p, f, r->name);
	tg_http_opts ho;
	http_opts_for_check(&ho, c, f->tls_verify, f->ca_file);
	char who[256] = "";
	int ok = 0;
	if (tg_http_new(&p.h, &ho))
		snprintf(detail, sizeof(detail), "%s", tg_error_last());
	else if (!probe_identity(who, sizeof(who), detail, sizeof(detail), &p))
		ok = probe_repository(detail, sizeof(detail), &p, f, r->name, who);
	tg_http_free(p.h);
	explicit_bzero(p.auth, sizeof(p.auth));
	result(t, what, ok, detail);
}

static void check_git(struct tally *t, const tg_config_repo *r)
{
	char what[300], detail[1400];
	snprintf(what, sizeof(what), "git %s", r->name);
	const tg_config_forge *f = r->forge_ptr;
	tg_git_opts go = {r->git_token.value, NULL, f && !f->tls_verify, f ? f->ca_file : NULL};
	size_t n = 0;
	int rc = tg_git_ls_remote(&n, r->clone_url, &go);
	if (rc)
		snprintf(detail, sizeof(detail), "%s", tg_error_last());
	else
		snprintf(detail, sizeof(detail), "%zu reference%s advertised", n, n == 1 ? "" : "s");
	result(t, what, !rc, detail);
}

int tg_daemon_check_connect(FILE *out, char *failed, size_t cap, const tg_config *c)
{
	struct tally t = {out, 0, 0, ""};
	check_database(&t, c);
	check_storage(&t, c);
	for (size_t i = 0; i < c->nrepos; i++) {
		check_forge(&t, c, &c->repos[i]);
		check_git(&t, &c->repos[i]);
	}
	if (failed)
		snprintf(failed, cap, "%s", t.names);
	return (int)t.failed;
}
