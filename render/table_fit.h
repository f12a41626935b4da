/*
 * table_fit.h - a table drawn to fit a terminal: within a given width, the
 * columns on the right left out when the line cannot hold them, long
 * strings elided in the middle (the start and the end of a kernel name say
 * the most), at most max_rows rows; a note under the table says what was
 * left out. tg_table_write_text
 * (table.h) draws every column at its full width instead.
 */
#ifndef TG_TABLE_FIT_H
#define TG_TABLE_FIT_H

#include "../core/analysis/table.h"

#include <stddef.h>
#include <stdio.h>

/* Display width of UTF-8 text: its code points. */
size_t tg_text_width(const char *s);

/* s into out (cap bytes), at most width code points: whole when it fits,
 * else its start, "…" (U+2026) and its end, the start getting the odd
 * point. Whole UTF-8 characters only. width 0: out is "". */
void tg_text_elide(char *out, size_t cap, const char *s, size_t width);

/* Writes t's title, its column names as headings (numbers right-aligned
 * under theirs), and its rows, each line at most width columns (columns
 * dropped from the right, never the first, until each string can have 30
 * columns or its heading; then the strings widened left to right); at most
 * max_rows rows (0: all); and,
 * when anything was left out, the line "(N more rows, M more columns:
 * --wide shows every one)". A table of one row whose columns do not fit
 * is written one column a line instead ("  launches   1626"), so that
 * nothing is left out. Control characters are escaped as in
 * tg_table_write_text. Returns 0, TG_ENOMEM or TG_EIO. */
int tg_table_write_fit(const tg_table *t, FILE *f, size_t width, size_t max_rows);

#endif
