/*
 * trace_read_argv.h - an event's "args": the integer ids the reader keeps
 * in the event itself, the arguments kept as they are (the arrays kept
 * whole read again from a cache of the last ones), and the rest skipped.
 *
 * A piece of trace_read.c's one translation unit, which includes it once,
 * after trace_read_model.h (the string cache, the arguments' array, struct
 * evtmp) and before trace_read_event.h (whose "args" key calls parse_args):
 * the functions stay static in one unit, so the compiler inlines across
 * the pieces. Nothing else includes it.
 */
#ifndef TG_TRACE_READ_ARGV_H
#define TG_TRACE_READ_ARGV_H

/* An integer id argument (correlation, External id, Python id...): integer,
 * numeric string, or null (*has = 0). */
static const char *parse_int_arg_slow(struct parser *ps, const char *p, int64_t *v, uint8_t *has,
                                      const char *what)
{
	*has = 0;
	if (*p == 'n')
		return expect_literal(ps, p, "null");
	if (*p == '-' || is_digit(*p)) {
		int is_int, uns;
		const char *s = p, *q = fast_int(p, v);
		*has = 1;
		if (q)
			return q;
		p = scan_number(ps, p, &is_int);
		if (!is_int || span_int(s, p, v, &uns))
			die(ps, s, "argument \"%s\" must be an integer", what);
		return p;
	}
	if (*p == '"') {
		struct str s;
		const char *at = p;
		p = scan_string(ps, p + 1, &s);
		char tmp[32];
		if (s.len == 0 || s.len >= sizeof(tmp))
			die(ps, at, "argument \"%s\" must be an integer", what);
		memcpy(tmp, s.s, s.len);
		tmp[s.len] = 0;
		char *end;
		errno = 0;
		long long x = strtoll(tmp, &end, 0);
		if (*end || errno)
			die(ps, at, "argument \"%s\" must be an integer", what);
		*v = x;
		*has = 1;
		return p;
	}
	unexpected(ps, p, "an integer");
}

/* parse_int_arg_slow, with a plain integer inline (40,000 calls a base_r1
 * read). */
static inline const char *parse_int_arg(struct parser *ps, const char *p, int64_t *v, uint8_t *has,
                                        const char *what)
{
	if (is_digit(*p)) {
		const char *q = fast_int(p, v);
		if (q) {
			*has = 1;
			return q;
		}
	}
	return parse_int_arg_slow(ps, p, v, has, what);
}

/* A generic argument value into a. */
static const char *parse_arg_value(struct parser *ps, const char *p, tg_arg *a, uint32_t depth)
{
	struct str s;
	switch (*p) {
	case '"':
		p = scan_string(ps, p + 1, &s);
		a->type = TG_ARG_STR;
		a->v.atom = intern(ps, s.s, s.len);
		return p;
	case '[':
	case '{': {
		const char *start = p;
		p = skip_value(ps, p, depth);
		a->type = TG_ARG_RAW;
		a->v.atom = intern(ps, start, (size_t)(p - start));
		return p;
	}
	case 't':
		a->type = TG_ARG_BOOL;
		a->v.b = 1;
		return expect_literal(ps, p, "true");
	case 'f':
		a->type = TG_ARG_BOOL;
		a->v.b = 0;
		return expect_literal(ps, p, "false");
	case 'n':
		a->type = TG_ARG_NULL;
		a->v.i = 0;
		return expect_literal(ps, p, "null");
	default:
		if (*p == '-' || is_digit(*p)) {
			int is_int, uns;
			int64_t fv;
			const char *start = p, *q = fast_int(p, &fv);
			if (q) {
				a->v.i = fv;
				a->type = TG_ARG_INT;
				return q;
			}
			p = scan_number(ps, p, &is_int);
			int64_t iv;
			if (is_int && !span_int(start, p, &iv, &uns)) {
				a->v.i = iv;
				a->type = uns ? TG_ARG_UINT : TG_ARG_INT;
				return p;
			}
			char tmp[512];
			size_t n = (size_t)(p - start);
			if (n >= sizeof(tmp))
				die(ps, start, "number with more than %zu characters", sizeof(tmp) - 1);
			memcpy(tmp, start, n);
			tmp[n] = 0;
			a->type = TG_ARG_DOUBLE;
			a->v.d = strtod(tmp, NULL);
			if (isinf(a->v.d))
				die(ps, start, "number out of the range of a double");
			return p;
		}
		unexpected(ps, p, "a JSON value");
	}
}

/* The depth of an event's argument values: the args object is nesting
 * level 4 of the document. */
#define ARG_DEPTH 4

/* Whether the bytes at p (room of them before the window's end) begin with
 * the value in slot s. */
static inline int raw_match(const struct rawslot *s, const char *p, size_t room)
{
	return s->str && s->len <= room && memcmp(s->str, p, s->len) == 0;
}

