/*
 * launchers.h - kernel launchers: for every device event, the op that
 * launched it, and the tables TraceLens builds on them (ops_summary,
 * ops_summary_by_category, kernel_summary).
 *
 * The launcher of a device event K (TraceLens's rule): communication
 * kernels have none; K must hang under a runtime/driver launch R; walking
 * up from R's parent, python functions, user annotations (absent from
 * TraceLens's tree) and cpu_ops named "execute" are passed through, the
 * first other cpu_op is the launcher (the leaf CPU op), as is an
 * annotation that names a known op (vllm::unified_attention_with_output); meeting anything else first makes R itself the launcher (a bare
 * cudaGraphLaunch row).
 */
#ifndef TG_LAUNCHERS_H
#define TG_LAUNCHERS_H

#include "../trace/timebase.h"
#include "table.h"
#include "../tree/tree.h"

/* One launcher, 24 bytes (a third of a million of them at a gigabyte of
 * JSON): its direct device events and their count are
 * tg_launchers_kernels's (when kept), its category's name
 * tg_launchers_category's. */
typedef struct tg_launcher {
	uint32_t event;    /* the leaf cpu_op, or the launch call */
	uint32_t category; /* its op category, numbered by the launchers (tg_launchers_category) */
	double direct_us;  /* union of its direct device events' intervals */
	double subtree_us; /* union of every device event under the launcher */
} tg_launcher;

typedef struct tg_launchers tg_launchers;

typedef struct tg_launchers_opts {
	tg_timebase tb;
	int32_t step;          /* -1: whole trace; else device events of that step index */
	int tracelens_compat;  /* categories exactly as TraceLens (no SDPA fix) */
	int keep_kernels;      /* keep each launcher's direct device events for
	                          tg_launchers_kernels; else they are freed once the
	                          direct times and categories are made (no table reads
	                          them: 4 bytes a launcher and a kernel, 0.34 MB at 100 MB
	                          of JSON, held through the report's five tables) */
} tg_launchers_opts;

/* The launcher of device event ev (see above), or TG_NONE when it has no
 * launch; tracelens: link only as TraceLens does. Communication kernels
 * get theirs too (record_param_comms). */
uint32_t tg_launcher_of(const tg_tree *tree, uint32_t ev, int tracelens);

/* Finds every launcher of the tree's device events. *out owns the result
 * (tg_launchers_free). Returns 0 or TG_ENOMEM. */
int tg_launchers_build(tg_launchers **out, const tg_tree *tree, const tg_launchers_opts *opts);

/* Launchers in order of their first kernel's start. */
const tg_launcher *tg_launchers_list(const tg_launchers *l, size_t *n);

/* The direct device events of launcher i, in start order; none (NULL, *n
 * 0) unless the launchers were built with keep_kernels. */
const uint32_t *tg_launchers_kernels(const tg_launchers *l, size_t i, size_t *n);

/* The op category of launcher x of l: a static string (categorize.h).
 * Equal categories have equal x->category (a number of l's, not an
 * index into anything else). */
const char *tg_launchers_category(const tg_launchers *l, const tg_launcher *x);

/* The index in tg_launchers_list of the launcher of event ev of the tree's
 * trace, or TG_NONE (not a device event of the step, no launcher, a
 * communication kernel, past the trace's events). Constant time: a bit an
 * event, a count per 64 events and a launcher per linked device event,
 * not a launcher per event (1.1 bytes an event at 100 MB of JSON, not 4). */
uint32_t tg_launchers_owner(const tg_launchers *l, uint32_t ev);

void tg_launchers_free(tg_launchers *l);

/* Tables, with TraceLens's file names and columns:
 *   ops_summary: name, total_direct_kernel_time_sum (us),
 *     total_subtree_kernel_time_sum (us), total_direct_kernel_time_ms,
 *     total_subtree_kernel_time_ms, Count, Categories, Percentage (%),
 *     Cumulative Percentage (%)
 *   ops_summary_by_category: op category, Count, total_direct_kernel_time_ms,
 *     Percentage (%), Cumulative Percentage (%)
 *   kernel_summary: Parent op category, Parent cpu_op, Kernel name, Kernel
 *     stream, Kernel duration (µs)_sum/_count/_mean/_min/_max, Percent of
 *     kernels time (%), Percent of total time (%) (total_time_us: the GPU
 *     timeline's total time)
 * Each returns 0 or TG_ENOMEM; the caller frees the table. */
int tg_launchers_ops_summary(tg_table **out, const tg_launchers *l);
int tg_launchers_ops_by_category(tg_table **out, const tg_launchers *l);
int tg_launchers_kernel_summary(tg_table **out, const tg_launchers *l, double total_time_us);

/* ops_unique_args: launchers grouped by name, op category, process name
 * and label, thread name, Input Dims, Input type, Input Strides and
 * Concrete Inputs (shapes written as Python tuples, as TraceLens's); per
 * group operation_count and the mean, median, std (n-1), min, max and sum
 * of the direct and subtree kernel times (us), then Percentage (%) and
 * Cumulative Percentage (%) of direct time. TraceLens's ex_UID,
 * kernel_details_summary and trunc_kernel_details columns are not given.
 * Returns 0 or TG_ENOMEM; the caller frees the table. */
int tg_launchers_unique_args(tg_table **out, const tg_launchers *l);

#endif
