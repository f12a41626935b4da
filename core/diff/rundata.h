/*
 * rundata.h - one trace as a judgement needs it, without the trace: its
 * measures (measure.h: kernel records with their keys, invocations,
 * per-step units, fingerprint, rank), its op skeleton (skeleton.h: what
 * the tree diff aligns), its findings (findings.h, under the thresholds
 * they were computed with) and its critical path's summary
 * (critical_path.h), with strings of its own, and the JSON size of the
 * trace it came from. The daemon computes it once per trace and keeps it
 * in its store (encoded), so that a run that is pooled again, or that is a
 * baseline, is judged from it instead of its trace being read again
 * (docs/store.md, "Run data").
 *
 * The encoded form is versioned and deflated; decoding checks every count,
 * index and string, so stored bytes that are damaged (or come from another
 * version) are an error, never a crash. What it holds, per trace:
 *
 *   header    "TGRD", format, raw and deflated lengths
 *   trace     JSON bytes, events, distributedInfo rank, profiled steps,
 *             fingerprint (GPU, driver, runtime, world size)
 *   keys      the measure's key strings in the order their atoms number
 *             them (category, name category, op, op + shapes, kernel,
 *             module path of every record)
 *   units     one per step: step number, busy, idle, exposed communication
 *             and memcpy, total, communication and memcpy ns, host syncs,
 *             peak memory
 *   invs      one per launching op: event, op + shapes key, FLOPs, bytes
 *   records   one per device event: unit, invocation, the six keys, event,
 *             stream, duration, launch delay, start, where the category
 *             came from
 *   skeleton  the names its nodes use, then per node: start, duration,
 *             event, parent, name, kind, TraceLens link
 *   path      the critical path's summary: found or why not, steps,
 *             length, time by bound
 *   findings  the thresholds' key (tg_rundata_findings_key), the steps and
 *             mean step time, then per finding every field of tg_finding
 *
 * About 20 bytes of deflated data a kept event on the generated training
 * traces (docs/store.md gives measured sizes): a small fraction of the
 * JSON (500 bytes an event).
 */
#ifndef TG_RUNDATA_H
#define TG_RUNDATA_H

#include "../analysis/critical_path.h"
#include "../analysis/findings.h"
#include "measure.h"
#include "skeleton.h"

/* The encoded form's version: data of another version does not decode
 * (TG_EFORMAT), and is computed again from its trace. */
#define TG_RUNDATA_FORMAT 2

typedef struct tg_rundata tg_rundata;

/* The run data of tree (measured on keys of its own, the skeleton without
 * python or annotation events, as the gate diffs; its findings under fo,
 * NULL: the defaults; its critical path with the default settings). The
 * tree and its trace must outlive it (it borrows their names). *out is the
 * caller's (tg_rundata_free). 0, TG_ENOMEM or TG_ELIMIT. */
int tg_rundata_build(tg_rundata **out, const tg_tree *tree, const tg_findings_opts *fo);

/* The parts of a run data besides its measures (tg_rundata_build_parts):
 * the op skeleton, the findings, the critical path's summary. */
enum { TG_RUNDATA_SKELETON = 1, TG_RUNDATA_FINDINGS = 2, TG_RUNDATA_CP = 4, TG_RUNDATA_ALL = 7,
       TG_RUNDATA_MEASURE = 8, /* always built; only tg_rundata_release frees it */
       TG_RUNDATA_THREADS = 16, /* tg_rundata_build_parts: the findings on a second thread
                                   while the measures are built (not a part) */
       TG_RUNDATA_PACKED = 32, /* tg_rundata_build_parts: the measures packed as they are made
                                 (tg_measure_build_packed: never all records whole), for a
                                 caller that detaches the run data next and reads its records
                                 one at a time (not a part) */
       TG_RUNDATA_HOLD = 64 /* with TG_RUNDATA_PACKED: the measures held compact as they are
                               made (tg_measure_build_held: the bit stream tg_rundata_compact
                               makes, coded a few thousand rows at a time), before the
                               skeleton is built, for a caller that holds
                               the run data compact next (not a part; tg_rundata_expand
                               before its records are read, and it does not encode until) */ };

