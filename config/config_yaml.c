/*
 * config_yaml.c - the node helpers of the configuration loader: each checks
 * one YAML value of libyaml's document tree (which keeps the line and
 * column of every node) and turns it into a C value, or sets a one-line
 * "file:line:column: key: message" error.
 */
#include "config_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int vat(const tg_config_loader *L, int code, const yaml_node_t *n, const char *fmt, va_list ap)
{
	char what[768];
	vsnprintf(what, sizeof(what), fmt, ap);
	return tg_error_set(code, "%s:%zu:%zu: %s", L->file, n->start_mark.line + 1, n->start_mark.column + 1,
	                    what);
}

int tg_config_at(const tg_config_loader *L, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vat(L, TG_EFORMAT, n, fmt, ap);
	va_end(ap);
	return rc;
}

int tg_config_at_code(const tg_config_loader *L, int code, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vat(L, code, n, fmt, ap);
	va_end(ap);
	return rc;
}

yaml_node_t *tg_config_node(const tg_config_loader *L, int id) { return yaml_document_get_node(L->doc, id); }

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int tg_config_is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);
	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"));
}

const char *tg_config_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a list";
	default: return tg_config_is_null(n) ? "nothing" : "a scalar";
	}
}

const char *tg_config_keypath(char *buf, size_t cap, const char *parent, const char *key, long i)
{
	if (!key)
		snprintf(buf, cap, "%s[%ld]", parent, i);
	else if (!*parent)
		snprintf(buf, cap, "%s", key);
	else
		snprintf(buf, cap, "%s.%s", parent, key);
	return buf;
}

/* A comma-separated list of names, for messages. */
static void join(char *buf, size_t cap, const char *const *names, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", names[i]);
}

int tg_config_fields(const tg_config_loader *L, const yaml_node_t *map, const char *where,
                     const char *const *keys, size_t nkeys, int quiet, const yaml_node_t **knode,
                     const yaml_node_t **value)
{
	const char *in = *where ? where : "the configuration";
	for (size_t i = 0; i < nkeys; i++)
		knode[i] = value[i] = NULL;
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = tg_config_node(L, p->key);
		const char *k = scalar(kn);
		if (!k)
			return tg_config_at(L, kn, "%s: expected a key, got %s", in, tg_config_kind(kn));
		size_t i = 0;
		while (i < nkeys && strcmp(k, keys[i]))
			i++;
		if (i == nkeys) {
			char list[512];
			join(list, sizeof(list), keys, nkeys);
			if (quiet)
				return tg_config_at(L, kn, "unknown key in %s (expected %s)", in, list);
			return tg_config_at(L, kn, "unknown key '%s' in %s (expected %s)", TG_SHOW(k), in, list);
		}
		if (knode[i])
			return tg_config_at(L, kn, "duplicate key '%s' in %s (first at line %zu)", k, in,
			                    knode[i]->start_mark.line + 1);
		knode[i] = kn;
		value[i] = tg_config_node(L, p->value);
	}
	return 0;
}

int tg_config_mapping(const tg_config_loader *L, const yaml_node_t *n, const char *key, int null_ok)
{
	if (n->type == YAML_MAPPING_NODE)
		return 0;
	if (null_ok && tg_config_is_null(n))
		return 1;
	return tg_config_at(L, n, "%s: expected a mapping, got %s", key, tg_config_kind(n));
}

/* The text of a scalar that is not null, or an error "expected what". */
static int text(const tg_config_loader *L, const yaml_node_t *n, const char *key, const char *what,
                const char **out)
{
	*out = scalar(n);
	if (!*out || tg_config_is_null(n))
		return tg_config_at(L, n, "%s: expected %s, got %s", key, what, tg_config_kind(n));
	for (size_t i = 0; i < n->data.scalar.length; i++) {
		unsigned char c = (unsigned char)(*out)[i];
		if (c < 0x20 || c == 0x7f) /* a value is one line, so is every message that names it */
			return tg_config_at(L, n, "%s: contains a control character (byte %zu)", key, i + 1);
	}
	return 0;
}

static char *dup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		tg_error_set(TG_ENOMEM, "out of memory");
	return d;
}

int tg_config_string(const tg_config_loader *L, const yaml_node_t *n, const char *key, int empty_ok,
                     char **out)
{
	const char *s;
	int rc;
	if ((rc = text(L, n, key, "a string", &s)))
		return rc;
	if (!*s && !empty_ok)
		return tg_config_at(L, n, "%s: expected a string, got an empty string", key);
	return (*out = dup(s)) ? 0 : TG_ENOMEM;
}

int tg_config_resolve(const tg_config_loader *L, const char *path, char **out)
{
	if (path[0] == '/' || !L->dir)
		return (*out = dup(path)) ? 0 : TG_ENOMEM;
	while (path[0] == '.' && path[1] == '/') {
		path += 2;
		while (*path == '/')
			path++;
	}
	if (!strcmp(path, ".") || !*path)
		return (*out = dup(L->dir)) ? 0 : TG_ENOMEM;
	size_t dl = strlen(L->dir), pl = strlen(path);
	int slash = dl && L->dir[dl - 1] != '/';
	char *s = tg_malloc(dl + (size_t)slash + pl + 1);
	if (!s)
		return TG_ENOMEM;
	memcpy(s, L->dir, dl);
	if (slash)
		s[dl] = '/';
	memcpy(s + dl + (size_t)slash, path, pl + 1);
	*out = s;
	return 0;
}

