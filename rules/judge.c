/*
 * judge.c - rules applied to two measures (see judge.h for the statistics).
 */
#include "judge.h"
#include "judge_findings.h"
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
/* A category of more than this percent of a side's kernel time that no
 * rule selects is named on the verdict line (docs/rules.md, "Not
 * judged"). */
#define NOT_JUDGED_PCT 5.0

struct tg_judgement {
	tg_judged *items;
	size_t n, cap;
	tg_verdict overall;
	char summary[768];
	int comparable;
	char why[512];
	const char **unmatched;
	size_t nunmatched;
	tg_accept *accepts;
	size_t naccepts;
	int total_inconclusive;
	tg_rank_compare ranks;     /* nranks < 2: one rank */
	tg_not_judged *not_judged; /* categories over 5 % of kernel time no rule selects */
	size_t nnot_judged;
	double confidence;
	double history_confidence; /* the level of the rules with history runs as base runs */
	tg_rules *owned;
	const tg_findings *findings_base, *findings_next; /* for the rules on findings */
};

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

/* ------------------------------------------------------------ selection */

static const char *kstr(const tg_atoms *keys, uint32_t a)
{
	return a == TG_NONE ? "" : tg_atoms_str(keys, a);
}

struct ctx {
	const tg_rules_settings *set;
	const tg_rule *rule;
	int comparable;
	tg_noise hist;            /* the rule's noise from history (df 0: none) */
	const double *noise_runs; /* the item's per-run values in the --noise-from runs */
	size_t n_noise_runs;
	const tg_measure *noise_m; /* the --noise-from runs, or NULL */
	const double *base_runs;  /* more runs of the base's code (tg_rule_base_runs), or NULL */
	size_t n_base_runs;
	double call_sigma; /* sd of one call's log-ratio (paired sampling), NAN: unknown */
	double call_df;
	size_t call_n;    /* the paired calls it comes from */
	double step_busy; /* the base side's GPU busy time per step of the rule's
	                             units (ns): what a min_delta share is of */
};

/* Kernels the rule would select if their category were the one their
 * name gives (kernel_names.tsv): the rule's other selectors match, its
 * category pattern matches the name's category but not the category the
 * kernel is filed under (its launching op said otherwise). Writes a
 * sentence about them to buf ("" when none, or the rule selects no
 * category). */
static void name_hint(char *buf, size_t cap, const tg_rule *r, const tg_measure *const *sides,
                      const tg_atoms *keys)
{
	buf[0] = 0;
	if (!r->category.text)
		return;
	size_t count = 0;
	int64_t ns = 0;
	uint32_t filed = TG_NONE, named = TG_NONE;
	for (int s = 0; s < 2; s++) {
		size_t nk;
		const tg_kernel_rec *k = tg_measure_kernels(sides[s], &nk);
		for (size_t i = 0; i < nk; i++) {
			if (k[i].name_category == TG_NONE || k[i].name_category == k[i].category ||
			    !tg_pattern_match(&r->category, kstr(keys, k[i].name_category)) ||
			    tg_pattern_match(&r->category, kstr(keys, k[i].category)))
				continue;
			tg_rule tmp = *r;
			memset(&tmp.category, 0, sizeof(tmp.category));
			if (!tg_judge_rec_matches(&tmp, keys, &k[i], NULL, 0))
				continue;
			count++;
			ns += k[i].dur_ns;
			if (filed == TG_NONE) {
				filed = k[i].category;
				named = k[i].name_category;
			}
		}
	}
	if (count)
		snprintf(buf, cap, "%zu kernels (%.1f us) are named like %s but filed under %s by their launching op",
		         count, (double)ns / 1e3, kstr(keys, named), kstr(keys, filed));
}

/* A rule whose selection matches nothing on either side: inconclusive, with
 * the reason (and what its kernels' names would have matched). */
static void set_unmatched(tg_judged *j, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                          const tg_atoms *keys)
{
	j->unmatched = 1;
	j->verdict = TG_VERDICT_INCONCLUSIVE;
	if (!c->comparable) {
		snprintf(j->note, sizeof(j->note), "not comparable");
		return;
	}
	char hint[128];
	const tg_measure *sides[2] = {base, next};
	name_hint(hint, sizeof(hint), c->rule, sides, keys);
	snprintf(j->note, sizeof(j->note), "matches nothing in either trace%s%.120s", hint[0] ? ": " : "", hint);
}

static uint32_t group_key(const tg_rule *r, const tg_kernel_rec *k)
{
	if (r->aggregate == TG_AGG_TOTAL)
		return 0;
	switch (r->by) {
	case TG_BY_CATEGORY: return k->category;
	case TG_BY_OP: return k->op;
	case TG_BY_OP_SHAPE: return k->op_shape;
	case TG_BY_KERNEL: return k->kernel;
	case TG_BY_MODULE: return k->module;
	}
	return 0;
}

