/*
 * judge_decide.c - the verdict of one estimated item (judge_impl.h): from
 * its change, interval and samples (judge_estimate.c, judge_units.c) and
 * its rule's thresholds, floors (min_delta, or its share of the base's GPU
 * time a step) and decide mode, pass, warn, block or inconclusive, with the
 * note that says why (too few samples, held under a floor, re-run to
 * confirm and about how many runs would decide it). docs/rules.md,
 * "Verdicts", is the reference.
 */
#include "judge_impl.h"
#include "noise.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>

const char *tg_verdict_name(tg_verdict v)
{
	switch (v) {
	case TG_VERDICT_PASS: return "pass";
	case TG_VERDICT_WARN: return "warn";
	case TG_VERDICT_INCONCLUSIVE: return "inconclusive";
	case TG_VERDICT_BLOCK: return "block";
	}
	return "?";
}

/* Runs per side that would decide j (an estimate above threshold, not
 * significant): from the noise when known, else from the interval's width
 * as if it were all between-run noise. */
static size_t runs_needed(const tg_judged *j, double confidence)
{
	double sigma = j->noise_pct / 100;
	if (isnan(sigma) && !isnan(j->pct_lo) && !isnan(j->pct_hi) && j->pct_lo > -100) {
		double z = tg_stats_normal_quantile((1 + confidence) / 2);
		double se = (log1p(j->pct_hi / 100) - log1p(j->pct_lo / 100)) / (2 * z);
		double rb = j->nruns_base ? (double)j->nruns_base : 1, rx = j->nruns_new ? (double)j->nruns_new : 1;
		sigma = se / sqrt(1 / rb + 1 / rx);
	}
	return tg_noise_runs_needed(j->pct, sigma, confidence);
}

/* A quantity of the metric's unit class as text, for the notes: "19.9 us",
 * "1.234 ms", "3", "512.0 MiB", "2.5". */
static void quantity_text(char *buf, size_t cap, tg_rule_metric m, double v)
{
	switch (tg_rule_metric_unit(m)) {
	case TG_UNIT_TIME:
		if (fabs(v) >= 1e7)
			snprintf(buf, cap, "%.3f ms", v / 1e6);
		else
			snprintf(buf, cap, "%.1f us", v / 1e3);
		return;
	case TG_UNIT_BYTES: snprintf(buf, cap, "%.1f MiB", v / 1048576.0); return;
	default: snprintf(buf, cap, "%g", v); return;
	}
}

/* A change above threshold thr (that would give verdict would) that the
 * rule's floor keeps from blocking or warning: j passes, and says which
 * floor and by how much, so that a pass never hides a significant change
 * above a threshold (docs/rules.md, Verdicts). */
static void held_under_floor(tg_judged *j, const struct ctx *c, double floor, const char *would, double thr)
{
	const tg_rule *r = c->rule;
	char d[48], f[48], share[96] = "", note[320];
	quantity_text(d, sizeof(d), r->metric, fabs(j->delta));
	quantity_text(f, sizeof(f), r->metric, floor);
	if (r->min_delta_share > 0 && floor > r->min_delta)
		snprintf(share, sizeof(share), " (%g %% of the base's %.3f ms of GPU time a step)", r->min_delta_share,
		         c->step_busy / 1e6);
	j->held = 1;
	snprintf(note, sizeof(note), "held under min_delta: %s a step < %s%s; would %s: %+.1f %% > %g %%", d, f, share,
	         would, j->pct, thr);
	snprintf(j->note, sizeof(j->note), "%.*s", (int)sizeof(j->note) - 1, note);
}

