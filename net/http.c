/*
 * http.c - the daemon's HTTP client over libcurl (see http.h for the retry
 * policy).
 */
#include "http.h"
#include "../util/buf.h"
#include "../util/tg.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_MAX_BODY (64u << 20)

struct tg_http {
	CURL *curl;
	tg_http_opts o;
	char *ca_file, *user_agent;
	uint64_t rng;
	char errbuf[CURL_ERROR_SIZE]; /* libcurl's detail of the last failure */
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void default_sleep(void *ctx, long ms)
{
	(void)ctx;
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int tg_http_new(tg_http **out, const tg_http_opts *opts)
{
	*out = NULL;
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK)
		return tg_error_set(TG_EIO, "libcurl: %s", curl_easy_strerror(global_rc));
	tg_http *h = tg_calloc(1, sizeof(*h));
	if (!h)
		return TG_ENOMEM;
	if (opts)
		h->o = *opts;
	if (!h->o.timeout_ms)
		h->o.timeout_ms = 30000;
	if (!h->o.connect_timeout_ms)
		h->o.connect_timeout_ms = 10000;
	if (!h->o.max_attempts)
		h->o.max_attempts = 5;
	if (!h->o.backoff_ms)
		h->o.backoff_ms = 500;
	if (!h->o.max_wait_ms)
		h->o.max_wait_ms = 60000;
	if (!h->o.sleep)
		h->o.sleep = default_sleep;
	h->ca_file = opts && opts->ca_file ? strdup(opts->ca_file) : NULL;
	h->user_agent = strdup(opts && opts->user_agent ? opts->user_agent : "tracegate/" TG_VERSION);
	h->o.ca_file = h->ca_file;
	h->o.user_agent = h->user_agent;
	h->curl = curl_easy_init();
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	h->rng = ((uint64_t)now.tv_nsec << 20) ^ (uint64_t)(uintptr_t)h ^ (uint64_t)getpid();
	if (!h->curl || !h->user_agent || (opts && opts->ca_file && !h->ca_file)) {
		tg_http_free(h);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	*out = h;
	return 0;
}

void tg_http_free(tg_http *h)
{
	if (!h)
		return;
	if (h->curl)
		curl_easy_cleanup(h->curl);
	free(h->ca_file);
	free(h->user_agent);
	free(h);
}

void tg_http_response_free(tg_http_response *r)
{
	if (!r)
		return;
	free(r->body);
	free(r->link_next);
	free(r->etag);
	free(r->location);
	for (size_t i = 0; i < r->nheaders; i++)
		free(r->headers[i]);
	free(r->headers);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------ one attempt */

struct attempt {
	tg_http_response *r;
	FILE *sink;      /* 2xx bodies go here when set */
	uint64_t max_body;
	uint64_t got;
	tg_buf body;     /* the body as it comes, handed to r at the end */
	int over;        /* body exceeded max_body */
	int oom;
	long status;     /* of the latest status line (1xx skipped) */
};

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	struct attempt *a = ud;
	size_t n = size * nmemb;
	a->got += n;
	if (a->max_body && a->got > a->max_body) {
		a->over = 1;
		return 0;
	}
	if (a->sink && a->status >= 200 && a->status < 300)
		return fwrite(p, 1, n, a->sink) == n ? n : 0;
	if (!a->sink && a->got > DEFAULT_MAX_BODY && !a->max_body) {
		a->over = 1;
		return 0;
	}
	/* error bodies into a sink request are kept (bounded) for the message */
	if (a->sink && a->body.len > 65536)
		return n;
	if (tg_buf_append(&a->body, p, n)) {
		a->oom = 1;
		return 0;
	}
	return n;
}

static void drop_headers(tg_http_response *r)
{
	for (size_t i = 0; i < r->nheaders; i++)
		free(r->headers[i]);
	free(r->headers);
	r->headers = NULL;
	r->nheaders = 0;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	struct attempt *a = ud;
	tg_http_response *r = a->r;
	size_t n = size * nmemb;
	if (n >= 5 && !strncmp(p, "HTTP/", 5)) {
		/* a new status line: interim (100 Continue) or the final one */
		const char *sp = memchr(p, ' ', n);
		a->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		drop_headers(r);
		return n;
	}
	size_t len = n;
	while (len && (p[len - 1] == '\r' || p[len - 1] == '\n'))
		len--;
	if (!len || !memchr(p, ':', len))
		return n;
	char **hs = realloc(r->headers, (r->nheaders + 1) * sizeof(char *));
	if (!hs) {
		a->oom = 1;
		return 0;
	}
	r->headers = hs;
	char *h = malloc(len + 1);
	if (!h) {
		a->oom = 1;
		return 0;
	}
	memcpy(h, p, len);
	h[len] = 0;
	for (char *c = h; *c && *c != ':'; c++)
		*c = (char)tolower((unsigned char)*c);
	r->headers[r->nheaders++] = h;
	return n;
}

const char *tg_http_header(const tg_http_response *r, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = r->nheaders; i-- > 0;) {
		const char *h = r->headers[i];
		if (!strncasecmp(h, name, nl) && h[nl] == ':') {
			const char *v = h + nl + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			return v;
		}
	}
	return NULL;
}

/* The rel="next" target of a Link header value, or NULL. */
char *tg_http_link_next(const char *v)
{
	while (v && *v) {
		const char *lt = strchr(v, '<');
		if (!lt)
			return NULL;
		const char *gt = strchr(lt, '>');
		if (!gt)
			return NULL;
		const char *end = strchr(gt, ',');
		/* a comma may sit inside the URL: the parameters end at the next '<' */
		const char *nextlt = strchr(gt, '<');
		if (!end || (nextlt && nextlt < end))
			end = nextlt ? nextlt : gt + strlen(gt);
		const char *rel = strstr(gt, "rel=");
		if (rel && rel < end) {
			const char *q = rel + 4;
			if (*q == '"')
				q++;
			if (!strncmp(q, "next", 4) && (q[4] == '"' || q[4] == ';' || q[4] == ',' || q[4] == ' ' || !q[4]))
				return strndup(lt + 1, (size_t)(gt - lt - 1));
		}
		v = end;
	}
	return NULL;
}

static char *dup_header(const tg_http_response *r, const char *name)
{
	const char *v = tg_http_header(r, name);
	return v ? strdup(v) : NULL;
}

/* The URL without its query string, for messages: one line even when a
 * server wrote it (a next page's Link), control characters as '?'. */
static void url_for_message(char *buf, size_t cap, const char *url)
{
	size_t n = strcspn(url, "?#");
	snprintf(buf, cap, "%.*s", (int)n, url);
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

void tg_http_describe(char *buf, size_t cap, const char *method, const char *url, const tg_http_response *r)
{
	char u[1024];
	url_for_message(u, sizeof(u), url);
	char excerpt[201];
	size_t k = 0;
	for (size_t i = 0; r && r->body && i < r->len && k < sizeof(excerpt) - 1; i++) {
		unsigned char c = (unsigned char)r->body[i];
		if (c == '\n' || c == '\r' || c == '\t')
			c = ' ';
		if (c < 0x20 || c == 0x7f)
			continue;
		if (c == ' ' && k && excerpt[k - 1] == ' ')
			continue;
		excerpt[k++] = (char)c;
	}
	excerpt[k] = 0;
	if (!r || !r->status)
		snprintf(buf, cap, "%s %s: no response", method, u);
	else if (k)
		snprintf(buf, cap, "%s %s: HTTP %ld: %s", method, u, r->status, excerpt);
	else
		snprintf(buf, cap, "%s %s: HTTP %ld", method, u, r->status);
}

static int64_t parse_http_date(const char *v)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *end = strptime(v, "%a, %d %b %Y %H:%M:%S", &tm);
	if (!end)
		return -1;
	return (int64_t)timegm(&tm);
}

/* The longest wait a server may ask for, in seconds (115 days): longer is
 * nonsense, and in ms it must not overflow. The caller caps it further. */
#define MAX_ASKED_WAIT_S 10000000

long tg_http_retry_after_ms(const tg_http_response *r, int64_t now)
{
	const char *v = tg_http_header(r, "retry-after");
	if (v) {
		char *end;
		errno = 0;
		double s = strtod(v, &end);
		if (end != v && errno == 0 && s >= 0 && s < MAX_ASKED_WAIT_S)
			return (long)(s * 1000);
		int64_t t = parse_http_date(v);
		if (t >= 0)
			return t > now ? (long)((t - now) * 1000) : 0;
	}
	const char *rem = tg_http_header(r, "x-ratelimit-remaining");
	const char *reset = tg_http_header(r, "x-ratelimit-reset");
	if (rem && reset && strtoll(rem, NULL, 10) == 0) {
		int64_t t = strtoll(reset, NULL, 10);
		if (t > 0)
			return t > now ? (long)((t - now < MAX_ASKED_WAIT_S ? t - now : MAX_ASKED_WAIT_S) * 1000) : 0;
	}
	return -1;
}

int tg_http_is_rate_limited(const tg_http_response *r)
{
	if (r->status == 429)
		return 1;
	if (r->status != 403)
		return 0;
	const char *rem = tg_http_header(r, "x-ratelimit-remaining");
	if ((rem && strtoll(rem, NULL, 10) == 0) || tg_http_header(r, "retry-after"))
		return 1;
	return r->body && strcasestr(r->body, "rate limit") != NULL;
}

static uint64_t rng_next(tg_http *h)
{
	/* xorshift64*: jitter only, not security */
	uint64_t x = h->rng ? h->rng : 0x9e3779b97f4a7c15ull;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	h->rng = x;
	return x * 2685821657736338717ull;
}

/* The wait before try number `attempt` (1-based count of tries made). */
static long backoff(tg_http *h, int attempt)
{
	double w = (double)h->o.backoff_ms;
	for (int i = 1; i < attempt && w < 1e9; i++)
		w *= 2;
	double jitter = 0.75 + 0.5 * (double)(rng_next(h) >> 11) / 9007199254740992.0;
	w *= jitter;
	return w > (double)h->o.max_wait_ms ? h->o.max_wait_ms : (long)w;
}

static int curl_error_is_before_send(CURLcode c)
{
	return c == CURLE_COULDNT_RESOLVE_HOST || c == CURLE_COULDNT_RESOLVE_PROXY || c == CURLE_COULDNT_CONNECT;
}

static int curl_error_retryable(CURLcode c)
{
	switch (c) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
}

/* Certificate and handshake failures: their generic text ("SSL peer
 * certificate or SSH remote key was not OK") does not say what is wrong, so
 * the message gives libcurl's detail ("SSL certificate problem:
 * self-signed certificate"), which names no header and no secret. */
static int curl_error_is_tls(CURLcode c)
{
	return c == CURLE_PEER_FAILED_VERIFICATION || c == CURLE_SSL_CONNECT_ERROR || c == CURLE_SSL_CACERT_BADFILE ||
	       c == CURLE_SSL_CERTPROBLEM || c == CURLE_SSL_ISSUER_ERROR;
}

static int setup(tg_http *h, const tg_http_req *q, struct curl_slist **hl, struct attempt *a)
{
	CURL *c = h->curl;
	curl_easy_reset(c);
	h->errbuf[0] = 0;
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
	curl_easy_setopt(c, CURLOPT_URL, q->url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->o.timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->o.connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_USERAGENT, h->o.user_agent);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, h->o.insecure ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, h->o.insecure ? 0L : 2L);
	if (h->o.ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, h->o.ca_file);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
	const char *m = q->method ? q->method : "GET";
	if (!strcmp(m, "HEAD")) {
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	} else if (q->body || strcmp(m, "GET")) {
		if ((strcmp(m, "GET") && strcmp(m, "DELETE")) || q->body) {
			curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)q->len);
			curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body ? q->body : "");
		}
		if (strcmp(m, "POST"))
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, m);
	}
	/* "Expect:" turns 100-continue off. Not with SigV4: libcurl 7.88 signs
	 * that removal header (SignedHeaders=expect;...) without sending it, so
	 * the server computes another signature: SignatureDoesNotMatch. */
	int oom = 0;
	*hl = NULL;
	if (!q->aws_sigv4) {
		*hl = curl_slist_append(NULL, "Expect:");
		oom = !*hl;
	}
	for (size_t i = 0; !oom && q->headers && q->headers[i]; i++) {
		struct curl_slist *n = curl_slist_append(*hl, q->headers[i]);
		if (n)
			*hl = n;
		else
			oom = 1;
	}
	if (oom) {
		curl_slist_free_all(*hl);
		*hl = NULL;
		return TG_ENOMEM;
	}
	if (*hl)
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hl);
	if (q->aws_sigv4) {
		curl_easy_setopt(c, CURLOPT_AWS_SIGV4, q->aws_sigv4);
		if (q->userpwd)
			curl_easy_setopt(c, CURLOPT_USERPWD, q->userpwd);
	}
	return 0;
}

