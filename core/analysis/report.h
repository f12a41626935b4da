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

#include "findings.h"
#include "../models/gpu_specs.h"
#include "table.h"
#include "../tree/tree.h"

typedef struct tg_report_opts {
	int tracelens;         /* TraceLens-compatible numbers and categories */
	int32_t step;          /* -1: whole trace; else a step index (tg_tree_steps) */
	int include_unlinked;  /* GPU timeline: count device events without a launch */
	const tg_gpu_specs *gpu_specs; /* peaks for the roofline columns; NULL: none */
	const char *gpu;       /* a spec name forcing the GPU (tg_gpu_specs_find);
	                          NULL: recognised from deviceProperties */
	const tg_findings_opts *findings; /* thresholds of the findings; NULL: the defaults */
	int findings_alone;    /* the trace is reported alone: straggler and all-ranks-idle
	                          are listed as not evaluated (findings.h, with_across) */
	int no_findings;       /* 1: compute no findings (findings is then NULL) */
	int streams;           /* also each stream's timeline (the html report's picture) */
	void (*part_done)(void); /* called after each part, its scratch freed (from either
	                            thread): the caller's heap policy, e.g. malloc_trim;
	                            NULL: nothing */
} tg_report_opts;

struct tg_stream_timeline;

typedef struct tg_report {
	tg_table **tables;
	size_t n;
	tg_findings *findings; /* what the trace shows is wrong (findings.h); NULL for
	                          no_findings and for a report across ranks */
	struct tg_stream_timeline *streams; /* with opts->streams, else NULL (stream_timeline.h) */
} tg_report;

/* Builds every table for tree: GPU timeline (overall, per device), ops by
 * category, ops, unique args, kernels, short kernels, the perf sheets
 * (GEMM, SDPA_fwd, ... with the roofline when the GPU is known), the
 * collectives of the trace (when it has any), and the HTA-style tables;
 * then the findings (findings.h), from the same perf sheets; with
 * opts->streams, out->streams too. On success out->tables holds n tables
 * and out->findings the findings, which the caller frees with
 * tg_report_free. Returns 0, TG_ENOTFOUND (opts->gpu names no spec) or
 * TG_ENOMEM. Computes on the caller's thread and one more it starts and
 * joins (the tree is only read). */
int tg_report_build(tg_report *out, const tg_tree *tree, const tg_report_opts *opts);

/* The GPU spec for tree under opts: opts->gpu when given, else the first
 * device of the trace recognised in opts->gpu_specs; NULL (and 0) when
 * there are no specs or the device is not recognised. Returns 0 or
 * TG_ENOTFOUND when opts->gpu names no spec. *out borrowed from the specs. */
int tg_report_gpu_spec(const tg_gpu_spec **out, const tg_tree *tree, const tg_report_opts *opts);

/* The table named name (its CSV stem), or NULL. */
const tg_table *tg_report_find(const tg_report *r, const char *name);

/* Frees r's tables and stream timeline (r itself is the caller's). */
void tg_report_free(tg_report *r);

#endif
