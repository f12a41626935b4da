/*
 * kernel_names.h - what a GPU kernel does, from its name: the rules of
 * core/models/kernel_names.tsv (a data file, compiled into the binary by
 * core/models/kernel_names_gen.awk), first match wins.
 *
 * The categories are the op categories the rules select (SDPA_fwd,
 * SDPA_bwd, GEMM, CONV_fwd, NORM_bwd, elementwise, reduce, MoE, KV_cache,
 * communication, optimizer, memcpy, memset; docs/categories.md). A kernel's
 * name decides only when its launching op does not say (kernel_category.h).
 */
#ifndef TG_KERNEL_NAMES_H
#define TG_KERNEL_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* One line of kernel_names.tsv. All strings are static. */
typedef struct tg_kernel_name_rule {
	const char *category; /* "SDPA_fwd" */
	const char *label;    /* the kernel family: "FlashAttention-2 forward" */
	const char *pattern;  /* glob over the whole name: '*' is any run */
	uint32_t line;        /* line number in kernel_names.tsv */
} tg_kernel_name_rule;

/* The table, in file order (generated; immutable). */
extern const tg_kernel_name_rule tg_kernel_name_rules[];
extern const size_t tg_kernel_name_nrules;

/* 1 when the whole of s matches pattern, where '*' matches any run of
 * characters (possibly empty) and every other character only itself;
 * else 0. Linear in strlen(s) times the number of '*'. */
int tg_glob_match(const char *pattern, const char *s);

/* The first rule whose pattern matches name, or NULL (the kernel's name
 * says nothing the table knows). name may be NULL (no match). Thread-safe:
 * the filter that skips the rules that cannot match (kernel_names.c) is
 * built once, on the first call, whichever thread makes it. */
const tg_kernel_name_rule *tg_kernel_name_classify(const char *name);

#endif
