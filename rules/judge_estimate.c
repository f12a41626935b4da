/*
 * judge_estimate.c - estimation, the judge's second stage (judge_impl.h):
 * from the records a rule selected on each side (judge_select.c), the
 * value, interval and samples of one item. The records become values per
 * step, per invocation (grouped by stratum) and per run (struct
 * side_vals); the ratio of the sides is bootstrapped on the steps when both
 * have min_samples of them, else on the invocations, or on the paired calls
 * (judge_pairs.c, rules/paired.h) for the kernels' durations; the interval
 * is widened by the variation between steps and by the noise between runs
 * (noise.h: --noise-from, the history's noise, the history's runs as more
 * base runs); the change in percent and its p-value follow, and
 * judge_decide.c gives the verdict. tg_judge_samples judges per-step
 * values given directly (judge.h). The per-step metrics of whole ranks are
 * judge_units.c's.
 */
#include "judge_impl.h"
#include "noise.h"
#include "paired.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOOT_REPS 2000

/* Resampled values per bootstrap at most (reps x values): an item of
 * thousands of invocations gets fewer replicates (at least 200), which
 * keeps the interval's Monte Carlo error far below its width (the width
 * shrinks as 1/sqrt(values)) and a whole diff under a second. */
#define BOOT_DRAWS 4000000

const char *tg_sampling_name(tg_sampling s)
{
	switch (s) {
	case TG_SAMPLING_STEPS: return "steps";
	case TG_SAMPLING_INVOCATIONS: return "invocations";
	case TG_SAMPLING_EXACT: return "exact";
	case TG_SAMPLING_PAIRS: return "pairs";
	}
	return "?";
}

static void side_vals_free(struct side_vals *s)
{
	free(s->run);
	free(s->unit);
	free(s->inv);
	free(s->inv_stratum);
	memset(s, 0, sizeof(*s));
}

static int side_vals_build(struct side_vals *out, const struct sel *v, size_t n, size_t nunits, tg_rule_metric metric)
{
	memset(out, 0, sizeof(*out));
	out->nunits = nunits;
	out->unit = tg_calloc(nunits ? nunits : 1, sizeof(double));
	double *ucount = tg_calloc(nunits ? nunits : 1, sizeof(double));
	out->inv = tg_calloc(n ? n : 1, sizeof(double));
	out->inv_stratum = tg_calloc(n ? n : 1, sizeof(uint32_t));
	if (!out->unit || !ucount || !out->inv || !out->inv_stratum) {
		free(ucount);
		side_vals_free(out);
		return TG_ENOMEM;
	}
	double scale = nunits ? 1.0 / (double)nunits : 1.0;
	int overhead = metric == TG_METRIC_LAUNCH_OVERHEAD;
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		double x = (double)v[i].val; /* the delay for launch_overhead, else the duration */
		out->unit[v[i].unit] += x;
		ucount[v[i].unit] += 1;
		sum += x;
		out->count += 1;
		int first_of_inv = i == 0 || v[i].inv == TG_NONE || v[i].inv != v[i - 1].inv ||
		                   v[i].stratum != v[i - 1].stratum;
		if (overhead || first_of_inv) {
			out->inv_stratum[out->ninv] = v[i].stratum;
			out->inv[out->ninv++] = 0;
			if (isfinite(v[i].work) && metric == TG_METRIC_TFLOPS)
				out->flops += v[i].work;
			if (isfinite(v[i].work) && metric == TG_METRIC_TBS)
				out->bytes += v[i].work;
		}
		out->inv[out->ninv - 1] += x;
	}
	if (overhead) {
		/* means: per unit mean delay; per launch values scaled so sums are means */
		for (size_t u = 0; u < nunits; u++)
			out->unit[u] = ucount[u] ? out->unit[u] / ucount[u] : 0;
		out->inv_scale = 1.0 / (out->count ? out->count : 1);
		for (size_t i = 0; i < out->ninv; i++)
			out->inv[i] *= out->inv_scale;
		out->total = out->count ? sum / out->count : 0;
	} else {
		out->inv_scale = scale;
		for (size_t i = 0; i < out->ninv; i++)
			out->inv[i] *= scale;
		out->total = sum * scale;
	}
	out->count *= scale;
	out->flops *= scale;
	out->bytes *= scale;
	free(ucount);
	return 0;
}

