/*
 * forge_text.c - the forges' words: kind and state names, UTF-8 checks,
 * status descriptions cut to what each forge accepts, and finding the
 * comment's marker line. forge.c and every backend use these; they use
 * nothing of the room, so the room's files call one another without a
 * circle.
 */
#include "forge_impl.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const kind_names[] = {"github", "gitlab", "gitea", "outbox"};

const char *tg_forge_kind_name(tg_forge_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "unknown";
}

int tg_forge_kind_parse(tg_forge_kind *out, const char *s)
{
	if (s) {
		for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
			if (!strcmp(s, kind_names[i])) {
				*out = (tg_forge_kind)i;
				return 0;
			}
		}
		if (!strcmp(s, "forgejo")) {
			*out = TG_FORGE_GITEA;
			return 0;
		}
	}
	return tg_error_set(TG_EINVAL, "forge kind '%s' is not one of github, gitlab, gitea, forgejo, outbox",
	                    s ? s : "");
}

const char *tg_forge_state_name(tg_forge_state s)
{
	switch (s) {
	case TG_FORGE_PENDING: return "pending";
	case TG_FORGE_SUCCESS: return "success";
	case TG_FORGE_FAILURE: return "failure";
	case TG_FORGE_ERROR: return "error";
	}
	return "unknown";
}

/* ------------------------------------------------------------------ text */

/* Length of the valid UTF-8 sequence at p (n bytes available), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	unsigned cp = c & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int tg_forge_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq(p + i, len - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

size_t tg_forge_description_limit(tg_forge_kind kind)
{
	switch (kind) {
	case TG_FORGE_GITLAB: return 255;  /* ci_builds.description is a varchar(255) */
	case TG_FORGE_GITEA: return 255;   /* no documented limit; kept short like the others */
	case TG_FORGE_GITHUB:
	case TG_FORGE_OUTBOX: return 140;  /* GitHub's documented limit; the outbox shows what GitHub would */
	}
	return 140;
}

char *tg_forge_trim_description(const char *s, size_t max_chars)
{
	if (!s)
		s = "";
	size_t n = strlen(s);
	/* one line and valid UTF-8: a sanitised copy (never longer than s) */
	char *clean = tg_malloc(n + 1);
	if (!clean)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	size_t k = 0, chars = 0;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_seq(p + i, n - i);
		if (!len) {
			clean[k++] = '?';
			i++;
		} else if (len == 1 && (p[i] < 0x20 || p[i] == 0x7f)) {
			clean[k++] = ' ';
			i++;
		} else {
			memcpy(clean + k, p + i, len);
			k += len;
			i += len;
		}
		chars++;
	}
	clean[k] = 0;
	if (chars <= max_chars)
		return clean;
	/* keep max_chars - 3 code points, then "..." */
	size_t keep = max_chars > 3 ? max_chars - 3 : 0, at = 0;
	for (size_t c = 0; c < keep; c++)
		at += utf8_seq((const unsigned char *)clean + at, k - at);
	while (at > 0 && clean[at - 1] == ' ')
		at--;
	if (max_chars < 3) {
		clean[0] = 0;
		return clean;
	}
	memcpy(clean + at, "...", 4);
	return clean;
}

char *tg_forge_cut_utf8(const char *s, size_t max_bytes)
{
	size_t n = strlen(s);
	if (n > max_bytes) {
		n = max_bytes;
		/* back off continuation bytes, then drop a lead byte whose sequence is cut */
		size_t i = n;
		while (i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
			i--;
		if (i > 0 && (unsigned char)s[i - 1] >= 0xc0) {
			size_t len = utf8_seq((const unsigned char *)s + i - 1, strlen(s) - (i - 1));
			if (!len || i - 1 + len > n)
				n = i - 1;
		}
	}
	char *o = tg_malloc(n + 1);
	if (!o)
		return NULL;
	memcpy(o, s, n);
	o[n] = 0;
	return o;
}

int tg_forge_has_marker_line(const char *body, const char *marker)
{
	size_t ml = strlen(marker);
	if (!body || !ml)
		return 0;
	for (const char *line = body; line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *a = line, *b = line + len;
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
			b--;
		if ((size_t)(b - a) == ml && !memcmp(a, marker, ml))
			return 1;
		line = end ? end + 1 : NULL;
	}
	return 0;
}

/* ------------------------------------------------------------ life cycle */

