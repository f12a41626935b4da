/*
 * trace_read_lex.h - the reader's lexer: whitespace, strings (the fast
 * path without escapes, and the escaped one), numbers, the fast integer and
 * microsecond paths, literals and skipping a value, all without bounds
 * checks thanks to the window's NUL sentinel.
 *
 * A piece of trace_read.c's one translation unit, which includes it once,
 * after the pieces before it and the system headers: the functions stay
 * static in one unit, so the compiler inlines across the pieces as it did
 * when they were one file (issue 24's speed). Nothing else includes it.
 */
#ifndef TG_TRACE_READ_LEX_H
#define TG_TRACE_READ_LEX_H

/* ------------------------------------------------------------------ lexing */

#if !defined(__SSE2__)
static const unsigned char ws_table[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};
#endif

static inline const char *ws(const char *p)
{
	if ((unsigned char)*p > ' ') /* most calls: no whitespace at all */
		return p;
	if (*p == ' ' && (unsigned char)p[1] > ' ') /* most others: one space */
		return p + 1;
#if defined(__SSE2__)
	/* pretty-printed traces indent every line: skip 16 bytes at a time (the
	 * window's 64 NUL bytes after the data stop it there) */
	const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
	              tab = _mm_set1_epi8('\t');
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i w = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
		                         _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
		unsigned other = ~(unsigned)_mm_movemask_epi8(w) & 0xffff;
		if (other)
			return p + __builtin_ctz(other);
		p += 16;
	}
#else
	while (ws_table[(unsigned char)*p])
		p++;
	return p;
#endif
}

/* A member's separator skipped where pretty-printed traces write it as
 * c and one space before the next token (": " after a key, ", " after a
 * value): p + 2 when the bytes at p are c, ' ' and a byte that is no
 * whitespace, which is where ws(p), then c, then ws(p + 1) would lead;
 * NULL otherwise (the caller reads them as before). Reads p[0..2]: the
 * window and the chunks end in NUL bytes. */
static inline const char *sep_space(const char *p, char c)
{
	uint16_t w;
	memcpy(&w, p, 2);
	if (w == (uint16_t)((unsigned char)c | (unsigned char)' ' << 8) && (unsigned char)p[2] > ' ')
		return p + 2;
	return NULL;
}

static inline int is_digit(char c) { return (unsigned)(c - '0') < 10; }

/* Whether the n bytes at s are those of the literal lit (n its length):
 * from 4 to 16 bytes by two overlapping loads a side, which the compiler
 * folds for a literal (a call of memcmp was 20 instructions a key and
 * category), longer ones by memcmp. Reads s[0..n) only. */
static inline int eq_lit(const char *s, const char *lit, size_t n)
{
	if (n >= 8 && n <= 16) {
		uint64_t a, b, c, d;
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(&c, lit, 8);
		memcpy(&d, lit + n - 8, 8);
		return a == c && b == d;
	}
	if (n >= 4 && n < 8) {
		uint32_t a, b, c, d;
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(&c, lit, 4);
		memcpy(&d, lit + n - 4, 4);
		return a == c && b == d;
	}
	return memcmp(s, lit, n) == 0;
}

/* Unexpected byte c at p: NUL means the window ended. */
static void unexpected(struct parser *ps, const char *p, const char *what) __attribute__((noreturn));
static void unexpected(struct parser *ps, const char *p, const char *what)
{
	unsigned char c = (unsigned char)*p;
	if (c == 0)
		need_more(ps, p);
	if (c == 'N' || c == 'I' || (c == '-' && p[1] == 'I'))
		die(ps, p, "NaN and Infinity are not JSON numbers (expected %s)", what);
	if (c >= 0x20 && c < 0x7f)
		die(ps, p, "expected %s, found '%c'", what, c);
	die(ps, p, "expected %s, found byte 0x%02x", what, c);
}

