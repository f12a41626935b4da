/*
 * side.c - the traces of one run as run data (core/rundata.h; daemon_impl.h:
 * tg_side_load). Each trace is measured once: a run whose traces the store
 * lists (run_traces) is read from the store and never fetched again; a
 * signed run's trace is looked up by the digest its manifest gives before
 * it is read; one that must be read is fetched, read with the daemon's
 * limits, measured, and its run data kept under the digest of the bytes
 * its reader parsed (hashed as they are parsed: the same trace uploaded
 * again is one row; marked trusted when a trusted run's judgement computed
 * it: store.h). The trace and its tree are freed as soon as its run data
 * is made, so one analysis holds one trace's model at a time.
 * What is judged is always the decoded stored form, so that the first
 * judgement and every later one (a pooled run, a baseline) judge the same
 * numbers.
 */
#include "daemon_impl.h"
#include "log.h"
#include "sha256.h"
#include "signature.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tg_side_free(tg_side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		if (!(s->borrowed && s->borrowed[i]))
			tg_rundata_free(s->data ? s->data[i] : NULL);
		free(s->names ? s->names[i] : NULL);
	}
	free(s->data);
	free(s->borrowed);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

int tg_side_append(tg_side *to, tg_side *from)
{
	size_t n = to->n + from->n;
	tg_rundata **da = realloc(to->data, (n ? n : 1) * sizeof(*da));
	if (da)
		to->data = da;
	uint8_t *bo = da ? realloc(to->borrowed, n ? n : 1) : NULL;
	if (bo)
		to->borrowed = bo;
	char **na = bo ? realloc(to->names, (n ? n : 1) * sizeof(*na)) : NULL;
	if (!na)
		return tg_error_set(TG_ENOMEM, "out of memory");
	to->names = na;
	memcpy(to->data + to->n, from->data, from->n * sizeof(*da));
	memcpy(to->borrowed + to->n, from->borrowed, from->n);
	memcpy(to->names + to->n, from->names, from->n * sizeof(*na));
	to->n = n;
	to->json_bytes += from->json_bytes;
	free(from->data);
	free(from->borrowed);
	free(from->names);
	memset(from, 0, sizeof(*from));
	return 0;
}

/* Trace indices of m sorted by rank (traces without a rank keep their order,
 * after those with one). */
