/*
 * trace.h - the compact, arena-backed model of one profiler trace.
 *
 * A tg_trace holds every duration and instant event of the file as a
 * tg_event (28 bytes; their second ids beside them until the tree is
 * built), their arguments in one array of tg_arg, every string
 * interned as an atom, the (pid, tid) tracks, the flow events, and the
 * top-level metadata (deviceProperties, distributedInfo, versions...).
 * Timestamps and durations are integer nanoseconds, exact for Kineto's
 * microsecond values with up to three decimals.
 */
#ifndef TG_TRACE_H
#define TG_TRACE_H

#include "../../util/atoms.h"
#include "source.h"
#include "../../util/tg.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* What an event is, from its category (all schema generations folded). */
typedef enum tg_kind {
	TG_KIND_OTHER = 0,       /* unknown category */
	TG_KIND_PYTHON,          /* python_function */
	TG_KIND_CPU_OP,          /* cpu_op, Operator (2021) */
	TG_KIND_USER_ANNOTATION, /* user_annotation (ProfilerStep#N lives here or in cpu_op) */
	TG_KIND_RUNTIME,         /* cuda_runtime (also hip* calls), Runtime, mtia_runtime */
	TG_KIND_DRIVER,          /* cuda_driver (cuLaunchKernel...) */
	TG_KIND_KERNEL,          /* kernel, Kernel, mtia_ccp_events */
	TG_KIND_MEMCPY,          /* gpu_memcpy, Memcpy, MTIA dma_* */
	TG_KIND_MEMSET,          /* gpu_memset, Memset */
	TG_KIND_GPU_ANNOTATION,  /* gpu_user_annotation */
	TG_KIND_SYNC,            /* cuda_sync (Stream Sync, Event Sync, ...) */
	TG_KIND_INSTANT,         /* ph i/I: cpu_instant_event, [memory], ... */
	TG_KIND_TRACE_SPAN,      /* cat Trace: "PyTorch Profiler (0)" */
	TG_KIND_PROFILER_RANGE,  /* cuda_profiler_range (CUPTI counters) */
	TG_KIND_OVERHEAD,        /* overhead */
	TG_KIND_COUNT
} tg_kind;

/* Short lower-case name of a kind ("kernel", "cpu_op", ...). */
const char *tg_kind_name(tg_kind k);

/* 1 for events that run on the device: kernels, memcpys, memsets. */
static inline int tg_kind_is_gpu(int k)
{
	return k == TG_KIND_KERNEL || k == TG_KIND_MEMCPY || k == TG_KIND_MEMSET;
}

/* 1 for the host calls that launch device work. */
static inline int tg_kind_is_launch(int k) { return k == TG_KIND_RUNTIME || k == TG_KIND_DRIVER; }

enum tg_event_flags {
	TG_EV_HAS_CORR = 1 << 0,      /* the correlation id is set (tg_event_corr) */
	TG_EV_HAS_EXT = 1 << 1,       /* the External id is set (tg_event_ext) */
	TG_EV_HAS_PYID = 1 << 2,      /* the Python id is set (tg_event_pyid) */
	TG_EV_HAS_PYPARENT = 1 << 3,  /* the Python parent id is set, not null (tg_event_pyparent) */
	TG_EV_INSTANT = 1 << 4,       /* ph i: no duration */
	TG_EV_UNCLOSED = 1 << 5,      /* ph B without its E */
	TG_EV_WIDE_ID0 = 1 << 6,      /* id0 indexes tg_trace_wide_ids(): its id needs 64 bits */
	TG_EV_WIDE_ID1 = 1 << 7,      /* the second id (tg_trace_id1_field) likewise */
	TG_EV_WIDE_DUR = 1 << 8       /* dur32 indexes tg_trace_wide_durs(): the duration needs 64 bits */
};

/* The most tracks a trace's events and stored flows may have (the reader
 * refuses more): an event and a flow keep their track in 19 bits. */
#define TG_TRACK_MAX ((1u << 19) - 1)