/* The per-run means of s's unit values (rs maps its units to runs). */
int tg_judge_side_vals_runs(struct side_vals *s, const struct runs *rs)
{
	s->unit_trace = rs ? rs->trace_of_unit : NULL;
	size_t n = rs && rs->n ? rs->n : 1;
	double *cnt = tg_calloc(n, sizeof(double));
	s->run = tg_calloc(n, sizeof(double));
	if (!cnt || !s->run) {
		free(cnt);
		return TG_ENOMEM;
	}
	s->nruns = n;
	for (size_t u = 0; u < s->nunits; u++) {
		uint32_t k = rs && rs->of_unit ? rs->of_unit[u] : 0;
		s->run[k] += s->unit[u];
		cnt[k] += 1;
	}
	size_t c = 0;
	for (size_t k = 0; k < n; k++)
		if (cnt[k] > 0) /* a run without units of the rule (a rank it lacks) does not count */
			s->run[c++] = s->run[k] / cnt[k];
	s->nruns = c;
	free(cnt);
	return 0;
}

/* Strata for the bootstrap from two sides' invocation values (both sorted
 * by stratum). *out: strata array; the caller frees it. */
static int make_strata(tg_stratum **out, size_t *n, const struct side_vals *b, const struct side_vals *x, int single)
{
	tg_stratum *s = tg_calloc(b->ninv + x->ninv + 1, sizeof(*s));
	if (!s)
		return TG_ENOMEM;
	size_t i = 0, j = 0, c = 0;
	if (single) {
		s[0] = (tg_stratum){b->inv, b->ninv, x->inv, x->ninv};
		*out = s;
		*n = 1;
		return 0;
	}
	while (i < b->ninv || j < x->ninv) {
		uint32_t key;
		if (j >= x->ninv || (i < b->ninv && b->inv_stratum[i] <= x->inv_stratum[j]))
			key = b->inv_stratum[i];
		else
			key = x->inv_stratum[j];
		size_t i0 = i, j0 = j;
		while (i < b->ninv && b->inv_stratum[i] == key)
			i++;
		while (j < x->ninv && x->inv_stratum[j] == key)
			j++;
		s[c++] = (tg_stratum){b->inv + i0, i - i0, x->inv + j0, j - j0};
	}
	*out = s;
	*n = c;
	return 0;
}

static uint64_t seed_of(const char *rule, const char *item)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = rule; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const char *p = item; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	return h;
}

double tg_judge_pct(double ratio)
{
	return isfinite(ratio) ? (ratio - 1.0) * 100.0 : ratio;
}

/* The drop of a throughput in percent, from r = base / new throughput:
 * 100 * (1 - new / base); increasing in r, so it maps an interval. */
static double drop_of(double r)
{
	return r > 0 ? (1.0 - 1.0 / r) * 100.0 : NAN;
}

/* Fills the interval of j from values: steps (one stratum of per-unit
 * values) or invocations (stratified). Returns 0 or an error. */
int tg_judge_interval(tg_judged *j, const struct ctx *c, const struct side_vals *b, const struct side_vals *x, int steps,
                    double *ratio_lo, double *ratio_hi, double *ratio)
{
	tg_stratum one = {b->unit, b->nunits, x->unit, x->nunits};
	tg_stratum *st = &one;
	size_t nst = 1;
	int single = c->rule->metric == TG_METRIC_LAUNCH_OVERHEAD;
	if (!steps && make_strata(&st, &nst, b, x, single))
		return TG_ENOMEM;
	/* per step: the ratio of per-step means (the values are per-step totals);
	 * per invocation: the ratio of totals (the values are scaled by 1/steps
	 * of their side), also with one stratum, so that sides with different
	 * step or call counts compare per step */
	tg_boot_opts bo = {c->set->confidence, seed_of(c->rule->name, j->item), BOOT_REPS,
	                   steps ? TG_RATIO_MEANS : TG_RATIO_TOTALS, 0};
	tg_ratio_ci ci;
	bo.reps = tg_stats_boot_reps_for(BOOT_REPS, tg_stats_boot_draws(st, nst), BOOT_DRAWS);
	int rc = tg_stats_ratio_bootstrap_ex(&ci, st, nst, &bo);
	if (!rc) {
		*ratio = ci.ratio;
		*ratio_lo = ci.lo;
		*ratio_hi = ci.hi;
		/* one-sided p-value of "no slowdown", from the pooled samples;
		 * invocations compared as measured, not scaled by their side's
		 * step count (which would make sides of different lengths differ) */
		size_t nb = steps ? b->nunits : b->ninv, nx = steps ? x->nunits : x->ninv;
		double *pb = tg_calloc(nb ? nb : 1, sizeof(double)), *px = tg_calloc(nx ? nx : 1, sizeof(double));
		if (!pb || !px)
			rc = TG_ENOMEM;
		for (size_t i = 0; !rc && i < nb; i++)
			pb[i] = steps ? b->unit[i] : b->inv[i] / b->inv_scale;
		for (size_t i = 0; !rc && i < nx; i++)
			px[i] = steps ? x->unit[i] : x->inv[i] / x->inv_scale;
		double p2 = rc ? NAN : tg_stats_mann_whitney(pb, nb, px, nx);
		j->p_value = isnan(p2) ? NAN : (ci.ratio >= 1 ? p2 / 2 : 1 - p2 / 2);
		free(pb);
		free(px);
	}
	if (st != &one)
		free(st);
	return rc;
}

