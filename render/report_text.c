/*
 * report_text.c - the perf report as text for a terminal (report_text.h).
 *
 * The csv, json and md keep TraceLens's column names, which its users look
 * for; a terminal gets a view of each table instead: the columns that say
 * the most, first (so that what a narrow line leaves out is the least
 * telling), under headings a person reads ("kernel ms", "calls", "%"). The
 * views are data, one line per column; a table without one keeps every
 * column, its name made readable (underscores as spaces, "(us)" as " us").
 * The perf sheets (GEMM, SDPA_fwd, ...) have one view for all: their
 * parameters ("param: M", "param: N", ...) joined into one column, then
 * the time, the achieved throughput and the share of the roofline.
 */
#include "report_text.h"
#include "../core/analysis/findings.h"
#include "table_fit.h"
#include "../util/tg.h"

#include <stdlib.h>
#include <string.h>

/* One column of a view: the table's column name, and its heading. */
struct col_view {
	const char *col, *heading;
};

#define VIEW_COLS 10

struct table_view {
	const char *table;
	struct col_view cols[VIEW_COLS];
};

static const struct table_view views[] = {
	{"gpu_timeline", {{"type", "type"}, {"time ms", "ms"}, {"percent", "%"}}},
	{"gpu_timeline_by_device",
	 {{"device", "device"},
	  {"computation_time", "computation ms"},
	  {"exposed_comm_time", "exposed comm ms"},
	  {"exposed_memcpy_time", "exposed memcpy ms"},
	  {"busy_time", "busy ms"},
	  {"idle_time", "idle ms"},
	  {"total_time", "total ms"},
	  {"total_comm_time", "comm ms"},
	  {"total_memcpy_time", "memcpy ms"}}},
	{"ops_summary_by_category",
	 {{"op category", "category"},
	  {"Count", "ops"},
	  {"total_direct_kernel_time_ms", "kernel ms"},
	  {"Percentage (%)", "%"},
	  {"Cumulative Percentage (%)", "cum %"}}},
	{"ops_summary",
	 {{"name", "op"},
	  {"Categories", "category"},
	  {"Count", "calls"},
	  {"total_direct_kernel_time_ms", "kernel ms"},
	  {"total_subtree_kernel_time_ms", "subtree ms"},
	  {"Percentage (%)", "%"},
	  {"Cumulative Percentage (%)", "cum %"}}},
	{"ops_unique_args",
	 {{"name", "op"},
	  {"op category", "category"},
	  {"operation_count", "calls"},
	  {"total_direct_kernel_time_sum", "kernel us"},
	  {"total_direct_kernel_time_mean", "mean us"},
	  {"Percentage (%)", "%"},
	  {"Input Dims", "input dims"}}},
	{"kernel_summary",
	 {{"Parent cpu_op", "op"},
	  {"Kernel name", "kernel"},
	  {"Kernel duration (\xc2\xb5s)_count", "calls"},
	  {"Kernel duration (\xc2\xb5s)_sum", "sum us"},
	  {"Kernel duration (\xc2\xb5s)_mean", "mean us"},
	  {"Percent of kernels time (%)", "% kernels"}}},
	{"kernel_categories",
	 {{"category", "category"},
	  {"from", "from"},
	  {"evidence", "evidence"},
	  {"kernels", "kernels"},
	  {"time ms", "ms"},
	  {"percent", "%"}}},
	{"short_kernels_summary",
	 {{"Parent cpu_op", "op"},
	  {"Kernel name", "kernel"},
	  {"Short Kernel count", "count"},
	  {"Short Kernel duration (\xc2\xb5s) sum", "sum us"},
	  {"Short Kernel duration (\xc2\xb5s) mean", "mean us"},
	  {"Short Kernel duration (\xc2\xb5s) percent of total time", "% total"},
	  {"Input dims", "input dims"}}},
};

/* The perf sheets' view, after "op" and their joined parameters. */
static const struct col_view sheet_cols[] = {
	{"name_count", "calls"},
	{"Kernel Time (\xc2\xb5s)_sum", "kernel us"},
	{"Kernel Time (\xc2\xb5s)_mean", "mean us"},
	{"TFLOPS/s_mean", "TFLOPS/s"},
	{"TB/s_mean", "TB/s"},
	{"Pct Roofline_mean", "% roofline"},
};

/* A column name made readable: "(us)" and "(µs)" as " us", "(bytes)" as
 * " bytes", "_pctg" as " %", underscores as spaces. */
static void readable(char *out, size_t cap, const char *name)
{
	static const char *const from[] = {"(\xc2\xb5s)", "(us)", "(ms)", "(bytes)", "_pctg", "_"};
	static const char *const to[] = {" us", " us", " ms", " bytes", " %", " "};
	size_t o = 0;
	while (*name && o + 8 < cap) {
		size_t k = 0, n = sizeof(from) / sizeof(from[0]);
		while (k < n && strncmp(name, from[k], strlen(from[k])))
			k++;
		if (k == n) {
			out[o++] = *name++;
			continue;
		}
		if (to[k][0] == ' ' && o && out[o - 1] == ' ')
			o--; /* "idle_time (us)" reads "idle time us", not with two spaces */
		o += (size_t)snprintf(out + o, cap - o, "%s", to[k]);
		name += strlen(from[k]);
	}
	out[o] = 0;
}

/* A Python list of names as TraceLens writes it, "['GEMM', 'other']", as
 * "GEMM, other"; anything else as it is. */
static void plain_list(char *out, size_t cap, const char *s)
{
	size_t n = strlen(s), o = 0;
	if (n < 2 || s[0] != '[' || s[n - 1] != ']') {
		snprintf(out, cap, "%s", s);
		return;
	}
	for (size_t i = 1; i + 1 < n && o + 1 < cap; i++)
		if (s[i] != '\'')
			out[o++] = s[i];
	out[o] = 0;
}

