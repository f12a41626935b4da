/*
 * signature.c - the canonical text of a manifest and its HMAC-SHA256
 * (signature.h).
 */
#include "signature.h"
#include "../util/tg.h"
#include "../util/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tg_signature_canonical(char **out, const tg_manifest *m)
{
	*out = NULL;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return tg_error_set(TG_ENOMEM, "out of memory");
	fprintf(f, "tracegate.sig/1\nrepo=%s\ncommit=%s\nbranch=%s\npull_request=", m->repo, m->commit, m->branch);
	if (m->pr > 0)
		fprintf(f, "%lld", (long long)m->pr);
	fprintf(f, "\ntarget_branch=%s\nworkload=%s\nrun_id=%s\ncreated_at=%s\nci_url=%s\n",
	        m->target_branch ? m->target_branch : "", m->workload, m->run_id,
	        m->created_at_text ? m->created_at_text : "", m->ci_url ? m->ci_url : "");
	for (size_t i = 0; i < m->ntraces; i++) {
		fprintf(f, "trace=%s ", m->traces[i].sha256);
		if (m->traces[i].rank >= 0)
			fprintf(f, "%lld", (long long)m->traces[i].rank);
		else
			fputc('-', f);
		fprintf(f, " %s\n", m->traces[i].path);
	}
	if (fclose(f)) {
		free(s);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	*out = s;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int tg_signature_check(const char **why, const tg_manifest *m, const char *key, size_t keylen)
{
	*why = NULL;
	const size_t pl = strlen(TG_SIGNATURE_PREFIX);
	if (!m->signature) {
		*why = "unsigned";
		return 0;
	}
	uint8_t given[TG_SHA256_LEN];
	if (strncmp(m->signature, TG_SIGNATURE_PREFIX, pl) || strlen(m->signature) != pl + 2 * TG_SHA256_LEN) {
		*why = "the signature is not hmac-sha256:<64 lower-case hex>";
		return 0;
	}
	for (size_t i = 0; i < TG_SHA256_LEN; i++) {
		int hi = hexval(m->signature[pl + 2 * i]), lo = hexval(m->signature[pl + 2 * i + 1]);
		if (hi < 0 || lo < 0) {
			*why = "the signature is not hmac-sha256:<64 lower-case hex>";
			return 0;
		}
		given[i] = (uint8_t)(hi << 4 | lo);
	}
	for (size_t i = 0; i < m->ntraces; i++)
		if (!m->traces[i].sha256[0]) {
			*why = "a signed manifest must give every trace's sha256";
			return 0;
		}
	char *text = NULL;
	if (tg_signature_canonical(&text, m)) {
		*why = "out of memory";
		return 0;
	}
	uint8_t want[TG_SHA256_LEN];
	int rc = tg_hmac_sha256(want, key, keylen, text, strlen(text));
	free(text);
	if (rc) {
		*why = "the signature could not be computed (libcrypto failed)";
		return 0;
	}
	if (!tg_sha256_equal(given, want, TG_SHA256_LEN)) {
		*why = "the signature does not match (another key, or the manifest was changed)";
		return 0;
	}
	return 1;
}

void tg_signature_digest_init(tg_signature_digest *d)
{
	tg_sha256_init(&d->c);
	d->bytes = 0;
}

void tg_signature_digest_observe(void *d, const void *data, size_t len)
{
	tg_signature_digest *g = d;
	tg_sha256_update(&g->c, data, len);
	g->bytes += len;
}

void tg_signature_digest_free(tg_signature_digest *d)
{
	tg_sha256_free(&d->c);
}

int tg_signature_digest_check(tg_signature_digest *d, const char *want_hex, const char *name)
{
	uint8_t dig[TG_SHA256_LEN];
	char hex[TG_SHA256_HEX_LEN + 1];
	if (tg_sha256_final(dig, &d->c))
		return tg_error_set(TG_ENOMEM, "%s: its sha256 could not be computed (libcrypto failed)", name);
	tg_sha256_hex(hex, dig);
	if (strcmp(hex, want_hex))
		return tg_error_set(TG_EFORMAT, "%s: does not match the sha256 its manifest gives", name);
	return 0;
}
