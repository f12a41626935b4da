/*
 * diff_tables.c - every table and number the outputs of a diff show,
 * computed once (diff_tables.h).
 *
 * Each part is what a renderer used to compute while it printed, moved
 * here unchanged so that the outputs stay byte-identical: the kernel time
 * tables (tg_compare_table), the categories (tg_compare_categories,
 * tg_compare_category_from), the sorted per-op lists, the replay match of
 * the top regression's most regressed shape (tg_compare_rows_steps by op
 * + shapes) and the module subtrees (by module).
 */
#include "diff_tables.h"
#include "../core/diff/compare.h"
#include "../core/trace/pyrepr.h"
#include "../core/analysis/replay.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(TG_DIFF_BY_COUNT == TG_COMPARE_BY_COUNT, "one table per compare_by");
_Static_assert(TG_DIFF_BY_OP_SHAPE == TG_COMPARE_OP_SHAPE, "op + shapes is the third grouping");
_Static_assert(TG_DIFF_FROM_CAP == TG_COMPARE_FROM_CAP, "a category's origin as compare writes it");

#define NO_LAUNCHER "(no launcher)"

/* The categories of the keys of one compare_by (tg_compare_categories). */
struct cats {
	tg_compare_cat *v;
	size_t n;
};

/* Writes the category of the key named name ("GEMM"; "NCCL +1" when its
 * kernels are also filed under one more category); "" when unknown. */
static void category_of(char *buf, size_t cap, const struct cats *c, const tg_atoms *keys, const char *name)
{
	uint32_t k = c && c->v ? tg_atoms_find(keys, name, strlen(name)) : TG_NONE;
	buf[0] = 0;
	if (k == TG_NONE || k >= c->n || c->v[k].category == TG_NONE)
		return;
	if (c->v[k].others)
		snprintf(buf, cap, "%s +%u", tg_atoms_str(keys, c->v[k].category), c->v[k].others);
	else
		snprintf(buf, cap, "%s", tg_atoms_str(keys, c->v[k].category));
}

/* The category of x's item: the item itself for an each rule by
 * category, the category of its kernels for the others, the selected
 * category for a total rule that selects one by name, else "".
 * cats: one slot per compare_by, filled on first use. */
static int item_category(char *buf, size_t cap, const tg_judged *x, const tg_measure *base, const tg_measure *next,
                         const tg_atoms *keys, struct cats *cats)
{
	static const tg_compare_by by_of[] = {TG_COMPARE_CATEGORY, TG_COMPARE_OP, TG_COMPARE_OP_SHAPE, TG_COMPARE_KERNEL,
	                                      TG_COMPARE_MODULE};
	buf[0] = 0;
	if (x->rule->aggregate != TG_AGG_EACH && x->rule->category.text && !x->rule->category.is_regex) {
		/* a total rule over one category: that category */
		snprintf(buf, cap, "%s", x->rule->category.text);
		return 0;
	}
	if (x->rule->aggregate != TG_AGG_EACH || !x->item[0])
		return 0;
	if (x->rule->by == TG_BY_CATEGORY) {
		snprintf(buf, cap, "%s", x->item);
		return 0;
	}
	struct cats *c = &cats[x->rule->by];
	if (!c->v && tg_compare_categories(&c->v, &c->n, base, next, by_of[x->rule->by]))
		return TG_ENOMEM;
	category_of(buf, cap, c, keys, x->item);
	return 0;
}

/* The categories whose origin the outputs show, each distinct one once:
 * the items' (names[0..nitem): the first item of each at first[k], item i
 * of names[of[i]] or SIZE_MAX), then those the rules select by name
 * (names[nitem..n)). */
struct wanted {
	const char **names;
	size_t *first, *of;
	size_t nitem, n;
};

static void wanted_free(struct wanted *w)
{
	free((void *)w->names);
	free(w->first);
	free(w->of);
}

/* Each rule item's category (docs/categories.md) into t, and the distinct
 * ones into w. */