/* 28 bytes: a trace holds millions (a 1 GB trace two million). The two ids
 * are 32-bit; an id outside 0..UINT32_MAX (negative, or beyond) is kept in
 * the trace's table of wide ids, and the event holds its index there with
 * TG_EV_WIDE_ID0/1 set. The first id is in the event; the second (the
 * External id, or a Python event's parent id) is in an array of the
 * trace's beside the events, which only the tree's build reads: a caller
 * done with it gives it back (tg_trace_drop_id1s). Read them with
 * tg_event_corr, tg_event_ext, tg_event_pyid, tg_event_pyparent. The
 * duration likewise: 32 bits of ns (4.29 s), a longer one kept in the
 * trace's wide durations with TG_EV_WIDE_DUR set; read it with
 * tg_event_dur and tg_event_end only. The argument count is not kept: an
 * event's list ends at the argument with .last set (tg_event_arg,
 * tg_event_nargs). Track, kind and flags share a word. Aligned on 4 bytes,
 * not 8 (x86-64 and arm64 load the start unaligned at no cost). */
typedef struct __attribute__((packed, aligned(4))) tg_event {
	int64_t ts;          /* start, ns */
	uint32_t dur32;      /* tg_event_dur: ns, or with TG_EV_WIDE_DUR an index into tg_trace_wide_durs() */
	uint32_t id0;        /* TG_KIND_PYTHON: Python id; others: correlation id (tg_event_id) */
	uint32_t name;       /* atom */
	uint32_t args;       /* first argument, index into tg_trace_args(); TG_NONE: none */
	uint32_t kind : 4;   /* tg_kind (the low bits: the most read, one mask) */
	uint32_t track : 19; /* index into tg_trace_tracks() (at most TG_TRACK_MAX) */
	uint32_t flags : 9;  /* tg_event_flags (the high bits: one shift) */
} tg_event;

_Static_assert(sizeof(tg_event) == 28, "tg_event is 28 bytes");
_Static_assert(TG_KIND_COUNT <= 16, "a tg_kind fits tg_event.kind's 4 bits");

typedef enum tg_arg_type {
	TG_ARG_NULL = 0,
	TG_ARG_BOOL,
	TG_ARG_INT,    /* v.i */
	TG_ARG_UINT,   /* v.u: beyond INT64_MAX */
	TG_ARG_DOUBLE, /* v.d: fractions, exponents, beyond UINT64_MAX */
	TG_ARG_STR,    /* v.atom: the decoded string */
	TG_ARG_RAW     /* v.atom: the JSON text of an array or object, as in the file */
} tg_arg_type;

/* 12 bytes, not 16: key and type share a word, the value follows on a
 * 4-byte boundary (x86-64 and arm64 load it unaligned at no cost). A trace
 * holds millions of arguments. An event's arguments are consecutive, the
 * last of them marked (.last), so that the event needs no count. */
typedef struct __attribute__((packed, aligned(4))) tg_arg {
	uint32_t key : 24; /* atom (the reader refuses a key atom beyond 2^24) */
	uint32_t type : 7; /* tg_arg_type */
	uint32_t last : 1; /* the last argument of its event's list */
	union __attribute__((packed)) {
		int64_t i;
		uint64_t u;
		double d;
		uint32_t atom;
		int b;
	} v;
} tg_arg;

#define TG_ARG_MAX_KEY ((1u << 24) - 1)

typedef struct tg_track {
	int64_t pid, tid;     /* numeric values (0 when the JSON held a string) */
	uint32_t pid_str;     /* atom of a string pid ("Spans"), else TG_NONE */
	uint32_t tid_str;     /* atom of a string tid ("stream 7"), else TG_NONE */
	uint32_t thread_name; /* from thread_name metadata, else TG_NONE */
	uint32_t nevents;
	uint32_t ngpu;        /* GPU events on this track */
} tg_track;

typedef enum tg_flow_type { TG_FLOW_LAUNCH = 0, TG_FLOW_FWDBWD, TG_FLOW_OTHER } tg_flow_type;

/* 16 bytes, not 24: a 1 GB trace holds a million launch flows while its
 * tree is built. The id is 32-bit; an id beyond UINT32_MAX is kept in the
 * trace's wide flow ids, the flow holding its index there with wide_id
 * set: read it with tg_flow_id. */
typedef struct tg_flow {
	int64_t ts;
	uint32_t id32;               /* tg_flow_id: the id, or with wide_id an index into the wide flow ids */
	uint32_t track : 19;         /* index into tg_trace_tracks() (at most TG_TRACK_MAX) */
	uint32_t ph : 8;             /* 's', 't' or 'f' */
	uint32_t type : 2;           /* tg_flow_type */
	uint32_t bind_enclosing : 1; /* bp: "e" */
	uint32_t wide_id : 1;        /* id32 indexes tg_trace_wide_flow_ids() */
} tg_flow;

