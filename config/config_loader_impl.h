/*
 * config_loader_impl.h - the one interface config/'s pieces lean on (the
 * sections in config.c, the forges and repositories in config_forges.c,
 * the secrets in config_secret.c): the loader's state, and the value
 * helpers of config_loader.c that check one YAML value and set
 * "file:line:column: key: message" errors. The generic node helpers
 * (tg_yaml_error, tg_yaml_fields, tg_yaml_bool, ...) are util/yaml_node.h's.
 * Shared by config/'s files alone.
 *
 * Arrows (no file includes the header of one that includes it):
 *   config.c        -> config_loader_impl.h, config_forges_impl.h, config_secret_impl.h
 *   config_forges.c -> config_forges_impl.h, config_secret_impl.h -> config_loader_impl.h
 *   config_secret.c -> config_secret_impl.h -> config_loader_impl.h
 *   config_service.c -> config_service_impl.h -> config_loader_impl.h
 *   config_loader.c -> config_loader_impl.h, config_values.h
 *   config_values.c -> config_values.h
 * and the types they fill are config_types.h's, which includes nothing.
 *
 * Every helper takes `key`, the dotted path of the value for messages
 * ("storage.s3.bucket", "forges[1].token"), and returns 0 or a negative
 * TG_E* code with tg_error_last() set.
 */
#ifndef TG_CONFIG_LOADER_IMPL_H
#define TG_CONFIG_LOADER_IMPL_H

#include "../util/tg.h"
#include "../util/yaml_node.h"

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

struct tg_config_unread; /* config_secret_impl.h */

/* The loader: the name for messages, the folder of relative paths (NULL:
 * leave them relative to the current folder), the parsed document, and
 * where the secrets that cannot be read are gathered (NULL: the first is
 * the error), so that one run names them all. */
typedef struct tg_config_loader {
	tg_yaml_in y; /* the file's name, the document; TG_YAML_ONE_LINE */
	const char *dir;
	unsigned flags; /* TG_CONFIG_DATABASE_ONLY (config_types.h) */
	struct tg_config_unread *unread;
} tg_config_loader;

/* ------------------------------------------------------------ config_loader.c */

/* parent + "." + key, or parent + "[i]" (i >= 0, key NULL), into buf;
 * parent "" gives key alone. */
const char *tg_config_keypath(char *buf, size_t cap, const char *parent, const char *key, long i);

/* Checks that n is a mapping: returns 0 for one, 1 for null when null_ok
 * (an optional section left empty), or an error. */
int tg_config_mapping(const tg_config_loader *L, const yaml_node_t *n, const char *key, int null_ok);

/* A string; empty only when empty_ok. *out is a copy. */
int tg_config_string(char **out, const tg_config_loader *L, const yaml_node_t *n, const char *key, int empty_ok);

/* A non-empty path, resolved against L->dir when relative. */
int tg_config_path(char **out, const tg_config_loader *L, const yaml_node_t *n, const char *key);

/* path resolved against L->dir when relative (a copy in *out). */
int tg_config_resolve(char **out, const tg_config_loader *L, const char *path);

/* A decimal integer in [lo, hi]. */
int tg_config_uint(uint64_t *out, const tg_config_loader *L, const yaml_node_t *n, const char *key, uint64_t lo,
                   uint64_t hi);

/* A duration (config_values.c) of at least min_ms. */
int tg_config_duration(int64_t *out, const tg_config_loader *L, const yaml_node_t *n, const char *key, int64_t min_ms);

/* A size (config_values.c) of at least min bytes. */
int tg_config_size(uint64_t *out, const tg_config_loader *L, const yaml_node_t *n, const char *key, uint64_t min);

/* A non-empty list of distinct non-empty strings (item names what they
 * are: "branch", "workload"). *out is NULL-free, *n items. */
int tg_config_strings(char ***out, size_t *count, const tg_config_loader *L, const yaml_node_t *n, const char *key,
                      const char *item);

/* Frees n strings and the array. */
void tg_config_strings_free(char **s, size_t n);

#endif
