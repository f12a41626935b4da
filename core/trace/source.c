/*
 * source.c - plain and gzip byte streams, with an optional inflate thread.
 *
 * Threaded gzip: the producer thread reads compressed input, inflates into
 * blocks of BLOCK_SIZE bytes and hands them through a ring of NBLOCKS slots
 * (mutex + two condition variables). The last block carries the end-of-data
 * mark or the producer's error message. Errors of the producer are copied
 * into the source, because tg_error_last() is per thread.
 *
 * Inflating goes through core/trace/inflate.h (ISA-L or zlib). When ISA-L refuses
 * a member (corrupt data, a bad trailer, input ending inside it), the member
 * is read again from its first compressed byte (the memory, or pread on the
 * file: never through the observer, which saw those bytes once already) and
 * inflated by zlib, dropping the bytes ISA-L delivered already; from there
 * on zlib reads. So a broken file yields zlib's bytes, zlib's message and
 * zlib's offsets whichever backend began (tests/test_source.c checks it on
 * every shared trace and on tests/data/bad). A descriptor that cannot seek
 * (a pipe) cannot be read again: there the error is ISA-L's, in zlib's
 * words, at ISA-L's offset.
 */
#include "inflate.h"
#include "source.h"
#include "../../util/affinity.h"
#include "../../util/tg.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK_SIZE (1u << 20)
#define NBLOCKS 4
#define IN_CHUNK (256u * 1024)
/* The first read of compressed input: 16 KiB inflate to more than the
 * reader's first 128 KiB chunk at h200-dev's ratio of 14 (see fill_input). */
#define IN_FIRST (16u * 1024)
#define RATIO_FLOOR (32ULL << 20)

struct block {
	unsigned char *data;
	size_t len;
	int final; /* 1: end of data; <0: error code (message in src->err) */
};

struct tg_source {
	char *name;
	int fd;                  /* -1 for memory sources */
	const unsigned char *mem; /* memory source */
	size_t mem_len, mem_pos;
	off_t fd_start;         /* where the descriptor stood at open; -1: cannot seek */
	uint64_t raw_end;       /* bytes of the file read so far (each seen by observe once) */
	uint64_t replay_pos;    /* < raw_end: raw bytes come again from here (zlib's second try) */
	uint64_t file_bytes;    /* compressed bytes consumed */
	uint64_t out_bytes;     /* bytes delivered or inflated */
	uint64_t max_bytes;
	uint32_t max_ratio;
	void (*observe)(void *ctx, const void *data, size_t len); /* tg_source_opts.observe */
	void *observe_ctx;
	int gzip;
	int done;

	/* gzip state (used by whichever thread inflates) */
	tg_inflate *inf;
	int member_end;            /* the last member inflated is complete */
	uint64_t member_in_base;   /* compressed offset where the current member starts */
	uint64_t member_out_base;  /* bytes inflated before the current member */
	unsigned char *in;         /* compressed input buffer */
	size_t in_len, in_pos;
	int in_eof;
	unsigned char peek[2];     /* first bytes, read to detect gzip */
	size_t peek_len, peek_pos;

	/* threading */
	int threaded;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t can_fill, can_take;
	struct block blocks[NBLOCKS];
	unsigned head, tail, count; /* ring indices */
	int cancel;
	struct block *cur;        /* block being consumed */
	size_t cur_pos;
	char err[512];
	int err_code;
};

