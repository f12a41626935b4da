/*
 * sha256.h - SHA-256 (FIPS 180-4), in one call or streamed, and its
 * lower-case hex form.
 *
 * The S3 client needs the hash of every request body (the
 * x-amz-content-sha256 header that libcurl 7.88 does not add), and the
 * daemon keys runs by the content hash of their files and checks the
 * HMAC that signs a trusted run's manifest.
 */
#ifndef TG_SHA256_H
#define TG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define TG_SHA256_LEN 32
#define TG_SHA256_HEX_LEN 64

typedef struct tg_sha256_ctx {
	uint32_t h[8];
	uint64_t bytes;   /* hashed so far */
	uint8_t buf[64];  /* a partial block */
	size_t nbuf;
} tg_sha256_ctx;

/* Starts a streamed hash. */
void tg_sha256_init(tg_sha256_ctx *c);

/* Hashes len more bytes of data (data may be NULL when len is 0). */
void tg_sha256_update(tg_sha256_ctx *c, const void *data, size_t len);

/* Writes the digest of everything hashed into out; c must be initialised
 * again before another use. */
void tg_sha256_final(uint8_t out[TG_SHA256_LEN], tg_sha256_ctx *c);

/* The digest of len bytes of data, in one call. */
void tg_sha256(uint8_t out[TG_SHA256_LEN], const void *data, size_t len);

/* HMAC-SHA256 (RFC 2104) of len bytes of data under a key of keylen
 * bytes: the signature of a run's manifest (signature.h). */
void tg_hmac_sha256(uint8_t out[TG_SHA256_LEN], const void *key, size_t keylen, const void *data, size_t len);

/* Writes the 64 lower-case hex digits of digest and a NUL into out. */
void tg_sha256_hex(char out[TG_SHA256_HEX_LEN + 1], const uint8_t digest[TG_SHA256_LEN]);

#endif
