/*
 * config_values.h - durations ("10s", "1.5h", "250ms") and sizes
 * ("512MiB", "1GB", "4096") as the configuration writes them
 * (config_values.c, over util/units_lex.c). Public through config.h; the
 * _why forms are for the loader's messages (config_loader.c). Nothing to
 * free.
 */
#ifndef TG_CONFIG_VALUES_H
#define TG_CONFIG_VALUES_H

#include <stdint.h>

/* Parses a duration ("10s", "1.5h", "250ms", "0") into ms. Returns 0 or
 * TG_EINVAL. */
int tg_config_parse_duration(int64_t *ms, const char *s);

/* Parses a size ("512MiB", "1GB", "4096", "0") into bytes. Returns 0 or
 * TG_EINVAL. */
int tg_config_parse_size(uint64_t *bytes, const char *s);

/* The parsers behind tg_config_parse_duration/size: on failure, -1 and
 * *why a static explanation that follows the quoted value ("needs a unit
 * (ms, s, m, h or d), e.g. 10s"). */
int tg_config_duration_why(int64_t *ms, const char *s, const char **why);
int tg_config_size_why(uint64_t *bytes, const char *s, const char **why);

#endif
