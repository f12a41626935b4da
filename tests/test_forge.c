/*
 * test_forge.c - the forge clients (daemon/forge*.c).
 *
 * Offline: kinds and states, description trimming (UTF-8), marker lines,
 * the outbox end to end in a temporary folder, and each network backend
 * against a scripted in-process server (tests/mini_http.h) answering with
 * bodies in the shapes GitHub, GitLab and Gitea document: the requests
 * sent (method, path, headers, JSON), pagination, the no-duplicate rule
 * after an ambiguous create, and what malformed answers give.
 *
 * Live (tests/it_forges.sh sets the variables; skipped otherwise): the same
 * client against stateful fakes behind `prism proxy --errors`, which checks
 * every request against the forge's published OpenAPI description.
 *   TG_IT_TOKEN, TG_IT_{GITHUB,GITLAB,GITEA,FORGEJO}_URL (the proxy, API
 *   root) and TG_IT_{...}_FAKE (the fake itself, for its /_fake hooks).
 */
#include "testutil.h"
#include "mini_http.h"

#include "../util/tg.h"
#include "../daemon/forge/forge_impl.h"

#include <dirent.h>
#include <jansson.h>
#include <unistd.h>

#define TOKEN "tok-SECRET-4f2a9"
#define SHA "0123456789abcdef0123456789abcdef01234567"
#define MARKER "<!-- tracegate:llama-8b-train -->"

/* ------------------------------------------------------------ helpers */

static long sleeps[64];
static int nsleeps;

static void record_sleep(void *ctx, long ms)
{
	(void)ctx;
	if (nsleeps < 64)
		sleeps[nsleeps++] = ms;
}

static tg_forge *new_forge(tg_forge_kind kind, const char *api, int check_runs)
{
	tg_forge_opts o = {0};
	o.kind = kind;
	o.name = "test-forge";
	o.api_url = api;
	o.token = TOKEN;
	o.check_runs = check_runs;
	o.http.max_attempts = 3;
	o.http.backoff_ms = 10;
	o.http.timeout_ms = 3000;
	o.http.sleep = record_sleep;
	nsleeps = 0;
	tg_forge *f = NULL;
	int rc = tg_forge_new(&f, &o);
	if (rc)
		fail_msg("tg_forge_new: %s", tg_error_last());
	return f;
}

static json_t *req_json(mh_server *s, int i)
{
	json_error_t e;
	json_t *j = json_loads(s->reqs[i].body, 0, &e);
	if (!j)
		fail_msg("request %d body is not JSON: %s (%s)", i, e.text, s->reqs[i].body);
	return j;
}

static const char *jstr(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "(none)";
}

static int count_codepoints(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* A GitHub issue comment as the REST API returns it (abridged). */
static char *gh_comment(char *buf, size_t cap, long long id, const char *body)
{
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:s, s:{s:s, s:i, s:s}, s:s, s:s, s:s}", "id", (json_int_t)id,
	                      "node_id", "IC_kwDOAAAB", "url", "https://api.github.com/repos/o/r/issues/comments/1",
	                      "html_url", "https://github.com/o/r/issues/7#issuecomment-1", "body", body, "user",
	                      "login", "tracegate-bot", "id", 99, "type", "Bot", "created_at", "2024-05-01T10:00:00Z",
	                      "updated_at", "2024-05-01T10:00:00Z", "author_association", "NONE");
	char *t = json_dumps(j, JSON_COMPACT);
	snprintf(buf, cap, "%s", t);
	free(t);
	json_decref(j);
	return buf;
}

/* ------------------------------------------------------- names, parsing */

static void test_kind_names(void **state)
{
	(void)state;
	tg_forge_kind k = TG_FORGE_OUTBOX;
	assert_int_equal(tg_forge_kind_parse(&k, "github"), 0);
	assert_int_equal(k, TG_FORGE_GITHUB);
	assert_int_equal(tg_forge_kind_parse(&k, "gitlab"), 0);
	assert_int_equal(k, TG_FORGE_GITLAB);
	assert_int_equal(tg_forge_kind_parse(&k, "forgejo"), 0);
	assert_int_equal(k, TG_FORGE_GITEA);
	assert_int_equal(tg_forge_kind_parse(&k, "gitea"), 0);
	assert_int_equal(k, TG_FORGE_GITEA);
	assert_int_equal(tg_forge_kind_parse(&k, "outbox"), 0);
	assert_int_equal(k, TG_FORGE_OUTBOX);
	assert_int_equal(tg_forge_kind_parse(&k, "GitHub"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "forge kind 'GitHub' is not one of github, gitlab, gitea, forgejo, outbox");
	assert_int_equal(tg_forge_kind_parse(&k, NULL), TG_EINVAL);
	assert_string_equal(tg_forge_kind_name(TG_FORGE_GITEA), "gitea");
	assert_string_equal(tg_forge_kind_name(TG_FORGE_OUTBOX), "outbox");
	assert_string_equal(tg_forge_state_name(TG_FORGE_PENDING), "pending");
	assert_string_equal(tg_forge_state_name(TG_FORGE_ERROR), "error");
}

static void test_new_needs_url_and_token(void **state)
{
	(void)state;
	tg_forge *f = (tg_forge *)1;
	tg_forge_opts o = {.kind = TG_FORGE_GITHUB, .name = "gh", .api_url = "https://api.github.com"};
	assert_int_equal(tg_forge_new(&f, &o), TG_EINVAL);
	assert_null(f);
	assert_string_equal(tg_error_last(), "gh: no token");
	o.token = "a\nb";
	assert_int_equal(tg_forge_new(&f, &o), TG_EINVAL);
	assert_null(strstr(tg_error_last(), "a\nb"));
	o.token = "t";
	o.api_url = "ftp://x";
	assert_int_equal(tg_forge_new(&f, &o), TG_EINVAL);
	o.api_url = NULL;
	assert_int_equal(tg_forge_new(&f, &o), TG_EINVAL);
	assert_string_equal(tg_error_last(), "gh: no api_url");
	tg_forge_opts ob = {.kind = TG_FORGE_OUTBOX};
	assert_int_equal(tg_forge_new(&f, &ob), TG_EINVAL);
	assert_string_equal(tg_error_last(), "outbox: an outbox forge needs a folder");
	o.api_url = "https://api.github.com/";
	assert_int_equal(tg_forge_new(&f, &o), 0);
	assert_string_equal(f->api, "https://api.github.com");
	assert_int_equal(tg_forge_get_kind(f), TG_FORGE_GITHUB);
	tg_forge_free(f);
}

/* ------------------------------------------------------------ text rules */

static void test_trim_ascii(void **state)
{
	(void)state;
	char *t = tg_forge_trim_description("3 rules pass", 140);
	assert_string_equal(t, "3 rules pass");
	free(t);
	t = tg_forge_trim_description("line one\nline\ttwo\r", 140);
	assert_string_equal(t, "line one line two ");
	free(t);
	t = tg_forge_trim_description(NULL, 140);
	assert_string_equal(t, "");
	free(t);
	char s[201];
	memset(s, 'a', 200);
	s[200] = 0;
	s[136] = ' '; /* a space before the cut is dropped */
	t = tg_forge_trim_description(s, 140);
	assert_int_equal(strlen(t), 139);
	assert_string_equal(t + 136, "...");
	free(t);
	s[136] = 'a';
	s[140] = 0; /* exactly the limit: unchanged */
	t = tg_forge_trim_description(s, 140);
	assert_int_equal(strlen(t), 140);
	assert_int_equal(t[139], 'a');
	free(t);
}

static void test_trim_multibyte(void **state)
{
	(void)state;
	char s[1024] = "";
	for (int i = 0; i < 150; i++)
		strcat(s, "\xc3\xa9"); /* é: 2 bytes */
	char *t = tg_forge_trim_description(s, 140);
	assert_int_equal(count_codepoints(t), 140);
	assert_int_equal(strlen(t), 137 * 2 + 3);
	assert_true(tg_forge_utf8_valid(t, strlen(t)));
	assert_string_equal(t + 137 * 2, "...");
	free(t);
	s[0] = 0;
	for (int i = 0; i < 100; i++)
		strcat(s, "a\xf0\x9f\x98\x80"); /* a then U+1F600: 1 + 4 bytes */
	t = tg_forge_trim_description(s, 140);
	assert_int_equal(count_codepoints(t), 140);
	assert_int_equal(strlen(t), 68 * 5 + 1 + 3); /* 137 code points: 68 pairs and an 'a' */
	assert_true(tg_forge_utf8_valid(t, strlen(t)));
	free(t);
	s[0] = 0;
	for (int i = 0; i < 60; i++)
		strcat(s, "\xe6\x97\xa5"); /* 日: 3 bytes, under the limit */
	t = tg_forge_trim_description(s, 140);
	assert_string_equal(t, s);
	free(t);
	/* invalid bytes become '?', a cut sequence too */
	t = tg_forge_trim_description("ok \xff\xfe end \xe6\x97", 140);
	assert_string_equal(t, "ok ?? end ??");
	free(t);
	/* a byte cut never splits a character */
	t = tg_forge_cut_utf8("\xc3\xa9\xc3\xa9\xc3\xa9", 3);
	assert_string_equal(t, "\xc3\xa9");
	free(t);
	t = tg_forge_cut_utf8("ab\xf0\x9f\x98\x80", 5);
	assert_string_equal(t, "ab");
	free(t);
	t = tg_forge_cut_utf8("abc", 10);
	assert_string_equal(t, "abc");
	free(t);
	assert_false(tg_forge_utf8_valid("\xc0\x80", 2));         /* overlong */
	assert_false(tg_forge_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
	assert_true(tg_forge_utf8_valid("\xf4\x8f\xbf\xbf", 4));  /* U+10FFFF */
	assert_false(tg_forge_utf8_valid("\xf4\x90\x80\x80", 4)); /* beyond */
}

static void test_marker_line(void **state)
{
	(void)state;
	assert_true(tg_forge_has_marker_line(MARKER "\n## tracegate", MARKER));
	assert_true(tg_forge_has_marker_line("## tracegate\r\n" MARKER "\r\nmore", MARKER));
	assert_true(tg_forge_has_marker_line("text\n  " MARKER "\t", MARKER));
	assert_false(tg_forge_has_marker_line("quoted: " MARKER, MARKER));
	assert_false(tg_forge_has_marker_line(MARKER " and more", MARKER));
	assert_false(tg_forge_has_marker_line("<!-- tracegate:llama-8b-train-2 -->", MARKER));
	assert_false(tg_forge_has_marker_line("", MARKER));
	assert_false(tg_forge_has_marker_line(NULL, MARKER));
}

/* ----------------------------------------------------------------- outbox */

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	char *b = calloc(1, 1 << 21);
	size_t n = fread(b, 1, (1 << 21) - 1, fp);
	b[n] = 0;
	fclose(fp);
	return b;
}

static int count_lines(const char *path)
{
	char *b = slurp(path);
	int n = 0;
	for (char *p = b; p && *p; p++)
		n += *p == '\n';
	free(b);
	return n;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void rm_rf(const char *path)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd)) {
	}
}

