/*
 * endpoints.c - /healthz, /readyz and /metrics over libmicrohttpd
 * (endpoints.h).
 *
 * The listening socket is made here (socket, bind, listen) and handed to
 * libmicrohttpd: so a taken port or a refused address is an error that
 * says why (errno), which MHD_start_daemon's NULL would not, and port 0
 * can say which port it got. One internal polling thread serves every
 * connection (MHD_USE_INTERNAL_POLLING_THREAD with epoll or poll, never a
 * thread per connection); its limits are endpoints.h's.
 */
#include "endpoints.h"
#include "../../util/tg.h"
#include "../../util/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNECTIONS 32
#define MAX_PER_ADDRESS 8
#define IDLE_TIMEOUT_S 10
#define REQUEST_MEMORY (16 * 1024)

struct tg_endpoints {
	struct MHD_Daemon *mhd;
	int fd;
	int port;
	tg_metrics *metrics;
	tg_health *health;
};

/* Queues a response of status with body (copied), as text/plain or the
 * exposition format's type. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body, size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	char line[600];
	int n = snprintf(line, sizeof(line), "%s\n", text);
	size_t len = n < 0 ? 0 : (size_t)n >= sizeof(line) ? sizeof(line) - 1 : (size_t)n;
	return reply(c, status, line, len, "text/plain; charset=utf-8");
}

static enum MHD_Result serve_metrics(struct MHD_Connection *c, tg_endpoints *e)
{
	char *text = NULL;
	size_t len = 0;
	if (tg_metrics_write(&text, &len, e->metrics))
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	enum MHD_Result r = reply(c, MHD_HTTP_OK, text, len, "text/plain; version=0.0.4; charset=utf-8");
	free(text);
	return r;
}

/* libmicrohttpd's request handler: called first when the headers are in
 * (*con_cls NULL); every answer is queued then, so that no request body
 * is read (a body is refused with the answer and the connection closed). */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	tg_endpoints *e = cls;
	int known = !strcmp(url, "/healthz") || !strcmp(url, "/readyz") || !strcmp(url, "/metrics");
	if (!known)
		return reply_text(c, MHD_HTTP_NOT_FOUND,
		                  "not found: this is tracegate's /healthz, /readyz and /metrics");
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: GET or HEAD");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(c, e);
	char why[512];
	int ok = !strcmp(url, "/healthz") ? tg_health_live(why, sizeof(why), e->health)
	                                  : tg_health_is_ready(why, sizeof(why), e->health);
	return reply_text(c, ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, why);
}

/* libmicrohttpd's own complaints (a malformed request, a full table of
 * connections): debug lines, since any client can cause them. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	size_t n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = 0;
	tg_log(TG_LOG_DEBUG, "endpoints: %s", msg);
}

/* The listening socket on host:port (*fd), its port in *port. */
static int listen_on(int *fd, int *port, const char *host, int want)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	socklen_t sl;
	if (want < 0 || want > 65535)
		return tg_error_set(TG_EINVAL, "daemon.listen: port %d is out of range", want);
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)want);
		sl = sizeof(*v4);
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)want);
		sl = sizeof(*v6);
	} else {
		return tg_error_set(TG_EINVAL, "daemon.listen: '%s' is not an IP address", host);
	}
	*fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return tg_error_set(TG_EIO, "daemon.listen %s:%d: socket: %s", host, want, strerror(errno));
	int one = 1;
	setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(*fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(*fd, (struct sockaddr *)&ss, sl) || listen(*fd, 16)) {
		int err = errno;
		close(*fd);
		*fd = -1;
		return tg_error_set(TG_EIO, "daemon.listen %s:%d: cannot listen: %s", host, want, strerror(err));
	}
	sl = sizeof(ss);
	getsockname(*fd, (struct sockaddr *)&ss, &sl);
	*port = ntohs(ss.ss_family == AF_INET6 ? v6->sin6_port : v4->sin_port);
	return 0;
}

int tg_endpoints_start(tg_endpoints **out, const tg_endpoints_opts *opts)
{
	*out = NULL;
	tg_endpoints *e = tg_calloc(1, sizeof(*e));
	if (!e)
		return TG_ENOMEM;
	e->metrics = opts->metrics;
	e->health = opts->health;
	int rc = listen_on(&e->fd, &e->port, opts->host ? opts->host : "127.0.0.1", opts->port);
	if (rc) {
		free(e);
		return rc;
	}
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	e->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, e, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
	                          MHD_OPTION_LISTEN_SOCKET, (MHD_socket)e->fd, MHD_OPTION_CONNECTION_LIMIT,
	                          (unsigned)MAX_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	                          (unsigned)MAX_PER_ADDRESS, MHD_OPTION_CONNECTION_TIMEOUT,
	                          opts->idle_timeout_s ? opts->idle_timeout_s : (unsigned)IDLE_TIMEOUT_S,
	                          MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY, MHD_OPTION_END);
	if (!e->mhd) {
		close(e->fd);
		free(e);
		return tg_error_set(TG_EIO, "daemon.listen: libmicrohttpd cannot start its thread");
	}
	*out = e;
	return 0;
}

int tg_endpoints_port(const tg_endpoints *e)
{
	return e ? e->port : 0;
}

void tg_endpoints_stop(tg_endpoints *e)
{
	if (!e)
		return;
	MHD_stop_daemon(e->mhd); /* closes the listening socket it was given */
	free(e);
}
