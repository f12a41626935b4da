/*
 * rundata.h - one trace as a judgement needs it, without the trace: its
 * measures (measure.h: kernel records with their keys, invocations,
 * per-step units, fingerprint, rank) and its op skeleton (skeleton.h: what
 * the tree diff aligns), with strings of its own, and the JSON size of the
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
 *   trace     JSON bytes, events, rank, fingerprint (GPU, driver, runtime,
 *             world size)
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
 *
 * About 20 bytes of deflated data a kept event on the generated training
 * traces (docs/store.md gives measured sizes): a small fraction of the
 * JSON (500 bytes an event).
 */
#ifndef TG_RUNDATA_H
#define TG_RUNDATA_H

#include "measure.h"
#include "skeleton.h"

/* The encoded form's version: data of another version does not decode
 * (TG_EFORMAT), and is computed again from its trace. */
#define TG_RUNDATA_FORMAT 1

typedef struct tg_rundata tg_rundata;

/* The run data of tree (measured on keys of its own, the skeleton without
 * python or annotation events, as the gate diffs). The tree and its trace
 * must outlive it (it borrows their names). *out is the caller's
 * (tg_rundata_free). 0, TG_ENOMEM or TG_ELIMIT. */
int tg_rundata_build(tg_rundata **out, const tg_tree *tree);

/* Encodes rd into *out (*len bytes, malloc'd, the caller frees). 0 or
 * TG_ENOMEM. */
int tg_rundata_encode(void **out, size_t *len, const tg_rundata *rd);

/* Decodes len bytes at data (what names them in messages: "run 12 trace
 * 0"). *out is the caller's, owning everything (no trace needed). 0,
 * TG_EFORMAT (damaged or of another format: what is wrong) or TG_ENOMEM.
 * When max_bytes is not 0, data that would inflate beyond it is
 * TG_ELIMIT. */
int tg_rundata_decode(tg_rundata **out, const void *data, size_t len, uint64_t max_bytes, const char *what);

void tg_rundata_free(tg_rundata *rd);

/* The trace's measures on their own key table, and its skeleton
 * (borrowed from rd). */
const tg_measure *tg_rundata_measure(const tg_rundata *rd);
const tg_skeleton *tg_rundata_skeleton(const tg_rundata *rd);

/* Bytes of JSON of the trace it was built from. */
uint64_t tg_rundata_json_bytes(const tg_rundata *rd);

/* Bytes of memory rd holds (its arrays and strings), for budgets. */
uint64_t tg_rundata_mem_bytes(const tg_rundata *rd);

#endif
