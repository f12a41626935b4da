/*
 * judge_findings.c - rules on findings (judge_findings.h). A finding is
 * not a noisy sample but a computed estimate, so it is judged on its
 * value, like the host-sync count: the interval is empty and a new
 * finding can block (a kernel-time item that is new only warns, its time
 * being judged by the rules on its op or category).
 */
#include "judge_findings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One side's value for the findings r selects whose key is key (NULL: all). */
static double side_value(const tg_findings *fs, const tg_rule *r, const char *id_key, int *evaluated, int *listed,
                         const tg_finding **rep)
{
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!tg_pattern_match(&r->finding, tg_finding_name(v[i].id)))
			continue;
		*listed = 1;
		*evaluated |= v[i].status != TG_FINDING_NOT_EVALUATED;
		if (v[i].status != TG_FINDING_FIRED)
			continue;
		if (id_key) {
			char k[256];
			snprintf(k, sizeof(k), "%s %s", tg_finding_name(v[i].id), v[i].key);
			if (strcmp(k, id_key))
				continue;
		}
		sum += isnan(v[i].cost_ns) ? 0 : v[i].cost_ns;
		if (!*rep || v[i].cost_ns > (*rep)->cost_ns)
			*rep = &v[i];
	}
	return sum;
}

/* Decides j from its values; floor: the rule's min_delta (ns). */
static void decide(tg_judged *j, const tg_rule *r, double floor, int comparable, const tg_finding *rep)
{
	double impr = isnan(r->improvement_below) ? 1.0 : r->improvement_below;
	j->delta = j->next - j->base;
	j->pct = j->base > 0 ? 100 * j->delta / j->base : j->next > 0 ? INFINITY : 0;
	j->is_new = j->base == 0 && j->next > 0;
	j->is_gone = j->base > 0 && j->next == 0;
	j->verdict = TG_VERDICT_PASS;
	if (!comparable) {
		j->verdict = TG_VERDICT_INCONCLUSIVE;
		snprintf(j->note, sizeof(j->note), "not comparable");
		return;
	}
	if (j->pct < -impr)
		j->improved = 1;
	int worse = j->delta > 0 && j->delta >= floor;
	if (worse && !isnan(r->block_above) && j->pct > r->block_above)
		j->verdict = TG_VERDICT_BLOCK;
	else if (worse && !isnan(r->warn_above) && j->pct > r->warn_above)
		j->verdict = TG_VERDICT_WARN;
	if (rep && (j->is_new || worse)) {
		char c[32];
		snprintf(c, sizeof(c), "%.3g ms a step", rep->cost_ns / 1e6);
		snprintf(j->note, sizeof(j->note), "%s: %s%s%.100s, %s", j->is_new ? "new" : "worse",
		         tg_finding_name(rep->id), rep->subject[0] ? " in " : "", rep->subject, c);
	} else if (j->is_gone) {
		snprintf(j->note, sizeof(j->note), "gone");
	}
}

/* Fills j for the key id_key (NULL: the total) of rule r. */
static int item(tg_judged *j, const tg_rule *r, const tg_findings *b, const tg_findings *x, const char *id_key,
                const char *label, int comparable, int *matched)
{
	memset(j, 0, sizeof(*j));
	j->rule = r;
	j->item = strdup(label);
	if (!j->item)
		return TG_ENOMEM;
	j->pct_lo = j->pct_hi = j->p_value = j->noise_pct = j->call_noise_pct = NAN;
	j->rank = -1; /* the rule's own item: findings are judged over the whole side */
	j->sampling = TG_SAMPLING_EXACT;
	j->nbase = j->nnext = 1;
	int eb = 0, ex = 0, lb = 0, lx = 0;
	const tg_finding *rb = NULL, *rx = NULL;
	j->base = b ? side_value(b, r, id_key, &eb, &lb, &rb) : 0;
	j->next = x ? side_value(x, r, id_key, &ex, &lx, &rx) : 0;
	*matched |= lb || lx;
	if (!b || !x || !(lb || lx) || !(eb || ex)) {
		j->no_data = 1;
		j->unmatched = (b && x) && !(lb || lx);
		j->verdict = TG_VERDICT_INCONCLUSIVE;
		snprintf(j->note, sizeof(j->note), "%s",
		         !b || !x      ? "findings not computed"
		         : !(lb || lx) ? "no side lists this finding (off in findings:?)"
		                       : "not evaluated on either side");
		return 0;
	}
	/* min_delta as a percent: that share of the base's step time */
	double step = 0, floor = r->min_delta;
	tg_findings_steps(b, &step);
	if (r->min_delta_share > 0 && r->min_delta_share / 100 * step > floor)
		floor = r->min_delta_share / 100 * step;
	decide(j, r, floor, comparable, rx ? rx : rb);
	if (!eb && j->is_new)
		snprintf(j->note + strlen(j->note), sizeof(j->note) - strlen(j->note),
		         " (the base could not evaluate it)");
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	const tg_judged *x = a, *y = b;
	if (x->verdict != y->verdict)
		return x->verdict > y->verdict ? -1 : 1;
	if (x->pct != y->pct)
		return x->pct > y->pct ? -1 : 1;
	return strcmp(x->item, y->item);
}

/* The fired findings' keys ("id key") r selects, from both sides, distinct. */
static int keys_of(char (**out)[256], size_t *n, const tg_rule *r, const tg_findings *const sides[2])
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	for (int s = 0; s < 2; s++) {
		size_t nf;
		const tg_finding *v = tg_findings_list(sides[s], &nf);
		for (size_t i = 0; i < nf; i++) {
			if (v[i].status != TG_FINDING_FIRED || !tg_pattern_match(&r->finding, tg_finding_name(v[i].id)))
				continue;
			char k[256];
			snprintf(k, sizeof(k), "%s %s", tg_finding_name(v[i].id), v[i].key);
			int dup = 0;
			for (size_t q = 0; q < *n && !dup; q++)
				dup = !strcmp((*out)[q], k);
			if (dup)
				continue;
			if (tg_grow((void **)out, &cap, *n + 1, sizeof(**out)))
				return TG_ENOMEM;
			memcpy((*out)[(*n)++], k, sizeof(k));
		}
	}
	return 0;
}

int tg_judge_findings_rule(tg_judged **out, size_t *n, int *matched, const tg_rule *r, const tg_findings *base,
                           const tg_findings *next, int comparable)
{
	*out = NULL;
	*n = 0;
	*matched = 0;
	char(*keys)[256] = NULL;
	size_t nk = 0;
	int rc = 0;
	if (r->aggregate == TG_AGG_EACH && base && next) {
		const tg_findings *sides[2] = {base, next};
		rc = keys_of(&keys, &nk, r, sides);
	}
	size_t ni = nk ? nk : 1;
	tg_judged *v = rc ? NULL : tg_calloc(ni, sizeof(*v));
	if (!v) {
		free(keys);
		return TG_ENOMEM;
	}
	for (size_t i = 0; i < ni && !rc; i++, *n = i)
		rc = item(&v[i], r, base, next, nk ? keys[i] : NULL, nk ? keys[i] : "", comparable, matched);
	if (nk && !rc)
		*matched = 1;
	free(keys);
	if (rc) {
		for (size_t i = 0; i < ni; i++)
			free(v[i].item);
		free(v);
		*n = 0;
		return TG_ENOMEM;
	}
	*n = ni;
	if (ni > 1)
		qsort(v, ni, sizeof(*v), cmp_item);
	*out = v;
	return 0;
}
