/*
 * s3_list.c - reads one ListObjectsV2 answer (a ListBucketResult document)
 * into objects and the continuation token: tg_s3_parse_list of s3.h.
 *
 * Purpose-written over xml_walk.c, because no XML library is in the
 * project's dependency list (DESIGN.md, "Libraries"). It takes what AWS,
 * Ceph radosgw and s3rver send: any order of elements, white space and
 * pretty-printing, namespace prefixes, unknown elements (Owner,
 * StorageClass, ChecksumAlgorithm, ... ignored), entities and CDATA. Only
 * direct children count: ListBucketResult/Contents/{Key,Size,ETag,
 * LastModified}, ListBucketResult/{IsTruncated,NextContinuationToken}.
 * Everything else that is wrong is TG_EFORMAT with a byte offset.
 * tg_s3_objects_free is here too, so that the fuzzer links without libcurl.
 */
#include "s3.h"
#include "xml_walk.h"
#include "../../util/tg.h"

#include <stdlib.h>
#include <string.h>

#define WHAT "S3 ListBucketResult"

struct list {
	tg_s3_object **objs;
	size_t *n, *cap;
	int in_contents;
	tg_s3_object cur;
	int truncated;
	char *token;
};

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* text without leading and trailing white space: *p, *len */
static void trim(const char **p, size_t *len)
{
	while (*len && is_ws(**p)) {
		(*p)++;
		(*len)--;
	}
	while (*len && is_ws((*p)[*len - 1]))
		(*len)--;
}

static int bad(const char *what, size_t off)
{
	return tg_error_set(TG_EFORMAT, WHAT ": %s at byte %zu", what, off);
}

static int dup_text(char **out, const char *p, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		return tg_error_set(TG_ENOMEM, WHAT ": out of memory");
	memcpy(s, p, len);
	s[len] = 0;
	free(*out);
	*out = s;
	return 0;
}

static int parse_u64(uint64_t *out, const char *p, size_t len)
{
	trim(&p, &len);
	if (!len || len > 20)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		uint64_t d = (uint64_t)(p[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* n decimal digits at p, into *v. */
static int digits(const char *p, size_t len, size_t at, size_t n, int *v)
{
	if (at + n > len)
		return -1;
	*v = 0;
	for (size_t i = at; i < at + n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		*v = *v * 10 + (p[i] - '0');
	}
	return 0;
}

/* ISO 8601 as S3 writes it: "2026-11-22T10:20:30.000Z"; fractions, a
 * "+hh:mm" / "-hhmm" offset, or no zone (UTC) are accepted too. */
static int parse_time(int64_t *out, const char *p, size_t len)
{
	trim(&p, &len);
	int y, mo, d, h, mi, s;
	if (digits(p, len, 0, 4, &y) || len < 19 || p[4] != '-' || digits(p, len, 5, 2, &mo) || p[7] != '-' ||
	    digits(p, len, 8, 2, &d) || (p[10] != 'T' && p[10] != 't' && p[10] != ' ') ||
	    digits(p, len, 11, 2, &h) || p[13] != ':' || digits(p, len, 14, 2, &mi) || p[16] != ':' ||
	    digits(p, len, 17, 2, &s))
		return -1;
	static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap) || h > 23 ||
	    mi > 59 || s > 60)
		return -1;
	size_t i = 19;
	if (i < len && p[i] == '.') {
		i++;
		size_t f = i;
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == f)
			return -1;
	}
	int64_t off = 0;
	if (i < len && (p[i] == 'Z' || p[i] == 'z')) {
		i++;
	} else if (i < len && (p[i] == '+' || p[i] == '-')) {
		int sign = p[i] == '-' ? -1 : 1, oh, om;
		i++;
		if (digits(p, len, i, 2, &oh))
			return -1;
		i += 2;
		if (i < len && p[i] == ':')
			i++;
		if (digits(p, len, i, 2, &om) || oh > 23 || om > 59)
			return -1;
		i += 2;
		off = sign * (oh * 3600 + om * 60);
	}
	if (i != len)
		return -1;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - off;
	return 0;
}

