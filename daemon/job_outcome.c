/*
 * job_outcome.c - what is posted for a run (job_impl.h: tg_job_outcome):
 * the decisions that fill it (a run that cannot be judged, one that is not
 * a judgement under on_unjudged, one waiting for its commit's runs, a
 * judgement's verdict), and the outcome kept in the store as JSON and
 * loaded again (or read from the files a daemon before the store kept
 * outcomes left), so that a resumed posting posts the same verdict without
 * analysing again.
 */
#include "job_impl.h"
#include "../util/scrub.h"
#include "../util/util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tg_job_outcome_free(tg_job_outcome *o)
{
	free(o->target_url);
	free(o->comment);
	memset(o, 0, sizeof(*o));
}

/* ------------------------------------------------------------ decisions */

/* An outcome for a run that cannot be judged. The status description (140
 * characters on GitHub) names files relative to the run's folder; the
 * summary (logs, comment) keeps the whole message. */
void tg_job_outcome_error(tg_job_outcome *o, const tg_job *j, const char *what, const char *msg)
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

/* o is not a judgement of kind k: the state repository r chose for it
 * (on_unjudged), the verdict inconclusive. */
void tg_job_outcome_unjudged(tg_job_outcome *o, const tg_config_repo *r, tg_unjudged_kind k)
{
	o->state = tg_daemon_unjudged_state(r, k);
	o->unjudged = 1 + (int)k;
	snprintf(o->verdict, sizeof(o->verdict), "inconclusive");
}

/* Fewer than runs_per_commit runs of this commit: o says it waits for
 * them. */
void tg_job_outcome_waiting(tg_job_outcome *o, const tg_config_repo *r, size_t runs)
{
	tg_job_outcome_unjudged(o, r, TG_UNJUDGED_WAITING);
	snprintf(o->description, sizeof(o->description), "waiting for runs: %zu of %d runs of this commit", runs,
	         r->runs_per_commit);
	snprintf(o->summary, sizeof(o->summary), "%s", o->description);
}

void tg_job_outcome_verdict(tg_job_outcome *o, const tg_config_repo *r, tg_verdict v, int comparable,
                            const char *summary, const char *baseline, int distance)
{
	if (v == TG_VERDICT_INCONCLUSIVE)
		tg_job_outcome_unjudged(o, r, comparable ? TG_UNJUDGED_INCONCLUSIVE : TG_UNJUDGED_NOT_COMPARABLE);
	else
		o->state = v == TG_VERDICT_BLOCK ? TG_FORGE_FAILURE : TG_FORGE_SUCCESS;
	snprintf(o->verdict, sizeof(o->verdict), "%s", tg_verdict_name(v));
	snprintf(o->summary, sizeof(o->summary), "%s", summary ? summary : "");
	snprintf(o->description, sizeof(o->description), "%s", summary ? summary : "");
	snprintf(o->baseline, sizeof(o->baseline), "%s", baseline ? baseline : "");
	o->distance = distance;
}

/* ------------------------------------------------------------ persistence */

char *tg_job_outcome_json(const tg_job_outcome *o)
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

/* Nothing is written to the state folder: any daemon that resumes the job
 * finds the outcome in the store. */
int tg_job_outcome_save(tg_store *s, const tg_job *j, const tg_job_outcome *o)
{
	char *text = tg_job_outcome_json(o);
	if (!text)
		return tg_error_set(TG_ENOMEM, "out of memory");
	int rc = tg_store_outcome_put(s, j->id, text, o->comment);
	free(text);
	return rc;
}

int tg_job_outcome_parse(tg_job_outcome *o, const char *text, const char *comment, const char *what)
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
		tg_job_outcome_free(o);
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
static int load_outcome_files(tg_job_outcome *o, const char *jobs_dir, const tg_job *j)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%lld/outcome.json", jobs_dir, (long long)j->id);
	char *text = NULL, *comment = NULL;
	if (slurp(&text, path, 1 << 20))
		return tg_error_set(TG_ENOTFOUND, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/%lld/comment.md", jobs_dir, (long long)j->id);
	if (slurp(&comment, path, 1 << 24))
		comment = NULL;
	int rc = tg_job_outcome_parse(o, text, comment, path);
	free(text);
	free(comment);
	return rc;
}

int tg_job_outcome_load(tg_job_outcome *o, tg_store *s, const char *jobs_dir, const tg_job *j)
{
	memset(o, 0, sizeof(*o));
	char *text = NULL, *comment = NULL, what[64];
	int rc = tg_store_outcome_get(&text, &comment, s, j->id);
	if (rc == TG_ENOTFOUND)
		return load_outcome_files(o, jobs_dir, j);
	if (rc)
		return rc;
	snprintf(what, sizeof(what), "job %lld's outcome", (long long)j->id);
	rc = tg_job_outcome_parse(o, text, comment, what);
	free(text);
	free(comment);
	return rc;
}

int tg_job_outcome_store(tg_store *s, const tg_job *j, const tg_job_outcome *o)
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
	return tg_store_job_set_result(s, j->id, &res);
}
