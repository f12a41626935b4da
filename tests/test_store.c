/* test_store.c - the job store (daemon/store*.c): the same tests against
 * SQLite (a temporary file, always) and PostgreSQL (the database of
 * $TG_TEST_PG_URL, which each test empties; skipped, saying so, when unset:
 * tests/it_store_pg.sh starts a server and sets it).
 *
 * Covered: create, migrate from version 1, reopen, refuse a newer schema;
 * idempotent add; claim order, leases, renew, a lost lease, every
 * transition and the invalid ones; results; listing; metrics replaced and
 * the history with its filters and limit; the jobs counted by state; each
 * branch and workload with its latest run; the baseline lookup; retention;
 * strings that need quoting; processes claiming at once; a full or
 * read-only database (TG_EIO, then usable again); a file-size limit
 * (EFBIG: TG_EIO, nothing half-written, usable again); on PostgreSQL a dropped
 * connection and a failed reconnect; no password in any message. */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/store/store.h"
#include "../daemon/store/store_impl.h"

#include <dirent.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#define T0 1700000000
#define SECRET "Pa55-w0rd-Zq9"

typedef struct ctx {
	const char *backend; /* "sqlite", "postgresql" */
	int available;
	char url[4200];
	char dir[1024];  /* SQLite: the temporary folder */
	char path[2048]; /* SQLite: the database file */
	tg_store *s;
} ctx;

static ctx sqlite_ctx = {.backend = "sqlite"};
static ctx pg_ctx = {.backend = "postgresql"};

static int is_pg(const ctx *c) { return c->backend[0] == 'p'; }

/* ------------------------------------------------------- raw access (SQL) */

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static PGconn *pg_raw(const char *url)
{
	PGconn *conn = PQconnectdb(url);
	if (PQstatus(conn) != CONNECTION_OK)
		fail_msg("cannot connect to TG_TEST_PG_URL: %s", PQerrorMessage(conn));
	PQsetNoticeProcessor(conn, quiet, NULL);
	return conn;
}

/* Runs sql on a connection of its own; returns the first column of the
 * first row as a number (0 when none). */
static long long raw_sql(ctx *c, const char *sql)
{
	long long v = 0;
	if (is_pg(c)) {
		PGconn *conn = pg_raw(c->url);
		PGresult *res = PQexec(conn, sql);
		ExecStatusType st = PQresultStatus(res);
		if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
			fail_msg("%s: %s", sql, PQresultErrorMessage(res));
		if (st == PGRES_TUPLES_OK && PQntuples(res) > 0 && !PQgetisnull(res, 0, 0))
			v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		PQclear(res);
		PQfinish(conn);
		return v;
	}
	sqlite3 *db = NULL;
	if (sqlite3_open(c->path, &db) != SQLITE_OK)
		fail_msg("sqlite open %s", c->path);
	sqlite3_busy_timeout(db, 5000);
	const char *tail = sql;
	while (tail && *tail) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK)
			fail_msg("%s: %s", sql, sqlite3_errmsg(db));
		if (!st)
			break;
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		else if (rc != SQLITE_DONE)
			fail_msg("%s: %s", sql, sqlite3_errmsg(db));
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

/* ------------------------------------------------------- setup, teardown */

static int setup(void **state)
{
	ctx *c = *state;
	c->s = NULL;
	if (is_pg(c)) {
		const char *url = getenv("TG_TEST_PG_URL");
		c->available = url && *url;
		if (!c->available)
			return 0;
		snprintf(c->url, sizeof(c->url), "%s", url);
		raw_sql(c, "DROP TABLE IF EXISTS trace_data, run_traces, metrics, runs, schema_version CASCADE");
		return 0;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(c->dir, sizeof(c->dir), "%s/tg-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c->dir))
		return -1;
	snprintf(c->path, sizeof(c->path), "%s/store.db", c->dir);
	snprintf(c->url, sizeof(c->url), "sqlite:%s", c->path);
	c->available = 1;
	return 0;
}

static int teardown(void **state)
{
	ctx *c = *state;
	tg_store_close(c->s);
	c->s = NULL;
	if (!is_pg(c) && c->dir[0]) {
		DIR *d = opendir(c->dir);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s", c->dir, e->d_name);
			unlink(p);
		}
		if (d)
			closedir(d);
		rmdir(c->dir);
		c->dir[0] = '\0';
	}
	return 0;
}

#define NEED(c)                                                                                     \
	do {                                                                                            \
		if (!(c)->available) {                                                                      \
			print_message("SKIPPED: TG_TEST_PG_URL is not set (tests/it_store_pg.sh sets it)\n"); \
			skip();                                                                                 \
		}                                                                                           \
	} while (0)

static tg_store *must_open(ctx *c)
{
	tg_store *s = NULL;
	if (tg_store_open(&s, c->url))
		fail_msg("open %s: %s", c->backend, tg_error_last());
	assert_non_null(s);
	tg_store_debug_set_time(s, T0);
	return s;
}

/* ------------------------------------------------------------- job helpers */

static const char *sha(char buf[41], int n)
{
	snprintf(buf, 41, "%040x", n);
	return buf;
}

typedef struct spec {
	const char *repo, *branch, *workload, *commit;
	int64_t run_time;
	int trusted;
	const char *target_branch; /* NULL: none */
	int64_t pr;                /* 0: none */
	const char *origin;        /* NULL: none */
} spec;

/* Adds run number i; returns its id. */
static int64_t add_run(tg_store *s, int i, const spec *sp, int *created)
{
	tg_job j;
	memset(&j, 0, sizeof(j));
	char prefix[512], run_id[32], commit[41];
	snprintf(j.key, sizeof(j.key), "%064x", i);
	const char *cm = sp && sp->commit ? sp->commit : sha(commit, i);
	const char *wl = sp && sp->workload ? sp->workload : "train";
	snprintf(run_id, sizeof(run_id), "ci-%d", i);
	snprintf(prefix, sizeof(prefix), "acme/llm/%s/%s/%s", cm, wl, run_id);
	j.prefix = prefix;
	j.repo = (char *)(sp && sp->repo ? sp->repo : "acme/llm");
	j.commit = (char *)cm;
	j.branch = (char *)(sp && sp->branch ? sp->branch : "main");
	j.workload = (char *)wl;
	j.run_id = run_id;
	j.manifest = "{\"schema\":\"tracegate.run/1\"}";
	j.run_time = sp ? sp->run_time : 0;
	j.trusted = sp ? sp->trusted : 0;
	j.target_branch = (char *)(sp ? sp->target_branch : NULL);
	j.pr = sp ? sp->pr : 0;
	j.origin = (char *)(sp ? sp->origin : NULL);
	int64_t id = 0;
	int cr = -1;
	if (tg_store_job_add(&id, &cr, s, &j))
		fail_msg("add %d: %s", i, tg_error_last());
	assert_true(id > 0);
	if (created)
		*created = cr;
	return id;
}

/* Claims the only unfinished job (it must be id) and moves it to done with
 * verdict (NULL: none) and the given metrics. */
static void run_to_done(tg_store *s, int64_t id, const char *verdict, const tg_metric *m, size_t n)
{
	tg_job j;
	tg_test_must(tg_store_job_claim(&j, s, "w", 60));
	assert_int_equal(j.id, id);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL));
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_ANALYSING, TG_JOB_POSTING, NULL));
	tg_job r;
	memset(&r, 0, sizeof(r));
	r.verdict = (char *)verdict;
	r.baseline_distance = -1;
	tg_test_must(tg_store_job_set_result(s, id, &r));
	if (m)
		tg_test_must(tg_store_metrics_put(s, id, m, n));
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_POSTING, TG_JOB_DONE, NULL));
}

static void run_to_failed(tg_store *s, int64_t id, const char *error)
{
	tg_job j;
	tg_test_must(tg_store_job_claim(&j, s, "w", 60));
	assert_int_equal(j.id, id);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_advance(s, id, "w", TG_JOB_SEEN, TG_JOB_FAILED, error));
}

static void assert_str_or_null(const char *got, const char *want)
{
	if (!want)
		assert_null(got);
	else {
		assert_non_null(got);
		assert_string_equal(got, want);
	}
}

/* --------------------------------------------------------------- schema */

static void test_open_migrate_reopen(void **state)
{
	ctx *c = *state;
	NEED(c);
	long long before = (long long)time(NULL);
	c->s = must_open(c);
	assert_string_equal(tg_store_backend(c->s), c->backend);
	const int latest = tg_store_migrations[tg_store_migrations_n - 1].version;
	assert_int_equal(latest, 5);
	assert_int_equal(raw_sql(c, "SELECT MAX(version) FROM schema_version"), latest);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM schema_version"), (long long)tg_store_migrations_n);
	long long applied = raw_sql(c, "SELECT applied_at FROM schema_version WHERE version = 2");
	assert_true(applied >= before && applied <= (long long)time(NULL));
	if (!is_pg(c)) {
		/* created 0640 (no more; the umask may take away): the database
		 * holds manifests, verdicts and history; its WAL and shared memory
		 * take its mode */
		mode_t um = umask(0);
		umask(um);
		const char *suffix[] = {"", "-wal", "-shm"};
		for (int i = 0; i < 3; i++) {
			char p[2300];
			struct stat st;
			snprintf(p, sizeof(p), "%s%s", c->path, suffix[i]);
			assert_int_equal(stat(p, &st), 0);
			assert_int_equal(st.st_mode & 0777, 0640 & ~um);
		}
		/* WAL is a property of the file: a raw connection sees it */
		sqlite3 *db = NULL;
		assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
		sqlite3_stmt *st = NULL;
		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	int64_t id = add_run(c->s, 1, NULL, NULL);
	tg_store_close(c->s);

	/* reopen: nothing applied again, the run is there */
	c->s = must_open(c);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM schema_version"), (long long)tg_store_migrations_n);
	tg_job j;
	char key[65];
	snprintf(key, sizeof(key), "%064x", 1);
	tg_test_must(tg_store_job_get_by_key(&j, c->s, key));
	assert_int_equal(j.id, id);
	tg_job_clear(&j);
	tg_store_close(c->s);

	/* a plain path is SQLite too; a folder that does not exist is TG_EIO */
	if (!is_pg(c)) {
		c->s = NULL;
		assert_int_equal(tg_store_open(&c->s, c->path), 0);
		assert_string_equal(tg_store_backend(c->s), "sqlite");
		tg_store_close(c->s);
		char bad[2200];
		snprintf(bad, sizeof(bad), "sqlite:%s/no/such/dir/x.db", c->dir);
		c->s = (tg_store *)1;
		assert_int_equal(tg_store_open(&c->s, bad), TG_EIO);
		assert_null(c->s);
		assert_non_null(strstr(tg_error_last(), "no/such/dir"));
	}
	c->s = NULL;
	assert_int_equal(tg_store_open(&c->s, ""), TG_EINVAL);
}

static void test_migrate_from_v1(void **state)
{
	ctx *c = *state;
	NEED(c);
	/* a database as version 1 left it, with one run */
	const tg_store_migration *m1 = &tg_store_migrations[0];
	assert_int_equal(m1->version, 1);
	raw_sql(c, is_pg(c) ? "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL, "
	                      "what TEXT NOT NULL)"
	                    : "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL, "
	                      "what TEXT NOT NULL)");
	raw_sql(c, is_pg(c) ? m1->pg : m1->sqlite);
	raw_sql(c, "INSERT INTO schema_version VALUES (1, 1600000000, 'v1')");
	raw_sql(c, "INSERT INTO runs (key, prefix, repo, commit_sha, branch, workload, run_id, manifest, "
	           "created_at, updated_at, run_time) VALUES ('"
	           "00000000000000000000000000000000000000000000000000000000000000aa', 'acme/llm/x/train/ci-1', "
	           "'acme/llm', '0123456789012345678901234567890123456789', 'main', 'train', 'ci-1', '{}', "
	           "1600000000, 1600000000, 1600000000)");
	assert_int_equal(raw_sql(c, "SELECT MAX(version) FROM schema_version"), 1);

	c->s = must_open(c);
	assert_int_equal(raw_sql(c, "SELECT MAX(version) FROM schema_version"),
	                 tg_store_migrations[tg_store_migrations_n - 1].version);
	assert_int_equal(raw_sql(c, "SELECT applied_at FROM schema_version WHERE version = 1"), 1600000000);
	tg_job j;
	tg_test_must(tg_store_job_get_by_key(&j, c->s, "00000000000000000000000000000000000000000000000000000000000000aa"));
	assert_string_equal(j.commit, "0123456789012345678901234567890123456789");
	assert_int_equal(j.state, TG_JOB_SEEN);
	assert_int_equal(j.baseline_distance, -1);
	assert_int_equal(j.run_time, 1600000000);
	int64_t id = j.id;
	tg_job_clear(&j);
	/* the old run gets metrics (version 2's table) and a history */
	tg_metric m[] = {{"gpu_busy_ms", 41.5}};
	run_to_done(c->s, id, "pass", m, 1);
	tg_history_point *p = NULL;
	size_t n = 0;
	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", NULL, NULL, 0));
	assert_int_equal(n, 1);
	assert_int_equal(p[0].run, id);
	assert_true(p[0].value == 41.5);
	tg_history_free(p, n);
}

static void test_newer_schema_refused(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_store_close(c->s);
	c->s = NULL;
	raw_sql(c, "INSERT INTO schema_version VALUES (99, 1800000000, 'from the future')");
	tg_store *s = (tg_store *)1;
	assert_int_equal(tg_store_open(&s, c->url), TG_EFORMAT);
	assert_null(s);
	assert_non_null(strstr(tg_error_last(), "schema version 99 is newer"));
	/* nothing was touched */
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM schema_version"), (long long)tg_store_migrations_n + 1);
}

/* ----------------------------------------------------------------- jobs */

static void test_add_idempotent(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_job j;
	memset(&j, 0, sizeof(j));
	snprintf(j.key, sizeof(j.key), "%s", "ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01ab01");
	j.prefix = "acme/llm/0123456789abcdef0123456789abcdef01234567/train/ci-7";
	j.repo = "acme/llm";
	j.commit = "0123456789abcdef0123456789abcdef01234567";
	j.branch = "feature-x";
	j.target_branch = "main";
	j.pr = 123;
	j.workload = "train";
	j.run_id = "ci-7";
	j.manifest = "{\"schema\":\"tracegate.run/1\",\"pull_request\":123}";
	j.run_time = T0 - 50;
	int64_t id = 0, id2 = 0;
	int created = -1;
	tg_test_must(tg_store_job_add(&id, &created, c->s, &j));
	assert_true(id > 0);
	assert_int_equal(created, 1);

	/* the same key again, even with other fields: the same run */
	j.prefix = "elsewhere";
	tg_store_debug_set_time(c->s, T0 + 10);
	tg_test_must(tg_store_job_add(&id2, &created, c->s, &j));
	assert_int_equal(id2, id);
	assert_int_equal(created, 0);

	tg_job g;
	tg_test_must(tg_store_job_get(&g, c->s, id));
	assert_int_equal(g.id, id);
	assert_string_equal(g.key, j.key);
	assert_string_equal(g.prefix, "acme/llm/0123456789abcdef0123456789abcdef01234567/train/ci-7");
	assert_string_equal(g.repo, "acme/llm");
	assert_string_equal(g.commit, j.commit);
	assert_string_equal(g.branch, "feature-x");
	assert_string_equal(g.target_branch, "main");
	assert_int_equal(g.pr, 123);
	assert_string_equal(g.workload, "train");
	assert_string_equal(g.run_id, "ci-7");
	assert_string_equal(g.manifest, j.manifest);
	assert_int_equal(g.state, TG_JOB_SEEN);
	assert_int_equal(g.attempts, 0);
	assert_null(g.error);
	assert_null(g.verdict);
	assert_null(g.summary);
	assert_null(g.baseline_commit);
	assert_int_equal(g.baseline_distance, -1);
	assert_int_equal(g.comment_id, 0);
	assert_int_equal(g.created_at, T0);
	assert_int_equal(g.updated_at, T0);
	assert_int_equal(g.run_time, T0 - 50);
	tg_job_clear(&g);
	assert_null(g.prefix);

	/* a branch build: no target, no PR; run_time defaults to now */
	tg_store_debug_set_time(c->s, T0 + 20);
	int64_t id3 = add_run(c->s, 3, NULL, &created);
	assert_int_equal(created, 1);
	/* the adds of the known run used up no id (every daemon restart adds
	 * every manifest in storage again) */
	assert_int_equal(id3, id + 1);
	tg_test_must(tg_store_job_get(&g, c->s, id3));
	assert_null(g.target_branch);
	assert_int_equal(g.pr, 0);
	assert_int_equal(g.run_time, T0 + 20);
	tg_job_clear(&g);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM runs"), 2);

	/* not found, refused arguments */
	assert_int_equal(tg_store_job_get(&g, c->s, 999999), TG_ENOTFOUND);
	assert_int_equal(
		tg_store_job_get_by_key(&g, c->s, "ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00"),
		TG_ENOTFOUND);
	snprintf(j.key, sizeof(j.key), "%s", "not-hex");
	assert_int_equal(tg_store_job_add(&id, &created, c->s, &j), TG_EINVAL);
	assert_int_equal(id, 0);
	snprintf(j.key, sizeof(j.key), "%s", "AB01AB01AB01AB01AB01AB01AB01AB01AB01AB01AB01AB01AB01AB01AB01AB01");
	assert_int_equal(tg_store_job_add(&id, &created, c->s, &j), TG_EINVAL);
	snprintf(j.key, sizeof(j.key), "%064x", 77);
	j.repo = NULL;
	assert_int_equal(tg_store_job_add(&id, &created, c->s, &j), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "repo"));
	j.repo = "acme/llm";
	j.commit = "0123456789abcdef0123456789abcdef0123456789";
	assert_int_equal(tg_store_job_add(&id, &created, c->s, &j), TG_EINVAL);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM runs"), 2);
}