/* A field that must be a number is not one. */
static void bad_number(struct parser *ps, const char *p, const char *field) __attribute__((noreturn));
static void bad_number(struct parser *ps, const char *p, const char *field)
{
	if (!*p)
		need_more(ps, p);
	if (*p == 'N' || *p == 'I')
		die(ps, p, "NaN and Infinity are not JSON numbers (\"%s\")", field);
	die(ps, p, "\"%s\" must be a number", field);
}

/* Validates one multi-byte UTF-8 sequence at p; returns the byte after it. */
static const char *utf8_seq(struct parser *ps, const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	int n;
	unsigned char lo = 0x80, hi = 0xBF;
	if (u[0] >= 0xC2 && u[0] <= 0xDF)
		n = 1;
	else if (u[0] >= 0xE0 && u[0] <= 0xEF) {
		n = 2;
		if (u[0] == 0xE0)
			lo = 0xA0;
		if (u[0] == 0xED)
			hi = 0x9F;
	} else if (u[0] >= 0xF0 && u[0] <= 0xF4) {
		n = 3;
		if (u[0] == 0xF0)
			lo = 0x90;
		if (u[0] == 0xF4)
			hi = 0x8F;
	} else
		die(ps, p, "invalid UTF-8 byte 0x%02x in a string", u[0]);
	for (int i = 1; i <= n; i++) {
		unsigned char c = u[i];
		if (c == 0)
			need_more(ps, p + i);
		if (c < (i == 1 ? lo : 0x80) || c > (i == 1 ? hi : 0xBF))
			die(ps, p, "invalid UTF-8 sequence in a string");
	}
	return p + n + 1;
}

static void scratch_need(struct parser *ps, size_t need)
{
	if (need > ps->scratch_cap &&
	    tg_grow((void **)&ps->scratch, &ps->scratch_cap, need, 1))
		oom(ps);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned read_hex4(struct parser *ps, const char *p)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		if (!p[i])
			need_more(ps, p + i);
		int h = hexval(p[i]);
		if (h < 0)
			die(ps, p + i, "invalid \\u escape");
		v = v * 16 + (unsigned)h;
	}
	return v;
}

/* Slow path of scan_string: the string has escapes. Decodes into scratch. */
static const char *scan_string_escaped(struct parser *ps, const char *start, const char *p,
                                       struct str *out)
{
	size_t n = (size_t)(p - start);
	scratch_need(ps, n + 64);
	memcpy(ps->scratch, start, n);
	for (;;) {
		unsigned char c = (unsigned char)*p;
		if (n + 8 > ps->scratch_cap)
			scratch_need(ps, n + 8);
		if (n > ps->max_string)
			die_code(ps, TG_ELIMIT, start, "string longer than %u bytes (limit)", ps->max_string);
		if (c == '"') {
			out->s = ps->scratch;
			out->len = n;
			return p + 1;
		}
		if (c == '\\') {
			char e = p[1];
			const char *esc = p;
			p += 2;
			switch (e) {
			case '"': ps->scratch[n++] = '"'; break;
			case '\\': ps->scratch[n++] = '\\'; break;
			case '/': ps->scratch[n++] = '/'; break;
			case 'b': ps->scratch[n++] = '\b'; break;
			case 'f': ps->scratch[n++] = '\f'; break;
			case 'n': ps->scratch[n++] = '\n'; break;
			case 'r': ps->scratch[n++] = '\r'; break;
			case 't': ps->scratch[n++] = '\t'; break;
			case 'u': {
				unsigned cp = read_hex4(ps, p);
				p += 4;
				if (cp >= 0xD800 && cp <= 0xDBFF) {
					if (!p[0] || !p[1])
						need_more(ps, p[0] ? p + 1 : p);
					if (p[0] != '\\' || p[1] != 'u')
						die(ps, esc, "lone UTF-16 surrogate in a \\u escape");
					unsigned lo = read_hex4(ps, p + 2);
					if (lo < 0xDC00 || lo > 0xDFFF)
						die(ps, esc, "lone UTF-16 surrogate in a \\u escape");
					p += 6;
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
					die(ps, esc, "lone UTF-16 surrogate in a \\u escape");
				} else if (cp == 0) {
					die(ps, esc, "\\u0000 (NUL) in a string");
				}
				char *o = ps->scratch + n;
				if (cp < 0x80) {
					o[0] = (char)cp;
					n += 1;
				} else if (cp < 0x800) {
					o[0] = (char)(0xC0 | (cp >> 6));
					o[1] = (char)(0x80 | (cp & 0x3F));
					n += 2;
				} else if (cp < 0x10000) {
					o[0] = (char)(0xE0 | (cp >> 12));
					o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
					o[2] = (char)(0x80 | (cp & 0x3F));
					n += 3;
				} else {
					o[0] = (char)(0xF0 | (cp >> 18));
					o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
					o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
					o[3] = (char)(0x80 | (cp & 0x3F));
					n += 4;
				}
				break;
			}
			case 0:
				need_more(ps, p - 1);
			default:
				die(ps, esc, "invalid escape in a string");
			}
			continue;
		}
		if (c >= 0x80) {
			const char *q = utf8_seq(ps, p);
			scratch_need(ps, n + 8);
			memcpy(ps->scratch + n, p, (size_t)(q - p));
			n += (size_t)(q - p);
			p = q;
			continue;
		}
		if (c < 0x20) {
			if (c == 0)
				need_more(ps, p);
			die(ps, p, "control character 0x%02x in a string", c);
		}
		ps->scratch[n++] = (char)c;
		p++;
	}
}