static int cmp_sel(const void *a, const void *b)
{
	const struct sel *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->stratum != y->stratum)
		return x->stratum < y->stratum ? -1 : 1;
	return (x->inv > y->inv) - (x->inv < y->inv);
}

/* One counting-sort pass of src into dst (n entries) by key(e) in [0, range). */
#define COUNT_PASS(dst, src, n, range, cnt, KEY)                                                              \
	do {                                                                                                  \
		memset(cnt, 0, ((range) + 1) * sizeof(size_t));                                              \
		for (size_t i_ = 0; i_ < (n); i_++) {                                                        \
			const struct sel *e = &(src)[i_];                                                      \
			cnt[(KEY) + 1]++;                                                                      \
		}                                                                                             \
		for (size_t k_ = 0; k_ < (range); k_++)                                                     \
			cnt[k_ + 1] += cnt[k_];                                                                \
		for (size_t i_ = 0; i_ < (n); i_++) {                                                        \
			const struct sel *e = &(src)[i_];                                                      \
			(dst)[cnt[(KEY)]++] = *e;                                                               \
		}                                                                                             \
	} while (0)

/* Sorts v as cmp_sel orders it (group, stratum, invocation; stable), by
 * three counting passes (LSD radix): keys are atoms (< natoms, TG_NONE
 * last) and invocation ids (< ninv, or 2^32 | record index < nk). A
 * selection of every record of a big trace is sorted in O(n), not with
 * 2 million calls of a comparison. Returns 0, or -1 without memory. */
static int sort_sel(struct sel *v, size_t n, uint32_t natoms, size_t ninv, size_t nk)
{
	size_t ra = (size_t)natoms + 1, ri = ninv + nk + 1, range = ra > ri ? ra : ri;
	struct sel *tmp = tg_malloc(n * sizeof(*tmp));
	size_t *cnt = tg_calloc(range + 1, sizeof(size_t));
	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		return -1;
	}
#define ATOM_KEY(a) ((a) == TG_NONE || (a) >= natoms ? (size_t)natoms : (size_t)(a))
#define INV_KEY(x) ((x) >> 32 ? ninv + (size_t)((x) & 0xffffffffu) : (size_t)(x))
	COUNT_PASS(tmp, v, n, ri, cnt, INV_KEY(e->inv));
	COUNT_PASS(v, tmp, n, ra, cnt, ATOM_KEY(e->stratum));
	COUNT_PASS(tmp, v, n, ra, cnt, ATOM_KEY(e->group));
#undef ATOM_KEY
#undef INV_KEY
	memcpy(v, tmp, n * sizeof(*v));
	free(tmp);
	free(cnt);
	return 0;
}

/* The rank of a unit: its trace's rank (tg_measure_trace_rank:
 * distributedInfo, the manifest, the file name), else the trace's position
 * on its side (as the kernel records' rank). */
static int64_t unit_rank(const tg_measure *m, const tg_unit *u)
{
	int64_t r = tg_measure_trace_rank(m, u->trace);
	return r >= 0 ? r : (int64_t)u->trace;
}

/* The units a rule's values are per: every unit of the side, or with a
 * rank selector the steps of that rank only (so that "per step" is per
 * step of that rank, not diluted by the other ranks' empty steps). map
 * (nunits entries) gets each unit's index among them, UINT32_MAX for the
 * units left out; returns their number. */
static size_t rule_units(uint32_t *map, const tg_rule *r, const tg_measure *m)
{
	size_t nu, c = 0;
	const tg_unit *u = tg_measure_units(m, &nu);
	for (size_t i = 0; i < nu; i++)
		map[i] = r->rank < 0 || unit_rank(m, &u[i]) == r->rank ? (uint32_t)c++ : UINT32_MAX;
	return c;
}

/* The runs of a side: traces of the same rank are separate runs (the
 * i-th trace of a rank is run i); traces of different ranks are one run
 * (a distributed job). rule units (rule_units) are mapped to their run:
 * of_unit[k] for the k-th unit of the rule; n runs. */
struct runs {
	uint32_t *of_unit;             /* freed with it: trace_of_unit shares its block */
	const uint32_t *trace_of_unit; /* the trace of the k-th unit of the rule; NULL: one trace */
	size_t n;
};

