/*
 * publish.c - the history's pages and index, written to a folder or a
 * bucket after every judged run (publish.h).
 *
 * The index lists the change points of every branch and workload. Finding
 * them reads a branch's history, so each finding is kept (the cache, keyed
 * by repository, branch and workload, with the latest run it was computed
 * for): an index after a judged run recomputes only the branch that run
 * changed, and a branch another daemon (sharing the store) judged is
 * recomputed when its latest run is not the one kept.
 */
#include "publish.h"
#include "history/history_changes.h"
#include "history/history_index.h"
#include "git/git.h"
#include "history/history_order.h"
#include "history/history_render.h"
#include "history/history_rules.h"
#include "../util/log.h"
#include "repos.h"
#include "../util/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The change points of one branch and workload, and its last run on its
 * page, as last computed. */
struct cached {
	char *repo, *branch, *workload;
	int64_t run; /* the latest run (by time) of the points they come from */
	size_t nchanges;
	char change[256]; /* the latest in words, "" when none */
	/* the last run in the page's order (the branch's first-parent order:
	 * runs uploaded in the same second are not told apart by time) */
	char commit[41];
	int64_t run_time, pr;
	char verdict[16]; /* "" when none */
};

struct tg_publish {
	tg_s3 *s3; /* a bucket, or NULL for a folder */
	struct cached *c;
	size_t nc, capc;
};

/* ------------------------------------------------------------ writing */

/* mkdir path with mode 0755 (not the umask's: a web server reads it)
 * when it does not exist. */
static int make_public_dir(const char *path)
{
	struct stat st;
	if (!stat(path, &st))
		return S_ISDIR(st.st_mode) ? 0 : tg_error_set(TG_EIO, "%s: not a folder", path);
	if ((mkdir(path, 0755) && errno != EEXIST) || chmod(path, 0755))
		return tg_error_set(TG_EIO, "%s: cannot create: %s", path, strerror(errno));
	return 0;
}

/* Writes rel ("index.html", "acme/llm/main.html") whole: a folder's file
 * by rename (its folders made), or a bucket's object by PUT. */
static int put(tg_daemon *d, const char *rel, const char *data, size_t len)
{
	const tg_config *c = d->cfg;
	if (d->publish->s3) {
		char key[PATH_MAX];
		snprintf(key, sizeof(key), "%s%s", c->history_publish_s3_prefix, rel);
		return tg_s3_put(d->publish->s3, key, data, len, "text/html; charset=utf-8");
	}
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", c->history_publish, rel) >= sizeof(path))
		return tg_error_set(TG_EINVAL, "%s/%s: path too long", c->history_publish, rel);
	/* the folders between the publish folder and the file */
	for (char *s = path + strlen(c->history_publish) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		int rc = make_public_dir(path);
		*s = '/';
		if (rc)
			return rc;
	}
	if (tg_util_write_atomic(path, data, len, 0644))
		return tg_error_set(TG_EIO, "%s: %s", path, strerror(errno));
	return 0;
}

/* Where publishing goes, for messages. */
static void where(char *buf, size_t cap, const tg_config *c)
{
	if (c->history_publish)
		snprintf(buf, cap, "%s", c->history_publish);
	else
		snprintf(buf, cap, "s3://%s/%s", c->history_publish_s3_bucket, c->history_publish_s3_prefix);
}

/* ------------------------------------------------------------ change points */

static struct cached *cache_find(struct tg_publish *p, const char *repo, const char *branch, const char *workload)
{
	for (size_t i = 0; i < p->nc; i++)
		if (!strcmp(p->c[i].repo, repo) && !strcmp(p->c[i].branch, branch) &&
		    !strcmp(p->c[i].workload, workload))
			return &p->c[i];
	return NULL;
}

static struct cached *cache_add(struct tg_publish *p, const char *repo, const char *branch, const char *workload)
{
	struct cached *e = cache_find(p, repo, branch, workload);
	if (e)
		return e;
	if (tg_grow((void **)&p->c, &p->capc, p->nc + 1, sizeof(*p->c)))
		return NULL;
	e = &p->c[p->nc];
	memset(e, 0, sizeof(*e));
	if (!(e->repo = strdup(repo)) || !(e->branch = strdup(branch)) || !(e->workload = strdup(workload))) {
		free(e->repo);
		free(e->branch);
		free(e->workload);
		return NULL;
	}
	p->nc++;
	return e;
}

/* 1 when p[i] is the first point of its workload in p. */
static int first_of_workload(const tg_history_point *p, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(p[j].workload, p[i].workload))
			return 0;
	return 1;
}

/* The change points of the branch's points p (every workload of it, in
 * the page's order) into the cache: per workload their count, the latest
 * in words, and the latest run (by time) they were found on. */
