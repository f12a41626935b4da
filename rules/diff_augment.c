/*
 * diff_augment.c - the marks and instants a diff adds to the new side's
 * augmented trace (diff_augment.h). The regressed ops are the per-op
 * judgement's significant regressions (what the comment lists, without the
 * kernels no op launched); their events are found through the new side's
 * measure (each kernel record knows its device event and its launching op's
 * invocation), so that what is marked is exactly what was judged.
 */
#include "diff_augment.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_LAUNCHER "(no launcher)"

struct tg_diff_augment {
	tg_augment_mark *marks;
	size_t nmarks, capm;
	json_t **notes;
	size_t nnotes, capn;
	tg_augment_instant *inst;
	size_t ninst, capi;
	char **ops;
	size_t nops, capo;
};

int tg_diff_augment_add_instant(tg_diff_augment *d, int64_t ts, const char *name, char scope, uint32_t track,
                                json_t *args)
{
	char *copy = strdup(name);
	if (!copy || tg_grow((void **)&d->inst, &d->capi, d->ninst + 1, sizeof(*d->inst))) {
		free(copy);
		json_decref(args);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	d->inst[d->ninst++] = (tg_augment_instant){ts, copy, scope, track, args};
	return 0;
}

/* A number for the JSON: null when it is not finite. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* us from the judge's ns, to 3 decimals. */
static double us(double ns)
{
	return round(ns) / 1000.0;
}

/* The verdict and each rule item that warns or blocks, at start. */
static int rule_instants(tg_diff_augment *d, const tg_gate *g, int64_t start)
{
	const tg_judgement *j = tg_gate_judgement(g);
	const char *summary = tg_judgement_summary(j);
	char name[512];
	snprintf(name, sizeof(name), "tracegate: %s", summary);
	json_t *args = json_pack("{s:s,s:s}", "verdict", tg_verdict_name(tg_judgement_verdict(j)), "summary", summary);
	if (tg_diff_augment_add_instant(d, start, name, 'g', TG_NONE, args))
		return TG_ENOMEM;
	size_t n;
	const tg_judged *it = tg_judgement_items(j, &n);
	for (size_t i = 0; i < n; i++) {
		const tg_judged *x = &it[i];
		if (x->verdict != TG_VERDICT_WARN && x->verdict != TG_VERDICT_BLOCK)
			continue;
		snprintf(name, sizeof(name), "tracegate rule %s %ss: %s%s%s %+.1f %%", x->rule->name,
		         tg_verdict_name(x->verdict), x->item, x->item[0] ? " " : "",
		         tg_rule_metric_name(x->rule->metric), isfinite(x->pct) ? x->pct : 0);
		args = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:s}", "rule", x->rule->name, "item", x->item,
		                 "metric", tg_rule_metric_name(x->rule->metric), "verdict", tg_verdict_name(x->verdict),
		                 "base", num(x->base), "new", num(x->next), "change_pct", num(x->pct), "ci_low_pct",
		                 num(x->pct_lo), "ci_high_pct", num(x->pct_hi), "note", x->note);
		if (tg_diff_augment_add_instant(d, start, name, 'g', TG_NONE, args))
			return TG_ENOMEM;
	}
	return 0;
}

/* A finding's numbers for the JSON (core/analysis/findings.h). */
static json_t *finding_json(const tg_finding *f)
{
	return json_pack("{s:s,s:s,s:o,s:o,s:o,s:s,s:s}", "id", tg_finding_name(f->id), "subject", f->subject,
	                 "count_per_step", num(f->count), "cost_per_step_us", num(f->cost_ns / 1e3), "cost_pct",
	                 num(f->cost_pct), "evidence", f->evidence, "basis", f->basis);
}

/* Each finding new or worse in the new side (the comment's Findings) as a
 * global instant at the start of the time span its evidence names (the
 * first step's start when it names none): its sentence, and in args the
 * change, the fix and both sides' numbers. */
