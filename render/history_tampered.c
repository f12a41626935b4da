/*
 * history_tampered.c - the runs of a branch recorded as tampered (their
 * files no longer match what was judged: store.h, tg_store_tampered), in
 * each rendering of `tracegate history` (history_render.h): a section
 * after the series in text, "tampered" in json, a table on the html page;
 * csv, one table of the series' values, is unchanged. A run's reason is
 * the daemon's message (storage keys, not the host's paths), escaped for
 * the format.
 */
#include "history_render_impl.h"
#include "../util/escape.h"
#include "../util/tg.h"

/* s with control characters as \xNN (a reason quotes a storage key). */
static void text_safe(FILE *f, const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
}

void tg_history_tampered_text(FILE *f, const tg_history_doc *d)
{
	if (!d->ntampered)
		return;
	fprintf(f, "\ntampered runs of %s (their files no longer match what was judged; never a baseline again):\n",
	        d->branch);
	for (size_t i = 0; i < d->ntampered; i++) {
		const tg_history_doc_tampered *t = &d->tampered[i];
		char w[32];
		tg_history_when(w, sizeof(w), t->time);
		fprintf(f, "  %s  %.12s  ", w, t->commit);
		text_safe(f, t->workload);
		fputs(" run ", f);
		text_safe(f, t->run_id);
		fputs(": ", f);
		text_safe(f, t->why);
		fputc('\n', f);
	}
}

int tg_history_tampered_json(json_t *root, const tg_history_doc *d)
{
	if (!d->ntampered)
		return 0;
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < d->ntampered; i++) {
		const tg_history_doc_tampered *t = &d->tampered[i];
		if (json_array_append_new(arr, json_pack("{s:I,s:I,s:s,s:s,s:s,s:s}", "run", (json_int_t)t->run, "time",
		                                         (json_int_t)t->time, "commit", t->commit, "workload", t->workload,
		                                         "run_id", t->run_id, "why", t->why))) {
			json_decref(arr);
			arr = NULL;
		}
	}
	if (!arr || json_object_set_new(root, "tampered", arr))
		return tg_error_set(TG_ENOMEM, "out of memory");
	return 0;
}

void tg_history_tampered_html(FILE *f, const tg_history_doc *d)
{
	if (!d->ntampered)
		return;
	fprintf(f, "<h2>Tampered runs (%zu)</h2>\n<p class=\"ref\">Their files no longer match what was judged: never a "
	           "baseline again.</p>\n<table><tr><th>date</th><th>commit</th><th>workload</th><th>run</th>"
	           "<th>why</th></tr>\n",
	        d->ntampered);
	for (size_t i = 0; i < d->ntampered; i++) {
		const tg_history_doc_tampered *t = &d->tampered[i];
		char w[32];
		tg_history_when(w, sizeof(w), t->time);
		fprintf(f, "<tr><td>%s</td><td><code>%.12s</code></td><td>", w, t->commit);
		tg_html_escape(f, t->workload);
		fputs("</td><td>", f);
		tg_html_escape(f, t->run_id);
		fputs("</td><td>", f);
		tg_html_escape(f, t->why);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}