static void test_claim_and_renew(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	int64_t id[3];
	for (int i = 0; i < 3; i++) {
		tg_store_debug_set_time(c->s, T0 + i);
		id[i] = add_run(c->s, 10 + i, NULL, NULL);
	}
	tg_store_debug_set_time(c->s, T0 + 5);
	tg_job j;
	const char *owners[] = {"host-a:1", "host-b:2", "host-c:3"};
	for (int i = 0; i < 3; i++) {
		tg_test_must(tg_store_job_claim(&j, c->s, owners[i], 60));
		assert_int_equal(j.id, id[i]); /* oldest first */
		assert_int_equal(j.state, TG_JOB_SEEN);
		assert_int_equal(j.attempts, 1);
		assert_int_equal(j.updated_at, T0 + 5);
		assert_non_null(j.manifest);
		tg_job_clear(&j);
	}
	assert_int_equal(tg_store_job_claim(&j, c->s, "host-d:4", 60), TG_ENOTFOUND);
	assert_int_equal(j.id, 0);

	/* renew: only by the holder */
	tg_store_debug_set_time(c->s, T0 + 50);
	tg_test_must(tg_store_job_renew(c->s, id[0], owners[0], 120));
	assert_int_equal(tg_store_job_renew(c->s, id[0], owners[1], 120), TG_ENOTFOUND);
	assert_int_equal(tg_store_job_renew(c->s, id[1], owners[0], 120), TG_ENOTFOUND);
	assert_int_equal(tg_store_job_renew(c->s, 999999, owners[0], 120), TG_ENOTFOUND);

	/* at T0+65 the leases of the 2nd and 3rd (until T0+65) are free, the
	 * renewed one (until T0+170) is not */
	tg_store_debug_set_time(c->s, T0 + 65);
	tg_test_must(tg_store_job_claim(&j, c->s, "host-e:5", 60));
	assert_int_equal(j.id, id[1]);
	assert_int_equal(j.attempts, 2);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_claim(&j, c->s, "host-e:5", 60));
	assert_int_equal(j.id, id[2]);
	tg_job_clear(&j);
	assert_int_equal(tg_store_job_claim(&j, c->s, "host-e:5", 60), TG_ENOTFOUND);
	tg_store_debug_set_time(c->s, T0 + 170);
	tg_test_must(tg_store_job_claim(&j, c->s, "host-f:6", 60));
	assert_int_equal(j.id, id[0]);
	assert_int_equal(j.attempts, 2);
	tg_job_clear(&j);

	/* refused arguments */
	assert_int_equal(tg_store_job_claim(&j, c->s, "", 60), TG_EINVAL);
	assert_int_equal(tg_store_job_claim(&j, c->s, NULL, 60), TG_EINVAL);
	assert_int_equal(tg_store_job_claim(&j, c->s, "x", 0), TG_EINVAL);
	assert_int_equal(tg_store_job_renew(c->s, id[0], "host-f:6", -1), TG_EINVAL);
}

static void test_lost_lease(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	int64_t id = add_run(c->s, 20, NULL, NULL);
	tg_job j;
	tg_test_must(tg_store_job_claim(&j, c->s, "daemon-1", 30));
	assert_int_equal(j.id, id);
	tg_job_clear(&j);
	/* daemon-1 stalls past its lease; daemon-2 takes the job over */
	tg_store_debug_set_time(c->s, T0 + 31);
	tg_test_must(tg_store_job_claim(&j, c->s, "daemon-2", 30));
	assert_int_equal(j.id, id);
	assert_int_equal(j.attempts, 2);
	tg_job_clear(&j);
	assert_int_equal(tg_store_job_advance(c->s, id, "daemon-1", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL), TG_ENOTFOUND);
	assert_non_null(strstr(tg_error_last(), "daemon-1"));
	assert_int_equal(tg_store_job_renew(c->s, id, "daemon-1", 30), TG_ENOTFOUND);
	assert_int_equal(tg_store_job_advance(c->s, id, "daemon-1", TG_JOB_SEEN, TG_JOB_FAILED, "late"), TG_ENOTFOUND);
	tg_test_must(tg_store_job_advance(c->s, id, "daemon-2", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL));
	tg_test_must(tg_store_job_get(&j, c->s, id));
	assert_int_equal(j.state, TG_JOB_ANALYSING);
	assert_null(j.error);
	tg_job_clear(&j);

	/* an expired lease nobody took over is still its owner's */
	tg_store_debug_set_time(c->s, T0 + 100);
	tg_test_must(tg_store_job_renew(c->s, id, "daemon-2", 30));
	tg_test_must(tg_store_job_advance(c->s, id, "daemon-2", TG_JOB_ANALYSING, TG_JOB_POSTING, NULL));
}

/* The leases on unfinished jobs, and ending a dead holder's lease: the job
 * is claimable at once and keeps its attempts. */
static void test_leases(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_store_debug_set_time(c->s, T0);
	int64_t a = add_run(c->s, 960, NULL, NULL);
	int64_t b = add_run(c->s, 961, NULL, NULL);
	tg_job j;
	tg_test_must(tg_store_job_claim(&j, c->s, "host-a:4242:1700000000", 600));
	assert_int_equal(j.id, a);
	tg_job_clear(&j);
	tg_lease *l = NULL;
	size_t n = 0;
	tg_test_must(tg_store_leases(&l, &n, c->s));
	assert_int_equal(n, 1);
	assert_int_equal(l[0].id, a);
	assert_string_equal(l[0].owner, "host-a:4242:1700000000");
	assert_int_equal(l[0].until, T0 + 600);
	free(l);
	/* someone else's lease cannot be ended by naming another owner */
	assert_int_equal(tg_store_lease_expire(c->s, a, "host-a:1:1"), TG_ENOTFOUND);
	tg_test_must(tg_store_lease_expire(c->s, a, "host-a:4242:1700000000"));
	tg_test_must(tg_store_leases(&l, &n, c->s));
	assert_int_equal(n, 0);
	free(l);
	/* claimable now (a before b), its attempts counted on */
	tg_test_must(tg_store_job_claim(&j, c->s, "heir", 600));
	assert_int_equal(j.id, a);
	assert_int_equal(j.attempts, 2);
	tg_job_clear(&j);
	/* a finished job's lease is no lease */
	tg_test_must(tg_store_job_claim(&j, c->s, "heir", 600));
	assert_int_equal(j.id, b);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_advance(c->s, b, "heir", TG_JOB_SEEN, TG_JOB_FAILED, "x"));
	tg_test_must(tg_store_leases(&l, &n, c->s));
	assert_int_equal(n, 1);
	assert_int_equal(l[0].id, a);
	free(l);
}