static int items(tg_diff_tables *t, const tg_measure *base, const tg_measure *next, const tg_atoms *keys,
                 const tg_judgement *j, struct cats *cats, struct wanted *w)
{
	const tg_judged *it = tg_judgement_items(j, &t->nitems);
	size_t cap = t->nitems + TG_DIFF_RULE_CATS;
	w->names = calloc(cap, sizeof(*w->names));
	w->first = calloc(cap, sizeof(size_t));
	w->of = calloc(t->nitems ? t->nitems : 1, sizeof(size_t));
	t->item_category = calloc(t->nitems ? t->nitems : 1, sizeof(*t->item_category));
	t->item_from = calloc(t->nitems ? t->nitems : 1, sizeof(*t->item_from));
	int rc = w->names && w->first && w->of && t->item_category && t->item_from ? 0 : TG_ENOMEM;
	for (size_t i = 0; i < t->nitems && !rc; i++) {
		char *cat = t->item_category[i];
		w->of[i] = SIZE_MAX;
		rc = item_category(cat, TG_DIFF_CAT_CAP, &it[i], base, next, keys, cats);
		if (rc || !cat[0])
			continue;
		size_t k = 0;
		while (k < w->n && strcmp(w->names[k], cat))
			k++;
		if (k == w->n) {
			w->names[w->n] = cat;
			w->first[w->n++] = i;
		}
		w->of[i] = k;
	}
	w->nitem = w->n;
	return rc;
}

/* The categories the rules select by name, into w after the items': the
 * first TG_DIFF_RULE_CATS names seen. */
static void rule_names(const tg_judgement *j, struct wanted *w)
{
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	for (size_t i = 0; i < n && w->n - w->nitem < TG_DIFF_RULE_CATS; i++) {
		const tg_pattern *p = &it[i].rule->category;
		if (!p->text || p->is_regex)
			continue;
		size_t k = w->nitem;
		while (k < w->n && strcmp(w->names[k], p->text))
			k++;
		if (k == w->n)
			w->names[w->n++] = p->text;
	}
}

/* Where each category of w came from (both sides' kernels, in one pass:
 * tg_compare_category_froms): every item's, and those of the rules'
 * categories that have an origin ("SDPA_fwd: kernel name 100 %"). */
static int froms(tg_diff_tables *t, const tg_measure *base, const tg_measure *next, const tg_atoms *keys,
                 const struct wanted *w)
{
	char(*from)[TG_COMPARE_FROM_CAP] = calloc(w->n ? w->n : 1, sizeof(*from));
	int rc = from ? tg_compare_category_froms(from, base, next, keys, w->names, w->n) : TG_ENOMEM;
	for (size_t i = 0; !rc && i < t->nitems; i++)
		if (w->of[i] != SIZE_MAX)
			memcpy(t->item_from[i], from[w->of[i]], TG_DIFF_FROM_CAP);
	for (size_t k = w->nitem; !rc && k < w->n; k++) {
		if (!from[k][0])
			continue;
		tg_diff_rule_from *r = &t->rule_from[t->nrule_from++];
		r->category = w->names[k];
		memcpy(r->from, from[k], TG_DIFF_FROM_CAP);
	}
	free(from);
	return rc;
}

int tg_diff_tables_op_significant(const tg_judged *x)
{
	return x->verdict == TG_VERDICT_WARN || x->verdict == TG_VERDICT_BLOCK || x->improved;
}

/* 0: regressions, 1: improvements, 2: significant, 3: the others. */
static int op_picked(const tg_judged *x, int which)
{
	if (!strcmp(x->item, NO_LAUNCHER))
		return 0;
	switch (which) {
	case 0: return x->delta > 0;
	case 1: return x->delta < 0;
	default: return x->delta != 0 && !isnan(x->delta) && !!tg_diff_tables_op_significant(x) == (which == 2);
	}
}

/* The per-op items picked by which (op_picked), by |delta| largest first
 * (insertion sort: a few hundred items, stable); *c of them. */
static const tg_judged **ops_sorted(const tg_judged *it, size_t n, int which, size_t *c)
{
	*c = 0;
	const tg_judged **pick = calloc(n ? n : 1, sizeof(*pick));
	if (!pick)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (op_picked(&it[i], which))
			pick[(*c)++] = &it[i];
	for (size_t i = 1; i < *c; i++)
		for (size_t k = i; k > 0 && fabs(pick[k]->delta) > fabs(pick[k - 1]->delta); k--) {
			const tg_judged *x = pick[k];
			pick[k] = pick[k - 1];
			pick[k - 1] = x;
		}
	return pick;
}