/* The page's last run of a workload (shown) into e, its verdict read from
 * the store. */
static int cache_shown(struct cached *e, tg_store *store, const tg_history_point *shown)
{
	tg_job j;
	int rc = tg_store_job_get(&j, store, shown->run);
	if (rc)
		return rc;
	snprintf(e->commit, sizeof(e->commit), "%s", shown->commit);
	e->run_time = shown->run_time;
	e->pr = j.pr;
	snprintf(e->verdict, sizeof(e->verdict), "%s", j.verdict ? j.verdict : "");
	tg_job_clear(&j);
	return 0;
}

static int cache_changes(tg_daemon *d, const char *repo, const char *branch, const tg_history_point *p, size_t n,
                         const tg_history_change *ch, size_t nch)
{
	struct tg_publish *pub = d->publish;
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		if (!first_of_workload(p, i))
			continue;
		struct cached *e = cache_add(pub, repo, branch, p[i].workload);
		if (!e) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			break;
		}
		const tg_history_point *last = &p[i], *shown = &p[i];
		for (size_t j = i + 1; j < n; j++) {
			if (strcmp(p[j].workload, p[i].workload))
				continue;
			shown = &p[j];
			if (p[j].run_time > last->run_time || (p[j].run_time == last->run_time && p[j].run > last->run))
				last = &p[j];
		}
		const tg_history_change *best = NULL;
		e->nchanges = 0;
		for (size_t c = 0; c < nch; c++) {
			if (strcmp(ch[c].workload, p[i].workload))
				continue;
			e->nchanges++;
			if (!best || ch[c].runs_ago < best->runs_ago ||
			    (ch[c].runs_ago == best->runs_ago && fabs(ch[c].pct) > fabs(best->pct)))
				best = &ch[c];
		}
		e->change[0] = 0;
		if (best)
			snprintf(e->change, sizeof(e->change), "latest: %s %+.1f %% at %.7s, %zu run%s ago",
			         best->metric, best->pct, best->at->commit, best->runs_ago,
			         best->runs_ago == 1 ? "" : "s");
		e->run = -1;
		if ((rc = cache_shown(e, d->store, shown)))
			break;
		e->run = last->run;
	}
	return rc;
}

/* ------------------------------------------------------------ pages */

/* The history of branch of repository ri (the latest history.runs runs of
 * each series, in first-parent order) and the pull requests' runs into it.
 * The caller frees both (tg_history_free). */
static int load_points(tg_history_point **p, size_t *n, tg_history_point **prs, size_t *nprs, tg_daemon *d, size_t ri,
                       const char *branch)
{
	const tg_config_repo *r = &d->cfg->repos[ri];
	size_t limit = (size_t)d->cfg->history_runs;
	*prs = NULL;
	*nprs = 0;
	int rc = tg_store_history(p, n, d->store, r->name, branch, NULL, NULL, limit);
	if (!rc && (rc = tg_store_history_prs(prs, nprs, d->store, r->name, branch, NULL, NULL, limit))) {
		tg_history_free(*p, *n);
		*p = NULL;
		*n = 0;
	}
	char (*fp)[41] = NULL; /* the order is best effort: the mirror may be missing or unreadable */
	size_t nfp = 0;
	if (!rc && !tg_git_first_parent_chain(&fp, &nfp, d->cfg->state_dir, r->name, r->clone_url, branch,
	                                      TG_HISTORY_CHAIN_MAX))
		tg_history_order_by_chain(*p, *n, (const char (*)[41])fp, nfp);
	free(fp);
	return rc;
}

/* Writes the page of branch of repository ri, and keeps its change
 * points for the index; a branch without a point in its history (an
 * untrusted run's, under a signing key) gets no page. */
