/* test_source.c - plain and gzip byte streams: detection by magic bytes,
 * multi-member gzip, truncated and corrupt gzip with compressed offsets,
 * the size limit and the bomb ratio, threaded and single-threaded inflate
 * giving the same bytes. */
#include "testutil.h"

#include "../core/source.h"

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

static void test_missing_file(void **state)
{
	(void)state;
	tg_source *s;
	assert_int_equal(tg_source_open_file(&s, "/nonexistent/x.json", NULL, NULL), TG_EIO);
	assert_null(s);
	assert_string_equal(tg_error_last(), "/nonexistent/x.json: cannot open: No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_gzip_same_bytes),
		cmocka_unit_test(test_multi_member_and_padding),
		cmocka_unit_test(test_truncated_and_corrupt),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_missing_file),
	};
	return cmocka_run_group_tests_name("source", tests, NULL, NULL);
}
