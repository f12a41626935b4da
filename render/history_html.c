/*
 * history_html.c - a history document (history_render.h) as one
 * self-contained html page. Each series that moves is drawn as percent
 * change against its reference (its median), so that 1 % of noise looks
 * like 1 % and not like a cliff: the y axis always spans at least
 * -2 %..+2 %, the thresholds of the rule that judges the series and its
 * noise band (two robust standard deviations of one run, from the
 * run-to-run differences: daemon/history/history_noise.h) are drawn, and
 * each run's tooltip names it (run id, date, commit, value and unit). The
 * pull requests' runs into the branch are purple diamonds placed by run
 * time. Flat series (every value the same, zero included) say nothing in a
 * chart: they are folded into one table. Everything drawn was computed by
 * the history room; this file lays it out.
 */
#include "history_render_impl.h"
#include "../util/escape.h"
#include "../util/tg.h"

#include <math.h>

/* A value with its unit, for labels. */
static void value_unit(char *buf, size_t cap, double v, const char *unit)
{
	snprintf(buf, cap, "%.6g%s%s", v, *unit ? " " : "", unit);
}

/* The round step (1, 2, 2.5 or 5 times a power of ten) nearest above raw. */
static double nice_step(double raw)
{
	if (!(raw > 0) || !isfinite(raw))
		return 1;
	double mag = pow(10, floor(log10(raw)));
	static const double m[] = {1, 2, 2.5, 5, 10};
	for (int i = 0; i < 5; i++)
		if (m[i] * mag >= raw * (1 - 1e-12))
			return m[i] * mag;
	return 10 * mag;
}

/* A percent for prose: 0.42, 3.1, 148. */
static void pct_text(char *buf, size_t cap, double v)
{
	snprintf(buf, cap, fabs(v) < 10 ? "%.2g" : "%.0f", v);
}

/* A percent chart's geometry and scale: the plot's box inside the SVG,
 * the series' reference (its median) and noise band (the document's),
 * whether the values are drawn in percent of the reference (not when it
 * is 0), and the value range the y-axis spans. */
struct pchart {
	double W, H, L, R, T, B, PW, PH;
	double ref, band; /* the reference and the band's half width, percent */
	int pct;          /* values in percent of ref (0: as they are) */
	double sign;      /* +1: higher is worse (thresholds above); -1: below */
	double lo, hi;    /* what the y-axis spans */
	double dx;        /* between two runs of the series */
	double lead;      /* the slots before the first run (0.5 with a
	                     pull request's run before it, else 0) */
	const char *unit;
};

/* What a value is drawn as: percent of the reference, or itself. */
static double pc_y(const struct pchart *c, double v)
{
	return c->pct ? 100.0 * (v - c->ref) / fabs(c->ref) : v;
}

/* The SVG y coordinate of a drawn value (pc_y's). */
static double pc_pos(const struct pchart *c, double y)
{
	return c->T + c->PH * (c->hi - y) / (c->hi - c->lo);
}

/* One threshold line across the plot of c at percent t, labelled. */
static void svg_threshold(FILE *f, const struct pchart *c, const char *colour, const char *label, double t)
{
	double L = c->L, R = c->W - c->R, y = pc_pos(c, t);
	fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
	           "stroke-dasharray=\"6 4\"/>",
	        L, R, y, y, colour);
	fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"%s\">%s %+g %%</text>\n",
	        R - 4, y - 4, colour, label, t);
}

/* The y-axis range: every run and pull request run, in percent at least
 * +-2 %, the noise band and the rule's thresholds on its worse side;
 * padded by 8 %. */
static void pc_range(struct pchart *c, const tg_history_doc_series *s)
{
	double lo = c->pct ? -2 : INFINITY, hi = c->pct ? 2 : -INFINITY;
	for (size_t k = 0; k < s->n + s->npr; k++) {
		double y = pc_y(c, k < s->n ? s->runs[k].value : s->prs[k - s->n].value);
		lo = fmin(lo, y);
		hi = fmax(hi, y);
	}
	if (c->pct) {
		lo = fmin(lo, -c->band);
		hi = fmax(hi, c->band);
		if (isfinite(s->warn_pct))
			c->sign > 0 ? (hi = fmax(hi, s->warn_pct)) : (lo = fmin(lo, -s->warn_pct));
		if (isfinite(s->block_pct))
			c->sign > 0 ? (hi = fmax(hi, s->block_pct)) : (lo = fmin(lo, -s->block_pct));
	} else if (!(hi > lo)) {
		hi = lo + 1;
	}
	double pad = (hi - lo) * 0.08;
	c->lo = lo - pad;
	c->hi = hi + pad;
}

