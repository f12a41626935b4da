/*
 * test_http.c - the daemon's HTTP client (net/http.c): Retry-After and
 * rate-limit rules, escaping, messages without secrets, and the retry
 * policy against servers.
 *
 * Offline: pure functions, and a scripted in-process server
 * (tests/mini_http.h). Live (skipped unless TG_TEST_HTTP_URL is set, as
 * tests/it_forges.sh does): the same policy against the node fake
 * (tests/servers/fake-forge.js), steered through its /_fake/fail hook.
 * Waits are recorded by the sleep hook, never slept.
 */
#include "testutil.h"
#include "mini_http.h"

#include "../util/tg.h"
#include "../net/http.h"

#include <jansson.h>

static long sleeps[64];
static int nsleeps;

static void record_sleep(void *ctx, long ms)
{
	(void)ctx;
	if (nsleeps < 64)
		sleeps[nsleeps++] = ms;
}

static tg_http *client(long timeout_ms, int attempts)
{
	tg_http_opts o = {.timeout_ms = timeout_ms, .max_attempts = attempts, .backoff_ms = 100,
	                  .sleep = record_sleep};
	tg_http *h = NULL;
	assert_int_equal(tg_http_new(&h, &o), 0);
	nsleeps = 0;
	return h;
}

/* A response with the given status, header lines and body, for the pure functions. */
static tg_http_response fake_response(long status, const char **headers, const char *body)
{
	tg_http_response r = {0};
	r.status = status;
	r.body = strdup(body ? body : "");
	r.len = strlen(r.body);
	for (size_t i = 0; headers && headers[i]; i++) {
		r.headers = realloc(r.headers, (r.nheaders + 1) * sizeof(char *));
		r.headers[r.nheaders++] = strdup(headers[i]);
	}
	return r;
}

/* ------------------------------------------------------- pure functions */

static void test_retry_after(void **state)
{
	(void)state;
	const char *h1[] = {"retry-after: 7", NULL};
	tg_http_response r = fake_response(429, h1, NULL);
	assert_int_equal(tg_http_retry_after_ms(&r, 1000), 7000);
	tg_http_response_free(&r);
	/* an HTTP date: Wed, 21 Oct 2015 07:28:00 GMT = 1445412480 */
	const char *h2[] = {"retry-after: Wed, 21 Oct 2015 07:28:00 GMT", NULL};
	r = fake_response(503, h2, NULL);
	assert_int_equal(tg_http_retry_after_ms(&r, 1445412480 - 12), 12000);
	assert_int_equal(tg_http_retry_after_ms(&r, 1445412480 + 5), 0);
	tg_http_response_free(&r);
	/* GitHub's primary limit: remaining 0 until reset */
	const char *h3[] = {"x-ratelimit-remaining: 0", "x-ratelimit-reset: 1700000030", NULL};
	r = fake_response(403, h3, "{\"message\":\"API rate limit exceeded\"}");
	assert_int_equal(tg_http_retry_after_ms(&r, 1700000000), 30000);
	assert_int_equal(tg_http_is_rate_limited(&r), 1);
	tg_http_response_free(&r);
	/* a reset beyond any sense: capped, not an overflow (found by fuzz_http) */
	const char *h5[] = {"x-ratelimit-remaining: 0", "x-ratelimit-reset: 9223372036854775807", NULL};
	r = fake_response(403, h5, NULL);
	assert_int_equal(tg_http_retry_after_ms(&r, 1700000000), 10000000000L);
	tg_http_response_free(&r);
	const char *h6[] = {"x-ratelimit-remaining: 0", "x-ratelimit-reset: 1710000000", NULL};
	r = fake_response(403, h6, NULL);
	assert_int_equal(tg_http_retry_after_ms(&r, 1700000000), 10000000000L);
	assert_int_equal(tg_http_retry_after_ms(&r, 1700000001), 9999999000L);
	tg_http_response_free(&r);
	const char *h4[] = {"x-ratelimit-remaining: 4999", "x-ratelimit-reset: 1700000030", NULL};
	r = fake_response(200, h4, NULL);
	assert_int_equal(tg_http_retry_after_ms(&r, 1700000000), -1);
	tg_http_response_free(&r);
}

