/*
 * trace_read_event.h - one event object and one unit of the document
 * (parse_event, parse_unit), and parsing ahead on a worker: what a chunk
 * parsed ahead holds until the reader merges it.
 *
 * A piece of trace_read.c's one translation unit, which includes it once,
 * after the pieces before it and the system headers: the functions stay
 * static in one unit, so the compiler inlines across the pieces as it did
 * when they were one file (issue 24's speed). Nothing else includes it.
 */
#ifndef TG_TRACE_READ_EVENT_H
#define TG_TRACE_READ_EVENT_H

/* ------------------------------------------------------------ parse ahead
 *
 * A worker (trace_chunks.h) parses a chunk with the very code above, on a
 * parser of its own whose atoms and arguments are private: parse_event
 * ends in pend() instead of commit_event(), and intern() notes the order
 * in which the chunk first used each of the worker's atoms. The reader
 * later merges the result (merge_result): it interns the chunk's strings
 * in that order, so that every atom gets the number a sequential read
 * gives it, maps the worker's atoms to the trace's, and commits the
 * events in order; whatever depends on what came before (tracks, B/E
 * pairs, flows, metadata, counts, limits) is done then. The worker stops
 * at the first thing it cannot finish (an error, the chunk's end inside an
 * event, an event too large for max_unit's checks, anything but ',' after
 * an event), and the reader parses from there itself, so that errors,
 * messages and offsets are the sequential reader's. */

/* One event parsed ahead, committed when merged. */
struct pending {
	struct evtmp ev;
	uint64_t at;          /* JSON offset of its '{' */
	uint32_t args, nargs; /* its arguments in the result's */
};

struct spec_result {
	struct pending *ev;
	size_t nev, ev_cap;
	tg_arg *args; /* the worker's atoms */
	size_t nargs, args_cap;
	uint32_t *touch; /* the worker's atoms, in the order the chunk first used them */
	size_t ntouch, touch_cap;
	size_t stop;      /* the chunk's bytes its events cover */
	enum state state; /* after them: ST_EVENTS_ELEM, or ST_EVENTS_NEXT */
	int worker;
};

/* The strings of a worker's atoms, for the reader to read while the worker
 * goes on: segments that never move. */
#define PUB_SEG 4096
#define PUB_SEGS 4096
struct pubstr {
	const char *s;
	uint32_t len;
};

struct spec {
	struct parser ps;
	tg_trace local;           /* atoms and args of its own */
	struct spec_result *r;    /* being filled */
	uint32_t *seen;           /* per atom: chunk seq + 1 of its last use */
	size_t seen_cap;
	uint32_t chunk_mark;
	struct pubstr *pub[PUB_SEGS];
	uint32_t npub;
	size_t keep_nev, keep_touch, keep_args, keep_stop; /* spec_parse's last good event */
	enum state keep_state;
};

/* Results are recycled, arrays and all: a chunk's events fill arrays of a
 * few hundred kB, which allocated afresh for every chunk were a quarter of
 * a report's page faults. */
#define NSPARE 12
struct workers {
	struct spec w[2];
	pthread_mutex_t mu; /* guards spare */
	struct spec_result *spare[NSPARE];
	int nspare;
};

static void pend(struct parser *ps, struct evtmp *ev, size_t args_start, const char *at)
{
	struct spec_result *r = ps->spec->r;
	if (r->nev == r->ev_cap && tg_grow((void **)&r->ev, &r->ev_cap, r->nev + 1, sizeof(*r->ev)))
		oom(ps);
	r->ev[r->nev++] = (struct pending){*ev, ps->base + (uint64_t)(at - ps->buf), (uint32_t)args_start,
	                                   (uint32_t)(ps->t->nargs - args_start)};
}

/* intern()'s note of atom a on a worker: published when new, listed when
 * the chunk uses it for the first time. */
static void spec_note_atom(struct parser *ps, uint32_t a)
{
	struct spec *w = ps->spec;
	if (a == w->npub) { /* new */
		if (a / PUB_SEG >= PUB_SEGS)
			oom(ps); /* 16 M strings: the worker stops, the reader reads on */
		if (!w->pub[a / PUB_SEG] && !(w->pub[a / PUB_SEG] = tg_malloc(PUB_SEG * sizeof(struct pubstr))))
			oom(ps);
		w->pub[a / PUB_SEG][a % PUB_SEG] =
			(struct pubstr){tg_atoms_str(ps->t->atoms, a), (uint32_t)tg_atoms_len(ps->t->atoms, a)};
		w->npub++;
	}
	if (a >= w->seen_cap) {
		size_t old = w->seen_cap;
		if (tg_grow((void **)&w->seen, &w->seen_cap, (size_t)a + 1, sizeof(uint32_t)))
			oom(ps);
		memset(w->seen + old, 0, (w->seen_cap - old) * sizeof(uint32_t));
	}
	if (w->seen[a] != w->chunk_mark) {
		struct spec_result *r = w->r;
		w->seen[a] = w->chunk_mark;
		if (r->ntouch == r->touch_cap && tg_grow((void **)&r->touch, &r->touch_cap, r->ntouch + 1, sizeof(uint32_t)))
			oom(ps);
		r->touch[r->ntouch++] = a;
	}
}

