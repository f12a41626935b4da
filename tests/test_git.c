/* test_git.c - the mirror and the baseline search's history (daemon/git/git.h)
 * on real repositories built here with libgit2: a main branch with a merge
 * (so that first parents matter), a feature branch forked at a known
 * commit, trailers in and out of the last paragraph, tags and forge pull
 * and merge-request refs. The source is served from a file:// URL; the
 * live tests (TG_TEST_GIT_URL, TG_TEST_GIT_HTTP_URL, set by tests/it_git.sh)
 * run the same questions against git daemon and git http-backend, and push
 * to see fetch on demand over the network. */
#include "testutil.h"

#include "../daemon/git/git.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <git2.h>
#include <unistd.h>

#define T0 1700000000

/* ------------------------------------------------------------ helpers */

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

#define GIT_OK(call)                                                                          \
	do {                                                                                      \
		int err_ = (call);                                                                    \
		if (err_ < 0)                                                                         \
			fail_msg("%s: %s", #call, git_error_last() ? git_error_last()->message : "?");   \
	} while (0)

/* A commit (one file holding msg) with the given parents; updates ref
 * (forced) when ref is not NULL. Returns its id as hex in hex. */
static void mk(git_repository *repo, char hex[41], const char *ref, const char *msg, int64_t t,
               const char *p1, const char *p2)
{
	git_oid blob, tree, id;
	git_treebuilder *tb = NULL;
	git_tree *tr = NULL;
	git_signature *sig = NULL;
	const git_commit *parents[2];
	git_commit *pc[2] = {NULL, NULL};
	size_t np = 0;
	GIT_OK(git_blob_create_from_buffer(&blob, repo, msg, strlen(msg)));
	GIT_OK(git_treebuilder_new(&tb, repo, NULL));
	GIT_OK(git_treebuilder_insert(NULL, tb, "f", &blob, GIT_FILEMODE_BLOB));
	GIT_OK(git_treebuilder_write(&tree, tb));
	GIT_OK(git_tree_lookup(&tr, repo, &tree));
	GIT_OK(git_signature_new(&sig, "Ada Lovelace", "ada@example.com", t, 60));
	const char *ps[2] = {p1, p2};
	for (int i = 0; i < 2; i++) {
		if (!ps[i])
			continue;
		git_oid po;
		GIT_OK(git_oid_fromstr(&po, ps[i]));
		GIT_OK(git_commit_lookup(&pc[np], repo, &po));
		parents[np] = pc[np];
		np++;
	}
	GIT_OK(git_commit_create(&id, repo, NULL, sig, sig, NULL, msg, tr, np, parents));
	if (ref) {
		git_reference *r = NULL;
		GIT_OK(git_reference_create(&r, repo, ref, &id, 1, "test"));
		git_reference_free(r);
	}
	git_oid_tostr(hex, 41, &id);
	for (size_t i = 0; i < np; i++)
		git_commit_free(pc[i]);
	git_signature_free(sig);
	git_tree_free(tr);
	git_treebuilder_free(tb);
}

static void set_ref(git_repository *repo, const char *ref, const char *hex)
{
	git_oid id;
	git_reference *r = NULL;
	GIT_OK(git_oid_fromstr(&id, hex));
	GIT_OK(git_reference_create(&r, repo, ref, &id, 1, "test"));
	git_reference_free(r);
}

/* 1 when the repository at path has ref. */
static int has_ref(const char *path, const char *ref)
{
	git_repository *repo = NULL;
	git_oid id;
	GIT_OK(git_repository_open_bare(&repo, path));
	int ok = git_reference_name_to_id(&id, repo, ref) == 0;
	git_repository_free(repo);
	return ok;
}

static void assert_no_substr(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("'%s' contains '%s'", hay, needle);
}

static void assert_substr(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' lacks '%s'", hay, needle);
}

/* ------------------------------------------------------------ fixture */

/*
 *   m1 - m2 - m3 ------ m4 - m5        main (m4 merges side: parents m3, s2)
 *         \     \      /      \
 *          \     s1 - s2       p1      refs/pull/7/head (p1), refs/merge-requests/3/head (q1)
 *           f1 - f2                    feature
 *   o1                                 orphan (no shared history)
 */
static struct {
	char dir[64], src[128], url[160], mirror[128];
	git_repository *repo; /* the source */
	tg_git *g;            /* the mirror of it */
	char m1[41], m2[41], m3[41], m4[41], m5[41], f1[41], f2[41], s1[41], s2[41], o1[41];
	char p1[41], q1[41];
} fx;

static const char F2_MSG[] =
	"gemm: a larger tile for the 4096 shapes\n"
	"\n"
	"The kernel is slower alone but the step is faster.\n"
	"\n"
	"Tracegate-Accept: gemm: the new tile size wins end to end\n"
	"Signed-off-by: Ada Lovelace <ada@example.com>\n";

static const char M5_MSG[] =
	"docs: explain the gate\n"
	"\n"
	"Tracegate-Accept: sdpa: this line is not in the last paragraph\n"
	"\n"
	"So it is no trailer: the last paragraph is prose.\n";

static int fx_setup(void **state)
{
	(void)state;
	strcpy(fx.dir, "/tmp/tg-test-git-XXXXXX");
	if (!mkdtemp(fx.dir))
		return -1;
	snprintf(fx.src, sizeof(fx.src), "%s/src.git", fx.dir);
	snprintf(fx.url, sizeof(fx.url), "file://%s", fx.src);
	snprintf(fx.mirror, sizeof(fx.mirror), "%s/state/mirrors/src.git", fx.dir);
	git_libgit2_init();
	if (git_repository_init(&fx.repo, fx.src, 1) < 0)
		return -1;
	git_repository *r = fx.repo;
	mk(r, fx.m1, NULL, "Tracegate-Accept: gemm: a title is not a trailer\n", T0, NULL, NULL);
	mk(r, fx.m2, NULL, "m2\n", T0 + 60, fx.m1, NULL);
	mk(r, fx.m3, NULL, "m3\n", T0 + 120, fx.m2, NULL);
	mk(r, fx.f1, NULL, "f1\n", T0 + 180, fx.m2, NULL);
	mk(r, fx.f2, "refs/heads/feature", F2_MSG, T0 + 240, fx.f1, NULL);
	mk(r, fx.s1, NULL, "s1\n", T0 + 300, fx.m3, NULL);
	mk(r, fx.s2, "refs/heads/side", "s2\n", T0 + 360, fx.s1, NULL);
	mk(r, fx.m4, NULL, "Merge branch 'side'\n", T0 + 420, fx.m3, fx.s2);
	mk(r, fx.m5, "refs/heads/main", M5_MSG, T0 + 480, fx.m4, NULL);
	mk(r, fx.o1, "refs/heads/orphan", "o1\n", T0 + 540, NULL, NULL);
	mk(r, fx.p1, "refs/pull/7/head", "p1\n", T0 + 600, fx.m5, NULL);
	mk(r, fx.q1, "refs/merge-requests/3/head", "q1\n", T0 + 660, fx.m5, NULL);
	set_ref(r, "refs/tags/v1", fx.m2);
	git_reference *head = NULL;
	git_reference_symbolic_create(&head, r, "HEAD", "refs/heads/main", 1, "test");
	git_reference_free(head);
	if (tg_git_open(&fx.g, fx.url, fx.mirror, NULL) != 0) {
		print_error("tg_git_open: %s\n", tg_error_last());
		return -1;
	}
	return 0;
}

static int fx_teardown(void **state)
{
	(void)state;
	tg_git_free(fx.g);
	git_repository_free(fx.repo);
	tg_test_rm_tree(fx.dir);
	return 0;
}

/* ------------------------------------------------------------ tests */

static void test_open_clones_mirror(void **state)
{
	(void)state;
	char tmp[160];
	snprintf(tmp, sizeof(tmp), "%s.tmp", fx.mirror);
	assert_true(exists(fx.mirror));
	assert_false(exists(tmp));
	git_repository *m = NULL;
	GIT_OK(git_repository_open_bare(&m, fx.mirror));
	assert_true(git_repository_is_bare(m));
	/* origin names the source (git_config, not git_remote_lookup: that
	 * leaks in libgit2 1.5) and HEAD its default branch */
	git_config *cfg = NULL;
	git_buf url = {0};
	GIT_OK(git_repository_config_snapshot(&cfg, m));
	GIT_OK(git_config_get_string_buf(&url, cfg, "remote.origin.url"));
	assert_string_equal(url.ptr, fx.url);
	git_buf_dispose(&url);
	git_config_free(cfg);
	git_reference *head = NULL;
	GIT_OK(git_reference_lookup(&head, m, "HEAD"));
	assert_string_equal(git_reference_symbolic_target(head), "refs/heads/main");
	git_reference_free(head);
	git_repository_free(m);
	/* branches, tags and both forges' review heads came along */
	assert_true(has_ref(fx.mirror, "refs/heads/main"));
	assert_true(has_ref(fx.mirror, "refs/heads/feature"));
	assert_true(has_ref(fx.mirror, "refs/heads/side"));
	assert_true(has_ref(fx.mirror, "refs/heads/orphan"));
	assert_true(has_ref(fx.mirror, "refs/tags/v1"));
	assert_true(has_ref(fx.mirror, "refs/pull/7/head"));
	assert_true(has_ref(fx.mirror, "refs/merge-requests/3/head"));
	assert_int_equal(tg_git_has_commit(fx.g, fx.p1), 1);
	assert_int_equal(tg_git_has_commit(fx.g, fx.q1), 1);
}

static void test_branch_tip(void **state)
{
	(void)state;
	char out[41];
	assert_int_equal(tg_git_branch_tip(out, fx.g, "main"), 0);
	assert_string_equal(out, fx.m5);
	assert_int_equal(tg_git_branch_tip(out, fx.g, "feature"), 0);
	assert_string_equal(out, fx.f2);
	assert_int_equal(tg_git_branch_tip(out, fx.g, "no-such-branch"), TG_ENOTFOUND);
	assert_string_equal(out, "");
	assert_substr(tg_error_last(), "no-such-branch");
	assert_substr(tg_error_last(), fx.url);
	assert_int_equal(tg_git_branch_tip(out, fx.g, "bad..name"), TG_EINVAL);
	assert_int_equal(tg_git_branch_tip(out, fx.g, ""), TG_EINVAL);
	assert_int_equal(tg_git_branch_tip(out, fx.g, NULL), TG_EINVAL);
}

static void test_merge_base(void **state)
{
	(void)state;
	char out[41];
	/* a feature branch: the fork point */
	assert_int_equal(tg_git_merge_base(out, fx.g, fx.f2, "main"), 0);
	assert_string_equal(out, fx.m2);
	assert_int_equal(tg_git_merge_base(out, fx.g, fx.f1, "main"), 0);
	assert_string_equal(out, fx.m2);
	/* a branch merged into main: its own tip */
	assert_int_equal(tg_git_merge_base(out, fx.g, fx.s2, "main"), 0);
	assert_string_equal(out, fx.s2);
	/* a pull-request head on top of main: main's tip */
	assert_int_equal(tg_git_merge_base(out, fx.g, fx.p1, "main"), 0);
	assert_string_equal(out, fx.m5);
	/* main against feature: the other way round, the same fork point */
	assert_int_equal(tg_git_merge_base(out, fx.g, fx.m5, "feature"), 0);
	assert_string_equal(out, fx.m2);
	/* no shared history, no branch, no commit */
	assert_int_equal(tg_git_merge_base(out, fx.g, fx.o1, "main"), TG_ENOTFOUND);
	assert_substr(tg_error_last(), "share no history");
	assert_int_equal(tg_git_merge_base(out, fx.g, fx.f2, "no-such-branch"), TG_ENOTFOUND);
	assert_substr(tg_error_last(), "no-such-branch");
	assert_int_equal(tg_git_merge_base(out, fx.g, "1111111111111111111111111111111111111111", "main"),
	                 TG_ENOTFOUND);
	assert_substr(tg_error_last(), "1111111111111111111111111111111111111111");
	assert_int_equal(tg_git_merge_base(out, fx.g, fx.f2, "a b"), TG_EINVAL);
}

static void expect_walk(const char *from, size_t limit, const char *const *want, size_t nwant)
{
	char(*ids)[41] = NULL;
	size_t n = 99;
	assert_int_equal(tg_git_first_parents(&ids, &n, fx.g, from, limit), 0);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(ids[i], want[i]);
	free(ids);
}

static void test_first_parents(void **state)
{
	(void)state;
	/* from main's tip through the merge: m3, never side's s2 or s1 */
	const char *main_all[] = {fx.m5, fx.m4, fx.m3, fx.m2, fx.m1};
	expect_walk(fx.m5, 100, main_all, 5);
	expect_walk(fx.m5, 5, main_all, 5);
	expect_walk(fx.m5, 3, main_all, 3);
	expect_walk(fx.m5, 1, main_all, 1);
	expect_walk(fx.m5, 0, NULL, 0);
	/* the merge commit itself: its first parent is m3 */
	expect_walk(fx.m4, 2, main_all + 1, 2);
	const char *feature[] = {fx.f2, fx.f1, fx.m2, fx.m1};
	expect_walk(fx.f2, 10, feature, 4);
	const char *side[] = {fx.s2, fx.s1, fx.m3, fx.m2, fx.m1};
	expect_walk(fx.s2, 10, side, 5);
	const char *orphan[] = {fx.o1};
	expect_walk(fx.o1, 10, orphan, 1);

	char(*ids)[41] = (void *)1;
	size_t n = 7;
	assert_int_equal(tg_git_first_parents(&ids, &n, fx.g, "2222222222222222222222222222222222222222", 10),
	                 TG_ENOTFOUND);
	assert_null(ids);
	assert_int_equal(n, 0);
}

static void test_trailers(void **state)
{
	(void)state;
	tg_git_trailer *t = NULL;
	size_t n = 0;
	char *author = NULL;
	assert_int_equal(tg_git_commit_trailers(&t, &n, &author, fx.g, fx.f2), 0);
	assert_int_equal(n, 2);
	assert_string_equal(t[0].key, "Tracegate-Accept");
	assert_string_equal(t[0].value, "gemm: the new tile size wins end to end");
	assert_string_equal(t[1].key, "Signed-off-by");
	assert_string_equal(t[1].value, "Ada Lovelace <ada@example.com>");
	assert_string_equal(author, "Ada Lovelace <ada@example.com>");
	tg_git_trailers_free(t, n);
	free(author);

	/* "Key: value" in a middle paragraph, and as the title: no trailers */
	assert_int_equal(tg_git_commit_trailers(&t, &n, NULL, fx.g, fx.m5), 0);
	assert_int_equal(n, 0);
	tg_git_trailers_free(t, n);
	assert_int_equal(tg_git_commit_trailers(&t, &n, &author, fx.g, fx.m1), 0);
	assert_int_equal(n, 0);
	assert_string_equal(author, "Ada Lovelace <ada@example.com>");
	tg_git_trailers_free(t, n);
	free(author);

	assert_int_equal(tg_git_commit_trailers(&t, &n, &author, fx.g, "3333333333333333333333333333333333333333"),
	                 TG_ENOTFOUND);
	assert_null(author);
}

static void test_commit_time(void **state)
{
	(void)state;
	int64_t t = 0;
	assert_int_equal(tg_git_commit_time(&t, fx.g, fx.m1), 0);
	assert_int_equal(t, T0);
	assert_int_equal(tg_git_commit_time(&t, fx.g, fx.f2), 0);
	assert_int_equal(t, T0 + 240);
	assert_int_equal(tg_git_commit_time(&t, fx.g, "zz"), TG_EINVAL);
}

static void test_bad_sha(void **state)
{
	(void)state;
	const char *bad[] = {
		"",
		"abc",
		"111111111111111111111111111111111111111",   /* 39 */
		"11111111111111111111111111111111111111111", /* 41 */
		"g111111111111111111111111111111111111111",
		"11111111111111111111 111111111111111111",
		"HEAD",
		"main",
		NULL,
	};
	char out[41];
	int64_t t;
	tg_git_trailer *tr;
	size_t n;
	char(*ids)[41];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tg_git_has_commit(fx.g, bad[i]), TG_EINVAL);
		assert_substr(tg_error_last(), bad[i] ? "40 hex" : "no commit id");
		assert_int_equal(tg_git_merge_base(out, fx.g, bad[i], "main"), TG_EINVAL);
		assert_int_equal(tg_git_first_parents(&ids, &n, fx.g, bad[i], 5), TG_EINVAL);
		assert_int_equal(tg_git_commit_trailers(&tr, &n, NULL, fx.g, bad[i]), TG_EINVAL);
		assert_int_equal(tg_git_commit_time(&t, fx.g, bad[i]), TG_EINVAL);
	}
	/* upper case is a valid spelling; the answers are lower case */
	char upper[41];
	for (int i = 0; i < 41; i++)
		upper[i] = (char)toupper((unsigned char)fx.f2[i]);
	assert_int_equal(tg_git_has_commit(fx.g, upper), 1);
	assert_int_equal(tg_git_merge_base(out, fx.g, upper, "main"), 0);
	assert_string_equal(out, fx.m2);
}

