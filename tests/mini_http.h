/*
 * mini_http.h - a scripted HTTP/1.1 server on 127.0.0.1 in a thread, for
 * the HTTP and forge tests that must pass in `make check` without node:
 * it answers each request with the next scripted response (status, extra
 * header lines, body, optional delay) and records what it was sent, so a
 * test can assert on the method, target, headers and body of every call.
 *
 * Written by hand because no library in the project's list serves HTTP;
 * it is test-only and knows just enough HTTP for libcurl (Content-Length
 * bodies, Connection: close).
 */
#ifndef TG_MINI_HTTP_H
#define TG_MINI_HTTP_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MH_MAX 64

typedef struct mh_resp {
	int status;
	char *headers; /* "Name: value\r\n" lines, or NULL */
	char *body;
	int delay_ms;  /* before answering */
} mh_resp;

typedef struct mh_req {
	char method[16];
	char target[2048]; /* path and query */
	char *headers;     /* the header block, lines ending "\r\n" */
	char *body;
	size_t len;
} mh_req;

typedef struct mh_server {
	int fd, port;
	char base[64]; /* "http://127.0.0.1:PORT" */
	pthread_t th;
	pthread_mutex_t mu;
	mh_resp q[MH_MAX];
	int nq, next;
	mh_req reqs[MH_MAX];
	int nreqs;
	volatile int stop;
} mh_server;

/* Queues a response; fmt-free: strings are copied. */
static inline void mh_push(mh_server *s, int status, const char *headers, const char *body)
{
	pthread_mutex_lock(&s->mu);
	if (s->nq < MH_MAX) {
		mh_resp *r = &s->q[s->nq++];
		r->status = status;
		r->headers = headers ? strdup(headers) : NULL;
		r->body = strdup(body ? body : "");
		r->delay_ms = 0;
	}
	pthread_mutex_unlock(&s->mu);
}

/* Sets the delay of the response queued last. */
static inline void mh_delay_last(mh_server *s, int ms)
{
	pthread_mutex_lock(&s->mu);
	if (s->nq)
		s->q[s->nq - 1].delay_ms = ms;
	pthread_mutex_unlock(&s->mu);
}

static inline int mh_nreqs(mh_server *s)
{
	pthread_mutex_lock(&s->mu);
	int n = s->nreqs;
	pthread_mutex_unlock(&s->mu);
	return n;
}

/* The value of header name in request r (case-insensitive), copied into buf. */
static inline const char *mh_req_header(const mh_req *r, const char *name, char *buf, size_t cap)
{
	size_t nl = strlen(name);
	for (const char *l = r->headers; l && *l;) {
		const char *e = strstr(l, "\r\n");
		if (!e)
			break;
		if ((size_t)(e - l) > nl && !strncasecmp(l, name, nl) && l[nl] == ':') {
			const char *v = l + nl + 1;
			while (*v == ' ')
				v++;
			snprintf(buf, cap, "%.*s", (int)(e - v), v);
			return buf;
		}
		l = e + 2;
	}
	return NULL;
}

static inline void mh_serve_one(mh_server *s, int c)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);
	char *hend = NULL;
	while (buf && !hend) {
		if (n + 1 >= cap) {
			char *b = realloc(buf, cap *= 2);
			if (!b)
				break;
			buf = b;
		}
		ssize_t k = recv(c, buf + n, cap - n - 1, 0);
		if (k <= 0)
			break;
		n += (size_t)k;
		buf[n] = 0;
		hend = strstr(buf, "\r\n\r\n");
	}
	if (!buf || !hend) {
		free(buf);
		return;
	}
	size_t hlen = (size_t)(hend - buf) + 4, clen = 0;
	for (char *l = strstr(buf, "\r\n"); l && l < hend; l = strstr(l + 2, "\r\n"))
		if (!strncasecmp(l + 2, "content-length:", 15))
			clen = strtoul(l + 17, NULL, 10);
	while (n < hlen + clen) {
		if (n + 1 >= cap) {
			char *b = realloc(buf, cap = hlen + clen + 1);
			if (!b)
				break;
			buf = b;
		}
		ssize_t k = recv(c, buf + n, cap - n - 1, 0);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	pthread_mutex_lock(&s->mu);
	mh_req *r = s->nreqs < MH_MAX ? &s->reqs[s->nreqs++] : NULL;
	if (r) {
		sscanf(buf, "%15s %2047s", r->method, r->target);
		char *hs = strstr(buf, "\r\n") + 2;
		r->headers = strndup(hs, (size_t)(hend + 2 - hs));
		r->len = n > hlen ? n - hlen : 0;
		r->body = malloc(r->len + 1);
		memcpy(r->body, buf + hlen, r->len);
		r->body[r->len] = 0;
	}
	mh_resp *resp = s->next < s->nq ? &s->q[s->next++] : NULL;
	pthread_mutex_unlock(&s->mu);
	free(buf);
	int status = resp ? resp->status : 599;
	const char *body = resp ? resp->body : "{\"message\":\"mini_http: no scripted response\"}";
	if (resp && resp->delay_ms) {
		struct timespec ts = {resp->delay_ms / 1000, (resp->delay_ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	char head[4096];
	int hl = snprintf(head, sizeof(head),
	                  "HTTP/1.1 %d Scripted\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
	                  "Connection: close\r\n%s\r\n",
	                  status, strlen(body), resp && resp->headers ? resp->headers : "");
	send(c, head, (size_t)hl, MSG_NOSIGNAL);
	send(c, body, strlen(body), MSG_NOSIGNAL);
}

static inline void *mh_loop(void *arg)
{
	mh_server *s = arg;
	while (!s->stop) {
		int c = accept(s->fd, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		mh_serve_one(s, c);
		shutdown(c, SHUT_WR);
		close(c);
	}
	return NULL;
}

/* Starts the server on a free port. Returns 0 or -1. */
static inline int mh_start(mh_server *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->mu, NULL);
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return -1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t al = sizeof(a);
	if (bind(s->fd, (struct sockaddr *)&a, sizeof(a)) || listen(s->fd, 16) ||
	    getsockname(s->fd, (struct sockaddr *)&a, &al)) {
		close(s->fd);
		return -1;
	}
	s->port = ntohs(a.sin_port);
	snprintf(s->base, sizeof(s->base), "http://127.0.0.1:%d", s->port);
	return pthread_create(&s->th, NULL, mh_loop, s) ? -1 : 0;
}

/* Stops the thread and frees what was queued and recorded. */
static inline void mh_stop(mh_server *s)
{
	s->stop = 1;
	shutdown(s->fd, SHUT_RDWR);
	pthread_join(s->th, NULL);
	close(s->fd);
	for (int i = 0; i < s->nq; i++) {
		free(s->q[i].headers);
		free(s->q[i].body);
	}
	for (int i = 0; i < s->nreqs; i++) {
		free(s->reqs[i].headers);
		free(s->reqs[i].body);
	}
	pthread_mutex_destroy(&s->mu);
}

#endif
