/*
 * report_html.c - the perf report as one self-contained HTML page.
 *
 * Written by hand: the page is small and fixed (three charts and the
 * tables per trace), and a templating or charting library would bring
 * scripts or network resources that the page must not have. The charts are
 * plain SVG laid out here; text is not measured but estimated from average
 * glyph widths, which is why bar labels are shortened to LABEL_MAX code
 * points (the full name stays in the bar's tooltip).
 *
 * Every string that comes from a trace (kernel and op names, shapes) goes
 * through put_esc, which escapes it for HTML text and quoted attributes
 * alike and shows control characters as visible escapes.
 */
#include "report_html.h"
#include "report_html_streams.h"
#include "../util/tg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHART_W 1180    /* SVG width in px (scaled down on narrow screens) */
#define LABEL_MAX 60    /* code points of a bar label, ellipsis included */
#define TOP_KERNELS 15  /* bars of the top-kernels chart */
#define FOLD_ROWS 25    /* tables longer than this start folded */
#define WRAP_CPS 40     /* string columns with longer cells wrap */
#define SANS_W 6.6      /* estimated average glyph width at 12px, sans */
#define MONO_W 7.25     /* the same for DejaVu Sans Mono */

/* Okabe & Ito's colour-blind safe palette, plus greys. */
#define C_BLUE "#0072B2"
#define C_VERMILLION "#D55E00"
#define C_ORANGE "#E69F00"
#define C_GREEN "#009E73"
#define C_GREY "#C4C4C4"

/* One segment of the GPU time bar: the gpu_timeline row or column it is
 * drawn from, its legend, fill and the colour of text on it (each pair has
 * a contrast ratio of at least 4.5:1). */
struct segment {
	const char *key;
	const char *label;
	const char *fill;
	const char *ink;
};

static const struct segment segments[] = {
	{"computation_time", "Computation", C_BLUE, "#ffffff"},
	{"exposed_comm_time", "Exposed communication", C_VERMILLION, "#000000"},
	{"exposed_memcpy_time", "Exposed memcpy", C_ORANGE, "#000000"},
	{"idle_time", "Idle", C_GREY, "#000000"},
};
#define NSEG (sizeof(segments) / sizeof(segments[0]))

/* One bar of a bar chart; name is borrowed from a table. */
struct bar {
	const char *name;
	double ms;
	double pct;    /* share of the chart's total, in % */
	int64_t count; /* calls, or -1 when unknown */
};

