/*
 * units.h - the numbers of a rules file: percents ("5%", "5"), and
 * quantities in a metric's unit class ("20us", "1.5 ms", "512MiB", "3").
 * Internal to rules/; the loader turns the explanations into messages.
 */
#ifndef TG_UNITS_H
#define TG_UNITS_H

#include "rules.h"

/* Parses a plain decimal number ("12", "1.5", ".5", "2e3"; no sign, no
 * hex, no inf/nan) at the start of s, independently of the C locale.
 * *end is set past it. Returns 0, or -1 when s does not start with one. */
int tg_units_parse_number(double *out, const char *s, const char **end);

/* Parses a percent: a number with an optional '%' ("5%", "5 %", "5" all
 * mean 5). Returns 0, or -1 with *why a static explanation. */
int tg_units_parse_percent(double *out, const char *s, const char **why);

/* Parses a non-negative quantity of the unit class: time ("20us", "1.5 ms";
 * ns, us, ms, s; stored in ns, rounded), bytes ("512MiB"; B, KB, MB, GB,
 * KiB, MiB, GiB; stored in bytes, rounded), count or rate (a bare number).
 * A bare 0 is accepted for every class. Returns 0, or -1 with *why a
 * static explanation. */
int tg_units_parse_quantity(double *out, const char *s, tg_rule_unit unit, const char **why);

#endif
