/*
 * judge.c - orchestration, the judge's last stage: rules applied to two
 * measures (judge.h has the statistics). tg_judge checks that the sides
 * are comparable, then runs each rule: its context (the confidence, the
 * history's noise and runs, the noise runs, the base's GPU time a step),
 * its selection (judge_select.c), one item for a total rule or one per
 * group for an each rule held to the false discovery rate, the per-step
 * metrics of whole ranks (judge_units.c), the rules on findings
 * (judge_findings.c), a total rule again on each rank alone; accepted
 * items are set aside and the worst verdict is the judgement's, which
 * judge_summary.c puts in words. Each item's estimate is
 * judge_estimate.c's, its verdict judge_decide.c's.
 */
#include "judge.h"
#include "judge_findings.h"
#include "judge_impl.h"
#include "noise.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A category of more than this percent of a side's kernel time that no
 * rule selects is named on the verdict line (docs/rules.md, "Not
 * judged"). */
#define NOT_JUDGED_PCT 5.0

static int push(tg_judgement *jd, tg_judged **out)
{
	if (tg_grow((void **)&jd->items, &jd->cap, jd->n + 1, sizeof(tg_judged)))
		return TG_ENOMEM;
	*out = &jd->items[jd->n++];
	memset(*out, 0, sizeof(**out));
	(*out)->rank = -1;
	return 0;
}

static int cmp_worst(const void *a, const void *b)
{
	const tg_judged *x = a, *y = b;
	if (x->verdict != y->verdict)
		return x->verdict > y->verdict ? -1 : 1;
	double dx = fabs(x->delta), dy = fabs(y->delta);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->item, y->item);
}

/* Benjamini-Hochberg over the items [from, to) of an each rule: items not
 * significant cannot warn or block. */
