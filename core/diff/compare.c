/*
 * compare.c - aggregates two measures by a key and lines them up.
 */
#include "compare.h"
#include "../../util/idmap.h"
#include "../../util/sort.h"
#include "../models/kernel_category.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tg_compare_by_name(tg_compare_by by)
{
	static const char *const names[] = {"category", "op", "op_shape", "kernel", "module"};
	return by < TG_COMPARE_BY_COUNT ? names[by] : "?";
}

static uint32_t key_of(const tg_kernel_rec *r, tg_compare_by by)
{
	switch (by) {
	case TG_COMPARE_CATEGORY: return r->category;
	case TG_COMPARE_OP: return r->op;
	case TG_COMPARE_OP_SHAPE: return r->op_shape;
	case TG_COMPARE_KERNEL: return r->kernel;
	case TG_COMPARE_MODULE: return r->module;
	default: return 0;
	}
}

struct acc {
	uint32_t key;
	double count[2];
	double ns[2];
};

static int cmp_delta(const void *a, const void *b)
{
	const tg_compare_row *x = a, *y = b;
	double dx = fabs(x->delta_us), dy = fabs(y->delta_us);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	double sx = x->base_us + x->new_us, sy = y->base_us + y->new_us;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* One kernel's time under a key and a category, for tg_compare_categories. */
struct keycat {
	uint32_t key, category;
	double ns;
};

/* Fills cats[key] from the sorted run kc[0..n) of one key. */
static void pick_category(tg_compare_cat *cat, const struct keycat *kc, size_t n)
{
	double best = -1;
	cat->category = TG_NONE;
	cat->others = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double ns = 0;
		while (j < n && kc[j].category == kc[i].category)
			ns += kc[j++].ns;
		if (cat->category != TG_NONE)
			cat->others++;
		if (ns > best) {
			best = ns;
			cat->category = kc[i].category;
		}
		i = j;
	}
}

/* kc[0..n) by key, then category (both unsigned, TG_NONE last), stable.
 * 0 or TG_ENOMEM. */
static int sort_keycat(struct keycat *kc, size_t n)
{
	tg_sort_pair *kv = tg_malloc((n ? n : 1) * sizeof(*kv));
	if (!kv)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		kv[i] = (tg_sort_pair){(uint64_t)kc[i].key << 32 | kc[i].category, (uint32_t)i};
	int rc = tg_sort_pairs(kv, n);
	if (!rc)
		rc = tg_sort_apply(kc, n, sizeof(*kc), kv);
	free(kv);
	return rc;
}

int tg_compare_categories(tg_compare_cat **out, size_t *n, const tg_measure *base, const tg_measure *next,
                          tg_compare_by by)
{
	*out = NULL;
	*n = 0;
	size_t nb, nx;
	const tg_kernel_rec *rb = tg_measure_kernels(base, &nb), *rx = tg_measure_kernels(next, &nx);
	struct keycat *kc = tg_calloc(nb + nx + 1, sizeof(*kc));
	if (!kc)
		return TG_ENOMEM;
	uint32_t max = 0;
	for (size_t i = 0; i < nb + nx; i++) {
		const tg_kernel_rec *r = i < nb ? &rb[i] : &rx[i - nb];
		kc[i] = (struct keycat){key_of(r, by), r->category, (double)r->dur_ns};
		if (kc[i].key != TG_NONE && kc[i].key + 1 > max)
			max = kc[i].key + 1;
	}
	/* by (key, category), stable (the times of a pair are summed in the
	 * measures' order): a radix sort, the order qsort's stable merge sort
	 * gave them, in linear time (a baseline's 100k kernels
	 * took 94 M instructions in qsort) */
	int rc = sort_keycat(kc, nb + nx);
	if (rc) {
		free(kc);
		return rc;
	}
	tg_compare_cat *cats = tg_calloc(max + 1, sizeof(*cats));
	if (!cats) {
		free(kc);
		return TG_ENOMEM;
	}
	for (uint32_t k = 0; k <= max; k++)
		cats[k].category = TG_NONE;
	for (size_t i = 0; i < nb + nx;) {
		size_t j = i;
		while (j < nb + nx && kc[j].key == kc[i].key)
			j++;
		if (kc[i].key != TG_NONE)
			pick_category(&cats[kc[i].key], kc + i, j - i);
		i = j;
	}
	free(kc);
	*out = cats;
	*n = max;
	return 0;
}

static int compare_rows(tg_compare_row **out, size_t *n, const tg_measure *base, const tg_measure *next,
                        tg_compare_by by, int steps_only);

int tg_compare_rows(tg_compare_row **out, size_t *n, const tg_measure *base, const tg_measure *next,
                    tg_compare_by by)
{
	return compare_rows(out, n, base, next, by, 0);
}