static void test_transitions(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	int64_t id = add_run(c->s, 30, NULL, NULL);
	tg_job j;
	tg_test_must(tg_store_job_claim(&j, c->s, "A", 60));
	tg_job_clear(&j);

	/* edges that do not exist */
	static const struct {
		tg_job_state from, to;
	} bad[] = {{TG_JOB_SEEN, TG_JOB_POSTING},    {TG_JOB_SEEN, TG_JOB_DONE},       {TG_JOB_SEEN, TG_JOB_SEEN},
	           {TG_JOB_ANALYSING, TG_JOB_SEEN},  {TG_JOB_ANALYSING, TG_JOB_DONE},  {TG_JOB_POSTING, TG_JOB_ANALYSING},
	           {TG_JOB_DONE, TG_JOB_FAILED},     {TG_JOB_FAILED, TG_JOB_SEEN},     {TG_JOB_DONE, TG_JOB_SEEN},
	           {(tg_job_state)7, TG_JOB_FAILED}, {TG_JOB_SEEN, (tg_job_state)-1}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tg_store_job_advance(c->s, id, "A", bad[i].from, bad[i].to, NULL), TG_EINVAL);
	assert_int_equal(tg_store_job_advance(c->s, id, "", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL), TG_EINVAL);
	/* compare-and-set: wrong state, wrong owner, unknown job */
	assert_int_equal(tg_store_job_advance(c->s, id, "A", TG_JOB_ANALYSING, TG_JOB_POSTING, NULL), TG_ENOTFOUND);
	assert_int_equal(tg_store_job_advance(c->s, id, "B", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL), TG_ENOTFOUND);
	assert_int_equal(tg_store_job_advance(c->s, 999999, "A", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL), TG_ENOTFOUND);

	/* the path of a good run, one second apart */
	static const tg_job_state path[] = {TG_JOB_SEEN, TG_JOB_ANALYSING, TG_JOB_POSTING, TG_JOB_DONE};
	for (int i = 0; i < 3; i++) {
		tg_store_debug_set_time(c->s, T0 + 1 + i);
		tg_test_must(tg_store_job_advance(c->s, id, "A", path[i], path[i + 1], NULL));
		/* done twice: the second CAS fails */
		assert_int_equal(tg_store_job_advance(c->s, id, "A", path[i], path[i + 1], NULL), TG_ENOTFOUND);
		tg_test_must(tg_store_job_get(&j, c->s, id));
		assert_int_equal(j.state, path[i + 1]);
		assert_int_equal(j.updated_at, T0 + 1 + i);
		assert_string_equal(tg_job_state_name(j.state), i == 0 ? "analysing" : i == 1 ? "posting" : "done");
		tg_job_clear(&j);
	}
	/* done released the lease: no renew, not claimable */
	assert_int_equal(tg_store_job_renew(c->s, id, "A", 60), TG_ENOTFOUND);
	assert_int_equal(tg_store_job_claim(&j, c->s, "A", 60), TG_ENOTFOUND);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM runs WHERE lease_owner IS NULL AND lease_until = 0"), 1);

	/* failed from each unfinished state, with or without a message */
	int64_t f[3];
	const char *errs[] = {"bad trace: 'rank0.pt.trace.json.gz' at byte 17", NULL, "forge: HTTP 502"};
	for (int k = 0; k < 3; k++) {
		f[k] = add_run(c->s, 31 + k, NULL, NULL);
		tg_test_must(tg_store_job_claim(&j, c->s, "A", 60));
		assert_int_equal(j.id, f[k]);
		tg_job_clear(&j);
		for (int i = 0; i < k; i++)
			tg_test_must(tg_store_job_advance(c->s, f[k], "A", path[i], path[i + 1], NULL));
		tg_test_must(tg_store_job_advance(c->s, f[k], "A", path[k], TG_JOB_FAILED, errs[k]));
		tg_test_must(tg_store_job_get(&j, c->s, f[k]));
		assert_int_equal(j.state, TG_JOB_FAILED);
		assert_str_or_null(j.error, errs[k]);
		tg_job_clear(&j);
	}
	assert_int_equal(tg_store_job_claim(&j, c->s, "A", 60), TG_ENOTFOUND);
	assert_int_equal(tg_store_job_renew(c->s, f[0], "A", 60), TG_ENOTFOUND);

	/* a daemon dies in the middle: the next one resumes where it was */
	int64_t r = add_run(c->s, 40, NULL, NULL);
	tg_test_must(tg_store_job_claim(&j, c->s, "A", 60));
	tg_job_clear(&j);
	tg_test_must(tg_store_job_advance(c->s, r, "A", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL));
	tg_store_debug_set_time(c->s, T0 + 200);
	tg_test_must(tg_store_job_claim(&j, c->s, "B", 60));
	assert_int_equal(j.id, r);
	assert_int_equal(j.state, TG_JOB_ANALYSING);
	assert_int_equal(j.attempts, 2);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_advance(c->s, r, "B", TG_JOB_ANALYSING, TG_JOB_POSTING, NULL));
	/* an error recorded on the way is kept when failing without one */
	tg_test_must(tg_store_job_advance(c->s, r, "B", TG_JOB_POSTING, TG_JOB_FAILED, "too many attempts"));
	tg_test_must(tg_store_job_get(&j, c->s, r));
	assert_string_equal(j.error, "too many attempts");
	tg_job_clear(&j);
}

static void test_set_result(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	int64_t id = add_run(c->s, 50, NULL, NULL);
	tg_job r;
	memset(&r, 0, sizeof(r));
	r.verdict = "block";
	r.summary = "SDPA fwd +7.1 % (block above 5 %)";
	r.baseline_commit = "fedcba9876543210fedcba9876543210fedcba98";
	r.baseline_distance = 3;
	r.comment_id = 1234567890123LL;
	tg_store_debug_set_time(c->s, T0 + 9);
	tg_test_must(tg_store_job_set_result(c->s, id, &r));
	tg_job g;
	tg_test_must(tg_store_job_get(&g, c->s, id));
	assert_string_equal(g.verdict, "block");
	assert_string_equal(g.summary, r.summary);
	assert_string_equal(g.baseline_commit, r.baseline_commit);
	assert_int_equal(g.baseline_distance, 3);
	assert_int_equal(g.comment_id, 1234567890123LL);
	assert_int_equal(g.updated_at, T0 + 9);
	assert_int_equal(g.state, TG_JOB_SEEN); /* any state */
	tg_job_clear(&g);

	/* no baseline: NULLs and -1 */
	memset(&r, 0, sizeof(r));
	r.verdict = "inconclusive";
	r.baseline_distance = -1;
	tg_test_must(tg_store_job_set_result(c->s, id, &r));
	tg_test_must(tg_store_job_get(&g, c->s, id));
	assert_string_equal(g.verdict, "inconclusive");
	assert_null(g.summary);
	assert_null(g.baseline_commit);
	assert_int_equal(g.baseline_distance, -1);
	assert_int_equal(g.comment_id, 0);
	tg_job_clear(&g);

	assert_int_equal(tg_store_job_set_result(c->s, 999999, &r), TG_ENOTFOUND);
	r.verdict = "maybe";
	assert_int_equal(tg_store_job_set_result(c->s, id, &r), TG_EINVAL);
	r.verdict = "pass";
	r.baseline_distance = -2;
	assert_int_equal(tg_store_job_set_result(c->s, id, &r), TG_EINVAL);
}

static void test_jobs_list(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	int64_t done = add_run(c->s, 60, NULL, NULL);
	run_to_done(c->s, done, "pass", NULL, 0);
	int64_t failed = add_run(c->s, 61, NULL, NULL);
	run_to_failed(c->s, failed, "x");
	tg_store_debug_set_time(c->s, T0 + 1);
	int64_t seen = add_run(c->s, 62, NULL, NULL);
	tg_store_debug_set_time(c->s, T0 + 2);
	int64_t analysing = add_run(c->s, 63, NULL, NULL);
	tg_job j;
	tg_test_must(tg_store_job_claim(&j, c->s, "A", 60)); /* the oldest: seen */
	assert_int_equal(j.id, seen);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_claim(&j, c->s, "A", 60));
	assert_int_equal(j.id, analysing);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_advance(c->s, analysing, "A", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL));

	tg_job *l = NULL;
	size_t n = 0;
	unsigned unfinished = 1u << TG_JOB_SEEN | 1u << TG_JOB_ANALYSING | 1u << TG_JOB_POSTING;
	tg_test_must(tg_store_jobs_list(&l, &n, c->s, unfinished));
	assert_int_equal(n, 2);
	assert_int_equal(l[0].id, seen);
	assert_int_equal(l[1].id, analysing);
	assert_int_equal(l[1].state, TG_JOB_ANALYSING);
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_jobs_list(&l, &n, c->s, 1u << TG_JOB_DONE));
	assert_int_equal(n, 1);
	assert_int_equal(l[0].id, done);
	assert_string_equal(l[0].verdict, "pass");
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_jobs_list(&l, &n, c->s, 0x1f));
	assert_int_equal(n, 4);
	assert_int_equal(l[0].id, done);
	assert_int_equal(l[1].id, failed);
	assert_int_equal(l[2].id, seen);
	assert_int_equal(l[3].id, analysing);
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_jobs_list(&l, &n, c->s, 0));
	assert_int_equal(n, 0);
	assert_null(l);
	assert_int_equal(tg_store_jobs_list(&l, &n, c->s, 1u << 7), TG_EINVAL);
}

/* -------------------------------------------------------------- history */

static void test_metrics_and_history(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	char cm[41];
	/* main, train: 4 runs; the third has no GEMM number */
	int64_t w1[4];
	for (int i = 0; i < 4; i++) {
		spec sp = {.workload = "train", .commit = sha(cm, 100 + i), .run_time = 1000 * (i + 1)};
		w1[i] = add_run(c->s, 100 + i, &sp, NULL);
		tg_metric m[] = {{"gpu_busy_ms", 10 + i},
		                 {"kernel_time_ms:SDPA_fwd", 1 + i + 0.125},
		                 {"kernel_time_ms:GEMM", 5 + i}};
		run_to_done(c->s, w1[i], "pass", m, i == 2 ? 2 : 3);
	}
	/* main, infer: 2 runs */
	int64_t w2[2];
	for (int i = 0; i < 2; i++) {
		spec sp = {.workload = "infer", .run_time = 1500 + 1000 * i};
		w2[i] = add_run(c->s, 110 + i, &sp, NULL);
		tg_metric m[] = {{"gpu_busy_ms", 20 + i}};
		run_to_done(c->s, w2[i], "warn", m, 1);
	}
	/* left out: a failed run, another branch, another repo, an unfinished run */
	spec sp_failed = {.workload = "train", .run_time = 3500};
	int64_t failed = add_run(c->s, 120, &sp_failed, NULL);
	tg_metric junk[] = {{"gpu_busy_ms", 999}};
	tg_test_must(tg_store_metrics_put(c->s, failed, junk, 1));
	run_to_failed(c->s, failed, "crash");
	spec sp_dev = {.branch = "dev", .run_time = 3600};
	run_to_done(c->s, add_run(c->s, 121, &sp_dev, NULL), "pass", junk, 1);
	spec sp_repo = {.repo = "other/repo", .run_time = 3700};
	run_to_done(c->s, add_run(c->s, 122, &sp_repo, NULL), "pass", junk, 1);
	spec sp_open = {.run_time = 3800};
	int64_t open = add_run(c->s, 123, &sp_open, NULL);
	tg_test_must(tg_store_metrics_put(c->s, open, junk, 1));

	/* put replaces: a metric left out of the second put is gone */
	tg_metric first[] = {{"gpu_busy_ms", 1}, {"stale", 2}};
	tg_test_must(tg_store_metrics_put(c->s, w2[0], first, 2));
	tg_metric second[] = {{"gpu_busy_ms", 20}};
	tg_test_must(tg_store_metrics_put(c->s, w2[0], second, 1));
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM metrics WHERE name = 'stale'"), 0);
	/* a duplicate name in one put: the last value */
	tg_metric dup[] = {{"gpu_busy_ms", 5}, {"gpu_busy_ms", 21}};
	tg_test_must(tg_store_metrics_put(c->s, w2[1], dup, 2));

	tg_history_point *p = NULL;
	size_t n = 0;
	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", NULL, NULL, 0));
	assert_int_equal(n, 4 * 2 + 3 + 2);
	for (size_t i = 1; i < n; i++)
		assert_true(p[i - 1].run_time <= p[i].run_time);
	assert_int_equal(p[0].run, w1[0]);
	assert_int_equal(p[0].run_time, 1000);
	assert_string_equal(p[0].commit, sha(cm, 100));
	assert_string_equal(p[0].workload, "train");
	/* within a run, by name */
	assert_string_equal(p[0].metric, "gpu_busy_ms");
	assert_string_equal(p[1].metric, "kernel_time_ms:GEMM");
	assert_string_equal(p[2].metric, "kernel_time_ms:SDPA_fwd");
	assert_true(p[2].value == 1.125);
	for (size_t i = 0; i < n; i++)
		assert_true(p[i].value != 999);
	tg_history_free(p, n);

	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", "infer", NULL, 0));
	assert_int_equal(n, 2);
	assert_int_equal(p[0].run, w2[0]);
	assert_true(p[0].value == 20);
	assert_int_equal(p[1].run, w2[1]);
	assert_true(p[1].value == 21);
	tg_history_free(p, n);

	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", NULL, "gpu_busy_ms", 0));
	assert_int_equal(n, 6);
	static const double busy[] = {10, 20, 11, 21, 12, 13}; /* t 1000 1500 2000 2500 3000 4000 */
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(p[i].metric, "gpu_busy_ms");
		assert_true(p[i].value == busy[i]);
	}
	tg_history_free(p, n);

	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", NULL, "kernel_time_ms:*", 0));
	assert_int_equal(n, 7);
	for (size_t i = 0; i < n; i++)
		assert_memory_equal(p[i].metric, "kernel_time_ms:", 15);
	tg_history_free(p, n);

	/* limit: the latest 2 runs of each series, oldest first. GEMM's
	 * latest two are t=2000 and t=4000 (t=3000 has none). */
	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", "train", "kernel_time_ms:*", 2));
	assert_int_equal(n, 4);
	assert_int_equal(p[0].run_time, 2000);
	assert_string_equal(p[0].metric, "kernel_time_ms:GEMM");
	assert_true(p[0].value == 6);
	assert_int_equal(p[1].run_time, 3000);
	assert_string_equal(p[1].metric, "kernel_time_ms:SDPA_fwd");
	assert_true(p[1].value == 3.125);
	assert_int_equal(p[2].run_time, 4000);
	assert_string_equal(p[2].metric, "kernel_time_ms:GEMM");
	assert_true(p[2].value == 8);
	assert_int_equal(p[3].run_time, 4000);
	assert_string_equal(p[3].metric, "kernel_time_ms:SDPA_fwd");
	assert_true(p[3].value == 4.125);
	tg_history_free(p, n);

	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", NULL, "gpu_busy_ms", 1));
	assert_int_equal(n, 2);
	assert_int_equal(p[0].run, w2[1]);
	assert_int_equal(p[1].run, w1[3]);
	tg_history_free(p, n);

	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", NULL, "*", 0));
	assert_int_equal(n, 13);
	tg_history_free(p, n);
	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", NULL, "kernel_time_ms:", 0));
	assert_int_equal(n, 0); /* exact name: none */
	tg_history_free(p, n);
	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "nope", NULL, NULL, 0));
	assert_int_equal(n, 0);
	assert_null(p);
	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "dev", NULL, NULL, 0));
	assert_int_equal(n, 1);
	assert_true(p[0].value == 999);
	tg_history_free(p, n);

	/* a value keeps all its digits */
	tg_metric precise[] = {{"gpu_busy_ms", 0.1 + 0.2}, {"tiny", 1e-300}, {"neg", -123456.789012345678}};
	tg_test_must(tg_store_metrics_put(c->s, w1[0], precise, 3));
	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", "train", NULL, 0));
	int seen = 0;
	for (size_t i = 0; i < n; i++)
		if (p[i].run == w1[0]) {
			seen++;
			if (!strcmp(p[i].metric, "gpu_busy_ms"))
				assert_true(p[i].value == 0.1 + 0.2);
			else if (!strcmp(p[i].metric, "tiny"))
				assert_true(p[i].value == 1e-300);
			else
				assert_true(p[i].value == -123456.789012345678);
		}
	assert_int_equal(seen, 3);
	tg_history_free(p, n);

	/* refused: unknown run, no name, not a number */
	assert_int_equal(tg_store_metrics_put(c->s, 999999, second, 1), TG_ENOTFOUND);
	tg_metric bad[] = {{"", 1}};
	assert_int_equal(tg_store_metrics_put(c->s, w1[0], bad, 1), TG_EINVAL);
	tg_metric nan_[] = {{"x", NAN}};
	assert_int_equal(tg_store_metrics_put(c->s, w1[0], nan_, 1), TG_EINVAL);
	/* an empty put clears */
	tg_test_must(tg_store_metrics_put(c->s, w1[0], NULL, 0));
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM metrics WHERE name = 'tiny'"), 0);
}