static int side_runs(struct runs *out, const tg_rule *r, const tg_measure *m)
{
	size_t nu, nt = tg_measure_traces(m);
	const tg_unit *u = tg_measure_units(m, &nu);
	uint32_t *of_trace = tg_calloc(nt ? nt : 1, sizeof(uint32_t));
	out->of_unit = tg_calloc(2 * (nu ? nu : 1), sizeof(uint32_t));
	out->trace_of_unit = out->of_unit ? out->of_unit + (nu ? nu : 1) : NULL;
	out->n = 0;
	if (!of_trace || !out->of_unit) {
		free(of_trace);
		free(out->of_unit);
		out->of_unit = NULL;
		return TG_ENOMEM;
	}
	for (size_t t = 0; t < nt; t++) {
		int64_t rt = tg_measure_trace_rank(m, t);
		uint32_t k = 0;
		for (size_t s = 0; s < t; s++)
			k += tg_measure_trace_rank(m, s) == rt;
		of_trace[t] = k;
	}
	size_t c = 0;
	for (size_t i = 0; i < nu; i++) {
		if (r->rank >= 0 && unit_rank(m, &u[i]) != r->rank)
			continue;
		uint32_t k = of_trace[u[i].trace];
		((uint32_t *)out->trace_of_unit)[c] = u[i].trace;
		out->of_unit[c++] = k;
		if (k + 1 > out->n)
			out->n = k + 1;
	}
	free(of_trace);
	return 0;
}

/* The selected records of one side, sorted by group, stratum, invocation,
 * their unit renumbered among the rule's units (rule_units), *units of
 * them. *dropped (may be NULL): records the selectors match but that hold
 * no data for the metric (no perf model for tflops and tbs, no launch for
 * launch_overhead). */
static int select_side(struct sel **out, size_t *n, size_t *units, size_t *dropped, const tg_rule *r,
                       const tg_measure *m, const tg_atoms *keys)
{
	size_t nk, ni;
	const tg_kernel_rec *k = tg_measure_kernels(m, &nk);
	const tg_invocation *inv = tg_measure_invocations(m, &ni);
	struct sel *v = NULL;
	size_t cap = 0, c = 0;
	int need_model = r->metric == TG_METRIC_TFLOPS || r->metric == TG_METRIC_TBS;
	size_t drop = 0, nu;
	tg_measure_units(m, &nu);
	uint32_t *map = tg_calloc(nu ? nu : 1, sizeof(uint32_t));
	if (!map)
		return TG_ENOMEM;
	*units = rule_units(map, r, m);
	uint32_t natoms = tg_atoms_count(keys);
	uint8_t *memo = tg_calloc(5 * (size_t)(natoms ? natoms : 1), 1); /* NULL: no memo, still correct */
	for (size_t i = 0; i < nk; i++) {
		if (k[i].unit == TG_NONE || map[k[i].unit] == UINT32_MAX ||
		    !tg_judge_rec_matches(r, keys, &k[i], memo, natoms))
			continue;
		double fl = NAN, by = NAN;
		if (k[i].inv != TG_NONE) {
			fl = inv[k[i].inv].flops;
			by = inv[k[i].inv].bytes;
		}
		if ((need_model && !(r->metric == TG_METRIC_TFLOPS ? fl > 0 : by > 0)) ||
		    (r->metric == TG_METRIC_LAUNCH_OVERHEAD && k[i].delay_ns < 0)) {
			drop++;
			continue;
		}
		if (tg_grow((void **)&v, &cap, c + 1, sizeof(*v))) {
			free(v);
			free(map);
			free(memo);
			return TG_ENOMEM;
		}
		v[c++] = (struct sel){group_key(r, &k[i]),
		                      k[i].op_shape,
		                      k[i].inv != TG_NONE ? k[i].inv : ((uint64_t)1 << 32) | i,
		                      map[k[i].unit],
		                      (uint32_t)i,
		                      k[i].pair,
		                      k[i].dur_ns,
		                      k[i].delay_ns,
		                      fl,
		                      by};
	}
	free(map);
	free(memo);
	if (c > 1 && sort_sel(v, c, natoms, ni, nk))
		qsort(v, c, sizeof(*v), cmp_sel); /* no memory for the radix sort */
	*out = v;
	*n = c;
	if (dropped)
		*dropped = drop;
	return 0;
}

/* ------------------------------------------------------------ samples */