static int on_start(void *ud, const char *name, size_t len, int depth, size_t off)
{
	struct list *l = ud;
	if (depth == 1 && !tg_xml_is(name, len, "ListBucketResult")) {
		char n[48];
		size_t k = 0;
		for (size_t i = 0; i < len && k < 40; i++)
			n[k++] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
		n[k] = 0;
		return tg_error_set(TG_EFORMAT, WHAT ": the root element is <%s>, not <ListBucketResult> at byte %zu", n,
		                    off);
	}
	if (depth == 2 && tg_xml_is(name, len, "Contents")) {
		l->in_contents = 1;
		memset(&l->cur, 0, sizeof(l->cur));
	}
	return 0;
}

static int contents_field(struct list *l, const char *name, size_t len, const char *text, size_t tlen,
                          int leaf, size_t off)
{
	int is_key = tg_xml_is(name, len, "Key"), is_size = tg_xml_is(name, len, "Size");
	int is_etag = tg_xml_is(name, len, "ETag"), is_mtime = tg_xml_is(name, len, "LastModified");
	if (!is_key && !is_size && !is_etag && !is_mtime)
		return 0;
	if (!leaf)
		return bad("an element inside a <Contents> field", off);
	if (is_key) {
		if (!tlen)
			return bad("empty <Key>", off);
		return dup_text(&l->cur.key, text, tlen);
	}
	if (is_size)
		return parse_u64(&l->cur.size, text, tlen) ? bad("<Size> is not a byte count", off) : 0;
	if (is_mtime)
		return parse_time(&l->cur.mtime, text, tlen) ? bad("<LastModified> is not an ISO 8601 time", off) : 0;
	/* ETag: '"hex"' (or &quot;hex&quot;) -> hex */
	trim(&text, &tlen);
	if (tlen && text[0] == '"') {
		text++;
		tlen--;
	}
	if (tlen && text[tlen - 1] == '"')
		tlen--;
	return dup_text(&l->cur.etag, text, tlen);
}

static int on_end(void *ud, const char *name, size_t len, int depth, const char *text, size_t tlen, int leaf,
                  size_t off)
{
	struct list *l = ud;
	if (depth == 3 && l->in_contents)
		return contents_field(l, name, len, text, tlen, leaf, off);
	if (depth != 2)
		return 0;
	if (tg_xml_is(name, len, "Contents")) {
		l->in_contents = 0;
		if (!l->cur.key)
			return bad("<Contents> without a <Key>", off);
		if (tg_grow((void **)l->objs, l->cap, *l->n + 1, sizeof(tg_s3_object)))
			return TG_ENOMEM;
		(*l->objs)[(*l->n)++] = l->cur;
		memset(&l->cur, 0, sizeof(l->cur));
	} else if (tg_xml_is(name, len, "IsTruncated")) {
		trim(&text, &tlen);
		if (!leaf || !(tg_xml_is(text, tlen, "true") || tg_xml_is(text, tlen, "false")))
			return bad("<IsTruncated> is neither true nor false", off);
		l->truncated = tlen == 4;
	} else if (tg_xml_is(name, len, "NextContinuationToken")) {
		if (!leaf)
			return bad("an element inside <NextContinuationToken>", off);
		return dup_text(&l->token, text, tlen);
	}
	return 0;
}

void tg_s3_objects_free(tg_s3_object *o, size_t n)
{
	for (size_t i = 0; o && i < n; i++) {
		free(o[i].key);
		free(o[i].etag);
	}
	free(o);
}

int tg_s3_parse_list(tg_s3_object **objs, size_t *n, size_t *cap, char **next_token, const char *xml, size_t len)
{
	*next_token = NULL;
	size_t n0 = *n;
	struct list l = {objs, n, cap, 0, {0}, 0, NULL};
	static const tg_xml_handler h = {on_start, on_end};
	int rc = tg_xml_walk(xml, len, &h, &l, WHAT);
	if (!rc && l.truncated && (!l.token || !*l.token))
		rc = bad("<IsTruncated> is true but there is no <NextContinuationToken>", len);
	free(l.cur.key);
	free(l.cur.etag);
	if (rc) {
		free(l.token);
		for (size_t i = n0; i < *n; i++) {
			free((*objs)[i].key);
			free((*objs)[i].etag);
		}
		*n = n0;
		return rc;
	}
	if (l.truncated)
		*next_token = l.token;
	else
		free(l.token);
	return 0;
}
