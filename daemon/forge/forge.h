/*
 * forge.h - what the daemon says to a git forge: a commit status (and on
 * GitHub a check run), one pull-request comment per workload kept up to
 * date, and the pull request's labels (overrides of the rules).
 *
 * One interface, several kinds:
 *   github   REST v3: POST /repos/{o}/{r}/statuses/{sha}, POST .../check-runs,
 *            issue comments (GET all pages, POST, PATCH), issue labels
 *   gitlab   REST v4: POST /projects/{id}/statuses/{sha}, merge-request notes
 *            (GET all pages, POST, PUT), merge-request labels
 *   gitea    REST v1 (also Forgejo): POST /repos/{o}/{r}/statuses/{sha},
 *            issue comments (GET all pages, POST, PATCH), issue labels
 *   outbox   no network: every status and comment is written as a file under
 *            a folder (dry runs, the demo); the comment is also printed
 *
 * Upsert of the comment: the body carries a hidden marker line (an HTML
 * comment, e.g. "<!-- tracegate:llama-8b-train -->"); the forge client
 * searches every page of the pull request's comments for it and edits that
 * comment, or creates one when there is none. A create that fails
 * ambiguously (timeout, 5xx after sending) is never retried blindly: the
 * comments are searched again first, so one run never makes two comments.
 *
 * Tokens are never written to messages or logs. Every function returns 0 or
 * a negative TG_E* code with a one-line message (tg_error_last) naming the
 * forge, the request (method and URL without query) and the HTTP status.
 */
#ifndef TG_FORGE_H
#define TG_FORGE_H

#include "../../net/http.h"

#include <stddef.h>
#include <stdint.h>

typedef enum tg_forge_kind {
	TG_FORGE_GITHUB = 0,
	TG_FORGE_GITLAB,
	TG_FORGE_GITEA, /* also Forgejo */
	TG_FORGE_OUTBOX
} tg_forge_kind;

/* "github", "gitlab", "gitea", "outbox"; parse accepts "forgejo" as gitea.
 * Returns 0 or TG_EINVAL. */
const char *tg_forge_kind_name(tg_forge_kind k);
int tg_forge_kind_parse(tg_forge_kind *out, const char *s);

/* The state of a commit status, mapped to each forge's words:
 *            pending   success   failure   error
 *   GitHub   pending   success   failure   error
 *   GitLab   running   success   failed    failed   (description says "error")
 *   Gitea    pending   success   failure   error                             */
typedef enum tg_forge_state {
	TG_FORGE_PENDING = 0,
	TG_FORGE_SUCCESS,
	TG_FORGE_FAILURE,
	TG_FORGE_ERROR
} tg_forge_state;

const char *tg_forge_state_name(tg_forge_state s); /* "pending", "success", ... */

typedef struct tg_forge_opts {
	tg_forge_kind kind;
	const char *name;      /* the config's name for messages ("github.com") */
	const char *api_url;   /* "https://api.github.com", "https://gitlab.com/api/v4",
	                          "https://gitea.example/api/v1"; no trailing slash needed */
	const char *token;     /* secret; NULL for outbox */
	const char *outbox_dir; /* outbox: the folder (created if missing) */
	FILE *outbox_echo;     /* outbox: where to print comments too (NULL: nowhere) */
	int check_runs;        /* github: also create/update a check run per status */
	tg_http_opts http;     /* TLS, timeouts, retries */
} tg_forge_opts;

typedef struct tg_forge tg_forge;

/* A client for one forge. Copies what it keeps from opts. *out is freed
 * with tg_forge_free. Returns 0, TG_EINVAL (missing api_url or token) or
 * TG_ENOMEM. */
int tg_forge_new(tg_forge **out, const tg_forge_opts *opts);

void tg_forge_free(tg_forge *f);

tg_forge_kind tg_forge_get_kind(const tg_forge *f);

typedef struct tg_forge_status {
	const char *repo;        /* "owner/repo" (GitLab: "group/sub/project", URL-encoded by the client) */
	const char *sha;         /* 40 hex digits */
	tg_forge_state state;
	const char *context;     /* "tracegate/llama-8b-train" */
	const char *description; /* one line; cut to the forge's limit (GitHub: 140 characters,
	                            at a UTF-8 boundary, ending in "...") */
	const char *target_url;  /* a link to the details, or NULL */
	const char *summary_md;  /* check run output summary (GitHub, check_runs), or NULL */
	int neutral;             /* 1: the gate could not judge (no baseline, inconclusive); a GitHub
	                            check run then concludes "neutral". Commit statuses have no such
	                            state (pending, success, failure, error only): they keep state */
} tg_forge_status;

/* Sets the commit status (and on GitHub with check_runs, creates or updates
 * the check run named after the context). A check run that the token may
 * not create (403, 404) is skipped with a warning on stderr, not an error:
 * the status is the gate. */
