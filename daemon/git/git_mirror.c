/*
 * git_mirror.c - where a repository's mirror lives under the daemon's
 * state folder, and whether it holds a branch, read from its files
 * (git.h: tg_git_mirror_path, tg_git_mirror_has_branch). Without libgit2:
 * asking libgit2 for a branch the mirror lacks would fetch, and the
 * readers of the history (`tracegate history`, the published pages) never
 * go to the network.
 */
#include "git.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int tg_git_mirror_path(char *buf, size_t cap, const char *state_dir, const char *repo)
{
	char name[512];
	size_t k = 0;
	for (const char *p = repo; *p && k + 1 < sizeof(name); p++)
		name[k++] = *p == '/' ? '_' : *p;
	name[k] = 0;
	int n = snprintf(buf, cap, "%s/git/%s.git", state_dir, name);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int tg_git_mirror_has_branch(const char *dir, const char *branch)
{
	char path[4200], want[1100], line[1200];
	struct stat st;
	if (strstr(branch, "..") ||
	    (size_t)snprintf(path, sizeof(path), "%s/refs/heads/%s", dir, branch) >= sizeof(path))
		return 0;
	if (!stat(path, &st) && S_ISREG(st.st_mode))
		return 1;
	snprintf(path, sizeof(path), "%s/packed-refs", dir);
	if ((size_t)snprintf(want, sizeof(want), " refs/heads/%s\n", branch) >= sizeof(want))
		return 0;
	FILE *f = fopen(path, "r");
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line), w = strlen(want);
		found = n >= w && !strcmp(line + n - w, want);
	}
	if (f)
		fclose(f);
	return found;
}

int tg_git_first_parent_chain(char (**out)[41], size_t *n, const char *state_dir, const char *repo,
                              const char *clone_url, const char *branch, size_t limit)
{
	char path[4096];
	*out = NULL;
	*n = 0;
	if (!clone_url || tg_git_mirror_path(path, sizeof(path), state_dir, repo) || !tg_git_mirror_has_branch(path, branch))
		return 0; /* no mirror, or not this branch: fetching is the daemon's job */
	tg_git *g = NULL;
	char tip[41];
	int rc = tg_git_open(&g, clone_url, path, NULL);
	if (!rc)
		rc = tg_git_branch_tip(tip, g, branch);
	if (!rc)
		rc = tg_git_first_parents(out, n, g, tip, limit);
	tg_git_free(g);
	return rc;
}
