/*
 * git_history.c - what the baseline search reads from the mirror (see
 * git.h): commits, branch tips, merge-bases, first-parent ancestors,
 * trailers. A commit or branch that is missing makes the mirror fetch once
 * (tg_git_fetch) and look again.
 */
#include "git_impl.h"
#include "../../util/tg.h"
#include "../../util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sha as an oid: exactly 40 hex digits. */
static int parse_sha(git_oid *oid, const char *sha)
{
	if (!sha)
		return tg_error_set(TG_EINVAL, "git: no commit id");
	if (!tg_util_is_hex(sha, 40))
		return tg_error_set(TG_EINVAL, "git: bad commit id '%.48s%s' (want 40 hex digits)", sha,
		                    strlen(sha) > 48 ? "..." : "");
	if (git_oid_fromstrn(oid, sha, 40) < 0)
		return tg_error_set(TG_EINVAL, "git: bad commit id '%s'", sha);
	return 0;
}

/* "refs/heads/<branch>" into ref (of size cap), when that is a valid name. */
static int branch_ref(char *ref, size_t cap, const char *branch)
{
	int valid = 0;
	if (!branch || !*branch)
		return tg_error_set(TG_EINVAL, "git: no branch name");
	if ((size_t)snprintf(ref, cap, "refs/heads/%s", branch) >= cap ||
	    git_reference_name_is_valid(&valid, ref) < 0 || !valid)
		return tg_error_set(TG_EINVAL, "git: bad branch name '%.100s'", branch);
	return 0;
}

/* Fetches unless this call fetched already. */
static int fetch_once(tg_git *g, int *fetched)
{
	if (*fetched)
		return 0;
	*fetched = 1;
	return tg_git_fetch(g);
}

/* The commit oid, fetching once when it is missing: 0, TG_ENOTFOUND with
 * a message, or another error. */
static int lookup_commit(tg_git *g, git_commit **out, const git_oid *oid, int *fetched)
{
	for (;;) {
		int err = git_commit_lookup(out, g->repo, oid);
		if (!err)
			return 0;
		if (err != GIT_ENOTFOUND)
			return tg_git_fail(g, tg_git_errcode(err), "mirror %s: commit %s: %s", g->path,
			                   git_oid_tostr_s(oid), tg_git_errmsg());
		if (*fetched)
			return tg_git_fail(g, TG_ENOTFOUND, "commit %s not found in %s", git_oid_tostr_s(oid),
			                   g->shown_url);
		int rc = fetch_once(g, fetched);
		if (rc)
			return rc;
	}
}

/* The commit refs/heads/<branch> points at, fetching once when missing. */
/* The commit sha names (a 40-hex id), fetching once when the mirror does
 * not have it yet; TG_ENOTFOUND when the remote has none either. The
 * caller frees *out with git_commit_free. */
static int commit_by_sha(git_commit **out, tg_git *g, const char *sha)
{
	*out = NULL;
	git_oid oid;
	int rc = parse_sha(&oid, sha);
	if (rc)
		return rc;
	int fetched = 0;
	return lookup_commit(g, out, &oid, &fetched);
}

static int lookup_branch(tg_git *g, git_oid *out, const char *branch, int *fetched)
{
	char ref[512];
	int rc = branch_ref(ref, sizeof(ref), branch);
	if (rc)
		return rc;
	for (;;) {
		git_reference *r = NULL;
		git_object *obj = NULL;
		int err = git_reference_lookup(&r, g->repo, ref);
		if (!err) {
			err = git_reference_peel(&obj, r, GIT_OBJECT_COMMIT);
			if (!err)
				git_oid_cpy(out, git_object_id(obj));
			git_object_free(obj);
			git_reference_free(r);
			if (!err)
				return 0;
			return tg_git_fail(g, TG_EIO, "mirror %s: branch %s: %s", g->path, branch, tg_git_errmsg());
		}
		if (err != GIT_ENOTFOUND)
			return tg_git_fail(g, tg_git_errcode(err), "mirror %s: branch %s: %s", g->path, branch,
			                   tg_git_errmsg());
		if (*fetched)
			return tg_git_fail(g, TG_ENOTFOUND, "no branch '%s' in %s", branch, g->shown_url);
		if ((rc = fetch_once(g, fetched)) != 0)
			return rc;
	}
}

int tg_git_has_commit(tg_git *g, const char *sha)
{
	git_commit *c = NULL;
	int rc = commit_by_sha(&c, g, sha);
	git_commit_free(c);
	if (rc == TG_ENOTFOUND) {
		tg_error_clear();
		return 0;
	}
	return rc ? rc : 1;
}