/* The per-op lists, each op's category and the kernels no op launched. */
static int op_lists(tg_diff_tables *t, const tg_judgement *ops, const tg_atoms *keys, const struct cats *oc)
{
	size_t n = 0;
	const tg_judged *it = ops ? tg_judgement_items(ops, &n) : NULL;
	t->op_items = it;
	t->nops = n;
	t->op_category = calloc(n ? n : 1, sizeof(*t->op_category));
	t->regressions = ops_sorted(it, n, 0, &t->nregressions);
	t->improvements = ops_sorted(it, n, 1, &t->nimprovements);
	t->significant = ops_sorted(it, n, 2, &t->nsignificant);
	t->rest = ops_sorted(it, n, 3, &t->nrest);
	if (!t->op_category || !t->regressions || !t->improvements || !t->significant || !t->rest)
		return TG_ENOMEM;
	const tg_judged *x = NULL;
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		category_of(t->op_category[i], TG_DIFF_CAT_CAP, oc, keys, it[i].item);
		total += isnan(it[i].base) ? 0 : it[i].base;
		if (!strcmp(it[i].item, NO_LAUNCHER))
			x = &it[i];
	}
	t->no_launcher_share = x && total > 0 ? 100.0 * x->base / total : 0.0;
	t->no_launcher = x && (x->base > 0 || x->next > 0) ? x : NULL;
	return 0;
}

/* The --match of the most regressed shape of rows (by op + shapes) whose
 * op is op: "^dims=\\(\\(4096, 3076\\), ...\\) " into buf, the signature
 * replay shows (docs/replay.md); "" when op has one shape, or when the
 * dims are other than numbers in lists. */
static void shape_match(char *buf, size_t cap, const tg_compare_row *rows, size_t n, const tg_atoms *keys,
                        const char *op)
{
	size_t len = strlen(op), best = SIZE_MAX, shapes = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = tg_atoms_str(keys, rows[i].key);
		if (strncmp(k, op, len) || k[len] != ' ' || k[len + 1] != '[' || rows[i].is_gone)
			continue;
		shapes++;
		if (rows[i].delta_us > 0 && (best == SIZE_MAX || rows[i].delta_us > rows[best].delta_us))
			best = i;
	}
	char dims[512], py[512];
	/* one shape: the op alone selects it */
	const char *k = best == SIZE_MAX || shapes < 2 ? NULL : tg_atoms_str(keys, rows[best].key) + len + 1;
	const char *end = k ? strstr(k, "] ") : NULL; /* the dims list ends before the types */
	if (!end || (size_t)(end - k) + 2 > sizeof(dims))
		return;
	memcpy(dims, k, (size_t)(end - k) + 1);
	dims[end - k + 1] = 0;
	if (tg_pyrepr(py, sizeof(py), dims) || strspn(py, "0123456789(), ") != strlen(py))
		return;
	size_t o = (size_t)snprintf(buf, cap, "^dims=");
	for (const char *p = py; *p && o + 4 < cap; p++) {
		if (*p == '(' || *p == ')')
			buf[o++] = '\\';
		buf[o++] = *p;
	}
	if (o + 2 >= cap) {
		buf[0] = 0;
		return;
	}
	buf[o++] = ' ';
	buf[o] = 0;
}

/* 1 when s is made of the bytes of ok. */
static int all_of(const char *s, const char *ok)
{
	return *s && strspn(s, ok) == strlen(s);
}

/* The op whose replay the comment offers: the top significant regression
 * (its aten:: entry for a kernel-level attention op), when a script can
 * call it (aten::identifier); with its most regressed shape's match when
 * it is its own entry. */
static int replay(tg_diff_tables *t, const tg_measure *base, const tg_measure *next, const tg_atoms *keys)
{
	static const char ident[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
	const tg_judged *x = NULL;
	for (size_t i = 0; i < t->nsignificant && !x; i++)
		if (t->significant[i]->delta > 0)
			x = t->significant[i];
	if (!x)
		return 0;
	const char *op = tg_replay_entry_of(x->item);
	if (strncmp(op, "aten::", 6) || !all_of(op + 6, ident))
		return 0;
	t->replay_op = op;
	if (op != x->item)
		return 0;
	tg_compare_row *rows;
	size_t n;
	if (tg_compare_rows_steps(&rows, &n, base, next, TG_COMPARE_OP_SHAPE))
		return TG_ENOMEM;
	shape_match(t->replay_match, sizeof(t->replay_match), rows, n, keys, op);
	free(rows);
	return 0;
}

static int find_subtree(const tg_diff_subtree *v, size_t n, const char *p, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i].path) == len && !strncmp(v[i].path, p, len))
			return (int)i;
	return -1;
}

