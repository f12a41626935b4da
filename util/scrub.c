/*
 * scrub.c - URLs without their userinfo (scrub.h).
 *
 * Written by hand: a URL parser (libcurl's CURLU) would need the URL
 * alone, but the userinfo must go from URLs inside free text (a libgit2
 * message, "share no history in https://...").
 */
#include "scrub.h"

#include <string.h>

static int scheme_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
	       c == '.';
}

/* Where the authority of a URL starting at p (after "://") ends. */
static size_t authority_len(const char *p)
{
	size_t n = 0;
	while (p[n] && !strchr("/?#\\ \t\r\n\"'`<>()[]{}|", p[n]))
		n++;
	return n;
}

size_t tg_scrub_urls(char *s)
{
	if (!s)
		return 0;
	size_t len = strlen(s);
	for (char *p = strstr(s, "://"); p; p = strstr(p, "://")) {
		/* a scheme before it (at least one letter) */
		if (p == s || !scheme_char(p[-1])) {
			p += 3;
			continue;
		}
		char *auth = p + 3;
		size_t alen = authority_len(auth);
		char *at = NULL;
		for (size_t i = 0; i < alen; i++)
			if (auth[i] == '@')
				at = auth + i;
		if (at) {
			size_t cut = (size_t)(at + 1 - auth);
			memmove(auth, at + 1, len - (size_t)(at + 1 - s) + 1);
			len -= cut;
		}
		p = auth;
	}
	return len;
}
