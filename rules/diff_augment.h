/*
 * diff_augment.h - what a diff adds to the new side's augmented trace
 * (core/analysis/augment.h, docs/augment.md), so that the timeline shows where the
 * pull request lost time:
 *
 *   marks     every invocation of an op whose kernel time per step is
 *             significantly worse (the comment's "Ops whose kernel time
 *             changed significantly", the per-op judgement of gate.h) and
 *             every device event it launched get args.tracegate =
 *             {"regressed_op", "base_us_per_step", "new_us_per_step",
 *             "change_pct", "ci_pct", "verdict"};
 *   instants  the verdict (one global instant at the start of the first
 *             step), each rule item that warns or blocks (global), each
 *             finding new or worse in the new side (core/analysis/findings.h; global,
 *             at the start of the time span its evidence names, else of the
 *             first step: its sentence, and in args the change, the fix and
 *             both sides' numbers), and each regressed op at its first
 *             invocation of each step (on its thread), named so that the
 *             timeline reads them.
 */
#ifndef TG_DIFF_AUGMENT_H
#define TG_DIFF_AUGMENT_H

#include "../core/analysis/augment.h"
#include "gate.h"

typedef struct tg_diff_augment tg_diff_augment;

/* What the gate g (run with one new trace, new_tree, which must outlive the
 * result) adds to new_tree's trace. *out owns it (tg_diff_augment_free).
 * Returns 0, TG_EINVAL (g has more than one new trace), TG_ENOMEM. */
int tg_diff_augment_build(tg_diff_augment **out, const tg_gate *g, const tg_tree *new_tree);

/* Adds an instant at ts (ns) named name (copied) with scope 'g', 'p' or
 * 't' on track (TG_NONE: the trace's first), its args the object args
 * (stolen; may be NULL). Returns 0 or TG_ENOMEM. */
int tg_diff_augment_add_instant(tg_diff_augment *d, int64_t ts, const char *name, char scope, uint32_t track,
                                json_t *args);

/* Points o's marks, notes and instants at d's (borrowed: d must outlive
 * their use); leaves o's other fields. */
void tg_diff_augment_opts(tg_augment_opts *o, const tg_diff_augment *d);

/* The ops marked as regressed, *n of them (borrowed). */
const char *const *tg_diff_augment_ops(const tg_diff_augment *d, size_t *n);

void tg_diff_augment_free(tg_diff_augment *d);

#endif
