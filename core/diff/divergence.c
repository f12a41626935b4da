/*
 * divergence.c - attribution of diverging kernel time to the op where two
 * trees diverge, and the table of divergences (see divergence.h).
 */
#include "divergence.h"
#include "../../util/atoms.h"
#include "../../util/buf.h"
#include "../models/kernel_category.h"
#include "../trace/categorize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIXED (TG_NONE - 1)

/* The kernel record of each device event that one side's LCAs name: at[ev -
 * lo] for the events lo..lo+n-1, the range those LCAs span, TG_NONE where
 * none. Sized to that range, not to the trace: divergences are few and
 * local, and an array of every event (8 MB a side at 1 GB of JSON) was fresh
 * memory faulted in, and a pass over every kernel record, even when the
 * trees did not diverge at all. */
struct rec_map {
	uint32_t lo;
	size_t n;
	uint32_t *at;
};

/* Fills rm for side (0 base, 1 new) of lcas[0..nl) from the records of trace
 * ti of m (the last record of an event wins); rm->at is the caller's to
 * free. 0, or TG_ENOMEM. */
static int rec_map_build(struct rec_map *rm, const tg_measure *m, uint32_t ti, size_t nevents,
                         const tg_diff_lca *lcas, size_t nl, int side)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	for (size_t l = 0; l < nl; l++) {
		const uint32_t *g = side ? lcas[l].new_gpu : lcas[l].base_gpu;
		size_t ng = side ? lcas[l].nnew : lcas[l].nbase;
		for (size_t i = 0; i < ng; i++) {
			lo = g[i] < lo ? g[i] : lo;
			hi = g[i] > hi ? g[i] : hi;
		}
	}
	rm->lo = lo;
	rm->n = lo <= hi ? (size_t)(hi - lo) + 1 : 0;
	rm->at = malloc((rm->n ? rm->n : 1) * sizeof(uint32_t));
	if (!rm->at)
		return TG_ENOMEM;
	if (!rm->n)
		return 0;
	memset(rm->at, 0xff, rm->n * sizeof(uint32_t));
	size_t nr;
	const tg_kernel_rec *r = tg_measure_kernels(m, &nr);
	for (size_t i = 0; i < nr; i++)
		if (r[i].trace == ti && r[i].event < nevents && r[i].event - lo < rm->n)
			rm->at[r[i].event - lo] = (uint32_t)i;
	return 0;
}

/* The record of event ev in rm, TG_NONE when none. */
static inline uint32_t rec_at(const struct rec_map *rm, uint32_t ev)
{
	return (size_t)(ev - rm->lo) < rm->n ? rm->at[ev - rm->lo] : TG_NONE;
}

/* Folds key into *acc: TG_NONE (nothing yet), a key, or MIXED. */
static void fold(uint32_t *acc, uint32_t key)
{
	if (*acc == TG_NONE)
		*acc = key;
	else if (*acc != key)
		*acc = MIXED;
}

static int is_specific(const char *cat)
{
	return cat && *cat && strcmp(cat, "other") && strcmp(cat, "unlinked");
}

/* The skeleton node of event ev of side sk (an event the diff names). */
static const tg_skel_node *node_of(const tg_skeleton *sk, uint32_t ev)
{
	size_t n;
	const tg_skel_node *nodes = tg_skeleton_nodes(sk, &n);
	uint32_t k = tg_skeleton_find(sk, ev);
	return k == TG_NONE ? NULL : &nodes[k];
}

/* The name of event ev of side sk ("" when the skeleton lacks it). */
static const char *name_of(const tg_skeleton *sk, uint32_t ev)
{
	const tg_skel_node *x = node_of(sk, ev);
	return x ? tg_atoms_str(tg_skeleton_atoms(sk), x->name) : "";
}

