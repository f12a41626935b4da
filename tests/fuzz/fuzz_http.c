/*
 * fuzz_http.c - libFuzzer target for the pure helpers of the HTTP client
 * (net/http.c) that read what a server sent: response headers
 * (tg_http_header), the wait a server asks for (tg_http_retry_after_ms:
 * Retry-After in seconds or as an HTTP date, GitHub's x-ratelimit-*),
 * rate-limit answers (tg_http_is_rate_limited), the Link header
 * (tg_http_link_next), the one-line description of a failed answer
 * (tg_http_describe), and percent-encoding (tg_http_escape). No network.
 *
 * Input: text shaped like what libcurl gives tg_http_do:
 *   line 1     the request's URL (a next page's URL comes from a server)
 *   line 2     the status line, "HTTP/1.1 403 Forbidden"
 *   lines 3..  header lines "Name: value", up to an empty line
 *   the rest   the body
 * Header lines are kept as tg_http_do keeps them: trailing CR/LF cut,
 * lines without ':' skipped, names lower-cased. The seeds in
 * tests/fuzz/corpus/http/ are answers of GitHub, GitLab, Gitea and S3:
 * rate limits, Retry-After in both forms, Link headers of the three forges.
 *
 * Beyond the sanitizers, the target aborts when a helper breaks one of its
 * documented promises (http.h):
 *   - tg_http_header gives the value of the last header of that name (any
 *     case), without leading blanks, or NULL;
 *   - tg_http_retry_after_ms gives -1 or a wait >= 0; -1 when the answer has
 *     neither Retry-After nor x-ratelimit-*; Retry-After in seconds (digits)
 *     below 10^7 gives that many seconds in ms;
 *   - tg_http_is_rate_limited is 1 for a 429, 0 for other statuses than 403;
 *   - tg_http_describe writes one NUL-terminated line within its buffer,
 *     "METHOD URL-without-query: ...", control characters of the URL as
 *     '?', never the query string;
 *   - tg_http_link_next gives NULL or the text between a '<' and the next
 *     '>' of the header's value;
 *   - tg_http_escape gives only unreserved characters (and '/' when kept)
 *     and %XX, and decodes back to its input.
 *
 * Build and run: make fuzz FUZZ_TARGETS=http (build-fuzz/fuzz_http).
 */
