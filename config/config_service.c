/*
 * config_service.c - daemon.listen and the history section (docs/config.md;
 * config_service_impl.h).
 *
 * listen takes numeric addresses only (and localhost): the configuration
 * is loaded without the network, and a name that resolves to several
 * addresses would make "where does it listen" a question of DNS.
 */
#include "config_service_impl.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LISTEN_FORMS "HOST:PORT (127.0.0.1:9464, 0.0.0.0:9464, [::1]:9464) or a port alone (9464)"

/* Parses a port "1".."65535" (digits only) into *port; -1 when it is not. */
static int parse_port(int *port, const char *s)
{
	if (!*s || strlen(s) > 5 || strspn(s, "0123456789") != strlen(s))
		return -1;
	long v = strtol(s, NULL, 10);
	if (v < 1 || v > 65535)
		return -1;
	*port = (int)v;
	return 0;
}

/* s as host and port: 0, or -1 with *why. host (cap bytes) is numeric. */
static int parse_listen(char *host, size_t cap, int *port, const char *s, const char **why)
{
	const char *colon = strrchr(s, ':');
	const char *p = colon ? colon + 1 : s;
	char h[128] = "";
	if (colon && s[0] == '[') { /* [IPv6]:PORT */
		const char *close = strchr(s, ']');
		if (!close || close + 1 != colon || (size_t)(close - s - 1) >= sizeof(h))
			return *why = "is not " LISTEN_FORMS, -1;
		memcpy(h, s + 1, (size_t)(close - s - 1));
		h[close - s - 1] = 0;
		struct in6_addr a6;
		if (inet_pton(AF_INET6, h, &a6) != 1)
			return *why = "has no IPv6 address in its brackets", -1;
	} else if (colon) {
		if ((size_t)(colon - s) >= sizeof(h))
			return *why = "is not " LISTEN_FORMS, -1;
		memcpy(h, s, (size_t)(colon - s));
		h[colon - s] = 0;
		struct in_addr a4;
		if (!strcmp(h, "localhost"))
			snprintf(h, sizeof(h), "127.0.0.1");
		else if (h[0] && inet_pton(AF_INET, h, &a4) != 1)
			return *why = strchr(h, ':')
			                      ? "needs its IPv6 address in brackets ([::1]:9464)"
			                      : "has no IP address before its port (names are not resolved: give "
			                        "127.0.0.1, 0.0.0.0 or the address to listen on)",
			       -1;
	}
	if (parse_port(port, p))
		return *why = "has no port from 1 to 65535: give " LISTEN_FORMS, -1;
	snprintf(host, cap, "%s", h[0] ? h : "127.0.0.1");
	return 0;
}

int tg_config_listen_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	char *s = NULL;
	int rc = tg_config_string(&s, L, n, "daemon.listen", 0);
	if (rc)
		return rc;
	char host[128];
	const char *why = NULL;
	if (parse_listen(host, sizeof(host), &c->listen_port, s, &why)) {
		rc = tg_yaml_error(&L->y, n, "daemon.listen: '%s' %s", TG_YAML_SHOW(s), why);
		free(s);
		return rc;
	}
	free(s);
	free(c->listen_host);
	return (c->listen_host = strdup(host)) ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
}

/* 1 when the S3 bucket name is one AWS accepts: 3 to 63 of a-z 0-9 . -,
 * starting and ending with a letter or digit. */
static int bucket_ok(const char *b, size_t n)
{
	if (n < 3 || n > 63 || b[0] == '-' || b[0] == '.' || b[n - 1] == '-' || b[n - 1] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= '0' && b[i] <= '9') || b[i] == '.' || b[i] == '-'))
			return 0;
	return 1;
}

/* 1 when the key prefix is '/'-separated names: no empty, "." or ".."
 * segment, no leading '/', printable ASCII without a backslash. */
static int prefix_ok(const char *p)
{
	const char *seg = p;
	for (const char *q = p;; q++) {
		if (*q && (*q <= 0x20 || *q >= 0x7f || *q == '\\'))
			return 0;
		if (*q == '/' || !*q) {
			size_t len = (size_t)(q - seg);
			if ((!len && *q) || (len == 1 && seg[0] == '.') || (len == 2 && !strncmp(seg, "..", 2)))
				return 0;
			if (!*q)
				return 1;
			seg = q + 1;
		}
	}
}

/* history.publish as s3://BUCKET[/PREFIX]: needs the daemon's S3 storage. */
static int load_publish_s3(const tg_config_loader *L, const yaml_node_t *n, tg_config *c, const char *url)
{
	const char *b = url + 5, *slash = strchr(b, '/');
	size_t bl = slash ? (size_t)(slash - b) : strlen(b);
	const char *prefix = slash ? slash + 1 : "";
	if (!bucket_ok(b, bl))
		return tg_yaml_error(&L->y, n, "history.publish: '%s' has no S3 bucket name (3 to 63 of a-z 0-9 . -)",
		                     TG_YAML_SHOW(url));
	if (*prefix && !prefix_ok(prefix))
		return tg_yaml_error(
			&L->y, n,
			"history.publish: '%s': the key prefix must be names separated by '/' (no empty, . "
			"or .. part, no space or control character)",
			TG_YAML_SHOW(url));
	if (!c->storage.s3_endpoint)
		return tg_yaml_error(
			&L->y, n,
			"history.publish: '%s' needs storage.s3 (pages go to the storage's S3 endpoint with "
			"its keys); with local storage, publish to a folder",
			TG_YAML_SHOW(url));
	size_t pl = strlen(prefix);
	if (!(c->history_publish_s3_bucket = strndup(b, bl)) || !(c->history_publish_s3_prefix = malloc(pl + 2)))
		return tg_error_set(TG_ENOMEM, "out of memory");
	snprintf(c->history_publish_s3_prefix, pl + 2, "%s%s", prefix, pl && prefix[pl - 1] != '/' ? "/" : "");
	return 0;
}

int tg_config_history_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c)
{
	static const char *const keys[] = {"publish", "runs"};
	const yaml_node_t *kn[2], *v[2];
	int rc;
	if ((rc = tg_config_mapping(L, n, "history", 1)))
		return rc < 0 ? rc : 0;
	if ((rc = tg_yaml_fields(kn, v, &L->y, n, "history", keys, 2, 0)))
		return rc;
	if (v[1]) {
		uint64_t u;
		if ((rc = tg_config_uint(&u, L, v[1], "history.runs", 1, 100000)))
			return rc;
		c->history_runs = (int)u;
	}
	if (!v[0])
		return 0;
	char *s = NULL;
	if ((rc = tg_config_string(&s, L, v[0], "history.publish", 0)))
		return rc;
	if (!strncmp(s, "s3://", 5))
		rc = load_publish_s3(L, v[0], c, s);
	else if (strstr(s, "://"))
		rc = tg_yaml_error(&L->y, v[0], "history.publish: '%s' is neither a folder nor s3://BUCKET/PREFIX",
		                   TG_YAML_SHOW(s));
	else
		rc = tg_config_path(&c->history_publish, L, v[0], "history.publish");
	free(s);
	return rc;
}