/* The pull requests' runs into a branch (tg_store_history_prs): done runs
 * whose target branch it is, that name a pull request and are not the
 * branch's own; filters, limit and trust as the branch's history. */
static void test_history_prs(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_metric m1[] = {{"gpu_busy_ms", 10}, {"kernel_time_ms:GEMM", 4}};
	/* main's own runs, one of them naming a pull request (pr 9) */
	spec main1 = {.run_time = 1000, .trusted = 1};
	int64_t b1 = add_run(c->s, 300, &main1, NULL);
	run_to_done(c->s, b1, "pass", m1, 2);
	spec main9 = {.run_time = 1100, .trusted = 1, .target_branch = "main", .pr = 9};
	int64_t b9 = add_run(c->s, 301, &main9, NULL);
	run_to_done(c->s, b9, "pass", m1, 1);
	/* pull request 7 into main: two runs (the first signed), one of infer */
	spec pr7a = {.branch = "feat", .run_time = 1500, .trusted = 1, .target_branch = "main", .pr = 7};
	int64_t a = add_run(c->s, 302, &pr7a, NULL);
	tg_metric ma[] = {{"gpu_busy_ms", 11.5}, {"kernel_time_ms:GEMM", 4.25}};
	run_to_done(c->s, a, "block", ma, 2);
	spec pr7b = {.branch = "feat", .run_time = 2500, .target_branch = "main", .pr = 7};
	int64_t bb = add_run(c->s, 303, &pr7b, NULL);
	tg_metric mb[] = {{"gpu_busy_ms", 10.25}};
	run_to_done(c->s, bb, "pass", mb, 1);
	spec pr8 = {.branch = "fix", .workload = "infer", .run_time = 2000, .target_branch = "main", .pr = 8};
	int64_t i8 = add_run(c->s, 304, &pr8, NULL);
	tg_metric mi[] = {{"gpu_busy_ms", 30}};
	run_to_done(c->s, i8, "warn", mi, 1);
	/* left out: into dev; not done; failed; no pull request; another repo */
	tg_metric junk[] = {{"gpu_busy_ms", 999}};
	spec dev = {.branch = "feat", .run_time = 1600, .target_branch = "dev", .pr = 7};
	run_to_done(c->s, add_run(c->s, 305, &dev, NULL), "pass", junk, 1);
	spec nopr = {.branch = "feat", .run_time = 1700, .target_branch = "main"};
	run_to_done(c->s, add_run(c->s, 306, &nopr, NULL), "pass", junk, 1);
	spec other = {.repo = "other/repo", .branch = "feat", .run_time = 1800, .target_branch = "main", .pr = 7};
	run_to_done(c->s, add_run(c->s, 307, &other, NULL), "pass", junk, 1);
	spec failed = {.branch = "feat", .run_time = 1900, .target_branch = "main", .pr = 7};
	int64_t f = add_run(c->s, 308, &failed, NULL);
	tg_test_must(tg_store_metrics_put(c->s, f, junk, 1));
	run_to_failed(c->s, f, "crash");
	spec open = {.branch = "feat", .run_time = 3000, .target_branch = "main", .pr = 7};
	tg_test_must(tg_store_metrics_put(c->s, add_run(c->s, 309, &open, NULL), junk, 1));

	tg_history_point *p = NULL;
	size_t n = 0;
	tg_test_must(tg_store_history_prs(&p, &n, c->s, "acme/llm", "main", NULL, NULL, 0));
	assert_int_equal(n, 4);
	/* oldest first; within a run, by name */
	assert_int_equal(p[0].run, a);
	assert_int_equal(p[0].pr, 7);
	assert_int_equal(p[0].run_time, 1500);
	assert_string_equal(p[0].metric, "gpu_busy_ms");
	assert_true(p[0].value == 11.5);
	assert_string_equal(p[1].metric, "kernel_time_ms:GEMM");
	assert_true(p[1].value == 4.25);
	assert_int_equal(p[2].run, i8);
	assert_int_equal(p[2].pr, 8);
	assert_string_equal(p[2].workload, "infer");
	assert_true(p[2].value == 30);
	assert_int_equal(p[3].run, bb);
	assert_int_equal(p[3].pr, 7);
	assert_true(p[3].value == 10.25);
	char cm[41];
	assert_string_equal(p[3].commit, sha(cm, 303));
	tg_history_free(p, n);

	/* the branch's own history: its runs only, pr as stored */
	tg_test_must(tg_store_history(&p, &n, c->s, "acme/llm", "main", NULL, "gpu_busy_ms", 0));
	assert_int_equal(n, 2);
	assert_int_equal(p[0].run, b1);
	assert_int_equal(p[0].pr, 0);
	assert_int_equal(p[1].run, b9);
	assert_int_equal(p[1].pr, 9);
	tg_history_free(p, n);

	/* filters: workload, metric, prefix; limit: the latest run a series */
	tg_test_must(tg_store_history_prs(&p, &n, c->s, "acme/llm", "main", "train", "gpu_busy_ms", 0));
	assert_int_equal(n, 2);
	assert_int_equal(p[0].run, a);
	assert_int_equal(p[1].run, bb);
	tg_history_free(p, n);
	tg_test_must(tg_store_history_prs(&p, &n, c->s, "acme/llm", "main", NULL, "kernel_time_ms:*", 0));
	assert_int_equal(n, 1);
	assert_int_equal(p[0].run, a);
	tg_history_free(p, n);
	tg_test_must(tg_store_history_prs(&p, &n, c->s, "acme/llm", "main", NULL, NULL, 1));
	assert_int_equal(n, 3); /* train gpu_busy: bb; train GEMM: a; infer: i8 */
	assert_int_equal(p[0].run, a);
	assert_string_equal(p[0].metric, "kernel_time_ms:GEMM");
	assert_int_equal(p[1].run, i8);
	assert_int_equal(p[2].run, bb);
	tg_history_free(p, n);
	tg_test_must(tg_store_history_prs(&p, &n, c->s, "acme/llm", "dev", NULL, NULL, 0));
	assert_int_equal(n, 1);
	assert_int_equal(p[0].pr, 7);
	assert_true(p[0].value == 999);
	tg_history_free(p, n);
	tg_test_must(tg_store_history_prs(&p, &n, c->s, "acme/llm", "feat", NULL, NULL, 0));
	assert_int_equal(n, 0);
	assert_null(p);

	/* a signing key: trusted runs only, as the branch's history */
	tg_store_set_trusted_only(c->s, 1);
	tg_test_must(tg_store_history_prs(&p, &n, c->s, "acme/llm", "main", NULL, NULL, 0));
	assert_int_equal(n, 2);
	assert_int_equal(p[0].run, a);
	assert_int_equal(p[1].run, a);
	tg_history_free(p, n);
	tg_store_set_trusted_only(c->s, 0);
	assert_int_equal(tg_store_history_prs(&p, &n, c->s, "acme/llm", NULL, NULL, NULL, 0), TG_EINVAL);
}

/* The queue by state, and the oldest unfinished job's first sighting. */
static void test_count_jobs(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_store_counts q;
	tg_test_must(tg_store_count_jobs(&q, c->s));
	for (int i = 0; i <= TG_JOB_FAILED; i++)
		assert_int_equal(q.jobs[i], 0);
	assert_int_equal(q.oldest_unfinished, 0);
	/* found at T0, T0 + 10, T0 + 20, T0 + 30 (the store's clock) */
	int64_t id[4];
	for (int i = 0; i < 4; i++) {
		tg_store_debug_set_time(c->s, T0 + 10 * i);
		id[i] = add_run(c->s, 400 + i, NULL, NULL);
	}
	tg_store_debug_set_time(c->s, T0 + 100);
	run_to_done(c->s, id[0], "pass", NULL, 0);
	run_to_failed(c->s, id[1], "bad trace");
	tg_job j;
	tg_test_must(tg_store_job_claim(&j, c->s, "w", 60));
	assert_int_equal(j.id, id[2]);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_advance(c->s, id[2], "w", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL));
	tg_test_must(tg_store_count_jobs(&q, c->s));
	assert_int_equal(q.jobs[TG_JOB_SEEN], 1);
	assert_int_equal(q.jobs[TG_JOB_ANALYSING], 1);
	assert_int_equal(q.jobs[TG_JOB_POSTING], 0);
	assert_int_equal(q.jobs[TG_JOB_DONE], 1);
	assert_int_equal(q.jobs[TG_JOB_FAILED], 1);
	/* the oldest unfinished: the analysing one, found at T0 + 20 (the done
	 * and failed ones, found before, do not count) */
	assert_int_equal(q.oldest_unfinished, T0 + 20);
	tg_test_must(tg_store_job_advance(c->s, id[2], "w", TG_JOB_ANALYSING, TG_JOB_FAILED, "x"));
	tg_test_must(tg_store_count_jobs(&q, c->s));
	assert_int_equal(q.jobs[TG_JOB_FAILED], 2);
	assert_int_equal(q.oldest_unfinished, T0 + 30);
}