static int fail(tg_source *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records an error in the source (any thread) and in the calling thread. */
static int fail(tg_source *s, int code, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(s->err, sizeof(s->err), "%s: %s", s->name, msg);
	s->err_code = code;
	return tg_error_set(code, "%s", s->err);
}

/* Bytes of the file read a second time, from replay_pos (after zlib took
 * over a member ISA-L refused): from memory, or with pread; never observed
 * again. */
static int replay_read(tg_source *s, unsigned char *buf, size_t cap, size_t *got)
{
	uint64_t left = s->raw_end - s->replay_pos;
	size_t k = left < cap ? (size_t)left : cap;
	if (s->fd < 0) {
		memcpy(buf, s->mem + s->replay_pos, k);
	} else {
		ssize_t r;
		while ((r = pread(s->fd, buf, k, s->fd_start + (off_t)s->replay_pos)) < 0 && errno == EINTR)
			;
		if (r <= 0)
			return fail(s, TG_EIO, "read error: %s", r < 0 ? strerror(errno) : "the file shrank");
		k = (size_t)r;
	}
	s->replay_pos += k;
	*got = k;
	return 0;
}

/* Raw bytes of the file (compressed for gzip), after the peeked ones. The
 * bytes read from the file (not the peeked ones again: they were seen when
 * they were peeked at) go to the observer first. */
static int raw_read(tg_source *s, unsigned char *buf, size_t cap, size_t *got)
{
	if (s->replay_pos < s->raw_end)
		return replay_read(s, buf, cap, got);
	size_t n = 0;
	while (s->peek_pos < s->peek_len && n < cap)
		buf[n++] = s->peek[s->peek_pos++];
	if (n == cap) {
		*got = n;
		return 0;
	}
	size_t k;
	if (s->fd < 0) {
		size_t left = s->mem_len - s->mem_pos;
		k = left < cap - n ? left : cap - n;
		memcpy(buf + n, s->mem + s->mem_pos, k);
		s->mem_pos += k;
	} else {
		ssize_t r;
		while ((r = read(s->fd, buf + n, cap - n)) < 0 && errno == EINTR)
			;
		if (r < 0)
			return fail(s, TG_EIO, "read error: %s", strerror(errno));
		k = (size_t)r;
	}
	if (k && s->observe)
		s->observe(s->observe_ctx, buf + n, k);
	s->raw_end += k;
	s->replay_pos = s->raw_end;
	*got = n + k;
	return 0;
}

/* 1 when out bytes inflated from the compressed bytes consumed so far are
 * a gzip bomb's ratio. The ratio is checked at every MiB of output
 * (BLOCK_SIZE: reads stop there, tg_source_read) and at the end, whatever
 * the sizes of the reads, so that the same file trips it at the same
 * count whoever reads it (the inflate thread, the reader's pipeline). */
static int ratio_exceeded(const tg_source *s, uint64_t out, int ended)
{
	return s->gzip && (ended || out % BLOCK_SIZE == 0) && out > RATIO_FLOOR &&
	       out / (s->file_bytes ? s->file_bytes : 1) > s->max_ratio;
}

static int check_limits(tg_source *s, int ended)
{
	if (s->out_bytes > s->max_bytes)
		return fail(s, TG_ELIMIT,
		            "more than %llu bytes of JSON (limit; raise it with --max-bytes)",
		            (unsigned long long)s->max_bytes);
	if (ratio_exceeded(s, s->out_bytes, ended))
		return fail(s, TG_ELIMIT,
		            "gzip bomb suspected: %llu bytes inflated from %llu compressed bytes "
		            "(ratio above %u; raise it with --max-ratio)",
		            (unsigned long long)s->out_bytes, (unsigned long long)s->file_bytes,
		            s->max_ratio);
	return 0;
}

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Reads more compressed input into s->in, keeping the keep bytes from
 * in_pos on at its start. The reads grow from IN_FIRST, doubling with what
 * was read, to IN_CHUNK: the first chunk of JSON waits for its input, and
 * a first read of 256 KiB (its copy and the 64 pages it touched first)
 * was 0.08 ms of the 0.25 ms the first chunk of an h200-dev trace took to
 * inflate, before the reader could begin. */
static int fill_input(tg_source *s, size_t keep)
{
	memmove(s->in, s->in + s->in_pos, keep);
	size_t n, cap = IN_CHUNK - keep;
	uint64_t ramp = s->raw_end > IN_FIRST ? s->raw_end : IN_FIRST;
	if (ramp < cap)
		cap = (size_t)ramp;
	int rc = raw_read(s, s->in + keep, cap, &n);
	if (rc)
		return rc;
	s->in_len = keep + n;
	s->in_pos = 0;
	if (n == 0)
		s->in_eof = 1;
	return 0;
}

/* Between members: another gzip member starts, zero padding is skipped, or
 * anything else is trailing garbage. Returns 0 (*done set at the end of the
 * data, *more when one byte waits for the next) or an error. */
static int next_member(tg_source *s, uint64_t produced, int *done)
{
	*done = 0;
	if (s->in_pos == s->in_len && s->in_eof) {
		*done = 1;
		return 0;
	}
	if (s->in_len - s->in_pos < 2 && !s->in_eof)
		return fill_input(s, s->in_len - s->in_pos); /* one byte left: read more first */
	unsigned char *p = s->in + s->in_pos;
	size_t left = s->in_len - s->in_pos;
	if (left >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
		tg_inflate_reset(s->inf);
		s->member_end = 0;
		s->member_in_base = s->file_bytes;
		s->member_out_base = s->out_bytes + produced;
		return 0;
	}
	if (all_zero(p, left)) {
		s->file_bytes += left;
		s->in_pos = s->in_len;
		return 0;
	}
	return fail(s, TG_EFORMAT, "trailing garbage after gzip stream at compressed byte %llu",
	            (unsigned long long)s->file_bytes);
}

enum handover { FOR_CORRUPT, FOR_TRUNCATED, FOR_COUNT };

/* ISA-L refused the current member (corrupt: isal_msg, or its input
 * ended), or a limit's message needs zlib's count of compressed bytes:
 * zlib inflates the member again from its first compressed byte and drops
 * the bytes ISA-L delivered, so that the bytes after them, the error and
 * the counts are zlib's. produced: bytes of the current call already in
 * the caller's buffer. Returns 0 (carry on with zlib) or an error. */
static int hand_to_zlib(tg_source *s, uint64_t produced, enum handover why, const char *isal_msg)
{
	if (s->fd >= 0 && s->fd_start < 0 && why == FOR_COUNT)
		return 0; /* cannot read it again: ISA-L's count stands */
	if (s->fd >= 0 && s->fd_start < 0)
		return why == FOR_CORRUPT ? fail(s, TG_EFORMAT, "corrupt gzip data near compressed byte %llu: %s",
		                       (unsigned long long)s->file_bytes, isal_msg)
		                : fail(s, TG_EFORMAT, "truncated gzip stream: input ends at compressed byte %llu "
		                       "after %llu bytes inflated", (unsigned long long)s->file_bytes,
		                       (unsigned long long)(s->out_bytes + produced));
	tg_inflate *z;
	int rc = tg_inflate_new(&z, TG_INFLATE_ZLIB);
	if (rc)
		return rc;
	tg_inflate_free(s->inf);
	s->inf = z;
	s->replay_pos = s->member_in_base;
	s->file_bytes = s->member_in_base;
	s->in_len = s->in_pos = 0;
	s->in_eof = 0;
	s->peek_pos = s->peek_len;
	/* the member's bytes ISA-L delivered, inflated again and dropped */
	uint64_t skip = s->out_bytes + produced - s->member_out_base;
	unsigned char *scratch = tg_malloc(64 * 1024);
	if (!scratch)
		return TG_ENOMEM;
	while (skip > 0 && !rc) {
		if (s->in_pos == s->in_len) {
			if (s->in_eof) {
				rc = fail(s, TG_EFORMAT, "truncated gzip stream: input ends at compressed byte %llu "
				          "after %llu bytes inflated", (unsigned long long)s->file_bytes,
				          (unsigned long long)(s->out_bytes + produced - skip));
				break;
			}
			if ((rc = fill_input(s, 0)))
				break;
			continue;
		}
		const unsigned char *ip = s->in + s->in_pos;
		size_t il = s->in_len - s->in_pos, room = skip < 65536 ? (size_t)skip : 65536;
		unsigned char *o = scratch;
		const char *msg;
		int st = tg_inflate_run(s->inf, &ip, &il, &o, &room, &msg);
		size_t used = (size_t)(ip - (s->in + s->in_pos));
		s->in_pos += used;
		s->file_bytes += used;
		skip -= (uint64_t)(o - scratch);
		if (st == TG_INFLATE_BAD)
			rc = fail(s, TG_EFORMAT, "corrupt gzip data near compressed byte %llu: %s",
			          (unsigned long long)s->file_bytes, msg);
		else if (st == TG_INFLATE_END && skip > 0)
			rc = fail(s, TG_EFORMAT, "corrupt gzip data near compressed byte %llu: %s",
			          (unsigned long long)s->file_bytes, "inflate error");
		else if (st == TG_INFLATE_END)
			s->member_end = 1;
	}
	free(scratch);
	return rc;
}

/* Inflates up to cap bytes into out. *got == 0 means end of data. Runs on
 * the producer thread when threaded. */
static int inflate_some(tg_source *s, unsigned char *out, size_t cap, size_t *got)
{
	unsigned char *o = out;
	size_t room = cap;
	int rc, ended = 0;
	while (room > 0) {
		uint64_t produced = (uint64_t)(o - out);
		if (s->in_pos == s->in_len && !s->in_eof && (rc = fill_input(s, 0)))
			return rc;
		if (s->member_end) {
			int done;
			if ((rc = next_member(s, produced, &done)))
				return rc;
			if ((ended = done))
				break;
			continue;
		}
		if (s->in_pos == s->in_len && s->in_eof) {
			if (tg_inflate_backend(s->inf) == TG_INFLATE_ISAL) {
				if ((rc = hand_to_zlib(s, produced, FOR_TRUNCATED, NULL)))
					return rc;
				continue;
			}
			return fail(s, TG_EFORMAT,
			            "truncated gzip stream: input ends at compressed byte %llu "
			            "after %llu bytes inflated",
			            (unsigned long long)s->file_bytes, (unsigned long long)(s->out_bytes + produced));
		}
		const unsigned char *ip = s->in + s->in_pos;
		size_t il = s->in_len - s->in_pos;
		const char *msg;
		int st = tg_inflate_run(s->inf, &ip, &il, &o, &room, &msg);
		size_t used = (size_t)(ip - (s->in + s->in_pos));
		s->in_pos += used;
		s->file_bytes += used;
		if (st == TG_INFLATE_END) {
			s->member_end = 1;
		} else if (st == TG_INFLATE_BAD) {
			if (tg_inflate_backend(s->inf) == TG_INFLATE_ISAL) {
				if ((rc = hand_to_zlib(s, (uint64_t)(o - out), FOR_CORRUPT, msg)))
					return rc;
				continue;
			}
			return fail(s, TG_EFORMAT, "corrupt gzip data near compressed byte %llu: %s",
			            (unsigned long long)s->file_bytes, msg);
		}
		/* TG_INFLATE_MORE: the loop brings input, or the room is full */
	}
	*got = cap - room;
	/* the bomb's message names the compressed bytes consumed: zlib's count,
	 * whichever backend began (ISA-L reads a few bytes further ahead) */
	if (tg_inflate_backend(s->inf) == TG_INFLATE_ISAL && ratio_exceeded(s, s->out_bytes + *got, ended) &&
	    (rc = hand_to_zlib(s, *got, FOR_COUNT, NULL)))
		return rc;
	s->out_bytes += *got;
	return check_limits(s, ended);
}

static void *producer(void *arg)
{
	tg_source *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->count == NBLOCKS && !s->cancel)
			pthread_cond_wait(&s->can_fill, &s->mu);
		if (s->cancel) {
			pthread_mutex_unlock(&s->mu);
			return NULL;
		}
		struct block *b = &s->blocks[s->tail];
		pthread_mutex_unlock(&s->mu);

		size_t got = 0;
		int rc = inflate_some(s, b->data, BLOCK_SIZE, &got);
		b->len = got;
		b->final = rc ? rc : (got == 0);

		pthread_mutex_lock(&s->mu);
		s->tail = (s->tail + 1) % NBLOCKS;
		s->count++;
		pthread_cond_signal(&s->can_take);
		pthread_mutex_unlock(&s->mu);
		if (b->final)
			return NULL;
	}
}

