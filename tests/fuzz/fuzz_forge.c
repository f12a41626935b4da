/*
 * fuzz_forge.c - libFuzzer target for what the forge clients read from a
 * GitHub, GitLab or Gitea server (daemon/forge/forge_util.c, forge_github.c,
 * forge_github_checks.c, forge_gitlab.c): the answers the daemon trusts
 * to find its comment, read the labels that override the rules, find its
 * check run, and walk the pages of a listing. No network: the parsers are
 * given the crafted answer as a tg_http_response.
 *
 * Input: the first byte picks the parser ('0' to '6', or any byte modulo
 * 7 from '0'), the rest is the answer:
 *   '0' comments   a listing of comments or notes, JSON (tg_forge_json, then
 *                  tg_forge_marker_page: the comment with the marker line)
 *   '1' labels     a GitHub or Gitea listing of labels, then, after a line
 *                  "----", a page of GitHub issue events (tg_forge_label_page,
 *                  tg_forge_github_event_page: who added each label)
 *   '2' mr         a GitLab merge request object (tg_forge_gitlab_mr_labels)
 *   '3' checks     a GitHub check-runs answer (tg_forge_github_run_id)
 *   '4' created    the answer to a create: an object with an "id"
 *                  (tg_forge_json_id)
 *   '5' paging     the headers of successive pages, pages separated by an
 *                  empty line, each a few "name: value" lines and a line
 *                  "items: N" (the size of the page); tg_http_link_next
 *                  and tg_forge_next_page walk them as tg_forge_get_pages
 *                  does, at most 64 pages
 *   '6' status     a failed answer: its status code on the first line, then
 *                  header lines, an empty line, the body (tg_forge_check)
 * The seeds in tests/fuzz/corpus/forge/ are answers in the shapes GitHub,
 * GitLab and Gitea document (abridged), and a few broken ones.
 *
 * Beyond the sanitizers, the target aborts when a parser breaks one of its
 * documented promises (forge.h, forge_impl.h):
 *   - a failure returns TG_EFORMAT (or TG_ENOMEM; for a status TG_ENOTFOUND,
 *     TG_ELIMIT or TG_EIO as tg_forge_check documents), with one message
 *     line that starts with the forge's name and never holds the token nor
 *     the request's query string (unless the answer itself has that text);
 *   - the marker search gives the smallest id of a comment whose body has
 *     the marker as a whole line, or 0; labels are the answer's names in
 *     order, each "by" the actor of the label's latest "labeled" event;
 *     the check run is the newest one named after the context; a created
 *     id is the answer's positive integer;
 *   - paging never leaves the API's host (the token would go along), each
 *     next page's number is above the last (the walk ends), and without a
 *     Link the next URL is the prefix and that number.
 *
 * Build and run: make fuzz FUZZ_TARGETS=forge (build-fuzz/fuzz_forge).
 */
#include "../../util/tg.h"
#include "../../daemon/forge/forge_impl.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "fuzz-forge"
#define API "https://api.forge.example/api/v4"
#define TOKEN "tok-FUZZ-SECRET-8d1e"
#define MARKER "<!-- tracegate:train -->"
#define SHA "0123456789abcdef0123456789abcdef01234567"
#define CONTEXT "tracegate/train"
#define PREFIX API "/repos/acme/llm/issues/7/comments?per_page=100&page="
#define URL PREFIX "1"
#define MAX_PAGES 64

#define CHECK(cond)                                                                                    \
	do {                                                                                           \
		if (!(cond)) {                                                                         \
			fprintf(stderr, "fuzz_forge: %s:%d: broken promise: %s (%s)\n", __FILE__, __LINE__, \
			        #cond, tg_error_last());                                                     \
			abort();                                                                       \
		}                                                                                      \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void) { return "print_stacktrace=1"; }

static tg_forge *F;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tg_forge_opts o = {0};
	o.kind = TG_FORGE_GITHUB;
	o.name = NAME;
	o.api_url = API;
	o.token = TOKEN;
	CHECK(tg_forge_new(&F, &o) == 0);
	F->self_id = 1; /* the account asked of GET /user: no request from the harness */
	return 0;
}

/* ------------------------------------------------------------ helpers */

/* The input's text (from, len bytes) as a response body. */
static void set_body(tg_http_response *r, const uint8_t *from, size_t len)
{
	r->body = malloc(len + 1);
	CHECK(r->body != NULL);
	memcpy(r->body, from, len);
	r->body[len] = 0;
	r->len = len;
}

/* One header line as tg_http_do keeps it: trailing CR/LF cut, lines
 * without a ':' skipped, the name lower-cased. */
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

/* 1 when s is in data once spaces and control characters are dropped
 * (as messages drop or fold them when they quote an answer). */
static int has(const uint8_t *data, size_t size, const char *s)
{
	char *t = malloc(size + 1);
	CHECK(t != NULL);
	size_t k = 0;
	for (size_t i = 0; i < size; i++)
		if (data[i] > 0x20 && data[i] != 0x7f)
			t[k++] = (char)data[i];
	int found = memmem(t, k, s, strlen(s)) != NULL;
	free(t);
	return found;
}

