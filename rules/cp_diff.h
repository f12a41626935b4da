/*
 * cp_diff.h - how the critical path moved between the two sides of a diff:
 * each trace's critical path (core/analysis/critical_path.h, HTA's default
 * settings, every step HTA keeps) per step, averaged over a side's traces,
 * what bounds each side most, and the change by bound_by. The sentence
 * says it in words: "the step became launch-bound: +2.1 ms of
 * gpu_kernel_launch_overhead (critical path 10.2 -> 12.5 ms a step)".
 * Rendered by cp_diff_render.c inside the diff's text, md and json.
 */
#ifndef TG_CP_DIFF_H
#define TG_CP_DIFF_H

#include "../core/analysis/critical_path.h"

#include <jansson.h>
#include <stdio.h>

/* One side: per-step figures, ns (a trace without steps counts as one). */
typedef struct tg_cp_side {
	int ok;              /* 0: no trace of the side gave a path (why says why) */
	char why[256];
	size_t traces;       /* traces that gave a path */
	double steps;        /* steps per trace, on average */
	double length_ns;    /* the path's length a step */
	double bound_ns[TG_CP_NBOUND];
	tg_cp_bound dominant; /* the named bound with the most time */
} tg_cp_side;

typedef struct tg_cp_diff {
	tg_cp_side base, next;
	/* the bound the sentence names: the new side's dominant bound when it
	 * changed, else the one whose time a step changed most
	 * (tg_cp_diff_largest_move); TG_CP_CPU unless both sides are ok */
	tg_cp_bound moved;
} tg_cp_diff;

/* Computes both sides into *out (nothing to free), the base on the
 * caller's thread and the new side on one more it starts and joins (one
 * after the other past a million events in all). A
 * trace whose path cannot be found (a cycle, no events) is left out of its
 * side, and named in why when no trace of the side is left. Returns 0 or
 * TG_ENOMEM. */
int tg_cp_diff_build(tg_cp_diff *out, const tg_tree *const *base, size_t nbase, const tg_tree *const *next,
                     size_t nnext);

/* The same from each trace's summary (critical_path.h: tg_cp_summarize),
 * for traces known by their run data; names: the traces' names, for why. */
void tg_cp_diff_from(tg_cp_diff *out, const tg_cp_summary *base, const char *const *bnames, size_t nbase,
                     const tg_cp_summary *next, const char *const *nnames, size_t nnext);

/* The bound whose time a step changed most (by absolute value). */
tg_cp_bound tg_cp_diff_largest_move(const tg_cp_diff *d);

/* The sentence (no final period), into buf of cap bytes; arrow is "->" or
 * a UTF-8 arrow for Markdown (cp_diff_render.c; it names d->moved). */
void tg_cp_diff_sentence(char *buf, size_t cap, const tg_cp_diff *d, const char *arrow);

/* Renderers (cp_diff_render.c): a text section, a Markdown section
 * ("#### What bounds the step") and a JSON object (a new reference, NULL
 * when out of memory). d NULL writes nothing (text, md). */
void tg_cp_diff_write_text(FILE *f, const tg_cp_diff *d);
void tg_cp_diff_write_md(FILE *f, const tg_cp_diff *d);
json_t *tg_cp_diff_json(const tg_cp_diff *d);

#endif
