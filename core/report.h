/*
 * report.h - the perf report: every table of one trace, in order.
 *
 * Two modes. The default computes times exactly (integer ns) and files the
 * attention kernels' own ops (aten::_flash_attention_forward...) under
 * SDPA_fwd/SDPA_bwd. TraceLens mode reproduces TraceLens's perf report:
 * float64 microsecond arithmetic and its categories, so that the CSVs
 * match its files (see docs/report.md for every difference).
 */
#ifndef TG_REPORT_H
#define TG_REPORT_H

#include "table.h"
#include "tree.h"

typedef struct tg_report_opts {
	int tracelens;         /* TraceLens-compatible numbers and categories */
	int32_t step;          /* -1: whole trace; else a step index (tg_tree_steps) */
	int include_unlinked;  /* GPU timeline: count device events without a launch */
} tg_report_opts;

typedef struct tg_report {
	tg_table **tables;
	size_t n;
} tg_report;

/* Builds every table for tree. On success out->tables holds n tables the
 * caller frees with tg_report_free. Returns 0 or TG_ENOMEM. */
int tg_report_build(tg_report *out, const tg_tree *tree, const tg_report_opts *opts);

/* The table named name (its CSV stem), or NULL. */
const tg_table *tg_report_find(const tg_report *r, const char *name);

void tg_report_free(tg_report *r);

#endif
