/*
 * history_render.c - a history document (history_render.h) as text, csv
 * or json, and the dispatch to the html page (history_html.c).
 */
#include "history_render_impl.h"
#include "../util/tg.h"

#include <math.h>
#include <string.h>

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

/* The branch's runs of s, each with its change against the one before and
 * its change point marks. */
static void text_runs(FILE *f, const tg_history_doc_series *s)
{
	const char *u = s->unit;
	for (size_t k = 0; k < s->n; k++) {
		const tg_history_doc_run *x = &s->runs[k];
		char w[32];
		tg_history_when(w, sizeof(w), x->time);
		double prev = k ? s->runs[k - 1].value : NAN;
		if (k && prev != 0 && isfinite(prev))
			fprintf(f, "  %s  %.12s  %14.6g %-5s  %+7.2f %%", w, x->commit, x->value, u,
			        100.0 * (x->value - prev) / fabs(prev));
		else
			fprintf(f, "  %s  %.12s  %14.6g %s", w, x->commit, x->value, u);
		for (size_t c = 0; c < s->nch; c++)
			if (s->ch[c].at == k)
				fputs("  <- change", f);
		fputc('\n', f);
	}
}

/* The pull requests' runs of s, in percent of its median as the page
 * draws them. */
static void text_prs(FILE *f, const tg_history_doc_series *s, const char *branch)
{
	const char *u = s->unit;
	double ref = s->ref;
	fprintf(f, "  pull requests' runs into %s (against the median, %.6g%s%s):\n", branch, ref, *u ? " " : "", u);
	for (size_t k = 0; k < s->npr; k++) {
		const tg_history_doc_run *x = &s->prs[k];
		char w[32];
		tg_history_when(w, sizeof(w), x->time);
		if (ref != 0)
			fprintf(f, "  %s  %.12s  %14.6g %-5s  %+7.2f %%  pull request %lld, run %lld\n", w, x->commit, x->value,
			        u, 100.0 * (x->value - ref) / fabs(ref), (long long)x->pr, (long long)x->run);
		else
			fprintf(f, "  %s  %.12s  %14.6g %-5s  pull request %lld, run %lld\n", w, x->commit, x->value, u,
			        (long long)x->pr, (long long)x->run);
	}
}

static void write_text(FILE *f, const tg_history_doc *d)
{
	fprintf(f, "history of %s on %s: %zu series\n", d->repo, d->branch, d->nshown);
	for (size_t i = 0; i < d->ns; i++) {
		const tg_history_doc_series *s = &d->s[i];
		if (s->fingerprint) {
			fprintf(f, "\n%s  ran on %s (%zu run%s)\n", s->workload, s->words, s->n, s->n == 1 ? "" : "s");
			continue;
		}
		fprintf(f, "\n%s  %s  (%s)\n", s->workload, s->metric, *s->unit ? s->unit : "no unit");
		text_runs(f, s);
		if (s->npr)
			text_prs(f, s, d->branch);
		for (size_t c = 0; c < s->nch; c++) {
			const tg_change *x = &s->ch[c];
			fprintf(f, "  change: %+.1f %% since %.7s, %zu run%s ago (p %.3g)\n", x->pct, s->runs[x->at].commit,
			        s->n - x->at, s->n - x->at == 1 ? "" : "s", x->p_value);
		}
	}
	tg_history_tampered_text(f, d);
}

static void write_csv(FILE *f, const tg_history_doc *d)
{
	fputs("workload,metric,run,time,commit,value\n", f);
	for (size_t i = 0; i < d->ns; i++)
		for (size_t k = 0; k < d->s[i].n; k++) {
			const tg_history_doc_run *x = &d->s[i].runs[k];
			csv_field(f, d->s[i].workload);
			fputc(',', f);
			csv_field(f, d->s[i].metric);
			fprintf(f, ",%lld,%lld,%s,%.17g\n", (long long)x->run, (long long)x->time, x->commit, x->value);
		}
}

/* The json object of series s: its runs, pull requests' runs and, when
 * looked for, change points. */
static json_t *json_series(const tg_history_doc_series *s)
{
	json_t *pts = json_array();
	for (size_t k = 0; k < s->n; k++) {
		const tg_history_doc_run *x = &s->runs[k];
		json_array_append_new(pts, json_pack("{s:I,s:I,s:s,s:f}", "run", (json_int_t)x->run, "time",
		                                     (json_int_t)x->time, "commit", x->commit, "value",
		                                     isfinite(x->value) ? x->value : 0.0));
	}
	json_t *prs = json_array();
	for (size_t k = 0; k < s->npr; k++) {
		const tg_history_doc_run *x = &s->prs[k];
		json_array_append_new(prs, json_pack("{s:I,s:I,s:I,s:s,s:f}", "pr", (json_int_t)x->pr, "run",
		                                     (json_int_t)x->run, "time", (json_int_t)x->time, "commit", x->commit,
		                                     "value", isfinite(x->value) ? x->value : 0.0));
	}
	json_t *se = json_pack("{s:s,s:s,s:s,s:o,s:o}", "workload", s->workload, "metric", s->metric, "unit", s->unit,
	                       "points", pts, "pull_requests", prs);
	if (se && s->ch) {
		json_t *ch = json_array();
		for (size_t c = 0; c < s->nch; c++) {
			const tg_change *x = &s->ch[c];
			const tg_history_doc_run *at = &s->runs[x->at];
			json_array_append_new(ch, json_pack("{s:I,s:I,s:s,s:f,s:f,s:f,s:f,s:I}", "index", (json_int_t)x->at,
			                                    "run", (json_int_t)at->run, "commit", at->commit, "before", x->before,
			                                    "after", x->after, "pct", x->pct, "p_value", x->p_value, "runs_ago",
			                                    (json_int_t)(s->n - x->at)));
		}
		json_object_set_new(se, "changes", ch);
	}
	return se;
}

static int write_json(FILE *f, const tg_history_doc *d)
{
	json_t *root = json_pack("{s:i,s:s,s:s}", "tracegate_history", 1, "repo", d->repo, "branch", d->branch);
	json_t *arr = json_array();
	if (!root || !arr) {
		json_decref(root);
		json_decref(arr);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < d->ns; i++)
		json_array_append_new(arr, json_series(&d->s[i]));
	json_object_set_new(root, "series", arr);
	if (tg_history_tampered_json(root, d)) {
		json_decref(root);
		return TG_ENOMEM;
	}
	int rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF ? TG_EIO : 0;
	json_decref(root);
	return rc ? tg_error_set(TG_EIO, "cannot write the json") : 0;
}

int tg_history_render(FILE *f, tg_history_format fmt, const tg_history_doc *d)
{
	int rc = 0;
	switch (fmt) {
	case TG_HISTORY_TEXT: write_text(f, d); break;
	case TG_HISTORY_CSV: write_csv(f, d); break;
	case TG_HISTORY_JSON: rc = write_json(f, d); break;
	case TG_HISTORY_HTML: rc = tg_history_html(f, d); break;
	}
	if (!rc && ferror(f))
		rc = tg_error_set(TG_EIO, "write error");
	return rc;
}
