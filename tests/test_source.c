/* test_source.c - plain and gzip byte streams: detection by magic bytes,
 * multi-member gzip, truncated and corrupt gzip with compressed offsets,
 * the size limit and the bomb ratio, threaded and single-threaded inflate
 * giving the same bytes, the raw-bytes observer's promises (every byte of
 * the file once, in order; the reader reads to the end), and the two
 * inflate backends (ISA-L, zlib) giving the same bytes, errors and offsets
 * on every shared trace, on tests/data/bad and on gzip cut or damaged
 * anywhere; the size hint that sizes the reader's arrays; reads of
 * compressed input that grow from 16 KiB. */
#include "testutil.h"

#include "../core/trace/inflate.h"
#include "../core/trace/source.h"
#include "../core/trace/trace.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

static unsigned char *gzip_bytes(const void *data, size_t len, size_t *out_len)
{
	size_t cap = compressBound(len) + 64;
	unsigned char *out = malloc(cap);
	z_stream zs = {0};
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (unsigned char *)data;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*out_len = zs.total_out;
	deflateEnd(&zs);
	return out;
}

/* Reads everything; returns the rc of the first failing read. */
static int drain(tg_source *s, unsigned char **out, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	for (;;) {
		if (cap - n < 4096)
			buf = realloc(buf, cap *= 2);
		size_t got;
		int rc = tg_source_read(s, buf + n, 4096, &got);
		if (rc) {
			free(buf);
			return rc;
		}
		if (!got)
			break;
		n += got;
	}
	*out = buf;
	*len = n;
	return 0;
}