static int fdr(tg_judgement *jd, size_t from, size_t to, double q)
{
	size_t n = to - from;
	if (n < 2)
		return 0;
	double *p = tg_calloc(n, sizeof(double));
	int *rej = tg_calloc(n, sizeof(int));
	if (!p || !rej) {
		free(p);
		free(rej);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = jd->items[from + i].p_value;
	tg_stats_benjamini_hochberg(rej, p, n, q);
	for (size_t i = 0; i < n; i++) {
		tg_judged *j = &jd->items[from + i];
		if ((j->verdict == TG_VERDICT_BLOCK || j->verdict == TG_VERDICT_WARN) && !j->is_new && !rej[i] &&
		    j->sampling != TG_SAMPLING_EXACT) {
			j->verdict = TG_VERDICT_PASS;
			snprintf(j->note, sizeof(j->note), "not significant after FDR control (p %.3g)", j->p_value);
		}
	}
	free(p);
	free(rej);
	return 0;
}

/* 1 for the metrics that are one value per step of a whole rank (or unit):
 * judge_units judges them, with no selection of kernels. */
static int per_unit_metric(tg_rule_metric m)
{
	return m == TG_METRIC_GPU_BUSY || m == TG_METRIC_GPU_IDLE || m == TG_METRIC_EXPOSED_COMM ||
	       m == TG_METRIC_EXPOSED_MEMCPY || m == TG_METRIC_HOST_SYNCS || m == TG_METRIC_PEAK_MEMORY;
}

/* The one item of a per-unit metric's rule: judge_units, with the runs of
 * the noise trace (when there is one and the metric is sampled per step). */
static int judge_rule_units(tg_judgement *jd, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                            const tg_atoms *keys, int *matched)
{
	const tg_rule *r = c->rule;
	tg_judged *j;
	if (push(jd, &j) || !(j->item = strdup("")))
		return TG_ENOMEM;
	j->rule = r;
	struct side_vals sn = {0};
	struct ctx c2 = *c;
	int rc = 0;
	if (c->noise_m && r->metric != TG_METRIC_HOST_SYNCS && r->metric != TG_METRIC_PEAK_MEMORY) {
		size_t nsel, ndata;
		struct runs rn = {0};
		if (!(sn.unit = tg_judge_unit_values(&sn.nunits, &nsel, &ndata, c->noise_m, r)) ||
		    (rc = tg_judge_side_runs(&rn, r, c->noise_m)) || (rc = tg_judge_side_vals_runs(&sn, &rn)))
			rc = rc ? rc : TG_ENOMEM;
		free(rn.of_unit);
		c2.noise_runs = sn.run;
		c2.n_noise_runs = sn.nruns;
	}
	if (!rc)
		rc = tg_judge_units(j, &c2, base, next, keys, matched);
	free(sn.unit);
	free(sn.run);
	return rc;
}

/* The selectors match, but no kernel holds the metric's data: one
 * inconclusive item that says so. */
static int judge_selected_no_data(tg_judgement *jd, const struct ctx *c)
{
	const tg_rule *r = c->rule;
	tg_judged *j;
	if (push(jd, &j) || !(j->item = strdup("")))
		return TG_ENOMEM;
	j->rule = r;
	j->sampling = TG_SAMPLING_STEPS;
	j->no_data = 1;
	j->pct = j->pct_lo = j->pct_hi = j->p_value = NAN;
	j->verdict = TG_VERDICT_INCONCLUSIVE;
	if (c->comparable)
		snprintf(j->note, sizeof(j->note), "no data: the traces have %s", tg_judge_no_data_what(r->metric));
	else
		snprintf(j->note, sizeof(j->note), "not comparable");
	return 0;
}

/* aggregate: total (or nothing selected on either side): one item over
 * everything selected; when nothing is, why (set_unmatched), and else the
 * kernels that look like the category but are filed elsewhere. */
static int judge_total(tg_judgement *jd, const struct ctx *c, const struct selection *s, const struct noise_sel *ns,
                       const tg_measure *base, const tg_measure *next, const tg_atoms *keys)
{
	tg_judged *j;
	if (push(jd, &j) || !(j->item = strdup("")))
		return TG_ENOMEM;
	j->rule = c->rule;
	int rc = tg_judge_group_noise(j, c, ns, 0, s->vb, s->nb, s->ub, &s->rb, s->vx, s->nx, s->ux, &s->rx);
	if (!rc && s->nb + s->nx == 0) {
		tg_judge_set_unmatched(j, c, base, next, keys);
	} else if (!rc && c->comparable) {
		/* the evidence for a surprising number: kernels whose
		 * names say this category, filed elsewhere by their op */
		char hint[128];
		const tg_measure *sides[2] = {base, next};
		tg_judge_name_hint(hint, sizeof(hint), c->rule, sides, keys);
		size_t len = strlen(j->note);
		if (hint[0])
			snprintf(j->note + len, sizeof(j->note) - len, "%snot selected: %.120s", len ? "; " : "", hint);
	}
	return rc;
}

/* aggregate: each: one item per group, both sorted lists walked group by
 * group; then the false discovery rate over the rule's items, and the
 * worst first. */
static int judge_each(tg_judgement *jd, const struct ctx *c, const struct selection *s, const struct noise_sel *ns,
                      const tg_atoms *keys)
{
	size_t first = jd->n, i = 0, k = 0;
	int rc;
	while (i < s->nb || k < s->nx) {
		uint32_t g;
		if (k >= s->nx || (i < s->nb && s->vb[i].group <= s->vx[k].group))
			g = s->vb[i].group;
		else
			g = s->vx[k].group;
		size_t i0 = i, k0 = k;
		while (i < s->nb && s->vb[i].group == g)
			i++;
		while (k < s->nx && s->vx[k].group == g)
			k++;
		tg_judged *j;
		if (push(jd, &j) || !(j->item = strdup(tg_judge_key(keys, g))))
			return TG_ENOMEM;
		j->rule = c->rule;
		if ((rc = tg_judge_group_noise(j, c, ns, g, s->vb + i0, i - i0, s->ub, &s->rb, s->vx + k0, k - k0, s->ux,
		                            &s->rx)))
			return rc;
	}
	if ((rc = fdr(jd, first, jd->n, c->set->fdr)))
		return rc;
	qsort(jd->items + first, jd->n - first, sizeof(tg_judged), cmp_worst);
	return 0;
}

/* A rule on findings (metric finding_cost): judge_findings.c's items into jd. */
static int judge_findings(tg_judgement *jd, const struct ctx *c, int *matched)
{
	tg_judged *v;
	size_t n;
	int rc = tg_judge_findings_rule(&v, &n, matched, c->rule, jd->findings_base, jd->findings_next, c->comparable);
	for (size_t i = 0; !rc && i < n; i++) {
		tg_judged *j;
		if ((rc = push(jd, &j)))
			break;
		*j = v[i];
		v[i].item = NULL;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].item);
	free(v);
	return rc;
}