/* Kernel time per step of every module subtree (v, *nv of at most cap:
 * each path and each of its prefixes), and the totals inside modules
 * (*tb, *tn) and outside every module (*ob, *on). */
static void module_subtrees(tg_diff_subtree *v, size_t *nv, size_t cap, const tg_atoms *keys,
                            const tg_compare_row *rows, size_t nr, double *tb, double *tn, double *ob, double *on)
{
	for (size_t i = 0; i < nr; i++) {
		const char *m = tg_atoms_str(keys, rows[i].key);
		if (!m[0] || !strcmp(m, "(none)")) {
			*ob += rows[i].base_us, *on += rows[i].new_us;
			continue;
		}
		*tb += rows[i].base_us, *tn += rows[i].new_us;
		for (size_t k = 0;; k++) {
			if (m[k] != '/' && m[k])
				continue;
			if (k < sizeof(v[0].path)) {
				int at = find_subtree(v, *nv, m, k);
				if (at < 0 && *nv < cap) {
					at = (int)(*nv)++;
					snprintf(v[at].path, sizeof(v[at].path), "%.*s", (int)k, m);
				}
				if (at >= 0)
					v[at].base += rows[i].base_us, v[at].next += rows[i].new_us;
			}
			if (!m[k])
				break;
		}
	}
}

/* The subtrees that hold the change D (chosen, returns how many: 0 to 3):
 * descend from the root while one child holds 75 % of it; then 2 or 3
 * siblings that together hold 75 %, or the one child reached. */
static int choose_subtrees(int chosen[3], const tg_diff_subtree *v, size_t nv, size_t cap, double D)
{
	const char *node = "";
	size_t nlen = 0;
	int nch = 0;
	int *kids = malloc((cap / 4) * sizeof(int));
	if (!kids)
		return 0;
	for (;;) {
		int nk = 0;
		for (size_t i = 0; i < nv && nk < (int)(cap / 4); i++) {
			size_t l = strlen(v[i].path);
			if (l > nlen + (nlen ? 1 : 0) && !strncmp(v[i].path, node, nlen) && (!nlen || v[i].path[nlen] == '/') &&
			    !strchr(v[i].path + nlen + (nlen ? 1 : 0), '/'))
				kids[nk++] = (int)i;
		}
		for (int i = 1; i < nk; i++)
			for (int k = i; k > 0 && v[kids[k]].next - v[kids[k]].base > v[kids[k - 1]].next - v[kids[k - 1]].base;
			     k--) {
				int t = kids[k];
				kids[k] = kids[k - 1];
				kids[k - 1] = t;
			}
		if (nk && v[kids[0]].next - v[kids[0]].base >= 0.75 * D) {
			node = v[kids[0]].path;
			nlen = strlen(node);
			nch = 1;
			chosen[0] = kids[0];
			continue;
		}
		double sum = 0;
		int k = 0;
		for (; k < nk && k < 3 && sum < 0.75 * D; k++)
			sum += v[kids[k]].next - v[kids[k]].base;
		if (nk > 1 && sum >= 0.75 * D && k < nk) {
			nch = k;
			for (int i = 0; i < k; i++)
				chosen[i] = kids[i];
		}
		break;
	}
	free(kids);
	return nch;
}

/* When one nn.Module subtree (or 2 or 3 siblings) holds at least 75 % of
 * the change of the kernels run inside modules, which (m->n 0: none, or
 * the change is no finding: the whole model, or a part that moved less
 * than 1 %). Returns 0 or TG_ENOMEM. */