/* The first byte at or after p that ends a run of printable ASCII inside
 * a string: a quote, a backslash, a control byte or one >= 0x80 (16 bytes
 * at a time where SSE2 is there; the window is padded for the overread). */
static inline const char *plain_run_end(const char *p)
{
#if defined(__SSE2__)
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
	              space = _mm_set1_epi8(0x20);
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
		                         _mm_cmplt_epi8(v, space)); /* signed: < 0x20 or >= 0x80 */
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits) {
			p += __builtin_ctz(bits);
			break;
		}
		p += 16;
	}
#else
	while ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80 && *p != '"' && *p != '\\')
		p++;
#endif
	return p;
}

/* Scans a string whose opening quote is at p[-1]. Sets out to the decoded
 * bytes (in the window when there are no escapes, else in scratch). */
static inline const char *scan_string(struct parser *ps, const char *p, struct str *out)
{
	const char *start = p;
	for (;;) {
		p = plain_run_end(p);
		unsigned char c = (unsigned char)*p;
		if (c == '"') {
			out->s = start;
			out->len = (size_t)(p - start);
			if (out->len > ps->max_string)
				die_code(ps, TG_ELIMIT, start, "string longer than %u bytes (limit)",
				         ps->max_string);
			return p + 1;
		}
		if (c == '\\')
			return scan_string_escaped(ps, start, p, out);
		if (c >= 0x80) {
			p = utf8_seq(ps, p);
			continue;
		}
		if (c == 0)
			need_more(ps, p);
		die(ps, p, "control character 0x%02x in a string", c);
	}
}

/* Scans a JSON number at p, validating its grammar. Sets *is_int when it has
 * no fraction or exponent. */
static const char *scan_number(struct parser *ps, const char *p, int *is_int)
{
	const char *s = p;
	*is_int = 1;
	if (*p == '-')
		p++;
	if (*p == '0') {
		p++;
		if (is_digit(*p))
			die(ps, s, "leading zero in a number");
	} else if (is_digit(*p)) {
		while (is_digit(*p))
			p++;
	} else {
		unexpected(ps, *p == 'I' ? s : p, "a digit");
	}
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			unexpected(ps, p, "a digit after '.'");
		while (is_digit(*p))
			p++;
		*is_int = 0;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!is_digit(*p))
			unexpected(ps, p, "a digit in the exponent");
		while (is_digit(*p))
			p++;
		*is_int = 0;
	}
	if (*p == 0)
		need_more(ps, p); /* the number may go on in the next window */
	return p;
}

