/*
 * manifest.c - parsing and checking a run's manifest.json (manifest.h).
 */
#include "manifest.h"
#include "../util/tg.h"
#include "storage/storage.h"
#include "../util/util.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_MAX_TRACES 64

void tg_manifest_free(tg_manifest *m)
{
	if (!m)
		return;
	free(m->repo);
	free(m->commit);
	free(m->branch);
	free(m->target_branch);
	free(m->workload);
	free(m->run_id);
	free(m->ci_url);
	free(m->created_at_text);
	free(m->signature);
	free(m->ci_run);
	free(m->prefix);
	for (size_t i = 0; i < m->ntraces; i++)
		free(m->traces[i].path);
	free(m->traces);
	free(m);
}

/* A printable excerpt of an untrusted string for messages. */
static void excerpt(char *buf, size_t cap, const char *s)
{
	size_t k = 0;
	for (const char *p = s; *p && k + 5 < cap; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(buf + k, cap - k, "\\x%02x", c);
		else
			buf[k++] = (char)c;
	}
	if (strlen(s) > k && k + 4 < cap) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = 0;
}

static int fail(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tg_error_set(TG_EFORMAT, "%s: %s", key, msg);
}

/* The string member name of o, or NULL after setting an error (required)
 * or when absent (optional: *absent = 1). */
static int get_str(const char **out, const json_t *o, const char *name, int required, const char *key)
{
	*out = NULL;
	json_t *v = json_object_get(o, name);
	if (!v || json_is_null(v)) {
		if (required)
			return fail(key, "'%s' is missing", name);
		return 0;
	}
	if (!json_is_string(v))
		return fail(key, "'%s' must be a string", name);
	const char *s = json_string_value(v);
	if (!*s)
		return fail(key, "'%s' is empty", name);
	if (strlen(s) > 1024)
		return fail(key, "'%s' is longer than 1024 bytes", name);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return fail(key, "'%s' contains a control character", name);
	*out = s;
	return 0;
}

/* RFC 3339 / ISO 8601 "2026-11-23T18:00:00Z" (fraction and offset allowed). */
static int parse_time(int64_t *out, const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return -1;
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p))
			p++;
	}
	int64_t off = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p == '-' ? -1 : 1;
		int hh, mm;
		if (sscanf(p + 1, "%2d:%2d", &hh, &mm) != 2)
			return -1;
		off = sign * (hh * 3600 + mm * 60);
		p += 6;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	*out = (int64_t)timegm(&tm) - off;
	return 0;
}

/* Splits key into its five folder segments; returns 0 or -1 (not a
 * manifest key). */
static int key_segments(char seg[5][TG_UTIL_SEGMENT_MAX + 1], const char *key)
{
	if (!tg_storage_key_ok(key))
		return -1;
	const char *rest = tg_util_path_segments(seg, 5, key);
	return rest && !strcmp(rest, "manifest.json") ? 0 : -1;
}

