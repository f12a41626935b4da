/*
 * trace_read.c - the streaming trace reader.
 *
 * Why a JSON parser of our own on this path: the trace is the one big input
 * (62 MB of JSON for 239k events in the largest sample, gigabytes in the
 * wild). A DOM parser such as jansson builds an object per value and throws
 * most of them away. This reader walks the bytes once, keeps only what the
 * model needs, and interns strings as it goes. Measured on xdit_sd_3.5
 * (62 MB of plain JSON, 239,093 events, 2-core machine, same run):
 * json_load_file alone takes 2.1-2.6 s and 503 MB of peak RSS (8x the file);
 * this reader plus the whole event tree (bench/bench_read) 0.13-0.15 s and
 * 20 MB, i.e. ~16x faster in 1/25 of the memory. `make bench` keeps timing it.
 * jansson still parses the small top-level members (deviceProperties,
 * distributedInfo...).
 *
 * How it streams: the bytes sit in a window buffer followed by a NUL sentinel,
 * so the lexer needs no bounds checks: meeting a NUL means "end of window"
 * (or a NUL byte in the data, which is an error). The document is parsed in
 * units: one top-level member, or one element of traceEvents. When a unit
 * runs into the end of the window, the lexer longjmps back to the loop, which
 * undoes the unit's partial effects (arguments appended), keeps the unit's
 * bytes, refills the window and parses the unit again. setjmp runs once per
 * refill, not per event.
 */
#include "trace_chunks.h"
#include "trace_impl.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define WINDOW_INITIAL (1u << 20)
#define CHUNK_DEFAULT (256u << 10) /* bytes of JSON a thread parses at a time (trace_chunks.h) */
#define PAD 64
#define DEFAULT_MAX_DEPTH 64
#define HARD_MAX_DEPTH 1000
#define DEFAULT_MAX_EVENTS (1ULL << 31)
#define DEFAULT_MAX_STRING (16u << 20)
#define DEFAULT_MAX_UNIT (256u << 20)
#define MIN_DEPTH 4 /* a trace's own structure: object, array, event, args */
/* Timestamps stay below 2^62 ns (146 years) in magnitude and durations
 * below 2^61, so that ts + dur (plus tolerances) and the difference of two
 * timestamps never overflow. */
#define TS_LIMIT (INT64_C(1) << 62)
#define DUR_LIMIT (INT64_C(1) << 61)

enum jump { J_NONE = 0, J_MORE, J_ERROR };

enum state {
	ST_BEGIN,
	ST_TOP_FIRST,    /* after '{': key or '}' */
	ST_TOP_NEXT,     /* after a member: ',' or '}' */
	ST_EVENTS_FIRST, /* after '[': event or ']' */
	ST_EVENTS_NEXT,  /* after an event: ',' or ']' */
	ST_EVENTS_ELEM,  /* after an event's ',': the next event */
	ST_DONE,         /* after the document: only whitespace */
	ST_FINISHED
};

/* Argument keys we never need; dropped to save memory. */
static const char *const noise_keys[] = {
	"Ev Idx", "Trace name", "Trace iteration", "queued", "context", "cbid",
	"Record function id", "Profiler Event Index", "sort_index",
};
#define NNOISE (sizeof(noise_keys) / sizeof(noise_keys[0]))

/* The argument keys some analysis reads (tg_trace_key callers in core/),
 * the ones a user of the model needs to link or check events (an op's
 * "Sequence number" pairs forward and backward; a memcpy's "memory bandwidth
 * (GB/s)" is the profiler's own figure), and the metadata's: by default only
 * these are kept, the rest of "args" is skipped without being stored. A
 * kernel's dozen launch attributes (grid, block, registers, shared memory...)
 * would otherwise be most of the model's memory (measured: 804k args of 198k
 * events in a 100 MB training trace; 340k with this list without "Sequence
 * number"). tg_read_opts.keep_all_args keeps everything but the noise. */
static const char *const kept_keys[] = {
	/* ops: shapes and values (perf models, ops_unique_args, measure) */
	"Input Dims", "Input type", "Input Strides", "Concrete Inputs",
	/* forward/backward pairing */
	"Sequence number", "Fwd thread id",
	/* device events */
	"stream", "device", "bytes", "memory bandwidth (GB/s)",
	/* cuda_sync events: what they wait for (critical path) */
	"wait_on_stream", "wait_on_cuda_event_record_corr_id",
	/* collectives */
	"Collective name", "dtype", "In msg nelems", "Out msg nelems", "Group size", "Process Group Name",
	"Process Group Description", "Process Group Ranks", "In split size", "Out split size",
	/* [memory] instant events */
	"Device Type", "Device Id", "Bytes", "Total Allocated", "Total Reserved",
	/* metadata events (process and thread names, process labels) */
	"name", "labels",
};
#define NKEPT (sizeof(kept_keys) / sizeof(kept_keys[0]))

struct tkey {
	int64_t pid, tid;
	uint32_t pid_str, tid_str;
};

struct parser {
	tg_trace *t;
	tg_source *src;
	uint32_t max_depth, max_string, max_unit;
	uint64_t max_events;

	char *buf;       /* cap + PAD bytes */
	size_t cap, len; /* buf[len] == 0 */
	uint64_t base;   /* stream offset of buf[0] */
	const char *unit;
	const char *p;
	int eof;
	enum state state, after_events;
	int seen_events;
	jmp_buf jb;
	int err;
	size_t mark_args;

	char *scratch;
	size_t scratch_cap;

	uint32_t *tslots; /* track index + 1 */
	size_t tmask;
	uint32_t last_track;
	struct tkey last_key;

	uint32_t noise_limit; /* atoms in [keep_limit, noise_limit) are noise keys */
	uint32_t keep_limit;  /* atoms below this are the kept keys */
	int keep_all;         /* keep every key but the noise */
	uint32_t key_input_dims; /* atom of "Input Dims" */
	uint32_t atom_empty, atom_cat;

	uint32_t *open; /* events from ph B awaiting their E */
	size_t nopen, open_cap;

	struct icache *icache; /* ICACHE_SLOTS */

	/* the pipeline (trace_chunks.h), on the reader's parser */
	tg_chunks *pipe;
	tg_chunk *cur;       /* the chunk bytes come from; NULL: take the next */
	size_t cur_pos;      /* bytes of cur read */
	struct workers *workers;
	uint32_t *map[2];    /* per worker: its atom -> the trace's atom (TG_NONE: not yet) */
	size_t map_cap[2];

