/*
 * test_storage_local.c - artifact storage in a local folder: the listing
 * finds manifests at the contract's depth only, paths cannot leave the
 * root, and a new manifest wakes a waiting daemon up.
 */
#include "testutil.h"

#include "../daemon/storage/storage.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SHA "0123456789abcdef0123456789abcdef01234567"

static char root[256];

static void mkdirs(const char *rel)
{
	char path[1536], *p;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
}

static void put(const char *rel, const char *text)
{
	char path[1536];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s", rel);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = 0;
		mkdirs(dir);
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/tg-storage-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void test_key_ok(void **state)
{
	(void)state;
	assert_true(tg_storage_key_ok("a/b/c.json"));
	assert_true(tg_storage_key_ok("a b/+c/ü.json"));
	assert_false(tg_storage_key_ok(""));
	assert_false(tg_storage_key_ok(NULL));
	assert_false(tg_storage_key_ok("/a"));
	assert_false(tg_storage_key_ok("a//b"));
	assert_false(tg_storage_key_ok("a/"));
	assert_false(tg_storage_key_ok("a/./b"));
	assert_false(tg_storage_key_ok("a/../b"));
	assert_false(tg_storage_key_ok(".."));
	assert_false(tg_storage_key_ok("a\\b"));
	assert_false(tg_storage_key_ok("a\nb"));
	assert_true(tg_storage_key_ok("a/..b/c")); /* a name that starts with dots is a name */
}

static void test_list(void **state)
{
	(void)state;
	put("acme/llm/" SHA "/train/ci-2/manifest.json", "{}");
	put("acme/llm/" SHA "/train/ci-2/rank0.json", "[]");
	put("acme/llm/" SHA "/train/ci-1/manifest.json", "{\"a\": 1}");
	put("acme/llm/" SHA "/infer/ci-1/rank0.json", "[]");       /* no manifest yet */
	put("acme/llm/" SHA "/train/manifest.json", "{}");         /* too shallow */
	put("acme/llm/" SHA "/train/ci-3/x/manifest.json", "{}");  /* too deep */
	put("acme/.hidden/" SHA "/train/ci-1/manifest.json", "{}"); /* hidden folder: skipped */
	tg_storage *s;
	assert_int_equal(tg_storage_local_new(&s, root), 0);
	assert_string_equal(tg_storage_kind(s), "local");
	tg_storage_obj *o;
	size_t n;
	assert_int_equal(tg_storage_list_manifests(&o, &n, s), 0);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].key, "acme/llm/" SHA "/train/ci-1/manifest.json");
	assert_string_equal(o[1].key, "acme/llm/" SHA "/train/ci-2/manifest.json");
	assert_int_equal(o[0].size, 8);
	assert_non_null(o[0].etag);
	assert_true(o[0].mtime > 0);
	tg_storage_objs_free(o, n);
	char *data;
	size_t len;
	assert_int_equal(tg_storage_read(&data, &len, s, "acme/llm/" SHA "/train/ci-1/manifest.json", 0), 0);
	assert_int_equal(len, 8);
	assert_string_equal(data, "{\"a\": 1}");
	free(data);
	assert_int_equal(tg_storage_read(&data, &len, s, "acme/llm/" SHA "/train/ci-1/manifest.json", 4), TG_ELIMIT);
	assert_int_equal(tg_storage_read(&data, &len, s, "acme/llm/" SHA "/train/ci-9/manifest.json", 0), TG_ENOTFOUND);
	assert_int_equal(tg_storage_read(&data, &len, s, "acme/../../etc/passwd", 0), TG_EINVAL);
	int fd = -1;
	assert_int_equal(tg_storage_fetch(&fd, s, "acme/llm/" SHA "/train/ci-2/rank0.json", "/tmp", 0), 0);
	assert_true(fd >= 0);
	char got[8] = "";
	assert_int_equal(read(fd, got, sizeof(got)), 2);
	assert_memory_equal(got, "[]", 2);
	close(fd);
	tg_storage_free(s);
}

/* No symbolic link is followed, not even one that stays inside the root
 * (it could lead into another repository's folder): reading or fetching
 * one is refused with a message, and so is a link to a folder on the way. */