/* The items of the rule c->rule into jd; *matched: whether it selected
 * anything on either side. */
static int judge_rule(tg_judgement *jd, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                      const tg_atoms *keys, int *matched)
{
	*matched = 0;
	if (c->rule->metric == TG_METRIC_FINDING_COST)
		return judge_findings(jd, c, matched);
	if (per_unit_metric(c->rule->metric))
		return judge_rule_units(jd, c, base, next, keys, matched);
	struct selection s;
	struct ctx c1 = *c;
	int rc = tg_judge_select_all(&s, c, base, next, keys);
	if (!rc && tg_judge_paired_sampling(c, s.ub, s.ux) && s.nb && s.nx) {
		rc = tg_judge_call_noise(&c1.call_sigma, &c1.call_df, &c1.call_n, s.vb, s.nb, base, next,
		                         (size_t)c->set->min_samples);
		c = &c1;
	}
	if (!rc) {
		struct noise_sel ns = {s.vn, s.nn, s.un, &s.rn};
		*matched = s.nb + s.nx + s.db + s.dx > 0;
		if ((!s.nb && s.db && s.nx) || (!s.nx && s.dx && s.nb))
			rc = tg_judge_lacks_data(c->rule, s.nb ? next : base, s.nb != 0);
		else if (s.nb + s.nx == 0 && s.db + s.dx > 0)
			rc = judge_selected_no_data(jd, c);
		else if (c->rule->aggregate == TG_AGG_TOTAL || s.nb + s.nx == 0)
			rc = judge_total(jd, c, &s, &ns, base, next, keys);
		else
			rc = judge_each(jd, c, &s, &ns, keys);
	}
	tg_judge_selection_free(&s);
	return rc;
}

/* The known ranks both sides hold, sorted, into r (cap slots); returns
 * their number. */
static size_t common_ranks(int64_t *r, size_t cap, const tg_measure *base, const tg_measure *next)
{
	size_t n = 0;
	for (size_t t = 0; t < tg_measure_traces(base); t++) {
		int64_t x = tg_measure_trace_rank(base, t);
		int on_new = 0;
		for (size_t u = 0; u < tg_measure_traces(next) && !on_new; u++)
			on_new = tg_measure_trace_rank(next, u) == x;
		size_t k = 0;
		while (k < n && r[k] < x)
			k++;
		if (x < 0 || !on_new || (k < n && r[k] == x) || n == cap)
			continue;
		memmove(r + k + 1, r + k, (n - k) * sizeof(*r));
		r[k] = x;
		n++;
	}
	return n;
}

/* A total rule on each rank alone, when both sides hold several ranks: its
 * selection on rank r, per step of that rank (the rule with rank r), an
 * item of rank r after the rule's own. The history's runs and noise are
 * of the rule's whole value, not of one rank's: a rank's item has its own
 * runs only. Its items are held to the false discovery rate of the rule's
 * per-rank items (one rank of eight does not block on noise); a rank
 * whose selection matches nothing on either side gives no item. */
