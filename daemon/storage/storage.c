/*
 * storage.c - the storage interface: dispatch to the backend, and the key
 * rules every backend shares.
 */
#include "storage_impl.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

int tg_storage_key_ok(const char *key)
{
	if (!key || !*key || *key == '/' || strlen(key) > 1024)
		return 0;
	const char *seg = key;
	for (const char *p = key;; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '/' || c == 0) {
			size_t len = (size_t)(p - seg);
			if (len == 0 || (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
				return 0;
			if (c == 0)
				return 1;
			seg = p + 1;
			continue;
		}
		if (c < 0x20 || c == 0x7f || c == '\\')
			return 0;
	}
}

int tg_storage_is_manifest_key(const char *key)
{
	if (!tg_storage_key_ok(key))
		return 0;
	int slashes = 0;
	for (const char *p = key; *p; p++)
		slashes += *p == '/';
	const char *last = strrchr(key, '/');
	return slashes == 5 && last && !strcmp(last + 1, "manifest.json");
}

const char *tg_storage_kind(const tg_storage *s)
{
	return s->ops->kind;
}

const char *tg_storage_describe(const tg_storage *s)
{
	return s->describe;
}

int tg_storage_list_manifests(tg_storage_obj **out, size_t *n, tg_storage *s)
{
	*out = NULL;
	*n = 0;
	return s->ops->list_manifests(s, out, n);
}

void tg_storage_objs_free(tg_storage_obj *o, size_t n)
{
	for (size_t i = 0; o && i < n; i++) {
		free(o[i].key);
		free(o[i].etag);
	}
	free(o);
}

int tg_storage_read(char **data, size_t *len, tg_storage *s, const char *key, uint64_t max)
{
	*data = NULL;
	*len = 0;
	if (!tg_storage_key_ok(key))
		return tg_error_set(TG_EINVAL, "%s: refused storage key '%s'", s->describe, key ? key : "");
	return s->ops->read(s, key, data, len, max);
}

int tg_storage_fetch(int *fd, tg_storage *s, const char *key, const char *tmpdir, uint64_t max)
{
	*fd = -1;
	if (!tg_storage_key_ok(key))
		return tg_error_set(TG_EINVAL, "%s: refused storage key '%s'", s->describe, key ? key : "");
	return s->ops->fetch(s, key, tmpdir, max, fd);
}

int tg_storage_wait(tg_storage *s, long timeout_ms)
{
	return s->ops->wait(s, timeout_ms);
}

void tg_storage_free(tg_storage *s)
{
	if (s)
		s->ops->free(s);
}
