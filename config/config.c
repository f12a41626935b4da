/*
 * config.c - the daemon's configuration file (docs/config.md): libyaml's
 * document loader (a tree of nodes with their line and column), then a
 * strict validation of every section into a tg_config, with one-line
 * "file:line:column: message" errors. The list sections are in
 * config_forges.c, the node helpers in config_yaml.c, durations and sizes
 * in config_values.c, secrets in config_secret.c.
 */
#include "config.h"
#include "config_forges_impl.h"
#include "config_loader_impl.h"
#include "config_secret_impl.h"
#include "config_service_impl.h"
#include "../util/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ free, find */

void tg_config_free(tg_config *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->storage.local);
	free(c->storage.s3_endpoint);
	free(c->storage.s3_bucket);
	free(c->storage.s3_prefix);
	free(c->storage.s3_region);
	tg_config_secret_clear(&c->storage.s3_access_key);
	tg_config_secret_clear(&c->storage.s3_secret_key);
	tg_config_secret_clear(&c->storage.signing_key);
	free(c->storage.ca_file);
	free(c->sqlite);
	tg_config_secret_clear(&c->postgresql);
	for (size_t i = 0; i < c->nforges; i++)
		tg_config_forge_clear(&c->forges[i]);
	free(c->forges);
	for (size_t i = 0; i < c->nrepos; i++)
		tg_config_repo_clear(&c->repos[i]);
	free(c->repos);
	free(c->state_dir);
	free(c->tmp_dir);
	free(c->docs_url);
	free(c->log_level);
	free(c->listen_host);
	free(c->history_publish);
	free(c->history_publish_s3_bucket);
	free(c->history_publish_s3_prefix);
	free(c);
}

const tg_config_repo *tg_config_find_repo(const tg_config *c, const char *name)
{
	if (!c || !name)
		return NULL;
	for (size_t i = 0; i < c->nrepos; i++)
		if (!strcmp(c->repos[i].name, name))
			return &c->repos[i];
	return NULL;
}

/* ------------------------------------------------------------ sections */

/* parent.key into a static-size buffer, for the calls below. */
#define KEY(parent, k) tg_config_keypath((char[96]){0}, 96, (parent), (k), 0)

static int dup_into(char **out, const char *s)
{
	return (*out = strdup(s)) ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
}

enum { S3_ENDPOINT, S3_BUCKET, S3_PREFIX, S3_REGION, S3_ACCESS_KEY, S3_SECRET_KEY, S3_TLS_VERIFY, S3_CA_FILE, NS3 };

static const char *const s3_keys[NS3] = {"endpoint",   "bucket",     "prefix",     "region",
                                         "access_key", "secret_key", "tls_verify", "ca_file"};

/* storage.s3: where the CI uploads, and how to reach it. */
static int load_s3(const tg_config_loader *L, const yaml_node_t *n, tg_config_storage *s)
{
	const yaml_node_t *kn[NS3], *v[NS3];
	static const char *const required[] = {"endpoint", "bucket", "access_key", "secret_key"};
	static const int ri[] = {S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY, S3_SECRET_KEY};
	const char *w = "storage.s3";
	int rc;
	if ((rc = tg_config_mapping(L, n, w, 0)) || (rc = tg_yaml_fields(kn, v, &L->y, n, w, s3_keys, NS3, 0)))
		return rc;
	for (int i = 0; i < 4; i++)
		if (!v[ri[i]])
			return tg_yaml_error(&L->y, n, "%s: missing '%s'", w, required[i]);
	if ((rc = tg_config_string(&s->s3_endpoint, L, v[S3_ENDPOINT], KEY(w, "endpoint"), 0)))
		return rc;
	if (strncmp(s->s3_endpoint, "https://", 8) && strncmp(s->s3_endpoint, "http://", 7))
		return tg_yaml_error(&L->y, v[S3_ENDPOINT], "%s: '%s' is not an http:// or https:// URL",
		                     KEY(w, "endpoint"), TG_YAML_SHOW(s->s3_endpoint));
	if ((rc = tg_config_string(&s->s3_bucket, L, v[S3_BUCKET], KEY(w, "bucket"), 0)))
		return rc;
	rc = v[S3_PREFIX] ? tg_config_string(&s->s3_prefix, L, v[S3_PREFIX], KEY(w, "prefix"), 1)
	                  : dup_into(&s->s3_prefix, "");
	if (rc)
		return rc;
	rc = v[S3_REGION] ? tg_config_string(&s->s3_region, L, v[S3_REGION], KEY(w, "region"), 0)
	                  : dup_into(&s->s3_region, "us-east-1");
	if (rc)
		return rc;
	if (v[S3_TLS_VERIFY] && (rc = tg_yaml_bool(&s->tls_verify, &L->y, v[S3_TLS_VERIFY], KEY(w, "tls_verify"))))
		return rc;
	if (v[S3_CA_FILE] && (rc = tg_config_path(&s->ca_file, L, v[S3_CA_FILE], KEY(w, "ca_file"))))
		return rc;
	if ((rc = tg_config_secret_load(&s->s3_access_key, L, v[S3_ACCESS_KEY], KEY(w, "access_key"))))
		return rc;
	return tg_config_secret_load(&s->s3_secret_key, L, v[S3_SECRET_KEY], KEY(w, "secret_key"));
}

