/*
 * history_render.h - a branch's performance history (store.h's points) as
 * text, csv, json or one self-contained html page with an inline SVG chart
 * per series. A series is one (workload, metric) pair; its points are in
 * time order.
 */
#ifndef TG_HISTORY_RENDER_H
#define TG_HISTORY_RENDER_H

#include "store.h"

#include <stdio.h>

typedef enum tg_history_format { TG_HISTORY_TEXT = 0, TG_HISTORY_CSV, TG_HISTORY_JSON, TG_HISTORY_HTML } tg_history_format;

/* Parses "text", "csv", "json", "html"; returns 0 or TG_EINVAL. */
int tg_history_format_parse(tg_history_format *out, const char *s);

/* Writes the n points (oldest first, any mix of series) of repo's branch to
 * f in format fmt. Names from the store are escaped for the format (HTML,
 * CSV quoting, JSON). Returns 0, TG_EIO or TG_ENOMEM. */
int tg_history_write(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                     const tg_history_point *p, size_t n);

typedef struct tg_history_opts {
	int changes; /* find the change points of every series (rules/changepoint.h):
	                text lists them under the series, json adds "changes",
	                html marks them on the charts; csv is unchanged */
} tg_history_opts;

/* tg_history_write with options (NULL: none). Series with a value <= 0
 * or fewer than 8 points get no change points. */
int tg_history_write_ex(FILE *f, tg_history_format fmt, const char *repo, const char *branch,
                        const tg_history_point *p, size_t n, const tg_history_opts *opts);

#endif
