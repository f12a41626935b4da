/*
 * store.c - the job store's interface: picks the backend from the url,
 * migrates the schema, checks every argument, and owns the rules of the
 * state machine (which transitions exist, which release the lease), so
 * that store_sqlite.c and store_pg.c only run SQL. What the backends share
 * below it (rows to structs, state names) is store_rows.c's.
 */
#include "store_impl.h"
#include "../../util/tg.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static const char *const verdicts[] = {"pass", "warn", "block", "inconclusive", "error"};

static int64_t store_now(const tg_store *s)
{
	return s->fixed_now ? s->fixed_now : (int64_t)time(NULL);
}

void tg_store_debug_set_time(tg_store *s, int64_t now)
{
	s->fixed_now = now;
}

int tg_store_debug_exec(tg_store *s, const char *sql)
{
	return s->ops->exec_script(s, sql);
}

/* ------------------------------------------------------------------ open */

/* A libpq connection string: a postgres URI or "keyword=value ..." text. */
static int is_pg_url(const char *url)
{
	if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11))
		return 1;
	const char *p = url;
	while (isspace((unsigned char)*p))
		p++;
	const char *word = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == word)
		return 0;
	while (isspace((unsigned char)*p))
		p++;
	return *p == '=';
}

static int schema_newer(tg_store *s, int version, int latest)
{
	return tg_error_set(TG_EFORMAT,
	                    "store %s: schema version %d is newer than this tracegate knows (%d); upgrade tracegate",
	                    s->describe, version, latest);
}

/* Applies the missing migrations, each in its own transaction. The version
 * is read again under the schema lock, so that two daemons starting
 * together apply each migration once. */
static int migrate(tg_store *s)
{
	const int latest = tg_store_migrations[tg_store_migrations_n - 1].version;
	int v = 0, rc = s->ops->version_peek(s, &v);
	if (rc)
		return rc;
	if (v == latest)
		return 0;
	if (v > latest)
		return schema_newer(s, v, latest);
	for (;;) {
		if ((rc = s->ops->tx_begin_schema(s)))
			return rc;
		if ((rc = s->ops->version_get(s, &v)))
			goto fail;
		if (v > latest) {
			rc = schema_newer(s, v, latest);
			goto fail;
		}
		if (v == latest)
			return s->ops->tx_commit(s);
		const tg_store_migration *m = &tg_store_migrations[v];
		if (m->version != v + 1) {
			rc = tg_error_set(TG_EFORMAT, "store %s: no migration to schema version %d", s->describe, v + 1);
			goto fail;
		}
		const char *sql = !strcmp(s->ops->backend, "sqlite") ? m->sqlite : m->pg;
		if ((rc = s->ops->exec_script(s, sql)) || (rc = s->ops->version_set(s, m, store_now(s))) ||
		    (rc = s->ops->tx_commit(s)))
			goto fail;
	}
fail:
	s->ops->tx_rollback(s);
	return rc;
}

int tg_store_open(tg_store **out, const char *url)
{
	*out = NULL;
	if (!url || !*url)
		return tg_error_set(TG_EINVAL, "store: no database url");
	tg_store *s = NULL;
	int rc;
	if (is_pg_url(url))
		rc = tg_store__pg_open(&s, url);
	else
		rc = tg_store__sqlite_open(&s, !strncmp(url, "sqlite:", 7) ? url + 7 : url);
	if (rc)
		return rc;
	if ((rc = migrate(s))) {
		s->ops->close(s);
		return rc;
	}
	*out = s;
	return 0;
}

void tg_store_close(tg_store *s)
{
	if (s)
		s->ops->close(s);
}

const char *tg_store_backend(const tg_store *s)
{
	return s->ops->backend;
}

/* ------------------------------------------------------------------- jobs */

static int key_ok(const char *key)
{
	if (!key || strlen(key) != 64)
		return 0;
	for (const char *p = key; *p; p++)
		if (!isdigit((unsigned char)*p) && !(*p >= 'a' && *p <= 'f'))
			return 0;
	return 1;
}

static int need_text(const char *what, const char *v)
{
	if (!v || !*v)
		return tg_error_set(TG_EINVAL, "store: job without %s", what);
	return 0;
}

int tg_store_job_add(int64_t *id, int *created, tg_store *s, const tg_job *j)
{
	*id = 0;
	*created = 0;
	if (!j)
		return tg_error_set(TG_EINVAL, "store: no job to add");
	if (!key_ok(j->key))
		return tg_error_set(TG_EINVAL, "store: job key '%.80s' is not 64 lowercase hex digits", j->key);
	int rc;
	if ((rc = need_text("prefix", j->prefix)) || (rc = need_text("repo", j->repo)) ||
	    (rc = need_text("commit", j->commit)) || (rc = need_text("branch", j->branch)) ||
	    (rc = need_text("workload", j->workload)) || (rc = need_text("run id", j->run_id)) ||
	    (rc = need_text("manifest", j->manifest)))
		return rc;
	if (strlen(j->commit) > 40)
		return tg_error_set(TG_EINVAL, "store: commit '%.80s' is longer than 40 characters", j->commit);
	if (j->pr < 0)
		return tg_error_set(TG_EINVAL, "store: negative pull request number %lld", (long long)j->pr);
	return s->ops->job_add(s, j, store_now(s), id, created);
}

