/*
 * job.c - one run through its states (daemon_impl.h: tg_daemon_job_run).
 *
 *   seen       post "pending" (best effort), move to analysing
 *   analysing  (in a child process under the job's budgets: budget.c)
 *              read the run's traces into run data (side.c: once per
 *              trace, kept in the store), record its metrics, find the
 *              baseline, run the gate on the stored run data of both
 *              sides, keep what will be posted (the status and the
 *              comment) in the store, move to posting
 *   posting    post the status and upsert the comment (found again by its
 *              hidden marker, so a repeated post edits, never duplicates),
 *              move to done (or failed for a run that could not be judged)
 *
 * Every move is a compare-and-set on the job's state under its lease; a
 * daemon killed at any point leaves the job in the state of its last move,
 * and the next claim resumes there. What is posted is computed once and
 * kept in the store every daemon shares, so a resumed posting, by this
 * daemon or another, posts the same verdict without analysing again. A run that
 * cannot be judged (a malformed manifest or trace, a trace missing) gets an
 * "error" status saying why (fail closed); a failure that may pass (storage
 * or forge unreachable) leaves the job to be claimed again when its lease
 * expires, up to max_attempts claims.
 */
#include "../core/diff/divergence.h"
#include "../util/escape.h"
#include "accepts.h"
#include "history/branch_noise.h"
#include "history/history_base.h"
#include "daemon_impl.h"
#include "../util/log.h"
#include "repos.h"
#include "pool.h"
#include "publish.h"
#include "../util/scrub.h"
#include "../util/sha256.h"
#include "../util/util.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What is posted for a run. */
typedef struct outcome {
	tg_forge_state state;
	char verdict[16];    /* pass, warn, block, inconclusive (also: no baseline), error */
	char description[512];
	char summary[768];
	char *target_url;    /* owned, may be NULL */
	char *comment;       /* owned, NULL when nothing is commented */
	char baseline[41];   /* "" when none */
	int distance;
	char merge_base[41]; /* where the baseline search started ("" when none): a moved one is judged again */
	char target[256];    /* the target branch it was judged against (the forge's word), "" when none */
	int unjudged;        /* 0: a judgement (or an error); else 1 + its tg_unjudged_kind (on_unjudged) */
	char not_posted[256]; /* why nothing is posted (the forge disowns the pull request), "" to post */
} outcome;

static void outcome_free(outcome *o)
{
	free(o->target_url);
	free(o->comment);
	memset(o, 0, sizeof(*o));
}

/* The manifest's ci_url is the uploader's word: a link only when it starts
 * with one of the repository's ci_url_prefixes (none: never). */
static int ci_url_allowed(const tg_config_repo *r, const char *ci_url)
{
	for (size_t i = 0; ci_url && i < r->nci_url_prefixes; i++)
		if (!strncmp(ci_url, r->ci_url_prefixes[i], strlen(r->ci_url_prefixes[i])))
			return 1;
	return 0;
}

/* With a signing key, an untrusted run posts only on its own pull
 * request's commit, never on a branch build's (docs/security.md). */
static int may_post(const tg_daemon *d, const tg_job *j)
{
	return !d->cfg->storage.signing_key.value || j->trusted || j->pr > 0;
}

