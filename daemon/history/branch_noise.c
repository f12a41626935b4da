/*
 * branch_noise.c - the target branch's noise and change points for a
 * pull request's judgement (see branch_noise.h).
 */
#include "../../util/escape.h"
#include "branch_noise.h"
#include "branch_series.h"
#include "../../core/analysis/table.h"
#include "../../rules/changepoint.h"
#include "../../rules/noise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tg_branch_noise_fingerprint(const tg_metric *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++)
		if (!strncmp(m[i].name, "fingerprint:", 12))
			return m[i].name;
	return NULL;
}

void tg_branch_noise_free(tg_branch_noise *b)
{
	free(b->noise);
	free(b->text);
	memset(b, 0, sizeof(*b));
}

static int sampled(tg_rule_metric m)
{
	return m != TG_METRIC_COUNT && m != TG_METRIC_HOST_SYNCS && m != TG_METRIC_PEAK_MEMORY &&
	       m != TG_METRIC_FINDING_COST;
}

/* What the comment's lines gather, rule by rule: the noises on t, said of
 * them, and the moves on mv, nmoved of them. */
struct words {
	FILE *t, *mv;
	size_t said, nmoved;
};

/* The noise of rule rl[r] (index r seeds the change-point search) from the
 * branch's series, added to out->n with its text on w->t ("name ±1.1 % (12
 * runs)") and, when the series has a change point, its move on w->mv. */
static void rule_noise(tg_branch_noise *out, struct words *w, tg_branch_series *b, const tg_rule *rl, size_t r,
                       int64_t exclude_run)
{
	FILE *t = w->t, *mv = w->mv;
	char metric[256];
	snprintf(metric, sizeof(metric), "rule:%s", rl[r].name);
	size_t n = 0;
	int positive = 1;
	for (size_t i = 0; i < b->npoints; i++) {
		if (!tg_branch_series_has(b, i, metric) || b->points[i].run == exclude_run)
			continue;
		positive &= b->points[i].value > 0 && isfinite(b->points[i].value);
		b->at[n] = i;
		b->v[n++] = b->points[i].value;
	}
	if (n < TG_BRANCH_NOISE_MIN_RUNS || !positive)
		return;
	double runs;
	double sigma = tg_noise_sigma_robust(b->v, n, &runs);
	if (!isfinite(sigma) || !(runs >= 2))
		return;
	out->noise[out->n++] = (tg_rule_noise){rl[r].name, sigma, runs};
	fputs(w->said++ ? ", " : "", t);
	tg_md_escape(t, rl[r].name);
	fprintf(t, " \xc2\xb1%.1f %% (%zu runs)", 100 * sigma, n);
	/* the latest change point of the series */
	tg_change *ch = NULL;
	size_t nch = 0;
	tg_changes_opts co = {0, 0, 0, (uint64_t)n * 7919u + r};
	if (n >= 8 && tg_changes_find(&ch, &nch, b->v, n, &co) == 0 && nch) {
		const tg_change *c = &ch[nch - 1];
		fputs(w->nmoved++ ? "; " : "", mv);
		tg_md_escape(mv, rl[r].name);
		fprintf(mv, " %+.1f %% since `%.7s`, %zu run%s ago", c->pct, b->points[b->at[c->at]].commit, n - c->at,
		        n - c->at == 1 ? "" : "s");
	}
	free(ch);
}

/* The comment's lines: the noise (text, said of them) and the moves
 * (moved, nmoved of them) of branch target. NULL when out of memory. */
static char *noise_text(const char *target, const char *text, size_t said, const char *moved, size_t nmoved)
{
	size_t len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (said) {
		fputs("Noise on `", f);
		tg_md_escape(f, target);
		fputs("`: ", f);
		fputs(text, f);
		fputs(" (sd of one run, from its last runs on the same hardware and software).\n", f);
	}
	if (nmoved) {
		fputs("`", f);
		tg_md_escape(f, target);
		fputs("` itself moved: ", f);
		fputs(moved, f);
		fputs(".\n", f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int tg_branch_noise_find(tg_branch_noise *out, tg_store *s, const tg_history_key *key, const tg_branch_noise_opts *o)
{
	memset(out, 0, sizeof(*out));
	size_t nr;
	const tg_rule *rl = tg_rules_list(o->rules, &nr);
	tg_branch_series b;
	char *text = NULL, *moved = NULL;
	size_t tlen = 0, mlen = 0;
	FILE *t = NULL, *mv = NULL;
	int rc = tg_branch_series_load(&b, s, key, o->window);
	if (rc)
		return rc;
	out->noise = tg_calloc(nr ? nr : 1, sizeof(tg_rule_noise));
	t = open_memstream(&text, &tlen);
	mv = open_memstream(&moved, &mlen);
	if (!out->noise || !t || !mv) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
		goto done;
	}
	struct words w = {t, mv, 0, 0};
	for (size_t r = 0; r < nr; r++)
		if (rl[r].aggregate == TG_AGG_TOTAL && sampled(rl[r].metric))
			rule_noise(out, &w, &b, rl, r, o->exclude_run);
	fclose(t);
	t = NULL;
	fclose(mv);
	mv = NULL;
	if (!(out->text = noise_text(key->branch, text, w.said, moved, w.nmoved)))
		rc = tg_error_set(TG_ENOMEM, "out of memory");
done:
	if (t)
		fclose(t);
	if (mv)
		fclose(mv);
	free(text);
	free(moved);
	tg_branch_series_free(&b);
	if (rc)
		tg_branch_noise_free(out);
	return rc;
}
