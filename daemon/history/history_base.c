/*
 * history_base.c - the target branch's runs since its latest change point
 * as more base runs of a pull request's judgement (see history_base.h).
 */
#include "../../util/escape.h"
#include "history_base.h"
#include "branch_series.h"
#include "../../core/analysis/table.h"
#include "../../rules/changepoint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tg_history_base_free(tg_history_base *h)
{
	for (size_t i = 0; h->runs && i < h->n; i++)
		free((double *)h->runs[i].values);
	free(h->runs);
	free(h->text);
	memset(h, 0, sizeof(*h));
}

void tg_history_base_drop_noise(tg_rule_noise *noise, size_t *n, const tg_history_base *h)
{
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		int has = 0;
		for (size_t r = 0; !has && r < h->n; r++)
			has = noise[i].rule && !strcmp(noise[i].rule, h->runs[r].rule);
		if (!has)
			noise[k++] = noise[i];
	}
	*n = k;
}

/* The rules whose per-run value is the mean of their steps' values, in ns
 * (judge.h, tg_rule_base_runs). */
static int takes_base_runs(const tg_rule *r)
{
	if (r->aggregate != TG_AGG_TOTAL || tg_rule_metric_unit(r->metric) != TG_UNIT_TIME)
		return 0;
	switch (r->metric) {
	case TG_METRIC_KERNEL_TIME:
	case TG_METRIC_LAUNCH_OVERHEAD:
	case TG_METRIC_GPU_BUSY:
	case TG_METRIC_GPU_IDLE:
	case TG_METRIC_EXPOSED_COMM:
	case TG_METRIC_EXPOSED_MEMCPY: return 1;
	default: return 0;
	}
}

/* Whether point p is the baseline's (its run, or a run of its commit). */
static int is_base(const tg_history_point *p, int64_t base_run, const char *base_commit)
{
	return p->run == base_run || (base_commit && !strcmp(p->commit, base_commit));
}

/* The base runs of rule rl[r] (index r seeds the change-point search) into
 * b->v (ns, the latest first): the branch's runs of its series after the
 * latest change point, when the baseline is among them, less the
 * baseline's and new_commit's. Returns how many (at most
 * TG_HISTORY_BASE_MAX); 0 when the baseline is not among them. */
static size_t rule_base_runs(tg_branch_series *b, const tg_rule *rl, size_t r, const tg_history_base_opts *o)
{
	int64_t base_run = o->base_run;
	const char *base_commit = o->base_commit, *new_commit = o->new_commit;
	char metric[256];
	snprintf(metric, sizeof(metric), "rule:%s", rl[r].name);
	/* the series, oldest first, without the judged commit's runs */
	const tg_history_point *hp = b->points;
	size_t n = 0;
	for (size_t i = 0; i < b->npoints; i++) {
		if (!tg_branch_series_has(b, i, metric) || (new_commit && !strcmp(hp[i].commit, new_commit)) ||
		    !(hp[i].value > 0) || !isfinite(hp[i].value))
			continue;
		b->at[n] = i;
		b->v[n++] = hp[i].value;
	}
	/* the latest change point: the runs before it measured other code */
	size_t from = 0;
	tg_change *ch = NULL;
	size_t nch = 0;
	tg_changes_opts co = {0, 0, 0, (uint64_t)n * 7919u + r};
	if (n >= 8 && tg_changes_find(&ch, &nch, b->v, n, &co) == 0 && nch)
		from = ch[nch - 1].at;
	free(ch);
	/* the baseline must be among the runs after it */
	int base_in = 0;
	for (size_t k = from; k < n && !base_in; k++)
		base_in = is_base(&hp[b->at[k]], base_run, base_commit);
	if (!base_in)
		return 0;
	size_t take = 0;
	for (size_t k = n; k > from && take < TG_HISTORY_BASE_MAX; k--) {
		const tg_history_point *p = &hp[b->at[k - 1]];
		if (!is_base(p, base_run, base_commit))
			b->v[take++] = p->value * 1e6; /* recorded in ms (run_metrics.h), judged in ns */
	}
	return take;
}

/* The comment's line: "Base: 1 run + 9 runs of `main` since its last change
 * point (a, b; 98 % intervals)", or with counts that differ "1 run + runs
 * of `main` ... (a 4, b 9; ...)". names: the rules, each followed by
 * "\x1f<count>"; target: the branch; o: the baseline's runs and the rules.
 * NULL when out of memory. */
static char *base_text(const tg_history_base *h, const char *names, size_t most, size_t least, const char *target,
                       const tg_history_base_opts *o)
{
	size_t base_runs = o->base_runs;
	const tg_rules *rules = o->rules;
	size_t len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (h->n) {
		int same = most == least;
		const tg_rules_settings *set = tg_rules_settings_get(rules);
		double level = set->history_confidence > set->confidence ? set->history_confidence : set->confidence;
		fprintf(f, "Base: %zu run%s + ", base_runs ? base_runs : 1, base_runs > 1 ? "s" : "");
		if (same)
			fprintf(f, "%zu ", most);
		fputs("runs of `", f);
		tg_md_escape(f, target);
		fputs("` since its last change point (", f);
		for (const char *p = names; p && *p; p++) {
			if (*p != '\x1f') {
				fputc(*p, f);
				continue;
			}
			if (same)
				while (p[1] >= '0' && p[1] <= '9')
					p++;
			else
				fputc(' ', f);
		}
		fprintf(f, "; %.0f %% intervals).\n", 100 * level);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int tg_history_base_find(tg_history_base *out, tg_store *s, const tg_history_key *key, const tg_history_base_opts *o)
{
	memset(out, 0, sizeof(*out));
	size_t nr;
	const tg_rule *rl = tg_rules_list(o->rules, &nr);
	tg_branch_series b;
	char *names = NULL;
	size_t nlen = 0, most = 0, least = 0;
	FILE *nf = NULL;
	int rc = tg_branch_series_load(&b, s, key, o->window);
	if (rc)
		return rc;
	out->runs = tg_calloc(nr ? nr : 1, sizeof(tg_rule_base_runs));
	nf = open_memstream(&names, &nlen);
	if (!out->runs || !nf) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t r = 0; r < nr; r++) {
		size_t take = takes_base_runs(&rl[r]) ? rule_base_runs(&b, rl, r, o) : 0;
		if (take < TG_HISTORY_BASE_MIN)
			continue;
		double *vals = tg_calloc(take, sizeof(double));
		if (!vals) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			goto done;
		}
		memcpy(vals, b.v, take * sizeof(double));
		out->runs[out->n++] = (tg_rule_base_runs){rl[r].name, vals, take};
		fputs(out->n > 1 ? ", " : "", nf);
		tg_md_escape(nf, rl[r].name);
		fprintf(nf, "\x1f%zu", take); /* the count, kept when the rules' counts differ */
		if (take > most)
			most = take;
		if (take < least || !least)
			least = take;
	}
	int closed = fclose(nf);
	nf = NULL;
	if (closed || !(out->text = base_text(out, names, most, least, key->branch, o)))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
done:
	if (nf)
		fclose(nf);
	free(names);
	tg_branch_series_free(&b);
	if (rc)
		tg_history_base_free(out);
	return rc;
}
