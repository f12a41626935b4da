/*
 * judge_summary.c - what a judgement says on its verdict line
 * (judge_impl.h): whether the two sides are comparable (their fingerprints:
 * GPU, driver and runtime as people write them, world size, each field that
 * differs or is not recorded named), and the summary after the rules ran:
 * the verdict and its worst item with its interval and samples, the change
 * a floor held from blocking, the slowest and most changed rank, and the
 * categories no rule judges. It decides nothing: judge.c sets the verdict.
 */
#include "judge_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A fingerprint's driver version as people write it: a bare number of a
 * CUDA or HIP side in that runtime's notation ("CUDA 12.9", "HIP
 * 6.4.43483"); anything else as it is, "?" when absent. */
static void driver_text(char *buf, size_t cap, const tg_fingerprint *f)
{
	if (!f->driver[0]) {
		snprintf(buf, cap, "?");
		return;
	}
	int digits = strspn(f->driver, "0123456789") == strlen(f->driver);
	const char *rt = !strncmp(f->runtime, "CUDA ", 5) ? "CUDA" : !strncmp(f->runtime, "HIP ", 4) ? "HIP" : NULL;
	if (!digits || !rt) {
		snprintf(buf, cap, "%s", f->driver);
		return;
	}
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%s %s", rt, f->driver);
	tg_fingerprint_runtime_text(buf, cap, tmp);
}

/* One field of the fingerprints into why (at o, cap bytes; "; " between
 * fields): "GPU A -> B" when both sides record it, else which side does
 * not record it and where it would be ("GPU model not recorded in the new
 * trace (deviceProperties; base: NVIDIA H200)"), so that a missing field
 * is not read as a change of hardware. */
static size_t fp_field(char *why, size_t o, size_t cap, const char *field, const char *where, const char *a,
                       const char *b)
{
	if (o >= cap)
		return o;
	const char *sep = o ? "; " : "";
	if (a[0] && b[0])
		return o + (size_t)snprintf(why + o, cap - o, "%s%s %s -> %s", sep, field, a, b);
	return o + (size_t)snprintf(why + o, cap - o, "%s%s not recorded in the %s trace (no %s; %s: %s)", sep, field,
	                            a[0] ? "new" : "base", where, a[0] ? "base" : "new", a[0] ? a : b);
}

/* Whether the fingerprints of the two sides agree; why (cap bytes) says
 * which fields differ, by name, "" when none. */
int tg_judge_fingerprints_agree(char *why, size_t cap, const tg_measure *base, const tg_measure *next)
{
	int cb, cn;
	const tg_fingerprint *a = tg_measure_fingerprint(base, &cb), *b = tg_measure_fingerprint(next, &cn);
	size_t o = 0;
	why[0] = 0;
	if (strcmp(a->gpu, b->gpu))
		o = fp_field(why, o, cap, a->gpu[0] && b->gpu[0] ? "GPU" : "GPU model", "deviceProperties", a->gpu,
		             b->gpu);
	/* versions as people write them: driver 12090 of a CUDA side is CUDA 12.9 */
	char da[80] = "", db[80] = "", ra[64] = "", rb[64] = "";
	if (a->driver[0])
		driver_text(da, sizeof(da), a);
	if (b->driver[0])
		driver_text(db, sizeof(db), b);
	/* the field the side that lacks it would have, after the other's runtime */
	const char *known = a->runtime[0] ? a->runtime : b->runtime;
	int hip = !strncmp(known, "HIP", 3);
	if (strcmp(a->driver, b->driver))
		o = fp_field(why, o, cap, da[0] && db[0] ? "driver" : "driver version",
		             hip ? "hip_driver_version" : "cuda_driver_version", da, db);
	if (a->runtime[0])
		tg_fingerprint_runtime_text(ra, sizeof(ra), a->runtime);
	if (b->runtime[0])
		tg_fingerprint_runtime_text(rb, sizeof(rb), b->runtime);
	if (strcmp(a->runtime, b->runtime))
		o = fp_field(why, o, cap, ra[0] && rb[0] ? "runtime" : "runtime version",
		             hip ? "hip_runtime_version" : "cuda_runtime_version", ra, rb);
	if (a->world_size != b->world_size && o < cap)
		o += (size_t)snprintf(why + o, cap - o, "%sworld size %lld -> %lld", o ? "; " : "",
		                      (long long)a->world_size, (long long)b->world_size);
	if (!cb && o < cap)
		o += (size_t)snprintf(why + o, cap - o, "%sbase traces differ among themselves", o ? "; " : "");
	if (!cn && o < cap)
		o += (size_t)snprintf(why + o, cap - o, "%snew traces differ among themselves", o ? "; " : "");
	return o == 0;
}

