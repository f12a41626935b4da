/*
 * cmd_history.c - `tracegate history --config FILE --repo REPO --branch
 * BRANCH [--metric M] [--workload W] [--limit N] [--format F] [-o FILE]`:
 * the numbers of every analysed run of a branch, from the daemon's store,
 * and those of the pull requests' runs into it (marked apart).
 *
 * Read-only: the configuration is loaded for its database alone (no S3
 * key or forge token is read, so none need be set); the repository's rules
 * give each rule's series its unit and thresholds; the daemon's git mirror,
 * when it is there, orders the runs by the branch's first-parent history
 * (nothing is fetched: without the mirror, runs stay in the order they ran).
 */
#include "../config/config.h"
#include "../rules/rules.h"
#include "cli.h"
#include "commands.h"
#include "../daemon/history/history_metric.h"
#include "../daemon/git/git.h"
#include "../daemon/history/history_order.h"
#include "../daemon/history/history_render.h"
#include "../daemon/history/history_rules.h"
#include "../daemon/store/store.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names of the series recorded (distinct, the order of the store). */
static int series_names(tg_store *s, const char *repo, const char *branch, const char *workload, char ***out,
                        size_t *n)
{
	tg_history_point *p = NULL;
	size_t np = 0;
	*out = NULL;
	*n = 0;
	int rc = tg_store_history(&p, &np, s, repo, branch, workload, NULL, 1);
	if (rc)
		return rc;
	char **names = calloc(np ? np : 1, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; names && i < np; i++) {
		size_t j = 0;
		while (j < k && strcmp(names[j], p[i].metric))
			j++;
		if (j == k && !(names[k++] = strdup(p[i].metric)))
			k--;
	}
	tg_history_free(p, np);
	if (!names)
		return tg_error_set(TG_ENOMEM, "out of memory");
	*out = names;
	*n = k;
	return 0;
}

struct history_args {
	char *config, *repo, *branch, *metric, *workload, *out;
	size_t limit;
	tg_history_format fmt;
	int changes;
};

static int convert_limit(void *dst, char *value)
{
	char *end;
	long long n = strtoll(value, &end, 10);
	if (end == value || *end || n < 1)
		return -1;
	*(size_t *)dst = (size_t)n;
	return 0;
}

static int convert_format(void *dst, char *value)
{
	return tg_history_format_parse(dst, value) ? -1 : 0;
}

static const tg_opt_spec history_opts[] = {
	{TG_OPT_VALUE, "config", 0, "FILE", offsetof(struct history_args, config), NULL, NULL,
	 TG_OPT_REQUIRED | TG_OPT_IN_USAGE, "the daemon's configuration (its database is read)", NULL},
	{TG_OPT_VALUE, "repo", 0, "REPO", offsetof(struct history_args, repo), NULL, NULL,
	 TG_OPT_REQUIRED | TG_OPT_IN_USAGE, "owner/repo", NULL},
	{TG_OPT_VALUE, "branch", 0, "BRANCH", offsetof(struct history_args, branch), NULL, NULL,
	 TG_OPT_REQUIRED | TG_OPT_IN_USAGE, "a branch (main)", NULL},
	{TG_OPT_VALUE, "metric", 0, "M", offsetof(struct history_args, metric), NULL, NULL, 0,
	 "one metric: a stored name (gpu_busy_ms, rule:sdpa-forward), a rule's metric name (gpu_busy), a rule's "
	 "name, or a prefix ending in * (kernel_time_ms:*); default: every metric. An unknown name is an error "
	 "that lists the recorded ones",
	 NULL},
	{TG_OPT_VALUE, "workload", 0, "W", offsetof(struct history_args, workload), NULL, NULL, 0,
	 "one workload; default: every workload", NULL},
	{TG_OPT_VALUE, "limit", 0, "N", offsetof(struct history_args, limit), convert_limit, "a positive number", 0,
	 "the latest N runs of each series (default: all)", NULL},
	{TG_OPT_VALUE, "format", 0, "F", offsetof(struct history_args, fmt), convert_format,
	 "one of text, csv, json, html", 0, "text (default), csv, json, or html (one page, a chart per series)",
	 NULL},
	{TG_OPT_VALUE, NULL, 'o', "FILE", offsetof(struct history_args, out), NULL, NULL, 0,
	 "write there (complete or not at all) instead of stdout", NULL},
	{TG_OPT_SWITCH, "changes", 0, NULL, offsetof(struct history_args, changes), NULL, NULL, 0,
	 "find the change points of each series (E-divisive means): listed in text, \"changes\" in json, marked "
	 "on the html charts (not with csv)",
	 NULL},
	{.kind = TG_OPT_END},
};

const tg_opt_command tg_cmd_history_opts = {
	"history", NULL,
	"The performance history of a branch: the numbers the daemon recorded for each analysed run (GPU busy "
	"time per step, kernel time per category, each rule's value, ...), oldest first.",
	NULL, history_opts};

/* The job store the configuration names (SQLite or PostgreSQL), reading
 * trusted runs only when a signing key is configured: with a key, a
 * branch's history is its trusted runs (docs/security.md); history reads
 * no secret but the database's, so a key that is configured but not read
 * counts too. The caller closes *out. */
