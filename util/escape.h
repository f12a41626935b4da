/*
 * escape.h - text from a trace made safe where the gate writes it for a
 * forge or a browser: Markdown text and inline code, HTML attributes and
 * <pre> blocks, each inert (no mention, reference or autolink).
 */
#ifndef TG_ESCAPE_H
#define TG_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Writes s to f as Markdown text safe in a table cell and in HTML: pipes,
 * backticks, emphasis, link and math characters backslash-escaped, < > &
 * as entities, newlines and tabs as spaces, other controls as \xNN; and
 * inert on a forge: a zero-width space (U+200B) after every '@' (no
 * mention notifies anyone), after '#', '!', '~', '$' and '%' before a
 * letter or digit (no issue, merge-request, label or milestone
 * reference), in "://" and "www." (no autolink). Text only: never
 * inside a code span, where Markdown undoes no escape (tg_md_code). */
void tg_md_escape(FILE *f, const char *s);

/* Writes s as inline code that stays inert: <code>, s as tg_md_escape
 * writes it, </code> (a backtick in s cannot end it early). */
void tg_md_code(FILE *f, const char *s);

/* Writes the name s as inline code (tg_md_code); when it is longer than
 * max bytes, shortened to about max with an ellipsis, inside <span
 * title="..."> holding the whole name (escaped for an HTML attribute, and
 * '|' as &#x7c; so that a table cell stays one cell). */
void tg_md_name(FILE *f, const char *s, size_t max);

/* Writes s for the inside of a double-quoted HTML attribute in Markdown:
 * & < > " ' as entities, '|' as &#x7c; (a table cell stays one cell),
 * control characters as spaces, and the mention, reference and autolink
 * breaks of tg_md_escape. */
void tg_html_attr_escape(FILE *f, const char *s);

/* Writes s for the inside of an HTML <pre> block: < > & as entities and
 * the mention, reference and autolink breaks of tg_md_escape. */
void tg_html_escape_inert(FILE *f, const char *s);

/* Writes s (NULL: nothing) for HTML text or a quoted attribute of a page
 * that is no forge's Markdown (the history pages and their index): < > & " '
 * as entities, every other byte as it is. */
void tg_html_escape(FILE *f, const char *s);

#endif