static void test_rate_limited(void **state)
{
	(void)state;
	tg_http_response r = fake_response(429, NULL, NULL);
	assert_int_equal(tg_http_is_rate_limited(&r), 1);
	tg_http_response_free(&r);
	r = fake_response(403, NULL, "{\"message\":\"You have exceeded a secondary rate limit. Please wait.\"}");
	assert_int_equal(tg_http_is_rate_limited(&r), 1);
	tg_http_response_free(&r);
	const char *h[] = {"Retry-After: 60", NULL};
	r = fake_response(403, h, "{}");
	assert_int_equal(tg_http_is_rate_limited(&r), 1);
	assert_string_equal(tg_http_header(&r, "retry-after"), "60");
	assert_string_equal(tg_http_header(&r, "RETRY-AFTER"), "60");
	tg_http_response_free(&r);
	r = fake_response(403, NULL, "{\"message\":\"Resource not accessible by integration\"}");
	assert_int_equal(tg_http_is_rate_limited(&r), 0);
	tg_http_response_free(&r);
	r = fake_response(500, NULL, "rate limit");
	assert_int_equal(tg_http_is_rate_limited(&r), 0);
	tg_http_response_free(&r);
}

static void test_escape_and_describe(void **state)
{
	(void)state;
	char *e = tg_http_escape("group/sub proj~x", 0);
	assert_string_equal(e, "group%2Fsub%20proj~x");
	free(e);
	e = tg_http_escape("a/b\xc3\xa9", 1);
	assert_string_equal(e, "a/b%C3%A9");
	free(e);
	tg_http_response r = fake_response(422, NULL, "{\"message\":\"Validation\tFailed\",\n\"errors\":[]}");
	char buf[512];
	tg_http_describe(buf, sizeof(buf), "POST", "https://api.github.com/repos/o/r/statuses/abc?access_token=SECRET", &r);
	assert_string_equal(buf, "POST https://api.github.com/repos/o/r/statuses/abc: HTTP 422: {\"message\":\"Validation "
	                         "Failed\", \"errors\":[]}");
	tg_http_response_free(&r);
	tg_http_describe(buf, sizeof(buf), "GET", "https://x.test/a#frag", NULL);
	assert_string_equal(buf, "GET https://x.test/a: no response");
	/* a URL a server wrote (a next page) with line breaks: one line (found by fuzz_http) */
	tg_http_describe(buf, sizeof(buf), "GET", "https://x.test/a\r\nX-Injected: 1\x7f?q=\n", NULL);
	assert_string_equal(buf, "GET https://x.test/a??X-Injected: 1?: no response");
}

/* ------------------------------------------------- scripted server */

static int do_req(tg_http_response *r, tg_http *h, const char *method, const char *url, tg_http_retry retry)
{
	const char *hdr[] = {"Content-Type: application/json", "Authorization: Bearer SECRET-T0KEN", NULL};
	tg_http_req q = {.method = method, .url = url, .headers = hdr, .retry = retry};
	if (!strcmp(method, "POST") || !strcmp(method, "PATCH")) {
		q.body = "{\"body\":\"x\"}";
		q.len = strlen(q.body);
	}
	return tg_http_do(r, h, &q);
}

static void test_mini_500_then_200(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 500, NULL, "{\"message\":\"oops\"}");
	mh_push(&s, 200, "ETag: \"abc\"\r\n", "[1,2]");
	tg_http *h = client(2000, 3);
	char url[128];
	snprintf(url, sizeof(url), "%s/a?x=1", s.base);
	tg_http_response r;
	assert_int_equal(do_req(&r, h, "GET", url, TG_HTTP_IDEMPOTENT), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 2);
	assert_string_equal(r.body, "[1,2]");
	assert_string_equal(r.etag, "\"abc\"");
	assert_int_equal(nsleeps, 1);
	assert_true(sleeps[0] >= 75 && sleeps[0] <= 125);
	assert_string_equal(s.reqs[1].target, "/a?x=1");
	tg_http_response_free(&r);
	tg_http_free(h);
	mh_stop(&s);
}

static void test_mini_429_retry_after(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 429, "Retry-After: 3\r\n", "{}");
	mh_push(&s, 201, NULL, "{\"id\":1}");
	tg_http *h = client(2000, 3);
	tg_http_response r;
	/* a 429 surely did not act: a POST is retried too */
	assert_int_equal(do_req(&r, h, "POST", s.base, TG_HTTP_NOT_IDEMPOTENT), 0);
	assert_int_equal(r.status, 201);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(nsleeps, 1);
	assert_int_equal(sleeps[0], 3000);
	tg_http_response_free(&r);
	tg_http_free(h);
	mh_stop(&s);
}