#include "../../util/tg.h"
#include "../../net/http.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CHECK(cond)                                                                                   \
	do {                                                                                          \
		if (!(cond)) {                                                                        \
			fprintf(stderr, "fuzz_http: %s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                      \
		}                                                                                     \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void) { return "print_stacktrace=1"; }

/* One header line as tg_http_do keeps it. */
static void add_header(tg_http_response *r, const char *p, size_t n)
{
	while (n && (p[n - 1] == '\r' || p[n - 1] == '\n'))
		n--;
	if (!n || !memchr(p, ':', n))
		return;
	char **hs = realloc(r->headers, (r->nheaders + 1) * sizeof(char *));
	CHECK(hs != NULL);
	r->headers = hs;
	char *h = malloc(n + 1);
	CHECK(h != NULL);
	memcpy(h, p, n);
	h[n] = 0;
	for (char *c = h; *c && *c != ':'; c++)
		*c = (char)tolower((unsigned char)*c);
	r->headers[r->nheaders++] = h;
}

/* The next line of [*p, end) without its '\n' (a NUL-terminated copy). */
static char *next_line(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	char *s = malloc(n + 1);
	CHECK(s != NULL);
	memcpy(s, *p, n);
	s[n] = 0;
	*p = nl ? nl + 1 : end;
	return s;
}

static void check_header(const tg_http_response *r, const char *name)
{
	const char *v = tg_http_header(r, name);
	size_t nl = strlen(name);
	const char *want = NULL;
	for (size_t i = 0; i < r->nheaders; i++)
		if (!strncasecmp(r->headers[i], name, nl) && r->headers[i][nl] == ':')
			want = r->headers[i];
	CHECK((v == NULL) == (want == NULL));
	if (v) {
		CHECK(v > want + nl && v <= want + strlen(want));
		CHECK(*v != ' ' && *v != '\t');
	}
}

static void check_retry_after(const tg_http_response *r, int64_t now)
{
	long ms = tg_http_retry_after_ms(r, now);
	CHECK(ms >= -1);
	const char *ra = tg_http_header(r, "retry-after");
	if (!ra && !tg_http_header(r, "x-ratelimit-remaining") && !tg_http_header(r, "x-ratelimit-reset"))
		CHECK(ms == -1);
	/* delay-seconds (RFC 9110: digits) below 10^7: that many seconds */
	size_t digits = ra ? strspn(ra, "0123456789") : 0;
	if (digits && digits < 8 && !ra[digits])
		CHECK(ms == strtol(ra, NULL, 10) * 1000);
}

static void check_describe(const tg_http_response *r, const char *url)
{
	static const size_t caps[] = {1, 2, 16, 120, 300, 2048};
	/* the URL as messages show it: no query, control characters as '?' */
	char want[1100];
	snprintf(want, sizeof(want), "GET %.*s: ", (int)strcspn(url, "?#"), url);
	for (char *c = want; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		char *buf = malloc(caps[i]);
		CHECK(buf != NULL);
		tg_http_describe(buf, caps[i], "GET", url, r);
		size_t len = strnlen(buf, caps[i]);
		CHECK(len < caps[i]);
		CHECK(strchr(buf, '\n') == NULL && strchr(buf, '\r') == NULL);
		if (strlen(want) < 1000) {
			CHECK(!strncmp(buf, want, len < strlen(want) ? len : strlen(want)));
			/* no response: nothing else, the query least of all */
			size_t w = strlen(want);
			if (!r) {
				CHECK(len == (caps[i] - 1 < w + 11 ? caps[i] - 1 : w + 11));
				CHECK(len <= w || !strncmp(buf + w, "no response", len - w));
			}
		}
		free(buf);
	}
}

static void check_link(const char *v)
{
	char *next = tg_http_link_next(v);
	if (!next)
		return;
	CHECK(v != NULL);
	CHECK(strchr(next, '>') == NULL);
	/* "<" next ">" is in v */
	size_t n = strlen(next);
	int found = 0;
	for (const char *p = strchr(v, '<'); p && !found; p = strchr(p + 1, '<'))
		found = !strncmp(p + 1, next, n) && p[1 + n] == '>';
	CHECK(found);
	free(next);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void check_escape(const char *s, int keep_slash)
{
	char *e = tg_http_escape(s, keep_slash);
	CHECK(e != NULL);
	CHECK(strlen(e) <= 3 * strlen(s));
	size_t k = 0;
	for (const char *p = e; *p;) {
		unsigned char c = (unsigned char)*p;
		if (c == '%') {
			CHECK(hexval(p[1]) >= 0 && hexval(p[2]) >= 0);
			CHECK((unsigned char)s[k++] == (unsigned)(hexval(p[1]) * 16 + hexval(p[2])));
			p += 3;
		} else {
			CHECK(isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/'));
			CHECK((unsigned char)s[k++] == c);
			p++;
		}
	}
	CHECK(s[k] == 0);
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	tg_http_response r = {0};
	char *url = next_line(&p, end);
	char *status = next_line(&p, end);
	if (!strncmp(status, "HTTP/", 5)) {
		const char *sp = strchr(status, ' ');
		r.status = sp ? strtol(sp + 1, NULL, 10) : 0;
	}
	free(status);
	while (p < end) {
		char *line = next_line(&p, end);
		size_t n = strlen(line);
		int blank = n == 0 || (n == 1 && line[0] == '\r');
		if (!blank)
			add_header(&r, line, n);
		free(line);
		if (blank)
			break;
	}
	r.len = (size_t)(end - p);
	r.body = malloc(r.len + 1);
	CHECK(r.body != NULL);
	memcpy(r.body, p, r.len);
	r.body[r.len] = 0;

	static const char *const names[] = {"retry-after", "Retry-After", "x-ratelimit-remaining", "x-ratelimit-reset",
	                                    "link", "etag", "location", "x-next-page", "x-total-count", "x"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_header(&r, names[i]);
	check_retry_after(&r, 1700000000);
	check_retry_after(&r, 4102444800); /* 2100 */
	int limited = tg_http_is_rate_limited(&r);
	CHECK(limited == 0 || limited == 1);
	if (r.status == 429)
		CHECK(limited);
	if (r.status != 403 && r.status != 429)
		CHECK(!limited);
	check_describe(&r, url);
	check_describe(NULL, url);
	check_link(tg_http_header(&r, "link"));
	check_link(r.body);
	check_escape(r.body, 0);
	check_escape(r.body, 1);

	free(url);
	tg_http_response_free(&r);
	return 0;
}