static int finding_instants(tg_diff_augment *d, const tg_gate *g, int64_t start)
{
	size_t n;
	const tg_finding_delta *fd = tg_gate_finding_changes(g, &n);
	for (size_t i = 0; i < n; i++) {
		if (fd[i].change != TG_FINDING_NEW && fd[i].change != TG_FINDING_WORSE)
			continue;
		const tg_finding *f = fd[i].next;
		char sentence[1024], name[1100];
		tg_finding_delta_sentence(sentence, sizeof(sentence), &fd[i]);
		char *fix = strstr(sentence, "; fix: ");
		if (fix)
			*fix = 0; /* the fix is in args */
		snprintf(name, sizeof(name), "tracegate finding %s", sentence);
		json_t *args = json_pack("{s:s,s:s,s:s,s:o,s:o}", "change", tg_finding_change_name(fd[i].change), "note",
		                         fd[i].note ? fd[i].note : "", "fix", tg_finding_fix(f->id), "new", finding_json(f),
		                         "base", fd[i].base ? finding_json(fd[i].base) : json_null());
		int64_t ts = f->end_ns > f->start_ns ? f->start_ns : start;
		if (!args || tg_diff_augment_add_instant(d, ts, name, 'g', TG_NONE, args))
			return TG_ENOMEM;
	}
	return 0;
}

static int add_mark(tg_diff_augment *d, uint32_t event, uint32_t note)
{
	if (tg_grow((void **)&d->marks, &d->capm, d->nmarks + 1, sizeof(*d->marks)))
		return TG_ENOMEM;
	d->marks[d->nmarks++] = (tg_augment_mark){event, note};
	return 0;
}

/* The note of a regressed op x. */
static json_t *op_note(const tg_judged *x)
{
	return json_pack("{s:s,s:o,s:o,s:o,s:[o,o],s:s}", "regressed_op", x->item, "base_us_per_step", num(us(x->base)),
	                 "new_us_per_step", num(us(x->next)), "change_pct", num(x->pct), "ci_pct", num(x->pct_lo),
	                 num(x->pct_hi), "verdict", tg_verdict_name(x->verdict));
}

/* Marks op x's invocations and their device events with note, and puts an
 * instant at its first invocation of each step. */
static int mark_op(tg_diff_augment *d, const tg_gate *g, const tg_tree *tree, const tg_judged *x, uint32_t note)
{
	const tg_measure *m = tg_gate_next(g);
	uint32_t key = tg_atoms_find(tg_gate_keys(g), x->item, strlen(x->item));
	size_t nrec, ninv, nsteps;
	const tg_kernel_rec *rec = tg_measure_kernels(m, &nrec);
	const tg_invocation *inv = tg_measure_invocations(m, &ninv);
	const tg_event *ev = tg_trace_events(tg_tree_trace(tree), &(size_t){0});
	tg_tree_steps(tree, &nsteps);
	uint8_t *seen = calloc(nsteps + 1, 1);
	if (!seen)
		return TG_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < nrec && !rc && key != TG_NONE; i++) {
		if (rec[i].op != key)
			continue;
		rc = add_mark(d, rec[i].event, note);
		if (rc || rec[i].inv == TG_NONE)
			continue;
		uint32_t op = inv[rec[i].inv].event;
		rc = add_mark(d, op, note);
		int32_t s = tg_tree_step_of(tree, op);
		size_t slot = s < 0 ? nsteps : (size_t)s;
		if (!rc && !seen[slot]) {
			seen[slot] = 1;
			char name[400];
			snprintf(name, sizeof(name), "regressed: %s %+.1f %% kernel time per step", x->item,
			         isfinite(x->pct) ? x->pct : 0);
			rc = tg_diff_augment_add_instant(d, ev[op].ts, name, 't', ev[op].track,
			                                 json_deep_copy(d->notes[note]));
		}
	}
	free(seen);
	return rc;
}

static int by_event(const void *pa, const void *pb)
{
	const tg_augment_mark *a = pa, *b = pb;
	return a->event != b->event ? (a->event < b->event ? -1 : 1) : (a->note < b->note ? -1 : a->note > b->note);
}

