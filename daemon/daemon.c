/*
 * daemon.c - the daemon's setup and its loop: scan the storage, work on the
 * jobs, wait (daemon.h).
 */
#include "daemon_impl.h"
#include "../util/log.h"
#include "publish.h"
#include "repos.h"
#include "../util/sha256.h"
#include "signature.h"
#include "../util/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PRUNE_PERIOD_S 3600

static int load_rules(tg_daemon *d)
{
	const tg_config *c = d->cfg;
	d->rules = tg_calloc(c->nrepos ? c->nrepos : 1, sizeof(tg_rules *));
	d->git = tg_calloc(c->nrepos ? c->nrepos : 1, sizeof(tg_git *));
	d->fetched = tg_calloc(c->nrepos ? c->nrepos : 1, sizeof(int64_t));
	if (!d->rules || !d->git || !d->fetched)
		return TG_ENOMEM;
	for (size_t i = 0; i < c->nrepos; i++) {
		const tg_config_repo *r = &c->repos[i];
		int rc = r->rules ? tg_rules_load_file(&d->rules[i], r->rules) : tg_rules_load_default(&d->rules[i]);
		if (rc) { /* where the file is named: the config's line and key */
			char why[1024];
			snprintf(why, sizeof(why), "%s", tg_error_last());
			/* a configuration error (exit 2), not an outage */
			return tg_error_set(rc == TG_ENOMEM ? rc : TG_EINVAL, "%s:%d: repositories[%zu].rules (%s): %s", c->path,
			                    r->line, i, r->name, why);
		}
	}
	return 0;
}

static int take_lock(tg_daemon *d)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/daemon.lock", d->cfg->state_dir);
	d->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (d->lock_fd < 0)
		return tg_error_set(TG_EIO, "%s: %s", path, strerror(errno));
	if (flock(d->lock_fd, LOCK_EX | LOCK_NB))
		return tg_error_set(TG_EIO, "%s: another tracegate daemon uses the state folder %s", path,
		                    d->cfg->state_dir);
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(d->lock_fd, 0) || write(d->lock_fd, pid, (size_t)n) != n) {
		/* the pid is informative only */
	}
	return 0;
}

/* The metrics registry, the loop's health and, with daemon.listen, the
 * endpoints that show them (docs/operations.md). */
static int open_service(tg_daemon *d)
{
	const tg_config *c = d->cfg;
	if (!(d->http_ctx = tg_calloc(c->nforges + 1, sizeof(*d->http_ctx))))
		return TG_ENOMEM;
	int64_t poll2 = 2 * c->storage.poll_interval_ms;
	tg_health_opts ho = {poll2, c->lease_ms > poll2 ? c->lease_ms : poll2, NULL, NULL};
	int rc = tg_daemon_metrics_new(&d->metrics);
	if (!rc)
		rc = tg_health_new(&d->health, &ho);
	if (rc || !c->listen_host)
		return rc;
	tg_endpoints_opts eo = {c->listen_host, c->listen_port, d->metrics, d->health, 0};
	if ((rc = tg_endpoints_start(&d->endpoints, &eo))) {
		char why[512];
		snprintf(why, sizeof(why), "%s", tg_error_last());
		return tg_error_set(rc, "%s: %s", c->path, why);
	}
	tg_log(TG_LOG_INFO, "endpoints: http://%s%s%s:%d/healthz, /readyz, /metrics", strchr(c->listen_host, ':') ? "[" : "",
	       c->listen_host, strchr(c->listen_host, ':') ? "]" : "", tg_endpoints_port(d->endpoints));
	return 0;
}

/* How the daemon reads traces: the configuration's limits. */
static tg_read_opts read_opts(const tg_config *cfg)
{
	tg_read_opts r;
	memset(&r, 0, sizeof(r));
	r.source.max_bytes = cfg->max_trace_bytes;
	r.source.max_ratio = cfg->max_ratio;
	r.max_events = cfg->max_events;
	r.max_string = cfg->max_string_bytes;
	r.max_depth = cfg->max_depth;
	return r;
}