	struct spec_result *merging; /* being merged (freed if that fails) */

	/* the set of distinct argument lists (share_args): (start << 16 | count) */
	uint64_t *dslots;
	size_t dmask, dcount, dlists, dhits;
	int dedup_off;

	/* a worker's parser: parses a chunk ahead (NULL on the reader's) */
	struct spec *spec;
};

struct str {
	const char *s;
	size_t len;
};

/* A direct-mapped cache in front of tg_atoms_intern: names and argument
 * keys repeat (xdit_sd_3.5: 770,000 strings interned, 3,528 distinct), and
 * a kernel's name runs to 3 kB, which the atoms' hash reads whole. A slot
 * is picked by the length and the first and last 8 bytes, and hit only by
 * the same bytes (memcmp), so it answers what tg_atoms_intern would. */
#define ICACHE_SLOTS 4096
struct icache {
	uint64_t a, b;   /* the first and the last 8 bytes (zero-padded): up to 16
	                  * bytes, all of the string, compared without memcmp */
	const char *str; /* the atom's own copy (owned by the atoms) */
	uint32_t len, atom;
};

/* ------------------------------------------------------------------ errors */

static void die_code(struct parser *ps, int code, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));

static void vdie_off(struct parser *ps, int code, uint64_t off, const char *fmt, va_list ap)
	__attribute__((noreturn, format(printf, 4, 0)));

static void vdie_off(struct parser *ps, int code, uint64_t off, const char *fmt, va_list ap)
{
	ps->err = code;
	if (ps->spec) /* a worker stops there; the reader finds the error itself */
		longjmp(ps->jb, J_ERROR);
	char msg[300];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	tg_error_set(code, "%s: byte %llu%s: %s", tg_source_name(ps->src), (unsigned long long)off,
	             tg_source_is_gzip(ps->src) ? " of the inflated JSON" : "", msg);
	ps->err = code;
	longjmp(ps->jb, J_ERROR);
}

static void die_code(struct parser *ps, int code, const char *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdie_off(ps, code, ps->base + (uint64_t)(at - ps->buf), fmt, ap);
}

/* die_code at the JSON offset off (an event committed after it was parsed,
 * maybe on another thread: trace_chunks.h). */
static void die_off(struct parser *ps, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));

static void die_off(struct parser *ps, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdie_off(ps, code, off, fmt, ap);
}

#define die(ps, at, ...) die_code(ps, TG_EFORMAT, at, __VA_ARGS__)

/* Called on a NUL byte: the end of the window (refill and retry the unit),
 * the end of the data (truncated), or a NUL inside the data. */
static void need_more(struct parser *ps, const char *at) __attribute__((noreturn));
static void need_more(struct parser *ps, const char *at)
{
	if (at < ps->buf + ps->len)
		die(ps, at, "NUL byte in the JSON text");
	if (ps->eof)
		die(ps, at, "unexpected end of data (truncated JSON)");
	longjmp(ps->jb, J_MORE);
}

static void oom(struct parser *ps) __attribute__((noreturn));
static void oom(struct parser *ps)
{
	ps->err = TG_ENOMEM;
	longjmp(ps->jb, J_ERROR);
}

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

static inline int is_digit(char c) { return (unsigned)(c - '0') < 10; }

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

/* Scans a string whose opening quote is at p[-1]. Sets out to the decoded
 * bytes (in the window when there are no escapes, else in scratch). */
