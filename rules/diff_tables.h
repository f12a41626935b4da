/*
 * diff_tables.h - every table and number the outputs of a diff show,
 * computed once: "compute once, render apart" (issue 25).
 *
 * The gate (gate.h) measures and judges two sides; this module turns its
 * measures and judgements into what the text, md (the pull-request
 * comment) and json renderings of `tracegate diff` print: the kernel time
 * per step by each grouping (core/diff/compare.h), the categories of the
 * judged items and where their kernel time came from, the per-op changes
 * sorted for the top lists, the kernels no op launched, the nn.Module
 * subtree that explains a regression, the kernels outside every step,
 * and each side's fingerprint and steps. The renderers (diff_render*.c)
 * only read a tg_diff_tables: they call nothing that computes, which
 * tests/cli_render_pure.sh proves on their object files.
 */
#ifndef TG_DIFF_TABLES_H
#define TG_DIFF_TABLES_H

#include "../core/analysis/table.h"
#include "judge.h"

#include <stddef.h>
#include <stdint.h>

/* The groupings of the kernel time tables, in core/diff/compare.h's order
 * (tg_compare_by: category, op, op_shape, kernel, module). */
#define TG_DIFF_BY_COUNT 5
#define TG_DIFF_BY_OP_SHAPE 2

#define TG_DIFF_CAT_CAP 160  /* a category as the outputs show it ("NCCL +1") */
#define TG_DIFF_FROM_CAP 96  /* where a category's kernel time came from */
#define TG_DIFF_MATCH_CAP 600 /* a replay --match */
#define TG_DIFF_RULE_CATS 32 /* at most this many categories selected by rules */

/* One side of the diff as the headings show it. */
typedef struct tg_diff_tables_side {
	const tg_fingerprint *fp; /* GPU, driver, runtime, world size (borrowed from the measure) */
	size_t steps;             /* the side's steps (units) */
	size_t outside;           /* kernels outside every step, and their time */
	int64_t outside_ns;
} tg_diff_tables_side;

/* A module subtree (a path and everything under it), kernel time per step, us. */
typedef struct tg_diff_subtree {
	char path[256];
	double base, next;
} tg_diff_subtree;

/* The nn.Module subtrees (1 to 3 siblings) that hold at least 75 % of the
 * change of the kernels run inside modules; n 0: none says it. */
typedef struct tg_diff_modules {
	int n;
	tg_diff_subtree part[3];
	double change;         /* the change inside modules, us per step */
	double held;           /* the part of it the n subtrees hold, us */
	double outside_change; /* the change of the kernels outside every module, us */
} tg_diff_modules;

/* A category a rule selects by name, and where its kernel time came from. */
typedef struct tg_diff_rule_from {
	const char *category; /* the rule's text (borrowed from the rules) */
	char from[TG_DIFF_FROM_CAP];
} tg_diff_rule_from;

typedef struct tg_diff_tables {
	/* kernel time per step by each grouping, every row (diff_by_<by>) */
	tg_table *by[TG_DIFF_BY_COUNT];
	const char *by_name[TG_DIFF_BY_COUNT]; /* "category", "op", ... */
	tg_diff_tables_side side[2];                  /* base, new */
	/* per item of the rules' judgement (tg_judgement_items order): its
	 * category and where that came from ("" when none) */
	char (*item_category)[TG_DIFF_CAT_CAP];
	char (*item_from)[TG_DIFF_FROM_CAP];
	size_t nitems;
	/* the categories rules select by name, in the order of the rules,
	 * with a non-empty origin */
	tg_diff_rule_from rule_from[TG_DIFF_RULE_CATS];
	size_t nrule_from;
	/* the per-op judgement: each item's category, indexed as its items */
	const tg_judged *op_items;
	char (*op_category)[TG_DIFF_CAT_CAP];
	size_t nops;
	/* per-op items, by |delta| largest first, without the kernels no op
	 * launched: significant changes, the others, and every regression and
	 * improvement (borrowed from the per-op judgement) */
	const tg_judged **significant, **rest, **regressions, **improvements;
	size_t nsignificant, nrest, nregressions, nimprovements;
	const tg_judged *no_launcher; /* the kernels no op launched, NULL: none */
	double no_launcher_share;     /* their percent of the base's kernel time */
	/* the replay command of the top significant regression: the op
	 * (NULL: no line) and the --match of its most regressed shape ("") */
	const char *replay_op;
	char replay_match[TG_DIFF_MATCH_CAP];
	tg_diff_modules modules;
} tg_diff_tables;

/* Computes every table and number of the diff of base and next (measured
 * on the key table keys) judged by judgement, with ops the per-op
 * judgement (may be NULL: no per-op lists). *out owns what it allocates
 * and borrows its inputs, which must outlive it (tg_diff_tables_free).
 * Returns 0 or TG_ENOMEM. */
int tg_diff_tables_compute(tg_diff_tables **out, const tg_measure *base, const tg_measure *next, const tg_atoms *keys,
                           const tg_judgement *judgement, const tg_judgement *ops);

/* Frees t and everything it owns; NULL is a no-op. */
void tg_diff_tables_free(tg_diff_tables *t);

/* The category of the per-op item x (an item of t->op_items): "GEMM",
 * "NCCL +1", or "" when unknown. */
const char *tg_diff_tables_op_category(const tg_diff_tables *t, const tg_judged *x);

/* Whether the per-op item x's change is claimed: a regression that warns
 * (significant after the false-discovery control of the each rule, and at
 * least 1 %: gate.c), or an improvement surely beyond 1 %. */
int tg_diff_tables_op_significant(const tg_judged *x);

#endif
