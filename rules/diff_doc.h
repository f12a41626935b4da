/*
 * diff_doc.h - the computed document of a diff: everything its renderings
 * (diff_render.h: text, md, json) show, computed before they run (the
 * gate, gate.h: tg_gate_doc). Apart from the renderers so that what
 * computes (rules/) never includes what renders: the gate makes the
 * document, the command line and the daemon hand it to diff_render.h.
 */
#ifndef TG_DIFF_DOC_H
#define TG_DIFF_DOC_H

#include "../core/analysis/findings.h"
#include "../core/analysis/table.h"
#include "cp_diff.h"
#include "diff_tables.h"
#include "judge.h"

#include <stddef.h>

/* Everything a rendering shows, computed; all borrowed. */
typedef struct tg_diff_doc {
	const char *const *base_files;
	size_t nbase;
	const char *const *new_files;
	size_t nnew;
	const tg_judgement *judgement; /* the rules' verdict */
	const tg_judgement *ops;       /* kernel time per op (each), for the top
	                                  regressions and improvements; may be NULL */
	const tg_diff_tables *tables;  /* every table and number shown, computed once
	                                  (diff_tables.h); required */
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

#endif
