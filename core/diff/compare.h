/*
 * compare.h - the differences between two measured sides, aggregated by
 * category, op, op + shapes, kernel name and nn.Module path: kernel count
 * and kernel time per step on each side, delta and delta %, and whether
 * the entry is new or gone.
 */
#ifndef TG_COMPARE_H
#define TG_COMPARE_H

#include "measure.h"
#include "../analysis/table.h"

typedef enum tg_compare_by {
	TG_COMPARE_CATEGORY = 0,
	TG_COMPARE_OP,
	TG_COMPARE_OP_SHAPE,
	TG_COMPARE_KERNEL,
	TG_COMPARE_MODULE,
	TG_COMPARE_BY_COUNT
} tg_compare_by;

/* "category", "op", "op_shape", "kernel", "module". */
const char *tg_compare_by_name(tg_compare_by by);

/* One aggregated entry. */
typedef struct tg_compare_row {
	uint32_t key;              /* atom of the shared key table */
	double base_count, new_count; /* device events per step */
	double base_us, new_us;    /* summed device time per step, us */
	double delta_us;           /* new - base */
	double delta_pct;          /* 100 * delta / base; +inf when new */
	int is_new, is_gone;
} tg_compare_row;

/* The entries of base and next aggregated by by, largest |delta| first:
 * every device event of each side over its number of units, as
 * TraceLens's TraceDiff sums them (tests/test_compare.c holds it to its
 * diff_stats.csv). *out is an array of *n rows the caller frees. Returns 0
 * or TG_ENOMEM. */
int tg_compare_rows(tg_compare_row **out, size_t *n, const tg_measure *base, const tg_measure *next,
                    tg_compare_by by);

/* The same per step, like the rules: a device event outside every step of
 * a trace with steps (warm-up before ProfilerStep#1, after the last step)
 * is in no row (tg_compare_outside counts them), so a count per step is
 * the kernels of the steps over the steps. What tg_compare_table and the
 * comment show. */
int tg_compare_rows_steps(tg_compare_row **out, size_t *n, const tg_measure *base, const tg_measure *next,
                          tg_compare_by by);

/* The category of one key of a comparison. */
typedef struct tg_compare_cat {
	uint32_t category; /* the category holding most of the key's kernel time on
	                      the two sides together; TG_NONE when it has no kernels */
	uint32_t others;   /* how many more categories hold some of it (an op that
	                      launches NCCL and copy kernels; kernels re-filed under
	                      a divergence) */
} tg_compare_cat;

/* The categories of the keys of by (what the rules judge them under:
 * docs/diff.md). *out is an array of *n entries indexed by key atom (keys
 * at or past *n have no kernels); the caller frees it. For
 * TG_COMPARE_CATEGORY every key is its own category. Returns 0 or
 * TG_ENOMEM. */
int tg_compare_categories(tg_compare_cat **out, size_t *n, const tg_measure *base, const tg_measure *next,
                          tg_compare_by by);

/* The same as a table named "diff_by_<by>" with columns <by>, base count,
 * new count, base (us), new (us), delta (us), delta (%), status ("new",
 * "gone", ""), and by category a last column "from" (where the category's
 * kernel time came from: "kernel name 78 %, op 22 %"); per step values. keys: the shared key table. limit: at
 * most that many rows (0: all). The caller frees the table. */
int tg_compare_table(tg_table **out, const tg_measure *base, const tg_measure *next, const tg_atoms *keys,
                     tg_compare_by by, size_t limit);

/* Bytes of one "from" text (tg_compare_category_froms). */
#define TG_COMPARE_FROM_CAP 96

/* Where the kernel time of category (a key of keys) came from on both
 * sides, as the "from" column writes it, into buf; "" when the category has
 * no kernels. Returns 0 or TG_ENOMEM. */
int tg_compare_category_from(char *buf, size_t cap, const tg_measure *base, const tg_measure *next,
                             const tg_atoms *keys, const char *category);

/* tg_compare_category_from for each of the n categories names[0..n) (a
 * name repeated, or not a key, is no error) into from[0..n), in one pass
 * over both sides' kernel records instead of one pass a category. Returns
 * 0 or TG_ENOMEM. */
int tg_compare_category_froms(char (*from)[TG_COMPARE_FROM_CAP], const tg_measure *base, const tg_measure *next,
                              const tg_atoms *keys, const char *const *names, size_t n);

/* The device events of m outside every step (in no row of the tables and
 * no sample of the rules): *count of them, *ns their summed duration. */
void tg_compare_outside(size_t *count, int64_t *ns, const tg_measure *m);

#endif
