/*
 * storage.h - the artifact storage the daemon watches (DESIGN.md, "Artifact
 * storage contract"): a local directory or an S3 bucket and prefix, holding
 *
 *   <root>/<owner>/<repo>/<commit-sha>/<workload>/<run-id>/manifest.json
 *   <root>/<owner>/<repo>/<commit-sha>/<workload>/<run-id>/rank0.pt.trace.json.gz ...
 *
 * Keys are relative to the root ("acme/llm/0123.../train/ci-1/manifest.json"),
 * '/'-separated. Every key handed in is checked (tg_storage_key_ok): no
 * empty segment, no "." or "..", no leading '/', no backslash, no control
 * character. A local backend never follows a symbolic link (neither in
 * the listing nor when it opens a file: whoever writes to storage is
 * untrusted, and a link could lead outside the root or into another
 * repository's folder), and opens regular files only (a FIFO named
 * manifest.json would block the daemon).
 */
#ifndef TG_STORAGE_H
#define TG_STORAGE_H

#include "s3.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tg_storage tg_storage;

typedef struct tg_storage_obj {
	char *key;     /* relative to the root */
	uint64_t size;
	char *etag;    /* S3 ETag, or "<mtime>-<size>" for a local file */
	int64_t mtime; /* Unix seconds */
} tg_storage_obj;

/* A local directory (it must exist). Changes are noticed with inotify on
 * every directory below the root (watches added as folders appear), and
 * tg_storage_wait also returns at each rescan period. */
int tg_storage_local_new(tg_storage **out, const char *root);

/* An S3 bucket; prefix (may be NULL or "") is the root inside it ("runs/").
 * tg_storage_wait sleeps until the next poll. */
int tg_storage_s3_new(tg_storage **out, const tg_s3_opts *opts, const char *prefix);

/* The poll period of an S3 storage in ms (default 10,000): tg_storage_wait
 * returns 1 once per period, counted from the previous poll. TG_EINVAL for
 * another kind of storage or ms <= 0. */
int tg_storage_s3_set_poll(tg_storage *s, long ms);

void tg_storage_free(tg_storage *s);

/* "local" or "s3", and a description for logs ("/srv/artifacts",
 * "s3://bucket/prefix" - never a credential). */
const char *tg_storage_kind(const tg_storage *s);
const char *tg_storage_describe(const tg_storage *s);

/* Every manifest.json at the depth of the contract (5 folders below the
 * root), in key order. *out (free with tg_storage_objs_free). */
int tg_storage_list_manifests(tg_storage_obj **out, size_t *n, tg_storage *s);

void tg_storage_objs_free(tg_storage_obj *o, size_t n);

/* Reads a small object (a manifest) into memory: at most max bytes
 * (TG_ELIMIT beyond). *data is NUL-terminated; the caller frees it.
 * TG_ENOTFOUND when it does not exist. */
int tg_storage_read(char **data, size_t *len, tg_storage *s, const char *key, uint64_t max);

/* An open file with the object's bytes, for the trace reader: *fd is
 * read-only, at offset 0, a regular file; the caller closes it. Local
 * storage: the file itself, reached without following any symbolic link
 * (TG_EINVAL for a link or anything but a regular file). S3: downloaded
 * into tmpdir and unlinked at once. At most max bytes (0: no limit; a
 * local file is read as it is: the trace reader enforces the decompressed
 * limit). TG_ENOTFOUND when it does not exist. */
int tg_storage_fetch(int *fd, tg_storage *s, const char *key, const char *tmpdir, uint64_t max);

/* Blocks until something may have changed under the root, or timeout_ms
 * passed. Returns 1 (maybe changed), 0 (timeout) or a TG_E* code. */
int tg_storage_wait(tg_storage *s, long timeout_ms);

/* 1 when key is an acceptable relative key (see above). */
int tg_storage_key_ok(const char *key);

#endif
