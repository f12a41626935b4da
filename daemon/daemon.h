/*
 * daemon.h - `tracegate daemon`: watch the artifact storage, analyse every
 * new run, judge it against its baseline, post the verdict to the forge,
 * and keep the history (DESIGN.md, "Daemon behaviour users expect").
 *
 *   scan      list the manifests in storage; a run not yet in the job store
 *             is added (state seen), keyed by what makes it one run
 *             (run_key.c), within the limits counted per trust class
 *             (admit.c)
 *   work      claim unfinished jobs one at a time (a lease in the store) and
 *             move each through seen -> analysing -> posting -> done
 *             (daemon/job.c), resuming a job where a killed daemon left it
 *   wait      until the storage changes (inotify) or the poll period ends
 *
 * One daemon per state folder (a lock file); several daemons may share a
 * PostgreSQL store and storage, each with its own state folder.
 */
#ifndef TG_DAEMON_H
#define TG_DAEMON_H

#include "../config/config.h"

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

typedef struct tg_daemon tg_daemon;

typedef struct tg_daemon_opts {
	int once;                        /* scan, work until no job is left, return */
	volatile sig_atomic_t *stop;     /* set (by a signal handler) to stop after the current step */
	FILE *outbox_echo;               /* outbox forges print their comments here (NULL: none) */
} tg_daemon_opts;

/* Opens everything the configuration names: the store (migrated), the
 * storage, a client per forge, the rules of each repository; takes the
 * state folder's lock. Takes ownership of cfg. opts is copied. Returns 0 or
 * a TG_E* code with a one-line message (a second daemon on the same state
 * folder, an unreachable database, a rules file with an error...). */
int tg_daemon_new(tg_daemon **out, tg_config *cfg, const tg_daemon_opts *opts);

void tg_daemon_free(tg_daemon *d);

/* Runs: scan, work, wait, until *stop is set (or, with once, until no work
 * is left). Returns 0, or a TG_E* code when the daemon cannot go on (the
 * store is gone for good); per-run failures are recorded on the run and
 * reported to the forge, not returned. */
int tg_daemon_run(tg_daemon *d);

/* One scan of the storage: adds the new runs; *added (may be NULL) counts
 * them. */
int tg_daemon_scan(size_t *added, tg_daemon *d);

/* Works on claimable jobs until none is left (or *stop); *done (may be
 * NULL) counts the jobs finished (done or failed). */
int tg_daemon_work(size_t *done, tg_daemon *d);

/* `daemon --check`: tries what the daemon talks to (check.c): the
 * database, the storage listing, each repository's forge (reachable, the
 * token accepted, allowed to post statuses) and git remote. One line per
 * check on out ("  ok    database: ..." or "  FAIL  storage: why");
 * failed (cap bytes, may be NULL) gets the names of the failed checks,
 * comma-separated. Returns how many failed. */
int tg_daemon_check_connect(FILE *out, char *failed, size_t cap, const tg_config *c);

#endif