/* The message of a failure: one line, the forge's name first, no token,
 * no query string. */
static void check_error(int rc, const uint8_t *data, size_t size)
{
	const char *msg = tg_error_last();
	CHECK(rc < 0 && tg_error_last_code() == rc);
	CHECK(strchr(msg, '\n') == NULL && strchr(msg, '\r') == NULL);
	CHECK(strstr(msg, TOKEN) == NULL);
	if (rc == TG_ENOMEM)
		return;
	CHECK(strncmp(msg, NAME ": ", strlen(NAME ": ")) == 0);
	if (!has(data, size, "per_page="))
		CHECK(strstr(msg, "per_page=") == NULL);
}

/* The body parsed as JSON of the type wanted, or NULL (the failure checked). */
static json_t *parse(const uint8_t *data, size_t size, json_type want)
{
	tg_http_response r = {0};
	r.status = 200;
	set_body(&r, data, size);
	json_t *j = (json_t *)1;
	int rc = tg_forge_json(&j, F, "GET", URL, &r, want);
	if (rc) {
		CHECK(rc == TG_EFORMAT && j == NULL);
		check_error(rc, data, size);
	} else {
		CHECK(j != NULL && json_typeof(j) == want);
	}
	tg_http_response_free(&r);
	return rc ? NULL : j;
}

/* ------------------------------------------------------------ the parsers */

static void comments(const uint8_t *data, size_t size)
{
	json_t *items = parse(data, size, JSON_ARRAY);
	if (!items)
		return;
	struct tg_forge_marker_search m = {MARKER, 0, "user"};
	int rc = tg_forge_marker_page(&m, F, URL, items);
	if (rc) {
		CHECK(rc == TG_EFORMAT);
		check_error(rc, data, size);
	} else {
		int64_t want = 0;
		size_t i;
		json_t *c;
		json_array_foreach(items, i, c) {
			json_int_t id = json_integer_value(json_object_get(c, "id"));
			const char *body = json_string_value(json_object_get(c, "body"));
			CHECK(id > 0);
			/* only the token's own account's (F->self_id, 1) */
			json_t *who = json_object_get(json_object_get(c, "user"), "id");
			if (body && tg_forge_has_marker_line(body, MARKER) && (!want || id < want) &&
			    json_integer_value(who) == 1)
				want = id;
		}
		CHECK(m.id == want);
	}
	json_decref(items);
}

static void labels(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, "\n----\n", 6);
	size_t n1 = sep ? (size_t)(sep - data) : size;
	json_t *items = parse(data, n1, JSON_ARRAY);
	if (!items)
		return;
	tg_forge_label *l = NULL;
	size_t n = 0;
	struct tg_forge_labels_ctx x = {&l, &n};
	int rc = tg_forge_label_page(&x, F, URL, items);
	if (rc) {
		CHECK(rc == TG_EFORMAT && n < json_array_size(items));
		check_error(rc, data, size);
		tg_forge_labels_free(l, n);
		json_decref(items);
		return;
	}
	CHECK(n == json_array_size(items));
	for (size_t i = 0; i < n; i++) {
		CHECK(!strcmp(l[i].name, json_string_value(json_object_get(json_array_get(items, i), "name"))));
		CHECK(l[i].by == NULL);
	}
	json_decref(items);
	json_t *events = sep ? parse(sep + 6, size - n1 - 6, JSON_ARRAY) : NULL;
	if (events) {
		CHECK(tg_forge_github_event_page(&x, F, URL, events) == 0);
		for (size_t i = 0; i < n; i++) {
			/* the actor of the latest "labeled" event of the label, if any */
			const char *want = NULL;
			size_t k;
			json_t *ev;
			json_array_foreach(events, k, ev) {
				const char *kind = json_string_value(json_object_get(ev, "event"));
				const char *name = json_string_value(json_object_get(json_object_get(ev, "label"), "name"));
				if (kind && !strcmp(kind, "labeled") && name && !strcmp(name, l[i].name))
					want = json_string_value(json_object_get(json_object_get(ev, "actor"), "login"));
			}
			CHECK((want == NULL) == (l[i].by == NULL));
			CHECK(!want || !strcmp(want, l[i].by));
		}
		json_decref(events);
	}
	tg_forge_labels_free(l, n);
}

static void mr(const uint8_t *data, size_t size)
{
	json_t *j = parse(data, size, JSON_OBJECT);
	if (!j)
		return;
	tg_forge_label *l = NULL;
	size_t n = 0;
	json_t *want = json_object_get(j, "labels");
	int rc = tg_forge_gitlab_mr_labels(&l, &n, F, "group/sub/project", 12, j);
	if (rc) {
		CHECK(rc == TG_EFORMAT);
		check_error(rc, data, size);
		CHECK(n <= json_array_size(want));
	} else {
		CHECK(n == json_array_size(want));
		for (size_t i = 0; i < n; i++) {
			json_t *w = json_array_get(want, i);
			const char *name = json_is_string(w) ? json_string_value(w) : json_string_value(json_object_get(w, "name"));
			CHECK(name && !strcmp(l[i].name, name) && l[i].by == NULL);
		}
	}
	tg_forge_labels_free(l, n);
	json_decref(j);
}