/* Integer of a validated integer span; 0 ok, 1 beyond uint64 (or -int64). */
static int span_int(const char *s, const char *e, int64_t *out, int *is_unsigned)
{
	int neg = *s == '-';
	if (neg)
		s++;
	uint64_t v = 0;
	if (e - s <= 19) { /* below 10^19: no overflow to check */
		for (; s < e; s++)
			v = v * 10 + (unsigned)(*s - '0');
	} else {
		for (; s < e; s++) {
			unsigned d = (unsigned)(*s - '0');
			if (v > (UINT64_MAX - d) / 10)
				return 1;
			v = v * 10 + d;
		}
	}
	*is_unsigned = 0;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return 1;
		*out = (int64_t)(0 - v);
	} else if (v > (uint64_t)INT64_MAX) {
		*is_unsigned = 1;
		*out = (int64_t)v; /* bit pattern */
	} else {
		*out = (int64_t)v;
	}
	return 0;
}

static const uint64_t pow10_u64[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
	100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
	10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL};

/* Microseconds (a validated number span) to integer nanoseconds, exactly
 * for up to 19 significant digits; rounds half away from zero below 1 ns. */
static int span_us_to_ns(const char *s, const char *e, int64_t *out)
{
	int neg = *s == '-';
	if (neg)
		s++;
	uint64_t mant = 0;
	int sig = 0, exp10 = 0;
	for (; s < e && is_digit(*s); s++) {
		if (sig < 19) {
			mant = mant * 10 + (uint64_t)(*s - '0');
			if (mant)
				sig++;
		} else {
			exp10++;
		}
	}
	if (s < e && *s == '.') {
		for (s++; s < e && is_digit(*s); s++) {
			if (sig < 19) {
				mant = mant * 10 + (uint64_t)(*s - '0');
				if (mant)
					sig++;
				exp10--;
			}
		}
	}
	if (s < e && (*s == 'e' || *s == 'E')) {
		s++;
		int eneg = *s == '-';
		if (*s == '+' || *s == '-')
			s++;
		int ev = 0;
		for (; s < e; s++)
			if (ev < 10000)
				ev = ev * 10 + (*s - '0');
		exp10 += eneg ? -ev : ev;
	}
	exp10 += 3; /* us -> ns */
	if (mant == 0) {
		*out = 0;
		return 0;
	}
	if (exp10 >= 0) {
		for (; exp10 > 0; exp10--) {
			if (mant > (uint64_t)INT64_MAX / 10)
				return 1;
			mant *= 10;
		}
		if (mant > (uint64_t)INT64_MAX)
			return 1;
	} else if (exp10 < -19) {
		mant = 0;
	} else {
		uint64_t div = pow10_u64[-exp10];
		uint64_t q = mant / div, r = mant % div;
		if (r >= div - r)
			q++;
		mant = q;
	}
	*out = neg ? -(int64_t)mant : (int64_t)mant;
	return 0;
}

/* The fast paths of the two kinds of number every event has (issue 24:
 * scanning a number and then converting it read each digit twice, and the
 * timestamps have 16): one pass for the common shape, at most 18 digits,
 * no exponent, ending in a byte that cannot continue a number. Anything
 * else returns NULL and the caller takes the general path (scan_number,
 * then span_int or span_us_to_ns), which validates and words every error,
 * so that the fast path never decides what the slow one would refuse. */
static const unsigned char number_goes_on[256] = {
	[0] = 1, /* the data's end: more may come */
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
	['.'] = 1, ['e'] = 1, ['E'] = 1,
};

/* Whether c cannot continue a number (nor is the data's end): a table,
 * where five comparisons were 1.6 M instructions of an h200-dev read. */
