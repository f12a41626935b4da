/*
 * history_render.c - text, csv, json and html renderings of a history
 * (history_render.h).
 */
#include "history_render.h"
#include "../../core/diff/measure.h"
#include "../../util/tg.h"
#include "history_changes.h"
#include "history_metric.h"
#include "history_noise.h"

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
 * asked for; the pull requests' runs of the same workload and metric
 * (tg_history_opts.prs), oldest first. */
struct series {
	const char *workload, *metric;
	size_t *idx;
	size_t n;
	tg_history_series_info info; /* unit always set */
	tg_change *ch;
	size_t nch;
	const tg_history_point **pr;
	size_t npr;
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
		free(s[i].pr);
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
			s[k++] = (struct series){p[i].workload, p[i].metric, NULL, 0, {0}, NULL, 0, NULL, 0};
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

/* Gives each pull request's run (prs, n of them) to the series of its
 * workload and metric; one of a series the branch lacks is left out (no
 * reference to compare it with). */
static int attach_prs(struct series *s, size_t ns, const tg_history_point *prs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ns; j++) {
			if (strcmp(s[j].workload, prs[i].workload) || strcmp(s[j].metric, prs[i].metric))
				continue;
			const tg_history_point **np = realloc(s[j].pr, (s[j].npr + 1) * sizeof(*np));
			if (!np)
				return tg_error_set(TG_ENOMEM, "out of memory");
			s[j].pr = np;
			s[j].pr[s[j].npr++] = &prs[i];
			break;
		}
	return 0;
}

/* The comparability fingerprint the daemon stores with each run (as the
 * name of a metric of value 1, "fingerprint:GPU|DRIVER|RUNTIME|WORLD":
 * run_metrics.c) is no performance number: the text and the page say it
 * in words instead of as a series. */
static int is_fingerprint(const struct series *s)
{
	return !strncmp(s->metric, "fingerprint:", 12);
}

/* "NVIDIA H200, driver 580.65.06, CUDA 13.0, world size 1" from a
 * fingerprint metric's name (the runtime as people write it, not 13000). */
static void fingerprint_words(char *buf, size_t cap, const char *metric)
{
	char f[4][128] = {"", "", "", ""}, rt[64];
	const char *p = metric + 12;
	for (int k = 0; k < 4; k++) {
		size_t n = strcspn(p, "|");
		snprintf(f[k], sizeof(f[k]), "%.*s", (int)(n < sizeof(f[k]) ? n : sizeof(f[k]) - 1), p);
		p += n + (p[n] == '|');
	}
	tg_fingerprint_runtime_text(rt, sizeof(rt), f[2][0] ? f[2] : "unknown runtime");
	snprintf(buf, cap, "%s, driver %s, %s, world size %s", f[0][0] ? f[0] : "unknown GPU",
	         f[1][0] ? f[1] : "unknown", rt, f[3][0] ? f[3] : "unknown");
}

