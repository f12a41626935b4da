/*
 * history_render_impl.h - what the history's renderers share
 * (history_render.c, history_html.c, history_tampered.c): dates and
 * escaping, the html page, the tampered runs in each format. Included by
 * the render/history_*.c files only.
 */
#ifndef TG_HISTORY_RENDER_IMPL_H
#define TG_HISTORY_RENDER_IMPL_H

#include "history_render.h"

#include <jansson.h>

/* "2025-01-31 14:05" (UTC) of Unix seconds t into buf (history_escape.c). */
void tg_history_when(char *buf, size_t cap, int64_t t);

/* The html page of d (history_html.c). Returns 0 or TG_ENOMEM. */
int tg_history_html(FILE *f, const tg_history_doc *d);

/* The tampered runs of d in text, into a json document's root, and as an
 * html table (history_tampered.c); nothing when d has none. The json one
 * returns 0 or TG_ENOMEM. */
void tg_history_tampered_text(FILE *f, const tg_history_doc *d);
int tg_history_tampered_json(json_t *root, const tg_history_doc *d);
void tg_history_tampered_html(FILE *f, const tg_history_doc *d);

#endif
