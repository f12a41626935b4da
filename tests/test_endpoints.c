/*
 * test_endpoints.c - the daemon's HTTP endpoints (daemon/metrics/
 * endpoints.c) on a real socket, asked with libcurl: each path's status,
 * type and body as the health state and the registry give them, HEAD,
 * 404, 405 with Allow, a request body refused, a long request refused,
 * idle and extra connections cut while others are still served, a taken
 * port named, and nothing left open after a stop.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/metrics/endpoints.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

static const tg_metrics_family fams[] = {
	{"t_runs_total", "Runs.", TG_METRICS_COUNTER, {NULL, NULL}, NULL, 0},
};

struct got {
	long status;
	char body[65536];
	size_t len;
	char type[128];
	char allow[64];
};

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	struct got *g = ud;
	size_t k = size * n;
	if (g->len + k < sizeof(g->body)) {
		memcpy(g->body + g->len, p, k);
		g->len += k;
		g->body[g->len] = 0;
	}
	return k;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	struct got *g = ud;
	size_t k = size * n;
	if (!strncasecmp(p, "Content-Type: ", 14))
		snprintf(g->type, sizeof(g->type), "%.*s", (int)(k - 16), p + 14);
	if (!strncasecmp(p, "Allow: ", 7))
		snprintf(g->allow, sizeof(g->allow), "%.*s", (int)(k - 9), p + 7);
	return k;
}

/* method on http://127.0.0.1:port/path (body: a request body or NULL);
 * returns curl's code, *g the answer. */
static CURLcode ask(struct got *g, int port, const char *method, const char *path, const char *body)
{
	memset(g, 0, sizeof(*g));
	char url[70000];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, g);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, g);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(method, "GET"))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	CURLcode rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &g->status);
	curl_easy_cleanup(c);
	return rc;
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

struct fixture {
	tg_metrics *m;
	tg_health *h;
	tg_endpoints *e;
	int port;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (tg_metrics_new(&f->m, fams, 1) || tg_health_new(&f->h, NULL))
		return -1;
	tg_endpoints_opts o = {"127.0.0.1", 0, f->m, f->h, 1};
	if (tg_endpoints_start(&f->e, &o))
		return -1;
	f->port = tg_endpoints_port(f->e);
	*state = f;
	return f->port > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	tg_endpoints_stop(f->e);
	tg_health_free(f->h);
	tg_metrics_free(f->m);
	free(f);
	return 0;
}

static void test_paths(void **state)
{
	struct fixture *f = *state;
	struct got g;
	assert_int_equal(ask(&g, f->port, "GET", "/healthz", NULL), CURLE_OK);
	assert_int_equal(g.status, 200);
	assert_string_equal(g.type, "text/plain; charset=utf-8");
	assert_true(!strncmp(g.body, "ok: the loop moved ", 19));
	assert_int_equal(ask(&g, f->port, "GET", "/readyz", NULL), CURLE_OK);
	assert_int_equal(g.status, 503);
	assert_string_equal(g.body, "starting\n");
	tg_health_ready(f->h, 1, NULL);
	assert_int_equal(ask(&g, f->port, "GET", "/readyz", NULL), CURLE_OK);
	assert_int_equal(g.status, 200);
	assert_string_equal(g.body, "ready\n");
	tg_health_store(f->h, 0, "store: gone");
	assert_int_equal(ask(&g, f->port, "GET", "/healthz", NULL), CURLE_OK);
	assert_int_equal(g.status, 503);
	assert_string_equal(g.body, "the job store does not answer: store: gone\n");

	tg_metrics_add(f->m, 0, NULL, NULL, 41);
	tg_metrics_add(f->m, 0, NULL, NULL, 1);
	assert_int_equal(ask(&g, f->port, "GET", "/metrics?x=1", NULL), CURLE_OK);
	assert_int_equal(g.status, 200);
	assert_string_equal(g.type, "text/plain; version=0.0.4; charset=utf-8");
	assert_string_equal(g.body, "# HELP t_runs_total Runs.\n# TYPE t_runs_total counter\nt_runs_total 42\n");
	assert_int_equal(ask(&g, f->port, "HEAD", "/metrics", NULL), CURLE_OK);
	assert_int_equal(g.status, 200);
	assert_int_equal(g.len, 0);
}

