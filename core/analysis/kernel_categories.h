/*
 * kernel_categories.h - the report's table of GPU kernel time by category
 * in the default classification, with where each category came from
 * (kernel_category.h): "SDPA_bwd, backward link, aten::scaled_dot_product_
 * attention, 24 kernels, 1.25 ms, 11.3 %". It is how a surprising verdict
 * is checked, and how much kernel time nothing could classify ("other",
 * "unlinked") is measured.
 */
#ifndef TG_KERNEL_CATEGORIES_H
#define TG_KERNEL_CATEGORIES_H

#include "../models/kernel_category.h"
#include "launchers.h"
#include "table.h"

/* Totals of one tree's device time (ns) by what classified it. */
typedef struct tg_category_totals {
	int64_t total_ns;        /* every device event of the step */
	int64_t unclassified_ns; /* category "other" or "unlinked" */
	int64_t by_source_ns[TG_CAT_SRC_COUNT]; /* per tg_cat_source */
} tg_category_totals;

/* The table "kernel_categories" (columns: category, from, evidence,
 * kernels, time ms, percent), one row per (category, source, evidence),
 * largest time first, over the device events of step (-1: all) of tree,
 * whose launchers are l (built for the same tree and step, default
 * mode). totals (may be NULL) receives the sums. The caller frees the
 * table. Returns 0 or TG_ENOMEM. */
int tg_kernel_categories_table(tg_table **out, tg_category_totals *totals, const tg_tree *tree,
                               const tg_launchers *l, int32_t step);

#endif