static const char style[] =
	":root{color-scheme:light;--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;background:#fff;color:var(--ink);"
	"font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif}\n"
	"main{max-width:1240px;margin:0 auto;padding:20px 28px 48px}\n"
	"h1{font-size:22px;margin:0 0 2px}\n"
	"h2{font-size:19px;margin:0 0 12px;overflow-wrap:anywhere}\n"
	"h3{font-size:16px;margin:22px 0 8px}\n"
	".sub{color:var(--muted);margin:0 0 8px}\n"
	"nav.traces{margin:8px 0 0;padding:0;list-style:none}\n"
	"section.trace{border-top:3px solid " C_BLUE ";margin-top:22px;padding-top:14px}\n"
	"ul.kpis{display:flex;flex-wrap:wrap;gap:10px;margin:0 0 18px;padding:0;list-style:none}\n"
	"ul.kpis li{background:var(--panel);border:1px solid var(--line);border-radius:6px;"
	"padding:6px 14px;min-width:130px}\n"
	"ul.kpis b{display:block;font-size:18px;font-variant-numeric:tabular-nums}\n"
	"ul.kpis span{color:var(--muted);font-size:12px}\n"
	"figure{margin:0 0 18px}\n"
	"figcaption{font-weight:600;margin:0 0 6px}\n"
	"figcaption small{font-weight:400;color:var(--muted)}\n"
	"svg.chart{display:block;max-width:100%;height:auto}\n"
	"svg text{font-size:12px;font-family:system-ui,'DejaVu Sans',sans-serif}\n"
	"svg text.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace}\n"
	"svg .lbl{fill:#1f2328}\n"
	"svg .val{fill:#59636e}\n"
	"svg g:hover rect{opacity:.8}\n"
	"nav.toc{display:flex;flex-wrap:wrap;gap:6px;margin:0 0 12px}\n"
	"nav.toc a{font-size:12px;padding:1px 8px;border:1px solid var(--line);border-radius:10px;"
	"color:var(--ink);text-decoration:none}\n"
	"nav.toc a:hover{background:var(--panel)}\n"
	"details.tbl{margin:0 0 10px;border:1px solid var(--line);border-radius:6px}\n"
	"details.tbl>summary{cursor:pointer;padding:6px 10px;background:var(--panel);border-radius:6px}\n"
	"details.tbl[open]>summary{border-bottom:1px solid var(--line);border-radius:6px 6px 0 0}\n"
	"summary .tt{font-weight:600}\n"
	"summary .meta{color:var(--muted);font-size:12px;margin-left:6px}\n"
	"code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12px;color:var(--muted)}\n"
	".scroll{overflow-x:auto}\n"
	"table{border-collapse:collapse;font-size:12.5px;margin:0}\n"
	"th,td{padding:3px 10px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}\n"
	"th{font-weight:600;background:#fff;border-bottom:2px solid var(--line)}\n"
	"th .u{font-weight:400;color:var(--muted)}\n"
	"th.n,td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"td.s{white-space:nowrap}\n"
	"td.w{min-width:26em;max-width:60em;overflow-wrap:anywhere}\n"
	"tbody tr:nth-child(even){background:#f9fafb}\n"
	"td.none{color:var(--muted);font-style:italic}\n"
	"footer{color:var(--muted);font-size:12px;margin-top:28px}\n";

/* Writes s escaped for HTML text and for quoted attribute values: the five
 * specials and the backtick as references; control characters, which HTML
 * forbids in text, shown as the text format shows them: C0 and DEL as
 * \xNN, C1 (U+0080...U+009F) as \u00NN. */
static void put_esc(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '`': fputs("&#96;", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\x%02x", *p);
			else if (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
				fprintf(f, "\\u00%02x", p[1]);
				p++;
			} else {
				putc(*p, f);
			}
		}
	}
}

/* Writes s as a fragment identifier: letters, digits, '-' and '_' kept,
 * anything else '_'. */
static void put_id(FILE *f, size_t trace, const char *s)
{
	fprintf(f, "t%zu-", trace);
	for (; *s; s++) {
		char c = *s;
		int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		           c == '-' || c == '_';
		putc(keep ? c : '_', f);
	}
}

/* Number of code points of UTF-8 s. */
static size_t code_points(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Copies s into out (of cap >= max * 4 + 4 bytes), cut to at most max code
 * points, the last one an ellipsis when cut. */
static void shorten(char *out, size_t cap, const char *s, size_t max)
{
	size_t len = strlen(s);
	if (code_points(s) <= max && len < cap) {
		memcpy(out, s, len + 1);
		return;
	}
	size_t i = 0, n = 0;
	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && ++n == max)
			break;
		if (i + 4 >= cap) {
			while (i && ((unsigned char)s[i] & 0xC0) == 0x80)
				i--;
			break;
		}
	}
	memcpy(out, s, i);
	memcpy(out + i, "\xe2\x80\xa6", 4); /* U+2026 and the NUL */
}

/* A number as the tables show it: 3 decimals, 3 significant digits below
 * 0.001. */
static void fmt_num(char *buf, size_t cap, double v)
{
	double a = fabs(v);
	if (a != 0 && a < 0.001)
		snprintf(buf, cap, "%.3g", v);
	else
		snprintf(buf, cap, "%.3f", v);
}

static double cell_num(const tg_cell *c)
{
	if (c->type == TG_CELL_INT)
		return (double)c->v.i;
	if (c->type == TG_CELL_NUM)
		return c->v.d;
	return NAN;
}

/* Finite value or 0. */
static double finite_or_0(double v)
{
	return isfinite(v) ? v : 0;
}