/* Decides the verdict of j from its numbers. */
void tg_judge_decide(tg_judged *j, const struct ctx *c, int can_block)
{
	const tg_rule *r = c->rule;
	/* the floor: min_delta, or its share of the base's GPU time a step */
	double floor = r->min_delta, by_share = r->min_delta_share / 100 * c->step_busy;
	if (by_share > floor)
		floor = by_share;
	double impr = isnan(r->improvement_below) ? 1.0 : r->improvement_below;
	int worse = tg_rule_metric_higher_is_worse(r->metric) ? j->delta > 0 : j->delta < 0;
	int worse_delta = worse && fabs(j->delta) >= floor;
	j->verdict = TG_VERDICT_PASS;
	if (!c->comparable) {
		j->verdict = TG_VERDICT_INCONCLUSIVE;
		snprintf(j->note, sizeof(j->note), "not comparable");
		return;
	}
	if (j->is_gone) {
		j->improved = 1;
		return;
	}
	if (j->is_new) {
		/* a new item is reported, and warns when it is large enough; the
		 * slowdown it causes blocks through the rules on its op or category */
		if (!isnan(r->warn_above) && worse_delta) {
			j->verdict = TG_VERDICT_WARN;
			snprintf(j->note, sizeof(j->note), "new");
		}
		return;
	}
	size_t need = (size_t)c->set->min_samples;
	if (j->sampling == TG_SAMPLING_PAIRS) {
		/* its own pairs, or the noise of one call from as many others */
		if (j->npairs < need && j->noise_calls < need) {
			j->verdict = TG_VERDICT_INCONCLUSIVE;
			snprintf(j->note, sizeof(j->note),
			         "%zu paired call%s and %zu other%s to measure a call's noise, %zu needed", j->npairs,
			         j->npairs == 1 ? "" : "s", j->noise_calls, j->noise_calls == 1 ? "" : "s", need);
			return;
		}
	} else if (j->sampling != TG_SAMPLING_EXACT && (j->nbase < need || j->nnext < need)) {
		j->verdict = TG_VERDICT_INCONCLUSIVE;
		snprintf(j->note, sizeof(j->note), "%zu and %zu samples, %zu needed", j->nbase, j->nnext, need);
		return;
	}
	double lo = isnan(j->pct_lo) ? j->pct : j->pct_lo;
	double hi = isnan(j->pct_hi) ? j->pct : j->pct_hi;
	if (hi < -impr)
		j->improved = 1;
	/* likely: the estimate above the threshold and the slowdown significant
	 * (the interval, which holds the between-run noise when it is known,
	 * excludes no change); surely: the lower bound above the threshold */
	int surely = r->decide == TG_DECIDE_SURELY;
	int significant = lo > 0;
#define ABOVE(thr) (!isnan(thr) && (surely ? lo > (thr) : j->pct > (thr) && significant))
	if (!worse_delta) {
		if (worse && ABOVE(r->block_above) && can_block)
			held_under_floor(j, c, floor, "block", r->block_above);
		else if (worse && (ABOVE(r->warn_above) || ABOVE(r->block_above)))
			held_under_floor(j, c, floor, "warn", isnan(r->warn_above) ? r->block_above : r->warn_above);
		return;
	}
	if (ABOVE(r->block_above)) {
		if (can_block) {
			j->verdict = TG_VERDICT_BLOCK;
			return;
		}
		snprintf(j->note, sizeof(j->note), "too few steps to block on this metric");
	}
	if (ABOVE(r->warn_above) || ABOVE(r->block_above)) {
		j->verdict = TG_VERDICT_WARN;
		return;
	}
#undef ABOVE
	if (!surely && can_block && !isnan(r->block_above) && j->pct > r->block_above && !significant) {
		/* above the threshold, within the noise: neither a block nor a pass */
		j->verdict = TG_VERDICT_INCONCLUSIVE;
		j->runs_needed = runs_needed(j, c->set->confidence);
		if (j->runs_needed)
			snprintf(j->note, sizeof(j->note),
			         "re-run to confirm: +%.1f %% is above %g %% but not significant at this noise; "
			         "about %zu runs per side would decide it",
			         j->pct, r->block_above, j->runs_needed);
		else
			snprintf(j->note, sizeof(j->note),
			         "re-run to confirm: +%.1f %% is above %g %% but not significant", j->pct, r->block_above);
	} else if (surely && !isnan(r->block_above) && j->pct > r->block_above && significant) {
		/* decide: surely passes a significant change above the threshold
		 * whose interval reaches below it: said, not hidden */
		j->held = 1;
		snprintf(j->note, sizeof(j->note),
		         "decide surely: the interval's lower bound %+.1f %% is not above %g %%", lo, r->block_above);
	}
}
