/*
 * critical_path_render.h - the critical path (critical_path.h) as text,
 * JSON (schema tracegate.critical_path/1, docs/critical-path.md) and one
 * self-contained HTML page. Names from the trace are escaped for each
 * format. Each writer returns 0, or TG_EIO when the stream failed.
 */
#ifndef TG_CRITICAL_PATH_RENDER_H
#define TG_CRITICAL_PATH_RENDER_H

#include "../core/analysis/critical_path.h"

#include <stdio.h>

/* The summary for a terminal: window, settings, length, the breakdown by
 * bound_by, the top ops on the path (at most top), the graph's size. file
 * names the trace; o the settings used (NULL: defaults). */
int tg_cp_write_text(FILE *f, const tg_critical_path *cp, const char *file, const tg_cp_opts *o, size_t top);

/* The same as one JSON document, with every edge of the path. */
int tg_cp_write_json(FILE *f, const tg_critical_path *cp, const char *file, const tg_cp_opts *o, size_t top);

/* One HTML page: the breakdown as a bar and a table, the path on a
 * timeline (a lane per thread and stream, edges coloured by bound), the
 * top ops; no script, no external resource. */
int tg_cp_write_html(FILE *f, const tg_critical_path *cp, const char *file, const tg_cp_opts *o, size_t top);

#endif