/* Commits pushed to the source after the mirror was made are fetched when
 * asked for: a new branch, a new pull-request head. */
static void test_fetch_on_demand(void **state)
{
	(void)state;
	char n1[41], p2[41], out[41];
	mk(fx.repo, n1, "refs/heads/later", "n1\n", T0 + 700, fx.m5, NULL);
	mk(fx.repo, p2, "refs/pull/8/head", "p2\n", T0 + 760, fx.m5, NULL);
	assert_false(has_ref(fx.mirror, "refs/heads/later"));
	assert_int_equal(tg_git_has_commit(fx.g, n1), 1);
	/* that one fetch brought everything */
	assert_true(has_ref(fx.mirror, "refs/heads/later"));
	assert_true(has_ref(fx.mirror, "refs/pull/8/head"));
	assert_int_equal(tg_git_has_commit(fx.g, p2), 1);
	assert_int_equal(tg_git_branch_tip(out, fx.g, "later"), 0);
	assert_string_equal(out, n1);
	/* a commit nobody has: 0, no error */
	tg_error_clear();
	assert_int_equal(tg_git_has_commit(fx.g, "4444444444444444444444444444444444444444"), 0);
	assert_string_equal(tg_error_last(), "");
	/* a branch made later is found by branch_tip and merge_base too */
	char n2[41];
	mk(fx.repo, n2, "refs/heads/later2", "n2\n", T0 + 820, fx.m3, NULL);
	assert_int_equal(tg_git_branch_tip(out, fx.g, "later2"), 0);
	assert_string_equal(out, n2);
	char n3[41];
	mk(fx.repo, n3, "refs/heads/later3", "n3\n", T0 + 880, n2, NULL);
	assert_int_equal(tg_git_merge_base(out, fx.g, n3, "main"), 0);
	assert_string_equal(out, fx.m3);
}

