/*
 * report_html.h - the perf report as one self-contained HTML5 page: for
 * each trace, charts drawn as inline SVG (GPU time breakdown, the GPU
 * timeline per stream when the report has it, kernel time by op category,
 * top kernels), then every table of its report.
 * Nothing is loaded from anywhere: inline CSS, no scripts, no fonts, no
 * images, and a Content-Security-Policy that forbids them.
 */
#ifndef TG_REPORT_HTML_H
#define TG_REPORT_HTML_H

#include "../core/analysis/report.h"

#include <stdio.h>

/* Writes one HTML page to f holding the n reports in order, each under the
 * heading names[i] (the trace's file name; names, or one of its entries,
 * may be NULL: "trace N" then). Charts are drawn from the tables
 * gpu_timeline (and gpu_timeline_by_device when it has several devices),
 * ops_summary_by_category and kernel_summary; a report without them (the
 * across-ranks tables, say) gets only its tables. Every table is rendered
 * whatever its columns, folded when it has more than 25 rows. Every string
 * is escaped; control characters are shown as \xNN (\u00NN for C1).
 * Borrows everything, keeps nothing; the caller still owns the reports and
 * closes f. Returns 0, TG_ENOMEM or TG_EIO (a write error on f). */
int tg_report_write_html(FILE *f, const tg_report *const *reports, const char *const *names, size_t n);

#endif