int tg_divergence_attribute(tg_measure *base, tg_measure *next, const tg_tree_diff *d, uint32_t bt, uint32_t nt,
                            tg_atoms *keys, size_t *moved)
{
	if (moved)
		*moved = 0;
	size_t nl, nn;
	const tg_diff_lca *lcas = tg_tree_diff_lcas(d, &nl);
	const tg_diff_node *nodes = tg_tree_diff_nodes(d, &nn);
	if (!nl)
		return 0;
	const tg_skeleton *bsk = tg_tree_diff_skeleton(d, TG_DIFF_SIDE_BASE), *nsk = tg_tree_diff_skeleton(d, TG_DIFF_SIDE_NEW);
	struct rec_map bmap = {0}, nmap = {0};
	uint32_t *target = malloc(nl * sizeof(uint32_t));
	int rc = TG_ENOMEM;
	if (!target || rec_map_build(&bmap, base, bt, tg_skeleton_events(bsk), lcas, nl, 0) ||
	    rec_map_build(&nmap, next, nt, tg_skeleton_events(nsk), lcas, nl, 1))
		goto done;
	size_t nbr, nnr;
	tg_kernel_rec *br = tg_measure_kernels_mut(base, &nbr), *nr = tg_measure_kernels_mut(next, &nnr);
	for (size_t l = 0; l < nl; l++) {
		const tg_diff_lca *a = &lcas[l];
		const tg_diff_node *node = &nodes[a->node];
		target[l] = TG_NONE;
		const tg_skel_node *op = a->node == 0 || node->base_ev == TG_NONE ? NULL : node_of(bsk, node->base_ev);
		if (!op || tg_kind_is_gpu(op->kind))
			continue;
		const char *cat = tg_op_category(tg_atoms_str(tg_skeleton_atoms(bsk), op->name), NULL, 0);
		if (is_specific(cat)) {
			if (tg_atoms_intern(&target[l], keys, cat, strlen(cat)))
				goto done;
			continue;
		}
		uint32_t cb = TG_NONE, cn = TG_NONE;
		for (size_t i = 0; i < a->nbase; i++)
			if (rec_at(&bmap, a->base_gpu[i]) != TG_NONE)
				fold(&cb, br[rec_at(&bmap, a->base_gpu[i])].category);
		for (size_t i = 0; i < a->nnew; i++)
			if (rec_at(&nmap, a->new_gpu[i]) != TG_NONE)
				fold(&cn, nr[rec_at(&nmap, a->new_gpu[i])].category);
		uint32_t pick = cb != TG_NONE && cb != MIXED ? cb : cn != TG_NONE && cn != MIXED ? cn : TG_NONE;
		if (pick != TG_NONE && is_specific(tg_atoms_str(keys, pick)))
			target[l] = pick;
	}
	size_t count = 0;
	for (size_t l = 0; l < nl; l++) {
		if (target[l] == TG_NONE)
			continue;
		const tg_diff_lca *a = &lcas[l];
		for (size_t i = 0; i < a->nbase; i++) {
			uint32_t r = rec_at(&bmap, a->base_gpu[i]);
			if (r != TG_NONE && br[r].category != target[l]) {
				br[r].category = target[l];
				br[r].cat_source = TG_CAT_SRC_TREE_DIFF;
				count++;
			}
		}
		for (size_t i = 0; i < a->nnew; i++) {
			uint32_t r = rec_at(&nmap, a->new_gpu[i]);
			if (r != TG_NONE && nr[r].category != target[l]) {
				nr[r].category = target[l];
				nr[r].cat_source = TG_CAT_SRC_TREE_DIFF;
				count++;
			}
		}
	}
	if (moved)
		*moved = count;
	rc = 0;
done:
	free(bmap.at);
	free(nmap.at);
	free(target);
	return rc;
}

/* ------------------------------------------------------------ the table */

struct kind {
	char *where, *bk, *nk; /* owned */
	uint32_t cat;          /* key, MIXED, or TG_NONE */
	size_t count;
	double base_ns, new_ns;
};

/* Scratch of kernel_list for the LCAs of one trace: the place of each atom
 * of the trace's names in the list being built (TG_NONE when not in it),
 * put back after each list, so that a list costs its length however many
 * distinct names the trace has (a linear search made an LCA of 120,000
 * distinct kernels quadratic: issue 21). */
struct names {
	const tg_tree_diff *d;
	int side;
	const tg_skeleton *sk;
	uint32_t *slot;    /* per atom of t */
	uint32_t natoms;
	uint32_t none_at;  /* where a name without an atom counts: with the atom of "" */
	const tg_skel_node *nodes;
	uint32_t *order;   /* the distinct atoms of the list, first seen first */
	size_t *counts;
	size_t cap_order, cap_counts;
};

