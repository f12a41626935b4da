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

/* Frees what x holds and leaves it empty-safe (a zeroed x is fine). */
void tg_accepts_free(tg_accepts *x);

#endif
