/*
 * repos.c - a configured repository's parts for the job machine: its
 * config entry, its forge client, its git mirror opened on first use
 * (repos.h). Calls nothing of daemon.c, job.c or baseline.c: they call
 * down to it.
 */
#include "repos.h"
#include "../util/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

int tg_daemon_make_dirs(const char *path)
{
	char failed[PATH_MAX];
	if (!tg_util_mkdir_p(failed, sizeof(failed), path, 0750))
		return 0;
	if (errno == ENAMETOOLONG && strlen(path) >= PATH_MAX)
		return tg_error_set(TG_EINVAL, "%s: path too long", path);
	return tg_error_set(TG_EIO, "%s: cannot create: %s", failed, strerror(errno));
}

const tg_config_repo *tg_daemon_repo(size_t *index, const tg_daemon *d, const char *name)
{
	for (size_t i = 0; i < d->cfg->nrepos; i++)
		if (!strcmp(d->cfg->repos[i].name, name)) {
			if (index)
				*index = i;
			return &d->cfg->repos[i];
		}
	return NULL;
}

int tg_daemon_trusted_only(const tg_daemon *d)
{
	return d->cfg->storage.signing_key.value != NULL;
}

tg_forge *tg_daemon_forge(const tg_daemon *d, size_t ri)
{
	const tg_config_forge *f = d->cfg->repos[ri].forge_ptr;
	return d->forges[f - d->cfg->forges];
}

int tg_daemon_git(tg_git **out, tg_daemon *d, size_t ri)
{
	if (!d->git[ri]) {
		const tg_config_repo *r = &d->cfg->repos[ri];
		char path[PATH_MAX];
		if (tg_git_mirror_path(path, sizeof(path), d->cfg->state_dir, r->name))
			return tg_error_set(TG_EINVAL, "%s: the mirror's path is too long", d->cfg->state_dir);
		char gitdir[PATH_MAX];
		snprintf(gitdir, sizeof(gitdir), "%s/git", d->cfg->state_dir);
		int rc = tg_daemon_make_dirs(gitdir);
		if (rc)
			return rc;
		const tg_config_forge *f = r->forge_ptr;
		tg_git_opts go = {r->git_token.value, NULL, f && !f->tls_verify, f ? f->ca_file : NULL};
		if ((rc = tg_git_open(&d->git[ri], r->clone_url, path, &go)))
			return rc;
	}
	*out = d->git[ri];
	return 0;
}
