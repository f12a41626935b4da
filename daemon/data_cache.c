/*
 * data_cache.c - decoded run data the daemon keeps for its jobs
 * (data_cache.h). A baseline serves every pull request against it, and a
 * pooled run every later run of its commit: decoding a 250 MB trace's run
 * data takes a third of a second, once per job. The daemon (the parent of
 * every job's process, budget.c) keeps the run data its jobs read from the
 * store, most recently used first, up to a quarter of daemon.job_memory;
 * a job's process inherits it with fork, reads it in place (copy on
 * write: nothing is copied while it is only read), and reports which run
 * data it had to decode, which the daemon then decodes once for the jobs
 * after it. A trusted job uses only entries decoded from data a trusted
 * judgement made (store.h), as when it reads the store.
 *
 * With each run data a job read for a baseline the daemon keeps the tree
 * diff's view of its skeleton (tree_diff.h: tg_tree_diff_side), made once
 * here: aligning a tiny pull request with a 250 MB baseline otherwise
 * built the baseline's whole view (half a million nodes) in every job.
 * Only a base side borrows a view, so a pull request's own runs (pooled
 * runs, untrusted) never cost the single-threaded daemon one. Its bytes
 * count with the entry's; run data whose view would not fit is kept
 * without it (the job builds the view, as before).
 *
 * The daemon is single-threaded; a job's process only reads the cache.
 */
#include "data_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char digest[65];
	int trusted;
	tg_rundata *rd;
	tg_tree_diff_side *view; /* NULL: none */
	uint64_t bytes;
	uint64_t used; /* the cache's clock at its last use */
};

struct tg_data_cache {
	struct entry *e;
	size_t n, cap;
	uint64_t bytes, max_bytes, clock;
};

int tg_data_cache_new(tg_data_cache **out, uint64_t max_bytes)
{
	*out = tg_calloc(1, sizeof(**out));
	if (!*out)
		return TG_ENOMEM;
	(*out)->max_bytes = max_bytes;
	return 0;
}

void tg_data_cache_free(tg_data_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		tg_tree_diff_side_free(c->e[i].view);
		tg_rundata_free(c->e[i].rd);
	}
	free(c->e);
	free(c);
}

/* The entry of digest (any trust), or NULL. */
static struct entry *find(tg_data_cache *c, const char *digest)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (!strcmp(c->e[i].digest, digest))
			return &c->e[i];
	return NULL;
}

const tg_rundata *tg_data_cache_get(tg_data_cache *c, const char *digest, int trusted)
{
	struct entry *x = find(c, digest);
	if (!x || (trusted && !x->trusted))
		return NULL;
	x->used = ++c->clock;
	return x->rd;
}

int tg_data_cache_has(tg_data_cache *c, const char *digest, int trusted)
{
	struct entry *x = find(c, digest);
	return x && (x->trusted || !trusted);
}

/* Drops the least recently used entry. */
static void evict_one(tg_data_cache *c)
{
	size_t k = 0;
	for (size_t i = 1; i < c->n; i++)
		if (c->e[i].used < c->e[k].used)
			k = i;
	c->bytes -= c->e[k].bytes;
	tg_tree_diff_side_free(c->e[k].view);
	tg_rundata_free(c->e[k].rd);
	c->e[k] = c->e[--c->n];
}

/* The view of rd's skeleton when it fits beside rd's bytes (into *bytes),
 * else NULL (none made, or out of memory: the jobs build it). */
static tg_tree_diff_side *make_view(const tg_data_cache *c, const tg_rundata *rd, uint64_t *bytes)
{
	tg_tree_diff_side *v = NULL;
	if (tg_tree_diff_side_new(&v, tg_rundata_skeleton(rd), NULL))
		return NULL;
	uint64_t vb = tg_tree_diff_side_bytes(v);
	if (*bytes + vb > c->max_bytes) {
		tg_tree_diff_side_free(v);
		return NULL;
	}
	*bytes += vb;
	return v;
}

int tg_data_cache_put(tg_data_cache *c, const char *digest, int trusted, int view, tg_rundata *rd)
{
	uint64_t bytes = tg_rundata_mem_bytes(rd);
	struct entry *x = find(c, digest);
	if (bytes > c->max_bytes || (x && (x->trusted || !trusted))) {
		tg_rundata_free(rd); /* too large to keep, or kept already */
		return 0;
	}
	if (x) { /* an untrusted entry replaced by data a trusted judgement made */
		c->bytes -= x->bytes;
		tg_tree_diff_side_free(x->view);
		tg_rundata_free(x->rd);
		*x = c->e[--c->n];
	}
	tg_tree_diff_side *v = view ? make_view(c, rd, &bytes) : NULL;
	while (c->n && c->bytes + bytes > c->max_bytes)
		evict_one(c);
	if (tg_grow((void **)&c->e, &c->cap, c->n + 1, sizeof(*c->e))) {
		tg_tree_diff_side_free(v);
		tg_rundata_free(rd);
		return TG_ENOMEM;
	}
	x = &c->e[c->n++];
	memset(x, 0, sizeof(*x));
	snprintf(x->digest, sizeof(x->digest), "%s", digest);
	x->trusted = trusted != 0;
	x->rd = rd;
	x->view = v;
	x->bytes = bytes;
	x->used = ++c->clock;
	c->bytes += bytes;
	return 0;
}

void tg_data_cache_make_view(tg_data_cache *c, const char *digest)
{
	struct entry *x = find(c, digest);
	if (!x || x->view)
		return;
	uint64_t bytes = x->bytes;
	tg_tree_diff_side *v = make_view(c, x->rd, &bytes);
	if (!v)
		return;
	uint64_t more = bytes - x->bytes;
	char key[sizeof(x->digest)];
	memcpy(key, x->digest, sizeof(key));
	x->used = ++c->clock; /* the most recently used: evicted last */
	while (c->n > 1 && c->bytes + more > c->max_bytes)
		evict_one(c);
	x = find(c, key); /* evicting moves entries */
	if (!x || c->bytes + more > c->max_bytes) {
		tg_tree_diff_side_free(v);
		return;
	}
	x->view = v;
	x->bytes += more;
	c->bytes += more;
}

const tg_tree_diff_side *tg_data_cache_view(const tg_data_cache *c, const tg_rundata *rd)
{
	for (size_t i = 0; c && rd && i < c->n; i++)
		if (c->e[i].rd == rd)
			return c->e[i].view;
	return NULL;
}

uint64_t tg_data_cache_bytes(const tg_data_cache *c, size_t *n)
{
	if (n)
		*n = c ? c->n : 0;
	return c ? c->bytes : 0;
}