/* Each branch and workload of a repository with its latest done run. */
static void test_branches(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_store_branch *b = NULL;
	size_t n = 9;
	tg_test_must(tg_store_branches(&b, &n, c->s, "acme/llm"));
	assert_int_equal(n, 0);
	assert_null(b);
	spec m1 = {.run_time = 1000, .trusted = 1};
	run_to_done(c->s, add_run(c->s, 500, &m1, NULL), "inconclusive", NULL, 0);
	spec m2 = {.run_time = 3000, .trusted = 1};
	int64_t last = add_run(c->s, 501, &m2, NULL);
	run_to_done(c->s, last, "block", NULL, 0);
	spec m3 = {.run_time = 2000, .trusted = 1}; /* found later, ran before: not the latest */
	run_to_done(c->s, add_run(c->s, 502, &m3, NULL), "pass", NULL, 0);
	spec inf = {.workload = "infer", .run_time = 1500, .trusted = 1};
	int64_t infer = add_run(c->s, 503, &inf, NULL);
	run_to_done(c->s, infer, NULL, NULL, 0);
	spec feat = {.branch = "feat/x", .run_time = 2500, .target_branch = "main", .pr = 7};
	int64_t f = add_run(c->s, 504, &feat, NULL);
	run_to_done(c->s, f, "warn", NULL, 0);
	/* left out: failed, unfinished, another repository */
	spec late = {.run_time = 9000, .trusted = 1};
	run_to_failed(c->s, add_run(c->s, 505, &late, NULL), "bad trace");
	spec other = {.repo = "other/repo", .run_time = 100, .trusted = 1};
	run_to_done(c->s, add_run(c->s, 506, &other, NULL), "pass", NULL, 0);
	add_run(c->s, 507, &late, NULL);

	tg_test_must(tg_store_branches(&b, &n, c->s, "acme/llm"));
	assert_int_equal(n, 3);
	/* byte-wise: "feat/x" < "main"; "infer" < "train" */
	assert_string_equal(b[0].branch, "feat/x");
	assert_string_equal(b[0].workload, "train");
	assert_int_equal(b[0].runs, 1);
	assert_int_equal(b[0].run, f);
	assert_int_equal(b[0].pr, 7);
	assert_string_equal(b[0].verdict, "warn");
	assert_string_equal(b[1].branch, "main");
	assert_string_equal(b[1].workload, "infer");
	assert_int_equal(b[1].run, infer);
	assert_null(b[1].verdict);
	assert_string_equal(b[2].branch, "main");
	assert_string_equal(b[2].workload, "train");
	assert_int_equal(b[2].runs, 3);
	assert_int_equal(b[2].run, last);
	assert_int_equal(b[2].run_time, 3000);
	char cm[41];
	assert_string_equal(b[2].commit, sha(cm, 501));
	assert_string_equal(b[2].verdict, "block");
	assert_int_equal(b[2].pr, 0);
	tg_store_branches_free(b, n);

	/* a signing key: the trusted runs only (feat/x's run is not) */
	tg_store_set_trusted_only(c->s, 1);
	tg_test_must(tg_store_branches(&b, &n, c->s, "acme/llm"));
	assert_int_equal(n, 2);
	assert_string_equal(b[0].branch, "main");
	tg_store_branches_free(b, n);
	tg_store_set_trusted_only(c->s, 0);
	tg_test_must(tg_store_branches(&b, &n, c->s, "nobody/here"));
	assert_int_equal(n, 0);
	assert_int_equal(tg_store_branches(&b, &n, c->s, NULL), TG_EINVAL);
	tg_store_branches_free(NULL, 0);
}

static void test_find_run(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	char cm[41];
	sha(cm, 500);
	spec at = {.workload = "train", .commit = cm};
	at.run_time = 100;
	int64_t a = add_run(c->s, 200, &at, NULL);
	run_to_done(c->s, a, "pass", NULL, 0);
	at.run_time = 300;
	int64_t err = add_run(c->s, 201, &at, NULL);
	run_to_done(c->s, err, "error", NULL, 0);
	at.run_time = 200;
	int64_t b = add_run(c->s, 202, &at, NULL);
	run_to_done(c->s, b, "warn", NULL, 0);
	at.run_time = 400;
	run_to_failed(c->s, add_run(c->s, 203, &at, NULL), "x");
	at.run_time = 500;
	add_run(c->s, 204, &at, NULL); /* unfinished */

	tg_job j;
	tg_test_must(tg_store_find_run(&j, c->s, "acme/llm", cm, "train", 0));
	assert_int_equal(j.id, b); /* the latest done run that is not an error */
	assert_int_equal(j.run_time, 200);
	assert_string_equal(j.verdict, "warn");
	assert_int_equal(j.state, TG_JOB_DONE);
	tg_job_clear(&j);
	assert_int_equal(tg_store_find_run(&j, c->s, "acme/llm", cm, "infer", 0), TG_ENOTFOUND);
	assert_int_equal(tg_store_find_run(&j, c->s, "other/repo", cm, "train", 0), TG_ENOTFOUND);
	assert_int_equal(tg_store_find_run(&j, c->s, "acme/llm", sha(cm, 501), "train", 0), TG_ENOTFOUND);
	assert_int_equal(j.id, 0);
	assert_int_equal(tg_store_find_run(&j, c->s, NULL, cm, "train", 0), TG_EINVAL);
	/* every done run that is not an error, the latest first; a limit */
	sha(cm, 500);
	tg_job *l;
	size_t n;
	tg_test_must(tg_store_find_runs(&l, &n, c->s, "acme/llm", cm, "train", 10, 0));
	assert_int_equal(n, 2);
	assert_int_equal(l[0].id, b);
	assert_int_equal(l[1].id, a);
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_find_runs(&l, &n, c->s, "acme/llm", cm, "train", 1, 0));
	assert_int_equal(n, 1);
	assert_int_equal(l[0].id, b);
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_find_runs(&l, &n, c->s, "acme/llm", cm, "infer", 10, 0));
	assert_int_equal(n, 0);
	assert_null(l);
	assert_int_equal(tg_store_find_runs(&l, &n, c->s, "acme/llm", cm, "train", 0, 0), TG_EINVAL);

	/* a signing key: only trusted runs are baselines, whatever their time;
	 * the store's own trusted-only state does not change the lookups */
	sha(cm, 500);
	assert_int_equal(tg_store_find_run(&j, c->s, "acme/llm", cm, "train", 1), TG_ENOTFOUND);
	at.run_time = 50;
	at.trusted = 1;
	int64_t t = add_run(c->s, 205, &at, NULL);
	run_to_done(c->s, t, "pass", NULL, 0);
	tg_test_must(tg_store_find_run(&j, c->s, "acme/llm", cm, "train", 1));
	assert_int_equal(j.id, t);
	assert_int_equal(j.trusted, 1);
	tg_job_clear(&j);
	tg_store_set_trusted_only(c->s, 1);
	tg_test_must(tg_store_find_run(&j, c->s, "acme/llm", cm, "train", 0));
	assert_int_equal(j.id, b);
	assert_int_equal(j.trusted, 0);
	tg_job_clear(&j);
	tg_store_set_trusted_only(c->s, 0);
	/* ...and the runs a side pools too */
	tg_test_must(tg_store_find_runs(&l, &n, c->s, "acme/llm", cm, "train", 10, 1));
	assert_int_equal(n, 1);
	assert_int_equal(l[0].id, t);
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_find_runs(&l, &n, c->s, "acme/llm", cm, "train", 10, 0));
	assert_int_equal(n, 3);
	tg_store_jobs_free(l, n);
}

/* Failing closed (store.h): the counts the admission limits read count
 * each trust class apart. */
static void test_run_counts(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	char cm[41];
	sha(cm, 700);
	/* at one commit: two trusted workloads, three untrusted ones (one of
	 * them twice), two untrusted runs naming no pull request */
	spec sp = {.commit = cm, .run_time = 10, .trusted = 1, .workload = "train"};
	add_run(c->s, 701, &sp, NULL);
	sp.workload = "infer";
	add_run(c->s, 702, &sp, NULL);
	sp.trusted = 0;
	sp.pr = 5;
	sp.workload = "train";
	add_run(c->s, 703, &sp, NULL);
	add_run(c->s, 704, &sp, NULL);
	sp.workload = "a1";
	add_run(c->s, 705, &sp, NULL);
	sp.pr = 0;
	sp.workload = "a2";
	add_run(c->s, 706, &sp, NULL);
	add_run(c->s, 707, &sp, NULL);
	tg_run_counts k;
	tg_test_must(tg_store_count_runs(&k, c->s, "acme/llm", cm, "train", 1));
	assert_int_equal(k.workloads, 2);
	assert_int_equal(k.runs, 1);
	assert_int_equal(k.unsigned_branch, 2);
	tg_test_must(tg_store_count_runs(&k, c->s, "acme/llm", cm, "train", 0));
	assert_int_equal(k.workloads, 3);
	assert_int_equal(k.runs, 2);
	tg_test_must(tg_store_count_runs(&k, c->s, "acme/llm", cm, "zzz", 0));
	assert_int_equal(k.runs, 0);
	tg_test_must(tg_store_count_runs(&k, c->s, "acme/llm", sha(cm, 799), "train", 0));
	assert_int_equal(k.workloads + k.runs + k.unsigned_branch, 0);
	assert_int_equal(tg_store_count_runs(&k, c->s, NULL, cm, "train", 0), TG_EINVAL);

}

/* Adds the five done runs of pull request 7 at commit pc (of CI runs 4242,
 * 4242, 999, 4242 not confirmed, none), each recorded as judged into main
 * against cm, into ids. */
static void add_pr_runs(tg_store *s, int64_t ids[5], const char *pc, const char *cm)
{
	spec pr = {.commit = pc, .pr = 7, .target_branch = "main", .branch = "feat", .origin = "4242"};
	int ok[] = {1, 1, 1, 0, 1};
	const char *origin[] = {"4242", "4242", "999", "4242", NULL};
	for (int i = 0; i < 5; i++) {
		pr.origin = origin[i];
		pr.run_time = 1 + i;
		ids[i] = add_run(s, 711 + i, &pr, NULL);
		run_to_done(s, ids[i], "pass", NULL, 0);
		tg_job r;
		tg_test_must(tg_store_job_get(&r, s, ids[i]));
		assert_str_or_null(r.origin, origin[i]);
		assert_int_equal(r.origin_ok, 0);
		r.origin_ok = ok[i];
		free(r.judged_target);
		r.judged_target = strdup("main");
		free(r.judged_merge_base);
		r.judged_merge_base = strdup(cm);
		r.posted_ms = 1000 + i;
		tg_test_must(tg_store_job_set_result(s, ids[i], &r));
		tg_job_clear(&r);
	}
}

/* A side's pool by trust and by proof of origin; tampered runs out of
 * every pool (not of the baseline walk), listed for history. */
static void test_pool_and_tampered(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	char cm[41], pc[41];
	sha(cm, 700);
	sha(pc, 710);
	int64_t ids[5];
	add_pr_runs(c->s, ids, pc, cm);
	tg_pool_filter f = {.by_origin = 1, .origin = "4242"};
	tg_job *l = NULL;
	size_t n = 0;
	tg_test_must(tg_store_find_pool(&l, &n, c->s, "acme/llm", pc, "train", &f, 8));
	assert_int_equal(n, 2); /* confirmed and 4242: the latest first */
	assert_int_equal(l[0].id, ids[1]);
	assert_int_equal(l[1].id, ids[0]);
	assert_int_equal(l[0].origin_ok, 1);
	assert_string_equal(l[0].judged_target, "main");
	assert_string_equal(l[0].judged_merge_base, cm);
	assert_int_equal(l[0].posted_ms, 1001);
	tg_store_jobs_free(l, n);
	f.origin = NULL; /* runs that name no origin (the outbox takes the manifest's word) */
	tg_test_must(tg_store_find_pool(&l, &n, c->s, "acme/llm", pc, "train", &f, 8));
	assert_int_equal(n, 1);
	assert_int_equal(l[0].id, ids[4]);
	tg_store_jobs_free(l, n);
	f.by_origin = 2; /* any confirmed origin */
	tg_test_must(tg_store_find_pool(&l, &n, c->s, "acme/llm", pc, "train", &f, 8));
	assert_int_equal(n, 4);
	tg_store_jobs_free(l, n);
	f.by_origin = 0;
	tg_test_must(tg_store_find_pool(&l, &n, c->s, "acme/llm", pc, "train", &f, 3));
	assert_int_equal(n, 3);
	tg_store_jobs_free(l, n);
	f.trusted_only = 1;
	tg_test_must(tg_store_find_pool(&l, &n, c->s, "acme/llm", pc, "train", &f, 8));
	assert_int_equal(n, 0);
	assert_int_equal(tg_store_find_pool(&l, &n, c->s, "acme/llm", pc, "train", &f, 0), TG_EINVAL);

	/* tampered: out of every pool (not of the baseline walk: find_runs),
	 * the first reason kept, listed by branch */
	tg_test_must(tg_store_job_set_tampered(c->s, ids[1], "rank0.json: does not match the sha256 its manifest gives"));
	tg_test_must(tg_store_job_set_tampered(c->s, ids[1], "later"));
	assert_int_equal(tg_store_job_set_tampered(c->s, 999999, "x"), TG_ENOTFOUND);
	assert_int_equal(tg_store_job_set_tampered(c->s, ids[1], ""), TG_EINVAL);
	f = (tg_pool_filter){.by_origin = 1, .origin = "4242"};
	tg_test_must(tg_store_find_pool(&l, &n, c->s, "acme/llm", pc, "train", &f, 8));
	assert_int_equal(n, 1);
	assert_int_equal(l[0].id, ids[0]);
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_find_runs(&l, &n, c->s, "acme/llm", pc, "train", 8, 0));
	assert_int_equal(n, 5);
	assert_int_equal(l[3].id, ids[1]);
	assert_string_equal(l[3].tampered, "rank0.json: does not match the sha256 its manifest gives");
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_tampered(&l, &n, c->s, "acme/llm", "feat"));
	assert_int_equal(n, 1);
	assert_int_equal(l[0].id, ids[1]);
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_tampered(&l, &n, c->s, "acme/llm", "main"));
	assert_int_equal(n, 0);
	tg_store_set_trusted_only(c->s, 1);
	tg_test_must(tg_store_tampered(&l, &n, c->s, "acme/llm", "feat"));
	assert_int_equal(n, 0); /* an untrusted run is no branch's history */
	tg_store_set_trusted_only(c->s, 0);

}

