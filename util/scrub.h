/*
 * scrub.h - the one place where URLs lose their userinfo before they are
 * shown or stored (DESIGN.md: secrets never in logs, statuses or
 * comments). A clone_url may hold a token (https://x-access-token:T@host/):
 * every message, status, comment, stored summary and log line that may
 * quote a URL goes through tg_scrub_urls first.
 */
#ifndef TG_SCRUB_H
#define TG_SCRUB_H

#include <stddef.h>

/* Removes, in place, the userinfo ("user:password@") of every
 * "scheme://user:password@host" in the text s (URLs anywhere in it, any
 * number of them): "https://x:T@github.com/a.git" becomes
 * "https://github.com/a.git". Returns the new length. NULL is fine. */
size_t tg_scrub_urls(char *s);

#endif