static char *tmpfile_with(const void *data, size_t len)
{
	static char path[64];
	strcpy(path, "/tmp/tg_test_source_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

static char *big_text(size_t n)
{
	char *s = malloc(n);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)('a' + (i * 7 + i / 13) % 26);
	return s;
}

static void test_plain_and_gzip_same_bytes(void **state)
{
	(void)state;
	size_t n = 3 * 1024 * 1024 + 17;
	char *text = big_text(n);
	size_t zlen;
	unsigned char *z = gzip_bytes(text, n, &zlen);
	for (int threaded = 0; threaded < 2; threaded++) {
		char *path = tmpfile_with(z, zlen);
		tg_source_opts o = {.single_thread = !threaded};
		tg_source *s;
		assert_int_equal(tg_source_open_file(&s, path, "x.gz", &o), 0);
		assert_true(tg_source_is_gzip(s));
		unsigned char *out;
		size_t len;
		assert_int_equal(drain(s, &out, &len), 0);
		assert_int_equal(len, n);
		assert_memory_equal(out, text, n);
		assert_int_equal(tg_source_file_bytes(s), zlen);
		free(out);
		tg_source_free(s);
		unlink(path);
	}
	tg_source *s;
	assert_int_equal(tg_source_open_mem(&s, text, n, "plain", NULL), 0);
	assert_false(tg_source_is_gzip(s));
	unsigned char *out;
	size_t len;
	assert_int_equal(drain(s, &out, &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(out, text, n);
	free(out);
	tg_source_free(s);
	free(z);
	free(text);
}

/* The hint of tg_source_size_hint for data opened as a file (path) or
 * in memory, with opts. */
static uint64_t hint_of(const void *data, size_t len, int as_file, const tg_source_opts *o)
{
	tg_source *s;
	char *path = as_file ? tmpfile_with(data, len) : NULL;
	if (as_file)
		assert_int_equal(tg_source_open_file(&s, path, "h", o), 0);
	else
		assert_int_equal(tg_source_open_mem(&s, data, len, "h", o), 0);
	uint64_t h = tg_source_size_hint(s);
	tg_source_free(s);
	if (path)
		unlink(path);
	return h;
}

/* The size hint that sizes the reader's arrays: the plain size, the gzip
 * trailer of a file, 16x the compressed size where the trailer cannot be
 * read or is smaller than the file, never beyond deflate's 1032x nor the
 * max_bytes limit, nothing for a pipe; the stream reads the same after. */
static void test_size_hint(void **state)
{
	(void)state;
	size_t n = 3 * 1024 * 1024 + 17, zlen;
	char *text = big_text(n);
	unsigned char *z = gzip_bytes(text, n, &zlen);
	assert_int_equal(hint_of(text, 1000, 0, NULL), 1000);
	assert_int_equal(hint_of(text, 1000, 1, NULL), 1000);
	assert_int_equal(hint_of(z, zlen, 1, NULL), n); /* the ISIZE trailer */
	uint64_t want = zlen * 16 < zlen * 1032 ? zlen * 16 : zlen * 1032;
	assert_int_equal(hint_of(z, zlen, 0, NULL), want); /* memory: no trailer read */
	tg_source_opts lim = {.max_bytes = 5000};
	assert_int_equal(hint_of(z, zlen, 1, &lim), 5000);
	/* padding after the member: the last 4 bytes are zeros */
	unsigned char *pad = calloc(1, zlen + 512);
	memcpy(pad, z, zlen);
	assert_int_equal(hint_of(pad, zlen + 512, 1, NULL), (zlen + 512) * 16);
	/* a trailer that lies beyond what deflate can give */
	size_t sl;
	unsigned char *small = gzip_bytes("{\"traceEvents\":[]}", 18, &sl);
	memset(small + sl - 4, 0xff, 4);
	assert_int_equal(hint_of(small, sl, 1, NULL), (uint64_t)sl * 1032);
	/* a pipe: no size */
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], z, 64), 64);
	close(fds[1]);
	tg_source *s;
	assert_int_equal(tg_source_open_fd(&s, fds[0], "p", NULL), 0);
	assert_int_equal(tg_source_size_hint(s), 0);
	tg_source_free(s);
	close(fds[0]);
	/* the hint's pread leaves the stream where it was */
	char *path = tmpfile_with(z, zlen);
	tg_source_opts one = {.single_thread = 1};
	assert_int_equal(tg_source_open_file(&s, path, "x.gz", &one), 0);
	assert_int_equal(tg_source_size_hint(s), n);
	unsigned char *out;
	size_t len;
	assert_int_equal(drain(s, &out, &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(out, text, n);
	free(out);
	tg_source_free(s);
	unlink(path);
	free(small), free(pad), free(z), free(text);
}

/* The sizes of the observer's calls, in order. */
struct reads {
	size_t size[256];
	size_t n, total;
};

static void count_read(void *ctx, const void *data, size_t len)
{
	(void)data;
	struct reads *r = ctx;
	if (r->n < 256)
		r->size[r->n++] = len;
	r->total += len;
}

/* The reads of compressed input grow from 16 KiB to 256 KiB, so that the
 * first bytes of JSON come after a small read (source.c, fill_input): 2
 * bytes peeked, then the rest of 16 KiB, 16, 32, 64, 128 and 256 KiB. */
static void test_reads_grow(void **state)
{
	(void)state;
	size_t n = 2u << 20, zlen;
	char *text = malloc(n);
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		text[i] = (char)('a' + (x >> 16) % 26); /* deflates to about 0.6 */
	}
	unsigned char *z = gzip_bytes(text, n, &zlen);
	assert_true(zlen > 1u << 20);
	char *path = tmpfile_with(z, zlen);
	for (int single = 0; single < 2; single++) {
		struct reads r = {0};
		tg_source_opts o = {.observe = count_read, .observe_ctx = &r, .single_thread = single};
		tg_source *s;
		assert_int_equal(tg_source_open_file(&s, path, "r.gz", &o), 0);
		unsigned char *out;
		size_t len;
		assert_int_equal(drain(s, &out, &len), 0);
		assert_int_equal(len, n);
		assert_memory_equal(out, text, n);
		free(out);
		tg_source_free(s);
		static const size_t want[] = {2, 16382, 16384, 32768, 65536, 131072, 262144, 262144};
		assert_true(r.n >= 8);
		for (size_t i = 0; i < 8; i++)
			assert_int_equal(r.size[i], want[i]);
		for (size_t i = 8; i < r.n; i++)
			assert_true(r.size[i] <= 262144);
		assert_int_equal(r.total, zlen);
	}
	unlink(path);
	free(z);
	free(text);
}

static void test_multi_member_and_padding(void **state)
{
	(void)state;
	size_t l1, l2;
	unsigned char *a = gzip_bytes("hello ", 6, &l1), *b = gzip_bytes("world", 5, &l2);
	unsigned char *cat = calloc(1, l1 + l2 + 512);
	memcpy(cat, a, l1);
	memcpy(cat + l1, b, l2); /* followed by 512 zero bytes, as tar pads */
	tg_source *s;
	assert_int_equal(tg_source_open_mem(&s, cat, l1 + l2 + 512, "m.gz", NULL), 0);
	unsigned char *out;
	size_t len;
	assert_int_equal(drain(s, &out, &len), 0);
	assert_int_equal(len, 11);
	assert_memory_equal(out, "hello world", 11);
	free(out);
	tg_source_free(s);
	/* garbage after the stream is an error naming the offset */
	memcpy(cat + l1 + l2, "junk", 4);
	assert_int_equal(tg_source_open_mem(&s, cat, l1 + l2 + 4, "g.gz", NULL), 0);
	assert_int_equal(drain(s, &out, &len), TG_EFORMAT);
	char want[128];
	snprintf(want, sizeof(want), "g.gz: trailing garbage after gzip stream at compressed byte %zu", l1 + l2);
	assert_string_equal(tg_error_last(), want);
	tg_source_free(s);
	free(a), free(b), free(cat);
}

static void test_truncated_and_corrupt(void **state)
{
	(void)state;
	size_t n = 200000, zlen;
	char *text = big_text(n);
	unsigned char *z = gzip_bytes(text, n, &zlen);
	for (int threaded = 0; threaded < 2; threaded++) {
		char *path = tmpfile_with(z, zlen / 2);
		tg_source_opts o = {.single_thread = !threaded};
		tg_source *s;
		assert_int_equal(tg_source_open_file(&s, path, "t.gz", &o), 0);
		unsigned char *out;
		size_t len;
		assert_int_equal(drain(s, &out, &len), TG_EFORMAT);
		char want[96];
		snprintf(want, sizeof(want), "t.gz: truncated gzip stream: input ends at compressed byte %zu", zlen / 2);
		assert_true(strncmp(tg_error_last(), want, strlen(want)) == 0);
		tg_source_free(s);
		unlink(path);
	}
	z[zlen / 3] ^= 0xff;
	z[zlen / 3 + 1] ^= 0x55;
	tg_source *s;
	assert_int_equal(tg_source_open_mem(&s, z, zlen, "c.gz", NULL), 0);
	unsigned char *out;
	size_t len;
	int rc = drain(s, &out, &len);
	/* a flipped byte is either bad deflate data or a CRC mismatch */
	assert_int_equal(rc, TG_EFORMAT);
	assert_true(strstr(tg_error_last(), "c.gz: corrupt gzip data near compressed byte ") != NULL);
	tg_source_free(s);
	free(z);
	free(text);
}

static void test_limits(void **state)
{
	(void)state;
	size_t n = 40u << 20, zlen;
	char *spaces = malloc(n);
	memset(spaces, ' ', n);
	unsigned char *z = gzip_bytes(spaces, n, &zlen);
	tg_source *s;
	unsigned char *out;
	size_t len;
	assert_int_equal(tg_source_open_mem(&s, z, zlen, "bomb.gz", NULL), 0);
	assert_int_equal(drain(s, &out, &len), TG_ELIMIT);
	assert_true(strstr(tg_error_last(), "bomb.gz: gzip bomb suspected") == tg_error_last());
	tg_source_free(s);
	/* a higher ratio lets it through */
	tg_source_opts o = {.max_ratio = 100000};
	assert_int_equal(tg_source_open_mem(&s, z, zlen, "bomb.gz", &o), 0);
	assert_int_equal(drain(s, &out, &len), 0);
	assert_int_equal(len, n);
	free(out);
	tg_source_free(s);
	/* the absolute limit, plain and gzip */
	tg_source_opts small = {.max_bytes = 1000};
	assert_int_equal(tg_source_open_mem(&s, spaces, 5000, "p.json", &small), 0);
	assert_int_equal(drain(s, &out, &len), TG_ELIMIT);
	assert_true(strstr(tg_error_last(), "more than 1000 bytes of JSON") != NULL);
	tg_source_free(s);
	free(z);
	free(spaces);
}

/* What an observer saw: a copy of every byte, in order. */
struct seen {
	unsigned char *buf;
	size_t len, cap, calls;
};

static void observe(void *ctx, const void *data, size_t len)
{
	struct seen *v = ctx;
	while (v->len + len > v->cap)
		v->buf = realloc(v->buf, v->cap = v->cap ? v->cap * 2 : 1 << 16);
	memcpy(v->buf + v->len, data, len);
	v->len += len;
	v->calls++;
}

/* Opens data (len bytes) as a file (fd: through tg_source_open_fd) or in
 * memory, drains it and checks the observer saw exactly those bytes. */
static void observed_whole(const void *data, size_t len, int how, int single_thread)
{
	struct seen v = {0};
	tg_source_opts o = {.single_thread = single_thread, .observe = observe, .observe_ctx = &v};
	tg_source *s = NULL;
	char *path = NULL;
	int fd = -1;
	if (how == 0) {
		assert_int_equal(tg_source_open_mem(&s, data, len, "m", &o), 0);
	} else {
		path = tmpfile_with(data, len);
		if (how == 1) {
			assert_int_equal(tg_source_open_file(&s, path, "f", &o), 0);
		} else {
			assert_true((fd = open(path, O_RDONLY)) >= 0);
			assert_int_equal(tg_source_open_fd(&s, fd, "fd", &o), 0);
		}
	}
	unsigned char *out;
	size_t n;
	assert_int_equal(drain(s, &out, &n), 0);
	free(out);
	tg_source_free(s); /* promise 2: nothing is observed after this */
	assert_int_equal(v.len, len);
	assert_memory_equal(v.buf, data, len);
	assert_true(v.calls >= 1);
	free(v.buf);
	if (fd >= 0)
		close(fd);
	if (path)
		unlink(path);
}

/* The raw-bytes observer (source.h's promises): every byte of the file
 * once, in order, for plain and gzip, threaded or not, from a path, a
 * descriptor or memory; a gzip of several members with zero padding is
 * read to its very end. */
static void test_observer_sees_every_byte(void **state)
{
	(void)state;
	size_t n = 3 * 1024 * 1024 + 17;
	char *text = big_text(n);
	size_t zlen, l2;
	unsigned char *z = gzip_bytes(text, n, &zlen), *b = gzip_bytes("tail", 4, &l2);
	unsigned char *multi = calloc(1, zlen + l2 + 300);
	memcpy(multi, z, zlen);
	memcpy(multi + zlen, b, l2); /* then 300 zero bytes of padding */
	for (int how = 0; how < 3; how++) {
		observed_whole(text, n, how, 0);
		for (int single = 0; single < 2; single++) {
			observed_whole(z, zlen, how, single);
			observed_whole(multi, zlen + l2 + 300, how, single);
		}
	}
	/* an observer sees a chunk before the reader gets it (plain file) */
	struct seen v = {0};
	tg_source_opts o = {.observe = observe, .observe_ctx = &v};
	tg_source *s;
	assert_int_equal(tg_source_open_mem(&s, text, n, "m", &o), 0);
	unsigned char buf[1000];
	size_t got, total = 0;
	do {
		assert_int_equal(tg_source_read(s, buf, sizeof(buf), &got), 0);
		total += got;
		assert_true(v.len >= total);
	} while (got);
	tg_source_free(s);
	free(v.buf);
	free(multi);
	free(b);
	free(z);
	free(text);
}

/* The trace reader reads every source to its end before it returns a
 * trace (source.h, promise 3): whitespace after the document and a gzip's
 * zero padding pass through the observer too. */
static void test_reader_reads_to_the_end(void **state)
{
	(void)state;
	const char *doc = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
	                  "\"ts\": 1, \"dur\": 2}]}\n\n      \n";
	size_t n = strlen(doc), zlen;
	unsigned char *z = gzip_bytes(doc, n, &zlen);
	unsigned char *padded = calloc(1, zlen + 100);
	memcpy(padded, z, zlen);
	const void *data[] = {doc, padded};
	size_t len[] = {n, zlen + 100};
	for (int i = 0; i < 2; i++) {
		struct seen v = {0};
		tg_read_opts ro = {.source = {.observe = observe, .observe_ctx = &v}, .window = 16};
		char *path = tmpfile_with(data[i], len[i]);
		int fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		tg_trace *t = NULL;
		assert_int_equal(tg_trace_read_fd_named(&t, fd, "t", &ro), 0);
		close(fd);
		unlink(path);
		size_t ne;
		tg_trace_events(t, &ne);
		assert_int_equal(ne, 1);
		tg_trace_free(t);
		assert_int_equal(v.len, len[i]);
		assert_memory_equal(v.buf, data[i], len[i]);
		free(v.buf);
	}
	free(padded);
	free(z);
}

static void test_missing_file(void **state)
{
	(void)state;
	tg_source *s;
	assert_int_equal(tg_source_open_file(&s, "/nonexistent/x.json", NULL, NULL), TG_EIO);
	assert_null(s);
	assert_string_equal(tg_error_last(), "/nonexistent/x.json: cannot open: No such file or directory");
}

/* What a source gave: every byte, then its end or error. */
struct outcome {
	unsigned char *bytes;
	size_t len;
	int rc;
	char msg[512];
	int backend; /* the inflater at the end */
};

static void outcome_free(struct outcome *o) { free(o->bytes); }

/* Opens data (len bytes) in memory (how 0) or as a file (how 1, read
 * again with pread when zlib takes over) with backend, and drains it,
 * reading 4096 bytes at a time (the blocks cross members and errors
 * anywhere). */
static void drain_with(struct outcome *o, const void *data, size_t len, int how, int backend, int single)
{
	memset(o, 0, sizeof(*o));
	tg_source_opts opts = {.inflater = backend, .single_thread = single};
	tg_source *s;
	char *path = NULL;
	if (how == 0) {
		assert_int_equal(tg_source_open_mem(&s, data, len, "d.gz", &opts), 0);
	} else {
		path = tmpfile_with(data, len);
		assert_int_equal(tg_source_open_file(&s, path, "d.gz", &opts), 0);
	}
	o->rc = drain(s, &o->bytes, &o->len);
	if (o->rc) {
		snprintf(o->msg, sizeof(o->msg), "%s", tg_error_last());
		/* what came before the error: drain again up to it */
		tg_source_free(s);
		if (how == 0)
			assert_int_equal(tg_source_open_mem(&s, data, len, "d.gz", &opts), 0);
		else
			assert_int_equal(tg_source_open_file(&s, path, "d.gz", &opts), 0);
		size_t cap = 1 << 16;
		o->bytes = malloc(cap);
		for (;;) {
			if (cap - o->len < 4096)
				o->bytes = realloc(o->bytes, cap *= 2);
			size_t got;
			if (tg_source_read(s, o->bytes + o->len, 4096, &got) || !got)
				break;
			o->len += got;
		}
	}
	o->backend = tg_source_inflater(s);
	tg_source_free(s);
	if (path)
		unlink(path);
}

/* zlib and ISA-L on the same gzip bytes: the same bytes, the same rc, the
 * same message. */
static void same_both_ways(const void *data, size_t len, int how, int single)
{
	struct outcome z, i;
	drain_with(&z, data, len, how, TG_INFLATE_ZLIB, single);
	drain_with(&i, data, len, how, TG_INFLATE_ISAL, single);
	const unsigned char *u = data;
	int gz = len >= 2 && u[0] == 0x1f && u[1] == 0x8b; /* else plain: no inflater */
	assert_int_equal(z.backend, gz ? TG_INFLATE_ZLIB : TG_INFLATE_AUTO);
	assert_int_equal(i.rc, z.rc);
	assert_string_equal(i.msg, z.msg);
	assert_int_equal(i.len, z.len);
	assert_memory_equal(i.bytes, z.bytes, z.len);
	/* ISA-L read everything it could; zlib took over only a refused member */
	if (!z.rc && gz)
		assert_int_equal(i.backend, TG_INFLATE_ISAL);
	outcome_free(&z);
	outcome_free(&i);
}

/* The backends on gzip cut short at many lengths and damaged at many
 * places (a byte flipped in the header, the deflate data, the trailer,
 * and in a second member): identical bytes, errors and offsets, from
 * memory and from a file (which zlib reads again with pread). */
static void test_backends_on_damaged_gzip(void **state)
{
	(void)state;
	if (!tg_inflate_have_isal())
		skip();
	size_t n = 300000, l1, l2;
	char *text = big_text(n);
	for (size_t i = 0; i < n; i += 61)
		text[i] = (char)('0' + i % 10); /* less regular: dynamic blocks with real codes */
	unsigned char *a = gzip_bytes(text, n, &l1), *b = gzip_bytes(text + 1000, 5000, &l2);
	unsigned char *two = malloc(l1 + l2 + 64);
	memcpy(two, a, l1);
	memcpy(two + l1, b, l2);
	memset(two + l1 + l2, 0, 64);
	size_t len = l1 + l2 + 64;
	for (int how = 0; how < 2; how++) {
		same_both_ways(two, len, how, 1);
		for (size_t cut = 0; cut < len; cut += cut < 40 || len - cut < 80 ? 1 : 4999)
			same_both_ways(two, cut, how, how); /* a file's source inflates on its thread */
		unsigned char *bad = malloc(len);
		for (size_t at = 0; at < len; at += at < 24 ? 1 : at > l1 - 16 && at < l1 + 24 ? 1 : 7919) {
			memcpy(bad, two, len);
			bad[at] ^= 0x5a;
			same_both_ways(bad, len, how, 1);
		}
		free(bad);
	}
	free(two);
	free(a);
	free(b);
	free(text);
}

/* Reads path whole into memory (*len bytes; the caller frees). */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	rewind(f);
	unsigned char *buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Both backends give the same bytes for every gzip trace of the shared
 * folder (78 files, 37 MB of gzip, 0.9 GB of JSON), read from the file with
 * the inflate thread as the reader reads them: compared block by block. */
static void test_backends_same_on_shared_traces(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	if (!tg_inflate_have_isal())
		skip();
	size_t np, ngz = 0;
	char **paths = tg_test_shared_trace_files(&np);
	unsigned char *bz = malloc(1 << 20), *bi = malloc(1 << 20);
	for (size_t k = 0; k < np; k++) {
		size_t l = strlen(paths[k]);
		if (l < 3 || strcmp(paths[k] + l - 3, ".gz"))
			continue;
		tg_source_opts oz = {.inflater = TG_INFLATE_ZLIB}, oi = {.inflater = TG_INFLATE_ISAL};
		tg_source *sz, *si;
		assert_int_equal(tg_source_open_file(&sz, paths[k], NULL, &oz), 0);
		assert_int_equal(tg_source_open_file(&si, paths[k], NULL, &oi), 0);
		size_t total = 0, gz = 0, gi = 0, pz = 0, pi = 0;
		for (;;) {
			if (pz == gz) {
				assert_int_equal(tg_source_read(sz, bz, 1 << 20, &gz), 0);
				pz = 0;
			}
			if (pi == gi) {
				assert_int_equal(tg_source_read(si, bi, 1 << 20, &gi), 0);
				pi = 0;
			}
			size_t m = gz - pz < gi - pi ? gz - pz : gi - pi;
			if (!m) {
				assert_int_equal(gz, 0); /* both end together */
				assert_int_equal(gi, 0);
				break;
			}
			if (memcmp(bz + pz, bi + pi, m))
				fail_msg("%s: the backends differ after %zu bytes", paths[k], total);
			pz += m, pi += m, total += m;
		}
		assert_int_equal(tg_source_inflater(si), TG_INFLATE_ISAL);
		assert_int_equal(tg_source_file_bytes(si), tg_source_file_bytes(sz));
		tg_source_free(sz);
		tg_source_free(si);
		ngz++;
	}
	assert_true(ngz >= 70);
	free(bz);
	free(bi);
	tg_test_paths_free(paths, np);
}

/* Every gzip fixture of tests/data/bad/trace read by the trace reader with
 * each backend: the same rc and the same message (offsets included), and
 * the raw source the same bytes. */
static void test_backends_same_on_bad_fixtures(void **state)
{
	(void)state;
	if (!tg_inflate_have_isal())
		skip();
	const char *dir = "tests/data/bad/trace";
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 4 || strcmp(e->d_name + l - 3, ".gz"))
			continue;
		char path[512], mz[512];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		tg_read_opts rz = {.source = {.inflater = TG_INFLATE_ZLIB}}, ri = {.source = {.inflater = TG_INFLATE_ISAL}};
		tg_trace *t = NULL;
		int rcz = tg_trace_read_file(&t, path, &rz);
		snprintf(mz, sizeof(mz), "%s", rcz ? tg_error_last() : "");
		tg_trace_free(t);
		int rci = tg_trace_read_file(&t, path, &ri);
		assert_int_equal(rci, rcz);
		assert_string_equal(rci ? tg_error_last() : "", mz);
		tg_trace_free(t);
		size_t len;
		unsigned char *data = slurp(path, &len);
		same_both_ways(data, len, 0, 1);
		same_both_ways(data, len, 1, 0);
		free(data);
		n++;
	}
	closedir(d);
	assert_true(n >= 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_gzip_same_bytes),
		cmocka_unit_test(test_multi_member_and_padding),
		cmocka_unit_test(test_size_hint),
		cmocka_unit_test(test_reads_grow),
		cmocka_unit_test(test_truncated_and_corrupt),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_observer_sees_every_byte),
		cmocka_unit_test(test_reader_reads_to_the_end),
		cmocka_unit_test(test_backends_on_damaged_gzip),
		cmocka_unit_test(test_backends_same_on_bad_fixtures),
		cmocka_unit_test(test_backends_same_on_shared_traces),
	};
	return cmocka_run_group_tests_name("source", tests, NULL, NULL);
}