static int publish_branch(tg_daemon *d, size_t ri, const char *branch)
{
	const tg_config_repo *r = &d->cfg->repos[ri];
	tg_history_point *p = NULL, *prs = NULL;
	size_t n = 0, nprs = 0;
	int rc = load_points(&p, &n, &prs, &nprs, d, ri, branch);
	if (rc || !n) {
		tg_history_free(p, n);
		tg_history_free(prs, nprs);
		return rc;
	}
	/* the change points found once, for the page and for the index; the
	 * branch's tampered runs listed, as tracegate history lists them */
	tg_history_change *ch = NULL;
	tg_job *tampered = NULL;
	size_t nch = 0, nt = 0;
	if (!(rc = tg_history_changes_find(&ch, &nch, p, n)))
		rc = tg_store_tampered(&tampered, &nt, d->store, r->name, branch);
	tg_history_opts o = {.changes = 1,
	                     .info = tg_history_rules_info,
	                     .ctx = d->rules[ri],
	                     .prs = prs,
	                     .nprs = nprs,
	                     .tampered = tampered,
	                     .ntampered = nt,
	                     .index_href = "../../index.html",
	                     .found = ch,
	                     .nfound = nch};
	char *html = NULL, rel[PATH_MAX], file[TG_HISTORY_PAGE_FILE_MAX];
	size_t len = 0;
	FILE *f = NULL;
	if (!rc && !(f = open_memstream(&html, &len)))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	else if (f && ((rc = tg_history_write_ex(f, TG_HISTORY_HTML, r->name, branch, p, n, &o)) | fclose(f)))
		rc = rc ? rc : tg_error_set(TG_ENOMEM, "out of memory");
	tg_history_page_file(file, branch);
	snprintf(rel, sizeof(rel), "%s/%s", r->name, file);
	if (!rc && !(rc = put(d, rel, html, len))) {
		tg_metrics_add(d->metrics, TG_DM_PAGES_PUBLISHED, NULL, NULL, 1);
		rc = cache_changes(d, r->name, branch, p, n, ch, nch);
	}
	free(ch);
	tg_store_jobs_free(tampered, nt);
	free(html);
	tg_history_free(p, n);
	tg_history_free(prs, nprs);
	return rc;
}

/* The index's row of b (a branch and workload of repository ri), its
 * change points from the cache (computed when the kept ones are of
 * another latest run). */
static int index_row(tg_history_index_row *row, tg_daemon *d, size_t ri, const tg_store_branch *b)
{
	const char *repo = d->cfg->repos[ri].name;
	const struct cached *e = cache_find(d->publish, repo, b->branch, b->workload);
	if (!e || e->run != b->run) {
		tg_history_point *p = NULL, *prs = NULL;
		size_t n = 0, nprs = 0;
		tg_history_change *ch = NULL;
		size_t nch = 0;
		int rc = load_points(&p, &n, &prs, &nprs, d, ri, b->branch);
		if (!rc && !(rc = tg_history_changes_find(&ch, &nch, p, n)))
			rc = cache_changes(d, repo, b->branch, p, n, ch, nch);
		free(ch);
		tg_history_free(p, n);
		tg_history_free(prs, nprs);
		if (rc)
			return rc;
		e = cache_find(d->publish, repo, b->branch, b->workload);
	}
	*row = (tg_history_index_row){repo,        b->branch,  b->workload, b->runs, b->commit,
	                              b->run_time, b->verdict, b->pr,       0,       NULL};
	if (e) { /* the last run on the page, and the page's change points */
		row->commit = e->commit;
		row->run_time = e->run_time;
		row->verdict = e->verdict[0] ? e->verdict : NULL;
		row->pr = e->pr;
		row->nchanges = e->nchanges;
		row->change = e->change[0] ? e->change : NULL;
	}
	return 0;
}

/* Writes the index of every repository's branches (after their pages). */
static int publish_index(tg_daemon *d)
{
	tg_store_branch **bs = tg_calloc(d->cfg->nrepos + 1, sizeof(*bs));
	size_t *nb = tg_calloc(d->cfg->nrepos + 1, sizeof(*nb)), nrows = 0, k = 0;
	int rc = bs && nb ? 0 : TG_ENOMEM;
	for (size_t ri = 0; !rc && ri < d->cfg->nrepos; ri++)
		if (!(rc = tg_store_branches(&bs[ri], &nb[ri], d->store, d->cfg->repos[ri].name)))
			nrows += nb[ri];
	tg_history_index_row *rows = rc ? NULL : tg_calloc(nrows + 1, sizeof(*rows));
	if (!rc && !rows)
		rc = TG_ENOMEM;
	for (size_t ri = 0; !rc && ri < d->cfg->nrepos; ri++)
		for (size_t i = 0; !rc && i < nb[ri]; i++)
			rc = index_row(&rows[k++], d, ri, &bs[ri][i]);
	char *html = NULL;
	size_t len = 0;
	FILE *f = rc ? NULL : open_memstream(&html, &len);
	if (!rc && !f)
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	if (f && ((rc = tg_history_index_write(f, rows, k, (int64_t)time(NULL))) | fclose(f)))
		rc = rc ? rc : tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc && !(rc = put(d, "index.html", html, len)))
		tg_metrics_add(d->metrics, TG_DM_PAGES_PUBLISHED, NULL, NULL, 1);
	free(html);
	free(rows);
	for (size_t ri = 0; bs && nb && ri < d->cfg->nrepos; ri++)
		tg_store_branches_free(bs[ri], nb[ri]);
	free(bs);
	free(nb);
	return rc;
}

