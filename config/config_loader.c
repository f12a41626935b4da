/*
 * config_loader.c - the configuration's own value helpers: each checks one
 * YAML value of libyaml's document tree and turns it into a C value (a
 * copied string, a path resolved against the file's folder, an integer
 * in a range, a duration, a size, a list of distinct strings), or sets a
 * one-line "file:line:column: key: message" error. The generic node
 * helpers (errors at a node, mappings of known keys, booleans, keywords)
 * are util/yaml_node.c's, shared with the rules and the GPU specs.
 */
#include "config_loader_impl.h"
#include "config_values.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int tg_config_mapping(const tg_config_loader *L, const yaml_node_t *n, const char *key, int null_ok)
{
	if (n->type == YAML_MAPPING_NODE)
		return 0;
	if (null_ok && tg_yaml_is_null(n))
		return 1;
	return tg_yaml_error(&L->y, n, "%s: expected a mapping, got %s", key, tg_yaml_kind(n));
}

static char *dup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		tg_error_set(TG_ENOMEM, "out of memory");
	return d;
}

int tg_config_string(char **out, const tg_config_loader *L, const yaml_node_t *n, const char *key, int empty_ok)
{
	const char *s;
	int rc;
	if ((rc = tg_yaml_text(&s, &L->y, n, key, "a string")))
		return rc;
	if (!*s && !empty_ok)
		return tg_yaml_error(&L->y, n, "%s: expected a string, got an empty string", key);
	return (*out = dup(s)) ? 0 : TG_ENOMEM;
}

int tg_config_resolve(char **out, const tg_config_loader *L, const char *path)
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

int tg_config_path(char **out, const tg_config_loader *L, const yaml_node_t *n, const char *key)
{
	const char *s;
	int rc;
	if ((rc = tg_yaml_text(&s, &L->y, n, key, "a path")))
		return rc;
	if (!*s)
		return tg_yaml_error(&L->y, n, "%s: expected a path, got an empty string", key);
	return tg_config_resolve(out, L, s);
}

int tg_config_uint(uint64_t *out, const tg_config_loader *L, const yaml_node_t *n, const char *key, uint64_t lo,
                   uint64_t hi)
{
	const char *s, *p;
	uint64_t v = 0;
	int rc, big = 0;
	if ((rc = tg_yaml_text(&s, &L->y, n, key, "an integer")))
		return rc;
	for (p = s; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			big = 1;
		else
			v = v * 10 + d;
	}
	if (p == s || *p)
		return tg_yaml_error(&L->y, n, "%s: '%s' is not an integer between %llu and %llu", key, TG_YAML_SHOW(s),
		                     (unsigned long long)lo, (unsigned long long)hi);
	if (big || v < lo || v > hi)
		return tg_yaml_error(&L->y, n, "%s: '%s' is out of range (%llu to %llu)", key, TG_YAML_SHOW(s),
		                     (unsigned long long)lo, (unsigned long long)hi);
	*out = v;
	return 0;
}

int tg_config_duration(int64_t *out, const tg_config_loader *L, const yaml_node_t *n, const char *key, int64_t min_ms)
{
	const char *s, *why;
	int rc;
	if ((rc = tg_yaml_text(&s, &L->y, n, key, "a duration like 10s")))
		return rc;
	if (tg_config_duration_why(out, s, &why))
		return tg_yaml_error(&L->y, n, "%s: '%s' %s", key, TG_YAML_SHOW(s), why);
	if (*out < min_ms)
		return tg_yaml_error(&L->y, n, "%s: '%s' must be more than 0", key, TG_YAML_SHOW(s));
	return 0;
}

int tg_config_size(uint64_t *out, const tg_config_loader *L, const yaml_node_t *n, const char *key, uint64_t min)
{
	const char *s, *why;
	int rc;
	if ((rc = tg_yaml_text(&s, &L->y, n, key, "a size like 512MiB")))
		return rc;
	if (tg_config_size_why(out, s, &why))
		return tg_yaml_error(&L->y, n, "%s: '%s' %s", key, TG_YAML_SHOW(s), why);
	if (*out < min)
		return tg_yaml_error(&L->y, n, "%s: '%s' must be more than 0", key, TG_YAML_SHOW(s));
	return 0;
}

void tg_config_strings_free(char **s, size_t n)
{
	if (!s)
		return;
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

int tg_config_strings(char ***out, size_t *count, const tg_config_loader *L, const yaml_node_t *n, const char *key,
                      const char *item)
{
	*out = NULL;
	*count = 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return tg_yaml_error(&L->y, n, "%s: expected a list like [a, b], got %s", key, tg_yaml_kind(n));
	size_t len = tg_yaml_len(n);
	if (!len)
		return tg_yaml_error(&L->y, n, "%s: empty list (leave the key out for the default)", key);
	char **v = tg_calloc(len, sizeof(*v));
	if (!v)
		return TG_ENOMEM;
	int rc = 0;
	size_t i = 0;
	for (; i < len && !rc; i++) {
		const yaml_node_t *it = tg_yaml_item(&L->y, n, i);
		char ik[160], what[64];
		tg_config_keypath(ik, sizeof(ik), key, NULL, (long)i);
		snprintf(what, sizeof(what), "a %s", item);
		const char *s;
		if ((rc = tg_yaml_text(&s, &L->y, it, ik, what)))
			break;
		if (!*s) {
			rc = tg_yaml_error(&L->y, it, "%s: expected a %s, got an empty string", ik, item);
			break;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(v[j], s)) {
				rc = tg_yaml_error(&L->y, it, "%s: %s '%s' is listed twice", key, item,
				                   TG_YAML_SHOW(s));
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
