/*
 * critical_path_html.c - the critical path as one self-contained HTML page
 * (critical_path_render.h: tg_cp_write_html): a bar of the breakdown, the
 * breakdown table, the path drawn on a timeline (one lane per thread and
 * per GPU stream the path runs through; consecutive edges of one lane and
 * one bound merged into one bar, at most MAX_BARS bars so that the page of
 * a long trace stays small) and the ops the path spends its time in. No
 * script and no external resource; names escaped for HTML. Colours are
 * Okabe & Ito's colour-blind safe palette, as in report_html.c.
 */
#include "../util/escape.h"
#include "critical_path_render.h"
#include "../core/analysis/table.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BARS 20000
#define MAX_LANES 64
#define WIDTH 1000.0
#define LANE_H 18
#define LEFT 190

static const char *const fills[TG_CP_NBOUND] = {"#0072B2", "#CC79A7", "#009E73", "#D55E00",
                                                "#E69F00", "#F0E442", "#C4C4C4"};

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

static const char css[] =
	"body{font-family:system-ui,sans-serif;margin:24px;color:#1f2328}\n"
	"h1{font-size:20px}h2{font-size:16px;margin-top:28px}\n"
	".sub{color:#59636e}\n"
	"table{border-collapse:collapse;font-size:13px}\n"
	"th,td{padding:3px 10px;border-bottom:1px solid #eaeef2;text-align:left}\n"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	".sw{display:inline-block;width:10px;height:10px;margin-right:6px}\n"
	"svg text{font-size:11px;fill:#1f2328}\n";

/* The lane of the time of a path edge: its event's, else the event it
 * leads to (a launch delay is drawn on the kernel's stream). */
static uint32_t edge_event(const tg_cp_step *s)
{
	return s->event != TG_NONE ? s->event : s->to;
}

struct lanes {
	uint32_t track[MAX_LANES];
	size_t n;
};

static int lane_of(struct lanes *l, uint32_t track)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->track[i] == track)
			return (int)i;
	if (l->n == MAX_LANES)
		return -1;
	l->track[l->n] = track;
	return (int)l->n++;
}

static void lane_label(FILE *f, const tg_trace *t, uint32_t track, int gpu)
{
	size_t n;
	const tg_track *tr = &tg_trace_tracks(t, &n)[track];
	if (gpu)
		fprintf(f, "GPU %lld stream %lld", (long long)tr->pid, (long long)tr->tid);
	else if (tr->tid_str != TG_NONE)
		tg_html_escape_inert(f, tg_trace_str(t, tr->tid_str));
	else
		fprintf(f, "thread %lld", (long long)tr->tid);
}

static void timeline(FILE *f, const tg_critical_path *cp)
{
	const tg_trace *t = tg_critical_path_trace(cp);
	size_t ns, ne;
	const tg_cp_step *st = tg_cp_steps(cp, &ns);
	const tg_event *ev = tg_trace_events(t, &ne);
	if (!ns) {
		fputs("<p class=\"sub\">The path has no edges.</p>\n", f);
		return;
	}
	struct lanes l = {{0}, 0};
	uint8_t gpu[MAX_LANES] = {0};
	for (size_t i = 0; i < ns; i++) {
		const tg_event *e = &ev[edge_event(&st[i])];
		int k = lane_of(&l, e->track);
		if (k >= 0)
			gpu[k] = tg_kind_is_gpu(e->kind) || e->kind == TG_KIND_SYNC;
	}
	int64_t t0 = st[0].ts, t1 = st[ns - 1].ts + (st[ns - 1].ns > 0 ? st[ns - 1].ns : 0);
	double span = t1 > t0 ? (double)(t1 - t0) : 1;
	fprintf(f, "<svg width=\"%d\" height=\"%zu\" role=\"img\" aria-label=\"the critical path on a timeline\">\n",
	        LEFT + (int)WIDTH + 10, l.n * LANE_H + 24);
	for (size_t k = 0; k < l.n; k++) {
		fprintf(f, "<text x=\"4\" y=\"%zu\">", k * LANE_H + 13);
		lane_label(f, t, l.track[k], gpu[k]);
		fputs("</text>\n", f);
	}
	size_t bars = 0;
	for (size_t i = 0; i < ns && bars < MAX_BARS;) {
		int k = lane_of(&l, ev[edge_event(&st[i])].track);
		size_t j = i + 1;
		int64_t end = st[i].ts + (st[i].ns > 0 ? st[i].ns : 0);
		while (j < ns && st[j].bound == st[i].bound && lane_of(&l, ev[edge_event(&st[j])].track) == k) {
			end = st[j].ts + (st[j].ns > 0 ? st[j].ns : 0);
			j++;
		}
		if (k >= 0 && end > st[i].ts && st[i].bound != TG_CP_DEPENDENCY) {
			double x = LEFT + WIDTH * (double)(st[i].ts - t0) / span;
			double w = WIDTH * (double)(end - st[i].ts) / span;
			fprintf(f,
			        "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
			        "<title>%s %.3f ms</title></rect>\n",
			        x, k * LANE_H + 3, w < 0.5 ? 0.5 : w, LANE_H - 6, fills[st[i].bound],
			        tg_cp_bound_name(st[i].bound), ms(end - st[i].ts));
			bars++;
		}
		i = j;
	}
	fprintf(f, "<text x=\"%d\" y=\"%zu\">0 ms</text><text x=\"%d\" y=\"%zu\" text-anchor=\"end\">%.3f ms</text>\n",
	        LEFT, l.n * LANE_H + 18, LEFT + (int)WIDTH, l.n * LANE_H + 18, ms(t1 - t0));
	fputs("</svg>\n", f);
	if (bars == MAX_BARS)
		fprintf(f, "<p class=\"sub\">Only the first %d bars are drawn.</p>\n", MAX_BARS);
}

