/*
 * git_impl.h - what git.c (the mirror: clone, open, fetch, credentials) and
 * git_history.c (lookups in the mirror) share. Only git*.c include this.
 */
#ifndef TG_GIT_IMPL_H
#define TG_GIT_IMPL_H

#include "git.h"

#include <git2.h>

struct tg_git {
	git_repository *repo;
	char *url;        /* what libgit2 fetches from: http(s) without userinfo */
	char *shown_url;  /* what messages name: never any userinfo */
	char *path;       /* the mirror */
	char *user;       /* credentials for http(s); NULL: none */
	char *secret;
	char *url_secret; /* the URL's raw password (or user when alone), to scrub */
	int insecure;
	int cred_tries;   /* credential callbacks during the current network call */
};

/* Sets the calling thread's error (tg_error_set) as one line scrubbed of
 * g's secrets (g may be NULL) and returns code. */
int tg_git_fail(const tg_git *g, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* libgit2's last message on this thread, never NULL. */
const char *tg_git_errmsg(void);

/* The TG_E* code of a libgit2 error code (GIT_ENOTFOUND: TG_ENOTFOUND,
 * out of memory: TG_ENOMEM, else TG_EIO). */
int tg_git_errcode(int err);

#endif