/* The value of column col in the row of t whose column key_col holds the
 * string key; NaN when there is none. */
static double lookup(const tg_table *t, const char *key_col, const char *key, const char *col)
{
	int k = t ? tg_table_find_column(t, key_col) : -1;
	int c = t ? tg_table_find_column(t, col) : -1;
	if (k < 0 || c < 0)
		return NAN;
	for (size_t r = 0; r < tg_table_nrows(t); r++) {
		const tg_cell *x = tg_table_cell(t, r, (size_t)k);
		if (x->type == TG_CELL_STR && !strcmp(x->v.s, key))
			return cell_num(tg_table_cell(t, r, (size_t)c));
	}
	return NAN;
}

/* A cell as text, escaped: numbers as fmt_num, integers in full. */
static void put_cell(FILE *f, const tg_cell *c)
{
	char buf[64];
	switch (c->type) {
	case TG_CELL_INT:
		fprintf(f, "%lld", (long long)c->v.i);
		break;
	case TG_CELL_NUM:
		fmt_num(buf, sizeof(buf), c->v.d);
		fputs(buf, f);
		break;
	case TG_CELL_STR:
		put_esc(f, c->v.s);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ charts */

static void svg_open(FILE *f, const char *aria, double height)
{
	fprintf(f, "<svg class=\"chart\" role=\"img\" aria-label=\"");
	put_esc(f, aria);
	fprintf(f, "\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n", CHART_W, height,
	        CHART_W, height);
}

/* A horizontal bar chart, one bar per entry of b in order, labels on the
 * left (monospace for kernel names), value and share on the right; of
 * says what the share is of ("kernel time"). */
static void svg_bars(FILE *f, const char *aria, const struct bar *b, size_t n, const char *fill,
                     int mono, const char *of, const char *empty)
{
	const double row = 24, bar_h = 16, pad = 6, value_w = 150;
	char label[LABEL_MAX * 4 + 4], num[64];
	if (!n) {
		svg_open(f, aria, 36);
		fprintf(f, "<text class=\"val\" x=\"0\" y=\"22\">");
		put_esc(f, empty);
		fputs("</text>\n</svg>\n", f);
		return;
	}
	double max = 0, est = 0;
	for (size_t i = 0; i < n; i++) {
		size_t w = code_points(b[i].name);
		if (w > LABEL_MAX)
			w = LABEL_MAX;
		if (w * (mono ? MONO_W : SANS_W) > est)
			est = (double)w * (mono ? MONO_W : SANS_W);
		if (b[i].ms > max)
			max = b[i].ms;
	}
	double x0 = fmin(fmax(est + 14, 80), 470);
	double span = CHART_W - x0 - value_w;
	svg_open(f, aria, 2 * pad + row * (double)n);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#8c959f\"/>\n", x0 - 0.5,
	        pad - 2, x0 - 0.5, pad + row * (double)n + 2);
	for (size_t i = 0; i < n; i++) {
		double y = pad + row * (double)i;
		double w = max > 0 ? span * b[i].ms / max : 0;
		if (b[i].ms > 0 && w < 1)
			w = 1;
		fputs("<g><title>", f);
		put_esc(f, *b[i].name ? b[i].name : "(unnamed)");
		fmt_num(num, sizeof(num), b[i].ms);
		fprintf(f, "&#10;%s ms, %.1f %% of ", num, b[i].pct);
		put_esc(f, of);
		if (b[i].count >= 0)
			fprintf(f, ", %lld call%s", (long long)b[i].count, b[i].count == 1 ? "" : "s");
		fputs("</title>", f);
		shorten(label, sizeof(label), *b[i].name ? b[i].name : "(unnamed)", LABEL_MAX);
		fprintf(f, "<text class=\"lbl%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", mono ? " mono" : "",
		        x0 - 8, y + row / 2 + 4);
		put_esc(f, label);
		fprintf(f, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" rx=\"2\" fill=\"%s\"/>",
		        x0, y + (row - bar_h) / 2, w, bar_h, fill);
		fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%s ms \xc2\xb7 %.1f %%</text></g>\n", x0 + w + 6,
		        y + row / 2 + 4, num, b[i].pct);
	}
	fputs("</svg>\n", f);
}