/* The pooled variance of the logs of a side's per-step values around the
 * mean of their trace (*df its degrees of freedom: steps minus traces), so
 * that the differences between ranks, or between runs, are not read as
 * variation between steps. 1 when a value is not positive (nothing). */
static int within_trace_var(double *var, double *df, const struct side_vals *s)
{
	size_t n = s->nunits;
	double ss = 0;
	size_t groups = 0;
	*var = *df = 0;
	for (size_t i = 0; i < n; i++)
		if (!(s->unit[i] > 0))
			return 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t t = s->unit_trace ? s->unit_trace[i] : 0;
		size_t k = 0;
		while (k < i && (s->unit_trace ? s->unit_trace[k] : 0) != t)
			k++;
		if (k < i)
			continue; /* trace t was summed at its first unit */
		double sum = 0, sum2 = 0;
		size_t c = 0;
		for (size_t j = i; j < n; j++) {
			if ((s->unit_trace ? s->unit_trace[j] : 0) != t)
				continue;
			double l = log(s->unit[j]);
			sum += l;
			sum2 += l * l;
			c++;
		}
		ss += sum2 - sum * sum / (double)c;
		groups++;
	}
	*df = (double)(n - groups);
	*var = *df > 0 ? (ss > 0 ? ss : 0) / *df : 0;
	return 0;
}

/* Calls sampled within a few steps are not independent: a step that ran
 * slower (a clock, a neighbour) moves every call in it. With 2 to
 * min_samples - 1 steps on each side the variation between steps is still
 * measurable: the interval of the ratio is widened to also cover
 * ratio * exp(+-t se), se from the variation of the logs of the per-step
 * totals within each trace (Welch's form, Welch-Satterthwaite degrees of
 * freedom). Within each trace: the ranks of a job, or the runs of a side,
 * differ by more than its steps do, and that is not noise between steps
 * (the runs' is widen_by_runs'). Steps without the item (a zero total)
 * leave the interval as it is. */
/* Whether the sides' steps pair one to one: as many steps, in traces of
 * the same sizes (each side's traces are in rank and run order, so the
 * i-th step of a side is the i-th of the other). Then *var (*df) is the
 * pooled variance of the logs of the steps' ratios within each trace. */
static int paired_steps_var(double *var, double *df, const struct side_vals *b, const struct side_vals *x)
{
	size_t n = b->nunits;
	if (n != x->nunits || !n || !b->unit_trace || !x->unit_trace)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((b->unit_trace[i] != b->unit_trace[i - 1]) != (x->unit_trace[i] != x->unit_trace[i - 1]))
			return 0;
	struct side_vals d = {.nunits = n, .unit_trace = b->unit_trace};
	if (!(d.unit = tg_calloc(n, sizeof(double))))
		return 0;
	for (size_t i = 0; i < n; i++)
		d.unit[i] = b->unit[i] > 0 && x->unit[i] > 0 ? x->unit[i] / b->unit[i] : 0;
	int ok = !within_trace_var(var, df, &d);
	free(d.unit);
	return ok;
}

