/*
 * fuzz_manifest.c - libFuzzer target for the run manifest
 * (daemon/manifest.c, tg_manifest_parse): the JSON a CI job writes last
 * into artifact storage, which the daemon trusts for where the traces are.
 *
 * Input: the manifest's text, found at the fixed storage key KEY below
 * (acme/llm, commit 0123...4567, workload "train", run "ci-1"). The seeds
 * in tests/fuzz/corpus/manifest/ are manifests as contrib/ci writes them,
 * and a few that must be refused.
 *
 * Beyond the sanitizers, the target aborts when the parser breaks one of
 * its documented promises (manifest.h):
 *   - a failure returns TG_EFORMAT or TG_ENOMEM, leaves *out NULL, and a
 *     TG_EFORMAT message is one line that starts with "KEY: ";
 *   - a parsed manifest speaks only for its folder: repo "acme/llm", the
 *     commit in lower case, workload "train", run_id "ci-1", prefix the
 *     key's folder; branch set, strings without control characters and at
 *     most 1024 bytes; pull_request >= 0; ci_url NULL or http(s);
 *   - 1 to 64 traces, every path a relative key inside the folder (no
 *     "..", ".", empty segment, leading '/', backslash or control
 *     character; never manifest.json), no path twice, ranks -1 or in
 *     0..1,000,000 and no rank twice; tg_manifest_trace_key is
 *     "prefix/path";
 *   - the limit holds: the same text with max_traces one below the count
 *     is refused with the message "KEY: N traces, more than the limit of
 *     N-1".
 *
 * Build and run: make fuzz FUZZ_TARGETS=manifest (build-fuzz/fuzz_manifest).
 */
#include "../../util/tg.h"
#include "../../daemon/manifest.h"
#include "../../daemon/storage/storage.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHA "0123456789abcdef0123456789abcdef01234567"
#define PREFIX "acme/llm/" SHA "/train/ci-1"
#define KEY PREFIX "/manifest.json"

#define CHECK(cond)                                                                                       \
	do {                                                                                              \
		if (!(cond)) {                                                                            \
			fprintf(stderr, "fuzz_manifest: %s:%d: broken promise: %s (%s)\n", __FILE__, __LINE__, \
			        #cond, tg_error_last());                                                        \
			abort();                                                                          \
		}                                                                                         \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void) { return "print_stacktrace=1"; }

static void check_error(int rc)
{
	const char *msg = tg_error_last();
	CHECK(rc == TG_EFORMAT || rc == TG_ENOMEM);
	CHECK(tg_error_last_code() == rc);
	CHECK(strchr(msg, '\n') == NULL && strchr(msg, '\r') == NULL);
	if (rc == TG_EFORMAT)
		CHECK(strncmp(msg, KEY ": ", strlen(KEY ": ")) == 0);
}

/* A string field: set, non-empty, at most 1024 bytes, no control character. */
static int clean(const char *s)
{
	if (!s || !*s || strlen(s) > 1024)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static void check_manifest(const tg_manifest *m)
{
	CHECK(!strcmp(m->repo, "acme/llm"));
	CHECK(!strcmp(m->commit, SHA));
	CHECK(!strcmp(m->workload, "train"));
	CHECK(!strcmp(m->run_id, "ci-1"));
	CHECK(!strcmp(m->prefix, PREFIX));
	CHECK(clean(m->branch));
	CHECK(!m->target_branch || clean(m->target_branch));
	CHECK(!m->ci_url || (clean(m->ci_url) && (!strncmp(m->ci_url, "https://", 8) ||
	                                          !strncmp(m->ci_url, "http://", 7))));
	CHECK(m->pr >= 0);
	CHECK(m->ntraces >= 1 && m->ntraces <= 64 && m->traces);
	for (size_t i = 0; i < m->ntraces; i++) {
		const tg_manifest_trace *t = &m->traces[i];
		CHECK(tg_storage_key_ok(t->path));
		CHECK(strcmp(t->path, "manifest.json") != 0);
		CHECK(t->rank == -1 || (t->rank >= 0 && t->rank <= 1000000));
		for (size_t k = 0; k < i; k++) {
			CHECK(strcmp(m->traces[k].path, t->path) != 0);
			CHECK(t->rank == -1 || m->traces[k].rank != t->rank);
		}
		char *key = tg_manifest_trace_key(m, i);
		CHECK(key != NULL);
		CHECK(!strncmp(key, PREFIX "/", strlen(PREFIX "/")) && !strcmp(key + strlen(PREFIX "/"), t->path));
		free(key);
	}
	CHECK(tg_manifest_trace_key(m, m->ntraces) == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tg_manifest *m = (tg_manifest *)1;
	int rc = tg_manifest_parse(&m, (const char *)data, size, KEY, 0);
	if (rc) {
		CHECK(m == NULL);
		check_error(rc);
		return 0;
	}
	CHECK(m != NULL);
	check_manifest(m);
	if (m->ntraces > 1) {
		tg_manifest *less = (tg_manifest *)1;
		uint32_t limit = (uint32_t)m->ntraces - 1;
		CHECK(tg_manifest_parse(&less, (const char *)data, size, KEY, limit) == TG_EFORMAT);
		CHECK(less == NULL);
		char want[256];
		snprintf(want, sizeof(want), KEY ": %zu traces, more than the limit of %u", m->ntraces, limit);
		CHECK(!strcmp(tg_error_last(), want));
	}
	tg_manifest_free(m);
	return 0;
}
