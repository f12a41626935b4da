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

/* The secrets of one load that could not be read (a variable not set or
 * empty, a file missing or unreadable...): tg_config_secret_load records
 * each here and goes on, so that the whole file is read and every one is
 * named in a single error. Zero it before the load. */
typedef struct tg_config_unread {
	char *text; /* "line:column: key: why" entries joined by "; " (malloc'd) */
	size_t n;   /* entries */
	int code;   /* the first entry's TG_E* code */
} tg_config_unread;

/* After the load of file: 0 when nothing was recorded; else the error,
 * one line: with one secret exactly what reading it alone says
 * ("FILE:L:C: key: environment variable X is not set"), with several
 * "FILE: N secrets cannot be read: L:C: ...; L:C: ...". Frees u's text. */
int tg_config_unread_finish(tg_config_unread *u, const char *file);

#endif