/* The sentence above the chart: the reference, the band, the rule. */
static void pc_caption(FILE *f, const struct pchart *c, const tg_history_doc_series *s)
{
	char refs[64];
	value_unit(refs, sizeof(refs), c->ref, c->unit);
	fputs("<p class=\"ref\">", f);
	if (c->pct) {
		char bt[32];
		pct_text(bt, sizeof(bt), c->band);
		fprintf(f, "Change against the reference, the median of the series: %s. ", refs);
		if (c->band > 0)
			fprintf(f, "Noise band (grey): &#177;%s %%.", bt);
		else
			fputs("No noise between runs (no band).", f);
		if (s->rule) {
			fputs(" Thresholds of rule <code>", f);
			tg_html_escape(f, s->rule);
			fputs("</code> dashed.", f);
		}
	} else {
		fputs("The median is 0: values as they are", f);
		if (*c->unit)
			fprintf(f, ", in %s", c->unit);
		fputc('.', f);
	}
	fputs("</p>\n", f);
}

/* The plot's frame, band, grid lines at round values (a step of 1, 2,
 * 2.5 or 5 times a power of ten, about four of them), the zero line and
 * the rule's thresholds. */
static void pc_frame(FILE *f, const struct pchart *c, const tg_history_doc_series *s)
{
	const double L = c->L, W = c->W, R = c->R;
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\" stroke=\"#c8cdd3\"/>\n", L,
	        c->T, c->PW, c->PH);
	if (c->pct && c->band > 0)
		fprintf(f, "<rect class=\"band\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"#d0d7de\" "
		           "fill-opacity=\"0.55\"><title>noise band &#177;%.3g %%</title></rect>\n",
		        L, pc_pos(c, c->band), c->PW, pc_pos(c, -c->band) - pc_pos(c, c->band), c->band);
	double step = nice_step((c->hi - c->lo) / 4);
	for (double v = ceil(c->lo / step) * step; v <= c->hi + step * 1e-9; v += step) {
		double y = pc_pos(c, v);
		if (fabs(v) < step * 1e-9)
			v = 0;
		fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eaeef2\"/>", L, W - R, y, y);
		fprintf(f, c->pct ? "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#424a53\">"
		                    "%+g %%</text>\n"
		                  : "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#424a53\">"
		                    "%g</text>\n",
		        L - 6, y + 4, v);
	}
	if (!c->pct)
		return;
	fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#57606a\"/>\n", L, W - R, pc_pos(c, 0),
	        pc_pos(c, 0));
	if (isfinite(s->warn_pct))
		svg_threshold(f, c, "#9a6700", "warn", c->sign * s->warn_pct);
	if (isfinite(s->block_pct))
		svg_threshold(f, c, "#cf222e", "block", c->sign * s->block_pct);
}

/* The x coordinate of the series' k-th run (a fraction: between runs). */
static double pc_x(const struct pchart *c, const tg_history_doc_series *s, double k)
{
	return c->L + (s->n > 1 ? c->dx * (k + c->lead) : c->PW / 2);
}

/* The branch's runs: the line, the change points (a dashed line between
 * the last run before and the first after), a dot per run with its
 * tooltip, and the commits under the axis (at most about twelve). */
