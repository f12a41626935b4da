/*
 * table_fit.c - a table drawn to fit a terminal (table_fit.h).
 *
 * The widths are decided before anything is written: each column's natural
 * width (its heading and its widest cell among the rows shown) and its
 * comfortable one (a string: 30 columns, or less when it is narrower; a
 * number: all of it, since a number with its end cut off reads as another
 * number). Columns leave from the right until the comfortable widths fit,
 * then the string columns widen left to right: a view puts its most telling
 * columns first, so what a narrow line loses is what says the least, and
 * the names stay whole the longest. Fewer columns each readable beat every
 * column cut to a stub.
 */
#include "table_fit.h"
#include "../util/tg.h"

#include <stdlib.h>
#include <string.h>

#define CELL_MAX 4096 /* bytes of one cell's text, as tg_table_write_text */
#define COMFORT 30    /* columns a string column is given before columns to its right */
#define ELLIPSIS "\xe2\x80\xa6"

size_t tg_text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* The byte offset of code point k of s (its end when s has fewer). */
static size_t offset_of(const char *s, size_t k)
{
	size_t i = 0, w = 0;
	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80 && w++ == k)
			return i;
	return i;
}

void tg_text_elide(char *out, size_t cap, const char *s, size_t width)
{
	if (!cap)
		return;
	size_t w = tg_text_width(s);
	if (w <= width) {
		snprintf(out, cap, "%s", s);
		return;
	}
	if (!width) {
		out[0] = 0;
		return;
	}
	size_t head = width / 2, tail = width - 1 - head; /* the start gets the odd point */
	size_t hb = offset_of(s, head), tb = offset_of(s, w - tail);
	snprintf(out, cap, "%.*s" ELLIPSIS "%s", (int)hb, s, s + tb);
}

/* What one column needs: whether it holds numbers, its natural width (its
 * heading and widest cell), the narrowest it may get, and its width. */
struct colw {
	int numeric;
	size_t natural, min, w;
};

static int is_numeric(const tg_table *t, size_t col, size_t nrows)
{
	int any = 0;
	for (size_t r = 0; r < nrows; r++) {
		const tg_cell *x = tg_table_cell(t, r, col);
		if (x->type == TG_CELL_STR)
			return 0;
		any |= x->type != TG_CELL_EMPTY;
	}
	return any;
}

/* The natural and comfortable widths of the columns over the first nrows
 * rows: a number keeps its width; a string is comfortable at COMFORT
 * columns (or its heading, when wider). */
static void measure(struct colw *cw, const tg_table *t, size_t nrows)
{
	char buf[CELL_MAX];
	for (size_t c = 0; c < tg_table_ncols(t); c++) {
		struct colw *k = &cw[c];
		size_t head = tg_text_width(tg_table_column(t, c));
		k->numeric = is_numeric(t, c, nrows);
		k->natural = head;
		for (size_t r = 0; r < nrows; r++) {
			tg_table_cell_text(buf, sizeof(buf), tg_table_cell(t, r, c));
			size_t x = tg_text_width(buf);
			if (x > k->natural)
				k->natural = x;
		}
		size_t floor = head > COMFORT ? head : COMFORT;
		k->min = k->numeric || k->natural < floor ? k->natural : floor;
	}
}

/* Decides the widths within width: columns leave from the right (never the
 * first) until the comfortable widths of those left fit; then each string
 * column, left to right, widens towards its natural width with what room
 * there is, so that the first columns (the names) are cut last; a first
 * column alone wider than the line is cut to it. Returns how many columns
 * are shown. */
static size_t fit(struct colw *cw, size_t nc, size_t width)
{
	size_t shown = nc, total = 0;
	for (size_t c = 0; c < nc; c++)
		total += cw[c].min + (c ? 2 : 0);
	while (total > width && shown > 1) {
		shown--;
		total -= cw[shown].min + 2;
	}
	if (total > width && !cw[0].numeric && width) {
		cw[0].min = width; /* one string column, wider than the line */
		total = width;
	}
	size_t room = total < width ? width - total : 0;
	for (size_t c = 0; c < shown; c++) {
		size_t more = cw[c].natural > cw[c].min ? cw[c].natural - cw[c].min : 0;
		if (more > room)
			more = room;
		cw[c].w = cw[c].min + more;
		room -= more;
	}
	return shown;
}