/* What an item's samples were, for the verdict line: "6 steps a side",
 * "36 paired calls in 1 step", "24 and 24 calls in 1 step"; "" when
 * counted (not sampled). */
static void sample_unit(char *buf, size_t cap, const tg_judged *j)
{
	buf[0] = 0;
	if (j->sampling == TG_SAMPLING_EXACT)
		return;
	if (j->sampling == TG_SAMPLING_STEPS) {
		if (j->nbase == j->nnext)
			snprintf(buf, cap, "%zu steps a side", j->nbase);
		else
			snprintf(buf, cap, "%zu and %zu steps", j->nbase, j->nnext);
		return;
	}
	char steps[48];
	if (j->steps_base == j->steps_new)
		snprintf(steps, sizeof(steps), "%zu step%s", j->steps_base, j->steps_base == 1 ? "" : "s");
	else
		snprintf(steps, sizeof(steps), "%zu and %zu steps", j->steps_base, j->steps_new);
	if (j->sampling == TG_SAMPLING_PAIRS)
		snprintf(buf, cap, "%zu paired call%s in %s", j->npairs, j->npairs == 1 ? "" : "s", steps);
	else
		snprintf(buf, cap, "%zu and %zu calls in %s", j->nbase, j->nnext, steps);
}

/* After the verdict: the change a floor (or decide: surely) held from
 * blocking, the largest, when the diff did not block ("; held: gemm +8.1 %
 * (held under min_delta: ...)"), so that a pass never hides it. */
static void summarize_held(tg_judgement *jd, tg_verdict v)
{
	const tg_judged *h = NULL;
	for (size_t i = 0; i < jd->n; i++) {
		const tg_judged *j = &jd->items[i];
		if (j->held && !j->accepted && (!h || j->pct > h->pct))
			h = j;
	}
	size_t o = strlen(jd->summary);
	if (!h || v == TG_VERDICT_BLOCK || o >= sizeof(jd->summary))
		return;
	char rank[32] = "";
	if (h->rank >= 0)
		snprintf(rank, sizeof(rank), " on rank %lld", (long long)h->rank);
	snprintf(jd->summary + o, sizeof(jd->summary) - o, "; %s%s%s%s %+.1f %%: %s", h->rule->name,
	         h->item[0] ? " " : "", h->item, rank, h->pct, h->note);
}

static void summarize_verdict(tg_judgement *jd, const tg_judged *w, tg_verdict v);

static void summarize(tg_judgement *jd, const tg_atoms *keys)
{
	(void)keys;
	const tg_judged *w = NULL;
	for (size_t i = 0; i < jd->n; i++) {
		const tg_judged *j = &jd->items[i];
		if (j->accepted || j->no_data || j->unmatched)
			continue;
		if (!w || j->verdict > w->verdict || (j->verdict == w->verdict && j->pct > w->pct && j->verdict != TG_VERDICT_PASS))
			w = j;
	}
	tg_verdict v = jd->overall;
	if (!jd->comparable) {
		snprintf(jd->summary, sizeof(jd->summary), "inconclusive: not comparable (%s)", jd->why);
		return;
	}
	summarize_verdict(jd, w, v);
	summarize_held(jd, v);
}

