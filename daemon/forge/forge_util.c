/*
 * forge_util.c - what the network backends share: URLs, one request with
 * the forge's headers, judging a response, reading its JSON defensively,
 * and walking every page of a listing.
 */
#include "forge_impl.h"
#include "../../util/tg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *tg_forge_url(const tg_forge *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	size_t al = strlen(f->api);
	char *u = tg_malloc(al + (size_t)n + 1);
	if (!u)
		return NULL;
	memcpy(u, f->api, al);
	va_start(ap, fmt);
	vsnprintf(u + al, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return u;
}

int tg_forge_split_repo(char **owner, char **name, const tg_forge *f, const char *repo)
{
	*owner = *name = NULL;
	const char *slash = strchr(repo, '/');
	if (!slash || slash == repo || !slash[1] || strchr(slash + 1, '/'))
		return tg_error_set(TG_EINVAL, "%s: repository '%s' is not owner/name", f->name, repo);
	char *o = strndup(repo, (size_t)(slash - repo));
	if (!o)
		return tg_error_set(TG_ENOMEM, "out of memory");
	*owner = tg_http_escape(o, 0);
	free(o);
	*name = tg_http_escape(slash + 1, 0);
	if (!*owner || !*name) {
		free(*owner);
		free(*name);
		*owner = *name = NULL;
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	return 0;
}

/* Replaces the token in the current error message, should a server have
 * echoed it back in a body that the message quotes. */
static int scrub(const tg_forge *f, int code)
{
	const char *m = tg_error_last();
	if (!f->token || !*f->token || !strstr(m, f->token))
		return code;
	char buf[1024];
	size_t k = 0, tl = strlen(f->token);
	for (const char *p = m; *p && k + 8 < sizeof(buf);) {
		if (!strncmp(p, f->token, tl)) {
			memcpy(buf + k, "[token]", 7);
			k += 7;
			p += tl;
		} else {
			buf[k++] = *p++;
		}
	}
	buf[k] = 0;
	return tg_error_set(code, "%s", buf);
}

int tg_forge_send(tg_http_response *r, tg_forge *f, const char *method, const char *url, const json_t *body,
                  tg_http_retry retry)
{
	char *text = NULL;
	if (body) {
		text = json_dumps(body, JSON_COMPACT);
		if (!text) {
			memset(r, 0, sizeof(*r));
			return tg_error_set(TG_ENOMEM, "%s: %s %s: cannot encode the request as JSON", f->name, method, url);
		}
	}
	tg_http_req q = {
		.method = method,
		.url = url,
		.headers = body ? f->headers_json : f->headers,
		.body = text,
		.len = text ? strlen(text) : 0,
		.retry = retry,
		.max_body = 16u << 20,
	};
	int rc = tg_http_do(r, f->http, &q);
	free(text);
	if (rc) {
		char m[1024];
		snprintf(m, sizeof(m), "%s", tg_error_last());
		tg_error_set(rc, "%s: %s", f->name, m);
		return scrub(f, rc);
	}
	return 0;
}

int tg_forge_check(tg_forge *f, const char *method, const char *url, const tg_http_response *r)
{
	if (r->status >= 200 && r->status < 300)
		return 0;
	char d[900];
	tg_http_describe(d, sizeof(d), method, url, r);
	int code = r->status == 404 ? TG_ENOTFOUND : tg_http_is_rate_limited(r) ? TG_ELIMIT : TG_EIO;
	tg_error_set(code, "%s: %s%s", f->name, d, r->ambiguous ? " (it may have taken effect)" : "");
	return scrub(f, code);
}

static const char *json_type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "unknown";
}

/* s with its control characters as '?': text a server wrote, made one
 * line for a message. */