/* Values of one group on one side. */
struct side_vals {
	double *unit;     /* per unit: sum (kernel_time), count, or mean delay */
	size_t nunits;
	double *inv;      /* per invocation sum, scaled by 1/nunits, grouped by stratum */
	double inv_scale; /* that scale (1/nunits, or 1/count for mean delays) */
	uint32_t *inv_stratum;
	size_t ninv;
	double total;     /* metric total per unit */
	double count;     /* kernels per unit */
	double flops, bytes; /* per unit, distinct invocations */
	double *run;      /* per run: the mean of its units' values */
	size_t nruns;
	const uint32_t *unit_trace; /* the trace of each unit (borrowed from the runs); NULL: one */
};

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
		double x = overhead ? (double)v[i].delay : (double)v[i].dur;
		out->unit[v[i].unit] += x;
		ucount[v[i].unit] += 1;
		sum += x;
		out->count += 1;
		int first_of_inv = i == 0 || v[i].inv != v[i - 1].inv || v[i].stratum != v[i - 1].stratum;
		if (overhead || first_of_inv) {
			out->inv_stratum[out->ninv] = v[i].stratum;
			out->inv[out->ninv++] = 0;
			if (isfinite(v[i].flops))
				out->flops += v[i].flops;
			if (isfinite(v[i].bytes))
				out->bytes += v[i].bytes;
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
static int side_vals_runs(struct side_vals *s, const struct runs *rs)
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

/* ------------------------------------------------------------ one item */

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

static double pct_of(double ratio)
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
static int interval(tg_judged *j, const struct ctx *c, const struct side_vals *b, const struct side_vals *x, int steps,
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
static void pool_base_runs(const struct ctx *c, const struct side_vals *b, double *base, double *ratio, double *lo,
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
static int widen_by_runs(tg_judged *j, const struct ctx *c, const struct side_vals *b, const struct side_vals *x,
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

/* The base side's GPU busy time per step of rule r's units (its rank's
 * when it selects one): what a min_delta written as a percent is a share
 * of. */
static double base_step_busy(const tg_measure *m, const tg_rule *r)
{
	size_t nu, c = 0;
	const tg_unit *u = tg_measure_units(m, &nu);
	double sum = 0;
	for (size_t i = 0; i < nu; i++)
		if (r->rank < 0 || unit_rank(m, &u[i]) == r->rank) {
			sum += (double)u[i].busy_ns;
			c++;
		}
	return c ? sum / (double)c : 0;
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
static void decide(tg_judged *j, const struct ctx *c, int can_block)
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

/* Kernel-record metrics of one group. */
static int estimate(tg_judged *j, const struct ctx *c, struct side_vals *b, struct side_vals *x, size_t nb, size_t nx,
                    const struct pair_set *ps);

/* Whether the items of rule r under c are sampled on paired calls: a
 * metric of the kernels' durations, with fewer than min_samples steps on
 * a side (ub, ux: the rule's units). */
static int paired_sampling(const struct ctx *c, size_t ub, size_t ux)
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
	int rc = side_vals_runs(&b, rb);
	if (!rc)
		rc = side_vals_runs(&x, rx);
	if (!rc && nb && nx && paired_sampling(c, ub, ux))
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
		j->pct = b.count > 0 ? pct_of(x.count / b.count) : (x.count > 0 ? INFINITY : 0);
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
			rc = interval(j, c, &b, &x, steps, &lo, &hi, &ratio);
		if (rc)
			goto done;
		if (nb && nx && !steps && ub >= 2 && ux >= 2)
			widen_by_steps(&lo, &hi, ratio, &b, &x, c->set->confidence, ps != NULL);
		if (nb && nx)
			pool_base_runs(c, &b, &b.total, &ratio, &lo, &hi);
		if (nb && nx && (rc = widen_by_runs(j, c, &b, &x, ratio, &lo, &hi)))
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
				j->pct = pct_of(ratio);
				j->pct_lo = pct_of(lo);
				j->pct_hi = pct_of(hi);
			} else {
				j->pct = nb ? -100 : INFINITY;
			}
		}
	}
	j->delta = j->next - j->base;
	decide(j, c, 1);
done:
	return rc;
}

/* ------------------------------------------------------------ unit metrics */

static double unit_value(const tg_unit *u, tg_rule_metric m)
{
	switch (m) {
	case TG_METRIC_GPU_BUSY: return (double)u->busy_ns;
	case TG_METRIC_GPU_IDLE: return (double)u->idle_ns;
	case TG_METRIC_EXPOSED_COMM: return (double)u->exposed_comm_ns;
	case TG_METRIC_EXPOSED_MEMCPY: return (double)u->exposed_memcpy_ns;
	case TG_METRIC_HOST_SYNCS: return (double)u->host_syncs;
	case TG_METRIC_PEAK_MEMORY: return (double)u->peak_memory;
	default: return NAN;
	}
}

/* Whether unit u has data for metric m: exposed communication needs
 * collectives, exposed memcpy copies, peak memory memory events, busy and
 * idle time device activity. A count of host syncs is always known. */
static int unit_has_data(const tg_unit *u, tg_rule_metric m)
{
	switch (m) {
	case TG_METRIC_GPU_BUSY:
	case TG_METRIC_GPU_IDLE: return u->busy_ns > 0;
	case TG_METRIC_EXPOSED_COMM: return u->comm_ns > 0;
	case TG_METRIC_EXPOSED_MEMCPY: return u->memcpy_ns > 0;
	case TG_METRIC_PEAK_MEMORY: return u->peak_memory >= 0;
	default: return 1;
	}
}

/* What a trace lacks when unit_has_data() is 0 for metric m. */
static const char *no_data_what(tg_rule_metric m)
{
	switch (m) {
	case TG_METRIC_EXPOSED_COMM: return "no collectives";
	case TG_METRIC_EXPOSED_MEMCPY: return "no memory copies";
	case TG_METRIC_PEAK_MEMORY: return "no memory events";
	case TG_METRIC_LAUNCH_OVERHEAD: return "no selected kernel with a launch call";
	case TG_METRIC_TFLOPS: return "no selected op with a FLOPs model";
	case TG_METRIC_TBS: return "no selected op with a bytes model";
	default: return "no GPU activity";
	}
}

/* Per-unit values of a side for a unit metric; *n values. *nsel: units of
 * the selected rank; *ndata: of those, the ones with data for the metric
 * (peak memory keeps only those). */
static double *unit_values(size_t *n, size_t *nsel, size_t *ndata, const tg_measure *m, const tg_rule *r)
{
	size_t nu;
	const tg_unit *u = tg_measure_units(m, &nu);
	double *v = tg_calloc(nu ? nu : 1, sizeof(double));
	size_t c = 0;
	*nsel = *ndata = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < nu; i++) {
		if (r->rank >= 0 && unit_rank(m, &u[i]) != r->rank)
			continue;
		(*nsel)++;
		int has = unit_has_data(&u[i], r->metric);
		*ndata += (size_t)has;
		if (r->metric == TG_METRIC_PEAK_MEMORY && !has)
			continue;
		v[c++] = unit_value(&u[i], r->metric);
	}
	*n = c;
	return v;
}