/* One stacked bar of the GPU time bar chart at height y. */
static void svg_stack(FILE *f, double x0, double y, double h, const double *v, const char *who)
{
	double total = 0, x = x0, span = CHART_W - x0 - 2;
	char num[64];
	for (size_t s = 0; s < NSEG; s++)
		total += v[s];
	if (total <= 0) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"#eaeef2\"/>", x0, y,
		        span, h);
		fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">no GPU activity</text>\n", x0 + 8,
		        y + h / 2 + 4);
		return;
	}
	for (size_t s = 0; s < NSEG; s++) {
		double w = span * v[s] / total, pct = 100 * v[s] / total;
		if (v[s] <= 0)
			continue;
		fmt_num(num, sizeof(num), v[s]);
		fputs("<g><title>", f);
		put_esc(f, who);
		fprintf(f, ": %s %s ms (%.1f %%)</title>", segments[s].label, num, pct);
		fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\" "
		        "stroke=\"#ffffff\" stroke-width=\"1\"/>", x, y, w, h, segments[s].fill);
		if (w >= 46)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">%.1f %%</text>",
			        x + w / 2, y + h / 2 + 4, segments[s].ink, pct);
		fputs("</g>\n", f);
		x += w;
	}
}

/* Chart (a): where the GPU's time went, overall and, when the trace has
 * several devices, per device; a legend with the overall values. */
static void chart_timeline(FILE *f, const tg_table *tl, const tg_table *dev)
{
	const double bar_h = 34, row = 44, pad = 6;
	double all[NSEG], total = 0;
	for (size_t s = 0; s < NSEG; s++) {
		all[s] = fmax(finite_or_0(lookup(tl, "type", segments[s].key, "time ms")), 0);
		total += all[s];
	}
	int dcol = dev ? tg_table_find_column(dev, "device") : -1;
	int scol[NSEG];
	size_t ndev = dcol >= 0 && tg_table_nrows(dev) > 1 ? tg_table_nrows(dev) : 0;
	for (size_t s = 0; s < NSEG && ndev; s++)
		if ((scol[s] = tg_table_find_column(dev, segments[s].key)) < 0)
			ndev = 0;
	double x0 = ndev ? 84 : 0;

	/* the legend: items laid out left to right, wrapped at the width */
	char text[NSEG][96], num[64];
	double lx[NSEG], ly[NSEG], x = x0, y = pad + row * (double)(1 + ndev) + 8;
	for (size_t s = 0; s < NSEG; s++) {
		fmt_num(num, sizeof(num), all[s]);
		snprintf(text[s], sizeof(text[s]), "%s %s ms (%.1f %%)", segments[s].label, num,
		         total > 0 ? 100 * all[s] / total : 0.0);
		double w = 18 + SANS_W * (double)code_points(text[s]) + 22;
		if (x + w > CHART_W && x > x0) {
			x = x0;
			y += 20;
		}
		lx[s] = x;
		ly[s] = y;
		x += w;
	}
	svg_open(f, "GPU time breakdown", y + 16 + pad);
	svg_stack(f, x0, pad, bar_h, all, ndev ? "All devices" : "GPU");
	if (ndev)
		fprintf(f, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">All</text>\n", x0 - 8,
		        pad + bar_h / 2 + 4);
	for (size_t d = 0; d < ndev; d++) {
		double v[NSEG], ry = pad + row * (double)(d + 1);
		for (size_t s = 0; s < NSEG; s++)
			v[s] = fmax(finite_or_0(cell_num(tg_table_cell(dev, d, (size_t)scol[s]))), 0);
		char who[96];
		const tg_cell *c = tg_table_cell(dev, d, (size_t)dcol);
		if (c->type == TG_CELL_INT)
			snprintf(who, sizeof(who), "GPU %lld", (long long)c->v.i);
		else if (c->type == TG_CELL_STR)
			shorten(who, sizeof(who), c->v.s, 12);
		else
			snprintf(who, sizeof(who), "device %zu", d);
		fprintf(f, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 8,
		        ry + bar_h / 2 + 4);
		put_esc(f, who);
		fputs("</text>\n", f);
		svg_stack(f, x0, ry, bar_h, v, who);
	}
	for (size_t s = 0; s < NSEG; s++) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" rx=\"2\" fill=\"%s\"/>", lx[s],
		        ly[s], segments[s].fill);
		fprintf(f, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", lx[s] + 18, ly[s] + 10,
		        text[s]);
	}
	fputs("</svg>\n", f);
}

