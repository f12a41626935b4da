/*
 * critical_path_render.c - the critical path as text (a terminal), JSON
 * (documented in docs/critical-path.md) and one self-contained HTML page
 * (the breakdown as a bar, the path drawn on a timeline with one lane per
 * thread and stream, the ops on the path as a table). Implements
 * critical_path_render.h; computes nothing but sums for display.
 */
#include "critical_path_render.h"
#include "../core/analysis/table.h"

#include <stdio.h>
#include <string.h>

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

/* A name from the trace for a terminal: control bytes escaped. */
static void put_name(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p != 0x7f)
			putc(*p, f);
		else
			fprintf(f, "\\x%02x", *p);
	}
}

/* The breakdown's total (HTA's denominator: every edge of the path). */
static int64_t total_ns(const tg_critical_path *cp)
{
	const int64_t *b = tg_cp_breakdown(cp);
	int64_t t = 0;
	for (int k = 0; k < TG_CP_NBOUND; k++)
		t += b[k];
	return t;
}

static double pct(int64_t part, int64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0;
}

/* "thread 123" or "stream 7" for an event's lane. */
static void lane_name(char *buf, size_t cap, const tg_trace *t, const tg_event *e)
{
	size_t ntr;
	const tg_track *tr = &tg_trace_tracks(t, &ntr)[e->track];
	if (tg_kind_is_gpu(e->kind) || e->kind == TG_KIND_SYNC)
		snprintf(buf, cap, "GPU %lld stream %lld", (long long)tr->pid, (long long)tr->tid);
	else if (tr->tid_str != TG_NONE)
		snprintf(buf, cap, "thread %s", tg_trace_str(t, tr->tid_str));
	else
		snprintf(buf, cap, "thread %lld", (long long)tr->tid);
}

static void text_header(FILE *f, const tg_critical_path *cp, const char *file, const tg_cp_opts *o)
{
	const tg_cp_stats *s = tg_cp_stats_get(cp);
	const char *ann = tg_cp_annotation(cp);
	fprintf(f, "Critical path of ");
	put_name(f, file);
	if (*ann)
		fprintf(f, ": '%s', %llu instance%s", ann, (unsigned long long)s->instances,
		        s->instances == 1 ? "" : "s");
	else
		fprintf(f, ": the whole trace");
	fprintf(f, ", window %.3f ms\n", ms(s->window_end - s->window_start));
	fprintf(f, "HTA settings: %s, zero-weight launch edges %s%s\n",
	        o && o->exact_ns ? "exact nanoseconds" : "microsecond rounding",
	        o && o->zero_weight_launch ? "on" : "off", o && o->ndata_load ? ", data-loading events named" : "");
	fprintf(f, "Length %.3f ms", ms(tg_cp_length_ns(cp)));
	if (s->steps > 1)
		fprintf(f, " (%.3f ms a step over %llu steps)", ms(tg_cp_length_ns(cp)) / (double)s->steps,
		        (unsigned long long)s->steps);
	fputc('\n', f);
}

int tg_cp_write_text(FILE *f, const tg_critical_path *cp, const char *file, const tg_cp_opts *o, size_t top)
{
	text_header(f, cp, file, o);
	const int64_t *b = tg_cp_breakdown(cp);
	int64_t tot = total_ns(cp);
	fprintf(f, "\n%-28s %12s %8s\n", "bound_by", "ms", "%");
	for (int k = 0; k < TG_CP_NBOUND; k++)
		if (b[k] || k == TG_CP_CPU || k == TG_CP_GPU_COMPUTE || k == TG_CP_LAUNCH)
			fprintf(f, "%-28s %12.3f %7.2f%%\n",
			        k == TG_CP_DEPENDENCY ? "(dependency, sync)" : tg_cp_bound_name(k), ms(b[k]),
			        pct(b[k], tot));
	size_t nops;
	const tg_cp_op *ops = tg_cp_ops(cp, &nops);
	const tg_trace *t = tg_critical_path_trace(cp);
	const tg_event *ev = tg_trace_events(t, &(size_t){0});
	fprintf(f, "\nOps on the path (%zu; time of the path spent in each):\n", nops);
	fprintf(f, "%12s %8s  %-26s %-22s %s\n", "ms", "%", "bound_by", "lane", "name");
	for (size_t i = 0; i < nops && i < top; i++) {
		char lane[64];
		lane_name(lane, sizeof(lane), t, &ev[ops[i].event]);
		fprintf(f, "%12.3f %7.2f%%  %-26s %-22s ", ms(ops[i].ns), pct(ops[i].ns, tot),
		        tg_cp_bound_name(ops[i].bound), lane);
		put_name(f, tg_trace_str(t, ev[ops[i].event].name));
		fputc('\n', f);
	}
	if (nops > top)
		fprintf(f, "(%zu more: --top N shows more)\n", nops - top);
	const tg_cp_stats *s = tg_cp_stats_get(cp);
	fprintf(f,
	        "\nGraph: %llu events in the window, %llu nodes, %llu edges (operator %llu, dependency %llu, launch "
	        "%llu, kernel gap %llu, sync %llu); path: %llu nodes, %llu events\n",
	        (unsigned long long)s->events, (unsigned long long)s->nodes, (unsigned long long)s->edges,
	        (unsigned long long)s->edges_by_type[0], (unsigned long long)s->edges_by_type[1],
	        (unsigned long long)s->edges_by_type[2], (unsigned long long)s->edges_by_type[3],
	        (unsigned long long)s->edges_by_type[4], (unsigned long long)s->path_nodes,
	        (unsigned long long)s->path_events);
	if (s->same_stream_syncs)
		fprintf(f, "Note: %llu sync edges between events of one stream left out (HTA refuses such a graph)\n",
		        (unsigned long long)s->same_stream_syncs);
	return ferror(f) ? tg_error_set(TG_EIO, "cannot write the critical path") : 0;
}

