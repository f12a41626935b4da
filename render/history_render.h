/*
 * history_render.h - a branch's performance history, computed once by the
 * history room (daemon/history/history_page.c: series, their units and
 * rule thresholds, change points, medians, noise bands, where each pull
 * request's run goes on a chart) into the plain document below, written
 * here as text, csv, json or one self-contained html page with an inline
 * SVG chart per series. Nothing here computes: it reads the document and
 * formats (tests/render_pure.sh). The document's strings are borrowed from
 * whoever built it; render/ includes nothing of daemon/.
 */
#ifndef TG_RENDER_HISTORY_RENDER_H
#define TG_RENDER_HISTORY_RENDER_H

#include "../rules/changepoint.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum tg_history_format { TG_HISTORY_TEXT = 0, TG_HISTORY_CSV, TG_HISTORY_JSON, TG_HISTORY_HTML } tg_history_format;

/* One run of a series (the branch's, or a pull request's into it). */
typedef struct tg_history_doc_run {
	int64_t run;        /* run id */
	int64_t time;       /* Unix seconds */
	int64_t pr;         /* its pull request; 0: a run of the branch */
	const char *commit; /* borrowed */
	double value;
} tg_history_doc_run;

/* One series: a (workload, metric) pair, its runs oldest first, and what
 * was computed on them. */
typedef struct tg_history_doc_series {
	const char *workload, *metric; /* borrowed */
	const char *unit;              /* never NULL ("": none); borrowed */
	const char *rule;              /* the rule whose thresholds these are; NULL: none */
	double warn_pct, block_pct;    /* the rule's thresholds, percent; NAN: none */
	int higher_is_worse;           /* 1: thresholds above the reference; 0: below */
	int fingerprint;               /* 1: the comparability fingerprint, not a number */
	char words[512];               /* fingerprint: what the runs ran on, in words */
	int flat;                      /* one run, or the same value in every run */
	double ref;                    /* the reference: the median of the runs' values */
	double band_pct;               /* the noise band's half width, percent of ref (0: none) */
	tg_history_doc_run *runs;      /* the branch's runs, oldest first; owned by the document */
	size_t n;
	tg_history_doc_run *prs;       /* the pull requests' runs of the series, oldest first; owned */
	double *pr_at;                 /* the chart's x of each, in run slots (history_page.c); owned */
	size_t npr;
	double lead, trail;            /* the half slots the chart adds before / after the runs (0 or 0.5) */
	tg_change *ch;                 /* change points (at: index in runs); NULL: none looked for; owned */
	size_t nch;
} tg_history_doc_series;

/* A run recorded as tampered (its files no longer match what was judged). */
typedef struct tg_history_doc_tampered {
	int64_t run, time;
	const char *commit, *workload, *run_id, *why; /* borrowed */
} tg_history_doc_tampered;

/* The page: every series sorted by workload and metric. */
typedef struct tg_history_doc {
	const char *repo, *branch;     /* borrowed */
	const char *index_href;        /* html: a link to the index at the top; NULL: none */
	tg_history_doc_series *s;      /* owned */
	size_t ns;
	size_t nshown;                 /* series that are numbers (not fingerprints) */
	size_t nflat;                  /* of those, the flat ones */
	tg_history_doc_tampered *tampered; /* oldest first; owned */
	size_t ntampered;
} tg_history_doc;

/* Writes d to f in format fmt: text (each value with its unit and change
 * against the one before, the pull requests' runs in percent of the
 * median, the change points, the tampered runs), csv (the branch's runs
 * only), json, or the html page (each series that moves charted as
 * percent change against its median with its noise band and the rule's
 * thresholds, the flat series folded into one table). Names are escaped
 * for the format. Returns 0, TG_EIO or TG_ENOMEM. */
int tg_history_render(FILE *f, tg_history_format fmt, const tg_history_doc *d);

#endif