static int by_ms_desc(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;
	if (x->ms != y->ms)
		return x->ms < y->ms ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct bar *)a)->name, ((const struct bar *)b)->name);
}

/* Reads the bars of t: one per row, named by column name_col, ms from
 * value_col times scale, calls from count_col (may be absent). *out is
 * NULL when t lacks the columns or has no rows; the caller frees it. */
static int read_bars(struct bar **out, size_t *n, const tg_table *t, const char *name_col,
                     const char *value_col, double scale, const char *count_col)
{
	*out = NULL;
	*n = 0;
	int nc = t ? tg_table_find_column(t, name_col) : -1;
	int vc = t ? tg_table_find_column(t, value_col) : -1;
	int cc = t ? tg_table_find_column(t, count_col) : -1;
	size_t nr = t ? tg_table_nrows(t) : 0;
	if (nc < 0 || vc < 0 || !nr)
		return 0;
	struct bar *b = tg_calloc(nr, sizeof(*b));
	if (!b)
		return TG_ENOMEM;
	for (size_t r = 0; r < nr; r++) {
		const tg_cell *name = tg_table_cell(t, r, (size_t)nc);
		b[r].name = name->type == TG_CELL_STR ? name->v.s : "";
		b[r].ms = fmax(finite_or_0(cell_num(tg_table_cell(t, r, (size_t)vc))) * scale, 0);
		b[r].count = -1;
		if (cc >= 0 && tg_table_cell(t, r, (size_t)cc)->type == TG_CELL_INT)
			b[r].count = tg_table_cell(t, r, (size_t)cc)->v.i;
	}
	*out = b;
	*n = nr;
	return 0;
}

/* Fills in each bar's share of their sum. */
static void set_shares(struct bar *b, size_t n)
{
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += b[i].ms;
	for (size_t i = 0; i < n; i++)
		b[i].pct = total > 0 ? 100 * b[i].ms / total : 0;
}

/* Chart (b): kernel time by op category, largest first. */
static int chart_categories(FILE *f, const tg_table *t)
{
	struct bar *b;
	size_t n;
	int rc = read_bars(&b, &n, t, "op category", "total_direct_kernel_time_ms", 1, "Count");
	if (rc)
		return rc;
	set_shares(b, n);
	if (n)
		qsort(b, n, sizeof(*b), by_ms_desc);
	svg_bars(f, "Kernel time by op category", b, n, C_BLUE, 0, "kernel time", "no kernels in this trace");
	free(b);
	return 0;
}

/* Chart (c): the kernels with the most total time, summed over the rows of
 * kernel_summary (one per launching op and stream) by kernel name. */
static int chart_kernels(FILE *f, const tg_table *t)
{
	struct bar *b;
	size_t n, m = 0;
	int rc = read_bars(&b, &n, t, "Kernel name", "Kernel duration (\xc2\xb5s)_sum", 1e-3,
	                   "Kernel duration (\xc2\xb5s)_count");
	if (rc)
		return rc;
	if (n) {
		qsort(b, n, sizeof(*b), by_name);
		for (size_t i = 0; i < n; i++) {
			if (m && !strcmp(b[m - 1].name, b[i].name)) {
				b[m - 1].ms += b[i].ms;
				b[m - 1].count = b[m - 1].count >= 0 && b[i].count >= 0 ? b[m - 1].count + b[i].count : -1;
			} else {
				b[m++] = b[i];
			}
		}
		set_shares(b, m);
		qsort(b, m, sizeof(*b), by_ms_desc);
	}
	svg_bars(f, "Top kernels by total time", b, m < TOP_KERNELS ? m : TOP_KERNELS, C_GREEN, 1,
	         "kernel time", "no kernels in this trace");
	free(b);
	return 0;
}

