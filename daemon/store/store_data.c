/*
 * store_data.c - the store's run data and outcomes (store.h, "run data"):
 * arguments checked, then the backend's op. A trace's run data is kept
 * under the SHA-256 of its bytes, so that a trace shared by several runs
 * (or uploaded again) is measured once; a run lists its traces' digests in
 * rank order; a job's outcome is kept with its run, in the store every
 * daemon shares, so that whichever daemon finishes the job posts what was
 * computed. docs/store.md, "Run data".
 */
#include "store_impl.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Run data beyond this is not kept (the trace is read for each judgement
 * instead): under both backends' limit on one value (1 GB). A trace of
 * 16 GiB of JSON makes about 700 MB. */
#define MAX_DATA_BYTES (900u << 20)

static int64_t data_now(const tg_store *s)
{
	return s->fixed_now ? s->fixed_now : (int64_t)time(NULL);
}

static int digest_ok(const char *d)
{
	if (!d || strlen(d) != 64)
		return 0;
	for (const char *p = d; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

int tg_store_trace_data_put(tg_store *s, const char *digest, int format, uint64_t json_bytes, int trusted,
                            const void *data, size_t len)
{
	if (!digest_ok(digest))
		return tg_error_set(TG_EINVAL, "store: run data: the digest is not 64 lower-case hex digits");
	if (!data || !len)
		return tg_error_set(TG_EINVAL, "store: run data: nothing to keep");
	if (len > MAX_DATA_BYTES)
		return tg_error_set(TG_ELIMIT, "store: run data of %zu bytes: more than the %u bytes one value holds",
		                    len, MAX_DATA_BYTES);
	if (json_bytes > (uint64_t)INT64_MAX)
		return tg_error_set(TG_EINVAL, "store: run data: JSON size out of range");
	return s->ops->data_put(s, digest, format, json_bytes, trusted != 0, data, len, data_now(s));
}

int tg_store_trace_data_get(void **data, size_t *len, tg_store *s, const char *digest, int format, int trusted)
{
	*data = NULL;
	*len = 0;
	if (!digest_ok(digest))
		return tg_error_set(TG_EINVAL, "store: run data: the digest is not 64 lower-case hex digits");
	return s->ops->data_get(s, digest, format, trusted != 0, data, len);
}

int tg_store_run_traces_put(tg_store *s, int64_t id, const tg_run_trace *t, size_t n)
{
	if (n && !t)
		return tg_error_set(TG_EINVAL, "store: no traces");
	for (size_t i = 0; i < n; i++)
		if (!digest_ok(t[i].digest) || t[i].json_bytes > (uint64_t)INT64_MAX)
			return tg_error_set(TG_EINVAL, "store: trace %zu of run %lld: bad digest or size", i,
			                    (long long)id);
	return s->ops->run_traces_put(s, id, t, n);
}

int tg_store_run_traces_get(tg_run_trace **out, size_t *n, tg_store *s, int64_t id)
{
	*out = NULL;
	*n = 0;
	return s->ops->run_traces_get(s, id, out, n);
}

int tg_store_outcome_put(tg_store *s, int64_t id, const char *outcome, const char *comment)
{
	if (!outcome || !*outcome)
		return tg_error_set(TG_EINVAL, "store: no outcome");
	return s->ops->outcome_put(s, id, outcome, comment, data_now(s));
}

int tg_store_outcome_get(char **outcome, char **comment, tg_store *s, int64_t id)
{
	*outcome = NULL;
	*comment = NULL;
	return s->ops->outcome_get(s, id, outcome, comment);
}