int tg_http_do(tg_http_response *out, tg_http *h, const tg_http_req *q)
{
	memset(out, 0, sizeof(*out));
	const char *method = q->method ? q->method : "GET";
	int idem = q->retry == TG_HTTP_IDEMPOTENT;
	char u[1024];
	url_for_message(u, sizeof(u), q->url);
	for (int attempt = 1;; attempt++) {
		tg_http_response_free(out);
		out->attempts = attempt;
		struct attempt a = {.r = out, .sink = q->sink, .max_body = q->max_body, .body = TG_BUF_INIT};
		if (q->sink) {
			rewind(q->sink);
			if (ftruncate(fileno(q->sink), 0)) {
				/* a pipe or a terminal: only one try is possible */
			}
		}
		struct curl_slist *hl = NULL;
		if (setup(h, q, &hl, &a))
			return tg_error_set(TG_ENOMEM, "out of memory");
		CURLcode cc = curl_easy_perform(h->curl);
		curl_slist_free_all(hl);
		if (h->o.observe) {
			long seen = 0;
			if (cc == CURLE_OK)
				curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &seen);
			h->o.observe(h->o.observe_ctx, seen);
		}
		/* "" when nothing came */
		if (tg_buf_take(&out->body, &out->len, &a.body))
			return tg_error_set(TG_ENOMEM, "out of memory");
		if (a.oom)
			return tg_error_set(TG_ENOMEM, "out of memory");
		if (a.over)
			return tg_error_set(TG_ELIMIT, "%s %s: the response is larger than %llu bytes", method, u,
			                    (unsigned long long)(q->max_body ? q->max_body : DEFAULT_MAX_BODY));
		int more = attempt < h->o.max_attempts;
		if (cc != CURLE_OK) {
			out->status = 0;
			int before = curl_error_is_before_send(cc);
			if (more && curl_error_retryable(cc) && (idem || before)) {
				h->o.sleep(h->o.sleep_ctx, backoff(h, attempt));
				continue;
			}
			out->ambiguous = !idem && !before && curl_error_retryable(cc);
			if (curl_error_is_tls(cc) && h->errbuf[0])
				return tg_error_set(TG_EIO, "%s %s: TLS: %s (%d %s)", method, u, h->errbuf, attempt,
				                    attempt == 1 ? "try" : "tries");
			return tg_error_set(TG_EIO, "%s %s: %s (%d %s)", method, u, curl_easy_strerror(cc), attempt,
			                    attempt == 1 ? "try" : "tries");
		}
		long st = 0;
		curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &st);
		out->status = st;
		out->link_next = tg_http_link_next(tg_http_header(out, "link"));
		out->etag = dup_header(out, "etag");
		out->location = dup_header(out, "location");
		if (st >= 200 && st < 300)
			return 0;
		int limited = tg_http_is_rate_limited(out);
		long ra = tg_http_retry_after_ms(out, (int64_t)time(NULL));
		int retry = 0;
		if (limited)
			retry = 1;
		else if (st == 503 && ra >= 0)
			retry = 1;
		else if (st == 408 || st == 500 || st == 502 || st == 503 || st == 504) {
			retry = idem;
			out->ambiguous = !idem;
		}
		if (!retry || !more)
			return 0;
		out->ambiguous = 0;
		long w = backoff(h, attempt);
		if (ra > w)
			w = ra > h->o.max_wait_ms ? h->o.max_wait_ms : ra;
		h->o.sleep(h->o.sleep_ctx, w);
	}
}

char *tg_http_escape(const char *s, int keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *o = malloc(3 * n + 1);
	if (!o) {
		tg_error_set(TG_ENOMEM, "out of memory");
		return NULL;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		/* not isalnum(): under a non-C locale it may accept bytes >= 0x80 */
		int unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		                 c == '-' || c == '.' || c == '_' || c == '~';
		if (unreserved || (keep_slash && c == '/')) {
			o[k++] = (char)c;
		} else {
			o[k++] = '%';
			o[k++] = hex[c >> 4];
			o[k++] = hex[c & 15];
		}
	}
	o[k] = 0;
	return o;
}