static void test_symlink_escape(void **state)
{
	(void)state;
	put("acme/llm/" SHA "/train/ci-1/manifest.json", "{}");
	put("other/secret/" SHA "/train/ci-1/rank0.json", "[1]");
	char link[1536];
	snprintf(link, sizeof(link), "%s/acme/llm/" SHA "/train/ci-1/rank0.json", root);
	assert_int_equal(symlink("/etc/hostname", link), 0);
	snprintf(link, sizeof(link), "%s/acme/llm/" SHA "/train/ci-1/inside.json", root);
	assert_int_equal(symlink("manifest.json", link), 0);
	snprintf(link, sizeof(link), "%s/acme/llm/" SHA "/train/ci-1/tenant.json", root);
	char target[1536];
	snprintf(target, sizeof(target), "%s/other/secret/" SHA "/train/ci-1/rank0.json", root);
	assert_int_equal(symlink(target, link), 0);
	snprintf(link, sizeof(link), "%s/acme/llm/" SHA "/train/ci-2", root);
	snprintf(target, sizeof(target), "%s/other/secret/" SHA "/train/ci-1", root);
	assert_int_equal(symlink(target, link), 0);
	tg_storage *s;
	assert_int_equal(tg_storage_local_new(&s, root), 0);
	char *data;
	size_t len;
	int fd = 7;
	assert_int_equal(tg_storage_fetch(&fd, s, "acme/llm/" SHA "/train/ci-1/rank0.json", "/tmp", 0), TG_EINVAL);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(tg_error_last(), "rank0.json is a symbolic link (storage links are never followed)"));
	assert_int_equal(tg_storage_read(&data, &len, s, "acme/llm/" SHA "/train/ci-1/rank0.json", 0), TG_EINVAL);
	assert_int_equal(tg_storage_read(&data, &len, s, "acme/llm/" SHA "/train/ci-1/inside.json", 0), TG_EINVAL);
	assert_int_equal(tg_storage_fetch(&fd, s, "acme/llm/" SHA "/train/ci-1/tenant.json", "/tmp", 0), TG_EINVAL);
	assert_int_equal(tg_storage_fetch(&fd, s, "acme/llm/" SHA "/train/ci-2/rank0.json", "/tmp", 0), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "train/ci-2/rank0.json: folder ci-2 is a symbolic link"));
	tg_storage_free(s);
}

/* A hard link is another name for a file that may be another
 * repository's trace (or manifest): a file with more than one link is
 * refused like a symbolic link, and the file itself, once its other name
 * is gone, is read again. */
static void test_hard_link(void **state)
{
	(void)state;
	put("acme/llm/" SHA "/train/ci-1/manifest.json", "{}");
	put("other/secret/" SHA "/train/ci-1/rank0.json", "[1]");
	char from[1536], to[1536];
	snprintf(from, sizeof(from), "%s/other/secret/" SHA "/train/ci-1/rank0.json", root);
	snprintf(to, sizeof(to), "%s/acme/llm/" SHA "/train/ci-1/rank0.json", root);
	assert_int_equal(link(from, to), 0);
	snprintf(from, sizeof(from), "%s/acme/llm/" SHA "/train/ci-1/manifest.json", root);
	snprintf(to, sizeof(to), "%s/acme/llm/" SHA "/train/ci-1/copy.json", root);
	assert_int_equal(link(from, to), 0);
	tg_storage *s;
	assert_int_equal(tg_storage_local_new(&s, root), 0);
	int fd = 7;
	assert_int_equal(tg_storage_fetch(&fd, s, "acme/llm/" SHA "/train/ci-1/rank0.json", "/tmp", 0), TG_EINVAL);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(tg_error_last(), "acme/llm/" SHA "/train/ci-1/rank0.json has 2 hard links (storage links are "
	                                        "never followed)"));
	char *data = NULL;
	size_t len;
	assert_int_equal(tg_storage_read(&data, &len, s, "acme/llm/" SHA "/train/ci-1/manifest.json", 0), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "manifest.json has 2 hard links"));
	assert_int_equal(unlink(to), 0);
	assert_int_equal(tg_storage_read(&data, &len, s, "acme/llm/" SHA "/train/ci-1/manifest.json", 0), 0);
	assert_int_equal(len, 2);
	free(data);
	tg_storage_free(s);
}

/* A FIFO named manifest.json, or as a trace, is listed (a run is there)
 * but not opened for reading: a clear error at once, no hang. So is a
 * folder where a file should be. */
static void test_fifo_and_folder(void **state)
{
	(void)state;
	mkdirs("acme/llm/" SHA "/train/ci-1");
	mkdirs("acme/llm/" SHA "/train/ci-1/dir.json");
	char path[1536];
	snprintf(path, sizeof(path), "%s/acme/llm/" SHA "/train/ci-1/manifest.json", root);
	assert_int_equal(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/acme/llm/" SHA "/train/ci-1/rank0.json", root);
	assert_int_equal(mkfifo(path, 0644), 0);
	tg_storage *s;
	assert_int_equal(tg_storage_local_new(&s, root), 0);
	tg_storage_obj *o;
	size_t n;
	assert_int_equal(tg_storage_list_manifests(&o, &n, s), 0);
	assert_int_equal(n, 1);
	tg_storage_objs_free(o, n);
	char *data = NULL;
	size_t len;
	int fd = -1;
	assert_int_equal(tg_storage_read(&data, &len, s, "acme/llm/" SHA "/train/ci-1/manifest.json", 0), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "manifest.json: a FIFO, not a regular file"));
	assert_int_equal(tg_storage_fetch(&fd, s, "acme/llm/" SHA "/train/ci-1/rank0.json", "/tmp", 0), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "rank0.json: a FIFO, not a regular file"));
	assert_int_equal(tg_storage_fetch(&fd, s, "acme/llm/" SHA "/train/ci-1/dir.json", "/tmp", 0), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "dir.json: a folder, not a regular file"));
	tg_storage_free(s);
}