/* ------------------------------------------------------------ tables */

/* 1 when the first non-empty cell of column c is a number. */
static int numeric_column(const tg_table *t, size_t c)
{
	for (size_t r = 0; r < tg_table_nrows(t); r++) {
		uint8_t type = tg_table_cell(t, r, c)->type;
		if (type != TG_CELL_EMPTY)
			return type == TG_CELL_INT || type == TG_CELL_NUM;
	}
	return 0;
}

/* 1 when column c has a string longer than WRAP_CPS code points: its
 * cells wrap, the others stay on one line. */
static int wide_column(const tg_table *t, size_t c)
{
	for (size_t r = 0; r < tg_table_nrows(t); r++) {
		const tg_cell *x = tg_table_cell(t, r, c);
		if (x->type == TG_CELL_STR && strlen(x->v.s) > WRAP_CPS && code_points(x->v.s) > WRAP_CPS)
			return 1;
	}
	return 0;
}

/* The unit of a column whose name does not say it. The CSV keeps
 * TraceLens's names (total_direct_kernel_time_sum is in microseconds, the
 * device timeline's busy_time in milliseconds), so the page adds the unit
 * to the header instead; NULL when the name already says it or the column
 * is not a quantity with a unit. */
static const char *implied_unit(const char *table, const char *col)
{
	static const char *const us_prefixes[] = {"total_direct_kernel_time_", "total_subtree_kernel_time_",
	                                          "dur_"};
	size_t n = strlen(col);
	if (strchr(col, '(') || (n > 3 && !strcmp(col + n - 3, "_ms")) || !strcmp(col, "time ms"))
		return NULL;
	for (size_t i = 0; i < sizeof(us_prefixes) / sizeof(us_prefixes[0]); i++)
		if (!strncmp(col, us_prefixes[i], strlen(us_prefixes[i])))
			return "\xc2\xb5s";
	if (!strcmp(table, "gpu_timeline_by_device") && n > 5 && !strcmp(col + n - 5, "_time"))
		return "ms";
	if (!strcmp(table, "short_kernel_histogram") && (!strcmp(col, "bin_start") || !strcmp(col, "bin_end")))
		return "\xc2\xb5s";
	return NULL;
}

