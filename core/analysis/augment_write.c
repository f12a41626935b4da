/*
 * augment_write.c - the augmented trace (augment.h): the second read of the
 * trace's file, copied to the output unit by unit (a top-level member, an
 * element of traceEvents), the marks inserted into their events' "args",
 * the counters and instants written before traceEvents' closing bracket.
 *
 * How it streams: the bytes sit in a window; a unit is scanned once it is
 * whole in it (a unit that runs into the window's end keeps its bytes,
 * the window is refilled, grown up to max_unit, and the unit scanned again,
 * as the reader does). Bytes before the unit being scanned are written out
 * as they are; an insertion writes the bytes before it, then itself.
 *
 * Which element is which event: the reader keeps, in file order, every
 * element whose "ph" is X, B, i or I (an E closes its B; metadata,
 * counters and flows are not events), so the k-th such element here is
 * tg_trace_events()[k]. Their count must come out equal, or the file
 * changed between the reads and nothing is written.
 */
#include "augment_impl.h"
#include "counters.h"
#include "../../util/tg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WINDOW (1u << 20)
#define DEFAULT_MAX_UNIT (256u << 20)

enum state { ST_BEGIN, ST_TOP_FIRST, ST_TOP_NEXT, ST_EVENTS_FIRST, ST_EVENTS_NEXT, ST_AFTER, ST_DONE };
enum { UNIT_DONE = 0, UNIT_MORE = 1 };

struct aug {
	const tg_trace *t;
	const tg_augment_opts *o;
	tg_source *src;
	tg_sink *out;
	const char *name;
	char *buf;
	size_t cap, len, pos, flushed;
	uint64_t base;
	int eof;
	uint32_t max_unit;
	enum state st, after;
	int had_elements;
	size_t nevents;         /* the model's */
	tg_augment_mark *marks; /* sorted by event */
	size_t mi;
	char **notes; /* each note as compact JSON */
	tg_augment_stats *stats;
};

/* ---- errors and output */

static int changed(struct aug *a, const char *at, const char *what)
{
	return tg_error_set(TG_EFORMAT, "%s: byte %llu: %s (did the file change since it was read?)", a->name,
	                    (unsigned long long)(a->base + (uint64_t)(at - a->buf)), what);
}

/* Writes the window's bytes before upto. */
static int flush_to(struct aug *a, size_t upto)
{
	if (upto <= a->flushed)
		return 0;
	int rc = tg_sink_write(a->out, a->buf + a->flushed, upto - a->flushed);
	a->flushed = upto;
	return rc;
}

static int put(struct aug *a, const char *s)
{
	return tg_sink_write(a->out, s, strlen(s));
}

/* s as a JSON string into buf (quotes included): printable ASCII as it is
 * but quote and backslash, control characters as \u00XX, valid UTF-8 as it
 * is, any other byte as \ufffd. */
static void json_str(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	buf[o++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p && o + 12 < cap; p++) {
		int n = *p < 0x80                 ? 1
		        : *p >= 0xc2 && *p < 0xe0 ? 2
		        : *p >= 0xe0 && *p < 0xf0 ? 3
		        : *p >= 0xf0 && *p < 0xf5 ? 4
		                                  : 0;
		for (int k = 1; k < n; k++)
			if ((p[k] & 0xc0) != 0x80)
				n = 0;
		if (*p == '"' || *p == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)*p;
		} else if (*p < 0x20) {
			o += (size_t)snprintf(buf + o, cap - o, "\\u%04x", *p);
		} else if (n == 1) {
			buf[o++] = (char)*p;
		} else if (n) {
			memcpy(buf + o, p, (size_t)n);
			o += (size_t)n;
			p += n - 1;
		} else {
			memcpy(buf + o, "\\ufffd", 6);
			o += 6;
		}
	}
	buf[o++] = '"';
	buf[o] = 0;
}

static void ts_text(char *buf, size_t cap, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	snprintf(buf, cap, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
	         (unsigned long long)(a % 1000));
}

/* A track's pid or tid as JSON: its number, or its string. */
static void id_text(char *buf, size_t cap, const tg_trace *t, int64_t num, uint32_t str)
{
	if (str != TG_NONE)
		json_str(buf, cap, tg_trace_str(t, str));
	else
		snprintf(buf, cap, "%lld", (long long)num);
}

/* ---- marks */