int tg_manifest_name_ok(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];
		if (n >= 64 || !(isalnum(c) || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return n > 0;
}

static int check_trace_path(const char *key, size_t i, const char *path)
{
	char ex[128];
	excerpt(ex, sizeof(ex), path);
	if (!tg_storage_key_ok(path))
		return fail(key, "traces[%zu].path '%s' must be a relative path inside the run's folder "
		                 "(no '..', '.', empty segment, leading '/', or backslash)",
		            i, ex);
	if (!strcmp(path, "manifest.json"))
		return fail(key, "traces[%zu].path names the manifest itself", i);
	return 0;
}

static int dup(char **out, const char *s)
{
	if (!s) {
		*out = NULL;
		return 0;
	}
	*out = strdup(s);
	return *out ? 0 : tg_error_set(TG_ENOMEM, "out of memory");
}

/* The manifest's string members, borrowed from its JSON (NULL: absent). */
struct fields {
	const char *schema, *repo, *commit, *branch, *target, *workload, *run_id, *ci_url, *created, *sig, *ci_run;
};

/* The error of a manifest the daemon could not read (TG_MANIFEST_UNREADABLE
 * and why, len bytes, not NUL-terminated). */
static int unreadable(const char *key, const char *json, size_t len)
{
	char why[400], ex[512];
	size_t n = len - 1 < sizeof(why) - 1 ? len - 1 : sizeof(why) - 1;
	memcpy(why, json + 1, n);
	why[n] = 0;
	excerpt(ex, sizeof(ex), why);
	return fail(key, "manifest not read: %s", ex);
}

/* The schema and the string members of root into f. */
static int read_fields(struct fields *f, const json_t *root, const char *key)
{
	int rc;
	if (!json_is_object(root))
		return fail(key, "expected a JSON object");
	if ((rc = get_str(&f->schema, root, "schema", 1, key)))
		return rc;
	if (strcmp(f->schema, TG_MANIFEST_SCHEMA)) {
		char ex[128];
		excerpt(ex, sizeof(ex), f->schema);
		return fail(key, "schema '%s' is not " TG_MANIFEST_SCHEMA, ex);
	}
	if ((rc = get_str(&f->repo, root, "repo", 1, key)) || (rc = get_str(&f->commit, root, "commit", 1, key)) ||
	    (rc = get_str(&f->branch, root, "branch", 1, key)) ||
	    (rc = get_str(&f->target, root, "target_branch", 0, key)) ||
	    (rc = get_str(&f->workload, root, "workload", 1, key)) ||
	    (rc = get_str(&f->run_id, root, "run_id", 1, key)) || (rc = get_str(&f->ci_url, root, "ci_url", 0, key)) ||
	    (rc = get_str(&f->created, root, "created_at", 0, key)) || (rc = get_str(&f->sig, root, "signature", 0, key)) ||
	    (rc = get_str(&f->ci_run, root, "ci_run", 0, key)))
		return rc;
	return 0;
}

/* The members that name the run agree with its folders seg (the commit
 * case-insensitively) and are well-formed names; ci_url is http(s). */
static int check_fields(const struct fields *f, char seg[5][TG_UTIL_SEGMENT_MAX + 1], const char *key)
{
	char folder_repo[2100], ex[128];
	/* each segment is at most TG_UTIL_SEGMENT_MAX bytes: the precision
	 * only tells the compiler */
	snprintf(folder_repo, sizeof(folder_repo), "%.*s/%.*s", TG_UTIL_SEGMENT_MAX, seg[0],
	         TG_UTIL_SEGMENT_MAX, seg[1]);
	if (strcmp(f->repo, folder_repo)) {
		excerpt(ex, sizeof(ex), f->repo);
		return fail(key, "repo '%s' does not match the folder (%s)", ex, folder_repo);
	}
	if (!tg_util_is_hex(f->commit, 40)) {
		excerpt(ex, sizeof(ex), f->commit);
		return fail(key, "commit '%s' is not 40 hexadecimal digits", ex);
	}
	if (strcasecmp(f->commit, seg[2]))
		return fail(key, "commit does not match the folder (%s)", seg[2]);
	if (!tg_manifest_name_ok(f->workload)) {
		excerpt(ex, sizeof(ex), f->workload);
		return fail(key, "workload '%s' must be 1 to 64 of A-Z a-z 0-9 . _ -", ex);
	}
	if (!tg_manifest_name_ok(f->run_id)) {
		excerpt(ex, sizeof(ex), f->run_id);
		return fail(key, "run_id '%s' must be 1 to 64 of A-Z a-z 0-9 . _ -", ex);
	}
	if (strcmp(f->workload, seg[3])) {
		excerpt(ex, sizeof(ex), f->workload);
		return fail(key, "workload '%s' does not match the folder (%s)", ex, seg[3]);
	}
	if (strcmp(f->run_id, seg[4])) {
		excerpt(ex, sizeof(ex), f->run_id);
		return fail(key, "run_id '%s' does not match the folder (%s)", ex, seg[4]);
	}
	if (f->ci_url && strncmp(f->ci_url, "https://", 8) && strncmp(f->ci_url, "http://", 7))
		return fail(key, "ci_url must be an http(s) URL");
	if (f->ci_run && !tg_manifest_name_ok(f->ci_run)) {
		excerpt(ex, sizeof(ex), f->ci_run);
		return fail(key, "ci_run '%s' must be 1 to 64 of A-Z a-z 0-9 . _ -", ex);
	}
	return 0;
}

/* pull_request (a positive integer or null) and created_at into m. */
static int read_pr_and_time(tg_manifest *m, const json_t *root, const char *created, const char *key)
{
	json_t *pr = json_object_get(root, "pull_request");
	if (pr && !json_is_null(pr)) {
		if (!json_is_integer(pr) || json_integer_value(pr) <= 0)
			return fail(key, "pull_request must be a positive integer (or null)");
		m->pr = (int64_t)json_integer_value(pr);
	}
	if (created && parse_time(&m->created_at, created)) {
		char ex[128];
		excerpt(ex, sizeof(ex), created);
		return fail(key, "created_at '%s' is not an RFC 3339 time such as 2026-11-23T18:00:00Z", ex);
	}
	return 0;
}

/* Trace i (object t) appended to m->traces: its path (checked, not
 * repeated), rank (not repeated) and sha256 (64 lower-case hex digits). */
static int read_trace(tg_manifest *m, const json_t *t, size_t i, const char *key)
{
	if (!json_is_object(t))
		return fail(key, "traces[%zu] must be an object with a path", i);
	json_t *pv = json_object_get(t, "path");
	if (!pv || !json_is_string(pv) || !*json_string_value(pv))
		return fail(key, "traces[%zu].path must be a non-empty string", i);
	const char *path = json_string_value(pv);
	int rc = check_trace_path(key, i, path);
	if (rc)
		return rc;
	for (size_t k = 0; k < m->ntraces; k++)
		if (!strcmp(m->traces[k].path, path))
			return fail(key, "traces[%zu].path repeats traces[%zu]", i, k);
	int64_t rank = -1;
	json_t *rv = json_object_get(t, "rank");
	if (rv && !json_is_null(rv)) {
		if (!json_is_integer(rv) || json_integer_value(rv) < 0 || json_integer_value(rv) > 1000000)
			return fail(key, "traces[%zu].rank must be an integer >= 0", i);
		rank = (int64_t)json_integer_value(rv);
		for (size_t k = 0; k < m->ntraces; k++)
			if (m->traces[k].rank == rank)
				return fail(key, "traces[%zu].rank %lld repeats traces[%zu]", i, (long long)rank, k);
	}
	json_t *hv = json_object_get(t, "sha256");
	if (hv && !json_is_null(hv)) {
		const char *h = json_is_string(hv) ? json_string_value(hv) : "";
		size_t hl = 0;
		while (h[hl] && ((h[hl] >= '0' && h[hl] <= '9') || (h[hl] >= 'a' && h[hl] <= 'f')))
			hl++;
		if (hl != 64 || h[hl])
			return fail(key, "traces[%zu].sha256 must be 64 lower-case hexadecimal digits", i);
		memcpy(m->traces[m->ntraces].sha256, h, 65);
	}
	if ((rc = dup(&m->traces[m->ntraces].path, path)))
		return rc;
	m->traces[m->ntraces++].rank = rank;
	return 0;
}

/* The traces list of root (1 to max_traces of them) into m. */
static int read_traces(tg_manifest *m, const json_t *root, uint32_t max_traces, const char *key)
{
	json_t *tr = json_object_get(root, "traces");
	if (!tr)
		return fail(key, "'traces' is missing");
	if (!json_is_array(tr) || json_array_size(tr) == 0)
		return fail(key, "'traces' must be a non-empty list");
	if (json_array_size(tr) > max_traces)
		return fail(key, "%zu traces, more than the limit of %u", json_array_size(tr), max_traces);
	m->traces = tg_calloc(json_array_size(tr), sizeof(*m->traces));
	if (!m->traces)
		return TG_ENOMEM;
	for (size_t i = 0; i < json_array_size(tr); i++) {
		int rc = read_trace(m, json_array_get(tr, i), i, key);
		if (rc)
			return rc;
	}
	return 0;
}

/* Copies f's members and the run's folder (seg) into m, the commit in
 * lower case. */
static int keep_fields(tg_manifest *m, const struct fields *f, char seg[5][TG_UTIL_SEGMENT_MAX + 1])
{
	char prefix[5 * 1026];
	snprintf(prefix, sizeof(prefix), "%s/%s/%s/%s/%s", seg[0], seg[1], seg[2], seg[3], seg[4]);
	int rc;
	if ((rc = dup(&m->repo, f->repo)) || (rc = dup(&m->commit, f->commit)) || (rc = dup(&m->branch, f->branch)) ||
	    (rc = dup(&m->target_branch, f->target)) || (rc = dup(&m->workload, f->workload)) ||
	    (rc = dup(&m->run_id, f->run_id)) || (rc = dup(&m->ci_url, f->ci_url)) || (rc = dup(&m->prefix, prefix)) ||
	    (rc = dup(&m->created_at_text, f->created)) || (rc = dup(&m->signature, f->sig)) ||
	    (rc = dup(&m->ci_run, f->ci_run)))
		return rc;
	for (char *p = m->commit; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return 0;
}

int tg_manifest_parse(tg_manifest **out, const char *json, size_t len, const char *key, uint32_t max_traces)
{
	*out = NULL;
	if (!max_traces)
		max_traces = DEFAULT_MAX_TRACES;
	char seg[5][TG_UTIL_SEGMENT_MAX + 1];
	if (key_segments(seg, key))
		return fail(key, "not at <owner>/<repo>/<commit>/<workload>/<run-id>/manifest.json");
	if (len && json[0] == TG_MANIFEST_UNREADABLE[0])
		return unreadable(key, json, len);
	json_error_t err;
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		/* jansson quotes the input near the error, control characters too */
		char ex[4 * JSON_ERROR_TEXT_LENGTH];
		excerpt(ex, sizeof(ex), err.text);
		return fail(key, "%d:%d: bad JSON: %s", err.line, err.column, ex);
	}
	tg_manifest *m = tg_calloc(1, sizeof(*m));
	if (!m) {
		json_decref(root);
		return TG_ENOMEM;
	}
	struct fields f;
	memset(&f, 0, sizeof(f));
	int rc;
	if ((rc = read_fields(&f, root, key)) || (rc = check_fields(&f, seg, key)) ||
	    (rc = read_pr_and_time(m, root, f.created, key)) || (rc = read_traces(m, root, max_traces, key)) ||
	    (rc = keep_fields(m, &f, seg))) {
		json_decref(root);
		tg_manifest_free(m);
		return rc;
	}
	json_decref(root);
	*out = m;
	return 0;
}

char *tg_manifest_trace_key(const tg_manifest *m, size_t i)
{
	char *k = NULL;
	if (i >= m->ntraces || asprintf(&k, "%s/%s", m->prefix, m->traces[i].path) < 0) {
		tg_error_set(TG_ENOMEM, "out of memory");
		return NULL;
	}
	return k;
}