static void pc_runs(FILE *f, const struct pchart *c, const tg_history_doc_series *s)
{
	fputs("<polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\" points=\"", f);
	for (size_t k = 0; k < s->n; k++)
		fprintf(f, "%.1f,%.1f ", pc_x(c, s, (double)k), pc_pos(c, pc_y(c, s->runs[k].value)));
	fputs("\"/>\n", f);
	for (size_t i = 0; i < s->nch; i++) {
		double x = pc_x(c, s, (double)s->ch[i].at - 0.5);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#d1242f\" stroke-dasharray=\"4 3\">"
		           "<title>change %+.1f %% (p %.3g)</title></line>"
		           "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" fill=\"#d1242f\">%+.1f %%</text>\n",
		        x, x, c->T, c->H - c->B, s->ch[i].pct, s->ch[i].p_value, x + 3, c->T + 12, s->ch[i].pct);
	}
	size_t every = s->n > 12 ? (s->n + 11) / 12 : 1;
	for (size_t k = 0; k < s->n; k++) {
		const tg_history_doc_run *x = &s->runs[k];
		double cx = pc_x(c, s, (double)k), y = pc_y(c, x->value);
		char w[32], val[64];
		tg_history_when(w, sizeof(w), x->time);
		value_unit(val, sizeof(val), x->value, c->unit);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#0969da\"><title>run %lld &#183; %s UTC "
		           "&#183; %.12s&#10;%s",
		        cx, pc_pos(c, y), (long long)x->run, w, x->commit, val);
		if (c->pct)
			fprintf(f, " (%+.2f %% against the reference)", y);
		fputs("</title></circle>", f);
		if (k % every == 0 || k + 1 == s->n)
			fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"middle\" fill=\"#424a53\" "
			           "font-family=\"monospace\">%.7s</text>",
			        cx, c->H - c->B + 16, x->commit);
		fputc('\n', f);
	}
}

/* The pull requests' runs: purple diamonds on top, placed by run time
 * among the series' runs (the document's pr_at), and a legend. */
static void pc_prs(FILE *f, const struct pchart *c, const tg_history_doc_series *s, const char *branch)
{
	for (size_t k = 0; k < s->npr; k++) {
		const tg_history_doc_run *x = &s->prs[k];
		double cx = pc_x(c, s, s->pr_at[k]);
		double y = pc_y(c, x->value), cy = pc_pos(c, y);
		char w[32], val[64];
		tg_history_when(w, sizeof(w), x->time);
		value_unit(val, sizeof(val), x->value, c->unit);
		fprintf(f, "<path class=\"pr\" d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\" fill=\"#8250df\" stroke=\"#fff\">"
		           "<title>pull request %lld &#183; run %lld &#183; %s UTC &#183; %.12s&#10;%s",
		        cx, cy - 5, (long long)x->pr, (long long)x->run, w, x->commit, val);
		if (c->pct)
			fprintf(f, " (%+.2f %% against the reference)", y);
		fputs("</title></path>\n", f);
	}
	if (!s->npr)
		return;
	fprintf(f, "<text class=\"legend\" x=\"%.0f\" y=\"%.0f\" font-size=\"11\" fill=\"#424a53\">"
	           "<tspan fill=\"#0969da\">&#9679;</tspan> runs of ",
	        c->L, c->H - 4);
	tg_html_escape(f, branch);
	fprintf(f, "   <tspan fill=\"#8250df\">&#9670;</tspan> %zu pull request run%s into ", s->npr,
	        s->npr == 1 ? "" : "s");
	tg_html_escape(f, branch);
	fputs(", placed by run time</text>\n", f);
}

/* One SVG chart of a series that moves, in percent of its reference, with
 * the pull requests' runs into branch marked apart. */
static void svg_chart_percent(FILE *f, const tg_history_doc_series *s, const char *branch)
{
	struct pchart c = {.W = 760, .H = 240, .L = 64, .R = 20, .T = 20, .B = 40};
	c.PW = c.W - c.L - c.R;
	c.PH = c.H - c.T - c.B;
	c.ref = s->ref;
	c.band = s->band_pct;
	c.unit = s->unit;
	c.pct = c.ref != 0; /* a reference of 0 has no percent: then the values themselves */
	c.sign = s->higher_is_worse ? 1 : -1;
	c.lead = s->lead;
	c.dx = s->n > 1 ? c.PW / ((double)(s->n - 1) + s->lead + s->trail) : 0;
	pc_range(&c, s);
	pc_caption(f, &c, s);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n", c.W,
	        c.H);
	pc_frame(f, &c, s);
	pc_runs(f, &c, s);
	pc_prs(f, &c, s, branch);
	fputs("</svg>\n", f);
}

