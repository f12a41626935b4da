/*
 * job_analyse.c - a job's analysis (job_impl.h: tg_job_analyse): the pull
 * request and the origin as the forge has them, the run's traces read
 * into run data and its metrics recorded, its commit's other runs pooled
 * (as many as limits.max_pool_bytes leaves room for), the baseline found
 * and read, the evidence besides the two sides (accepted regressions, the
 * target branch's noise and runs since its last change point), the gate
 * run and the comment written. Each step either leaves the outcome
 * undecided and the next one runs, or decides it (an error, waiting for
 * runs, no baseline) and the analysis stops there.
 */
#include "job_impl.h"
#include "accepts.h"
#include "history/branch_noise.h"
#include "history/history_base.h"
#include "pool.h"
#include "../util/buf.h"
#include "../util/scrub.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tg_job_manifest(tg_manifest **m, const tg_job *j, uint32_t max_traces)
{
	char key[6000];
	snprintf(key, sizeof(key), "%s/manifest.json", j->prefix);
	return tg_manifest_parse(m, j->manifest ? j->manifest : "", j->manifest ? strlen(j->manifest) : 0, key,
	                         max_traces);
}

/* The run's numbers (run_metrics.h) from its run data, recorded in the
 * store for the history. */
static int record_metrics(const tg_job_ctx *c, const tg_job *j, const tg_side *s, tg_metric **mm, size_t *nm)
{
	tg_atoms *keys = tg_atoms_new();
	tg_measure *m = NULL;
	int rc = keys ? tg_side_measure(&m, s, keys) : TG_ENOMEM;
	if (!rc) /* a run of nothing enters no history (TG_ENODATA: judge() posts the error) */
		rc = tg_measure_judgeable(m, "new");
	if (!rc)
		rc = tg_run_metrics(mm, nm, m, keys, c->rules);
	if (!rc)
		rc = tg_store_metrics_put(c->store, j->id, *mm, *nm);
	tg_measure_free(m);
	tg_atoms_free(keys);
	return rc;
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
static int decided(const tg_job_outcome *o)
{
	return o->verdict[0] != 0;
}

/* Reads the run's manifest and traces into a. A malformed manifest or
 * trace decides o (error); storage that may come back is returned. */
static int load_run(struct analysis *a, const tg_job_ctx *c, const tg_job *j, tg_job_outcome *o)
{
	if (tg_job_manifest(&a->m, j, c->cfg->max_traces)) {
		tg_job_outcome_error(o, j, "bad manifest", tg_error_last());
		return 0;
	}
	o->target_url = tg_job_details_url(c->repo, j, a->m->ci_url);
	int permanent = 0;
	int rc = tg_side_load(&a->cur, &permanent, c->d, j, a->m, TG_SIDE_KEEP_TREES);
	if (rc && permanent) {
		tg_job_outcome_error(o, j, "bad trace", tg_error_last());
		return 0;
	}
	return rc;
}

/* The judged run and the baseline run themselves always count: only the
 * runs that join them are capped. */
uint64_t tg_job_pool_cap(uint64_t cap, uint64_t cur_json_bytes, int base_side)
{
	if (!base_side)
		return cap / 2;
	return cur_json_bytes < cap ? cap - cur_json_bytes : 0;
}

/* The other runs of this commit join the side (pool.h) when they carry
 * the same proof of origin (origin.c): a signed run pools signed runs,
 * a pull request's run the runs of the same confirmed CI run; any other
 * run is judged alone. As many join as limits.max_pool_bytes leaves room
 * for. */
static int pool_commit_runs(struct analysis *a, const tg_job_ctx *c, const tg_job *j)
{
	tg_pool_filter f;
	a->more = 0;
	if (!tg_daemon_pool_filter(&f, c, j))
		return 0;
	size_t left_over = 0;
	int rc = tg_pool_runs(&a->cur, &a->more, &left_over, c, j, &f, TG_POOL_MAX_RUNS - 1,
	                      tg_job_pool_cap(c->cfg->max_pool_bytes, a->cur.json_bytes, 0));
	a->left_out += left_over;
	return rc;
}

/* Gives the free pages of the job's heap back (all its arenas: the job is
 * a process of its own, budget.c, and its threads are done at the two
 * points judge calls this). The run's reader and its trees leave ~20 MB
 * free that the baseline's decoding and the gate's threads do not reuse:
 * trimmed after the new side and before the gate, a job of a 100 MB pair
 * peaks at ~59 MB instead of ~65 MB (docs/scale.md, "i33flaky"); a trim
 * costs under a millisecond. Where the gate aligns the pairs
 * (tg_gate_opts.heap_hint at TG_GATE_ALIGNED, as the diff command trims)
 * it moved nothing: the job's peak is that alignment itself. */
static void trim_heap(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/* Finds the baseline (baseline.c) and reads the newest usable run of its
 * commit and that commit's other usable runs into a (baseline_runs.c:
 * runs that cannot be read are recorded as tampered; none usable: a->usable
 * 0, a->why names them). A branch name git refuses comes from the
 * manifest: the run is at fault and o is decided (error). */
static int load_baseline(struct analysis *a, const tg_job_ctx *c, const tg_job *j, tg_job_outcome *o)
{
	int rc =
	    tg_daemon_find_baseline(&a->base, &a->found, &a->distance, a->merge_base, a->why, sizeof(a->why), c, j);
	snprintf(o->merge_base, sizeof(o->merge_base), "%s", a->merge_base);
	if (rc == TG_EINVAL) {
		tg_job_outcome_error(o, j, "bad branch", tg_error_last());
		return 0;
	}
	if (rc || !a->found)
		return rc;
	size_t left_over = 0;
	rc = tg_daemon_baseline_side(&a->base, &a->bm, &a->old, &a->bmore, &left_over, &a->usable, &a->bnotes, a->why,
	                             sizeof(a->why),
	                             tg_job_pool_cap(c->cfg->max_pool_bytes, a->cur.json_bytes, 1), c);
	a->left_out += left_over;
	return rc;
}

/* No baseline, or none usable (title says which): o says why, in the state
 * the repository chose for it, and a pull request gets the run's numbers
 * as its comment. */
static int set_no_baseline(tg_job_outcome *o, struct analysis *a, const tg_config_repo *r, const tg_job *j)
{
	tg_unjudged_kind k = a->found ? TG_UNJUDGED_BASELINE_UNUSABLE : TG_UNJUDGED_NO_BASELINE;
	const char *title = a->found ? "baseline unusable" : "no baseline";
	tg_job_outcome_unjudged(o, r, k);
	snprintf(o->description, sizeof(o->description), "%s: %.480s", title, a->why);
	snprintf(o->summary, sizeof(o->summary), "%s: %.700s", title, a->why);
	if (a->found)
		snprintf(o->baseline, sizeof(o->baseline), "%s", a->base.commit);
	if (j->pr > 0 && !(a->comment = tg_job_no_baseline_comment(j, title, a->why, a->mets, a->nmets)))
		return tg_error_set(TG_ENOMEM, "out of memory");
	return 0;
}

/* What the gate weighs besides the two sides: the accepted regressions,
 * the target branch's noise and change points (branch_noise.h) and its
 * runs since its last change point as more base runs (history_base.h;
 * their noise is in them, not counted twice). Their notes go to
 * a->acc.notes. */
static int gather_evidence(struct analysis *a, const tg_job_ctx *c, const tg_job *j)
{
	int rc = tg_accepts_gather(&a->acc, c, j);
	if (rc)
		return rc;
	const char *target = j->target_branch && *j->target_branch ? j->target_branch : j->branch;
	const char *fingerprint = tg_branch_noise_fingerprint(a->mets, a->nmets);
	const tg_history_key key = {j->repo, target, j->workload, NULL, fingerprint};
	const tg_branch_noise_opts no = {j->id, c->rules, TG_BRANCH_NOISE_WINDOW};
	const tg_history_base_opts bo = {a->base.id, a->base.commit, j->commit, 1 + a->bmore, c->rules,
	                                 TG_BRANCH_NOISE_WINDOW};
	if ((rc = tg_branch_noise_find(&a->bn, c->store, &key, &no)) ||
	    (rc = tg_history_base_find(&a->hb, c->store, &key, &bo)))
		return rc;
	tg_buf notes = TG_BUF_INIT;
	tg_buf_puts(&notes, a->acc.notes ? a->acc.notes : "");
	tg_buf_puts(&notes, a->bn.text ? a->bn.text : "");
	tg_buf_puts(&notes, a->hb.text ? a->hb.text : "");
	tg_buf_puts(&notes, a->bnotes ? a->bnotes : "");
	if (a->left_out)
		tg_buf_appendf(&notes,
		               "%zu more run%s of these commits left out: the judgement holds at most "
		               "limits.max_pool_bytes (%llu bytes) of JSON.\n\n",
		               a->left_out, a->left_out == 1 ? "" : "s", (unsigned long long)c->cfg->max_pool_bytes);
	char *text = NULL;
	if ((rc = tg_buf_take(&text, NULL, &notes)))
		return rc;
	free(a->acc.notes);
	a->acc.notes = text;
	tg_history_base_drop_noise(a->bn.noise, &a->bn.n, &a->hb);
	return 0;
}

/* The repository's rules judge the run against its baseline. */
static int run_gate(struct analysis *a, const tg_job_ctx *c)
{
	tg_gate_opts go = {.accepts = a->acc.a,
	                   .naccepts = a->acc.n,
	                   .rule_noise = a->bn.noise,
	                   .nrule_noise = a->bn.n,
	                   .rule_base_runs = a->hb.runs,
	                   .nrule_base_runs = a->hb.n};
	/* the findings across the base side's ranks (the new side's are known) */
	int rc = tg_side_across(&a->old, c->d, c->ri);
	tg_gate_data base = tg_side_gate_data(&a->old), next = tg_side_gate_data(&a->cur);
	/* the views of the base's skeletons the daemon made once (data_cache.h) */
	const tg_tree_diff_side **views = tg_calloc(a->old.n ? a->old.n : 1, sizeof(*views));
	if (!rc && !views)
		rc = tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < a->old.n; i++)
		views[i] = a->old.borrowed[i] ? tg_data_cache_view(c->d->cache, a->old.data[i]) : NULL;
	base.views = views;
	if (!rc)
		rc = tg_gate_run_data(&a->g, c->rules, &base, &next, &go);
	free((void *)views);
	return rc;
}

/* The comment: the gate's tables (at most max_comment_bytes), where each
 * side came from, and what comment.c adds after them. */
static int write_comment(struct analysis *a, const tg_job_ctx *c, const tg_job *j)
{
	char *extra = NULL, *base_src = NULL, *new_src = NULL;
	int rc = tg_daemon_comment_extra(&extra, c->d, c->repo, j, a->g, a->acc.notes);
	if (rc)
		return rc;
	char marker[600];
	tg_job_marker(marker, sizeof(marker), j);
	tg_diff_doc doc = tg_gate_doc(a->g, (const char *const *)a->old.names, a->old.n,
	                              (const char *const *)a->cur.names, a->cur.n, marker, extra);
	char base_why[160];
	tg_daemon_baseline_why(base_why, sizeof(base_why), j, &a->base, a->distance, a->merge_base);
	if (!(base_src = tg_job_side_source(c->repo, &a->base, a->bm, a->bmore, base_why)) ||
	    !(new_src = tg_job_side_source(c->repo, j, a->m, a->more, NULL))) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
		goto out;
	}
	doc.base_source = base_src;
	doc.new_source = new_src;
	doc.docs_url = c->cfg->docs_url; /* NULL: the build's */
	size_t clen = 0;
	FILE *f = open_memstream(&a->comment, &clen);
	if (!f) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
		goto out;
	}
	rc = tg_diff_write_md(f, &doc, (size_t)c->cfg->max_comment_bytes);
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
static void set_verdict(tg_job_outcome *o, const struct analysis *a, const tg_config_repo *r)
{
	const tg_judgement *jm = tg_gate_judgement(a->g);
	tg_verdict v = tg_gate_verdict(a->g);
	const char *why = NULL;
	int comparable = v != TG_VERDICT_INCONCLUSIVE || tg_judgement_comparable(jm, &why);
	tg_job_outcome_verdict(o, r, v, comparable, tg_judgement_summary(jm), a->base.commit, a->distance);
}