static inline int ends_number(char c)
{
	return !number_goes_on[(unsigned char)c];
}

/* The run of decimal digits at q, its value into *v (modulo 2^64 past 19
 * digits), eight digits at a time in one 64-bit word (a byte is a digit
 * when neither b - '0' nor b + 0x46 sets its top bit; the digits' values
 * are summed in pairs, quads, then the eight): the ids and timestamps of
 * an event were 17 M instructions a digit at a time (h200-dev base_r1).
 * Returns the run's end. Reads up to 7 bytes past it: the window and the
 * chunks have PAD NUL bytes after their data. */
static inline const char *scan_digits(const char *q, uint64_t *v)
{
	uint64_t acc = 0;
	for (;;) {
		uint64_t w;
		memcpy(&w, q, 8);
		uint64_t x = w - UINT64_C(0x3030303030303030);
		uint64_t nd = (x | (w + UINT64_C(0x4646464646464646))) & UINT64_C(0x8080808080808080);
		int n = nd ? __builtin_ctzll(nd) >> 3 : 8; /* the first byte is the lowest */
		if (n) {
			x <<= 8 * (8 - n); /* the n digits high, zeros below: leading zeros */
			x = (x & UINT64_C(0x0F0F0F0F0F0F0F0F)) * 2561 >> 8;
			x = (x & UINT64_C(0x00FF00FF00FF00FF)) * 6553601 >> 16;
			x = (x & UINT64_C(0x0000FFFF0000FFFF)) * UINT64_C(42949672960001) >> 32;
			acc = acc * pow10_u64[n] + x;
			q += n;
		}
		if (n < 8)
			break;
	}
	*v = acc;
	return q;
}

/* An integer such as 416 or -12 into *out, or NULL. */
static inline const char *fast_int(const char *p, int64_t *out)
{
	const char *s = p + (*p == '-');
	if (!is_digit(*s) || (*s == '0' && is_digit(s[1])))
		return NULL;
	uint64_t v;
	const char *q = scan_digits(s, &v);
	if (q - s > 18 || !ends_number(*q))
		return NULL;
	*out = *p == '-' ? -(int64_t)v : (int64_t)v;
	return q;
}

/* Microseconds such as 2915995397672.546 into integer ns (span_us_to_ns's
 * result exactly), or NULL. */
static inline __attribute__((always_inline)) const char *fast_us(const char *p, int64_t *out)
{
	const char *s = p + (*p == '-');
	if (!is_digit(*s) || (*s == '0' && is_digit(s[1])))
		return NULL;
	uint64_t v, fv = 0;
	int frac = 0;
	const char *q = scan_digits(s, &v);
	int nint = (int)(q - s);
	if (*q == '.' && is_digit(q[1]) && is_digit(q[2]) && is_digit(q[3]) && !is_digit(q[4])) {
		/* the profilers' own shape, 3 decimals (ns): no loop */
		fv = (uint64_t)(q[1] - '0') * 100 + (uint64_t)(q[2] - '0') * 10 + (uint64_t)(q[3] - '0');
		frac = 3;
		q += 4;
	} else if (*q == '.') {
		const char *f = ++q;
		q = scan_digits(f, &fv);
		frac = (int)(q - f);
		if (!frac)
			return NULL;
	}
	/* at most 18 digits of nanoseconds before rounding: below 2^63 */
	if (nint + (frac > 3 ? frac : 3) > 18 || !ends_number(*q))
		return NULL;
	v = v * pow10_u64[frac] + fv;
	if (frac <= 3) {
		v *= pow10_u64[3 - frac];
	} else {
		uint64_t div = pow10_u64[frac - 3], r = v % div;
		v /= div;
		if (r >= div - r) /* half away from zero, as span_us_to_ns */
			v++;
	}
	*out = *p == '-' ? -(int64_t)v : (int64_t)v;
	return q;
}