/* fast_key's masks, and the argument values written whole as v.u (an
 * atom in its low half), read words as a little-endian CPU does. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the trace reader assumes a little-endian CPU"
#endif

/* The ten keys of an event the reader reads (the others are skipped). */
enum event_key { EK_OTHER, EK_PH, EK_TS, EK_ID, EK_BP, EK_CAT, EK_PID, EK_TID, EK_DUR, EK_NAME, EK_ARGS };

/* An event's key among the ten the reader looks for, read without a
 * string scan: p is after the opening quote; the bytes there are compared
 * 8 at a time with the key and its closing quote (the window and the
 * chunks have 64 NUL bytes after their data). Returns the byte after the
 * closing quote with *k and *id set, or NULL (another key, or one written
 * with escapes: scan_string reads it, key_id names it). The key is copied
 * from a literal padded with NULs to 8 bytes, which the compiler makes an
 * immediate: a copy of its n + 1 bytes was built on the stack at every
 * comparison and read back whole, a load the CPU cannot forward from the
 * narrower stores before it: it waits for them to retire (a third of
 * parse_event's samples fell there, perf on compiled_r1; with arg_slot's
 * arguments filled in place, a read on one thread took 5-7 % less time,
 * xdit_sd_3.5 and h200-dev base_r1). */
static inline const char *fast_key(const char *p, struct str *k, enum event_key *id)
{
	uint64_t w;
	memcpy(&w, p, 8);
#define KEY(lit, n, which)                                                                       \
	do {                                                                                         \
		uint64_t m = (UINT64_C(1) << (8 * (n) + 8)) - 1, want;                                  \
		memcpy(&want, lit "\"\0\0\0\0\0\0\0", 8);                                              \
		if ((w & m) == want) {                                                                   \
			k->s = p;                                                                            \
			k->len = (n);                                                                        \
			*id = (which);                                                                       \
			return p + (n) + 1;                                                                  \
		}                                                                                        \
	} while (0)
	switch (*p) {
	case 'p': KEY("ph", 2, EK_PH); KEY("pid", 3, EK_PID); break;
	case 't': KEY("ts", 2, EK_TS); KEY("tid", 3, EK_TID); break;
	case 'c': KEY("cat", 3, EK_CAT); break;
	case 'd': KEY("dur", 3, EK_DUR); break;
	case 'n': KEY("name", 4, EK_NAME); break;
	case 'a': KEY("args", 4, EK_ARGS); break;
	case 'i': KEY("id", 2, EK_ID); break;
	case 'b': KEY("bp", 2, EK_BP); break;
	}
#undef KEY
	return NULL;
}

/* The id of a key scan_string read (its escapes resolved). */
static inline enum event_key key_id(const struct str *k)
{
	const char *s = k->s;
	switch (k->len) {
	case 2:
		return s[0] == 'p' && s[1] == 'h'   ? EK_PH
		       : s[0] == 't' && s[1] == 's' ? EK_TS
		       : s[0] == 'i' && s[1] == 'd' ? EK_ID
		       : s[0] == 'b' && s[1] == 'p' ? EK_BP
		                                    : EK_OTHER;
	case 3:
		return !memcmp(s, "cat", 3)   ? EK_CAT
		       : !memcmp(s, "pid", 3) ? EK_PID
		       : !memcmp(s, "tid", 3) ? EK_TID
		       : !memcmp(s, "dur", 3) ? EK_DUR
		                              : EK_OTHER;
	case 4: return !memcmp(s, "name", 4) ? EK_NAME : !memcmp(s, "args", 4) ? EK_ARGS : EK_OTHER;
	default: return EK_OTHER;
	}
}

/* The value at p of an event's member whose key is id; returns the end of
 * the value, NULL for EK_OTHER (parse_event skips it). */
