/*
 * kernel_categories.c - device time grouped by (category, source, evidence)
 * in the default classification (kernel_category.h).
 */
#include "kernel_categories.h"
#include "../models/kernel_category.h"

#include <stdlib.h>
#include <string.h>

struct row {
	const char *category;
	int source;
	const char *evidence; /* static or trace string */
	int64_t ns;
	uint64_t count;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	int c = strcmp(x->category, y->category);
	if (c)
		return c;
	if (x->source != y->source)
		return x->source - y->source;
	return strcmp(x->evidence, y->evidence);
}

/* What decided: the kernel family's label, the event's kind, or the name
 * of the op that decided. */
static const char *evidence_of(const tg_trace *t, const tg_event *ev, uint32_t i, const tg_kernel_cat *kc)
{
	switch (kc->source) {
	case TG_CAT_SRC_KERNEL:
		return kc->rule ? kc->rule->label : "";
	case TG_CAT_SRC_EVENT:
		return tg_kind_name((tg_kind)ev[i].kind);
	default:
		return kc->via != TG_NONE ? tg_trace_str(t, ev[kc->via].name) : "";
	}
}

/* Whether row x counts kernels of kc's category, source and evidence evid
 * (the strings are most often the same pointers: no compare then). */
static int same_row(const struct row *x, const tg_kernel_cat *kc, const char *evid)
{
	return x->source == (int)kc->source && (x->category == kc->category || !strcmp(x->category, kc->category)) &&
	       (x->evidence == evid || !strcmp(x->evidence, evid));
}

int tg_kernel_categories_table(tg_table **out, tg_category_totals *totals, const tg_tree *tree,
                               const tg_launchers *l, int32_t step)
{
	*out = NULL;
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne, nl;
	const tg_event *ev = tg_trace_events(t, &ne);
	const tg_launcher *list = tg_launchers_list(l, &nl);
	tg_category_totals tot;
	memset(&tot, 0, sizeof(tot));
	int rc = TG_ENOMEM;
	struct row *rows = NULL;
	size_t nrows = 0, caprows = 0, last = 0;
	tg_categorizer *cz = NULL;
	tg_table *tab = NULL;
	if ((rc = tg_categorizer_new(&cz, tree)))
		goto done;
	rc = TG_ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind) || !tg_tree_contains(tree, (uint32_t)i))
			continue;
		if (step >= 0 && tg_tree_step_of(tree, (uint32_t)i) != step)
			continue;
		uint32_t li = tg_launchers_owner(l, (uint32_t)i);
		tg_kernel_cat kc;
		if (tg_categorizer_kernel(&kc, cz, (uint32_t)i, li != TG_NONE ? list[li].event : TG_NONE,
		                          li != TG_NONE ? tg_launchers_category(l, &list[li]) : NULL))
			goto done;
		const char *evid = evidence_of(t, ev, (uint32_t)i, &kc);
		tot.total_ns += tg_event_dur(t, &ev[i]);
		if ((unsigned)kc.source < TG_CAT_SRC_COUNT)
			tot.by_source_ns[kc.source] += tg_event_dur(t, &ev[i]);
		/* rows are few (categories x evidence): a linear search, the last
		 * kernel's row first (the next kernel is most often of the same) */
		size_t r = last;
		if (!(r < nrows && same_row(&rows[r], &kc, evid)))
			for (r = 0; r < nrows && !same_row(&rows[r], &kc, evid); r++)
				;
		last = r;
		if (r == nrows) {
			if (tg_grow((void **)&rows, &caprows, nrows + 1, sizeof(*rows)))
				goto done;
			rows[nrows++] = (struct row){kc.category, (int)kc.source, evid, 0, 0};
		}
		rows[r].ns += tg_event_dur(t, &ev[i]);
		rows[r].count++;
	}
	for (size_t r = 0; r < nrows; r++) /* by row, not by kernel: a row holds one category */
		if (!strcmp(rows[r].category, "other") || !strcmp(rows[r].category, "unlinked"))
			tot.unclassified_ns += rows[r].ns;
	if (nrows > 1)
		qsort(rows, nrows, sizeof(*rows), cmp_row);
	static const char *const cols[] = {"category", "from", "evidence", "kernels", "time ms", "percent", NULL};
	tab = tg_table_new_cols("kernel_categories", "GPU kernel time by category, and where each category came from",
	                        cols);
	if (!tab)
		goto done;
	for (size_t r = 0; r < nrows; r++) {
		int64_t row = tg_table_add_row(tab);
		if (row < 0 || tg_table_set_str(tab, (size_t)row, 0, rows[r].category) ||
		    tg_table_set_str(tab, (size_t)row, 1, tg_cat_source_name((tg_cat_source)rows[r].source)) ||
		    tg_table_set_str(tab, (size_t)row, 2, rows[r].evidence))
			goto done;
		tg_table_set_int(tab, (size_t)row, 3, (int64_t)rows[r].count);
		tg_table_set_num(tab, (size_t)row, 4, (double)rows[r].ns / 1e6);
		tg_table_set_num(tab, (size_t)row, 5, tot.total_ns ? 100.0 * (double)rows[r].ns / (double)tot.total_ns : 0);
	}
	*out = tab;
	tab = NULL;
	if (totals)
		*totals = tot;
	rc = 0;
done:
	tg_table_free(tab);
	tg_categorizer_free(cz);
	free(rows);
	return rc;
}
