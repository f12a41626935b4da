/*
 * units_lex.h - the lexer under every number with a unit that a person
 * writes in a YAML file: the rules' thresholds ("5%", "20us", "512MiB";
 * rules/units.c) and the configuration's durations and sizes ("10s",
 * "1.5h", "4096"; config/config_values.c), with the one table of unit
 * names and factors both read.
 *
 * It lives in core/ because rules/ and config/ both need it and may not
 * include each other (../shared/DESIGN.md, "The house": rules -> core,
 * config -> core). It splits the text and names the unit; what a number
 * is worth stays with the caller: the rules convert to a double (rounded
 * once), the configuration to an exact integer (refusing a fraction of a
 * millisecond), and each words its own refusals.
 *
 * Nothing here allocates; every pointer given back points into the input
 * or into a static table.
 */
#ifndef TG_UNITS_LEX_H
#define TG_UNITS_LEX_H

#include <stddef.h>
#include <stdint.h>

/* One number as written: [-]digits[.digits][e[+|-]digits], then spaces
 * or tabs, then the unit (the rest of the string). */
typedef struct tg_units_lexeme {
	int neg;          /* a '-' came first */
	const char *ip;   /* the digits before '.', nip of them (maybe 0: ".5") */
	size_t nip;
	const char *frac; /* the digits after '.', nfrac of them (maybe 0: "5.") */
	size_t nfrac;
	long exp10;       /* the exponent written (TG_UNITS_EXPONENT), 0 without; saturates near 10^6 */
	const char *end;  /* just past the number (and its exponent) */
	const char *unit; /* past the spaces and tabs after the number: the unit, "" when none */
} tg_units_lexeme;

/* Flags of tg_units_lex. */
#define TG_UNITS_EXPONENT 1u /* read "2e3", "1.5E-2"; an 'e' without digits after it is left to the unit */

/* Splits s (NUL-terminated) into *out. Returns 0, or -1 when no digit
 * follows the optional '-' ("", ".", "abc", "- 5", "+1"); out->neg is set
 * either way, the other fields only on success. No locale is consulted. */
int tg_units_lex(tg_units_lexeme *out, const char *s, unsigned flags);

/* What a unit measures. */
typedef enum tg_units_class { TG_UNITS_TIME, TG_UNITS_BYTES } tg_units_class;

/* A unit name and its factor: nanoseconds for a time (ns, us, µs, ms, s,
 * m, h, d), bytes for a size (B, KB, MB, GB, KiB, MiB, GiB). */
typedef struct tg_unit {
	const char *name;
	uint64_t factor;
} tg_unit;

/* The unit of class c spelled exactly name (case matters: "MB", not "mb"),
 * or NULL. A caller that accepts fewer units (the rules take ns to s, the
 * configuration ms to d) checks the factor. The entry is static. */
const tg_unit *tg_units_find(tg_units_class c, const char *name);

#endif
