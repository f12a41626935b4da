/*
 * history_tampered.c - the runs of a branch recorded as tampered (their
 * files no longer match what was judged: store.h, tg_store_tampered), in
 * each rendering of `tracegate history` (history_render.h): a section
 * after the series in text, "tampered" in json, a table on the html page;
 * csv, one table of the series' values, is unchanged. A run's reason is
 * the daemon's message (storage keys, not the host's paths), escaped for
 * the format.
 */
#include "history_render.h"
#include "../../util/tg.h"

#include <time.h>

static void when(char *buf, size_t cap, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, cap, "%Y-%m-%d %H:%M", &tm);
}

/* s with control characters as \xNN (a reason quotes a storage key). */
static void text_safe(FILE *f, const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
}

void tg_history_tampered_text(FILE *f, const char *branch, const tg_job *t, size_t n)
{
	if (!n)
		return;
	fprintf(f, "\ntampered runs of %s (their files no longer match what was judged; never a baseline again):\n",
	        branch);
	for (size_t i = 0; i < n; i++) {
		char w[32];
		when(w, sizeof(w), t[i].run_time);
		fprintf(f, "  %s  %.12s  ", w, t[i].commit);
		text_safe(f, t[i].workload);
		fputs(" run ", f);
		text_safe(f, t[i].run_id);
		fputs(": ", f);
		text_safe(f, t[i].tampered);
		fputc('\n', f);
	}
}

int tg_history_tampered_json(json_t *root, const tg_job *t, size_t n)
{
	if (!n)
		return 0;
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < n; i++)
		if (json_array_append_new(arr, json_pack("{s:I,s:I,s:s,s:s,s:s,s:s}", "run", (json_int_t)t[i].id, "time",
		                                         (json_int_t)t[i].run_time, "commit", t[i].commit, "workload",
		                                         t[i].workload, "run_id", t[i].run_id, "why", t[i].tampered))) {
			json_decref(arr);
			arr = NULL;
		}
	if (!arr || json_object_set_new(root, "tampered", arr))
		return tg_error_set(TG_ENOMEM, "out of memory");
	return 0;
}

static void html_text(FILE *f, const char *s)
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

void tg_history_tampered_html(FILE *f, const tg_job *t, size_t n)
{
	if (!n)
		return;
	fprintf(f, "<h2>Tampered runs (%zu)</h2>\n<p class=\"ref\">Their files no longer match what was judged: never a "
	           "baseline again.</p>\n<table><tr><th>date</th><th>commit</th><th>workload</th><th>run</th>"
	           "<th>why</th></tr>\n",
	        n);
	for (size_t i = 0; i < n; i++) {
		char w[32];
		when(w, sizeof(w), t[i].run_time);
		fprintf(f, "<tr><td>%s</td><td><code>%.12s</code></td><td>", w, t[i].commit);
		html_text(f, t[i].workload);
		fputs("</td><td>", f);
		html_text(f, t[i].run_id);
		fputs("</td><td>", f);
		html_text(f, t[i].tampered);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}
