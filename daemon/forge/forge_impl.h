/*
 * forge_impl.h - what a forge backend (forge_github.c, forge_gitlab.c,
 * forge_gitea.c, forge_outbox.c) implements, and the helpers they share
 * (forge.c: text rules; forge_util.c: requests, JSON, pagination). Only
 * forge*.c and the forge tests include this.
 */
#ifndef TG_FORGE_IMPL_H
#define TG_FORGE_IMPL_H

#include "forge.h"

#include <jansson.h>

/* Comment bodies above this many bytes are refused (TG_EINVAL): trimming to
 * the forge's own limit (65,536 on GitHub) is the caller's job. */
#define TG_FORGE_MAX_BODY (1u << 20)

/* Pages of one listing followed at most (a loop guard: 100 per page). */
#define TG_FORGE_MAX_PAGES 1000

/* The largest page number a server may send (x-next-page): 100 million
 * comments at 100 a page. */
#define TG_FORGE_MAX_PAGE_NUMBER 1000000

typedef struct tg_forge_ops {
	/* Sets the commit status (the backend trims the description). */
	int (*post_status)(tg_forge *f, const tg_forge_status *s);
	/* Searches every page of the pull request's comments: *id is the oldest
	 * comment whose body has c->marker as a whole line, or 0 when none. */
	int (*find_comment)(tg_forge *f, const tg_forge_comment *c, int64_t *id);
	/* Creates the comment. On failure *ambiguous is 1 when it may have been
	 * created anyway (the caller searches before trying again). */
	int (*create_comment)(tg_forge *f, const tg_forge_comment *c, int64_t *id, int *ambiguous);
	/* Replaces the body of comment id. */
	int (*update_comment)(tg_forge *f, const tg_forge_comment *c, int64_t id);
	/* The pull request's labels (*out NULL and *n 0 on entry). */
	int (*labels)(tg_forge *f, const char *repo, int64_t pr, tg_forge_label **out, size_t *n);
	/* tg_forge_pr_get (out cleared on entry); NULL: this forge cannot tell */
	int (*pr_get)(tg_forge *f, const char *repo, int64_t pr, tg_forge_pr *out);
	/* tg_forge_author_can_write; NULL: this forge cannot tell */
	int (*author_can_write)(tg_forge *f, const char *repo, const char *sha, char **login, int *can);
} tg_forge_ops;

extern const tg_forge_ops tg_forge_github_ops;
extern const tg_forge_ops tg_forge_gitlab_ops;
extern const tg_forge_ops tg_forge_gitea_ops;
extern const tg_forge_ops tg_forge_outbox_ops;

struct tg_forge {
	const tg_forge_ops *ops;
	tg_forge_kind kind;
	char *name;              /* for messages */
	char *api;               /* api_url without trailing '/'; NULL for outbox */
	char *token;             /* secret; wiped on free */
	const char *headers[6];  /* request headers, NULL-terminated (one carries the token) */
	const char *headers_json[7]; /* the same plus Content-Type: application/json */
	char *auth_header;       /* the one that carries the token; wiped on free */
	tg_http *http;
	int check_runs;
	char *outbox_dir;
	FILE *outbox_echo;
	int64_t self_id;         /* the token's own account (GET /user), 0 until asked */
};

/* ---------------------------------------------------------------- forge.c */

/* Characters (code points) a status description may have on kind. */
size_t tg_forge_description_limit(tg_forge_kind kind);

/* s made one line (control characters become spaces, invalid UTF-8 bytes
 * become '?') and cut to at most max_chars code points at a UTF-8 boundary,
 * ending in "..." when cut. NULL s gives "". Returns a new string the caller
 * frees, or NULL (TG_ENOMEM). */
char *tg_forge_trim_description(const char *s, size_t max_chars);

/* The first max_bytes bytes of s at most, cut at a UTF-8 boundary. Returns a
 * new string the caller frees, or NULL (TG_ENOMEM). */
char *tg_forge_cut_utf8(const char *s, size_t max_bytes);

/* 1 when s (len bytes) is valid UTF-8. */
int tg_forge_utf8_valid(const char *s, size_t len);

/* 1 when marker is a whole line of body ("\n" or "\r\n" line ends; spaces
 * and tabs around it allowed), else 0. */
int tg_forge_has_marker_line(const char *body, const char *marker);

/* ----------------------------------------------------------- forge_util.c */

