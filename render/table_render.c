/* table_render.c - tables as CSV, aligned text, Markdown and JSON.
 *
 * Written a character at a time with the unlocked stdio calls
 * (putc_unlocked, fputs_unlocked, fwrite_unlocked): a FILE here is only
 * ever written by the thread that writes the table, and once a program has
 * started a thread (the reader's, the report's) every locked putc takes
 * and drops the stream's lock: 8 % of a report's time (issue 24). Numbers
 * are util/fmt_double's, the Markdown and HTML escaping util/escape's. */
#include "../core/analysis/table.h"
#include "../util/escape.h"
#include "../util/fmt_double.h"
#include "../util/tg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void put_cell_plain(FILE *f, const tg_cell *c)
{
	char num[32];
	switch (c->type) {
	case TG_CELL_INT:
		fprintf(f, "%lld", (long long)c->v.i);
		break;
	case TG_CELL_NUM:
		tg_format_double(num, c->v.d);
		fputs_unlocked(num, f);
		break;
	case TG_CELL_STR:
		fputs_unlocked(c->v.s, f);
		break;
	default:
		break;
	}
}

static void put_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs_unlocked(s, f);
		return;
	}
	/* a span at a time up to each quote, which is doubled: a character
	 * at a time, the 650 kB of kernel sequences of an h200-dev report
	 * (strings with commas, all quoted) took 1 ms, the csv's last table */
	putc_unlocked('"', f);
	for (const char *q; (q = strchr(s, '"')); s = q + 1) {
		fwrite_unlocked(s, 1, (size_t)(q - s) + 1, f);
		putc_unlocked('"', f);
	}
	fputs_unlocked(s, f);
	putc_unlocked('"', f);
}

int tg_table_write_csv(const tg_table *t, FILE *f)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	for (size_t c = 0; c < nc; c++) {
		if (c)
			putc_unlocked(',', f);
		put_csv_field(f, tg_table_column(t, c));
	}
	putc_unlocked('\n', f);
	for (size_t r = 0; r < nr; r++) {
		for (size_t c = 0; c < nc; c++) {
			if (c)
				putc_unlocked(',', f);
			const tg_cell *x = tg_table_cell(t, r, c);
			if (x->type == TG_CELL_STR)
				put_csv_field(f, x->v.s);
			else
				put_cell_plain(f, x);
		}
		putc_unlocked('\n', f);
	}
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

/* Printable text of a cell for text and markdown: numbers with at most 3
 * decimals (6 significant below 1), control characters escaped. */
static void cell_text(char *buf, size_t cap, const tg_cell *c)
{
	switch (c->type) {
	case TG_CELL_INT:
		snprintf(buf, cap, "%lld", (long long)c->v.i);
		break;
	case TG_CELL_NUM: {
		double a = fabs(c->v.d);
		if (a != 0 && a < 0.001)
			snprintf(buf, cap, "%.3g", c->v.d);
		else
			snprintf(buf, cap, "%.3f", c->v.d);
		break;
	}
	case TG_CELL_STR: {
		size_t o = 0;
		for (const unsigned char *s = (const unsigned char *)c->v.s; *s && o + 5 < cap; s++) {
			if (*s < 0x20 || *s == 0x7f)
				o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", *s);
			else
				buf[o++] = (char)*s;
		}
		buf[o] = 0;
		break;
	}
	default:
		buf[0] = 0;
	}
}

void tg_table_cell_text(char *buf, size_t cap, const tg_cell *c)
{
	cell_text(buf, cap, c);
}

/* Display width of UTF-8 text (code points). */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Cuts s to at most width code points, ending with "..." when cut. */
static void cut_text(char *s, size_t width)
{
	if (!width || text_width(s) <= width)
		return;
	size_t w = 0, i = 0;
	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (w == width - 3)
				break;
			w++;
		}
	}
	strcpy(s + i, "...");
}

int tg_table_write_text(const tg_table *t, FILE *f, size_t width)
{
	return tg_table_write_text_rows(t, f, width, SIZE_MAX);
}

