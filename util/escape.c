/*
 * escape.c - Markdown and HTML escaping for what the gate posts on a forge
 * or writes into a page: every name from a trace goes through here, so a
 * trace cannot inject markup, a mention, a reference or a link. Moved from
 * render/table_render.c (issue 25): the history pages and the job machine
 * escape too, and they may not call render/.
 *
 * Written with the unlocked stdio calls, as the tables are: a FILE here is
 * only ever written by the thread that writes the document.
 */
#include "escape.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ZWSP "\xe2\x80\x8b" /* U+200B, zero-width space */

static int alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Writes what keeps s (from its first character on) from starting a
 * mention, a reference or an autolink on a forge: returns how many
 * characters of s it wrote (0: none, the caller writes s[0]). */
static size_t inert(FILE *f, const char *s)
{
	if ((s[0] == 'w' || s[0] == 'W') && !strncasecmp(s, "www.", 4)) {
		fwrite_unlocked(s, 1, 3, f);
		fputs_unlocked(ZWSP, f);
		return 3;
	}
	if (s[0] == ':' && s[1] == '/' && s[2] == '/') {
		fputs_unlocked(":" ZWSP, f);
		return 1;
	}
	if (s[0] == '@' || (strchr("#!~$%", s[0]) && (alnum(s[1]) || s[1] == '"'))) {
		putc_unlocked(s[0], f);
		fputs_unlocked(ZWSP, f);
		return 1;
	}
	return 0;
}

void tg_md_code(FILE *f, const char *s)
{
	fputs_unlocked("<code>", f);
	tg_md_escape(f, s);
	fputs_unlocked("</code>", f);
}

void tg_md_name(FILE *f, const char *s, size_t max)
{
	size_t n = strlen(s);
	if (!max || n <= max) {
		tg_md_code(f, s);
		return;
	}
	fputs_unlocked("<span title=\"", f);
	tg_html_attr_escape(f, s);
	fputs_unlocked("\">", f);
	size_t k = max > 1 ? max - 1 : 1;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80) /* a whole UTF-8 character */
		k--;
	char *cut = strndup(s, k);
	fputs_unlocked("<code>", f);
	tg_md_escape(f, cut ? cut : "");
	fputs_unlocked("\xe2\x80\xa6</code></span>", f);
	free(cut);
}

void tg_html_attr_escape(FILE *f, const char *s)
{
	for (const char *p = s; *p; p++) {
		/* a forge links no attribute, but a copied tooltip stays inert too */
		size_t k = inert(f, p);
		if (k) {
			p += k - 1;
			continue;
		}
		switch (*p) {
		case '&': fputs_unlocked("&amp;", f); break;
		case '<': fputs_unlocked("&lt;", f); break;
		case '>': fputs_unlocked("&gt;", f); break;
		case '"': fputs_unlocked("&quot;", f); break;
		case '\'': fputs_unlocked("&#x27;", f); break;
		case '|': fputs_unlocked("&#x7c;", f); break;
		default:
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				putc_unlocked(' ', f);
			else
				putc_unlocked(*p, f);
		}
	}
}

void tg_html_escape_inert(FILE *f, const char *s)
{
	while (*s) {
		size_t k = inert(f, s);
		if (k) {
			s += k;
			continue;
		}
		switch (*s) {
		case '<': fputs_unlocked("&lt;", f); break;
		case '>': fputs_unlocked("&gt;", f); break;
		case '&': fputs_unlocked("&amp;", f); break;
		default: putc_unlocked(*s, f);
		}
		s++;
	}
}

void tg_md_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '$') { /* GitHub's math */
			fputs_unlocked("\\$", f);
			continue;
		}
		size_t k = inert(f, s);
		if (k) {
			s += k - 1;
			continue;
		}
		switch (*s) {
		case '|': fputs_unlocked("\\|", f); break;
		case '`': fputs_unlocked("\\`", f); break;
		case '*': fputs_unlocked("\\*", f); break;
		case '_': fputs_unlocked("\\_", f); break;
		case '[': fputs_unlocked("\\[", f); break;
		case ']': fputs_unlocked("\\]", f); break;
		case '\\': fputs_unlocked("\\\\", f); break;
		case '<': fputs_unlocked("&lt;", f); break;
		case '>': fputs_unlocked("&gt;", f); break;
		case '&': fputs_unlocked("&amp;", f); break;
		case '\n': case '\r': case '\t': putc_unlocked(' ', f); break;
		default:
			if ((unsigned char)*s < 0x20)
				fprintf(f, "\\x%02x", (unsigned char)*s);
			else
				putc_unlocked(*s, f);
		}
	}
}

void tg_html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
}
