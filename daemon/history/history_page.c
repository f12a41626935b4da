/*
 * history_page.c - a branch's history computed once into the document that
 * render/history_render.h writes (text, csv, json, html): the points
 * grouped into series sorted by workload and metric, the pull requests'
 * runs given to their series, the change points (found here or given),
 * what the caller knows of each series (unit, rule, thresholds), each
 * series' reference (its median) and noise band (history_noise.h), where
 * each pull request's run goes among the branch's runs, the fingerprints
 * in words, the tampered runs; then tg_history_write_ex renders it
 * (history_render.h).
 */
#include "history_page.h"
#include "../../core/diff/measure.h"
#include "../../util/tg.h"
#include "history_changes.h"
#include "history_metric.h"
#include "history_noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
 * two standard deviations of one run (history_noise.h), so that a step (a
 * regression that stays) moves the line, not the band. 0 with fewer than
 * two runs. Returns 0 or TG_ENOMEM. */
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

/* The chart's places of the pull requests' runs of s (d->pr_at) and the
 * half slots it adds on each side that has one beyond the branch's runs
 * (d->lead, d->trail). Returns 0 or TG_ENOMEM. */
static int pr_places(tg_history_doc_series *d, const struct series *s, const tg_history_point *p)
{
	int64_t *ts = malloc((s->n ? s->n : 1) * sizeof(int64_t));
	d->pr_at = malloc((s->npr ? s->npr : 1) * sizeof(double));
	if (!ts || !d->pr_at) {
		free(ts);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < s->n; k++)
		ts[k] = p[s->idx[k]].run_time;
	qsort(ts, s->n, sizeof(int64_t), cmp_i64);
	for (size_t k = 0; k < s->npr; k++) {
		d->pr_at[k] = pr_index(ts, s->n, s->pr[k]->run_time);
		if (s->n) {
			d->lead = s->pr[k]->run_time < ts[0] ? 0.5 : d->lead;
			d->trail = s->pr[k]->run_time > ts[s->n - 1] ? 0.5 : d->trail;
		}
	}
	free(ts);
	return 0;
}

/* A run as the document has it (its strings borrowed from x). */
static tg_history_doc_run doc_run(const tg_history_point *x)
{
	return (tg_history_doc_run){x->run, x->run_time, x->pr, x->commit, x->value};
}

/* Series s of the points p as the document's d (its change points moved
 * from s to d). Returns 0 or TG_ENOMEM. */
static int doc_series(tg_history_doc_series *d, struct series *s, const tg_history_point *p)
{
	*d = (tg_history_doc_series){.workload = s->workload, .metric = s->metric, .unit = s->info.unit,
	                             .rule = s->info.rule, .warn_pct = s->info.warn_pct, .block_pct = s->info.block_pct,
	                             .higher_is_worse = s->info.higher_is_worse, .n = s->n, .npr = s->npr,
	                             .ch = s->ch, .nch = s->nch};
	s->ch = NULL;
	s->nch = 0;
	d->fingerprint = is_fingerprint(s);
	if (d->fingerprint)
		fingerprint_words(d->words, sizeof(d->words), s->metric);
	d->flat = series_flat(s, p);
	d->runs = malloc((s->n ? s->n : 1) * sizeof(*d->runs));
	d->prs = malloc((s->npr ? s->npr : 1) * sizeof(*d->prs));
	if (!d->runs || !d->prs)
		return tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t k = 0; k < s->n; k++)
		d->runs[k] = doc_run(&p[s->idx[k]]);
	for (size_t k = 0; k < s->npr; k++)
		d->prs[k] = doc_run(s->pr[k]);
	int rc = series_reference(s, p, &d->ref, &d->band_pct);
	return rc ? rc : pr_places(d, s, p);
}

/* The tampered runs t[0..n) as the document's (strings borrowed). */
static int doc_tampered(tg_history_doc *d, const tg_job *t, size_t n)
{
	if (!n)
		return 0;
	d->tampered = malloc(n * sizeof(*d->tampered));
	if (!d->tampered)
		return tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		d->tampered[i] = (tg_history_doc_tampered){t[i].id,       t[i].run_time, t[i].commit,
		                                           t[i].workload, t[i].run_id,   t[i].tampered};
	d->ntampered = n;
	return 0;
}

/* The series of p with what o asks for: pull requests' runs, change
 * points (changes: look for them), each series' info. */
static int series_build(struct series **out, size_t *ns, const tg_history_point *p, size_t n,
                        const tg_history_opts *o, int changes)
{
	int rc = group(out, ns, p, n);
	struct series *s = *out;
	if (!rc && o && o->prs)
		rc = attach_prs(s, *ns, o->prs, o->nprs);
	if (!rc && changes)
		rc = o->found ? given_changes(s, *ns, p, o->found, o->nfound) : find_changes(s, *ns, p);
	if (rc)
		return rc;
	for (size_t i = 0; i < *ns; i++) {
		s[i].info = (tg_history_series_info){NULL, NULL, NAN, NAN, 1};
		if (o && o->info)
			o->info(&s[i].info, s[i].workload, s[i].metric, o->ctx);
		if (!s[i].info.unit)
			s[i].info.unit = tg_history_metric_unit(s[i].metric);
	}
	return 0;
}

int tg_history_page_build(tg_history_doc *out, const tg_history_key *key, const tg_history_point *p, size_t n,
                          const tg_history_opts *opts, int changes)
{
	*out = (tg_history_doc){.repo = key->repo, .branch = key->branch, .index_href = opts ? opts->index_href : NULL};
	struct series *s = NULL;
	size_t ns = 0;
	int rc = series_build(&s, &ns, p, n, opts, changes && opts && opts->changes);
	if (!rc && ns && !(out->s = calloc(ns, sizeof(*out->s))))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < ns; i++) {
		out->ns = i + 1;
		rc = doc_series(&out->s[i], &s[i], p);
		out->nshown += !out->s[i].fingerprint;
		out->nflat += out->s[i].flat && !out->s[i].fingerprint;
	}
	if (!rc && opts)
		rc = doc_tampered(out, opts->tampered, opts->ntampered);
	series_free(s, ns);
	if (rc)
		tg_history_page_free(out);
	return rc;
}

void tg_history_page_free(tg_history_doc *d)
{
	for (size_t i = 0; d->s && i < d->ns; i++) {
		free(d->s[i].runs);
		free(d->s[i].prs);
		free(d->s[i].pr_at);
		free(d->s[i].ch);
	}
	free(d->s);
	free(d->tampered);
	*d = (tg_history_doc){0};
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
	tg_history_doc d;
	const tg_history_key key = {.repo = repo, .branch = branch};
	int rc = tg_history_page_build(&d, &key, p, n, opts, fmt != TG_HISTORY_CSV);
	if (rc)
		return rc;
	rc = tg_history_render(f, fmt, &d);
	tg_history_page_free(&d);
	return rc;
}
