/*
 * diff_render.h - the result of `tracegate diff` as text (a terminal), md
 * (the pull-request comment) and json (stable, documented in docs/diff.md).
 */
#ifndef TG_DIFF_RENDER_H
#define TG_DIFF_RENDER_H

#include "../core/compare.h"
#include "../core/findings.h"
#include "../core/table.h"
#include "cp_diff.h"
#include "judge.h"

#include <stdio.h>

/* Everything a rendering shows; all borrowed. */
typedef struct tg_diff_doc {
	const char *const *base_files;
	size_t nbase;
	const char *const *new_files;
	size_t nnew;
	const tg_measure *base, *next;
	const tg_atoms *keys;
	const tg_judgement *judgement; /* the rules' verdict */
	const tg_judgement *ops;       /* kernel time per op (each), for the top
	                                  regressions and improvements; may be NULL */
	const char *divergence;        /* where the trees diverge, drawn as text; may be NULL */
	const tg_table *divergences;   /* the divergences and their time (divergence.h); may be NULL */
	const char *extra_md;          /* md: a section added before the tables (the daemon's
	                                  baseline line and history charts); may be NULL */
	const char *marker;            /* md: a hidden first line (an HTML comment) that
	                                  finds the comment again; may be NULL */
	const char *base_source;       /* md: where each side comes from (commit, branch,  */
	const char *new_source;        /* run ids, CI link), already escaped Markdown (the
	                                  daemon writes it); NULL: the file names only */
	const tg_finding_delta *findings; /* the findings new, worse, gone... (findings.h) */
	size_t nfindings;
	int with_findings;             /* 1: the findings were computed (a section is written
	                                  even when none changed) */
	const tg_cp_diff *critical_path; /* how the critical path moved (cp_diff.h); may be NULL */
	const char *docs_url;          /* md: tracegate's docs folder on a forge (an http(s) URL of
	                                  the characters tg_diff_docs_url_ok takes), for the
	                                  footer's link to comment.md; NULL: the build's
	                                  (TG_DOCS_URL); "": no link, the path in words */
} tg_diff_doc;

/* The pull-request comment (docs/comment.md): a one-line verdict, what was
 * compared (sources, GPU, runtime, steps and runs a side), what changed in
 * sentences (each divergence, the module subtree that explains the
 * regression, the kernels no op launched), the findings new, worse or
 * gone with their fix, the rule results, the ops that
 * changed significantly (after false-discovery control), the others and
 * the divergence drawing folded, and the full tables in collapsible
 * <details>. Every name is escaped for Markdown and HTML; long names are
 * shortened with the whole name in a tooltip. At most max_bytes (0:
 * 65,000): the details, then the other tables, are trimmed, with a note
 * saying so. Returns 0 or TG_EIO / TG_ENOMEM. */
int tg_diff_write_md(FILE *f, const tg_diff_doc *d, size_t max_bytes);

/* The same for a terminal. Returns 0 or TG_EIO. */
int tg_diff_write_text(FILE *f, const tg_diff_doc *d);

/* One JSON document (docs/diff.md). Returns 0, TG_EIO or TG_ENOMEM. */
int tg_diff_write_json(FILE *f, const tg_diff_doc *d);

/* The docs folder the build was made with (make DOCS_URL=..., by default
 * this clone's origin on its forge: contrib/docs-url.sh); "" when none. A
 * static string. */
const char *tg_diff_docs_url_default(void);

/* 1 when url may be a footer's docs link: http:// or https://, then only
 * A-Z a-z 0-9 . _ ~ : / % + - (nothing that ends a Markdown link). */
int tg_diff_docs_url_ok(const char *url);

/* A value of metric m as text with its unit ("1.234 ms", "12", "1.5 GiB",
 * "312.4 TFLOPS/s"); buf of 48 bytes. */
void tg_diff_format_value(char *buf, size_t cap, tg_rule_metric m, double v);

#endif