static void test_outbox_end_to_end(void **state)
{
	(void)state;
	char tmp[] = "/tmp/tg-outbox-XXXXXX";
	assert_non_null(mkdtemp(tmp));
	char dir[512], path[1024];
	snprintf(dir, sizeof(dir), "%s/out", tmp); /* created on first use */
	char *echo = NULL;
	size_t echo_len = 0;
	FILE *ef = open_memstream(&echo, &echo_len);
	tg_forge_opts o = {.kind = TG_FORGE_OUTBOX, .name = "dry-run", .outbox_dir = dir, .outbox_echo = ef};
	tg_forge *f;
	assert_int_equal(tg_forge_new(&f, &o), 0);

	tg_forge_status s = {.repo = "acme/llm", .sha = SHA, .state = TG_FORGE_PENDING,
	                     .context = "tracegate/llama-8b-train", .description = "analysing"};
	assert_int_equal(tg_forge_post_status(f, &s), 0);
	s.state = TG_FORGE_FAILURE;
	s.description = "SDPA +7.3 % (limit 5 %)";
	s.target_url = "https://ci.example/t/1";
	assert_int_equal(tg_forge_post_status(f, &s), 0);
	snprintf(path, sizeof(path), "%s/acme__llm/%s/status-tracegate_llama-8b-train.json", dir, SHA);
	char *text = slurp(path);
	assert_non_null(text);
	json_t *j = json_loads(text, 0, NULL);
	assert_non_null(j);
	assert_string_equal(jstr(j, "state"), "failure");
	assert_string_equal(jstr(j, "description"), "SDPA +7.3 % (limit 5 %)");
	assert_string_equal(jstr(j, "target_url"), "https://ci.example/t/1");
	assert_string_equal(jstr(j, "repo"), "acme/llm");
	json_decref(j);
	free(text);
	snprintf(path, sizeof(path), "%s/statuses.log", dir);
	assert_int_equal(count_lines(path), 2);

	/* the comment: created once, then replaced in place */
	tg_forge_comment c = {.repo = "acme/llm", .pr = 12, .marker = MARKER, .body = MARKER "\n## first\n"};
	int64_t id = 0, id2 = 0;
	int created = -1;
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	assert_int_equal(created, 1);
	assert_int_equal(id, tg_forge_outbox_comment_id("acme/llm", 12, MARKER));
	assert_true(id > 0);
	c.body = MARKER "\n## second\n";
	assert_int_equal(tg_forge_upsert_comment(&id2, &created, f, &c), 0);
	assert_int_equal(created, 0);
	assert_int_equal(id2, id);
	snprintf(path, sizeof(path), "%s/acme__llm/pr-12", dir);
	assert_int_equal(count_entries(path), 1); /* no temporary file left */
	DIR *d = opendir(path);
	struct dirent *e;
	while ((e = readdir(d)) && e->d_name[0] == '.')
		;
	assert_non_null(e);
	assert_int_equal(strncmp(e->d_name, "comment-", 8), 0);
	assert_int_equal(strlen(e->d_name), 8 + 16 + 3);
	char file[1400];
	snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
	closedir(d);
	text = slurp(file);
	assert_string_equal(text, MARKER "\n## second\n");
	free(text);
	fflush(ef);
	assert_non_null(strstr(echo, "comment on acme/llm#12 created"));
	assert_non_null(strstr(echo, "comment on acme/llm#12 updated"));
	assert_non_null(strstr(echo, "## second\n"));

	/* another workload's marker: another comment */
	tg_forge_comment c2 = {.repo = "acme/llm", .pr = 12, .marker = "<!-- tracegate:other -->",
	                       .body = "<!-- tracegate:other -->\nx"};
	assert_int_equal(tg_forge_upsert_comment(&id2, &created, f, &c2), 0);
	assert_int_equal(created, 1);
	assert_true(id2 != id);
	assert_int_equal(count_entries(path), 2);

	/* hostile names stay inside the folder */
	tg_forge_status evil = {.repo = "../../x", .sha = "abc", .state = TG_FORGE_SUCCESS, .context = "../../../y"};
	assert_int_equal(tg_forge_post_status(f, &evil), 0);
	snprintf(path, sizeof(path), "%s/_.__..__x/abc/status-_._.._.._y.json", dir);
	text = slurp(path);
	assert_non_null(text);
	free(text);
	assert_int_equal(count_entries(tmp), 1); /* only out/ */

	/* refused comments */
	tg_forge_comment bad = {.repo = "acme/llm", .pr = 12, .marker = MARKER, .body = "no marker line " MARKER};
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &bad), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "lacks its marker line"));
	char *big = malloc(TG_FORGE_MAX_BODY + 64);
	strcpy(big, MARKER "\n");
	memset(big + strlen(big), 'x', TG_FORGE_MAX_BODY);
	big[TG_FORGE_MAX_BODY + 40] = 0;
	bad.body = big;
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &bad), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "bytes, more than 1048576"));
	free(big);
	bad.body = MARKER "\n\xff";
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &bad), TG_EINVAL);
	bad.pr = 0;
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &bad), TG_EINVAL);
	tg_forge_label *l = (tg_forge_label *)1;
	size_t nl = 9;
	assert_int_equal(tg_forge_pr_labels(&l, &nl, f, "acme/llm", 12), 0);
	assert_null(l);
	assert_int_equal(nl, 0);
	tg_forge_free(f);
	fclose(ef);
	free(echo);
	rm_rf(tmp);
}

static void test_outbox_component(void **state)
{
	(void)state;
	char b[200];
	tg_forge_outbox_component(b, sizeof(b), "tracegate/llama 8b");
	assert_string_equal(b, "tracegate_llama_8b");
	tg_forge_outbox_component(b, sizeof(b), "..");
	assert_string_equal(b, "_.");
	tg_forge_outbox_component(b, sizeof(b), "");
	assert_string_equal(b, "_");
	tg_forge_outbox_component(b, sizeof(b), "\xc3\xa9t\xc3\xa9");
	assert_string_equal(b, "__t__");
	char longs[300];
	memset(longs, 'z', 299);
	longs[299] = 0;
	tg_forge_outbox_component(b, sizeof(b), longs);
	assert_int_equal(strlen(b), 120);
	assert_int_equal(tg_forge_outbox_comment_id("a/b", 1, "m"), tg_forge_outbox_comment_id("a/b", 1, "m"));
	assert_true(tg_forge_outbox_comment_id("a/b", 1, "m") != tg_forge_outbox_comment_id("a/b", 2, "m"));
}

