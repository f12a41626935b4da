/*
 * git.h - what the daemon asks of a repository's history, with libgit2 on a
 * bare mirror kept under the daemon's state folder: the merge-base of a
 * pull request's head with its target branch, the first-parent ancestors
 * of a commit (where the baseline is searched), and a commit's trailers
 * ("Tracegate-Accept: RULE: reason").
 *
 * The mirror is cloned on first use and fetched on demand: when a commit
 * asked for is missing, the mirror fetches (branches, tags, and the forges'
 * pull-request refs: refs/pull/N/head, refs/merge-requests/N/head) once and
 * looks again. libgit2 1.5 has no shallow fetch: mirrors are full.
 *
 * A tg_git is not thread-safe.
 */
#ifndef TG_GIT_H
#define TG_GIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_git tg_git;

typedef struct tg_git_opts {
	const char *token;      /* for https remotes (sent as basic auth with user "x-access-token"
	                           or as configured); a secret, never in messages; may be NULL */
	const char *username;   /* NULL: "x-access-token" */
	int insecure;           /* no TLS verification (tests only) */
	const char *ca_file;    /* NULL: system; process-wide in libgit2 (the last one given
	                           replaces the CA list for every mirror) */
} tg_git_opts;

/* Initialises libgit2 for the process, once (tg_git_open and
 * tg_git_ls_remote do it when it is not done): the daemon does it before
 * it forks its jobs, so that each job's process does not load the TLS
 * certificates again (about 55 M instructions a job). 0 or TG_EIO. */
int tg_git_init(void);

/* Opens the bare mirror at mirror_path of clone_url, cloning it when it
 * does not exist yet (a clone interrupted halfway is removed and redone).
 * opts may be NULL. Returns 0, TG_EIO (network, bad URL, not a repository:
 * the message names the URL without credentials) or TG_ENOMEM. */
int tg_git_open(tg_git **out, const char *clone_url, const char *mirror_path, const tg_git_opts *opts);

void tg_git_free(tg_git *g);

/* Connects to clone_url as a fetch would (the token of opts, TLS as opts
 * says) and lists its references, touching no mirror: `daemon --check`'s
 * reachability test. *nrefs: references advertised. Returns 0, TG_EIO (the
 * message names the URL without credentials, and the reason) or
 * TG_ENOMEM. */
int tg_git_ls_remote(size_t *nrefs, const char *clone_url, const tg_git_opts *opts);

/* Fetches every branch, tag and pull/merge-request head into the mirror. */
int tg_git_fetch(tg_git *g);

/* 1 when the mirror has commit sha (40 hex), fetching once when it does
 * not; 0 when it is still missing; a negative code on error. */
int tg_git_has_commit(tg_git *g, const char *sha);

/* The merge-base of commit head with the tip of branch (refs/heads/branch
 * in the mirror, fetched first when head or the branch is missing), as 40
 * hex into out. TG_ENOTFOUND when either is unknown or they share no
 * history. */
int tg_git_merge_base(char out[41], tg_git *g, const char *head, const char *branch);

/* The tip of branch as 40 hex (fetched first when the mirror lacks the
 * branch). TG_ENOTFOUND when there is no such branch. */
int tg_git_branch_tip(char out[41], tg_git *g, const char *branch);

/* from and its first-parent ancestors, nearest first, at most limit of them
 * (from included). *out is an array of *n 41-byte strings the caller frees. */
int tg_git_first_parents(char (**out)[41], size_t *n, tg_git *g, const char *from, size_t limit);

/* One trailer of a commit message. */
typedef struct tg_git_trailer {
	char *key;   /* as written ("Tracegate-Accept") */
	char *value; /* "sdpa-forward: the new kernel is faster end to end" */
} tg_git_trailer;

/* The trailers of commit sha's message (git's rules: the last paragraph of
 * "Key: value" lines), and its author as "Name <email>" into *author (may be
 * NULL; caller frees). *out: an array of *n (tg_git_trailers_free). */
int tg_git_commit_trailers(tg_git_trailer **out, size_t *n, char **author, tg_git *g, const char *sha);

void tg_git_trailers_free(tg_git_trailer *t, size_t n);

/* The author time of commit sha, Unix seconds, into *out. */
int tg_git_commit_time(int64_t *out, tg_git *g, const char *sha);

/* The mirror of repository repo ("owner/repo") under state_dir:
 * "<state_dir>/git/owner_repo.git", into buf (cap bytes). 0, or -1 when it
 * does not fit (git_mirror.c). */
int tg_git_mirror_path(char *buf, size_t cap, const char *state_dir, const char *repo);

/* 1 when the bare mirror at dir has refs/heads/branch, loose or packed,
 * read from its files: no libgit2, so that a missing branch is never
 * fetched; 0 otherwise (no mirror, no such branch, a name with ".."). */
int tg_git_mirror_has_branch(const char *dir, const char *branch);

/* The first-parent chain of branch (tip first, at most limit commits) in the
 * daemon's mirror of repo (clone_url) under state_dir, without fetching:
 * *out (the caller's, freed with free) and *n; none (0, *n 0) when there is
 * no mirror or it lacks the branch. Returns 0 or the error of reading the
 * mirror (its message set). The history pages order their runs by it. */
int tg_git_first_parent_chain(char (**out)[41], size_t *n, const char *state_dir, const char *repo,
                              const char *clone_url, const char *branch, size_t limit);

#endif
