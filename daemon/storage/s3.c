/*
 * s3.c - the S3 client of s3.h: path-style URLs, SigV4 through libcurl's
 * CURLOPT_AWS_SIGV4 (http.h's aws_sigv4 + userpwd), and what libcurl 7.88
 * leaves out (../shared/notes/infra.md, 1e):
 *
 *  - x-amz-content-sha256 on every request, the hex SHA-256 of the body
 *    (of "" for GET). libcurl signs it as one of our headers; S3 refuses a
 *    SigV4 request without it, and radosgw checks it against the body;
 *  - the query string in canonical form (sorted, RFC 3986, "key="):
 *    7.88 signs the query verbatim, so the URL carries the canonical form;
 *  - each key segment percent-encoded except '/', so that the path libcurl
 *    signs is the canonical URI S3 computes;
 *  - uploads with a Content-Length (http.c posts a buffer of known size):
 *    a chunked upload gets 411 from real S3 and radosgw.
 *
 * Error answers (<Error><Code>) become "S3 GET s3://bucket/key: HTTP 403
 * SignatureDoesNotMatch". The credentials only travel in the userpwd of
 * the request (never in a URL or a message).
 */
#include "s3.h"
#include "../../util/sha256.h"
#include "xml_walk.h"
#include "../../util/tg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct tg_s3 {
	tg_http *http;
	char *endpoint; /* without a trailing '/' */
	char *bucket;
	char *bucket_esc;
	char *sigv4;    /* "aws:amz:REGION:s3" */
	char *userpwd;  /* "ACCESS:SECRET" */
};

void tg_s3_free(tg_s3 *s)
{
	if (!s)
		return;
	tg_http_free(s->http);
	free(s->endpoint);
	free(s->bucket);
	free(s->bucket_esc);
	free(s->sigv4);
	if (s->userpwd) {
		/* the secret does not outlive the client in freed memory */
		volatile char *p = s->userpwd;
		while (*p)
			*p++ = 0;
		free(s->userpwd);
	}
	free(s);
}