/* ----------------------------------------------------------------- GitHub */

static void test_github_status_request(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 201, NULL, "{\"id\":1,\"state\":\"failure\",\"context\":\"tracegate/x\"}");
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	char desc[300];
	memset(desc, 'd', 299);
	desc[299] = 0;
	tg_forge_status st = {.repo = "acme/llm", .sha = SHA, .state = TG_FORGE_FAILURE, .context = "tracegate/x",
	                      .description = desc, .target_url = "https://ci.example/1"};
	assert_int_equal(tg_forge_post_status(f, &st), 0);
	assert_int_equal(mh_nreqs(&s), 1);
	assert_string_equal(s.reqs[0].method, "POST");
	assert_string_equal(s.reqs[0].target, "/repos/acme/llm/statuses/" SHA);
	char h[256];
	assert_string_equal(mh_req_header(&s.reqs[0], "Accept", h, sizeof(h)), "application/vnd.github+json");
	assert_string_equal(mh_req_header(&s.reqs[0], "Authorization", h, sizeof(h)), "Bearer " TOKEN);
	assert_string_equal(mh_req_header(&s.reqs[0], "X-GitHub-Api-Version", h, sizeof(h)), "2022-11-28");
	assert_string_equal(mh_req_header(&s.reqs[0], "Content-Type", h, sizeof(h)), "application/json");
	json_t *b = req_json(&s, 0);
	assert_string_equal(jstr(b, "state"), "failure");
	assert_string_equal(jstr(b, "context"), "tracegate/x");
	assert_string_equal(jstr(b, "target_url"), "https://ci.example/1");
	assert_int_equal(strlen(jstr(b, "description")), 140);
	assert_int_equal(json_object_size(b), 4);
	json_decref(b);
	/* a bad commit id never reaches the network */
	st.sha = "main; rm -rf";
	assert_int_equal(tg_forge_post_status(f, &st), TG_EINVAL);
	assert_int_equal(mh_nreqs(&s), 1);
	tg_forge_free(f);
	mh_stop(&s);
}

static void test_github_upsert_edits_across_pages(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char c1[2048], c2[2048], c3[2048], c4[2048], page[8192], link[512];
	snprintf(page, sizeof(page), "[%s,%s]", gh_comment(c1, sizeof(c1), 10, "LGTM"),
	         gh_comment(c2, sizeof(c2), 11, "quoting the bot: " MARKER));
	snprintf(link, sizeof(link),
	         "Link: <%s/repositories/1/issues/7/comments?per_page=100&page=2>; rel=\"next\", "
	         "<%s/repositories/1/issues/7/comments?per_page=100&page=2>; rel=\"last\"\r\n",
	         s.base, s.base);
	mh_push(&s, 200, link, page);
	snprintf(page, sizeof(page), "[%s,%s,%s]", gh_comment(c3, sizeof(c3), 77, MARKER "\r\nold copy"),
	         gh_comment(c4, sizeof(c4), 42, "## tracegate\r\n" MARKER "\r\nold"),
	         "{\"id\":5,\"body\":\"" MARKER "\\nposted first by someone else\",\"user\":{\"login\":\"mallory\",\"id\":7}}");
	mh_push(&s, 200, NULL, page);
	mh_push(&s, 200, NULL, "{\"login\":\"tracegate-bot\",\"id\":99}"); /* GET /user, at the first match */
	mh_push(&s, 200, NULL, gh_comment(c1, sizeof(c1), 42, "new"));
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	tg_forge_comment c = {.repo = "acme/llm", .pr = 7, .marker = MARKER, .body = MARKER "\n## new"};
	int64_t id = 0;
	int created = -1;
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	/* the oldest of the bot's two with the marker line; not mallory's older one */
	assert_int_equal(id, 42);
	assert_int_equal(created, 0);
	assert_int_equal(mh_nreqs(&s), 4);
	assert_string_equal(s.reqs[0].method, "GET");
	assert_string_equal(s.reqs[0].target, "/repos/acme/llm/issues/7/comments?per_page=100&page=1");
	assert_string_equal(s.reqs[1].target, "/repositories/1/issues/7/comments?per_page=100&page=2");
	assert_string_equal(s.reqs[2].target, "/user");
	assert_string_equal(s.reqs[3].method, "PATCH");
	assert_string_equal(s.reqs[3].target, "/repos/acme/llm/issues/comments/42");
	json_t *b = req_json(&s, 3);
	assert_string_equal(jstr(b, "body"), MARKER "\n## new");
	assert_int_equal(json_object_size(b), 1);
	json_decref(b);
	tg_forge_free(f);
	mh_stop(&s);
}

static void test_github_upsert_creates(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char c1[2048];
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 201, "Location: https://api.github.com/repos/acme/llm/issues/comments/1001\r\n",
	        gh_comment(c1, sizeof(c1), 1001, MARKER "\nbody"));
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	tg_forge_comment c = {.repo = "acme/llm", .pr = 7, .marker = MARKER, .body = MARKER "\nbody \"quoted\" \xc3\xa9"};
	int64_t id = 0;
	int created = 0;
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	assert_int_equal(id, 1001);
	assert_int_equal(created, 1);
	assert_int_equal(mh_nreqs(&s), 2);
	assert_string_equal(s.reqs[1].method, "POST");
	assert_string_equal(s.reqs[1].target, "/repos/acme/llm/issues/7/comments");
	json_t *b = req_json(&s, 1);
	assert_string_equal(jstr(b, "body"), MARKER "\nbody \"quoted\" \xc3\xa9");
	json_decref(b);
	tg_forge_free(f);
	mh_stop(&s);
}

static void test_github_ambiguous_create_searches_first(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char c1[2048], page[4096];
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 502, NULL, "<html>Bad gateway</html>");
	snprintf(page, sizeof(page), "[%s]", gh_comment(c1, sizeof(c1), 555, MARKER "\nbody"));
	mh_push(&s, 200, NULL, page);
	mh_push(&s, 200, NULL, "{\"login\":\"tracegate-bot\",\"id\":99}");
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	tg_forge_comment c = {.repo = "acme/llm", .pr = 7, .marker = MARKER, .body = MARKER "\nbody"};
	int64_t id = 0;
	int created = 0;
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	assert_int_equal(id, 555);
	assert_int_equal(created, 1);
	assert_int_equal(mh_nreqs(&s), 4); /* GET, POST (502, not retried), GET, GET /user: no second POST */
	assert_string_equal(s.reqs[1].method, "POST");
	assert_string_equal(s.reqs[2].method, "GET");
	assert_int_equal(nsleeps, 0);
	tg_forge_free(f);
	mh_stop(&s);

	/* not there after all: one more POST, then done */
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 500, NULL, "{\"message\":\"Server Error\"}");
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 201, NULL, gh_comment(c1, sizeof(c1), 9, MARKER "\nbody"));
	f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	assert_int_equal(id, 9);
	assert_int_equal(created, 1);
	assert_int_equal(mh_nreqs(&s), 4);
	assert_string_equal(s.reqs[3].method, "POST");
	tg_forge_free(f);
	mh_stop(&s);

	/* ambiguous twice: an error that says so, and only two POSTs */
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 502, NULL, "");
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 502, NULL, "");
	f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), TG_EIO);
	assert_int_equal(id, 0);
	assert_int_equal(created, 0);
	assert_int_equal(mh_nreqs(&s), 4);
	char want[256];
	snprintf(want, sizeof(want), "test-forge: POST %s/repos/acme/llm/issues/7/comments: HTTP 502 (it may have taken effect)",
	         s.base);
	assert_string_equal(tg_error_last(), want);
	tg_forge_free(f);
	mh_stop(&s);
}