/* The pull requests' runs to look at again, and a done job judged again. */
static void test_pr_runs_and_rejudge(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	char cm[41], pc[41];
	sha(cm, 700);
	sha(pc, 710);
	spec sp = {.commit = cm, .run_time = 10, .trusted = 1};
	int64_t t1 = add_run(c->s, 701, &sp, NULL); /* seen, never judged */
	int64_t ids[5];
	add_pr_runs(c->s, ids, pc, cm);
	tg_job *l = NULL;
	size_t n = 0;
	/* the pull requests' runs since a time, the one updated last first */
	tg_store_debug_set_time(c->s, T0 + 50);
	tg_job r;
	tg_test_must(tg_store_job_get(&r, c->s, ids[2]));
	tg_test_must(tg_store_job_set_result(c->s, ids[2], &r));
	tg_job_clear(&r);
	tg_test_must(tg_store_pr_runs(&l, &n, c->s, 3, 10));
	assert_int_equal(n, 3); /* run_time 3, 4, 5 */
	assert_int_equal(l[0].id, ids[2]);
	tg_store_jobs_free(l, n);
	tg_test_must(tg_store_pr_runs(&l, &n, c->s, 0, 2));
	assert_int_equal(n, 2);
	tg_store_jobs_free(l, n);

	/* judged again: done -> seen, attempts and lease cleared, the comment
	 * id kept; only a done job */
	tg_test_must(tg_store_job_get(&r, c->s, ids[0]));
	r.comment_id = 31;
	tg_test_must(tg_store_job_set_result(c->s, ids[0], &r));
	tg_job_clear(&r);
	tg_test_must(tg_store_job_rejudge(c->s, ids[0]));
	tg_test_must(tg_store_job_get(&r, c->s, ids[0]));
	assert_int_equal(r.state, TG_JOB_SEEN);
	assert_int_equal(r.attempts, 0);
	assert_int_equal(r.comment_id, 31);
	tg_job_clear(&r);
	assert_int_equal(tg_store_job_rejudge(c->s, ids[0]), TG_ENOTFOUND);
	tg_test_must(tg_store_job_claim(&r, c->s, "w", 60));
	assert_int_equal(r.id, ids[0]);
	tg_job_clear(&r);
	assert_int_equal(tg_store_job_rejudge(c->s, t1), TG_ENOTFOUND); /* seen, never judged */
}

static void test_prune(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_metric m[] = {{"gpu_busy_ms", 1}, {"kernel_time_ms:GEMM", 2}};
	spec sp = {.run_time = 100};
	int64_t old_done = add_run(c->s, 300, &sp, NULL);
	run_to_done(c->s, old_done, "pass", m, 2);
	sp.run_time = 200;
	int64_t old_failed = add_run(c->s, 301, &sp, NULL);
	tg_test_must(tg_store_metrics_put(c->s, old_failed, m, 2));
	run_to_failed(c->s, old_failed, "x");
	sp.run_time = 9000;
	int64_t new_done = add_run(c->s, 302, &sp, NULL);
	run_to_done(c->s, new_done, "pass", m, 2);
	sp.run_time = 150;
	int64_t old_seen = add_run(c->s, 303, &sp, NULL);
	sp.run_time = 160;
	int64_t old_analysing = add_run(c->s, 304, &sp, NULL);
	tg_test_must(tg_store_metrics_put(c->s, old_analysing, m, 2));
	tg_job j;
	tg_test_must(tg_store_job_claim(&j, c->s, "A", 60));
	tg_job_clear(&j);
	tg_test_must(tg_store_job_claim(&j, c->s, "A", 60));
	assert_int_equal(j.id, old_analysing);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_advance(c->s, old_analysing, "A", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL));

	size_t deleted = 99;
	tg_test_must(tg_store_prune(&deleted, c->s, 5000));
	assert_int_equal(deleted, 2);
	assert_int_equal(tg_store_job_get(&j, c->s, old_done), TG_ENOTFOUND);
	assert_int_equal(tg_store_job_get(&j, c->s, old_failed), TG_ENOTFOUND);
	tg_test_must(tg_store_job_get(&j, c->s, old_seen));
	tg_job_clear(&j);
	tg_test_must(tg_store_job_get(&j, c->s, old_analysing));
	assert_int_equal(j.state, TG_JOB_ANALYSING);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_get(&j, c->s, new_done));
	tg_job_clear(&j);
	/* metrics went with their runs */
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM metrics"), 4);
	assert_int_equal(raw_sql(c, "SELECT COUNT(DISTINCT run) FROM metrics"), 2);
	tg_test_must(tg_store_prune(NULL, c->s, 5000));
	tg_test_must(tg_store_prune(&deleted, c->s, 5000));
	assert_int_equal(deleted, 0);
	tg_test_must(tg_store_prune(&deleted, c->s, 9001));
	assert_int_equal(deleted, 1);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM runs"), 2);
}

/* Run data: kept under a trace's digest and format, replaced, refused
 * when the digest is not one, shared between runs; a run's traces listed
 * and replaced; outcomes kept with their run; retention deletes the data
 * no run names once it is older than the cutoff. */
static void test_run_data(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_store_debug_set_time(c->s, 1000);
	const char *d1 = "1111111111111111111111111111111111111111111111111111111111111111";
	const char *d2 = "2222222222222222222222222222222222222222222222222222222222222222";
	uint8_t blob[3000];
	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (uint8_t)(i * 7); /* NUL bytes and all the others */
	tg_test_must(tg_store_trace_data_put(c->s, d1, 1, 123456789012ULL, 0, blob, sizeof(blob)));
	void *got = NULL;
	size_t len = 0;
	tg_test_must(tg_store_trace_data_get(&got, &len, c->s, d1, 1, 0));
	assert_int_equal(len, sizeof(blob));
	assert_memory_equal(got, blob, len);
	free(got);
	assert_int_equal(tg_store_trace_data_get(&got, &len, c->s, d1, 1, 1), TG_ENOTFOUND); /* not trusted */
	assert_int_equal(tg_store_trace_data_get(&got, &len, c->s, d1, 2, 0), TG_ENOTFOUND); /* another format */
	assert_null(got);
	assert_int_equal(tg_store_trace_data_get(&got, &len, c->s, d2, 1, 0), TG_ENOTFOUND);
	tg_test_must(tg_store_trace_data_put(c->s, d1, 1, 5, 1, "abc", 3)); /* replaced, trusted now */
	tg_test_must(tg_store_trace_data_get(&got, &len, c->s, d1, 1, 1));
	assert_int_equal(len, 3);
	assert_memory_equal(got, "abc", 3);
	free(got);
	/* an untrusted analysis never replaces trusted data of its format */
	tg_test_must(tg_store_trace_data_put(c->s, d1, 1, 5, 0, "evil", 4));
	tg_test_must(tg_store_trace_data_get(&got, &len, c->s, d1, 1, 0));
	assert_int_equal(len, 3);
	free(got);
	tg_test_must(tg_store_trace_data_put(c->s, d1, 2, 5, 0, "abc", 3)); /* another format: replaced */
	tg_test_must(tg_store_trace_data_get(&got, &len, c->s, d1, 2, 0));
	free(got);
	assert_int_equal(tg_store_trace_data_put(c->s, "ABC", 1, 1, 0, "x", 1), TG_EINVAL);
	assert_int_equal(tg_store_trace_data_put(c->s, d2, 1, 1, 0, NULL, 0), TG_EINVAL);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM trace_data"), 1);

	spec sp = {.run_time = 100};
	int64_t a = add_run(c->s, 400, &sp, NULL), b = add_run(c->s, 401, &sp, NULL);
	tg_run_trace tr[2] = {{.json_bytes = 10}, {.json_bytes = 20}};
	memcpy(tr[0].digest, d1, 65);
	memcpy(tr[1].digest, d2, 65);
	tg_test_must(tg_store_run_traces_put(c->s, a, tr, 2));
	tg_test_must(tg_store_run_traces_put(c->s, b, tr, 1)); /* b shares trace d1 */
	tg_run_trace *t = NULL;
	size_t n = 0;
	tg_test_must(tg_store_run_traces_get(&t, &n, c->s, a));
	assert_int_equal(n, 2);
	assert_string_equal(t[0].digest, d1);
	assert_string_equal(t[1].digest, d2);
	assert_int_equal(t[1].json_bytes, 20);
	free(t);
	tg_test_must(tg_store_run_traces_put(c->s, a, tr + 1, 1)); /* replaced */
	tg_test_must(tg_store_run_traces_get(&t, &n, c->s, a));
	assert_int_equal(n, 1);
	assert_string_equal(t[0].digest, d2);
	free(t);
	assert_int_equal(tg_store_run_traces_put(c->s, 99999, tr, 1), TG_ENOTFOUND);
	tg_test_must(tg_store_run_traces_get(&t, &n, c->s, 99999));
	assert_int_equal(n, 0);

	char *o = NULL, *cm = NULL;
	assert_int_equal(tg_store_outcome_get(&o, &cm, c->s, a), TG_ENOTFOUND);
	tg_test_must(tg_store_outcome_put(c->s, a, "{\"state\": \"success\"}", "### it's \"fine\"\n| a | b |"));
	tg_test_must(tg_store_outcome_get(&o, &cm, c->s, a));
	assert_string_equal(o, "{\"state\": \"success\"}");
	assert_string_equal(cm, "### it's \"fine\"\n| a | b |");
	free(o);
	free(cm);
	tg_test_must(tg_store_outcome_put(c->s, b, "{}", NULL));
	tg_test_must(tg_store_outcome_get(&o, &cm, c->s, b));
	assert_null(cm);
	free(o);
	assert_int_equal(tg_store_outcome_put(c->s, 99999, "{}", NULL), TG_ENOTFOUND);

	/* retention: d1 stays while b names it; d2 went with a, but data newer
	 * than the cutoff stays (a job may be about to list it) */
	run_to_done(c->s, a, "pass", NULL, 0);
	tg_test_must(tg_store_trace_data_put(c->s, d2, 1, 5, 0, "xyz", 3));
	size_t deleted = 0;
	tg_test_must(tg_store_prune(&deleted, c->s, 500));
	assert_int_equal(deleted, 1);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM run_traces"), 1);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM trace_data"), 2);
	tg_test_must(tg_store_prune(&deleted, c->s, 2000));
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM trace_data"), 1); /* d1: b names it */
	tg_test_must(tg_store_trace_data_get(&got, &len, c->s, d1, 2, 0));
	free(got);
}

static void test_strings(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	const char *prefix = "o'brien/\"llm\"/x; DROP TABLE runs; --/train/ci-1";
	const char *branch = "feature/ü-ñ-日本語-🚀";
	const char *workload = "w'1 \"q\" \\ %_";
	const char *manifest = "{\"note\":\"O'Brien \\\"x\\\" \\\\ \\u00e9 ✓\",\"t\":\"\t\"}";
	tg_job j;
	memset(&j, 0, sizeof(j));
	snprintf(j.key, sizeof(j.key), "%064x", 400);
	j.prefix = (char *)prefix;
	j.repo = "o'brien/\"llm\"";
	j.commit = "0123456789abcdef0123456789abcdef01234567";
	j.branch = (char *)branch;
	j.target_branch = "main'; --";
	j.workload = (char *)workload;
	j.run_id = "r\"1'";
	j.manifest = (char *)manifest;
	int64_t id;
	int created;
	tg_test_must(tg_store_job_add(&id, &created, c->s, &j));
	assert_int_equal(created, 1);
	tg_job g;
	tg_test_must(tg_store_job_claim(&g, c->s, "owner 'ü'", 60));
	assert_int_equal(g.id, id);
	tg_job_clear(&g);
	tg_test_must(tg_store_job_advance(c->s, id, "owner 'ü'", TG_JOB_SEEN, TG_JOB_ANALYSING, "warn: 'x' \"y\" — é"));
	tg_job r;
	memset(&r, 0, sizeof(r));
	r.verdict = "pass";
	r.summary = "SDPA −3.2 % 'faster' \"nice\" 🚀";
	r.baseline_distance = 0;
	tg_test_must(tg_store_job_set_result(c->s, id, &r));
	tg_test_must(tg_store_job_get(&g, c->s, id));
	assert_string_equal(g.prefix, prefix);
	assert_string_equal(g.repo, j.repo);
	assert_string_equal(g.branch, branch);
	assert_string_equal(g.target_branch, j.target_branch);
	assert_string_equal(g.workload, workload);
	assert_string_equal(g.run_id, j.run_id);
	assert_string_equal(g.manifest, manifest);
	assert_string_equal(g.error, "warn: 'x' \"y\" — é");
	assert_string_equal(g.summary, r.summary);
	tg_job_clear(&g);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM runs"), 1);

	/* metric names: a prefix is a prefix, not a LIKE pattern */
	tg_metric m[] = {{"a_b:1", 1}, {"axb:1", 2}, {"a%b:1", 3}, {"kernel_time_ms:aten::mm 'x' ü", 4}};
	tg_test_must(tg_store_metrics_put(c->s, id, m, 4));
	tg_test_must(tg_store_job_advance(c->s, id, "owner 'ü'", TG_JOB_ANALYSING, TG_JOB_POSTING, NULL));
	tg_test_must(tg_store_job_advance(c->s, id, "owner 'ü'", TG_JOB_POSTING, TG_JOB_DONE, NULL));
	tg_history_point *p = NULL;
	size_t n = 0;
	tg_test_must(tg_store_history(&p, &n, c->s, j.repo, branch, workload, "a_b*", 0));
	assert_int_equal(n, 1);
	assert_string_equal(p[0].metric, "a_b:1");
	assert_string_equal(p[0].workload, workload);
	tg_history_free(p, n);
	tg_test_must(tg_store_history(&p, &n, c->s, j.repo, branch, NULL, "a%*", 0));
	assert_int_equal(n, 1);
	assert_true(p[0].value == 3);
	tg_history_free(p, n);
	tg_test_must(tg_store_history(&p, &n, c->s, j.repo, branch, NULL, "kernel_time_ms:aten::mm 'x' ü", 0));
	assert_int_equal(n, 1);
	assert_true(p[0].value == 4);
	tg_history_free(p, n);
	tg_test_must(tg_store_history(&p, &n, c->s, j.repo, branch, NULL, "A_B*", 0));
	assert_int_equal(n, 0); /* case matters */
	tg_test_must(tg_store_history(&p, &n, c->s, j.repo, "feature/ü-ñ-日本語-🚀x", NULL, NULL, 0));
	assert_int_equal(n, 0);
	tg_test_must(tg_store_find_run(&g, c->s, j.repo, j.commit, workload, 0));
	assert_int_equal(g.id, id);
	tg_job_clear(&g);
}

