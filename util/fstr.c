/*
 * fstr.c - fixed-size strings (fstr.h): appending printf-style within a
 * buffer's size, and a duration written for people.
 */
#include "fstr.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tg_fstr_add(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strnlen(buf, cap);
	if (len + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
}

void tg_fstr_time(char *buf, size_t cap, double ns)
{
	double a = fabs(ns);
	if (isnan(ns))
		snprintf(buf, cap, "?");
	else if (a >= 1e9)
		snprintf(buf, cap, "%.2f s", ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, cap, "%.2f ms", ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, cap, "%.1f us", ns / 1e3);
	else
		snprintf(buf, cap, "%.0f ns", ns);
}
