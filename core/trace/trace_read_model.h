/*
 * trace_read_model.h - what the reader keeps of an event: interned
 * strings, tracks, categories, and committing an event into the trace
 * (B/E pairs, flows, metadata; the shared argument lists are
 * trace_read_args.h's, the parsing of "args" trace_read_argv.h's).
 *
 * A piece of trace_read.c's one translation unit, which includes it once,
 * after the pieces before it and the system headers: the functions stay
 * static in one unit, so the compiler inlines across the pieces as it did
 * when they were one file (issue 24's speed). Nothing else includes it.
 */
#ifndef TG_TRACE_READ_MODEL_H
#define TG_TRACE_READ_MODEL_H

/* ------------------------------------------------------------------ model */

/* The cache slot of the len bytes at s, and two words that hold every one
 * of them when len <= 16 (the cache's entries match on len and the words,
 * and compare the bytes only when longer): the first 8 and the last 8
 * bytes; below 8, the first and the last 4, or the first, middle and last
 * byte (fixed-size loads, not a memcpy of a variable length). */
static inline size_t icache_slot(const char *s, size_t len, uint64_t *a, uint64_t *b)
{
	*b = 0;
	if (len >= 8) {
		memcpy(a, s, 8);
		if (len > 8)
			memcpy(b, s + len - 8, 8);
	} else if (len >= 4) {
		uint32_t lo, hi;
		memcpy(&lo, s, 4);
		memcpy(&hi, s + len - 4, 4);
		*a = (uint64_t)lo | (uint64_t)hi << 32;
	} else {
		*a = len ? (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
		               (uint64_t)(unsigned char)s[len - 1] << 16
		         : 0;
	}
	uint64_t h = (*a ^ (len * 0x9E3779B97F4A7C15ULL)) * 0xff51afd7ed558ccdULL ^ *b * 0xc4ceb9fe1a85ec53ULL;
	return (size_t)(h >> 52) & (ICACHE_SLOTS - 1);
}

static void spec_note_atom(struct parser *ps, uint32_t a);

/* intern's miss: the atoms' own table, and the string into cache slot c. */
static __attribute__((noinline)) uint32_t intern_slow(struct parser *ps, const char *s, size_t len, struct icache *c,
                                                      uint64_t wa, uint64_t wb)
{
	uint32_t a;
	if (tg_atoms_intern(&a, ps->t->atoms, s, len)) {
		ps->err = tg_error_last_code();
		longjmp(ps->jb, J_ERROR);
	}
	if (len <= UINT32_MAX)
		*c = (struct icache){wa, wb, tg_atoms_str(ps->t->atoms, a), (uint32_t)len, a};
	return a;
}

/* Whether the len bytes (more than 16) at x and y, whose first and last 8
 * agree, agree between them: up to 32 bytes by two word loads a side
 * (most names and argument keys: memcmp was a call for each), more by
 * memcmp. */
static inline __attribute__((always_inline)) int same_middle(const char *x, const char *y, size_t len)
{
	if (len <= 32) {
		uint64_t x1, y1, x2, y2;
		memcpy(&x1, x + 8, 8);
		memcpy(&y1, y + 8, 8);
		memcpy(&x2, x + len - 16, 8);
		memcpy(&y2, y + len - 16, 8);
		return x1 == y1 && x2 == y2;
	}
	return memcmp(x + 8, y + 8, len - 16) == 0;
}

/* The atom of the len bytes at s (made when new); inline for the cache's
 * hits (220,000 calls a base_r1 read, 15 instructions each were the
 * call's). */
static inline __attribute__((always_inline)) uint32_t intern(struct parser *ps, const char *s, size_t len)
{
	uint64_t wa, wb;
	struct icache *c = &ps->icache[icache_slot(s, len, &wa, &wb)];
	uint32_t a;
	if (c->str && c->len == len && c->a == wa && c->b == wb && (len <= 16 || same_middle(c->str, s, len)))
		a = c->atom;
	else
		a = intern_slow(ps, s, len, c, wa, wb);
	if (ps->spec)
		spec_note_atom(ps, a);
	return a;
}

/* arg_slot's growth of the arguments' array (out of line: rare). */
static __attribute__((noinline)) void grow_args(struct parser *ps)
{
	tg_trace *t = ps->t;
	if (tg_big_grow((void **)&t->args, &t->args_cap, t->nargs + 1, sizeof(tg_arg)))
		oom(ps);
}

/* The slot of the next argument of the trace's (or the worker's)
 * arguments, t->args[t->nargs], with room made for it; the caller fills it
 * in place, then counts it (t->nargs++). The slot is valid until the next
 * call. Inline: a call for each argument was 0.5 M instructions of an
 * h200-dev read. Not a tg_arg filled on the stack and copied: the copy's
 * 8-byte load spans the narrower stores of the bitfields and the value,
 * which the CPU cannot forward to it, and it waits for them to retire
 * (4 % of parse_event's samples, perf on compiled_r1; fast_key has the
 * measured gain). */
static inline tg_arg *arg_slot(struct parser *ps)
{
	tg_trace *t = ps->t;
	if (t->nargs == t->args_cap)
		grow_args(ps);
	return &t->args[t->nargs];
}

/* Fills the head of the argument at a (its key, type and .last bits: one
 * 32-bit word) with one store. Assigned a field at a time, the word is
 * loaded, merged and stored: where the slot begins a page of the array
 * no one has written yet, that load maps the zero page, and the store
 * then faults a second time and flushes the page from the other CPU's
 * TLB while the feeder runs there (an interrupt to it; 19 of an h200-dev
 * report's 1,077 page faults were these). */
static inline void arg_head_set(tg_arg *a, uint32_t key, unsigned type)
{
	const tg_arg h = {.key = key, .type = type, .last = 0};
	memcpy(a, &h, sizeof(uint32_t)); /* the bit-fields come first */
}

static uint64_t tkey_hash(const struct tkey *k)
{
	return tg_hash_bytes(k, sizeof(*k));
}

static int tkey_eq(const struct tkey *a, const tg_track *t)
{
	return a->pid == t->pid && a->tid == t->tid && a->pid_str == t->pid_str &&
	       a->tid_str == t->tid_str;
}

/* track_get's miss: the tracks' table, a new track when none has k. */
static __attribute__((noinline)) uint32_t track_find(struct parser *ps, const struct tkey *k)
{
	tg_trace *t = ps->t;
	size_t i = (size_t)tkey_hash(k) & ps->tmask;
	for (;; i = (i + 1) & ps->tmask) {
		uint32_t s = ps->tslots[i];
		if (!s)
			break;
		if (tkey_eq(k, &t->tracks[s - 1]))
			return ps->last_track = s - 1;
	}
	if (tg_grow((void **)&t->tracks, &t->tracks_cap, t->ntracks + 1, sizeof(tg_track)))
		oom(ps);
	uint32_t idx = (uint32_t)t->ntracks++;
	t->tracks[idx] = (tg_track){.pid = k->pid, .tid = k->tid, .pid_str = k->pid_str,
	                            .tid_str = k->tid_str, .thread_name = TG_NONE};
	ps->tslots[i] = idx + 1;
	if (t->ntracks * 2 > ps->tmask) {
		size_t nmask = ps->tmask * 2 + 1;
		uint32_t *ns = tg_calloc(nmask + 1, sizeof(uint32_t));
		if (!ns)
			oom(ps);
		for (size_t j = 0; j < t->ntracks; j++) {
			struct tkey kk = {t->tracks[j].pid, t->tracks[j].tid, t->tracks[j].pid_str,
			                  t->tracks[j].tid_str};
			size_t s = (size_t)tkey_hash(&kk) & nmask;
			while (ns[s])
				s = (s + 1) & nmask;
			ns[s] = (uint32_t)j + 1;
		}
		free(ps->tslots);
		ps->tslots = ns;
		ps->tmask = nmask;
	}
	return ps->last_track = idx;
}

/* The track of key k (made when new); inline for the last event's track
 * (a call for each event was 0.5 M instructions of an h200-dev read). */
static inline uint32_t track_get(struct parser *ps, const struct tkey *k)
{
	if (ps->last_track != TG_NONE && tkey_eq(k, &ps->t->tracks[ps->last_track]))
		return ps->last_track;
	return track_find(ps, k);
}

/* Category name to kind; flows get *flow >= 0. */
static int category_kind(const char *s, size_t n, int *flow)
{
	*flow = -1;
#define IS(lit) (n == sizeof(lit) - 1 && eq_lit(s, lit, sizeof(lit) - 1))
	switch (n) {
	case 4:
		if (IS("ac2g")) return *flow = TG_FLOW_LAUNCH, TG_KIND_OTHER;
		break;
	case 5:
		if (IS("async")) return *flow = TG_FLOW_LAUNCH, TG_KIND_OTHER;
		if (IS("Trace")) return TG_KIND_TRACE_SPAN;
		break;
	case 6:
		if (IS("cpu_op")) return TG_KIND_CPU_OP;
		if (IS("kernel") || IS("Kernel")) return TG_KIND_KERNEL;
		if (IS("Memcpy")) return TG_KIND_MEMCPY;
		if (IS("Memset")) return TG_KIND_MEMSET;
		if (IS("fwdbwd")) return *flow = TG_FLOW_FWDBWD, TG_KIND_OTHER;
		break;
	case 7:
		if (IS("Runtime")) return TG_KIND_RUNTIME;
		break;
	case 8:
		if (IS("Operator") || IS("operator")) return TG_KIND_CPU_OP;
		if (IS("overhead")) return TG_KIND_OVERHEAD;
		break;
	case 9:
		if (IS("async_gpu")) return *flow = TG_FLOW_LAUNCH, TG_KIND_OTHER;
		if (IS("cuda_sync")) return TG_KIND_SYNC;
		break;
	case 10:
		if (IS("gpu_memcpy")) return TG_KIND_MEMCPY;
		if (IS("gpu_memset")) return TG_KIND_MEMSET;
		break;
	case 11:
		if (IS("cuda_driver")) return TG_KIND_DRIVER;
		break;
	case 12:
		if (IS("cuda_runtime")) return TG_KIND_RUNTIME;
		if (IS("mtia_runtime")) return TG_KIND_RUNTIME;
		break;
	case 15:
		if (IS("python_function")) return TG_KIND_PYTHON;
		if (IS("user_annotation")) return TG_KIND_USER_ANNOTATION;
		if (IS("mtia_ccp_events")) return TG_KIND_KERNEL;
		break;
	case 16:
		if (IS("async_cpu_to_gpu")) return *flow = TG_FLOW_LAUNCH, TG_KIND_OTHER;
		break;
	case 17:
		if (IS("cpu_instant_event")) return TG_KIND_INSTANT;
		break;
	case 19:
		if (IS("gpu_user_annotation")) return TG_KIND_GPU_ANNOTATION;
		if (IS("cuda_profiler_range")) return TG_KIND_PROFILER_RANGE;
		break;
	}
#undef IS
	return TG_KIND_OTHER;
}

/* A pid or tid value: integer, string (numeric strings become integers, so
 * that "1441273664" and 1441273664 are one thread), or null. */
static const char *parse_id_field_slow(struct parser *ps, const char *p, int64_t *num, uint32_t *str,
                                       const char *field)
{
	*num = 0;
	*str = TG_NONE;
	if (*p == '"') {
		struct str s;
		p = scan_string(ps, p + 1, &s);
		size_t i = (s.len && s.s[0] == '-') ? 1 : 0;
		int numeric = s.len > i && s.len - i <= 18;
		for (size_t j = i; numeric && j < s.len; j++)
			numeric = is_digit(s.s[j]);
		if (numeric) {
			int64_t v = 0;
			for (size_t j = i; j < s.len; j++)
				v = v * 10 + (s.s[j] - '0');
			*num = i ? -v : v;
		} else {
			*str = intern(ps, s.s, s.len);
		}
		return p;
	}
	if (*p == '-' || is_digit(*p)) {
		int is_int, uns;
		const char *s = p, *q = fast_int(p, num);
		if (q)
			return q;
		p = scan_number(ps, p, &is_int);
		if (!is_int || span_int(s, p, num, &uns))
			die(ps, s, "\"%s\" must be an integer or a string", field);
		return p;
	}
	if (*p == 'n')
		return expect_literal(ps, p, "null");
	unexpected(ps, p, field[0] == 'p' ? "an integer or string pid" : "an integer or string tid");
}

/* parse_id_field_slow, with the common case inline: a plain integer
 * (every event has a pid and a tid: the call was 20 instructions of 95). */
static inline const char *parse_id_field(struct parser *ps, const char *p, int64_t *num, uint32_t *str,
                                         const char *field)
{
	if (is_digit(*p)) {
		const char *q = fast_int(p, num);
		if (q) {
			*str = TG_NONE;
			return q;
		}
	}
	return parse_id_field_slow(ps, p, num, str, field);
}

/* What one traceEvents element holds while it is parsed (evtmp_init): the
 * flags a byte each after the wide fields, 112 bytes. */
struct evtmp {
	int kind, flow;
	uint32_t name, cat;
	struct tkey key;
	int64_t ts, dur;
	uint64_t id;
	int64_t corr, ext, pyid, pyparent;
	char ph;
	uint8_t has_ts, has_dur, has_id, bp_e;
	uint8_t has_corr, has_ext, has_pyid, has_pyparent;
};
_Static_assert(sizeof(struct evtmp) == 112, "evtmp_init clears 7 x 16 bytes");

/* An event with nothing read yet. Cleared by seven vector stores where
 * SSE2 is: the compiler cleared it with `rep stos` at every event, whose
 * start-up cost 4 % of parse_event's samples (perf on compiled_r1). */
static inline void evtmp_init(struct evtmp *ev)
{
#if defined(__SSE2__)
	/* not a loop, which the compiler turns back into a memset */
	__m128i z = _mm_setzero_si128(), *v = (__m128i *)(void *)ev;
	_mm_storeu_si128(v, z);
	_mm_storeu_si128(v + 1, z);
	_mm_storeu_si128(v + 2, z);
	_mm_storeu_si128(v + 3, z);
	_mm_storeu_si128(v + 4, z);
	_mm_storeu_si128(v + 5, z);
	_mm_storeu_si128(v + 6, z);
	ev->kind = TG_KIND_OTHER;
	ev->flow = -1;
	ev->name = ev->cat = TG_NONE;
	ev->key.pid_str = ev->key.tid_str = TG_NONE;
#else
	*ev = (struct evtmp){.kind = TG_KIND_OTHER, .flow = -1, .name = TG_NONE, .cat = TG_NONE,
	                     .key = {0, 0, TG_NONE, TG_NONE}};
#endif
}

static void commit_metadata(struct parser *ps, struct evtmp *ev, size_t args_start)
{
	tg_trace *t = ps->t;
	const char *what = tg_atoms_str(t->atoms, ev->name);
	int is_labels = !strcmp(what, "process_labels");
	uint32_t key = tg_atoms_find(t->atoms, is_labels ? "labels" : "name", is_labels ? 6 : 4);
	uint32_t value = TG_NONE;
	for (size_t i = args_start; i < t->nargs; i++)
		if (t->args[i].key == key && t->args[i].type == TG_ARG_STR)
			value = t->args[i].v.atom;
	t->nargs = args_start;
	if (value == TG_NONE)
		return;
	if (!strcmp(what, "thread_name")) {
		uint32_t tr = track_get(ps, &ev->key);
		t->tracks[tr].thread_name = value;
	} else if ((is_labels || !strcmp(what, "process_name")) && ev->key.pid_str == TG_NONE) {
		struct process_name *pn = NULL;
		for (size_t i = 0; i < t->npnames && !pn; i++)
			if (t->pnames[i].pid == ev->key.pid)
				pn = &t->pnames[i];
		if (!pn) {
			if (tg_grow((void **)&t->pnames, &t->pnames_cap, t->npnames + 1, sizeof(*t->pnames)))
				oom(ps);
			pn = &t->pnames[t->npnames++];
			*pn = (struct process_name){ev->key.pid, TG_NONE, TG_NONE};
		}
		if (is_labels)
			pn->labels = value;
		else
			pn->name = value;
	}
}

/* Flow f's id: in f->id32 when it fits 32 bits, else appended to the
 * trace's wide flow ids, f->id32 its index there. at: the flow's JSON
 * offset, for the message. */
static void set_flow_id(struct parser *ps, tg_flow *f, uint64_t id, uint64_t at)
{
	tg_trace *t = ps->t;
	if (id <= UINT32_MAX) {
		f->id32 = (uint32_t)id;
		return;
	}
	if (t->nwide_flow_ids >= UINT32_MAX)
		die_off(ps, TG_ELIMIT, at, "more than %u flow ids beyond 32 bits", UINT32_MAX);
	if (tg_grow((void **)&t->wide_flow_ids, &t->wide_flow_ids_cap, t->nwide_flow_ids + 1, sizeof(uint64_t)))
		oom(ps);
	f->id32 = (uint32_t)t->nwide_flow_ids;
	f->wide_id = 1;
	t->wide_flow_ids[t->nwide_flow_ids++] = id;
}

/* A flow event (ph s, t, f) into t->flows; with launch_flows_only, only
 * a kernel launch's start or end (the rest, a quarter of a training
 * trace's flows, 16 bytes each that tg_tree_build never reads, still
 * makes its track, so that the tracks do not depend on the option). */
static void commit_flow(struct parser *ps, const struct evtmp *ev, uint64_t at)
{
	tg_trace *t = ps->t;
	if (!ev->has_ts || !ev->has_id)
		die_off(ps, TG_EFORMAT, at, "flow event without \"ts\" or \"id\"");
	if (ps->launch_flows_only && (ev->flow != TG_FLOW_LAUNCH || (ev->ph != 's' && ev->ph != 'f'))) {
		track_get(ps, &ev->key);
		return;
	}
	if (tg_big_grow((void **)&t->flows, &t->flows_cap, t->nflows + 1, sizeof(tg_flow)))
		oom(ps);
	uint32_t track = track_get(ps, &ev->key);
	if (track > TG_TRACK_MAX) /* a flow keeps its track in 19 bits, as an event does */
		die_off(ps, TG_ELIMIT, at, "more than %u tracks (limit)", TG_TRACK_MAX + 1);
	tg_flow *f = &t->flows[t->nflows++];
	*f = (tg_flow){.ts = ev->ts, .track = track, .ph = (uint8_t)ev->ph,
	               .type = (unsigned)(ev->flow >= 0 ? ev->flow : TG_FLOW_OTHER),
	               .bind_enclosing = ev->bp_e ? 1 : 0};
	set_flow_id(ps, f, ev->id, at);
}

/* set_dur's rare case: dur appended to the trace's wide durations. */
static __attribute__((noinline)) unsigned set_wide_dur(struct parser *ps, tg_event *e, int64_t dur, uint64_t at)
{
	tg_trace *t = ps->t;
	if (t->nwide_durs >= UINT32_MAX)
		die_off(ps, TG_ELIMIT, at, "more than %u durations beyond 32 bits", UINT32_MAX);
	if (tg_grow((void **)&t->wide_durs, &t->wide_durs_cap, t->nwide_durs + 1, sizeof(int64_t)))
		oom(ps);
	e->dur32 = (uint32_t)t->nwide_durs;
	t->wide_durs[t->nwide_durs++] = dur;
	return TG_EV_WIDE_DUR;
}

/* Duration dur (ns, >= 0) of event e: in e->dur32 when it fits 32 bits,
 * else appended to the trace's wide durations with e->dur32 its index;
 * returns TG_EV_WIDE_DUR then, else 0. at: the event's JSON offset, for
 * the message. */
static inline unsigned set_dur(struct parser *ps, tg_event *e, int64_t dur, uint64_t at)
{
	if (__builtin_expect(dur <= (int64_t)UINT32_MAX, 1)) {
		e->dur32 = (uint32_t)dur;
		return 0;
	}
	return set_wide_dur(ps, e, dur, at);
}

/* An E event at ts closes the latest open B event of its track; an E
 * without one is counted as skipped. at: the E event's JSON offset. */
static void close_begin(struct parser *ps, int64_t ts, uint32_t track, uint64_t at)
{
	tg_trace *t = ps->t;
	for (size_t i = ps->nopen; i-- > 0;) {
		tg_event *b = &t->events[ps->open[i]];
		if (b->track == track) {
			unsigned wide = set_dur(ps, b, ts > b->ts ? ts - b->ts : 0, at);
			b->flags = (b->flags & ~(unsigned)TG_EV_UNCLOSED) | wide;
			memmove(ps->open + i, ps->open + i + 1, (ps->nopen - i - 1) * sizeof(uint32_t));
			ps->nopen--;
			return;
		}
	}
	t->stats.skipped_events++; /* an E without its B */
}

/* The kind an event is stored with: instants (ph i, I) are
 * TG_KIND_INSTANT with no duration (*flags gets TG_EV_INSTANT), MTIA's
 * device DMA "kernels" are memcpys, else the kind of its category. */
static int stored_kind(struct parser *ps, struct evtmp *ev, uint8_t *flags)
{
	int kind = ev->kind;
	if (ev->ph == 'i' || ev->ph == 'I') {
		kind = TG_KIND_INSTANT;
		ev->dur = 0;
		*flags |= TG_EV_INSTANT;
	}
	if (kind == TG_KIND_KERNEL && ev->name != TG_NONE) {
		/* MTIA device DMA events are memory transfers */
		const char *nm = tg_atoms_str(ps->t->atoms, ev->name);
		if (nm[0] == 'd' && nm[1] == 'm' && nm[2] == 'a')
			kind = TG_KIND_MEMCPY;
	}
	return kind;
}

/* Id k of an event: in *slot (the event's id0, or its second id) when it
 * fits 32 bits, else appended to the trace's wide ids with *slot its index;
 * returns the TG_EV_WIDE_ID flag of k or 0. at: the event's JSON offset,
 * for the message. */
/* set_id of an id beyond 32 bits: kept in the trace's wide ids. */
static __attribute__((noinline)) uint8_t set_wide_id(struct parser *ps, uint32_t *slot, int k, int64_t id, uint64_t at)
{
	tg_trace *t = ps->t;
	if (t->nwide_ids >= UINT32_MAX)
		die_off(ps, TG_ELIMIT, at, "more than %u ids beyond 32 bits", UINT32_MAX);
	if (tg_grow((void **)&t->wide_ids, &t->wide_ids_cap, t->nwide_ids + 1, sizeof(int64_t)))
		oom(ps);
	*slot = (uint32_t)t->nwide_ids;
	t->wide_ids[t->nwide_ids++] = id;
	return (uint8_t)(TG_EV_WIDE_ID0 << k);
}

/* Id k of event e: in 32 bits when it fits (returns 0), else a wide id
 * (returns its TG_EV_WIDE_ID* flag). Inline for the first: two calls an
 * event were 1.3 M instructions of an h200-dev read. */
static inline uint8_t set_id(struct parser *ps, uint32_t *slot, int k, int64_t id, uint64_t at)
{
	if (id >= 0 && id <= (int64_t)UINT32_MAX) {
		*slot = (uint32_t)id;
		return 0;
	}
	return set_wide_id(ps, slot, k, id, at);
}

/* The ids of event e of kind: a python event's id and parent id, else the
 * correlation and External id; returns the TG_EV_HAS_* flags of those
 * present and the TG_EV_WIDE_ID* flags of those kept wide. */
static uint8_t set_ids(struct parser *ps, tg_event *e, uint32_t *id1, const struct evtmp *ev, int kind, uint64_t at)
{
	if (kind == TG_KIND_PYTHON) {
		uint8_t f = (uint8_t)(set_id(ps, &e->id0, 0, ev->pyid, at) | set_id(ps, id1, 1, ev->pyparent, at));
		return (uint8_t)(f | (ev->has_pyid ? TG_EV_HAS_PYID : 0) | (ev->has_pyparent ? TG_EV_HAS_PYPARENT : 0));
	}
	uint8_t f = (uint8_t)(set_id(ps, &e->id0, 0, ev->corr, at) | set_id(ps, id1, 1, ev->ext, at));
	return (uint8_t)(f | (ev->has_corr ? TG_EV_HAS_CORR : 0) | (ev->has_ext ? TG_EV_HAS_EXT : 0));
}

/* Commits the event parsed into ev (its arguments are t->args from
 * args_start on) to the model; at: the JSON offset of its '{'. */
static void commit_event(struct parser *ps, struct evtmp *ev, size_t args_start, uint64_t at)
{
	tg_trace *t = ps->t;
	tg_trace_stats *st = &t->stats;
	st->raw_events++;
	switch (ev->ph) {
	case 'M':
		st->metadata_events++;
		commit_metadata(ps, ev, args_start);
		return;
	case 'C':
		st->counter_events++;
		t->nargs = args_start;
		return;
	case 's':
	case 't':
	case 'f':
		st->flow_events++;
		t->nargs = args_start;
		commit_flow(ps, ev, at);
		return;
	case 'X':
	case 'B':
	case 'E':
	case 'i':
	case 'I':
		break;
	default:
		st->skipped_events++;
		t->nargs = args_start;
		return;
	}
	if (!ev->has_ts)
		die_off(ps, TG_EFORMAT, at, "event without \"ts\"");
	uint32_t track = track_get(ps, &ev->key);
	if (ev->ph == 'E') {
		t->nargs = args_start;
		close_begin(ps, ev->ts, track, at);
		return;
	}
	if (t->nevents >= ps->max_events)
		die_off(ps, TG_ELIMIT, at, "more than %llu events (limit)",
		         (unsigned long long)ps->max_events);
	if (ev->ph == 'X' && !ev->has_dur)
		die_off(ps, TG_EFORMAT, at, "complete event (ph X) without \"dur\"");
	if (ev->dur < 0) {
		st->negative_durations++;
		ev->dur = 0;
	}
	if (track > TG_TRACK_MAX)
		die_off(ps, TG_ELIMIT, at, "more than %u tracks (limit)", TG_TRACK_MAX + 1);
	uint8_t flags = 0;
	int kind = stored_kind(ps, ev, &flags);
	if (kind == TG_KIND_OTHER && ev->cat != TG_NONE) {
		tg_arg *a = arg_slot(ps);
		arg_head_set(a, ps->atom_cat, TG_ARG_STR);
		a->v.u = ev->cat; /* v.atom, its upper half zero, in one store */
		t->nargs++;
	}
	if (t->nargs - args_start > UINT16_MAX)
		die_off(ps, TG_ELIMIT, at, "event with more than %u arguments", UINT16_MAX);
	if (t->nargs > args_start)
		t->args[t->nargs - 1].last = 1;
	if (tg_big_grow((void **)&t->events, &t->events_cap, t->nevents + 1, sizeof(tg_event)) ||
	    tg_big_grow((void **)&t->id1s, &t->id1s_cap, t->nevents + 1, sizeof(uint32_t)))
		oom(ps);
	/* filled in place (the slot past the last event: an error on the way
	 * leaves it unused), its second id beside it */
	tg_event *e = &t->events[t->nevents];
	e->ts = ev->ts;
	e->name = ev->name == TG_NONE ? ps->atom_empty : ev->name;
	e->args = t->nargs > args_start ? share_args(ps, args_start) : TG_NONE;
	/* counted once shared: past the limit, a new list's index would not fit 32 bits */
	if (t->nargs > ps->max_args)
		die_off(ps, TG_ELIMIT, at, "more than %llu arguments (limit)", (unsigned long long)ps->max_args);
	unsigned fl = flags | set_dur(ps, e, ev->ph == 'B' ? 0 : ev->dur, at) |
	              set_ids(ps, e, &t->id1s[t->nevents], ev, kind, at);
	if (ev->ph == 'B') {
		fl |= TG_EV_UNCLOSED;
		if (tg_grow((void **)&ps->open, &ps->open_cap, ps->nopen + 1, sizeof(uint32_t)))
			oom(ps);
		ps->open[ps->nopen++] = (uint32_t)t->nevents;
	}
	e->kind = (unsigned)kind;
	e->track = track;
	e->flags = fl;
	t->nevents++;
	st->by_kind[kind]++;
	t->tracks[track].nevents++;
	if (tg_kind_is_gpu(kind))
		t->tracks[track].ngpu++;
}

/* An event's "id" at p (a flow's; a number, or a string read as a number
 * or else hashed) into ev. Returns the end of the value. */
static const char *parse_flow_id(struct parser *ps, const char *p, struct evtmp *ev)
{
	const char *v = p;
	struct str s;
	if (*p == '"') {
		p = scan_string(ps, p + 1, &s);
		char tmp[24];
		char *end = NULL;
		if (s.len > 0 && s.len < sizeof(tmp)) {
			memcpy(tmp, s.s, s.len);
			tmp[s.len] = 0;
			ev->id = strtoull(tmp, &end, 0);
		}
		if (!end || *end)
			ev->id = tg_hash_bytes(s.s, s.len);
	} else {
		int64_t iv;
		int uns, is_int;
		const char *q = fast_int(p, &iv); /* span_int's value where it answers */
		if (q) {
			p = q;
		} else {
			p = scan_number(ps, p, &is_int);
			if (!is_int || span_int(v, p, &iv, &uns))
				die(ps, v, "\"id\" must be an integer or a string");
		}
		ev->id = (uint64_t)iv;
	}
	ev->has_id = 1;
	return p;
}

/* An event's "cat" at p (a string or null) into ev: its kind and flow
 * type, and the category itself when it names neither. Returns the end of
 * the value. */
static const char *parse_cat(struct parser *ps, const char *p, struct evtmp *ev)
{
	struct str s;
	if (*p == 'n')
		return expect_literal(ps, p, "null");
	if (*p != '"')
		*p ? die(ps, p, "\"cat\" must be a string") : need_more(ps, p);
	p = scan_string(ps, p + 1, &s);
	ev->kind = category_kind(s.s, s.len, &ev->flow);
	if (ev->kind == TG_KIND_OTHER && ev->flow < 0)
		ev->cat = intern(ps, s.s, s.len);
	return p;
}

#endif
