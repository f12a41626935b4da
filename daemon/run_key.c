/*
 * run_key.c - what makes a run one run (daemon_impl.h: tg_daemon_run_key;
 * docs/security.md, "One run is one run").
 *
 * A run is its repository, its commit in lower case, its workload and its
 * run id, and, when its manifest is signed with the configured key, its
 * signature: the job store keys it by the SHA-256 of these. Not by the
 * manifest's bytes: a manifest re-serialised (other whitespace, other key
 * order) or uploaded again under the commit's folder in capitals is the
 * same run, added once and posted once, so that nobody can multiply one
 * signed run into a pool of copies or make main's statuses post again.
 * The signature is part of the key so that an unsigned manifest uploaded
 * first under a run id cannot hold that run id against the target
 * branch's signed run; a signature that does not verify is no part of it
 * (an edited signed manifest is the unsigned run of its run id).
 */
#include "daemon_impl.h"
#include "../util/sha256.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* One field of the key: its length, then its bytes, so that no two lists
 * of fields give the same text. */
static void field(tg_sha256_ctx *c, const char *s, int lower)
{
	char len[24];
	size_t n = s ? strlen(s) : 0;
	int k = snprintf(len, sizeof(len), "%zu:", n);
	tg_sha256_update(c, len, (size_t)k);
	if (!lower) {
		tg_sha256_update(c, s, n);
		return;
	}
	char low[256];
	for (size_t i = 0; i < n; i += sizeof(low)) {
		size_t m = n - i < sizeof(low) ? n - i : sizeof(low);
		for (size_t j = 0; j < m; j++)
			low[j] = (char)tolower((unsigned char)s[i + j]);
		tg_sha256_update(c, low, m);
	}
}

int tg_daemon_run_key(char out[TG_SHA256_HEX_LEN + 1], const char *repo, const char *commit, const char *workload,
                      const char *run_id, const char *signature)
{
	tg_sha256_ctx c;
	uint8_t dig[TG_SHA256_LEN];
	tg_sha256_init(&c);
	tg_sha256_update(&c, "tracegate.run-key/1\n", 20);
	field(&c, repo, 0);
	field(&c, commit, 1);
	field(&c, workload, 0);
	field(&c, run_id, 0);
	field(&c, signature, 0);
	int rc = tg_sha256_final(dig, &c);
	tg_sha256_hex(out, dig);
	return rc;
}
