/*
 * config_secret_impl.h - secrets of the configuration ({env: NAME} or
 * {file: PATH}), read by config_secret.c for config.c and
 * config_forges.c. Shared by config/'s files alone.
 */
#ifndef TG_CONFIG_SECRET_IMPL_H
#define TG_CONFIG_SECRET_IMPL_H

#include "config_loader_impl.h"
#include "config_types.h"

/* A secret, {env: NAME} or {file: PATH}, read now. A plain string is an
 * error that never repeats it. */
int tg_config_secret_load(tg_config_secret *out, const tg_config_loader *L, const yaml_node_t *n, const char *key);

/* Wipes and frees a secret's strings. */
void tg_config_secret_clear(tg_config_secret *s);

#endif