static int judge_per_rank(tg_judgement *jd, const struct ctx *c, const tg_rules_settings *set, const tg_measure *base,
                          const tg_measure *next, const tg_atoms *keys)
{
	const tg_rule *r = c->rule;
	if (r->aggregate != TG_AGG_TOTAL || r->rank >= 0 || jd->ranks.nranks < 2 || r->metric == TG_METRIC_FINDING_COST)
		return 0; /* a finding's cost is already the side's (the largest over its ranks) */
	size_t cap = tg_measure_traces(base) + tg_measure_traces(next);
	int64_t *ranks = tg_calloc(cap ? cap : 1, sizeof(int64_t));
	if (!ranks)
		return TG_ENOMEM;
	size_t nr = common_ranks(ranks, cap, base, next), first = jd->n;
	int rc = 0;
	for (size_t i = 0; i < nr && !rc; i++) {
		tg_rule one = *r;
		one.rank = ranks[i];
		struct ctx c1 = *c;
		c1.rule = &one;
		c1.set = set;
		c1.step_busy = tg_judge_step_busy(base, &one);
		c1.base_runs = NULL;
		c1.n_base_runs = 0;
		c1.hist = (tg_noise){0, 0};
		size_t at = jd->n;
		int matched;
		if ((rc = judge_rule(jd, &c1, base, next, keys, &matched)))
			break;
		for (size_t k = at; k < jd->n; k++) {
			jd->items[k].rule = r;
			jd->items[k].rank = ranks[i];
		}
		if (!matched || (jd->n > at && (jd->items[at].unmatched || jd->items[at].no_data))) {
			for (size_t k = at; k < jd->n; k++)
				free(jd->items[k].item);
			jd->n = at;
		}
	}
	free(ranks);
	return rc ? rc : fdr(jd, first, jd->n, set->fdr);
}

/* The context of rule r (c): set, or hset (the history's level) when it
 * takes the history's runs as base runs; the history's noise of the rule
 * and the noise runs from opts (may be NULL). */
static void rule_ctx(struct ctx *c, const tg_rules_settings *set, const tg_rules_settings *hset, const tg_rule *r,
                     int comparable, const tg_measure *base, const tg_judge_opts *opts)
{
	*c = (struct ctx){set,
	                  r,
	                  comparable,
	                  {0, 0},
	                  NULL,
	                  0,
	                  opts ? opts->noise_runs : NULL,
	                  NULL,
	                  0,
	                  NAN,
	                  0,
	                  0,
	                  tg_judge_step_busy(base, r)};
	for (size_t k = 0; opts && k < opts->n_noise; k++)
		if (opts->noise[k].rule && !strcmp(opts->noise[k].rule, r->name))
			tg_noise_add_sigma(&c->hist, opts->noise[k].sigma, opts->noise[k].runs);
	for (size_t k = 0; opts && k < opts->n_base_runs; k++)
		if (opts->base_runs[k].rule && !strcmp(opts->base_runs[k].rule, r->name) &&
		    tg_judge_takes_base_runs(r, &opts->base_runs[k])) {
			c->base_runs = opts->base_runs[k].values;
			c->n_base_runs = opts->base_runs[k].n;
			c->set = hset;
		}
}

/* The judgement's verdict: the worst of the items not accepted; a diff
 * that does not block is inconclusive when the sides are not comparable
 * or a total rule's own item is. */
static tg_verdict overall_verdict(const tg_judgement *jd)
{
	tg_verdict v = TG_VERDICT_PASS;
	for (size_t i = 0; i < jd->n; i++) {
		const tg_judged *j = &jd->items[i];
		if (j->accepted)
			continue;
		if (j->verdict == TG_VERDICT_BLOCK)
			v = TG_VERDICT_BLOCK;
		else if (j->verdict == TG_VERDICT_WARN && v == TG_VERDICT_PASS)
			v = TG_VERDICT_WARN;
	}
	if (v != TG_VERDICT_BLOCK && (!jd->comparable || jd->total_inconclusive))
		v = TG_VERDICT_INCONCLUSIVE;
	return v;
}

