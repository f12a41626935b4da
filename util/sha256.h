/*
 * sha256.h - SHA-256 (FIPS 180-4), in one call or streamed, HMAC-SHA256
 * (RFC 2104), a constant-time comparison for MACs, and the lower-case hex
 * form of a digest: a thin wrapper over libcrypto (OpenSSL 3).
 *
 * The S3 client needs the hash of every request body (the
 * x-amz-content-sha256 header that libcurl 7.88 does not add), and the
 * daemon keys runs by the content hash of their files and checks the
 * HMAC that signs a trusted run's manifest.
 *
 * libcrypto hashes in a context it allocates, so a hash can fail (out of
 * memory, or a libcrypto without SHA-256): the functions that give a
 * digest return 0 or a code with the message set (util/tg.h): TG_ENOMEM,
 * as libcrypto fails only for want of memory or when it is built without
 * SHA-256, and the HMAC's TG_EINVAL for a key longer than it takes; and
 * write 32 zero bytes into out when they fail, so that a caller that
 * ignores the code reads no uninitialised memory. A streamed context is
 * started by tg_sha256_init (which cannot fail: the libcrypto context is
 * made with the first bytes, or at the end when there are none), fed by
 * tg_sha256_update, and released by tg_sha256_final, or by tg_sha256_free
 * when it is abandoned before its end. A context is one thread's at a
 * time; different contexts may be used in parallel.
 */
#ifndef TG_SHA256_H
#define TG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define TG_SHA256_LEN 32
#define TG_SHA256_HEX_LEN 64

struct evp_md_ctx_st; /* libcrypto's EVP_MD_CTX */

typedef struct tg_sha256_ctx {
	struct evp_md_ctx_st *md; /* NULL until the first bytes, and after the end */
	int failed;               /* TG_ENOMEM once libcrypto failed, else 0 */
} tg_sha256_ctx;

/* Starts a streamed hash; nothing is allocated yet. */
void tg_sha256_init(tg_sha256_ctx *c);

/* Hashes len more bytes of data (data may be NULL when len is 0). A
 * failure is kept in c and told by tg_sha256_final. */
void tg_sha256_update(tg_sha256_ctx *c, const void *data, size_t len);

/* Writes the digest of everything hashed into out and releases what c
 * holds; c must be initialised again before another use. Returns 0, or
 * TG_ENOMEM (libcrypto failed: the message says how) with out zeroed. */
int tg_sha256_final(uint8_t out[TG_SHA256_LEN], tg_sha256_ctx *c);

/* Releases a context that will not be finished (after tg_sha256_final,
 * or on a context that saw no bytes, it does nothing). */
void tg_sha256_free(tg_sha256_ctx *c);

/* The digest of len bytes of data, in one call. Returns 0, or TG_ENOMEM
 * with out zeroed. */
int tg_sha256(uint8_t out[TG_SHA256_LEN], const void *data, size_t len);

/* HMAC-SHA256 (RFC 2104) of len bytes of data under a key of keylen
 * bytes (key may be NULL when keylen is 0): the signature of a run's
 * manifest (signature.h). Returns 0, TG_EINVAL (a key of more than INT_MAX
 * bytes, more than libcrypto takes) or TG_ENOMEM, with out zeroed. */
int tg_hmac_sha256(uint8_t out[TG_SHA256_LEN], const void *key, size_t keylen, const void *data, size_t len);

/* Whether the len bytes at a and b are the same, in a time that does not
 * depend on where they differ (CRYPTO_memcmp): how a MAC is checked. */
int tg_sha256_equal(const void *a, const void *b, size_t len);

/* Writes the 64 lower-case hex digits of digest and a NUL into out. */
void tg_sha256_hex(char out[TG_SHA256_HEX_LEN + 1], const uint8_t digest[TG_SHA256_LEN]);

#endif