/* tg_rundata_build with only the parts asked for (TG_RUNDATA_* or'ed):
 * what a judgement reads of a trace and no more (`tracegate diff`: no
 * skeleton with --no-tree-diff, no critical path with --no-critical-path,
 * only the measures of a --noise-from run); with TG_RUNDATA_THREADS the
 * findings are computed on a second thread while the critical path (if
 * asked) and the measures are built, the skeleton after them: the same
 * data, sooner. The parts left out read as
 * NULL (tg_rundata_skeleton, tg_rundata_findings) or a summary that is not
 * ok (tg_rundata_cp), and such data does not encode (TG_EINVAL). Errors as
 * tg_rundata_build's. */
int tg_rundata_build_parts(tg_rundata **out, const tg_tree *tree, const tg_findings_opts *fo, unsigned parts);

/* tg_rundata_build_parts with the caller's heap policy between the parts:
 * between (NULL: nothing) is called on the caller's thread once the
 * measures are made, once the findings are (when asked for; their thread
 * joined) and once the skeleton is (when asked for), each time with that
 * part's scratch freed, e.g. to give the heap's free pages back
 * (`tracegate diff`, which otherwise keeps freed memory: the launchers' and
 * the findings' scratch left resident under the next part; docs/scale.md,
 * i33stage). With TG_RUNDATA_THREADS the findings may still be running
 * during the first call, so between must be thread-safe (malloc_trim is). */
int tg_rundata_build_staged(tg_rundata **out, const tg_tree *tree, const tg_findings_opts *fo, unsigned parts,
                            void (*between)(void));

/* The parts rd holds (TG_RUNDATA_ALL | TG_RUNDATA_MEASURE when decoded). */
unsigned tg_rundata_parts(const tg_rundata *rd);

/* Frees the parts named of rd (TG_RUNDATA_MEASURE: the measures and
 * their keys; TG_RUNDATA_SKELETON) once nothing will read them again: a
 * judgement that measured and aligned its sides (tg_gate_data.release).
 * They read as NULL afterwards (tg_rundata_measure, tg_rundata_skeleton),
 * and rd no longer encodes. */
void tg_rundata_release(tg_rundata *rd, unsigned parts);

/* Makes built run data hold everything it names, as decoded data does:
 * its skeleton's names copied (those its nodes use, numbered as the
 * encoding numbers them; tg_skeleton_rename), its measure without the
 * tree (no name, its steps kept: tg_measure_forget_trees; a judgement
 * gives each trace its rank and name again). Afterwards the tree and its
 * trace may be freed: `tracegate diff` keeps one trace's tree at a time
 * this way, without the cost of encoding. Its measure is packed besides
 * (tg_measure_pack: a record in 24 bytes, an invocation in 8), as it is
 * only appended to a judgement's measure or encoded from then on. Decoded
 * data is left as it is. 0 or TG_ENOMEM (rd unchanged but for what was
 * already made its own). */
int tg_rundata_detach(tg_rundata *rd);

/* Holds detached run data (tg_rundata_detach) small while it waits for a
 * judgement: its measure's rows and invocations and its skeleton's nodes
 * coded into bit streams of a quarter to a third of their bytes
 * (tg_measure_compact, tg_skeleton_compact), a few milliseconds each way
 * at 100 MB of JSON. `tracegate diff` compacts a trace's run data while
 * the next trace is read and analysed, and expands it once the last trace's
 * model is freed, before the gate. Until tg_rundata_expand, nothing of rd's
 * measure's records or invocations nor of its skeleton's nodes may be read,
 * and rd does not encode (TG_EINVAL); its findings, critical path, rank
 * and counts read as before. Compact data is left as it is. 0, TG_EINVAL
 * (not detached, or decoded: not packed) or TG_ENOMEM (rd unchanged, or,
 * if giving back what was made compact failed too, compact: expand it). */
int tg_rundata_compact(tg_rundata *rd);

/* Gives compact rd its records, invocations and nodes back, the same bytes
 * as before tg_rundata_compact (so it judges and encodes the same); data
 * that is not compact is left as it is. 0 or TG_ENOMEM (what is not back
 * yet stays compact: expand again, or free). */
int tg_rundata_expand(tg_rundata *rd);

