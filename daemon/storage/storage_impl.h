/*
 * storage_impl.h - what a storage backend (storage_local.c, storage_s3.c)
 * implements. Only storage*.c include this.
 */
#ifndef TG_STORAGE_IMPL_H
#define TG_STORAGE_IMPL_H

#include "storage.h"

typedef struct tg_storage_ops {
	const char *kind;
	int (*list_manifests)(tg_storage *s, tg_storage_obj **out, size_t *n);
	int (*read)(tg_storage *s, const char *key, char **data, size_t *len, uint64_t max);
	int (*fetch)(tg_storage *s, const char *key, const char *tmpdir, uint64_t max, int *fd);
	int (*wait)(tg_storage *s, long timeout_ms);
	void (*free)(tg_storage *s);
} tg_storage_ops;

/* Every backend's struct starts with this. */
struct tg_storage {
	const tg_storage_ops *ops;
	char describe[512];
};

/* 1 when key has the form <owner>/<repo>/<sha>/<workload>/<run-id>/manifest.json
 * (six segments, the last "manifest.json"). */
int tg_storage_is_manifest_key(const char *key);

#endif