/* storage: local or s3, and the poll interval. */
static int load_storage(const tg_config_loader *L, const yaml_node_t *n, tg_config_storage *s)
{
	static const char *const keys[] = {"local", "s3", "poll_interval", "signing_key"};
	const yaml_node_t *kn[4], *v[4];
	int rc;
	s->tls_verify = 1;
	s->poll_interval_ms = 10000;
	if ((rc = tg_config_mapping(L, n, "storage", 0)) ||
	    (rc = tg_yaml_fields(kn, v, &L->y, n, "storage", keys, 4, 0)))
		return rc;
	if (v[0] && v[1])
		return tg_yaml_error(&L->y, kn[0]->start_mark.index > kn[1]->start_mark.index ? kn[0] : kn[1],
		                     "storage: local and s3 exclude each other (give one)");
	if (!v[0] && !v[1])
		return tg_yaml_error(&L->y, n, "storage: needs local (a folder) or s3 (a bucket)");
	if (v[0] && (rc = tg_config_path(&s->local, L, v[0], "storage.local")))
		return rc;
	if (v[1] && (rc = load_s3(L, v[1], s)))
		return rc;
	if (v[2] && (rc = tg_config_duration(&s->poll_interval_ms, L, v[2], "storage.poll_interval", 1)))
		return rc;
	if (v[3] && (rc = tg_config_secret_load(&s->signing_key, L, v[3], "storage.signing_key")))
		return rc;
	return 0;
}

/* database: sqlite (a path) or postgresql (a secret URL). */
static int load_database(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	static const char *const keys[] = {"sqlite", "postgresql"};
	const yaml_node_t *kn[2], *v[2];
	int rc;
	if ((rc = tg_config_mapping(L, n, "database", 0)) ||
	    (rc = tg_yaml_fields(kn, v, &L->y, n, "database", keys, 2, 0)))
		return rc;
	if (v[0] && v[1])
		return tg_yaml_error(&L->y, kn[0]->start_mark.index > kn[1]->start_mark.index ? kn[0] : kn[1],
		                     "database: sqlite and postgresql exclude each other (give one)");
	if (!v[0] && !v[1])
		return tg_yaml_error(&L->y, n, "database: needs sqlite (a file) or postgresql (a secret URL)");
	if (v[0])
		return tg_config_path(&c->sqlite, L, v[0], "database.sqlite");
	return tg_config_secret_load(&c->postgresql, L, v[1], "database.postgresql");
}

/* The job budgets: job_timeout at least a second, job_memory at least
 * 64 MiB (the analysis's libraries and buffers alone need tens of MiB; a
 * smaller budget would fail every job). */
static int load_budgets(const tg_config_loader *L, const yaml_node_t *timeout, const yaml_node_t *memory, tg_config *c)
{
	int rc;
	if (timeout && (rc = tg_config_duration(&c->job_timeout_ms, L, timeout, "daemon.job_timeout", 1)))
		return rc;
	if (timeout && c->job_timeout_ms < 1000)
		return tg_yaml_error(&L->y, timeout, "daemon.job_timeout: '%s' is out of range (at least 1s)",
		                     TG_YAML_SHOW((const char *)timeout->data.scalar.value));
	if (memory && (rc = tg_config_size(&c->job_memory, L, memory, "daemon.job_memory", 1)))
		return rc;
	if (memory && c->job_memory < (UINT64_C(64) << 20))
		return tg_yaml_error(&L->y, memory, "daemon.job_memory: '%s' is out of range (at least 64MiB)",
		                     TG_YAML_SHOW((const char *)memory->data.scalar.value));
	return 0;
}

