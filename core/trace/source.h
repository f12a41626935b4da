/*
 * source.h - the bytes of a trace file, plain or gzip (detected by the magic
 * bytes 1f 8b, never by the file name), delivered in order to a reader.
 *
 * For a gzip file the inflating runs on a second thread that fills a small
 * queue of blocks while the caller parses the previous ones, so that inflate
 * and parse overlap on two cores (or, with single_thread, on the caller's
 * thread: the trace reader runs its own pipeline). Inflating is Intel's
 * ISA-L when it is built in, else zlib (core/trace/inflate.h); a member ISA-L
 * finds corrupt or truncated is inflated again by zlib, so that the bytes
 * delivered, the error and its offsets are zlib's whichever backend read
 * the file. Limits protect against gzip bombs.
 *
 * The raw-bytes observer (tg_source_opts.observe) is how the daemon hashes
 * exactly the bytes it parses (docs/security.md, "Parse what was hashed"):
 * whoever reimplements the reading (another inflater, another thread)
 * keeps these promises, which tests/test_source.c checks:
 *   1. every byte read from the file (or memory) is passed to observe
 *      exactly once, in file order, before any of it is inflated or handed
 *      to the reader: the compressed bytes of a gzip file, the bytes
 *      themselves of a plain one, the two magic bytes peeked at included;
 *   2. observe runs on one thread at a time (the caller's, or the inflate
 *      thread's) and never after tg_source_free has returned, so the
 *      caller may read what it gathered once the source is freed;
 *   3. a source read until tg_source_read reports the end of the data (got
 *      0, no error) has read its file to the end: a plain file to EOF, a
 *      gzip file through its last member and any zero padding to EOF (data
 *      after it is an error); the trace reader (trace.h) reads every source
 *      to that end before it returns a trace, so a trace returned means
 *      every byte of the file passed through observe.
 */
#ifndef TG_SOURCE_H
#define TG_SOURCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tg_source tg_source;

/* Which inflater reads gzip data (tg_source_opts.inflater). */
enum tg_inflate_backend {
	TG_INFLATE_AUTO = 0, /* ISA-L when built in, else zlib */
	TG_INFLATE_ZLIB,
	TG_INFLATE_ISAL      /* TG_EINVAL at open when not built in (make ISAL=0) */
};

typedef struct tg_source_opts {
	uint64_t max_bytes;   /* most bytes of (decompressed) JSON accepted; 0 = default (64 GiB) */
	uint32_t max_ratio;   /* most inflated/compressed ratio once past 32 MiB; 0 = default (200) */
	int single_thread;    /* inflate on the caller's thread */
	int inflater;         /* enum tg_inflate_backend; 0: the fastest built in */
	/* Sees every raw byte read (may be NULL), with observe_ctx: the
	 * promises are in the comment at the top of this file. */
	void (*observe)(void *observe_ctx, const void *data, size_t len);
	void *observe_ctx;
} tg_source_opts;

#define TG_SOURCE_DEFAULT_MAX_BYTES (64ULL << 30)
#define TG_SOURCE_DEFAULT_MAX_RATIO 200u

/* Opens path. name is how errors name the file (NULL: path). opts may be
 * NULL. On success *out owns the file; free with tg_source_free. Errors:
 * TG_EIO (cannot open), TG_ENOMEM. */
int tg_source_open_file(tg_source **out, const char *path, const char *name,
                        const tg_source_opts *opts);

/* Reads the open file fd from where it is (the source duplicates fd: the
 * caller still owns and closes fd). name is how errors name the file. */
int tg_source_open_fd(tg_source **out, int fd, const char *name, const tg_source_opts *opts);

/* Opens len bytes at data (not copied: they must outlive the source). Gzip is
 * detected as for files; inflating runs on the caller's thread. */
int tg_source_open_mem(tg_source **out, const void *data, size_t len, const char *name,
                       const tg_source_opts *opts);

/* Reads up to cap bytes into buf and stores the count in *got; *got == 0
 * only at the end of the data. Returns 0, or TG_EIO / TG_EFORMAT (corrupt or
 * truncated gzip, message names the compressed byte offset) / TG_ELIMIT. */
int tg_source_read(tg_source *s, void *buf, size_t cap, size_t *got);

/* 1 if the data is gzip-compressed. */
int tg_source_is_gzip(const tg_source *s);

/* The inflater reading a gzip source now (TG_INFLATE_ZLIB once a member
 * ISA-L refused was handed to zlib), TG_INFLATE_AUTO for plain data. */
int tg_source_inflater(const tg_source *s);

/* A guess of how many bytes of JSON the source holds, for sizing buffers
 * before reading; 0 when the size is unknown (a pipe). Plain data: its
 * size. Gzip: the last member's ISIZE trailer (its size modulo 2^32),
 * read with pread from a regular file without moving the stream, or 16
 * times the compressed size where that trailer cannot be read or cannot
 * be right (memory, smaller than the file, possibly wrapped); at most 1032
 * times the file (deflate's most) and the max_bytes limit. Untrusted:
 * only ever a hint. */
uint64_t tg_source_size_hint(const tg_source *s);

/* Bytes of the file consumed so far (compressed bytes for gzip). */
uint64_t tg_source_file_bytes(const tg_source *s);

/* The name used in error messages. */
const char *tg_source_name(const tg_source *s);

/* Stops the inflate thread if any, closes the file, frees everything. */
void tg_source_free(tg_source *s);

#endif
