/*
 * findings_render.c - findings as text, Markdown, JSON and a table
 * (findings.h), for the report and for the diff. Computes nothing: every
 * number is the finding's. Markdown goes through tg_md_escape and
 * tg_md_code (table.h), so that names stay inert on a forge.
 */
#include "../core/analysis/findings.h"
#include "../util/escape.h"
#include "../util/fmt_double.h"
#include "../util/fstr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void wrap(FILE *out, const char *s, size_t width, size_t ind, size_t col)
{
	while (*s) {
		size_t room = width > col + 20 ? width - col : 20, n = strlen(s);
		if (n <= room) {
			fputs(s, out);
			break;
		}
		size_t cut = room;
		while (cut > 0 && s[cut] != ' ')
			cut--;
		if (!cut)
			cut = room;
		fwrite(s, 1, cut, out);
		fprintf(out, "\n%*s", (int)ind, "");
		col = ind;
		s += cut;
		while (*s == ' ')
			s++;
	}
	putc('\n', out);
}

/* "  ok: idle-gap (0.4 %), ..." for the findings of status s. */
static void names_line(FILE *f, const tg_findings *fs, tg_finding_status s, const char *label, size_t width)
{
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	char line[2048] = "";
	for (size_t i = 0; i < n; i++) {
		if (v[i].status != s)
			continue;
		tg_fstr_add(line, sizeof(line), "%s%s", line[0] ? ", " : "", tg_finding_name(v[i].id));
		if (s == TG_FINDING_NOT_EVALUATED)
			tg_fstr_add(line, sizeof(line), " (%s)", v[i].evidence);
		else if (!isnan(v[i].cost_pct))
			tg_fstr_add(line, sizeof(line), " (%.1f %%)", v[i].cost_pct);
	}
	if (!line[0])
		return;
	fprintf(f, "  %s: ", label);
	wrap(f, line, width, 6, strlen(label) + 4);
}

int tg_findings_write_text(FILE *f, const tg_findings *fs, size_t width)
{
	if (!width)
		width = 100;
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	double step;
	size_t ns = tg_findings_steps(fs, &step);
	char st[32];
	tg_fstr_time(st, sizeof(st), step);
	fprintf(f, "Findings: %zu fired, %zu not evaluated, %zu ok (over %zu step%s of %s)\n",
	        tg_findings_count(fs, TG_FINDING_FIRED), tg_findings_count(fs, TG_FINDING_NOT_EVALUATED),
	        tg_findings_count(fs, TG_FINDING_OK), ns, ns == 1 ? "" : "s", st);
	for (size_t i = 0; i < n; i++) {
		if (v[i].status != TG_FINDING_FIRED)
			continue;
		char cost[96], line[1024];
		tg_finding_cost_words(cost, sizeof(cost), &v[i]);
		/* wrapped like the lines under it: a long subject keeps the
		 * terminal report within its width (issue 23) */
		snprintf(line, sizeof(line), "%s%s%s: costs %s", tg_finding_name(v[i].id), v[i].subject[0] ? " " : "",
		         v[i].subject, cost);
		fputs("  ", f);
		wrap(f, line, width, 6, 2);
		snprintf(line, sizeof(line), "%s", v[i].evidence);
		fputs("      ", f);
		wrap(f, line, width, 6, 6);
		if (v[i].basis[0]) {
			snprintf(line, sizeof(line), "cost: %s", v[i].basis);
			fputs("      ", f);
			wrap(f, line, width, 6, 6);
		}
		snprintf(line, sizeof(line), "fix: %s", tg_finding_fix(v[i].id));
		fputs("      ", f);
		wrap(f, line, width, 6, 6);
	}
	names_line(f, fs, TG_FINDING_NOT_EVALUATED, "not evaluated", width);
	names_line(f, fs, TG_FINDING_OK, "ok", width);
	putc('\n', f);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

/* ------------------------------------------------------------ md */

int tg_findings_write_md(FILE *f, const tg_findings *fs)
{
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	size_t fired = tg_findings_count(fs, TG_FINDING_FIRED);
	fputs("### Findings\n\n", f);
	if (fired) {
		fputs("| finding | where | cost a step | evidence | fix |\n|---|---|---|---|---|\n", f);
		for (size_t i = 0; i < n; i++) {
			if (v[i].status != TG_FINDING_FIRED)
				continue;
			char cost[96];
			tg_finding_cost_words(cost, sizeof(cost), &v[i]);
			fprintf(f, "| **%s** | ", tg_finding_name(v[i].id));
			if (v[i].subject[0])
				tg_md_code(f, v[i].subject);
			fputs(" | ", f);
			tg_md_escape(f, cost);
			fputs(" | ", f);
			tg_md_escape(f, v[i].evidence);
			fputs(" | ", f);
			tg_md_escape(f, tg_finding_fix(v[i].id));
			fputs(" |\n", f);
		}
		putc('\n', f);
	} else {
		fputs("No finding fired.\n\n", f);
	}
	for (int pass = 0; pass < 2; pass++) {
		tg_finding_status s = pass ? TG_FINDING_OK : TG_FINDING_NOT_EVALUATED;
		int any = 0;
		for (size_t i = 0; i < n; i++) {
			if (v[i].status != s)
				continue;
			fputs(any ? "; " : pass ? "Ok: " : "Not evaluated: ", f);
			any = 1;
			fprintf(f, "**%s**", tg_finding_name(v[i].id));
			if (s == TG_FINDING_NOT_EVALUATED) {
				fputs(" (", f);
				tg_md_escape(f, v[i].evidence);
				putc(')', f);
			} else if (!isnan(v[i].cost_pct)) {
				fprintf(f, " (%.1f %%)", v[i].cost_pct);
			}
		}
		if (any)
			fputs(".\n\n", f);
	}
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

/* ------------------------------------------------------------ json */

static void json_str(FILE *f, const char *s)
{
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f || *p == '<' || *p == '>' || *p == '&')
			fprintf(f, "\\u%04x", *p);
		else
			putc(*p, f);
	}
	putc('"', f);
}

