/*
 * findings_words.c - what the renderers say of findings (findings.h): the
 * findings as a table, a finding's cost and subject in words, and the
 * sentence of a finding's change between two sides. Sentences are part of
 * what the analysis computes, so the diff's augmented output and every
 * renderer say the same words; render/findings_render.c lays them out.
 */
#include "findings_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ the table */

int tg_findings_table(tg_table **out, const tg_findings *fs)
{
	static const char *const cols[] = {"finding",           "status",   "subject",       "rank",      "per_step",
	                                   "cost_per_step(us)", "cost_pct", "threshold_pct", "start(us)", "end(us)",
	                                   "evidence",          "basis",    "fix",           NULL};
	tg_table *t = tg_table_new_cols("findings", "Findings (docs/findings.md)", cols);
	size_t n;
	const tg_finding *v = tg_findings_list(fs, &n);
	int rc = t ? 0 : TG_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		const tg_finding *f = &v[i];
		int64_t r = tg_table_add_row(t);
		if (r < 0) {
			rc = TG_ENOMEM;
			break;
		}
		size_t row = (size_t)r;
		rc = tg_table_set_str(t, row, 0, tg_finding_name(f->id)) ||
		     tg_table_set_str(t, row, 1, tg_finding_status_name(f->status)) ||
		     tg_table_set_str(t, row, 2, f->subject) || tg_table_set_str(t, row, 10, f->evidence) ||
		     tg_table_set_str(t, row, 11, f->basis) || tg_table_set_str(t, row, 12, tg_finding_fix(f->id));
		if (f->rank >= 0)
			tg_table_set_int(t, row, 3, f->rank);
		if (f->status != TG_FINDING_NOT_EVALUATED) {
			tg_table_set_num(t, row, 4, f->count);
			if (!isnan(f->cost_ns))
				tg_table_set_num(t, row, 5, f->cost_ns / 1e3);
			if (!isnan(f->cost_pct))
				tg_table_set_num(t, row, 6, f->cost_pct);
			tg_table_set_num(t, row, 7, f->threshold);
		}
		if (f->end_ns > f->start_ns) {
			tg_table_set_num(t, row, 8, (double)f->start_ns / 1e3);
			tg_table_set_num(t, row, 9, (double)f->end_ns / 1e3);
		}
	}
	if (rc) {
		tg_table_free(t);
		return tg_error_set(TG_ENOMEM, "findings: out of memory");
	}
	*out = t;
	return 0;
}

/* ------------------------------------------------------------ words */

/* "0.35 ms a step (1.6 % of the step)" */
void tg_finding_cost_words(char *buf, size_t cap, const tg_finding *f)
{
	char t[32];
	tg_fstr_time(t, sizeof(t), f->cost_ns);
	if (isnan(f->cost_ns))
		snprintf(buf, cap, "cost not estimated");
	else if (isnan(f->cost_pct))
		snprintf(buf, cap, "%s a step", t);
	else
		snprintf(buf, cap, "%s a step (%.1f %% of the step)", t, f->cost_pct);
}

/* Occurrences per step mean something for these. */
int tg_finding_counted(tg_finding_id id)
{
	return id == TG_FINDING_HOST_SYNC || id == TG_FINDING_DATALOADER_STALL || id == TG_FINDING_PAGEABLE_MEMCPY ||
	       id == TG_FINDING_ATTENTION_BACKEND || id == TG_FINDING_GEMM_ALIGNMENT;
}

/* "host sync in Block.forward: aten::item (8 a step)" */
static void what_words(char *buf, size_t cap, const tg_finding *f)
{
	snprintf(buf, cap, "%s", tg_finding_title(f->id));
	if (f->subject[0])
		tg_fstr_add(buf, cap, " %s %s", f->id == TG_FINDING_STRAGGLER ? ":" : "in", f->subject);
	if (tg_finding_counted(f->id) && f->count > 0)
		tg_fstr_add(buf, cap, " (%.3g a step)", f->count);
}

void tg_finding_delta_sentence(char *buf, size_t cap, const tg_finding_delta *d)
{
	const tg_finding *f = d->next ? d->next : d->base;
	char what[256], cost[96], was[96];
	what_words(what, sizeof(what), f);
	tg_finding_cost_words(cost, sizeof(cost), f);
	switch (d->change) {
	case TG_FINDING_GONE: snprintf(buf, cap, "gone: %s, which cost %s", what, cost); break;
	case TG_FINDING_WORSE:
	case TG_FINDING_BETTER:
	case TG_FINDING_SAME:
		tg_finding_cost_words(was, sizeof(was), d->base);
		snprintf(buf, cap, "%s: %s costs %s, was %s", tg_finding_change_name(d->change), what, cost, was);
		break;
	default: snprintf(buf, cap, "new: %s costs %s", what, cost);
	}
	if (d->note && d->note[0])
		tg_fstr_add(buf, cap, " (%s)", d->note);
	if (d->change == TG_FINDING_NEW || d->change == TG_FINDING_WORSE)
		tg_fstr_add(buf, cap, "; fix: %s", tg_finding_fix(f->id));
}

/* ------------------------------------------------------------ text */

/* Writes s wrapped at width, every line after the first indented by ind. */