static int setup(tg_source *s, const char *name, const tg_source_opts *opts)
{
	s->name = strdup(name ? name : "<input>");
	if (!s->name)
		return tg_error_set(TG_ENOMEM, "out of memory");
	s->max_bytes = opts && opts->max_bytes ? opts->max_bytes : TG_SOURCE_DEFAULT_MAX_BYTES;
	s->max_ratio = opts && opts->max_ratio ? opts->max_ratio : TG_SOURCE_DEFAULT_MAX_RATIO;
	s->observe = opts ? opts->observe : NULL;
	s->observe_ctx = opts ? opts->observe_ctx : NULL;
	if (s->fd >= 0)
		s->fd_start = lseek(s->fd, 0, SEEK_CUR);

	/* peek at the magic bytes */
	size_t n = 0;
	while (n < 2) {
		size_t got;
		int rc = raw_read(s, s->peek + n, 2 - n, &got);
		if (rc)
			return rc;
		if (got == 0)
			break;
		n += got;
	}
	s->peek_len = n;
	s->peek_pos = 0;
	s->gzip = n == 2 && s->peek[0] == 0x1f && s->peek[1] == 0x8b;
	if (!s->gzip)
		return 0;

	s->in = tg_malloc(IN_CHUNK);
	if (!s->in)
		return TG_ENOMEM;
	int rc = tg_inflate_new(&s->inf, opts ? opts->inflater : TG_INFLATE_AUTO);
	if (rc)
		return tg_error_set(rc, "%s: cannot inflate: %s", s->name, tg_error_last());

	if (s->fd < 0 || (opts && opts->single_thread))
		return 0;
	for (int i = 0; i < NBLOCKS; i++) {
		s->blocks[i].data = tg_malloc(BLOCK_SIZE);
		if (!s->blocks[i].data)
			return TG_ENOMEM;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->can_fill, NULL);
	pthread_cond_init(&s->can_take, NULL);
	if (tg_affinity_thread_create(&s->thread, producer, s) != 0) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->can_fill);
		pthread_cond_destroy(&s->can_take);
		return 0; /* fall back to inflating on the caller's thread */
	}
	s->threaded = 1;
	return 0;
}