/* What the runs ran on, one line per workload and fingerprint. */
static void html_fingerprints(FILE *f, const tg_history_doc *d)
{
	for (size_t i = 0; i < d->ns; i++) {
		const tg_history_doc_series *s = &d->s[i];
		if (!s->fingerprint)
			continue;
		fputs("<p class=\"ref\">", f);
		tg_html_escape(f, s->workload);
		fputs(" ran on ", f);
		tg_html_escape(f, s->words);
		fprintf(f, " (%zu run%s)</p>\n", s->n, s->n == 1 ? "" : "s");
	}
}

/* The flat series, folded into one table. */
static void html_flat(FILE *f, const tg_history_doc *d)
{
	if (!d->nflat)
		return;
	fprintf(f, "<details class=\"flat\"><summary>%zu flat series (one run, or the same value in every run; "
	           "not charted)</summary>\n<table><tr><th>workload</th><th>metric</th><th>value</th><th>runs</th></tr>\n",
	        d->nflat);
	for (size_t i = 0; i < d->ns; i++) {
		const tg_history_doc_series *s = &d->s[i];
		if (!s->flat || s->fingerprint)
			continue;
		char val[64];
		value_unit(val, sizeof(val), s->runs[0].value, s->unit);
		fputs("<tr><td>", f);
		tg_html_escape(f, s->workload);
		fputs("</td><td><code>", f);
		tg_html_escape(f, s->metric);
		fputs("</code></td><td>", f);
		tg_html_escape(f, val);
		fprintf(f, "</td><td>%zu", s->n);
		if (s->npr)
			fprintf(f, " (and %zu pull request run%s, not shown)", s->npr, s->npr == 1 ? "" : "s");
		fputs("</td></tr>\n", f);
	}
	fputs("</table></details>\n", f);
}

/* The page's head: the title, the style, the link to the index, the
 * heading and the sentence under it. */
static void html_head(FILE *f, const tg_history_doc *d)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tracegate history: ", f);
	tg_html_escape(f, d->repo);
	fputs(" ", f);
	tg_html_escape(f, d->branch);
	fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;color:#1f2328}h2{font-size:1.05em;margin:2em 0 .3em}"
	      "table{border-collapse:collapse;font-size:.85em}td,th{padding:2px 8px;border-bottom:1px solid #eee;"
	      "text-align:left}code{font-size:.95em}p.ref{margin:.2em 0;font-size:.85em;color:#57606a}"
	      "details.flat{margin:1.5em 0}</style></head><body>\n",
	      f);
	if (d->index_href) {
		fputs("<p><a href=\"", f);
		tg_html_escape(f, d->index_href);
		fputs("\">&larr; every repository and branch</a></p>\n", f);
	}
	fputs("<h1>History of <code>", f);
	tg_html_escape(f, d->repo);
	fputs("</code> on <code>", f);
	tg_html_escape(f, d->branch);
	fprintf(f,
	        "</code></h1>\n<p>%zu series, %zu of them flat (one run, or one value). Runs in the branch's first-parent order "
	        "when the daemon's mirror of the repository is at hand, else in the order they ran; "
	        "hover a point for its run.</p>\n",
	        d->nshown, d->nflat);
}

int tg_history_html(FILE *f, const tg_history_doc *d)
{
	html_head(f, d);
	html_fingerprints(f, d);
	html_flat(f, d);
	for (size_t i = 0; i < d->ns; i++) {
		const tg_history_doc_series *s = &d->s[i];
		if (s->flat || s->fingerprint)
			continue;
		fputs("<h2>", f);
		tg_html_escape(f, s->workload);
		fputs(": <code>", f);
		tg_html_escape(f, s->metric);
		fprintf(f, "</code> (%zu run%s", s->n, s->n == 1 ? "" : "s");
		if (s->npr)
			fprintf(f, ", %zu pull request run%s", s->npr, s->npr == 1 ? "" : "s");
		fprintf(f, "%s%s)</h2>\n", *s->unit ? ", " : "", s->unit);
		svg_chart_percent(f, s, d->branch);
	}
	tg_history_tampered_html(f, d);
	fputs("<p><small>tracegate " TG_VERSION "</small></p>\n</body></html>\n", f);
	return 0;
}
