/*
 * history_render.c - text, csv, json and html renderings of a history
 * (history_render.h).
 */
#include "history_render.h"
#include "../core/tg.h"
#include "../rules/changepoint.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int tg_history_format_parse(tg_history_format *out, const char *s)
{
	static const char *const names[] = {"text", "csv", "json", "html"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*out = (tg_history_format)i;
			return 0;
		}
	return tg_error_set(TG_EINVAL, "--format: '%s' is not one of text, csv, json, html", s);
}

/* One series: indices of its points, in order; its change points when
 * asked for. */
struct series {
	const char *workload, *metric;
	size_t *idx;
	size_t n;
	tg_change *ch;
	size_t nch;
};

static int cmp_series(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	int c = strcmp(x->workload, y->workload);
	return c ? c : strcmp(x->metric, y->metric);
}

static void series_free(struct series *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].idx);
		free(s[i].ch);
	}
	free(s);
}

/* Groups the points into series sorted by workload and metric. */
static int group(struct series **out, size_t *ns, const tg_history_point *p, size_t n)
{
	struct series *s = NULL;
	size_t k = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < k && (strcmp(s[j].workload, p[i].workload) || strcmp(s[j].metric, p[i].metric)))
			j++;
		if (j == k) {
			if (tg_grow((void **)&s, &cap, k + 1, sizeof(*s))) {
				series_free(s, k);
				return TG_ENOMEM;
			}
			s[k++] = (struct series){p[i].workload, p[i].metric, NULL, 0, NULL, 0};
		}
		size_t *ni = realloc(s[j].idx, (s[j].n + 1) * sizeof(size_t));
		if (!ni) {
			series_free(s, k);
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
		s[j].idx = ni;
		s[j].idx[s[j].n++] = i;
	}
	if (k > 1)
		qsort(s, k, sizeof(*s), cmp_series);
	*out = s;
	*ns = k;
	return 0;
}

static void when(char *buf, size_t cap, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, cap, "%Y-%m-%d %H:%M", &tm);
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
}

/* The change points of every series of 8 points or more, all positive. */
static int find_changes(struct series *s, size_t ns, const tg_history_point *p)
{
	for (size_t i = 0; i < ns; i++) {
		if (s[i].n < 8)
			continue;
		double *v = tg_calloc(s[i].n, sizeof(double));
		if (!v)
			return TG_ENOMEM;
		int ok = 1;
		for (size_t k = 0; k < s[i].n; k++)
			ok &= (v[k] = p[s[i].idx[k]].value) > 0 && isfinite(v[k]);
		/* seeded from the series' name: the same history, the same answer */
		uint64_t seed = 1469598103934665603ull;
		for (const char *c = s[i].metric; *c; c++)
			seed = (seed ^ (uint8_t)*c) * 1099511628211ull;
		tg_changes_opts o = {0, 0, 0, seed};
		int rc = ok ? tg_changes_find(&s[i].ch, &s[i].nch, v, s[i].n, &o) : 0;
		free(v);
		if (rc)
			return rc;
	}
	return 0;
}

/* "+6.1 % since 1a2b3c4, 9 runs ago" of change c of series s. */
static void change_words(char *buf, size_t cap, const struct series *s, const tg_change *c, const tg_history_point *p)
{
	snprintf(buf, cap, "%+.1f %% since %.7s, %zu run%s ago (p %.3g)", c->pct, p[s->idx[c->at]].commit,
	         s->n - c->at, s->n - c->at == 1 ? "" : "s", c->p_value);
}