static void no_controls(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* url without its query, for a message: one line even when a server wrote
 * the URL (libcurl keeps a lone CR inside a header). */
static void url_no_query(char *buf, size_t cap, const char *url)
{
	snprintf(buf, cap, "%.*s", (int)strcspn(url, "?#"), url);
	no_controls(buf);
}

int tg_forge_json(json_t **out, tg_forge *f, const char *method, const char *url, const tg_http_response *r,
                  json_type want)
{
	*out = NULL;
	char u[512];
	url_no_query(u, sizeof(u), url);
	json_error_t e;
	json_t *j = json_loadb(r->body ? r->body : "", r->len, JSON_DECODE_ANY, &e);
	if (!j) {
		no_controls(e.text); /* jansson quotes the answer near the error */
		return tg_error_set(TG_EFORMAT, "%s: %s %s: HTTP %ld: the response is not JSON (%s at byte %d)", f->name,
		                    method, u, r->status, e.text, e.position);
	}
	if (json_typeof(j) != want) {
		const char *got = json_type_name(j);
		json_decref(j);
		return tg_error_set(TG_EFORMAT, "%s: %s %s: HTTP %ld: the response is %s, not %s", f->name, method, u,
		                    r->status, got, want == JSON_ARRAY ? "an array" : "an object");
	}
	*out = j;
	return 0;
}

int tg_forge_json_id(int64_t *id, tg_forge *f, const char *what, const json_t *obj, const char *key)
{
	*id = 0;
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	if (!json_is_integer(v) || json_integer_value(v) <= 0)
		return tg_error_set(TG_EFORMAT, "%s: %s: \"%s\" is %s, not a positive integer", f->name, what, key,
		                    v ? json_type_name(v) : "missing");
	*id = (int64_t)json_integer_value(v);
	return 0;
}

int tg_forge_json_str(const char **out, tg_forge *f, const char *what, const json_t *obj, const char *key)
{
	*out = NULL;
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return tg_error_set(TG_EFORMAT, "%s: %s: \"%s\" is %s, not a string", f->name, what, key, json_type_name(v));
	*out = json_string_value(v);
	return 0;
}

/* The length of scheme://host[:port] at the start of url, or 0. */
static size_t origin_len(const char *url)
{
	const char *p = strstr(url, "://");
	if (!p)
		return 0;
	p += 3;
	return (size_t)(p - url) + strcspn(p, "/?#");
}

int tg_forge_same_origin(const tg_forge *f, const char *url)
{
	if (!f->api || !url)
		return 0;
	size_t a = origin_len(f->api), b = origin_len(url);
	return a && a == b && !strncasecmp(f->api, url, a);
}

/* The next page's URL after a response, or NULL at the end (rc 0). */
int tg_forge_next_page(char **next, tg_forge *f, const char *prefix, const tg_http_response *r, long *page,
                       size_t got, size_t seen)
{
	*next = NULL;
	const char *v;
	if (r->link_next) {
		if (r->link_next[0] == '/') { /* a path: on the API's host */
			size_t o = origin_len(f->api);
			*next = tg_malloc(o + strlen(r->link_next) + 1);
			if (*next)
				sprintf(*next, "%.*s%s", (int)o, f->api, r->link_next);
		} else if (!tg_forge_same_origin(f, r->link_next)) {
			char u[256];
			url_no_query(u, sizeof(u), r->link_next);
			tg_error_set(TG_EFORMAT, "%s: the next page (%s) is not on the API's host: not followed", f->name, u);
			return scrub(f, TG_EFORMAT); /* the server wrote that URL */
		} else {
			*next = strdup(r->link_next);
		}
		(*page)++;
		return *next ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
	}
	long np = 0;
	if ((v = tg_http_header(r, "x-next-page")) && *v) {
		np = strtol(v, NULL, 10);
		if (np <= *page)
			return 0;
		if (np > TG_FORGE_MAX_PAGE_NUMBER) /* page + 1 must stay a long */
			return tg_error_set(TG_EFORMAT, "%s: the next page's number (x-next-page) is above %d", f->name,
			                    TG_FORGE_MAX_PAGE_NUMBER);
	} else if ((v = tg_http_header(r, "x-total-count")) && got > 0) {
		char *end;
		errno = 0;
		long long total = strtoll(v, &end, 10);
		if (end == v || errno || total < 0 || (unsigned long long)total <= seen)
			return 0;
		np = *page + 1;
	} else {
		return 0;
	}
	*next = tg_malloc(strlen(prefix) + 24);
	if (!*next)
		return TG_ENOMEM;
	sprintf(*next, "%s%ld", prefix, np);
	*page = np;
	return 0;
}

int tg_forge_get_pages(tg_forge *f, const char *prefix, tg_forge_page_fn fn, void *ctx)
{
	char *url = tg_malloc(strlen(prefix) + 2);
	if (!url)
		return TG_ENOMEM;
	sprintf(url, "%s1", prefix);
	long page = 1;
	size_t seen = 0;
	int rc = 0;
	for (int n = 0; url; n++) {
		if (n == TG_FORGE_MAX_PAGES) {
			char u[256];
			url_no_query(u, sizeof(u), url);
			rc = tg_error_set(TG_ELIMIT, "%s: GET %s: more than %d pages", f->name, u, TG_FORGE_MAX_PAGES);
			break;
		}
		tg_http_response r;
		json_t *items = NULL;
		rc = tg_forge_send(&r, f, "GET", url, NULL, TG_HTTP_IDEMPOTENT);
		if (!rc)
			rc = tg_forge_check(f, "GET", url, &r);
		if (!rc)
			rc = tg_forge_json(&items, f, "GET", url, &r, JSON_ARRAY);
		if (!rc)
			rc = fn(ctx, f, url, items);
		char *next = NULL;
		if (!rc) {
			size_t got = json_array_size(items);
			seen += got;
			rc = tg_forge_next_page(&next, f, prefix, &r, &page, got, seen);
		}
		json_decref(items);
		tg_http_response_free(&r);
		free(url);
		url = next;
		if (rc)
			break;
	}
	free(url);
	return rc;
}

int tg_forge_pr_from_json(tg_forge_pr *out, tg_forge *f, const json_t *pr, const char *open_word,
                          const char *head_key, const char *base_key, const char *ref_key)
{
	const char *keys[4] = {"state", head_key, base_key, ref_key};
	const char *val[4] = {NULL, NULL, NULL, NULL};
	for (int i = 0; i < 4; i++) {
		char k[64];
		snprintf(k, sizeof(k), "%s", keys[i]);
		char *dot = strchr(k, '.');
		const json_t *o = pr;
		if (dot) {
			*dot = 0;
			o = json_object_get(pr, k);
		}
		int rc = tg_forge_json_str(&val[i], f, "GET pull request", o, dot ? dot + 1 : k);
		if (rc)
			return rc;
	}
	out->open = val[0] && !strcmp(val[0], open_word);
	size_t n = 0;
	while (val[1] && n < 41 && ((val[1][n] >= '0' && val[1][n] <= '9') || (val[1][n] >= 'a' && val[1][n] <= 'f')))
		n++;
	if (val[1] && n == 40 && !val[1][n])
		memcpy(out->head, val[1], 41);
	/* where the branch is (GitHub, Gitea: head.repo.full_name; a fork's) */
	const char *hr = json_string_value(json_object_get(json_object_get(json_object_get(pr, "head"), "repo"), "full_name"));
	if ((val[2] && !(out->base = strdup(val[2]))) || (val[3] && !(out->head_ref = strdup(val[3]))) ||
	    (hr && !(out->head_repo = strdup(hr))))
		return tg_error_set(TG_ENOMEM, "out of memory");
	return 0;
}

int tg_forge_get_object(json_t **out, tg_forge *f, const char *url)
{
	*out = NULL;
	tg_http_response r;
	int rc = tg_forge_send(&r, f, "GET", url, NULL, TG_HTTP_IDEMPOTENT);
	if (!rc)
		rc = tg_forge_check(f, "GET", url, &r);
	if (!rc)
		rc = tg_forge_json(out, f, "GET", url, &r, JSON_OBJECT);
	tg_http_response_free(&r);
	return rc;
}

int tg_forge_repo_author_can_write(char **login, int *can, tg_forge *f, const char *repo, const char *sha,
                                   const char *commit_path)
{
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, repo);
	if (rc)
		return rc;
	char *url = tg_forge_url(f, "/repos/%s/%s%s%s", o, r, commit_path, sha);
	json_t *j = NULL;
	rc = url ? tg_forge_get_object(&j, f, url) : TG_ENOMEM;
	const char *who = NULL;
	if (!rc)
		rc = tg_forge_json_str(&who, f, "GET commit", json_object_get(j, "author"), "login");
	if (!rc && who && *who && !(*login = strdup(who)))
		rc = TG_ENOMEM;
	json_decref(j);
	j = NULL;
	free(url);
	url = NULL;
	if (!rc && *login) {
		char *u = tg_http_escape(*login, 0);
		url = u ? tg_forge_url(f, "/repos/%s/%s/collaborators/%s/permission", o, r, u) : NULL;
		free(u);
		rc = url ? tg_forge_get_object(&j, f, url) : TG_ENOMEM;
		const char *perm = NULL;
		if (rc == TG_ENOTFOUND) {
			rc = 0; /* not a collaborator */
		} else if (!rc && !(rc = tg_forge_json_str(&perm, f, "GET permission", j, "permission")) && perm) {
			*can = !strcmp(perm, "admin") || !strcmp(perm, "write") || !strcmp(perm, "maintain") ||
			       !strcmp(perm, "owner");
		}
	}
	json_decref(j);
	free(url);
	free(o);
	free(r);
	return rc;
}

