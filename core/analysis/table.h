/*
 * table.h - a named table of typed cells: what every analysis produces and
 * every output format (text, md, csv, json, html) renders. The table owns
 * copies of its strings.
 */
#ifndef TG_TABLE_H
#define TG_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum tg_cell_type {
	TG_CELL_EMPTY = 0, /* no value (NaN in the peers' CSVs) */
	TG_CELL_INT,
	TG_CELL_NUM,
	TG_CELL_STR
} tg_cell_type;

typedef struct tg_cell {
	uint8_t type;
	union {
		int64_t i;
		double d;
		const char *s;
	} v;
} tg_cell;

typedef struct tg_table tg_table;

/* Creates a table. name is its file stem ("gpu_timeline" -> gpu_timeline.csv)
 * and JSON key; title a human heading. NULL when out of memory. */
tg_table *tg_table_new(const char *name, const char *title);

/* A table with the columns of the NULL-terminated list cols. NULL when out
 * of memory. */
tg_table *tg_table_new_cols(const char *name, const char *title, const char *const *cols);

/* Appends a column; returns its index or -1 when out of memory. */
int tg_table_add_column(tg_table *t, const char *name);

/* Appends an empty row; returns its index or -1 when out of memory. */
int64_t tg_table_add_row(tg_table *t);

/* Sets a cell of an existing row. set_str copies s (NULL leaves it empty).
 * Return 0 or TG_ENOMEM. */
void tg_table_set_int(tg_table *t, size_t row, size_t col, int64_t v);
void tg_table_set_num(tg_table *t, size_t row, size_t col, double v);
int tg_table_set_str(tg_table *t, size_t row, size_t col, const char *s);
int tg_table_set_strn(tg_table *t, size_t row, size_t col, const char *s, size_t n);

const char *tg_table_name(const tg_table *t);
const char *tg_table_title(const tg_table *t);
size_t tg_table_ncols(const tg_table *t);
size_t tg_table_nrows(const tg_table *t);
const char *tg_table_column(const tg_table *t, size_t col);
const tg_cell *tg_table_cell(const tg_table *t, size_t row, size_t col);

/* Index of the column named name, or -1. */
int tg_table_find_column(const tg_table *t, const char *name);

void tg_table_free(tg_table *t);

/* Frees each of the n tables of t (NULL entries are skipped) and then the
 * array t itself, as the functions that return an array of tables expect
 * (`tg_table **out, size_t *n`). NULL t is a no-op. */
void tg_tables_free(tg_table **t, size_t n);

/* Renderers. Each writes the whole table to f and returns 0 or TG_EIO.
 * csv: RFC 4180, header row, numbers in shortest round-trip form.
 * text: aligned columns for a terminal, strings longer than width cut
 *       with an ellipsis (width 0: no cut), control characters escaped.
 * md: a GitHub table, names escaped for Markdown and HTML.
 * json: {"name":..., "title":..., "columns":[...], "rows":[[...]...]}. */
int tg_table_write_csv(const tg_table *t, FILE *f);
int tg_table_write_text(const tg_table *t, FILE *f, size_t width);
/* text, as tg_table_write_text, of the first rows rows only (the columns
 * as wide as those rows need). */
int tg_table_write_text_rows(const tg_table *t, FILE *f, size_t width, size_t rows);
int tg_table_write_md(const tg_table *t, FILE *f);
int tg_table_write_json(const tg_table *t, FILE *f);

/* A cell as the text and md renderings show it, into buf (cap bytes):
 * numbers with 3 decimals (3 significant digits below 0.001), control
 * characters of strings escaped as \xNN, "" for an empty cell. */
void tg_table_cell_text(char *buf, size_t cap, const tg_cell *c);

#endif
