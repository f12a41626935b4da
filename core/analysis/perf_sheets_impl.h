/*
 * perf_sheets_impl.h - what the perf sheets' files share (perf_sheets.c,
 * perf_sheets_params.c): the size of an op's parameter columns, their
 * names per family and the text of their values. Not public:
 * core/analysis/perf_sheets.h is the interface.
 */
#ifndef TG_PERF_SHEETS_IMPL_H
#define TG_PERF_SHEETS_IMPL_H

#include "../models/perf_model.h"
#include "perf_sheets.h"

/* Parameter columns of a family at most (the last slot holds the Compute
 * Spec), and the bytes of one parameter's text. */
#define MAXP 14
#define PLEN 72

/* The name of parameter column i of family kind ("M", "N_Q", "convNd"),
 * NULL past the family's last: TraceLens's "param: NAME" columns. */
const char *tg_perf_sheets_param_col(tg_perf_kind kind, int i);

/* The parameter columns (tg_perf_sheets_param_col) of op ev, named name,
 * modelled as m, into p[0..MAXP) as TraceLens writes them, from its raw
 * "Input Dims", "Input type", "Input Strides" and "Concrete Inputs" text
 * (raw[0..3]); tree and atoms give a GEMM's transposes (its kernels). */
void tg_perf_sheets_params(char (*p)[PLEN], uint32_t ev, const char *name, const tg_perf *m, const char *const raw[4],
                           const tg_tree *tree, const tg_atoms *atoms);

/* The transpose flags of GEMM op ev ("(True, False)") from the name of its
 * first GEMM kernel (ROCm Tensile's "Cijk_Alik_Bljk", NVIDIA nvjet's "_TN"
 * suffixes) into buf (PLEN bytes; "" when no kernel tells). */
void tg_perf_sheets_transpose(char *buf, const tg_tree *tree, uint32_t ev, const tg_atoms *atoms);

#endif
