/*
 * log.c - the daemon's log lines (log.h).
 */
#include "log.h"
#include "scrub.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static tg_log_level current = TG_LOG_INFO;

void tg_log_set_level(const char *name)
{
	static const char *const names[] = {"error", "warn", "info", "debug"};
	for (int i = 0; i < 4; i++)
		if (name && !strcmp(name, names[i]))
			current = (tg_log_level)i;
}

void tg_log(tg_log_level level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warn", "info", "debug"};
	if (level > current)
		return;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* no URL's userinfo (a token in a clone_url) in the log */
	tg_scrub_urls(msg);
	/* one line: control characters from untrusted names become spaces */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	fprintf(stderr, "%s %s: %s\n", when, names[level], msg);
	fflush(stderr);
}
