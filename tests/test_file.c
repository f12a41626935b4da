/* test_file.c - reading a small file whole: bytes, NUL, sizes around the
 * 64 KiB read step, the size limit and the one-line errors. */
#include "testutil.h"

#include "../util/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *write_tmp(size_t n)
{
	char *path = strdup("/tmp/tg-test-file-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	for (size_t i = 0; i < n; i++)
		fputc((int)(i * 7 % 251), f);
	fclose(f);
	return path;
}

static void test_sizes(void **state)
{
	(void)state;
	size_t sizes[] = {0, 1, 65534, 65535, 65536, 65537, 300000};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		char *path = write_tmp(sizes[k]);
		char *buf = NULL;
		size_t len = 99;
		assert_int_equal(tg_file_read_all(&buf, &len, path, 0), 0);
		assert_int_equal(len, sizes[k]);
		assert_int_equal(buf[len], '\0');
		for (size_t i = 0; i < len; i++)
			assert_int_equal((unsigned char)buf[i], i * 7 % 251);
		free(buf);
		unlink(path);
		free(path);
	}
}

static void test_limit(void **state)
{
	(void)state;
	char *path = write_tmp(200000);
	char *buf = (char *)1;
	size_t len = 1;
	assert_int_equal(tg_file_read_all(&buf, &len, path, 100000), TG_ELIMIT);
	assert_null(buf);
	assert_int_equal(len, 0);
	assert_non_null(strstr(tg_error_last(), "larger than 100000 bytes"));
	assert_int_equal(tg_file_read_all(&buf, &len, path, 200000), 0);
	assert_int_equal(len, 200000);
	free(buf);
	unlink(path);
	free(path);
}

static void test_errors(void **state)
{
	(void)state;
	char *buf;
	size_t len;
	assert_int_equal(tg_file_read_all(&buf, &len, "/nonexistent/x.yaml", 0), TG_EIO);
	assert_null(buf);
	assert_string_equal(tg_error_last(), "/nonexistent/x.yaml: cannot open: No such file or directory");
	assert_int_equal(tg_file_read_all(&buf, &len, "/tmp", 0), TG_EIO);
	assert_string_equal(tg_error_last(), "/tmp: cannot read: Is a directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
