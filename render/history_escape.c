/*
 * history_escape.c - what every renderer of a history shares
 * (history_render_impl.h): a run's date as the pages write it, and text
 * escaped for html. Apart from the renderers so that they call it and
 * not each other.
 */
#include "history_render_impl.h"

#include <time.h>

void tg_history_when(char *buf, size_t cap, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, cap, "%Y-%m-%d %H:%M", &tm);
}

void tg_history_html_text(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
}