/* The significant regressions of the per-op judgement, marked. */
static int regressed_ops(tg_diff_augment *d, const tg_gate *g, const tg_tree *tree)
{
	tg_diff_doc doc = tg_gate_doc(g, NULL, 0, NULL, 0, NULL, NULL);
	size_t n = 0;
	const tg_judged *it = doc.ops ? tg_judgement_items(doc.ops, &n) : NULL;
	for (size_t i = 0; i < n; i++) {
		const tg_judged *x = &it[i];
		if ((x->verdict != TG_VERDICT_WARN && x->verdict != TG_VERDICT_BLOCK) || !(x->delta > 0) ||
		    !strcmp(x->item, NO_LAUNCHER))
			continue;
		json_t *note = op_note(x);
		char *op = strdup(x->item);
		if (!note || !op || tg_grow((void **)&d->notes, &d->capn, d->nnotes + 1, sizeof(*d->notes)) ||
		    tg_grow((void **)&d->ops, &d->capo, d->nops + 1, sizeof(*d->ops))) {
			json_decref(note);
			free(op);
			return TG_ENOMEM;
		}
		d->notes[d->nnotes++] = note;
		d->ops[d->nops++] = op;
		if (mark_op(d, g, tree, x, (uint32_t)(d->nnotes - 1)))
			return TG_ENOMEM;
	}
	/* one mark per (event, note): an op with several kernels is marked once */
	if (d->nmarks > 1) /* d->marks is NULL when nothing was marked: qsort(NULL, 0) is undefined */
		qsort(d->marks, d->nmarks, sizeof(*d->marks), by_event);
	size_t k = 0;
	for (size_t i = 0; i < d->nmarks; i++)
		if (!k || by_event(&d->marks[k - 1], &d->marks[i]))
			d->marks[k++] = d->marks[i];
	d->nmarks = k;
	return 0;
}

int tg_diff_augment_build(tg_diff_augment **out, const tg_gate *g, const tg_tree *new_tree)
{
	*out = NULL;
	if (tg_measure_traces(tg_gate_next(g)) != 1)
		return tg_error_set(TG_EINVAL, "augment: the diff must have one new trace");
	tg_diff_augment *d = calloc(1, sizeof(*d));
	if (!d)
		return tg_error_set(TG_ENOMEM, "out of memory");
	size_t nsteps, nev;
	const tg_step *steps = tg_tree_steps(new_tree, &nsteps);
	const tg_event *ev = tg_trace_events(tg_tree_trace(new_tree), &nev);
	int64_t start = nsteps ? steps[0].ts : nev ? ev[0].ts : 0;
	for (size_t i = 0; !nsteps && i < nev; i++)
		start = ev[i].ts < start ? ev[i].ts : start;
	int rc = rule_instants(d, g, start);
	if (!rc)
		rc = finding_instants(d, g, start);
	if (!rc)
		rc = regressed_ops(d, g, new_tree);
	if (rc) {
		tg_diff_augment_free(d);
		return tg_error_set(TG_ENOMEM, "out of memory");
	}
	*out = d;
	return 0;
}

void tg_diff_augment_opts(tg_augment_opts *o, const tg_diff_augment *d)
{
	o->marks = d->marks;
	o->nmarks = d->nmarks;
	o->notes = (const json_t *const *)d->notes;
	o->nnotes = d->nnotes;
	o->instants = d->inst;
	o->ninstants = d->ninst;
}

const char *const *tg_diff_augment_ops(const tg_diff_augment *d, size_t *n)
{
	*n = d->nops;
	return (const char *const *)d->ops;
}

void tg_diff_augment_free(tg_diff_augment *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ninst; i++) {
		free((char *)d->inst[i].name);
		json_decref((json_t *)d->inst[i].args);
	}
	for (size_t i = 0; i < d->nnotes; i++)
		json_decref(d->notes[i]);
	for (size_t i = 0; i < d->nops; i++)
		free(d->ops[i]);
	free(d->inst);
	free(d->notes);
	free(d->ops);
	free(d->marks);
	free(d);
}