int tg_forge_self_id(int64_t *id, tg_forge *f)
{
	*id = 0;
	if (f->self_id) {
		*id = f->self_id;
		return 0;
	}
	char *url = tg_forge_url(f, "/user");
	if (!url)
		return TG_ENOMEM;
	tg_http_response r;
	json_t *j = NULL;
	int rc = tg_forge_send(&r, f, "GET", url, NULL, TG_HTTP_IDEMPOTENT);
	if (!rc)
		rc = tg_forge_check(f, "GET", url, &r);
	if (!rc)
		rc = tg_forge_json(&j, f, "GET", url, &r, JSON_OBJECT);
	if (!rc)
		rc = tg_forge_json_id(&f->self_id, f, "GET /user", j, "id");
	json_decref(j);
	tg_http_response_free(&r);
	free(url);
	*id = f->self_id;
	return rc;
}

int tg_forge_marker_page(void *ctx, tg_forge *f, const char *url, json_t *items)
{
	struct tg_forge_marker_search *m = ctx;
	char what[300];
	snprintf(what, sizeof(what), "GET %.*s", (int)strcspn(url, "?#"), url);
	size_t i;
	json_t *c;
	json_array_foreach(items, i, c) {
		if (!json_is_object(c))
			return tg_error_set(TG_EFORMAT, "%s: %s: item %zu is %s, not a comment object", f->name, what, i,
			                    json_type_name(c));
		int64_t id;
		const char *body;
		int rc = tg_forge_json_id(&id, f, what, c, "id");
		if (!rc)
			rc = tg_forge_json_str(&body, f, what, c, "body");
		if (rc)
			return rc;
		if (!body || !tg_forge_has_marker_line(body, m->marker) || (m->id && id >= m->id))
			continue;
		/* only the daemon's own comment: asked of the forge at the first match */
		int64_t self, author = 0;
		const json_t *who = json_object_get(c, m->author_key ? m->author_key : "user");
		if ((rc = tg_forge_self_id(&self, f)))
			return rc;
		if (json_is_object(who) && (rc = tg_forge_json_id(&author, f, what, who, "id")))
			return rc;
		if (author != self)
			continue;
		m->id = id;
	}
	return 0;
}

