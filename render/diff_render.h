/*
 * diff_render.h - the result of `tracegate diff` as text (a terminal), md
 * (the pull-request comment) and json (stable, documented in docs/diff.md).
 *
 * Compute once, render apart: a tg_diff_doc (diff_doc.h) carries what the
 * gate computed (the judgements, the divergences, the findings, the
 * critical path, and every table and number of diff_tables.h); the
 * renderers only read it and format (diff_render_text.c, diff_render_md*.c, diff_render_json.c,
 * their shared pieces in diff_render.c). tests/cli_render_pure.sh proves
 * on their objects that they call nothing that computes.
 */
#ifndef TG_DIFF_RENDER_H
#define TG_DIFF_RENDER_H

#include "../rules/diff_doc.h"

#include <stdio.h>

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
