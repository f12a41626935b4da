/*
 * history_render.h - a branch's performance history (store.h's points) as
 * text, csv, json or one self-contained html page with an inline SVG chart
 * per series. A series is one (workload, metric) pair; its points are in
 * time order. Computed once here (history_page.c, into the document of
 * render/history_render.h) and written by render/ (compute once, render
 * apart).
 */
#ifndef TG_HISTORY_RENDER_H
#define TG_HISTORY_RENDER_H

#include "../../render/history_render.h"
#include "../store/store.h"

#include <stdio.h>

/* Parses "text", "csv", "json", "html"; returns 0 or TG_EINVAL. */
int tg_history_format_parse(tg_history_format *out, const char *s);

/* Writes the n points (oldest first, any mix of series) of repo's branch to
 * f in format fmt. Names from the store are escaped for the format (HTML,
 * CSV quoting, JSON). Returns 0, TG_EIO or TG_ENOMEM. */
int tg_history_write(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                     const tg_history_point *p, size_t n);

/* What the caller knows of a series beyond its points: its unit and the
 * thresholds of the rule that judges it. */
typedef struct tg_history_series_info {
	const char *unit;     /* NULL: from the metric's name (history_metric.h) */
	const char *rule;     /* the rule whose thresholds these are; NULL: none */
	double warn_pct;      /* percent; NAN: none */
	double block_pct;     /* percent; NAN: none */
	int higher_is_worse;  /* 1 for times, counts, bytes; 0 for rates */
} tg_history_series_info;

/* Fills *out (preset to: unit NULL, no rule, NAN thresholds, higher is
 * worse) for the series (workload, metric); ctx is the caller's. */
typedef void (*tg_history_info_fn)(tg_history_series_info *out, const char *workload, const char *metric,
                                   void *ctx);

/* tg_history_write with what info says of each series (info may be NULL).
 * The text names each value's unit; the html page charts each series that
 * moves as percent change against its median (the reference), with the
 * series' noise band (two robust standard deviations of its run-to-run
 * differences) and the rule's
 * thresholds drawn, a tooltip per run (run id, date, commit, value with
 * its unit), and folds the flat series (every value the same, zero
 * included) into one table. */
int tg_history_write_with(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                          const tg_history_point *p, size_t n, tg_history_info_fn info, void *ctx);

typedef struct tg_history_opts {
	int changes; /* find the change points of every series (rules/changepoint.h):
	                text lists them under the series, json adds "changes",
	                html marks them on the charts; csv is unchanged */
	tg_history_info_fn info; /* what the caller knows of each series (may be NULL) */
	void *ctx;               /* info's */
	/* the pull requests' runs into the branch (tg_store_history_prs),
	 * oldest first; NULL: none. Each joins the series of its (workload,
	 * metric), if the branch has it: the html charts mark it apart from
	 * the branch's runs, placed by run time among them (before the
	 * first or after the last: in a half slot the chart adds on that
	 * side), in percent of
	 * the same reference, with its pull request, commit, run id and date
	 * in its tooltip, and a legend; text lists them under the series;
	 * json adds "pull_requests" to each series; csv is unchanged (the
	 * branch's rows only). Borrowed. */
	const tg_history_point *prs;
	size_t nprs;
	/* the branch's runs recorded as tampered (tg_store_tampered), oldest
	 * first; NULL: none. Text lists them after the series, json adds
	 * "tampered": [{"run", "time", "commit", "workload", "run_id", "why"}],
	 * html a table; csv is unchanged (history_tampered.c). Borrowed. */
	const tg_job *tampered;
	size_t ntampered;
	/* html: a link to the index of the published history at the top of
	 * the page ("../../index.html"); NULL: none. Borrowed. */
	const char *index_href;
	/* with changes: the change points already found on the same points
	 * (tg_history_changes_find, history_changes.h), used instead of
	 * finding them again; NULL: found here. Borrowed. */
	const struct tg_history_change *found;
	size_t nfound;
} tg_history_opts;

/* tg_history_write with options (NULL: none). Series with a value <= 0
 * or fewer than 8 points get no change points. */
int tg_history_write_ex(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                        const tg_history_point *p, size_t n, const tg_history_opts *opts);

#endif
