/*
 * job_text.c - the words a job posts besides its verdict (job_impl.h): the
 * comment's hidden marker and the status context (the workload as a name,
 * else a hash of it: a run's folder is anyone's text), the details link
 * (the repository's details_url template, or the manifest's ci_url when
 * the operator allowed its prefix), where each side of the comparison
 * comes from, and the comments of a run that could not be judged or has
 * no usable baseline. Every uploader's word is escaped.
 */
#include "job_impl.h"
#include "../net/http.h"
#include "../util/escape.h"
#include "../util/sha256.h"
#include "../util/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The manifest's ci_url is the uploader's word: a link only when it starts
 * with one of the repository's ci_url_prefixes (none: never). */
int tg_job_ci_url_allowed(const tg_config_repo *r, const char *ci_url)
{
	for (size_t i = 0; ci_url && i < r->nci_url_prefixes; i++)
		if (!strncmp(ci_url, r->ci_url_prefixes[i], strlen(r->ci_url_prefixes[i])))
			return 1;
	return 0;
}

/* {repo} {commit} {workload} {run_id} substituted into the template. */
char *tg_job_details_url(const tg_config_repo *r, const tg_job *j, const char *ci_url)
{
	if (!r->details_url)
		return tg_job_ci_url_allowed(r, ci_url) ? strdup(ci_url) : NULL;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (const char *p = r->details_url; *p; p++) {
		const char *v = NULL;
		size_t skip = 0;
		if (!strncmp(p, "{repo}", 6))
			v = j->repo, skip = 6;
		else if (!strncmp(p, "{commit}", 8))
			v = j->commit, skip = 8;
		else if (!strncmp(p, "{workload}", 10))
			v = j->workload, skip = 10;
		else if (!strncmp(p, "{run_id}", 8))
			v = j->run_id, skip = 8;
		if (v) {
			char *e = tg_http_escape(v, 1);
			fputs(e ? e : "", f);
			free(e);
			p += skip - 1;
		} else {
			fputc(*p, f);
		}
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* Where a side of the comparison comes from, as the comment's "source"
 * cell: the short commit, the branch (or pull request), why it is the
 * baseline (why, markdown; NULL or "" for none), the run id, how
 * many more runs of that commit were pooled, and a link to the CI run when
 * the manifest's ci_url is allowed (ci_url_prefixes; docs/security.md).
 * Every uploader's word is escaped. NULL when out of memory. */
char *tg_job_side_source(const tg_config_repo *r, const tg_job *j, const tg_manifest *m, size_t more_runs,
                         const char *why)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	fprintf(f, "<code>%.7s</code>", tg_util_is_hex(j->commit, 40) ? j->commit : "?");
	if (j->pr > 0) {
		fprintf(f, " (pull request %lld", (long long)j->pr);
		if (j->branch && *j->branch) {
			fputs(", ", f);
			tg_md_code(f, j->branch);
		}
		fputs(")", f);
	} else if (j->branch && *j->branch) {
		fputs(" on ", f);
		tg_md_code(f, j->branch);
	}
	if (why && *why)
		fprintf(f, " (%s)", why);
	fputs(", run ", f);
	tg_md_code(f, j->run_id ? j->run_id : "?");
	if (more_runs)
		fprintf(f, " and %zu more run%s of this commit", more_runs, more_runs == 1 ? "" : "s");
	if (m && m->ci_url && tg_job_ci_url_allowed(r, m->ci_url)) {
		/* a link the operator allowed: escaped for the attribute, and left
		 * whole (tg_html_attr_escape's breaks would cut the URL) */
		fputs(", <a href=\"", f);
		for (const char *p = m->ci_url; *p; p++) {
			if (*p == '&')
				fputs("&amp;", f);
			else if (*p == '"' || *p == '\'' || *p == '<' || *p == '>' || *p == '|' || *p == ' ' ||
			         (unsigned char)*p < 0x20 || *p == 0x7f)
				fprintf(f, "%%%02X", (unsigned char)*p);
			else
				putc(*p, f);
		}
		fputs("\">CI</a>", f);
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* The workload as a marker or a status context may hold it: itself when
 * it is a name ([A-Za-z0-9._-]{1,64}), else "h-" and 16 hex digits of its
 * SHA-256 (the folder of a run with a bad manifest is anyone's text), or
 * "x-" and its 64-bit tg_hash_bytes when libcrypto cannot allocate. */
static void safe_workload(char out[72], const char *w)
{
	size_t n = 0;
	while (w[n] && n <= 64 && (isalnum((unsigned char)w[n]) || strchr("._-", w[n])))
		n++;
	if (n && n <= 64 && !w[n]) {
		memcpy(out, w, n + 1);
		return;
	}
	uint8_t dig[TG_SHA256_LEN];
	char hex[TG_SHA256_HEX_LEN + 1];
	if (tg_sha256(dig, w, strlen(w))) {
		/* libcrypto out of memory: a hash that cannot fail, under another
		 * prefix, so that two names never share a marker meanwhile */
		snprintf(out, 72, "x-%016llx", (unsigned long long)tg_hash_bytes(w, strlen(w)));
		return;
	}
	tg_sha256_hex(hex, dig);
	snprintf(out, 72, "h-%.16s", hex);
}

void tg_job_marker(char *buf, size_t cap, const tg_job *j)
{
	char w[72];
	safe_workload(w, j->workload);
	snprintf(buf, cap, "tracegate:%s", w);
}

void tg_job_status_context(char *buf, size_t cap, const tg_config_repo *r, const tg_job *j)
{
	char w[72];
	safe_workload(w, j->workload);
	snprintf(buf, cap, "%s/%s", r->status_context, w);
}

/* The comment of a run that could not be judged. */
char *tg_job_error_comment(const tg_job *j, const tg_job_outcome *o)
{
	char *s = NULL;
	char marker[600];
	tg_job_marker(marker, sizeof(marker), j);
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	fprintf(f, "<!-- %s -->\n### \xe2\x9d\x97 tracegate: could not judge ", marker);
	tg_md_code(f, j->workload);
	fputs("\n\n", f);
	tg_md_escape(f, o->summary);
	fputs("\n\nThe commit status is `error` until a new run of this workload can be judged.\n\n<sub>tracegate " TG_VERSION
	      "</sub>\n",
	      f);
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

/* The comment of a run without a usable baseline: its numbers, and why
 * (title: "no baseline", "baseline unusable"). */
char *tg_job_no_baseline_comment(const tg_job *j, const char *title, const char *why, const tg_metric *m, size_t n)
{
	char *s = NULL;
	char marker[600];
	tg_job_marker(marker, sizeof(marker), j);
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	fprintf(f, "<!-- %s -->\n### \xe2\x9a\xaa tracegate: %s for ", marker, title);
	tg_md_code(f, j->workload);
	fputs("\n\nNothing to compare with: ", f);
	tg_md_escape(f, why);
	fputs(". The numbers of this run are recorded; the next run of this workload on the target branch becomes "
	      "a baseline.\n\n| metric | per step |\n| --- | ---: |\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(m[i].name, "rule:", 5))
			continue;
		fputs("| ", f);
		tg_md_escape(f, m[i].name);
		fprintf(f, " | %.6g |\n", m[i].value);
	}
	fputs("\n<sub>tracegate " TG_VERSION "</sub>\n", f);
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}
