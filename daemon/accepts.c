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

/* The pull request's tracegate-accept:RULE labels. */
static void accepts_from_labels(tg_accepts *x, tg_daemon *d, size_t ri, const tg_job *j)
{
	tg_forge_label *l = NULL;
	size_t n = 0;
	if (tg_forge_pr_labels(&l, &n, tg_daemon_forge(d, ri), j->repo, j->pr))
		tg_log(TG_LOG_WARN, "job %lld: labels of %s#%lld: %s", (long long)j->id, j->repo, (long long)j->pr,
		       tg_error_last());
	for (size_t i = 0; i < n; i++)
		if (!strncasecmp(l[i].name, "tracegate-accept:", 17)) {
			char by[300];
			snprintf(by, sizeof(by), "label %s%s%s", l[i].name, l[i].by ? " added by @" : "", l[i].by ? l[i].by : "");
			accept_add(x, d->rules[ri], l[i].name + 17, "accepted with a pull-request label", by);
		}
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

/* The commit's Tracegate-Accept trailers: the commit author's own word,
 * counted only when accept_trailers is on and the forge says the author
 * may write. */
static void accepts_from_trailers(tg_accepts *x, tg_daemon *d, size_t ri, const tg_job *j)
{
	tg_git *g;
	tg_git_trailer *t = NULL;
	size_t nt = 0;
	char *author = NULL;
	if (tg_daemon_git(&g, d, ri) || tg_git_commit_trailers(&t, &nt, &author, g, j->commit)) {
		tg_log(TG_LOG_WARN, "job %lld: trailers of %.12s: %s", (long long)j->id, j->commit, tg_error_last());
		return;
	}
	const tg_config_repo *r = &d->cfg->repos[ri];
	int asked = 0, can = 0;
	char *login = NULL;
	for (size_t i = 0; i < nt; i++) {
		if (strcasecmp(t[i].key, "Tracegate-Accept"))
			continue;
		if (!r->accept_trailers) {
			fputs("\nIgnored: a Tracegate-Accept trailer (trailers are off: accept_trailers; use a "
			      "tracegate-accept:RULE label).\n", x->nf);
			break;
		}
		if (!asked) {
			asked = 1;
			if (tg_forge_author_can_write(&login, &can, tg_daemon_forge(d, ri), j->repo, j->commit))
				tg_log(TG_LOG_WARN, "job %lld: who wrote %.12s: %s", (long long)j->id, j->commit, tg_error_last());
		}
		if (!can) {
			fputs("\nIgnored: a Tracegate-Accept trailer of ", x->nf);
			tg_md_escape(x->nf, login ? login : author ? author : "the commit's author");
			fputs(" (the forge does not confirm write access to the repository).\n", x->nf);
			break;
		}
		accept_trailer(x, d->rules[ri], t[i].value, login);
	}
	free(login);
	tg_git_trailers_free(t, nt);
	free(author);
}

int tg_accepts_gather(tg_accepts *out, tg_daemon *d, size_t ri, const tg_job *j)
{
	memset(out, 0, sizeof(*out));
	out->nf = open_memstream(&out->notes, &out->notes_len);
	if (!out->nf)
		return tg_error_set(TG_ENOMEM, "out of memory");
	if (j->pr > 0)
		accepts_from_labels(out, d, ri, j);
	accepts_from_trailers(out, d, ri, j);
	fclose(out->nf);
	out->nf = NULL;
	return 0;
}
