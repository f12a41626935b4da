/* table.c - table storage: columns, rows of cells, owned string copies. */
#include "table.h"
#include "../../util/arena.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

struct tg_table {
	char *name, *title;
	char **cols;
	size_t ncols, cols_cap;
	tg_cell *cells; /* row-major, ncols per row; columns are fixed once rows exist */
	size_t nrows, rows_cap;
	tg_arena *strings;
};

tg_table *tg_table_new(const char *name, const char *title)
{
	tg_table *t = tg_calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->name = strdup(name);
	t->title = strdup(title ? title : name);
	t->strings = tg_arena_new(16384);
	if (!t->name || !t->title || !t->strings) {
		tg_table_free(t);
		return NULL;
	}
	return t;
}

tg_table *tg_table_new_cols(const char *name, const char *title, const char *const *cols)
{
	tg_table *t = tg_table_new(name, title);
	if (!t)
		return NULL;
	for (; *cols; cols++)
		if (tg_table_add_column(t, *cols) < 0) {
			tg_table_free(t);
			return NULL;
		}
	return t;
}

int tg_table_add_column(tg_table *t, const char *name)
{
	if (t->nrows)
		return -1; /* columns first */
	if (tg_grow((void **)&t->cols, &t->cols_cap, t->ncols + 1, sizeof(char *)))
		return -1;
	t->cols[t->ncols] = strdup(name);
	if (!t->cols[t->ncols])
		return -1;
	return (int)t->ncols++;
}

int64_t tg_table_add_row(tg_table *t)
{
	if (tg_grow((void **)&t->cells, &t->rows_cap, (t->nrows + 1) * t->ncols + 1, sizeof(tg_cell)))
		return -1;
	memset(t->cells + t->nrows * t->ncols, 0, t->ncols * sizeof(tg_cell));
	return (int64_t)t->nrows++;
}

static tg_cell *cell(tg_table *t, size_t row, size_t col) { return &t->cells[row * t->ncols + col]; }

void tg_table_set_int(tg_table *t, size_t row, size_t col, int64_t v)
{
	tg_cell *c = cell(t, row, col);
	c->type = TG_CELL_INT;
	c->v.i = v;
}

void tg_table_set_num(tg_table *t, size_t row, size_t col, double v)
{
	tg_cell *c = cell(t, row, col);
	if (v != v) { /* NaN: no value */
		c->type = TG_CELL_EMPTY;
		return;
	}
	c->type = TG_CELL_NUM;
	c->v.d = v;
}

int tg_table_set_strn(tg_table *t, size_t row, size_t col, const char *s, size_t n)
{
	tg_cell *c = cell(t, row, col);
	if (!s) {
		c->type = TG_CELL_EMPTY;
		return 0;
	}
	char *copy = tg_arena_alloc(t->strings, n + 1);
	if (!copy)
		return TG_ENOMEM;
	memcpy(copy, s, n);
	copy[n] = 0;
	c->type = TG_CELL_STR;
	c->v.s = copy;
	return 0;
}

int tg_table_set_str(tg_table *t, size_t row, size_t col, const char *s)
{
	return tg_table_set_strn(t, row, col, s, s ? strlen(s) : 0);
}

const char *tg_table_name(const tg_table *t) { return t->name; }
const char *tg_table_title(const tg_table *t) { return t->title; }
size_t tg_table_ncols(const tg_table *t) { return t->ncols; }
size_t tg_table_nrows(const tg_table *t) { return t->nrows; }
const char *tg_table_column(const tg_table *t, size_t col) { return t->cols[col]; }

const tg_cell *tg_table_cell(const tg_table *t, size_t row, size_t col)
{
	return &t->cells[row * t->ncols + col];
}

int tg_table_find_column(const tg_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return (int)i;
	return -1;
}

void tg_table_free(tg_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	free(t->cols);
	free(t->cells);
	free(t->name);
	free(t->title);
	tg_arena_free(t->strings);
	free(t);
}

void tg_tables_free(tg_table **t, size_t n)
{
	if (!t)
		return;
	for (size_t i = 0; i < n; i++)
		tg_table_free(t[i]);
	free(t);
}
