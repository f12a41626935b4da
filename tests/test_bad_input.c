/*
 * test_bad_input.c - every bad-input fixture of tests/data/bad/, one cmocka
 * test each, through the API and through the tracegate binary.
 *
 * Bad input is data, as in curl's tests/data: one folder per kind of input
 * (trace, config, rules, gpu-specs, manifest), one file per case holding the
 * bytes the loader reads, unchanged, and beside it NAME.expect saying what
 * must happen (the whole sidecar format is docs/testing.md's "Bad input";
 * in short):
 *
 *   # free comment lines
 *   code: TG_EFORMAT                       what the loader's API returns
 *   error: {file}:3:26: unknown key ...    its one-line message, exactly
 *   error-glob: {file}: ... [0-9]* ...     or an fnmatch(3) pattern of it
 *   run: tree {file}                       a tracegate command line (any number)
 *   exit: 2                                the exit status of each run
 *   key: acme/llm/<sha>/train/ci-1/manifest.json    manifest: its storage key
 *   max-traces: 4                          manifest: the limit on traces
 *
 * {file} is the fixture's path from the repository root, {dir} its folder
 * as an absolute path (the configuration resolves relative paths against
 * it), {key} the manifest's key. The expectation lives in a sidecar rather
 * than in a header line of the fixture because traces are JSON (no
 * comments) or gzip (binary), and because a header would move every byte
 * offset and line number the message names: the fixture stays exactly what
 * the loader sees, and its offsets can be counted in it by hand.
 *
 * Each run is the binary ($TG_BIN, else build/tracegate) with the words of
 * the run line: it must exit with the status of `exit:`, print nothing on
 * stdout, and print exactly "tracegate: " + the message + a newline on
 * stderr. Without a binary the runs are skipped, saying so.
 *
 * A fixture without its .expect, an .expect without its fixture and an
 * unknown key in an .expect fail the test, so that no case is silently
 * dropped.
 */
#include "testutil.h"

#include "../config/config.h"
#include "../core/models/gpu_specs.h"
#include "../daemon/manifest.h"
#include "../rules/rules.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/wait.h>
#include <unistd.h>

#define DATA "tests/data/bad"
#define MAX_RUNS 4

struct bad_case {
	char kind[256];
	char name[256];
	char path[1024]; /* DATA/kind/name */
	char expect[1100];
	/* from the .expect */
	int code;
	int exit_status;
	int glob; /* error is an fnmatch pattern */
	char error[2048];
	char run[MAX_RUNS][512];
	int nrun;
	char key[512];
	unsigned max_traces;
};

static const struct {
	const char *name;
	int code;
} codes[] = {
	{"TG_EIO", TG_EIO},       {"TG_EFORMAT", TG_EFORMAT}, {"TG_ELIMIT", TG_ELIMIT},
	{"TG_ENOMEM", TG_ENOMEM}, {"TG_EINVAL", TG_EINVAL},
};

/* Replaces {file}, {dir} and {key} in in; the result in out. */
static void expand(char *out, size_t cap, const char *in, const struct bad_case *c)
{
	char dir[4096 + 600], cwd[4096];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(dir, sizeof(dir), "%s/%s/%s", cwd, DATA, c->kind);
	size_t o = 0;
	while (*in && o + 1 < cap) {
		const char *sub = NULL;
		size_t skip = 0;
		if (!strncmp(in, "{file}", 6))
			sub = c->path, skip = 6;
		else if (!strncmp(in, "{dir}", 5))
			sub = dir, skip = 5;
		else if (!strncmp(in, "{key}", 5))
			sub = c->key, skip = 5;
		if (sub) {
			o += (size_t)snprintf(out + o, cap - o, "%s", sub);
			if (o >= cap)
				fail_msg("%s: an expanded line is longer than %zu bytes", c->expect, cap);
			in += skip;
		} else {
			out[o++] = *in++;
		}
	}
	out[o] = 0;
}