static inline const char *event_member(struct parser *ps, const char *p, enum event_key id, struct evtmp *ev)
{
	const char *v = p;
	struct str s;
	int is_int;
	switch (id) {
	case EK_PH:
		/* one printable ASCII byte between quotes, as every event writes it:
		 * what scan_string would read, without its scan */
		if (p[0] == '"' && p[2] == '"' && p[1] >= ' ' && p[1] <= '~' && p[1] != '"' && p[1] != '\\') {
			ev->ph = p[1];
			return p + 3;
		}
		if (*p != '"')
			*p ? die(ps, v, "\"ph\" must be a string") : need_more(ps, p);
		p = scan_string(ps, p + 1, &s);
		if (s.len != 1)
			die(ps, v, "\"ph\" must be one character");
		ev->ph = s.s[0];
		return p;
	case EK_TS: {
		const char *q = fast_us(p, &ev->ts);
		if (q && ev->ts > -TS_LIMIT && ev->ts < TS_LIMIT) {
			p = q;
		} else {
			if (*p != '-' && !is_digit(*p))
				bad_number(ps, p, "ts");
			p = scan_number(ps, p, &is_int);
			if (span_us_to_ns(v, p, &ev->ts) || ev->ts <= -TS_LIMIT || ev->ts >= TS_LIMIT)
				die(ps, v, "\"ts\" out of range");
		}
		ev->has_ts = 1;
		return p;
	}
	case EK_ID: return parse_flow_id(ps, p, ev);
	case EK_BP:
		if (*p != '"')
			*p ? die(ps, v, "\"bp\" must be a string") : need_more(ps, p);
		p = scan_string(ps, p + 1, &s);
		ev->bp_e = s.len == 1 && s.s[0] == 'e';
		return p;
	case EK_CAT: return parse_cat(ps, p, ev);
	case EK_PID: return parse_id_field(ps, p, &ev->key.pid, &ev->key.pid_str, "pid");
	case EK_TID: return parse_id_field(ps, p, &ev->key.tid, &ev->key.tid_str, "tid");
	case EK_DUR: {
		const char *q = fast_us(p, &ev->dur);
		if (q && ev->dur < DUR_LIMIT) {
			p = q;
		} else {
			if (*p != '-' && !is_digit(*p))
				bad_number(ps, p, "dur");
			p = scan_number(ps, p, &is_int);
			if (span_us_to_ns(v, p, &ev->dur) || ev->dur >= DUR_LIMIT)
				die(ps, v, "\"dur\" out of range");
		}
		ev->has_dur = 1;
		return p;
	}
	case EK_NAME:
		if (*p != '"')
			*p ? die(ps, v, "\"name\" must be a string") : need_more(ps, p);
		p = scan_string(ps, p + 1, &s);
		ev->name = intern(ps, s.s, s.len);
		return p;
	case EK_ARGS:
		if (*p != '{')
			*p ? die(ps, v, "\"args\" must be an object") : need_more(ps, p);
		return parse_args(ps, p, ev);
	default: return NULL;
	}
}

/* Parses one element of traceEvents at p (after whitespace). */
static const char *parse_event(struct parser *ps, const char *p)
{
	if (*p != '{')
		unexpected(ps, p, "an event object in \"traceEvents\"");
	const char *at = p;
	struct evtmp ev;
	evtmp_init(&ev);
	size_t args_start = ps->t->nargs;
	struct str k;
	p = ws(p + 1);
	if (*p == '}') {
		if (ps->spec) {
			pend(ps, &ev, args_start, at); /* ph 0: counted as skipped when committed */
			return p + 1;
		}
		ps->t->stats.raw_events++;
		ps->t->stats.skipped_events++;
		return p + 1;
	}
	for (;;) {
		if (*p != '"')
			unexpected(ps, p, "a string key in an event");
		enum event_key id;
		const char *q = fast_key(p + 1, &k, &id);
		if (!q) {
			q = scan_string(ps, p + 1, &k);
			id = key_id(&k);
		}
		p = q;
		if ((q = sep_space(p, ':'))) {
			p = q;
		} else {
			p = ws(p);
			if (*p != ':')
				unexpected(ps, p, "':' after an object key");
			p = ws(p + 1);
		}
		q = event_member(ps, p, id, &ev);
		p = q ? q : skip_value(ps, p, 3);
		if ((q = sep_space(p, ','))) {
			p = q;
			continue;
		}
		p = ws(p);
		if (*p == ',') {
			p = ws(p + 1);
			continue;
		}
		if (*p == '}')
			break;
		unexpected(ps, p, "',' or '}' in an event");
	}
	if (ps->spec)
		pend(ps, &ev, args_start, at);
	else
		commit_event(ps, &ev, args_start, ps->base + (uint64_t)(at - ps->buf));
	return p + 1;
}

/* A top-level member other than traceEvents: handed to jansson. */
static void parse_meta_member(struct parser *ps, const char *key_at, struct str *key,
                              const char *v, const char *end)
{
	json_error_t jerr;
	json_t *val = json_loadb(v, (size_t)(end - v), JSON_DECODE_ANY, &jerr);
	if (!val && strstr(jerr.text, "too big"))
		/* an integer beyond int64 somewhere in the member: keep it as a real */
		val = json_loadb(v, (size_t)(end - v), JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &jerr);
	if (!val)
		die(ps, v, "in this top-level member: %s", jerr.text);
	char *k = strndup(key->s, key->len);
	if (!k) {
		json_decref(val);
		oom(ps);
	}
	(void)key_at;
	json_object_set_new(ps->t->meta, k, val);
	free(k);
}

