/*
 * side.c - the traces of one run as run data (core/diff/rundata.h; daemon_impl.h:
 * tg_side_load). Each trace is measured once: a run whose traces the store
 * lists (run_traces) is read from the store and never fetched again; a
 * signed run's trace is looked up by the digest its manifest gives before
 * it is read; one that must be read is fetched, read with the daemon's
 * limits, measured, and its run data kept under the digest of the bytes
 * its reader parsed (hashed as they are parsed: the same trace uploaded
 * again is one row; marked trusted when a trusted run's judgement computed
 * it: store.h). The trace and its tree are freed as soon as its run data
 * is made, so one analysis holds one trace's model at a time; only the
 * run being judged keeps those of its traces (TG_SIDE_KEEP_TREES) until
 * the findings across its ranks are known (tg_side_across), which need
 * every rank's trace at once, and are kept in the store too.
 * What is judged is always the decoded stored form, so that the first
 * judgement and every later one (a pooled run, a baseline) judge the same
 * numbers.
 */
#include "daemon_impl.h"
#include "../core/analysis/ranks.h"
#include "repos.h"
#include "../util/log.h"
#include "../util/sha256.h"
#include "signature.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Frees the trees (and traces) s keeps. */
static void drop_trees(tg_side *s)
{
	for (size_t i = 0; s->trees && i < s->n; i++) {
		tg_tree_free(s->trees[i]);
		tg_trace_free(s->traces[i]);
		s->trees[i] = NULL;
		s->traces[i] = NULL;
	}
}

void tg_side_free(tg_side *s)
{
	drop_trees(s);
	for (size_t i = 0; i < s->n; i++) {
		if (!(s->borrowed && s->borrowed[i]))
			tg_rundata_free(s->data ? s->data[i] : NULL);
		free(s->names ? s->names[i] : NULL);
		free(s->keys ? s->keys[i] : NULL);
	}
	free(s->data);
	free(s->borrowed);
	free(s->names);
	free(s->keys);
	free(s->ranks);
	free(s->digests);
	free(s->trusted);
	free(s->traces);
	free(s->trees);
	tg_findings_free(s->across);
	memset(s, 0, sizeof(*s));
}

/* The per-trace arrays of s for n traces (zeroed): 0 or TG_ENOMEM. */
static int side_alloc(tg_side *s, size_t n)
{
	s->data = tg_calloc(n ? n : 1, sizeof(*s->data));
	s->borrowed = tg_calloc(n ? n : 1, 1);
	s->names = tg_calloc(n ? n : 1, sizeof(*s->names));
	s->keys = tg_calloc(n ? n : 1, sizeof(*s->keys));
	s->ranks = tg_calloc(n ? n : 1, sizeof(*s->ranks));
	s->digests = tg_calloc(n ? n : 1, sizeof(*s->digests));
	s->trusted = tg_calloc(n ? n : 1, 1);
	s->traces = tg_calloc(n ? n : 1, sizeof(*s->traces));
	s->trees = tg_calloc(n ? n : 1, sizeof(*s->trees));
	return s->data && s->borrowed && s->names && s->keys && s->ranks && s->digests && s->trusted && s->traces &&
	                       s->trees
	               ? 0
	               : tg_error_set(TG_ENOMEM, "out of memory");
}

/* p (an array of n items of `each` bytes) grown to n + more items, from's
 * more items copied after them. 0 or TG_ENOMEM (p unchanged). */
static int grow_copy(void **p, size_t n, const void *from, size_t more, size_t each)
{
	void *q = realloc(*p, (n + more ? n + more : 1) * each);
	if (!q)
		return TG_ENOMEM;
	memcpy((char *)q + n * each, from, more * each);
	*p = q;
	return 0;
}