/* --------------------------------------------------------- concurrency */

#define NPROC 3
#define NJOBS 60

/* A child: opens its own store, waits for the start, claims until none is
 * left, writes each claimed id to fd. Exit status 0, or 2 on an error. */
static void child_claims(const char *url, int k, int ready_fd, int go_fd, int out_fd)
{
	tg_store *s = NULL;
	if (tg_store_open(&s, url)) {
		fprintf(stderr, "child %d: %s\n", k, tg_error_last());
		_exit(2);
	}
	char owner[32], b = 'r';
	snprintf(owner, sizeof(owner), "proc-%d", k);
	if (write(ready_fd, &b, 1) != 1 || read(go_fd, &b, 1) != 0)
		_exit(2);
	for (;;) {
		tg_job j;
		int rc = tg_store_job_claim(&j, s, owner, 600);
		if (rc == TG_ENOTFOUND)
			break;
		if (rc) {
			fprintf(stderr, "child %d: %s\n", k, tg_error_last());
			_exit(2);
		}
		int64_t id = j.id;
		tg_job_clear(&j);
		usleep(1000); /* the work, so that the others get a turn */
		/* a second write per claim, to contend more */
		if (tg_store_job_advance(s, id, owner, TG_JOB_SEEN, TG_JOB_ANALYSING, NULL)) {
			fprintf(stderr, "child %d: advance: %s\n", k, tg_error_last());
			_exit(2);
		}
		if (write(out_fd, &id, sizeof(id)) != sizeof(id))
			_exit(2);
	}
	tg_store_close(s);
	_exit(0);
}

