/*
 * branch_noise.c - the target branch's noise and change points for a
 * pull request's judgement (see branch_noise.h).
 */
#include "branch_noise.h"
#include "../core/table.h"
#include "../rules/changepoint.h"
#include "../rules/noise.h"

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
	return m != TG_METRIC_COUNT && m != TG_METRIC_HOST_SYNCS && m != TG_METRIC_PEAK_MEMORY;
}

/* Whether run is in the sorted list of ids. */
static int has_run(const int64_t *ids, size_t n, int64_t run)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ids[mid] == run)
			return 1;
		if (ids[mid] < run)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int tg_branch_noise_find(tg_branch_noise *out, tg_store *s, const char *repo, const char *target,
                         const char *workload, const char *fingerprint, int64_t exclude_run, const tg_rules *rules,
                         size_t window)
{
	memset(out, 0, sizeof(*out));
	size_t nr;
	const tg_rule *rl = tg_rules_list(rules, &nr);
	tg_history_point *fp = NULL, *hp = NULL;
	size_t nfp = 0, nhp = 0, nok = 0;
	int64_t *ok = NULL;
	double *v = NULL;
	size_t *at = NULL;
	char *text = NULL, *moved = NULL;
	size_t tlen = 0, mlen = 0;
	FILE *t = NULL, *mv = NULL;
	int rc = 0;
	/* the runs of the same fingerprint */
	if (fingerprint && (rc = tg_store_history(&fp, &nfp, s, repo, target, workload, fingerprint, window)))
		goto done;
	if ((rc = tg_store_history(&hp, &nhp, s, repo, target, workload, "rule:*", window)))
		goto done;
	ok = tg_calloc(nfp ? nfp : 1, sizeof(int64_t));
	v = tg_calloc(nhp ? nhp : 1, sizeof(double));
	at = tg_calloc(nhp ? nhp : 1, sizeof(size_t));
	out->noise = tg_calloc(nr ? nr : 1, sizeof(tg_rule_noise));
	t = open_memstream(&text, &tlen);
	mv = open_memstream(&moved, &mlen);
	if (!ok || !v || !at || !out->noise || !t || !mv) {
		rc = tg_error_set(TG_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nfp; i++)
		ok[nok++] = fp[i].run;
	qsort(ok, nok, sizeof(int64_t), cmp_i64);
	size_t said = 0, nmoved = 0;
	for (size_t r = 0; r < nr; r++) {
		if (rl[r].aggregate != TG_AGG_TOTAL || !sampled(rl[r].metric))
			continue;
		char metric[256];
		snprintf(metric, sizeof(metric), "rule:%s", rl[r].name);
		size_t n = 0;
		int positive = 1;
		for (size_t i = 0; i < nhp; i++) {
			if (strcmp(hp[i].metric, metric) || hp[i].run == exclude_run ||
			    (fingerprint && !has_run(ok, nok, hp[i].run)))
				continue;
			positive &= hp[i].value > 0 && isfinite(hp[i].value);
			at[n] = i;
			v[n++] = hp[i].value;
		}
		if (n < TG_BRANCH_NOISE_MIN_RUNS || !positive)
			continue;
		double runs;
		double sigma = tg_noise_sigma_robust(v, n, &runs);
		if (!isfinite(sigma) || !(runs >= 2))
			continue;
		out->noise[out->n++] = (tg_rule_noise){rl[r].name, sigma, runs};
		fputs(said++ ? ", " : "", t);
		tg_md_escape(t, rl[r].name);
		fprintf(t, " \xc2\xb1%.1f %% (%zu runs)", 100 * sigma, n);
		/* the latest change point of the series */
		tg_change *ch = NULL;
		size_t nch = 0;
		tg_changes_opts co = {0, 0, 0, (uint64_t)n * 7919u + r};
		if (n >= 8 && tg_changes_find(&ch, &nch, v, n, &co) == 0 && nch) {
			const tg_change *c = &ch[nch - 1];
			fputs(nmoved++ ? "; " : "", mv);
			tg_md_escape(mv, rl[r].name);
			fprintf(mv, " %+.1f %% since `%.7s`, %zu run%s ago", c->pct, hp[at[c->at]].commit, n - c->at,
			        n - c->at == 1 ? "" : "s");
		}
		free(ch);
	}
	fclose(t);
	t = NULL;
	fclose(mv);
	mv = NULL;
	{
		size_t len = 0;
		char *buf = NULL;
		FILE *f = open_memstream(&buf, &len);
		if (!f) {
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			goto done;
		}
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
			rc = tg_error_set(TG_ENOMEM, "out of memory");
			goto done;
		}
		out->text = buf;
	}
done:
	if (t)
		fclose(t);
	if (mv)
		fclose(mv);
	free(text);
	free(moved);
	free(ok);
	free(v);
	free(at);
	tg_history_free(fp, nfp);
	tg_history_free(hp, nhp);
	if (rc)
		tg_branch_noise_free(out);
	return rc;
}