static void checks(const uint8_t *data, size_t size)
{
	json_t *j = parse(data, size, JSON_OBJECT);
	if (!j)
		return;
	int64_t id = -1;
	int rc = tg_forge_github_run_id(&id, F, SHA, CONTEXT, j);
	if (rc) {
		CHECK(rc == TG_EFORMAT && id == 0);
		check_error(rc, data, size);
	} else {
		int64_t want = 0;
		size_t i;
		json_t *run;
		json_array_foreach(json_object_get(j, "check_runs"), i, run) {
			json_int_t rid = json_integer_value(json_object_get(run, "id"));
			const char *name = json_string_value(json_object_get(run, "name"));
			CHECK(rid > 0);
			if (name && !strcmp(name, CONTEXT) && rid > want)
				want = rid;
		}
		CHECK(id == want);
	}
	json_decref(j);
}

static void created(const uint8_t *data, size_t size)
{
	json_t *j = parse(data, size, JSON_OBJECT);
	if (!j)
		return;
	int64_t id = -1;
	int rc = tg_forge_json_id(&id, F, "POST " API "/repos/acme/llm/issues/7/comments", j, "id");
	if (rc) {
		CHECK(rc == TG_EFORMAT && id == 0);
		check_error(rc, data, size);
	} else {
		CHECK(id > 0 && id == json_integer_value(json_object_get(j, "id")));
	}
	json_decref(j);
}

static void paging(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	long page = 1;
	size_t seen = 0;
	for (int k = 0; k < MAX_PAGES && p < end; k++) {
		tg_http_response r = {0};
		r.status = 200;
		set_body(&r, (const uint8_t *)"[]", 2);
		size_t got = 0;
		/* this page's lines, up to an empty line */
		while (p < end) {
			const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			const uint8_t *line = p;
			p = nl ? nl + 1 : end;
			if (n == 0 || (n == 1 && line[0] == '\r'))
				break;
			if (n > 7 && !memcmp(line, "items: ", 7)) {
				char num[8] = {0};
				memcpy(num, line + 7, n - 7 < 7 ? n - 7 : 7);
				got = strtoul(num, NULL, 10) % 1001;
			} else {
				add_header(&r, (const char *)line, n);
			}
		}
		seen += got;
		r.link_next = tg_http_link_next(tg_http_header(&r, "link"));
		char *next = (char *)1;
		long before = page;
		int rc = tg_forge_next_page(&next, F, PREFIX, &r, &page, got, seen);
		if (rc) {
			CHECK((rc == TG_EFORMAT || rc == TG_ENOMEM) && next == NULL);
			check_error(rc, data, size);
		} else if (next) {
			CHECK(tg_forge_same_origin(F, next));
			CHECK(page > before);
			if (!r.link_next) {
				char want[256];
				snprintf(want, sizeof(want), PREFIX "%ld", page);
				CHECK(!strcmp(next, want));
			}
		}
		tg_http_response_free(&r);
		if (rc || !next)
			break;
		free(next);
	}
}

static void status(const uint8_t *data, size_t size)
{
	tg_http_response r = {0};
	const uint8_t *p = data, *end = data + size;
	/* the status line, the headers, an empty line, the body */
	const uint8_t *nl = memchr(p, '\n', size);
	char num[16] = {0};
	memcpy(num, p, nl ? ((size_t)(nl - p) < 15 ? (size_t)(nl - p) : 15) : (size < 15 ? size : 15));
	r.status = strtol(num, NULL, 10);
	p = nl ? nl + 1 : end;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const uint8_t *line = p;
		p = nl ? nl + 1 : end;
		if (n == 0 || (n == 1 && line[0] == '\r'))
			break;
		add_header(&r, (const char *)line, n);
	}
	set_body(&r, p, (size_t)(end - p));
	int rc = tg_forge_check(F, "GET", URL, &r);
	if (r.status >= 200 && r.status < 300) {
		CHECK(rc == 0);
	} else {
		int want = r.status == 404 ? TG_ENOTFOUND : tg_http_is_rate_limited(&r) ? TG_ELIMIT : TG_EIO;
		CHECK(rc == want);
		check_error(rc, data, size);
		CHECK(strstr(tg_error_last(), "GET " API "/repos/acme/llm/issues/7/comments: ") != NULL);
	}
	tg_http_response_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	tg_error_clear();
	const uint8_t *d = data + 1;
	size_t n = size - 1;
	switch ((uint8_t)(data[0] - '0') % 7) {
	case 0: comments(d, n); break;
	case 1: labels(d, n); break;
	case 2: mr(d, n); break;
	case 3: checks(d, n); break;
	case 4: created(d, n); break;
	case 5: paging(d, n); break;
	default: status(d, n); break;
	}
	return 0;
}
