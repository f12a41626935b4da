/*
 * storeutil.h - shared helpers of the cmocka tests that fill a real job
 * store (daemon/store/) with finished runs: the runs a branch's history,
 * noise and base runs are computed from (test_branch_noise.c,
 * test_history_base.c).
 */
#ifndef TG_STOREUTIL_H
#define TG_STOREUTIL_H

#include "testutil.h"

#include "../daemon/store/store.h"

/* Fingerprints of two GPUs (run metrics' "fingerprint:..." keys). */
#define TG_TEST_H200 "fingerprint:NVIDIA H200|580.159.04|CUDA 13000|1"
#define TG_TEST_H100 "fingerprint:NVIDIA H100 80GB HBM3|580.159.04|CUDA 13000|1"

/* A new SQLite store in a new folder dir (cap bytes; under $TMPDIR, named
 * tg-TAG-XXXXXX); the caller closes the store and removes the folder
 * (tg_test_rm_tree). Fails the test on error. */
static inline tg_store *tg_test_sqlite_store(char *dir, size_t cap, const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	char url[4200];
	snprintf(dir, cap, "%.4000s/tg-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
	assert_non_null(mkdtemp(dir));
	snprintf(url, sizeof(url), "sqlite:%.4000s/store.db", dir);
	tg_store *s;
	tg_test_must(tg_store_open(&s, url));
	return s;
}

/* The commit of run i: 40 hex digits, distinct for each i. */
static inline void tg_test_commit_of(char commit[41], int i)
{
	snprintf(commit, 41, "%02u%038x", (unsigned)i % 100u, (unsigned)i);
}

/* Adds run i of acme/llm's workload train on branch at commit i (an hour
 * apart: run_time 1700000000 + 3600 i), with the n metrics m, trusted or
 * not, and takes it through claim, analysis and posting to done. Returns
 * its job id; fails the test on any store error. */
static inline int64_t tg_test_done_run(tg_store *s, int i, const char *branch, const tg_metric *m, size_t n,
                                       int trusted)
{
	tg_job j;
	memset(&j, 0, sizeof(j));
	char prefix[256], run_id[32], commit[41];
	snprintf(j.key, sizeof(j.key), "%064x", i);
	tg_test_commit_of(commit, i);
	snprintf(run_id, sizeof(run_id), "ci-%d", i);
	snprintf(prefix, sizeof(prefix), "acme/llm/%s/train/%s", commit, run_id);
	j.prefix = prefix;
	j.repo = (char *)"acme/llm";
	j.commit = commit;
	j.branch = (char *)branch;
	j.workload = (char *)"train";
	j.run_id = run_id;
	j.manifest = (char *)"{\"schema\":\"tracegate.run/1\"}";
	j.run_time = 1700000000 + 3600 * i;
	j.trusted = trusted;
	int64_t id = 0;
	int created;
	tg_test_must(tg_store_job_add(&id, &created, s, &j));
	tg_job c;
	tg_test_must(tg_store_job_claim(&c, s, "w", 60));
	assert_int_equal(c.id, id);
	tg_job_clear(&c);
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL));
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_ANALYSING, TG_JOB_POSTING, NULL));
	tg_test_must(tg_store_metrics_put(s, id, m, n));
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_POSTING, TG_JOB_DONE, NULL));
	return id;
}

#endif