static int names_init(struct names *nm, const tg_tree_diff *d, int side)
{
	memset(nm, 0, sizeof(*nm));
	const tg_skeleton *sk = tg_tree_diff_skeleton(d, side);
	nm->d = d;
	nm->side = side;
	nm->sk = sk;
	nm->natoms = tg_atoms_count(tg_skeleton_atoms(sk));
	nm->slot = malloc(((size_t)nm->natoms + 1) * sizeof(uint32_t));
	if (!nm->slot)
		return TG_ENOMEM;
	memset(nm->slot, 0xff, ((size_t)nm->natoms + 1) * sizeof(uint32_t));
	size_t nn;
	nm->nodes = tg_skeleton_nodes(sk, &nn);
	uint32_t empty = tg_atoms_find(tg_skeleton_atoms(sk), "", 0);
	nm->none_at = empty != TG_NONE && empty < nm->natoms ? empty : nm->natoms;
	return 0;
}

/* The slot index of atom a (a name out of range reads "", the same name
 * as the atom of ""). */
static uint32_t names_at(const struct names *nm, uint32_t a)
{
	return a < nm->natoms ? a : nm->none_at;
}

static void names_free(struct names *nm)
{
	free(nm->slot);
	free(nm->order);
	free(nm->counts);
}

/* "a + b x2 + c": the distinct normalized names of evs, in order, with
 * counts. NULL when out of memory. */
static char *kernel_list(struct names *nm, const uint32_t *evs, size_t n)
{
	if (tg_grow((void **)&nm->order, &nm->cap_order, n ? n : 1, sizeof(uint32_t)) ||
	    tg_grow((void **)&nm->counts, &nm->cap_counts, n ? n : 1, sizeof(size_t)))
		return NULL;
	tg_buf b = TG_BUF_INIT;
	char norm[1024];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t node = tg_tree_diff_event_node(nm->d, nm->side, evs[i]);
		const tg_skel_node *x = node == TG_NONE ? NULL : &nm->nodes[node];
		uint32_t a = x ? x->name : TG_NONE, at = names_at(nm, a);
		if (nm->slot[at] == TG_NONE) {
			nm->slot[at] = (uint32_t)k;
			nm->order[k] = a;
			nm->counts[k++] = 0;
		}
		nm->counts[nm->slot[at]]++;
	}
	int ok = 1;
	for (size_t j = 0; j < k; j++) {
		uint32_t a = nm->order[j];
		nm->slot[names_at(nm, a)] = TG_NONE;
		if (!ok)
			continue;
		tg_measure_normalize_name(norm, sizeof(norm), tg_atoms_str(tg_skeleton_atoms(nm->sk), a));
		char cnt[32] = "";
		if (nm->counts[j] > 1)
			snprintf(cnt, sizeof(cnt), " x%zu", nm->counts[j]);
		ok = !(j && tg_buf_append(&b, " + ", 3)) && !tg_buf_append(&b, norm, strlen(norm)) &&
		     !tg_buf_append(&b, cnt, strlen(cnt));
	}
	if (ok && !k)
		ok = !tg_buf_append(&b, "(none)", 6);
	char *list = NULL;
	if (!ok || tg_buf_take(&list, NULL, &b)) {
		tg_buf_free(&b);
		return NULL;
	}
	return list;
}

static char *lca_where(const tg_skeleton *bt, const tg_skeleton *nt, const tg_diff_node *node, uint32_t id)
{
	if (id == 0)
		return strdup("(top level)");
	const char *a = node->base_ev != TG_NONE ? name_of(bt, node->base_ev) : "";
	const char *b = node->new_ev != TG_NONE ? name_of(nt, node->new_ev) : "";
	char na[512], nb[512];
	tg_diff_normalize_name(na, sizeof(na), a, 0);
	tg_diff_normalize_name(nb, sizeof(nb), b, 0);
	char *out = malloc(strlen(na) + strlen(nb) + 4);
	if (!out)
		return NULL;
	if (node->diverges && strcmp(na, nb))
		sprintf(out, "%s | %s", na, nb);
	else
		strcpy(out, na);
	return out;
}

