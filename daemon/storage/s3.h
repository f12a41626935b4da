/*
 * s3.h - a small S3 client: ListObjectsV2 (every page), GET, HEAD and PUT of
 * one object, path-style, signed with SigV4 through libcurl's
 * CURLOPT_AWS_SIGV4.
 *
 * libcurl 7.88 (Debian 12) signs what it is given, so this client supplies
 * what that version leaves out (see ../shared/notes/infra.md, 1e):
 * the x-amz-content-sha256 header on every request (the SHA-256 of the body,
 * or of the empty string); the query string sorted by key and RFC 3986
 * encoded; a key without a value written "key="; uploads with a known
 * length, never chunked.
 *
 * Works against AWS S3, Ceph radosgw, and s3rver (the test server).
 */
#ifndef TG_S3_H
#define TG_S3_H

#include "../../net/http.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct tg_s3_opts {
	const char *endpoint;   /* "https://s3.eu-west-1.amazonaws.com", "http://127.0.0.1:4569" */
	const char *bucket;
	const char *region;     /* "us-east-1" when NULL */
	const char *access_key; /* secrets: never in messages */
	const char *secret_key;
	tg_http_opts http;      /* TLS, timeouts, retries */
} tg_s3_opts;

typedef struct tg_s3 tg_s3;

/* A client; copies what it keeps from opts. Returns 0, TG_EINVAL (no
 * endpoint, bucket or credentials) or TG_ENOMEM. Free with tg_s3_free. */
int tg_s3_new(tg_s3 **out, const tg_s3_opts *opts);

void tg_s3_free(tg_s3 *s);

typedef struct tg_s3_object {
	char *key;
	uint64_t size;
	char *etag;       /* without quotes */
	int64_t mtime;    /* LastModified, Unix seconds */
} tg_s3_object;

/* Every object whose key starts with prefix (may be "") and sorts after
 * start_after (NULL: from the first), following continuation tokens across
 * pages (max_keys per page, 0: 1000). *out is an array of *n objects in key
 * order (free with tg_s3_objects_free). Errors: TG_EIO (no answer, or an
 * HTTP error: the message has the status and the S3 error code, e.g.
 * "SignatureDoesNotMatch"), TG_EFORMAT (a listing that is not
 * ListBucketResult XML), TG_ENOMEM. */
int tg_s3_list(tg_s3_object **out, size_t *n, tg_s3 *s, const char *prefix, const char *start_after, int max_keys);

void tg_s3_objects_free(tg_s3_object *o, size_t n);

/* Downloads key into sink (a regular file, rewound and truncated between
 * retries), at most max bytes (0: unlimited: TG_ELIMIT beyond). *etag (may
 * be NULL) receives the ETag without quotes; the caller frees it.
 * TG_ENOTFOUND for a missing key (404 NoSuchKey). */
int tg_s3_get(char **etag, tg_s3 *s, const char *key, FILE *sink, uint64_t max);

/* Downloads key into memory (at most max bytes, 0: 64 MiB); *data is
 * NUL-terminated, *len bytes, freed by the caller. */
int tg_s3_get_mem(char **data, size_t *len, tg_s3 *s, const char *key, uint64_t max);

/* Uploads len bytes as key with a Content-Length (never chunked). */
int tg_s3_put(tg_s3 *s, const char *key, const void *data, size_t len, const char *content_type);

/* Parses one ListObjectsV2 answer (ListBucketResult XML): appends its
 * objects to *objs (*n of them, *cap allocated), and sets *next_token (the
 * NextContinuationToken, caller frees; NULL when not truncated). Exposed for
 * tests and fuzzing. Returns 0, TG_EFORMAT (with the byte offset) or
 * TG_ENOMEM. */
int tg_s3_parse_list(tg_s3_object **objs, size_t *n, size_t *cap, char **next_token, const char *xml, size_t len);

/* Builds the canonical query string S3 signs: pairs sorted by key, keys and
 * values RFC 3986 encoded, "key=" for an empty value. pairs: 2*npairs
 * strings (key, value; value may be NULL). Returns a new string or NULL. */
char *tg_s3_canonical_query(const char *const *pairs, size_t npairs);

#endif
