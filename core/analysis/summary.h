/*
 * summary.h - what the text report says first, on one screen: the GPU, the
 * steps and their time, the GPU's busy and idle time, the op categories
 * and ops that took the most kernel time, and the findings when the report
 * has them. Gathered from the report's tables (gpu_timeline,
 * ops_summary_by_category, ops_summary), the report's findings
 * (findings.h) and the tree's steps, so that the numbers are the report's
 * own; nothing here is computed twice. Written by render/report_summary.h.
 */
#ifndef TG_SUMMARY_H
#define TG_SUMMARY_H

#include "../tree/tree.h"
#include "findings.h"
#include "report.h"

#include <stddef.h>
#include <stdint.h>

#define TG_SUMMARY_TOP 5 /* categories, ops and findings listed */

/* One line of a top list: a name (borrowed from the report's table), its
 * kernel time and share, and for ops their calls and category. */
typedef struct tg_summary_item {
	const char *name;
	const char *category; /* ops: their categories as the table writes them; else NULL */
	double ms, pct;
	int64_t calls; /* -1 when the table does not say */
} tg_summary_item;

typedef struct tg_report_summary {
	char gpu[128];                                 /* the first device's name, "" when the trace gives none */
	size_t ndevices;                               /* devices with GPU time (gpu_timeline_by_device rows) */
	size_t nsteps;                                 /* ProfilerSteps summarised (1 with --step) */
	int64_t first_step, last_step;                 /* their numbers (N of ProfilerStep#N) */
	double step_mean_ms, step_min_ms, step_max_ms; /* host duration of the steps */
	int has_timeline;                              /* the GPU timeline below is known */
	double total_ms, busy_ms, idle_ms, busy_pct, idle_pct;
	double computation_ms, exposed_comm_ms, exposed_memcpy_ms;
	tg_summary_item categories[TG_SUMMARY_TOP], ops[TG_SUMMARY_TOP];
	size_t ncategories, nops;
	const tg_finding *findings[TG_SUMMARY_TOP]; /* the fired findings that cost the most a step,
	                                               borrowed from the report's */
	size_t nfindings, nfired;
} tg_report_summary;

/* Fills *out from r, built from tree for step (-1: the whole trace; else
 * an index into tg_tree_steps). Borrows names from r's tables: valid while
 * r is. Cannot fail; what the report lacks is left empty. */
void tg_report_summary_build(tg_report_summary *out, const tg_report *r, const tg_tree *tree, int32_t step);

#endif