int tg_compare_rows_steps(tg_compare_row **out, size_t *n, const tg_measure *base, const tg_measure *next,
                          tg_compare_by by)
{
	return compare_rows(out, n, base, next, by, 1);
}

/* The sums per key: a[k] for a key k below cap (keys are the measure's
 * atoms: dense), seen[k] when a record had key k; TG_NONE's in none. */
struct sums {
	struct acc *a;
	unsigned char *seen;
	size_t cap;
	struct acc none;
	int none_seen;
};

/* Makes room in s for key k (doubling, the new sums zero). 0 or TG_ENOMEM. */
static int sums_reserve(struct sums *s, uint32_t k)
{
	if (k < s->cap)
		return 0;
	size_t nc = s->cap ? s->cap : 64;
	while (nc <= k)
		nc *= 2;
	struct acc *na = realloc(s->a, nc * sizeof(*na));
	if (!na)
		return TG_ENOMEM;
	s->a = na;
	unsigned char *ns = realloc(s->seen, nc);
	if (!ns)
		return TG_ENOMEM;
	s->seen = ns;
	memset(na + s->cap, 0, (nc - s->cap) * sizeof(*na));
	memset(ns + s->cap, 0, nc - s->cap);
	s->cap = nc;
	return 0;
}

/* Adds every record of both sides to s by its key, in record order (the
 * order the stable sort by key it replaced gave every group: the sums are
 * the same bits), in one pass over the records (a pass for the largest key
 * first streamed them twice: 176 MB at 1 GB of JSON); *groups the distinct
 * keys. steps_only: a device event outside every step is in no step's
 * value: left out, as the rules leave it out (tg_compare_outside says how
 * much). 0 or TG_ENOMEM. */
static int add_sums(struct sums *s, size_t *groups, const tg_kernel_rec *rb, size_t nb, const tg_kernel_rec *rx,
                    size_t nx, tg_compare_by by, int steps_only)
{
	*groups = 0;
	for (size_t i = 0; i < nb + nx; i++) {
		const tg_kernel_rec *r = i < nb ? &rb[i] : &rx[i - nb];
		if (steps_only && r->unit == TG_NONE)
			continue;
		uint32_t k = key_of(r, by);
		struct acc *a = &s->none;
		if (k == TG_NONE) {
			*groups += !s->none_seen;
			s->none_seen = 1;
		} else {
			if (sums_reserve(s, k))
				return TG_ENOMEM;
			*groups += !s->seen[k];
			s->seen[k] = 1;
			a = &s->a[k];
		}
		int side = i >= nb;
		a->count[side] += 1;
		a->ns[side] += (double)r->dur_ns;
	}
	return 0;
}

static int compare_rows(tg_compare_row **out, size_t *n, const tg_measure *base, const tg_measure *next,
                        tg_compare_by by, int steps_only)
{
	*out = NULL;
	*n = 0;
	size_t nb, nx, ub, ux, groups;
	const tg_kernel_rec *rb = tg_measure_kernels(base, &nb), *rx = tg_measure_kernels(next, &nx);
	tg_measure_units(base, &ub);
	tg_measure_units(next, &ux);
	struct sums sm = {0};
	if (add_sums(&sm, &groups, rb, nb, rx, nx, by, steps_only)) {
		free(sm.a);
		free(sm.seen);
		return TG_ENOMEM;
	}
	tg_compare_row *rows = tg_calloc(groups + 1, sizeof(*rows));
	if (!rows) {
		free(sm.a);
		free(sm.seen);
		return TG_ENOMEM;
	}
	size_t c = 0;
	double sb = ub ? 1.0 / (double)ub : 1.0, sx = ux ? 1.0 / (double)ux : 1.0;
	for (size_t at = 0; at <= sm.cap; at++) { /* at == cap: TG_NONE's, last */
		if (at == sm.cap ? !sm.none_seen : !sm.seen[at])
			continue;
		struct acc s = at == sm.cap ? sm.none : sm.a[at];
		tg_compare_row *r = &rows[c++];
		r->key = at == sm.cap ? TG_NONE : (uint32_t)at;
		r->base_count = s.count[0] * sb;
		r->new_count = s.count[1] * sx;
		r->base_us = s.ns[0] * sb / 1000.0;
		r->new_us = s.ns[1] * sx / 1000.0;
		r->delta_us = r->new_us - r->base_us;
		r->is_new = s.count[0] == 0;
		r->is_gone = s.count[1] == 0;
		r->delta_pct = r->base_us > 0 ? 100.0 * r->delta_us / r->base_us : (r->new_us > 0 ? INFINITY : 0);
	}
	free(sm.seen);
	free(sm.a);
	qsort(rows, c, sizeof(*rows), cmp_delta);
	*out = rows;
	*n = c;
	return 0;
}

/* A count per step: an integer when it is one (the usual case), else a
 * number (a side whose traces have different kernels in their steps: the
 * mean of the steps). */