static void test_mini_post_502_ambiguous(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 502, NULL, "bad gateway");
	mh_push(&s, 503, "Retry-After: 1\r\n", "maintenance");
	mh_push(&s, 201, NULL, "{}");
	tg_http *h = client(2000, 3);
	tg_http_response r;
	assert_int_equal(do_req(&r, h, "POST", s.base, TG_HTTP_NOT_IDEMPOTENT), 0);
	assert_int_equal(r.status, 502);
	assert_int_equal(r.ambiguous, 1);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(nsleeps, 0);
	tg_http_response_free(&r);
	/* 503 with Retry-After says "not done, come back": retried */
	assert_int_equal(do_req(&r, h, "POST", s.base, TG_HTTP_NOT_IDEMPOTENT), 0);
	assert_int_equal(r.status, 201);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(r.ambiguous, 0);
	assert_int_equal(sleeps[0], 1000);
	tg_http_response_free(&r);
	tg_http_free(h);
	mh_stop(&s);
}

static void test_mini_timeout(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 200, NULL, "late");
	mh_delay_last(&s, 400);
	mh_push(&s, 200, NULL, "late");
	mh_delay_last(&s, 400);
	mh_push(&s, 200, NULL, "late");
	mh_delay_last(&s, 400);
	tg_http *h = client(150, 2);
	tg_http_response r;
	char url[128];
	snprintf(url, sizeof(url), "%s/slow?token=SECRET-Q", s.base);
	assert_int_equal(do_req(&r, h, "GET", url, TG_HTTP_IDEMPOTENT), TG_EIO);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.ambiguous, 0);
	assert_non_null(strstr(tg_error_last(), "/slow: Timeout was reached (2 tries)"));
	assert_null(strstr(tg_error_last(), "SECRET"));
	tg_http_response_free(&r);
	/* a POST that timed out may have worked: not retried, ambiguous */
	assert_int_equal(do_req(&r, h, "POST", url, TG_HTTP_NOT_IDEMPOTENT), TG_EIO);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(r.ambiguous, 1);
	tg_http_response_free(&r);
	tg_http_free(h);
	mh_stop(&s);
}

static long observed[16];
static int nobserved;

static void observe(void *ctx, long status)
{
	(void)ctx;
	if (nobserved < 16)
		observed[nobserved++] = status;
}

/* The observer hears every attempt: its status, 0 when none came. */
static void test_observe(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 502, NULL, "{}");
	mh_push(&s, 503, NULL, "{}");
	mh_push(&s, 201, NULL, "{}");
	mh_push(&s, 404, NULL, "{}");
	tg_http_opts o = {.timeout_ms = 2000, .max_attempts = 3, .backoff_ms = 1, .sleep = record_sleep,
	                  .observe = observe};
	tg_http *h = NULL;
	assert_int_equal(tg_http_new(&h, &o), 0);
	nobserved = 0;
	char url[128];
	snprintf(url, sizeof(url), "%s/s", s.base);
	tg_http_response r;
	assert_int_equal(do_req(&r, h, "PUT", url, TG_HTTP_IDEMPOTENT), 0);
	assert_int_equal(r.status, 201);
	tg_http_response_free(&r);
	assert_int_equal(do_req(&r, h, "GET", url, TG_HTTP_IDEMPOTENT), 0);
	assert_int_equal(r.status, 404);
	tg_http_response_free(&r);
	mh_stop(&s);
	assert_int_equal(do_req(&r, h, "GET", url, TG_HTTP_IDEMPOTENT), TG_EIO);
	tg_http_response_free(&r);
	tg_http_free(h);
	long want[] = {502, 503, 201, 404, 0, 0, 0};
	assert_int_equal(nobserved, 7);
	for (int i = 0; i < 7; i++)
		assert_int_equal(observed[i], want[i]);
}

static void test_mini_refused(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char url[128];
	snprintf(url, sizeof(url), "%s/x", s.base);
	mh_stop(&s); /* nobody listens now */
	tg_http *h = client(1000, 3);
	tg_http_response r;
	/* refused: surely not sent, so even a POST is retried, and not ambiguous */
	assert_int_equal(do_req(&r, h, "POST", url, TG_HTTP_NOT_IDEMPOTENT), TG_EIO);
	assert_int_equal(r.attempts, 3);
	assert_int_equal(r.ambiguous, 0);
	assert_int_equal(nsleeps, 2);
	assert_true(sleeps[1] > sleeps[0]); /* backoff doubles */
	tg_http_response_free(&r);
	tg_http_free(h);
}