int tg_source_open_file(tg_source **out, const char *path, const char *name,
                        const tg_source_opts *opts)
{
	*out = NULL;
	tg_source *s = tg_calloc(1, sizeof(*s));
	if (!s)
		return TG_ENOMEM;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		int e = errno;
		free(s);
		return tg_error_set(TG_EIO, "%s: cannot open: %s", name ? name : path, strerror(e));
	}
	int rc = setup(s, name ? name : path, opts);
	if (rc) {
		tg_source_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int tg_source_open_fd(tg_source **out, int fd, const char *name, const tg_source_opts *opts)
{
	*out = NULL;
	tg_source *s = tg_calloc(1, sizeof(*s));
	if (!s)
		return TG_ENOMEM;
	s->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (s->fd < 0) {
		int e = errno;
		free(s);
		return tg_error_set(TG_EIO, "%s: cannot open: %s", name ? name : "<fd>", strerror(e));
	}
	int rc = setup(s, name ? name : "<fd>", opts);
	if (rc) {
		tg_source_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int tg_source_open_mem(tg_source **out, const void *data, size_t len, const char *name,
                       const tg_source_opts *opts)
{
	*out = NULL;
	tg_source *s = tg_calloc(1, sizeof(*s));
	if (!s)
		return TG_ENOMEM;
	s->fd = -1;
	s->mem = data;
	s->mem_len = len;
	int rc = setup(s, name, opts);
	if (rc) {
		tg_source_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

static int read_threaded(tg_source *s, unsigned char *buf, size_t cap, size_t *got)
{
	size_t n = 0;
	while (n < cap) {
		if (!s->cur) {
			pthread_mutex_lock(&s->mu);
			while (s->count == 0)
				pthread_cond_wait(&s->can_take, &s->mu);
			s->cur = &s->blocks[s->head];
			s->cur_pos = 0;
			pthread_mutex_unlock(&s->mu);
		}
		struct block *b = s->cur;
		if (s->cur_pos < b->len) {
			size_t k = b->len - s->cur_pos;
			if (k > cap - n)
				k = cap - n;
			memcpy(buf + n, b->data + s->cur_pos, k);
			s->cur_pos += k;
			n += k;
			if (s->cur_pos < b->len)
				break;
		}
		if (b->final) {
			/* keep the final block: data first, then its end or error */
			if (n > 0)
				break;
			s->done = 1;
			if (b->final < 0)
				return tg_error_set(s->err_code, "%s", s->err);
			break;
		}
		pthread_mutex_lock(&s->mu);
		s->head = (s->head + 1) % NBLOCKS;
		s->count--;
		s->cur = NULL;
		pthread_cond_signal(&s->can_fill);
		pthread_mutex_unlock(&s->mu);
		if (n > 0)
			break; /* hand over what we have */
	}
	*got = n;
	return 0;
}

int tg_source_read(tg_source *s, void *buf, size_t cap, size_t *got)
{
	*got = 0;
	if (s->done || cap == 0)
		return 0;
	if (s->threaded)
		return read_threaded(s, buf, cap, got);
	if (s->gzip) {
		size_t to_block = BLOCK_SIZE - (size_t)(s->out_bytes % BLOCK_SIZE); /* ratio_exceeded */
		int rc = inflate_some(s, buf, cap < to_block ? cap : to_block, got);
		if (rc || *got == 0)
			s->done = 1;
		return rc;
	}
	size_t n;
	int rc = raw_read(s, buf, cap, &n);
	if (rc)
		return rc;
	s->file_bytes += n;
	s->out_bytes += n;
	if (n == 0)
		s->done = 1;
	*got = n;
	return check_limits(s, n == 0);
}

int tg_source_is_gzip(const tg_source *s) { return s->gzip; }

int tg_source_inflater(const tg_source *s) { return s->inf ? tg_inflate_backend(s->inf) : TG_INFLATE_AUTO; }

uint64_t tg_source_file_bytes(const tg_source *s) { return s->file_bytes; }

/* The ISIZE trailer of a gzip file (the last member's size modulo 2^32),
 * or 0 when it cannot be read. */
static uint64_t gzip_isize(const tg_source *s, uint64_t file_size)
{
	unsigned char b[4];
	if (s->fd < 0 || s->fd_start < 0 || file_size < 18 + 4)
		return 0;
	ssize_t r;
	while ((r = pread(s->fd, b, 4, s->fd_start + (off_t)file_size - 4)) < 0 && errno == EINTR)
		;
	if (r != 4)
		return 0;
	return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
}

uint64_t tg_source_size_hint(const tg_source *s)
{
	uint64_t size = 0;
	struct stat st;
	if (s->fd < 0)
		size = s->mem_len;
	else if (s->fd_start >= 0 && !fstat(s->fd, &st) && S_ISREG(st.st_mode) && st.st_size > s->fd_start)
		size = (uint64_t)(st.st_size - s->fd_start);
	if (!s->gzip || !size)
		return size;
	/* a trace's JSON deflates 6-20x: a trailer below the compressed size
	 * is another member's or wrapped, and from 256 MiB compressed the
	 * JSON may pass 4 GiB, where every trailer wraps */
	uint64_t isize = gzip_isize(s, size), guess = size * 16;
	if (isize >= size && (isize >= guess || guess <= UINT32_MAX))
		guess = isize;
	/* never more than deflate can inflate to, nor than may be read */
	if (guess / 1032 > size)
		guess = size * 1032;
	return guess < s->max_bytes ? guess : s->max_bytes;
}

const char *tg_source_name(const tg_source *s) { return s->name; }

void tg_source_free(tg_source *s)
{
	if (!s)
		return;
	if (s->threaded) {
		pthread_mutex_lock(&s->mu);
		s->cancel = 1;
		pthread_cond_broadcast(&s->can_fill);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->can_fill);
		pthread_cond_destroy(&s->can_take);
	}
	for (int i = 0; i < NBLOCKS; i++)
		free(s->blocks[i].data);
	tg_inflate_free(s->inf);
	free(s->in);
	if (s->fd >= 0)
		close(s->fd);
	free(s->name);
	free(s);
}