int tg_store_job_get(tg_job *out, tg_store *s, int64_t id)
{
	memset(out, 0, sizeof(*out));
	return s->ops->job_get(s, id, NULL, out);
}

int tg_store_job_get_by_key(tg_job *out, tg_store *s, const char *key)
{
	memset(out, 0, sizeof(*out));
	if (!key)
		return tg_error_set(TG_EINVAL, "store: no job key");
	return s->ops->job_get(s, 0, key, out);
}

static int lease_args(const char *owner, int lease_s)
{
	if (!owner || !*owner)
		return tg_error_set(TG_EINVAL, "store: lease without an owner");
	if (lease_s <= 0)
		return tg_error_set(TG_EINVAL, "store: lease of %d s (must be positive)", lease_s);
	return 0;
}

int tg_store_job_claim(tg_job *out, tg_store *s, const char *owner, int lease_s)
{
	memset(out, 0, sizeof(*out));
	int rc = lease_args(owner, lease_s);
	if (rc)
		return rc;
	int64_t now = store_now(s);
	return s->ops->job_claim(s, owner, now, now + lease_s, 0, out);
}

int tg_store_job_claim_id(tg_job *out, tg_store *s, int64_t id, const char *owner, int lease_s)
{
	memset(out, 0, sizeof(*out));
	int rc = lease_args(owner, lease_s);
	if (rc)
		return rc;
	if (id <= 0)
		return tg_error_set(TG_EINVAL, "store: no job %lld", (long long)id);
	int64_t now = store_now(s);
	return s->ops->job_claim(s, owner, now, now + lease_s, id, out);
}

int tg_store_job_renew(tg_store *s, int64_t id, const char *owner, int lease_s)
{
	int rc = lease_args(owner, lease_s);
	if (rc)
		return rc;
	int64_t now = store_now(s);
	return s->ops->job_renew(s, id, owner, now, now + lease_s);
}

int tg_store_leases(tg_lease **out, size_t *n, tg_store *s)
{
	*out = NULL;
	*n = 0;
	return s->ops->leases(s, store_now(s), out, n);
}

int tg_store_lease_expire(tg_store *s, int64_t id, const char *owner)
{
	if (!owner || !*owner)
		return tg_error_set(TG_EINVAL, "store: a lease to expire needs its owner");
	return s->ops->lease_expire(s, id, owner, store_now(s));
}

int tg_store_job_release(tg_store *s, int64_t id, const char *owner)
{
	if (!owner || !*owner)
		return tg_error_set(TG_EINVAL, "store: a release needs an owner");
	return s->ops->job_release(s, id, owner, store_now(s));
}

/* The edges of the state machine: forward one step, or from any unfinished
 * state to failed. */
static int transition_ok(tg_job_state from, tg_job_state to)
{
	if (from >= TG_JOB_DONE)
		return 0;
	return to == TG_JOB_FAILED || (int)to == (int)from + 1;
}

int tg_store_job_advance(tg_store *s, int64_t id, const char *owner, tg_job_state from, tg_job_state to,
                         const char *error)
{
	if (!owner || !*owner)
		return tg_error_set(TG_EINVAL, "store: advance without an owner");
	if ((unsigned)from >= TG_STORE_NSTATES || (unsigned)to >= TG_STORE_NSTATES || !transition_ok(from, to))
		return tg_error_set(TG_EINVAL, "store: job %lld: no transition from %s to %s", (long long)id,
		                    tg_job_state_name(from), tg_job_state_name(to));
	int release = to == TG_JOB_DONE || to == TG_JOB_FAILED;
	return s->ops->job_advance(s, id, owner, tg_job_state_name(from), tg_job_state_name(to), release, error,
	                           store_now(s));
}

int tg_store_job_set_result(tg_store *s, int64_t id, const tg_job *j)
{
	if (!j)
		return tg_error_set(TG_EINVAL, "store: no result");
	if (j->verdict) {
		size_t i = 0;
		while (i < sizeof(verdicts) / sizeof(verdicts[0]) && strcmp(j->verdict, verdicts[i]))
			i++;
		if (i == sizeof(verdicts) / sizeof(verdicts[0]))
			return tg_error_set(TG_EINVAL, "store: unknown verdict '%.40s'", j->verdict);
	}
	if (j->baseline_distance < -1)
		return tg_error_set(TG_EINVAL, "store: baseline distance %d", j->baseline_distance);
	return s->ops->job_set_result(s, id, j, store_now(s));
}

