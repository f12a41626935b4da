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
 * file against it as it reads it (side.c, tg_signature_digest). contrib/ci/tracegate-upload.sh
 * writes the same text with the same rules.
 */
#ifndef TG_SIGNATURE_H
#define TG_SIGNATURE_H

#include "manifest.h"
#include "../util/sha256.h"

#define TG_SIGNATURE_PREFIX "hmac-sha256:"

/* The canonical text of m that the signature covers; the caller frees
 * *out. TG_ENOMEM only. */
int tg_signature_canonical(char **out, const tg_manifest *m);

/* Whether m is signed with key (keylen bytes): 1 when its signature
 * matches (compared in constant time); 0 when it is unsigned, malformed,
 * lacks a trace's sha256 or does not match, with the reason in *why (a
 * static string). */
int tg_signature_check(const char **why, const tg_manifest *m, const char *key, size_t keylen);

/* The SHA-256 of a trace taken as the reader reads it: the bytes hashed
 * are the bytes parsed (docs/security.md, "Parse what was hashed"). Set
 * tg_signature_digest_observe as the reader's raw-bytes observer
 * (core/trace/source.h, tg_source_opts.observe) with the digest as its context,
 * read the trace, then check: a file changed while it was read gives
 * another digest, and the trace read is thrown away. A digest that is not
 * checked is released with tg_signature_digest_free. */
typedef struct tg_signature_digest {
	tg_sha256_ctx c;
	uint64_t bytes; /* raw bytes seen */
} tg_signature_digest;

void tg_signature_digest_init(tg_signature_digest *d);

/* The observer: adds len bytes at data to the digest d (a
 * tg_signature_digest *). */
void tg_signature_digest_observe(void *d, const void *data, size_t len);

/* Whether what d saw has the SHA-256 want_hex (64 lower-case hex) that
 * its manifest gives; name (the storage key) is for the message. Returns
 * 0, TG_EFORMAT "NAME: does not match the sha256 its manifest gives", or
 * TG_ENOMEM when libcrypto failed. d is finished and holds nothing (init
 * it again to reuse it). */
int tg_signature_digest_check(tg_signature_digest *d, const char *want_hex, const char *name);

/* Releases what d holds when it will not be checked (after a check, or
 * on a digest that saw no bytes, it does nothing). */
void tg_signature_digest_free(tg_signature_digest *d);

#endif