/* A branch deleted in the source disappears from the mirror at the next
 * fetch; so does a tag and a pull-request head. */
static void test_fetch_prunes(void **state)
{
	(void)state;
	set_ref(fx.repo, "refs/heads/gone", fx.m3);
	set_ref(fx.repo, "refs/tags/gone-tag", fx.m3);
	set_ref(fx.repo, "refs/pull/99/head", fx.f1);
	assert_int_equal(tg_git_fetch(fx.g), 0);
	assert_true(has_ref(fx.mirror, "refs/heads/gone"));
	assert_true(has_ref(fx.mirror, "refs/tags/gone-tag"));
	assert_true(has_ref(fx.mirror, "refs/pull/99/head"));
	const char *refs[] = {"refs/heads/gone", "refs/tags/gone-tag", "refs/pull/99/head"};
	for (int i = 0; i < 3; i++) {
		git_reference *r = NULL;
		GIT_OK(git_reference_lookup(&r, fx.repo, refs[i]));
		GIT_OK(git_reference_delete(r));
		git_reference_free(r);
	}
	assert_int_equal(tg_git_fetch(fx.g), 0);
	assert_false(has_ref(fx.mirror, "refs/heads/gone"));
	assert_false(has_ref(fx.mirror, "refs/tags/gone-tag"));
	assert_false(has_ref(fx.mirror, "refs/pull/99/head"));
	assert_true(has_ref(fx.mirror, "refs/heads/main"));
	char out[41];
	assert_int_equal(tg_git_branch_tip(out, fx.g, "gone"), TG_ENOTFOUND);
}

