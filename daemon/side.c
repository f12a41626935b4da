/*
 * side.c - the traces of one run, fetched from storage and read
 * (daemon_impl.h: tg_side_load).
 */
#include "daemon_impl.h"
#include "log.h"
#include "signature.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tg_side_free(tg_side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		tg_tree_free(s->trees ? s->trees[i] : NULL);
		tg_trace_free(s->traces ? s->traces[i] : NULL);
		free(s->names ? s->names[i] : NULL);
	}
	free(s->traces);
	free(s->trees);
	free(s->names);
	free(s->ranks);
	memset(s, 0, sizeof(*s));
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

/* What a trace's reader hands its raw-bytes observer: the digest of a
 * trace whose manifest gives its sha256, and the test hook that lets an
 * attack test change the file while it is read (TRACEGATE_TEST_STALL
 * "reading": after the first bytes). */
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
 * limits.max_trace_bytes (*run_json grows by this trace's). A trace whose
 * manifest gives its sha256 is hashed as it is read (the reader's
 * raw-bytes observer sees every byte it parses, to the end of the file:
 * core/source.h), and thrown away when the digest differs: the bytes
 * hashed are the bytes parsed, whatever is written to the file meanwhile. */
static int read_trace(tg_trace **trace, uint64_t *run_json, tg_daemon *d, const tg_manifest_trace *t, int fd,
                      const char *key)
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
	if (t->sha256[0]) {
		ro.source.observe = watch_bytes;
		ro.source.observe_ctx = &w;
	}
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
	}
	if (!rc)
		*run_json += tg_trace_stats_get(*trace)->json_bytes;
	return rc;
}

int tg_side_load(tg_side *s, int *permanent, tg_daemon *d, const tg_manifest *m)
{
	memset(s, 0, sizeof(*s));
	*permanent = 0;
	size_t n = m->ntraces;
	size_t *order = calloc(n ? n : 1, sizeof(size_t));
	s->traces = tg_calloc(n ? n : 1, sizeof(tg_trace *));
	s->trees = tg_calloc(n ? n : 1, sizeof(tg_tree *));
	s->names = tg_calloc(n ? n : 1, sizeof(char *));
	s->ranks = tg_calloc(n ? n : 1, sizeof(int64_t));
	if (!order || !s->traces || !s->trees || !s->names || !s->ranks) {
		free(order);
		tg_side_free(s);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	s->n = n;
	by_rank(order, m);
	int rc = 0;
	uint64_t run_json = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const tg_manifest_trace *t = &m->traces[order[i]];
		s->ranks[i] = t->rank;
		char *key = tg_manifest_trace_key(m, order[i]);
		if (!key) {
			rc = TG_ENOMEM;
			break;
		}
		/* shown in the comment: "<run-id>/<path>" */
		if (asprintf(&s->names[i], "%s/%s", m->run_id, t->path) < 0)
			s->names[i] = NULL;
		int fd = -1;
		if ((rc = fetch_trace(&fd, permanent, d, key))) {
			free(key);
			break;
		}
		rc = read_trace(&s->traces[i], &run_json, d, t, fd, key);
		close(fd);
		if (rc) {
			/* a malformed trace or a limit; or a trace deleted under us */
			*permanent = 1;
			free(key);
			break;
		}
		rc = tg_tree_build(&s->trees[i], s->traces[i]);
		if (!rc)
			tg_trace_drop_flows(s->traces[i]);
		free(key);
		if (!rc)
			tg_log(TG_LOG_DEBUG, "read %s/%s: %zu bytes of JSON", m->prefix, t->path,
			       (size_t)tg_trace_stats_get(s->traces[i])->json_bytes);
	}
	free(order);
	if (rc)
		tg_side_free(s);
	return rc;
}