/* What a side must hold for metric m, and how to record it, for the
 * message of a side that lacks it (lacks_data). */
static const char *needs_what(tg_rule_metric m)
{
	switch (m) {
	case TG_METRIC_PEAK_MEMORY: return "memory events (profile with profile_memory=True)";
	case TG_METRIC_LAUNCH_OVERHEAD: return "kernels with a launch call (a trace with its CPU side)";
	case TG_METRIC_TFLOPS: return "ops with a FLOPs model (their shapes: record_shapes=True)";
	case TG_METRIC_TBS: return "ops with a bytes model (their shapes: record_shapes=True)";
	default: return "GPU activity";
	}
}

/* A side that holds none of the events rule r needs while the other side
 * does: nothing to judge, an error rather than a verdict (docs/rules.md,
 * "Nothing to judge"). next: 1 for the new side. Returns TG_ENODATA with
 * the rule, the side (its first trace) and what is missing. */
static int lacks_data(const tg_rule *r, const tg_measure *m, int next)
{
	size_t nt = tg_measure_traces(m);
	const char *name = nt ? tg_measure_trace_name(m, 0) : "";
	char more[40] = "";
	if (nt > 1)
		snprintf(more, sizeof(more), " and %zu more", nt - 1);
	return tg_error_set(TG_ENODATA, "nothing to judge: rule %s (%s) needs %s, and the %s side (%s%s) has none",
	                    r->name, tg_rule_metric_name(r->metric), needs_what(r->metric), next ? "new" : "base", name,
	                    more);
}

/* An item without data: the selection matches nothing (a rank in neither
 * trace: pass, reported as unmatched), or nothing on either side holds the
 * metric's data (inconclusive on its own line, no_data). Returns 1 when j
 * is decided. (One side lacking it is an error: judge_units.) */
static int judge_no_data(tg_judged *j, const struct ctx *c, size_t selb, size_t datab, size_t selx, size_t datax,
                         int *matched)
{
	tg_rule_metric m = c->rule->metric;
	if (selb + selx == 0) {
		*matched = 0;
		j->verdict = c->comparable ? TG_VERDICT_PASS : TG_VERDICT_INCONCLUSIVE;
		snprintf(j->note, sizeof(j->note), "%s", c->comparable ? "matches nothing" : "not comparable");
	} else if (datab + datax == 0) {
		j->no_data = 1;
		j->verdict = TG_VERDICT_INCONCLUSIVE;
		snprintf(j->note, sizeof(j->note), "no data: the traces have %s", no_data_what(m));
	} else {
		return 0;
	}
	j->pct = j->pct_lo = j->pct_hi = j->p_value = NAN;
	j->delta = j->next - j->base;
	return 1;
}