/* tg_rundata_expand for the parts named alone (TG_RUNDATA_SKELETON,
 * TG_RUNDATA_MEASURE), the others left compact: a judgement that aligns
 * the skeletons first and copies each trace's measures later gives each
 * back just before it is read (`tracegate diff`: tg_gate_opts.expand_measure),
 * so that compact measures, not expanded ones, sit beside the tree
 * diffs' build. rd reads as compact (tg_rundata_compacted) until every
 * part it holds is back, the measures last (a skeleton given back after
 * them: until tg_rundata_expand). 0 or TG_ENOMEM (as tg_rundata_expand). */
int tg_rundata_expand_parts(tg_rundata *rd, unsigned parts);

/* tg_rundata_compact for the measure alone, the skeleton left whole: the
 * last trace's run data, whose skeleton the gate aligns at once but whose
 * measures it copies only after (`tracegate diff`); given back with
 * tg_rundata_expand_parts or tg_rundata_expand. rd reads as compact until
 * then (tg_rundata_compact leaves it as it is). 0, TG_EINVAL (not
 * detached, or decoded) or TG_ENOMEM (rd unchanged). */
int tg_rundata_compact_measure(tg_rundata *rd);

/* Gives rd the critical path's summary *cp (copied), for run data built
 * without it (TG_RUNDATA_CP not asked) whose caller found it afterwards
 * (`diff` finds it last, once the tree and most arguments are freed:
 * tg_cp_summarize_steps); rd then holds TG_RUNDATA_CP. */
void tg_rundata_set_cp(tg_rundata *rd, const tg_cp_summary *cp);

/* 1 while rd is compact (tg_rundata_compact), else 0. */
int tg_rundata_compacted(const tg_rundata *rd);

/* Encodes rd into *out (*len bytes, malloc'd, the caller frees). 0,
 * TG_ENOMEM, or TG_EINVAL when rd lacks a part (tg_rundata_build_parts). */
int tg_rundata_encode(void **out, size_t *len, const tg_rundata *rd);

/* Decodes len bytes at data (what names them in messages: "run 12 trace
 * 0"). *out is the caller's, owning everything (no trace needed). 0,
 * TG_EFORMAT (damaged or of another format: what is wrong) or TG_ENOMEM.
 * When max_bytes is not 0, data that would inflate beyond it is
 * TG_ELIMIT. */
int tg_rundata_decode(tg_rundata **out, const void *data, size_t len, uint64_t max_bytes, const char *what);

void tg_rundata_free(tg_rundata *rd);

/* The trace's measures on their own key table, and its skeleton
 * (borrowed from rd; NULL when not built, or released). */
const tg_measure *tg_rundata_measure(const tg_rundata *rd);
const tg_skeleton *tg_rundata_skeleton(const tg_rundata *rd);

/* Bytes of JSON of the trace it was built from. */
uint64_t tg_rundata_json_bytes(const tg_rundata *rd);

/* The trace's distributedInfo rank (-1 when none): tg_rank_pick's first
 * choice (ranks.h). */
int64_t tg_rundata_rank(const tg_rundata *rd);

/* The trace's findings (as tg_findings_compute gives them for every step,
 * without the across-rank ones; NULL when not built) and the key of the thresholds they were
 * computed under; its critical path's summary. Borrowed from rd. */
const tg_findings *tg_rundata_findings(const tg_rundata *rd);
const char *tg_rundata_findings_key(const tg_rundata *rd);
const tg_cp_summary *tg_rundata_cp(const tg_rundata *rd);

/* The key of the thresholds fo (NULL: the defaults) into buf: two
 * settings that can give different findings have different keys (run
 * data kept under other thresholds is computed again). */
void tg_rundata_opts_key(char *buf, size_t cap, const tg_findings_opts *fo);

/* The findings across the ranks of one side (tg_findings_across), which
 * need every rank's trace at once, kept apart from the traces' run data:
 * encoded (*out, *len bytes, the caller frees) and decoded (the caller
 * frees *out with tg_findings_free), checked as run data is. The format
 * is TG_RUNDATA_FORMAT. 0, TG_EFORMAT or TG_ENOMEM. */
int tg_rundata_across_encode(void **out, size_t *len, const tg_findings *f);
int tg_rundata_across_decode(tg_findings **out, const void *data, size_t len, const char *what);


/* Bytes of memory rd holds (its arrays and strings), for budgets. */
uint64_t tg_rundata_mem_bytes(const tg_rundata *rd);

#endif
