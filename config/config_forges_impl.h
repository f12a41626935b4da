/*
 * config_forges_impl.h - the `forges` and `repositories` lists of the
 * configuration, loaded by config_forges.c for config.c. Shared by
 * config/'s files alone.
 */
#ifndef TG_CONFIG_FORGES_IMPL_H
#define TG_CONFIG_FORGES_IMPL_H

#include "config_loader_impl.h"
#include "config_types.h"

/* The `forges` list into c->forges. */
int tg_config_forges_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c);

/* The `repositories` list into c->repos; needs c->forges. */
int tg_config_repos_load(const tg_config_loader *L, const yaml_node_t *n, tg_config *c);

/* A repository's on_unjudged (config_unjudged.c): one state (pending,
 * success, failure) for every kind, or a mapping of kinds (no_baseline,
 * baseline_unusable, not_comparable, inconclusive, waiting) to states;
 * a kind not named keeps pending. n is the value, where the repository's
 * path in messages ("repositories[0]"). */
int tg_config_on_unjudged_load(const tg_config_loader *L, const yaml_node_t *n, const char *where, tg_config_repo *r);

/* Frees one forge's or one repository's fields. */
void tg_config_forge_clear(tg_config_forge *f);
void tg_config_repo_clear(tg_config_repo *r);

#endif
