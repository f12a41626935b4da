/*
 * judge_select.c - selection, the judge's first stage: which parts of a
 * comparison a rule selects (judge_impl.h). Whether a rule's selectors take
 * a kernel record, with each pattern's answers kept per distinct name (a
 * side of 100,000 records asks fnmatch or regexec once per name); the
 * selected records of each side flattened (struct sel) with the group the
 * rule's "by" puts them in, sorted by group, stratum and invocation in
 * linear time; the rule's units (a rank selector keeps that rank's steps)
 * and the runs they belong to; and why a rule that selects nothing selects
 * nothing. It computes no value: judge_estimate.c turns a selection into
 * an estimate, judge.c runs the rules over it.
 */
#include "judge_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tg_judge_key(const tg_atoms *keys, uint32_t a)
{
	return a == TG_NONE ? "" : tg_atoms_str(keys, a);
}

/* A pattern's answer for atom a: 0 not asked yet, 1 matches, 2 does not.
 * NULL memo (no memory): asked every time. */
static int memo_match(uint8_t *memo, uint32_t natoms, const tg_pattern *p, const tg_atoms *keys, uint32_t a)
{
	if (!p->text)
		return 1;
	if (!memo || a == TG_NONE || a >= natoms)
		return tg_pattern_match(p, tg_judge_key(keys, a));
	if (!memo[a])
		memo[a] = tg_pattern_match(p, tg_judge_key(keys, a)) ? 1 : 2;
	return memo[a] == 1;
}

int tg_judge_rec_matches(const tg_rule *r, const tg_measure *side, const tg_atoms *keys, const tg_kernel_rec *k,
                         uint8_t *memo, uint32_t natoms)
{
	uint8_t *m = memo;
	return (r->stream < 0 || r->stream == tg_measure_rec_stream(side, k)) &&
	       (r->rank < 0 || r->rank == tg_measure_rec_rank(side, k)) &&
	       memo_match(m, natoms, &r->category, keys, k->category) &&
	       memo_match(m ? m + natoms : NULL, natoms, &r->op, keys, k->op) &&
	       memo_match(m ? m + 2 * (size_t)natoms : NULL, natoms, &r->kernel, keys, k->kernel) &&
	       memo_match(m ? m + 3 * (size_t)natoms : NULL, natoms, &r->module, keys, k->module) &&
	       memo_match(m ? m + 4 * (size_t)natoms : NULL, natoms, &r->shape, keys, k->op_shape);
}

/* Kernels the rule would select if their category were the one their
 * name gives (kernel_names.tsv): the rule's other selectors match, its
 * category pattern matches the name's category but not the category the
 * kernel is filed under (its launching op said otherwise). Writes a
 * sentence about them to buf ("" when none, or the rule selects no
 * category). */
void tg_judge_name_hint(char *buf, size_t cap, const tg_rule *r, const tg_measure *const *sides,
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
			    !tg_pattern_match(&r->category, tg_judge_key(keys, k[i].name_category)) ||
			    tg_pattern_match(&r->category, tg_judge_key(keys, k[i].category)))
				continue;
			tg_rule tmp = *r;
			memset(&tmp.category, 0, sizeof(tmp.category));
			if (!tg_judge_rec_matches(&tmp, sides[s], keys, &k[i], NULL, 0))
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
		         count, (double)ns / 1e3, tg_judge_key(keys, named), tg_judge_key(keys, filed));
}

/* A rule whose selection matches nothing on either side: inconclusive, with
 * the reason (and what its kernels' names would have matched). */
void tg_judge_set_unmatched(tg_judged *j, const struct ctx *c, const tg_measure *base, const tg_measure *next,
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
	tg_judge_name_hint(hint, sizeof(hint), c->rule, sides, keys);
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
	uint64_t a1 = sel_inv_key(x), b1 = sel_inv_key(y);
	return (a1 > b1) - (a1 < b1);
}

/* One counting-sort pass of the indices src into dst (n entries) by
 * key(e) in [0, range), e the selection v[index]. */
#define COUNT_PASS(dst, src, v, n, range, cnt, KEY)                                                           \
	do {                                                                                                  \
		memset(cnt, 0, ((range) + 1) * sizeof(size_t));                                              \
		for (size_t i_ = 0; i_ < (n); i_++) {                                                        \
			const struct sel *e = &(v)[(src)[i_]];                                                 \
			cnt[(KEY) + 1]++;                                                                      \
		}                                                                                             \
		for (size_t k_ = 0; k_ < (range); k_++)                                                     \
			cnt[k_ + 1] += cnt[k_];                                                                \
		for (size_t i_ = 0; i_ < (n); i_++) {                                                        \
			const struct sel *e = &(v)[(src)[i_]];                                                 \
			(dst)[cnt[(KEY)]++] = (src)[i_];                                                        \
		}                                                                                             \
	} while (0)

/* v rearranged in place so that v[q] is what v[to[q]] was (to: a
 * permutation, left as the identity). */
static void permute(struct sel *v, uint32_t *to, size_t n)
{
	for (size_t q = 0; q < n; q++) {
		if (to[q] == q)
			continue;
		struct sel first = v[q];
		size_t j = q;
		while (to[j] != q) { /* along the cycle: each place filled from the next */
			size_t from = to[j];
			v[j] = v[from];
			to[j] = (uint32_t)j;
			j = from;
		}
		v[j] = first;
		to[j] = (uint32_t)j;
	}
}