static void test_concurrent_claims(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_store_debug_set_time(c->s, 0); /* the children use the real clock */
	int64_t ids[NJOBS];
	for (int i = 0; i < NJOBS; i++)
		ids[i] = add_run(c->s, 600 + i, NULL, NULL);

	int ready[2], go[2], out[NPROC][2];
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	pid_t pid[NPROC];
	for (int k = 0; k < NPROC; k++) {
		assert_int_equal(pipe(out[k]), 0);
		fflush(NULL);
		pid[k] = fork();
		assert_true(pid[k] >= 0);
		if (pid[k] == 0) {
			close(ready[0]);
			close(go[1]);
			for (int i = 0; i <= k; i++)
				close(out[i][0]);
			child_claims(c->url, k, ready[1], go[0], out[k][1]);
		}
		close(out[k][1]);
	}
	close(ready[1]);
	close(go[0]);
	char b;
	for (int k = 0; k < NPROC; k++)
		assert_int_equal(read(ready[0], &b, 1), 1);
	close(go[1]); /* all start now */

	int count[NJOBS] = {0}, per[NPROC] = {0}, total = 0;
	for (int k = 0; k < NPROC; k++) {
		int64_t id;
		while (read(out[k][0], &id, sizeof(id)) == sizeof(id)) {
			int found = 0;
			for (int i = 0; i < NJOBS; i++)
				if (ids[i] == id) {
					count[i]++;
					found = 1;
				}
			assert_true(found);
			per[k]++;
			total++;
		}
		close(out[k][0]);
	}
	close(ready[0]);
	for (int k = 0; k < NPROC; k++) {
		int status = 0;
		assert_int_equal(waitpid(pid[k], &status, 0), pid[k]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	print_message("%s: claims per process: %d %d %d\n", c->backend, per[0], per[1], per[2]);
	assert_int_equal(total, NJOBS);
	for (int i = 0; i < NJOBS; i++)
		assert_int_equal(count[i], 1);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM runs WHERE attempts = 1 AND state = 'analysing'"), NJOBS);
}

/* Daemons started together on a new database: each migration is applied
 * once, and every one of them opens. */
static void test_concurrent_open(void **state)
{
	ctx *c = *state;
	NEED(c);
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t pid[NPROC];
	for (int k = 0; k < NPROC; k++) {
		fflush(NULL);
		pid[k] = fork();
		assert_true(pid[k] >= 0);
		if (pid[k] == 0) {
			char b;
			close(go[1]);
			if (read(go[0], &b, 1) != 0)
				_exit(2);
			tg_store *s = NULL;
			if (tg_store_open(&s, c->url)) {
				fprintf(stderr, "child %d: %s\n", k, tg_error_last());
				_exit(2);
			}
			tg_store_close(s);
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int k = 0; k < NPROC; k++) {
		int status = 0;
		assert_int_equal(waitpid(pid[k], &status, 0), pid[k]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM schema_version"), (long long)tg_store_migrations_n);
	c->s = must_open(c);
	add_run(c->s, 900, NULL, NULL);
}

/* A daemon killed (SIGKILL) in the middle of a job and of a transaction:
 * its half-done write vanishes, its locks go with it, and after its lease
 * the job is claimed again where it was. */
static void test_killed_daemon(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	tg_store_debug_set_time(c->s, 0);
	int64_t id = add_run(c->s, 950, NULL, NULL);
	int64_t other = add_run(c->s, 951, NULL, NULL);
	int sig[2];
	assert_int_equal(pipe(sig), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sig[0]);
		tg_store *s = NULL;
		tg_job j;
		char sql[256];
		if (tg_store_open(&s, c->url) || tg_store_job_claim(&j, s, "victim", 30) || j.id != id ||
		    tg_store_job_advance(s, id, "victim", TG_JOB_SEEN, TG_JOB_ANALYSING, NULL))
			_exit(2);
		/* a write lock (SQLite) or a row lock (PostgreSQL) held, uncommitted */
		snprintf(sql, sizeof(sql), "%s UPDATE runs SET summary = 'half' WHERE id = %lld",
		         is_pg(c) ? "BEGIN;" : "BEGIN IMMEDIATE;", (long long)id);
		if (tg_store_debug_exec(s, sql))
			_exit(2);
		char b = 'k';
		if (write(sig[1], &b, 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(sig[1]);
	char b = 0;
	ssize_t got = read(sig[0], &b, 1);
	close(sig[0]);
	kill(pid, SIGKILL);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(got, 1);
	assert_true(WIFSIGNALED(status));

	/* a write on the row waits for the dead one's lock, then goes through */
	tg_job r;
	memset(&r, 0, sizeof(r));
	r.baseline_distance = -1;
	tg_test_must(tg_store_job_set_result(c->s, id, &r));
	tg_job j;
	tg_test_must(tg_store_job_get(&j, c->s, id));
	assert_int_equal(j.state, TG_JOB_ANALYSING); /* committed before the kill */
	assert_int_equal(j.attempts, 1);
	assert_null(j.summary); /* never committed */
	tg_job_clear(&j);
	/* inside its lease, only the other job can be claimed */
	tg_test_must(tg_store_job_claim(&j, c->s, "heir", 30));
	assert_int_equal(j.id, other);
	tg_job_clear(&j);
	tg_store_debug_set_time(c->s, (int64_t)time(NULL) + 31);
	tg_test_must(tg_store_job_claim(&j, c->s, "heir", 30));
	assert_int_equal(j.id, id);
	assert_int_equal(j.state, TG_JOB_ANALYSING);
	assert_int_equal(j.attempts, 2);
	tg_job_clear(&j);
	tg_test_must(tg_store_job_advance(c->s, id, "heir", TG_JOB_ANALYSING, TG_JOB_POSTING, NULL));
}

/* --------------------------------------------------------------- faults */

static void test_write_faults(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	int64_t id = add_run(c->s, 700, NULL, NULL);
	tg_metric two[] = {{"gpu_busy_ms", 1}, {"kernel_time_ms:GEMM", 2}};
	tg_test_must(tg_store_metrics_put(c->s, id, two, 2));
	tg_job j;
	enum { NBIG = 3000 };
	tg_metric *big = calloc(NBIG, sizeof(*big));
	char(*names)[64] = calloc(NBIG, 64);
	assert_non_null(big);
	assert_non_null(names);
	for (int i = 0; i < NBIG; i++) {
		snprintf(names[i], 64, "kernel_time_ms:some_rather_long_kernel_%05d", i);
		big[i].name = names[i];
		big[i].value = i;
	}

	if (!is_pg(c)) {
		/* a full disk: the file may not grow */
		tg_test_must(tg_store_debug_exec(c->s, "PRAGMA max_page_count = 1"));
		char *manifest = malloc(256 * 1024);
		assert_non_null(manifest);
		memset(manifest, 'x', 256 * 1024 - 1);
		manifest[256 * 1024 - 1] = '\0';
		tg_job big_job;
		memset(&big_job, 0, sizeof(big_job));
		snprintf(big_job.key, sizeof(big_job.key), "%064x", 701);
		big_job.prefix = big_job.repo = big_job.commit = big_job.branch = big_job.workload = big_job.run_id = "x";
		big_job.manifest = manifest;
		int64_t bid = 0;
		int created = 0;
		assert_int_equal(tg_store_job_add(&bid, &created, c->s, &big_job), TG_EIO);
		assert_non_null(strstr(tg_error_last(), "full"));
		assert_int_equal(bid, 0);
		assert_int_equal(tg_store_metrics_put(c->s, id, big, NBIG), TG_EIO);
		assert_non_null(strstr(tg_error_last(), "full"));
		/* the failed put changed nothing; reads still work */
		assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM metrics"), 2);
		tg_test_must(tg_store_job_get(&j, c->s, id));
		tg_job_clear(&j);
		/* space again: the same calls succeed */
		tg_test_must(tg_store_debug_exec(c->s, "PRAGMA max_page_count = 1073741823"));
		tg_test_must(tg_store_job_add(&bid, &created, c->s, &big_job));
		assert_int_equal(created, 1);
		tg_test_must(tg_store_metrics_put(c->s, id, big, NBIG));
		assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM metrics"), NBIG);

		/* a read-only file (as root a chmod would not stop us): SQLite's
		 * read-only mode through a file: URI */
		tg_store *ro = NULL;
		char url[4200];
		snprintf(url, sizeof(url), "sqlite:file:%s?mode=ro", c->path);
		if (tg_store_open(&ro, url))
			fail_msg("read-only open: %s", tg_error_last());
		tg_test_must(tg_store_job_get(&j, ro, id));
		tg_job_clear(&j);
		int64_t rid = 0;
		/* a known run is found without a write; a new one needs one */
		tg_test_must(tg_store_job_add(&rid, &created, ro, &big_job));
		assert_int_equal(rid, bid);
		assert_int_equal(created, 0);
		tg_job new_job = big_job;
		snprintf(new_job.key, sizeof(new_job.key), "%064x", 0x5eed);
		assert_int_equal(tg_store_job_add(&rid, &created, ro, &new_job), TG_EIO);
		assert_non_null(strstr(tg_error_last(), "readonly"));
		assert_int_equal(tg_store_job_claim(&j, ro, "A", 60), TG_EIO);
		assert_int_equal(tg_store_metrics_put(ro, id, two, 2), TG_EIO);
		tg_store_close(ro);
		free(manifest);
	}

	/* a read-only connection (PostgreSQL: like a hot standby) */
	tg_test_must(tg_store_debug_exec(c->s, is_pg(c) ? "SET default_transaction_read_only = on" : "PRAGMA query_only = ON"));
	int64_t nid = 0;
	int created = 0;
	tg_job nj;
	memset(&nj, 0, sizeof(nj));
	snprintf(nj.key, sizeof(nj.key), "%064x", 702);
	nj.prefix = nj.repo = nj.commit = nj.branch = nj.workload = nj.run_id = nj.manifest = "y";
	assert_int_equal(tg_store_job_add(&nid, &created, c->s, &nj), TG_EIO);
	assert_non_null(strstr(tg_error_last(), is_pg(c) ? "read-only" : "readonly"));
	assert_int_equal(tg_store_job_claim(&j, c->s, "A", 60), TG_EIO);
	assert_int_equal(tg_store_metrics_put(c->s, id, two, 2), TG_EIO);
	assert_int_equal(tg_store_prune(NULL, c->s, T0), TG_EIO);
	tg_test_must(tg_store_job_get(&j, c->s, id));
	tg_job_clear(&j);
	tg_test_must(tg_store_debug_exec(c->s, is_pg(c) ? "SET default_transaction_read_only = off" : "PRAGMA query_only = OFF"));
	tg_test_must(tg_store_job_add(&nid, &created, c->s, &nj));
	assert_int_equal(created, 1);
	tg_test_must(tg_store_job_claim(&j, c->s, "A", 60));
	assert_int_equal(j.id, id);
	tg_job_clear(&j);
	free(big);
	free(names);
}

/* A file-size limit (ulimit -f, systemd's LimitFSIZE=) with SIGXFSZ
 * ignored, as the daemon does (cmd_daemon.c): a write past the limit fails
 * with EFBIG, which the store reports as TG_EIO, and once the limit is
 * lifted the same store goes on. In a child process: the limit is the
 * process's. Exit codes: 0 as expected, 1 never failed, 2 not TG_EIO,
 * 3 not usable again, 4 the failed job was half-written, 5 setup. */
static void test_file_size_limit(void **state)
{
	ctx *c = *state;
	NEED(c);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		tg_store *s = NULL;
		if (tg_store_open(&s, c->url))
			_exit(5);
		struct rlimit rl;
		getrlimit(RLIMIT_FSIZE, &rl);
		/* the migrations leave ~105 KiB of WAL: room for a few runs */
		struct rlimit small = {152 * 1024, rl.rlim_max};
		if (setrlimit(RLIMIT_FSIZE, &small))
			_exit(5);
		tg_metric m[40];
		char names[40][48];
		for (int k = 0; k < 40; k++) {
			snprintf(names[k], sizeof(names[k]), "kernel_time_ms:category_%02d", k);
			m[k].name = names[k];
			m[k].value = k;
		}
		int failed_at = -1, code = 0;
		for (int i = 1; i <= 2000 && failed_at < 0; i++) {
			tg_job j;
			memset(&j, 0, sizeof(j));
			char prefix[64];
			snprintf(j.key, sizeof(j.key), "%064x", i);
			snprintf(prefix, sizeof(prefix), "acme/llm/x/train/ci-%d", i);
			j.prefix = prefix;
			j.repo = "acme/llm";
			j.commit = j.branch = j.workload = j.run_id = "x";
			j.manifest = "{\"schema\":\"tracegate.run/1\"}";
			int64_t id = 0;
			int created = 0;
			int rc = tg_store_job_add(&id, &created, s, &j);
			if (!rc)
				rc = tg_store_metrics_put(s, id, m, 40);
			if (rc) {
				failed_at = i;
				code = rc;
			}
		}
		if (failed_at < 0)
			_exit(1);
		if (code != TG_EIO || !strstr(tg_error_last(), "disk I/O error"))
			_exit(2);
		/* space again: the same run is added (or found) and its metrics put */
		setrlimit(RLIMIT_FSIZE, &rl);
		tg_job j;
		memset(&j, 0, sizeof(j));
		char prefix[64];
		snprintf(j.key, sizeof(j.key), "%064x", failed_at);
		snprintf(prefix, sizeof(prefix), "acme/llm/x/train/ci-%d", failed_at);
		j.prefix = prefix;
		j.repo = "acme/llm";
		j.commit = j.branch = j.workload = j.run_id = "x";
		j.manifest = "{}";
		int64_t id = 0;
		int created = 0;
		if (tg_store_job_add(&id, &created, s, &j) || tg_store_metrics_put(s, id, m, 40))
			_exit(3);
		tg_store_close(s);
		_exit(0);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* every run but none half-written: each has its 40 metrics */
	c->s = must_open(c);
	long long runs = raw_sql(c, "SELECT COUNT(*) FROM runs");
	assert_true(runs > 1);
	assert_int_equal(raw_sql(c, "SELECT COUNT(*) FROM metrics"), runs * 40);
}

/* ----------------------------------------------------------- PostgreSQL */

/* The url of TG_TEST_PG_URL's server with another user, a password and a
 * database that does not exist. */
static void pg_url_with_password(const ctx *c, char *out, size_t size)
{
	char *err = NULL;
	PQconninfoOption *o = PQconninfoParse(c->url, &err);
	const char *host = "127.0.0.1", *port = "5432";
	for (PQconninfoOption *p = o; p && p->keyword; p++) {
		if (!strcmp(p->keyword, "host") && p->val && *p->val)
			host = p->val;
		if (!strcmp(p->keyword, "port") && p->val && *p->val)
			port = p->val;
	}
	snprintf(out, size, "postgresql://nobody_here:%s@%s:%s/tg_no_such_db", SECRET, host, port);
	PQconninfoFree(o);
	PQfreemem(err);
}

static void test_pg_password_hidden(void **state)
{
	(void)state;
	/* nothing listens on port 1: connect fails, and says where */
	static const char *const urls[] = {
		"postgresql://tguser:" SECRET "@127.0.0.1:1/tgdb?connect_timeout=3",
		"postgres://tguser:" SECRET "@127.0.0.1:1/tgdb",
		"host=127.0.0.1 port=1 dbname=tgdb user=tguser password=" SECRET " connect_timeout=3",
	};
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		tg_store *s = (tg_store *)1;
		assert_int_equal(tg_store_open(&s, urls[i]), TG_EIO);
		assert_null(s);
		const char *msg = tg_error_last();
		assert_null(strstr(msg, SECRET));
		assert_non_null(strstr(msg, "postgresql://127.0.0.1:1/tgdb"));
	}
	/* a string libpq cannot parse is not echoed */
	tg_store *s = NULL;
	assert_int_equal(tg_store_open(&s, "postgresql://u:" SECRET "@127.0.0.1:1/db?no_such_option=" SECRET), TG_EINVAL);
	assert_null(strstr(tg_error_last(), SECRET));
	assert_int_equal(tg_store_open(&s, "host=127.0.0.1 password " SECRET), TG_EINVAL);
	assert_null(strstr(tg_error_last(), SECRET));

	/* a real server refusing us: its message has no password either */
	if (pg_ctx.available) {
		char url[4400];
		pg_url_with_password(&pg_ctx, url, sizeof(url));
		assert_int_equal(tg_store_open(&s, url), TG_EIO);
		assert_null(strstr(tg_error_last(), SECRET));
		assert_non_null(strstr(tg_error_last(), "tg_no_such_db"));
	}
}

/* A password of one or two characters is masked too, and masking it
 * everywhere it occurs in a long message (each "e" of it becomes "***")
 * stays inside the message's buffer (it overflowed the stack: issue 14). */
static void test_pg_short_password(void **state)
{
	(void)state;
	char host[400], url[600];
	memset(host, 'e', 300);
	snprintf(host + 300, sizeof(host) - 300, ".invalid");
	for (int pl = 1; pl <= 2; pl++) {
		snprintf(url, sizeof(url), "postgresql://u:%.*s@%s:1/db?connect_timeout=2", pl, "ee", host);
		tg_store *s = (tg_store *)1;
		int rc = tg_store_open(&s, url);
		assert_true(rc == TG_EIO || rc == TG_EINVAL);
		assert_null(s);
		const char *msg = tg_error_last();
		assert_true(strlen(msg) < 1200);
		/* libpq's message quotes the host: its e's were masked */
		assert_non_null(strstr(msg, "******"));
		assert_int_equal(msg[strlen(msg) - 1] != '\n', 1);
	}
}

/* Runs sql on an admin connection; 0 or -1 (the message printed). */
static int pg_admin(PGconn *conn, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	int ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
	if (!ok)
		print_message("%s: %s", sql, PQresultErrorMessage(res));
	PQclear(res);
	return ok ? 0 : -1;
}

static void test_pg_reconnect(void **state)
{
	ctx *c = *state;
	NEED(c);
	c->s = must_open(c);
	int64_t id = add_run(c->s, 800, NULL, NULL);
	/* the server drops the connection: the next call reconnects */
	assert_int_equal(tg_store_debug_exec(c->s, "SELECT pg_terminate_backend(pg_backend_pid())"), TG_EIO);
	tg_job j;
	tg_test_must(tg_store_job_get(&j, c->s, id));
	assert_int_equal(j.id, id);
	tg_job_clear(&j);
	assert_int_equal(tg_store_debug_exec(c->s, "SELECT pg_terminate_backend(pg_backend_pid())"), TG_EIO);
	tg_test_must(tg_store_job_claim(&j, c->s, "A", 60)); /* a transaction, run whole again */
	assert_int_equal(j.id, id);
	assert_int_equal(j.attempts, 1);
	tg_job_clear(&j);

	/* the reconnect fails too (the database takes no connections): TG_EIO,
	 * and the store works again once it does. The switch is thrown from
	 * another database of the server ("postgres"). */
	char *err = NULL, *db = NULL;
	PQconninfoOption *o = PQconninfoParse(c->url, &err);
	for (PQconninfoOption *q = o; q && q->keyword; q++)
		if (!strcmp(q->keyword, "dbname") && q->val)
			db = strdup(q->val);
	PQconninfoFree(o);
	PQfreemem(err);
	const char *keys[] = {"dbname", "dbname", NULL}, *vals[] = {c->url, "postgres", NULL};
	PGconn *admin = PQconnectdbParams(keys, vals, 1);
	char off[512] = "", on[512] = "";
	if (db && PQstatus(admin) == CONNECTION_OK) {
		char *ident = PQescapeIdentifier(admin, db, strlen(db));
		snprintf(off, sizeof(off), "ALTER DATABASE %s ALLOW_CONNECTIONS false", ident);
		snprintf(on, sizeof(on), "ALTER DATABASE %s ALLOW_CONNECTIONS true", ident);
		PQfreemem(ident);
	}
	free(db);
	if (!off[0] || pg_admin(admin, off)) {
		PQfinish(admin);
		print_message("SKIPPED part: cannot switch connections to the database off from \"postgres\"\n");
		return;
	}
	int rc_term = tg_store_debug_exec(c->s, "SELECT pg_terminate_backend(pg_backend_pid())");
	int rc_down = tg_store_job_get(&j, c->s, id);
	char msg[1024];
	snprintf(msg, sizeof(msg), "%s", tg_error_last());
	int rc_again = tg_store_job_renew(c->s, id, "A", 60);
	int restored = pg_admin(admin, on);
	PQfinish(admin);
	assert_int_equal(restored, 0);
	assert_int_equal(rc_term, TG_EIO);
	assert_int_equal(rc_down, TG_EIO);
	assert_int_equal(rc_again, TG_EIO);
	print_message("while down: %s\n", msg);
	assert_non_null(strstr(msg, "reconnect failed"));
	assert_null(strstr(msg, SECRET));
	tg_test_must(tg_store_job_renew(c->s, id, "A", 60));
	tg_test_must(tg_store_job_get(&j, c->s, id));
	assert_int_equal(j.attempts, 1);
	tg_job_clear(&j);
}

/* ----------------------------------------------------------------- main */

#define STORE_TESTS(X)                                                                                 \
	X(test_open_migrate_reopen)                                                                        \
	X(test_migrate_from_v1) X(test_newer_schema_refused) X(test_add_idempotent) X(test_claim_and_renew) \
	X(test_lost_lease) X(test_leases) X(test_transitions) X(test_set_result) X(test_jobs_list)                        \
	X(test_metrics_and_history) X(test_history_prs) X(test_count_jobs) X(test_branches) X(test_find_run)              \
	X(test_run_counts) X(test_pool_and_tampered) \
	X(test_pr_runs_and_rejudge) X(test_prune) X(test_run_data) X(test_strings)                          \
	X(test_concurrent_claims) X(test_concurrent_open) X(test_killed_daemon) X(test_write_faults)

#define ON_SQLITE(f) cmocka_unit_test_prestate_setup_teardown(f, setup, teardown, &sqlite_ctx),
#define ON_PG(f) cmocka_unit_test_prestate_setup_teardown(f, setup, teardown, &pg_ctx),

int main(void)
{
	const char *url = getenv("TG_TEST_PG_URL");
	pg_ctx.available = url && *url;
	if (pg_ctx.available)
		snprintf(pg_ctx.url, sizeof(pg_ctx.url), "%s", url);
	const struct CMUnitTest sqlite_tests[] = {STORE_TESTS(ON_SQLITE) ON_SQLITE(test_file_size_limit)};
	const struct CMUnitTest pg_tests[] = {STORE_TESTS(ON_PG) ON_PG(test_pg_reconnect)};
	const struct CMUnitTest common_tests[] = {cmocka_unit_test(test_pg_password_hidden),
	                                          cmocka_unit_test(test_pg_short_password)};
	int failed = 0;
	failed += cmocka_run_group_tests_name("store_sqlite", sqlite_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("store_postgresql", pg_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("store_common", common_tests, NULL, NULL);
	return failed ? 1 : 0;
}
