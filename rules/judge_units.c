/*
 * judge_units.c - estimation for the metrics that are one value per step
 * of a whole rank (gpu_busy, gpu_idle, exposed_comm, exposed_memcpy,
 * host_syncs, peak_memory; judge_impl.h): no kernel is selected, each
 * side's steps of the rule's rank give the values. With min_samples steps
 * a side the ratio is bootstrapped on them (judge_estimate.c); with fewer,
 * gpu_busy borrows the relative interval of the total kernel time and the
 * other metrics cannot block. A side without the metric's data while the
 * other has it is an error, "nothing to judge" (docs/rules.md), with what
 * the side lacks and how to record it.
 */
#include "judge_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
const char *tg_judge_no_data_what(tg_rule_metric m)
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
double *tg_judge_unit_values(size_t *n, size_t *nsel, size_t *ndata, const tg_measure *m, const tg_rule *r)
{
	size_t nu;
	const tg_unit *u = tg_measure_units(m, &nu);
	double *v = tg_calloc(nu ? nu : 1, sizeof(double));
	size_t c = 0;
	*nsel = *ndata = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < nu; i++) {
		if (r->rank >= 0 && tg_judge_unit_rank(m, &u[i]) != r->rank)
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
int tg_judge_lacks_data(const tg_rule *r, const tg_measure *m, int next)
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
		snprintf(j->note, sizeof(j->note), "no data: the traces have %s", tg_judge_no_data_what(m));
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

/* The per-run means of two sides' unit values (every unit of the rule's
 * rank: what unit_values keeps for the sampled metrics). */
static int unit_runs(struct side_vals *sb, struct side_vals *sx, const struct ctx *c, const tg_measure *base,
                     const tg_measure *next)
{
	struct runs rb = {0}, rx = {0};
	int rc = tg_judge_side_runs(&rb, c->rule, base);
	if (!rc)
		rc = tg_judge_side_runs(&rx, c->rule, next);
	if (!rc)
		rc = tg_judge_side_vals_runs(sb, &rb);
	if (!rc)
		rc = tg_judge_side_vals_runs(sx, &rx);
	free(rb.of_unit);
	free(rx.of_unit);
	return rc;
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
	int rc = tg_judge_select_all(&s, &c2, base, next, keys);
	if (!rc && s.nb && s.nx && tg_judge_paired_sampling(&c2, s.ub, s.ux))
		rc = tg_judge_call_noise(&c2.call_sigma, &c2.call_df, &c2.call_n, s.vb, s.nb, base, next,
		                         (size_t)c->set->min_samples);
	if (!rc && s.nb && s.nx) {
		struct noise_sel ns = {s.vn, s.nn, s.un, &s.rn};
		tg_judged tmp;
		memset(&tmp, 0, sizeof(tmp));
		tmp.item = (char *)"";
		tmp.rank = -1;
		tmp.rule = &all;
		rc = tg_judge_group_noise(&tmp, &c2, &ns, 0, s.vb, s.nb, s.ub, &s.rb, s.vx, s.nx, s.ux, &s.rx);
		if (!rc && !isnan(tmp.pct_lo)) {
			*rratio = 1 + tmp.pct / 100;
			*rlo = 1 + tmp.pct_lo / 100;
			*rhi = 1 + tmp.pct_hi / 100;
			*from = tmp;
			from->item = NULL; /* borrowed "" */
		}
	}
	tg_judge_selection_free(&s);
	return rc;
}

int tg_judge_units(tg_judged *j, const struct ctx *c, const tg_measure *base, const tg_measure *next,
                       const tg_atoms *keys, int *matched)
{
	size_t nb, nx, selb, selx, datab, datax;
	double *b = tg_judge_unit_values(&nb, &selb, &datab, base, c->rule), *x = tg_judge_unit_values(&nx, &selx, &datax, next, c->rule);
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
		rc = tg_judge_lacks_data(c->rule, datab ? next : base, datab != 0);
		goto done;
	}
	if (judge_no_data(j, c, selb, datab, selx, datax, matched)) {
		if (!*matched)
			tg_judge_set_unmatched(j, c, base, next, keys);
		if (!c->comparable) {
			j->verdict = TG_VERDICT_INCONCLUSIVE;
			snprintf(j->note, sizeof(j->note), "not comparable");
		}
		goto done;
	}
	j->pct = j->base > 0 ? tg_judge_pct(j->next / j->base) : (j->next > 0 ? INFINITY : 0);
	j->is_new = j->base == 0 && j->next > 0;
	int can_block = 1;
	if (m == TG_METRIC_HOST_SYNCS || m == TG_METRIC_PEAK_MEMORY) {
		j->sampling = TG_SAMPLING_EXACT;
	} else if (nb >= (size_t)c->set->min_samples && nx >= (size_t)c->set->min_samples) {
		j->sampling = TG_SAMPLING_STEPS;
		double ratio, lo, hi;
		struct side_vals sb = {.unit = b, .nunits = nb}, sx = {.unit = x, .nunits = nx};
		if (j->base > 0 && (rc = tg_judge_interval(j, c, &sb, &sx, 1, &lo, &hi, &ratio)) == 0 &&
		    (rc = unit_runs(&sb, &sx, c, base, next)) == 0) {
			if (c->n_base_runs) {
				tg_judge_pool_base_runs(c, &sb, &j->base, &ratio, &lo, &hi);
				j->delta = j->next - j->base;
				j->pct = tg_judge_pct(ratio);
			}
			if ((rc = tg_judge_widen_by_runs(j, c, &sb, &sx, ratio, &lo, &hi)) == 0) {
				j->pct_lo = tg_judge_pct(lo);
				j->pct_hi = tg_judge_pct(hi);
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
				j->pct_lo = tg_judge_pct(r * lo / ratio);
				j->pct_hi = tg_judge_pct(r * hi / ratio);
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
	tg_judge_decide(j, c, can_block);
done:
	free(b);
	free(x);
	return rc;
}