int tg_daemon_new(tg_daemon **out, tg_config *cfg, const tg_daemon_opts *opts)
{
	*out = NULL;
	tg_daemon *d = tg_calloc(1, sizeof(*d));
	if (!d) {
		tg_config_free(cfg);
		return TG_ENOMEM;
	}
	d->cfg = cfg;
	d->lock_fd = -1;
	if (opts)
		d->o = *opts;
	tg_log_set_level(cfg->log_level);
	char host[128] = "host";
	gethostname(host, sizeof(host) - 1);
	snprintf(d->owner, sizeof(d->owner), "%s:%ld:%lld", host, (long)getpid(), (long long)time(NULL));
	d->read = read_opts(cfg);
	int rc = 0;
	if (asprintf(&d->jobs_dir, "%s/jobs", cfg->state_dir) < 0)
		d->jobs_dir = NULL;
	d->tmp_dir = strdup(cfg->tmp_dir);
	d->seen = tg_atoms_new();
	/* run data the jobs share (data_cache.c): a quarter of a job's memory,
	 * which every job's process inherits */
	if (tg_data_cache_new(&d->cache, cfg->job_memory / 4))
		d->cache = NULL;
	if (!d->jobs_dir || !d->tmp_dir || !d->seen || !d->cache)
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	/* libgit2 set up once here, not in every job's process (a failure is
	 * reported where a mirror is opened) */
	if (!rc && tg_git_init())
		tg_log(TG_LOG_DEBUG, "%s", tg_error_last());
	if (!rc)
		rc = tg_daemon_make_dirs(cfg->state_dir);
	if (!rc)
		rc = take_lock(d);
	if (!rc)
		rc = tg_daemon_make_dirs(d->jobs_dir);
	if (!rc)
		rc = tg_daemon_make_dirs(d->tmp_dir);
	if (!rc)
		rc = open_service(d);
	if (!rc)
		rc = load_rules(d);
	if (!rc)
		rc = tg_daemon_open_forges(d);
	if (!rc)
		rc = tg_daemon_open_storage(d);
	if (!rc)
		rc = tg_daemon_open_store(d);
	if (!rc)
		rc = tg_daemon_publish_open(d);
	if (rc) {
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s", tg_error_last());
		tg_daemon_free(d);
		return tg_error_set(rc, "%s", msg);
	}
	tg_log(TG_LOG_INFO, "tracegate %s: watching %s (%s), store %s, %zu repositories", TG_VERSION,
	       tg_storage_describe(d->storage), tg_storage_kind(d->storage), tg_store_backend(d->store), cfg->nrepos);
	if (!tg_daemon_budget_memory_applies())
		tg_log(TG_LOG_WARN, "daemon.job_memory is not applied: this tracegate is built with the address sanitizer (make SAN=1)");
	if (cfg->storage.signing_key.value)
		tg_store_set_trusted_only(d->store, 1);
	else
		tg_log(TG_LOG_WARN, "no storage.signing_key: every run is trusted, so anyone who can upload to %s can "
		                    "forge baselines and post on any commit (docs/security.md)",
		       tg_storage_describe(d->storage));
	*out = d;
	return 0;
}

void tg_daemon_free(tg_daemon *d)
{
	if (!d)
		return;
	tg_endpoints_stop(d->endpoints); /* first: its thread reads the health and the metrics */
	tg_health_free(d->health);
	tg_daemon_publish_close(d);
	tg_store_close(d->store);
	tg_storage_free(d->storage);
	for (size_t i = 0; d->forges && i < d->cfg->nforges; i++)
		tg_forge_free(d->forges[i]);
	free(d->forges);
	for (size_t i = 0; d->rules && i < d->cfg->nrepos; i++)
		tg_rules_free(d->rules[i]);
	free(d->rules);
	for (size_t i = 0; d->git && i < d->cfg->nrepos; i++)
		tg_git_free(d->git[i]);
	free(d->git);
	free(d->fetched);
	tg_atoms_free(d->seen);
	tg_data_cache_free(d->cache);
	free(d->used);
	free(d->jobs_dir);
	free(d->tmp_dir);
	tg_metrics_free(d->metrics); /* after the clients that count into it */
	free(d->http_ctx);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	tg_config_free(d->cfg);
	free(d);
}

/* ------------------------------------------------------------ scan */

static int workload_wanted(const tg_config_repo *r, const char *workload)
{
	if (!r->nworkloads)
		return 1;
	for (size_t i = 0; i < r->nworkloads; i++)
		if (!strcmp(r->workloads[i], workload))
			return 1;
	return 0;
}

