/*
 * diff_render_impl.h - what the diff's renderers share (diff_render.c):
 * formatting of values, changes and intervals, the labels and lines both
 * the terminal and the comment write, and the comment's Markdown pieces
 * for kernel names and tables (diff_render_md_names.c). Included by the
 * diff_render*.c files only. Nothing here computes: it reads the
 * document (diff_render.h) and formats.
 */
#ifndef TG_DIFF_RENDER_IMPL_H
#define TG_DIFF_RENDER_IMPL_H

#include "diff_render.h"

#include <stdio.h>

#define TG_DIFF_NAME_MAX_MD 60 /* longer names are shortened, the whole in a tooltip */

/* A change in percent: "+1.2 %", "-", "new" (+inf) or "gone" (-inf). */
void tg_diff_fmt_pct(char *buf, size_t cap, double p);

/* The interval of j's change: "+0.5..+2.1 %", or "-" when none. */
void tg_diff_fmt_ci(char *buf, size_t cap, const tg_judged *j);

/* The item column of a result: its item, "(rank N)" for a rule's
 * per-rank item, "(total)" for the rule's own; buf of 48 bytes, or a
 * string of x. */
const char *tg_diff_item_label(char *buf, size_t cap, const tg_judged *x);

/* Whether a rendering lists x among the rules' results: every rule's own
 * total, and the items of each rules and the per-rank items that do not
 * simply pass (the others are in the json; a count says how many). */
int tg_diff_listed(const tg_judged *x);

/* "accepted", "improved", or the verdict's name. A static string. */
const char *tg_diff_verdict_word(const tg_judged *j);

/* One line on the between-run noise (docs/diff.md, Runs and noise) into
 * buf; pm: "±" or "+-". Empty when there is nothing sampled to say it of. */
void tg_diff_noise_line(char *buf, size_t cap, const tg_judgement *j, const char *pm);

/* The categories of kernel time no rule judges, one line (md: the
 * comment's words); none: nothing. */
void tg_diff_not_judged_line(FILE *f, const tg_judgement *j, int md);

/* With several ranks: the slowest rank and the one that changed most,
 * one line; else nothing. */
void tg_diff_ranks_line(FILE *f, const tg_judgement *j, int md);

/* Where the categories the rules select by name came from (the
 * document's tables, docs/categories.md), one line; none: nothing. */
void tg_diff_categories_from(FILE *f, const tg_diff_doc *d, int md);

/* ---- the comment's Markdown pieces (diff_render_md_names.c) */

/* Up to 3 sentences, one per kind of divergence whose time changed, from
 * the divergences table t (may be NULL). Returns how many. */
int tg_diff_md_divergence_sentences(FILE *f, const tg_table *t);

/* The first rows of t as a Markdown table (cells escaped; long names
 * shortened with the whole in a tooltip; kernel names to what people call
 * them). */
void tg_diff_md_table_rows(FILE *f, const tg_table *t, size_t rows);

/* The first rows of the divergences table t for people: where, the
 * kernels base -> new shortened to what differs, places, time, change. */
void tg_diff_md_divergence_table(FILE *f, const tg_table *t, size_t rows);

#endif
