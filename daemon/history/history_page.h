/*
 * history_page.h - a branch's history computed into the document that
 * render/history_render.h writes (history_page.c): what tg_history_write_ex
 * (history_render.h) builds, renders and frees, for a caller that wants the
 * numbers without the rendering (or renders one document several times).
 */
#ifndef TG_HISTORY_PAGE_H
#define TG_HISTORY_PAGE_H

#include "../../render/history_render.h"
#include "history_key.h"
#include "history_render.h"

/*
 * Fills *out with the history of key's repo and branch (its other fields
 * are not read: p holds what the caller chose) from the n points p (oldest
 * first, any mix of series) and what opts gives (NULL: nothing): series
 * sorted by workload and metric, each with its unit and rule (opts->info,
 * else the metric's unit), reference, noise band, pull requests' runs and
 * their places, and, when changes and opts->changes, its change points
 * (opts->found, else found here: series of 8 points or more); the tampered
 * runs. *out borrows the strings of key, p and opts' arrays (keep
 * them while it lives) and owns its arrays: tg_history_page_free. Returns
 * 0, or TG_ENOMEM or TG_EINVAL (a found change point of other points);
 * *out is then empty.
 */
int tg_history_page_build(tg_history_doc *out, const tg_history_key *key, const tg_history_point *p, size_t n,
                          const tg_history_opts *opts, int changes);

/* Frees what d owns and empties it (an empty d is fine). */
void tg_history_page_free(tg_history_doc *d);

#endif