static void by_rank(size_t *order, const tg_manifest *m)
{
	for (size_t i = 0; i < m->ntraces; i++)
		order[i] = i;
	for (size_t i = 1; i < m->ntraces; i++)
		for (size_t k = i; k > 0; k--) {
			int64_t a = m->traces[order[k - 1]].rank, b = m->traces[order[k]].rank;
			int swap = (a < 0 && b >= 0) || (a >= 0 && b >= 0 && b < a);
			if (!swap)
				break;
			size_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
}

/* A run's fault goes into its status on the forge: the message names the
 * storage key, not where the storage is on the daemon's host (a local
 * root "/srv/artifacts: " before the key is dropped). */
static void strip_storage(const tg_daemon *d)
{
	const char *where = tg_storage_describe(d->storage), *msg = tg_error_last();
	size_t n = strlen(where);
	if (n && !strncmp(msg, where, n) && !strncmp(msg + n, ": ", 2)) {
		char *rest = strdup(msg + n + 2);
		if (rest)
			tg_error_set(tg_error_last_code(), "%s", rest);
		free(rest);
	}
}

/* Fetches the trace at key into *fd. Missing, a link or not a regular
 * file, outside the run, too large: the run is at fault (*permanent); an
 * unreachable storage may come back. */
static int fetch_trace(int *fd, int *permanent, tg_daemon *d, const char *key)
{
	int rc = tg_storage_fetch(fd, d->storage, key, d->tmp_dir, d->cfg->max_trace_bytes);
	if (!rc)
		return 0;
	*permanent = rc == TG_ENOTFOUND || rc == TG_EINVAL || rc == TG_ELIMIT;
	if (rc == TG_ENOTFOUND)
		tg_error_set(rc, "%s: the manifest names a trace that is not in storage", key);
	else if (*permanent)
		strip_storage(d);
	return rc;
}

/* What a trace's reader hands its raw-bytes observer: the digest of the
 * bytes it parses, and the test hook that lets an attack test change the
 * file while it is read (TRACEGATE_TEST_STALL "reading": after the first
 * bytes). */
struct read_watch {
	tg_signature_digest digest;
	int stalled;
};

static void watch_bytes(void *ctx, const void *data, size_t len)
{
	struct read_watch *w = ctx;
	tg_signature_digest_observe(&w->digest, data, len);
	if (!w->stalled) {
		w->stalled = 1;
		tg_daemon_test_stall("reading", 0);
	}
}

/* A trace the reader found malformed: the rest of the file (fd's offset is
 * the reader's) joins the digest, so that a file changed after its
 * manifest was written is named for what it is (its sha256 differs), not
 * for the first bad byte of whatever replaced it. */
static void digest_rest(struct read_watch *w, int fd)
{
	char buf[65536];
	ssize_t got;
	while ((got = read(fd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR))
		if (got > 0)
			tg_signature_digest_observe(&w->digest, buf, (size_t)got);
}

/* Reads trace t (at key, open on fd) into *trace with the daemon's limits;
 * limits.max_run_bytes: what is left of it after the run's *run_json bytes
 * of JSON so far caps this trace when that is less than
 * limits.max_trace_bytes (*run_json grows by this trace's). Every trace is
 * hashed as it is read (the reader's raw-bytes observer sees every byte it
 * parses, to the end of the file: core/source.h), and digest gets the
 * SHA-256 of the bytes parsed: the key its run data is kept under. A trace
 * whose manifest gives its sha256 is thrown away when the digest differs:
 * the bytes hashed are the bytes parsed, whatever is written to the file
 * meanwhile. */
static int read_trace(tg_trace **trace, char digest[TG_SHA256_HEX_LEN + 1], uint64_t *run_json, tg_daemon *d,
                      const tg_manifest_trace *t, int fd, const char *key)
{
	uint64_t run_max = d->cfg->max_run_bytes;
	tg_read_opts ro = d->read;
	uint64_t left = run_max > *run_json ? run_max - *run_json : 0;
	int run_capped = run_max && (!ro.source.max_bytes || left < ro.source.max_bytes);
	if (run_capped)
		ro.source.max_bytes = left ? left : 1;
	struct read_watch w;
	memset(&w, 0, sizeof(w));
	tg_signature_digest_init(&w.digest);
	ro.source.observe = watch_bytes;
	ro.source.observe_ctx = &w;
	int rc = run_capped && !left ? TG_ELIMIT : tg_trace_read_fd_named(trace, fd, key, &ro);
	if (rc == TG_ELIMIT && run_capped && (!left || strstr(tg_error_last(), " bytes of JSON (limit")))
		tg_error_set(TG_ELIMIT, "%s: the run's traces hold more than limits.max_run_bytes (%llu bytes) of JSON", key,
		             (unsigned long long)run_max);
	if (rc == TG_EFORMAT && t->sha256[0]) {
		char why[1024];
		snprintf(why, sizeof(why), "%s", tg_error_last());
		digest_rest(&w, fd);
		if (!tg_signature_digest_check(&w.digest, t->sha256, key))
			tg_error_set(rc, "%s", why); /* the signed bytes themselves are malformed */
	} else if (!rc && t->sha256[0] && (rc = tg_signature_digest_check(&w.digest, t->sha256, key))) {
		tg_trace_free(*trace);
		*trace = NULL;
	} else if (!rc && t->sha256[0]) {
		for (size_t k = 0; k <= TG_SHA256_HEX_LEN; k++)
			digest[k] = (char)tolower((unsigned char)t->sha256[k]);
	} else if (!rc) {
		uint8_t dig[TG_SHA256_LEN];
		tg_sha256_final(dig, &w.digest.c);
		tg_sha256_hex(digest, dig);
	}
	if (!rc)
		*run_json += tg_trace_stats_get(*trace)->json_bytes;
	return rc;
}

/* Notes, in a job's process, that it decoded the run data of digest from
 * the store: the daemon keeps it for the jobs after this one
 * (data_cache.c). Best effort. */
static void note_used(tg_daemon *d, const char *digest, int trusted)
{
	if (!d->in_child || tg_grow((void **)&d->used, &d->capused, d->nused + 1, sizeof(*d->used)))
		return;
	snprintf(d->used[d->nused].digest, sizeof(d->used[d->nused].digest), "%s", digest);
	d->used[d->nused++].trusted = (uint8_t)(trusted != 0);
}

/* The run data kept under digest (trusted: kept as trusted only) into
 * *rd: the daemon's cache's (*borrowed set: not to be freed), else decoded
 * from the store. TG_ENOTFOUND when none, or when what is kept no longer
 * decodes (logged: the trace is read again); else the store's error. */
static int data_from_store(tg_rundata **rd, int *borrowed, tg_daemon *d, const char *digest, int trusted,
                           const char *what)
{
	const tg_rundata *cached = tg_data_cache_get(d->cache, digest, trusted);
	*borrowed = cached != NULL;
	if (cached) {
		*rd = (tg_rundata *)cached;
		return 0;
	}
	void *blob = NULL;
	size_t len = 0;
	int rc = tg_store_trace_data_get(&blob, &len, d->store, digest, TG_RUNDATA_FORMAT, trusted);
	if (rc)
		return rc;
	rc = tg_rundata_decode(rd, blob, len, 0, what);
	free(blob);
	if (rc == TG_EFORMAT) {
		tg_log(TG_LOG_WARN, "%s: the run data kept for it cannot be used (%s): reading its trace again", what,
		       tg_error_last());
		return tg_error_set(TG_ENOTFOUND, "%s: no usable run data", what);
	}
	if (!rc)
		note_used(d, digest, trusted);
	return rc;
}

/* Measures trace (its tree built here and freed), keeps the encoded run
 * data under digest and gives back the decoded form in *rd: the numbers a
 * later judgement reads from the store. Run data too large for the store
 * is used without being kept (logged). */
static int data_from_trace(tg_rundata **rd, tg_daemon *d, tg_trace *trace, const char *digest, int trusted,
                           const char *what)
{
	tg_tree *tree = NULL;
	tg_rundata *built = NULL;
	void *blob = NULL;
	size_t len = 0;
	int rc = tg_tree_build(&tree, trace);
	if (!rc) {
		tg_trace_drop_flows(trace);
		rc = tg_rundata_build(&built, tree);
	}
	uint64_t json = built ? tg_rundata_json_bytes(built) : 0;
	if (!rc)
		rc = tg_rundata_encode(&blob, &len, built);
	tg_rundata_free(built);
	tg_tree_free(tree);
	if (!rc)
		rc = tg_rundata_decode(rd, blob, len, 0, what);
	if (!rc) {
		int pr = tg_store_trace_data_put(d->store, digest, TG_RUNDATA_FORMAT, json, trusted, blob, len);
		if (pr == TG_ELIMIT)
			tg_log(TG_LOG_WARN, "%s: %s (it is read from its trace at each judgement)", what,
			       tg_error_last());
		else if (pr) {
			tg_rundata_free(*rd);
			*rd = NULL;
			rc = pr;
		}
	}
	if (!rc)
		tg_log(TG_LOG_INFO, "%s: %llu bytes of JSON measured, %zu bytes of run data kept", what,
		       (unsigned long long)json, len);
	free(blob);
	return rc;
}

/* What load_trace knows of the run. */
struct run_read {
	tg_daemon *d;
	const tg_manifest *m;
	int trusted;       /* the run is trusted: its data is kept (and read) as trusted */
	uint64_t run_json; /* JSON of its traces so far (limits.max_run_bytes) */
	int *permanent;
};

/* Trace idx of the run: its run data measured from storage, kept under
 * the digest of the bytes parsed (into digest). */
static int data_from_storage(tg_rundata **rd, char digest[TG_SHA256_HEX_LEN + 1], struct run_read *r, size_t idx,
                             const char *what)
{
	const tg_manifest_trace *t = &r->m->traces[idx];
	char *key = tg_manifest_trace_key(r->m, idx);
	if (!key)
		return TG_ENOMEM;
	tg_trace *trace = NULL;
	int fd = -1, rc = fetch_trace(&fd, r->permanent, r->d, key);
	if (!rc) {
		rc = read_trace(&trace, digest, &r->run_json, r->d, t, fd, key);
		if (rc && rc != TG_ENOMEM) /* a malformed trace or a limit; or a trace deleted under us */
			*r->permanent = 1;
		close(fd);
	}
	if (!rc) {
		tg_log(TG_LOG_DEBUG, "read %s: %zu bytes of JSON", key, (size_t)tg_trace_stats_get(trace)->json_bytes);
		rc = data_from_trace(rd, r->d, trace, digest, r->trusted, what);
	}
	tg_trace_free(trace);
	free(key);
	return rc;
}

/* The run's limit on its traces' JSON, for data read from the store. */
static int run_json_ok(const struct run_read *r, const char *what)
{
	uint64_t run_max = r->d->cfg->max_run_bytes;
	if (!run_max || r->run_json <= run_max)
		return 0;
	*r->permanent = 1;
	return tg_error_set(TG_ELIMIT, "%s: the run's traces hold more than limits.max_run_bytes (%llu bytes) of JSON",
	                    what, (unsigned long long)run_max);
}

int tg_side_load(tg_side *s, int *permanent, tg_daemon *d, const tg_job *j, const tg_manifest *m)
{
	memset(s, 0, sizeof(*s));
	*permanent = 0;
	size_t n = m->ntraces, nst = 0;
	tg_run_trace *listed = NULL, *now = tg_calloc(n ? n : 1, sizeof(*now));
	size_t *order = calloc(n ? n : 1, sizeof(size_t));
	s->data = tg_calloc(n ? n : 1, sizeof(*s->data));
	s->borrowed = tg_calloc(n ? n : 1, 1);
	s->names = tg_calloc(n ? n : 1, sizeof(char *));
	int rc = !order || !now || !s->data || !s->borrowed || !s->names ? tg_error_set(TG_ENOMEM, "out of memory") : 0;
	if (!rc)
		rc = tg_store_run_traces_get(&listed, &nst, d->store, j->id);
	s->n = rc ? 0 : n;
	if (!rc)
		by_rank(order, m);
	struct run_read r = {d, m, j->trusted, 0, permanent};
	size_t from_store = 0;
	for (size_t i = 0; i < s->n && !rc; i++) {
		const tg_manifest_trace *t = &m->traces[order[i]];
		/* shown in the comment: "<run-id>/<path>" */
		if (asprintf(&s->names[i], "%s/%s", m->run_id, t->path) < 0)
			s->names[i] = NULL;
		char what[512];
		snprintf(what, sizeof(what), "%s/%s", m->prefix, t->path);
		/* the digest a signed manifest gives is vouched for by the key; an
		 * unsigned one is anyone's word: its bytes are read */
		int signed_run = d->cfg->storage.signing_key.value && j->trusted;
		const char *known = nst == n ? listed[i].digest : signed_run && t->sha256[0] ? t->sha256 : "";
		for (size_t k = 0; k <= TG_SHA256_HEX_LEN && known[0]; k++)
			now[i].digest[k] = (char)tolower((unsigned char)known[k]);
		int borrowed = 0;
		rc = known[0] ? data_from_store(&s->data[i], &borrowed, d, now[i].digest, j->trusted, what)
		              : TG_ENOTFOUND;
		if (!rc) {
			from_store++;
			r.run_json += tg_rundata_json_bytes(s->data[i]);
			rc = run_json_ok(&r, what);
		} else if (rc == TG_ENOTFOUND) {
			rc = data_from_storage(&s->data[i], now[i].digest, &r, order[i], what);
			if (!rc)
				rc = run_json_ok(&r, what);
		}
		s->borrowed[i] = (uint8_t)borrowed;
		if (!rc) {
			now[i].json_bytes = tg_rundata_json_bytes(s->data[i]);
			s->json_bytes += now[i].json_bytes;
		}
	}
	if (!rc && (nst != n || from_store != n))
		rc = tg_store_run_traces_put(d->store, j->id, now, n);
	if (!rc)
		tg_log(TG_LOG_DEBUG, "run %s: %zu trace%s, %zu from stored run data", m->prefix, n, n == 1 ? "" : "s",
		       from_store);
	free(order);
	free(listed);
	free(now);
	if (rc)
		tg_side_free(s);
	return rc;
}