int tg_side_append(tg_side *to, tg_side *from)
{
	size_t n = to->n, k = from->n;
	/* a side of several runs is across-ranked anew (tg_side_across) */
	tg_findings_free(to->across);
	tg_findings_free(from->across);
	to->across = from->across = NULL;
	int rc = grow_copy((void **)&to->data, n, from->data, k, sizeof(*to->data)) ||
	         grow_copy((void **)&to->borrowed, n, from->borrowed, k, 1) ||
	         grow_copy((void **)&to->names, n, from->names, k, sizeof(*to->names)) ||
	         grow_copy((void **)&to->keys, n, from->keys, k, sizeof(*to->keys)) ||
	         grow_copy((void **)&to->ranks, n, from->ranks, k, sizeof(*to->ranks)) ||
	         grow_copy((void **)&to->digests, n, from->digests, k, sizeof(*to->digests)) ||
	         grow_copy((void **)&to->trusted, n, from->trusted, k, 1) ||
	         grow_copy((void **)&to->traces, n, from->traces, k, sizeof(*to->traces)) ||
	         grow_copy((void **)&to->trees, n, from->trees, k, sizeof(*to->trees));
	if (rc) /* the arrays grown so far hold from's entries past to->n: harmless */
		return tg_error_set(TG_ENOMEM, "out of memory");
	to->n = n + k;
	to->json_bytes += from->json_bytes;
	free(from->data);
	free(from->borrowed);
	free(from->names);
	free(from->keys);
	free(from->ranks);
	free(from->digests);
	free(from->trusted);
	free(from->traces);
	free(from->trees);
	memset(from, 0, sizeof(*from));
	return 0;
}

tg_gate_data tg_side_gate_data(const tg_side *s)
{
	tg_gate_data g = {(const tg_rundata *const *)s->data, (const char *const *)s->keys, s->ranks, s->n, s->across,
	                  NULL};
	return g;
}

int tg_side_measure(tg_measure **out, const tg_side *s, tg_atoms *keys)
{
	int rc = tg_measure_new(out, keys);
	for (size_t i = 0; !rc && i < s->n; i++) {
		int64_t r = tg_rank_pick(tg_rundata_rank(s->data[i]), s->ranks[i], s->keys[i]);
		const char *name = s->keys[i];
		rc = tg_measure_append(*out, tg_rundata_measure(s->data[i]), &r, &name);
	}
	if (rc) {
		tg_measure_free(*out);
		*out = NULL;
	}
	return rc;
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
 * parses, to the end of the file: core/trace/source.h), and digest gets the
 * SHA-256 of the bytes parsed: the key its run data is kept under. A trace
 * whose manifest gives its sha256 is thrown away when the digest differs:
 * the bytes hashed are the bytes parsed, whatever is written to the file
 * meanwhile. */
static int read_trace(tg_trace **trace, char digest[TG_SHA256_HEX_LEN + 1], uint64_t *run_json, tg_daemon *d,
                      const tg_manifest_trace *t, int fd, const char *key)
{
	uint64_t run_max = d->cfg->max_run_bytes;
	tg_read_opts ro = d->read;
	ro.launch_flows_only = 1; /* the tree links by the launches' flows only: no other flow held through its build */
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
		if ((rc = tg_sha256_final(dig, &w.digest.c))) {
			tg_trace_free(*trace); /* no digest to keep its run data under */
			*trace = NULL;
		} else {
			tg_sha256_hex(digest, dig);
		}
	}
	tg_signature_digest_free(&w.digest); /* a read that failed otherwise leaves it unchecked */
	if (!rc)
		*run_json += tg_trace_stats_get(*trace)->json_bytes;
	return rc;
}

/* Notes, in a job's process, that it decoded the run data of digest from
 * the store (or, base set, borrowed the daemon's copy that has no view):
 * the daemon keeps it for the jobs after this one (data_cache.c), with
 * the tree diff's view when it was read for a baseline. Best effort. */
static void note_used(tg_daemon *d, const char *digest, int trusted, int base)
{
	if (!d->in_child || tg_grow((void **)&d->used, &d->capused, d->nused + 1, sizeof(*d->used)))
		return;
	snprintf(d->used[d->nused].digest, sizeof(d->used[d->nused].digest), "%s", digest);
	d->used[d->nused].base = (uint8_t)(base != 0);
	d->used[d->nused++].trusted = (uint8_t)(trusted != 0);
}

/* What load_trace knows of the run. */
struct run_read {
	tg_daemon *d;
	const tg_manifest *m;
	int trusted;       /* the run is trusted: its data is kept (and read) as trusted */
	uint64_t run_json; /* JSON of its traces so far (limits.max_run_bytes) */
	int *permanent;
	const tg_findings_opts *fo; /* the thresholds of the repository's findings */
	const char *fkey;           /* their key (tg_rundata_opts_key) */
	int keep;                   /* keep the trees of the traces read (TG_SIDE_KEEP_TREES) */
	int base;                   /* a baseline's side (TG_SIDE_BASE) */
};

/* Run data computed under other findings thresholds than r's is computed
 * again (TG_ENOTFOUND, logged); else 0. */
