/*
 * config_types.h - what a loaded configuration holds (config.h loads it;
 * docs/config.md is the reference of each key): the storage, the
 * database, the forges, the repositories, the daemon's settings and
 * limits, and the flags of a load. Types alone, no functions, so that
 * config.c's pieces (config_forges.c, config_secret.c) fill them without
 * leaning on config.c's interface. Everything a tg_config holds is owned
 * by it (tg_config_free).
 */
#ifndef TG_CONFIG_TYPES_H
#define TG_CONFIG_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_config_secret {
	char *env;   /* variable name, or NULL */
	char *file;  /* path, or NULL */
	char *value; /* the secret itself (NULL when the key is absent) */
} tg_config_secret;

typedef struct tg_config_storage {
	char *local;            /* a directory, or NULL for S3 */
	char *s3_endpoint;      /* NULL for local */
	char *s3_bucket;
	char *s3_prefix;        /* "" when absent */
	char *s3_region;        /* "us-east-1" when absent */
	tg_config_secret s3_access_key, s3_secret_key;
	int tls_verify;         /* default 1 */
	char *ca_file;          /* NULL: system */
	int64_t poll_interval_ms;
	tg_config_secret signing_key; /* value NULL: no key, every run is trusted (docs/security.md) */
} tg_config_storage;

typedef struct tg_config_forge {
	char *name;
	char *kind;             /* "github", "gitlab", "gitea", "outbox" ("forgejo" is stored as "gitea") */
	char *api_url;          /* NULL for outbox */
	tg_config_secret token; /* value NULL for outbox */
	int check_runs;
	int tls_verify;
	char *ca_file;
	char *outbox;           /* outbox folder */
	int line;               /* where it was defined, for messages */
} tg_config_forge;

/* The states that are not a judgement (docs/daemon.md, "The status"):
 * what a repository posts for each is its on_unjudged (docs/config.md). */
typedef enum tg_unjudged_kind {
	TG_UNJUDGED_NO_BASELINE = 0,     /* no run of the workload to compare with */
	TG_UNJUDGED_BASELINE_UNUSABLE,   /* the baseline's runs cannot be used (a trace fails its sha256, is gone) */
	TG_UNJUDGED_NOT_COMPARABLE,      /* another GPU, driver, runtime or world size */
	TG_UNJUDGED_INCONCLUSIVE,        /* too few samples, "re-run to confirm" */
	TG_UNJUDGED_WAITING,             /* fewer runs of the commit than runs_per_commit */
	TG_UNJUDGED_KINDS
} tg_unjudged_kind;

/* What is posted for one of them; pending unless the operator chose. */
typedef enum tg_unjudged_post {
	TG_UNJUDGED_PENDING = 0,
	TG_UNJUDGED_SUCCESS,
	TG_UNJUDGED_FAILURE
} tg_unjudged_post;

typedef struct tg_config_repo {
	char *name;             /* "owner/repo" */
	char *forge;            /* a forge's name (checked to exist) */
	const tg_config_forge *forge_ptr; /* that forge, borrowed from the config */
	char *clone_url;
	tg_config_secret git_token;
	char **target_branches; /* ["main"] by default */
	size_t ntarget_branches;
	char *rules;            /* a rules file (the daemon loads it at start and with --check), or NULL: built-in */
	char **workloads;       /* NULL, 0: every workload */
	size_t nworkloads;
	int baseline_depth;     /* default 50 */
	int runs_per_commit;    /* default 1: runs of a commit (and workload) judged together;
	                           fewer: a pending status, no comment (daemon/pool.h) */
	char *status_context;   /* default "tracegate" */
	char *details_url;      /* template with {repo} {commit} {workload} {run_id}, or NULL */
	char **ci_url_prefixes; /* a manifest's ci_url is a link only under one of these; NULL, 0: never */
	size_t nci_url_prefixes;
	int accept_trailers;    /* Tracegate-Accept: trailers count (from writers only); default 0 */
	tg_unjudged_post on_unjudged[TG_UNJUDGED_KINDS]; /* default pending for each (fail closed) */
	int line;
} tg_config_repo;

typedef struct tg_config {
	char *path;             /* the file loaded */
	tg_config_storage storage;
	char *sqlite;           /* a path, or NULL */
	tg_config_secret postgresql; /* value NULL when SQLite */
	tg_config_forge *forges;
	size_t nforges;
	tg_config_repo *repos;
	size_t nrepos;
	/* daemon */
	char *state_dir;        /* default "tracegate-state" */
	char *tmp_dir;          /* default "<state_dir>/tmp" */
	int64_t lease_ms;       /* default 600,000 */
	int max_attempts;       /* default 5 */
	int history_points;     /* default 20 */
	int64_t job_timeout_ms; /* default 600,000: one job's analysis, then it fails */
	uint64_t job_memory;    /* default 4 GiB: what one job's analysis may allocate */
	int64_t recheck_ms;     /* default 300,000: how often open pull requests' verdicts are looked at again; 0: never */
	char *docs_url;         /* the comment footer's docs link; NULL: the build's default */
	/* limits */
	uint64_t max_trace_bytes;   /* default 4 GiB */
	uint32_t max_ratio;         /* default 200 */
	uint64_t max_events;        /* 0: the reader's default */
	uint32_t max_string_bytes;  /* default 16 MiB (the reader's) */
	uint32_t max_depth;         /* default 64 (the reader's), 4..1000 */
	uint64_t max_manifest_bytes; /* default 1 MiB */
	uint32_t max_traces;        /* default 32 */
	uint64_t max_comment_bytes; /* default 65,000 */
	uint64_t max_run_bytes;     /* default 16 GiB: JSON of all of a run's traces */
	uint32_t max_workloads;     /* default 16: workloads judged per commit, signed and unsigned runs apart */
	uint32_t max_runs;          /* default 32: runs of one workload per commit, signed and unsigned runs apart */
	uint32_t max_unsigned_branch_runs; /* default 4: unsigned runs naming no pull request per commit */
	uint64_t max_pool_bytes;    /* default 16 GiB: JSON behind the runs pooled in one judgement */
	/* http */
	int64_t http_timeout_ms, http_connect_timeout_ms, http_backoff_ms, http_max_wait_ms;
	int http_retries;
	/* retention */
	int64_t retention_runs_ms;  /* 0: forever */
	char *log_level;            /* default "info" */
} tg_config;

/* What tg_config_load_file_for reads. */
enum {
	/* every secret but the database's is checked for its form ({env:
	 * NAME} or {file: PATH}) and not read: its value stays NULL. For
	 * read-only commands (history) that use the database only, so that
	 * they run without the S3 keys and forge tokens. */
	TG_CONFIG_DATABASE_ONLY = 1
};

#endif