static int modules(tg_diff_modules *m, const tg_measure *base, const tg_measure *next, const tg_atoms *keys)
{
	tg_compare_row *rows;
	size_t nr;
	if (tg_compare_rows_steps(&rows, &nr, base, next, TG_COMPARE_MODULE))
		return TG_ENOMEM;
	enum { CAP = 2048 };
	tg_diff_subtree *v = calloc(CAP, sizeof(*v));
	size_t nv = 0;
	double tb = 0, tn = 0, ob = 0, on = 0;
	if (v)
		module_subtrees(v, &nv, CAP, keys, rows, nr, &tb, &tn, &ob, &on);
	free(rows);
	double D = tn - tb;
	int chosen[3], nch = 0;
	if (v && D > 0 && D >= 0.01 * tb)
		nch = choose_subtrees(chosen, v, nv, CAP, D);
	double held = 0, part = 0;
	int material = nch > 0;
	for (int i = 0; i < nch; i++) {
		held += v[chosen[i]].next - v[chosen[i]].base;
		part += v[chosen[i]].base;
		if (v[chosen[i]].base > 0 && (v[chosen[i]].next - v[chosen[i]].base) < 0.01 * v[chosen[i]].base)
			material = 0;
	}
	/* the whole model is no finding: a part of it must be */
	if (part > 0.6 * tb)
		material = 0;
	m->n = material ? nch : 0;
	for (int i = 0; i < m->n; i++)
		m->part[i] = v[chosen[i]];
	m->change = D;
	m->held = held;
	m->outside_change = on - ob;
	int rc = v ? 0 : TG_ENOMEM;
	free(v);
	return rc;
}

/* The kernel time tables by each grouping, every row. */
static int tables(tg_diff_tables *t, const tg_measure *base, const tg_measure *next, const tg_atoms *keys)
{
	for (int by = 0; by < TG_DIFF_BY_COUNT; by++) {
		t->by_name[by] = tg_compare_by_name((tg_compare_by)by);
		int rc = tg_compare_table(&t->by[by], base, next, keys, (tg_compare_by)by, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/* Each side's fingerprint, steps and kernels outside every step. */
static void sides(tg_diff_tables *t, const tg_measure *base, const tg_measure *next)
{
	const tg_measure *m[2] = {base, next};
	for (int s = 0; s < 2; s++) {
		t->side[s].fp = tg_measure_fingerprint(m[s], NULL);
		tg_measure_units(m[s], &t->side[s].steps);
		tg_compare_outside(&t->side[s].outside, &t->side[s].outside_ns, m[s]);
	}
}

int tg_diff_tables_compute(tg_diff_tables **out, const tg_measure *base, const tg_measure *next, const tg_atoms *keys,
                           const tg_judgement *judgement, const tg_judgement *ops)
{
	*out = NULL;
	tg_diff_tables *t = calloc(1, sizeof(*t));
	if (!t)
		return tg_error_set(TG_ENOMEM, "out of memory computing the diff's tables");
	struct cats cats[TG_DIFF_BY_COUNT] = {{NULL, 0}};
	struct wanted w = {0};
	sides(t, base, next);
	int rc = tables(t, base, next, keys);
	if (!rc)
		rc = items(t, base, next, keys, judgement, cats, &w);
	if (!rc) {
		rule_names(judgement, &w);
		rc = froms(t, base, next, keys, &w);
	}
	wanted_free(&w);
	if (!rc && !cats[TG_COMPARE_OP].v)
		rc = tg_compare_categories(&cats[TG_COMPARE_OP].v, &cats[TG_COMPARE_OP].n, base, next, TG_COMPARE_OP);
	if (!rc)
		rc = op_lists(t, ops, keys, &cats[TG_COMPARE_OP]);
	if (!rc)
		rc = replay(t, base, next, keys);
	if (!rc)
		rc = modules(&t->modules, base, next, keys);
	for (int by = 0; by < TG_DIFF_BY_COUNT; by++)
		free(cats[by].v);
	if (rc) {
		tg_diff_tables_free(t);
		return tg_error_set(rc, "out of memory computing the diff's tables");
	}
	*out = t;
	return 0;
}

void tg_diff_tables_free(tg_diff_tables *t)
{
	if (!t)
		return;
	for (int by = 0; by < TG_DIFF_BY_COUNT; by++)
		tg_table_free(t->by[by]);
	free(t->item_category);
	free(t->item_from);
	free(t->op_category);
	free(t->significant);
	free(t->rest);
	free(t->regressions);
	free(t->improvements);
	free(t);
}

const char *tg_diff_tables_op_category(const tg_diff_tables *t, const tg_judged *x)
{
	if (!t || !t->op_items || x < t->op_items || x >= t->op_items + t->nops)
		return "";
	return t->op_category[x - t->op_items];
}
