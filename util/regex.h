/*
 * regex.h - compiling a regular expression that someone else wrote (a
 * rule's /regex/, `tree --match`, `replay --match`) without letting it
 * take the process's memory. glibc's regcomp copies the tree of a repeated
 * piece for every repetition operator on it, so "v++++++++++++++++" (each
 * + repeating the one before) or "((a{9}){9}){9}" ask for millions of
 * nodes and gigabytes before matching anything (the rules fuzzer found the
 * first). tg_regex_compile estimates that size from the pattern first and
 * refuses one beyond TG_REGEX_MAX_COST with a message that says so.
 */
#ifndef TG_REGEX_H
#define TG_REGEX_H

#include <regex.h>
#include <stddef.h>

/* The most pieces a pattern may expand to (an atom counts 1, a repetition
 * multiplies what it repeats); real patterns stay far below. */
#define TG_REGEX_MAX_COST 20000

/* The estimated size of the compiled pattern re (POSIX extended syntax),
 * saturating at TG_REGEX_MAX_COST + 1. */
size_t tg_regex_cost(const char *re);

/* Compiles re (REG_EXTENDED | REG_NOSUB) into *out. Returns 0, or -1 with
 * a one-line reason in msg (cap bytes): regcomp's, or "too complex" when
 * its cost is over TG_REGEX_MAX_COST (nothing is compiled then). *out is
 * the caller's, freed with regfree, only when 0 is returned. */
int tg_regex_compile(regex_t *out, const char *re, char *msg, size_t cap);

#endif
