/*
 * modules.h - the nn.Module view: GPU time per module, from the
 * python_function events named "nn.Module: <Class>_<n>" of a tree.
 *
 * Calls of the same module at the same place (the same path of module names
 * from the root) are one row; a row's GPU time is the union of the
 * intervals of every device event under any of its calls, so overlapping
 * kernels count once.
 */
#ifndef TG_MODULES_H
#define TG_MODULES_H

#include "tree.h"

typedef struct tg_module_row {
	uint32_t name;     /* atom: the python_function name, "nn.Module: Linear_75" */
	uint32_t parent;   /* row index, or TG_NONE for top-level modules */
	uint32_t depth;    /* 0 for top-level modules */
	uint64_t calls;    /* python_function events on this path */
	uint64_t gpu_events; /* device events under the calls */
	int64_t gpu_ns;    /* union of their intervals */
	int64_t self_gpu_ns; /* union of those not under a child module */
	int64_t cpu_ns;    /* sum of the calls' durations */
	int64_t first_ts;  /* start of the first call */
} tg_module_row;

typedef struct tg_modules tg_modules;

/* Builds the view. *out owns the result (free with tg_modules_free).
 * Returns 0 or TG_ENOMEM. A trace without module events gives no rows. */
int tg_modules_build(tg_modules **out, const tg_tree *tree);

/* Rows in depth-first order, children by first call; owned by m. */
const tg_module_row *tg_modules_rows(const tg_modules *m, size_t *n);

/* Busy time of every device event of the trace (the 100 % reference). */
int64_t tg_modules_gpu_busy_ns(const tg_modules *m);

void tg_modules_free(tg_modules *m);

/* 1 if name is a module event name ("nn.Module: ..."). */
int tg_module_name_is_module(const char *name);

#endif