/* Whether run m (of repository r) is trusted: without a signing key every
 * run is; with one, only a run signed with it whose branch is one of the
 * repository's target branches (docs/security.md). */
static int run_trusted(const tg_daemon *d, const tg_config_repo *r, const tg_manifest *m, const char *key)
{
	const char *sk = d->cfg->storage.signing_key.value;
	if (!sk)
		return 1;
	if (!m)
		return 0;
	const char *why = NULL;
	if (!tg_signature_check(&why, m, sk, strlen(sk))) {
		tg_log(m->signature ? TG_LOG_WARN : TG_LOG_DEBUG, "%s: untrusted: %s", key, why);
		return 0;
	}
	for (size_t i = 0; i < r->ntarget_branches; i++)
		if (!strcmp(r->target_branches[i], m->branch))
			return 1;
	tg_log(TG_LOG_INFO, "%s: signed, but branch %s is not a target branch: untrusted", key, m->branch);
	return 0;
}

/* The configured repository of the run whose key has the folders seg
 * (repo_name: "owner/repo"), or NULL when the run is ignored (logged): its
 * repository or workload is not configured, or its workload or run-id
 * folder is not a name. */
static const tg_config_repo *wanted_repo(tg_daemon *d, char seg[5][TG_UTIL_SEGMENT_MAX + 1], const char *key,
                                         const char *repo_name)
{
	const tg_config_repo *repo = tg_daemon_repo(NULL, d, repo_name);
	if (!repo) {
		tg_log(TG_LOG_DEBUG, "%s: repository %s is not configured: ignored", key, repo_name);
		return NULL;
	}
	if (!tg_manifest_name_ok(seg[3]) || !tg_manifest_name_ok(seg[4])) {
		/* never posted: the names go into the status context and the
		 * comment's marker */
		tg_log(TG_LOG_WARN, "%s: run refused: the %s folder must be 1 to 64 of A-Z a-z 0-9 . _ - (nothing posted)",
		       key, tg_manifest_name_ok(seg[3]) ? "run-id" : "workload");
		tg_daemon_count_refused(d, TG_REFUSED_FOLDER_NAME);
		return NULL;
	}
	if (!workload_wanted(repo, seg[3])) {
		tg_log(TG_LOG_DEBUG, "%s: workload %s is not configured for %s: ignored", key, seg[3], repo_name);
		return NULL;
	}
	return repo;
}

/* Reads the manifest of o into *data (*len bytes, the caller frees).
 * Too large, or not a regular file (a FIFO, a link): no error, the run is
 * rejected with the message, once: *oversize is set, errmsg (cap bytes)
 * says why, without the storage's place on this host, and *data is
 * TG_MANIFEST_UNREADABLE and that message, which the job keeps
 * (tg_manifest_parse reports it). TG_ENOTFOUND: removed since the listing. */
static int read_manifest(char **data, size_t *len, int *oversize, char *errmsg, size_t cap, tg_daemon *d,
                         const tg_storage_obj *o)
{
	int rc = tg_storage_read(data, len, d->storage, o->key, d->cfg->max_manifest_bytes);
	*oversize = rc == TG_ELIMIT || rc == TG_EINVAL;
	if (!*oversize)
		return rc;
	const char *why = tg_error_last(), *where = tg_storage_describe(d->storage);
	size_t wl = strlen(where);
	if (wl && !strncmp(why, where, wl) && !strncmp(why + wl, ": ", 2))
		why += wl + 2;
	size_t kl = strlen(o->key);
	if (!strncmp(why, o->key, kl) && !strncmp(why + kl, ": ", 2))
		why += kl + 2;
	snprintf(errmsg, cap, "%s", why);
	free(*data);
	if (asprintf(data, "%s%s", TG_MANIFEST_UNREADABLE, errmsg) < 0) {
		*data = NULL;
		return TG_ENOMEM;
	}
	*len = strlen(*data);
	return 0;
}

/* The content key of schema 3's stores (64 hex digits): SHA-256 of the
 * manifest's key and bytes, and of its ETag for one that could not be
 * read. A run those stores hold is found by it, so that a store kept from
 * before runs were keyed by what they are adds no run twice. */