static int by_event(const void *pa, const void *pb)
{
	const tg_augment_mark *a = pa, *b = pb;
	return a->event != b->event ? (a->event < b->event ? -1 : 1) : (a->note < b->note ? -1 : a->note > b->note);
}

/* The "tracegate" member for event k's marks (merged when several), or
 * NULL without marks; *owned set when the caller frees it. */
static const char *mark_text(struct aug *a, size_t k, int *owned, int *rc)
{
	*owned = 0;
	const tg_augment_opts *o = a->o;
	while (a->mi < o->nmarks && a->marks[a->mi].event < k)
		a->mi++;
	if (a->mi >= o->nmarks || a->marks[a->mi].event != k)
		return NULL;
	size_t first = a->mi;
	while (a->mi < o->nmarks && a->marks[a->mi].event == k)
		a->mi++;
	if (a->mi - first == 1)
		return a->notes[a->marks[first].note];
	json_t *merged = json_object();
	for (size_t i = first; merged && i < a->mi; i++)
		json_object_update(merged, (json_t *)o->notes[a->marks[i].note]);
	char *s = merged ? json_dumps(merged, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	json_decref(merged);
	if (!s)
		*rc = tg_error_set(TG_ENOMEM, "out of memory");
	*owned = s != NULL;
	return s;
}

/* Inserts the mark of the element [e, eend) whose last "args" object
 * starts at args (NULL: none). */
static int insert_mark(struct aug *a, const char *e, const char *eend, const char *args, const char *note)
{
	(void)e;
	size_t at;
	int rc;
	if (args) {
		at = (size_t)(args + 1 - a->buf);
		int empty = *tg_scan_ws(args + 1, eend) == '}';
		rc = flush_to(a, at);
		rc = rc ? rc : put(a, "\"tracegate\":");
		rc = rc ? rc : put(a, note);
		rc = rc ? rc : (empty ? 0 : put(a, ","));
	} else {
		at = (size_t)(eend - 1 - a->buf); /* before the element's closing brace */
		rc = flush_to(a, at);
		rc = rc ? rc : put(a, ",\"args\":{\"tracegate\":");
		rc = rc ? rc : put(a, note);
		rc = rc ? rc : put(a, "}");
	}
	if (!rc)
		a->stats->marked++;
	return rc;
}

/* One element [e, eend) of traceEvents: counted when it is one of the
 * model's events, marked when it has marks. */
static int element(struct aug *a, const char *e, const char *eend)
{
	int bad = 0, ph = 0;
	const char *args = NULL, *p = tg_scan_ws(e + 1, eend);
	if (*e != '{')
		return changed(a, e, "an element of traceEvents is not an object");
	while (p < eend && *p != '}') {
		const char *q = tg_scan_string_end(p, eend, &bad);
		const char *v = q ? tg_scan_ws(q, eend) : NULL;
		if (!v || *v != ':')
			return changed(a, p, "expected a key and ':' in an event");
		v = tg_scan_ws(v + 1, eend);
		const char *vend = tg_scan_value_end(v, eend, &bad);
		if (!vend)
			return changed(a, v, "a value of an event does not end");
		if (tg_scan_string_is(p, q, "ph"))
			ph = *v == '"' ? tg_scan_string_char(v, vend) : 0;
		else if (tg_scan_string_is(p, q, "args") && *v == '{')
			args = v;
		p = tg_scan_ws(vend, eend);
		if (p < eend && *p == ',')
			p = tg_scan_ws(p + 1, eend);
		else if (p >= eend || *p != '}')
			return changed(a, p, "expected ',' or '}' in an event");
	}
	a->stats->elements++;
	if (!strchr("XBiI", ph) || !ph)
		return 0;
	size_t k = a->stats->events++;
	if (k >= a->nevents)
		return changed(a, e, "more events than the first read found");
	int owned, rc = 0;
	const char *note = mark_text(a, k, &owned, &rc);
	if (rc || !note)
		return rc;
	rc = insert_mark(a, e, eend, args, note);
	if (owned)
		free((char *)note);
	return rc;
}

/* ---- what is added before traceEvents' end */

/* Writes one added event, after a comma when the array has elements. */
static int add_event(struct aug *a, const char *text)
{
	int rc = put(a, a->had_elements ? ",\n" : "\n");
	a->had_elements = 1;
	return rc ? rc : put(a, text);
}

static int add_counters(struct aug *a, const tg_tree *tree)
{
	static const char queue_fmt[] =
		"{\"ph\":\"C\",\"cat\":\"tracegate\",\"name\":%s,\"pid\":%s,\"ts\":%s,"
		"\"id\":%lld,\"args\":{\"Queue Length\":%.0f}}";
	static const char bandwidth_fmt[] =
		"{\"ph\":\"C\",\"cat\":\"tracegate\",\"name\":%s,\"pid\":%s,\"ts\":%s,"
		"\"args\":{\"Memcpy BW\":%.9g}}";
	tg_counters *c;
	if (tg_counters_build(&c, tree))
		return TG_ENOMEM;
	size_t ns, np;
	const tg_counter_series *s = tg_counters_series(c, &ns);
	const tg_counter_point *p = tg_counters_points(c, &np);
	const tg_track *tracks = tg_trace_tracks(a->t, &(size_t){0});
	char line[1400], pid[512], name[128], ts[48];
	int rc = 0;
	for (size_t i = 0; i < ns && !rc; i++) {
		const tg_track *tr = &tracks[s[i].track];
		id_text(pid, sizeof(pid), a->t, tr->pid, tr->pid_str);
		json_str(name, sizeof(name), s[i].name);
		for (size_t k = s[i].first; k < s[i].first + s[i].n && !rc; k++) {
			ts_text(ts, sizeof(ts), p[k].ts);
			double v = isfinite(p[k].value) ? p[k].value : 0;
			if (s[i].kind == TG_COUNTER_QUEUE)
				snprintf(line, sizeof(line), queue_fmt, name, pid, ts, (long long)s[i].stream, v);
			else
				snprintf(line, sizeof(line), bandwidth_fmt, name, pid, ts, v);
			rc = add_event(a, line);
			a->stats->counters++;
		}
		a->stats->series++;
	}
	tg_counters_free(c);
	return rc;
}

static int add_instants(struct aug *a)
{
	static const char instant_fmt[] =
		"{\"ph\":\"i\",\"s\":\"%c\",\"cat\":\"tracegate\",\"name\":%s,\"pid\":%s,"
		"\"tid\":%s,\"ts\":%s,\"args\":%s}";
	size_t ntracks, nev;
	const tg_track *tracks = tg_trace_tracks(a->t, &ntracks);
	const tg_event *ev = tg_trace_events(a->t, &nev);
	int rc = 0;
	for (size_t i = 0; i < a->o->ninstants && !rc; i++) {
		const tg_augment_instant *in = &a->o->instants[i];
		uint32_t tr = in->track != TG_NONE && in->track < ntracks ? in->track : nev ? ev[0].track : TG_NONE;
		char pid[512] = "0", tid[512] = "0", ts[48];
		if (tr != TG_NONE) {
			id_text(pid, sizeof(pid), a->t, tracks[tr].pid, tracks[tr].pid_str);
			id_text(tid, sizeof(tid), a->t, tracks[tr].tid, tracks[tr].tid_str);
		}
		ts_text(ts, sizeof(ts), in->ts);
		char *args = in->args ? json_dumps(in->args, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
		size_t cap = strlen(in->name) * 6 + 16;
		char *name = malloc(cap), *line = NULL;
		if (name)
			json_str(name, cap, in->name);
		if (!name || (in->args && !args) ||
		    asprintf(&line, instant_fmt, strchr("gpt", in->scope) && in->scope ? in->scope : 'g', name, pid,
		             tid, ts, args ? args : "{}") < 0) {
			line = NULL;
			rc = tg_error_set(TG_ENOMEM, "out of memory");
		}
		if (line) {
			rc = add_event(a, line);
			a->stats->instants++;
		}
		free(line);
		free(name);
		free(args);
	}
	return rc;
}

/* At traceEvents' end: what is added, right after the last element (at:
 * before the whitespace and the bracket that close the array). */
static int close_events(struct aug *a, const char *at, const tg_tree *tree)
{
	int rc = flush_to(a, (size_t)(at - a->buf));
	if (!rc && !a->o->no_counters)
		rc = add_counters(a, tree);
	if (!rc)
		rc = add_instants(a);
	return rc;
}

/* ---- the units */

/* The top level: a member (copied; traceEvents opens the events) or the
 * object's end. */
static int top_unit(struct aug *a, const char *p, const char *end)
{
	int bad = 0;
	if (*p == '}') {
		a->pos = (size_t)(p + 1 - a->buf);
		a->st = ST_AFTER;
		return UNIT_DONE;
	}
	if (a->st == ST_TOP_NEXT) {
		if (*p != ',')
			return changed(a, p, "expected ',' or '}' after a top-level member");
		p = tg_scan_ws(p + 1, end);
	}
	const char *q = tg_scan_string_end(p, end, &bad);
	const char *v = q ? tg_scan_ws(q, end) : NULL;
	if (v && v < end && *v == ':')
		v = tg_scan_ws(v + 1, end);
	if (!v || v >= end)
		return bad ? changed(a, p, "expected a key") : UNIT_MORE;
	if (tg_scan_string_is(p, q, "traceEvents") && *v == '[') {
		a->pos = (size_t)(v + 1 - a->buf);
		a->st = ST_EVENTS_FIRST;
		a->after = ST_TOP_NEXT;
		return UNIT_DONE;
	}
	const char *vend = tg_scan_value_end(v, end, &bad);
	if (!vend)
		return bad ? changed(a, v, "a top-level value does not end") : UNIT_MORE;
	a->pos = (size_t)(vend - a->buf);
	a->st = ST_TOP_NEXT;
	return UNIT_DONE;
}

/* In traceEvents: an element, or the array's end. */
static int events_unit(struct aug *a, const char *p, const char *end, const tg_tree *tree)
{
	int bad = 0;
	if (*p == ']') {
		int rc = close_events(a, a->buf + a->pos, tree);
		if (rc)
			return rc;
		a->pos = (size_t)(p + 1 - a->buf);
		a->st = a->after;
		return UNIT_DONE;
	}
	if (a->st == ST_EVENTS_NEXT) {
		if (*p != ',')
			return changed(a, p, "expected ',' or ']' after an event");
		p = tg_scan_ws(p + 1, end);
		if (p >= end)
			return UNIT_MORE;
	}
	const char *eend = tg_scan_value_end(p, end, &bad);
	if (!eend)
		return bad ? changed(a, p, "an event does not end") : UNIT_MORE;
	int rc = element(a, p, eend);
	if (rc)
		return rc;
	a->had_elements = 1;
	a->pos = (size_t)(eend - a->buf);
	a->st = ST_EVENTS_NEXT;
	return UNIT_DONE;
}

/* One unit from a->pos; UNIT_MORE when the window ends first. */
static int unit(struct aug *a, const tg_tree *tree)
{
	const char *end = a->buf + a->len, *p = tg_scan_ws(a->buf + a->pos, end);
	if (p >= end)
		return a->eof && a->st == ST_AFTER ? (a->st = ST_DONE, UNIT_DONE)
		       : a->eof                    ? changed(a, p, "the file ends early")
		                                   : UNIT_MORE;
	switch (a->st) {
	case ST_BEGIN:
		if ((unsigned char)*p == 0xEF) {
			if (end - p < 3)
				return UNIT_MORE;
			p = tg_scan_ws(p + 3, end); /* the UTF-8 byte order mark, copied */
			if (p >= end)
				return UNIT_MORE;
		}
		if (*p != '{' && *p != '[')
			return changed(a, p, "not a trace");
		a->st = *p == '{' ? ST_TOP_FIRST : ST_EVENTS_FIRST;
		a->after = ST_AFTER;
		a->pos = (size_t)(p + 1 - a->buf);
		return UNIT_DONE;
	case ST_TOP_FIRST:
	case ST_TOP_NEXT: return top_unit(a, p, end);
	case ST_EVENTS_FIRST:
	case ST_EVENTS_NEXT: return events_unit(a, p, end, tree);
	default: return changed(a, p, "data after the document");
	}
}

/* Writes out what the window holds before the unit at pos and reads more
 * behind it, growing the window up to max_unit. */
static int refill(struct aug *a)
{
	int rc = flush_to(a, a->pos);
	if (rc)
		return rc;
	memmove(a->buf, a->buf + a->pos, a->len - a->pos);
	a->base += a->pos;
	a->len -= a->pos;
	a->flushed -= a->pos;
	a->pos = 0;
	if (a->len == a->cap) {
		if (a->cap >= a->max_unit)
			return tg_error_set(TG_ELIMIT,
			                    "%s: byte %llu: one event or member is larger than %u bytes (limit)",
			                    a->name, (unsigned long long)a->base, a->max_unit);
		size_t ncap = a->cap * 2 > a->max_unit ? a->max_unit : a->cap * 2;
		char *nb = tg_realloc(a->buf, ncap);
		if (!nb)
			return TG_ENOMEM;
		a->buf = nb;
		a->cap = ncap;
	}
	size_t got;
	rc = tg_source_read(a->src, a->buf + a->len, a->cap - a->len, &got);
	if (rc)
		return rc;
	a->eof = got == 0;
	a->len += got;
	return 0;
}

static int run(struct aug *a, const tg_tree *tree)
{
	while (a->st != ST_DONE) {
		int rc = unit(a, tree);
		if (rc == UNIT_MORE)
			rc = a->eof ? changed(a, a->buf + a->len, "the file ends early") : refill(a);
		if (rc)
			return rc;
	}
	int rc = flush_to(a, a->len);
	if (!rc && a->stats->events != a->nevents)
		rc = tg_error_set(TG_EFORMAT, "%s: %llu events on the second read, %zu on the first: the file changed",
		                  a->name, (unsigned long long)a->stats->events, a->nevents);
	a->stats->json_in = a->base + a->len;
	return rc;
}

/* The marks sorted by event and the notes as JSON text, into a. */
static int prepare(struct aug *a, const tg_augment_opts *o)
{
	for (size_t i = 0; i < o->nmarks; i++)
		if (o->marks[i].event >= a->nevents || o->marks[i].note >= o->nnotes)
			return tg_error_set(TG_EINVAL,
			                    "augment: mark %zu names event %u, note %u (%zu events, %zu notes)", i,
			                    o->marks[i].event, o->marks[i].note, a->nevents, o->nnotes);
	a->marks = tg_malloc((o->nmarks + 1) * sizeof(*a->marks));
	a->notes = tg_calloc(o->nnotes + 1, sizeof(*a->notes));
	if (!a->marks || !a->notes)
		return TG_ENOMEM;
	if (o->nmarks)
		memcpy(a->marks, o->marks, o->nmarks * sizeof(*a->marks));
	qsort(a->marks, o->nmarks, sizeof(*a->marks), by_event);
	for (size_t i = 0; i < o->nnotes; i++) {
		if (!json_is_object(o->notes[i]))
			return tg_error_set(TG_EINVAL, "augment: note %zu is not a JSON object", i);
		a->notes[i] = json_dumps(o->notes[i], JSON_COMPACT | JSON_ENSURE_ASCII);
		if (!a->notes[i])
			return tg_error_set(TG_ENOMEM, "out of memory");
	}
	return 0;
}

int tg_augment_write(tg_augment_stats *stats, const char *out_path, int fd, const char *name, const tg_tree *tree,
                     const tg_augment_opts *opts)
{
	static const tg_augment_opts none;
	tg_augment_stats local;
	struct aug a = {.o = opts ? opts : &none,
	                .name = name,
	                .t = tg_tree_trace(tree),
	                .st = ST_BEGIN,
	                .stats = stats ? stats : &local};
	memset(a.stats, 0, sizeof(*a.stats));
	tg_trace_events(a.t, &a.nevents);
	a.max_unit = a.o->max_unit ? a.o->max_unit : DEFAULT_MAX_UNIT;
	a.cap = WINDOW < a.max_unit ? WINDOW : a.max_unit;
	int rc = prepare(&a, a.o);
	if (!rc && lseek(fd, 0, SEEK_SET) < 0)
		rc = tg_error_set(TG_EIO, "%s: cannot read it again: %s", name, strerror(errno));
	if (!rc)
		rc = tg_source_open_fd(&a.src, fd, name, &a.o->source);
	if (!rc && !(a.buf = tg_malloc(a.cap)))
		rc = TG_ENOMEM;
	if (!rc)
		rc = tg_sink_open(&a.out, out_path, a.o->gzip_level);
	if (!rc)
		rc = run(&a, tree);
	if (a.out) {
		a.stats->json_out = tg_sink_bytes(a.out);
		int crc = tg_sink_close(a.out, rc == 0);
		rc = rc ? rc : crc;
	}
	tg_source_free(a.src);
	for (size_t i = 0; a.notes && i < a.o->nnotes; i++)
		free(a.notes[i]);
	free(a.notes);
	free(a.marks);
	free(a.buf);
	return rc;
}
