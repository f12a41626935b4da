/*
 * diff_load.h - the traces of `tracegate diff` read one at a time: each
 * trace is read (the reader's two threads on it, as `report` reads), its
 * tree built, its run data (core/diff/rundata.h) built and made its own,
 * and the model and tree freed before the next trace is read; the gate
 * then judges from run data (tg_gate_run_data), whose result is the one
 * tg_gate_run gives on the trees. The peak is one trace's model and tree
 * plus the run data of the traces before it, instead of every trace's
 * model and tree at once (docs/scale.md, "The diff, one side at a time").
 *
 * One thing needs several trees at once: the findings across the ranks of
 * a side whose traces are distinct ranks of one job (findings.h). The
 * trees of such a side are kept until the side is read, the findings
 * across its ranks computed from them, and then freed: never both sides'
 * at once. A side of one trace, or of runs of one rank, keeps none.
 */
#ifndef TG_DIFF_LOAD_H
#define TG_DIFF_LOAD_H

#include "../rules/gate.h"
#include "cli.h"

/* The run data of one side's traces (or of the --noise-from runs), in the
 * order given. */
typedef struct tg_cli_side {
	tg_rundata **data;    /* n, owned */
	char **names;         /* n: each trace's name as the reader named it, owned */
	size_t n;
	tg_findings *across;  /* across its ranks when needed (tg_gate_data_across), else NULL; owned */
} tg_cli_side;

/* Reads the n traces at paths into *s one after the other, each with
 * the run data parts `parts` (TG_RUNDATA_*; the findings under rules'
 * thresholds), and the findings across the side's ranks when `across` is
 * set and its traces are distinct ranks. On failure prints the one line
 * (the trace's reading error: its name and byte offset; or "PATH: what")
 * and returns -1; s is the caller's to free (tg_cli_side_free) either
 * way. Each trace's events and arguments, freed, are left mapped for the
 * next trace's reader (tg_big_keep, util/big.h): after the last side the
 * caller calls tg_big_keep(0). The run data of each trace but the last
 * is left compact (tg_rundata_compact): tg_cli_side_expand before the
 * gate. */
int tg_cli_side_load(tg_cli_side *s, const char *const *paths, size_t n, unsigned parts, int across,
                      const tg_rules *rules, const tg_read_opts *ropts);

/* Holds the run data of s compact (tg_rundata_compact) while other traces
 * are read; tg_cli_side_load holds each trace's but its last by itself.
 * tg_cli_side_expand gives it back, before the gate reads s. Each 0, or
 * -1 after printing the error (out of memory). */
int tg_cli_side_hold(tg_cli_side *s);
int tg_cli_side_expand(tg_cli_side *s);

/* tg_cli_side_hold for the measures of s alone (tg_rundata_compact_measure),
 * its skeletons left whole: the last side read, whose skeletons the gate
 * aligns first. 0, or -1 after printing the error. */
int tg_cli_side_hold_measures(tg_cli_side *s);

/* tg_cli_side_expand for the skeletons of s alone (tg_rundata_expand_parts):
 * each trace's measures stay compact until the gate gives them back
 * (tg_cli_expand_measure, tg_gate_opts.expand_measure), after the tree
 * diffs are built. 0, or -1 after printing the error (out of memory). */
int tg_cli_side_expand_skeletons(tg_cli_side *s);

/* tg_gate_opts.expand_measure for the sides of tg_cli_side_gate: rd's
 * measures given back (rd is a side's, lent to the gate). 0 or TG_ENOMEM. */
int tg_cli_expand_measure(const tg_rundata *rd);

/* s as a side of tg_gate_run_data (borrowing s, which must outlive the
 * gate). */
tg_gate_data tg_cli_side_gate(const tg_cli_side *s);

/* Frees what s holds (s itself is the caller's). */
void tg_cli_side_free(tg_cli_side *s);

#endif