static double mean(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

/* The relative interval of the total kernel time (below). */
static int kernel_time_interval(double *rlo, double *rhi, double *rratio, tg_judged *from, const struct ctx *c,
                                const tg_measure *base, const tg_measure *next, const tg_atoms *keys);

/* The per-run means of two sides' unit values (every unit of the rule's
 * rank: what unit_values keeps for the sampled metrics). */
static int unit_runs(struct side_vals *sb, struct side_vals *sx, const struct ctx *c, const tg_measure *base,
                     const tg_measure *next)
{
	struct runs rb = {0}, rx = {0};
	int rc = side_runs(&rb, c->rule, base);
	if (!rc)
		rc = side_runs(&rx, c->rule, next);
	if (!rc)
		rc = side_vals_runs(sb, &rb);
	if (!rc)
		rc = side_vals_runs(sx, &rx);
	free(rb.of_unit);
	free(rx.of_unit);
	return rc;
}

static int judge_units(tg_judged *j, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                       const tg_atoms *keys, int *matched)
{
	size_t nb, nx, selb, selx, datab, datax;
	double *b = unit_values(&nb, &selb, &datab, base, c->rule), *x = unit_values(&nx, &selx, &datax, next, c->rule);
	int rc = 0;
	if (!b || !x) {
		rc = TG_ENOMEM;
		goto done;
	}
	tg_rule_metric m = c->rule->metric;
	j->base = mean(b, nb);
	j->next = mean(x, nx);
	j->delta = j->next - j->base;
	j->nbase = nb;
	j->nnext = nx;
	j->pct_lo = j->pct_hi = j->p_value = NAN;
	j->sampling = m == TG_METRIC_HOST_SYNCS || m == TG_METRIC_PEAK_MEMORY ? TG_SAMPLING_EXACT : TG_SAMPLING_STEPS;
	*matched = 1;
	/* exposed time of a side without collectives or copies is 0, which
	 * compares with the other side's value; any other metric's data
	 * missing on one side only leaves nothing to judge */
	if (selb && selx && datab + datax && (!datab || !datax) && m != TG_METRIC_EXPOSED_COMM &&
	    m != TG_METRIC_EXPOSED_MEMCPY) {
		rc = lacks_data(c->rule, datab ? next : base, datab != 0);
		goto done;
	}
	if (judge_no_data(j, c, selb, datab, selx, datax, matched)) {
		if (!*matched)
			set_unmatched(j, c, base, next, keys);
		if (!c->comparable) {
			j->verdict = TG_VERDICT_INCONCLUSIVE;
			snprintf(j->note, sizeof(j->note), "not comparable");
		}
		goto done;
	}
	j->pct = j->base > 0 ? pct_of(j->next / j->base) : (j->next > 0 ? INFINITY : 0);
	j->is_new = j->base == 0 && j->next > 0;
	int can_block = 1;
	if (m == TG_METRIC_HOST_SYNCS || m == TG_METRIC_PEAK_MEMORY) {
		j->sampling = TG_SAMPLING_EXACT;
	} else if (nb >= (size_t)c->set->min_samples && nx >= (size_t)c->set->min_samples) {
		j->sampling = TG_SAMPLING_STEPS;
		double ratio, lo, hi;
		struct side_vals sb = {.unit = b, .nunits = nb}, sx = {.unit = x, .nunits = nx};
		if (j->base > 0 && (rc = interval(j, c, &sb, &sx, 1, &lo, &hi, &ratio)) == 0 &&
		    (rc = unit_runs(&sb, &sx, c, base, next)) == 0) {
			if (c->n_base_runs) {
				pool_base_runs(c, &sb, &j->base, &ratio, &lo, &hi);
				j->delta = j->next - j->base;
				j->pct = pct_of(ratio);
			}
			if ((rc = widen_by_runs(j, c, &sb, &sx, ratio, &lo, &hi)) == 0) {
				j->pct_lo = pct_of(lo);
				j->pct_hi = pct_of(hi);
			}
		}
		free(sb.run);
		free(sx.run);
		if (rc)
			goto done;
	} else {
		/* too few steps: gpu_busy borrows the relative interval of the
		 * total kernel time; the other timeline metrics cannot block */
		j->sampling = TG_SAMPLING_INVOCATIONS;
		if (m == TG_METRIC_GPU_BUSY && j->base > 0) {
			double lo, hi, ratio;
			tg_judged from;
			memset(&from, 0, sizeof(from));
			if ((rc = kernel_time_interval(&lo, &hi, &ratio, &from, c, base, next, keys)))
				goto done;
			if (isfinite(lo) && ratio > 0) {
				double r = j->next / j->base;
				j->pct_lo = pct_of(r * lo / ratio);
				j->pct_hi = pct_of(r * hi / ratio);
				/* the samples are the kernels': its calls, paired or not */
				j->sampling = from.sampling;
				j->nbase = from.nbase;
				j->nnext = from.nnext;
				j->npairs = from.npairs;
				j->noise_calls = from.noise_calls;
				j->call_noise_pct = from.call_noise_pct;
				j->steps_base = nb;
				j->steps_new = nx;
			}
		} else {
			can_block = 0;
			j->sampling = TG_SAMPLING_EXACT;
		}
	}
	decide(j, c, can_block);
done:
	free(b);
	free(x);
	return rc;
}

/* ------------------------------------------------------------ the whole */

/* The level of a rule judged with history runs as base runs: the rules'
 * history_confidence, at least their confidence (docs/rules.md,
 * Calibration: one run against the history is a one-sided test at
 * (1 - level) / 2, and 0.98 holds A/A blocks at 1 %). */
static double history_level(const tg_rules_settings *set)
{
	double h = set->history_confidence > 0.5 && set->history_confidence < 1 ? set->history_confidence : 0.98;
	return h > set->confidence ? h : set->confidence;
}

/* Whether rule r takes the extra base runs br: a total rule of a metric
 * whose per-run value is the mean of its steps' values, and values all
 * positive and finite. */
static int takes_base_runs(const tg_rule *r, const tg_rule_base_runs *br)
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

/* The --noise-from runs' selected records of a rule (none: n 0). */
struct noise_sel {
	const struct sel *v;
	size_t n, units;
	const struct runs *runs;
};

/* judge_group with the per-run values of group g in the --noise-from runs
 * (the records of g, of a total rule all of them). */
static int judge_group_noise(tg_judged *j, const struct ctx *c, const struct noise_sel *ns, uint32_t g,
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
	int rc = side_vals_runs(&sn, ns->runs);
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
		if (!(sn.unit = unit_values(&sn.nunits, &nsel, &ndata, c->noise_m, r)) ||
		    (rc = side_runs(&rn, r, c->noise_m)) || (rc = side_vals_runs(&sn, &rn)))
			rc = rc ? rc : TG_ENOMEM;
		free(rn.of_unit);
		c2.noise_runs = sn.run;
		c2.n_noise_runs = sn.nruns;
	}
	if (!rc)
		rc = judge_units(j, &c2, base, next, keys, matched);
	free(sn.unit);
	free(sn.run);
	return rc;
}