/* Copies cell (row, src) of t into (row, dst) of v (the Categories lists
 * plain). Returns 0 or TG_ENOMEM. */
static int copy_cell(tg_table *v, size_t dst, const tg_table *t, size_t row, size_t src)
{
	const tg_cell *c = tg_table_cell(t, row, src);
	char plain[1024];
	switch (c->type) {
	case TG_CELL_INT: tg_table_set_int(v, row, dst, c->v.i); return 0;
	case TG_CELL_NUM: tg_table_set_num(v, row, dst, c->v.d); return 0;
	case TG_CELL_STR:
		if (strcmp(tg_table_column(t, src), "Categories"))
			return tg_table_set_str(v, row, dst, c->v.s);
		plain_list(plain, sizeof(plain), c->v.s);
		return tg_table_set_str(v, row, dst, plain);
	default: return 0;
	}
}

#define PARAMS (-1) /* a plan's column of the perf sheets' joined parameters */

/* What a view shows: per column, the source column of t (or PARAMS) and
 * its heading. Made first, since a table takes its columns before rows. */
struct plan {
	int src[64];
	char heading[64][128];
	size_t n;
};

static void plan_add(struct plan *p, int src, const char *heading)
{
	if (p->n == sizeof(p->src) / sizeof(p->src[0]))
		return;
	p->src[p->n] = src;
	snprintf(p->heading[p->n], sizeof(p->heading[0]), "%.127s", heading);
	p->n++;
}

/* The columns of a view's list that t has, in the list's order. */
static void plan_listed(struct plan *p, const tg_table *t, const struct col_view *cols, size_t n)
{
	for (size_t k = 0; k < n && cols[k].col; k++) {
		int src = tg_table_find_column(t, cols[k].col);
		if (src >= 0)
			plan_add(p, src, cols[k].heading);
	}
}

/* Every column of t under its readable name (the plan holds up to 64:
 * no table of the report has more than 40). */
static void plan_all(struct plan *p, const tg_table *t)
{
	char heading[128];
	for (size_t c = 0; c < tg_table_ncols(t); c++) {
		readable(heading, sizeof(heading), tg_table_column(t, c));
		plan_add(p, (int)c, heading);
	}
}

static const struct table_view *view_of(const tg_table *t)
{
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (!strcmp(views[i].table, tg_table_name(t)))
			return &views[i];
	return NULL;
}

/* A perf sheet's "param: X" cells of row r as "X=v X=v ..." into line. */
static void joined_params(char *line, size_t cap, const tg_table *t, size_t r)
{
	char cell[1024];
	size_t o = 0;
	line[0] = 0;
	for (size_t c = 0; c < tg_table_ncols(t) && o < cap; c++) {
		const char *name = tg_table_column(t, c);
		if (strncmp(name, "param: ", 7))
			continue;
		tg_table_cell_text(cell, sizeof(cell), tg_table_cell(t, r, c));
		o += (size_t)snprintf(line + o, cap - o, "%s%s=%s", o ? " " : "", name + 7, cell);
	}
}

/* The table the plan describes, its cells copied from t. NULL when out of
 * memory. */
static tg_table *make_view(const struct plan *p, const tg_table *t)
{
	tg_table *v = tg_table_new(tg_table_name(t), tg_table_title(t));
	for (size_t k = 0; v && k < p->n; k++)
		if (tg_table_add_column(v, p->heading[k]) < 0) {
			tg_table_free(v);
			return NULL;
		}
	char line[4096];
	for (size_t r = 0; v && r < tg_table_nrows(t); r++) {
		int bad = tg_table_add_row(v) < 0;
		for (size_t k = 0; !bad && k < p->n; k++) {
			if (p->src[k] == PARAMS) {
				joined_params(line, sizeof(line), t, r);
				bad = tg_table_set_str(v, r, k, line) != 0;
			} else {
				bad = copy_cell(v, k, t, r, (size_t)p->src[k]) != 0;
			}
		}
		if (bad) {
			tg_table_free(v);
			v = NULL;
		}
	}
	return v;
}

int tg_report_text_view(tg_table **out, const tg_table *t)
{
	struct plan p = {.n = 0};
	const struct table_view *tv = view_of(t);
	int name = tg_table_find_column(t, "name");
	if (tv) {
		plan_listed(&p, t, tv->cols, VIEW_COLS);
	} else if (name >= 0 && tg_table_find_column(t, "name_count") >= 0) { /* a perf sheet */
		plan_add(&p, name, "op");
		plan_add(&p, PARAMS, "parameters");
		plan_listed(&p, t, sheet_cols, sizeof(sheet_cols) / sizeof(sheet_cols[0]));
	} else {
		plan_all(&p, t);
	}
	*out = make_view(&p, t);
	return *out ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
}

int tg_report_write_text(FILE *f, const tg_report *r, const tg_report_summary *s, int wide)
{
	int rc = s ? tg_report_summary_write_text(f, s, TG_REPORT_TEXT_WIDTH) : 0;
	if (!rc && r->findings) /* their evidence, cost basis and fix (findings_render.c) */
		rc = tg_findings_write_text(f, r->findings, 100);
	for (size_t i = 0; i < r->n && !rc; i++) {
		if (wide) {
			rc = tg_table_write_text(r->tables[i], f, 80);
		} else {
			tg_table *v;
			if (!(rc = tg_report_text_view(&v, r->tables[i])))
				rc = tg_table_write_fit(v, f, TG_REPORT_TEXT_WIDTH, TG_REPORT_TEXT_ROWS);
			tg_table_free(v);
		}
		putc('\n', f);
	}
	return rc;
}