static void json_num(FILE *f, double v)
{
	char b[32];
	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	tg_format_double(b, v);
	fputs(b, f);
}

/* One finding as a JSON object. */
static void json_finding(FILE *f, const tg_finding *x)
{
	int ev = x->status != TG_FINDING_NOT_EVALUATED;
	fputs("{\"id\":", f);
	json_str(f, tg_finding_name(x->id));
	fputs(",\"status\":", f);
	json_str(f, tg_finding_status_name(x->status));
	fputs(",\"subject\":", f);
	json_str(f, x->subject);
	fputs(",\"key\":", f);
	json_str(f, x->key);
	fputs(",\"rank\":", f);
	if (x->rank >= 0)
		fprintf(f, "%lld", (long long)x->rank);
	else
		fputs("null", f);
	fputs(",\"count_per_step\":", f);
	json_num(f, ev ? x->count : NAN);
	fputs(",\"cost_per_step_us\":", f);
	json_num(f, ev ? x->cost_ns / 1e3 : NAN);
	fputs(",\"cost_pct\":", f);
	json_num(f, ev ? x->cost_pct : NAN);
	fputs(",\"step_us\":", f);
	json_num(f, x->step_ns / 1e3);
	fputs(",\"threshold_pct\":", f);
	json_num(f, x->threshold);
	fputs(",\"start_us\":", f);
	json_num(f, x->end_ns > x->start_ns ? (double)x->start_ns / 1e3 : NAN);
	fputs(",\"end_us\":", f);
	json_num(f, x->end_ns > x->start_ns ? (double)x->end_ns / 1e3 : NAN);
	fputs(",\"evidence\":", f);
	json_str(f, x->evidence);
	fputs(",\"basis\":", f);
	json_str(f, x->basis);
	fputs(",\"fix\":", f);
	json_str(f, tg_finding_fix(x->id));
	putc('}', f);
}