static void widen_by_steps(double *lo, double *hi, double ratio, const struct side_vals *b, const struct side_vals *x,
                           double confidence, int paired)
{
	double vb, dfb, vx, dfx, q, d;
	if (!isfinite(ratio) || !(ratio > 0))
		return;
	if (paired && paired_steps_var(&vb, &dfb, b, x)) {
		/* the calls are paired, and so are the steps: a step that ran
		 * slower on both sides is no change */
		q = vb / (double)b->nunits;
		d = dfb;
	} else {
		if (within_trace_var(&vb, &dfb, b) || within_trace_var(&vx, &dfx, x))
			return;
		double qb = vb / (double)b->nunits, qx = vx / (double)x->nunits;
		double den = (dfb > 0 ? qb * qb / dfb : 0) + (dfx > 0 ? qx * qx / dfx : 0);
		q = qb + qx;
		d = den > 0 ? q * q / den : 0;
	}
	if (!(q > 0) || !(d > 0))
		return;
	double t = tg_stats_t_quantile((1 + confidence) / 2, d), se = sqrt(q);
	double wlo = ratio * exp(-t * se), whi = ratio * exp(t * se);
	if (wlo < *lo)
		*lo = wlo;
	if (whi > *hi)
		*hi = whi;
}

/* The history's runs as more base runs (tg_rule_base_runs): the base's
 * value becomes the mean of its runs and of these, one weight a run; the
 * ratio and its interval (of the base's own runs) move with it. *base (the
 * base's value, on the scale of its per-run values) is updated. Nothing
 * without such runs or with a base of no runs or of value 0. */
void tg_judge_pool_base_runs(const struct ctx *c, const struct side_vals *b, double *base, double *ratio, double *lo,
                           double *hi)
{
	if (!c->n_base_runs || !b->nruns || !(*base > 0))
		return;
	double own = 0, sum = 0;
	for (size_t i = 0; i < b->nruns; i++)
		own += b->run[i];
	own /= (double)b->nruns;
	if (!(own > 0))
		return;
	sum = own * (double)b->nruns;
	for (size_t i = 0; i < c->n_base_runs; i++)
		sum += c->base_runs[i];
	double pooled = sum / (double)(b->nruns + c->n_base_runs), f = own / pooled;
	*ratio *= f;
	*lo *= f;
	*hi *= f;
	*base *= pooled / own;
}

/* The between-run noise (noise.h): the base side's runs with the A/A runs
 * of --noise-from (runs of the base's code: one group), the new side's
 * runs, and the history's noise, pooled. The interval of the ratio is
 * widened to cover the one this noise gives runs_base against runs_new
 * runs, and the p-value raised to its one. Records the runs and the noise
 * in j. */
int tg_judge_widen_by_runs(tg_judged *j, const struct ctx *c, const struct side_vals *b, const struct side_vals *x,
                         double ratio, double *lo, double *hi)
{
	tg_noise nz = c->hist;
	size_t ng = b->nruns + c->n_noise_runs + c->n_base_runs;
	double *g = tg_calloc(ng ? ng : 1, sizeof(double));
	if (!g)
		return TG_ENOMEM;
	for (size_t i = 0; i < b->nruns; i++)
		g[i] = b->run[i];
	for (size_t i = 0; i < c->n_noise_runs; i++)
		g[b->nruns + i] = c->noise_runs[i];
	for (size_t i = 0; i < c->n_base_runs; i++)
		g[b->nruns + c->n_noise_runs + i] = c->base_runs[i];
	tg_noise_add_group(&nz, g, ng);
	tg_noise_add_group(&nz, x->run, x->nruns);
	free(g);
	size_t rb = (b->nruns ? b->nruns : 1) + c->n_base_runs;
	j->nruns_base = b->nruns + c->n_base_runs;
	j->nruns_history = c->n_base_runs;
	j->nruns_new = x->nruns;
	j->noise_df = nz.df;
	j->noise_pct = nz.df > 0 ? 100 * tg_noise_sigma(&nz) : NAN;
	double wlo, whi, p;
	if (tg_noise_interval(&wlo, &whi, &p, ratio, &nz, rb, x->nruns ? x->nruns : 1, c->set->confidence))
		return 0;
	if (wlo < *lo || isnan(*lo))
		*lo = wlo;
	if (whi > *hi || isnan(*hi))
		*hi = whi;
	if (isnan(j->p_value) || p > j->p_value)
		j->p_value = p;
	return 0;
}

/* Kernel-record metrics of one group. */
static int estimate(tg_judged *j, const struct ctx *c, struct side_vals *b, struct side_vals *x, size_t nb, size_t nx,
                    const struct pair_set *ps);

/* Whether the items of rule r under c are sampled on paired calls: a
 * metric of the kernels' durations, with fewer than min_samples steps on
 * a side (ub, ux: the rule's units). */