int tg_forge_post_status(tg_forge *f, const tg_forge_status *s);

typedef struct tg_forge_comment {
	const char *repo;
	int64_t pr;         /* pull request (GitHub, Gitea: issue number) or merge request iid */
	const char *marker; /* the hidden marker, a whole line of body ("<!-- tracegate:... -->") */
	const char *body;   /* Markdown; must contain marker */
} tg_forge_comment;

/* Creates the comment or edits the one that carries the marker (searching
 * every page). *id: the comment's id; *created: 1 when it was created (both
 * may be NULL). */
int tg_forge_upsert_comment(int64_t *id, int *created, tg_forge *f, const tg_forge_comment *c);

typedef struct tg_forge_label {
	char *name;
	char *by; /* who added it, when the forge says (GitHub issue events); else NULL */
} tg_forge_label;

/* The labels of a pull request. *out (an array of *n, free with
 * tg_forge_labels_free). Outbox: none. */
int tg_forge_pr_labels(tg_forge_label **out, size_t *n, tg_forge *f, const char *repo, int64_t pr);

void tg_forge_labels_free(tg_forge_label *l, size_t n);

/* A pull request as the forge has it (not as a manifest says). */
typedef struct tg_forge_pr {
	int open;          /* 1: open (GitLab: opened) */
	char head[41];     /* the head commit, 40 lower-case hex ("" when the forge gave none) */
	char *base;        /* the branch it merges into (owned; tg_forge_pr_clear) */
	char *head_ref;    /* the branch it comes from (owned), NULL when the forge gave none */
	char *head_repo;   /* the repository that branch is in, "owner/name" (GitHub, Gitea head.repo.full_name;
	                      owned), NULL when the forge gave none */
} tg_forge_pr;

void tg_forge_pr_clear(tg_forge_pr *p);

/* Pull request pr of repo, asked of the forge:
 *   GitHub         GET /repos/{o}/{r}/pulls/{n}: state, head.sha, base.ref, head.ref
 *   GitLab         GET /projects/{id}/merge_requests/{iid}: state, sha, target_branch, source_branch
 *   Gitea/Forgejo  GET /repos/{o}/{r}/pulls/{n}: state, head.sha, base.ref, head.ref
 *   outbox         cannot tell: TG_EINVAL ("cannot tell")
 * TG_ENOTFOUND when there is no such pull request. */
int tg_forge_pr_get(tg_forge_pr *out, tg_forge *f, const char *repo, int64_t pr);

/* Whether the author of commit sha has write access to repo, asked of the
 * forge (a Tracegate-Accept: trailer counts only then; the git author
 * line is anyone's text). *login: the author's account (the caller frees
 * it; NULL when the commit's author is no account); *can: 1 for admin,
 * maintain or write (Gitea, Forgejo: owner, admin or write).
 *   GitHub         GET /repos/{o}/{r}/commits/{sha} (author.login), then
 *                  GET /repos/{o}/{r}/collaborators/{login}/permission
 *   Gitea/Forgejo  GET /repos/{o}/{r}/git/commits/{sha}, then the same
 *                  permission path (Gitea 1.17 or later)
 *   GitLab, outbox cannot tell: TG_EINVAL ("cannot tell who may write")
 * A 404 for the permission is *can = 0, not an error. */
int tg_forge_author_can_write(char **login, int *can, tg_forge *f, const char *repo, const char *sha);

/* A CI run (a GitHub Actions workflow run, a GitLab pipeline) as the forge
 * has it: a run's proof of origin (docs/security.md, "A run belongs to
 * one job"). */
typedef struct tg_forge_ci_run {
	char head[41];     /* the commit it ran on, 40 lower-case hex ("" when the forge gave none) */
	int64_t pr;        /* GitLab: the merge request whose refs/merge-requests/N/head it ran on, else 0 */
	char *ref;         /* the branch it ran on (GitHub head_branch, GitLab ref; owned), NULL: none */
	char *repo;        /* GitHub: the repository of that branch (head_repository.full_name; owned), NULL */
} tg_forge_ci_run;

void tg_forge_ci_run_clear(tg_forge_ci_run *r);

/* CI run id of repo, asked of the forge (forge_ci_runs.c):
 *   GitHub         GET /repos/{o}/{r}/actions/runs/{id}: head_sha, head_branch,
 *                  head_repository.full_name
 *   GitLab         GET /projects/{id}/pipelines/{id}: sha, ref
 *   Gitea/Forgejo, outbox  cannot tell: TG_EINVAL ("cannot tell")
 * id: 1 to 64 of [A-Za-z0-9._-] (the manifest's ci_run; GitHub and GitLab
 * ids are digits: another id is TG_ENOTFOUND without asking). TG_ENOTFOUND
 * when there is no such run. */
int tg_forge_ci_run_get(tg_forge_ci_run *out, tg_forge *f, const char *repo, const char *id);

#endif