/* Reads c->expect into c; fails the test on a line it does not know. */
static void parse_expect(struct bad_case *c)
{
	FILE *f = fopen(c->expect, "r");
	if (!f)
		fail_msg("%s: cannot open", c->expect);
	char line[2048];
	int have_code = 0, have_error = 0, lineno = 0;
	c->exit_status = 2;
	c->max_traces = 0;
	c->key[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		size_t len = strcspn(line, "\n");
		if (line[len] != '\n' && !feof(f))
			fail_msg("%s:%d: line longer than %zu bytes", c->expect, lineno, sizeof(line) - 2);
		line[len] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		char *v = strstr(line, ": ");
		if (!v)
			fail_msg("%s:%d: expected 'key: value'", c->expect, lineno);
		*v = 0;
		v += 2;
		if (!strcmp(line, "code")) {
			have_code = 0;
			for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
				if (!strcmp(v, codes[i].name))
					c->code = codes[i].code, have_code = 1;
			if (!have_code)
				fail_msg("%s:%d: unknown code '%s'", c->expect, lineno, v);
		} else if (!strcmp(line, "error") || !strcmp(line, "error-glob")) {
			c->glob = !strcmp(line, "error-glob");
			snprintf(c->error, sizeof(c->error), "%s", v);
			have_error = 1;
		} else if (!strcmp(line, "run")) {
			if (c->nrun == MAX_RUNS)
				fail_msg("%s:%d: more than %d runs", c->expect, lineno, MAX_RUNS);
			snprintf(c->run[c->nrun++], sizeof(c->run[0]), "%s", v);
		} else if (!strcmp(line, "exit")) {
			c->exit_status = atoi(v);
		} else if (!strcmp(line, "key")) {
			snprintf(c->key, sizeof(c->key), "%s", v);
		} else if (!strcmp(line, "max-traces")) {
			c->max_traces = (unsigned)strtoul(v, NULL, 10);
		} else {
			fail_msg("%s:%d: unknown key '%s'", c->expect, lineno, line);
		}
	}
	fclose(f);
	if (!have_code || !have_error)
		fail_msg("%s: needs a code: and an error: (or error-glob:) line", c->expect);
	if (!strcmp(c->kind, "manifest") && !c->key[0])
		fail_msg("%s: a manifest case needs its key:", c->expect);
}

/* msg matches the expectation of c (exactly, or as a pattern). */
static int matches(const struct bad_case *c, const char *want, const char *msg)
{
	return c->glob ? fnmatch(want, msg, 0) == 0 : strcmp(want, msg) == 0;
}

/* The loader of c's kind on c's file: its return code, the message in
 * tg_error_last(). Fails the test when it hands back an object anyway. */
static int load(const struct bad_case *c)
{
	int rc;
	if (!strcmp(c->kind, "trace")) {
		tg_trace *t = (tg_trace *)1;
		rc = tg_trace_read_file(&t, c->path, NULL);
		if (!rc)
			tg_trace_free(t);
		else
			assert_null(t);
	} else if (!strcmp(c->kind, "config")) {
		tg_config *cfg = (tg_config *)1;
		rc = tg_config_load_file(&cfg, c->path);
		if (!rc)
			tg_config_free(cfg);
		else
			assert_null(cfg);
	} else if (!strcmp(c->kind, "rules")) {
		tg_rules *r = (tg_rules *)1;
		rc = tg_rules_load_file(&r, c->path);
		if (!rc)
			tg_rules_free(r);
		else
			assert_null(r);
	} else if (!strcmp(c->kind, "gpu-specs")) {
		tg_gpu_specs *s = NULL;
		assert_int_equal(tg_gpu_specs_new(&s), 0);
		rc = tg_gpu_specs_load_file(s, c->path);
		tg_gpu_specs_free(s);
	} else if (!strcmp(c->kind, "manifest")) {
		size_t len;
		char *buf = tg_test_slurp(c->path, &len);
		assert_non_null(buf);
		tg_manifest *m = (tg_manifest *)1;
		rc = tg_manifest_parse(&m, buf, len, c->key, c->max_traces);
		free(buf);
		if (!rc)
			tg_manifest_free(m);
		else
			assert_null(m);
	} else {
		fail_msg("%s: unknown kind of input '%s' (a folder of " DATA ")", c->path, c->kind);
		return 0;
	}
	return rc;
}

/* The tracegate binary, or NULL (said once) when there is none. */
static const char *binary(void)
{
	static int said;
	const char *bin = getenv("TG_BIN");
	if (!bin || !*bin)
		bin = "build/tracegate";
	if (access(bin, X_OK) == 0)
		return bin;
	if (!said++)
		print_message("SKIPPED: no tracegate binary at %s (set TG_BIN): the API alone is checked\n", bin);
	return NULL;
}

/* Runs bin with the words of line (expanded); its exit status, its stdout
 * and stderr (up to cap bytes each) in out and err. */