int tg_judge_paired_sampling(const struct ctx *c, size_t ub, size_t ux)
{
	tg_rule_metric m = c->rule->metric;
	return (m == TG_METRIC_KERNEL_TIME || m == TG_METRIC_TFLOPS || m == TG_METRIC_TBS) &&
	       (ub < (size_t)c->set->min_samples || ux < (size_t)c->set->min_samples);
}

static int judge_group(tg_judged *j, const struct ctx *c, const struct sel *vb, size_t nb, size_t ub,
                       const struct runs *rb, const struct sel *vx, size_t nx, size_t ux, const struct runs *rx)
{
	struct side_vals b, x;
	struct pair_set ps = {0};
	tg_rule_metric m = c->rule->metric;
	if (side_vals_build(&b, vb, nb, ub, m))
		return TG_ENOMEM;
	if (side_vals_build(&x, vx, nx, ux, m)) {
		side_vals_free(&b);
		return TG_ENOMEM;
	}
	int rc = tg_judge_side_vals_runs(&b, rb);
	if (!rc)
		rc = tg_judge_side_vals_runs(&x, rx);
	if (!rc && nb && nx && tg_judge_paired_sampling(c, ub, ux))
		rc = tg_judge_pairs_build(&ps, vb, nb, vx, nx);
	if (!rc)
		rc = estimate(j, c, &b, &x, nb, nx, ps.m ? &ps : NULL);
	tg_judge_pairs_free(&ps);
	side_vals_free(&b);
	side_vals_free(&x);
	return rc;
}

/* The ratio and interval of j on the paired calls ps (rules/paired.h),
 * with the rule's noise of one call (c->call_sigma); records the pairs and
 * that noise in j. */
static int paired_interval(tg_judged *j, const struct ctx *c, const struct side_vals *b, const struct side_vals *x,
                           const struct pair_set *ps, double *lo, double *hi, double *ratio)
{
	tg_paired_calls in = {ps->b,
	                      ps->n,
	                      ps->m,
	                      ps->ub,
	                      ps->un,
	                      ps->ub2,
	                      ps->un2,
	                      (double)(b->nunits ? b->nunits : 1),
	                      (double)(x->nunits ? x->nunits : 1),
	                      c->call_sigma,
	                      c->call_df,
	                      (size_t)c->set->min_samples,
	                      c->set->confidence};
	tg_ratio_ci ci;
	double p;
	int rc = tg_paired_ratio(&ci, &p, NULL, &in);
	if (rc)
		return rc;
	*ratio = ci.ratio;
	*lo = ci.lo;
	*hi = ci.hi;
	j->p_value = p;
	j->npairs = ps->m;
	j->noise_calls = c->call_n;
	j->call_noise_pct = isnan(c->call_sigma) ? NAN : 100 * c->call_sigma;
	return 0;
}

/* The estimate, its interval and the verdict of j from the values of its
 * two sides (nb and nx selected records); ps: their paired calls (NULL:
 * sampled per step, or per invocation without any pair). */
