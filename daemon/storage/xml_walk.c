/*
 * xml_walk.c - the strict little XML walker of xml_walk.h.
 *
 * Written by hand: no XML library is in the project's dependency list
 * (DESIGN.md, "Libraries"), and the S3 client reads only two small,
 * flat documents (ListBucketResult and Error). The input comes from the
 * network, so every scan is bounded by the buffer's length, nothing is
 * recursive, and this file is fuzzed (tests/fuzz/fuzz_s3_list.c).
 */
#include "xml_walk.h"
#include "../../util/buf.h"
#include "../../util/tg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct walk {
	const char *s;
	size_t n;
	const char *what;
	tg_buf text;      /* character data since the last tag */
	struct {
		const char *name; /* qualified name, in s */
		size_t len;
		size_t off;       /* of its start tag's '<' */
		int had_child;
	} stack[TG_XML_MAX_DEPTH];
	int depth;
};

int tg_xml_is(const char *name, size_t len, const char *s)
{
	return strlen(s) == len && !memcmp(name, s, len);
}

/* Up to 40 bytes of a name for a message, non-printable bytes as '?'. */
static void printable(char *out, size_t cap, const char *p, size_t len)
{
	size_t k = 0;
	for (size_t i = 0; i < len && k + 4 < cap && i < 40; i++)
		out[k++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	if (len > 40 && k + 4 < cap) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = 0;
}

static int fail(struct walk *w, size_t off, const char *reason)
{
	return tg_error_set(TG_EFORMAT, "%s: %s at byte %zu", w->what, reason, off);
}

static int fail_name(struct walk *w, size_t off, const char *fmt, const char *p, size_t len)
{
	char name[64], reason[128];
	printable(name, sizeof(name), p, len);
	snprintf(reason, sizeof(reason), fmt, name);
	return fail(w, off, reason);
}

static int text_add(struct walk *w, const char *p, size_t len, size_t off)
{
	if (w->text.len + len > TG_XML_MAX_TEXT)
		return fail(w, off, "character data longer than 65536 bytes");
	if (tg_buf_append(&w->text, p, len))
		return tg_error_set(TG_ENOMEM, "%s: out of memory", w->what);
	return 0;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A byte that may be part of a tag or attribute name. Names are not
 * checked against XML's Name production beyond this: the walker only
 * needs to find where they end. */
static int is_name(char c)
{
	return c && !is_ws(c) && c != '<' && c != '>' && c != '/' && c != '=' && c != '"' && c != '\'' &&
	       c != '&' && c != '?' && c != '!';
}

/* Offset of the first occurrence of pat at or after from, or n. */
static size_t find(const struct walk *w, size_t from, const char *pat)
{
	size_t pl = strlen(pat);
	for (size_t i = from; i + pl <= w->n; i++)
		if (w->s[i] == pat[0] && !memcmp(w->s + i, pat, pl))
			return i;
	return w->n;
}

static int starts(const struct walk *w, size_t i, const char *pat)
{
	size_t pl = strlen(pat);
	return i + pl <= w->n && !memcmp(w->s + i, pat, pl);
}

/* A code point allowed by XML 1.0's Char production. */
static int xml_char(uint32_t c)
{
	return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
	       (c >= 0x10000 && c <= 0x10FFFF);
}

static size_t utf8_put(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xC0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xE0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		o[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (c >> 18));
	o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
	o[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

/* Decodes the entity at s[i] == '&' into the text; *next: past its ';'. */
static int entity(struct walk *w, size_t i, size_t *next)
{
	size_t j = i + 1;
	while (j < w->n && j - i <= 12 && w->s[j] != ';')
		j++;
	if (j >= w->n || w->s[j] != ';')
		return fail(w, i, "'&' that starts no entity");
	const char *e = w->s + i + 1;
	size_t el = j - i - 1;
	*next = j + 1;
	static const struct {
		const char *name;
		char c;
	} named[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
	for (size_t k = 0; k < sizeof(named) / sizeof(named[0]); k++)
		if (tg_xml_is(e, el, named[k].name))
			return text_add(w, &named[k].c, 1, i);
	if (el < 2 || e[0] != '#')
		return fail_name(w, i, "unknown entity '&%s;'", e, el);
	uint32_t c = 0;
	int hex = e[1] == 'x';
	size_t d = hex ? 2 : 1;
	if (d >= el)
		return fail(w, i, "empty character reference");
	for (; d < el; d++) {
		char ch = e[d];
		uint32_t v;
		if (ch >= '0' && ch <= '9')
			v = (uint32_t)(ch - '0');
		else if (hex && ch >= 'a' && ch <= 'f')
			v = (uint32_t)(ch - 'a' + 10);
		else if (hex && ch >= 'A' && ch <= 'F')
			v = (uint32_t)(ch - 'A' + 10);
		else
			return fail(w, i, "bad character reference");
		c = c * (hex ? 16 : 10) + v;
		if (c > 0x10FFFF)
			return fail(w, i, "character reference beyond U+10FFFF");
	}
	if (!xml_char(c))
		return fail(w, i, "character reference to a character XML does not allow");
	char u[4];
	return text_add(w, u, utf8_put(u, c), i);
}

/* Character data from s[i] up to the next '<'. */
static int chars(struct walk *w, size_t i, size_t *next)
{
	while (i < w->n && w->s[i] != '<') {
		size_t run = i;
		while (run < w->n && w->s[run] != '<' && w->s[run] != '&') {
			unsigned char c = (unsigned char)w->s[run];
			if ((c < 0x20 && !is_ws((char)c)) || c == 0x7f)
				return fail(w, run, "control character");
			if (w->depth == 0 && !is_ws((char)c))
				return fail(w, run, "text outside the root element");
			run++;
		}
		if (w->depth > 0 && run > i) {
			int rc = text_add(w, w->s + i, run - i, i);
			if (rc)
				return rc;
		}
		i = run;
		if (i < w->n && w->s[i] == '&') {
			if (w->depth == 0)
				return fail(w, i, "text outside the root element");
			int rc = entity(w, i, &i);
			if (rc)
				return rc;
		}
	}
	*next = i;
	return 0;
}

static size_t skip_ws(const struct walk *w, size_t i)
{
	while (i < w->n && is_ws(w->s[i]))
		i++;
	return i;
}

static size_t name_end(const struct walk *w, size_t i)
{
	while (i < w->n && is_name(w->s[i]))
		i++;
	return i;
}

/* The local part of a qualified name ("s3:Key" -> "Key"). */
static void local_name(const char *p, size_t len, const char **lp, size_t *ll)
{
	const char *c = memrchr(p, ':', len);
	*lp = c ? c + 1 : p;
	*ll = c ? len - (size_t)(c + 1 - p) : len;
}

static int end_element(struct walk *w, const tg_xml_handler *h, void *ud)
{
	int d = w->depth;
	size_t off = w->stack[d - 1].off;
	const char *lp;
	size_t ll;
	local_name(w->stack[d - 1].name, w->stack[d - 1].len, &lp, &ll);
	int rc = 0;
	if (h->end)
		rc = h->end(ud, lp, ll, d, tg_buf_str(&w->text), w->text.len, !w->stack[d - 1].had_child, off);
	w->depth--;
	tg_buf_reset(&w->text);
	return rc;
}

/* The end tag at s[i] == '<', s[i+1] == '/'. */
static int end_tag(struct walk *w, const tg_xml_handler *h, void *ud, size_t i, size_t *next)
{
	size_t ns = i + 2, ne = name_end(w, ns);
	if (ne >= w->n)
		return fail(w, i, "unexpected end of input in an end tag");
	if (ne == ns)
		return fail(w, i, "end tag without a name");
	size_t j = skip_ws(w, ne);
	if (j >= w->n)
		return fail(w, i, "unexpected end of input in an end tag");
	if (w->s[j] != '>')
		return fail(w, j, "unexpected character in an end tag");
	if (w->depth == 0)
		return fail_name(w, i, "end tag </%s> without a start tag", w->s + ns, ne - ns);
	int d = w->depth;
	if (w->stack[d - 1].len != ne - ns || memcmp(w->stack[d - 1].name, w->s + ns, ne - ns))
		return fail_name(w, i, "end tag </%s> does not match its start tag", w->s + ns, ne - ns);
	*next = j + 1;
	return end_element(w, h, ud);
}

/* The start tag at s[i] == '<'. */
static int start_tag(struct walk *w, const tg_xml_handler *h, void *ud, size_t i, size_t *next, int *closed_root)
{
	size_t ns = i + 1, ne = name_end(w, ns);
	if (ne >= w->n)
		return fail(w, i, "unexpected end of input in a tag");
	if (ne == ns)
		return fail(w, i, "'<' that starts no tag");
	if (*closed_root)
		return fail(w, i, "a second root element");
	size_t j = ne;
	int empty = 0;
	for (;;) {
		size_t k = skip_ws(w, j);
		if (k >= w->n)
			return fail(w, i, "unexpected end of input in a tag");
		if (w->s[k] == '>') {
			j = k + 1;
			break;
		}
		if (w->s[k] == '/') {
			if (k + 1 >= w->n)
				return fail(w, i, "unexpected end of input in a tag");
			if (w->s[k + 1] != '>')
				return fail(w, k, "'/' not followed by '>' in a tag");
			j = k + 2;
			empty = 1;
			break;
		}
		if (k == j)
			return fail(w, k, "attributes must be separated by white space");
		size_t an = name_end(w, k);
		if (an == k)
			return fail(w, k, "unexpected character in a tag");
		size_t eq = skip_ws(w, an);
		if (eq >= w->n)
			return fail(w, i, "unexpected end of input in a tag");
		if (w->s[eq] != '=')
			return fail(w, eq, "attribute without '='");
		size_t q = skip_ws(w, eq + 1);
		if (q >= w->n)
			return fail(w, i, "unexpected end of input in a tag");
		if (w->s[q] != '"' && w->s[q] != '\'')
			return fail(w, q, "attribute value without quotes");
		size_t qe = q + 1;
		while (qe < w->n && w->s[qe] != w->s[q]) {
			if (w->s[qe] == '<' || w->s[qe] == 0)
				return fail(w, qe, "bad character in an attribute value");
			qe++;
		}
		if (qe >= w->n)
			return fail(w, i, "unexpected end of input in an attribute value");
		j = qe + 1;
	}
	if (w->depth >= TG_XML_MAX_DEPTH)
		return fail(w, i, "elements nested deeper than 64 levels");
	if (w->depth > 0)
		w->stack[w->depth - 1].had_child = 1;
	w->stack[w->depth].name = w->s + ns;
	w->stack[w->depth].len = ne - ns;
	w->stack[w->depth].off = i;
	w->stack[w->depth].had_child = 0;
	w->depth++;
	tg_buf_reset(&w->text);
	*next = j;
	const char *lp;
	size_t ll;
	local_name(w->s + ns, ne - ns, &lp, &ll);
	int rc = h->start ? h->start(ud, lp, ll, w->depth, i) : 0;
	if (rc)
		return rc;
	if (empty) {
		rc = end_element(w, h, ud);
		if (!rc && w->depth == 0)
			*closed_root = 1;
	}
	return rc;
}

static int walk(struct walk *w, const tg_xml_handler *h, void *ud)
{
	size_t i = 0;
	int closed_root = 0;
	if (w->n >= 3 && !memcmp(w->s, "\xEF\xBB\xBF", 3))
		i = 3; /* a UTF-8 byte order mark */
	while (i < w->n) {
		int rc = 0;
		if (w->s[i] != '<') {
			rc = chars(w, i, &i);
		} else if (starts(w, i, "<!--")) {
			size_t e = find(w, i + 4, "-->");
			if (e >= w->n)
				return fail(w, i, "unterminated comment");
			i = e + 3;
		} else if (starts(w, i, "<![CDATA[")) {
			if (w->depth == 0)
				return fail(w, i, "CDATA outside the root element");
			size_t e = find(w, i + 9, "]]>");
			if (e >= w->n)
				return fail(w, i, "unterminated CDATA section");
			for (size_t k = i + 9; k < e; k++) { /* raw, but XML's characters still */
				unsigned char c = (unsigned char)w->s[k];
				if ((c < 0x20 && !is_ws((char)c)) || c == 0x7f)
					return fail(w, k, "control character");
			}
			rc = text_add(w, w->s + i + 9, e - i - 9, i);
			i = e + 3;
		} else if (starts(w, i, "<?")) {
			size_t e = find(w, i + 2, "?>");
			if (e >= w->n)
				return fail(w, i, "unterminated processing instruction");
			i = e + 2;
		} else if (starts(w, i, "<!")) {
			return fail(w, i, "DOCTYPE and markup declarations are not accepted");
		} else if (i + 1 < w->n && w->s[i + 1] == '/') {
			rc = end_tag(w, h, ud, i, &i);
			if (!rc && w->depth == 0)
				closed_root = 1;
		} else {
			rc = start_tag(w, h, ud, i, &i, &closed_root);
		}
		if (rc)
			return rc;
	}
	if (w->depth > 0)
		return fail_name(w, w->n, "unexpected end of input (<%s> is not closed)", w->stack[w->depth - 1].name,
		                 w->stack[w->depth - 1].len);
	if (!closed_root)
		return fail(w, w->n, "no root element");
	return 0;
}

int tg_xml_walk(const char *xml, size_t len, const tg_xml_handler *h, void *ud, const char *what)
{
	struct walk *w = calloc(1, sizeof(*w));
	if (!w)
		return tg_error_set(TG_ENOMEM, "%s: out of memory", what);
	w->s = xml ? xml : "";
	w->n = xml ? len : 0;
	w->what = what;
	int rc = walk(w, h, ud);
	tg_buf_free(&w->text);
	free(w);
	return rc;
}