static void test_refused(void **state)
{
	struct fixture *f = *state;
	struct got g;
	assert_int_equal(ask(&g, f->port, "GET", "/", NULL), CURLE_OK);
	assert_int_equal(g.status, 404);
	assert_int_equal(ask(&g, f->port, "GET", "/metrics/", NULL), CURLE_OK);
	assert_int_equal(g.status, 404);
	assert_int_equal(ask(&g, f->port, "GET", "/../etc/passwd", NULL), CURLE_OK);
	assert_int_equal(g.status, 404);
	assert_int_equal(ask(&g, f->port, "DELETE", "/metrics", NULL), CURLE_OK);
	assert_int_equal(g.status, 405);
	assert_string_equal(g.allow, "GET, HEAD");
	/* a body is not read: refused with the answer */
	char big[200000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	ask(&g, f->port, "POST", "/healthz", big);
	assert_int_equal(g.status, 405);
	/* a request line over the 16 KiB a connection may hold */
	char path[60000] = "/metrics?";
	memset(path + 9, 'q', sizeof(path) - 10);
	path[sizeof(path) - 1] = 0;
	ask(&g, f->port, "GET", path, NULL);
	if (!(g.status == 414 || g.status == 431 || g.status == 0))
		fail_msg("a 60 KB request line: HTTP %ld", g.status);
	/* served as before */
	assert_int_equal(ask(&g, f->port, "GET", "/healthz", NULL), CURLE_OK);
	assert_int_equal(g.status, 200);
}

static int connect_idle(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* 1 when the server closed fd within ms (read gives 0 or an error). */
static int closed_within(int fd, int ms)
{
	struct pollfd p = {fd, POLLIN, 0};
	if (poll(&p, 1, ms) <= 0)
		return 0;
	char c;
	return read(fd, &c, 1) <= 0;
}

static void test_connections(void **state)
{
	struct fixture *f = *state;
	/* eight idle connections from one address: a ninth is closed at once */
	int fd[9];
	for (int i = 0; i < 9; i++)
		assert_true((fd[i] = connect_idle(f->port)) >= 0);
	assert_true(closed_within(fd[8], 2000));
	/* the idle ones are closed after idle_timeout_s (1 s here) */
	for (int i = 0; i < 8; i++)
		assert_true(closed_within(fd[i], 4000));
	for (int i = 0; i < 9; i++)
		close(fd[i]);
	/* served again once the server has let them go (its next turn) */
	struct got g;
	CURLcode rc = CURLE_RECV_ERROR;
	for (int tries = 0; tries < 40 && rc != CURLE_OK; tries++) {
		if ((rc = ask(&g, f->port, "GET", "/healthz", NULL)) != CURLE_OK)
			usleep(50000);
	}
	assert_int_equal(rc, CURLE_OK);
	assert_int_equal(g.status, 200);
	/* one that sends half a request and stalls is cut too */
	int s = connect_idle(f->port);
	assert_true(s >= 0);
	assert_int_equal(write(s, "GET /metrics HTTP/1.1\r\nHost: x\r\n", 32), 32);
	assert_true(closed_within(s, 4000));
	close(s);
}

static void test_start_stop(void **state)
{
	(void)state;
	tg_metrics *m = NULL;
	tg_health *h = NULL;
	tg_test_must(tg_metrics_new(&m, fams, 1));
	tg_test_must(tg_health_new(&h, NULL));
	int before = open_fds();
	tg_endpoints *a = NULL, *b = NULL;
	tg_endpoints_opts o = {"127.0.0.1", 0, m, h, 0};
	tg_test_must(tg_endpoints_start(&a, &o));
	int port = tg_endpoints_port(a);
	/* the port taken: named, with why */
	o.port = port;
	assert_int_equal(tg_endpoints_start(&b, &o), TG_EIO);
	assert_null(b);
	char want[128];
	snprintf(want, sizeof(want), "daemon.listen 127.0.0.1:%d: cannot listen: Address already in use", port);
	assert_string_equal(tg_error_last(), want);
	tg_endpoints_stop(a);
	assert_int_equal(open_fds(), before);
	/* the port is free again */
	tg_test_must(tg_endpoints_start(&a, &o));
	assert_int_equal(tg_endpoints_port(a), port);
	tg_endpoints_stop(a);
	/* IPv6 loopback */
	o.host = "::1";
	o.port = 0;
	if (!tg_endpoints_start(&a, &o)) {
		assert_true(tg_endpoints_port(a) > 0);
		tg_endpoints_stop(a);
	}
	o.host = "localhost";
	assert_int_equal(tg_endpoints_start(&a, &o), TG_EINVAL);
	assert_string_equal(tg_error_last(), "daemon.listen: 'localhost' is not an IP address");
	o.host = "192.0.2.1"; /* TEST-NET: not this host's */
	assert_int_equal(tg_endpoints_start(&a, &o), TG_EIO);
	assert_non_null(strstr(tg_error_last(), "cannot listen: Cannot assign requested address"));
	assert_int_equal(open_fds(), before);
	tg_endpoints_stop(NULL);
	tg_health_free(h);
	tg_metrics_free(m);
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connections, setup, teardown),
		cmocka_unit_test(test_start_stop),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