static int estimate(tg_judged *j, const struct ctx *c, struct side_vals *b_, struct side_vals *x_, size_t nb, size_t nx,
                    const struct pair_set *ps)
{
	struct side_vals b = *b_, x = *x_;
	tg_rule_metric m = c->rule->metric;
	size_t ub = b.nunits, ux = x.nunits;
	int rc = 0;
	j->noise_pct = NAN;
	int steps = ub >= (size_t)c->set->min_samples && ux >= (size_t)c->set->min_samples;
	j->is_new = nb == 0 && nx > 0;
	j->is_gone = nb > 0 && nx == 0;
	if (!nb && !nx) {
		/* the rule selects nothing on either side (reported as unmatched) */
		j->sampling = m == TG_METRIC_COUNT ? TG_SAMPLING_EXACT : TG_SAMPLING_STEPS;
		j->pct = j->pct_lo = j->pct_hi = j->p_value = NAN;
		j->verdict = c->comparable ? TG_VERDICT_PASS : TG_VERDICT_INCONCLUSIVE;
		snprintf(j->note, sizeof(j->note), "%s", c->comparable ? "matches nothing" : "not comparable");
		goto done;
	}
	j->pct_lo = j->pct_hi = j->p_value = NAN;
	if (m == TG_METRIC_COUNT) {
		j->sampling = TG_SAMPLING_EXACT;
		j->base = b.count;
		j->next = x.count;
		j->nbase = nb;
		j->nnext = nx;
		j->pct = b.count > 0 ? tg_judge_pct(x.count / b.count) : (x.count > 0 ? INFINITY : 0);
		j->p_value = j->pct > 0 ? 0 : 1;
	} else {
		j->sampling = steps ? TG_SAMPLING_STEPS : ps ? TG_SAMPLING_PAIRS : TG_SAMPLING_INVOCATIONS;
		j->steps_base = ub;
		j->steps_new = ux;
		j->nbase = steps ? ub : ps ? nb : b.ninv;
		j->nnext = steps ? ux : ps ? nx : x.ninv;
		j->call_noise_pct = NAN;
		double ratio = NAN, lo = NAN, hi = NAN;
		if (nb && nx && !steps && ps)
			rc = paired_interval(j, c, &b, &x, ps, &lo, &hi, &ratio);
		else if (nb && nx)
			rc = tg_judge_interval(j, c, &b, &x, steps, &lo, &hi, &ratio);
		if (rc)
			goto done;
		if (nb && nx && !steps && ub >= 2 && ux >= 2)
			widen_by_steps(&lo, &hi, ratio, &b, &x, c->set->confidence, ps != NULL);
		if (nb && nx)
			tg_judge_pool_base_runs(c, &b, &b.total, &ratio, &lo, &hi);
		if (nb && nx && (rc = tg_judge_widen_by_runs(j, c, &b, &x, ratio, &lo, &hi)))
			goto done;
		if (m == TG_METRIC_TFLOPS || m == TG_METRIC_TBS) {
			/* throughput = work / time; worse = more time per unit of work */
			double wb = m == TG_METRIC_TFLOPS ? b.flops : b.bytes, wx = m == TG_METRIC_TFLOPS ? x.flops : x.bytes;
			j->base = b.total > 0 ? wb / b.total / 1e3 : 0; /* per ns -> TFLOPS/s (or TB/s) */
			j->next = x.total > 0 ? wx / x.total / 1e3 : 0;
			double f = wx > 0 ? wb / wx : NAN;
			if (nb && nx) {
				/* ratio * f is base/new throughput; the change is the
				 * drop of throughput (docs/rules.md: a 4 % drop is +4 %) */
				j->pct = drop_of(ratio * f);
				j->pct_lo = drop_of(lo * f);
				j->pct_hi = drop_of(hi * f);
			} else {
				j->pct = nb ? -100 : INFINITY;
			}
		} else {
			j->base = b.total;
			j->next = x.total;
			if (nb && nx) {
				j->pct = tg_judge_pct(ratio);
				j->pct_lo = tg_judge_pct(lo);
				j->pct_hi = tg_judge_pct(hi);
			} else {
				j->pct = nb ? -100 : INFINITY;
			}
		}
	}
	j->delta = j->next - j->base;
	tg_judge_decide(j, c, 1);
done:
	return rc;
}

/* The level of a rule judged with history runs as base runs: the rules'
 * history_confidence, at least their confidence (docs/rules.md,
 * Calibration: one run against the history is a one-sided test at
 * (1 - level) / 2, and 0.98 holds A/A blocks at 1 %). */
double tg_judge_history_level(const tg_rules_settings *set)
{
	double h = set->history_confidence > 0.5 && set->history_confidence < 1 ? set->history_confidence : 0.98;
	return h > set->confidence ? h : set->confidence;
}

/* Whether rule r takes the extra base runs br: a total rule of a metric
 * whose per-run value is the mean of its steps' values, and values all
 * positive and finite. */
int tg_judge_takes_base_runs(const tg_rule *r, const tg_rule_base_runs *br)
{
	if (r->aggregate != TG_AGG_TOTAL || !br->values || !br->n)
		return 0;
	switch (r->metric) {
	case TG_METRIC_KERNEL_TIME:
	case TG_METRIC_LAUNCH_OVERHEAD:
	case TG_METRIC_GPU_BUSY:
	case TG_METRIC_GPU_IDLE:
	case TG_METRIC_EXPOSED_COMM:
	case TG_METRIC_EXPOSED_MEMCPY: break;
	default: return 0;
	}
	for (size_t i = 0; i < br->n; i++)
		if (!(br->values[i] > 0) || !isfinite(br->values[i]))
			return 0;
	return 1;
}

/* judge_group with the per-run values of group g in the --noise-from runs
 * (the records of g, of a total rule all of them). */