/* An argument's array or object value at p ('[' or '{') into a (TG_ARG_RAW),
 * key its key's atom, name its event's name so far: one of the two values
 * last read in the pair of slots of key, name and p's first 16 bytes when
 * p's bytes begin with it, else read (parse_arg_value) and put first in
 * that pair (the other one second). Why the cached
 * value is the answer skip_value and intern would give: a slot holds only
 * a value skip_value read whole without error at this depth, from the
 * same bytes, interned in this parser's atoms, and a complete array or
 * object is no prefix of any other value, so bytes that begin with it are
 * that value and end where it ends. The 16 bytes read are inside the
 * window's or the chunk's PAD NUL bytes at worst. */
static const char *parse_raw_arg(struct parser *ps, const char *p, tg_arg *a, uint32_t key, uint32_t name)
{
	uint64_t w0, w1;
	memcpy(&w0, p, 8);
	memcpy(&w1, p + 8, 8);
	uint64_t h = (w0 * 0x9E3779B97F4A7C15ULL) ^ (w1 * 0xc4ceb9fe1a85ec53ULL) ^
	             (((uint64_t)key << 32 | name) * 0xff51afd7ed558ccdULL);
	struct rawslot *pair = (struct rawslot *)(void *)(ps->icache + ICACHE_SLOTS) + 2 * ((h >> 40) % (RAWCACHE_SLOTS / 2));
	size_t room = (size_t)(ps->buf + ps->len - p);
	int way = raw_match(&pair[0], p, room) ? 0 : raw_match(&pair[1], p, room) ? 1 : -1;
	if (way >= 0) {
		struct rawslot s = pair[way];
		if (way) { /* the latest first */
			pair[1] = pair[0];
			pair[0] = s;
		}
		a->type = TG_ARG_RAW;
		a->v.atom = s.atom;
		if (ps->spec)
			spec_note_atom(ps, s.atom);
		return p + s.len;
	}
	const char *end = parse_arg_value(ps, p, a, ARG_DEPTH);
	if ((size_t)(end - p) <= UINT32_MAX) {
		pair[1] = pair[0];
		pair[0] = (struct rawslot){tg_atoms_str(ps->t->atoms, a->v.atom), (uint32_t)(end - p), a->v.atom};
	}
	return end;
}

static const char *parse_args(struct parser *ps, const char *p, struct evtmp *ev)
{
	struct str k;
	p = ws(p + 1);
	if (*p == '}')
		return p + 1;
	for (;;) {
		if (*p != '"')
			unexpected(ps, p, "a string key in \"args\"");
		const char *key_at = p, *sep;
		p = scan_string(ps, p + 1, &k);
		if ((sep = sep_space(p, ':'))) {
			p = sep;
		} else {
			p = ws(p);
			if (*p != ':')
				unexpected(ps, p, "':' after an object key");
			p = ws(p + 1);
		}
		int typed = 1;
		switch (k.len) {
		case 9:
			if (eq_lit(k.s, "Python id", 9))
				p = parse_int_arg(ps, p, &ev->pyid, &ev->has_pyid, "Python id");
			else
				typed = 0;
			break;
		case 11:
			if (eq_lit(k.s, "correlation", 11))
				p = parse_int_arg(ps, p, &ev->corr, &ev->has_corr, "correlation");
			else if (eq_lit(k.s, "External id", 11) || eq_lit(k.s, "external id", 11))
				p = parse_int_arg(ps, p, &ev->ext, &ev->has_ext, "External id");
			else
				typed = 0;
			break;
		case 16:
			if (eq_lit(k.s, "Python parent id", 16))
				p = parse_int_arg(ps, p, &ev->pyparent, &ev->has_pyparent, "Python parent id");
			else
				typed = 0;
			break;
		default:
			typed = 0;
		}
		if (!typed) {
			(void)key_at;
			/* the 2021 schema's "Input dims" is today's "Input Dims" */
			uint32_t key = k.len == 10 && eq_lit(k.s, "Input dims", 10) ? ps->key_input_dims : intern(ps, k.s, k.len);
			/* depth: the args object is nesting level 4 of the document */
			if (ps->keep_all ? key >= ps->keep_limit && key < ps->noise_limit : key >= ps->keep_limit) {
				/* most are integers ("Ev Idx", "Record function id"): skip_value's
				 * own first try, without the call */
				const char *q = *p == '-' || is_digit(*p) ? fast_int(p, &(int64_t){0}) : NULL;
				p = q ? q : skip_value(ps, p, ARG_DEPTH);
			} else {
				if (key > TG_ARG_MAX_KEY)
					die(ps, key_at, "more than %u distinct strings before this argument's key",
					    TG_ARG_MAX_KEY);
				/* filled in place (arg_slot): nothing parsing a value
				 * adds arguments, and an error leaves it uncounted */
				tg_arg *a = arg_slot(ps);
				arg_head_set(a, key, TG_ARG_NULL);
				a->v.u = 0;
				p = *p == '[' || *p == '{' ? parse_raw_arg(ps, p, a, key, ev->name)
				                           : parse_arg_value(ps, p, a, ARG_DEPTH);
				ps->t->nargs++;
			}
		}
		if ((sep = sep_space(p, ','))) {
			p = sep;
			continue;
		}
		p = ws(p);
		if (*p == ',') {
			p = ws(p + 1);
			continue;
		}
		if (*p == '}')
			return p + 1;
		unexpected(ps, p, "',' or '}' in \"args\"");
	}
}

#endif
