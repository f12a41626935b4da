/*
 * fstr.h - fixed-size strings: the sentences of findings and verdicts are
 * built in stack buffers of a known size, cut rather than grown.
 */
#ifndef TG_FSTR_H
#define TG_FSTR_H

#include <stddef.h>

/* Appends printf-style to the fixed-size string buf (cut at its size). */
void tg_fstr_add(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A duration for people: "1.23 ms", "45.6 us", "120 ns"; buf of 32. */
void tg_fstr_time(char *buf, size_t cap, double ns);

#endif