static int run_binary(const char *bin, const char *line, char *out, char *err, size_t cap)
{
	char words[1024], *argv[32];
	int argc = 0;
	snprintf(words, sizeof(words), "%s", line);
	argv[argc++] = (char *)bin;
	for (char *w = strtok(words, " "); w && argc < 31; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	char po[] = "/tmp/tg-bad-out-XXXXXX", pe[] = "/tmp/tg-bad-err-XXXXXX";
	int fo = mkstemp(po), fe = mkstemp(pe);
	assert_true(fo >= 0 && fe >= 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		execv(bin, argv);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	char *bufs[2] = {out, err};
	int fds[2] = {fo, fe};
	for (int i = 0; i < 2; i++) {
		ssize_t n = pread(fds[i], bufs[i], cap - 1, 0);
		bufs[i][n > 0 ? n : 0] = 0;
		close(fds[i]);
	}
	unlink(po);
	unlink(pe);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void run_case(void **state)
{
	struct bad_case *c = *state;
	parse_expect(c);
	if (access(c->path, R_OK))
		fail_msg("%s: no fixture %s beside it", c->expect, c->path);
	char want[4096];
	expand(want, sizeof(want), c->error, c);

	/* the API */
	int rc = load(c);
	const char *msg = tg_error_last();
	if (rc != c->code || !matches(c, want, msg))
		fail_msg("%s: the loader returned %d (want %d), message\n  got  %s\n  want %s", c->path, rc, c->code,
		         rc ? msg : "(none: it loaded)", want);
	assert_null(strchr(msg, '\n'));

	/* the binary */
	const char *bin = c->nrun ? binary() : NULL;
	for (int i = 0; bin && i < c->nrun; i++) {
		char line[1024], out[4096], err[8192], wline[4200];
		expand(line, sizeof(line), c->run[i], c);
		int status = run_binary(bin, line, out, err, sizeof(out));
		size_t elen = strlen(err);
		int one_line = elen > 0 && err[elen - 1] == '\n' && !memchr(err, '\n', elen - 1);
		if (one_line)
			err[elen - 1] = 0;
		snprintf(wline, sizeof(wline), "tracegate: %s", want);
		if (status != c->exit_status || out[0] || !one_line || strncmp(err, "tracegate: ", 11) ||
		    !matches(c, wline, err))
			fail_msg(
				"%s: tracegate %s: exit %d (want %d), stdout %zu bytes (want none), stderr\n"
				"  got  %s\n  want %s",
				c->expect, line, status, c->exit_status, strlen(out), err, wline);
	}
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* A fixture of folder dir that has no .expect beside it: the test fails. */
static void orphan(void **state)
{
	fail_msg("%s has no .expect beside it (each bad input says what must happen)", (const char *)*state);
}

int main(void)
{
	/* the environment the configuration fixtures name (as tests/test_config.c) */
	setenv("TG_TEST_GITHUB_TOKEN", "ghp-env-secret-1234", 1);
	setenv("TG_TEST_GIT_TOKEN", "git-env-secret-5678", 1);
	setenv("TG_TEST_AWS_KEY", "AKIA-env-secret-0042", 1);
	setenv("TG_TEST_PG_URL", "postgres://tracegate:pw-secret-99@db.internal/tracegate", 1);
	setenv("TG_TEST_EMPTY", "", 1);
	setenv("TG_TEST_TWO_LINES", "a\nb", 1);
	unsetenv("TG_TEST_UNSET_TOKEN");

	struct CMUnitTest *tests = NULL;
	size_t n = 0, cap = 0;
	struct dirent **kinds;
	int nk = scandir(DATA, &kinds, NULL, by_name);
	if (nk < 0) {
		fprintf(stderr, "test_bad_input: cannot read %s (run from the repository root)\n", DATA);
		return 1;
	}
	for (int k = 0; k < nk; k++) {
		char dir[512];
		snprintf(dir, sizeof(dir), DATA "/%s", kinds[k]->d_name);
		struct dirent **files;
		int nf = kinds[k]->d_name[0] == '.' ? -1 : scandir(dir, &files, NULL, by_name);
		for (int i = 0; i < nf; i++) {
			const char *f = files[i]->d_name;
			char path[1024];
			snprintf(path, sizeof(path), "%s/%s", dir, f);
			struct stat st;
			int is_file = stat(path, &st) == 0 && S_ISREG(st.st_mode);
			char sidecar[1100];
			snprintf(sidecar, sizeof(sidecar), "%s.expect", path);
			if (n + 1 >= cap) {
				cap = cap ? cap * 2 : 256;
				tests = realloc(tests, cap * sizeof(*tests));
				if (!tests)
					return 1;
			}
			if (is_file && ends_with(f, ".expect")) {
				struct bad_case *c = calloc(1, sizeof(*c));
				if (!c)
					return 1;
				snprintf(c->kind, sizeof(c->kind), "%s", kinds[k]->d_name);
				snprintf(c->name, sizeof(c->name), "%.*s", (int)(strlen(f) - 7), f);
				snprintf(c->path, sizeof(c->path), "%s/%s", dir, c->name);
				snprintf(c->expect, sizeof(c->expect), "%s", path);
				char *name = malloc(strlen(c->kind) + strlen(c->name) + 2);
				if (!name)
					return 1;
				sprintf(name, "%s/%s", c->kind, c->name);
				tests[n++] =
					(struct CMUnitTest){.name = name, .test_func = run_case, .initial_state = c};
			} else if (is_file && f[0] != '.' && strcmp(f, "make.sh") && access(sidecar, F_OK)) {
				tests[n++] = (struct CMUnitTest){
					.name = strdup(path), .test_func = orphan, .initial_state = strdup(path)};
			}
			free(files[i]);
		}
		if (nf >= 0)
			free(files);
		free(kinds[k]);
	}
	free(kinds);
	if (n < 100) {
		fprintf(stderr, "test_bad_input: only %zu cases under %s\n", n, DATA);
		return 1;
	}
	int failed = _cmocka_run_group_tests("bad_input", tests, n, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		free((char *)tests[i].name);
		free(tests[i].initial_state);
	}
	free(tests);
	return failed;
}