/* daemon.docs_url: "" (no link), or an http(s) URL a Markdown link holds
 * whole (the comment's footer links to its comment.md). */
static int load_docs_url(const tg_config_loader *L, const yaml_node_t *v, tg_config *c)
{
	int rc = tg_config_string(&c->docs_url, L, v, "daemon.docs_url", 1);
	const char *u = c->docs_url;
	if (rc || !*u)
		return rc;
	const char *host = !strncmp(u, "https://", 8) ? u + 8 : !strncmp(u, "http://", 7) ? u + 7 : NULL;
	int ok = host && *host && *host != '/';
	for (const char *p = host; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		     strchr("._~:/%+-", *p);
	if (!ok)
		return tg_yaml_error(
			&L->y, v,
			"daemon.docs_url: '%s' is not an http(s) URL of letters, digits and . _ ~ : / %% + - "
			"(or \"\" for no link)",
			u);
	return 0;
}

/* daemon: every key optional; tmp_dir defaults to state_dir/tmp. */
static int load_daemon(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	static const char *const keys[] = {"state_dir", "lease",   "max_attempts", "history_points",
	                                   "tmp_dir",   "recheck", "docs_url",     "job_timeout", "job_memory",
	                                   "listen"};
	const yaml_node_t *kn[10], *v[10] = {0};
	uint64_t u;
	int rc = 0;
	if (n && (rc = tg_config_mapping(L, n, "daemon", 1)) < 0)
		return rc;
	if (n && !rc && (rc = tg_yaml_fields(kn, v, &L->y, n, "daemon", keys, 10, 0)))
		return rc;
	if (v[6] && (rc = load_docs_url(L, v[6], c)))
		return rc;
	if ((rc = load_budgets(L, v[7], v[8], c)))
		return rc;
	if (v[9] && (rc = tg_config_listen_load(L, v[9], c)))
		return rc;
	rc = v[0] ? tg_config_path(&c->state_dir, L, v[0], "daemon.state_dir")
	          : tg_config_resolve(&c->state_dir, L, "tracegate-state");
	if (rc)
		return rc;
	if (v[1] && (rc = tg_config_duration(&c->lease_ms, L, v[1], "daemon.lease", 1)))
		return rc;
	if (v[2]) {
		if ((rc = tg_config_uint(&u, L, v[2], "daemon.max_attempts", 1, 1000)))
			return rc;
		c->max_attempts = (int)u;
	}
	if (v[3]) {
		if ((rc = tg_config_uint(&u, L, v[3], "daemon.history_points", 1, 1000)))
			return rc;
		c->history_points = (int)u;
	}
	if (v[5] && (rc = tg_config_duration(&c->recheck_ms, L, v[5], "daemon.recheck", 0)))
		return rc;
	if (v[4])
		return tg_config_path(&c->tmp_dir, L, v[4], "daemon.tmp_dir");
	size_t len = strlen(c->state_dir);
	if (!(c->tmp_dir = tg_malloc(len + 5)))
		return TG_ENOMEM;
	snprintf(c->tmp_dir, len + 5, "%s%stmp", c->state_dir, len && c->state_dir[len - 1] == '/' ? "" : "/");
	return 0;
}

/* limits.max_runs (1..100000) and limits.max_unsigned_branch_runs
 * (0..100000: none at all), each when present. */
static int load_run_limits(const tg_config_loader *L, const yaml_node_t *runs, const yaml_node_t *unsigned_branch,
                           tg_config *c)
{
	uint64_t u;
	int rc;
	if (runs) {
		if ((rc = tg_config_uint(&u, L, runs, "limits.max_runs", 1, 100000)))
			return rc;
		c->max_runs = (uint32_t)u;
	}
	if (unsigned_branch) {
		if ((rc = tg_config_uint(&u, L, unsigned_branch, "limits.max_unsigned_branch_runs", 0, 100000)))
			return rc;
		c->max_unsigned_branch_runs = (uint32_t)u;
	}
	return 0;
}

/* limits: sizes and counts, every key optional. max_string_bytes and
 * max_depth are the trace reader's (--max-string, --max-depth of the CLI):
 * max_string_bytes fits its 32-bit field, max_depth its 4..1000 range. */
static int load_limits(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	enum { TRACE, RATIO, EVENTS, STRING, DEPTH, MANIFEST, TRACES, COMMENT, RUN, WORKLOADS, RUNS, UNSIGNED, POOL, NL };
	static const char *const keys[NL] = {"max_trace_bytes",    "max_ratio",  "max_events",        "max_string_bytes",
	                                     "max_depth",          "max_manifest_bytes", "max_traces", "max_comment_bytes",
	                                     "max_run_bytes",      "max_workloads", "max_runs", "max_unsigned_branch_runs",
	                                     "max_pool_bytes"};
	const yaml_node_t *kn[NL], *v[NL];
	uint64_t u;
	int rc;
	if ((rc = tg_config_mapping(L, n, "limits", 1)))
		return rc < 0 ? rc : 0;
	if ((rc = tg_yaml_fields(kn, v, &L->y, n, "limits", keys, NL, 0)))
		return rc;
	if (v[TRACE] && (rc = tg_config_size(&c->max_trace_bytes, L, v[TRACE], "limits.max_trace_bytes", 1)))
		return rc;
	if (v[RATIO]) {
		if ((rc = tg_config_uint(&u, L, v[RATIO], "limits.max_ratio", 1, 1000000)))
			return rc;
		c->max_ratio = (uint32_t)u;
	}
	if (v[EVENTS] && (rc = tg_config_uint(&c->max_events, L, v[EVENTS], "limits.max_events", 0, UINT64_MAX)))
		return rc;
	if (v[STRING]) {
		if ((rc = tg_config_size(&u, L, v[STRING], "limits.max_string_bytes", 1)))
			return rc;
		if (u > UINT32_MAX)
			return tg_yaml_error(&L->y, v[STRING],
			                     "limits.max_string_bytes: '%s' is out of range (at most 4294967295 bytes)",
			                     TG_YAML_SHOW((const char *)v[STRING]->data.scalar.value));
		c->max_string_bytes = (uint32_t)u;
	}
	if (v[DEPTH]) {
		if ((rc = tg_config_uint(&u, L, v[DEPTH], "limits.max_depth", 4, 1000)))
			return rc;
		c->max_depth = (uint32_t)u;
	}
	if (v[MANIFEST] &&
	    (rc = tg_config_size(&c->max_manifest_bytes, L, v[MANIFEST], "limits.max_manifest_bytes", 1)))
		return rc;
	if (v[TRACES]) {
		if ((rc = tg_config_uint(&u, L, v[TRACES], "limits.max_traces", 1, 100000)))
			return rc;
		c->max_traces = (uint32_t)u;
	}
	if (v[COMMENT] && (rc = tg_config_size(&c->max_comment_bytes, L, v[COMMENT], "limits.max_comment_bytes", 1)))
		return rc;
	if (v[RUN] && (rc = tg_config_size(&c->max_run_bytes, L, v[RUN], "limits.max_run_bytes", 1)))
		return rc;
	if (v[WORKLOADS]) {
		if ((rc = tg_config_uint(&u, L, v[WORKLOADS], "limits.max_workloads", 1, 100000)))
			return rc;
		c->max_workloads = (uint32_t)u;
	}
	if (v[POOL] && (rc = tg_config_size(&c->max_pool_bytes, L, v[POOL], "limits.max_pool_bytes", 1)))
		return rc;
	return load_run_limits(L, v[RUNS], v[UNSIGNED], c);
}

/* http: timeouts and retries of every forge and S3 request. */
static int load_http(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	static const char *const keys[] = {"timeout", "connect_timeout", "retries", "backoff", "max_wait"};
	const yaml_node_t *kn[5], *v[5];
	int64_t *ms[] = {&c->http_timeout_ms, &c->http_connect_timeout_ms, NULL, &c->http_backoff_ms,
	                 &c->http_max_wait_ms};
	uint64_t u;
	int rc;
	if ((rc = tg_config_mapping(L, n, "http", 1)))
		return rc < 0 ? rc : 0;
	if ((rc = tg_yaml_fields(kn, v, &L->y, n, "http", keys, 5, 0)))
		return rc;
	for (int i = 0; i < 5; i++) {
		if (!v[i])
			continue;
		if (ms[i])
			rc = tg_config_duration(ms[i], L, v[i], KEY("http", keys[i]), 1);
		else if (!(rc = tg_config_uint(&u, L, v[i], "http.retries", 1, 100)))
			c->http_retries = (int)u;
		if (rc)
			return rc;
	}
	return 0;
}

/* retention: how long runs are kept (0: forever). */
static int load_retention(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	static const char *const keys[] = {"runs"};
	const yaml_node_t *kn[1], *v[1];
	int rc;
	if ((rc = tg_config_mapping(L, n, "retention", 1)))
		return rc < 0 ? rc : 0;
	if ((rc = tg_yaml_fields(kn, v, &L->y, n, "retention", keys, 1, 0)))
		return rc;
	if (v[0])
		return tg_config_duration(&c->retention_runs_ms, L, v[0], "retention.runs", 0);
	return 0;
}

/* log: the level. */
static int load_log(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	static const char *const keys[] = {"level"};
	static const char *const levels[] = {"error", "warn", "info", "debug"};
	const yaml_node_t *kn[1], *v[1];
	int rc, level;
	if ((rc = tg_config_mapping(L, n, "log", 1)))
		return rc < 0 ? rc : 0;
	if ((rc = tg_yaml_fields(kn, v, &L->y, n, "log", keys, 1, 0)))
		return rc;
	if (!v[0])
		return 0;
	if ((rc = tg_yaml_keyword(&level, &L->y, v[0], "log.level", "a level", "level", levels, 4)))
		return rc;
	free(c->log_level);
	return dup_into(&c->log_level, levels[level]);
}

/* ------------------------------------------------------------ the document */

enum { T_STORAGE, T_DATABASE, T_FORGES, T_REPOS, T_DAEMON, T_LIMITS, T_HTTP, T_RETENTION, T_LOG, T_HISTORY, NT };

static const char *const top_keys[NT] = {"storage", "database", "forges",    "repositories", "daemon",
                                         "limits",  "http",     "retention", "log",          "history"};

static const char *const top_what[4] = {
	"where the CI uploads traces: local or s3",
	"the job store and history: sqlite or postgresql",
	"the git forges that statuses and comments go to",
	"the repositories to gate",
};

/* The defaults of everything optional (the header's). */
static int defaults(tg_config *c)
{
	c->lease_ms = 600000;
	c->max_attempts = 5;
	c->history_points = 20;
	c->max_trace_bytes = UINT64_C(4) << 30;
	c->max_ratio = 200;
	c->max_events = 0;
	c->max_string_bytes = 16u << 20;
	c->max_depth = 64;
	c->max_manifest_bytes = UINT64_C(1) << 20;
	c->max_traces = 32;
	c->max_comment_bytes = 65000;
	c->max_run_bytes = UINT64_C(16) << 30;
	c->max_workloads = 16;
	c->max_pool_bytes = UINT64_C(16) << 30;
	c->job_timeout_ms = 600000;
	c->job_memory = UINT64_C(4) << 30;
	c->max_runs = 32;
	c->max_unsigned_branch_runs = 4;
	c->recheck_ms = 300000;
	c->http_timeout_ms = 30000;
	c->http_connect_timeout_ms = 10000;
	c->http_retries = 5;
	c->http_backoff_ms = 500;
	c->http_max_wait_ms = 60000;
	c->retention_runs_ms = 0;
	c->history_runs = 200;
	return dup_into(&c->log_level, "info");
}

static int load_doc(const tg_config_loader *L, tg_config *c)
{
	const yaml_node_t *kn[NT], *v[NT];
	yaml_node_t *root = yaml_document_get_root_node(L->y.doc);
	int rc;
	if (!root)
		return tg_error_set(TG_EFORMAT,
		                    "%s:1:1: empty configuration (expected storage, database, forges, "
		                    "repositories)",
		                    L->y.file);
	if (root->type != YAML_MAPPING_NODE)
		return tg_yaml_error(&L->y, root,
		                     "expected a mapping with the keys storage, database, forges, repositories, "
		                     "...; got %s",
		                     tg_yaml_kind(root));
	if ((rc = tg_yaml_fields(kn, v, &L->y, root, "the configuration", top_keys, NT, 0)))
		return rc;
	for (int i = T_STORAGE; i <= T_REPOS; i++)
		if (!v[i])
			return tg_yaml_error(&L->y, root, "missing '%s' (%s)", top_keys[i], top_what[i]);
	if ((rc = defaults(c)) || (rc = load_storage(L, v[T_STORAGE], &c->storage)) ||
	    (rc = load_database(L, v[T_DATABASE], c)) || (rc = tg_config_forges_load(L, v[T_FORGES], c)) ||
	    (rc = tg_config_repos_load(L, v[T_REPOS], c)) || (rc = load_daemon(L, v[T_DAEMON], c)))
		return rc;
	if (v[T_LIMITS] && (rc = load_limits(L, v[T_LIMITS], c)))
		return rc;
	if (v[T_HTTP] && (rc = load_http(L, v[T_HTTP], c)))
		return rc;
	if (v[T_RETENTION] && (rc = load_retention(L, v[T_RETENTION], c)))
		return rc;
	if (v[T_LOG] && (rc = load_log(L, v[T_LOG], c)))
		return rc;
	if (v[T_HISTORY] && (rc = tg_config_history_load(L, v[T_HISTORY], c)))
		return rc;
	return 0;
}

/* ------------------------------------------------------------ loading */

#define MAX_DEPTH 32 /* nesting of collections; the layout needs 5 */

/* What load_in needs besides the document. */
struct load_ctx {
	const char *dir;
	unsigned flags;
	tg_config *c;
};

/* The document read by tg_yaml_read into ctx->c (a tg_yaml_loader_fn). */
static int load_in(const tg_yaml_in *in, void *ctx)
{
	const struct load_ctx *x = ctx;
	tg_config_unread unread = {0};
	tg_config_loader L = {.y = *in, .dir = x->dir, .flags = x->flags, .unread = &unread};
	int rc = load_doc(&L, x->c);
	/* the secrets that could not be read, all named at once; an error of
	 * the file itself comes first (the secrets may be read once it is fixed) */
	if (rc) {
		free(unread.text);
		return rc;
	}
	return tg_config_unread_finish(&unread, in->file);
}

static int load_mem(tg_config **out, const char *data, size_t len, const char *name, const char *dir,
                    unsigned flags)
{
	if (!out)
		return tg_error_set(TG_EINVAL, "tg_config_load_mem: out is NULL");
	*out = NULL;
	if (!data && len)
		return tg_error_set(TG_EINVAL, "tg_config_load_mem: data is NULL");
	if (!name)
		name = "<config>";
	tg_config *c = tg_calloc(1, sizeof(*c));
	if (!c)
		return TG_ENOMEM;
	if (dup_into(&c->path, name)) {
		free(c);
		return TG_ENOMEM;
	}
	struct load_ctx ctx = {dir, flags, c};
	int rc = tg_yaml_read(data, len, name, MAX_DEPTH, TG_YAML_ONE_LINE, load_in, &ctx);
	if (rc) {
		tg_config_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int tg_config_load_mem(tg_config **out, const char *data, size_t len, const char *name, const char *dir)
{
	return load_mem(out, data, len, name, dir, 0);
}

/* The folder of path, absolute (relative paths in the file are resolved
 * against it, and must not change meaning when the daemon changes folder). */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char cwd[4096];
	char *d;
	if (slash == path)
		return strdup("/");
	if (path[0] == '/')
		return strndup(path, (size_t)(slash - path));
	if (!getcwd(cwd, sizeof(cwd))) /* keep the folder relative then */
		return slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!slash)
		return strdup(cwd);
	size_t cl = strlen(cwd), pl = (size_t)(slash - path);
	if (!(d = malloc(cl + 1 + pl + 1)))
		return NULL;
	memcpy(d, cwd, cl);
	d[cl] = '/';
	memcpy(d + cl + 1, path, pl);
	d[cl + 1 + pl] = 0;
	return d;
}

int tg_config_load_file(tg_config **out, const char *path)
{
	return tg_config_load_file_for(out, path, 0);
}

int tg_config_load_file_for(tg_config **out, const char *path, unsigned flags)
{
	if (!out || !path)
		return tg_error_set(TG_EINVAL, "tg_config_load_file: bad argument");
	*out = NULL;
	char *buf;
	size_t len;
	int err = tg_file_read_all(&buf, &len, path, 0);
	if (err)
		return err;
	char *dir = folder_of(path);
	int rc = dir ? load_mem(out, buf, len, path, dir, flags) : tg_error_set(TG_ENOMEM, "out of memory");
	free(dir);
	free(buf);
	return rc;
}