static int legacy_key(char out[TG_SHA256_HEX_LEN + 1], const tg_storage_obj *o, const char *data, size_t len,
                      int oversize)
{
	tg_sha256_ctx c;
	uint8_t dig[TG_SHA256_LEN];
	tg_sha256_init(&c);
	tg_sha256_update(&c, o->key, strlen(o->key));
	tg_sha256_update(&c, "\n", 1);
	tg_sha256_update(&c, data, len);
	if (oversize)
		tg_sha256_update(&c, o->etag, strlen(o->etag));
	int rc = tg_sha256_final(dig, &c);
	tg_sha256_hex(out, dig);
	return rc;
}

/* When the run of manifest m (NULL: a bad one) ran: the manifest's
 * created_at, else the file's time; never in the future, which would put
 * the run ahead of every later one. */
static int64_t run_time(const tg_manifest *m, const tg_storage_obj *o)
{
	int64_t t = m && m->created_at ? m->created_at : o->mtime;
	return t > (int64_t)time(NULL) ? (int64_t)time(NULL) : t;
}

/* The signature of m when it verifies with the configured key (part of
 * the run's key: run_key.c), else NULL. */
static const char *valid_signature(const tg_daemon *d, const tg_manifest *m)
{
	const char *sk = d->cfg->storage.signing_key.value, *why = NULL;
	return sk && m && tg_signature_check(&why, m, sk, strlen(sk)) ? m->signature : NULL;
}

/* 1 when the store has the run j (by its key, or a schema 3 store by its
 * content: len bytes of data): a manifest rewritten, or the run copied
 * under its commit's folder in capitals, is not a new run and posts
 * nothing again (logged); 0 when it is new; or the store's error. */
static int known_run(tg_daemon *d, const tg_job *j, const tg_storage_obj *o, const char *data, size_t len,
                     int oversize)
{
	tg_job e;
	int rc = tg_store_job_get_by_key(&e, d->store, j->key);
	if (!rc) {
		int moved = strcmp(e.prefix, j->prefix) != 0;
		/* the store keeps a manifest compacted, with the digest of the bytes
		 * uploaded (manifest_compact.c), or as uploaded when it was kept
		 * before tracegate compacted them */
		char kept[TG_SHA256_HEX_LEN + 1], now[TG_SHA256_HEX_LEN + 1];
		uint8_t dig[TG_SHA256_LEN];
		if ((rc = tg_sha256(dig, data, len))) {
			tg_job_clear(&e);
			return rc;
		}
		tg_sha256_hex(now, dig);
		int changed = !e.manifest || (tg_manifest_uploaded_sha256(kept, e.manifest)
		                                  ? strlen(e.manifest) != len || memcmp(e.manifest, data, len)
		                                  : strcmp(kept, now) != 0);
		if (moved || changed)
			tg_log(TG_LOG_WARN, "%s: %s of run %s (job %lld): not a new run, nothing posted again", o->key,
			       moved ? "another copy" : "a rewritten manifest", e.prefix, (long long)e.id);
		tg_job_clear(&e);
		return 1;
	}
	if (rc != TG_ENOTFOUND)
		return rc;
	char legacy[TG_SHA256_HEX_LEN + 1];
	if ((rc = legacy_key(legacy, o, data, len, oversize)))
		return rc;
	rc = tg_store_job_get_by_key(&e, d->store, legacy);
	tg_job_clear(&e);
	return rc == TG_ENOTFOUND ? 0 : rc ? rc : 1;
}

/* Adds job j (a new run) unless a limit refuses it (admit.c, logged);
 * *added counts it. errmsg: why its manifest is bad, or "". */
static int add_run(tg_daemon *d, const tg_job *j, const tg_manifest *m, const char *errmsg, const char *key,
                   size_t *added)
{
	int ok = 1;
	char why[256];
	int rc = tg_daemon_admit(&ok, why, sizeof(why), d, j);
	if (rc || !ok) {
		if (!rc) {
			tg_log(TG_LOG_WARN, "%s: run refused: %s", key, why);
			tg_daemon_count_limit_refused(d, why);
		}
		return rc;
	}
	int64_t id = 0;
	int created = 0;
	if ((rc = tg_store_job_add(&id, &created, d->store, j)) || !created)
		return rc;
	(*added)++;
	tg_metrics_add(d->metrics, TG_DM_RUNS_SEEN, NULL, NULL, 1);
	if (errmsg[0])
		tg_log(TG_LOG_WARN, "new run %s (job %lld) with a bad manifest: %s", j->prefix, (long long)id, errmsg);
	else
		tg_log(TG_LOG_INFO, "new run %s@%.12s %s %s (job %lld%s%s)", j->repo, j->commit, j->workload, j->run_id,
		       (long long)id, m && m->pr ? ", pull request" : "",
		       d->cfg->storage.signing_key.value ? (j->trusted ? ", signed" : ", unsigned") : "");
	return 0;
}

