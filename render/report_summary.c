/*
 * report_summary.c - the one-screen summary at the top of the text report
 * (report_summary.h), as text: what core/analysis/summary.c gathered from
 * the report, laid out within the terminal's width.
 *
 * Findings (issue 22) are the report's own (tg_report.findings): the
 * summary lists the fired ones that cost the most a step, one line each
 * with their fix; the findings section after it has their evidence.
 */
#include "report_summary.h"
#include "table_fit.h"
#include "../util/tg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ text */

/* An op's categories as the table writes them, "['GEMM']", as "GEMM". */
static void plain_categories(char *out, size_t cap, const char *s)
{
	size_t o = 0;
	for (; s && *s && o + 1 < cap; s++)
		if (!strchr("[]'", *s))
			out[o++] = *s;
	out[o] = 0;
}

static void put_steps(FILE *f, const tg_report_summary *s)
{
	if (!s->nsteps) {
		fputs("  steps      none marked (no ProfilerStep# in the trace)\n", f);
		return;
	}
	if (s->nsteps == 1) {
		fprintf(f, "  step       ProfilerStep#%lld: %.3f ms\n", (long long)s->first_step, s->step_mean_ms);
		return;
	}
	fprintf(f, "  steps      %zu (ProfilerStep#%lld to #%lld): %.3f ms mean, %.3f min, %.3f max\n", s->nsteps,
	        (long long)s->first_step, (long long)s->last_step, s->step_mean_ms, s->step_min_ms, s->step_max_ms);
}

static void put_gpu_time(FILE *f, const tg_report_summary *s)
{
	if (!s->has_timeline || !(s->total_ms > 0)) {
		fputs("  GPU time   no kernels, memcpys or memsets with a launch\n", f);
		return;
	}
	fprintf(f,
	        "  GPU time   %.3f ms from the first kernel to the last: busy %.3f ms (%.1f %%), idle %.3f ms (%.1f %%)\n",
	        s->total_ms, s->busy_ms, s->busy_pct, s->idle_ms, s->idle_pct);
	fprintf(f, "  busy       computation %.3f ms, exposed communication %.3f ms, exposed memcpy %.3f ms\n",
	        s->computation_ms, s->exposed_comm_ms, s->exposed_memcpy_ms);
}

/* A top list: name (elided to fit), for ops their category and calls,
 * then the kernel time and its share. */
static void put_top(FILE *f, const char *title, const tg_summary_item *it, size_t n, int ops, size_t width)
{
	if (!n)
		return;
	/* the names as wide as the widest, within what the line leaves them */
	size_t namew = 4, room = width > 70 ? width - (ops ? 64 : 30) : 20;
	for (size_t i = 0; i < n; i++)
		if (tg_text_width(it[i].name) > namew)
			namew = tg_text_width(it[i].name);
	if (namew > room)
		namew = room;
	char name[1024], cat[256];
	fprintf(f, "\n  %s\n", title);
	for (size_t i = 0; i < n; i++) {
		tg_text_elide(name, sizeof(name), it[i].name, namew);
		fprintf(f, "    %s%*s", name, (int)(namew - tg_text_width(name)), "");
		if (ops) {
			char c[256];
			plain_categories(c, sizeof(c), it[i].category);
			tg_text_elide(cat, sizeof(cat), c, 18);
			fprintf(f, "  %s%*s", cat, (int)(18 - tg_text_width(cat)), "");
			if (it[i].calls >= 0)
				fprintf(f, "  %8lld call%s", (long long)it[i].calls, it[i].calls == 1 ? " " : "s");
			else
				fprintf(f, "  %14s", "");
		}
		fprintf(f, "  %10.3f ms  %5.1f %%\n", it[i].ms, isnan(it[i].pct) ? 0.0 : it[i].pct);
	}
}

/* A time in ns as people read it: ms, us or ns. */
static void time_words(char *buf, size_t cap, double ns)
{
	if (ns >= 1e6)
		snprintf(buf, cap, "%.3f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, cap, "%.1f us", ns / 1e3);
	else
		snprintf(buf, cap, "%.0f ns", ns);
}

/* s cut to width code points, "…" at the end when cut (a sentence reads
 * from its start). */
static void cut_end(char *out, size_t cap, const char *s, size_t width)
{
	if (tg_text_width(s) <= width || width < 2) {
		snprintf(out, cap, "%s", s);
		return;
	}
	size_t i = 0, w = 0;
	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80 && w++ == width - 1)
			break;
	snprintf(out, cap, "%.*s\xe2\x80\xa6", (int)i, s);
}

/* The costliest fired findings, one line each: what, where, its cost a
 * step and its fix, cut to the line (the findings section below has
 * their evidence and the whole fix). */
static void put_findings(FILE *f, const tg_report_summary *s, size_t width)
{
	char line[2048], cut[2048], cost[96], t[32];
	fprintf(f, "\n  Top findings (%zu fired; evidence below, docs/findings.md)\n", s->nfired);
	for (size_t i = 0; i < s->nfindings; i++) {
		const tg_finding *x = s->findings[i];
		time_words(t, sizeof(t), x->cost_ns);
		if (isnan(x->cost_ns))
			snprintf(cost, sizeof(cost), "cost not estimated");
		else if (isnan(x->cost_pct))
			snprintf(cost, sizeof(cost), "%s a step", t);
		else
			snprintf(cost, sizeof(cost), "%s a step (%.1f %%)", t, x->cost_pct);
		snprintf(line, sizeof(line), "%s%s%s: %s; fix: %s", tg_finding_name(x->id), x->subject[0] ? " " : "",
		         x->subject, cost, tg_finding_fix(x->id));
		cut_end(cut, sizeof(cut), line, width > 4 ? width - 4 : width);
		fprintf(f, "    %s\n", cut);
	}
	if (s->nfired > s->nfindings)
		fprintf(f, "    (%zu more below)\n", s->nfired - s->nfindings);
}

int tg_report_summary_write_text(FILE *f, const tg_report_summary *s, size_t width)
{
	fputs("Summary\n", f);
	if (s->gpu[0] || s->ndevices)
		fprintf(f, "  GPU        %s%s%zu device%s\n", s->gpu[0] ? s->gpu : "", s->gpu[0] ? ", " : "",
		        s->ndevices, s->ndevices == 1 ? "" : "s");
	put_steps(f, s);
	put_gpu_time(f, s);
	put_top(f, "Top op categories (kernel time)", s->categories, s->ncategories, 0, width);
	put_top(f, "Top ops (kernel time of the kernels each launched)", s->ops, s->nops, 1, width);
	if (s->nfindings)
		put_findings(f, s, width);
	putc('\n', f);
	return ferror(f) ? tg_error_set(TG_EIO, "write error") : 0;
}