static void test_github_labels_and_who(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 200, NULL,
	        "[{\"id\":1,\"node_id\":\"LA_1\",\"url\":\"u\",\"name\":\"tracegate:accept-regression\",\"color\":\"f00\","
	        "\"default\":false,\"description\":null},{\"id\":2,\"name\":\"bug\",\"color\":\"0f0\"}]");
	mh_push(&s, 200, NULL,
	        "[{\"id\":1,\"event\":\"labeled\",\"actor\":{\"login\":\"alice\"},\"label\":{\"name\":\"tracegate:accept-"
	        "regression\",\"color\":\"f00\"}},"
	        "{\"id\":2,\"event\":\"unlabeled\",\"actor\":{\"login\":\"mallory\"},\"label\":{\"name\":\"tracegate:"
	        "accept-regression\"}},"
	        "{\"id\":3,\"event\":\"labeled\",\"actor\":{\"login\":\"bob\"},\"label\":{\"name\":\"tracegate:accept-"
	        "regression\"}},"
	        "{\"id\":4,\"event\":\"renamed\",\"actor\":{\"login\":\"carol\"}},"
	        "{\"id\":5,\"event\":\"labeled\",\"actor\":null,\"label\":{\"name\":\"bug\"}}]");
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	tg_forge_label *l;
	size_t n;
	assert_int_equal(tg_forge_pr_labels(&l, &n, f, "acme/llm", 7), 0);
	assert_int_equal(n, 2);
	assert_string_equal(l[0].name, "tracegate:accept-regression");
	assert_string_equal(l[0].by, "bob");
	assert_string_equal(l[1].name, "bug");
	assert_null(l[1].by);
	assert_string_equal(s.reqs[0].target, "/repos/acme/llm/issues/7/labels?per_page=100&page=1");
	assert_string_equal(s.reqs[1].target, "/repos/acme/llm/issues/7/events?per_page=100&page=1");
	tg_forge_labels_free(l, n);
	tg_forge_free(f);
	mh_stop(&s);

	/* the events cannot be read: labels without who */
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 200, NULL, "[{\"name\":\"perf\"}]");
	mh_push(&s, 404, NULL, "{\"message\":\"Not Found\"}");
	f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	assert_int_equal(tg_forge_pr_labels(&l, &n, f, "acme/llm", 7), 0);
	assert_int_equal(n, 1);
	assert_string_equal(l[0].name, "perf");
	assert_null(l[0].by);
	tg_forge_labels_free(l, n);
	tg_forge_free(f);
	mh_stop(&s);
}

/* A trailer counts only from a writer: who wrote the commit, and may they write? */
static void test_author_can_write(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	char *login = NULL;
	int can = -1;
	mh_push(&s, 200, NULL, "{\"sha\":\"" SHA "\",\"author\":{\"login\":\"alice\",\"id\":5}}");
	mh_push(&s, 200, NULL, "{\"permission\":\"write\",\"role_name\":\"maintain\",\"user\":{\"login\":\"alice\"}}");
	assert_int_equal(tg_forge_author_can_write(&login, &can, f, "acme/llm", SHA), 0);
	assert_string_equal(login, "alice");
	assert_int_equal(can, 1);
	free(login);
	assert_string_equal(s.reqs[0].target, "/repos/acme/llm/commits/" SHA);
	assert_string_equal(s.reqs[1].target, "/repos/acme/llm/collaborators/alice/permission");
	/* a reader */
	mh_push(&s, 200, NULL, "{\"author\":{\"login\":\"mallory\"}}");
	mh_push(&s, 200, NULL, "{\"permission\":\"read\",\"role_name\":\"triage\",\"user\":null}");
	assert_int_equal(tg_forge_author_can_write(&login, &can, f, "acme/llm", SHA), 0);
	assert_int_equal(can, 0);
	free(login);
	/* no collaborator at all: 404 */
	mh_push(&s, 200, NULL, "{\"author\":{\"login\":\"eve\"}}");
	mh_push(&s, 404, NULL, "{\"message\":\"Not Found\"}");
	assert_int_equal(tg_forge_author_can_write(&login, &can, f, "acme/llm", SHA), 0);
	assert_int_equal(can, 0);
	free(login);
	/* an author email that is no account: no second request */
	int before = mh_nreqs(&s);
	mh_push(&s, 200, NULL, "{\"author\":null,\"commit\":{\"author\":{\"name\":\"x\"}}}");
	assert_int_equal(tg_forge_author_can_write(&login, &can, f, "acme/llm", SHA), 0);
	assert_null(login);
	assert_int_equal(can, 0);
	assert_int_equal(mh_nreqs(&s), before + 1);
	/* not a commit */
	assert_int_equal(tg_forge_author_can_write(&login, &can, f, "acme/llm", "HEAD"), TG_EINVAL);
	tg_forge_free(f);
	mh_stop(&s);

	/* Gitea: the git commits path */
	assert_int_equal(mh_start(&s), 0);
	char api[128];
	snprintf(api, sizeof(api), "%s/api/v1", s.base);
	f = new_forge(TG_FORGE_GITEA, api, 0);
	mh_push(&s, 200, NULL, "{\"sha\":\"" SHA "\",\"author\":{\"login\":\"bob\",\"id\":3}}");
	mh_push(&s, 200, NULL, "{\"permission\":\"owner\",\"role_name\":\"owner\"}");
	assert_int_equal(tg_forge_author_can_write(&login, &can, f, "acme/llm", SHA), 0);
	assert_int_equal(can, 1);
	free(login);
	assert_string_equal(s.reqs[0].target, "/api/v1/repos/acme/llm/git/commits/" SHA);
	assert_string_equal(s.reqs[1].target, "/api/v1/repos/acme/llm/collaborators/bob/permission");
	tg_forge_free(f);
	mh_stop(&s);

	/* GitLab cannot tell */
	f = new_forge(TG_FORGE_GITLAB, "http://127.0.0.1:9/api/v4", 0);
	assert_int_equal(tg_forge_author_can_write(&login, &can, f, "acme/llm", SHA), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "cannot tell who may write"));
	tg_forge_free(f);
}

static void test_github_check_runs(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	/* none yet: created */
	mh_push(&s, 201, NULL, "{}");
	mh_push(&s, 200, NULL, "{\"total_count\":0,\"check_runs\":[]}");
	mh_push(&s, 201, NULL, "{\"id\":31}");
	/* one exists: updated */
	mh_push(&s, 201, NULL, "{}");
	mh_push(&s, 200, NULL,
	        "{\"total_count\":2,\"check_runs\":[{\"id\":31,\"name\":\"tracegate/x\"},{\"id\":12,\"name\":\"tracegate/"
	        "x\"}]}");
	mh_push(&s, 200, NULL, "{\"id\":31}");
	/* the token may not: a warning, the status stands */
	mh_push(&s, 201, NULL, "{}");
	mh_push(&s, 403, NULL, "{\"message\":\"Resource not accessible by personal access token\"}");
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 1);
	tg_forge_status st = {.repo = "acme/llm", .sha = SHA, .state = TG_FORGE_PENDING, .context = "tracegate/x",
	                      .description = "analysing", .target_url = "https://ci.example/1"};
	assert_int_equal(tg_forge_post_status(f, &st), 0);
	assert_int_equal(mh_nreqs(&s), 3);
	assert_string_equal(s.reqs[1].target, "/repos/acme/llm/commits/" SHA "/check-runs?check_name=tracegate%2Fx&per_page=100");
	assert_string_equal(s.reqs[2].method, "POST");
	assert_string_equal(s.reqs[2].target, "/repos/acme/llm/check-runs");
	json_t *b = req_json(&s, 2);
	assert_string_equal(jstr(b, "name"), "tracegate/x");
	assert_string_equal(jstr(b, "head_sha"), SHA);
	assert_string_equal(jstr(b, "status"), "in_progress");
	assert_null(json_object_get(b, "conclusion"));
	assert_string_equal(jstr(b, "details_url"), "https://ci.example/1");
	assert_string_equal(jstr(json_object_get(b, "output"), "title"), "analysing");
	json_decref(b);
	st.state = TG_FORGE_ERROR;
	st.summary_md = "## the trace could not be read";
	assert_int_equal(tg_forge_post_status(f, &st), 0);
	assert_int_equal(mh_nreqs(&s), 6);
	assert_string_equal(s.reqs[5].method, "PATCH");
	assert_string_equal(s.reqs[5].target, "/repos/acme/llm/check-runs/31");
	b = req_json(&s, 5);
	assert_string_equal(jstr(b, "status"), "completed");
	assert_string_equal(jstr(b, "conclusion"), "failure");
	assert_null(json_object_get(b, "head_sha"));
	assert_string_equal(jstr(json_object_get(b, "output"), "summary"), "## the trace could not be read");
	json_decref(b);
	assert_int_equal(tg_forge_post_status(f, &st), 0);
	assert_int_equal(mh_nreqs(&s), 8);
	tg_forge_free(f);
	mh_stop(&s);
}

/* No baseline (or an inconclusive gate): the commit status says success,
 * which is all statuses can say; the check run concludes neutral. */