/* One cell's text (or a heading) elided and padded to w columns. */
static void put_cell(FILE *f, const char *text, size_t w, int right, int last)
{
	char cut[CELL_MAX];
	tg_text_elide(cut, sizeof(cut), text, w);
	size_t pad = w - tg_text_width(cut);
	if (right)
		fprintf(f, "%*s%s", (int)pad, "", cut);
	else
		fprintf(f, "%s%*s", cut, last ? 0 : (int)pad, "");
}

/* The note under a table that did not show all: "(12 more rows, 3 more
 * columns: --wide shows every one)". */
static void put_left_out(FILE *f, size_t rows, size_t cols)
{
	if (!rows && !cols)
		return;
	putc('(', f);
	if (rows)
		fprintf(f, "%zu more row%s%s", rows, rows == 1 ? "" : "s", cols ? ", " : "");
	if (cols)
		fprintf(f, "%zu more column%s", cols, cols == 1 ? "" : "s");
	fputs(": --wide shows every one)\n", f);
}

/* A table of one row too wide for the line, one column a line: "  name
 * value", the values aligned (numbers right, strings left, elided to the
 * line). */
static void write_one_row(const tg_table *t, FILE *f, size_t width)
{
	size_t nc = tg_table_ncols(t), namew = 0, valw = 0;
	char buf[CELL_MAX], cut[CELL_MAX];
	for (size_t c = 0; c < nc; c++) {
		size_t w = tg_text_width(tg_table_column(t, c));
		namew = w > namew ? w : namew;
		tg_table_cell_text(buf, sizeof(buf), tg_table_cell(t, 0, c));
		w = tg_text_width(buf);
		valw = w > valw ? w : valw;
	}
	if (namew + 4 + valw > width)
		valw = width > namew + 4 ? width - namew - 4 : 1;
	fprintf(f, "%s\n", tg_table_title(t));
	for (size_t c = 0; c < nc; c++) {
		const tg_cell *x = tg_table_cell(t, 0, c);
		tg_table_cell_text(buf, sizeof(buf), x);
		tg_text_elide(cut, sizeof(cut), buf, valw);
		const char *name = tg_table_column(t, c);
		int numeric = x->type == TG_CELL_INT || x->type == TG_CELL_NUM;
		fprintf(f, "  %s%*s  ", name, (int)(namew - tg_text_width(name)), "");
		if (numeric)
			fprintf(f, "%*s%s\n", (int)(valw - tg_text_width(cut)), "", cut);
		else
			fprintf(f, "%s\n", cut);
	}
}

int tg_table_write_fit(const tg_table *t, FILE *f, size_t width, size_t max_rows)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	size_t rows = max_rows && nr > max_rows ? max_rows : nr;
	struct colw *cw = calloc(nc ? nc : 1, sizeof(*cw));
	if (!cw)
		return tg_error_set(TG_ENOMEM, "out of memory");
	measure(cw, t, rows);
	size_t shown = fit(cw, nc, width);
	if (nr == 1 && shown < nc) { /* one row: every column, one a line */
		free(cw);
		write_one_row(t, f, width);
		return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
	}
	char buf[CELL_MAX];
	fprintf(f, "%s\n", tg_table_title(t));
	for (size_t c = 0; c < shown; c++) {
		fputs(c ? "  " : "", f);
		put_cell(f, tg_table_column(t, c), cw[c].w, cw[c].numeric, c + 1 == shown);
	}
	putc('\n', f);
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < shown; c++) {
			const tg_cell *x = tg_table_cell(t, r, c);
			tg_table_cell_text(buf, sizeof(buf), x);
			fputs(c ? "  " : "", f);
			put_cell(f, buf, cw[c].w, x->type == TG_CELL_INT || x->type == TG_CELL_NUM, c + 1 == shown);
		}
		putc('\n', f);
	}
	put_left_out(f, nr - rows, nc - shown);
	free(cw);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}