static void test_mini_secondary_rate_limit(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 403, NULL, "{\"message\":\"You have exceeded a secondary rate limit and have been temporarily blocked.\"}");
	mh_push(&s, 403, "x-ratelimit-remaining: 0\r\nx-ratelimit-reset: 1\r\n", "{\"message\":\"API rate limit exceeded\"}");
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 403, NULL, "{\"message\":\"Must have admin rights\"}");
	tg_http *h = client(2000, 5);
	tg_http_response r;
	assert_int_equal(do_req(&r, h, "GET", s.base, TG_HTTP_IDEMPOTENT), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 3);
	assert_int_equal(nsleeps, 2);
	tg_http_response_free(&r);
	/* a plain 403 is an answer, not retried */
	assert_int_equal(do_req(&r, h, "GET", s.base, TG_HTTP_IDEMPOTENT), 0);
	assert_int_equal(r.status, 403);
	assert_int_equal(r.attempts, 1);
	tg_http_response_free(&r);
	tg_http_free(h);
	mh_stop(&s);
}

static void test_mini_link_and_limits(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 200,
	        "Link: <https://api.github.com/r?page=1>; rel=\"prev\", <https://api.github.com/r?page=3&q=a,b>; "
	        "rel=\"next\", <https://api.github.com/r?page=9>; rel=\"last\"\r\n",
	        "[]");
	mh_push(&s, 200, "Link: <https://x.test/r?page=1>; rel=\"first\", <https://x.test/r?page=2>; rel=\"prev\"\r\n", "[]");
	mh_push(&s, 200, "Link: <https://x.test/n>; rel=next\r\n", "[]");
	mh_push(&s, 200, NULL, "0123456789");
	tg_http *h = client(2000, 1);
	tg_http_response r;
	assert_int_equal(do_req(&r, h, "GET", s.base, TG_HTTP_IDEMPOTENT), 0);
	assert_string_equal(r.link_next, "https://api.github.com/r?page=3&q=a,b");
	tg_http_response_free(&r);
	assert_int_equal(do_req(&r, h, "GET", s.base, TG_HTTP_IDEMPOTENT), 0);
	assert_null(r.link_next);
	tg_http_response_free(&r);
	assert_int_equal(do_req(&r, h, "GET", s.base, TG_HTTP_IDEMPOTENT), 0);
	assert_string_equal(r.link_next, "https://x.test/n");
	tg_http_response_free(&r);
	tg_http_req q = {.method = "GET", .url = s.base, .max_body = 4};
	assert_int_equal(tg_http_do(&r, h, &q), TG_ELIMIT);
	tg_http_response_free(&r);
	tg_http_free(h);
	mh_stop(&s);
}

/* ------------------------------------------------------------- live */

static const char *live_url(void)
{
	const char *u = getenv("TG_TEST_HTTP_URL");
	if (!u || !*u) {
		print_message("SKIPPED: TG_TEST_HTTP_URL is unset (tests/it_forges.sh starts the node fake and sets it)\n");
		skip();
	}
	return u;
}

/* Queues failures on the fake: its /_fake/fail hook. */
static void arm(const char *base, const char *json)
{
	tg_http *h;
	assert_int_equal(tg_http_new(&h, NULL), 0);
	char url[256];
	snprintf(url, sizeof(url), "%s/_fake/fail", base);
	const char *hdr[] = {"Content-Type: application/json", NULL};
	tg_http_req q = {.method = "POST", .url = url, .headers = hdr, .body = json, .len = strlen(json)};
	tg_http_response r;
	assert_int_equal(tg_http_do(&r, h, &q), 0);
	assert_int_equal(r.status, 200);
	tg_http_response_free(&r);
	tg_http_free(h);
}