static int cmp_kind(const void *x, const void *y)
{
	const struct kind *a = x, *b = y;
	double da = fabs(a->new_ns - a->base_ns), db = fabs(b->new_ns - b->base_ns);
	if (da != db)
		return da > db ? -1 : 1;
	int c = strcmp(a->where, b->where);
	if (c)
		return c;
	c = strcmp(a->bk, b->bk);
	return c ? c : strcmp(a->nk, b->nk);
}

static void kinds_free(struct kind *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++) {
		free(k[i].where);
		free(k[i].bk);
		free(k[i].nk);
	}
	free(k);
}

/* The kinds found so far, with an open-addressing index on (where, base
 * kernels, new kernels): a pull request that diverges at 100,000 points
 * looks each one up in constant time (a linear search made the table
 * quadratic: 54 s for two traces of 120,000 ops). */
struct kinds {
	struct kind *k;
	size_t n, cap;
	uint32_t *slot;  /* index into k, or TG_NONE; nslot a power of two */
	uint64_t *hash;  /* of each kind */
	size_t nslot, hcap;
};

static uint64_t kind_hash(const char *where, const char *bk, const char *nk)
{
	/* the 0 between the strings keeps ("ab","c") apart from ("a","bc") */
	uint64_t h = tg_hash_bytes(where, strlen(where) + 1);
	h = h * 0x9e3779b97f4a7c15ULL ^ tg_hash_bytes(bk, strlen(bk) + 1);
	return h * 0x9e3779b97f4a7c15ULL ^ tg_hash_bytes(nk, strlen(nk) + 1);
}

/* Rebuilds the index at twice the size once it is half full. */
static int kinds_reserve(struct kinds *ks)
{
	if (tg_grow((void **)&ks->hash, &ks->hcap, ks->n + 1, sizeof(uint64_t)))
		return TG_ENOMEM;
	if ((ks->n + 1) * 2 <= ks->nslot)
		return 0;
	size_t ns = ks->nslot ? ks->nslot * 2 : 64;
	uint32_t *slot = malloc(ns * sizeof(uint32_t));
	if (!slot)
		return TG_ENOMEM;
	memset(slot, 0xff, ns * sizeof(uint32_t));
	for (size_t i = 0; i < ks->n; i++) {
		size_t s = (size_t)ks->hash[i] & (ns - 1);
		while (slot[s] != TG_NONE)
			s = (s + 1) & (ns - 1);
		slot[s] = (uint32_t)i;
	}
	free(ks->slot);
	ks->slot = slot;
	ks->nslot = ns;
	return 0;
}

/* The index of the kind (where, bk, nk); a new one (taking the three
 * strings) when absent, else the strings are freed. TG_NONE when out of
 * memory (the strings are freed). */
static uint32_t kinds_find_add(struct kinds *ks, char *where, char *bk, char *nk, uint32_t cat)
{
	if (ks->n >= TG_NONE - 2 || kinds_reserve(ks) ||
	    tg_grow((void **)&ks->k, &ks->cap, ks->n + 1, sizeof(struct kind))) {
		free(where);
		free(bk);
		free(nk);
		return TG_NONE;
	}
	uint64_t h = kind_hash(where, bk, nk);
	size_t s = (size_t)h & (ks->nslot - 1);
	for (; ks->slot[s] != TG_NONE; s = (s + 1) & (ks->nslot - 1)) {
		const struct kind *k = &ks->k[ks->slot[s]];
		if (ks->hash[ks->slot[s]] == h && !strcmp(k->where, where) && !strcmp(k->bk, bk) && !strcmp(k->nk, nk)) {
			free(where);
			free(bk);
			free(nk);
			return ks->slot[s];
		}
	}
	uint32_t i = (uint32_t)ks->n++;
	ks->k[i] = (struct kind){where, bk, nk, cat, 0, 0, 0};
	ks->hash[i] = h;
	ks->slot[s] = i;
	return i;
}