/* ------------------------------------------------------------ the interface */

static void failed(tg_daemon *d, const char *what)
{
	char w[PATH_MAX + 64];
	where(w, sizeof(w), d->cfg);
	tg_log(TG_LOG_WARN, "history: publishing %s to %s: %s (tried again after the next judged run)", what, w,
	       tg_error_last());
	tg_metrics_add(d->metrics, TG_DM_PUBLISH_ERRORS, NULL, NULL, 1);
}

int tg_daemon_publish_open(tg_daemon *d)
{
	const tg_config *c = d->cfg;
	if (!c->history_publish && !c->history_publish_s3_bucket)
		return 0;
	if (!(d->publish = tg_calloc(1, sizeof(*d->publish))))
		return TG_ENOMEM;
	if (c->history_publish) {
		char failed_at[PATH_MAX];
		if (tg_util_mkdir_p(failed_at, sizeof(failed_at), c->history_publish, 0755))
			return tg_error_set(TG_EIO, "%s: history.publish: %s: cannot create: %s", c->path, failed_at,
			                    strerror(errno));
		return 0;
	}
	const tg_config_storage *s = &c->storage;
	tg_s3_opts o;
	memset(&o, 0, sizeof(o));
	o.endpoint = s->s3_endpoint;
	o.bucket = c->history_publish_s3_bucket;
	o.region = s->s3_region;
	o.access_key = s->s3_access_key.value;
	o.secret_key = s->s3_secret_key.value;
	o.http.ca_file = s->ca_file;
	o.http.insecure = !s->tls_verify;
	o.http.timeout_ms = (long)c->http_timeout_ms;
	o.http.connect_timeout_ms = (long)c->http_connect_timeout_ms;
	o.http.max_attempts = c->http_retries;
	o.http.backoff_ms = (long)c->http_backoff_ms;
	o.http.max_wait_ms = (long)c->http_max_wait_ms;
	if (d->http_ctx) { /* counted with the storage's requests */
		o.http.observe = tg_daemon_http_observer;
		o.http.observe_ctx = &d->http_ctx[c->nforges];
	}
	return tg_s3_new(&d->publish->s3, &o);
}

void tg_daemon_publish_close(tg_daemon *d)
{
	struct tg_publish *p = d->publish;
	if (!p)
		return;
	tg_s3_free(p->s3);
	for (size_t i = 0; i < p->nc; i++) {
		free(p->c[i].repo);
		free(p->c[i].branch);
		free(p->c[i].workload);
	}
	free(p->c);
	free(p);
	d->publish = NULL;
}

void tg_daemon_publish_run(tg_daemon *d, const tg_job *j)
{
	size_t ri = 0;
	if (!d->publish || !tg_daemon_repo(&ri, d, j->repo))
		return;
	char what[600];
	snprintf(what, sizeof(what), "%.200s %.300s", j->repo, j->branch);
	int rc = publish_branch(d, ri, j->branch);
	if (rc)
		failed(d, what);
	if (j->pr > 0 && j->target_branch && *j->target_branch && strcmp(j->target_branch, j->branch)) {
		snprintf(what, sizeof(what), "%.200s %.300s", j->repo, j->target_branch);
		if (publish_branch(d, ri, j->target_branch))
			failed(d, what);
	}
	if (publish_index(d))
		failed(d, "the index");
	else
		tg_log(TG_LOG_DEBUG, "job %lld: history published: %s %s and the index", (long long)j->id, j->repo,
		       j->branch);
}

void tg_daemon_publish_all(tg_daemon *d)
{
	if (!d->publish)
		return;
	size_t pages = 0;
	for (size_t ri = 0; ri < d->cfg->nrepos; ri++) {
		tg_store_branch *b = NULL;
		size_t n = 0;
		if (tg_store_branches(&b, &n, d->store, d->cfg->repos[ri].name)) {
			failed(d, d->cfg->repos[ri].name);
			continue;
		}
		for (size_t i = 0; i < n && !(d->o.stop && *d->o.stop); i++) {
			if (i && !strcmp(b[i].branch, b[i - 1].branch))
				continue; /* one page per branch, whatever its workloads */
			char what[600];
			snprintf(what, sizeof(what), "%.200s %.300s", d->cfg->repos[ri].name, b[i].branch);
			if (publish_branch(d, ri, b[i].branch))
				failed(d, what);
			else
				pages++;
		}
		tg_store_branches_free(b, n);
	}
	if (publish_index(d))
		failed(d, "the index");
	char w[PATH_MAX];
	where(w, sizeof(w), d->cfg);
	tg_log(TG_LOG_INFO, "history: %zu branch page%s and the index published to %s", pages, pages == 1 ? "" : "s",
	       w);
}