static int open_store(tg_store **out, const tg_config *cfg)
{
	char *url = NULL;
	if (cfg->sqlite) {
		size_t n = strlen(cfg->sqlite) + 8;
		if (!(url = malloc(n)))
			return tg_error_set(TG_ENOMEM, "out of memory");
		snprintf(url, n, "sqlite:%s", cfg->sqlite);
	}
	int rc = tg_store_open(out, url ? url : cfg->postgresql.value);
	free(url);
	const tg_config_secret *sk = &cfg->storage.signing_key;
	if (!rc && (sk->value || sk->env || sk->file))
		tg_store_set_trusted_only(*out, 1);
	return rc;
}

/* The stored series name that --metric stands for (*out, NULL to use
 * metric as given): a rule's metric name, a rule's name or a category
 * stands for the series stored under it; a miss lists what there is.
 * Prints its error; the caller frees *out. */
static int resolve_metric(char **out, tg_store *s, const struct history_args *a)
{
	*out = NULL;
	if (!a->metric)
		return 0;
	char **names = NULL;
	size_t nnames = 0;
	int rc = series_names(s, a->repo, a->branch, a->workload, &names, &nnames);
	if (rc)
		tg_cli_error("%s", tg_error_last());
	else if (nnames && (rc = tg_history_metric_resolve(out, a->metric, (const char *const *)names, nnames)))
		tg_cli_error("history: %s on %s: %s", a->repo, a->branch, tg_error_last());
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* The branch's points (*p, *n, in first-parent order) and the pull
 * requests' runs into it (*prs, *nprs) for metric. Prints its error; the
 * caller frees both with tg_history_free. */
static int load_points(tg_history_point **p, size_t *n, tg_history_point **prs, size_t *nprs, tg_store *s,
                       const tg_config *cfg, const struct history_args *a, const char *metric)
{
	int rc = tg_store_history(p, n, s, a->repo, a->branch, a->workload, metric, a->limit);
	/* the pull requests' runs into the branch, marked on the page */
	if (!rc)
		rc = tg_store_history_prs(prs, nprs, s, a->repo, a->branch, a->workload, metric, a->limit);
	if (rc) {
		tg_cli_error("%s", tg_error_last());
		return rc;
	}
	const tg_config_repo *r = tg_config_find_repo(cfg, a->repo);
	char (*fp)[41] = NULL; /* the order is best effort: the mirror may be missing or unreadable */
	size_t nfp = 0;
	if (!tg_git_first_parent_chain(&fp, &nfp, cfg->state_dir, a->repo, r ? r->clone_url : NULL, a->branch,
	                               TG_HISTORY_CHAIN_MAX))
		tg_history_order_by_chain(*p, *n, (const char (*)[41])fp, nfp);
	free(fp);
	return 0;
}

/* A set of names, kept in the order first seen. */
struct names {
	char **v;
	size_t n;
};

static void names_add(struct names *l, const char *s)
{
	if (!s || !*s)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return;
	char **v = realloc(l->v, (l->n + 1) * sizeof(char *));
	if (!v)
		return;
	l->v = v;
	if ((l->v[l->n] = strdup(s)))
		l->n++;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names, sorted, joined with ", " into buf ("none" when empty). */
static void names_join(char *buf, size_t cap, struct names *l)
{
	qsort(l->v, l->n, sizeof(char *), cmp_name);
	size_t o = 0;
	buf[0] = 0;
	for (size_t i = 0; i < l->n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", l->v[i]);
	if (!l->n)
		snprintf(buf, cap, "none");
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* Whether a->repo and a->branch name something the configuration or the
 * store knows: a configured repository, or one with runs; a target branch
 * of it, or a branch with runs (or with pull requests' runs into it).
 * Asked only when nothing was found, so that a typo (--branch mian) is an
 * error listing what there is rather than an empty history. Returns 0, or
 * -1 after printing the error. */
static int check_known(tg_store *s, const tg_config *cfg, const struct history_args *a)
{
	struct names repos = {0}, branches = {0};
	tg_job *jobs = NULL;
	size_t nj = 0;
	if (tg_store_jobs_list(&jobs, &nj, s, 1u << TG_JOB_DONE)) {
		tg_cli_error("%s", tg_error_last());
		return -1;
	}
	for (size_t i = 0; i < cfg->nrepos; i++) {
		names_add(&repos, cfg->repos[i].name);
		for (size_t k = 0; !strcmp(cfg->repos[i].name, a->repo) && k < cfg->repos[i].ntarget_branches; k++)
			names_add(&branches, cfg->repos[i].target_branches[k]);
	}
	for (size_t i = 0; i < nj; i++) {
		if (tg_store_trusted_only(s) && !jobs[i].trusted && jobs[i].pr <= 0)
			continue; /* not in any history (docs/security.md) */
		names_add(&repos, jobs[i].repo);
		if (strcmp(jobs[i].repo, a->repo))
			continue;
		names_add(&branches, jobs[i].pr > 0 ? jobs[i].target_branch : jobs[i].branch);
	}
	tg_store_jobs_free(jobs, nj);
	int known_repo = 0, known_branch = 0;
	for (size_t i = 0; i < repos.n; i++)
		known_repo |= !strcmp(repos.v[i], a->repo);
	for (size_t i = 0; i < branches.n; i++)
		known_branch |= !strcmp(branches.v[i], a->branch);
	char list[4096];
	if (!known_repo) {
		names_join(list, sizeof(list), &repos);
		tg_cli_error("history: no repository %s in the configuration or the store; known repositories: %s", a->repo,
		             list);
	} else if (!known_branch) {
		names_join(list, sizeof(list), &branches);
		tg_cli_error("history: no branch %s of %s in the configuration or the store; known branches: %s", a->branch,
		             a->repo, list);
	}
	names_free(&repos);
	names_free(&branches);
	return known_repo && known_branch ? 0 : -1;
}

/* Writes the history in a->fmt to a->out (or stdout), complete or not at
 * all, with the repository's rules' units and thresholds when they load
 * (the numbers are shown without them otherwise). TG_EXIT_OK or
 * TG_EXIT_USAGE, its error printed. */
static int render(const tg_config *cfg, const struct history_args *a, const tg_history_point *p, size_t n,
                  const tg_history_point *prs, size_t nprs, const tg_job *tampered, size_t ntampered)
{
	tg_rules *rules = NULL;
	const tg_config_repo *cr = tg_config_find_repo(cfg, a->repo);
	if (cr && (cr->rules ? tg_rules_load_file(&rules, cr->rules) : tg_rules_load_default(&rules)))
		rules = NULL;
	tg_history_opts hopts = {.changes = a->changes,
	                         .info = tg_history_rules_info,
	                         .ctx = rules,
	                         .prs = prs,
	                         .nprs = nprs,
	                         .tampered = tampered,
	                         .ntampered = ntampered};
	char *doc = NULL;
	size_t len = 0;
	int ex = TG_EXIT_USAGE;
	FILE *f = open_memstream(&doc, &len);
	if (f) {
		int wr = tg_history_write_ex(f, a->fmt, a->repo, a->branch, p, n, &hopts);
		if (fclose(f) || wr)
			tg_cli_error("history: %s", tg_error_last());
		else {
			if (!n)
				fprintf(stderr, "tracegate: no history for %s on %s%s%s\n", a->repo, a->branch,
				        a->metric ? " matching " : "", a->metric ? a->metric : "");
			if (tg_cli_write_file(a->out, doc, len) == 0)
				ex = TG_EXIT_OK;
		}
	}
	free(doc);
	tg_rules_free(rules);
	return ex;
}

/* Moves the runs of workload (NULL: every one) to the front of t[0..n);
 * returns how many. */
static size_t keep_workload(tg_job *t, size_t n, const char *workload)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!workload || !strcmp(t[i].workload, workload)) {
			tg_job x = t[k];
			t[k++] = t[i];
			t[i] = x;
		}
	return k;
}

int tg_cmd_history(int argc, char **argv)
{
	struct history_args a = {.fmt = TG_HISTORY_TEXT};
	int exit_code;
	if (tg_opt_parse_cli(&exit_code, &tg_cmd_history_opts, &a, argc, argv))
		return exit_code;
	if (a.changes && a.fmt == TG_HISTORY_CSV) { /* csv has no place for them */
		tg_cli_error("history: --changes goes with --format text, json or html");
		return TG_EXIT_USAGE;
	}
	tg_config *cfg;
	/* the database is all this reads: no S3 key, no forge token needed */
	if (tg_config_load_file_for(&cfg, a.config, TG_CONFIG_DATABASE_ONLY)) {
		tg_cli_error("%s", tg_error_last());
		return TG_EXIT_USAGE;
	}
	tg_store *s = NULL;
	if (open_store(&s, cfg)) {
		tg_cli_error("%s", tg_error_last());
		tg_config_free(cfg);
		return TG_EXIT_USAGE;
	}
	tg_history_point *p = NULL, *prs = NULL;
	size_t n = 0, nprs = 0, nt = 0;
	tg_job *tampered = NULL;
	char *resolved = NULL;
	int ex = TG_EXIT_USAGE;
	if (!resolve_metric(&resolved, s, &a) &&
	    !load_points(&p, &n, &prs, &nprs, s, cfg, &a, resolved ? resolved : a.metric) &&
	    (n || nprs || !check_known(s, cfg, &a))) {
		/* the branch's runs whose files no longer match what was judged */
		if (tg_store_tampered(&tampered, &nt, s, a.repo, a.branch))
			tg_cli_error("%s", tg_error_last());
		else
			ex = render(cfg, &a, p, n, prs, nprs, tampered, keep_workload(tampered, nt, a.workload));
	}
	tg_store_jobs_free(tampered, nt);
	free(resolved);
	tg_history_free(p, n);
	tg_history_free(prs, nprs);
	tg_store_close(s);
	tg_config_free(cfg);
	return ex;
}
