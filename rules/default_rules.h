/*
 * default_rules.h - the built-in rules: the text of
 * contrib/rules/default.yaml, compiled in (tests/test_rules_load.c checks
 * that the two are identical byte for byte).
 */
#ifndef TG_DEFAULT_RULES_H
#define TG_DEFAULT_RULES_H

#include <stddef.h>

/* The YAML text, NUL-terminated. */
extern const char tg_rules_default_yaml[];

/* Its length in bytes, without the NUL. */
extern const size_t tg_rules_default_yaml_len;

#endif
