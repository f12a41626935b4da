/*
 * short_kernels.h - kernels shorter than a threshold (10 us by default),
 * whose launch overhead may cost more than the kernel: TraceLens's
 * short_kernel_histogram (numpy's 100 equal bins between the shortest and
 * the longest short kernel) and short_kernels_summary (grouped by launching
 * op, its input shapes, strides and concrete inputs, and kernel name).
 */
#ifndef TG_SHORT_KERNELS_H
#define TG_SHORT_KERNELS_H

#include "table.h"
#include "../tree/tree.h"

typedef struct tg_short_kernel_opts {
	double threshold_us; /* 0: 10 */
	int bins;            /* 0: 100 */
	int32_t step;        /* -1: whole trace */
	int tracelens;       /* TraceLens's launch linking */
	double total_time_us; /* the GPU timeline's total time, for percentages */
} tg_short_kernel_opts;

/* out[0]: short_kernel_histogram (bin_start, bin_end, count);
 * out[1]: short_kernels_summary (Parent cpu_op, Input dims, Input strides,
 * Concrete Inputs, Kernel name, Short Kernel duration (µs) sum, Short
 * Kernel count, Short Kernel duration (µs) mean, Short Kernel duration (µs)
 * percent of total time). Traces without cpu ops have only Kernel name and
 * the numbers. The caller frees both. Returns 0 or TG_ENOMEM. */
int tg_short_kernel_tables(tg_table *out[2], const tg_tree *tree, const tg_short_kernel_opts *opts);

#endif