static void test_github_check_run_neutral(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	for (int i = 0; i < 3; i++) { /* neutral, success, failure (neutral ignored) */
		mh_push(&s, 201, NULL, "{}");
		mh_push(&s, 200, NULL, "{\"total_count\":1,\"check_runs\":[{\"id\":31,\"name\":\"tracegate/x\"}]}");
		mh_push(&s, 200, NULL, "{\"id\":31}");
	}
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 1);
	tg_forge_status st = {.repo = "acme/llm", .sha = SHA, .state = TG_FORGE_SUCCESS, .context = "tracegate/x",
	                      .description = "no baseline: no run of x on main", .neutral = 1};
	assert_int_equal(tg_forge_post_status(f, &st), 0);
	assert_int_equal(mh_nreqs(&s), 3);
	assert_string_equal(s.reqs[0].target, "/repos/acme/llm/statuses/" SHA);
	json_t *b = req_json(&s, 0);
	assert_string_equal(jstr(b, "state"), "success"); /* statuses have no neutral */
	json_decref(b);
	assert_string_equal(s.reqs[2].method, "PATCH");
	b = req_json(&s, 2);
	assert_string_equal(jstr(b, "status"), "completed");
	assert_string_equal(jstr(b, "conclusion"), "neutral");
	assert_string_equal(jstr(json_object_get(b, "output"), "title"), "no baseline: no run of x on main");
	json_decref(b);

	st.neutral = 0;
	assert_int_equal(tg_forge_post_status(f, &st), 0);
	assert_int_equal(mh_nreqs(&s), 6);
	b = req_json(&s, 5);
	assert_string_equal(jstr(b, "conclusion"), "success");
	json_decref(b);

	st.neutral = 1;
	st.state = TG_FORGE_FAILURE;
	assert_int_equal(tg_forge_post_status(f, &st), 0);
	assert_int_equal(mh_nreqs(&s), 9);
	b = req_json(&s, 6);
	assert_string_equal(jstr(b, "state"), "failure");
	json_decref(b);
	b = req_json(&s, 8);
	assert_string_equal(jstr(b, "conclusion"), "failure");
	json_decref(b);
	tg_forge_free(f);
	mh_stop(&s);
}

static void test_github_retries_status(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 500, NULL, "{\"message\":\"oops\"}");
	mh_push(&s, 429, "Retry-After: 2\r\n", "{\"message\":\"slow down\"}");
	mh_push(&s, 201, NULL, "{}");
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	tg_forge_status st = {.repo = "acme/llm", .sha = SHA, .state = TG_FORGE_SUCCESS, .context = "c"};
	assert_int_equal(tg_forge_post_status(f, &st), 0);
	assert_int_equal(mh_nreqs(&s), 3);
	assert_int_equal(nsleeps, 2);
	assert_true(sleeps[0] >= 7 && sleeps[0] <= 13); /* backoff 10 ms +-25 % */
	assert_int_equal(sleeps[1], 2000);              /* Retry-After */
	tg_forge_free(f);
	mh_stop(&s);
}

/* ---------------------------------------------------- malformed answers */

static void test_bad_responses(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char want[512];
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	tg_forge_comment c = {.repo = "acme/llm", .pr = 7, .marker = MARKER, .body = MARKER};

	mh_push(&s, 200, NULL, "{\"message\":\"not a list\"}");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EFORMAT);
	snprintf(want, sizeof(want), "test-forge: GET %s/repos/acme/llm/issues/7/comments: HTTP 200: the response is an object, not an array", s.base);
	assert_string_equal(tg_error_last(), want);

	mh_push(&s, 200, NULL, "[{\"id\":\"12\",\"body\":\"x\"}]");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "\"id\" is a string, not a positive integer"));

	mh_push(&s, 200, NULL, "[{\"id\":12,\"body\":7}]");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "\"body\" is an integer, not a string"));

	mh_push(&s, 200, NULL, "[\"x\"]");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "item 0 is a string, not a comment object"));

	mh_push(&s, 200, NULL, "<html><body>Sign in</body></html>");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EFORMAT);
	assert_non_null(strstr(tg_error_last(), "the response is not JSON"));

	/* jansson quotes the answer, line breaks too: one line (found by fuzz_forge) */
	mh_push(&s, 200, NULL, "[{\"body\": \"a\\\r\nb\"}]");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EFORMAT);
	snprintf(want, sizeof(want),
	         "test-forge: GET %s/repos/acme/llm/issues/7/comments: HTTP 200: the response is not JSON (invalid escape "
	         "near '\"a\\?' at byte 14)",
	         s.base);
	assert_string_equal(tg_error_last(), want);

	/* a server that quotes the token back: never in the message */
	mh_push(&s, 401, NULL, "{\"message\":\"Bad credentials: Bearer " TOKEN "\"}");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EIO);
	assert_null(strstr(tg_error_last(), TOKEN));
	assert_non_null(strstr(tg_error_last(), "HTTP 401: {\"message\":\"Bad credentials: Bearer [token]\"}"));

	mh_push(&s, 404, NULL, "{\"message\":\"Not Found\"}");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_ENOTFOUND);
	assert_null(strstr(tg_error_last(), "per_page")); /* no query string */

	/* a created comment whose answer is unreadable counts as ambiguous */
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 201, NULL, "{\"id\":null}");
	mh_push(&s, 200, NULL, "[{\"id\":3,\"body\":\"" MARKER "\",\"user\":{\"id\":99}}]");
	mh_push(&s, 200, NULL, "{\"login\":\"tracegate-bot\",\"id\":99}");
	int64_t id;
	int created;
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	assert_int_equal(id, 3);
	assert_int_equal(created, 1);

	/* labels that are not label objects */
	tg_forge_label *l;
	size_t n;
	mh_push(&s, 200, NULL, "[{\"id\":1}]");
	assert_int_equal(tg_forge_pr_labels(&l, &n, f, "acme/llm", 7), TG_EFORMAT);
	assert_null(l);
	assert_int_equal(n, 0);
	tg_forge_free(f);
	mh_stop(&s);
}

static void test_link_must_stay_on_the_api_host(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	mh_push(&s, 200, "Link: <http://evil.example/steal?page=2>; rel=\"next\"\r\n", "[]");
	tg_forge *f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	tg_forge_comment c = {.repo = "acme/llm", .pr = 7, .marker = MARKER, .body = MARKER};
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EFORMAT);
	assert_string_equal(tg_error_last(),
	                    "test-forge: the next page (http://evil.example/steal) is not on the API's host: not followed");
	assert_int_equal(mh_nreqs(&s), 1);
	/* a link that carries the token: not in the message (found by fuzz_forge) */
	mh_push(&s, 200, "Link: <https://evil.example/" TOKEN "/x?page=2>; rel=\"next\"\r\n", "[]");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EFORMAT);
	assert_string_equal(tg_error_last(),
	                    "test-forge: the next page (https://evil.example/[token]/x) is not on the API's host: not followed");
	assert_int_equal(mh_nreqs(&s), 2);
	/* a link with carriage returns (libcurl keeps a lone CR): one line (found by fuzz_forge) */
	mh_push(&s, 200, "Link: <\r/a\r,c>; rel=next\r\n", "[]");
	assert_int_equal(tg_forge_upsert_comment(NULL, NULL, f, &c), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "test-forge: the next page (?/a?,c) is not on the API's host: not followed");
	assert_int_equal(mh_nreqs(&s), 3);
	assert_true(tg_forge_same_origin(f, s.base));
	char other[80];
	snprintf(other, sizeof(other), "http://127.0.0.1:%d/x", s.port + 1);
	assert_false(tg_forge_same_origin(f, other));
	snprintf(other, sizeof(other), "http://127.0.0.1:%d0/x", s.port);
	assert_false(tg_forge_same_origin(f, other));
	tg_forge_free(f);

	/* a relative next link, and a Link whose URL has a comma */
	mh_push(&s, 200, "Link: </repos/acme/llm/issues/7/comments?page=2&a=b,c>; rel=\"next\"\r\n", "[]");
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 201, NULL, "{\"id\":5}");
	f = new_forge(TG_FORGE_GITHUB, s.base, 0);
	int64_t id;
	assert_int_equal(tg_forge_upsert_comment(&id, NULL, f, &c), 0);
	assert_int_equal(id, 5);
	assert_string_equal(s.reqs[4].target, "/repos/acme/llm/issues/7/comments?page=2&a=b,c");
	tg_forge_free(f);
	mh_stop(&s);
}

/* Page numbers a server sends: a huge x-next-page is refused, as the next
 * page after it would overflow (found by fuzz_forge: x-next-page beyond
 * LONG_MAX, then x-total-count). */