int tg_store_jobs_list(tg_job **out, size_t *n, tg_store *s, unsigned states)
{
	*out = NULL;
	*n = 0;
	if (states >> TG_STORE_NSTATES)
		return tg_error_set(TG_EINVAL, "store: state mask 0x%x names unknown states", states);
	if (!states)
		return 0;
	const char *names[TG_STORE_NSTATES];
	for (int i = 0; i < TG_STORE_NSTATES; i++)
		names[i] = states & (1u << i) ? tg_job_state_name((tg_job_state)i) : NULL;
	return s->ops->jobs_list(s, names, out, n);
}

/* ---------------------------------------------------------------- history */

int tg_store_metrics_put(tg_store *s, int64_t id, const tg_metric *m, size_t n)
{
	if (n && !m)
		return tg_error_set(TG_EINVAL, "store: no metrics");
	for (size_t i = 0; i < n; i++) {
		if (!m[i].name || !*m[i].name)
			return tg_error_set(TG_EINVAL, "store: metric %zu has no name", i);
		if (!isfinite(m[i].value))
			return tg_error_set(TG_EINVAL, "store: metric %s is not a finite number", m[i].name);
	}
	return s->ops->metrics_put(s, id, m, n);
}

void tg_store_set_trusted_only(tg_store *s, int on)
{
	s->trusted_only = on != 0;
}

int tg_store_trusted_only(const tg_store *s)
{
	return s->trusted_only;
}

int tg_store_find_run(tg_job *out, tg_store *s, const char *repo, const char *commit, const char *workload,
                      int trusted_only)
{
	memset(out, 0, sizeof(*out));
	if (!repo || !commit || !workload)
		return tg_error_set(TG_EINVAL, "store: find_run needs repo, commit and workload");
	return s->ops->find_run(s, repo, commit, workload, trusted_only != 0, out);
}

int tg_store_find_runs(tg_job **out, size_t *n, tg_store *s, const char *repo, const char *commit, const char *workload,
                       size_t limit, int trusted_only)
{
	*out = NULL;
	*n = 0;
	if (!repo || !commit || !workload || !limit)
		return tg_error_set(TG_EINVAL, "store: find_runs needs repo, commit, workload and a limit");
	return s->ops->find_runs(s, repo, commit, workload, (int64_t)limit, trusted_only != 0, out, n);
}

/* tg_store_history (prs 0) and tg_store_history_prs (prs 1). */
static int history(tg_history_point **out, size_t *n, tg_store *s, int prs, const char *repo, const char *branch,
                   const char *workload, const char *metric, size_t limit)
{
	*out = NULL;
	*n = 0;
	if (!repo || !branch)
		return tg_error_set(TG_EINVAL, "store: history needs repo and branch");
	/* "kernel_time_ms:*" is every metric whose name starts with
	 * "kernel_time_ms:"; only a trailing '*' is special. */
	char *prefix = NULL;
	size_t len = metric ? strlen(metric) : 0;
	if (len && metric[len - 1] == '*') {
		if (!(prefix = tg_malloc(len)))
			return TG_ENOMEM;
		memcpy(prefix, metric, len - 1);
		prefix[len - 1] = '\0';
		metric = NULL;
	}
	int64_t lim = limit > (size_t)INT64_MAX ? INT64_MAX : (int64_t)limit;
	int rc = s->ops->history(s, prs, repo, branch, workload, metric, prefix && *prefix ? prefix : NULL, lim, out, n);
	free(prefix);
	return rc;
}

int tg_store_history(tg_history_point **out, size_t *n, tg_store *s, const char *repo, const char *branch,
                     const char *workload, const char *metric, size_t limit)
{
	return history(out, n, s, 0, repo, branch, workload, metric, limit);
}

int tg_store_history_prs(tg_history_point **out, size_t *n, tg_store *s, const char *repo, const char *branch,
                         const char *workload, const char *metric, size_t limit)
{
	return history(out, n, s, 1, repo, branch, workload, metric, limit);
}

int tg_store_count_jobs(tg_store_counts *out, tg_store *s)
{
	memset(out, 0, sizeof(*out));
	int rc = s->ops->count_jobs(s, out);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

int tg_store_branches(tg_store_branch **out, size_t *n, tg_store *s, const char *repo)
{
	*out = NULL;
	*n = 0;
	if (!repo)
		return tg_error_set(TG_EINVAL, "store: branches needs a repository");
	return s->ops->branches(s, repo, out, n);
}

int tg_store_prune(size_t *deleted, tg_store *s, int64_t before)
{
	if (deleted)
		*deleted = 0;
	int64_t d = 0;
	int rc = s->ops->prune(s, before, &d);
	if (!rc && deleted)
		*deleted = (size_t)d;
	if (!rc) /* then the run data no run names any more (store_data.c) */
		rc = s->ops->prune_data(s, before);
	return rc;
}
