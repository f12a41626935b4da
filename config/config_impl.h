/*
 * config_impl.h - what the files of config/ share and nobody else calls:
 * the loader's state, the node helpers that check one YAML value and set
 * "file:line:column: key: message" errors (config_yaml.c), durations and
 * sizes with the reason of a refusal (config_values.c), secrets
 * (config_secret.c), and the forges and repositories lists
 * (config_forges.c).
 *
 * Every helper takes `key`, the dotted path of the value for messages
 * ("storage.s3.bucket", "forges[1].token"), and returns 0 or a negative
 * TG_E* code with tg_error_last() set.
 */
#ifndef TG_CONFIG_IMPL_H
#define TG_CONFIG_IMPL_H

#include "config.h"
#include "../core/tg.h"
#include "../core/yaml_doc.h"
#include "../core/yaml_node.h"

#include <yaml.h>

/* The loader: the name for messages, the folder of relative paths (NULL:
 * leave them relative to the current folder), the parsed document. */
typedef struct tg_config_loader {
	tg_yaml_in y; /* the file's name, the document; TG_YAML_ONE_LINE */
	const char *dir;
	unsigned flags; /* TG_CONFIG_DATABASE_ONLY */
} tg_config_loader;

/* ------------------------------------------------------------ config_yaml.c */

/* parent + "." + key, or parent + "[i]" (i >= 0, key NULL), into buf;
 * parent "" gives key alone. */
const char *tg_config_keypath(char *buf, size_t cap, const char *parent, const char *key, long i);

/* Checks that n is a mapping: returns 0 for one, 1 for null when null_ok
 * (an optional section left empty), or an error. */
int tg_config_mapping(const tg_config_loader *L, const yaml_node_t *n, const char *key, int null_ok);

/* A string; empty only when empty_ok. *out is a copy. */
int tg_config_string(const tg_config_loader *L, const yaml_node_t *n, const char *key, int empty_ok,
                     char **out);

/* A non-empty path, resolved against L->dir when relative. */
int tg_config_path(const tg_config_loader *L, const yaml_node_t *n, const char *key, char **out);

/* path resolved against L->dir when relative (a copy in *out). */
int tg_config_resolve(const tg_config_loader *L, const char *path, char **out);

/* A decimal integer in [lo, hi]. */
int tg_config_uint(const tg_config_loader *L, const yaml_node_t *n, const char *key, uint64_t lo,
                   uint64_t hi, uint64_t *out);

/* A duration (config_values.c) of at least min_ms. */
int tg_config_duration(const tg_config_loader *L, const yaml_node_t *n, const char *key, int64_t min_ms,
                       int64_t *out);

/* A size (config_values.c) of at least min bytes. */
int tg_config_size(const tg_config_loader *L, const yaml_node_t *n, const char *key, uint64_t min,
                   uint64_t *out);

/* A non-empty list of distinct non-empty strings (item names what they
 * are: "branch", "workload"). *out is NULL-free, *n items. */
int tg_config_strings(const tg_config_loader *L, const yaml_node_t *n, const char *key, const char *item,
                      char ***out, size_t *count);

/* Frees n strings and the array. */
void tg_config_strings_free(char **s, size_t n);

/* ------------------------------------------------------------ config_values.c */

/* The parsers behind tg_config_parse_duration/size: on failure, -1 and
 * *why a static explanation that follows the quoted value ("needs a unit
 * (ms, s, m, h or d), e.g. 10s"). */
int tg_config_duration_why(int64_t *ms, const char *s, const char **why);
int tg_config_size_why(uint64_t *bytes, const char *s, const char **why);

/* ------------------------------------------------------------ config_secret.c */

/* A secret, {env: NAME} or {file: PATH}, read now. A plain string is an
 * error that never repeats it. */
int tg_config_secret_load(const tg_config_loader *L, const yaml_node_t *n, const char *key,
                          tg_config_secret *out);

/* Wipes and frees a secret's strings. */
void tg_config_secret_clear(tg_config_secret *s);

/* ------------------------------------------------------------ config_forges.c */

/* The `forges` list into c->forges. */
int tg_config_forges_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c);

/* The `repositories` list into c->repos; needs c->forges. */
int tg_config_repos_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c);

/* Frees one forge's or one repository's fields. */
void tg_config_forge_clear(tg_config_forge *f);
void tg_config_repo_clear(tg_config_repo *r);

#endif
