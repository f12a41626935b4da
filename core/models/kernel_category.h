/*
 * kernel_category.h - the category of each GPU kernel, and where it came
 * from, for the gate's default classification (docs/categories.md).
 *
 * TraceLens files a kernel under its launching op's category; that says
 * nothing for kernels replayed by a CUDA graph, run by torch.compile's
 * CompiledFunction, an inductor or Triton kernel, an inference engine's
 * custom op, or a kernel whose launch the profiler missed, and the wrong
 * thing for attention composed of other ops (the math SDPA path's bmm,
 * softmax, bmm) and their backward. The decision, first that applies:
 *
 *   backward link  the launching op runs inside an autograd backward node
 *                  whose forward op (same "Sequence number") is, or is
 *                  inside, attention, a norm or a convolution: SDPA_bwd,
 *                  NORM_bwd, CONV_bwd (the math-SDPA backward's bmm)
 *   enclosing op   an op above the launching op is attention, a norm or a
 *                  convolution (aten::scaled_dot_product_attention around
 *                  the math path's bmm): that op's category
 *   launching op   the launching op's category says what it is (GEMM,
 *                  elementwise, ...: tg_op_category_informative)
 *   backward link  the launching op says nothing and the forward op does:
 *                  the forward's category, made backward
 *   kernel name    core/models/kernel_names.tsv (kernel_names.h)
 *   event          a kernel without a launcher: communication (NCCL),
 *                  memcpy, memset by the event itself; else "unlinked"
 *
 * The tree diff can re-file a kernel later (TG_CAT_SRC_TREE_DIFF, set by
 * tg_divergence_attribute).
 */
#ifndef TG_KERNEL_CATEGORY_H
#define TG_KERNEL_CATEGORY_H

#include "kernel_names.h"
#include "../tree/tree.h"

typedef enum tg_cat_source {
	TG_CAT_SRC_NONE = 0,  /* nothing said what it is ("other", "unlinked") */
	TG_CAT_SRC_OP,        /* the launching op */
	TG_CAT_SRC_ENCLOSING, /* an op enclosing the launching op */
	TG_CAT_SRC_BACKWARD,  /* the forward op of its autograd node */
	TG_CAT_SRC_KERNEL,    /* the kernel's name (kernel_names.tsv) */
	TG_CAT_SRC_EVENT,     /* the event itself: a collective, a memcpy, a memset */
	TG_CAT_SRC_TREE_DIFF, /* the op where the two trees diverge */
	TG_CAT_SRC_COUNT
} tg_cat_source;

/* "op", "enclosing op", "backward link", "kernel name", "event",
 * "tree diff", "none" (static strings). */
const char *tg_cat_source_name(tg_cat_source s);

/* One kernel's category and its evidence. */
typedef struct tg_kernel_cat {
	const char *category;            /* static string */
	tg_cat_source source;
	uint32_t via;                    /* the op that decided (launching,
	                                    enclosing or forward op); TG_NONE for
	                                    kernel name and event */
	const tg_kernel_name_rule *rule; /* the kernel-name rule the kernel's name
	                                    matches, whatever decided; NULL if none */
} tg_kernel_cat;

typedef struct tg_categorizer tg_categorizer;

/* A categorizer for the kernels of tree (borrowed; must outlive it): it
 * indexes the forward ops by Sequence number and caches decisions per
 * launcher and per kernel name. *out owns it (tg_categorizer_free).
 * Returns 0 or TG_ENOMEM. */
int tg_categorizer_new(tg_categorizer **out, const tg_tree *tree);

void tg_categorizer_free(tg_categorizer *c);

/* The category of device event ev, whose launcher (launchers.h) is
 * launcher (TG_NONE: none) of category op_category (tg_op_category of the
 * launcher, default mode; ignored without a launcher). Returns 0, or
 * TG_ENOMEM (then *out is "other" from nowhere). */
int tg_categorizer_kernel(tg_kernel_cat *out, tg_categorizer *c, uint32_t ev, uint32_t launcher,
                          const char *op_category);

/* The kernel-name rule of atom name of the tree's trace (cached), or NULL. */
const tg_kernel_name_rule *tg_categorizer_name_rule(tg_categorizer *c, uint32_t name);

#endif
