/*
 * baseline_runs.c - the baseline side of a judgement, read from the
 * baseline commit's runs (daemon_impl.h: tg_daemon_baseline_side;
 * docs/security.md, "A spoiled baseline").
 *
 * The baseline commit is the nearest one with a trusted done run
 * (baseline.c). Its newest run is tried first; a run whose traces cannot be
 * read for good (a trace that no longer matches the sha256 its signed
 * manifest gives, one that is gone or malformed) is never skipped
 * silently: it is recorded as tampered (the store keeps why: never a
 * baseline or pooled again, listed by `history`), logged, and the next
 * newest run of the same commit is tried. The walk does not go on to an
 * older commit: that would compare a pull request with code from before
 * the baseline commit's change, which is what an uploader who spoils the
 * baseline wants. When no run of the commit can be used, there is no
 * judgement: the caller posts the repository's on_unjudged state for
 * "baseline_unusable", naming the tampered runs.
 */
#include "../core/analysis/table.h"
#include "../util/escape.h"
#include "daemon_impl.h"
#include "../util/log.h"
#include "pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends "; run ID: why" (or the first "run ID: why") to buf (cap). */
static void add_reason(char *buf, size_t cap, const char *run_id, const char *why)
{
	size_t len = strlen(buf);
	if (len + 4 < cap && snprintf(buf + len, cap - len, "%srun %s: %s", len ? "; " : "", run_id, why) < 0)
		buf[len] = 0;
}

/* Reads run r's manifest and traces into *m and *s. *permanent as
 * tg_side_load's (a manifest that no longer parses is the run's fault). */
static int load_run(tg_manifest **m, tg_side *s, int *permanent, const tg_job_ctx *c, const tg_job *r)
{
	char key[6000];
	snprintf(key, sizeof(key), "%s/manifest.json", r->prefix);
	*permanent = 1;
	int rc = tg_manifest_parse(m, r->manifest ? r->manifest : "", r->manifest ? strlen(r->manifest) : 0, key,
	                           c->cfg->max_traces);
	if (!rc)
		rc = tg_side_load(s, permanent, c->d, r, *m, TG_SIDE_BASE);
	if (rc) {
		tg_manifest_free(*m);
		*m = NULL;
	}
	return rc;
}

/* Records run r as tampered (why), logged; a store that refuses is logged
 * too (the run is left out of this judgement either way). */
static void tampered(const tg_job_ctx *c, const tg_job *r, const char *why)
{
	tg_log(TG_LOG_WARN, "baseline run %s (job %lld) recorded as tampered: %s", r->prefix, (long long)r->id, why);
	if (tg_store_job_set_tampered(c->store, r->id, why))
		tg_log(TG_LOG_WARN, "run %s: %s", r->prefix, tg_error_last());
}

/* The notes for the comment: which runs were left out and which one was
 * used instead. */
static int fallback_notes(char **notes, const tg_job *used, const char *reasons)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return tg_error_set(TG_ENOMEM, "out of memory");
	fputs("**Baseline runs left out as tampered** (their files no longer match what was judged): ", f);
	tg_md_escape(f, reasons);
	fputs(". Compared with run ", f);
	tg_md_code(f, used->run_id);
	fprintf(f, " of the same commit <code>%.7s</code> instead.\n\n", used->commit);
	if (fclose(f)) {
		free(s);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	*notes = s;
	return 0;
}

/* The newest usable run of base's commit into *base, *bm and *old;
 * reasons (cap) collects the runs left out. *found = 0 when none. */
static int first_usable(int *found, tg_job *base, tg_manifest **bm, tg_side *old, char *reasons, size_t cap,
                        const tg_job_ctx *c)
{
	*found = 0;
	tg_job *runs = NULL;
	size_t n = 0;
	int rc = tg_store_find_runs(&runs, &n, c->store, base->repo, base->commit, base->workload, 2 * TG_POOL_MAX_RUNS,
	                            c->trusted_only);
	for (size_t i = 0; !rc && i < n && !*found; i++) {
		if (runs[i].tampered) {
			add_reason(reasons, cap, runs[i].run_id, runs[i].tampered);
			continue;
		}
		int permanent = 0;
		int lr = load_run(bm, old, &permanent, c, &runs[i]);
		if (lr && !permanent) {
			rc = lr; /* the storage may come back: try the whole job again */
			break;
		}
		if (lr) {
			char why[1024];
			snprintf(why, sizeof(why), "%s", tg_error_last());
			tampered(c, &runs[i], why);
			add_reason(reasons, cap, runs[i].run_id, why);
			continue;
		}
		tg_job_clear(base);
		*base = runs[i];
		memset(&runs[i], 0, sizeof(runs[i]));
		*found = 1;
	}
	tg_store_jobs_free(runs, n);
	return rc;
}

int tg_daemon_baseline_side(tg_job *base, tg_manifest **bm, tg_side *old, size_t *more, size_t *left_over,
                            int *usable, char **notes, char *why, size_t whycap, uint64_t max_bytes, const tg_job_ctx *c)
{
	*bm = NULL;
	*more = *left_over = 0;
	*usable = 0;
	*notes = NULL;
	why[0] = 0;
	memset(old, 0, sizeof(*old));
	char reasons[1024] = "";
	int rc = first_usable(usable, base, bm, old, reasons, sizeof(reasons), c);
	if (rc)
		return rc;
	if (!*usable) {
		snprintf(why, whycap, "no run of %s at the baseline commit %.12s can be used (tampered: %s)", base->workload,
		         base->commit, reasons[0] ? reasons : "none found");
		return 0;
	}
	if (reasons[0]) {
		tg_log(TG_LOG_WARN, "baseline of %s at %.12s: runs left out (%s): compared with run %s", base->workload,
		       base->commit, reasons, base->run_id);
		if ((rc = fallback_notes(notes, base, reasons)))
			return rc;
	}
	tg_pool_filter f = {.trusted_only = c->trusted_only};
	return tg_pool_runs(old, more, left_over, c, base, &f, TG_POOL_MAX_RUNS - 1, max_bytes);
}
