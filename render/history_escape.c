/*
 * history_escape.c - what every renderer of a history shares
 * (history_render_impl.h): a run's date as the pages write it (html text
 * is util/escape.h's tg_html_escape). Apart from the renderers so that
 * they call it and not each other.
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
