/*
 * check.c - `tracegate daemon --check`'s connectivity checks (daemon.h:
 * tg_daemon_check_connect): what the daemon will talk to, tried the way it
 * will talk to it, before it is trusted to run unattended.
 *
 *   database   opened (and migrated, as the daemon would), its leases read
 *   storage    the manifests listed (S3: a signed ListObjectsV2, so a wrong
 *              key, region or bucket shows here)
 *   forge      per repository, its forge's API asked for the repository with
 *              the token: reachable, the token accepted, and allowed to post
 *              statuses (GitHub and Gitea: permissions.push; GitLab: access
 *              level Developer or more); an outbox: its folder writable
 *   git        per repository, clone_url's references listed with the token
 *
 * Each check says ok or FAIL with the reason on one line of out; requests
 * are tried once (no retries), so that a dead endpoint fails in seconds.
 */
#include "daemon.h"
#include "../core/tg.h"
#include "git/git.h"
#include "forge/http.h"
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
				snprintf(why, cap, "the token's access level is %ld (statuses need Developer, 30)", level);
		}
	} else if (json_is_object(p) && json_object_get(p, "push")) {
		r = json_is_true(json_object_get(p, "push"));
		if (!r)
			snprintf(why, cap, "the token may not write to the repository (permissions.push is false): "
			                   "it cannot post statuses");
	}
	json_decref(j);
	return r;
}

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
	char url[2048], auth[1024];
	const char *api = f->api_url ? f->api_url : "";
	size_t al = strlen(api);
	while (al && api[al - 1] == '/')
		al--;
	if (!strcmp(f->kind, "gitlab")) {
		char *enc = curl_easy_escape(NULL, r->name, 0);
		snprintf(url, sizeof(url), "%.*s/projects/%s", (int)al, api, enc ? enc : r->name);
		curl_free(enc);
		snprintf(auth, sizeof(auth), "PRIVATE-TOKEN: %s", f->token.value ? f->token.value : "");
	} else {
		snprintf(url, sizeof(url), "%.*s/repos/%s", (int)al, api, r->name);
		snprintf(auth, sizeof(auth), "Authorization: %s %s", strcmp(f->kind, "github") ? "token" : "Bearer",
		         f->token.value ? f->token.value : "");
	}
	const char *headers[] = {auth, "Accept: application/json", NULL};
	tg_http_opts ho;
	http_opts_for_check(&ho, c, f->tls_verify, f->ca_file);
	tg_http *h = NULL;
	tg_http_response resp;
	memset(&resp, 0, sizeof(resp));
	int rc = tg_http_new(&h, &ho);
	tg_http_req req = {"GET", url, headers, NULL, 0, TG_HTTP_IDEMPOTENT, NULL, NULL, NULL, 1 << 20};
	if (!rc)
		rc = tg_http_do(&resp, h, &req);
	int ok = 0;
	if (rc) {
		snprintf(detail, sizeof(detail), "%s", tg_error_last());
	} else if (resp.status == 401) {
		snprintf(detail, sizeof(detail), "GET %s: 401: the token was refused (expired, revoked or wrong)", url);
	} else if (resp.status == 403) {
		snprintf(detail, sizeof(detail), "GET %s: 403: the token may not read the repository", url);
	} else if (resp.status == 404) {
		snprintf(detail, sizeof(detail), "GET %s: 404: no such repository, or the token cannot see it", url);
	} else if (resp.status != 200) {
		snprintf(detail, sizeof(detail), "GET %s: HTTP %ld", url, resp.status);
	} else {
		char why[300] = "";
		int p = may_post(f->kind, resp.body, why, sizeof(why));
		ok = p != 0;
		if (p == 0)
			snprintf(detail, sizeof(detail), "%s", why);
		else
			snprintf(detail, sizeof(detail), "%s %s: the token is accepted%s", f->kind, api,
			         p > 0 ? " and may post statuses" : " (the answer does not show its permissions)");
	}
	tg_http_response_free(&resp);
	tg_http_free(h);
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