static void json_str(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

static void json_event(FILE *f, const tg_trace *t, uint32_t e)
{
	const tg_event *ev = &tg_trace_events(t, &(size_t){0})[e];
	char lane[64];
	lane_name(lane, sizeof(lane), t, ev);
	fprintf(f, "{\"index\":%u,\"name\":", e);
	json_str(f, tg_trace_str(t, ev->name));
	fprintf(f, ",\"kind\":\"%s\",\"lane\":", tg_kind_name(ev->kind));
	json_str(f, lane);
	fprintf(f, ",\"ts_ms\":%.6f,\"dur_ms\":%.6f}", ms(ev->ts), ms(tg_event_dur(t, ev)));
}

static void json_breakdown(FILE *f, const tg_critical_path *cp)
{
	const int64_t *b = tg_cp_breakdown(cp);
	int64_t tot = total_ns(cp);
	fputs("\"breakdown\":[", f);
	for (int k = 0; k < TG_CP_NBOUND; k++)
		fprintf(f, "%s{\"bound_by\":\"%s\",\"ms\":%.6f,\"percent\":%.6f}", k ? "," : "", tg_cp_bound_name(k),
		        ms(b[k]), pct(b[k], tot));
	fputs("]", f);
}

int tg_cp_write_json(FILE *f, const tg_critical_path *cp, const char *file, const tg_cp_opts *o, size_t top)
{
	const tg_cp_stats *s = tg_cp_stats_get(cp);
	const tg_trace *t = tg_critical_path_trace(cp);
	fputs("{\"schema\":\"tracegate.critical_path/1\",\"file\":", f);
	json_str(f, file);
	fputs(",\"annotation\":", f);
	json_str(f, tg_cp_annotation(cp));
	fprintf(f, ",\"instances\":%llu,\"window_ms\":[%.6f,%.6f],", (unsigned long long)s->instances,
	        ms(s->window_start), ms(s->window_end));
	fprintf(f, "\"settings\":{\"ns_rounding\":%s,\"zero_weight_launch_edges\":%s},",
	        o && o->exact_ns ? "false" : "true", o && o->zero_weight_launch ? "true" : "false");
	fprintf(f, "\"steps\":%llu,\"length_ms\":%.6f,\"length_ms_per_step\":%.6f,", (unsigned long long)s->steps,
	        ms(tg_cp_length_ns(cp)),
	        s->steps ? ms(tg_cp_length_ns(cp)) / (double)s->steps : ms(tg_cp_length_ns(cp)));
	json_breakdown(f, cp);
	size_t nops, nsteps;
	const tg_cp_op *ops = tg_cp_ops(cp, &nops);
	int64_t tot = total_ns(cp);
	fputs(",\"ops\":[", f);
	for (size_t i = 0; i < nops && i < top; i++) {
		fprintf(f, "%s{\"ms\":%.6f,\"percent\":%.6f,\"bound_by\":\"%s\",\"event\":", i ? "," : "",
		        ms(ops[i].ns), pct(ops[i].ns, tot), tg_cp_bound_name(ops[i].bound));
		json_event(f, t, ops[i].event);
		fputc('}', f);
	}
	const tg_cp_step *st = tg_cp_steps(cp, &nsteps);
	fputs("],\"path\":[", f);
	for (size_t i = 0; i < nsteps; i++) {
		fprintf(f,
		        "%s{\"type\":\"%s\",\"bound_by\":\"%s\",\"ms\":%.6f,\"ts_ms\":%.6f,\"from\":%u,"
		        "\"from_start\":%s,\"to\":%u,\"to_start\":%s,\"event\":",
		        i ? "," : "", tg_cp_edge_type_name(st[i].type), tg_cp_bound_name(st[i].bound), ms(st[i].ns),
		        ms(st[i].ts), st[i].from, st[i].from_start ? "true" : "false", st[i].to,
		        st[i].to_start ? "true" : "false");
		if (st[i].event == TG_NONE)
			fputs("null", f);
		else
			fprintf(f, "%u", st[i].event);
		fputc('}', f);
	}
	fprintf(f,
	        "],\"graph\":{\"events\":%llu,\"nodes\":%llu,\"edges\":%llu,\"path_nodes\":%llu,\"path_events\":%llu,"
	        "\"same_stream_syncs_dropped\":%llu,\"edges_by_type\":{",
	        (unsigned long long)s->events, (unsigned long long)s->nodes, (unsigned long long)s->edges,
	        (unsigned long long)s->path_nodes, (unsigned long long)s->path_events,
	        (unsigned long long)s->same_stream_syncs);
	for (int k = 0; k < TG_CP_EDGE_NTYPES; k++)
		fprintf(f, "%s\"%s\":%llu", k ? "," : "", tg_cp_edge_type_name(k),
		        (unsigned long long)s->edges_by_type[k]);
	fputs("}}}\n", f);
	return ferror(f) ? tg_error_set(TG_EIO, "cannot write the critical path") : 0;
}
