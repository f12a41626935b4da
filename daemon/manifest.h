/*
 * manifest.h - the manifest.json of a run in artifact storage (DESIGN.md,
 * "Artifact storage contract"; JSON Schema: docs/manifest.schema.json):
 *
 *   { "schema": "tracegate.run/1",
 *     "repo": "owner/repo", "commit": "<40 hex>", "branch": "feature-x",
 *     "pull_request": 123, "target_branch": "main",
 *     "workload": "llama-8b-train", "run_id": "ci-4567-1",
 *     "traces": [ { "path": "rank0.pt.trace.json.gz", "rank": 0 } ],
 *     "created_at": "2026-11-23T18:00:00Z",         optional
 *     "ci_url": "https://ci.example/jobs/4567",     optional
 *     "ci_run": "4567",                             optional: the CI run that uploaded it
 *                                                   (GitHub Actions run id, GitLab pipeline id)
 *     "signature": "hmac-sha256:<64 hex>" }          optional (signature.h)
 *
 * A trace entry may carry "sha256": "<64 hex>", the digest of its file;
 * a signed manifest gives it for every trace (the signature covers it).
 *
 * The manifest is written last: its presence means the run is complete.
 * It is checked against the folder it sits in (a manifest cannot speak for
 * another repository, commit, workload or run), and every trace path must
 * stay inside the run's folder. Workload names and run ids are 1 to 64 of
 * [A-Za-z0-9._-]. Other keys are ignored.
 */
#ifndef TG_MANIFEST_H
#define TG_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#define TG_MANIFEST_SCHEMA "tracegate.run/1"

typedef struct tg_manifest_trace {
	char *path;   /* relative to the run folder, checked */
	int64_t rank; /* -1 when not given */
	char sha256[65]; /* lower-case hex digest of the file, "" when not given */
} tg_manifest_trace;

typedef struct tg_manifest {
	char *repo;          /* "owner/repo" */
	char *commit;        /* 40 lower-case hex */
	char *branch;
	char *target_branch; /* NULL when not given */
	int64_t pr;          /* 0 when not given (a branch build) */
	char *workload;
	char *run_id;
	char *ci_url;        /* NULL when not given */
	int64_t created_at;  /* Unix seconds; 0 when not given */
	char *created_at_text; /* as written (the signature covers the text), NULL when not given */
	char *signature;     /* "hmac-sha256:<hex>" as written, NULL when not given */
	char *ci_run;        /* the CI run (GitHub Actions run id, GitLab pipeline id) that uploaded it, NULL
	                        when not given: a pull request's runs pool only with runs of the same CI run,
	                        once the forge confirms it ran for the pull request's head (docs/security.md) */
	char *prefix;        /* the run's folder key ("owner/repo/sha/workload/run-id") */
	tg_manifest_trace *traces;
	size_t ntraces;
} tg_manifest;

/* What the daemon stores as a run's manifest text when the manifest could
 * not be read (too large, a FIFO, a link), followed by why: parsing it
 * fails with "KEY: manifest not read: WHY". (A real manifest starting with
 * this byte is not JSON and fails anyway.) */
#define TG_MANIFEST_UNREADABLE "\x01"

/* Parses the manifest text (len bytes) found at storage key `key`
 * ("owner/repo/<sha>/<workload>/<run-id>/manifest.json"), checking it
 * against the key and at most max_traces traces (0: 64). On success *out
 * owns the result (tg_manifest_free). Errors: TG_EFORMAT with one line
 * "KEY: ..." (JSON syntax errors with line:column, then which field is
 * wrong and why), TG_ENOMEM. */
int tg_manifest_parse(tg_manifest **out, const char *json, size_t len, const char *key, uint32_t max_traces);

void tg_manifest_free(tg_manifest *m);

/* 1 when s is an acceptable workload name or run id: 1 to 64 characters
 * of [A-Za-z0-9._-] (they end up in statuses, comments and markers). */
int tg_manifest_name_ok(const char *s);

/* The fields of m that tracegate reads, as compact JSON that
 * tg_manifest_parse reads back to the same manifest (unknown keys left
 * out: what the store keeps of a run's manifest; manifest_compact.c), with
 * uploaded_sha256 (may be NULL) the digest of the bytes it was parsed
 * from. The caller frees *out. 0 or TG_ENOMEM. */
int tg_manifest_compact(char **out, const tg_manifest *m, const char *uploaded_sha256);

/* The uploaded_sha256 a compacted manifest keeps, into hex (65 bytes);
 * 0, or -1 when text is not one that keeps it. */
int tg_manifest_uploaded_sha256(char hex[65], const char *text);

/* The storage key of trace i ("<prefix>/<path>"); the caller frees it. */
char *tg_manifest_trace_key(const tg_manifest *m, size_t i);

#endif