static char *cat(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *s = malloc(la + lb + lc + 1);
	if (!s) {
		tg_error_set(TG_ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	memcpy(s + la + lb, c, lc + 1);
	return s;
}

static int has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

int tg_s3_new(tg_s3 **out, const tg_s3_opts *o)
{
	*out = NULL;
	if (!o || !o->endpoint || !o->bucket || !*o->bucket || !o->access_key || !*o->access_key ||
	    !o->secret_key || !*o->secret_key)
		return tg_error_set(TG_EINVAL, "S3: an endpoint, a bucket and credentials are needed");
	if (strncmp(o->endpoint, "http://", 7) && strncmp(o->endpoint, "https://", 8))
		return tg_error_set(TG_EINVAL, "S3: the endpoint '%.200s' is not an http:// or https:// URL", o->endpoint);
	/* user:password@ in the URL would reach messages (and bypass userpwd) */
	const char *auth = strstr(o->endpoint, "//") + 2;
	if (memchr(auth, '@', strcspn(auth, "/")))
		return tg_error_set(TG_EINVAL, "S3: the endpoint must not hold credentials (use access_key and secret_key)");
	if (strpbrk(o->endpoint, "?# ") || has_ctl(o->endpoint))
		return tg_error_set(TG_EINVAL, "S3: the endpoint '%.200s' must not have a query or a fragment",
		                    o->endpoint);
	if (strchr(o->bucket, '/') || has_ctl(o->bucket))
		return tg_error_set(TG_EINVAL, "S3: bad bucket name '%.100s'", o->bucket);
	const char *region = o->region && *o->region ? o->region : "us-east-1";
	if (strchr(region, ':') || has_ctl(region))
		return tg_error_set(TG_EINVAL, "S3: bad region '%.100s'", region);
	/* libcurl splits userpwd at the first ':'; the secret may hold one */
	if (strchr(o->access_key, ':'))
		return tg_error_set(TG_EINVAL, "S3: the access key must not contain ':'");
	tg_s3 *s = tg_calloc(1, sizeof(*s));
	if (!s)
		return TG_ENOMEM;
	int rc = tg_http_new(&s->http, &o->http);
	if (rc) {
		tg_s3_free(s);
		return rc;
	}
	s->endpoint = strdup(o->endpoint);
	s->bucket = strdup(o->bucket);
	s->bucket_esc = tg_http_escape(o->bucket, 0);
	s->sigv4 = cat("aws:amz:", region, ":s3");
	s->userpwd = cat(o->access_key, ":", o->secret_key);
	if (!s->endpoint || !s->bucket || !s->bucket_esc || !s->sigv4 || !s->userpwd) {
		tg_s3_free(s);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	size_t el = strlen(s->endpoint);
	while (el > 8 && s->endpoint[el - 1] == '/')
		s->endpoint[--el] = 0;
	*out = s;
	return 0;
}

/* ------------------------------------------------------------ query, URLs */

struct qpair {
	char *k, *v;
};

static int qpair_cmp(const void *a, const void *b)
{
	const struct qpair *x = a, *y = b;
	int c = strcmp(x->k, y->k);
	return c ? c : strcmp(x->v, y->v);
}

char *tg_s3_canonical_query(const char *const *pairs, size_t npairs)
{
	struct qpair *q = tg_calloc(npairs ? npairs : 1, sizeof(*q));
	if (!q)
		return NULL;
	char *res = NULL;
	size_t total = 1;
	for (size_t i = 0; i < npairs; i++) {
		if (!pairs[2 * i]) {
			tg_error_set(TG_EINVAL, "S3: a query parameter without a name");
			goto done;
		}
		q[i].k = tg_http_escape(pairs[2 * i], 0);
		q[i].v = tg_http_escape(pairs[2 * i + 1] ? pairs[2 * i + 1] : "", 0);
		if (!q[i].k || !q[i].v)
			goto done;
		total += strlen(q[i].k) + strlen(q[i].v) + 2;
	}
	qsort(q, npairs, sizeof(*q), qpair_cmp);
	res = tg_malloc(total);
	if (!res)
		goto done;
	size_t k = 0;
	for (size_t i = 0; i < npairs; i++) {
		k += (size_t)sprintf(res + k, "%s%s=%s", i ? "&" : "", q[i].k, q[i].v);
	}
	res[k] = 0;
done:
	for (size_t i = 0; i < npairs; i++) {
		free(q[i].k);
		free(q[i].v);
	}
	free(q);
	return res;
}

/* A key S3 and libcurl can address: not empty, at most 1024 bytes, and no
 * "." or ".." segment (libcurl would squash it, RFC 3986 5.2.4, and ask
 * for another object than the one signed). */
static int key_check(const tg_s3 *s, const char *key)
{
	if (!key || !*key || strlen(key) > 1024)
		return tg_error_set(TG_EINVAL, "S3 s3://%s: empty or over-long key", s->bucket);
	for (const char *seg = key;;) {
		size_t len = strcspn(seg, "/");
		if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
			return tg_error_set(TG_EINVAL, "S3 s3://%s: the key has a '.' or '..' segment", s->bucket);
		if (!seg[len])
			return 0;
		seg += len + 1;
	}
}

/* "http://host:port/bucket/esc(key)" */
static char *object_url(const tg_s3 *s, const char *key)
{
	char *k = tg_http_escape(key, 1);
	if (!k)
		return NULL;
	size_t n = strlen(s->endpoint) + strlen(s->bucket_esc) + strlen(k) + 3;
	char *u = tg_malloc(n);
	if (u)
		snprintf(u, n, "%s/%s/%s", s->endpoint, s->bucket_esc, k);
	free(k);
	return u;
}

/* A key for a message: printable, at most 300 bytes. */
static void key_for_message(char *out, size_t cap, const char *key)
{
	size_t k = 0;
	for (size_t i = 0; key && key[i] && k + 4 < cap && i < 300; i++) {
		unsigned char c = (unsigned char)key[i];
		out[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (key && strlen(key) > 300 && k + 4 < cap) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = 0;
}

/* ------------------------------------------------------------ errors */

struct errdoc {
	char code[64];
};

static int err_end(void *ud, const char *name, size_t len, int depth, const char *text, size_t tlen, int leaf,
                   size_t off)
{
	(void)off;
	struct errdoc *e = ud;
	if (depth != 2 || !leaf || !tg_xml_is(name, len, "Code"))
		return 0;
	/* S3 codes are words ("NoSuchKey"); anything else is not echoed */
	size_t k = 0;
	for (size_t i = 0; i < tlen && k + 1 < sizeof(e->code); i++) {
		char c = text[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
		    c == '_' || c == '-')
			e->code[k++] = c;
	}
	e->code[k] = 0;
	return 0;
}

static int err_start(void *ud, const char *name, size_t len, int depth, size_t off)
{
	(void)ud;
	(void)off;
	/* not an <Error> document: stop (the caller ignores the failure) */
	return depth == 1 && !tg_xml_is(name, len, "Error") ? TG_EFORMAT : 0;
}

/* The error for a non-2xx answer: TG_ENOTFOUND for a 404 on a key when
 * notfound (not for NoSuchBucket: that is a configuration error), TG_EIO
 * otherwise. */
static int s3_fail(const tg_s3 *s, const char *op, const char *key, const tg_http_response *r, int notfound)
{
	struct errdoc e = {""};
	static const tg_xml_handler h = {err_start, err_end};
	if (r->len)
		tg_xml_walk(r->body, r->len, &h, &e, "S3 Error");
	char k[320];
	key_for_message(k, sizeof(k), key);
	int code = notfound && r->status == 404 && strcmp(e.code, "NoSuchBucket") ? TG_ENOTFOUND : TG_EIO;
	return tg_error_set(code, "S3 %s s3://%s/%s: HTTP %ld%s%s", op, s->bucket, k, r->status, *e.code ? " " : "",
	                    e.code);
}

/* Re-words the message of a failed tg_http_do with the S3 address. */
static int s3_io_fail(const tg_s3 *s, const char *op, const char *key, int rc, uint64_t max)
{
	char k[320], msg[512];
	key_for_message(k, sizeof(k), key);
	if (rc == TG_ELIMIT)
		return tg_error_set(rc, "S3 %s s3://%s/%s: larger than %llu bytes", op, s->bucket, k,
		                    (unsigned long long)max);
	snprintf(msg, sizeof(msg), "%s", tg_error_last());
	return tg_error_set(rc, "S3 %s s3://%s/%s: %s", op, s->bucket, k, msg);
}

/* One signed request. body may be NULL (len 0). *r is the response, empty
 * (for tg_http_response_free) when the request was not made. */
static int s3_do(tg_s3 *s, tg_http_response *r, const char *method, const char *url, const void *body, size_t len,
                 const char *content_type, FILE *sink, uint64_t max)
{
	uint8_t d[TG_SHA256_LEN];
	char hex[TG_SHA256_HEX_LEN + 1], h_sha[100], h_type[300];
	int rc = tg_sha256(d, body, len);
	if (rc) {
		memset(r, 0, sizeof(*r));
		return rc;
	}
	tg_sha256_hex(hex, d);
	snprintf(h_sha, sizeof(h_sha), "x-amz-content-sha256: %s", hex);
	const char *headers[3] = {h_sha, NULL, NULL};
	if (content_type) {
		snprintf(h_type, sizeof(h_type), "Content-Type: %s", content_type);
		headers[1] = h_type;
	}
	tg_http_req q = {
		.method = method,
		.url = url,
		.headers = headers,
		.body = body,
		.len = len,
		.retry = TG_HTTP_IDEMPOTENT, /* GET, PUT of a whole object: safe to repeat */
		.aws_sigv4 = s->sigv4,
		.userpwd = s->userpwd,
		.sink = sink,
		.max_body = max,
	};
	return tg_http_do(r, s->http, &q);
}

/* ------------------------------------------------------------ operations */

int tg_s3_get(char **etag, tg_s3 *s, const char *key, FILE *sink, uint64_t max)
{
	if (etag)
		*etag = NULL;
	int rc = key_check(s, key);
	if (rc)
		return rc;
	if (!sink)
		return tg_error_set(TG_EINVAL, "S3 GET: no file to write into");
	char *url = object_url(s, key);
	if (!url)
		return TG_ENOMEM;
	tg_http_response r;
	rc = s3_do(s, &r, "GET", url, NULL, 0, NULL, sink, max);
	free(url);
	if (rc)
		rc = s3_io_fail(s, "GET", key, rc, max);
	else if (r.status < 200 || r.status > 299)
		rc = s3_fail(s, "GET", key, &r, 1);
	else if (fflush(sink) || ferror(sink))
		rc = tg_error_set(TG_EIO, "S3 GET s3://%s/...: writing the file: %s", s->bucket, strerror(errno));
	if (!rc && etag && r.etag) {
		const char *e = r.etag;
		size_t el = strlen(e);
		if (el && e[0] == '"') {
			e++;
			el--;
		}
		if (el && e[el - 1] == '"')
			el--;
		*etag = strndup(e, el);
		if (!*etag)
			rc = tg_error_set(TG_ENOMEM, "out of memory");
	}
	tg_http_response_free(&r);
	return rc;
}

int tg_s3_get_mem(char **data, size_t *len, tg_s3 *s, const char *key, uint64_t max)
{
	*data = NULL;
	*len = 0;
	int rc = key_check(s, key);
	if (rc)
		return rc;
	if (!max)
		max = 64u << 20;
	char *url = object_url(s, key);
	if (!url)
		return TG_ENOMEM;
	tg_http_response r;
	rc = s3_do(s, &r, "GET", url, NULL, 0, NULL, NULL, max);
	free(url);
	if (rc)
		rc = s3_io_fail(s, "GET", key, rc, max);
	else if (r.status < 200 || r.status > 299)
		rc = s3_fail(s, "GET", key, &r, 1);
	if (!rc) {
		*data = r.body; /* NUL-terminated by http.c */
		*len = r.len;
		r.body = NULL;
	}
	tg_http_response_free(&r);
	return rc;
}

int tg_s3_put(tg_s3 *s, const char *key, const void *data, size_t len, const char *content_type)
{
	int rc = key_check(s, key);
	if (rc)
		return rc;
	if (!data && len)
		return tg_error_set(TG_EINVAL, "S3 PUT: no data");
	/* without one, libcurl would label a posted buffer form-urlencoded */
	if (!content_type || !*content_type)
		content_type = "application/octet-stream";
	if (has_ctl(content_type) || strlen(content_type) > 200)
		return tg_error_set(TG_EINVAL, "S3 PUT: bad content type");
	char *url = object_url(s, key);
	if (!url)
		return TG_ENOMEM;
	tg_http_response r;
	rc = s3_do(s, &r, "PUT", url, data ? data : "", len, content_type, NULL, 0);
	free(url);
	if (rc)
		rc = s3_io_fail(s, "PUT", key, rc, 0);
	else if (r.status < 200 || r.status > 299)
		rc = s3_fail(s, "PUT", key, &r, 0);
	tg_http_response_free(&r);
	return rc;
}

static int object_cmp(const void *a, const void *b)
{
	return strcmp(((const tg_s3_object *)a)->key, ((const tg_s3_object *)b)->key);
}

/* One page: GET /bucket?<canonical query>. */
static int list_page(tg_s3 *s, const char *prefix, const char *start_after, const char *token, int max_keys,
                     tg_http_response *r)
{
	memset(r, 0, sizeof(*r));
	char mk[16];
	snprintf(mk, sizeof(mk), "%d", max_keys);
	const char *pairs[10] = {"list-type", "2", "max-keys", mk, "prefix", prefix};
	size_t np = 3;
	if (token) {
		pairs[2 * np] = "continuation-token";
		pairs[2 * np + 1] = token;
		np++;
	} else if (start_after && *start_after) {
		pairs[2 * np] = "start-after";
		pairs[2 * np + 1] = start_after;
		np++;
	}
	char *q = tg_s3_canonical_query(pairs, np);
	if (!q)
		return tg_error_last_code() ? tg_error_last_code() : TG_ENOMEM;
	/* "/bucket?..." without a trailing '/': s3rver's signature check
	 * canonicalises "/bucket/" as "/bucket" (infra.md, 1b) */
	size_t n = strlen(s->endpoint) + strlen(s->bucket_esc) + strlen(q) + 3;
	char *url = tg_malloc(n);
	if (!url) {
		free(q);
		return TG_ENOMEM;
	}
	snprintf(url, n, "%s/%s?%s", s->endpoint, s->bucket_esc, q);
	free(q);
	int rc = s3_do(s, r, "GET", url, NULL, 0, NULL, NULL, 0);
	free(url);
	if (rc)
		return s3_io_fail(s, "LIST", prefix, rc, 64u << 20);
	if (r->status < 200 || r->status > 299)
		return s3_fail(s, "LIST", prefix, r, 0);
	return 0;
}

int tg_s3_list(tg_s3_object **out, size_t *n, tg_s3 *s, const char *prefix, const char *start_after, int max_keys)
{
	*out = NULL;
	*n = 0;
	if (!prefix)
		prefix = "";
	if (max_keys <= 0 || max_keys > 1000)
		max_keys = 1000;
	tg_s3_object *objs = NULL;
	size_t cnt = 0, cap = 0;
	char *token = NULL;
	int rc = 0;
	for (int page = 1;; page++) {
		tg_http_response r;
		rc = list_page(s, prefix, start_after, token, max_keys, &r);
		char *next = NULL;
		if (!rc) {
			rc = tg_s3_parse_list(&objs, &cnt, &cap, &next, r.body, r.len);
			if (rc) {
				char k[320], msg[512];
				key_for_message(k, sizeof(k), prefix);
				snprintf(msg, sizeof(msg), "%s", tg_error_last());
				tg_error_set(rc, "S3 LIST s3://%s/%s (page %d): %s", s->bucket, k, page, msg);
			}
		}
		tg_http_response_free(&r);
		if (rc || !next)
			break;
		if (token && !strcmp(token, next)) {
			free(next);
			rc = tg_error_set(TG_EFORMAT, "S3 LIST s3://%s: page %d repeats the continuation token", s->bucket,
			                  page);
			break;
		}
		free(token);
		token = next;
	}
	free(token);
	if (rc) {
		tg_s3_objects_free(objs, cnt);
		return rc;
	}
	/* S3 lists in UTF-8 byte order already; sorting makes it a promise */
	if (cnt > 1)
		qsort(objs, cnt, sizeof(*objs), object_cmp);
	*out = objs;
	*n = cnt;
	return 0;
}
