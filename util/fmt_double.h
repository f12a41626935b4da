/*
 * fmt_double.h - a double in the shortest decimal form that reads back as
 * the same double (Python's repr), the form every output of the gate
 * writes numbers in (CSV, JSON, the perf sheets' parameters).
 */
#ifndef TG_FMT_DOUBLE_H
#define TG_FMT_DOUBLE_H

/* Formats v in the shortest decimal form that reads back as the same
 * double (like Python's repr); buf of 32 bytes. */
void tg_format_double(char *buf, double v);

#endif
