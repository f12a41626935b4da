/*
 * test_util.c - the daemon's shared helpers (util/util.h): an atomic
 * write leaves the whole file with its mode and no temporary behind, or
 * nothing; mkdir -p makes every parent, names the folder it could not make
 * and refuses a path too long instead of cutting it; the hex check counts.
 */
#include "testutil.h"

#include "../util/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <unistd.h>

static char *tmpdir(void)
{
	char *d = strdup("/tmp/tg-util-XXXXXX");
	assert_non_null(mkdtemp(d));
	return d;
}


static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_write_atomic(void **state)
{
	(void)state;
	char *d = tmpdir(), path[512], buf[64];
	snprintf(path, sizeof(path), "%s/f.txt", d);
	assert_int_equal(tg_util_write_atomic(path, "first", 5, 0640), 0);
	assert_int_equal(tg_util_write_atomic(path, "second!", 7, 0604), 0);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(n, 7);
	assert_memory_equal(buf, "second!", 7);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0604); /* fchmod: the umask does not apply */
	assert_int_equal(entries(d), 1);           /* no temporary left */
	/* an empty file is a file */
	assert_int_equal(tg_util_write_atomic(path, "", 0, 0600), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	/* a folder that does not exist: -1, errno, nothing made */
	snprintf(path, sizeof(path), "%s/no/f.txt", d);
	errno = 0;
	assert_int_equal(tg_util_write_atomic(path, "x", 1, 0644), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(entries(d), 1);
	tg_test_rm_tree(d);
	free(d);
}

/* The stream's pair: kept, the file is there whole, the temporary gone;
 * not kept, nothing is left, the old file untouched; a tmp buffer too
 * small is ENAMETOOLONG before anything is made. */
static void test_atomic_stream(void **state)
{
	(void)state;
	char *d = tmpdir(), path[512], tmp[600], buf[64];
	snprintf(path, sizeof(path), "%s/s.txt", d);
	FILE *f = tg_util_atomic_open(tmp, sizeof(tmp), path, 0640);
	assert_non_null(f);
	assert_int_equal(strncmp(tmp, path, strlen(path)), 0);
	fputs("streamed", f);
	assert_int_equal(tg_util_atomic_close(f, tmp, path, 1), 0);
	f = tg_util_atomic_open(tmp, sizeof(tmp), path, 0640);
	assert_non_null(f);
	fputs("dropped", f);
	assert_int_equal(tg_util_atomic_close(f, tmp, path, 0), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(n, 8);
	assert_memory_equal(buf, "streamed", 8);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(entries(d), 1);
	errno = 0;
	assert_null(tg_util_atomic_open(tmp, strlen(path) + 4, path, 0640));
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(entries(d), 1);
	tg_test_rm_tree(d);
	free(d);
}

static void test_write_all(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(tg_util_write_all(p[1], "abc", 3), 0);
	close(p[1]);
	char buf[8];
	assert_int_equal(read(p[0], buf, sizeof(buf)), 3);
	close(p[0]);
	assert_int_equal(tg_util_write_all(-1, "abc", 3), -1);
	assert_int_equal(errno, EBADF);
}

static void test_mkdir_p(void **state)
{
	(void)state;
	char *d = tmpdir(), path[512], failed[512];
	snprintf(path, sizeof(path), "%s/a/b/c", d);
	assert_int_equal(tg_util_mkdir_p(failed, sizeof(failed), path, 0750), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* again: what exists is fine; a trailing slash too */
	snprintf(path, sizeof(path), "%s/a/b/c/", d);
	assert_int_equal(tg_util_mkdir_p(NULL, 0, path, 0750), 0);
	/* a file in the way: the folder that could not be made is named */
	char file[512];
	snprintf(file, sizeof(file), "%s/a/file", d);
	assert_int_equal(tg_util_write_atomic(file, "x", 1, 0644), 0);
	snprintf(path, sizeof(path), "%s/a/file/x/y", d);
	assert_int_equal(tg_util_mkdir_p(failed, sizeof(failed), path, 0750), -1);
	assert_int_equal(errno, ENOTDIR);
	snprintf(path, sizeof(path), "%s/a/file/x", d);
	assert_string_equal(failed, path);
	/* too long: refused whole, never cut short to a shorter folder */
	char *lng = malloc(PATH_MAX + 16);
	assert_non_null(lng);
	int k = snprintf(lng, PATH_MAX + 16, "%s/", d);
	memset(lng + k, 'z', (size_t)(PATH_MAX + 8 - k));
	lng[PATH_MAX + 8] = 0;
	assert_int_equal(tg_util_mkdir_p(failed, sizeof(failed), lng, 0750), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(strncmp(failed, lng, sizeof(failed) - 1), 0);
	snprintf(path, sizeof(path), "%s", d);
	assert_int_equal(entries(path), 1); /* only a/ */
	free(lng);
	tg_test_rm_tree(d);
	free(d);
}

static void test_is_hex(void **state)
{
	(void)state;
	assert_int_equal(tg_util_is_hex("0123456789abcdefABCDEF0123456789abcdef01", 40), 1);
	assert_int_equal(tg_util_is_hex("0123456789abcdefABCDEF0123456789abcdef0", 40), 0);
	assert_int_equal(tg_util_is_hex("0123456789abcdefABCDEF0123456789abcdef012", 40), 0);
	assert_int_equal(tg_util_is_hex("0123456789abcdefABCDEF0123456789abcdef0g", 40), 0);
	assert_int_equal(tg_util_is_hex("", 0), 1);
	assert_int_equal(tg_util_is_hex(NULL, 0), 0);
	assert_int_equal(tg_util_is_hex(NULL, 40), 0);
}

/* The folders of a storage key: the rest after the n-th slash, NULL
 * (EINVAL) when a slash is missing or a segment is too long. */
static void test_path_segments(void **state)
{
	(void)state;
	char seg[5][TG_UTIL_SEGMENT_MAX + 1];
	const char *rest = tg_util_path_segments(seg, 5, "o/r/abc/w/run-1/manifest.json");
	assert_non_null(rest);
	assert_string_equal(rest, "manifest.json");
	assert_string_equal(seg[0], "o");
	assert_string_equal(seg[2], "abc");
	assert_string_equal(seg[4], "run-1");
	rest = tg_util_path_segments(seg, 2, "a//b");
	assert_non_null(rest);
	assert_string_equal(seg[1], "");
	assert_string_equal(rest, "b");
	rest = tg_util_path_segments(seg, 2, "a/b/");
	assert_non_null(rest);
	assert_string_equal(rest, "");
	errno = 0;
	assert_null(tg_util_path_segments(seg, 5, "o/r/abc/w"));
	assert_int_equal(errno, EINVAL);
	char longseg[TG_UTIL_SEGMENT_MAX + 8];
	memset(longseg, 'x', TG_UTIL_SEGMENT_MAX + 1);
	memcpy(longseg + TG_UTIL_SEGMENT_MAX + 1, "/y", 3);
	errno = 0;
	assert_null(tg_util_path_segments(seg, 1, longseg));
	assert_int_equal(errno, EINVAL);
	longseg[TG_UTIL_SEGMENT_MAX] = '/'; /* exactly TG_UTIL_SEGMENT_MAX bytes: taken */
	rest = tg_util_path_segments(seg, 1, longseg);
	assert_non_null(rest);
	assert_int_equal(strlen(seg[0]), TG_UTIL_SEGMENT_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_atomic_stream),
		cmocka_unit_test(test_write_all),
		cmocka_unit_test(test_mkdir_p),
		cmocka_unit_test(test_is_hex),
		cmocka_unit_test(test_path_segments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
