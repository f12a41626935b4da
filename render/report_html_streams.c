/*
 * report_html_streams.c - the GPU timeline per stream as inline SVG
 * (report_html_streams.h).
 *
 * One bin of the stream timeline is one slice of a row; a run of slices of
 * the same kind and busy level is one rect, so a stream busy for long
 * stretches costs a few elements and a busy-idle pattern at most one per
 * bin (400). The level is the bin's busy share rounded up to a quarter, so
 * that a stream busy 10 % of a slice still shows, paler. The colour is the
 * kind the bin spent most of its busy time on. Hovering a row tells its
 * stream, busy share and events (one tooltip a row, to keep the page small).
 */
#include "report_html_streams.h"

#include <math.h>

#define LABEL_W 130 /* px left of the plot, for "GPU 0 · stream 7" */
#define RIGHT_W 64  /* px right of the plot, for the busy share */
#define ROW_H 22
#define BAR_H 14
#define PAD 6

/* Okabe & Ito's colour-blind safe palette, as the other charts. */
static const char *const fill[TG_STREAM_KINDS] = {"#0072B2", "#D55E00", "#E69F00"};
static const char *const label[TG_STREAM_KINDS] = {"Computation", "Communication", "Memcpy"};

/* Bin i of row r: the kind it was busiest with, and its busy level in
 * quarters (0: idle, 4: busy all of the bin). */
static int level_of(const tg_stream_row *r, size_t i, double bin_ns, int *kind)
{
	double busy = 0, best = 0;
	*kind = 0;
	for (int k = 0; k < TG_STREAM_KINDS; k++) {
		busy += r->bins[i][k];
		if (r->bins[i][k] > best) {
			best = r->bins[i][k];
			*kind = k;
		}
	}
	if (!(busy > 0) || !(bin_ns > 0))
		return 0;
	double share = busy / bin_ns;
	int q = (int)ceil(share * 4 - 1e-9);
	return q < 1 ? 1 : q > 4 ? 4 : q;
}

/* One stream's row at y: its label, the idle background, the busy runs and
 * the busy share on the right. */
static void put_row(FILE *f, const tg_stream_row *r, const tg_stream_timeline *s, double y, double plot_w)
{
	double share = s->span_ns > 0 ? 100 * r->busy_ns / s->span_ns : 0;
	if (share > 100)
		share = 100; /* events of one stream that overlap */
	fprintf(f, "<g><title>GPU %lld, stream %lld: busy %.1f %% of %.3f ms, %llu events</title>",
	        (long long)r->device, (long long)r->stream, share, s->span_ns / 1e6, (unsigned long long)r->events);
	fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">GPU %lld \xc2\xb7 stream %lld</text>",
	        LABEL_W - 8, y + ROW_H / 2.0 + 4, (long long)r->device, (long long)r->stream);
	fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#eaeef2\"/>\n", LABEL_W,
	        y + (ROW_H - BAR_H) / 2.0, plot_w, BAR_H);
	double px = plot_w / TG_STREAM_BINS;
	for (size_t i = 0; i < TG_STREAM_BINS;) {
		int kind, lv = level_of(r, i, s->bin_ns, &kind), k2;
		size_t j = i + 1;
		while (j < TG_STREAM_BINS && level_of(r, j, s->bin_ns, &k2) == lv && (!lv || k2 == kind))
			j++;
		if (lv)
			fprintf(f,
			        "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" fill-opacity=\"%.2f\"/>",
			        LABEL_W + px * (double)i, y + (ROW_H - BAR_H) / 2.0, px * (double)(j - i), BAR_H,
			        fill[kind], lv / 4.0);
		i = j;
	}
	fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%.1f %%</text></g>\n", LABEL_W + plot_w + 8,
	        y + ROW_H / 2.0 + 4, share);
}

/* A step between ticks of about span/6: 1, 2 or 5 times a power of ten. */
static double tick_step(double span)
{
	double raw = span / 6, p = pow(10, floor(log10(raw))), m = raw / p;
	return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

/* The time axis under the rows, in ms from the first event. */
static void put_axis(FILE *f, double y, double plot_w, double span_ms)
{
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#8c959f\"/>\n", LABEL_W, y,
	        LABEL_W + plot_w, y);
	if (!(span_ms > 0))
		return;
	double step = tick_step(span_ms);
	for (double t = 0; t <= span_ms * (1 + 1e-9); t += step) {
		double x = LABEL_W + plot_w * t / span_ms;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#8c959f\"/>", x, y, x,
		        y + 4);
		fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x, y + 16,
		        t);
	}
	fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">ms</text>\n", LABEL_W + plot_w + 8, y + 16);
}

/* The legend: the three kinds, and what a paler colour means. */
static void put_legend(FILE *f, double y)
{
	double x = LABEL_W;
	for (int k = 0; k < TG_STREAM_KINDS; k++) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" rx=\"2\" fill=\"%s\"/>", x, y,
		        fill[k]);
		fprintf(f, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 18, y + 10, label[k]);
		x += 140;
	}
	fprintf(f,
	        "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">paler: busy part of the time a pixel covers; "
	        "grey: idle</text>\n",
	        x, y + 10);
}

void tg_report_html_streams(FILE *f, const tg_stream_timeline *s, double width)
{
	if (!s || !s->nrows)
		return;
	size_t n = s->nrows < TG_HTML_STREAMS_MAX ? s->nrows : TG_HTML_STREAMS_MAX;
	double plot_w = width - LABEL_W - RIGHT_W, rows_h = PAD + ROW_H * (double)n;
	double height = rows_h + 26 + 24 + PAD;
	fprintf(f,
	        "<svg class=\"chart\" role=\"img\" aria-label=\"GPU timeline per stream\" width=\"%.0f\" "
	        "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
	        width, height, width, height);
	for (size_t i = 0; i < n; i++)
		put_row(f, &s->rows[i], s, PAD + ROW_H * (double)i, plot_w);
	put_axis(f, rows_h + 4, plot_w, s->span_ns / 1e6);
	put_legend(f, rows_h + 30);
	fputs("</svg>\n", f);
	if (s->nrows > n)
		fprintf(f,
		        "<p class=\"sub\">%zu more streams are not drawn (the first %d by device and stream are).</p>\n",
		        s->nrows - n, TG_HTML_STREAMS_MAX);
}
