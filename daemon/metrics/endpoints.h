/*
 * endpoints.h - the daemon's HTTP endpoints (daemon.listen), served by
 * libmicrohttpd in a thread of its own:
 *
 *   GET /healthz   200 "ok: ..." when the loop is alive and the store
 *                  answers, else 503 with the reason (health.h)
 *   GET /readyz    200 "ready" once the daemon has started, else 503 with
 *                  the reason ("starting: ...", "stopping")
 *   GET /metrics   the registry in Prometheus's text format (metrics.h)
 *
 * HEAD as GET without the body; any other method 405 (Allow: GET, HEAD),
 * any other path 404. Nothing a client does reaches the job machine: the
 * handlers only read the health state and copy the registry, each under
 * its mutex for microseconds. The server cannot be made to hold the
 * daemon or grow without end: one polling thread (no thread per
 * connection), at most 32 connections (8 per address), 10 s of idleness
 * per connection, 16 KiB of request per connection (a longer request line
 * or headers: 431/414 by libmicrohttpd), request bodies refused.
 */
#ifndef TG_ENDPOINTS_H
#define TG_ENDPOINTS_H

#include "health.h"
#include "metrics.h"

typedef struct tg_endpoints tg_endpoints;

typedef struct tg_endpoints_opts {
	const char *host;        /* a numeric IPv4 or IPv6 address ("127.0.0.1", "::1", "0.0.0.0") */
	int port;                /* 1..65535; 0: any free port (tests; tg_endpoints_port says which) */
	tg_metrics *metrics;     /* borrowed: must outlive the server */
	tg_health *health;       /* borrowed: must outlive the server */
	unsigned idle_timeout_s; /* a connection idle this long is closed; 0: 10 */
} tg_endpoints_opts;

/* Starts serving on host:port. Returns 0, or TG_EINVAL (not an address),
 * TG_EIO (the port is taken, no permission: "daemon.listen 127.0.0.1:9464:
 * cannot listen: Address already in use"), TG_ENOMEM. *out is stopped and
 * freed with tg_endpoints_stop. */
int tg_endpoints_start(tg_endpoints **out, const tg_endpoints_opts *opts);

/* The port served (the one chosen for port 0). */
int tg_endpoints_port(const tg_endpoints *e);

/* Stops serving (open connections are closed) and frees e; NULL is fine. */
void tg_endpoints_stop(tg_endpoints *e);

#endif