static void test_page_numbers(void **state)
{
	(void)state;
	tg_forge *f = new_forge(TG_FORGE_GITLAB, "https://gitlab.example/api/v4", 0);
	const char *prefix = "https://gitlab.example/api/v4/projects/5/merge_requests/12/notes?per_page=100&page=";
	char h1[] = "x-next-page: 92233720368514775806", h2[] = "x-total-count: 999999999999999996", h3[] = "x-next-page: 1000000",
	     h4[] = "x-next-page: 1000001";
	char *hs[] = {h1};
	tg_http_response r = {.status = 200, .headers = hs, .nheaders = 1};
	long page = 1;
	char *next = (char *)1;
	assert_int_equal(tg_forge_next_page(&next, f, prefix, &r, &page, 100, 100), TG_EFORMAT);
	assert_null(next);
	assert_int_equal(page, 1);
	assert_string_equal(tg_error_last(), "test-forge: the next page's number (x-next-page) is above 1000000");
	hs[0] = h4;
	assert_int_equal(tg_forge_next_page(&next, f, prefix, &r, &page, 100, 100), TG_EFORMAT);
	/* the largest, then one more by x-total-count */
	hs[0] = h3;
	assert_int_equal(tg_forge_next_page(&next, f, prefix, &r, &page, 100, 100), 0);
	assert_int_equal(page, 1000000);
	assert_non_null(strstr(next, "&page=1000000"));
	free(next);
	hs[0] = h2;
	assert_int_equal(tg_forge_next_page(&next, f, prefix, &r, &page, 100, 200), 0);
	assert_int_equal(page, 1000001);
	assert_non_null(strstr(next, "&page=1000001"));
	free(next);
	/* an x-next-page at or below the current page ends the listing */
	hs[0] = h3;
	assert_int_equal(tg_forge_next_page(&next, f, prefix, &r, &page, 100, 300), 0);
	assert_null(next);
	tg_forge_free(f);
}

/* ----------------------------------------------------------------- GitLab */

static void test_gitlab(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char api[128];
	snprintf(api, sizeof(api), "%s/api/v4", s.base);
	tg_forge *f = new_forge(TG_FORGE_GITLAB, api, 0);
	const char *words[] = {"running", "success", "failed", "failed"};
	mh_push(&s, 201, NULL, "{\"id\":1}");
	mh_push(&s, 200, NULL, "{\"id\":2}");
	mh_push(&s, 201, NULL, "{\"id\":3}");
	mh_push(&s, 400, NULL, "{\"message\":\"Cannot transition status via :drop from :failed (Reason(s): Status cannot transition via \\\"drop\\\")\"}");
	for (int i = 0; i < 4; i++) {
		tg_forge_status st = {.repo = "group/sub/proj", .sha = SHA, .state = (tg_forge_state)i,
		                      .context = "tracegate/x", .description = "d"};
		assert_int_equal(tg_forge_post_status(f, &st), 0);
		assert_string_equal(s.reqs[i].target, "/api/v4/projects/group%2Fsub%2Fproj/statuses/" SHA);
		json_t *b = req_json(&s, i);
		assert_string_equal(jstr(b, "state"), words[i]);
		assert_string_equal(jstr(b, "name"), "tracegate/x");
		assert_string_equal(jstr(b, "description"), i == 3 ? "error: d" : "d");
		json_decref(b);
	}
	char h[128];
	assert_string_equal(mh_req_header(&s.reqs[0], "PRIVATE-TOKEN", h, sizeof(h)), TOKEN);
	assert_null(mh_req_header(&s.reqs[0], "Authorization", h, sizeof(h)));
	/* other 400s are errors */
	mh_push(&s, 400, NULL, "{\"message\":{\"state\":[\"is invalid\"]}}");
	tg_forge_status st = {.repo = "group/proj", .sha = SHA, .state = TG_FORGE_SUCCESS, .context = "c"};
	assert_int_equal(tg_forge_post_status(f, &st), TG_EIO);

	/* notes: x-next-page paging, then PUT */
	mh_push(&s, 200, "X-Next-Page: 2\r\nX-Page: 1\r\n",
	        "[{\"id\":301,\"body\":\"merged\",\"system\":true,\"author\":{\"id\":1,\"username\":\"root\"}}]");
	mh_push(&s, 200, "X-Next-Page: \r\nX-Page: 2\r\n",
	        "[{\"id\":302,\"type\":null,\"body\":\"" MARKER "\\n## old\",\"author\":{\"id\":2,\"username\":\"bot\"},"
	        "\"created_at\":\"2024-05-01T10:00:00.000Z\",\"system\":false,\"noteable_id\":9,\"noteable_type\":"
	        "\"MergeRequest\",\"noteable_iid\":4}]");
	mh_push(&s, 200, NULL, "{\"id\":2,\"username\":\"bot\"}"); /* GET /user */
	mh_push(&s, 200, NULL, "{\"id\":302,\"body\":\"new\"}");
	tg_forge_comment c = {.repo = "group/proj", .pr = 4, .marker = MARKER, .body = MARKER "\n## new"};
	int64_t id;
	int created;
	int base = mh_nreqs(&s);
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	assert_int_equal(id, 302);
	assert_int_equal(created, 0);
	assert_string_equal(s.reqs[base].target, "/api/v4/projects/group%2Fproj/merge_requests/4/notes?per_page=100&page=1");
	assert_string_equal(s.reqs[base + 1].target, "/api/v4/projects/group%2Fproj/merge_requests/4/notes?per_page=100&page=2");
	assert_string_equal(s.reqs[base + 2].target, "/api/v4/user");
	assert_string_equal(s.reqs[base + 3].method, "PUT");
	assert_string_equal(s.reqs[base + 3].target, "/api/v4/projects/group%2Fproj/merge_requests/4/notes/302");
	/* none: POST */
	mh_push(&s, 200, NULL, "[]");
	mh_push(&s, 201, NULL, "{\"id\":303,\"body\":\"x\"}");
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	assert_int_equal(id, 303);
	assert_int_equal(created, 1);
	assert_string_equal(s.reqs[base + 5].method, "POST");
	assert_string_equal(s.reqs[base + 5].target, "/api/v4/projects/group%2Fproj/merge_requests/4/notes");

	/* labels: names, or objects with details */
	mh_push(&s, 200, NULL, "{\"id\":9,\"iid\":4,\"labels\":[\"perf\",\"tracegate:accept-regression\"]}");
	tg_forge_label *l;
	size_t n;
	assert_int_equal(tg_forge_pr_labels(&l, &n, f, "group/proj", 4), 0);
	assert_int_equal(n, 2);
	assert_string_equal(l[1].name, "tracegate:accept-regression");
	assert_null(l[1].by);
	tg_forge_labels_free(l, n);
	assert_string_equal(s.reqs[base + 6].target, "/api/v4/projects/group%2Fproj/merge_requests/4");
	mh_push(&s, 200, NULL, "{\"labels\":[{\"id\":1,\"name\":\"perf\",\"color\":\"#f00\"}]}");
	assert_int_equal(tg_forge_pr_labels(&l, &n, f, "group/proj", 4), 0);
	assert_int_equal(n, 1);
	assert_string_equal(l[0].name, "perf");
	tg_forge_labels_free(l, n);
	mh_push(&s, 200, NULL, "{\"labels\":\"perf\"}");
	assert_int_equal(tg_forge_pr_labels(&l, &n, f, "group/proj", 4), TG_EFORMAT);
	tg_forge_free(f);
	mh_stop(&s);
}

/* ------------------------------------------------------------ Gitea */