/* The unit at the start of the document (p after whitespace): a byte-order
 * mark, then the top-level object or a bare array of events. */
static void unit_begin(struct parser *ps, const char *p)
{
	if ((unsigned char)p[0] == 0xEF) {
		if (!p[1] || !p[2])
			need_more(ps, p[1] ? p + 2 : p + 1);
		if ((unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
			p = ws(p + 3);
	}
	if (*p == '{') {
		ps->state = ST_TOP_FIRST;
	} else if (*p == '[') {
		ps->state = ST_EVENTS_FIRST;
		ps->after_events = ST_DONE;
		ps->seen_events = 1;
	} else if (*p == 0 && p == ps->buf + ps->len && ps->eof) {
		die(ps, p, "empty file: no JSON document");
	} else {
		unexpected(ps, p, "a JSON object with \"traceEvents\" (or an array of events)");
	}
	ps->p = p + 1;
}

/* The next top-level member (or the object's end) at p: traceEvents opens
 * the events, any other member goes to jansson (parse_meta_member). */
static void unit_top(struct parser *ps, const char *p)
{
	struct str k;
	if (*p == '}') {
		ps->state = ST_DONE;
		ps->p = p + 1;
		if (!ps->seen_events)
			die(ps, p, "not a trace: the top-level object has no \"traceEvents\" array");
		return;
	}
	if (ps->state == ST_TOP_NEXT) {
		if (*p != ',')
			unexpected(ps, p, "',' or '}' after a top-level member");
		p = ws(p + 1);
	}
	if (*p != '"')
		unexpected(ps, p, "a string key");
	{
		const char *key_at = p;
		p = ws(scan_string(ps, p + 1, &k));
		if (*p != ':')
			unexpected(ps, p, "':' after an object key");
		p = ws(p + 1);
		if (k.len == 11 && !memcmp(k.s, "traceEvents", 11)) {
			if (ps->seen_events)
				die(ps, key_at, "duplicate \"traceEvents\"");
			if (*p != '[')
				*p ? die(ps, p, "\"traceEvents\" must be an array") : need_more(ps, p);
			ps->seen_events = 1;
			ps->state = ST_EVENTS_FIRST;
			ps->after_events = ST_TOP_NEXT;
			ps->p = p + 1;
			return;
		}
		/* the key out of the scratch first: skip_value decodes an escaped
		 * string of the value there too, which would move or overwrite
		 * an escaped key (the fuzzer's use after free) */
		if (tg_grow((void **)&ps->meta_key, &ps->meta_key_cap, k.len + 1, 1))
			oom(ps);
		memcpy(ps->meta_key, k.s, k.len);
		k.s = ps->meta_key;
		const char *v = p;
		p = skip_value(ps, p, 1);
		parse_meta_member(ps, key_at, &k, v, p);
	}
	ps->state = ST_TOP_NEXT;
	ps->p = p;
}

/* Parses one unit from the current state. */
static void parse_unit(struct parser *ps)
{
	const char *p = ws(ps->p);
	switch (ps->state) {
	case ST_BEGIN:
		unit_begin(ps, p);
		return;
	case ST_TOP_FIRST:
	case ST_TOP_NEXT:
		unit_top(ps, p);
		return;
	case ST_EVENTS_FIRST:
		if (*p == ']') {
			ps->state = ps->after_events;
			ps->p = p + 1;
			return;
		}
		ps->p = parse_event(ps, p);
		ps->state = ST_EVENTS_NEXT;
		return;
	case ST_EVENTS_NEXT:
		if (*p == ',') {
			/* a unit of its own: the next event's unit starts at its '{', where a
			 * chunk parsed ahead may start (refill) */
			ps->state = ST_EVENTS_ELEM;
			ps->p = p + 1;
			return;
		}
		if (*p == ']') {
			ps->state = ps->after_events;
			ps->p = p + 1;
			return;
		}
		unexpected(ps, p, "',' or ']' after an event");
	case ST_EVENTS_ELEM:
		ps->p = parse_event(ps, p);
		ps->state = ST_EVENTS_NEXT;
		return;
	case ST_DONE:
		if (*p == 0) {
			if (p < ps->buf + ps->len)
				die(ps, p, "NUL byte in the JSON text");
			if (!ps->eof)
				longjmp(ps->jb, J_MORE);
			ps->state = ST_FINISHED;
			return;
		}
		die(ps, p, "trailing data after the JSON document");
	case ST_FINISHED:
		return;
	}
}

#endif