int tg_judge_group_noise(tg_judged *j, const struct ctx *c, const struct noise_sel *ns, uint32_t g,
                             const struct sel *vb, size_t nb, size_t ub, const struct runs *rb, const struct sel *vx,
                             size_t nx, size_t ux, const struct runs *rx)
{
	if (!c->noise_m)
		return judge_group(j, c, vb, nb, ub, rb, vx, nx, ux, rx);
	size_t i0 = 0, i1 = ns->n;
	if (c->rule->aggregate != TG_AGG_TOTAL) {
		while (i0 < ns->n && ns->v[i0].group < g)
			i0++;
		i1 = i0;
		while (i1 < ns->n && ns->v[i1].group == g)
			i1++;
	}
	struct side_vals sn;
	if (side_vals_build(&sn, ns->v + i0, i1 - i0, ns->units, c->rule->metric))
		return TG_ENOMEM;
	int rc = tg_judge_side_vals_runs(&sn, ns->runs);
	struct ctx c2 = *c;
	if (!rc && i1 > i0) {
		c2.noise_runs = sn.run;
		c2.n_noise_runs = sn.nruns;
	}
	if (!rc)
		rc = judge_group(j, &c2, vb, nb, ub, rb, vx, nx, ux, rx);
	side_vals_free(&sn);
	return rc;
}

/* One side of tg_judge_samples as the judge's values: the steps are the
 * units (and, scaled, the invocations of one stratum). */
static int samples_side(struct side_vals *s, const tg_step_samples *in)
{
	memset(s, 0, sizeof(*s));
	size_t n = in->n;
	s->unit = tg_calloc(n ? n : 1, sizeof(double));
	s->inv = tg_calloc(n ? n : 1, sizeof(double));
	s->inv_stratum = tg_calloc(n ? n : 1, sizeof(uint32_t));
	struct runs rs = {tg_calloc(n ? n : 1, sizeof(uint32_t)), NULL, 0};
	int rc = s->unit && s->inv && s->inv_stratum && rs.of_unit ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		if (!(in->v[i] >= 0) || !isfinite(in->v[i])) {
			rc = tg_error_set(TG_EINVAL, "judge samples: value %zu is %g", i, in->v[i]);
			break;
		}
		s->unit[i] = in->v[i];
		s->inv[i] = in->v[i] / (double)n;
		s->total += in->v[i] / (double)n;
		rs.of_unit[i] = in->run ? in->run[i] : 0;
		if (rs.of_unit[i] + 1 > rs.n)
			rs.n = rs.of_unit[i] + 1;
	}
	s->nunits = s->ninv = n;
	s->inv_scale = n ? 1.0 / (double)n : 1;
	s->count = 1;
	if (!rc)
		rc = tg_judge_side_vals_runs(s, &rs);
	free(rs.of_unit);
	return rc;
}

int tg_judge_samples(tg_judged *out, const tg_rule *rule, const tg_rules_settings *set, const tg_step_samples *base,
                     const tg_step_samples *next, const tg_rule_noise *noise)
{
	return tg_judge_samples_ex(out, rule, set, base, next, noise, NULL);
}

int tg_judge_samples_ex(tg_judged *out, const tg_rule *rule, const tg_rules_settings *set,
                        const tg_step_samples *base, const tg_step_samples *next, const tg_rule_noise *noise,
                        const tg_rule_base_runs *base_runs)
{
	memset(out, 0, sizeof(*out));
	out->rule = rule;
	out->rank = -1;
	out->item = (char *)"";
	struct ctx c = {set, rule, 1, {0, 0}, NULL, 0, NULL, NULL, 0, NAN, 0, 0, 0};
	tg_rules_settings hset = *set;
	if (base_runs && tg_judge_takes_base_runs(rule, base_runs)) {
		hset.confidence = tg_judge_history_level(set);
		c.set = &hset;
		c.base_runs = base_runs->values;
		c.n_base_runs = base_runs->n;
	}
	if (noise)
		tg_noise_add_sigma(&c.hist, noise->sigma, noise->runs);
	struct side_vals b = {0}, x = {0};
	int rc = samples_side(&b, base);
	if (!rc)
		rc = samples_side(&x, next);
	if (!rc)
		rc = estimate(out, &c, &b, &x, base->n, next->n, NULL);
	side_vals_free(&b);
	side_vals_free(&x);
	return rc;
}
