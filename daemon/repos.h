/*
 * repos.h - what the job machine's files ask of the daemon they run in: a
 * configured repository found by name, its forge client, its git mirror
 * (repos.c). The small interface that daemon.c, job.c, baseline.c and
 * pr_check.c share, so that none of them calls back up into another: the
 * loop (daemon.c) runs jobs (job.c), a job finds its baseline (baseline.c),
 * and all of them reach a repository's parts here, which calls none of
 * them.
 *
 * Everything returned is owned by the daemon (valid until tg_daemon_free);
 * nothing here is the caller's to free.
 */
#ifndef TG_REPOS_H
#define TG_REPOS_H

#include "daemon_impl.h"

/* The repository of the config named name and its index in cfg->repos
 * (*index may be NULL), or NULL when none is configured. */
const tg_config_repo *tg_daemon_repo(size_t *index, const tg_daemon *d, const char *name);

/* Whether baselines and pooled runs come from trusted runs only: a
 * signing key is configured (docs/security.md). The store's baseline
 * lookups take it as their argument (tg_store_find_run). */
int tg_daemon_trusted_only(const tg_daemon *d);

/* The forge client of repository index ri. */
tg_forge *tg_daemon_forge(const tg_daemon *d, size_t ri);

/* The git mirror of repository index ri, opened (cloned under
 * <state_dir>/git/) on first use. Returns 0 or a TG_E* code. */
int tg_daemon_git(tg_git **out, tg_daemon *d, size_t ri);

/* mkdir -p path (mode 0750) for the daemon's state folders. Returns 0, or
 * TG_EINVAL (a path too long) or TG_EIO naming the folder that could not
 * be made. */
int tg_daemon_make_dirs(const char *path);

#endif
