/*
 * accepts.h - overrides of a run's judgement: the pull request's labels
 * (tracegate-accept:RULE, "accepted with a pull-request label") and the
 * commit's trailers (Tracegate-Accept: RULE: reason), which count only
 * when the repository's accept_trailers is on and the forge confirms that
 * the commit's author may write (docs/security.md). Accepts that name no
 * rule, and trailers that do not count, are noted for the comment, not
 * applied. Best effort: a forge or git error is logged and the run is
 * judged without them.
 */
#ifndef TG_ACCEPTS_H
#define TG_ACCEPTS_H

#include "daemon_impl.h"

#include <stdio.h>

typedef struct tg_accepts {
	tg_accept *a;            /* the accepted rules, for tg_gate_opts.accepts */
	size_t n, cap;
	char **owned;            /* the strings a points to */
	size_t nowned, capowned;
	char *notes;             /* Markdown notes for the comment ("" when none) */
	size_t notes_len;
	FILE *nf;                /* open on notes while gathering */
} tg_accepts;

/* The accepts of job j (its repository's context c) into *out: the labels of its
 * pull request (j->pr > 0) and its commit's trailers, against the
 * repository's rules. Returns 0, or TG_ENOMEM (*out then holds nothing to
 * use but is freed the same way). *out is the caller's, freed with
 * tg_accepts_free. */
int tg_accepts_gather(tg_accepts *out, const tg_job_ctx *c, const tg_job *j);

/* The decisions tg_accepts_gather makes, on what the forge and git gave
 * (tests call them directly). tg_accepts_begin empties x and opens its
 * notes (0 or TG_ENOMEM); tg_accepts_end closes them (x->notes is then
 * the text, "" when none). Between them: tg_accepts_labels accepts the
 * rule of each tracegate-accept:RULE label (any case) that names one of
 * rules, noting those that name none; tg_accepts_trailers accepts the
 * rule of each "Tracegate-Accept: RULE: reason" trailer of t, but only
 * when accept_trailers is on and can_write (the forge confirmed that
 * login, the commit's author, may write), else notes why none counts
 * (author names the commit's author when login is NULL). A rule is
 * accepted once, by its first accept. */
int tg_accepts_begin(tg_accepts *x);
void tg_accepts_end(tg_accepts *x);
void tg_accepts_labels(tg_accepts *x, const tg_rules *rules, const tg_forge_label *l, size_t n);
void tg_accepts_trailers(tg_accepts *x, const tg_rules *rules, int accept_trailers, int can_write, const char *login,
                         const char *author, const tg_git_trailer *t, size_t nt);

/* Frees what x holds and leaves it empty-safe (a zeroed x is fine). */
void tg_accepts_free(tg_accepts *x);

#endif
