/*
 * report_summary.h - what the text report says first, on one screen, as
 * text: the summary that core/analysis/summary.h gathers (the GPU, the
 * steps, busy and idle time, the top categories, ops and findings).
 */
#ifndef TG_REPORT_SUMMARY_H
#define TG_REPORT_SUMMARY_H

#include "../core/analysis/summary.h"

#include <stdio.h>

/* Writes the summary as text for a terminal, each line within width
 * columns (long names elided in the middle). Returns 0 or TG_EIO. */
int tg_report_summary_write_text(FILE *f, const tg_report_summary *s, size_t width);

#endif
