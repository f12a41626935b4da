/*
 * signature.h - the signature of a run's manifest: what makes a run
 * trusted (docs/security.md, "Signed runs").
 *
 * Whoever can write to the artifact storage is not trusted: every
 * pull-request job holds the upload key. Only the CI jobs of the target
 * branches hold the signing key (storage.signing_key); a run they upload
 * carries
 *
 *   "signature": "hmac-sha256:<64 lower-case hex>"
 *
 * the HMAC-SHA256, under that key, of the manifest's canonical text: one
 * line "name=value\n" per field, in this order, a missing field as an
 * empty value, then one line per trace in the manifest's order:
 *
 *   tracegate.sig/1
 *   repo=<repo>
 *   commit=<commit, lower case>
 *   branch=<branch>
 *   pull_request=<decimal, or empty>
 *   target_branch=<target_branch, or empty>
 *   workload=<workload>
 *   run_id=<run_id>
 *   created_at=<created_at as written, or empty>
 *   ci_url=<ci_url, or empty>
 *   trace=<sha256 of the file, 64 lower-case hex> <rank, or -> <path>
 *
 * Values are the JSON strings decoded (UTF-8); the manifest refuses
 * control characters in them, so a value cannot end its line early. Every
 * trace of a signed manifest names its sha256, and the daemon checks each
 * file against it when it reads it (side.c). contrib/ci/tracegate-upload.sh
 * writes the same text with the same rules.
 */
#ifndef TG_SIGNATURE_H
#define TG_SIGNATURE_H

#include "manifest.h"

#define TG_SIGNATURE_PREFIX "hmac-sha256:"

/* The canonical text of m that the signature covers; the caller frees
 * *out. TG_ENOMEM only. */
int tg_signature_canonical(char **out, const tg_manifest *m);

/* Whether m is signed with key (keylen bytes): 1 when its signature
 * matches (compared in constant time); 0 when it is unsigned, malformed,
 * lacks a trace's sha256 or does not match, with the reason in *why (a
 * static string). */
int tg_signature_check(const char **why, const tg_manifest *m, const char *key, size_t keylen);

/* Checks that the file at path has the SHA-256 want_hex (64 lower-case
 * hex) that its manifest gives; name (the storage key) is for the message.
 * Returns 0, TG_EFORMAT "NAME: does not match the sha256 its manifest
 * gives" or TG_EIO. */
int tg_signature_check_file(const char *path, const char *want_hex, const char *name);

/* The same for the open regular file fd, read to its end and rewound to
 * its start, so that the bytes checked are the bytes then parsed from the
 * same descriptor (no window to swap the file). */
int tg_signature_check_fd(int fd, const char *want_hex, const char *name);

#endif