int tg_table_write_text_rows(const tg_table *t, FILE *f, size_t width, size_t rows)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	if (nr > rows)
		nr = rows;
	size_t *w = calloc(nc ? nc : 1, sizeof(size_t));
	char buf[4096];
	if (!w)
		return tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t c = 0; c < nc; c++)
		w[c] = text_width(tg_table_column(t, c));
	for (size_t r = 0; r < nr; r++)
		for (size_t c = 0; c < nc; c++) {
			cell_text(buf, sizeof(buf), tg_table_cell(t, r, c));
			cut_text(buf, width);
			size_t x = text_width(buf);
			if (x > w[c])
				w[c] = x;
		}
	fprintf(f, "%s\n", tg_table_title(t));
	for (size_t c = 0; c < nc; c++) {
		const char *h = tg_table_column(t, c);
		fprintf(f, "%s%s%*s", c ? "  " : "", h, (int)(w[c] - text_width(h)), "");
	}
	putc_unlocked('\n', f);
	for (size_t r = 0; r < nr; r++) {
		for (size_t c = 0; c < nc; c++) {
			const tg_cell *x = tg_table_cell(t, r, c);
			cell_text(buf, sizeof(buf), x);
			cut_text(buf, width);
			int pad = (int)(w[c] - text_width(buf));
			if (c)
				fputs_unlocked("  ", f);
			if (x->type == TG_CELL_STR || x->type == TG_CELL_EMPTY)
				fprintf(f, "%s%*s", buf, c + 1 < nc ? pad : 0, "");
			else
				fprintf(f, "%*s%s", pad, "", buf);
		}
		putc_unlocked('\n', f);
	}
	free(w);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}


int tg_table_write_md(const tg_table *t, FILE *f)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	char buf[4096];
	fputs_unlocked("### ", f);
	tg_md_escape(f, tg_table_title(t));
	fputs_unlocked("\n\n|", f);
	for (size_t c = 0; c < nc; c++) {
		putc_unlocked(' ', f);
		tg_md_escape(f, tg_table_column(t, c));
		fputs_unlocked(" |", f);
	}
	fputs_unlocked("\n|", f);
	for (size_t c = 0; c < nc; c++) {
		int numeric = nr && tg_table_cell(t, 0, c)->type != TG_CELL_STR;
		fputs_unlocked(numeric ? " ---: |" : " --- |", f);
	}
	putc_unlocked('\n', f);
	for (size_t r = 0; r < nr; r++) {
		putc_unlocked('|', f);
		for (size_t c = 0; c < nc; c++) {
			cell_text(buf, sizeof(buf), tg_table_cell(t, r, c));
			putc_unlocked(' ', f);
			tg_md_escape(f, buf);
			fputs_unlocked(" |", f);
		}
		putc_unlocked('\n', f);
	}
	putc_unlocked('\n', f);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

static void put_json_string(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs_unlocked("\\\"", f); break;
		case '\\': fputs_unlocked("\\\\", f); break;
		case '\n': fputs_unlocked("\\n", f); break;
		case '\r': fputs_unlocked("\\r", f); break;
		case '\t': fputs_unlocked("\\t", f); break;
		case '<': fputs_unlocked("\\u003c", f); break; /* safe inside HTML <script> */
		case '>': fputs_unlocked("\\u003e", f); break;
		case '&': fputs_unlocked("\\u0026", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				putc_unlocked(*p, f);
		}
	}
	putc_unlocked('"', f);
}

int tg_table_write_json(const tg_table *t, FILE *f)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	char num[32];
	fputs_unlocked("{\"name\":", f);
	put_json_string(f, tg_table_name(t));
	fputs_unlocked(",\"title\":", f);
	put_json_string(f, tg_table_title(t));
	fputs_unlocked(",\"columns\":[", f);
	for (size_t c = 0; c < nc; c++) {
		if (c)
			putc_unlocked(',', f);
		put_json_string(f, tg_table_column(t, c));
	}
	fputs_unlocked("],\"rows\":[", f);
	for (size_t r = 0; r < nr; r++) {
		fputs_unlocked(r ? ",\n[" : "\n[", f);
		for (size_t c = 0; c < nc; c++) {
			const tg_cell *x = tg_table_cell(t, r, c);
			if (c)
				putc_unlocked(',', f);
			switch (x->type) {
			case TG_CELL_INT: fprintf(f, "%lld", (long long)x->v.i); break;
			case TG_CELL_NUM:
				if (isfinite(x->v.d)) {
					tg_format_double(num, x->v.d);
					fputs_unlocked(num, f);
				} else {
					fputs_unlocked("null", f);
				}
				break;
			case TG_CELL_STR: put_json_string(f, x->v.s); break;
			default: fputs_unlocked("null", f);
			}
		}
		putc_unlocked(']', f);
	}
	fputs_unlocked("]}", f);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}