/* The job of the manifest at o (m: parsed, NULL when bad; data: its text)
 * into j; its strings borrow from seg, repo_name, commit, prefix, m and
 * data. */
static int job_of(tg_job *j, tg_daemon *d, const tg_config_repo *repo, char seg[5][TG_UTIL_SEGMENT_MAX + 1],
                   const char *repo_name, const char *commit, const char *prefix, const tg_manifest *m,
                   const char *data, const tg_storage_obj *o)
{
	memset(j, 0, sizeof(*j));
	j->prefix = (char *)prefix;
	j->repo = (char *)repo_name;
	j->commit = (char *)commit;
	j->branch = m ? m->branch : (char *)"(unknown: bad manifest)";
	j->target_branch = m ? m->target_branch : NULL;
	j->pr = m ? m->pr : 0;
	j->workload = seg[3];
	j->run_id = seg[4];
	j->manifest = (char *)data;
	j->run_time = run_time(m, o);
	j->trusted = run_trusted(d, repo, m, o->key);
	j->origin = m ? m->ci_run : NULL;
	return tg_daemon_run_key(j->key, repo_name, commit, seg[3], seg[4], valid_signature(d, m));
}

/* Looks at one manifest; adds its run when it is new. */
static int scan_one(tg_daemon *d, const tg_storage_obj *o, size_t *added)
{
	char seg[5][TG_UTIL_SEGMENT_MAX + 1];
	if (!tg_util_path_segments(seg, 5, o->key))
		return 0;
	char repo_name[2100];
	snprintf(repo_name, sizeof(repo_name), "%s/%s", seg[0], seg[1]);
	const tg_config_repo *repo = wanted_repo(d, seg, o->key, repo_name);
	if (!repo)
		return 0;
	char *data = NULL, errmsg[512] = "";
	size_t len = 0;
	int oversize = 0;
	int rc = read_manifest(&data, &len, &oversize, errmsg, sizeof(errmsg), d, o);
	if (rc)
		return rc == TG_ENOTFOUND ? 0 : rc;
	tg_manifest *m = NULL;
	if (!oversize && tg_manifest_parse(&m, data, len, o->key, d->cfg->max_traces))
		snprintf(errmsg, sizeof(errmsg), "%s", tg_error_last());
	char prefix[5 * 1026];
	snprintf(prefix, sizeof(prefix), "%s/%s/%s/%s/%s", seg[0], seg[1], seg[2], seg[3], seg[4]);
	/* the folder may spell the SHA in capitals; git and the store speak
	 * lower case (the manifest's commit is checked against the folder
	 * case-insensitively and lowered too) */
	char commit[TG_UTIL_SEGMENT_MAX + 1];
	snprintf(commit, sizeof(commit), "%s", seg[2]);
	for (char *p = commit; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	tg_job j;
	/* the store keeps the fields tracegate reads (manifest_compact.c), not
	 * the uploader's megabyte of padding; the key is of the fields. A key
	 * that cannot be computed (libcrypto out of memory) adds nothing: the
	 * run is looked at again at the next poll */
	char *compact = NULL, uploaded[TG_SHA256_HEX_LEN + 1];
	uint8_t dig[TG_SHA256_LEN];
	if ((rc = job_of(&j, d, repo, seg, repo_name, commit, prefix, m, data, o)) || (rc = tg_sha256(dig, data, len))) {
		tg_log(TG_LOG_WARN, "%s: its run's key cannot be computed: %s; looked at again at the next poll", o->key,
		       tg_error_last());
	} else {
		tg_sha256_hex(uploaded, dig);
		if (m && !tg_manifest_compact(&compact, m, uploaded))
			j.manifest = compact;
		if (d->cfg->retention_runs_ms > 0 && j.run_time < (int64_t)time(NULL) - d->cfg->retention_runs_ms / 1000) {
			/* older than the retention: its job may have been pruned, and a
			 * run that old is not judged (nor posted) again */
			tg_log(TG_LOG_DEBUG, "%s: older than the retention: ignored", o->key);
		} else if ((rc = known_run(d, &j, o, data, len, oversize)) == 0) {
			rc = add_run(d, &j, m, errmsg, o->key, added);
		}
	}
	tg_manifest_free(m);
	free(compact);
	free(data);
	return rc < 0 ? rc : 0;
}

int tg_daemon_scan(size_t *added, tg_daemon *d)
{
	size_t a = 0;
	if (added)
		*added = 0;
	tg_storage_obj *objs = NULL;
	size_t n = 0;
	int rc = tg_storage_list_manifests(&objs, &n, d->storage);
	tg_daemon_count_poll(d, !rc);
	if (rc) {
		tg_log(TG_LOG_WARN, "cannot list the storage: %s", tg_error_last());
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		/* each manifest once per version of it (its ETag): a run refused by
		 * a limit, or not new, is not looked at again */
		char memo[2300];
		int ml = snprintf(memo, sizeof(memo), "%s\x1f%s", objs[i].key, objs[i].etag ? objs[i].etag : "");
		if (ml < 0 || (size_t)ml >= sizeof(memo) || tg_atoms_find(d->seen, memo, (size_t)ml) != TG_NONE)
			continue;
		int r = scan_one(d, &objs[i], &a);
		uint32_t at;
		if (!r) {
			if (tg_atoms_intern(&at, d->seen, memo, (size_t)ml)) {
				rc = TG_ENOMEM;
				break;
			}
		} else {
			/* try again at the next scan (the store or storage may come back) */
			tg_log(TG_LOG_WARN, "%s: %s", objs[i].key, tg_error_last());
			rc = r;
		}
	}
	tg_storage_objs_free(objs, n);
	if (added)
		*added = a;
	return rc;
}

/* ------------------------------------------------------------ work */

/* Runs job j; when it waits for another job (its baseline's run) that this
 * daemon can claim, runs that one first (and what it waits for, up to a
 * depth), then j again: a backlog of consecutive commits is judged in
 * order whatever order the claims came in. */
static int run_job(tg_daemon *d, tg_job *j, int lease_s, int depth, size_t *finished)
{
	d->blocker = 0;
	tg_daemon_mark_step(d, j);
	int r = tg_daemon_job_run(d, j);
	for (int tries = 0; r == TG_EAGAIN && d->blocker > 0 && depth < 32 && tries < 4; tries++) {
		int64_t b = d->blocker;
		tg_job bj;
		memset(&bj, 0, sizeof(bj));
		if (tg_store_job_claim_id(&bj, d->store, b, d->owner, lease_s)) {
			/* another daemon has it, or it is ours already (waiting): defer */
			tg_error_set(TG_EAGAIN, "waits for job %lld, not claimable now", (long long)b);
			break;
		}
		int br = run_job(d, &bj, lease_s, depth + 1, finished);
		if (br == TG_EAGAIN) {
			if (tg_store_job_release(d->store, bj.id, d->owner))
				tg_log(TG_LOG_WARN, "job %lld: %s", (long long)bj.id, tg_error_last());
		} else if (br) {
			tg_log(TG_LOG_WARN, "job %lld (%s %s): will try again after its lease: %s", (long long)bj.id,
			       bj.prefix ? bj.prefix : "", tg_job_state_name(bj.state), tg_error_last());
		}
		tg_job_clear(&bj);
		if (br)
			break;
		(*finished)++;
		d->blocker = 0;
		tg_daemon_mark_step(d, j);
		r = tg_daemon_job_run(d, j);
	}
	return r;
}

int tg_daemon_work(size_t *done, tg_daemon *d)
{
	size_t k = 0;
	int lease_s = (int)(d->cfg->lease_ms / 1000);
	if (lease_s < 1)
		lease_s = 1;
	int rc = 0;
	/* jobs that wait for another (their baseline's run): kept leased for the
	 * rest of this pass, so that the next claim finds other work, then given
	 * back uncounted */
	int64_t *waiting = NULL;
	size_t nwait = 0, capwait = 0;
	if (tg_daemon_reclaim_leases(NULL, d))
		tg_log(TG_LOG_WARN, "job store: reading the leases: %s", tg_error_last());
	while (!(d->o.stop && *d->o.stop)) {
		tg_job j;
		memset(&j, 0, sizeof(j));
		rc = tg_store_job_claim(&j, d->store, d->owner, lease_s);
		tg_health_store(d->health, !rc || rc == TG_ENOTFOUND, rc ? tg_error_last() : NULL);
		if (rc == TG_ENOTFOUND) {
			rc = 0;
			break;
		}
		if (rc) {
			tg_log(TG_LOG_ERROR, "job store: %s", tg_error_last());
			break;
		}
		int r = run_job(d, &j, lease_s, 0, &k);
		tg_health_step(d->health, NULL);
		if (!r) {
			k++;
		} else if (r == TG_EAGAIN) {
			tg_log(TG_LOG_INFO, "job %lld waits: %s", (long long)j.id, tg_error_last());
			if (!tg_grow((void **)&waiting, &capwait, nwait + 1, sizeof(int64_t)))
				waiting[nwait++] = j.id;
		} else {
			tg_log(TG_LOG_WARN, "job %lld (%s %s): will try again after its lease: %s", (long long)j.id,
			       j.prefix ? j.prefix : "", tg_job_state_name(j.state), tg_error_last());
		}
		tg_job_clear(&j);
		tg_daemon_count_queue(d);
	}
	for (size_t i = 0; i < nwait; i++)
		if (tg_store_job_release(d->store, waiting[i], d->owner))
			tg_log(TG_LOG_WARN, "job %lld: %s", (long long)waiting[i], tg_error_last());
	free(waiting);
	if (done)
		*done = k;
	return rc;
}

/* After a pass's scan: the step over, the queue read. */
static void after_scan(tg_daemon *d)
{
	tg_health_step(d->health, NULL);
	if (tg_daemon_count_queue(d))
		tg_log(TG_LOG_WARN, "job store: counting the jobs: %s", tg_error_last());
}

/* Every daemon.recheck: the open pull requests' verdicts made stale by a
 * retarget, a moved merge-base or a re-push are judged again (recheck.c);
 * *requeued counts them. */
static void recheck_when_due(size_t *requeued, tg_daemon *d, time_t *last)
{
	*requeued = 0;
	time_t now = time(NULL);
	if (d->cfg->recheck_ms <= 0 || (*last && now - *last < d->cfg->recheck_ms / 1000))
		return;
	*last = now;
	if (tg_daemon_recheck(requeued, d))
		tg_log(TG_LOG_WARN, "recheck of the pull requests: %s", tg_error_last());
}

int tg_daemon_run(tg_daemon *d)
{
	time_t last_prune = 0, last_recheck = 0;
	tg_health_step(d->health, "publishing the history");
	tg_daemon_publish_all(d);
	for (;;) {
		size_t added = 0, done = 0, requeued = 0;
		tg_health_step(d->health, "scanning the storage");
		tg_daemon_scan(&added, d); /* its failures are logged, and tried again next pass */
		after_scan(d);
		tg_health_step(d->health, "looking again at the open pull requests");
		recheck_when_due(&requeued, d, &last_recheck);
		tg_health_step(d->health, NULL);
		added += requeued;
		int wr = tg_daemon_work(&done, d);
		if (wr == TG_EIO)
			tg_log(TG_LOG_WARN, "the job store is unavailable; retrying");
		if (d->o.stop && *d->o.stop)
			break;
		time_t now = time(NULL);
		if (d->cfg->retention_runs_ms > 0 && now - last_prune >= PRUNE_PERIOD_S) {
			size_t del = 0;
			if (!tg_store_prune(&del, d->store, (int64_t)now - d->cfg->retention_runs_ms / 1000) && del)
				tg_log(TG_LOG_INFO, "retention: %zu old runs deleted", del);
			last_prune = now;
		}
		if (d->o.once) {
			if (!added && !done)
				break;
			continue;
		}
		tg_health_step(d->health, NULL);
		int w = tg_storage_wait(d->storage, (long)d->cfg->storage.poll_interval_ms);
		if (w < 0)
			tg_log(TG_LOG_WARN, "waiting on the storage: %s", tg_error_last());
	}
	tg_health_ready(d->health, 0, "stopping");
	return 0;
}