static void write_text(FILE *f, const char *repo, const char *branch, const struct series *s, size_t ns,
                       const tg_history_point *p)
{
	fprintf(f, "history of %s on %s: %zu series\n", repo, branch, ns);
	for (size_t i = 0; i < ns; i++) {
		fprintf(f, "\n%s  %s\n", s[i].workload, s[i].metric);
		for (size_t k = 0; k < s[i].n; k++) {
			const tg_history_point *x = &p[s[i].idx[k]];
			char w[32];
			when(w, sizeof(w), x->run_time);
			double prev = k ? p[s[i].idx[k - 1]].value : NAN;
			fprintf(f, "  %s  %.12s  %14.6g", w, x->commit, x->value);
			if (k && prev != 0 && isfinite(prev))
				fprintf(f, "  %+7.2f %%", 100.0 * (x->value - prev) / fabs(prev));
			for (size_t c = 0; c < s[i].nch; c++)
				if (s[i].ch[c].at == k)
					fputs("  <- change", f);
			fputc('\n', f);
		}
		for (size_t c = 0; c < s[i].nch; c++) {
			char w[160];
			change_words(w, sizeof(w), &s[i], &s[i].ch[c], p);
			fprintf(f, "  change: %s\n", w);
		}
	}
}

static void write_csv(FILE *f, const struct series *s, size_t ns, const tg_history_point *p)
{
	fputs("workload,metric,run,time,commit,value\n", f);
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s[i].n; k++) {
			const tg_history_point *x = &p[s[i].idx[k]];
			csv_field(f, x->workload);
			fputc(',', f);
			csv_field(f, x->metric);
			fprintf(f, ",%lld,%lld,%s,%.17g\n", (long long)x->run, (long long)x->run_time, x->commit, x->value);
		}
}

static int write_json(FILE *f, const char *repo, const char *branch, const struct series *s, size_t ns,
                      const tg_history_point *p)
{
	json_t *root = json_pack("{s:i,s:s,s:s}", "tracegate_history", 1, "repo", repo, "branch", branch);
	json_t *arr = json_array();
	if (!root || !arr) {
		json_decref(root);
		json_decref(arr);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < ns; i++) {
		json_t *pts = json_array();
		for (size_t k = 0; k < s[i].n; k++) {
			const tg_history_point *x = &p[s[i].idx[k]];
			json_array_append_new(pts, json_pack("{s:I,s:I,s:s,s:f}", "run", (json_int_t)x->run, "time",
			                                     (json_int_t)x->run_time, "commit", x->commit, "value",
			                                     isfinite(x->value) ? x->value : 0.0));
		}
		json_t *se = json_pack("{s:s,s:s,s:o}", "workload", s[i].workload, "metric", s[i].metric, "points", pts);
		if (se && s[i].ch) {
			json_t *ch = json_array();
			for (size_t c = 0; c < s[i].nch; c++) {
				const tg_change *x = &s[i].ch[c];
				const tg_history_point *at = &p[s[i].idx[x->at]];
				json_array_append_new(ch, json_pack("{s:I,s:I,s:s,s:f,s:f,s:f,s:f,s:I}", "index", (json_int_t)x->at,
				                                    "run", (json_int_t)at->run, "commit", at->commit, "before",
				                                    x->before, "after", x->after, "pct", x->pct, "p_value",
				                                    x->p_value, "runs_ago", (json_int_t)(s[i].n - x->at)));
			}
			json_object_set_new(se, "changes", ch);
		}
		json_array_append_new(arr, se);
	}
	json_object_set_new(root, "series", arr);
	int rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF ? TG_EIO : 0;
	json_decref(root);
	return rc ? tg_error_set(TG_EIO, "cannot write the json") : 0;
}

