/*
 * config.h - the daemon's configuration: one YAML file (docs/config.md has
 * the reference), loaded with libyaml and validated completely before the
 * daemon starts: unknown keys, wrong types, bad durations or sizes, missing
 * secrets and dangling references are errors at "FILE:LINE:COLUMN:".
 *
 *   storage:
 *     local: /srv/artifacts                # either local ...
 *     s3:                                  # ... or s3
 *       endpoint: https://s3.eu-west-1.amazonaws.com
 *       bucket: ci-traces
 *       prefix: runs/                      # optional
 *       region: eu-west-1                  # optional, default us-east-1
 *       access_key: {env: AWS_ACCESS_KEY_ID}
 *       secret_key: {file: /run/secrets/s3-secret}
 *       tls_verify: true                   # optional, default true
 *       ca_file: /etc/ssl/private-ca.pem   # optional
 *     poll_interval: 10s                   # optional: S3 poll, local rescan; default 10s
 *     signing_key: {env: TRACEGATE_SIGNING_KEY}  # optional: only runs signed with it are trusted
 *   database:
 *     sqlite: /var/lib/tracegate/tracegate.db   # either ...
 *     postgresql: {env: TRACEGATE_DATABASE_URL} # ... or (a secret: it holds a password)
 *   forges:
 *     - name: github
 *       kind: github                       # github | gitlab | gitea | forgejo | outbox
 *       api_url: https://api.github.com    # not for outbox
 *       token: {env: GITHUB_TOKEN}         # not for outbox
 *       check_runs: false                  # github only; default false
 *       tls_verify: true
 *       ca_file: ...
 *       outbox: /var/lib/tracegate/outbox  # outbox only, required there
 *   repositories:
 *     - name: acme/llm                     # owner/repo as in storage keys
 *       forge: github                      # a forge's name
 *       clone_url: https://github.com/acme/llm.git
 *       git_token: {env: GIT_TOKEN}        # optional, for private https clones
 *       target_branches: [main]            # optional; default [main]
 *       rules: /etc/tracegate/llm.yaml     # optional; default the built-in rules
 *       workloads: [llama-8b-train]        # optional; default every workload
 *       baseline_depth: 50                 # optional; first-parent commits searched, default 50
 *       runs_per_commit: 1                 # optional, 1-8; runs of a commit a judgement waits for
 *       status_context: tracegate          # optional; statuses are "<context>/<workload>"
 *       details_url: https://ci.example/tracegate/{repo}/{commit}/{workload}   # optional
 *       ci_url_prefixes: [https://github.com/acme/llm/actions/runs/]  # optional: ci_url links allowed
 *       accept_trailers: false             # optional: Tracegate-Accept: trailers; default false
 *       on_unjudged: pending               # optional: what a run that is not a judgement posts
 *                                          # (pending | success | failure, or per kind); default pending
 *   daemon:                                # optional, every key optional
 *     state_dir: /var/lib/tracegate        # git mirrors, downloads; default ./tracegate-state
 *     lease: 10m                           # how long a claimed job is held; default 10m
 *     max_attempts: 5                      # claims of one job before it fails; default 5
 *     recheck: 5m                          # pull requests retargeted or re-pushed judged again; 0: never
 *     history_points: 20                   # points in the comment's charts; default 20
 *     tmp_dir: /var/tmp                    # default: state_dir/tmp
 *     docs_url: https://github.com/acme/tracegate/blob/HEAD/docs   # the comment's link to
 *                                          # comment.md; default: the build's ("": no link)
 *   limits:                                # optional
 *     max_trace_bytes: 8GiB                # decompressed JSON per trace; default 4GiB
 *     max_ratio: 200                       # gzip inflate ratio; default 200
 *     max_events: 500000000
 *     max_string_bytes: 16MiB              # one JSON string of a trace; default 16MiB
 *     max_depth: 64                        # JSON nesting of a trace, 4..1000; default 64
 *     max_manifest_bytes: 1MiB             # default 1MiB
 *     max_traces: 64                       # traces per run; default 32
 *     max_comment_bytes: 65000             # default 65000
 *     max_run_bytes: 32GiB                 # decompressed JSON of all of a run's traces; default 16GiB
 *     max_workloads: 16                    # workloads per commit, signed and unsigned runs apart; default 16
 *     max_runs: 32                         # runs of a workload per commit, signed and unsigned apart; default 32
 *     max_unsigned_branch_runs: 4          # unsigned runs naming no pull request per commit; default 4
 *   http:                                  # optional: every forge and S3 request
 *     timeout: 30s
 *     connect_timeout: 10s
 *     retries: 5                           # tries of a retryable request
 *     backoff: 500ms
 *     max_wait: 60s
 *   retention:                             # optional
 *     runs: 180d                           # 0 or absent: keep forever
 *   log:                                   # optional
 *     level: info                          # error | warn | info | debug
 *
 * Durations: a number and ms, s, m, h or d ("10s", "1.5h"). Sizes: a
 * number and B, KB, MB, GB (10^3) or KiB, MiB, GiB (2^10). Secrets (access
 * keys, tokens, the PostgreSQL URL) are never written in the file: they are
 * {env: NAME} or {file: PATH} (the file's content, trailing newline
 * stripped), read at load time; a missing variable or unreadable file is an
 * error naming the variable or file, never its value.
 */
#ifndef TG_CONFIG_H
#define TG_CONFIG_H

#include "config_types.h"
#include "config_values.h"

#include <stddef.h>
#include <stdint.h>

/* A secret as written (env or file) and as read. */
/* Loads and validates the file at path, reading every secret. On success
 * *out owns everything (tg_config_free). Errors (TG_EIO, TG_EFORMAT,
 * TG_EINVAL) leave one line "path:line:column: what is wrong" (or "path:
 * cannot open: reason") in tg_error_last(). Relative paths in the file
 * (local storage, sqlite, rules, state_dir, tmp_dir, outbox, ca_file,
 * secret files) are resolved against the file's folder, made absolute. */
int tg_config_load_file(tg_config **out, const char *path);

/* The same from a buffer; name stands for the path in messages and dir for
 * the folder relative paths are resolved against (NULL: the current one). */
int tg_config_load_mem(tg_config **out, const char *data, size_t len, const char *name, const char *dir);

/* tg_config_load_file with flags (TG_CONFIG_DATABASE_ONLY); 0 is the same
 * as tg_config_load_file. */
int tg_config_load_file_for(tg_config **out, const char *path, unsigned flags);

/* Frees c and everything it owns, wiping the secrets' values first; NULL
 * is fine. */
void tg_config_free(tg_config *c);

/* The name of an unjudged kind as on_unjudged writes it ("no_baseline",
 * "baseline_unusable", ...); a static string. */
const char *tg_config_unjudged_name(tg_unjudged_kind k);

/* The repository named name, or NULL. */
const tg_config_repo *tg_config_find_repo(const tg_config *c, const char *name);

#endif