int tg_judge(tg_judgement **out, const tg_rules *rules, const tg_measure *base, const tg_measure *next,
             const tg_atoms *keys, const tg_judge_opts *opts)
{
	*out = NULL;
	const tg_accept *accepts = opts ? opts->accepts : NULL;
	size_t n_accepts = opts ? opts->n_accepts : 0;
	for (size_t a = 0; a < n_accepts; a++)
		if (!tg_rules_find(rules, accepts[a].rule))
			return tg_error_set(TG_EINVAL, "accept: no rule named '%s'", accepts[a].rule);
	tg_judgement *jd = tg_calloc(1, sizeof(*jd));
	if (!jd)
		return TG_ENOMEM;
	jd->findings_base = opts ? opts->findings_base : NULL;
	jd->findings_next = opts ? opts->findings_next : NULL;
	const tg_rules_settings *set = tg_rules_settings_get(rules);
	jd->confidence = set->confidence;
	tg_rules_settings hset = *set;
	hset.confidence = tg_judge_history_level(set);
	jd->history_confidence = hset.confidence;
	jd->comparable = tg_judge_fingerprints_agree(jd->why, sizeof(jd->why), base, next) || set->allow_hardware_change ||
	                 (opts && opts->allow_hardware_change);
	size_t nr;
	const tg_rule *rl = tg_rules_list(rules, &nr);
	jd->unmatched = tg_calloc(nr ? nr : 1, sizeof(char *));
	jd->accepts = tg_calloc(n_accepts ? n_accepts : 1, sizeof(tg_accept));
	int rc = jd->unmatched && jd->accepts ? 0 : TG_ENOMEM;
	if (!rc)
		rc = tg_rank_compare_build(&jd->ranks, base, next);
	if (!rc)
		rc = tg_judge_not_judged(&jd->not_judged, &jd->nnot_judged, rules, base, next, keys, NOT_JUDGED_PCT);
	for (size_t i = 0; i < nr && !rc; i++) {
		struct ctx c;
		rule_ctx(&c, set, &hset, &rl[i], jd->comparable, base, opts);
		size_t first = jd->n;
		int matched;
		if ((rc = judge_rule(jd, &c, base, next, keys, &matched)))
			break;
		if (!matched)
			jd->unmatched[jd->nunmatched++] = rl[i].name;
		else if ((rc = judge_per_rank(jd, &c, set, base, next, keys)))
			break;
		for (size_t k = first; k < jd->n; k++) {
			tg_judged *j = &jd->items[k];
			for (size_t a = 0; a < n_accepts; a++)
				if (!strcmp(accepts[a].rule, rl[i].name) &&
				    (j->verdict == TG_VERDICT_BLOCK || j->verdict == TG_VERDICT_WARN))
					j->accepted = 1;
			if (rl[i].aggregate == TG_AGG_TOTAL && j->rank < 0 && j->verdict == TG_VERDICT_INCONCLUSIVE &&
			    !j->no_data && !j->unmatched)
				jd->total_inconclusive = 1;
		}
	}
	if (rc) {
		tg_judgement_free(jd);
		return rc;
	}
	for (size_t a = 0; a < n_accepts; a++)
		jd->accepts[jd->naccepts++] = accepts[a];
	jd->overall = overall_verdict(jd);
	tg_judge_summarize(jd, keys);
	*out = jd;
	return 0;
}

const tg_not_judged *tg_judgement_not_judged(const tg_judgement *j, size_t *n)
{
	*n = j->nnot_judged;
	return j->not_judged;
}

const tg_rank_compare *tg_judgement_ranks(const tg_judgement *j)
{
	return j->ranks.nranks >= 2 ? &j->ranks : NULL;
}

void tg_judgement_free(tg_judgement *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		free(j->items[i].item);
	free(j->items);
	tg_judge_not_judged_free(j->not_judged, j->nnot_judged);
	free(j->unmatched);
	free(j->accepts);
	tg_rules_free(j->owned);
	free(j);
}

void tg_judgement_own_rules(tg_judgement *j, tg_rules *rules)
{
	j->owned = rules;
}

tg_verdict tg_judgement_verdict(const tg_judgement *j)
{
	return j->overall;
}

const char *tg_judgement_summary(const tg_judgement *j)
{
	return j->summary;
}

const tg_judged *tg_judgement_items(const tg_judgement *j, size_t *n)
{
	*n = j->n;
	return j->items;
}

int tg_judgement_comparable(const tg_judgement *j, const char **why)
{
	if (why)
		*why = j->why;
	return j->comparable;
}

const char *const *tg_judgement_unmatched(const tg_judgement *j, size_t *n)
{
	*n = j->nunmatched;
	return j->unmatched;
}

const tg_accept *tg_judgement_accepts(const tg_judgement *j, size_t *n)
{
	*n = j->naccepts;
	return j->accepts;
}