/* The listing does not walk into a linked folder: a link at any level to
 * a folder outside the root (or inside it) lists nothing. */
static void test_listing_skips_links(void **state)
{
	(void)state;
	char outside[] = "/tmp/tg-storage-out-XXXXXX";
	assert_non_null(mkdtemp(outside));
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/llm/" SHA "/train/ci-1 && echo '{}' > %s/llm/" SHA "/train/ci-1/manifest.json",
	         outside, outside);
	assert_int_equal(system(cmd), 0);
	put("acme/llm/" SHA "/train/ci-1/manifest.json", "{}");
	char link[1536];
	snprintf(link, sizeof(link), "%s/evil", root); /* owner level */
	assert_int_equal(symlink(outside, link), 0);
	snprintf(link, sizeof(link), "%s/acme/llm/" SHA "/infer", root); /* workload level, inside the root */
	char target[1536];
	snprintf(target, sizeof(target), "%s/acme/llm/" SHA "/train", root);
	assert_int_equal(symlink(target, link), 0);
	tg_storage *s;
	assert_int_equal(tg_storage_local_new(&s, root), 0);
	tg_storage_obj *o;
	size_t n;
	assert_int_equal(tg_storage_list_manifests(&o, &n, s), 0);
	assert_int_equal(n, 1);
	assert_string_equal(o[0].key, "acme/llm/" SHA "/train/ci-1/manifest.json");
	tg_storage_objs_free(o, n);
	tg_storage_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", outside);
	assert_int_equal(system(cmd), 0);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A manifest written while the daemon waits wakes it up at once, even in a
 * folder that did not exist at the last listing. */
static void test_wait_wakes(void **state)
{
	(void)state;
	tg_storage *s;
	assert_int_equal(tg_storage_local_new(&s, root), 0);
	tg_storage_obj *o;
	size_t n;
	assert_int_equal(tg_storage_list_manifests(&o, &n, s), 0);
	assert_int_equal(n, 0);
	/* nothing happens: a timeout */
	double t0 = now_s();
	assert_int_equal(tg_storage_wait(s, 200), 0);
	assert_true(now_s() - t0 >= 0.19);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(100000);
		put("acme/llm/" SHA "/train/ci-7/rank0.json", "[]");
		put("acme/llm/" SHA "/train/ci-7/manifest.json", "{}");
		_exit(0);
	}
	t0 = now_s();
	int woke = tg_storage_wait(s, 5000);
	double dt = now_s() - t0;
	int st;
	waitpid(pid, &st, 0);
	assert_int_equal(woke, 1);
	assert_true(dt < 2.0);
	/* the listing finds it (the wake-up may come from the first folder: list
	 * and wait again until the manifest shows, as the daemon does) */
	for (int i = 0; i < 10; i++) {
		assert_int_equal(tg_storage_list_manifests(&o, &n, s), 0);
		tg_storage_objs_free(o, n);
		if (n == 1)
			break;
		tg_storage_wait(s, 200);
	}
	assert_int_equal(n, 1);
	/* a complete run's folder is no longer watched: writing a trace there
	 * later does not count as a change... but a new run does */
	put("acme/llm/" SHA "/train/ci-8/manifest.json", "{}");
	assert_int_equal(tg_storage_wait(s, 2000), 1);
	tg_storage_free(s);
}

/* A listing of complete runs, then nothing: the wait lasts its whole
 * timeout. (Each listing adds and removes a watch on a complete run's
 * folder; the IN_IGNORED events that leaves are not a change and must not
 * end the wait early, or an idle daemon rescans the storage ~20 times a
 * second.) */
static void test_wait_idle(void **state)
{
	(void)state;
	put("acme/llm/" SHA "/train/ci-1/manifest.json", "{}");
	put("acme/llm/" SHA "/train/ci-2/manifest.json", "{}");
	tg_storage *s;
	assert_int_equal(tg_storage_local_new(&s, root), 0);
	for (int round = 0; round < 3; round++) {
		tg_storage_obj *o;
		size_t n;
		assert_int_equal(tg_storage_list_manifests(&o, &n, s), 0);
		tg_storage_objs_free(o, n);
		assert_int_equal(n, 2);
		double t0 = now_s();
		int w = tg_storage_wait(s, 300);
		double dt = now_s() - t0;
		/* the first wait may see the events of the puts above */
		if (round > 0) {
			assert_int_equal(w, 0);
			assert_true(dt >= 0.29);
		}
	}
	tg_storage_free(s);
}

static void test_missing_root(void **state)
{
	(void)state;
	tg_storage *s;
	assert_int_equal(tg_storage_local_new(&s, "/nonexistent/tg-storage"), TG_EIO);
	assert_string_equal(tg_error_last(), "/nonexistent/tg-storage: storage folder: No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_ok),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_escape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_and_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hard_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_skips_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_wakes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_idle, setup, teardown),
		cmocka_unit_test(test_missing_root),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