/* The verdict line's first part: the verdict and its worst item w. */
static void summarize_verdict(tg_judgement *jd, const tg_judged *w, tg_verdict v)
{
	if (!w || v == TG_VERDICT_PASS) {
		size_t own = 0;
		for (size_t i = 0; i < jd->n; i++)
			own += jd->items[i].rank < 0;
		if (own < jd->n)
			snprintf(jd->summary, sizeof(jd->summary),
			         "pass: %zu checks (and %zu on single ranks), no regression above the thresholds", own,
			         jd->n - own);
		else
			snprintf(jd->summary, sizeof(jd->summary),
			         "pass: %zu checks, no regression above the thresholds", jd->n);
		return;
	}
	/* the rule and its item; for a total rule, the category it selects
	 * (docs/diff.md: "block: sdpa-forward SDPA_fwd kernel_time +7.0 % ...") */
	char what[256];
	const tg_pattern *cat = &w->rule->category;
	if (w->item[0])
		snprintf(what, sizeof(what), "%s %s", w->rule->name, w->item);
	else if (cat->text)
		snprintf(what, sizeof(what), cat->is_regex ? "%s /%s/" : "%s %s", w->rule->name, cat->text);
	else
		snprintf(what, sizeof(what), "%s", w->rule->name);
	if (w->rank >= 0) {
		size_t l = strlen(what);
		snprintf(what + l, sizeof(what) - l, " on rank %lld", (long long)w->rank);
	}
	if (w->verdict == TG_VERDICT_INCONCLUSIVE && v == TG_VERDICT_INCONCLUSIVE) {
		snprintf(jd->summary, sizeof(jd->summary), "inconclusive: %s: %s", what, w->note);
		return;
	}
	char ci[192] = "", unit[96];
	sample_unit(unit, sizeof(unit), w);
	if (!isnan(w->pct_lo))
		snprintf(ci, sizeof(ci), " (%.0f %% CI %+.1f..%+.1f %%%s%s)",
		         (w->nruns_history ? jd->history_confidence : jd->confidence) * 100, w->pct_lo, w->pct_hi,
		         unit[0] ? ", " : "", unit);
	double thr = w->verdict == TG_VERDICT_BLOCK ? w->rule->block_above : w->rule->warn_above;
	if (isinf(w->pct))
		snprintf(jd->summary, sizeof(jd->summary), "%s: %s %s is new", tg_verdict_name(v), what,
		         tg_rule_metric_name(w->rule->metric));
	else
		snprintf(jd->summary, sizeof(jd->summary), "%s: %s %s %+.1f %%%s > %g %%", tg_verdict_name(v), what,
		         tg_rule_metric_name(w->rule->metric), w->pct, ci, isnan(thr) ? w->rule->block_above : thr);
}

/* The categories no rule judges, after the summary ("; not judged: MoE
 * 67 %, elementwise 8 %"; at most 4 named). */
static void summarize_not_judged(tg_judgement *jd)
{
	size_t o = strlen(jd->summary);
	for (size_t i = 0; i < jd->nnot_judged && i < 4 && o < sizeof(jd->summary); i++)
		o += (size_t)snprintf(jd->summary + o, sizeof(jd->summary) - o, "%s%s %.0f %%",
		                      i ? ", " : "; not judged: ", jd->not_judged[i].category, jd->not_judged[i].pct);
	if (jd->nnot_judged > 4 && o < sizeof(jd->summary))
		snprintf(jd->summary + o, sizeof(jd->summary) - o, " and %zu more", jd->nnot_judged - 4);
}

/* The rank that changed most, by the rules: the per-rank item of the
 * largest significant change for the worse (its interval above 0, or a
 * counted change), which names the rule; else the rank whose GPU compute
 * a step changed most (rank_compare.c). */
static void most_changed_rank(tg_judgement *jd)
{
	const tg_judged *m = NULL;
	for (size_t i = 0; i < jd->n; i++) {
		const tg_judged *j = &jd->items[i];
		if (j->rank < 0 || j->no_data || j->unmatched || !isfinite(j->pct) || j->pct <= 0)
			continue;
		int significant = j->sampling == TG_SAMPLING_EXACT ? 1 : !isnan(j->pct_lo) && j->pct_lo > 0;
		if (significant && (!m || j->pct > m->pct))
			m = j;
	}
	if (!m)
		return;
	jd->ranks.most_changed = m->rank;
	jd->ranks.most_changed_pct = m->pct;
	snprintf(jd->ranks.most_changed_what, sizeof(jd->ranks.most_changed_what), "%s", m->rule->name);
}

/* With several ranks: the slowest rank and the one that changed most,
 * after the summary ("; ranks: slowest 1 (4.210 ms of GPU compute a step),
 * most changed 1 (gemm +30.1 %)"). */
static void summarize_ranks(tg_judgement *jd)
{
	const tg_rank_compare *rk = &jd->ranks;
	size_t o = strlen(jd->summary);
	if (rk->nranks < 2 || rk->slowest < 0 || o >= sizeof(jd->summary))
		return;
	o += (size_t)snprintf(jd->summary + o, sizeof(jd->summary) - o,
	                      "; ranks: slowest %lld (%.3f ms of GPU compute a step)", (long long)rk->slowest,
	                      rk->slowest_ms);
	if (rk->most_changed >= 0 && o < sizeof(jd->summary))
		snprintf(jd->summary + o, sizeof(jd->summary) - o, ", most changed %lld (%s %+.1f %%)",
		         (long long)rk->most_changed, rk->most_changed_what, rk->most_changed_pct);
}

void tg_judge_summarize(tg_judgement *jd, const tg_atoms *keys)
{
	most_changed_rank(jd);
	summarize(jd, keys);
	if (jd->comparable) {
		summarize_ranks(jd);
		summarize_not_judged(jd);
	}
}