/* api + the printf-formatted path. Returns a new string or NULL (TG_ENOMEM). */
char *tg_forge_url(const tg_forge *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "owner/repo" split into its two parts, each percent-encoded for a path.
 * Returns 0, or TG_EINVAL (not exactly one '/', an empty part) or TG_ENOMEM;
 * the caller frees *owner and *name. */
int tg_forge_split_repo(char **owner, char **name, const tg_forge *f, const char *repo);

/* Sends one request with the forge's headers (and body as JSON when not
 * NULL). Returns 0 when a response came (any status: see tg_forge_check),
 * else the transport error with the forge's name in the message. *r is
 * filled either way (free with tg_http_response_free). */
int tg_forge_send(tg_http_response *r, tg_forge *f, const char *method, const char *url, const json_t *body,
                  tg_http_retry retry);

/* 0 when r's status is a 2xx (GitLab answers 200 or 201 to a create, so
 * any 2xx is accepted), else the error it stands for, with a message
 * "NAME: METHOD URL: HTTP NNN: excerpt" (no query string, no token):
 * TG_ENOTFOUND for 404, TG_ELIMIT for a rate limit, TG_EIO otherwise. */
int tg_forge_check(tg_forge *f, const char *method, const char *url, const tg_http_response *r);

/* POST /repos/{o}/{r}/statuses/{sha}: the commit status s on a forge with
 * GitHub's statuses API (GitHub, Gitea, Forgejo; kind bounds the
 * description). A status posted twice is harmless (the latest wins), so it
 * is retried like a PUT. Returns 0 or the error, with its message. */
int tg_forge_post_repo_status(tg_forge *f, const tg_forge_status *s, tg_forge_kind kind);

/* The body of r parsed as JSON of the expected type (JSON_ARRAY or
 * JSON_OBJECT). Returns 0 (the caller decrefs *out) or TG_EFORMAT. */
int tg_forge_json(json_t **out, tg_forge *f, const char *method, const char *url, const tg_http_response *r,
                  json_type want);

/* Member key of obj as a positive integer id. Returns 0 or TG_EFORMAT. */
int tg_forge_json_id(int64_t *id, tg_forge *f, const char *what, const json_t *obj, const char *key);

/* Member key of obj as a string (borrowed), NULL when absent or null.
 * Returns 0, or TG_EFORMAT when present with another type. */
int tg_forge_json_str(const char **out, tg_forge *f, const char *what, const json_t *obj, const char *key);

/* Called with each page (a JSON array, borrowed) of a listing; returns 0 to
 * go on, or an error code that ends the listing. */
typedef int (*tg_forge_page_fn)(void *ctx, tg_forge *f, const char *url, json_t *items);

/* GETs every page of a listing, starting at url_prefix "1" (url_prefix ends
 * in "page="), and calls fn with each. The next page is the Link rel="next"
 * (which must stay on the API's host: a token is never sent elsewhere),
 * else GitLab's x-next-page, else page+1 while fewer items than
 * x-total-count were seen. At most TG_FORGE_MAX_PAGES pages (TG_ELIMIT). */
int tg_forge_get_pages(tg_forge *f, const char *url_prefix, tg_forge_page_fn fn, void *ctx);

/* The next page of a listing after the response r to page *page, which had
 * got items (seen so far, this page included): *next (the caller frees it)
 * is the Link rel="next" URL (a path is put on the API's host; another
 * host is TG_EFORMAT), else prefix + x-next-page when that is beyond
 * *page (above TG_FORGE_MAX_PAGE_NUMBER: TG_EFORMAT), else prefix +
 * (*page + 1) while fewer than x-total-count items were seen; NULL at the
 * end. Updates *page. Returns 0, TG_EFORMAT or TG_ENOMEM. (The parsing
 * half of tg_forge_get_pages.) */
int tg_forge_next_page(char **next, tg_forge *f, const char *prefix, const tg_http_response *r, long *page,
                       size_t got, size_t seen);

/* 1 when url may be requested with the forge's token: same scheme, host
 * and port as the API URL. */
int tg_forge_same_origin(const tg_forge *f, const char *url);

/* The id of the account the token belongs to: GET {api}/user (GitHub,
 * GitLab and Gitea/Forgejo all have it and all answer {"id": ...}), asked
 * once per client. Returns 0 or the error. */
int tg_forge_self_id(int64_t *id, tg_forge *f);

/* Fills out from a pull request object: state_key's value equal to
 * open_word means open; head_key (dotted: "head.sha") the head commit;
 * base_key ("base.ref", "target_branch") the branch it merges into;
 * ref_key ("head.ref", "source_branch") the branch it comes from. */
int tg_forge_pr_from_json(tg_forge_pr *out, tg_forge *f, const json_t *pr, const char *open_word,
                          const char *head_key, const char *base_key, const char *ref_key);

/* GETs url as a JSON object into *out (the caller decrefs it). Returns 0,
 * TG_ENOTFOUND (404) or the error. */
int tg_forge_get_object(json_t **out, tg_forge *f, const char *url);

/* tg_forge_author_can_write for GitHub and Gitea/Forgejo: commit_path is
 * "/commits/" (GitHub) or "/git/commits/" (Gitea); the answer's
 * author.login, then /collaborators/{login}/permission's "permission". */
int tg_forge_repo_author_can_write(char **login, int *can, tg_forge *f, const char *repo, const char *sha,
                                   const char *commit_path);

/* The marker search over a listing of comments or notes (GitHub, GitLab,
 * Gitea all name them "id" and "body"): a tg_forge_page_fn whose ctx is a
 * struct tg_forge_marker_search. Only comments written by the token's own
 * account count (anyone can post the marker first: editing their comment
 * would put the verdict under their name, or fail and block the post). */
struct tg_forge_marker_search {
	const char *marker;
	int64_t id;             /* the smallest id found, 0 when none */
	const char *author_key; /* the comment's author object: "user" (GitHub, Gitea) or "author" (GitLab) */
};
int tg_forge_marker_page(void *ctx, tg_forge *f, const char *url, json_t *items);

/* Sends {"body": body} (the one request body every forge's comments and
 * notes take) with method to url. When id is not NULL, reads the answer's
 * "id" into it. On failure *ambiguous (may be NULL) is 1 when the request
 * may have taken effect: a 5xx or timeout after sending, or a 2xx whose
 * answer cannot be read. Returns 0 or the error. */
int tg_forge_send_body(int64_t *id, int *ambiguous, tg_forge *f, const char *method, const char *url, const char *body,
                       tg_http_retry retry);

/* A listing of label objects ({"name": ...}) into ctx, a struct
 * tg_forge_labels_ctx (GitHub and Gitea). */
struct tg_forge_labels_ctx {
	tg_forge_label **l;
	size_t *n;
};
int tg_forge_label_page(void *ctx, tg_forge *f, const char *url, json_t *items);

/* Appends a label (copies name and by) to *l (*n of them). Returns 0 or
 * TG_ENOMEM. */
int tg_forge_label_push(tg_forge_label **l, size_t *n, const char *name, const char *by);

/* ------------------------------------------------------- forge_outbox.c */

/* s reduced to a safe single path component: bytes other than [A-Za-z0-9._-]
 * become '_', a leading '.' becomes '_', at most 120 bytes, never empty.
 * Writes into buf (cap bytes). */
void tg_forge_outbox_component(char *buf, size_t cap, const char *s);

/* The stable comment id of the outbox: a 62-bit hash of repo, pr and marker,
 * never 0. */
int64_t tg_forge_outbox_comment_id(const char *repo, int64_t pr, const char *marker);

/* ---------------------------------------------------- forge_github_checks.c */

/* GitHub: creates or updates the check run named s->context on s->sha. 403
 * and 404 are warnings (returns 0). */
int tg_forge_github_check_run(tg_forge *f, const tg_forge_status *s);

/* The id of the newest check run named context in j, a GitHub check-runs
 * answer ({"check_runs": [{"id": ..., "name": ...}, ...]}): *id, or 0 when
 * none. Returns 0 or TG_EFORMAT (no check_runs array, an id that is not a
 * positive integer, a name that is not a string; *id is 0 then). */
int tg_forge_github_run_id(int64_t *id, tg_forge *f, const char *sha, const char *context, const json_t *j);

/* ---------------------------------------------------------- forge_github.c */

/* A page of GitHub issue events (time order) into ctx, a struct
 * tg_forge_labels_ctx holding the labels already read: the latest
 * "labeled" event of a label sets its by (the actor's login, or NULL).
 * Items of another shape are skipped. Returns 0 or TG_ENOMEM. */
int tg_forge_github_event_page(void *ctx, tg_forge *f, const char *url, json_t *items);

/* ---------------------------------------------------------- forge_gitlab.c */

/* The labels of a GitLab merge request object mr ("labels": names, or
 * objects with a name; absent or null: none) appended to *out (*n of
 * them). Returns 0, TG_EFORMAT (labels not an array, a label without a
 * name; what was appended stays, for the caller to free) or TG_ENOMEM. */
int tg_forge_gitlab_mr_labels(tg_forge_label **out, size_t *n, tg_forge *f, const char *repo, int64_t pr,
                              const json_t *mr);

#endif
