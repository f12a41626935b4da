/*
 * store.c - the job store's interface: picks the backend from the url,
 * migrates the schema, checks every argument, and owns the rules of the
 * state machine (which transitions exist, which release the lease), so
 * that store_sqlite.c and store_pg.c only run SQL.
 */
#include "store_impl.h"
#include "../../core/tg.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const state_names[] = {"seen", "analysing", "posting", "done", "failed"};
#define NSTATES 5

static const char *const verdicts[] = {"pass", "warn", "block", "inconclusive", "error"};

const char *tg_job_state_name(tg_job_state s)
{
	return (unsigned)s < NSTATES ? state_names[s] : "unknown";
}

static int state_from_name(const char *name, tg_job_state *out)
{
	for (int i = 0; i < NSTATES; i++)
		if (name && !strcmp(name, state_names[i])) {
			*out = (tg_job_state)i;
			return 0;
		}
	return -1;
}

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

void tg_job_clear(tg_job *j)
{
	if (!j)
		return;
	free(j->prefix);
	free(j->repo);
	free(j->commit);
	free(j->branch);
	free(j->target_branch);
	free(j->workload);
	free(j->run_id);
	free(j->manifest);
	free(j->error);
	free(j->verdict);
	free(j->summary);
	free(j->baseline_commit);
	memset(j, 0, sizeof(*j));
}

void tg_store_jobs_free(tg_job *j, size_t n)
{
	for (size_t i = 0; j && i < n; i++)
		tg_job_clear(&j[i]);
	free(j);
}

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
	if ((unsigned)from >= NSTATES || (unsigned)to >= NSTATES || !transition_ok(from, to))
		return tg_error_set(TG_EINVAL, "store: job %lld: no transition from %s to %s", (long long)id,
		                    tg_job_state_name(from), tg_job_state_name(to));
	int release = to == TG_JOB_DONE || to == TG_JOB_FAILED;
	return s->ops->job_advance(s, id, owner, state_names[from], state_names[to], release, error,
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
	if (states >> NSTATES)
		return tg_error_set(TG_EINVAL, "store: state mask 0x%x names unknown states", states);
	if (!states)
		return 0;
	const char *names[NSTATES];
	for (int i = 0; i < NSTATES; i++)
		names[i] = states & (1u << i) ? state_names[i] : NULL;
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

int tg_store_find_run(tg_job *out, tg_store *s, const char *repo, const char *commit, const char *workload)
{
	memset(out, 0, sizeof(*out));
	if (!repo || !commit || !workload)
		return tg_error_set(TG_EINVAL, "store: find_run needs repo, commit and workload");
	return s->ops->find_run(s, repo, commit, workload, out);
}

int tg_store_find_runs(tg_job **out, size_t *n, tg_store *s, const char *repo, const char *commit, const char *workload,
                       size_t limit)
{
	*out = NULL;
	*n = 0;
	if (!repo || !commit || !workload || !limit)
		return tg_error_set(TG_EINVAL, "store: find_runs needs repo, commit, workload and a limit");
	return s->ops->find_runs(s, repo, commit, workload, (int64_t)limit, out, n);
}

void tg_history_free(tg_history_point *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].workload);
		free(p[i].metric);
	}
	free(p);
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

int tg_store_prune(size_t *deleted, tg_store *s, int64_t before)
{
	if (deleted)
		*deleted = 0;
	int64_t d = 0;
	int rc = s->ops->prune(s, before, &d);
	if (!rc && deleted)
		*deleted = (size_t)d;
	return rc;
}

/* ------------------------------------------------------- shared row logic */

static int dup_opt(char **dst, const char *v)
{
	if (!v)
		return 0;
	if (!(*dst = strdup(v)))
		return tg_error_set(TG_ENOMEM, "out of memory");
	return 0;
}

static int64_t to_i64(const char *v, int64_t dflt)
{
	return v ? (int64_t)strtoll(v, NULL, 10) : dflt;
}

int tg_store__job_from_row(tg_job *out, const char *const *v)
{
	memset(out, 0, sizeof(*out));
	out->id = to_i64(v[0], 0);
	snprintf(out->key, sizeof(out->key), "%s", v[1] ? v[1] : "");
	int rc;
	if ((rc = dup_opt(&out->prefix, v[2])) || (rc = dup_opt(&out->repo, v[3])) ||
	    (rc = dup_opt(&out->commit, v[4])) || (rc = dup_opt(&out->branch, v[5])) ||
	    (rc = dup_opt(&out->target_branch, v[6])) || (rc = dup_opt(&out->workload, v[8])) ||
	    (rc = dup_opt(&out->run_id, v[9])) || (rc = dup_opt(&out->manifest, v[10])) ||
	    (rc = dup_opt(&out->error, v[13])) || (rc = dup_opt(&out->verdict, v[14])) ||
	    (rc = dup_opt(&out->summary, v[15])) || (rc = dup_opt(&out->baseline_commit, v[16]))) {
		tg_job_clear(out);
		return rc;
	}
	out->pr = to_i64(v[7], 0);
	if (state_from_name(v[11], &out->state)) {
		rc = tg_error_set(TG_EFORMAT, "store: run %lld has unknown state '%.40s'", (long long)out->id,
		                  v[11] ? v[11] : "(null)");
		tg_job_clear(out);
		return rc;
	}
	out->attempts = (int)to_i64(v[12], 0);
	out->baseline_distance = (int)to_i64(v[17], -1);
	out->comment_id = to_i64(v[18], 0);
	out->created_at = to_i64(v[19], 0);
	out->updated_at = to_i64(v[20], 0);
	out->run_time = to_i64(v[21], 0);
	out->trusted = (int)to_i64(v[22], 0);
	return 0;
}

int tg_store__history_from_row(tg_history_point *p, const char *const *v)
{
	memset(p, 0, sizeof(*p));
	p->run = to_i64(v[0], 0);
	p->run_time = to_i64(v[1], 0);
	snprintf(p->commit, sizeof(p->commit), "%s", v[2] ? v[2] : "");
	int rc;
	if ((rc = dup_opt(&p->workload, v[3])) || (rc = dup_opt(&p->metric, v[4]))) {
		free(p->workload);
		free(p->metric);
		memset(p, 0, sizeof(*p));
		return rc;
	}
	p->value = v[TG_STORE_HISTORY_VALUE] ? strtod(v[TG_STORE_HISTORY_VALUE], NULL) : 0.0;
	p->pr = to_i64(v[6], 0);
	return 0;
}

void *tg_store__push(void **items, size_t *n, size_t *cap, size_t item_size)
{
	if (tg_grow(items, cap, *n + 1, item_size))
		return NULL;
	char *p = (char *)*items + *n * item_size;
	memset(p, 0, item_size);
	(*n)++;
	return p;
}
