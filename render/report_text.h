/*
 * report_text.h - the perf report as text for a terminal: the one-screen
 * summary (report_summary.h), the findings (findings.h), then every table. By default each table is
 * drawn to fit 120 columns with readable headings (TraceLens's column names
 * stay what the csv and json files say; the terminal gets "kernel ms" for
 * total_direct_kernel_time_ms), its most telling columns first and at most
 * 20 rows, a note saying what was left out; wide draws every column and row
 * of every table as the text report always did.
 */
#ifndef TG_REPORT_TEXT_H
#define TG_REPORT_TEXT_H

#include "../core/analysis/report.h"
#include "report_summary.h"

#include <stdio.h>

#define TG_REPORT_TEXT_WIDTH 120 /* columns of the default text report */
#define TG_REPORT_TEXT_ROWS 20   /* rows of each table in the default text report */

/* Writes s (NULL: none), r's findings (their section: tg_findings_write_text
 * at 100 columns) when it has them, and then r's tables: fitted to TG_REPORT_TEXT_WIDTH
 * columns and TG_REPORT_TEXT_ROWS rows, or with wide every column and row
 * (names cut at 80 code points, as tg_table_write_text does). Returns 0,
 * TG_ENOMEM or TG_EIO. */
int tg_report_write_text(FILE *f, const tg_report *r, const tg_report_summary *s, int wide);

/* The table t as the default text report shows it, into *out (the caller
 * frees it with tg_table_free): its telling columns in order under
 * readable headings (perf sheets: the parameters joined into one column).
 * Returns 0 or TG_ENOMEM. */
int tg_report_text_view(tg_table **out, const tg_table *t);

#endif