_Static_assert(sizeof(tg_flow) == 16, "tg_flow is 16 bytes");

typedef struct tg_device {
	int64_t id;
	uint32_t name; /* atom, "" when the trace gives none */
	int64_t total_memory;
	int compute_major, compute_minor, num_sms;
} tg_device;

/* Counts kept while reading, for reports and tests. */
typedef struct tg_trace_stats {
	uint64_t raw_events;        /* entries of traceEvents, of any kind */
	uint64_t by_kind[TG_KIND_COUNT];
	uint64_t metadata_events;   /* ph M */
	uint64_t counter_events;    /* ph C */
	uint64_t flow_events;       /* ph s, t, f */
	uint64_t skipped_events;    /* other phases, or objects without ph */
	uint64_t negative_durations; /* clamped to 0 */
	uint64_t json_bytes;        /* bytes of JSON read */
	uint64_t file_bytes;        /* bytes of the file (compressed) */
} tg_trace_stats;

typedef struct tg_trace tg_trace;

/* Limits and options of tg_trace_read_*; zero fields take the defaults. */
typedef struct tg_read_opts {
	tg_source_opts source;
	uint32_t max_depth;  /* JSON nesting, default 64, at least 4 (a trace's own structure) */
	uint64_t max_events; /* events kept, default 1 << 31 */
	uint64_t max_args;   /* arguments kept (after equal lists are shared), default and at most
	                      * 2^32 - 1: an event holds its first argument's index in 32 bits */
	uint32_t max_string; /* bytes in one string, default 16 MiB */
	uint32_t max_unit;   /* bytes of one event or top-level value, default 256 MiB */
	uint32_t window;     /* initial read window in bytes, default 1 MiB (tests use tiny ones) */
	uint32_t chunk;      /* bytes of JSON one thread parses ahead at a time, default 64 KiB (tests
	                      * use tiny ones); input under a quarter of it is read on one thread */
	int keep_all_args;   /* keep every argument (but Kineto's bookkeeping); default 0: only
	                      * the ones tracegate's analyses read (trace_read.c: kept_keys) */
	int launch_flows_only; /* keep only the flows tg_tree_build links with (kernel launches' ph s
	                        * and f); default 0: every flow. Their tracks are made either way */
} tg_read_opts;

/* Reads a trace file (.json or gzip, by magic bytes) in one streaming pass,
 * on the caller's thread and one more it starts and joins before it returns
 * (core/trace/trace_chunks.h; one thread with opts->source.single_thread or for
 * input under a quarter of opts->chunk), with the same result either way.
 * On success *out owns the trace (free with tg_trace_free). On failure *out
 * is NULL and the message names the file and the byte offset:
 * "f.json.gz: JSON byte 1234: expected ':' after an object key".
 * Returns TG_EIO, TG_EFORMAT, TG_ELIMIT or TG_ENOMEM. */
int tg_trace_read_file(tg_trace **out, const char *path, const tg_read_opts *opts);

/* tg_trace_read_file with messages (and tg_trace_name) naming the file
 * name instead of path (a storage key for a downloaded copy); name NULL:
 * path. */
int tg_trace_read_file_named(tg_trace **out, const char *path, const char *name, const tg_read_opts *opts);

/* tg_trace_read_file_named on the open file fd (read from where it is; the
 * caller keeps fd and closes it): the daemon opens a stored trace itself,
 * without following symbolic links, and hands the reader what it checked. */
int tg_trace_read_fd_named(tg_trace **out, int fd, const char *name, const tg_read_opts *opts);

/* Same for len bytes in memory (not kept after return); name is used in
 * messages. */
int tg_trace_read_mem(tg_trace **out, const void *data, size_t len, const char *name,
                      const tg_read_opts *opts);

/* What a name is, decided once per distinct string when the trace is read
 * (kernel names repeat thousands of times; the tests behind these flags are
 * substring searches). */
