/*
 * trace_read_parser.h - the reader's limits, its states, the parser's
 * struct, and how it fails: a longjmp back to the unit's loop, with the
 * message set (die), or asking for more bytes (need_more).
 *
 * A piece of trace_read.c's one translation unit, which includes it once,
 * after the pieces before it and the system headers: the functions stay
 * static in one unit, so the compiler inlines across the pieces as it did
 * when they were one file (issue 24's speed). Nothing else includes it.
 */
#ifndef TG_TRACE_READ_PARSER_H
#define TG_TRACE_READ_PARSER_H

#define WINDOW_INITIAL (1u << 20)
/* Bytes of JSON a thread parses at a time (trace_chunks.h). 128 KiB: the
 * ring's four buffers are 512 KiB touched once (with eight buffers of
 * 256 KiB they were 2 MiB, a third of the page faults of an 11 MB trace's
 * report: 2,280 -> 1,540 faults and -1.5 ms of 28 ms CPU for h200-dev
 * base_r1); 32 KiB costs more in hand-overs than it saves. Against 64 KiB:
 * ISA-L inflates each chunk in one isal_inflate call, and a call decodes
 * its first 32 KiB into its own buffer and copies them out, then copies
 * the last 32 KiB out again as the next call's history: 64 KiB of memcpy
 * a call, as many bytes as a 64 KiB chunk holds (memcpy: 2.6 M
 * instructions of a compiled_r1 report read on one thread, 9.9 M in
 * chunks). Halved at 128 KiB: 2 % less wall for the h200-dev reports and
 * xdit_sd_3.5's (bench_pair both ways round, 200 pairs), peak RSS the
 * same; 256 KiB lost it again to the buffers' page faults (1-2 % slower). */
#define CHUNK_DEFAULT (128u << 10)
#define PAD 64
#define DEFAULT_MAX_DEPTH 64
#define HARD_MAX_DEPTH 1000
#define DEFAULT_MAX_EVENTS (1ULL << 31)
/* the most kept arguments: the last list's first index is below TG_NONE */
#define TG_MAX_ARGS 0xffffffffULL
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
	uint64_t max_args;   /* kept arguments: at most TG_MAX_ARGS (32-bit indexes) */

	char *buf;       /* the window, or a chunk of the pipeline read in place */
	char *win;       /* the window: cap + PAD bytes (the parser's own) */
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
	char *meta_key;      /* a top-level member's key, copied out of scratch before its value is
	                      * scanned (an escaped string there is decoded into scratch too) */
	size_t meta_key_cap;

	uint32_t *tslots; /* track index + 1 */
	size_t tmask;
	uint32_t last_track;
	struct tkey last_key;

	uint32_t noise_limit; /* atoms in [keep_limit, noise_limit) are noise keys */
	uint32_t keep_limit;  /* atoms below this are the kept keys */
	int keep_all;         /* keep every key but the noise */
	int launch_flows_only; /* tg_read_opts.launch_flows_only */
	uint32_t key_input_dims; /* atom of "Input Dims" */
	uint32_t atom_empty, atom_cat;

	uint32_t *open; /* events from ph B awaiting their E */
	size_t nopen, open_cap;

	struct icache *icache; /* ICACHE_SLOTS, then RAWCACHE_SLOTS struct rawslot */

	/* the pipeline (trace_chunks.h), on the reader's parser */
	tg_chunks *pipe;
	tg_chunk *cur;       /* the chunk bytes come from; NULL: take the next */
	size_t cur_pos;      /* bytes of cur read */
	struct workers *workers;
	uint32_t *map[2];    /* per worker: its atom -> the trace's atom (TG_NONE: not yet) */
	size_t map_cap[2];

	struct spec_result *merging; /* being merged (freed if that fails) */

	/* the set of distinct argument lists (share_args): start + 1 */
	uint32_t *dslots;
	size_t dmask, dcount, dlists, dhits;
	size_t dmask_hint; /* the mask the input's size suggests (dedup_grow) */
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
 * the same bytes (memcmp), so it answers what tg_atoms_intern would.
 * 2,048 slots of 32 bytes (64 KiB, written whole when made: one on the
 * reader's thread, one a worker that parses ahead), resident through the
 * read: 4,096 were 128 KiB more of the read's peak; the instructions of a
 * read moved by +0.06 % on xdit_sd_3.5 and +0.5 % on compiled_r1 at 1,024
 * slots (callgrind), less at 2,048. */
#define ICACHE_SLOTS 2048
struct icache {
	uint64_t a, b;   /* the first and the last 8 bytes (zero-padded): up to 16
	                  * bytes, all of the string, compared without memcmp */
	const char *str; /* the atom's own copy (owned by the atoms) */
	uint32_t len, atom;
};

/* After the string cache, in the same block: the arrays and objects kept
 * whole as argument values (TG_ARG_RAW) last read, the two latest in the
 * pair of slots of their key, their event's name and their first 16 bytes
 * (parse_raw_arg). An op's "Input Dims", "Input type", "Input Strides" and
 * "Concrete Inputs" repeat (h200-dev base_r1: 44,520 such values, 393
 * distinct), and validating and interning each one again was 14 M of its
 * read's 244 M instructions. 2,048 slots of 16 bytes (32 KiB a parser,
 * three parsers): 92 % of base_r1's values found (its values replayed in
 * a model of the cache), 85 % with 1,024 slots (0.3 % more instructions),
 * 75 % with 512 of one value each. */
#define RAWCACHE_SLOTS 2048
struct rawslot {
	const char *str; /* the atom's own copy of a value skip_value read whole */
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

#endif