static const char *expect_literal(struct parser *ps, const char *p, const char *lit)
{
	for (const char *l = lit; *l; l++, p++) {
		if (*p != *l) {
			if (!*p)
				need_more(ps, p);
			die(ps, p, "invalid literal (expected %s)", lit);
		}
	}
	return p;
}

/* The end of a string of printable ASCII without escapes whose opening
 * quote is at p[-1] (the byte after its closing quote), or NULL for any
 * other string: scan_string reads those. */
static inline const char *plain_string_end(const char *p)
{
	p = plain_run_end(p);
	return *p == '"' ? p + 1 : NULL;
}

/* skip_value's fast path for an array (p at its '[') of integers, plain
 * strings and arrays of them, such as an op's "Input Dims", "Input type",
 * "Input Strides" and "Concrete Inputs" (a fifth of an h200-dev trace's
 * bytes, 12 % of the reader's instructions in skip_value's recursion):
 * one loop, no call per element. Returns the byte after the array, or NULL
 * for anything else, an error or the end of the window included: skip_value
 * then reads the array from p itself, so that every error and its offset
 * stay the slow path's. depth as skip_value's. */
static const char *skip_array_fast(const struct parser *ps, const char *p, uint32_t depth)
{
	uint32_t open = 0; /* arrays open */
	int want_value = 1; /* after '[' or ',' */
	for (;;) {
		char c = *p;
		if (!want_value) {
			if (c == ',') {
				p = ws(p + 1);
				want_value = 1;
				continue;
			}
			if (c != ']')
				return NULL;
			p++;
			if (--open == 0)
				return p;
			p = ws(p);
			continue;
		}
		if (c == '[') {
			if (depth + open >= ps->max_depth)
				return NULL;
			open++;
			p = ws(p + 1);
			if (*p == ']')
				want_value = 0; /* the empty array's close, above */
			continue;
		}
		if (c == '"') {
			const char *q = plain_string_end(p + 1);
			if (!q || (size_t)(q - p - 2) > ps->max_string)
				return NULL;
			p = q;
		} else {
			int64_t v;
			if (!(p = fast_int(p, &v)))
				return NULL;
		}
		want_value = 0;
		p = ws(p);
	}
}

/* Skips any JSON value, validating it. depth is the nesting level of the
 * container holding the value (the top-level object is level 1). */
static const char *skip_value(struct parser *ps, const char *p, uint32_t depth)
{
	if (*p == '[') {
		const char *q = skip_array_fast(ps, p, depth);
		if (q)
			return q;
	}
	struct str s;
	int is_int;
	switch (*p) {
	case '"':
		return scan_string(ps, p + 1, &s);
	case '{':
	case '[': {
		char close = *p == '{' ? '}' : ']';
		int obj = *p == '{';
		if (depth >= ps->max_depth)
			die_code(ps, TG_ELIMIT, p, "nesting deeper than %u levels (limit)", ps->max_depth);
		p = ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				if (*p != '"')
					unexpected(ps, p, "a string key");
				p = ws(scan_string(ps, p + 1, &s));
				if (*p != ':')
					unexpected(ps, p, "':' after an object key");
				p = ws(p + 1);
			}
			p = ws(skip_value(ps, p, depth + 1));
			if (*p == ',') {
				p = ws(p + 1);
				continue;
			}
			if (*p == close)
				return p + 1;
			unexpected(ps, p, obj ? "',' or '}'" : "',' or ']'");
		}
	}
	case 't':
		return expect_literal(ps, p, "true");
	case 'f':
		return expect_literal(ps, p, "false");
	case 'n':
		return expect_literal(ps, p, "null");
	default:
		if (*p == '-' || is_digit(*p)) {
			int64_t v;
			const char *q = fast_int(p, &v);
			return q ? q : scan_number(ps, p, &is_int);
		}
		unexpected(ps, p, "a JSON value");
	}
}

#endif