enum tg_name_flag {
	TG_NAME_COMM = 1 << 0, /* tg_kernel_is_comm: NCCL/RCCL and friends */
	TG_NAME_COPY = 1 << 1, /* tg_kernel_is_copy: a copy done by a kernel */
	/* bits 2-3: tg_kernel_class(name, TG_KIND_KERNEL), HTA's kernel type
	 * of a kernel by that name (tg_kernel_class_of reads it) */
	TG_NAME_CLASS_SHIFT = 2,
	TG_NAME_CLASS_MASK = 3 << TG_NAME_CLASS_SHIFT
};

/* The TG_NAME_* flags of atom (0 for an atom the trace does not have),
 * computed the first time they are asked for; several threads may ask at
 * once. */
uint8_t tg_trace_name_flags(const tg_trace *t, uint32_t atom);

/* Frees the flow events (tg_trace_flows then has none): the tree links
 * launches to kernels with them, and nothing reads them after; a 1 GB
 * trace holds a million of them. Call it after tg_tree_build. */
void tg_trace_drop_flows(tg_trace *t);

/* Drops every argument of t but those whose key is one of names (a
 * NULL-terminated list; keys the trace lacks are skipped, at most 16):
 * each event's list keeps those, in their order, or becomes none; the
 * array is shrunk. For a caller done with the rest (`diff`, before the
 * critical path: tg_cp_args). Pointers from tg_trace_args and
 * tg_event_arg taken before are invalid after. 0 or TG_ENOMEM (a 4-byte
 * map per argument; t unchanged then). */
int tg_trace_keep_args(tg_trace *t, const char *const *names);

/* Gives back t's second ids (each event's External id, or a Python
 * event's parent id: 4 bytes an event), for a caller whose tree is built
 * (the tree's build is their one reader: tg_tree_sync_op keeps what the
 * findings read of them). tg_event_ext and tg_event_pyparent must not be
 * called after; every other accessor of t still serves. Calling it again
 * is a no-op. */
void tg_trace_drop_id1s(tg_trace *t);

/* 1 while t holds its second ids (tg_trace_drop_id1s), else 0. */
int tg_trace_has_id1s(const tg_trace *t);

/* The second id field of event e of t (an element of tg_trace_events(t)),
 * as stored: the id, or with TG_EV_WIDE_ID1 its index in the wide ids.
 * Read it through tg_event_ext or tg_event_pyparent. t must hold its
 * second ids (tg_trace_drop_id1s): a program error otherwise, which
 * aborts. */
uint32_t tg_trace_id1_field(const tg_trace *t, const tg_event *e);

/* Frees the trace and everything it owns. NULL is a no-op. */
void tg_trace_free(tg_trace *t);

/* Accessors. Arrays are owned by the trace and valid until tg_trace_free. */
const tg_event *tg_trace_events(const tg_trace *t, size_t *n);
const tg_arg *tg_trace_args(const tg_trace *t, size_t *n);
const tg_track *tg_trace_tracks(const tg_trace *t, size_t *n);
const tg_flow *tg_trace_flows(const tg_trace *t, size_t *n);

/* The flow ids of t beyond 32 bits, in reading order (a flow's id32
 * indexes them when its wide_id is set); *n gets their count. Owned by t,
 * freed with its flows (tg_trace_drop_flows). */
const uint64_t *tg_trace_wide_flow_ids(const tg_trace *t, size_t *n);

/* The id of flow f of trace t, whether narrow or wide: the only way to
 * read it. */
static inline uint64_t tg_flow_id(const tg_trace *t, const tg_flow *f)
{
	size_t n;
	if (__builtin_expect(!f->wide_id, 1))
		return f->id32;
	return tg_trace_wide_flow_ids(t, &n)[f->id32];
}
const tg_device *tg_trace_devices(const tg_trace *t, size_t *n);
const tg_trace_stats *tg_trace_stats_get(const tg_trace *t);
const tg_atoms *tg_trace_atoms(const tg_trace *t);
const char *tg_trace_name(const tg_trace *t); /* the file name given at read time */

/* The string of an atom of this trace. */
const char *tg_trace_str(const tg_trace *t, uint32_t atom);

/* Top-level members other than traceEvents, as a jansson object (borrowed;
 * never NULL). */
const json_t *tg_trace_meta(const tg_trace *t);

/* The process name of pid from process_name metadata, or NULL. */
const char *tg_trace_process_name(const tg_trace *t, int64_t pid);