int tg_forge_label_push(tg_forge_label **l, size_t *n, const char *name, const char *by)
{
	tg_forge_label *g = tg_realloc(*l, (*n + 1) * sizeof(**l));
	if (!g)
		return TG_ENOMEM;
	*l = g;
	g[*n].name = strdup(name);
	g[*n].by = by ? strdup(by) : NULL;
	if (!g[*n].name || (by && !g[*n].by)) {
		free(g[*n].name);
		free(g[*n].by);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	(*n)++;
	return 0;
}

int tg_forge_send_body(int64_t *id, int *ambiguous, tg_forge *f, const char *method, const char *url, const char *body,
                       tg_http_retry retry)
{
	if (ambiguous)
		*ambiguous = 0;
	if (id)
		*id = 0;
	json_t *b = json_object();
	if (!b || json_object_set_new(b, "body", json_string(body))) {
		json_decref(b);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	tg_http_response r;
	int rc = tg_forge_send(&r, f, method, url, b, retry);
	json_decref(b);
	if (!rc)
		rc = tg_forge_check(f, method, url, &r);
	if (rc) {
		if (ambiguous)
			*ambiguous = r.ambiguous;
	} else if (id) {
		json_t *j;
		rc = tg_forge_json(&j, f, method, url, &r, JSON_OBJECT);
		if (!rc) {
			char what[300];
			snprintf(what, sizeof(what), "%s %.*s", method, (int)strcspn(url, "?#"), url);
			rc = tg_forge_json_id(id, f, what, j, "id");
			json_decref(j);
		}
		if (rc && ambiguous)
			*ambiguous = 1; /* it worked, but we cannot tell which one it is */
	}
	tg_http_response_free(&r);
	return rc;
}

int tg_forge_label_page(void *ctx, tg_forge *f, const char *url, json_t *items)
{
	struct tg_forge_labels_ctx *x = ctx;
	size_t i;
	json_t *it;
	json_array_foreach(items, i, it) {
		const char *name;
		int rc = tg_forge_json_str(&name, f, "GET labels", it, "name");
		if (!rc && !name)
			rc = tg_error_set(TG_EFORMAT, "%s: GET %.*s: label %zu has no name", f->name, (int)strcspn(url, "?"),
			                  url, i);
		if (!rc)
			rc = tg_forge_label_push(x->l, x->n, name, NULL);
		if (rc)
			return rc;
	}
	return 0;
}

int tg_forge_post_repo_status(tg_forge *f, const tg_forge_status *s, tg_forge_kind kind)
{
	char *o, *r;
	int rc = tg_forge_split_repo(&o, &r, f, s->repo);
	if (rc)
		return rc;
	char *desc = tg_forge_trim_description(s->description, tg_forge_description_limit(kind));
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