/* Adds the LCAs of one pair to kinds. */
static int add_pair(struct kinds *ks, const tg_divergence_pair *p, const tg_measure *base, const tg_measure *next)
{
	size_t nl, nn;
	const tg_diff_lca *lcas = tg_tree_diff_lcas(p->diff, &nl);
	if (!nl)
		return 0; /* nothing to add; a lean diff has no skeletons (tg_tree_diff_lean) */
	const tg_diff_node *nodes = tg_tree_diff_nodes(p->diff, &nn);
	const tg_skeleton *btr = tg_tree_diff_skeleton(p->diff, TG_DIFF_SIDE_BASE),
	                  *ntr = tg_tree_diff_skeleton(p->diff, TG_DIFF_SIDE_NEW);
	struct rec_map bmap = {0}, nmap = {0};
	int mrc = rec_map_build(&bmap, base, p->bt, tg_skeleton_events(btr), lcas, nl, 0) ||
	          rec_map_build(&nmap, next, p->nt, tg_skeleton_events(ntr), lcas, nl, 1);
	size_t nbr, nnr;
	const tg_kernel_rec *br = tg_measure_kernels(base, &nbr), *nr = tg_measure_kernels(next, &nnr);
	struct names bn, nn2;
	int rc = TG_ENOMEM, nms = !names_init(&bn, p->diff, TG_DIFF_SIDE_BASE) + !names_init(&nn2, p->diff, TG_DIFF_SIDE_NEW);
	if (mrc || nms < 2)
		goto done;
	for (size_t l = 0; l < nl; l++) {
		const tg_diff_lca *a = &lcas[l];
		char *where = lca_where(btr, ntr, &nodes[a->node], a->node);
		char *basek = kernel_list(&bn, a->base_gpu, a->nbase);
		char *newk = kernel_list(&nn2, a->new_gpu, a->nnew);
		if (!where || !basek || !newk) {
			free(where);
			free(basek);
			free(newk);
			goto done;
		}
		uint32_t cat = TG_NONE;
		for (size_t i = 0; i < a->nbase; i++)
			if (rec_at(&bmap, a->base_gpu[i]) != TG_NONE)
				fold(&cat, br[rec_at(&bmap, a->base_gpu[i])].category);
		for (size_t i = 0; i < a->nnew; i++)
			if (rec_at(&nmap, a->new_gpu[i]) != TG_NONE)
				fold(&cat, nr[rec_at(&nmap, a->new_gpu[i])].category);
		size_t before = ks->n;
		uint32_t k = kinds_find_add(ks, where, basek, newk, cat);
		if (k == TG_NONE)
			goto done;
		struct kind *kd = &ks->k[k];
		if (ks->n == before && kd->cat != cat)
			fold(&kd->cat, cat == TG_NONE ? MIXED : cat);
		kd->count++;
		kd->base_ns += (double)a->base_sum_ns;
		kd->new_ns += (double)a->new_sum_ns;
	}
	rc = 0;
done:
	names_free(&bn);
	names_free(&nn2);
	free(bmap.at);
	free(nmap.at);
	return rc;
}