/* One SVG line chart of a series. */
static void svg_chart(FILE *f, const struct series *s, const tg_history_point *p)
{
	const double W = 720, H = 220, L = 70, R = 20, T = 20, B = 40;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t k = 0; k < s->n; k++) {
		lo = fmin(lo, p[s->idx[k]].value);
		hi = fmax(hi, p[s->idx[k]].value);
	}
	if (!(hi > lo)) {
		hi = lo + fabs(lo) * 0.05 + 1;
		lo = lo - fabs(lo) * 0.05;
	}
	double pad = (hi - lo) * 0.1;
	lo -= pad;
	hi += pad;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n", W, H);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n", L, T,
	        W - L - R, H - T - B);
	for (int g = 0; g <= 4; g++) {
		double v = lo + (hi - lo) * g / 4.0, y = H - B - (H - T - B) * g / 4.0;
		fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>", L, W - R, y, y);
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#555\">%.4g</text>\n",
		        L - 6, y + 4, v);
	}
	double step = s->n > 1 ? (W - L - R) / (double)(s->n - 1) : 0;
	fputs("<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\" points=\"", f);
	for (size_t k = 0; k < s->n; k++) {
		double x = L + (s->n > 1 ? step * (double)k : (W - L - R) / 2);
		double y = H - B - (H - T - B) * (p[s->idx[k]].value - lo) / (hi - lo);
		fprintf(f, "%.1f,%.1f ", x, y);
	}
	fputs("\"/>\n", f);
	for (size_t c = 0; c < s->nch; c++) {
		/* a change point: a dashed line between the last run before and the first after */
		double x = L + step * ((double)s->ch[c].at - 0.5);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#d1242f\" stroke-dasharray=\"4 3\">"
		           "<title>change %+.1f %% (p %.3g)</title></line>"
		           "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" fill=\"#d1242f\">%+.1f %%</text>\n",
		        x, x, T, H - B, s->ch[c].pct, s->ch[c].p_value, x + 3, T + 12, s->ch[c].pct);
	}
	size_t every = s->n > 12 ? (s->n + 11) / 12 : 1;
	for (size_t k = 0; k < s->n; k++) {
		const tg_history_point *x = &p[s->idx[k]];
		double cx = L + (s->n > 1 ? step * (double)k : (W - L - R) / 2);
		double cy = H - B - (H - T - B) * (x->value - lo) / (hi - lo);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#1f6feb\"><title>%.12s: %.6g</title></circle>",
		        cx, cy, x->commit, x->value);
		if (k % every == 0 || k + 1 == s->n)
			fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"middle\" fill=\"#555\" "
			           "font-family=\"monospace\">%.7s</text>",
			        cx, H - B + 16, x->commit);
		fputc('\n', f);
	}
	fputs("</svg>\n", f);
}

static void write_html(FILE *f, const char *repo, const char *branch, const struct series *s, size_t ns,
                       const tg_history_point *p)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tracegate history: ", f);
	html_text(f, repo);
	fputs(" ", f);
	html_text(f, branch);
	fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;color:#222}h2{font-size:1.05em;margin-top:2em}"
	      "table{border-collapse:collapse;font-size:.85em}td,th{padding:2px 8px;border-bottom:1px solid #eee}"
	      "code{font-size:.95em}</style></head><body>\n<h1>History of <code>",
	      f);
	html_text(f, repo);
	fputs("</code> on <code>", f);
	html_text(f, branch);
	fprintf(f, "</code></h1>\n<p>%zu series.</p>\n", ns);
	for (size_t i = 0; i < ns; i++) {
		fputs("<h2>", f);
		html_text(f, s[i].workload);
		fputs(": <code>", f);
		html_text(f, s[i].metric);
		fprintf(f, "</code> (%zu runs)</h2>\n", s[i].n);
		svg_chart(f, &s[i], p);
	}
	fputs("<p><small>tracegate " TG_VERSION "</small></p>\n</body></html>\n", f);
}

int tg_history_write(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                     const tg_history_point *p, size_t n)
{
	return tg_history_write_ex(f, fmt, repo, branch, p, n, NULL);
}

int tg_history_write_ex(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                        const tg_history_point *p, size_t n, const tg_history_opts *opts)
{
	struct series *s = NULL;
	size_t ns = 0;
	int rc = group(&s, &ns, p, n);
	if (!rc && opts && opts->changes && fmt != TG_HISTORY_CSV)
		rc = find_changes(s, ns, p);
	if (rc) {
		series_free(s, ns);
		return rc;
	}
	switch (fmt) {
	case TG_HISTORY_TEXT: write_text(f, repo, branch, s, ns, p); break;
	case TG_HISTORY_CSV: write_csv(f, s, ns, p); break;
	case TG_HISTORY_JSON: rc = write_json(f, repo, branch, s, ns, p); break;
	case TG_HISTORY_HTML: write_html(f, repo, branch, s, ns, p); break;
	}
	series_free(s, ns);
	if (!rc && ferror(f))
		rc = tg_error_set(TG_EIO, "write error");
	return rc;
}