/* The labels of pid from process_labels metadata ("CPU"), or NULL. */
const char *tg_trace_process_labels(const tg_trace *t, int64_t pid);

/* distributedInfo: rank and world size, -1 when absent. */
int64_t tg_trace_rank(const tg_trace *t);
int64_t tg_trace_world_size(const tg_trace *t);

/* The argument of event e named key, or NULL. key_atom from
 * tg_trace_key(); linear in the event's argument count. */
const tg_arg *tg_event_arg(const tg_trace *t, const tg_event *e, uint32_t key_atom);

/* The number of arguments of event e (its list is tg_trace_args() from
 * e->args on); linear in it. */
size_t tg_event_nargs(const tg_trace *t, const tg_event *e);

/* The atom of an argument key, TG_NONE when no event has that key. */
uint32_t tg_trace_key(const tg_trace *t, const char *key);

/* tg_trace_key(t, "stream") and tg_trace_key(t, "device"), found once when
 * the trace was read: tg_kernel_stream and tg_kernel_device read them for
 * every kernel, where the lookup by name (a hash of the key and a compare)
 * cost more than the argument's search (2 % of a 100 MB report's
 * instructions). */
uint32_t tg_trace_key_stream(const tg_trace *t);
uint32_t tg_trace_key_device(const tg_trace *t);

/* Integer value of an argument (INT, UINT as bits, BOOL, or a numeric
 * string such as AMD's "0x0" stream); 0 and returns -1 when absent or not
 * numeric. */
int tg_arg_int(const tg_trace *t, const tg_arg *a, int64_t *out);

/* The ids of t's events that do not fit 32 bits, in reading order (an
 * event's id0 / second id indexes them when its TG_EV_WIDE_ID0 / 1 flag is set); *n
 * gets their count. Owned by t. */
const int64_t *tg_trace_wide_ids(const tg_trace *t, size_t *n);

/* Id k (0 or 1) of event e of trace t, whether narrow or wide. */
static inline int64_t tg_event_id(const tg_trace *t, const tg_event *e, int k)
{
	size_t n;
	uint32_t id = k ? tg_trace_id1_field(t, e) : e->id0;
	if (e->flags & (TG_EV_WIDE_ID0 << k))
		return tg_trace_wide_ids(t, &n)[id];
	return (int64_t)id;
}

/* The correlation id of a non-Python event (meaningful with TG_EV_HAS_CORR). */
static inline int64_t tg_event_corr(const tg_trace *t, const tg_event *e) { return tg_event_id(t, e, 0); }

/* The External id of a non-Python event (meaningful with TG_EV_HAS_EXT). */
static inline int64_t tg_event_ext(const tg_trace *t, const tg_event *e) { return tg_event_id(t, e, 1); }

/* The Python id of a TG_KIND_PYTHON event (meaningful with TG_EV_HAS_PYID). */
static inline int64_t tg_event_pyid(const tg_trace *t, const tg_event *e) { return tg_event_id(t, e, 0); }

/* The Python parent id of a TG_KIND_PYTHON event (with TG_EV_HAS_PYPARENT). */
static inline int64_t tg_event_pyparent(const tg_trace *t, const tg_event *e) { return tg_event_id(t, e, 1); }

/* The durations of t's events that do not fit 32 bits of ns, in reading
 * order (an event's dur32 indexes them when its TG_EV_WIDE_DUR flag is
 * set); *n gets their count. Owned by t. */
const int64_t *tg_trace_wide_durs(const tg_trace *t, size_t *n);

/* The duration of event e of trace t in ns (>= 0), whether narrow or wide:
 * the only way to read it (tg_event_end adds it to the start). */
static inline int64_t tg_event_dur(const tg_trace *t, const tg_event *e)
{
	size_t n;
	if (__builtin_expect(!(e->flags & TG_EV_WIDE_DUR), 1))
		return (int64_t)e->dur32;
	return tg_trace_wide_durs(t, &n)[e->dur32];
}

/* The end of event e of trace t in ns: its start plus its duration. */
static inline int64_t tg_event_end(const tg_trace *t, const tg_event *e) { return e->ts + tg_event_dur(t, e); }

/* Bytes used by the model (events, args, atoms, tracks, flows, wide ids and durations; the flows' wide ids). */
size_t tg_trace_memory(const tg_trace *t);

#endif