static void test_gitea(void **state)
{
	(void)state;
	mh_server s;
	assert_int_equal(mh_start(&s), 0);
	char api[128];
	snprintf(api, sizeof(api), "%s/api/v1", s.base);
	tg_forge *f = new_forge(TG_FORGE_GITEA, api, 0);
	mh_push(&s, 201, NULL, "{\"id\":1,\"status\":\"error\"}");
	tg_forge_status st = {.repo = "acme/llm", .sha = SHA, .state = TG_FORGE_ERROR, .context = "tracegate/x",
	                      .description = "no baseline"};
	assert_int_equal(tg_forge_post_status(f, &st), 0);
	assert_string_equal(s.reqs[0].target, "/api/v1/repos/acme/llm/statuses/" SHA);
	json_t *b = req_json(&s, 0);
	assert_string_equal(jstr(b, "state"), "error");
	assert_string_equal(jstr(b, "context"), "tracegate/x");
	assert_string_equal(jstr(b, "description"), "no baseline");
	json_decref(b);
	char h[128];
	assert_string_equal(mh_req_header(&s.reqs[0], "Authorization", h, sizeof(h)), "token " TOKEN);

	/* comments: x-total-count paging (no Link), then PATCH */
	char page[8192] = "[";
	for (int i = 0; i < 50; i++) {
		char one[128];
		snprintf(one, sizeof(one), "%s{\"id\":%d,\"body\":\"c%d\",\"user\":{\"id\":1,\"login\":\"u\"}}", i ? "," : "",
		         100 + i, i);
		strcat(page, one);
	}
	strcat(page, "]");
	mh_push(&s, 200, "X-Total-Count: 51\r\n", page);
	mh_push(&s, 200, "X-Total-Count: 51\r\n", "[{\"id\":150,\"body\":\"" MARKER "\\nold\",\"user\":{\"id\":4,\"login\":\"bot\"}}]");
	mh_push(&s, 200, NULL, "{\"id\":4,\"login\":\"bot\"}"); /* GET /user */
	mh_push(&s, 200, NULL, "{\"id\":150,\"body\":\"new\"}");
	tg_forge_comment c = {.repo = "acme/llm", .pr = 3, .marker = MARKER, .body = MARKER "\nnew"};
	int64_t id;
	int created;
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	assert_int_equal(id, 150);
	assert_int_equal(created, 0);
	assert_int_equal(mh_nreqs(&s), 5);
	assert_string_equal(s.reqs[1].target, "/api/v1/repos/acme/llm/issues/3/comments?limit=50&page=1");
	assert_string_equal(s.reqs[2].target, "/api/v1/repos/acme/llm/issues/3/comments?limit=50&page=2");
	assert_string_equal(s.reqs[3].target, "/api/v1/user");
	assert_string_equal(s.reqs[4].method, "PATCH");
	assert_string_equal(s.reqs[4].target, "/api/v1/repos/acme/llm/issues/comments/150");

	/* a server that ignores the paging sends everything at once: one page */
	mh_push(&s, 200, "X-Total-Count: 2\r\n", "[{\"id\":1,\"body\":\"a\"},{\"id\":2,\"body\":\"b\"}]");
	mh_push(&s, 201, NULL, "{\"id\":3,\"body\":\"x\"}");
	assert_int_equal(tg_forge_upsert_comment(&id, &created, f, &c), 0);
	assert_int_equal(id, 3);
	assert_int_equal(created, 1);
	assert_int_equal(mh_nreqs(&s), 7);
	assert_string_equal(s.reqs[6].target, "/api/v1/repos/acme/llm/issues/3/comments");

	mh_push(&s, 200, NULL, "[{\"id\":5,\"name\":\"perf\",\"color\":\"00ff00\",\"url\":\"u\"}]");
	tg_forge_label *l;
	size_t n;
	assert_int_equal(tg_forge_pr_labels(&l, &n, f, "acme/llm", 3), 0);
	assert_int_equal(n, 1);
	assert_string_equal(l[0].name, "perf");
	assert_null(l[0].by);
	tg_forge_labels_free(l, n);
	assert_string_equal(s.reqs[7].target, "/api/v1/repos/acme/llm/issues/3/labels?limit=50&page=1");
	tg_forge_free(f);
	mh_stop(&s);
}

/* ------------------------------------------------------------------ live */

/* POSTs json to the fake's hook path (not through prism). */
static void fake_hook(const char *fake, const char *path, const char *json)
{
	tg_http *h;
	assert_int_equal(tg_http_new(&h, NULL), 0);
	char url[512];
	snprintf(url, sizeof(url), "%s%s", fake, path);
	const char *hdr[] = {"Content-Type: application/json", NULL};
	tg_http_req q = {.method = "POST", .url = url, .headers = hdr, .body = json, .len = strlen(json)};
	tg_http_response r;
	int rc = tg_http_do(&r, h, &q);
	if (rc || r.status != 200)
		fail_msg("hook %s: %s (HTTP %ld %s)", path, tg_error_last(), r.status, r.body);
	tg_http_response_free(&r);
	tg_http_free(h);
}

/* The live sequence against one forge behind prism; the shell script then
 * checks the fake's state (one comment per marker, the state words). */
/* A CI run as the forge has it (a run's proof of origin): GitHub's workflow
 * run (its commit, branch and that branch's repository), GitLab's
 * pipeline (its commit, and the merge request of its ref); Gitea and
 * Forgejo cannot tell. */
static void live_ci_runs(tg_forge *f, const char *fake, tg_forge_kind kind, const char *repo, const char *label)
{
	char seed[512];
	tg_forge_ci_run r;
	snprintf(seed, sizeof(seed),
	         "{\"repo\":\"%s\",\"ci_run\":4242,\"run_head\":\"%s\",\"run_branch\":\"feat-7\","
	         "\"run_repo\":\"fork/llm\",\"run_mr\":%d}",
	         repo, SHA, kind == TG_FORGE_GITLAB ? 7 : 0);
	fake_hook(fake, "/_fake/seed", seed);
	int rc = tg_forge_ci_run_get(&r, f, repo, "4242");
	if (kind == TG_FORGE_GITEA) {
		assert_int_equal(rc, TG_EINVAL);
		assert_non_null(strstr(tg_error_last(), "cannot tell which commit a CI run ran on"));
		return;
	}
	if (rc)
		fail_msg("%s: CI run 4242: %s", label, tg_error_last());
	assert_string_equal(r.head, SHA);
	if (kind == TG_FORGE_GITHUB) {
		assert_int_equal(r.pr, 0);
		assert_string_equal(r.ref, "feat-7");
		assert_string_equal(r.repo, "fork/llm");
	} else {
		assert_int_equal(r.pr, 7); /* refs/merge-requests/7/head */
		assert_null(r.ref);
	}
	tg_forge_ci_run_clear(&r);
	assert_int_equal(tg_forge_ci_run_get(&r, f, repo, "4243"), TG_ENOTFOUND);
	assert_int_equal(tg_forge_ci_run_get(&r, f, repo, "not-a-number"), TG_ENOTFOUND); /* not asked */
}