/* What a rule selects on each side (b: base, x: next, n: the noise
 * trace): the values sorted by group, their units, the selected items
 * without the metric's data, and the runs of the units. */
struct selection {
	struct sel *vb, *vx, *vn;
	size_t nb, nx, nn, ub, ux, un, db, dx;
	struct runs rb, rx, rn;
};

static int select_all(struct selection *s, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                      const tg_atoms *keys)
{
	const tg_rule *r = c->rule;
	memset(s, 0, sizeof(*s));
	int rc = select_side(&s->vb, &s->nb, &s->ub, &s->db, r, base, keys);
	if (!rc)
		rc = select_side(&s->vx, &s->nx, &s->ux, &s->dx, r, next, keys);
	if (!rc)
		rc = side_runs(&s->rb, r, base);
	if (!rc)
		rc = side_runs(&s->rx, r, next);
	if (!rc && c->noise_m && !(rc = select_side(&s->vn, &s->nn, &s->un, NULL, r, c->noise_m, keys)))
		rc = side_runs(&s->rn, r, c->noise_m);
	return rc;
}

static void selection_free(struct selection *s)
{
	free(s->vb);
	free(s->vx);
	free(s->vn);
	free(s->rb.of_unit);
	free(s->rx.of_unit);
	free(s->rn.of_unit);
}

/* The relative interval of the total kernel time (every record of the
 * rule's rank): what one-step traces lend gpu_busy. Judged as a rule of
 * the kernel time would be: on paired calls (or invocations without any
 * pair), widened by the variation between steps and the noise between
 * runs. NAN without kernels on a side. */