/* How many of the ns series are performance numbers (not fingerprints). */
static size_t series_shown(const struct series *s, size_t ns)
{
	size_t n = 0;
	for (size_t i = 0; i < ns; i++)
		n += !is_fingerprint(&s[i]);
	return n;
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

/* The change points already found (found[0..n), on the same points p)
 * given to their series. */
static int given_changes(struct series *s, size_t ns, const tg_history_point *p, const tg_history_change *found,
                         size_t n)
{
	for (size_t c = 0; c < n; c++) {
		size_t i = 0;
		while (i < ns && (strcmp(s[i].workload, found[c].workload) || strcmp(s[i].metric, found[c].metric)))
			i++;
		size_t at = found[c].in_series.at;
		if (i == ns || at >= s[i].n || &p[s[i].idx[at]] != found[c].at)
			return tg_error_set(TG_EINVAL, "history: a change point of other points");
		tg_change *nc = realloc(s[i].ch, (s[i].nch + 1) * sizeof(*nc));
		if (!nc)
			return tg_error_set(TG_ENOMEM, "out of memory");
		s[i].ch = nc;
		s[i].ch[s[i].nch++] = found[c].in_series;
	}
	return 0;
}

/* The change points of every series (history_changes.h: 8 points or
 * more, all positive). */
static int find_changes(struct series *s, size_t ns, const tg_history_point *p)
{
	for (size_t i = 0; i < ns; i++) {
		if (s[i].n < 8)
			continue;
		double *v = tg_calloc(s[i].n, sizeof(double));
		if (!v)
			return TG_ENOMEM;
		for (size_t k = 0; k < s[i].n; k++)
			v[k] = p[s[i].idx[k]].value;
		int rc = tg_history_series_changes(&s[i].ch, &s[i].nch, v, s[i].n, s[i].metric);
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

static int series_reference(const struct series *s, const tg_history_point *p, double *ref, double *band_pct);

static int write_text(FILE *f, const char *repo, const char *branch, const struct series *s, size_t ns,
                      const tg_history_point *p)
{
	fprintf(f, "history of %s on %s: %zu series\n", repo, branch, series_shown(s, ns));
	for (size_t i = 0; i < ns; i++) {
		char fp[512];
		if (is_fingerprint(&s[i])) {
			fingerprint_words(fp, sizeof(fp), s[i].metric);
			fprintf(f, "\n%s  ran on %s (%zu run%s)\n", s[i].workload, fp, s[i].n, s[i].n == 1 ? "" : "s");
			continue;
		}
		const char *u = s[i].info.unit;
		fprintf(f, "\n%s  %s  (%s)\n", s[i].workload, s[i].metric, *u ? u : "no unit");
		for (size_t k = 0; k < s[i].n; k++) {
			const tg_history_point *x = &p[s[i].idx[k]];
			char w[32];
			when(w, sizeof(w), x->run_time);
			double prev = k ? p[s[i].idx[k - 1]].value : NAN;
			if (k && prev != 0 && isfinite(prev))
				fprintf(f, "  %s  %.12s  %14.6g %-5s  %+7.2f %%", w, x->commit, x->value, u,
				        100.0 * (x->value - prev) / fabs(prev));
			else
				fprintf(f, "  %s  %.12s  %14.6g %s", w, x->commit, x->value, u);
			for (size_t c = 0; c < s[i].nch; c++)
				if (s[i].ch[c].at == k)
					fputs("  <- change", f);
			fputc('\n', f);
		}
		if (s[i].npr) {
			/* in percent of the median, as the page draws them */
			double ref = 0, band = 0;
			int rc = series_reference(&s[i], p, &ref, &band);
			if (rc)
				return rc;
			fprintf(f, "  pull requests' runs into %s (against the median, %.6g%s%s):\n", branch, ref, *u ? " " : "",
			        u);
			for (size_t k = 0; k < s[i].npr; k++) {
				const tg_history_point *x = s[i].pr[k];
				char w[32];
				when(w, sizeof(w), x->run_time);
				if (ref != 0)
					fprintf(f, "  %s  %.12s  %14.6g %-5s  %+7.2f %%  pull request %lld, run %lld\n", w, x->commit,
					        x->value, u, 100.0 * (x->value - ref) / fabs(ref), (long long)x->pr,
					        (long long)x->run);
				else
					fprintf(f, "  %s  %.12s  %14.6g %-5s  pull request %lld, run %lld\n", w, x->commit, x->value,
					        u, (long long)x->pr, (long long)x->run);
			}
		}
		for (size_t c = 0; c < s[i].nch; c++) {
			char w[160];
			change_words(w, sizeof(w), &s[i], &s[i].ch[c], p);
			fprintf(f, "  change: %s\n", w);
		}
	}
	return 0;
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
                      const tg_history_point *p, const tg_history_opts *o)
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
		json_t *prs = json_array();
		for (size_t k = 0; k < s[i].npr; k++) {
			const tg_history_point *x = s[i].pr[k];
			json_array_append_new(prs, json_pack("{s:I,s:I,s:I,s:s,s:f}", "pr", (json_int_t)x->pr, "run",
			                                     (json_int_t)x->run, "time", (json_int_t)x->run_time, "commit",
			                                     x->commit, "value", isfinite(x->value) ? x->value : 0.0));
		}
		json_t *se = json_pack("{s:s,s:s,s:s,s:o,s:o}", "workload", s[i].workload, "metric", s[i].metric, "unit",
		                       s[i].info.unit, "points", pts, "pull_requests", prs);
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
	if (o && tg_history_tampered_json(root, o->tampered, o->ntampered)) {
		json_decref(root);
		return TG_ENOMEM;
	}
	int rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF ? TG_EIO : 0;
	json_decref(root);
	return rc ? tg_error_set(TG_EIO, "cannot write the json") : 0;
}

/* ------------------------------------------------------------ the page
 * Each series that moves is drawn as percent change against a reference
 * (its median), so that 1 % of noise looks like 1 % and not like a cliff:
 * the y axis always spans at least -2 %..+2 %, the thresholds of the rule
 * that judges the series and its noise band (two robust standard
 * deviations of the run-to-run differences) are drawn, and each
 * run's tooltip names it (run id, date, commit, value and unit). Flat
 * series (every value the same, zero included) say nothing in a chart:
 * they are folded into one table. */

/* 1 when the series has nothing to chart: one run, or the same value in
 * every run. */
static int series_flat(const struct series *s, const tg_history_point *p)
{
	if (s->n < 2)
		return 1;
	for (size_t k = 1; k < s->n; k++)
		if (p[s->idx[k]].value != p[s->idx[0]].value)
			return 0;
	return 1;
}

/* The series' reference (its median) and noise band in percent of it:
 * two standard deviations of run-to-run noise, estimated from the
 * differences between consecutive runs (1.4826 * their median absolute
 * value / sqrt 2), so that a step (a regression that stays) moves the
 * line, not the band. 0 with fewer than two runs. Returns 0 or TG_ENOMEM. */
static int series_reference(const struct series *s, const tg_history_point *p, double *ref, double *band_pct)
{
	double *v = malloc((s->n ? s->n : 1) * sizeof(double));
	if (!v)
		return tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t k = 0; k < s->n; k++)
		v[k] = p[s->idx[k]].value;
	*ref = tg_history_median(v, s->n);
	for (size_t k = 0; k < s->n; k++)
		v[k] = p[s->idx[k]].value;
	double sigma = 0;
	int rc = tg_history_noise_sigma(&sigma, v, s->n, 0);
	free(v);
	if (rc)
		return rc;
	if (isnan(sigma))
		sigma = 0;
	*band_pct = *ref != 0 ? 100.0 * 2 * sigma / fabs(*ref) : 0;
	return 0;
}

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

/* One threshold line across the plot at percent t, labelled. */
static void svg_threshold(FILE *f, double L, double R, double y, const char *colour, const char *label, double t)
{
	fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
	           "stroke-dasharray=\"6 4\"/>",
	        L, R, y, y, colour);
	fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"%s\">%s %+g %%</text>\n",
	        R - 4, y - 4, colour, label, t);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Where a pull request's run at time t goes on a chart whose runs are at
 * the indices 0..n-1, by time: ts holds the run times of the series
 * sorted, and t falls between the k-th and the (k+1)-th of them, at the
 * fraction of that interval it has gone; before the first at -0.5, after
 * the last at n - 0.5 (the half slot the chart adds on that side, so that
 * a run after the branch's last one reads as after it, not at it). The
 * chart's order is the branch's first-parent order, nearly always the
 * order the runs ran; where it is not, this is the place by rank in time. */
static double pr_index(const int64_t *ts, size_t n, int64_t t)
{
	if (!n || t < ts[0])
		return -0.5;
	if (t > ts[n - 1])
		return (double)n - 0.5;
	if (t == ts[n - 1])
		return (double)(n - 1);
	size_t k = 0;
	while (k + 1 < n && ts[k + 1] <= t)
		k++;
	return (double)k + (double)(t - ts[k]) / (double)(ts[k + 1] - ts[k]);
}

/* A percent chart's geometry and scale: the plot's box inside the SVG,
 * the series' reference (its median) and noise band, whether the values
 * are drawn in percent of the reference (not when it is 0), and the
 * value range the y-axis spans. */
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

/* The y-axis range: every run and pull request run, in percent at least
 * +-2 %, the noise band and the rule's thresholds on its worse side;
 * padded by 8 %. */
static void pc_range(struct pchart *c, const struct series *s, const tg_history_point *p)
{
	double lo = c->pct ? -2 : INFINITY, hi = c->pct ? 2 : -INFINITY;
	for (size_t k = 0; k < s->n + s->npr; k++) {
		double y = pc_y(c, k < s->n ? p[s->idx[k]].value : s->pr[k - s->n]->value);
		lo = fmin(lo, y);
		hi = fmax(hi, y);
	}
	if (c->pct) {
		lo = fmin(lo, -c->band);
		hi = fmax(hi, c->band);
		if (isfinite(s->info.warn_pct))
			c->sign > 0 ? (hi = fmax(hi, s->info.warn_pct)) : (lo = fmin(lo, -s->info.warn_pct));
		if (isfinite(s->info.block_pct))
			c->sign > 0 ? (hi = fmax(hi, s->info.block_pct)) : (lo = fmin(lo, -s->info.block_pct));
	} else if (!(hi > lo)) {
		hi = lo + 1;
	}
	double pad = (hi - lo) * 0.08;
	c->lo = lo - pad;
	c->hi = hi + pad;
}

/* The sentence above the chart: the reference, the band, the rule. */
static void pc_caption(FILE *f, const struct pchart *c, const struct series *s)
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
		if (s->info.rule) {
			fputs(" Thresholds of rule <code>", f);
			html_text(f, s->info.rule);
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
static void pc_frame(FILE *f, const struct pchart *c, const struct series *s)
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
	if (isfinite(s->info.warn_pct))
		svg_threshold(f, L, W - R, pc_pos(c, c->sign * s->info.warn_pct), "#9a6700", "warn",
		              c->sign * s->info.warn_pct);
	if (isfinite(s->info.block_pct))
		svg_threshold(f, L, W - R, pc_pos(c, c->sign * s->info.block_pct), "#cf222e", "block",
		              c->sign * s->info.block_pct);
}

/* The x coordinate of the series' k-th run (a fraction: between runs). */
static double pc_x(const struct pchart *c, const struct series *s, double k)
{
	return c->L + (s->n > 1 ? c->dx * (k + c->lead) : c->PW / 2);
}

/* The branch's runs: the line, the change points (a dashed line between
 * the last run before and the first after), a dot per run with its
 * tooltip, and the commits under the axis (at most about twelve). */
static void pc_runs(FILE *f, const struct pchart *c, const struct series *s, const tg_history_point *p)
{
	fputs("<polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\" points=\"", f);
	for (size_t k = 0; k < s->n; k++)
		fprintf(f, "%.1f,%.1f ", pc_x(c, s, (double)k), pc_pos(c, pc_y(c, p[s->idx[k]].value)));
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
		const tg_history_point *x = &p[s->idx[k]];
		double cx = pc_x(c, s, (double)k), y = pc_y(c, x->value);
		char w[32], val[64];
		when(w, sizeof(w), x->run_time);
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
 * among the series' runs (ts: their run times, sorted), and a legend. */
static void pc_prs(FILE *f, const struct pchart *c, const struct series *s, const int64_t *ts, const char *branch)
{
	for (size_t k = 0; k < s->npr; k++) {
		const tg_history_point *x = s->pr[k];
		double cx = pc_x(c, s, pr_index(ts, s->n, x->run_time));
		double y = pc_y(c, x->value), cy = pc_pos(c, y);
		char w[32], val[64];
		when(w, sizeof(w), x->run_time);
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
	html_text(f, branch);
	fprintf(f, "   <tspan fill=\"#8250df\">&#9670;</tspan> %zu pull request run%s into ", s->npr,
	        s->npr == 1 ? "" : "s");
	html_text(f, branch);
	fputs(", placed by run time</text>\n", f);
}

/* One SVG chart of a series that moves, in percent of its reference, with
 * the pull requests' runs into branch marked apart. */
static int svg_chart_percent(FILE *f, const struct series *s, const tg_history_point *p, const char *branch)
{
	struct pchart c = {.W = 760, .H = 240, .L = 64, .R = 20, .T = 20, .B = 40};
	c.PW = c.W - c.L - c.R;
	c.PH = c.H - c.T - c.B;
	int rc = series_reference(s, p, &c.ref, &c.band);
	if (rc)
		return rc;
	int64_t *ts = malloc((s->n ? s->n : 1) * sizeof(int64_t));
	if (!ts)
		return tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t k = 0; k < s->n; k++)
		ts[k] = p[s->idx[k]].run_time;
	qsort(ts, s->n, sizeof(int64_t), cmp_i64);
	c.unit = s->info.unit;
	c.pct = c.ref != 0; /* a reference of 0 has no percent: then the values themselves */
	c.sign = s->info.higher_is_worse ? 1 : -1;
	/* a half slot on each side that has a pull request's run beyond the
	 * branch's runs */
	double before = 0, after = 0;
	for (size_t k = 0; s->n && k < s->npr; k++) {
		before = s->pr[k]->run_time < ts[0] ? 0.5 : before;
		after = s->pr[k]->run_time > ts[s->n - 1] ? 0.5 : after;
	}
	c.lead = before;
	c.dx = s->n > 1 ? c.PW / ((double)(s->n - 1) + before + after) : 0;
	pc_range(&c, s, p);
	pc_caption(f, &c, s);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n", c.W,
	        c.H);
	pc_frame(f, &c, s);
	pc_runs(f, &c, s, p);
	pc_prs(f, &c, s, ts, branch);
	free(ts);
	fputs("</svg>\n", f);
	return 0;
}

/* What the runs ran on, one line per workload and fingerprint. */
static void html_fingerprints(FILE *f, const struct series *s, size_t ns)
{
	char fp[512];
	for (size_t i = 0; i < ns; i++) {
		if (!is_fingerprint(&s[i]))
			continue;
		fingerprint_words(fp, sizeof(fp), s[i].metric);
		fputs("<p class=\"ref\">", f);
		html_text(f, s[i].workload);
		fputs(" ran on ", f);
		html_text(f, fp);
		fprintf(f, " (%zu run%s)</p>\n", s[i].n, s[i].n == 1 ? "" : "s");
	}
}

/* The flat series, folded into one table. */
static void html_flat(FILE *f, const struct series *s, size_t ns, const tg_history_point *p, size_t nflat)
{
	if (!nflat)
		return;
	fprintf(f, "<details class=\"flat\"><summary>%zu flat series (one run, or the same value in every run; "
	           "not charted)</summary>\n<table><tr><th>workload</th><th>metric</th><th>value</th><th>runs</th></tr>\n",
	        nflat);
	for (size_t i = 0; i < ns; i++) {
		if (!series_flat(&s[i], p) || is_fingerprint(&s[i]))
			continue;
		char val[64];
		value_unit(val, sizeof(val), p[s[i].idx[0]].value, s[i].info.unit);
		fputs("<tr><td>", f);
		html_text(f, s[i].workload);
		fputs("</td><td><code>", f);
		html_text(f, s[i].metric);
		fputs("</code></td><td>", f);
		html_text(f, val);
		fprintf(f, "</td><td>%zu", s[i].n);
		if (s[i].npr)
			fprintf(f, " (and %zu pull request run%s, not shown)", s[i].npr, s[i].npr == 1 ? "" : "s");
		fputs("</td></tr>\n", f);
	}
	fputs("</table></details>\n", f);
}

static int write_html(FILE *f, const char *repo, const char *branch, const struct series *s, size_t ns,
                      const tg_history_point *p, const tg_history_opts *o)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tracegate history: ", f);
	html_text(f, repo);
	fputs(" ", f);
	html_text(f, branch);
	fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;color:#1f2328}h2{font-size:1.05em;margin:2em 0 .3em}"
	      "table{border-collapse:collapse;font-size:.85em}td,th{padding:2px 8px;border-bottom:1px solid #eee;"
	      "text-align:left}code{font-size:.95em}p.ref{margin:.2em 0;font-size:.85em;color:#57606a}"
	      "details.flat{margin:1.5em 0}</style></head><body>\n",
	      f);
	if (o && o->index_href) {
		fputs("<p><a href=\"", f);
		html_text(f, o->index_href);
		fputs("\">&larr; every repository and branch</a></p>\n", f);
	}
	fputs("<h1>History of <code>", f);
	html_text(f, repo);
	fputs("</code> on <code>", f);
	html_text(f, branch);
	size_t nflat = 0;
	for (size_t i = 0; i < ns; i++)
		nflat += series_flat(&s[i], p) && !is_fingerprint(&s[i]);
	fprintf(f,
	        "</code></h1>\n<p>%zu series, %zu of them flat (one run, or one value). Runs in the branch's first-parent order "
	        "when the daemon's mirror of the repository is at hand, else in the order they ran; "
	        "hover a point for its run.</p>\n",
	        series_shown(s, ns), nflat);
	html_fingerprints(f, s, ns);
	html_flat(f, s, ns, p, nflat);
	for (size_t i = 0; i < ns; i++) {
		if (series_flat(&s[i], p) || is_fingerprint(&s[i]))
			continue;
		fputs("<h2>", f);
		html_text(f, s[i].workload);
		fputs(": <code>", f);
		html_text(f, s[i].metric);
		fprintf(f, "</code> (%zu run%s", s[i].n, s[i].n == 1 ? "" : "s");
		if (s[i].npr)
			fprintf(f, ", %zu pull request run%s", s[i].npr, s[i].npr == 1 ? "" : "s");
		fprintf(f, "%s%s)</h2>\n", *s[i].info.unit ? ", " : "", s[i].info.unit);
		int rc = svg_chart_percent(f, &s[i], p, branch);
		if (rc)
			return rc;
	}
	if (o)
		tg_history_tampered_html(f, o->tampered, o->ntampered);
	fputs("<p><small>tracegate " TG_VERSION "</small></p>\n</body></html>\n", f);
	return 0;
}