/* An existing mirror is opened without a clone; a clone's leftover temp
 * folder is removed and the clone redone; parent folders are made. */
static void test_reopen_and_leftover(void **state)
{
	(void)state;
	char path[192], tmp[200], junk[220], out[41];
	snprintf(path, sizeof(path), "%s/deep/er/m.git", fx.dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(junk, sizeof(junk), "%s/objects", tmp);
	assert_int_equal(mkdir(fx.dir, 0777) == 0 || errno == EEXIST, 1);
	char deep[192];
	snprintf(deep, sizeof(deep), "%s/deep", fx.dir);
	mkdir(deep, 0777);
	snprintf(deep, sizeof(deep), "%s/deep/er", fx.dir);
	mkdir(deep, 0777);
	assert_int_equal(mkdir(tmp, 0777), 0);
	assert_int_equal(mkdir(junk, 0777), 0);
	tg_git *g = NULL;
	assert_int_equal(tg_git_open(&g, fx.url, path, NULL), 0);
	assert_false(exists(tmp));
	assert_int_equal(tg_git_branch_tip(out, g, "main"), 0);
	assert_string_equal(out, fx.m5);
	tg_git_free(g);

	/* reopen: no network needed (the source moved away for a moment) */
	char moved[160];
	snprintf(moved, sizeof(moved), "%s/moved.git", fx.dir);
	assert_int_equal(rename(fx.src, moved), 0);
	g = NULL;
	int rc = tg_git_open(&g, fx.url, path, NULL);
	assert_int_equal(rename(moved, fx.src), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(tg_git_branch_tip(out, g, "feature"), 0);
	assert_string_equal(out, fx.f2);
	tg_git_free(g);

	/* trailing slashes name the same mirror */
	char slashed[200];
	snprintf(slashed, sizeof(slashed), "%s//", path);
	assert_int_equal(tg_git_open(&g, fx.url, slashed, NULL), 0);
	tg_git_free(g);
	tg_test_rm_tree(path);
}

static void test_open_errors(void **state)
{
	(void)state;
	tg_git *g = (tg_git *)1;
	char url[200], path[200], tmp[210];
	snprintf(url, sizeof(url), "file://%s/no-such-repo.git", fx.dir);
	snprintf(path, sizeof(path), "%s/m-missing.git", fx.dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(tg_git_open(&g, url, path, NULL), TG_EIO);
	assert_null(g);
	assert_substr(tg_error_last(), url);
	assert_false(exists(path));
	assert_false(exists(tmp));

	/* a local clone_url that does not exist, as a path or a file:// URL,
	 * says so (libgit2 alone says "unsupported URL protocol" for a path) */
	char want[600], plain[200];
	snprintf(plain, sizeof(plain), "%s/no-such-repo.git", fx.dir);
	const char *missing[] = {url, plain};
	for (int k = 0; k < 2; k++) {
		snprintf(want, sizeof(want), "git %s: no such repository (%s does not exist)", missing[k], plain);
		assert_int_equal(tg_git_open(&g, missing[k], path, NULL), TG_EIO);
		assert_string_equal(tg_error_last(), want);
		assert_false(exists(path));
		size_t nrefs = 9;
		assert_int_equal(tg_git_ls_remote(&nrefs, missing[k], NULL), TG_EIO);
		assert_string_equal(tg_error_last(), want);
		assert_int_equal(nrefs, 0);
	}
	/* an existing path as a plain path works like file:// */
	size_t nrefs = 0;
	const char *bare = strncmp(fx.url, "file://", 7) ? fx.url : fx.url + 7;
	assert_int_equal(tg_git_ls_remote(&nrefs, bare, NULL), 0);
	assert_true(nrefs > 0);

	/* a folder that is no repository is not taken for a mirror */
	snprintf(path, sizeof(path), "%s/not-a-repo", fx.dir);
	assert_int_equal(mkdir(path, 0777), 0);
	assert_int_equal(tg_git_open(&g, fx.url, path, NULL), TG_EIO);
	assert_substr(tg_error_last(), path);

	assert_int_equal(tg_git_open(&g, NULL, path, NULL), TG_EINVAL);
	assert_int_equal(tg_git_open(&g, "", path, NULL), TG_EINVAL);
	assert_int_equal(tg_git_open(&g, fx.url, NULL, NULL), TG_EINVAL);
	assert_int_equal(tg_git_open(NULL, fx.url, path, NULL), TG_EINVAL);
}

/* The token, from the URL or from opts, is never in a message. Port 1 on
 * loopback refuses at once. */
static void test_token_never_shown(void **state)
{
	(void)state;
	tg_git *g = NULL;
	char path[200];
	snprintf(path, sizeof(path), "%s/m-secret.git", fx.dir);

	assert_int_equal(tg_git_open(&g, "https://x-access-token:S3CRET-tok%2Bx@127.0.0.1:1/o/r.git", path, NULL),
	                 TG_EIO);
	assert_substr(tg_error_last(), "https://127.0.0.1:1/o/r.git");
	assert_no_substr(tg_error_last(), "S3CRET");
	assert_no_substr(tg_error_last(), "x-access-token");

	assert_int_equal(tg_git_open(&g, "https://ghp_T0KENASUSER@127.0.0.1:1/o/r.git", path, NULL), TG_EIO);
	assert_substr(tg_error_last(), "https://127.0.0.1:1/o/r.git");
	assert_no_substr(tg_error_last(), "T0KENASUSER");

	tg_git_opts o = {.token = "ghs_0PTSTOKEN", .username = "bot"};
	assert_int_equal(tg_git_open(&g, "https://127.0.0.1:1/o/r.git", path, &o), TG_EIO);
	assert_substr(tg_error_last(), "https://127.0.0.1:1/o/r.git");
	assert_no_substr(tg_error_last(), "0PTSTOKEN");

	/* git://user:pass@ (no auth in that protocol, but still no password shown) */
	assert_int_equal(tg_git_open(&g, "git://u:PASSW0RD@127.0.0.1:1/r.git", path, NULL), TG_EIO);
	assert_substr(tg_error_last(), "git://127.0.0.1:1/r.git");
	assert_no_substr(tg_error_last(), "PASSW0RD");
	assert_false(exists(path));
}

/* ------------------------------------------------------------ live */

/* Asks the mirror of url the questions whose answers tests/it_git.sh
 * computed with the git CLI (TG_TEST_GIT_MAIN, _FEATURE, _FORK, _FIRST). */
static tg_git *live_check(const char *url, const char *name, const tg_git_opts *opts)
{
	const char *want_main = getenv("TG_TEST_GIT_MAIN");
	const char *want_feature = getenv("TG_TEST_GIT_FEATURE");
	const char *want_fork = getenv("TG_TEST_GIT_FORK");
	const char *want_first = getenv("TG_TEST_GIT_FIRST");
	if (!want_main || !want_feature || !want_fork || !want_first)
		fail_msg("TG_TEST_GIT_MAIN, _FEATURE, _FORK and _FIRST must be set with the URL");
	char path[200], out[41];
	snprintf(path, sizeof(path), "%s/live-%s.git", fx.dir, name);
	tg_git *g = NULL;
	if (tg_git_open(&g, url, path, opts) != 0)
		fail_msg("open %s: %s", url, tg_error_last());
	assert_int_equal(tg_git_branch_tip(out, g, "main"), 0);
	assert_string_equal(out, want_main);
	assert_int_equal(tg_git_merge_base(out, g, want_feature, "main"), 0);
	assert_string_equal(out, want_fork);
	char(*ids)[41] = NULL;
	size_t n = 0;
	assert_int_equal(tg_git_first_parents(&ids, &n, g, want_main, 1000), 0);
	char *first = strdup(want_first), *save = NULL;
	size_t i = 0;
	for (char *tok = strtok_r(first, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), i++) {
		assert_true(i < n);
		assert_string_equal(ids[i], tok);
	}
	assert_int_equal(i, n);
	free(first);
	free(ids);
	tg_git_trailer *t = NULL;
	char *author = NULL;
	assert_int_equal(tg_git_commit_trailers(&t, &n, &author, g, want_feature), 0);
	assert_int_equal(n, 1);
	assert_string_equal(t[0].key, "Tracegate-Accept");
	assert_string_equal(t[0].value, "gemm: the new tile size wins end to end");
	assert_string_equal(author, "Ada Lovelace <ada@example.com>");
	tg_git_trailers_free(t, n);
	free(author);
	return g;
}

/* Pushes a new commit on top of base to ref of url (libgit2, the git
 * protocol's receive-pack) and returns its id in hex. */
static void live_push(const char *url, const char *base, const char *ref, char hex[41])
{
	char path[200];
	snprintf(path, sizeof(path), "%s/push-%d-%s.git", fx.dir, (int)getpid(), strrchr(ref, '/') + 1);
	git_repository *r = NULL;
	git_remote *remote = NULL;
	GIT_OK(git_repository_init(&r, path, 1));
	git_remote_create_options ro; /* no insteadOf scan: it leaks in libgit2 1.5 */
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = r;
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	GIT_OK(git_remote_create_with_opts(&remote, url, &ro));
	git_fetch_options fo;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	const char *spec = "+refs/heads/*:refs/heads/*";
	git_strarray specs = {(char **)&spec, 1};
	GIT_OK(git_remote_fetch(remote, &specs, &fo, NULL));
	mk(r, hex, ref, "pushed later\n", T0 + 10000, base, NULL);
	char push_spec[200];
	snprintf(push_spec, sizeof(push_spec), "%s:%s", ref, ref);
	const char *ps = push_spec;
	git_strarray pspecs = {(char **)&ps, 1};
	git_push_options po;
	git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
	GIT_OK(git_remote_push(remote, &pspecs, &po));
	git_remote_free(remote);
	git_repository_free(r);
}

static void test_live_git_daemon(void **state)
{
	(void)state;
	const char *url = getenv("TG_TEST_GIT_URL");
	if (!url || !*url) {
		print_message("SKIPPED: TG_TEST_GIT_URL is unset (tests/it_git.sh serves one with git daemon)\n");
		skip();
	}
	tg_git *g = live_check(url, "daemon", NULL);
	/* fetch on demand over git://: a branch and a pull-request head pushed
	 * after the mirror was made */
	char pushed[41], pr[41], out[41];
	char branch[64], pr_ref[64];
	snprintf(branch, sizeof(branch), "refs/heads/live-%d", (int)getpid());
	snprintf(pr_ref, sizeof(pr_ref), "refs/pull/%d/head", (int)getpid());
	live_push(url, getenv("TG_TEST_GIT_MAIN"), branch, pushed);
	live_push(url, getenv("TG_TEST_GIT_FEATURE"), pr_ref, pr);
	assert_int_equal(tg_git_has_commit(g, pushed), 1);
	assert_int_equal(tg_git_has_commit(g, pr), 1);
	assert_int_equal(tg_git_branch_tip(out, g, branch + strlen("refs/heads/")), 0);
	assert_string_equal(out, pushed);
	assert_int_equal(tg_git_merge_base(out, g, pr, "main"), 0);
	assert_string_equal(out, getenv("TG_TEST_GIT_FORK"));
	tg_git_free(g);

	/* a repository the daemon does not serve: TG_EIO naming the URL */
	char bad[300];
	snprintf(bad, sizeof(bad), "%.*s/no-such-repo.git", (int)(strrchr(url, '/') - url), url);
	char path[200];
	snprintf(path, sizeof(path), "%s/live-missing.git", fx.dir);
	assert_int_equal(tg_git_open(&g, bad, path, NULL), TG_EIO);
	assert_substr(tg_error_last(), bad);
}

static void test_live_http(void **state)
{
	(void)state;
	const char *url = getenv("TG_TEST_GIT_HTTP_URL");
	if (!url || !*url) {
		print_message("SKIPPED: TG_TEST_GIT_HTTP_URL is unset (tests/it_git.sh serves one when "
		              "lighttpd is installed)\n");
		skip();
	}
	tg_git_free(live_check(url, "http", NULL));
}

/* Smart HTTP behind basic auth: the token from opts or from the URL gets
 * in; none, or a wrong one, fails without showing it. */
static void test_live_http_token(void **state)
{
	(void)state;
	const char *url = getenv("TG_TEST_GIT_HTTP_AUTH_URL");
	const char *token = getenv("TG_TEST_GIT_HTTP_TOKEN");
	if (!url || !*url || !token || !*token) {
		print_message("SKIPPED: TG_TEST_GIT_HTTP_AUTH_URL is unset (tests/it_git.sh serves one when "
		              "lighttpd is installed)\n");
		skip();
	}
	char path[200];
	tg_git *g = NULL;
	snprintf(path, sizeof(path), "%s/live-noauth.git", fx.dir);
	assert_int_equal(tg_git_open(&g, url, path, NULL), TG_EIO);
	assert_substr(tg_error_last(), url);
	print_message("no token: %s\n", tg_error_last());

	tg_git_opts wrong = {.token = "WR0NG-t0ken"};
	snprintf(path, sizeof(path), "%s/live-wrong.git", fx.dir);
	assert_int_equal(tg_git_open(&g, url, path, &wrong), TG_EIO);
	assert_substr(tg_error_last(), url);
	assert_no_substr(tg_error_last(), "WR0NG");
	assert_false(exists(path));
	print_message("wrong token: %s\n", tg_error_last());

	tg_git_opts right = {.token = token};
	tg_git_free(live_check(url, "token", &right));

	/* the same token in the URL's userinfo */
	const char *sep = strstr(url, "://");
	assert_non_null(sep);
	char with_user[400];
	snprintf(with_user, sizeof(with_user), "%.*sx-access-token:%s@%s", (int)(sep + 3 - url), url, token,
	         sep + 3);
	g = live_check(with_user, "userinfo", NULL);
	/* the mirror's config never holds the token */
	char cfg[220];
	snprintf(cfg, sizeof(cfg), "%s/live-userinfo.git/config", fx.dir);
	FILE *f = fopen(cfg, "r");
	assert_non_null(f);
	char buf[8192];
	size_t len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = '\0';
	fclose(f);
	assert_no_substr(buf, token);
	assert_substr(buf, url);
	tg_git_free(g);
}

/* https with a self-signed certificate: refused by default, accepted when
 * insecure, and with the certificate as ca_file. Runs last: ca_file is
 * process-wide. */
static void test_live_https(void **state)
{
	(void)state;
	const char *url = getenv("TG_TEST_GIT_HTTPS_URL");
	const char *ca = getenv("TG_TEST_GIT_HTTPS_CA");
	if (!url || !*url || !ca || !*ca) {
		print_message("SKIPPED: TG_TEST_GIT_HTTPS_URL is unset (tests/it_git.sh serves one when "
		              "lighttpd has TLS)\n");
		skip();
	}
	char path[200];
	tg_git *g = NULL;
	snprintf(path, sizeof(path), "%s/live-untrusted.git", fx.dir);
	assert_int_equal(tg_git_open(&g, url, path, NULL), TG_EIO);
	assert_substr(tg_error_last(), url);
	assert_false(exists(path));
	print_message("untrusted: %s\n", tg_error_last());

	tg_git_opts insecure = {.insecure = 1};
	tg_git_free(live_check(url, "insecure", &insecure));

	char missing[220];
	snprintf(missing, sizeof(missing), "%s/no-such-ca.pem", fx.dir);
	tg_git_opts bad_ca = {.ca_file = missing};
	assert_int_equal(tg_git_open(&g, url, path, &bad_ca), TG_EIO);
	assert_substr(tg_error_last(), missing);

	tg_git_opts with_ca = {.ca_file = ca};
	tg_git_free(live_check(url, "ca", &with_ca));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_clones_mirror),
		cmocka_unit_test(test_branch_tip),
		cmocka_unit_test(test_merge_base),
		cmocka_unit_test(test_first_parents),
		cmocka_unit_test(test_trailers),
		cmocka_unit_test(test_commit_time),
		cmocka_unit_test(test_bad_sha),
		cmocka_unit_test(test_fetch_on_demand),
		cmocka_unit_test(test_fetch_prunes),
		cmocka_unit_test(test_reopen_and_leftover),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_token_never_shown),
		cmocka_unit_test(test_live_git_daemon),
		cmocka_unit_test(test_live_http),
		cmocka_unit_test(test_live_http_token),
		cmocka_unit_test(test_live_https),
	};
	return cmocka_run_group_tests_name("git", tests, fx_setup, fx_teardown);
}