static void set_count(tg_table *t, size_t row, size_t col, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		tg_table_set_int(t, row, col, (int64_t)v);
	else
		tg_table_set_num(t, row, col, v);
}

/* Rows' keys up to this one are found through an array indexed by key (4
 * bytes a key: 4 MiB at most); past it, through a hash map. */
#define DENSE_KEYS ((uint32_t)1 << 20)

/* The kernel time of each row's key (each a category: the records'
 * `category`) by where the category came from, both sides together, into
 * ns[0..n); the rows' keys distinct. One pass over the records: with one
 * row a comparison a record, else a lookup in an array by key (a hash map
 * when a key is past DENSE_KEYS). Returns 0 or TG_ENOMEM. */
static int source_sums(int64_t (*ns)[TG_CAT_SRC_COUNT], const tg_compare_row *rows, size_t n, const tg_measure *base,
                       const tg_measure *next)
{
	uint32_t most = 0;
	for (size_t i = 0; i < n; i++)
		most = rows[i].key > most ? rows[i].key : most;
	uint32_t *row_at = n > 1 && most < DENSE_KEYS ? tg_malloc(((size_t)most + 1) * sizeof(uint32_t)) : NULL;
	tg_idmap *row_of = n > 1 && !row_at ? tg_idmap_new(n) : NULL;
	if (n > 1 && !row_at && !row_of)
		return TG_ENOMEM;
	if (row_at)
		memset(row_at, 0xff, ((size_t)most + 1) * sizeof(uint32_t)); /* TG_NONE */
	for (size_t i = 0; n > 1 && i < n; i++) {
		if (row_at)
			row_at[rows[i].key] = (uint32_t)i;
		else if (tg_idmap_put(row_of, rows[i].key, (uint32_t)i) < 0) {
			tg_idmap_free(row_of);
			return TG_ENOMEM;
		}
	}
	const tg_measure *sides[2] = {base, next};
	for (int s = 0; s < 2; s++) {
		size_t nk;
		const tg_kernel_rec *k = tg_measure_kernels(sides[s], &nk);
		for (size_t i = 0; i < nk; i++) {
			uint32_t c = k[i].category, r;
			if (n <= 1)
				r = n && c == rows[0].key ? 0 : TG_NONE;
			else if (row_at)
				r = c <= most ? row_at[c] : TG_NONE;
			else
				r = tg_idmap_get(row_of, c);
			if (r != TG_NONE && k[i].cat_source < TG_CAT_SRC_COUNT)
				ns[r][k[i].cat_source] += k[i].dur_ns;
		}
	}
	free(row_at);
	tg_idmap_free(row_of);
	return 0;
}

/* "kernel name 78 %, op 22 %" from one row's sums (ns, zeroed on the
 * way) into from: the sources of at least 0.5 %, largest first. */
static void source_text(char *from, int64_t *ns)
{
	int64_t total = 0;
	for (int c = 0; c < TG_CAT_SRC_COUNT; c++)
		total += ns[c];
	size_t len = 0;
	from[0] = 0;
	for (int shown = 0; shown < TG_CAT_SRC_COUNT && total > 0; shown++) {
		int best = -1;
		for (int c = 0; c < TG_CAT_SRC_COUNT; c++)
			if (ns[c] > 0 && (best < 0 || ns[c] > ns[best]))
				best = c;
		if (best < 0)
			break;
		double pct = 100.0 * (double)ns[best] / (double)total;
		ns[best] = 0;
		if (pct < 0.5)
			break;
		int w = snprintf(from + len, TG_COMPARE_FROM_CAP - len, "%s%s %.0f %%", len ? ", " : "",
		                 tg_cat_source_name((tg_cat_source)best), pct);
		if (w < 0 || (size_t)w >= TG_COMPARE_FROM_CAP - len)
			break;
		len += (size_t)w;
	}
}

/* "kernel name 78 %, op 22 %": where the kernel time of each shown
 * category came from, both sides together, largest first (kernel_category.h).
 * from[i] receives the text of rows[i] (their keys distinct); one pass over
 * the records. */
static int category_sources(char (*from)[TG_COMPARE_FROM_CAP], const tg_compare_row *rows, size_t n,
                            const tg_measure *base, const tg_measure *next)
{
	int64_t(*ns)[TG_CAT_SRC_COUNT] = tg_calloc(n ? n : 1, sizeof(*ns));
	if (!ns)
		return TG_ENOMEM;
	int rc = source_sums(ns, rows, n, base, next);
	for (size_t i = 0; !rc && i < n; i++)
		source_text(from[i], ns[i]);
	free(ns);
	return rc;
}

