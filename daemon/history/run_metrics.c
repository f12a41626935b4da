/*
 * run_metrics.c - the numbers of a run kept in the history (run_metrics.h:
 * tg_run_metrics).
 */
#include "../../rules/judge.h"
#include "run_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double tg_run_metric_display(tg_rule_metric m, double v)
{
	switch (tg_rule_metric_unit(m)) {
	case TG_UNIT_TIME: return v / 1e6;
	case TG_UNIT_BYTES: return v / 1048576.0;
	default: return v;
	}
}

void tg_run_metrics_free(tg_metric *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++)
		free((char *)m[i].name);
	free(m);
}

struct acc {
	tg_metric *m;
	size_t n, cap;
};

static int add(struct acc *a, const char *name, double v)
{
	if (!isfinite(v))
		return 0;
	if (tg_grow((void **)&a->m, &a->cap, a->n + 1, sizeof(tg_metric)))
		return TG_ENOMEM;
	char *s = strdup(name);
	if (!s)
		return tg_error_set(TG_ENOMEM, "out of memory");
	a->m[a->n++] = (tg_metric){s, v};
	return 0;
}

/* The step count, the comparability fingerprint and the per-step means of
 * the units' times (ms), host syncs and peak memory (MiB). *per: 1 / the
 * step count (1 when none). */
static int add_step_metrics(struct acc *a, double *per, const tg_measure *m)
{
	size_t nu;
	const tg_unit *u = tg_measure_units(m, &nu);
	double busy = 0, idle = 0, comm = 0, memcpy_ns = 0, syncs = 0, peak = -1;
	for (size_t i = 0; i < nu; i++) {
		busy += (double)u[i].busy_ns;
		idle += (double)u[i].idle_ns;
		comm += (double)u[i].exposed_comm_ns;
		memcpy_ns += (double)u[i].exposed_memcpy_ns;
		syncs += (double)u[i].host_syncs;
		if (u[i].peak_memory > peak)
			peak = (double)u[i].peak_memory;
	}
	*per = nu ? 1.0 / (double)nu : 1.0;
	int rc = add(a, "steps", (double)nu);
	/* the comparability fingerprint, as a metric's name (value 1): the
	 * noise of a branch comes from its runs on the same hardware and
	 * software (branch_noise.h) */
	const tg_fingerprint *f = tg_measure_fingerprint(m, NULL);
	char fp[512];
	snprintf(fp, sizeof(fp), "fingerprint:%s|%s|%s|%lld", f->gpu, f->driver, f->runtime, (long long)f->world_size);
	if (!rc)
		rc = add(a, fp, 1);
	if (!rc)
		rc = add(a, "gpu_busy_ms", busy * *per / 1e6);
	if (!rc)
		rc = add(a, "gpu_idle_ms", idle * *per / 1e6);
	if (!rc)
		rc = add(a, "exposed_comm_ms", comm * *per / 1e6);
	if (!rc)
		rc = add(a, "exposed_memcpy_ms", memcpy_ns * *per / 1e6);
	if (!rc)
		rc = add(a, "host_syncs", syncs * *per);
	if (!rc && peak >= 0)
		rc = add(a, "peak_memory_mib", peak / 1048576.0);
	return rc;
}

/* Kernel time per category (keys), per step (per: 1 / the step count),
 * over the profiled steps: a kernel outside every step of a trace with
 * steps (a warm-up, an autotuning call before ProfilerStep#1) is in no
 * step's sample of the rules (measure.h), and counting it here made a
 * category's series noisier than the rule beside it on the same kernels
 * (a first-call autotune moves from run to run), so that the change points
 * of the category series drowned in that noise. */
static int add_kernel_categories(struct acc *a, const tg_measure *m, const tg_atoms *keys, double per)
{
	size_t nk;
	const tg_kernel_rec *k = tg_measure_kernels(m, &nk);
	uint32_t ncat = tg_atoms_count(keys);
	double *cat = calloc(ncat ? ncat : 1, sizeof(double));
	if (!cat)
		return tg_error_set(TG_ENOMEM, "out of memory");
	for (size_t i = 0; i < nk; i++)
		if (k[i].category < ncat && k[i].unit != TG_NONE)
			cat[k[i].category] += (double)k[i].dur_ns;
	int rc = 0;
	for (uint32_t c = 0; !rc && c < ncat; c++) {
		if (cat[c] <= 0)
			continue;
		char name[256];
		snprintf(name, sizeof(name), "kernel_time_ms:%s", tg_atoms_str(keys, c));
		rc = add(a, name, cat[c] * per / 1e6);
	}
	free(cat);
	return rc;
}

/* Each total rule's value: the rules judged on the run against itself. */
static int add_rule_values(struct acc *a, const tg_measure *m, const tg_atoms *keys, const tg_rules *rules)
{
	tg_judgement *j = NULL;
	tg_judge_opts jo = {.allow_hardware_change = 1};
	int rc = tg_judge(&j, rules, m, m, keys, &jo);
	if (!rc && j) {
		size_t ni;
		const tg_judged *it = tg_judgement_items(j, &ni);
		for (size_t i = 0; !rc && i < ni; i++) {
			if (it[i].rule->aggregate != TG_AGG_TOTAL || it[i].rank >= 0)
				continue; /* a rule's value is its own item's, not a rank's */
			char name[256];
			snprintf(name, sizeof(name), "rule:%s", it[i].rule->name);
			rc = add(a, name, tg_run_metric_display(it[i].rule->metric, it[i].next));
		}
	}
	tg_judgement_free(j);
	return rc;
}

int tg_run_metrics(tg_metric **out, size_t *n, const tg_measure *m, const tg_atoms *keys, const tg_rules *rules)
{
	*out = NULL;
	*n = 0;
	struct acc a = {0};
	double per = 1.0;
	int rc = add_step_metrics(&a, &per, m);
	if (!rc)
		rc = add_kernel_categories(&a, m, keys, per);
	if (!rc && rules)
		rc = add_rule_values(&a, m, keys, rules);
	if (rc) {
		tg_run_metrics_free(a.m, a.n);
		return rc;
	}
	*out = a.m;
	*n = a.n;
	return 0;
}