/* {repo} {commit} {workload} {run_id} substituted into the template. */
static char *details_url(const tg_config_repo *r, const tg_job *j, const char *ci_url)
{
	if (!r->details_url)
		return ci_url_allowed(r, ci_url) ? strdup(ci_url) : NULL;
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
static char *side_source(const tg_config_repo *r, const tg_job *j, const tg_manifest *m, size_t more_runs,
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
	if (m && m->ci_url && ci_url_allowed(r, m->ci_url)) {
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

/* ------------------------------------------------------------ persistence */

/* o as the JSON the store keeps (malloc'd), NULL when out of memory. */
static char *outcome_json(const outcome *o)
{
	json_t *root = json_pack("{s:s,s:s,s:s,s:s,s:s?,s:b,s:s,s:i}", "state", tg_forge_state_name(o->state),
	                         "verdict", o->verdict, "description", o->description, "summary", o->summary,
	                         "target_url", o->target_url, "comment", o->comment != NULL, "baseline",
	                         o->baseline, "distance", o->distance);
	if (root && ((o->not_posted[0] && json_object_set_new(root, "not_posted", json_string(o->not_posted))) ||
	             (o->merge_base[0] && json_object_set_new(root, "merge_base", json_string(o->merge_base))) ||
	             (o->target[0] && json_object_set_new(root, "target", json_string(o->target))) ||
	             (o->unjudged && json_object_set_new(root, "unjudged",
	                                                 json_string(tg_config_unjudged_name(o->unjudged - 1)))))) {
		json_decref(root);
		root = NULL;
	}
	char *text = root ? json_dumps(root, JSON_INDENT(1)) : NULL;
	json_decref(root);
	return text;
}

/* Keeps what job j posts in the store (tg_store_outcome_put), where any
 * daemon that resumes the job finds it; nothing is written to the state
 * folder. */
static int save_outcome(const tg_daemon *d, const tg_job *j, const outcome *o)
{
	char *text = outcome_json(o);
	if (!text)
		return tg_error_set(TG_ENOMEM, "out of memory");
	int rc = tg_store_outcome_put(d->store, j->id, text, o->comment);
	free(text);
	return rc;
}

/* o from the JSON text of an outcome (what names it in messages); the
 * comment (may be NULL) is copied. TG_ENOTFOUND when it is not one. */
static int outcome_parse(outcome *o, const char *text, const char *comment, const char *what)
{
	memset(o, 0, sizeof(*o));
	json_error_t err;
	json_t *root = json_loads(text, 0, &err);
	if (!root)
		return tg_error_set(TG_ENOTFOUND, "%s: %s", what, err.text);
	const char *state = "", *verdict = "", *desc = "", *summary = "", *url = NULL, *baseline = "";
	json_t *urlv = NULL;
	int has_comment = 0, distance = -1;
	int bad = json_unpack(root, "{s:s,s:s,s:s,s:s,s?o,s:b,s:s,s:i}", "state", &state, "verdict", &verdict,
	                      "description", &desc, "summary", &summary, "target_url", &urlv, "comment", &has_comment,
	                      "baseline", &baseline, "distance", &distance);
	if (!bad && json_is_string(urlv))
		url = json_string_value(urlv);
	const char *np = json_string_value(json_object_get(root, "not_posted"));
	if (!bad && np)
		snprintf(o->not_posted, sizeof(o->not_posted), "%s", np);
	const char *mb = json_string_value(json_object_get(root, "merge_base"));
	if (!bad && mb)
		snprintf(o->merge_base, sizeof(o->merge_base), "%s", mb);
	const char *tb = json_string_value(json_object_get(root, "target"));
	if (!bad && tb)
		snprintf(o->target, sizeof(o->target), "%s", tb);
	const char *uj = json_string_value(json_object_get(root, "unjudged"));
	for (int k = 0; !bad && uj && k < TG_UNJUDGED_KINDS; k++)
		if (!strcmp(uj, tg_config_unjudged_name((tg_unjudged_kind)k)))
			o->unjudged = 1 + k;
	if (!bad) {
		o->state = !strcmp(state, "success")   ? TG_FORGE_SUCCESS
		           : !strcmp(state, "failure") ? TG_FORGE_FAILURE
		           : !strcmp(state, "pending") ? TG_FORGE_PENDING
		                                       : TG_FORGE_ERROR;
		snprintf(o->verdict, sizeof(o->verdict), "%s", verdict);
		snprintf(o->description, sizeof(o->description), "%s", desc);
		snprintf(o->summary, sizeof(o->summary), "%s", summary);
		snprintf(o->baseline, sizeof(o->baseline), "%s", baseline);
		o->distance = distance;
		o->target_url = url ? strdup(url) : NULL;
	}
	json_decref(root);
	if (bad)
		return tg_error_set(TG_ENOTFOUND, "%s: not an outcome", what);
	if (has_comment && !comment)
		return tg_error_set(TG_ENOTFOUND, "%s: its comment is missing", what);
	if (has_comment && !(o->comment = strdup(comment))) {
		outcome_free(o);
		return TG_ENOMEM;
	}
	return 0;
}

/* The whole file at path (at most max bytes) as a string; -1 with errno
 * when it cannot be read. */
static int slurp(char **out, const char *path, size_t max)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 0, len = 0, got;
	char buf[65536];
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0 && len + got <= max) {
		if (tg_grow((void **)out, &cap, len + got + 1, 1)) {
			fclose(f);
			free(*out);
			*out = NULL;
			errno = ENOMEM;
			return -1;
		}
		memcpy(*out + len, buf, got);
		len += got;
		(*out)[len] = 0;
	}
	fclose(f);
	if (!*out || got) {
		free(*out);
		*out = NULL;
		errno = got ? EFBIG : ENODATA;
		return -1;
	}
	return 0;
}

/* What a daemon before the store kept outcomes left on disk:
 * <state>/jobs/<id>/outcome.json and comment.md (read, never written, so
 * that a job analysed before an upgrade is posted after it).
 * TG_ENOTFOUND when it is not there. */
static int load_outcome_files(const tg_daemon *d, const tg_job *j, outcome *o)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%lld/outcome.json", d->jobs_dir, (long long)j->id);
	char *text = NULL, *comment = NULL;
	if (slurp(&text, path, 1 << 20))
		return tg_error_set(TG_ENOTFOUND, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/%lld/comment.md", d->jobs_dir, (long long)j->id);
	if (slurp(&comment, path, 1 << 24))
		comment = NULL;
	int rc = outcome_parse(o, text, comment, path);
	free(text);
	free(comment);
	return rc;
}

/* Loads what analysing kept for job j (the store; else the files an older
 * daemon left); TG_ENOTFOUND when it is not there. */
static int load_outcome(const tg_daemon *d, const tg_job *j, outcome *o)
{
	memset(o, 0, sizeof(*o));
	char *text = NULL, *comment = NULL, what[64];
	int rc = tg_store_outcome_get(&text, &comment, d->store, j->id);
	if (rc == TG_ENOTFOUND)
		return load_outcome_files(d, j, o);
	if (rc)
		return rc;
	snprintf(what, sizeof(what), "job %lld's outcome", (long long)j->id);
	rc = outcome_parse(o, text, comment, what);
	free(text);
	free(comment);
	return rc;
}

/* ------------------------------------------------------------ posting */

/* The test hook (tg_daemon_test_stall) at point, for job j. */
static void stall(const tg_job *j, const char *point)
{
	tg_daemon_test_stall(point, j->id);
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

static void marker_of(char *buf, size_t cap, const tg_job *j)
{
	char w[72];
	safe_workload(w, j->workload);
	snprintf(buf, cap, "tracegate:%s", w);
}

/* Posts one status; neutral: the gate could not judge (tg_forge_status). */
static int post_status(tg_daemon *d, size_t ri, const tg_job *j, tg_forge_state state, const char *desc,
                       const char *url, const char *summary_md, int neutral)
{
	const tg_config_repo *r = &d->cfg->repos[ri];
	char context[512], w[72];
	safe_workload(w, j->workload);
	snprintf(context, sizeof(context), "%s/%s", r->status_context, w);
	tg_forge_status st = {j->repo, j->commit, state, context, desc, url, summary_md, neutral};
	return tg_forge_post_status(tg_daemon_forge(d, ri), &st);
}

/* Posts o's status and comment for j, or logs why nothing is posted
 * (*posted 0): a folder that is not a commit, an unsigned run of no pull
 * request while a signing key is configured, a pull request the forge
 * disowns, a run whose origin may not post (tg_daemon_origin_may_post).
 * Returns 0 or the forge's error. */
static int post(int *posted, tg_daemon *d, size_t ri, tg_job *j, const outcome *o)
{
	*posted = 0;
	if (!tg_util_is_hex(j->commit, 40)) {
		tg_log(TG_LOG_WARN, "job %lld: folder %s is not a commit: nothing posted", (long long)j->id, j->commit);
		return 0;
	}
	if (!may_post(d, j)) {
		tg_log(TG_LOG_WARN,
		       "job %lld: unsigned run of no pull request: judged, nothing posted, not a baseline (a target "
		       "branch's CI uploads with TRACEGATE_SIGNING_KEY set)",
		       (long long)j->id);
		return 0;
	}
	if (o->not_posted[0]) {
		tg_log(TG_LOG_WARN, "job %lld: %s: judged, nothing posted", (long long)j->id, o->not_posted);
		return 0;
	}
	char why[300];
	int ok = 1;
	int rc = tg_daemon_origin_may_post(&ok, why, sizeof(why), d, j);
	if (rc)
		return rc;
	if (!ok) {
		tg_log(TG_LOG_WARN, "job %lld: %s: judged, nothing posted", (long long)j->id, why);
		return 0;
	}
	/* not a judgement, and the operator chose success for it (on_unjudged):
	 * a check run says neutral */
	int neutral = o->state == TG_FORGE_SUCCESS && o->unjudged;
	rc = post_status(d, ri, j, o->state, o->description, o->target_url, o->comment, neutral);
	if (rc)
		return rc;
	*posted = 1;
	/* the verdict this pull request shows now is this one (recheck.c) */
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	j->posted_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	if (o->comment && j->pr > 0) {
		stall(j, "comment");
		char marker[600], line[700];
		marker_of(marker, sizeof(marker), j);
		snprintf(line, sizeof(line), "<!-- %s -->", marker);
		tg_forge_comment c = {j->repo, j->pr, line, o->comment};
		int64_t id = 0;
		int created = 0;
		if ((rc = tg_forge_upsert_comment(&id, &created, tg_daemon_forge(d, ri), &c)))
			return rc;
		j->comment_id = id;
		tg_log(TG_LOG_INFO, "job %lld: %s comment %lld on %s#%lld", (long long)j->id, created ? "created" : "updated",
		       (long long)id, j->repo, (long long)j->pr);
	}
	return 0;
}

/* ------------------------------------------------------------ analysing */

/* An outcome for a run that cannot be judged. The status description (140
 * characters on GitHub) names files relative to the run's folder; the
 * summary (logs, comment) keeps the whole message. */
static void set_error(outcome *o, const tg_job *j, const char *what, const char *msg)
{
	o->state = TG_FORGE_ERROR;
	snprintf(o->verdict, sizeof(o->verdict), "error");
	char shortmsg[512];
	size_t k = 0, pl = j->prefix ? strlen(j->prefix) : 0;
	for (const char *p = msg; *p && k + 1 < sizeof(shortmsg);) {
		if (pl && !strncmp(p, j->prefix, pl) && p[pl] == '/') {
			p += pl + 1;
			continue;
		}
		shortmsg[k++] = *p++;
	}
	shortmsg[k] = 0;
	snprintf(o->description, sizeof(o->description), "cannot judge: %.400s", shortmsg);
	snprintf(o->summary, sizeof(o->summary), "error: %.60s: %.600s", what, msg);
	tg_scrub_urls(o->description);
	tg_scrub_urls(o->summary);
}

/* The comment of a run that could not be judged. */
static char *error_comment(const tg_job *j, const outcome *o)
{
	char *s = NULL;
	char marker[600];
	marker_of(marker, sizeof(marker), j);
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
static char *no_baseline_comment(const tg_job *j, const char *title, const char *why, const tg_metric *m, size_t n)
{
	char *s = NULL;
	char marker[600];
	marker_of(marker, sizeof(marker), j);
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

/* Reads the run's manifest from the job. */
static int job_manifest(const tg_daemon *d, const tg_job *j, tg_manifest **m)
{
	char key[6000];
	snprintf(key, sizeof(key), "%s/manifest.json", j->prefix);
	return tg_manifest_parse(m, j->manifest ? j->manifest : "", j->manifest ? strlen(j->manifest) : 0, key,
	                         d->cfg->max_traces);
}

/* The run's numbers (run_metrics.h) from its run data, recorded in the
 * store for the history. */
static int record_metrics(tg_daemon *d, size_t ri, const tg_job *j, const tg_side *s, tg_metric **mm, size_t *nm)
{
	tg_atoms *keys = tg_atoms_new();
	tg_measure *m = NULL;
	int rc = keys ? tg_side_measure(&m, s, keys) : TG_ENOMEM;
	if (!rc) /* a run of nothing enters no history (TG_ENODATA: judge() posts the error) */
		rc = tg_measure_judgeable(m, "new");
	if (!rc)
		rc = tg_run_metrics(mm, nm, m, keys, d->rules[ri]);
	if (!rc)
		rc = tg_store_metrics_put(d->store, j->id, *mm, *nm);
	tg_measure_free(m);
	tg_atoms_free(keys);
	return rc;
}

/* Appends text (may be NULL) to the malloc'd string *s (may be NULL). */
static int append_text(char **s, const char *text)
{
	if (!text || !*text)
		return 0;
	size_t a = *s ? strlen(*s) : 0, b = strlen(text);
	char *n = realloc(*s, a + b + 1);
	if (!n)
		return tg_error_set(TG_ENOMEM, "out of memory");
	memcpy(n + a, text, b + 1);
	*s = n;
	return 0;
}

/* What one analysis holds while it runs (analyse); analysis_free frees it. */
struct analysis {
	tg_manifest *m;          /* the run's manifest */
	tg_side cur;             /* its run data and that of its commit's other runs */
	size_t more;             /* how many other runs of its commit joined cur */
	size_t left_out;         /* runs of either side's commit beyond limits.max_pool_bytes */
	tg_metric *mets;         /* its metrics, as recorded */
	size_t nmets;
	int found, distance;     /* a baseline found; its distance from the merge-base */
	char merge_base[41];
	char why[512];           /* why there is no baseline */
	int usable;              /* the baseline commit has a run that can be read (baseline_runs.c) */
	char *bnotes;            /* which of its runs were left out as tampered (markdown), NULL: none */
	tg_job base;             /* the baseline run */
	tg_manifest *bm;         /* its manifest */
	tg_side old;             /* its run data and that of its commit's other runs */
	size_t bmore;
	tg_accepts acc;          /* accepted regressions; acc.notes: the comment's notes */
	tg_branch_noise bn;
	tg_history_base hb;
	tg_gate *g;
	char *comment;           /* what is posted as the comment (owned until handed to the outcome) */
};

static void analysis_free(struct analysis *a)
{
	free(a->comment);
	free(a->bnotes);
	tg_accepts_free(&a->acc);
	tg_branch_noise_free(&a->bn);
	tg_history_base_free(&a->hb);
	tg_gate_free(a->g);
	tg_side_free(&a->old);
	tg_side_free(&a->cur);
	tg_manifest_free(a->bm);
	tg_job_clear(&a->base);
	tg_run_metrics_free(a->mets, a->nmets);
	tg_manifest_free(a->m);
}

/* Whether o holds a verdict already (an error, waiting, no baseline): the
 * analysis stops there. */
static int decided(const outcome *o)
{
	return o->verdict[0] != 0;
}

/* Reads the run's manifest and traces into a. A malformed manifest or
 * trace decides o (error); storage that may come back is returned. */
static int load_run(struct analysis *a, tg_daemon *d, const tg_config_repo *r, const tg_job *j, outcome *o)
{
	if (job_manifest(d, j, &a->m)) {
		set_error(o, j, "bad manifest", tg_error_last());
		return 0;
	}
	o->target_url = details_url(r, j, a->m->ci_url);
	int permanent = 0;
	int rc = tg_side_load(&a->cur, &permanent, d, j, a->m, TG_SIDE_KEEP_TREES);
	if (rc && permanent) {
		set_error(o, j, "bad trace", tg_error_last());
		return 0;
	}
	return rc;
}

/* The JSON a side may hold once its commit's other runs join it
 * (limits.max_pool_bytes, both sides together): the new side pools up to
 * half of it, the base side up to what the new side left; the judged run
 * and the baseline run themselves always count. */
static uint64_t pool_cap(const struct analysis *a, const tg_daemon *d, int base_side)
{
	uint64_t cap = d->cfg->max_pool_bytes;
	if (!base_side)
		return cap / 2;
	return a->cur.json_bytes < cap ? cap - a->cur.json_bytes : 0;
}

/* The other runs of this commit join the side (pool.h) when they carry
 * the same proof of origin (origin.c): a signed run pools signed runs,
 * a pull request's run the runs of the same confirmed CI run; any other
 * run is judged alone. As many join as limits.max_pool_bytes leaves room
 * for. */
static int pool_commit_runs(struct analysis *a, tg_daemon *d, const tg_job *j)
{
	tg_pool_filter f;
	a->more = 0;
	if (!tg_daemon_pool_filter(&f, d, j))
		return 0;
	size_t left_over = 0;
	int rc = tg_pool_runs(&a->cur, &a->more, &left_over, d, j, &f, TG_POOL_MAX_RUNS - 1, pool_cap(a, d, 0));
	a->left_out += left_over;
	return rc;
}

/* o is not a judgement of kind k: the state repository r chose for it
 * (on_unjudged), the verdict inconclusive. */
static void set_unjudged(outcome *o, const tg_config_repo *r, tg_unjudged_kind k)
{
	o->state = tg_daemon_unjudged_state(r, k);
	o->unjudged = 1 + (int)k;
	snprintf(o->verdict, sizeof(o->verdict), "inconclusive");
}

/* Fewer than runs_per_commit runs of this commit: o says it waits for
 * them. */
static void set_waiting(outcome *o, const tg_config_repo *r, size_t runs)
{
	set_unjudged(o, r, TG_UNJUDGED_WAITING);
	snprintf(o->description, sizeof(o->description), "waiting for runs: %zu of %d runs of this commit", runs,
	         r->runs_per_commit);
	snprintf(o->summary, sizeof(o->summary), "%s", o->description);
}

/* Finds the baseline (baseline.c) and reads the newest usable run of its
 * commit and that commit's other usable runs into a (baseline_runs.c:
 * runs that cannot be read are recorded as tampered; none usable: a->usable
 * 0, a->why names them). A branch name git refuses comes from the
 * manifest: the run is at fault and o is decided (error). */
static int load_baseline(struct analysis *a, tg_daemon *d, size_t ri, const tg_job *j, outcome *o)
{
	int rc = tg_daemon_find_baseline(&a->base, &a->found, &a->distance, a->merge_base, a->why, sizeof(a->why), d,
	                                 ri, j);
	snprintf(o->merge_base, sizeof(o->merge_base), "%s", a->merge_base);
	if (rc == TG_EINVAL) {
		set_error(o, j, "bad branch", tg_error_last());
		return 0;
	}
	if (rc || !a->found)
		return rc;
	size_t left_over = 0;
	rc = tg_daemon_baseline_side(&a->base, &a->bm, &a->old, &a->bmore, &left_over, &a->usable, &a->bnotes, a->why,
	                             sizeof(a->why), pool_cap(a, d, 1), d);
	a->left_out += left_over;
	return rc;
}

/* No baseline, or none usable (title says which): o says why, in the state
 * the repository chose for it, and a pull request gets the run's numbers
 * as its comment. */
static int set_no_baseline(outcome *o, struct analysis *a, const tg_config_repo *r, const tg_job *j)
{
	tg_unjudged_kind k = a->found ? TG_UNJUDGED_BASELINE_UNUSABLE : TG_UNJUDGED_NO_BASELINE;
	const char *title = a->found ? "baseline unusable" : "no baseline";
	set_unjudged(o, r, k);
	snprintf(o->description, sizeof(o->description), "%s: %.480s", title, a->why);
	snprintf(o->summary, sizeof(o->summary), "%s: %.700s", title, a->why);
	if (a->found)
		snprintf(o->baseline, sizeof(o->baseline), "%s", a->base.commit);
	if (j->pr > 0 && !(a->comment = no_baseline_comment(j, title, a->why, a->mets, a->nmets)))
		return tg_error_set(TG_ENOMEM, "out of memory");
	return 0;
}

/* What the gate weighs besides the two sides: the accepted regressions,
 * the target branch's noise and change points (branch_noise.h) and its
 * runs since its last change point as more base runs (history_base.h;
 * their noise is in them, not counted twice). Their notes go to
 * a->acc.notes. */
static int gather_evidence(struct analysis *a, tg_daemon *d, size_t ri, const tg_job *j)
{
	int rc = tg_accepts_gather(&a->acc, d, ri, j);
	if (rc)
		return rc;
	const char *target = j->target_branch && *j->target_branch ? j->target_branch : j->branch;
	const char *fingerprint = tg_branch_noise_fingerprint(a->mets, a->nmets);
	const tg_history_key key = {j->repo, target, j->workload, NULL, fingerprint};
	const tg_branch_noise_opts no = {j->id, d->rules[ri], TG_BRANCH_NOISE_WINDOW};
	if ((rc = tg_branch_noise_find(&a->bn, d->store, &key, &no)) ||
	    (rc = append_text(&a->acc.notes, a->bn.text)))
		return rc;
	const tg_history_base_opts bo = {a->base.id, a->base.commit, j->commit, 1 + a->bmore, d->rules[ri],
	                                 TG_BRANCH_NOISE_WINDOW};
	if ((rc = tg_history_base_find(&a->hb, d->store, &key, &bo)) ||
	    (rc = append_text(&a->acc.notes, a->hb.text)) || (rc = append_text(&a->acc.notes, a->bnotes)))
		return rc;
	tg_history_base_drop_noise(a->bn.noise, &a->bn.n, &a->hb);
	if (a->left_out) {
		char note[256];
		snprintf(note, sizeof(note),
		         "%zu more run%s of these commits left out: the judgement holds at most limits.max_pool_bytes "
		         "(%llu bytes) of JSON.\n\n",
		         a->left_out, a->left_out == 1 ? "" : "s", (unsigned long long)d->cfg->max_pool_bytes);
		if ((rc = append_text(&a->acc.notes, note)))
			return rc;
	}
	return 0;
}

/* The rules of repository ri judge the run against its baseline. */
static int run_gate(struct analysis *a, tg_daemon *d, size_t ri)
{
	tg_gate_opts go = {.accepts = a->acc.a,
	                   .naccepts = a->acc.n,
	                   .rule_noise = a->bn.noise,
	                   .nrule_noise = a->bn.n,
	                   .rule_base_runs = a->hb.runs,
	                   .nrule_base_runs = a->hb.n};
	/* the findings across the base side's ranks (the new side's are known) */
	int rc = tg_side_across(&a->old, d, ri);
	tg_gate_data base = tg_side_gate_data(&a->old), next = tg_side_gate_data(&a->cur);
	return rc ? rc : tg_gate_run_data(&a->g, d->rules[ri], &base, &next, &go);
}

/* The comment: the gate's tables (at most max_comment_bytes), where each
 * side came from, and what comment.c adds after them. */
static int write_comment(struct analysis *a, tg_daemon *d, const tg_config_repo *r, const tg_job *j)
{
	char *extra = NULL, *base_src = NULL, *new_src = NULL;
	int rc = tg_daemon_comment_extra(&extra, d, r, j, a->g, a->acc.notes);
	if (rc)
		return rc;
	char marker[600];
	marker_of(marker, sizeof(marker), j);
	tg_diff_doc doc = tg_gate_doc(a->g, (const char *const *)a->old.names, a->old.n,
	                              (const char *const *)a->cur.names, a->cur.n, marker, extra);
	char base_why[160];
	tg_daemon_baseline_why(base_why, sizeof(base_why), j, &a->base, a->distance, a->merge_base);
	if (!(base_src = side_source(r, &a->base, a->bm, a->bmore, base_why)) ||
	    !(new_src = side_source(r, j, a->m, a->more, NULL))) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
		goto out;
	}
	doc.base_source = base_src;
	doc.new_source = new_src;
	doc.docs_url = d->cfg->docs_url; /* NULL: the build's */
	size_t clen = 0;
	FILE *f = open_memstream(&a->comment, &clen);
	if (!f) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
		goto out;
	}
	rc = tg_diff_write_md(f, &doc, (size_t)d->cfg->max_comment_bytes);
	if (fclose(f) && !rc)
		rc = tg_error_set(TG_ENOMEM, "out of memory");
out:
	free(extra);
	free(base_src);
	free(new_src);
	return rc;
}

/* The gate's verdict into o: a block fails the status, a pass or a warn
 * succeeds; an inconclusive gate is no judgement (not comparable, or too
 * few samples): the state the repository chose for it (on_unjudged). */
static void set_verdict(outcome *o, const struct analysis *a, const tg_config_repo *r)
{
	const tg_judgement *jm = tg_gate_judgement(a->g);
	tg_verdict v = tg_gate_verdict(a->g);
	const char *summary = tg_judgement_summary(jm), *why = NULL;
	if (v == TG_VERDICT_INCONCLUSIVE)
		set_unjudged(o, r, tg_judgement_comparable(jm, &why) ? TG_UNJUDGED_INCONCLUSIVE : TG_UNJUDGED_NOT_COMPARABLE);
	else
		o->state = v == TG_VERDICT_BLOCK ? TG_FORGE_FAILURE : TG_FORGE_SUCCESS;
	snprintf(o->verdict, sizeof(o->verdict), "%s", tg_verdict_name(v));
	snprintf(o->summary, sizeof(o->summary), "%s", summary);
	snprintf(o->description, sizeof(o->description), "%s", summary);
	snprintf(o->baseline, sizeof(o->baseline), "%s", a->base.commit);
	o->distance = a->distance;
}

/* A side with nothing to judge (tg_measure_judgeable, a rule's events
 * missing on one side: TG_ENODATA): an error status naming it, at once
 * (no retry: the run will not change). Returns 0. */
static int nothing_to_judge(outcome *o, const tg_job *j)
{
	set_error(o, j, "run", tg_error_last());
	return 0;
}

/* The steps of analyse, each ending the analysis when it decides o. */
static int judge(struct analysis *a, tg_daemon *d, size_t ri, const tg_job *j, outcome *o)
{
	const tg_config_repo *r = &d->cfg->repos[ri];
	int rc;
	if ((rc = load_run(a, d, r, j, o)) || decided(o))
		return rc;
	rc = record_metrics(d, ri, j, &a->cur, &a->mets, &a->nmets);
	if (rc == TG_ENODATA) /* nothing to judge is not a pass: the run is at fault */
		return nothing_to_judge(o, j);
	if (rc || (rc = pool_commit_runs(a, d, j)))
		return rc;
	if ((int)(1 + a->more) < r->runs_per_commit) {
		set_waiting(o, r, 1 + a->more);
		return 0;
	}
	/* the findings across the new side's ranks (its trees freed) before the
	 * baseline is read */
	if ((rc = tg_side_across(&a->cur, d, ri)) || (rc = load_baseline(a, d, ri, j, o)) || decided(o))
		return rc;
	if (!a->found || !a->usable)
		return set_no_baseline(o, a, r, j);
	if ((rc = gather_evidence(a, d, ri, j)) || (rc = run_gate(a, d, ri)) || (rc = write_comment(a, d, r, j)))
		return rc == TG_ENODATA ? nothing_to_judge(o, j) : rc;
	set_verdict(o, a, r);
	return 0;
}

/* Analyses job j into o. Returns 0 with o filled (an error outcome for a
 * run that cannot be judged), or a code for a failure worth retrying. */
static int analyse(tg_daemon *d, size_t ri, tg_job *j, outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->distance = -1;
	/* the pull request as the forge has it: open, this commit its head, and
	 * the branch it merges into (the baseline's) */
	int pr_ok = 1;
	int rc = tg_daemon_pr_check(&pr_ok, o->not_posted, sizeof(o->not_posted), d, ri, j);
	/* and the CI run the manifest names, if the forge confirms it ran on
	 * this head for this pull request: the runs this one may pool with */
	if (!rc && pr_ok)
		rc = tg_daemon_origin_check(d, ri, j);
	if (rc)
		return rc;
	snprintf(o->target, sizeof(o->target), "%s", j->target_branch ? j->target_branch : "");
	struct analysis a;
	memset(&a, 0, sizeof(a));
	a.distance = -1;
	rc = judge(&a, d, ri, j, o);
	if (!rc) {
		o->comment = a.comment;
		a.comment = NULL;
		/* what is posted and stored names no URL's userinfo (a clone_url's token) */
		tg_scrub_urls(o->description);
		tg_scrub_urls(o->summary);
		tg_scrub_urls(o->comment);
	}
	analysis_free(&a);
	return rc;
}

/* ------------------------------------------------------------ the states */



static int advance(tg_daemon *d, tg_job *j, tg_job_state to, const char *error)
{
	int rc = tg_store_job_advance(d->store, j->id, d->owner, j->state, to, error);
	if (rc == TG_ENOTFOUND)
		tg_log(TG_LOG_WARN, "job %lld: lost its lease in state %s: left to its new holder", (long long)j->id,
		       tg_job_state_name(j->state));
	if (!rc) {
		j->state = to;
		tg_daemon_mark_step(d, j);
	}
	return rc;
}

/* Whether pull request run j may post before it is judged (its pending
 * status, the error of giving up): not when its CI run is not confirmed
 * and runs of a confirmed CI run have judged its head (origin.c), nor when
 * the forge or the store cannot tell now (logged; what names the post).
 * The forge is asked only when such runs exist. */
static int origin_may_post(tg_daemon *d, size_t ri, tg_job *j, const char *what)
{
	int ok = 1;
	char why[300];
	if (j->pr <= 0)
		return 1;
	j->origin_ok = 0;
	int rc = tg_daemon_origin_may_post(&ok, why, sizeof(why), d, j);
	if (!rc && !ok) { /* runs of a confirmed CI run judged this head: is j's confirmed too? */
		rc = tg_daemon_origin_check(d, ri, j);
		ok = !rc && j->origin_ok;
	}
	if (rc) {
		tg_log(TG_LOG_WARN, "job %lld: %s (%s)", (long long)j->id, tg_error_last(), what);
		return 0;
	}
	if (!ok)
		tg_log(TG_LOG_INFO, "job %lld: %s (%s)", (long long)j->id, why, what);
	return ok;
}

/* The job has been claimed too often: post an error (best effort) and fail it. */
static int give_up(tg_daemon *d, size_t ri, tg_job *j)
{
	char msg[1024];
	snprintf(msg, sizeof(msg), "gave up after %d attempts (%s)", j->attempts - 1,
	         j->error ? j->error : "the daemon stopped while working on it");
	tg_scrub_urls(msg);
	tg_log(TG_LOG_ERROR, "job %lld (%s): %s", (long long)j->id, j->prefix, msg);
	outcome o;
	memset(&o, 0, sizeof(o));
	set_error(&o, j, "tracegate", msg);
	int pr_ok = 1;
	char pr_why[256];
	if (tg_util_is_hex(j->commit, 40) && may_post(d, j) &&
	    tg_daemon_pr_check(&pr_ok, pr_why, sizeof(pr_why), d, ri, j))
		pr_ok = 0; /* the forge cannot confirm the pull request: post nothing */
	if (tg_util_is_hex(j->commit, 40) && may_post(d, j) && pr_ok && origin_may_post(d, ri, j, "no error status") &&
	    post_status(d, ri, j, o.state, o.description, NULL, NULL, 0))
		tg_log(TG_LOG_WARN, "job %lld: %s", (long long)j->id, tg_error_last());
	tg_job r = *j;
	r.verdict = (char *)"error";
	r.summary = o.summary;
	tg_store_job_set_result(d->store, j->id, &r);
	int rc = advance(d, j, TG_JOB_FAILED, msg);
	if (!rc)
		tg_daemon_count_finished(d, j, "error", o.summary);
	return rc;
}

/* Analyses j into o (analyse), with the comment of a pull request's run
 * that could not be judged. Returns 0, or a code worth retrying (o is then
 * freed). */
static int analyse_outcome(tg_daemon *d, size_t ri, tg_job *j, outcome *o)
{
	int rc = analyse(d, ri, j, o);
	if (rc == TG_ENOMEM && d->in_child && tg_daemon_budget_memory_applies()) {
		/* an allocation went past daemon.job_memory: this run fails alone */
		char why[300];
		tg_daemon_budget_why(why, sizeof(why), d, NULL, 1);
		tg_log(TG_LOG_ERROR, "job %lld (%s): %s", (long long)j->id, j->prefix, why);
		outcome_free(o);
		o->distance = -1;
		set_error(o, j, "budget", why);
		rc = 0;
	}
	if (!rc && !o->comment && j->pr > 0 && !strcmp(o->verdict, "error") && !(o->comment = error_comment(j, o)))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	if (rc)
		outcome_free(o);
	return rc;
}

/* Records o's verdict on job j in the store. */
static int store_result(tg_daemon *d, const tg_job *j, const outcome *o)
{
	tg_job res = *j;
	res.verdict = (char *)o->verdict;
	res.summary = (char *)o->summary;
	res.baseline_commit = o->baseline[0] ? (char *)o->baseline : NULL;
	res.baseline_distance = o->distance;
	/* what it was judged against: a pull request retargeted, or whose
	 * merge-base moved, is judged again (recheck.c) */
	res.judged_target = o->target[0] ? (char *)o->target : NULL;
	res.judged_merge_base = o->merge_base[0] ? (char *)o->merge_base : NULL;
	return tg_store_job_set_result(d->store, j->id, &res);
}

/* seen: posts the "pending" status, best effort (a forge that fails or
 * disowns the pull request is logged, not retried). */
static void post_pending(tg_daemon *d, size_t ri, const tg_config_repo *r, tg_job *j)
{
	if (!tg_util_is_hex(j->commit, 40) || !may_post(d, j))
		return;
	int pr_ok = 1;
	char pr_why[256];
	if (tg_daemon_pr_check(&pr_ok, pr_why, sizeof(pr_why), d, ri, j)) {
		tg_log(TG_LOG_WARN, "job %lld: pull request %lld: %s (no pending status)", (long long)j->id,
		       (long long)j->pr, tg_error_last());
		return;
	}
	if (!pr_ok || !origin_may_post(d, ri, j, "no pending status"))
		return;
	char desc[256];
	snprintf(desc, sizeof(desc), "tracegate is analysing %s", j->workload);
	tg_manifest *m = NULL;
	char *url = NULL;
	if (!job_manifest(d, j, &m))
		url = details_url(r, j, m->ci_url);
	if (post_status(d, ri, j, TG_FORGE_PENDING, desc, url, NULL, 0))
		tg_log(TG_LOG_WARN, "job %lld: pending status: %s", (long long)j->id, tg_error_last());
	free(url);
	tg_manifest_free(m);
}

/* analysing: analyses j into o, keeps o (in the store) and moves j to
 * posting. A job whose move fails stays in its state, o freed: 0 when its
 * lease went to another daemon (TG_ENOTFOUND), else the code. */
static int analyse_job(tg_daemon *d, size_t ri, tg_job *j, outcome *o)
{
	stall(j, "analysing");
	tg_log(TG_LOG_INFO, "job %lld: analysing %s", (long long)j->id, j->prefix);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = analyse_outcome(d, ri, j, o);
	if (rc)
		return rc;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tg_log(TG_LOG_INFO, "job %lld: analysed in %.1f ms", (long long)j->id,
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	if ((rc = save_outcome(d, j, o)) || (rc = store_result(d, j, o)) || (rc = advance(d, j, TG_JOB_POSTING, NULL))) {
		outcome_free(o);
		return rc == TG_ENOTFOUND ? 0 : rc;
	}
	tg_log(TG_LOG_INFO, "job %lld: %s", (long long)j->id, o->summary);
	return 0;
}

/* What a job's child process does (budget.c): analyse j (state analysing)
 * and move it to posting, or (a job in posting whose outcome was never
 * kept) analyse it and keep the outcome. Either way the outcome ends up in
 * the store, where the daemon reads it. */
struct in_child {
	size_t ri;
	int keep_only; /* the job is in posting already */
};

static int analyse_in_child(tg_daemon *d, tg_job *j, void *arg)
{
	const struct in_child *c = arg;
	outcome o;
	memset(&o, 0, sizeof(o));
	int rc;
	if (!c->keep_only) {
		rc = analyse_job(d, c->ri, j, &o);
	} else if (!(rc = analyse_outcome(d, c->ri, j, &o))) {
		rc = save_outcome(d, j, &o);
	}
	outcome_free(&o);
	return rc;
}

/* A job whose analysis went over its budget (b), still in state (the
 * child died, or was killed, before it moved the job): its outcome is an
 * error saying which budget, kept, and the job moved to posting (from
 * analysing) to be posted like any run that cannot be judged. */
static int over_budget(tg_daemon *d, tg_job *j, const tg_daemon_budget *b)
{
	char why[300];
	tg_daemon_budget_why(why, sizeof(why), d, b, 0);
	tg_log(TG_LOG_ERROR, "job %lld (%s): %s", (long long)j->id, j->prefix, why);
	outcome o;
	memset(&o, 0, sizeof(o));
	o.distance = -1;
	set_error(&o, j, "budget", why);
	int rc = j->pr > 0 && !(o.comment = error_comment(j, &o)) ? tg_error_set(TG_ENOMEM, "out of memory") : 0;
	if (!rc)
		rc = save_outcome(d, j, &o);
	if (!rc)
		rc = store_result(d, j, &o);
	if (!rc && j->state == TG_JOB_ANALYSING)
		rc = advance(d, j, TG_JOB_POSTING, NULL);
	outcome_free(&o);
	return rc == TG_ENOTFOUND ? 0 : rc;
}

/* Runs the analysis of job j (repository ri) in a child under the job's
 * budgets (budget.c); afterwards j is the store's (the child's changes). keep_only: j is
 * in posting and needs its outcome computed again. Returns 0 (j moved on,
 * or failed alone over its budget), or a code worth retrying (d->blocker
 * set when it waits for another job). */
static int analyse_budgeted(tg_daemon *d, size_t ri, tg_job *j, int keep_only)
{
	struct in_child arg = {ri, keep_only};
	tg_daemon_budget b;
	int rc = tg_daemon_budget_run(&b, d, j, analyse_in_child, &arg);
	if (rc)
		return rc;
	if (b.over == TG_BUDGET_NONE && b.rc) {
		d->blocker = b.blocker;
		return b.rc; /* its message is set */
	}
	if (b.over == TG_BUDGET_NONE)
		tg_metrics_observe(d->metrics, TG_DM_ANALYSIS_SECONDS, NULL, NULL, (double)b.ms / 1e3);
	/* the job as the child left it: its state, and what its analysis
	 * learnt (the confirmed CI run, what it was judged against) */
	tg_job now;
	if ((rc = tg_store_job_get(&now, d->store, j->id)))
		return rc;
	tg_job_clear(j);
	*j = now;
	if (b.over != TG_BUDGET_NONE && (j->state == TG_JOB_ANALYSING || keep_only))
		return over_budget(d, j, &b);
	return 0;
}

/* posting: what analysing kept for j in the store, whichever daemon (or
 * child) analysed it; taken_over: this claim found j in posting (a daemon
 * taking over a killed one's job: it posts what was computed, logged, and
 * does not analyse again). Only when nothing was kept (a job analysed by a
 * tracegate before the store kept outcomes, its state folder gone) is it
 * analysed again, under its budgets, and what is computed kept. */
static int resume_outcome(tg_daemon *d, size_t ri, tg_job *j, outcome *o, int taken_over)
{
	if (!load_outcome(d, j, o)) {
		if (taken_over)
			tg_log(TG_LOG_INFO, "job %lld: posting the outcome kept in the store (%s), not analysing again",
			       (long long)j->id, o->verdict);
		return 0;
	}
	tg_log(TG_LOG_WARN, "job %lld: %s; analysing again", (long long)j->id, tg_error_last());
	int rc = analyse_budgeted(d, ri, j, 1);
	return rc ? rc : load_outcome(d, j, o);
}

/* The last line of a job: what was posted, or that nothing was (post
 * said why), never "posted" for a run whose status stayed unposted. */
static void log_finished(const tg_job *j, const outcome *o, int posted, int failed)
{
	if (posted)
		tg_log(TG_LOG_INFO, "job %lld: posted %s (%s)", (long long)j->id, tg_forge_state_name(o->state),
		       o->verdict);
	else
		tg_log(TG_LOG_INFO, "job %lld: %s (%s), nothing posted", (long long)j->id, failed ? "failed" : "done",
		       o->verdict);
}

/* posting: posts o and finishes j: done, or failed for a run that could
 * not be judged. */
static int post_and_finish(tg_daemon *d, size_t ri, tg_job *j, const outcome *o)
{
	stall(j, "posting");
	int rc, posted = 0;
	if ((rc = post(&posted, d, ri, j, o)) || (rc = store_result(d, j, o)))
		return rc;
	int failed = !strcmp(o->verdict, "error");
	rc = advance(d, j, failed ? TG_JOB_FAILED : TG_JOB_DONE, failed ? o->summary : NULL);
	if (!rc) {
		log_finished(j, o, posted, failed);
		tg_daemon_count_finished(d, j, o->verdict, o->summary);
		if (!failed)
			tg_daemon_publish_run(d, j);
	}
	return rc == TG_ENOTFOUND ? 0 : rc;
}

int tg_daemon_job_run(tg_daemon *d, tg_job *j)
{
	size_t ri = 0;
	const tg_config_repo *r = tg_daemon_repo(&ri, d, j->repo);
	if (!r) {
		tg_log(TG_LOG_WARN, "job %lld: repository %s is no longer configured", (long long)j->id, j->repo);
		tg_daemon_count_refused(d, TG_REFUSED_NOT_CONFIGURED);
		return advance(d, j, TG_JOB_FAILED, "repository not configured");
	}
	if (j->attempts > d->cfg->max_attempts)
		return give_up(d, ri, j);
	int rc = 0;
	if (j->state == TG_JOB_SEEN) {
		stall(j, "seen");
		post_pending(d, ri, r, j);
		if ((rc = advance(d, j, TG_JOB_ANALYSING, NULL)))
			return rc == TG_ENOTFOUND ? 0 : rc;
	}
	int taken_over = j->state == TG_JOB_POSTING;
	if (j->state == TG_JOB_ANALYSING && (rc = analyse_budgeted(d, ri, j, 0)))
		return rc;
	if (j->state != TG_JOB_POSTING)
		return 0; /* done or failed, or handed on */
	outcome o;
	memset(&o, 0, sizeof(o));
	if ((rc = resume_outcome(d, ri, j, &o, taken_over)))
		return rc;
	rc = post_and_finish(d, ri, j, &o);
	outcome_free(&o);
	return rc;
}