/* Sorts v as cmp_sel orders it (group, stratum, invocation; stable), by
 * three counting passes (LSD radix) over the selections' indices, then
 * moves them in place: 8 bytes of scratch a selection, not a copy of
 * them (64 bytes each: a rule that selects every record of both sides of
 * a 100 MB pair sorted beside a copy of 2.9 MB, the gate's peak). Keys
 * are atoms (< natoms, TG_NONE last) and invocation ids (< ninv, or 2^32
 * | record index < nk). A selection of every record of a big trace is
 * sorted in O(n), not with 2 million calls of a comparison. Returns 0, or
 * -1 without memory. */
static int sort_sel(struct sel *v, size_t n, uint32_t natoms, size_t ninv, size_t nk)
{
	size_t ra = (size_t)natoms + 1, ri = ninv + nk + 1, range = ra > ri ? ra : ri;
	uint32_t *a = n < UINT32_MAX ? tg_malloc(n * sizeof(*a)) : NULL, *b = a ? tg_malloc(n * sizeof(*b)) : NULL;
	size_t *cnt = b ? tg_calloc(range + 1, sizeof(size_t)) : NULL;
	if (!cnt) {
		free(a);
		free(b);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
#define ATOM_KEY(x) ((x) == TG_NONE || (x) >= natoms ? (size_t)natoms : (size_t)(x))
#define INV_KEY(e) ((e)->inv == TG_NONE ? ninv + (size_t)(e)->rec : (size_t)(e)->inv)
	COUNT_PASS(b, a, v, n, ri, cnt, INV_KEY(e));
	COUNT_PASS(a, b, v, n, ra, cnt, ATOM_KEY(e->stratum));
	COUNT_PASS(b, a, v, n, ra, cnt, ATOM_KEY(e->group));
#undef ATOM_KEY
#undef INV_KEY
	permute(v, b, n);
	free(a);
	free(b);
	free(cnt);
	return 0;
}

/* The rank of a unit: its trace's rank (tg_measure_trace_rank:
 * distributedInfo, the manifest, the file name), else the trace's position
 * on its side (as the kernel records' rank). */
int64_t tg_judge_unit_rank(const tg_measure *m, const tg_unit *u)
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
		map[i] = r->rank < 0 || tg_judge_unit_rank(m, &u[i]) == r->rank ? (uint32_t)c++ : UINT32_MAX;
	return c;
}

int tg_judge_side_runs(struct runs *out, const tg_rule *r, const tg_measure *m)
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
		if (r->rank >= 0 && tg_judge_unit_rank(m, &u[i]) != r->rank)
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
	/* room for every record at once, given back below what is selected:
	 * growing by doubling held up to twice the selection of a side whose
	 * every record a rule selects (the gate's peak) */
	if (nk && !(v = tg_malloc(nk * sizeof(*v)))) {
		free(map);
		free(memo);
		return TG_ENOMEM;
	}
	cap = nk;
	for (size_t i = 0; i < nk; i++) {
		if (k[i].unit == TG_NONE || map[k[i].unit] == UINT32_MAX ||
		    !tg_judge_rec_matches(r, m, keys, &k[i], memo, natoms))
			continue;
		double fl = NAN, by = NAN;
		if (k[i].inv != TG_NONE) {
			fl = inv[k[i].inv].flops;
			by = inv[k[i].inv].bytes;
		}
		int overhead = r->metric == TG_METRIC_LAUNCH_OVERHEAD;
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
		                      k[i].inv,
		                      map[k[i].unit],
		                      (uint32_t)i,
		                      k[i].pair,
		                      overhead ? k[i].delay_ns : k[i].dur_ns,
		                      r->metric == TG_METRIC_TFLOPS ? fl : r->metric == TG_METRIC_TBS ? by : NAN};
	}
	free(map);
	free(memo);
	struct sel *fit = c && c < cap ? tg_realloc(v, c * sizeof(*v)) : NULL;
	if (fit)
		v = fit;
	if (!c) { /* none selected: NULL, as before any was */
		free(v);
		v = NULL;
	}
	if (c > 1 && sort_sel(v, c, natoms, ni, nk))
		qsort(v, c, sizeof(*v), cmp_sel); /* no memory for the radix sort */
	*out = v;
	*n = c;
	if (dropped)
		*dropped = drop;
	return 0;
}

/* The base side's GPU busy time per step of rule r's units (its rank's
 * when it selects one): what a min_delta written as a percent is a share
 * of. */
double tg_judge_step_busy(const tg_measure *m, const tg_rule *r)
{
	size_t nu, c = 0;
	const tg_unit *u = tg_measure_units(m, &nu);
	double sum = 0;
	for (size_t i = 0; i < nu; i++)
		if (r->rank < 0 || tg_judge_unit_rank(m, &u[i]) == r->rank) {
			sum += (double)u[i].busy_ns;
			c++;
		}
	return c ? sum / (double)c : 0;
}

int tg_judge_select_all(struct selection *s, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                      const tg_atoms *keys)
{
	const tg_rule *r = c->rule;
	memset(s, 0, sizeof(*s));
	int rc = select_side(&s->vb, &s->nb, &s->ub, &s->db, r, base, keys);
	if (!rc)
		rc = select_side(&s->vx, &s->nx, &s->ux, &s->dx, r, next, keys);
	if (!rc)
		rc = tg_judge_side_runs(&s->rb, r, base);
	if (!rc)
		rc = tg_judge_side_runs(&s->rx, r, next);
	if (!rc && c->noise_m && !(rc = select_side(&s->vn, &s->nn, &s->un, NULL, r, c->noise_m, keys)))
		rc = tg_judge_side_runs(&s->rn, r, c->noise_m);
	return rc;
}

void tg_judge_selection_free(struct selection *s)
{
	free(s->vb);
	free(s->vx);
	free(s->vn);
	free(s->rb.of_unit);
	free(s->rx.of_unit);
	free(s->rn.of_unit);
}