static void live_run(const char *label, tg_forge_kind kind, const char *repo, int check_runs)
{
	char uv[64], fv[64];
	snprintf(uv, sizeof(uv), "TG_IT_%s_URL", label);
	snprintf(fv, sizeof(fv), "TG_IT_%s_FAKE", label);
	const char *url = getenv(uv), *fake = getenv(fv), *token = getenv("TG_IT_TOKEN");
	if (!url || !fake || !token) {
		print_message("SKIPPED: %s and %s are unset (tests/it_forges.sh sets them)\n", uv, fv);
		skip();
	}
	tg_forge_opts o = {0};
	o.kind = kind;
	o.name = label;
	o.api_url = url;
	o.token = token;
	o.http.max_attempts = 4;
	o.http.backoff_ms = 10;
	o.http.timeout_ms = 5000;
	o.http.sleep = record_sleep;
	tg_forge *f;
	assert_int_equal(tg_forge_new(&f, &o), 0);

	/* every state, in the forge's words (the shell checks them) */
	for (int i = 0; i <= TG_FORGE_ERROR; i++) {
		char d[64];
		snprintf(d, sizeof(d), "%s from the live test \xe2\x9c\x93", tg_forge_state_name((tg_forge_state)i));
		tg_forge_status st = {.repo = repo, .sha = SHA, .state = (tg_forge_state)i, .context = "tracegate/it",
		                      .description = d, .target_url = "https://ci.example/it/1"};
		if (tg_forge_post_status(f, &st))
			fail_msg("%s: status %d: %s", label, i, tg_error_last());
	}

	/* one comment, created then edited in place */
	int64_t id1 = 0, id2 = 0;
	int created = -1;
	tg_forge_comment c = {.repo = repo, .pr = 7, .marker = MARKER, .body = MARKER "\n## first run\n"};
	if (tg_forge_upsert_comment(&id1, &created, f, &c))
		fail_msg("%s: upsert: %s", label, tg_error_last());
	assert_int_equal(created, 1);
	c.body = MARKER "\n## second run\n";
	if (tg_forge_upsert_comment(&id2, &created, f, &c))
		fail_msg("%s: upsert: %s", label, tg_error_last());
	assert_int_equal(created, 0);
	assert_int_equal(id2, id1);

	/* 150 other comments (one quoting the marker) over several pages */
	char seed[256];
	snprintf(seed, sizeof(seed), "{\"repo\":\"%s\",\"pr\":8,\"count\":150,\"quote\":\"%s\"}", repo,
	         "quoted: <!-- tracegate:llama-8b-train -->");
	fake_hook(fake, "/_fake/seed", seed);
	c.pr = 8;
	c.body = MARKER "\n## on a busy pull request\n";
	if (tg_forge_upsert_comment(&id1, &created, f, &c))
		fail_msg("%s: upsert pr 8: %s", label, tg_error_last());
	assert_int_equal(created, 1);
	c.body = MARKER "\n## on a busy pull request, edited\n";
	if (tg_forge_upsert_comment(&id2, &created, f, &c))
		fail_msg("%s: upsert pr 8 again: %s", label, tg_error_last());
	assert_int_equal(created, 0);
	assert_int_equal(id2, id1);

	/* 500 then success: retried once */
	tg_forge_status st = {.repo = repo, .sha = SHA, .state = TG_FORGE_SUCCESS, .context = "tracegate/retry",
	                      .description = "after a 500"};
	fake_hook(fake, "/_fake/fail", "{\"count\":1,\"status\":500}");
	nsleeps = 0;
	if (tg_forge_post_status(f, &st))
		fail_msg("%s: status after 500: %s", label, tg_error_last());
	assert_int_equal(nsleeps, 1);
	/* 429 with Retry-After: 1 s waited (recorded, not slept) */
	fake_hook(fake, "/_fake/fail", "{\"count\":1,\"status\":429,\"retry_after\":\"1\"}");
	nsleeps = 0;
	st.description = "after a 429";
	if (tg_forge_post_status(f, &st))
		fail_msg("%s: status after 429: %s", label, tg_error_last());
	assert_int_equal(nsleeps, 1);
	assert_int_equal(sleeps[0], 1000);

	/* a create that worked but answered 502: found again, not repeated */
	fake_hook(fake, "/_fake/fail", "{\"count\":1,\"status\":502,\"apply\":true,\"method\":\"POST\"}");
	c.pr = 9;
	c.body = MARKER "\n## after a 502\n";
	if (tg_forge_upsert_comment(&id1, &created, f, &c))
		fail_msg("%s: upsert after 502: %s", label, tg_error_last());
	assert_int_equal(created, 1);
	assert_true(id1 > 0);

	/* someone posted the marker first: their comment is left alone, the
	 * bot writes its own (and edits that one next time) */
	snprintf(seed, sizeof(seed), "{\"repo\":\"%s\",\"pr\":10,\"by\":\"mallory\",\"body\":\"%s\\nhijacked\"}", repo,
	         MARKER);
	fake_hook(fake, "/_fake/seed", seed);
	c.pr = 10;
	c.body = MARKER "\n## the bot's own";
	if (tg_forge_upsert_comment(&id1, &created, f, &c))
		fail_msg("%s: upsert pr 10: %s", label, tg_error_last());
	assert_int_equal(created, 1);
	c.body = MARKER "\n## the bot's own, edited";
	if (tg_forge_upsert_comment(&id2, &created, f, &c))
		fail_msg("%s: upsert pr 10 again: %s", label, tg_error_last());
	assert_int_equal(created, 0);
	assert_int_equal(id2, id1);

	/* the pull request as the forge has it: open, its head, its base, its
	 * branch (and on GitHub and Gitea that branch's repository) */
	snprintf(seed, sizeof(seed),
	         "{\"repo\":\"%s\",\"pr\":7,\"head\":\"%s\",\"base\":\"release\",\"ref\":\"feat-7\","
	         "\"head_repo\":\"fork/llm\"}",
	         repo, SHA);
	fake_hook(fake, "/_fake/seed", seed);
	tg_forge_pr pr;
	if (tg_forge_pr_get(&pr, f, repo, 7))
		fail_msg("%s: pull request 7: %s", label, tg_error_last());
	assert_int_equal(pr.open, 1);
	assert_string_equal(pr.head, SHA);
	assert_string_equal(pr.base, "release");
	assert_string_equal(pr.head_ref, "feat-7");
	if (kind == TG_FORGE_GITHUB)
		assert_string_equal(pr.head_repo, "fork/llm");
	tg_forge_pr_clear(&pr);
	live_ci_runs(f, fake, kind, repo, label);
	snprintf(seed, sizeof(seed), "{\"repo\":\"%s\",\"pr\":6,\"head\":\"%s\",\"state\":\"closed\"}", repo, SHA);
	fake_hook(fake, "/_fake/seed", seed);
	if (tg_forge_pr_get(&pr, f, repo, 6))
		fail_msg("%s: pull request 6: %s", label, tg_error_last());
	assert_int_equal(pr.open, 0);
	tg_forge_pr_clear(&pr);
	if (kind != TG_FORGE_GITLAB) /* the GitLab fake answers every merge request (labels) */
		assert_int_equal(tg_forge_pr_get(&pr, f, repo, 99), TG_ENOTFOUND);

	/* labels (and on GitHub who added them) */
	snprintf(seed, sizeof(seed),
	         "{\"repo\":\"%s\",\"pr\":7,\"labels\":[{\"name\":\"tracegate:accept-regression\",\"by\":\"alice\"},"
	         "{\"name\":\"perf\",\"by\":\"bob\"}]}",
	         repo);
	fake_hook(fake, "/_fake/seed", seed);
	tg_forge_label *l;
	size_t n;
	if (tg_forge_pr_labels(&l, &n, f, repo, 7))
		fail_msg("%s: labels: %s", label, tg_error_last());
	assert_int_equal(n, 2);
	assert_string_equal(l[0].name, "tracegate:accept-regression");
	assert_string_equal(l[1].name, "perf");
	if (kind == TG_FORGE_GITHUB) {
		assert_non_null(l[0].by);
		assert_string_equal(l[0].by, "alice");
		assert_string_equal(l[1].by, "bob");
	} else {
		assert_null(l[0].by);
	}
	tg_forge_labels_free(l, n);
	tg_forge_free(f);

	if (check_runs) { /* a check run created, then updated */
		o.check_runs = 1;
		assert_int_equal(tg_forge_new(&f, &o), 0);
		tg_forge_status cr = {.repo = repo, .sha = SHA, .state = TG_FORGE_PENDING, .context = "tracegate/checks",
		                      .description = "analysing", .target_url = "https://ci.example/it/2"};
		if (tg_forge_post_status(f, &cr))
			fail_msg("%s: check run: %s", label, tg_error_last());
		cr.state = TG_FORGE_FAILURE;
		cr.description = "SDPA +7 %";
		cr.summary_md = "| op | change |\n|---|---|\n| sdpa | +7 % |";
		if (tg_forge_post_status(f, &cr))
			fail_msg("%s: check run update: %s", label, tg_error_last());
		tg_forge_free(f);
	}
}

static void test_live_github(void **state)
{
	(void)state;
	live_run("GITHUB", TG_FORGE_GITHUB, "acme/llm", 1);
}

static void test_live_gitlab(void **state)
{
	(void)state;
	live_run("GITLAB", TG_FORGE_GITLAB, "acme/ml/llm", 0);
}

static void test_live_gitea(void **state)
{
	(void)state;
	live_run("GITEA", TG_FORGE_GITEA, "acme/llm", 0);
}

static void test_live_forgejo(void **state)
{
	(void)state;
	live_run("FORGEJO", TG_FORGE_GITEA, "acme/llm", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_new_needs_url_and_token),
		cmocka_unit_test(test_trim_ascii),
		cmocka_unit_test(test_trim_multibyte),
		cmocka_unit_test(test_marker_line),
		cmocka_unit_test(test_outbox_end_to_end),
		cmocka_unit_test(test_outbox_component),
		cmocka_unit_test(test_github_status_request),
		cmocka_unit_test(test_github_upsert_edits_across_pages),
		cmocka_unit_test(test_github_upsert_creates),
		cmocka_unit_test(test_github_ambiguous_create_searches_first),
		cmocka_unit_test(test_github_labels_and_who),
		cmocka_unit_test(test_author_can_write),
		cmocka_unit_test(test_github_check_runs),
		cmocka_unit_test(test_github_check_run_neutral),
		cmocka_unit_test(test_github_retries_status),
		cmocka_unit_test(test_bad_responses),
		cmocka_unit_test(test_link_must_stay_on_the_api_host),
		cmocka_unit_test(test_page_numbers),
		cmocka_unit_test(test_gitlab),
		cmocka_unit_test(test_gitea),
		cmocka_unit_test(test_live_github),
		cmocka_unit_test(test_live_gitlab),
		cmocka_unit_test(test_live_gitea),
		cmocka_unit_test(test_live_forgejo),
	};
	return cmocka_run_group_tests_name("forge", tests, NULL, NULL);
}