/* A side with nothing to judge (tg_measure_judgeable, a rule's events
 * missing on one side: TG_ENODATA): an error status naming it, at once
 * (no retry: the run will not change). Returns 0. */
static int nothing_to_judge(tg_job_outcome *o, const tg_job *j)
{
	tg_job_outcome_error(o, j, "run", tg_error_last());
	return 0;
}

/* The steps of analyse, each ending the analysis when it decides o. */
static int judge(struct analysis *a, const tg_job_ctx *c, const tg_job *j, tg_job_outcome *o)
{
	const tg_config_repo *r = c->repo;
	int rc;
	if ((rc = load_run(a, c, j, o)) || decided(o))
		return rc;
	rc = record_metrics(c, j, &a->cur, &a->mets, &a->nmets);
	if (rc == TG_ENODATA) /* nothing to judge is not a pass: the run is at fault */
		return nothing_to_judge(o, j);
	if (rc || (rc = pool_commit_runs(a, c, j)))
		return rc;
	if ((int)(1 + a->more) < r->runs_per_commit) {
		tg_job_outcome_waiting(o, r, 1 + a->more);
		return 0;
	}
	/* the findings across the new side's ranks (its trees freed) before the
	 * baseline is read */
	if ((rc = tg_side_across(&a->cur, c->d, c->ri)))
		return rc;
	trim_heap(); /* the run's traces and trees are freed */
	if ((rc = load_baseline(a, c, j, o)) || decided(o))
		return rc;
	if (!a->found || !a->usable)
		return set_no_baseline(o, a, r, j);
	if ((rc = gather_evidence(a, c, j)))
		return rc == TG_ENODATA ? nothing_to_judge(o, j) : rc;
	trim_heap(); /* what the baseline's reading freed, before the gate's threads */
	if ((rc = run_gate(a, c)) || (rc = write_comment(a, c, j)))
		return rc == TG_ENODATA ? nothing_to_judge(o, j) : rc;
	set_verdict(o, a, r);
	return 0;
}

/* First the pull request and the origin as the forge has them, then the
 * steps of judge. */
int tg_job_analyse(tg_job_outcome *o, const tg_job_ctx *c, tg_job *j)
{
	memset(o, 0, sizeof(*o));
	o->distance = -1;
	/* the pull request as the forge has it: open, this commit its head, and
	 * the branch it merges into (the baseline's) */
	int pr_ok = 1;
	int rc = tg_daemon_pr_check(&pr_ok, o->not_posted, sizeof(o->not_posted), c, j);
	/* and the CI run the manifest names, if the forge confirms it ran on
	 * this head for this pull request: the runs this one may pool with */
	if (!rc && pr_ok)
		rc = tg_daemon_origin_check(c, j);
	if (rc)
		return rc;
	snprintf(o->target, sizeof(o->target), "%s", j->target_branch ? j->target_branch : "");
	struct analysis a;
	memset(&a, 0, sizeof(a));
	a.distance = -1;
	rc = judge(&a, c, j, o);
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