static inline const char *scan_string(struct parser *ps, const char *p, struct str *out)
{
	const char *start = p;
	for (;;) {
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
static inline int ends_number(char c)
{
	return c != 0 && !is_digit(c) && c != '.' && c != 'e' && c != 'E';
}

/* An integer such as 416 or -12 into *out, or NULL. */
static inline const char *fast_int(const char *p, int64_t *out)
{
	const char *s = p + (*p == '-');
	if (!is_digit(*s) || (*s == '0' && is_digit(s[1])))
		return NULL;
	uint64_t v = 0;
	const char *q = s;
	while (is_digit(*q) && q - s < 18)
		v = v * 10 + (uint64_t)(*q++ - '0');
	if (!ends_number(*q))
		return NULL;
	*out = *p == '-' ? -(int64_t)v : (int64_t)v;
	return q;
}

/* Microseconds such as 2915995397672.546 into integer ns (span_us_to_ns's
 * result exactly), or NULL. */
static inline const char *fast_us(const char *p, int64_t *out)
{
	const char *s = p + (*p == '-');
	if (!is_digit(*s) || (*s == '0' && is_digit(s[1])))
		return NULL;
	uint64_t v = 0;
	int frac = 0;
	const char *q = s;
	while (is_digit(*q))
		v = v * 10 + (uint64_t)(*q++ - '0');
	int nint = (int)(q - s);
	if (*q == '.') {
		const char *f = ++q;
		while (is_digit(*q))
			v = v * 10 + (uint64_t)(*q++ - '0');
		frac = (int)(q - f);
		if (!frac)
			return NULL;
	}
	/* at most 18 digits of nanoseconds before rounding: below 2^63 */
	if (nint + (frac > 3 ? frac : 3) > 18 || !ends_number(*q))
		return NULL;
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

/* Skips any JSON value, validating it. depth is the nesting level of the
 * container holding the value (the top-level object is level 1). */
static const char *skip_value(struct parser *ps, const char *p, uint32_t depth)
{
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

/* ------------------------------------------------------------------ model */

static inline size_t icache_slot(const char *s, size_t len, uint64_t *a, uint64_t *b)
{
	*a = *b = 0;
	memcpy(a, s, len < 8 ? len : 8);
	if (len > 8)
		memcpy(b, s + len - 8, 8);
	uint64_t h = (*a ^ (len * 0x9E3779B97F4A7C15ULL)) * 0xff51afd7ed558ccdULL ^ *b * 0xc4ceb9fe1a85ec53ULL;
	return (size_t)(h >> 52) & (ICACHE_SLOTS - 1);
}

static void spec_note_atom(struct parser *ps, uint32_t a);

static uint32_t intern(struct parser *ps, const char *s, size_t len)
{
	uint64_t wa, wb;
	struct icache *c = &ps->icache[icache_slot(s, len, &wa, &wb)];
	uint32_t a;
	if (c->str && c->len == len && c->a == wa && c->b == wb && (len <= 16 || memcmp(c->str, s, len) == 0)) {
		a = c->atom;
	} else {
		if (tg_atoms_intern(&a, ps->t->atoms, s, len)) {
			ps->err = tg_error_last_code();
			longjmp(ps->jb, J_ERROR);
		}
		if (len <= UINT32_MAX)
			*c = (struct icache){wa, wb, tg_atoms_str(ps->t->atoms, a), (uint32_t)len, a};
	}
	if (ps->spec)
		spec_note_atom(ps, a);
	return a;
}

static void push_arg(struct parser *ps, const tg_arg *a)
{
	tg_trace *t = ps->t;
	if (t->nargs == t->args_cap &&
	    tg_grow((void **)&t->args, &t->args_cap, t->nargs + 1, sizeof(tg_arg)))
		oom(ps);
	t->args[t->nargs++] = *a;
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

static uint32_t track_get(struct parser *ps, const struct tkey *k)
{
	tg_trace *t = ps->t;
	if (ps->last_track != TG_NONE && tkey_eq(k, &t->tracks[ps->last_track]))
		return ps->last_track;
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

/* Category name to kind; flows get *flow >= 0. */
static int category_kind(const char *s, size_t n, int *flow)
{
	*flow = -1;
#define IS(lit) (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)
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
static const char *parse_id_field(struct parser *ps, const char *p, int64_t *num, uint32_t *str,
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

/* An integer id argument (correlation, External id, Python id...): integer,
 * numeric string, or null (*has = 0). */
static const char *parse_int_arg(struct parser *ps, const char *p, int64_t *v, int *has,
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

/* What one traceEvents element holds while it is parsed. */
struct evtmp {
	char ph;
	int kind, flow;
	uint32_t name, cat;
	struct tkey key;
	int64_t ts, dur;
	int has_ts, has_dur, has_id;
	uint64_t id;
	int bp_e;
	int64_t corr, ext, pyid, pyparent;
	int has_corr, has_ext, has_pyid, has_pyparent;
};

static const char *parse_args(struct parser *ps, const char *p, struct evtmp *ev)
{
	struct str k;
	p = ws(p + 1);
	if (*p == '}')
		return p + 1;
	for (;;) {
		if (*p != '"')
			unexpected(ps, p, "a string key in \"args\"");
		const char *key_at = p;
		p = ws(scan_string(ps, p + 1, &k));
		if (*p != ':')
			unexpected(ps, p, "':' after an object key");
		p = ws(p + 1);
		int typed = 1;
		switch (k.len) {
		case 9:
			if (!memcmp(k.s, "Python id", 9))
				p = parse_int_arg(ps, p, &ev->pyid, &ev->has_pyid, "Python id");
			else
				typed = 0;
			break;
		case 11:
			if (!memcmp(k.s, "correlation", 11))
				p = parse_int_arg(ps, p, &ev->corr, &ev->has_corr, "correlation");
			else if (!memcmp(k.s, "External id", 11) || !memcmp(k.s, "external id", 11))
				p = parse_int_arg(ps, p, &ev->ext, &ev->has_ext, "External id");
			else
				typed = 0;
			break;
		case 16:
			if (!memcmp(k.s, "Python parent id", 16))
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
			uint32_t key = k.len == 10 && !memcmp(k.s, "Input dims", 10) ? ps->key_input_dims : intern(ps, k.s, k.len);
			/* depth: the args object is nesting level 4 of the document */
			if (ps->keep_all ? key >= ps->keep_limit && key < ps->noise_limit : key >= ps->keep_limit) {
				p = skip_value(ps, p, 4);
			} else {
				if (key > TG_ARG_MAX_KEY)
					die(ps, key_at, "more than %u distinct strings before this argument's key",
					    TG_ARG_MAX_KEY);
				tg_arg a = {.key = key};
				p = parse_arg_value(ps, p, &a, 4);
				push_arg(ps, &a);
			}
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

/* A flow event (ph s, t, f) into t->flows. */
static void commit_flow(struct parser *ps, const struct evtmp *ev, uint64_t at)
{
	tg_trace *t = ps->t;
	if (!ev->has_ts || !ev->has_id)
		die_off(ps, TG_EFORMAT, at, "flow event without \"ts\" or \"id\"");
	if (tg_grow((void **)&t->flows, &t->flows_cap, t->nflows + 1, sizeof(tg_flow)))
		oom(ps);
	t->flows[t->nflows++] = (tg_flow){
		.id = ev->id, .ts = ev->ts, .track = track_get(ps, &ev->key), .ph = (uint8_t)ev->ph,
		.type = (uint8_t)(ev->flow >= 0 ? ev->flow : TG_FLOW_OTHER),
		.bind_enclosing = (uint8_t)ev->bp_e};
}

/* An E event at ts closes the latest open B event of its track; an E
 * without one is counted as skipped. */
static void close_begin(struct parser *ps, int64_t ts, uint32_t track)
{
	tg_trace *t = ps->t;
	for (size_t i = ps->nopen; i-- > 0;) {
		tg_event *b = &t->events[ps->open[i]];
		if (b->track == track) {
			b->dur = ts > b->ts ? ts - b->ts : 0;
			b->flags &= (uint8_t)~TG_EV_UNCLOSED;
			memmove(ps->open + i, ps->open + i + 1, (ps->nopen - i - 1) * sizeof(uint32_t));
			ps->nopen--;
			return;
		}
	}
	t->stats.skipped_events++; /* an E without its B */
}

/* Events share their argument lists (issue 24): most calls of an op repeat
 * the same shapes, types and values (xdit_sd_3.5: 127,629 arguments, 2,979
 * in distinct lists; a 100 MB generated trace: 480,750 and 114,139), so an
 * event whose list equals, byte for byte, one already stored points at it
 * and its own copy is dropped. Nothing reads an argument but through its
 * event (tg_event_arg), and nothing writes one after the read. A set of the
 * distinct lists finds them: 8 bytes a list; it is dropped when, after
 * DEDUP_TRIAL lists, fewer than a quarter were repeats (a trace whose every
 * op carries a unique "Sequence number" would pay for the set and save
 * nothing). */
#define DEDUP_TRIAL 65536

static uint64_t args_hash(const tg_arg *a, size_t n) { return tg_hash_bytes(a, n * sizeof(tg_arg)); }

static void dedup_insert(struct parser *ps, uint64_t entry, uint64_t h)
{
	size_t i = (size_t)h & ps->dmask;
	while (ps->dslots[i])
		i = (i + 1) & ps->dmask;
	ps->dslots[i] = entry;
	ps->dcount++;
}

/* Doubles the set; 0 or -1 (out of memory: the set is dropped). */
static int dedup_grow(struct parser *ps)
{
	uint64_t *old = ps->dslots;
	size_t omask = ps->dmask, nmask = omask ? omask * 2 + 1 : 4095;
	ps->dslots = tg_calloc(nmask + 1, sizeof(uint64_t));
	ps->dmask = ps->dslots ? nmask : 0;
	ps->dcount = 0;
	for (size_t i = 0; ps->dslots && old && i <= omask; i++)
		if (old[i]) {
			uint64_t e = old[i];
			dedup_insert(ps, e, args_hash(ps->t->args + (uint32_t)(e >> 16), e & 0xffff));
		}
	free(old);
	if (!ps->dslots)
		ps->dedup_off = 1;
	return ps->dslots ? 0 : -1;
}

/* Where the event's arguments t->args[start..nargs) are kept: an equal
 * list stored before (this one then dropped), or start. */
static uint32_t share_args(struct parser *ps, size_t start)
{
	tg_trace *t = ps->t;
	size_t n = t->nargs - start;
	if (n == 0 || ps->dedup_off)
		return (uint32_t)start;
	const tg_arg *a = t->args + start;
	uint64_t h = args_hash(a, n);
	for (size_t i = (size_t)h & ps->dmask; ps->dslots && ps->dslots[i]; i = (i + 1) & ps->dmask) {
		uint64_t e = ps->dslots[i];
		uint32_t at = (uint32_t)(e >> 16);
		if ((e & 0xffff) == n && !memcmp(t->args + at, a, n * sizeof(tg_arg))) {
			t->nargs = start;
			ps->dhits++;
			return at;
		}
	}
	if (++ps->dlists == DEDUP_TRIAL && ps->dhits < DEDUP_TRIAL / 4) {
		free(ps->dslots);
		ps->dslots = NULL;
		ps->dedup_off = 1;
		return (uint32_t)start;
	}
	if ((ps->dcount + 1) * 2 > ps->dmask && dedup_grow(ps))
		return (uint32_t)start;
	dedup_insert(ps, ((uint64_t)start << 16) | n, h);
	return (uint32_t)start;
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

/* The ids of event e of kind: a python event's id and parent id, else the
 * correlation and External id; returns the TG_EV_HAS_* flags of those
 * present. */
static uint8_t set_ids(tg_event *e, const struct evtmp *ev, int kind)
{
	if (kind == TG_KIND_PYTHON) {
		e->ids.py.id = ev->pyid;
		e->ids.py.parent_id = ev->pyparent;
		return (uint8_t)((ev->has_pyid ? TG_EV_HAS_PYID : 0) | (ev->has_pyparent ? TG_EV_HAS_PYPARENT : 0));
	}
	e->ids.op.correlation = ev->corr;
	e->ids.op.external_id = ev->ext;
	return (uint8_t)((ev->has_corr ? TG_EV_HAS_CORR : 0) | (ev->has_ext ? TG_EV_HAS_EXT : 0));
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
		close_begin(ps, ev->ts, track);
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
	uint8_t flags = 0;
	int kind = stored_kind(ps, ev, &flags);
	if (kind == TG_KIND_OTHER && ev->cat != TG_NONE) {
		tg_arg a = {.key = ps->atom_cat, .type = TG_ARG_STR, .v.atom = ev->cat};
		push_arg(ps, &a);
	}
	if (t->nargs - args_start > UINT16_MAX)
		die_off(ps, TG_ELIMIT, at, "event with more than %u arguments", UINT16_MAX);
	if (tg_grow((void **)&t->events, &t->events_cap, t->nevents + 1, sizeof(tg_event)))
		oom(ps);
	tg_event *e = &t->events[t->nevents];
	e->ts = ev->ts;
	e->dur = ev->ph == 'B' ? 0 : ev->dur;
	e->name = ev->name == TG_NONE ? ps->atom_empty : ev->name;
	e->track = track;
	e->nargs = (uint16_t)(t->nargs - args_start);
	e->args = share_args(ps, args_start);
	e->kind = (uint8_t)kind;
	flags |= set_ids(e, ev, kind);
	if (ev->ph == 'B') {
		flags |= TG_EV_UNCLOSED;
		if (tg_grow((void **)&ps->open, &ps->open_cap, ps->nopen + 1, sizeof(uint32_t)))
			oom(ps);
		ps->open[ps->nopen++] = (uint32_t)t->nevents;
	}
	e->flags = flags;
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
		p = scan_number(ps, p, &is_int);
		if (!is_int || span_int(v, p, &iv, &uns))
			die(ps, v, "\"id\" must be an integer or a string");
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

/* An event's key among the ten the reader looks for, read without a
 * string scan: p is after the opening quote; the bytes there are compared
 * 8 at a time with the key and its closing quote (the window and the
 * chunks have 64 NUL bytes after their data). Returns the byte after the
 * closing quote with *k set, or NULL (another key, or one written with
 * escapes: scan_string reads it). */
static inline const char *fast_key(const char *p, struct str *k)
{
	uint64_t w;
	memcpy(&w, p, 8);
#define KEY(lit, n)                                                                              \
	do {                                                                                         \
		uint64_t m = (UINT64_C(1) << (8 * (n) + 8)) - 1, want = 0;                              \
		memcpy(&want, lit "\"", (n) + 1);                                                       \
		if ((w & m) == want) {                                                                   \
			k->s = p;                                                                            \
			k->len = (n);                                                                        \
			return p + (n) + 1;                                                                  \
		}                                                                                        \
	} while (0)
	switch (*p) {
	case 'p': KEY("ph", 2); KEY("pid", 3); break;
	case 't': KEY("ts", 2); KEY("tid", 3); break;
	case 'c': KEY("cat", 3); break;
	case 'd': KEY("dur", 3); break;
	case 'n': KEY("name", 4); break;
	case 'a': KEY("args", 4); break;
	case 'i': KEY("id", 2); break;
	case 'b': KEY("bp", 2); break;
	}
#undef KEY
	return NULL;
}

/* Parses one element of traceEvents at p (after whitespace). */
static const char *parse_event(struct parser *ps, const char *p)
{
	if (*p != '{')
		unexpected(ps, p, "an event object in \"traceEvents\"");
	const char *at = p;
	struct evtmp ev = {.kind = TG_KIND_OTHER, .flow = -1, .name = TG_NONE, .cat = TG_NONE,
	                   .key = {0, 0, TG_NONE, TG_NONE}};
	size_t args_start = ps->t->nargs;
	struct str k, s;
	int is_int;
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
		const char *q = fast_key(p + 1, &k);
		p = ws(q ? q : scan_string(ps, p + 1, &k));
		if (*p != ':')
			unexpected(ps, p, "':' after an object key");
		p = ws(p + 1);
		const char *v = p;
		int handled = 1;
		switch (k.len) {
		case 2:
			if (k.s[0] == 'p' && k.s[1] == 'h') {
				if (*p != '"')
					*p ? die(ps, v, "\"ph\" must be a string") : need_more(ps, p);
				p = scan_string(ps, p + 1, &s);
				if (s.len != 1)
					die(ps, v, "\"ph\" must be one character");
				ev.ph = s.s[0];
			} else if (k.s[0] == 't' && k.s[1] == 's') {
				const char *q = fast_us(p, &ev.ts);
				if (q && ev.ts > -TS_LIMIT && ev.ts < TS_LIMIT) {
					p = q;
				} else {
					if (*p != '-' && !is_digit(*p))
						bad_number(ps, p, "ts");
					p = scan_number(ps, p, &is_int);
					if (span_us_to_ns(v, p, &ev.ts) || ev.ts <= -TS_LIMIT || ev.ts >= TS_LIMIT)
						die(ps, v, "\"ts\" out of range");
				}
				ev.has_ts = 1;
			} else if (k.s[0] == 'i' && k.s[1] == 'd') {
				p = parse_flow_id(ps, p, &ev);
			} else if (k.s[0] == 'b' && k.s[1] == 'p') {
				if (*p != '"')
					*p ? die(ps, v, "\"bp\" must be a string") : need_more(ps, p);
				p = scan_string(ps, p + 1, &s);
				ev.bp_e = s.len == 1 && s.s[0] == 'e';
			} else
				handled = 0;
			break;
		case 3:
			if (!memcmp(k.s, "cat", 3)) {
				p = parse_cat(ps, p, &ev);
			} else if (!memcmp(k.s, "pid", 3)) {
				p = parse_id_field(ps, p, &ev.key.pid, &ev.key.pid_str, "pid");
			} else if (!memcmp(k.s, "tid", 3)) {
				p = parse_id_field(ps, p, &ev.key.tid, &ev.key.tid_str, "tid");
			} else if (!memcmp(k.s, "dur", 3)) {
				const char *q = fast_us(p, &ev.dur);
				if (q && ev.dur < DUR_LIMIT) {
					p = q;
				} else {
					if (*p != '-' && !is_digit(*p))
						bad_number(ps, p, "dur");
					p = scan_number(ps, p, &is_int);
					if (span_us_to_ns(v, p, &ev.dur) || ev.dur >= DUR_LIMIT)
						die(ps, v, "\"dur\" out of range");
				}
				ev.has_dur = 1;
			} else
				handled = 0;
			break;
		case 4:
			if (!memcmp(k.s, "name", 4)) {
				if (*p != '"')
					*p ? die(ps, v, "\"name\" must be a string") : need_more(ps, p);
				p = scan_string(ps, p + 1, &s);
				ev.name = intern(ps, s.s, s.len);
			} else if (!memcmp(k.s, "args", 4)) {
				if (*p != '{')
					*p ? die(ps, v, "\"args\" must be an object") : need_more(ps, p);
				p = parse_args(ps, p, &ev);
			} else
				handled = 0;
			break;
		default:
			handled = 0;
		}
		if (!handled)
			p = skip_value(ps, p, 3);
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

/* Parses one unit from the current state. */
static void parse_unit(struct parser *ps)
{
	const char *p = ws(ps->p);
	struct str k;
	switch (ps->state) {
	case ST_BEGIN:
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
		return;
	case ST_TOP_FIRST:
	case ST_TOP_NEXT:
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
			const char *v = p;
			p = skip_value(ps, p, 1);
			parse_meta_member(ps, key_at, &k, v, p);
		}
		ps->state = ST_TOP_NEXT;
		ps->p = p;
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

/* ----------------------------------------------------------- the pipeline */

/* Up to cap bytes of JSON into dst: from the source, or from the chunks of
 * the pipeline in order (never past the end of one). */
static int stream_read(struct parser *ps, char *dst, size_t cap, size_t *got)
{
	*got = 0;
	if (!ps->pipe)
		return tg_source_read(ps->src, dst, cap, got);
	for (;;) {
		if (!ps->cur) {
			ps->cur = tg_chunks_next(ps->pipe);
			ps->cur_pos = 0;
		}
		tg_chunk *c = ps->cur;
		if (c->final < 0)
			return tg_error_set(c->final, "%s", c->msg);
		if (c->final)
			return 0;
		if (ps->cur_pos < c->len) {
			size_t n = c->len - ps->cur_pos < cap ? c->len - ps->cur_pos : cap;
			memcpy(dst, c->data + ps->cur_pos, n);
			ps->cur_pos += n;
			*got = n;
			return 0;
		}
		tg_chunks_release(ps->pipe, c);
		ps->cur = NULL;
	}
}

/* The chunk the stream reads next, taken when the current one is read. */
static tg_chunk *stream_chunk(struct parser *ps)
{
	if (ps->cur && !ps->cur->final && ps->cur_pos == ps->cur->len) {
		tg_chunks_release(ps->pipe, ps->cur);
		ps->cur = NULL;
	}
	if (!ps->cur) {
		ps->cur = tg_chunks_next(ps->pipe);
		ps->cur_pos = 0;
	}
	return ps->cur;
}

static void result_free(struct spec_result *r)
{
	if (!r)
		return;
	free(r->ev);
	free(r->args);
	free(r->touch);
	free(r);
}

/* Gives r back to ctx's spares (tg_chunk_free_fn; any thread). */
static void free_result(void *ctx, void *res)
{
	struct workers *ws_ = ctx;
	struct spec_result *r = res;
	if (!r)
		return;
	pthread_mutex_lock(&ws_->mu);
	if (ws_->nspare < NSPARE) {
		ws_->spare[ws_->nspare++] = r;
		r = NULL;
	}
	pthread_mutex_unlock(&ws_->mu);
	result_free(r);
}

/* A result to fill: a spare (emptied), or a new one; NULL when out of
 * memory. */
static struct spec_result *take_result(struct workers *ws_)
{
	struct spec_result *r = NULL;
	pthread_mutex_lock(&ws_->mu);
	if (ws_->nspare)
		r = ws_->spare[--ws_->nspare];
	pthread_mutex_unlock(&ws_->mu);
	if (!r)
		return tg_calloc(1, sizeof(struct spec_result));
	r->nev = r->nargs = r->ntouch = r->stop = 0;
	return r;
}

/* The trace's atom of worker wk's atom a (interned now when new). */
static uint32_t map_atom(struct parser *ps, int wk, uint32_t a)
{
	if (a < ps->noise_limit + 2) /* the atoms every table begins with (seed_atoms) */
		return a;
	if (a >= ps->map_cap[wk]) {
		size_t old = ps->map_cap[wk];
		if (tg_grow((void **)&ps->map[wk], &ps->map_cap[wk], (size_t)a + 1, sizeof(uint32_t)))
			oom(ps);
		memset(ps->map[wk] + old, 0xff, (ps->map_cap[wk] - old) * sizeof(uint32_t)); /* TG_NONE */
	}
	if (ps->map[wk][a] == TG_NONE) {
		const struct pubstr *e = &ps->workers->w[wk].pub[a / PUB_SEG][a % PUB_SEG];
		ps->map[wk][a] = intern(ps, e->s, e->len);
	}
	return ps->map[wk][a];
}

static inline uint32_t remap(const struct parser *ps, int wk, uint32_t a)
{
	return a == TG_NONE || a < ps->noise_limit + 2 ? a : ps->map[wk][a];
}

/* Commits the events of a chunk parsed ahead, as if the reader had parsed
 * them: their strings interned in the order the chunk first used them,
 * then each event with its arguments. */
static void merge_result(struct parser *ps, const struct spec_result *r)
{
	int wk = r->worker;
	for (size_t i = 0; i < r->ntouch; i++)
		map_atom(ps, wk, r->touch[i]);
	for (size_t i = 0; i < r->nev; i++) {
		const struct pending *pe = &r->ev[i];
		size_t args_start = ps->t->nargs;
		for (uint32_t j = 0; j < pe->nargs; j++) {
			tg_arg a = r->args[pe->args + j];
			a.key = remap(ps, wk, a.key) & TG_ARG_MAX_KEY;
			if (a.type == TG_ARG_STR || a.type == TG_ARG_RAW)
				a.v.atom = remap(ps, wk, a.v.atom);
			push_arg(ps, &a);
		}
		struct evtmp ev = pe->ev;
		ev.name = remap(ps, wk, ev.name);
		ev.cat = remap(ps, wk, ev.cat);
		ev.key.pid_str = remap(ps, wk, ev.key.pid_str);
		ev.key.tid_str = remap(ps, wk, ev.key.tid_str);
		commit_event(ps, &ev, args_start, pe->at);
	}
}

/* Where no more than this many atoms: a chunk's keys keep below 2^24 */
#define SPEC_MAX_ATOMS (1u << 23)

/* At a unit boundary with nothing kept, expecting an element of
 * traceEvents, exactly where the next chunk begins: that chunk's events,
 * parsed ahead, are merged instead of read, and so the next ones. */
static int try_merge(struct parser *ps)
{
	while (ps->state == ST_EVENTS_FIRST || ps->state == ST_EVENTS_ELEM) {
		tg_chunk *c = stream_chunk(ps);
		if (ps->cur_pos != 0 || !c->spec || c->final || c->start != ps->base + ps->len)
			return 0;
		struct spec_result *r = tg_chunks_result(ps->pipe, c);
		if (!r)
			return 0;
		if (r->stop == 0 || tg_atoms_count(ps->t->atoms) + r->ntouch > SPEC_MAX_ATOMS) {
			free_result(ps->workers, r);
			return 0;
		}
		ps->merging = r;
		merge_result(ps, r);
		ps->merging = NULL;
		ps->base = c->start + r->stop;
		ps->len = 0;
		ps->state = r->state;
		ps->cur_pos = r->stop;
		free_result(ps->workers, r);
	}
	return 0;
}

/* The events of chunk c from its first byte, for as long as they parse
 * and are followed by ','; the counts at the last event kept go to w->keep_*
 * (in memory: a longjmp lands here). */
static void spec_events(struct spec *w, const tg_chunk *c)
{
	struct parser *ps = &w->ps;
	w->keep_nev = w->keep_touch = w->keep_args = w->keep_stop = 0;
	w->keep_state = ST_EVENTS_ELEM;
	if (setjmp(ps->jb) != J_NONE)
		return;
	const char *p = c->data;
	while (*p == '{' && tg_atoms_count(ps->t->atoms) < SPEC_MAX_ATOMS) {
		const char *q = parse_event(ps, p);
		if ((size_t)(q - p) > ps->max_unit / 4)
			return; /* the reader's window checks a unit this large */
		w->keep_nev = w->r->nev;
		w->keep_touch = w->r->ntouch;
		w->keep_args = ps->t->nargs;
		w->keep_stop = (size_t)(q - c->data);
		w->keep_state = ST_EVENTS_NEXT;
		q = ws(q);
		if (*q != ',')
			return;
		p = ws(q + 1);
		w->keep_stop = (size_t)(p - c->data);
		w->keep_state = ST_EVENTS_ELEM;
	}
}

/* A worker's parse of chunk c ahead (tg_chunk_parse_fn). */
static void *spec_parse(void *ctx, int worker, const tg_chunk *c)
{
	struct spec *w = &((struct workers *)ctx)->w[worker];
	struct parser *ps = &w->ps;
	struct spec_result *r = take_result(ctx);
	if (!r)
		return NULL;
	r->worker = worker;
	w->r = r;
	w->chunk_mark = (uint32_t)c->seq + 1;
	ps->buf = c->data;
	ps->len = c->len;
	ps->base = c->start;
	ps->t->args = r->args; /* the arrays of a recycled result, filled again */
	ps->t->args_cap = r->args_cap;
	ps->t->nargs = 0;
	spec_events(w, c);
	r->nev = w->keep_nev;
	r->ntouch = w->keep_touch;
	r->stop = w->keep_stop;
	r->state = w->keep_state;
	r->args = ps->t->args;
	r->args_cap = ps->t->args_cap;
	r->nargs = w->keep_args;
	ps->t->args = NULL;
	ps->t->nargs = ps->t->args_cap = 0;
	w->r = NULL;
	return r;
}

/* ------------------------------------------------------------ the driver */

/* Keeps the bytes of the unfinished unit and reads more behind them. */
static int refill(struct parser *ps)
{
	size_t keep_from = (size_t)(ps->unit - ps->buf);
	size_t keep = ps->len - keep_from;
	if (keep_from > 0) {
		memmove(ps->buf, ps->buf + keep_from, keep);
		ps->base += keep_from;
		ps->len = keep;
	}
	if (keep == 0 && ps->pipe) {
		int rc = try_merge(ps);
		if (rc)
			return rc;
	}
	if (ps->cap - ps->len < ps->cap / 4) {
		if (ps->cap >= ps->max_unit) {
			tg_error_set(TG_ELIMIT, "%s: byte %llu%s: one event or member is larger than %u bytes (limit)",
			             tg_source_name(ps->src), (unsigned long long)ps->base,
			             tg_source_is_gzip(ps->src) ? " of the inflated JSON" : "", ps->max_unit);
			return TG_ELIMIT;
		}
		size_t ncap = ps->cap * 2;
		char *nb = tg_realloc(ps->buf, ncap + PAD);
		if (!nb)
			return TG_ENOMEM;
		ps->buf = nb;
		ps->cap = ncap;
	}
	while (ps->len < ps->cap && !ps->eof) {
		size_t got;
		int rc = stream_read(ps, ps->buf + ps->len, ps->cap - ps->len, &got);
		if (rc)
			return rc;
		if (got == 0)
			ps->eof = 1;
		ps->len += got;
		if (ps->len > ps->cap / 2)
			break; /* enough to go on with; keeps the pipeline moving */
		if (ps->pipe && got && ps->cur_pos == ps->cur->len)
			break; /* a chunk ends here: the next may be merged, not read */
	}
	memset(ps->buf + ps->len, 0, PAD);
	ps->unit = ps->p = ps->buf;
	return 0;
}

static int run(struct parser *ps)
{
	switch (setjmp(ps->jb)) {
	case J_NONE:
		break;
	case J_MORE:
		ps->t->nargs = ps->mark_args;
		ps->p = ps->unit;
		{
			int rc = refill(ps);
			if (rc)
				return rc;
		}
		break;
	default:
		return ps->err;
	}
	while (ps->state != ST_FINISHED) {
		/* whitespace between units is consumed here, so that a unit never
		 * starts with it (a window of blanks must not grow the window) */
		ps->p = ws(ps->p);
		ps->unit = ps->p;
		ps->mark_args = ps->t->nargs;
		parse_unit(ps);
	}
	return 0;
}

/* The atoms every table of a read begins with, in this order (a worker's
 * table too, so that these have the same numbers everywhere): the kept
 * argument keys, the noise keys, "" and "cat". */
static int seed_atoms(tg_atoms *a, uint32_t *atom_empty, uint32_t *atom_cat)
{
	uint32_t x;
	for (size_t i = 0; i < NKEPT; i++)
		if (tg_atoms_intern(&x, a, kept_keys[i], strlen(kept_keys[i])))
			return TG_ENOMEM;
	for (size_t i = 0; i < NNOISE; i++)
		if (tg_atoms_intern(&x, a, noise_keys[i], strlen(noise_keys[i])))
			return TG_ENOMEM;
	if (tg_atoms_intern(atom_empty, a, "", 0) || tg_atoms_intern(atom_cat, a, "cat", 3))
		return TG_ENOMEM;
	return 0;
}

/* The limits and options of opts on a fresh parser ps reading src. */
static void parser_config(struct parser *ps, tg_source *src, const tg_read_opts *opts)
{
	memset(ps, 0, sizeof(*ps));
	ps->src = src;
	ps->max_depth = opts && opts->max_depth ? opts->max_depth : DEFAULT_MAX_DEPTH;
	if (ps->max_depth > HARD_MAX_DEPTH)
		ps->max_depth = HARD_MAX_DEPTH;
	if (ps->max_depth < MIN_DEPTH)
		ps->max_depth = MIN_DEPTH;
	ps->max_events = opts && opts->max_events ? opts->max_events : DEFAULT_MAX_EVENTS;
	ps->max_string = opts && opts->max_string ? opts->max_string : DEFAULT_MAX_STRING;
	ps->max_unit = opts && opts->max_unit ? opts->max_unit : DEFAULT_MAX_UNIT;
	ps->last_track = TG_NONE;
	ps->state = ST_BEGIN;
	ps->keep_limit = (uint32_t)NKEPT;
	ps->noise_limit = (uint32_t)(NKEPT + NNOISE);
	ps->keep_all = opts && opts->keep_all_args;
}

static void workers_free(struct workers *ws_)
{
	if (!ws_)
		return;
	for (int i = 0; i < ws_->nspare; i++)
		result_free(ws_->spare[i]);
	pthread_mutex_destroy(&ws_->mu);
	for (int i = 0; i < 2; i++) {
		struct spec *w = &ws_->w[i];
		tg_atoms_free(w->local.atoms);
		free(w->local.args);
		free(w->ps.icache);
		free(w->ps.scratch);
		free(w->seen);
		for (size_t k = 0; k < PUB_SEGS && w->pub[k]; k++)
			free(w->pub[k]);
	}
	free(ws_);
}

/* The two workers' parsers, configured as main. */
static int workers_new(struct workers **out, const struct parser *main, const tg_read_opts *opts)
{
	struct workers *ws_ = *out = tg_calloc(1, sizeof(*ws_));
	if (!ws_)
		return TG_ENOMEM;
	pthread_mutex_init(&ws_->mu, NULL);
	for (int i = 0; i < 2; i++) {
		struct spec *w = &ws_->w[i];
		parser_config(&w->ps, main->src, opts);
		w->ps.spec = w;
		w->ps.t = &w->local;
		w->local.atoms = tg_atoms_new();
		w->ps.icache = tg_calloc(ICACHE_SLOTS, sizeof(struct icache));
		if (!w->local.atoms || !w->ps.icache ||
		    seed_atoms(w->local.atoms, &w->ps.atom_empty, &w->ps.atom_cat)) {
			workers_free(ws_);
			*out = NULL;
			return TG_ENOMEM;
		}
		w->ps.key_input_dims = main->key_input_dims;
		w->npub = tg_atoms_count(w->local.atoms);
	}
	return 0;
}

/* Frees what the parser ps holds (not its trace); stops its pipeline. */
static void parser_free(struct parser *ps)
{
	tg_chunks_stop(ps->pipe);
	ps->pipe = NULL;
	result_free(ps->merging);
	workers_free(ps->workers);
	free(ps->map[0]);
	free(ps->map[1]);
	free(ps->buf);
	free(ps->scratch);
	free(ps->tslots);
	free(ps->open);
	free(ps->icache);
	free(ps->dslots);
}

static int read_source(tg_trace **out, tg_source *src, const char *name, const tg_read_opts *opts, int pipeline)
{
	*out = NULL;
	struct parser ps;
	parser_config(&ps, src, opts);
	int rc = TG_ENOMEM;
	tg_trace *t = tg_calloc(1, sizeof(*t));
	if (!t)
		return TG_ENOMEM;
	ps.t = t;
	t->name = strdup(name);
	t->atoms = tg_atoms_new();
	t->meta = json_object();
	ps.cap = opts && opts->window ? opts->window : WINDOW_INITIAL;
	if (ps.cap < 16)
		ps.cap = 16;
	ps.buf = tg_malloc(ps.cap + PAD);
	ps.tmask = 63;
	ps.tslots = tg_calloc(ps.tmask + 1, sizeof(uint32_t));
	ps.icache = tg_calloc(ICACHE_SLOTS, sizeof(struct icache));
	if (!t->name || !t->atoms || !t->meta || !ps.buf || !ps.tslots || !ps.icache)
		goto fail;
	memset(ps.buf, 0, PAD);
	ps.unit = ps.p = ps.buf;
	if (seed_atoms(t->atoms, &ps.atom_empty, &ps.atom_cat))
		goto fail;
	ps.key_input_dims = tg_atoms_find(t->atoms, "Input Dims", 10);
	if (pipeline) {
		size_t chunk = opts && opts->chunk ? opts->chunk : CHUNK_DEFAULT;
		if ((rc = workers_new(&ps.workers, &ps, opts)))
			goto fail;
		if (tg_chunks_start(&ps.pipe, src, chunk, spec_parse, free_result, ps.workers)) {
			workers_free(ps.workers); /* no thread: read on this one */
			ps.workers = NULL;
			tg_error_clear();
		}
	}
	rc = run(&ps);
	tg_chunks_stop(ps.pipe); /* the feeder has read the source to its end */
	ps.pipe = NULL;
	if (rc)
		goto fail;
	for (size_t i = 0; i < ps.nopen; i++)
		t->events[ps.open[i]].flags |= TG_EV_UNCLOSED;
	t->stats.json_bytes = ps.base + ps.len;
	t->stats.file_bytes = tg_source_file_bytes(src);
	rc = tg_trace_finish_meta(t);
	if (!rc)
		rc = tg_trace_finish_names(t);
	if (rc)
		goto fail;
	parser_free(&ps);
	*out = t;
	return 0;
fail:
	/* out-of-memory messages come from deep inside: name the file too */
	if (rc == TG_ENOMEM)
		tg_error_set(TG_ENOMEM, "%s: out of memory while reading the trace", name);
	parser_free(&ps);
	tg_trace_free(t);
	return rc;
}

/* Whether to read with the pipeline (trace_chunks.h): not when asked to
 * stay on one thread, nor for input too small to be worth a thread (size:
 * the file's bytes, or -1 when unknown, as for a pipe). */
static int use_pipeline(const tg_read_opts *opts, int64_t size)
{
	if (opts && opts->source.single_thread)
		return 0;
	size_t chunk = opts && opts->chunk ? opts->chunk : CHUNK_DEFAULT;
	return size < 0 || (uint64_t)size >= chunk / 4;
}

/* The source options for a read: single-threaded under the pipeline, whose
 * feeder inflates. */
static tg_source_opts source_opts(const tg_read_opts *opts, int pipeline)
{
	tg_source_opts so = {0};
	if (opts)
		so = opts->source;
	if (pipeline)
		so.single_thread = 1;
	return so;
}

static int64_t size_of_fd(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
}

int tg_trace_read_file(tg_trace **out, const char *path, const tg_read_opts *opts)
{
	return tg_trace_read_file_named(out, path, path, opts);
}

int tg_trace_read_file_named(tg_trace **out, const char *path, const char *name, const tg_read_opts *opts)
{
	tg_source *src;
	*out = NULL;
	tg_error_clear();
	if (!name)
		name = path;
	struct stat st;
	int pipeline = use_pipeline(opts, stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1);
	tg_source_opts so = source_opts(opts, pipeline);
	int rc = tg_source_open_file(&src, path, name, &so);
	if (rc)
		return rc;
	rc = read_source(out, src, name, opts, pipeline);
	tg_source_free(src);
	return rc;
}

int tg_trace_read_fd_named(tg_trace **out, int fd, const char *name, const tg_read_opts *opts)
{
	tg_source *src;
	*out = NULL;
	tg_error_clear();
	int pipeline = use_pipeline(opts, size_of_fd(fd));
	tg_source_opts so = source_opts(opts, pipeline);
	int rc = tg_source_open_fd(&src, fd, name, &so);
	if (rc)
		return rc;
	rc = read_source(out, src, name ? name : "<fd>", opts, pipeline);
	tg_source_free(src);
	return rc;
}

int tg_trace_read_mem(tg_trace **out, const void *data, size_t len, const char *name,
                      const tg_read_opts *opts)
{
	tg_source *src;
	*out = NULL;
	tg_error_clear();
	if (!name)
		name = "<memory>";
	int pipeline = use_pipeline(opts, (int64_t)len);
	tg_source_opts so = source_opts(opts, pipeline);
	int rc = tg_source_open_mem(&src, data, len, name, &so);
	if (rc)
		return rc;
	rc = read_source(out, src, name, opts, pipeline);
	tg_source_free(src);
	return rc;
}