int tg_compare_table(tg_table **out, const tg_measure *base, const tg_measure *next, const tg_atoms *keys,
                     tg_compare_by by, size_t limit)
{
	*out = NULL;
	tg_compare_row *rows;
	size_t n;
	int rc = tg_compare_rows_steps(&rows, &n, base, next, by);
	if (rc)
		return rc;
	char name[64], title[96];
	snprintf(name, sizeof(name), "diff_by_%s", tg_compare_by_name(by));
	snprintf(title, sizeof(title), "Kernel time per step by %s", tg_compare_by_name(by));
	/* by category: also where each category came from */
	const char *cols[] = {tg_compare_by_name(by), "base count", "new count", "base (us)", "new (us)",
	                      "delta (us)", "delta (%)", "status", by == TG_COMPARE_CATEGORY ? "from" : NULL, NULL};
	tg_table *t = tg_table_new_cols(name, title, cols);
	if (!t) {
		free(rows);
		return TG_ENOMEM;
	}
	if (limit && n > limit)
		n = limit;
	char(*from)[TG_COMPARE_FROM_CAP] = NULL;
	if (by == TG_COMPARE_CATEGORY) {
		from = tg_calloc(n ? n : 1, sizeof(*from));
		if (!from || category_sources(from, rows, n, base, next)) {
			free(from);
			tg_table_free(t);
			free(rows);
			return TG_ENOMEM;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const tg_compare_row *r = &rows[i];
		int64_t ri = tg_table_add_row(t);
		const char *k = tg_atoms_str(keys, r->key);
		if (ri < 0 || tg_table_set_str(t, (size_t)ri, 0, *k ? k : "(none)")) {
			tg_table_free(t);
			free(rows);
			return TG_ENOMEM;
		}
		set_count(t, (size_t)ri, 1, r->base_count);
		set_count(t, (size_t)ri, 2, r->new_count);
		tg_table_set_num(t, (size_t)ri, 3, r->base_us);
		tg_table_set_num(t, (size_t)ri, 4, r->new_us);
		tg_table_set_num(t, (size_t)ri, 5, r->delta_us);
		if (isfinite(r->delta_pct))
			tg_table_set_num(t, (size_t)ri, 6, r->delta_pct);
		if (((r->is_new || r->is_gone) && tg_table_set_str(t, (size_t)ri, 7, r->is_new ? "new" : "gone")) ||
		    (from && tg_table_set_str(t, (size_t)ri, 8, from[i]))) {
			free(from);
			tg_table_free(t);
			free(rows);
			return TG_ENOMEM;
		}
	}
	free(from);
	free(rows);
	*out = t;
	return 0;
}

int tg_compare_category_from(char *buf, size_t cap, const tg_measure *base, const tg_measure *next,
                             const tg_atoms *keys, const char *category)
{
	if (cap)
		buf[0] = 0;
	uint32_t key = tg_atoms_find(keys, category, strlen(category));
	if (key == TG_NONE || !cap)
		return 0;
	tg_compare_row row = {.key = key};
	char from[1][TG_COMPARE_FROM_CAP];
	int rc = category_sources(from, &row, 1, base, next);
	if (!rc)
		snprintf(buf, cap, "%s", from[0]);
	return rc;
}

int tg_compare_category_froms(char (*from)[TG_COMPARE_FROM_CAP], const tg_measure *base, const tg_measure *next,
                              const tg_atoms *keys, const char *const *names, size_t n)
{
	tg_compare_row *rows = tg_calloc(n ? n : 1, sizeof(*rows));
	size_t *row_of = tg_calloc(n ? n : 1, sizeof(size_t)), nrows = 0;
	char(*text)[TG_COMPARE_FROM_CAP] = tg_calloc(n ? n : 1, sizeof(*text));
	int rc = rows && row_of && text ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) { /* each key once: rows[row_of[i]], or none (SIZE_MAX) */
		uint32_t key = tg_atoms_find(keys, names[i], strlen(names[i]));
		size_t r = 0;
		while (r < nrows && rows[r].key != key)
			r++;
		if (key != TG_NONE && r == nrows)
			rows[nrows++].key = key;
		row_of[i] = key == TG_NONE ? SIZE_MAX : r;
	}
	if (!rc)
		rc = category_sources(text, rows, nrows, base, next);
	for (size_t i = 0; !rc && i < n; i++)
		snprintf(from[i], TG_COMPARE_FROM_CAP, "%s", row_of[i] == SIZE_MAX ? "" : text[row_of[i]]);
	free(rows);
	free(row_of);
	free(text);
	return rc;
}

void tg_compare_outside(size_t *count, int64_t *ns, const tg_measure *m)
{
	size_t n;
	const tg_kernel_rec *r = tg_measure_kernels(m, &n);
	*count = 0;
	*ns = 0;
	for (size_t i = 0; i < n; i++)
		if (r[i].unit == TG_NONE) {
			(*count)++;
			*ns += r[i].dur_ns;
		}
}