int tg_config_path(const tg_config_loader *L, const yaml_node_t *n, const char *key, char **out)
{
	const char *s;
	int rc;
	if ((rc = text(L, n, key, "a path", &s)))
		return rc;
	if (!*s)
		return tg_config_at(L, n, "%s: expected a path, got an empty string", key);
	return tg_config_resolve(L, s, out);
}

int tg_config_bool(const tg_config_loader *L, const yaml_node_t *n, const char *key, int *out)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES"};
	static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO"};
	const char *s;
	int rc;
	if ((rc = text(L, n, key, "true or false", &s)))
		return rc;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(s, yes[i]))
			return *out = 1, 0;
		if (!strcmp(s, no[i]))
			return *out = 0, 0;
	}
	return tg_config_at(L, n, "%s: '%s' is not a boolean (expected true, false, yes or no)", key, TG_SHOW(s));
}

int tg_config_uint(const tg_config_loader *L, const yaml_node_t *n, const char *key, uint64_t lo,
                   uint64_t hi, uint64_t *out)
{
	const char *s, *p;
	uint64_t v = 0;
	int rc, big = 0;
	if ((rc = text(L, n, key, "an integer", &s)))
		return rc;
	for (p = s; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			big = 1;
		else
			v = v * 10 + d;
	}
	if (p == s || *p)
		return tg_config_at(L, n, "%s: '%s' is not an integer between %llu and %llu", key, TG_SHOW(s),
		                    (unsigned long long)lo, (unsigned long long)hi);
	if (big || v < lo || v > hi)
		return tg_config_at(L, n, "%s: '%s' is out of range (%llu to %llu)", key, TG_SHOW(s),
		                    (unsigned long long)lo, (unsigned long long)hi);
	*out = v;
	return 0;
}

int tg_config_duration(const tg_config_loader *L, const yaml_node_t *n, const char *key, int64_t min_ms,
                       int64_t *out)
{
	const char *s, *why;
	int rc;
	if ((rc = text(L, n, key, "a duration like 10s", &s)))
		return rc;
	if (tg_config_duration_why(out, s, &why))
		return tg_config_at(L, n, "%s: '%s' %s", key, TG_SHOW(s), why);
	if (*out < min_ms)
		return tg_config_at(L, n, "%s: '%s' must be more than 0", key, TG_SHOW(s));
	return 0;
}

int tg_config_size(const tg_config_loader *L, const yaml_node_t *n, const char *key, uint64_t min,
                   uint64_t *out)
{
	const char *s, *why;
	int rc;
	if ((rc = text(L, n, key, "a size like 512MiB", &s)))
		return rc;
	if (tg_config_size_why(out, s, &why))
		return tg_config_at(L, n, "%s: '%s' %s", key, TG_SHOW(s), why);
	if (*out < min)
		return tg_config_at(L, n, "%s: '%s' must be more than 0", key, TG_SHOW(s));
	return 0;
}

int tg_config_keyword(const tg_config_loader *L, const yaml_node_t *n, const char *key, const char *what,
                      const char *const *names, size_t nnames, int *out)
{
	const char *s;
	char list[256], a_what[64];
	int rc;
	snprintf(a_what, sizeof(a_what), "a %s", what);
	if ((rc = text(L, n, key, a_what, &s)))
		return rc;
	for (size_t i = 0; i < nnames; i++)
		if (!strcmp(s, names[i]))
			return *out = (int)i, 0;
	join(list, sizeof(list), names, nnames);
	return tg_config_at(L, n, "%s: unknown %s '%s' (expected %s)", key, what, TG_SHOW(s), list);
}

void tg_config_strings_free(char **s, size_t n)
{
	if (!s)
		return;
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

int tg_config_strings(const tg_config_loader *L, const yaml_node_t *n, const char *key, const char *item,
                      char ***out, size_t *count)
{
	*out = NULL;
	*count = 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return tg_config_at(L, n, "%s: expected a list like [a, b], got %s", key, tg_config_kind(n));
	size_t len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (!len)
		return tg_config_at(L, n, "%s: empty list (leave the key out for the default)", key);
	char **v = tg_calloc(len, sizeof(*v));
	if (!v)
		return TG_ENOMEM;
	int rc = 0;
	size_t i = 0;
	for (; i < len && !rc; i++) {
		const yaml_node_t *it = tg_config_node(L, n->data.sequence.items.start[i]);
		char ik[160], what[64];
		tg_config_keypath(ik, sizeof(ik), key, NULL, (long)i);
		snprintf(what, sizeof(what), "a %s", item);
		const char *s;
		if ((rc = text(L, it, ik, what, &s)))
			break;
		if (!*s) {
			rc = tg_config_at(L, it, "%s: expected a %s, got an empty string", ik, item);
			break;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(v[j], s)) {
				rc = tg_config_at(L, it, "%s: %s '%s' is listed twice", key, item, TG_SHOW(s));
				break;
			}
		if (!rc && !(v[i] = dup(s)))
			rc = TG_ENOMEM;
	}
	if (rc) {
		tg_config_strings_free(v, len);
		return rc;
	}
	*out = v;
	*count = len;
	return 0;
}