static int kernel_time_interval(double *rlo, double *rhi, double *rratio, tg_judged *from, const struct ctx *c,
                                const tg_measure *base, const tg_measure *next, const tg_atoms *keys)
{
	tg_rule all;
	memset(&all, 0, sizeof(all));
	all.name = c->rule->name;
	all.stream = -1;
	all.rank = c->rule->rank;
	all.metric = TG_METRIC_KERNEL_TIME;
	all.aggregate = TG_AGG_TOTAL;
	all.block_above = all.warn_above = all.improvement_below = NAN;
	struct ctx c2 = *c;
	c2.rule = &all;
	c2.base_runs = NULL;
	c2.n_base_runs = 0;
	c2.hist = (tg_noise){0, 0};
	struct selection s;
	*rlo = *rhi = *rratio = NAN;
	int rc = select_all(&s, &c2, base, next, keys);
	if (!rc && s.nb && s.nx && paired_sampling(&c2, s.ub, s.ux))
		rc = tg_judge_call_noise(&c2.call_sigma, &c2.call_df, &c2.call_n, s.vb, s.nb, base, next,
		                         (size_t)c->set->min_samples);
	if (!rc && s.nb && s.nx) {
		struct noise_sel ns = {s.vn, s.nn, s.un, &s.rn};
		tg_judged tmp;
		memset(&tmp, 0, sizeof(tmp));
		tmp.item = (char *)"";
		tmp.rank = -1;
		tmp.rule = &all;
		rc = judge_group_noise(&tmp, &c2, &ns, 0, s.vb, s.nb, s.ub, &s.rb, s.vx, s.nx, s.ux, &s.rx);
		if (!rc && !isnan(tmp.pct_lo)) {
			*rratio = 1 + tmp.pct / 100;
			*rlo = 1 + tmp.pct_lo / 100;
			*rhi = 1 + tmp.pct_hi / 100;
			*from = tmp;
			from->item = NULL; /* borrowed "" */
		}
	}
	selection_free(&s);
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
		snprintf(j->note, sizeof(j->note), "no data: the traces have %s", no_data_what(r->metric));
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
	int rc = judge_group_noise(j, c, ns, 0, s->vb, s->nb, s->ub, &s->rb, s->vx, s->nx, s->ux, &s->rx);
	if (!rc && s->nb + s->nx == 0) {
		set_unmatched(j, c, base, next, keys);
	} else if (!rc && c->comparable) {
		/* the evidence for a surprising number: kernels whose
		 * names say this category, filed elsewhere by their op */
		char hint[128];
		const tg_measure *sides[2] = {base, next};
		name_hint(hint, sizeof(hint), c->rule, sides, keys);
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
		if (push(jd, &j) || !(j->item = strdup(kstr(keys, g))))
			return TG_ENOMEM;
		j->rule = c->rule;
		if ((rc = judge_group_noise(j, c, ns, g, s->vb + i0, i - i0, s->ub, &s->rb, s->vx + k0, k - k0, s->ux,
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
	int rc = select_all(&s, c, base, next, keys);
	if (!rc && paired_sampling(c, s.ub, s.ux) && s.nb && s.nx) {
		rc = tg_judge_call_noise(&c1.call_sigma, &c1.call_df, &c1.call_n, s.vb, s.nb, base, next,
		                         (size_t)c->set->min_samples);
		c = &c1;
	}
	if (!rc) {
		struct noise_sel ns = {s.vn, s.nn, s.un, &s.rn};
		*matched = s.nb + s.nx + s.db + s.dx > 0;
		if ((!s.nb && s.db && s.nx) || (!s.nx && s.dx && s.nb))
			rc = lacks_data(c->rule, s.nb ? next : base, s.nb != 0);
		else if (s.nb + s.nx == 0 && s.db + s.dx > 0)
			rc = judge_selected_no_data(jd, c);
		else if (c->rule->aggregate == TG_AGG_TOTAL || s.nb + s.nx == 0)
			rc = judge_total(jd, c, &s, &ns, base, next, keys);
		else
			rc = judge_each(jd, c, &s, &ns, keys);
	}
	selection_free(&s);
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
		c1.step_busy = base_step_busy(base, &one);
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
static int fingerprints_agree(char *why, size_t cap, const tg_measure *base, const tg_measure *next)
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
	hset.confidence = history_level(set);
	jd->history_confidence = hset.confidence;
	jd->comparable = fingerprints_agree(jd->why, sizeof(jd->why), base, next) || set->allow_hardware_change ||
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
		struct ctx c = {set,
		                &rl[i],
		                jd->comparable,
		                {0, 0},
		                NULL,
		                0,
		                opts ? opts->noise_runs : NULL,
		                NULL,
		                0,
		                NAN,
		                0,
		                0,
		                base_step_busy(base, &rl[i])};
		for (size_t k = 0; opts && k < opts->n_noise; k++)
			if (opts->noise[k].rule && !strcmp(opts->noise[k].rule, rl[i].name))
				tg_noise_add_sigma(&c.hist, opts->noise[k].sigma, opts->noise[k].runs);
		for (size_t k = 0; opts && k < opts->n_base_runs; k++)
			if (opts->base_runs[k].rule && !strcmp(opts->base_runs[k].rule, rl[i].name) &&
			    takes_base_runs(&rl[i], &opts->base_runs[k])) {
				c.base_runs = opts->base_runs[k].values;
				c.n_base_runs = opts->base_runs[k].n;
				c.set = &hset;
			}
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
	jd->overall = v;
	most_changed_rank(jd);
	summarize(jd, keys);
	if (jd->comparable) {
		summarize_ranks(jd);
		summarize_not_judged(jd);
	}
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
		rc = side_vals_runs(s, &rs);
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
	if (base_runs && takes_base_runs(rule, base_runs)) {
		hset.confidence = history_level(set);
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
