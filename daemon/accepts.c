/*
 * accepts.c - the regressions a run's judgement accepts (accepts.h): the
 * pull request's tracegate-accept:RULE labels and the commit's
 * Tracegate-Accept trailers, with notes for what is ignored.
 */
#include "../util/escape.h"
#include "accepts.h"
#include "../util/log.h"
#include "repos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *keep(tg_accepts *x, const char *s)
{
	if (!s || tg_grow((void **)&x->owned, &x->capowned, x->nowned + 1, sizeof(char *)))
		return NULL;
	char *c = strdup(s);
	if (c)
		x->owned[x->nowned++] = c;
	return c;
}

static void accept_add(tg_accepts *x, const tg_rules *rules, const char *rule, const char *reason, const char *by)
{
	if (!tg_rules_find(rules, rule)) {
		fputs("\nIgnored: ", x->nf);
		tg_md_code(x->nf, rule);
		fputs(" (accepted by ", x->nf);
		tg_md_escape(x->nf, by);
		fputs(") names no rule.\n", x->nf);
		return;
	}
	for (size_t i = 0; i < x->n; i++)
		if (!strcmp(x->a[i].rule, rule))
			return;
	if (tg_grow((void **)&x->a, &x->cap, x->n + 1, sizeof(tg_accept)))
		return;
	const char *r = keep(x, rule), *why = keep(x, reason), *who = keep(x, by);
	if (r && why && who)
		x->a[x->n++] = (tg_accept){r, why, who};
}

void tg_accepts_free(tg_accepts *x)
{
	if (x->nf)
		fclose(x->nf);
	for (size_t i = 0; i < x->nowned; i++)
		free(x->owned[i]);
	free(x->owned);
	free(x->a);
	free(x->notes);
	memset(x, 0, sizeof(*x));
}

int tg_accepts_begin(tg_accepts *x)
{
	memset(x, 0, sizeof(*x));
	x->nf = open_memstream(&x->notes, &x->notes_len);
	return x->nf ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
}

void tg_accepts_end(tg_accepts *x)
{
	if (x->nf)
		fclose(x->nf);
	x->nf = NULL;
}

void tg_accepts_labels(tg_accepts *x, const tg_rules *rules, const tg_forge_label *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncasecmp(l[i].name, "tracegate-accept:", 17)) {
			char by[300];
			snprintf(by, sizeof(by), "label %s%s%s", l[i].name, l[i].by ? " added by @" : "", l[i].by ? l[i].by : "");
			accept_add(x, rules, l[i].name + 17, "accepted with a pull-request label", by);
		}
}

/* The pull request's tracegate-accept:RULE labels. */
static void accepts_from_labels(tg_accepts *x, const tg_job_ctx *c, const tg_job *j)
{
	tg_forge_label *l = NULL;
	size_t n = 0;
	if (tg_forge_pr_labels(&l, &n, c->forge, j->repo, j->pr))
		tg_log(TG_LOG_WARN, "job %lld: labels of %s#%lld: %s", (long long)j->id, j->repo, (long long)j->pr,
		       tg_error_last());
	tg_accepts_labels(x, c->rules, l, n);
	tg_forge_labels_free(l, n);
}

/* One "Tracegate-Accept: RULE: reason" trailer of login's, who may write. */
static void accept_trailer(tg_accepts *x, const tg_rules *rules, const char *value, const char *login)
{
	char rule[256];
	const char *colon = strchr(value, ':');
	size_t rl = colon ? (size_t)(colon - value) : strlen(value);
	while (rl && value[rl - 1] == ' ')
		rl--;
	snprintf(rule, sizeof(rule), "%.*s", (int)rl, value);
	const char *reason = colon ? colon + 1 : "";
	while (*reason == ' ')
		reason++;
	char by[600];
	snprintf(by, sizeof(by), "commit trailer of @%s (write access)", login);
	accept_add(x, rules, rule, *reason ? reason : "(no reason given)", by);
}

/* Whether t holds a Tracegate-Accept trailer. */
static int has_accept_trailer(const tg_git_trailer *t, size_t nt)
{
	for (size_t i = 0; i < nt; i++)
		if (!strcasecmp(t[i].key, "Tracegate-Accept"))
			return 1;
	return 0;
}

void tg_accepts_trailers(tg_accepts *x, const tg_rules *rules, int accept_trailers, int can_write, const char *login,
                         const char *author, const tg_git_trailer *t, size_t nt)
{
	if (!has_accept_trailer(t, nt))
		return;
	if (!accept_trailers) {
		fputs("\nIgnored: a Tracegate-Accept trailer (trailers are off: accept_trailers; use a "
		      "tracegate-accept:RULE label).\n", x->nf);
		return;
	}
	if (!can_write) {
		fputs("\nIgnored: a Tracegate-Accept trailer of ", x->nf);
		tg_md_escape(x->nf, login ? login : author ? author : "the commit's author");
		fputs(" (the forge does not confirm write access to the repository).\n", x->nf);
		return;
	}
	for (size_t i = 0; i < nt; i++)
		if (!strcasecmp(t[i].key, "Tracegate-Accept"))
			accept_trailer(x, rules, t[i].value, login);
}

/* The commit's Tracegate-Accept trailers: the forge is asked who wrote the
 * commit only when one is there and accept_trailers is on. */
static void accepts_from_trailers(tg_accepts *x, const tg_job_ctx *c, const tg_job *j)
{
	tg_git *g;
	tg_git_trailer *t = NULL;
	size_t nt = 0;
	char *author = NULL, *login = NULL;
	if (tg_daemon_git(&g, c->d, c->ri) || tg_git_commit_trailers(&t, &nt, &author, g, j->commit)) {
		tg_log(TG_LOG_WARN, "job %lld: trailers of %.12s: %s", (long long)j->id, j->commit, tg_error_last());
		return;
	}
	int can = 0;
	if (c->repo->accept_trailers && has_accept_trailer(t, nt) &&
	    tg_forge_author_can_write(&login, &can, c->forge, j->repo, j->commit))
		tg_log(TG_LOG_WARN, "job %lld: who wrote %.12s: %s", (long long)j->id, j->commit, tg_error_last());
	tg_accepts_trailers(x, c->rules, c->repo->accept_trailers, can, login, author, t, nt);
	free(login);
	tg_git_trailers_free(t, nt);
	free(author);
}

int tg_accepts_gather(tg_accepts *out, const tg_job_ctx *c, const tg_job *j)
{
	int rc = tg_accepts_begin(out);
	if (rc)
		return rc;
	if (j->pr > 0)
		accepts_from_labels(out, c, j);
	accepts_from_trailers(out, c, j);
	tg_accepts_end(out);
	return 0;
}