static int same_thresholds(const tg_rundata *rd, const struct run_read *r, const char *what)
{
	if (!strcmp(tg_rundata_findings_key(rd), r->fkey))
		return 0;
	tg_log(TG_LOG_INFO, "%s: its run data was kept under other findings thresholds: reading its trace again", what);
	return tg_error_set(TG_ENOTFOUND, "%s: no run data under these findings thresholds", what);
}

/* The run data kept under digest (trusted: kept as trusted only) into
 * *rd: the daemon's cache's (*borrowed set: not to be freed), else decoded
 * from the store. TG_ENOTFOUND when none, when what is kept no longer
 * decodes (logged: the trace is read again) or holds findings under other
 * thresholds; else the store's error. */
static int data_from_store(tg_rundata **rd, int *borrowed, const struct run_read *r, const char *digest, int trusted,
                           const char *what)
{
	tg_daemon *d = r->d;
	const tg_rundata *cached = tg_data_cache_get(d->cache, digest, trusted);
	*borrowed = cached != NULL;
	if (cached && same_thresholds(cached, r, what)) {
		*borrowed = 0;
		return TG_ENOTFOUND;
	}
	if (cached) {
		*rd = (tg_rundata *)cached;
		if (r->base && !tg_data_cache_view(d->cache, cached))
			note_used(d, digest, trusted, 1); /* now a baseline's: the daemon makes its view */
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
	if (!rc && (rc = same_thresholds(*rd, r, what))) {
		tg_rundata_free(*rd);
		*rd = NULL;
	}
	if (!rc)
		note_used(d, digest, trusted, r->base);
	return rc;
}

/* Measures trace (its tree built here; freed, or into *kept when kept is
 * not NULL), keeps the encoded run data under digest and gives back the
 * decoded form in *rd: the numbers a later judgement reads from the
 * store. Run data too large for the store is used without being kept
 * (logged). */
static int data_from_trace(tg_rundata **rd, tg_tree **kept, const struct run_read *r, tg_trace *trace,
                           const char *digest, const char *what)
{
	tg_daemon *d = r->d;
	int trusted = r->trusted;
	tg_tree *tree = NULL;
	tg_rundata *built = NULL;
	void *blob = NULL;
	size_t len = 0;
	/* the flows and the second ids go as soon as the tree has read them, as
	 * tg_cli_load's */
	int rc = tg_tree_build_dropping_spawn(&tree, trace);
	if (!rc)
		rc = tg_rundata_build(&built, tree, r->fo);
	uint64_t json = built ? tg_rundata_json_bytes(built) : 0;
	if (!rc)
		rc = tg_rundata_encode(&blob, &len, built);
	tg_rundata_free(built);
	if (kept && !rc)
		*kept = tree;
	else
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

/* Trace idx of the run: its run data measured from storage, kept under
 * the digest of the bytes parsed (into digest); with r->keep, its trace
 * and tree into *trace and *tree. */
static int data_from_storage(tg_rundata **rd, char digest[TG_SHA256_HEX_LEN + 1], tg_trace **kept_trace,
                             tg_tree **kept_tree, struct run_read *r, size_t idx, const char *what)
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
		rc = data_from_trace(rd, r->keep ? kept_tree : NULL, r, trace, digest, what);
	}
	if (!rc && r->keep)
		*kept_trace = trace;
	else
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

/* The findings thresholds of job j's repository (the defaults when it is
 * no longer configured). */
static const tg_findings_opts *repo_thresholds(const tg_daemon *d, const tg_job *j)
{
	size_t ri;
	return tg_daemon_repo(&ri, d, j->repo) ? tg_rules_findings(d->rules[ri]) : NULL;
}

/* Trace i of side s (trace idx of the run r reads): its names, rank hint
 * and trust set; its run data from the store when known (a listed or
 * signed digest: known, "" when none), else from storage. *from_store
 * counts those from the store. */
static int load_trace(tg_side *s, size_t i, struct run_read *r, size_t idx, const char *known, size_t *from_store)
{
	const tg_manifest *m = r->m;
	const tg_manifest_trace *t = &m->traces[idx];
	/* shown in the comment: "<run-id>/<path>" */
	if (asprintf(&s->names[i], "%s/%s", m->run_id, t->path) < 0)
		s->names[i] = NULL;
	if (!(s->keys[i] = tg_manifest_trace_key(m, idx)))
		return TG_ENOMEM;
	const char *what = s->keys[i];
	s->ranks[i] = t->rank;
	s->trusted[i] = (uint8_t)(r->trusted != 0);
	for (size_t k = 0; k <= TG_SHA256_HEX_LEN && known[0]; k++)
		s->digests[i][k] = (char)tolower((unsigned char)known[k]);
	int borrowed = 0;
	int rc = known[0] ? data_from_store(&s->data[i], &borrowed, r, s->digests[i], r->trusted, what) : TG_ENOTFOUND;
	if (!rc) {
		++*from_store;
		r->run_json += tg_rundata_json_bytes(s->data[i]);
		rc = run_json_ok(r, what);
	} else if (rc == TG_ENOTFOUND) {
		rc = data_from_storage(&s->data[i], s->digests[i], &s->traces[i], &s->trees[i], r, idx, what);
		if (!rc)
			rc = run_json_ok(r, what);
	}
	s->borrowed[i] = (uint8_t)borrowed;
	if (!rc)
		s->json_bytes += tg_rundata_json_bytes(s->data[i]);
	return rc;
}

int tg_side_load(tg_side *s, int *permanent, tg_daemon *d, const tg_job *j, const tg_manifest *m, unsigned flags)
{
	memset(s, 0, sizeof(*s));
	*permanent = 0;
	size_t n = m->ntraces, nst = 0;
	tg_run_trace *listed = NULL, *now = tg_calloc(n ? n : 1, sizeof(*now));
	size_t *order = calloc(n ? n : 1, sizeof(size_t));
	int rc = side_alloc(s, n);
	if (!rc && (!order || !now))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	if (!rc)
		rc = tg_store_run_traces_get(&listed, &nst, d->store, j->id);
	s->n = rc ? 0 : n;
	if (!rc)
		by_rank(order, m);
	char fkey[2048];
	const tg_findings_opts *fo = repo_thresholds(d, j);
	tg_rundata_opts_key(fkey, sizeof(fkey), fo);
	/* the trees of the run judged are kept when the findings across its
	 * ranks may need them */
	struct run_read r = {d, m, j->trusted, 0, permanent, fo, fkey, (flags & TG_SIDE_KEEP_TREES) && n > 1,
	                     (flags & TG_SIDE_BASE) != 0};
	size_t from_store = 0;
	/* the digest a signed manifest gives is vouched for by the key; an
	 * unsigned one is anyone's word: its bytes are read */
	int signed_run = d->cfg->storage.signing_key.value && j->trusted;
	for (size_t i = 0; i < s->n && !rc; i++) {
		const tg_manifest_trace *t = &m->traces[order[i]];
		const char *known = nst == n ? listed[i].digest : signed_run && t->sha256[0] ? t->sha256 : "";
		rc = load_trace(s, i, &r, order[i], known, &from_store);
		if (!rc) {
			memcpy(now[i].digest, s->digests[i], sizeof(now[i].digest));
			now[i].json_bytes = tg_rundata_json_bytes(s->data[i]);
		}
	}
	if (!rc && (nst != n || from_store != n)) {
		/* the traces' run data is kept by now: a job stopped here (its
		 * time budget, a crash) leaves rows no run lists (store.h) */
		tg_daemon_test_stall("listing", j->id);
		rc = tg_store_run_traces_put(d->store, j->id, now, n);
	}
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

/* The key the findings across side s's ranks are kept under: the SHA-256
 * of the thresholds' key and of its traces' digests in the gate's order
 * (no trace's digest: its bytes would have to hash to this text). */
static int across_key(char out[TG_SHA256_HEX_LEN + 1], const char *fkey, const tg_side *s, const size_t *order)
{
	static const char tag[] = "tracegate findings across ranks\n";
	tg_sha256_ctx c;
	tg_sha256_init(&c);
	tg_sha256_update(&c, tag, sizeof(tag) - 1);
	tg_sha256_update(&c, fkey, strlen(fkey));
	for (size_t i = 0; i < s->n; i++) {
		tg_sha256_update(&c, "\n", 1);
		tg_sha256_update(&c, s->digests[order[i]], strlen(s->digests[order[i]]));
	}
	uint8_t dig[TG_SHA256_LEN];
	int rc = tg_sha256_final(dig, &c);
	tg_sha256_hex(out, dig);
	return rc;
}

/* Trace i of s read again from storage into *trace and *tree, its bytes
 * checked against its digest. *permanent as fetch_trace sets it, and for
 * a trace that no longer reads or hashes the same. */
static int reread(tg_trace **trace, tg_tree **tree, int *permanent, tg_daemon *d, const tg_side *s, size_t i)
{
	tg_manifest_trace t = {.path = s->keys[i], .rank = s->ranks[i]};
	memcpy(t.sha256, s->digests[i], sizeof(t.sha256));
	char digest[TG_SHA256_HEX_LEN + 1];
	uint64_t json = 0;
	int fd = -1, rc = fetch_trace(&fd, permanent, d, s->keys[i]);
	if (!rc) {
		rc = read_trace(trace, digest, &json, d, &t, fd, s->keys[i]);
		if (rc && rc != TG_ENOMEM)
			*permanent = 1;
		close(fd);
	}
	if (!rc && (rc = tg_tree_build_dropping_spawn(tree, *trace))) {
		tg_trace_free(*trace);
		*trace = NULL;
	}
	return rc;
}

/* The findings across s's ranks computed from its traces in order (the
 * kept trees, the others read again; freed here), kept under key unless
 * a trace could not be read for good (then not evaluated, saying why). */
static int across_from_traces(tg_side *s, tg_daemon *d, size_t ri, const size_t *order, const char *key, int trusted)
{
	size_t n = s->n;
	const tg_tree **trees = tg_calloc(n, sizeof(*trees));
	int rc = trees ? 0 : TG_ENOMEM, permanent = 0, read = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		size_t k = order[i];
		if (!s->trees[k] && !(rc = reread(&s->traces[k], &s->trees[k], &permanent, d, s, k)))
			read++;
		trees[i] = s->trees[k];
	}
	const tg_findings_opts *fo = tg_rules_findings(d->rules[ri]);
	if (rc && permanent) {
		char why[600];
		snprintf(why, sizeof(why), "the traces of its ranks could not all be read again (%s)", tg_error_last());
		tg_log(TG_LOG_WARN, "findings across ranks not evaluated: %s", why);
		rc = tg_findings_across_unknown(&s->across, fo, why);
		free((void *)trees);
		return rc;
	}
	if (!rc)
		rc = tg_gate_across(&s->across, d->rules[ri], trees, n);
	free((void *)trees);
	void *blob = NULL;
	size_t len = 0;
	if (!rc)
		rc = tg_rundata_across_encode(&blob, &len, s->across);
	if (!rc)
		rc = tg_store_trace_data_put(d->store, key, TG_RUNDATA_FORMAT, s->json_bytes, trusted, blob, len);
	if (rc == TG_ELIMIT) /* used without being kept */
		rc = 0;
	if (!rc)
		tg_log(TG_LOG_INFO, "findings across the %zu ranks of %s computed (%d trace%s read again) and kept", n,
		       s->keys[0], read, read == 1 ? "" : "s");
	free(blob);
	return rc;
}

int tg_side_across(tg_side *s, tg_daemon *d, size_t ri)
{
	tg_findings_free(s->across);
	s->across = NULL;
	tg_gate_data g = tg_side_gate_data(s);
	size_t *order = tg_calloc(s->n ? s->n : 1, sizeof(size_t));
	int rc = order ? tg_gate_data_across(order, &g) : TG_ENOMEM;
	if (rc <= 0) {
		drop_trees(s);
		free(order);
		return rc;
	}
	char fkey[2048], key[TG_SHA256_HEX_LEN + 1];
	tg_rundata_opts_key(fkey, sizeof(fkey), tg_rules_findings(d->rules[ri]));
	if ((rc = across_key(key, fkey, s, order))) {
		drop_trees(s);
		free(order);
		return rc;
	}
	int trusted = 1;
	for (size_t i = 0; i < s->n; i++)
		trusted &= s->trusted[i];
	void *blob = NULL;
	size_t len = 0;
	rc = tg_store_trace_data_get(&blob, &len, d->store, key, TG_RUNDATA_FORMAT, trusted);
	if (!rc) {
		rc = tg_rundata_across_decode(&s->across, blob, len, s->keys[0]);
		if (rc == TG_EFORMAT) {
			tg_log(TG_LOG_WARN, "%s", tg_error_last());
			rc = TG_ENOTFOUND;
		}
	}
	free(blob);
	if (rc == TG_ENOTFOUND)
		rc = across_from_traces(s, d, ri, order, key, trusted);
	drop_trees(s);
	free(order);
	return rc;
}