static void breakdown(FILE *f, const tg_critical_path *cp)
{
	const int64_t *b = tg_cp_breakdown(cp);
	int64_t tot = 0;
	for (int k = 0; k < TG_CP_NBOUND; k++)
		tot += b[k];
	fputs("<svg width=\"1000\" height=\"24\" role=\"img\" aria-label=\"breakdown\">", f);
	double x = 0;
	for (int k = 0; k < TG_CP_NBOUND && tot > 0; k++) {
		double w = b[k] > 0 ? 1000.0 * (double)b[k] / (double)tot : 0;
		if (w > 0)
			fprintf(f,
			        "<rect x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"24\" fill=\"%s\">"
			        "<title>%s</title></rect>",
			        x, w, fills[k], tg_cp_bound_name(k));
		x += w;
	}
	fputs("</svg>\n<table><thead><tr><th>bound_by</th><th>ms</th><th>%</th></tr></thead><tbody>\n", f);
	for (int k = 0; k < TG_CP_NBOUND; k++)
		fprintf(f,
		        "<tr><td><span class=\"sw\" style=\"background:%s\"></span>%s</td><td class=\"n\">%.3f</td>"
		        "<td class=\"n\">%.2f</td></tr>\n",
		        fills[k], k == TG_CP_DEPENDENCY ? "(dependency, sync)" : tg_cp_bound_name(k), ms(b[k]),
		        tot ? 100.0 * (double)b[k] / (double)tot : 0);
	fputs("</tbody></table>\n", f);
}

static void ops_table(FILE *f, const tg_critical_path *cp, size_t top)
{
	const tg_trace *t = tg_critical_path_trace(cp);
	size_t nops, ne;
	const tg_cp_op *ops = tg_cp_ops(cp, &nops);
	const tg_event *ev = tg_trace_events(t, &ne);
	fputs("<table><thead><tr><th>ms</th><th>bound_by</th><th>kind</th><th>name</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < nops && i < top; i++) {
		fprintf(f, "<tr><td class=\"n\">%.3f</td><td>%s</td><td>%s</td><td>", ms(ops[i].ns),
		        tg_cp_bound_name(ops[i].bound), tg_kind_name(ev[ops[i].event].kind));
		tg_html_escape_inert(f, tg_trace_str(t, ev[ops[i].event].name));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (nops > top)
		fprintf(f, "<p class=\"sub\">%zu more ops on the path.</p>\n", nops - top);
}

int tg_cp_write_html(FILE *f, const tg_critical_path *cp, const char *file, const tg_cp_opts *o, size_t top)
{
	const tg_cp_stats *s = tg_cp_stats_get(cp);
	fprintf(f,
	        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Critical path</title>\n"
	        "<style>\n%s</style></head><body>\n<h1>Critical path of ",
	        css);
	tg_html_escape_inert(f, file);
	fputs("</h1>\n<p class=\"sub\">", f);
	if (*tg_cp_annotation(cp)) {
		fputs("Window: '", f);
		tg_html_escape_inert(f, tg_cp_annotation(cp));
		fprintf(f, "', %llu instance%s", (unsigned long long)s->instances, s->instances == 1 ? "" : "s");
	} else {
		fputs("Window: the whole trace", f);
	}
	fprintf(f, " (%.3f ms). Length <b>%.3f ms</b>", ms(s->window_end - s->window_start), ms(tg_cp_length_ns(cp)));
	if (s->steps > 1)
		fprintf(f, ", %.3f ms a step over %llu steps", ms(tg_cp_length_ns(cp)) / (double)s->steps,
		        (unsigned long long)s->steps);
	fprintf(f, ". HTA settings: %s, zero-weight launch edges %s.</p>\n",
	        o && o->exact_ns ? "exact nanoseconds" : "microsecond rounding",
	        o && o->zero_weight_launch ? "on" : "off");
	fputs("<h2>What bounds the path</h2>\n", f);
	breakdown(f, cp);
	fputs("<h2>The path on a timeline</h2>\n", f);
	timeline(f, cp);
	fputs("<h2>Ops on the path</h2>\n", f);
	ops_table(f, cp, top);
	fprintf(f,
	        "<p class=\"sub\">%llu events in the window, %llu nodes, %llu edges; the path has %llu nodes "
	        "through %llu events.</p>\n</body></html>\n",
	        (unsigned long long)s->events, (unsigned long long)s->nodes, (unsigned long long)s->edges,
	        (unsigned long long)s->path_nodes, (unsigned long long)s->path_events);
	return ferror(f) ? tg_error_set(TG_EIO, "cannot write the critical path") : 0;
}
