/*
 * history_index.c - page file names and the index page of the published
 * history (history_index.h).
 */
#include "history_index.h"
#include "../../util/atoms.h"
#include "../../util/escape.h"
#include "../../util/tg.h"
#include "../../util/sha256.h"
#include "../../util/util.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void tg_history_page_file(char buf[TG_HISTORY_PAGE_FILE_MAX], const char *branch)
{
	static const char hex[] = "0123456789ABCDEF";
	/* room for the cut name, "~~", 16 hex digits and ".html" */
	enum { KEEP = TG_HISTORY_PAGE_FILE_MAX - 1 - 5 - 18 };
	char name[3 * 256 + 1];
	size_t k = 0;
	const unsigned char *s = (const unsigned char *)branch;
	for (size_t i = 0; s[i] && k + 4 < sizeof(name); i++) {
		int plain = (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		            (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || (s[i] == '.' && i > 0);
		if (plain) {
			name[k++] = (char)s[i];
		} else {
			name[k++] = '~';
			name[k++] = hex[s[i] >> 4];
			name[k++] = hex[s[i] & 15];
		}
	}
	name[k] = 0;
	size_t whole = strlen(branch);
	if (k + 5 < TG_HISTORY_PAGE_FILE_MAX && 3 * whole < sizeof(name) - 4) {
		if (!k) /* the empty name */
			name[k++] = '~';
		memcpy(buf, name, k);
		memcpy(buf + k, ".html", 6);
		return;
	}
	/* too long: cut (never inside a ~XX) and made unique by the name's
	 * hash; "~~" never appears in a name that was not cut */
	size_t cut = KEEP;
	while (cut > 0 && (name[cut - 1] == '~' || (cut > 1 && name[cut - 2] == '~')))
		cut--;
	uint8_t dig[TG_SHA256_LEN];
	char h[TG_SHA256_HEX_LEN + 1];
	if (tg_sha256(dig, branch, whole)) /* libcrypto out of memory: a hash that cannot fail */
		snprintf(h, sizeof(h), "%016llx", (unsigned long long)tg_hash_bytes(branch, whole));
	else
		tg_sha256_hex(h, dig);
	snprintf(buf, TG_HISTORY_PAGE_FILE_MAX, "%.*s~~%.16s.html", (int)cut, name, h);
}

static void when(char *buf, size_t cap, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (t <= 0 || !gmtime_r(&tt, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, cap, "?");
}

/* The verdict's cell: a coloured word. */
static void verdict_cell(FILE *f, const char *v)
{
	static const char *const colours[][2] = {{"pass", "#1a7f37"},
	                                         {"warn", "#9a6700"},
	                                         {"block", "#cf222e"},
	                                         {"inconclusive", "#57606a"},
	                                         {"error", "#82071e"}};
	const char *c = "#57606a";
	for (size_t i = 0; v && i < sizeof(colours) / sizeof(colours[0]); i++)
		if (!strcmp(v, colours[i][0]))
			c = colours[i][1];
	fprintf(f, "<td><span class=\"v\" style=\"background:%s\">", c);
	tg_html_escape(f, v ? v : "none");
	fputs("</span></td>", f);
}

static void row(FILE *f, const tg_history_index_row *r)
{
	char file[TG_HISTORY_PAGE_FILE_MAX], t[64];
	tg_history_page_file(file, r->branch);
	fputs("<tr><td><a href=\"", f);
	tg_html_escape(f, r->repo);
	fputc('/', f);
	tg_html_escape(f, file);
	fputs("\"><code>", f);
	tg_html_escape(f, r->branch);
	fputs("</code></a></td><td>", f);
	tg_html_escape(f, r->workload);
	fprintf(f, "</td><td class=\"n\">%lld</td><td><code>%.7s</code>", (long long)r->runs,
	        r->commit && tg_util_is_hex(r->commit, 40) ? r->commit : "?");
	if (r->pr > 0)
		fprintf(f, " (pull request %lld)", (long long)r->pr);
	when(t, sizeof(t), r->run_time);
	fprintf(f, "<br><small>%s</small></td>", t);
	verdict_cell(f, r->verdict);
	fputs("<td>", f);
	if (!r->nchanges)
		fputs("none", f);
	else {
		fprintf(f, "%zu, the ", r->nchanges);
		tg_html_escape(f, r->change ? r->change : "");
	}
	fputs("</td></tr>\n", f);
}

int tg_history_index_write(FILE *f, const tg_history_index_row *rows, size_t n, int64_t generated)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tracegate: performance "
	      "history</title>\n<style>body{font-family:sans-serif;margin:2em;color:#1f2328}h2{font-size:1.1em;"
	      "margin:2em 0 .4em}table{border-collapse:collapse;font-size:.9em}td,th{padding:4px 10px;border-bottom:"
	      "1px solid #eee;text-align:left;vertical-align:top}td.n{text-align:right}small{color:#57606a}"
	      "span.v{color:#fff;border-radius:1em;padding:1px 8px;font-size:.85em}</style></head><body>\n"
	      "<h1>Performance history</h1>\n<p>Every repository's branches and workloads with their last run. "
	      "A branch's page charts each of its numbers run by run, with the change points and the pull "
	      "requests' runs into it.</p>\n",
	      f);
	if (!n)
		fputs("<p>No run has been judged yet.</p>\n", f);
	for (size_t i = 0; i < n; i++) {
		if (!i || strcmp(rows[i].repo, rows[i - 1].repo)) {
			if (i)
				fputs("</table>\n", f);
			fputs("<h2><code>", f);
			tg_html_escape(f, rows[i].repo);
			fputs("</code></h2>\n<table><tr><th>branch</th><th>workload</th><th>runs</th><th>last run</th>"
			      "<th>verdict</th><th>change points</th></tr>\n",
			      f);
		}
		row(f, &rows[i]);
	}
	if (n)
		fputs("</table>\n", f);
	char t[64];
	when(t, sizeof(t), generated);
	fprintf(f, "<p><small>written %s by tracegate " TG_VERSION "</small></p>\n</body></html>\n", t);
	return ferror(f) ? tg_error_set(TG_EIO, "cannot write the index") : 0;
}