static void test_live_retries(void **state)
{
	(void)state;
	const char *base = live_url();
	char list[256], create[256];
	snprintf(list, sizeof(list), "%s/repos/o/r/issues/1/comments", base);
	snprintf(create, sizeof(create), "%s/repos/o/r/issues/2/comments", base);
	tg_http *h = client(5000, 4);
	tg_http_response r;

	arm(base, "{\"count\":1,\"status\":500}"); /* 500 then 200 */
	assert_int_equal(do_req(&r, h, "GET", list, TG_HTTP_IDEMPOTENT), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(nsleeps, 1);
	tg_http_response_free(&r);

	nsleeps = 0; /* 429 with Retry-After: 2 s */
	arm(base, "{\"count\":1,\"status\":429,\"retry_after\":\"2\"}");
	assert_int_equal(do_req(&r, h, "GET", list, TG_HTTP_IDEMPOTENT), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(nsleeps, 1);
	assert_int_equal(sleeps[0], 2000);
	tg_http_response_free(&r);

	nsleeps = 0; /* 403 secondary rate limit: by the body, and with Retry-After */
	arm(base, "{\"count\":1,\"status\":403}");
	arm(base, "{\"count\":1,\"status\":403,\"retry_after\":\"1\"}");
	assert_int_equal(do_req(&r, h, "GET", list, TG_HTTP_IDEMPOTENT), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 3);
	assert_int_equal(nsleeps, 2);
	assert_int_equal(sleeps[1], 1000);
	tg_http_response_free(&r);

	nsleeps = 0; /* POST + 502: not retried, ambiguous */
	arm(base, "{\"count\":1,\"status\":502,\"method\":\"POST\"}");
	assert_int_equal(do_req(&r, h, "POST", create, TG_HTTP_NOT_IDEMPOTENT), 0);
	assert_int_equal(r.status, 502);
	assert_int_equal(r.ambiguous, 1);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(nsleeps, 0);
	tg_http_response_free(&r);
	tg_http_free(h);
}

static void test_live_timeout(void **state)
{
	(void)state;
	const char *base = live_url();
	char list[256];
	snprintf(list, sizeof(list), "%s/repos/o/r/issues/1/comments", base);
	tg_http *h = client(300, 2);
	tg_http_response r;
	arm(base, "{\"count\":2,\"status\":200,\"delay_ms\":2000}");
	assert_int_equal(do_req(&r, h, "GET", list, TG_HTTP_IDEMPOTENT), TG_EIO);
	assert_int_equal(r.attempts, 2);
	assert_non_null(strstr(tg_error_last(), "Timeout was reached"));
	tg_http_response_free(&r);
	arm(base, "{\"count\":1,\"status\":201,\"delay_ms\":2000,\"method\":\"POST\"}");
	assert_int_equal(do_req(&r, h, "POST", list, TG_HTTP_NOT_IDEMPOTENT), TG_EIO);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(r.ambiguous, 1);
	tg_http_response_free(&r);
	tg_http_free(h);
}

static void test_live_link_next(void **state)
{
	(void)state;
	const char *base = live_url();
	tg_http *h = client(5000, 2);
	char url[512];
	snprintf(url, sizeof(url), "%s/repos/o/r/issues/3/comments", base);
	for (int i = 0; i < 5; i++) { /* five comments, the fake's pages hold 2 */
		tg_http_response r;
		assert_int_equal(do_req(&r, h, "POST", url, TG_HTTP_NOT_IDEMPOTENT), 0);
		assert_int_equal(r.status, 201);
		tg_http_response_free(&r);
	}
	snprintf(url, sizeof(url), "%s/repos/o/r/issues/3/comments?per_page=100&page=1", base);
	int pages = 0;
	size_t items = 0;
	char want[512];
	snprintf(want, sizeof(want), "%s/repos/o/r/issues/3/comments?per_page=2&page=2", base);
	while (url[0]) {
		tg_http_response r;
		assert_int_equal(do_req(&r, h, "GET", url, TG_HTTP_IDEMPOTENT), 0);
		json_t *j = json_loads(r.body, 0, NULL);
		assert_true(json_is_array(j));
		items += json_array_size(j);
		json_decref(j);
		if (pages++ == 0)
			assert_string_equal(r.link_next, want);
		snprintf(url, sizeof(url), "%s", r.link_next ? r.link_next : "");
		tg_http_response_free(&r);
	}
	assert_int_equal(pages, 3);
	assert_int_equal(items, 5);
	tg_http_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retry_after),
		cmocka_unit_test(test_rate_limited),
		cmocka_unit_test(test_escape_and_describe),
		cmocka_unit_test(test_mini_500_then_200),
		cmocka_unit_test(test_mini_429_retry_after),
		cmocka_unit_test(test_mini_post_502_ambiguous),
		cmocka_unit_test(test_mini_timeout),
		cmocka_unit_test(test_mini_refused),
		cmocka_unit_test(test_observe),
		cmocka_unit_test(test_mini_secondary_rate_limit),
		cmocka_unit_test(test_mini_link_and_limits),
		cmocka_unit_test(test_live_retries),
		cmocka_unit_test(test_live_timeout),
		cmocka_unit_test(test_live_link_next),
	};
	return cmocka_run_group_tests_name("http", tests, NULL, NULL);
}