static int write_table(FILE *f, const tg_table *t, size_t trace)
{
	size_t nc = tg_table_ncols(t), nr = tg_table_nrows(t);
	char *wide = tg_calloc(nc ? nc : 1, 1);
	if (!wide)
		return TG_ENOMEM;
	for (size_t c = 0; c < nc; c++)
		wide[c] = (char)wide_column(t, c);
	fputs("<details class=\"tbl\" id=\"", f);
	put_id(f, trace, tg_table_name(t));
	fprintf(f, "\"%s><summary><span class=\"tt\">", nr > FOLD_ROWS ? "" : " open");
	put_esc(f, tg_table_title(t));
	fputs("</span> <code>", f);
	put_esc(f, tg_table_name(t));
	fprintf(f, "</code><span class=\"meta\">%zu row%s</span></summary>\n", nr, nr == 1 ? "" : "s");
	fputs("<div class=\"scroll\"><table>\n<thead><tr>", f);
	for (size_t c = 0; c < nc; c++) {
		fputs(numeric_column(t, c) ? "<th class=\"n\">" : "<th>", f);
		put_esc(f, tg_table_column(t, c));
		const char *unit = implied_unit(tg_table_name(t), tg_table_column(t, c));
		if (unit)
			fprintf(f, " <span class=\"u\">(%s)</span>", unit);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	if (!nr)
		fprintf(f, "<tr><td class=\"none\" colspan=\"%zu\">no rows</td></tr>\n", nc ? nc : 1);
	for (size_t r = 0; r < nr; r++) {
		fputs("<tr>", f);
		for (size_t c = 0; c < nc; c++) {
			const tg_cell *x = tg_table_cell(t, r, c);
			if (x->type == TG_CELL_STR)
				fputs(wide[c] ? "<td class=\"w\">" : "<td class=\"s\">", f);
			else
				fputs(x->type == TG_CELL_EMPTY ? "<td>" : "<td class=\"n\">", f);
			put_cell(f, x);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div></details>\n", f);
	free(wide);
	return 0;
}

/* ------------------------------------------------------------ page */

static void kpi(FILE *f, const char *value, const char *unit, const char *label)
{
	fprintf(f, "<li><b>%s%s</b><span>%s</span></li>\n", value, unit, label);
}

/* The headline numbers of a trace from its GPU timeline and kernels. */
static void write_kpis(FILE *f, const tg_table *tl, const tg_table *ks)
{
	static const struct {
		const char *key, *label;
		int pct;
	} items[] = {
		{"total_time", "total time", 0},
		{"busy_time", "busy", 1},
		{"computation_time", "computation", 1},
		{"exposed_comm_time", "exposed communication", 1},
		{"exposed_memcpy_time", "exposed memcpy", 1},
		{"idle_time", "idle", 1},
	};
	char num[64];
	fputs("<ul class=\"kpis\">\n", f);
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		double v = lookup(tl, "type", items[i].key, items[i].pct ? "percent" : "time ms");
		if (!isfinite(v))
			continue;
		if (items[i].pct)
			snprintf(num, sizeof(num), "%.1f", v);
		else
			fmt_num(num, sizeof(num), v);
		kpi(f, num, items[i].pct ? " %" : " ms", items[i].label);
	}
	int cc = ks ? tg_table_find_column(ks, "Kernel duration (\xc2\xb5s)_count") : -1;
	if (cc >= 0) {
		long long calls = 0;
		for (size_t r = 0; r < tg_table_nrows(ks); r++)
			if (tg_table_cell(ks, r, (size_t)cc)->type == TG_CELL_INT)
				calls += tg_table_cell(ks, r, (size_t)cc)->v.i;
		snprintf(num, sizeof(num), "%lld", calls);
		kpi(f, num, "", "kernels run");
	}
	fputs("</ul>\n", f);
}

/* The GPU timeline per stream, when the report has it (report_html_streams.c). */
static void write_streams(FILE *f, const tg_stream_timeline *s)
{
	if (!s || !s->nrows)
		return;
	fprintf(f,
	        "<figure><figcaption>GPU timeline per stream <small>(%.3f ms from the first kernel to the last; "
	        "hover a row for its busy share)</small></figcaption>\n",
	        s->span_ns / 1e6);
	tg_report_html_streams(f, s, CHART_W);
	fputs("</figure>\n", f);
}

/* The findings (findings.h): the fired ones as a list with their cost and
 * fix, then the whole list as a table. */
static int write_findings(FILE *f, const tg_findings *fs, size_t i)
{
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	fprintf(f, "<h3>Findings <small>(%zu fired, %zu not evaluated, %zu ok: docs/findings.md)</small></h3>\n",
	        tg_findings_count(fs, TG_FINDING_FIRED), tg_findings_count(fs, TG_FINDING_NOT_EVALUATED),
	        tg_findings_count(fs, TG_FINDING_OK));
	if (tg_findings_count(fs, TG_FINDING_FIRED)) {
		fputs("<ul class=\"findings\">\n", f);
		for (size_t k = 0; k < n; k++) {
			if (v[k].status != TG_FINDING_FIRED)
				continue;
			char cost[64];
			snprintf(cost, sizeof(cost), "%.3g ms a step (%.1f %% of the step)", v[k].cost_ns / 1e6,
			         v[k].cost_pct);
			fputs("<li><b>", f);
			put_esc(f, tg_finding_name(v[k].id));
			fputs("</b>", f);
			if (v[k].subject[0]) {
				fputs(" <code>", f);
				put_esc(f, v[k].subject);
				fputs("</code>", f);
			}
			fputs(": ", f);
			put_esc(f, cost);
			fputs("<br><small>", f);
			put_esc(f, v[k].evidence);
			fputs("</small><br>fix: ", f);
			put_esc(f, tg_finding_fix(v[k].id));
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	tg_table *t;
	if (tg_findings_table(&t, fs))
		return TG_ENOMEM;
	int rc = write_table(f, t, i);
	tg_table_free(t);
	return rc;
}

static int write_trace(FILE *f, const tg_report *r, const char *name, size_t i)
{
	const tg_table *tl = tg_report_find(r, "gpu_timeline");
	const tg_table *cat = tg_report_find(r, "ops_summary_by_category");
	const tg_table *ks = tg_report_find(r, "kernel_summary");
	int rc = 0;
	fprintf(f, "<section class=\"trace\" id=\"trace-%zu\">\n<h2>", i);
	put_esc(f, name);
	fputs("</h2>\n", f);
	if (tl)
		write_kpis(f, tl, ks);
	if (tl) {
		fputs("<figure><figcaption>GPU time breakdown <small>(share of the GPU timeline)</small></figcaption>\n",
		      f);
		chart_timeline(f, tl, tg_report_find(r, "gpu_timeline_by_device"));
		fputs("</figure>\n", f);
	}
	write_streams(f, r->streams);
	if (cat) {
		fputs("<figure><figcaption>Kernel time by op category</figcaption>\n", f);
		rc = chart_categories(f, cat);
		fputs("</figure>\n", f);
	}
	if (ks && !rc) {
		fprintf(f, "<figure><figcaption>Top kernels by total time <small>(the %d largest, each summed "
		        "over its launching ops and streams; hover a bar for the full name)</small></figcaption>\n",
		        TOP_KERNELS);
		rc = chart_kernels(f, ks);
		fputs("</figure>\n", f);
	}
	if (!rc && r->findings)
		rc = write_findings(f, r->findings, i);
	if (rc)
		return rc;
	fputs("<h3>Tables</h3>\n<nav class=\"toc\">", f);
	for (size_t t = 0; t < r->n; t++) {
		fputs("<a href=\"#", f);
		put_id(f, i, tg_table_name(r->tables[t]));
		fputs("\">", f);
		put_esc(f, tg_table_title(r->tables[t]));
		fputs("</a>", f);
	}
	fputs("</nav>\n", f);
	for (size_t t = 0; t < r->n && !rc; t++)
		rc = write_table(f, r->tables[t], i);
	if (rc)
		return rc;
	fputs("</section>\n", f);
	return 0;
}

int tg_report_write_html(FILE *f, const tg_report *const *reports, const char *const *names, size_t n)
{
	char fallback[32];
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n"
	      "<meta name=\"generator\" content=\"tracegate " TG_VERSION "\">\n<title>Perf report: ",
	      f);
	if (n == 1 && names && names[0])
		put_esc(f, names[0]);
	else
		fprintf(f, "%zu traces", n);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<h1>Perf report</h1>\n", style);
	fprintf(f, "<p class=\"sub\">tracegate %s \xc2\xb7 %zu report%s \xc2\xb7 every time says its unit: "
	        "ms or \xc2\xb5s</p>\n", TG_VERSION, n, n == 1 ? "" : "s");
	if (n > 1) {
		fputs("<nav class=\"toc\">", f);
		for (size_t i = 0; i < n; i++) {
			snprintf(fallback, sizeof(fallback), "trace %zu", i + 1);
			fprintf(f, "<a href=\"#trace-%zu\">", i);
			put_esc(f, names && names[i] ? names[i] : fallback);
			fputs("</a>", f);
		}
		fputs("</nav>\n", f);
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(fallback, sizeof(fallback), "trace %zu", i + 1);
		int rc = write_trace(f, reports[i], names && names[i] ? names[i] : fallback, i);
		if (rc)
			return rc;
	}
	fputs("<footer>Generated by tracegate " TG_VERSION ". Hover a bar for its exact values; "
	      "click a table's title to fold or unfold it.</footer>\n</main>\n</body>\n</html>\n",
	      f);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}