int tg_divergence_table(tg_table **out, const tg_divergence_pair *pairs, size_t npairs, const tg_measure *base,
                        const tg_measure *next, const tg_atoms *keys, size_t limit)
{
	*out = NULL;
	static const char *const cols[] = {"where",     "category",  "base kernels", "new kernels", "count",
	                                   "base (us)", "new (us)",  "delta (us)",   "delta (%)",   NULL};
	struct kinds ks = {0};
	for (size_t i = 0; i < npairs; i++)
		if (add_pair(&ks, &pairs[i], base, next)) {
			kinds_free(ks.k, ks.n);
			free(ks.slot);
			free(ks.hash);
			return TG_ENOMEM;
		}
	free(ks.slot);
	free(ks.hash);
	struct kind *kinds = ks.k;
	size_t nk = ks.n;
	if (nk > 1)
		qsort(kinds, nk, sizeof(*kinds), cmp_kind);
	size_t ub, ux;
	tg_measure_units(base, &ub);
	tg_measure_units(next, &ux);
	double sb = ub ? 1.0 / (double)ub : 1.0, sx = ux ? 1.0 / (double)ux : 1.0;
	tg_table *t = tg_table_new_cols("diff_by_divergence", "Where the call trees diverge (kernel time per step)",
	                                cols);
	int rc = t ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < nk && (!limit || i < limit); i++) {
		const struct kind *k = &kinds[i];
		int64_t row = tg_table_add_row(t);
		if (row < 0) {
			rc = TG_ENOMEM;
			break;
		}
		size_t r = (size_t)row;
		double b = k->base_ns * sb / 1e3, x = k->new_ns * sx / 1e3;
		const char *cat = k->cat == TG_NONE ? "" : k->cat == MIXED ? "mixed" : tg_atoms_str(keys, k->cat);
		if (tg_table_set_str(t, r, 0, k->where) || tg_table_set_str(t, r, 1, cat) || tg_table_set_str(t, r, 2, k->bk) ||
		    tg_table_set_str(t, r, 3, k->nk)) {
			rc = TG_ENOMEM;
			break;
		}
		tg_table_set_int(t, r, 4, (int64_t)k->count);
		tg_table_set_num(t, r, 5, b);
		tg_table_set_num(t, r, 6, x);
		tg_table_set_num(t, r, 7, x - b);
		if (b > 0)
			tg_table_set_num(t, r, 8, 100.0 * (x - b) / b);
	}
	kinds_free(kinds, nk);
	if (rc) {
		tg_table_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

/* ------------------------------------------------------------ drawing */

struct pick {
	char *sig;      /* where \x1f base kernels \x1f new kernels; owned */
	size_t first;   /* first LCA of the kind */
	double delta;   /* summed new - base, ns */
};

static int cmp_pick_sig(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;
	int c = strcmp(a->sig, b->sig);
	return c ? c : (a->first > b->first) - (a->first < b->first);
}

static int cmp_pick_delta(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;
	double da = fabs(a->delta), db = fabs(b->delta);
	if (da != db)
		return da > db ? -1 : 1;
	return (a->first > b->first) - (a->first < b->first);
}

int tg_divergence_pick(uint8_t *mask, const tg_tree_diff *d, size_t max_kinds, size_t *kinds)
{
	size_t nl, nn;
	const tg_diff_lca *lcas = tg_tree_diff_lcas(d, &nl);
	const tg_diff_node *nodes = tg_tree_diff_nodes(d, &nn);
	const tg_skeleton *bt = tg_tree_diff_skeleton(d, TG_DIFF_SIDE_BASE), *nt = tg_tree_diff_skeleton(d, TG_DIFF_SIDE_NEW);
	if (kinds)
		*kinds = 0;
	if (!nl)
		return 0;
	memset(mask, 0, nl);
	struct pick *p = calloc(nl, sizeof(*p));
	struct names bn, nn2;
	int nms = !names_init(&bn, d, TG_DIFF_SIDE_BASE) + !names_init(&nn2, d, TG_DIFF_SIDE_NEW);
	int rc = p && nms == 2 ? 0 : TG_ENOMEM;
	for (size_t l = 0; !rc && l < nl; l++) {
		char *w = lca_where(bt, nt, &nodes[lcas[l].node], lcas[l].node);
		char *bk = kernel_list(&bn, lcas[l].base_gpu, lcas[l].nbase);
		char *nk = kernel_list(&nn2, lcas[l].new_gpu, lcas[l].nnew);
		if (w && bk && nk && (p[l].sig = malloc(strlen(w) + strlen(bk) + strlen(nk) + 3)))
			sprintf(p[l].sig, "%s\x1f%s\x1f%s", w, bk, nk);
		else
			rc = TG_ENOMEM;
		free(w);
		free(bk);
		free(nk);
		p[l].first = l;
		p[l].delta = (double)(lcas[l].new_sum_ns - lcas[l].base_sum_ns);
	}
	size_t nk = 0;
	if (!rc) {
		qsort(p, nl, sizeof(*p), cmp_pick_sig);
		/* fold each run of equal signatures into its first entry */
		for (size_t i = 0; i < nl;) {
			size_t j = i + 1;
			double sum = p[i].delta;
			while (j < nl && !strcmp(p[j].sig, p[i].sig))
				sum += p[j++].delta;
			struct pick k = p[i];
			k.delta = sum;
			for (size_t q = i + 1; q < j; q++)
				free(p[q].sig);
			p[nk++] = k;
			i = j;
		}
		qsort(p, nk, sizeof(*p), cmp_pick_delta);
		for (size_t i = 0; i < nk && i < max_kinds; i++)
			mask[p[i].first] = 1;
	}
	for (size_t i = 0; p && i < (rc ? nl : nk); i++)
		free(p[i].sig);
	free(p);
	names_free(&bn);
	names_free(&nn2);
	if (kinds)
		*kinds = nk;
	return rc ? tg_error_set(TG_ENOMEM, "out of memory") : 0;
}