int tg_git_merge_base(char out[41], tg_git *g, const char *head, const char *branch)
{
	out[0] = '\0';
	git_oid h, b, base;
	char ref[512];
	int rc;
	if ((rc = parse_sha(&h, head)) || (rc = branch_ref(ref, sizeof(ref), branch)))
		return rc;
	int fetched = 0;
	git_commit *c = NULL;
	if ((rc = lookup_commit(g, &c, &h, &fetched)) != 0)
		return rc;
	git_commit_free(c);
	if ((rc = lookup_branch(g, &b, branch, &fetched)) != 0)
		return rc;
	int err = git_merge_base(&base, g->repo, &h, &b);
	if (err == GIT_ENOTFOUND)
		return tg_git_fail(g, TG_ENOTFOUND, "commit %s and branch '%s' share no history", head, branch);
	if (err < 0)
		return tg_git_fail(g, tg_git_errcode(err), "merge-base of %s and %s: %s", head, branch,
		                   tg_git_errmsg());
	git_oid_tostr(out, 41, &base);
	return 0;
}

int tg_git_branch_tip(char out[41], tg_git *g, const char *branch)
{
	out[0] = '\0';
	git_oid oid;
	int fetched = 0;
	int rc = lookup_branch(g, &oid, branch, &fetched);
	if (rc)
		return rc;
	git_oid_tostr(out, 41, &oid);
	return 0;
}

int tg_git_first_parents(char (**out)[41], size_t *n, tg_git *g, const char *from, size_t limit)
{
	*out = NULL;
	*n = 0;
	git_commit *c = NULL;
	int rc = commit_by_sha(&c, g, from);
	if (rc)
		return rc;
	/* By hand rather than with a revwalk: one parent lookup per step, and
	 * nothing of the second parents' history is ever read. */
	char(*ids)[41] = NULL;
	size_t cap = 0, count = 0;
	while (c && count < limit) {
		if ((rc = tg_grow((void **)&ids, &cap, count + 1, sizeof(*ids))) != 0)
			break;
		git_oid_tostr(ids[count++], 41, git_commit_id(c));
		if (count == limit || git_commit_parentcount(c) == 0)
			break;
		git_commit *parent = NULL;
		int err = git_commit_parent(&parent, c, 0);
		if (err < 0) {
			rc = tg_git_fail(g, TG_EIO, "mirror %s: first parent of %s: %s", g->path, ids[count - 1],
			                 tg_git_errmsg());
			break;
		}
		git_commit_free(c);
		c = parent;
	}
	git_commit_free(c);
	if (rc) {
		free(ids);
		return rc;
	}
	*out = ids;
	*n = count;
	return 0;
}

/* ------------------------------------------------------------ commits */

void tg_git_trailers_free(tg_git_trailer *t, size_t n)
{
	if (!t)
		return;
	for (size_t i = 0; i < n; i++) {
		free(t[i].key);
		free(t[i].value);
	}
	free(t);
}

/* "Name <email>" of a signature, malloc'd. */
static char *format_person(const git_signature *s)
{
	const char *name = s && s->name ? s->name : "";
	const char *email = s && s->email ? s->email : "";
	size_t len = strlen(name) + strlen(email) + 4;
	char *p = tg_malloc(len);
	if (p)
		snprintf(p, len, "%s <%s>", name, email);
	return p;
}

int tg_git_commit_trailers(tg_git_trailer **out, size_t *n, char **author, tg_git *g, const char *sha)
{
	*out = NULL;
	*n = 0;
	if (author)
		*author = NULL;
	git_commit *c = NULL;
	int rc = commit_by_sha(&c, g, sha);
	if (rc)
		return rc;
	git_message_trailer_array arr = {0};
	const char *msg = git_commit_message(c);
	if (git_message_trailers(&arr, msg ? msg : "") < 0) {
		rc = tg_git_fail(g, TG_EIO, "commit %s: trailers: %s", sha, tg_git_errmsg());
		goto out;
	}
	tg_git_trailer *t = NULL;
	if (arr.count) {
		t = tg_calloc(arr.count, sizeof(*t));
		if (!t) {
			rc = TG_ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < arr.count; i++) {
		t[i].key = strdup(arr.trailers[i].key);
		t[i].value = strdup(arr.trailers[i].value);
		if (!t[i].key || !t[i].value) {
			tg_git_trailers_free(t, arr.count);
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (author && !(*author = format_person(git_commit_author(c)))) {
		tg_git_trailers_free(t, arr.count);
		rc = TG_ENOMEM;
		goto out;
	}
	*out = t;
	*n = arr.count;
out:
	git_message_trailer_array_free(&arr);
	git_commit_free(c);
	return rc;
}

int tg_git_commit_time(int64_t *out, tg_git *g, const char *sha)
{
	*out = 0;
	git_commit *c = NULL;
	int rc = commit_by_sha(&c, g, sha);
	if (rc)
		return rc;
	const git_signature *a = git_commit_author(c);
	*out = a ? (int64_t)a->when.time : (int64_t)git_commit_time(c);
	git_commit_free(c);
	return 0;
}