int tg_history_write(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                     const tg_history_point *p, size_t n)
{
	return tg_history_write_ex(f, fmt, repo, branch, p, n, NULL);
}

int tg_history_write_with(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                          const tg_history_point *p, size_t n, tg_history_info_fn info, void *ctx)
{
	tg_history_opts o = {0, info, ctx, NULL, 0, NULL, 0, NULL, NULL, 0};
	return tg_history_write_ex(f, fmt, repo, branch, p, n, &o);
}

int tg_history_write_ex(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                        const tg_history_point *p, size_t n, const tg_history_opts *opts)
{
	struct series *s = NULL;
	size_t ns = 0;
	int rc = group(&s, &ns, p, n);
	if (!rc && opts && opts->prs)
		rc = attach_prs(s, ns, opts->prs, opts->nprs);
	if (!rc && opts && opts->changes && fmt != TG_HISTORY_CSV)
		rc = opts->found ? given_changes(s, ns, p, opts->found, opts->nfound) : find_changes(s, ns, p);
	if (rc) {
		series_free(s, ns);
		return rc;
	}
	for (size_t i = 0; i < ns; i++) {
		s[i].info = (tg_history_series_info){NULL, NULL, NAN, NAN, 1};
		if (opts && opts->info)
			opts->info(&s[i].info, s[i].workload, s[i].metric, opts->ctx);
		if (!s[i].info.unit)
			s[i].info.unit = tg_history_metric_unit(s[i].metric);
	}
	switch (fmt) {
	case TG_HISTORY_TEXT:
		rc = write_text(f, repo, branch, s, ns, p);
		if (!rc && opts)
			tg_history_tampered_text(f, branch, opts->tampered, opts->ntampered);
		break;
	case TG_HISTORY_CSV: write_csv(f, s, ns, p); break;
	case TG_HISTORY_JSON: rc = write_json(f, repo, branch, s, ns, p, opts); break;
	case TG_HISTORY_HTML: rc = write_html(f, repo, branch, s, ns, p, opts); break;
	}
	series_free(s, ns);
	if (!rc && ferror(f))
		rc = tg_error_set(TG_EIO, "write error");
	return rc;
}
