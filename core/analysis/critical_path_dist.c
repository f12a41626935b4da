/*
 * critical_path_dist.c - the longest path's distances (critical_path_impl.h:
 * struct cp_dist), held only for the nodes Kahn's loop has reached and not
 * yet visited: a node's distance is written when an edge into it is
 * relaxed and read once, when it is visited, after which nothing reads it
 * (the path's length is its end's, kept by the loop). Those nodes are few
 * beside the graph's (the loop's frontier), so they are held in a hash
 * table keyed by node (open addressing, linear probing, entries removed
 * as they are visited by shifting back the ones after), where an array by
 * node took 4 bytes a node (15.5 MB at 1 GB of JSON, beside the longest
 * path's other arrays: that phase's peak). A frontier of more than a
 * sixteenth of the nodes (a graph built to be wide) moves to an array by
 * node, 8 bytes each: then the memory of an array, never the table's
 * 24 bytes an entry for every node.
 */
#include "critical_path_impl.h"
#include "../../util/big.h"

#include <stdlib.h>
#include <string.h>

#define CP_DIST_EMPTY 0xffffffffu /* a free slot's key (nodes are under 2^29) */

/* The slot node v hashes to. */
static inline size_t home(const struct cp_dist *d, uint32_t v)
{
	return (size_t)((v * UINT32_C(2654435761)) >> (32 - d->bits));
}

/* The table with 2^bits slots, empty; the old one's entries moved over.
 * Returns 0 or TG_ENOMEM (d untouched). */
static int rehash(struct cp_dist *d, int bits)
{
	struct cp_dist n = {.bits = bits, .limit = d->limit, .nnodes = d->nnodes};
	size_t cap = (size_t)1 << bits;
	n.key = tg_big_alloc(cap * sizeof(uint32_t));
	n.val = tg_big_alloc(cap * sizeof(int64_t));
	if (!n.key || !n.val) {
		tg_big_free(n.key);
		tg_big_free(n.val);
		return TG_ENOMEM;
	}
	memset(n.key, 0xff, cap * sizeof(uint32_t));
	size_t old = d->key ? (size_t)1 << d->bits : 0;
	for (size_t i = 0; i < old; i++)
		if (d->key[i] != CP_DIST_EMPTY) {
			size_t j = home(&n, d->key[i]);
			while (n.key[j] != CP_DIST_EMPTY)
				j = (j + 1) & (cap - 1);
			n.key[j] = d->key[i];
			n.val[j] = d->val[i];
		}
	n.n = d->n;
	tg_big_free(d->key);
	tg_big_free(d->val);
	*d = n;
	return 0;
}

long cp_dist_limit = -1;

int cp_dist_init(struct cp_dist *d, size_t nnodes)
{
	*d = (struct cp_dist){.nnodes = nnodes, .limit = cp_dist_limit >= 0 ? (size_t)cp_dist_limit : nnodes / 16 + 1024};
	return rehash(d, 10);
}

void cp_dist_free(struct cp_dist *d)
{
	tg_big_free(d->key);
	tg_big_free(d->val);
	tg_big_free(d->arr);
	*d = (struct cp_dist){0};
}

/* The slot of node v, or of the free slot it would take. */
static inline size_t find(const struct cp_dist *d, uint32_t v)
{
	size_t mask = ((size_t)1 << d->bits) - 1, i = home(d, v);
	while (d->key[i] != v && d->key[i] != CP_DIST_EMPTY)
		i = (i + 1) & mask;
	return i;
}

int64_t cp_dist_get_slow(const struct cp_dist *d, uint32_t v)
{
	size_t i = find(d, v);
	return d->key[i] == v ? d->val[i] : 0;
}

/* The table's entries moved to an array by node (the frontier grew past
 * d->limit). Returns 0 or TG_ENOMEM. */
static int to_array(struct cp_dist *d)
{
	if (!(d->arr = tg_big_alloc((d->nnodes + 1) * sizeof(int64_t))))
		return TG_ENOMEM;
	size_t cap = (size_t)1 << d->bits;
	for (size_t i = 0; i < cap; i++)
		if (d->key[i] != CP_DIST_EMPTY)
			d->arr[d->key[i]] = d->val[i];
	tg_big_free(d->key);
	tg_big_free(d->val);
	d->key = NULL;
	d->val = NULL;
	return 0;
}

int cp_dist_set_slow(struct cp_dist *d, uint32_t v, int64_t c)
{
	size_t i = find(d, v);
	if (d->key[i] == v) {
		d->val[i] = c;
		return 0;
	}
	if (d->n + 1 > d->limit) {
		int rc = to_array(d);
		if (!rc)
			d->arr[v] = c;
		return rc;
	}
	if (2 * (d->n + 1) > (size_t)1 << d->bits) { /* at most half full */
		int rc = rehash(d, d->bits + 1);
		if (rc)
			return rc;
		i = find(d, v);
	}
	d->key[i] = v;
	d->val[i] = c;
	d->n++;
	return 0;
}

int64_t cp_dist_take_slow(struct cp_dist *d, uint32_t v)
{
	size_t mask = ((size_t)1 << d->bits) - 1, i = find(d, v);
	if (d->key[i] != v)
		return 0;
	int64_t c = d->val[i];
	/* the entries after it that would not be found past the hole move back */
	for (size_t j = (i + 1) & mask; d->key[j] != CP_DIST_EMPTY; j = (j + 1) & mask) {
		size_t k = home(d, d->key[j]);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue; /* at or after its home, past the hole: it stays */
		d->key[i] = d->key[j];
		d->val[i] = d->val[j];
		i = j;
	}
	d->key[i] = CP_DIST_EMPTY;
	d->n--;
	return c;
}
