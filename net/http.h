/*
 * http.h - one HTTP client for everything the daemon talks to (forges, S3),
 * over libcurl, with the retry policy a CI gate needs: exponential backoff
 * with jitter, Retry-After (seconds or an HTTP date), GitHub's primary and
 * secondary rate limits, and no blind retry of a request that may already
 * have taken effect.
 *
 * Secrets: request headers and the userpwd of SigV4 are never written to an
 * error message or a log; messages name the method and the URL without its
 * query string.
 *
 * A tg_http is one libcurl easy handle (connection reuse) and is not
 * thread-safe: one per thread.
 */
#ifndef TG_HTTP_H
#define TG_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct tg_http tg_http;

/* Sleeps ms milliseconds; tests pass a recorder instead. */
typedef void (*tg_http_sleep_fn)(void *ctx, long ms);

typedef struct tg_http_opts {
	const char *ca_file;     /* a CA bundle to trust instead of the system's; NULL: system */
	int insecure;            /* 1: no TLS peer or host verification (only when a config says so) */
	long timeout_ms;         /* one attempt, whole transfer; 0: 30,000 */
	long connect_timeout_ms; /* 0: 10,000 */
	int max_attempts;        /* tries of a retryable request, the first included; 0: 5 */
	long backoff_ms;         /* wait before the 2nd try, doubled each time, +-25 % jitter; 0: 500 */
	long max_wait_ms;        /* cap of one wait, Retry-After included; 0: 60,000 */
	const char *user_agent;  /* 0: "tracegate/<version>" */
	tg_http_sleep_fn sleep;  /* NULL: nanosleep */
	void *sleep_ctx;
	/* NULL, or called after every attempt with the HTTP status it got (0:
	 * none came: refused, timed out, TLS): the daemon counts requests by
	 * status code with it (its metrics) */
	void (*observe)(void *ctx, long status);
	void *observe_ctx;
} tg_http_opts;

/* How a request may be retried. */
typedef enum tg_http_retry {
	/* GET, PUT, PATCH, DELETE, HEAD: retried on network errors, timeouts,
	 * 408, 429, 500, 502, 503, 504 and rate-limit 403s. */
	TG_HTTP_IDEMPOTENT = 0,
	/* POST that creates something: retried only when it surely did not
	 * take effect (connection refused or not resolved, 429, rate-limit
	 * 403, 503 with Retry-After); on a timeout or another 5xx the caller
	 * gets the failure with tg_http_response.ambiguous set and must check
	 * before trying again. */
	TG_HTTP_NOT_IDEMPOTENT
} tg_http_retry;

/* One request. Strings are borrowed for the call. */
typedef struct tg_http_req {
	const char *method;          /* "GET", "POST", ... */
	const char *url;
	const char *const *headers;  /* NULL-terminated "Name: value" lines, or NULL */
	const char *body;            /* may be NULL */
	size_t len;
	tg_http_retry retry;
	const char *aws_sigv4;       /* "aws:amz:REGION:s3" to sign with SigV4, or NULL */
	const char *userpwd;         /* "ACCESS:SECRET" for aws_sigv4 (never logged) */
	FILE *sink;                  /* non-NULL: a 2xx body is written there (rewound and
	                                truncated between attempts: a regular file) instead of
	                                being kept in memory; error bodies stay in memory */
	uint64_t max_body;           /* largest body accepted; 0: 64 MiB in memory, unlimited
	                                into a sink */
} tg_http_req;

typedef struct tg_http_response {
	long status;        /* the final HTTP status; 0 when no response came */
	char *body;         /* NUL-terminated (len bytes), never NULL after a call */
	size_t len;
	char *link_next;    /* the rel="next" URL of a Link header, or NULL */
	char *etag;         /* ETag header, or NULL */
	char *location;     /* Location header, or NULL */
	int attempts;       /* tries made */
	int ambiguous;      /* a non-idempotent request failed after it may have reached the server */
	char **headers;     /* every response header of the final attempt, "name: value",
	                       names lower-cased; nheaders of them */
	size_t nheaders;
} tg_http_response;

/* A client with opts (NULL: defaults). *out is freed with tg_http_free.
 * Returns 0 or TG_ENOMEM. */
int tg_http_new(tg_http **out, const tg_http_opts *opts);

void tg_http_free(tg_http *h);

/* Performs req, retrying as its retry policy allows. Fills *out (free with
 * tg_http_response_free, also after a failure). Returns 0 when a response
 * came, whatever its status (the caller judges it), or TG_EIO when none came
 * after every try (timeout, refused, TLS error: the message says which, with
 * the method and URL, never a header), or TG_ELIMIT when the body exceeded
 * max_body. A 2xx is never retried. */
int tg_http_do(tg_http_response *out, tg_http *h, const tg_http_req *req);

void tg_http_response_free(tg_http_response *r);

/* The value of response header name (case-insensitive), or NULL; borrowed. */
const char *tg_http_header(const tg_http_response *r, const char *name);

/* The rel="next" URL of a Link header value (RFC 8288: "<url>; rel=\"next\",
 * <url>; rel=\"last\""; a comma may sit inside a URL), or NULL when there
 * is none (or no memory); the caller frees it. v may be NULL. */
char *tg_http_link_next(const char *v);

/* How long the server asks to wait before the next try, in ms, from
 * Retry-After (seconds or an HTTP date), or from GitHub's
 * x-ratelimit-remaining: 0 with x-ratelimit-reset; -1 when it says nothing.
 * now: the current Unix time in seconds. */
long tg_http_retry_after_ms(const tg_http_response *r, int64_t now);

/* 1 when r is a rate-limit answer (429, or 403 with x-ratelimit-remaining:
 * 0, a Retry-After, or a body that says "rate limit"). */
int tg_http_is_rate_limited(const tg_http_response *r);

/* Percent-encodes s as RFC 3986 requires for a query value or a path
 * segment (unreserved characters kept; '/' kept when keep_slash). Returns a
 * new string the caller frees, or NULL (TG_ENOMEM). */
char *tg_http_escape(const char *s, int keep_slash);

/* A one-line description of a failed response for error messages:
 * "POST https://api.github.com/repos/o/r/statuses/abc: HTTP 422: <first
 * 200 bytes of the body, control characters removed>". Query strings are
 * dropped. Writes into buf (cap bytes). */
void tg_http_describe(char *buf, size_t cap, const char *method, const char *url, const tg_http_response *r);

#endif