int tg_findings_write_json(FILE *f, const tg_findings *fs)
{
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	putc('[', f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_finding(f, &v[i]);
	}
	putc(']', f);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

/* ------------------------------------------------------------ the diff */

/* The names of the findings with change c, "launch-bound, idle-gap". */
static void change_names(char *buf, size_t cap, const tg_finding_delta *d, size_t n, tg_finding_change c, size_t *k)
{
	buf[0] = 0;
	*k = 0;
	for (size_t i = 0; i < n; i++)
		if (d[i].change == c) {
			const tg_finding *f = d[i].next ? d[i].next : d[i].base;
			tg_fstr_add(buf, cap, "%s%s", *k ? ", " : "", tg_finding_name(f->id));
			++*k;
		}
}

int tg_findings_compare_write_text(FILE *f, const tg_finding_delta *d, size_t n)
{
	size_t shown = 0;
	for (size_t i = 0; i < n; i++)
		shown += d[i].change == TG_FINDING_NEW || d[i].change == TG_FINDING_WORSE ||
		         d[i].change == TG_FINDING_GONE;
	fputs(shown ? "Findings:\n"
	      : n   ? "Findings: none new, worse or gone\n"
	            : "Findings: none fires on either side\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		if (d[i].change != TG_FINDING_NEW && d[i].change != TG_FINDING_WORSE && d[i].change != TG_FINDING_GONE)
			continue;
		char s[1024];
		tg_finding_delta_sentence(s, sizeof(s), &d[i]);
		fputs("  ", f);
		wrap(f, s, 100, 4, 2);
	}
	for (int c = TG_FINDING_BETTER; c <= TG_FINDING_SAME; c++) {
		char names[512];
		size_t k;
		change_names(names, sizeof(names), d, n, (tg_finding_change)c, &k);
		if (k)
			fprintf(f, "  %s on both sides: %s\n", c == TG_FINDING_BETTER ? "better" : "the same", names);
	}
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

int tg_findings_compare_write_md(FILE *f, const tg_finding_delta *d, size_t n)
{
	fputs("#### Findings\n\n", f);
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i].change != TG_FINDING_NEW && d[i].change != TG_FINDING_WORSE && d[i].change != TG_FINDING_GONE)
			continue;
		const tg_finding *x = d[i].next ? d[i].next : d[i].base;
		char cost[96], was[96];
		tg_finding_cost_words(cost, sizeof(cost), x);
		fprintf(f, "- **%s**: %s", tg_finding_change_name(d[i].change), tg_finding_title(x->id));
		if (x->subject[0]) {
			fputs(x->id == TG_FINDING_STRAGGLER ? ": " : " in ", f);
			tg_md_code(f, x->subject);
		}
		if (tg_finding_counted(x->id) && x->count > 0)
			fprintf(f, " (%.3g a step)", x->count);
		if (d[i].change == TG_FINDING_GONE) {
			fputs(", which cost ", f);
			tg_md_escape(f, cost);
		} else {
			fputs(" costs ", f);
			tg_md_escape(f, cost);
		}
		if (d[i].change == TG_FINDING_WORSE) {
			tg_finding_cost_words(was, sizeof(was), d[i].base);
			fputs(", was ", f);
			tg_md_escape(f, was);
		}
		if (d[i].note && d[i].note[0])
			fprintf(f, " (%s)", d[i].note);
		if (d[i].change != TG_FINDING_GONE) {
			fputs("; fix: ", f);
			tg_md_escape(f, tg_finding_fix(x->id));
			fputs("<br>\n  <sub>", f);
			tg_md_escape(f, x->evidence);
			fputs("</sub>", f);
		}
		fputc('\n', f);
		shown++;
	}
	if (!shown)
		fputs(n ? "No finding is new, worse or gone.\n" : "No finding fires on either side.\n", f);
	for (int c = TG_FINDING_BETTER; c <= TG_FINDING_SAME; c++) {
		char names[512];
		size_t k;
		change_names(names, sizeof(names), d, n, (tg_finding_change)c, &k);
		if (k)
			fprintf(f, "\n%s on both sides: %s.\n", c == TG_FINDING_BETTER ? "Better" : "The same", names);
	}
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}

int tg_findings_compare_write_json(FILE *f, const tg_finding_delta *d, size_t n)
{
	putc('[', f);
	for (size_t i = 0; i < n; i++) {
		const tg_finding *x = d[i].next ? d[i].next : d[i].base;
		fputs(i ? ",\n{\"change\":" : "\n{\"change\":", f);
		json_str(f, tg_finding_change_name(d[i].change));
		fputs(",\"id\":", f);
		json_str(f, tg_finding_name(x->id));
		fputs(",\"subject\":", f);
		json_str(f, x->subject);
		fputs(",\"note\":", f);
		json_str(f, d[i].note ? d[i].note : "");
		fputs(",\"fix\":", f);
		json_str(f, tg_finding_fix(x->id));
		fputs(",\"base\":", f);
		if (d[i].base)
			json_finding(f, d[i].base);
		else
			fputs("null", f);
		fputs(",\"new\":", f);
		if (d[i].next)
			json_finding(f, d[i].next);
		else
			fputs("null", f);
		putc('}', f);
	}
	putc(']', f);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}
