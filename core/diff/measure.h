/*
 * measure.h - what the gate measures on one side of a comparison (one or
 * several traces: ranks, or repeated runs), flattened so that rules can
 * select and sum without walking trees again.
 *
 *   kernel records  one per device event (kernel, memcpy, memset): its
 *                   duration, launch delay, stream, rank, and the keys of
 *                   its category, launching op, op + shapes, kernel name
 *                   and nn.Module path; the invocation (launching op
 *                   instance) it belongs to, with that op's perf model
 *   units           one per ProfilerStep of each trace (a trace without
 *                   steps is one unit): GPU busy, idle, exposed
 *                   communication and memcpy time, host syncs, peak memory
 *   fingerprint     GPU model, driver and runtime versions, world size
 *
 * Keys are atoms of a tg_atoms table the caller shares between the two
 * sides, so that the same op has the same key on both.
 */
#ifndef TG_MEASURE_H
#define TG_MEASURE_H

#include "../../util/atoms.h"
#include "../tree/tree.h"

/* 64 bytes: a judgement holds one a device event of each side; the run
 * data of a trace, once detached, holds them packed (tg_measure_pack: a
 * row of 24 bytes and the families rows share). What no judgement reads
 * is not held:
 * the start (the stored encoding writes 0 for it since the sixth round of
 * issue 24), the rank (its trace's: tg_measure_rec_rank), the stream's
 * number (an index into the measure's streams: tg_measure_rec_stream). */
typedef struct tg_kernel_rec {
	uint32_t unit;     /* index into tg_measure_units(); TG_NONE outside every
	                      step of a trace with steps (in no step's sample) */
	uint32_t inv;      /* index into tg_measure_invocations(), TG_NONE without a launcher */
	uint32_t category; /* keys (atoms of the shared table); the category of the
	                      kernel (kernel_category.h: launching op, enclosing op,
	                      backward link, kernel name), or of the op where the two
	                      trees diverge (tg_divergence_attribute) */
	uint32_t name_category; /* key: the category the kernel's name alone gives
	                           (kernel_names.tsv); TG_NONE when none */
	uint32_t op;       /* launching op name; "(no launcher)" when none */
	uint32_t op_shape; /* "op (Input Dims) (Input type)" */
	uint32_t kernel;   /* kernel name, hex addresses normalised */
	uint32_t module;   /* "Block_0/Attention_0/Linear_2"; "" outside modules */
	uint32_t event;    /* the device event in its trace */
	uint32_t pair;     /* the record of the other side's measure the tree
	                      alignment pairs this one with (core/diff/call_pairs.h),
	                      TG_NONE when none (or not aligned) */
	uint32_t stream;   /* index into the measure's streams (tg_measure_rec_stream);
	                      in a tg_measure_trace, into its streams */
	uint16_t trace;    /* index of the trace on this side (TG_MEASURE_MAX_TRACES) */
	uint8_t cat_source; /* tg_cat_source: where category came from */
	int64_t dur_ns;
	int64_t delay_ns;  /* kernel start - launch call start; -1 without a launch */
} tg_kernel_rec;

/* The most traces a side may hold (a record's trace is 16 bits): more is
 * TG_ELIMIT. */
#define TG_MEASURE_MAX_TRACES 65535

typedef struct tg_invocation { /* 24 bytes; its trace is its records' (tg_kernel_rec.trace) */
	uint32_t event;    /* the launching op in its trace */
	uint32_t op_shape; /* key */
	double flops;      /* of its perf model (perf_model.h); NAN when none */
	double bytes;
} tg_invocation;

typedef struct tg_unit {
	uint32_t trace;
	int64_t step;      /* N of ProfilerStep#N; -1 for a whole trace */
	int64_t busy_ns, idle_ns, exposed_comm_ns, exposed_memcpy_ns, total_ns;
	int64_t comm_ns, memcpy_ns; /* all communication and copy time, hidden or not:
	                               0 when the step has none (no data for the
	                               exposed metrics) */
	uint64_t host_syncs;
	int64_t peak_memory; /* bytes allocated at the peak (the trace's); -1 when unknown */
} tg_unit;

typedef struct tg_fingerprint {
	char gpu[128];     /* deviceProperties[0].name; "" when absent */
	char driver[32];   /* cuda_driver_version or hip_driver_version */
	char runtime[48];  /* "CUDA 12040" or "HIP 60443483" */
	int64_t world_size; /* distributedInfo.world_size, else 1 */
} tg_fingerprint;

typedef struct tg_measure tg_measure;

/* The runtime of a fingerprint as people write it: "CUDA 13000" -> "CUDA
 * 13.0", "HIP 60443483" -> "HIP 6.4.43483"; anything else as it is. The
 * fingerprint keeps the trace's number (it is stored and compared). */
void tg_fingerprint_runtime_text(char *buf, size_t cap, const char *runtime);

/* Measures the n trees (one side). keys is the shared key table (not
 * owned; must outlive the measure). Traces must outlive the measure.
 * *out owns the result (tg_measure_free). Returns 0, TG_ENOMEM, or
 * TG_ELIMIT for more than TG_MEASURE_MAX_TRACES trees. */
int tg_measure_build(tg_measure **out, const tg_tree *const *trees, size_t n, tg_atoms *keys);

/* tg_measure_build with each trace's rank hint (ranks: n values, the
 * manifest's rank or -1; NULL: none), from which tg_rank_of (ranks.h)
 * decides the trace's rank. */
int tg_measure_build_ranked(tg_measure **out, const tg_tree *const *trees, const int64_t *ranks, size_t n,
                            tg_atoms *keys);

/* tg_measure_build of one tree, its records and invocations packed as
 * they are made (as tg_measure_pack packs them: the same rows, families
 * and shapes), so that they are never all held whole, 64 bytes a record
 * (the run data `diff` keeps: rundata.h, TG_RUNDATA_PACKED). *out owns
 * the result. 0 or TG_ENOMEM. */
int tg_measure_build_packed(tg_measure **out, const tg_tree *tree, tg_atoms *keys);

/* tg_measure_build_packed, held compact as it is made: the rows coded a
 * few thousand at a time into the bit stream tg_measure_compact would
 * make of them all, so that their 24 bytes each are never all there
 * either (1 GB of JSON: 3 MB of stream, not 15 MB of rows then the
 * stream). *out is as tg_measure_compact leaves it (tg_measure_expand
 * before its records are read). 0 or TG_ENOMEM. */
int tg_measure_build_held(tg_measure **out, const tg_tree *tree, tg_atoms *keys);

/* A measure of no trace yet on keys (not owned), to add traces to
 * (tg_measure_add_trace, tg_measure_append). 0 or TG_ENOMEM. */
int tg_measure_new(tg_measure **out, tg_atoms *keys);

/* One trace's measures as tg_measure_build makes them, with indices of
 * the trace alone: records' unit and inv index units and invs, every
 * record's, unit's and invocation's trace is 0, keys are atoms of the
 * measure's table. */
typedef struct tg_measure_trace {
	const tg_tree *tree;  /* may be NULL (stored measures: tg_measure_tree gives NULL) */
	int64_t rank;         /* the trace's rank, -1 when unknown */
	const char *name;     /* without a tree: the trace's name (copied; NULL: "") */
	size_t nsteps;        /* without a tree: its profiled steps */
	tg_fingerprint fp;
	const tg_kernel_rec *recs; /* their stream: an index into streams */
	size_t nrecs;
	const int64_t *streams;    /* the streams' numbers (repeats allowed) */
	size_t nstreams;
	const tg_invocation *invs;
	size_t ninvs;
	const tg_unit *units;
	size_t nunits;
} tg_measure_trace;

/* Appends tr as m's next trace (copied; indices moved past m's, records'
 * rank set as tg_measure_build sets it, their streams renumbered into m's).
 * The caller checked tr's indices (a record's stream below tr->nstreams).
 * 0, TG_ENOMEM, or TG_ELIMIT past TG_MEASURE_MAX_TRACES traces. */
int tg_measure_add_trace(tg_measure *m, const tg_measure_trace *tr);

/* Appends every trace of src to dst, as if dst had measured them after
 * its own: indices moved, keys of src's table interned into dst's in
 * src's order (so that dst numbers them as a measure built on its table
 * would). ranks (one per trace of src; NULL: src's) and names (likewise;
 * a NULL entry keeps src's) give the traces their rank and name on dst,
 * as a rank hint and a file name do to a trace measured on dst. src is
 * unchanged; its trees are borrowed as src borrows them. 0 or
 * TG_ENOMEM. */
int tg_measure_append(tg_measure *dst, const tg_measure *src, const int64_t *ranks, const char *const *names);

/* Room in m for nrecs records, ninvs invocations and nunits units more,
 * exactly (not rounded up as growing rounds): a judgement that appends
 * the run data of its side's traces (tg_measure_append) asks for their
 * sum first, so that the side holds no slack. 0 or TG_ENOMEM. */
int tg_measure_reserve(tg_measure *m, size_t nrecs, size_t ninvs, size_t nunits);

/* Gives back the room m's arrays hold beyond their records, invocations
 * and units (a measure that is kept, not appended to: run data held while
 * the next trace is read). Appending afterwards grows them again. 0 or
 * TG_ENOMEM (m unchanged but for the arrays already fitted). */
int tg_measure_fit(tg_measure *m);

/* The rank of trace i (tg_rank_of: distributedInfo, the hint, the file
 * name), -1 when unknown. The kernel records carry it, or the trace's
 * index when it is unknown. */
int64_t tg_measure_trace_rank(const tg_measure *m, size_t i);

/* The rank of record k of m: its trace's (tg_measure_trace_rank), else the
 * trace's index, as rules select by rank. Held per trace, not per record
 * (so that a record holds no rank). */
static inline int64_t tg_measure_rec_rank(const tg_measure *m, const tg_kernel_rec *k)
{
	int64_t r = tg_measure_trace_rank(m, k->trace);
	return r >= 0 ? r : (int64_t)k->trace;
}

/* How many distinct known ranks the side's traces have (0 when none is
 * known). */
size_t tg_measure_nranks(const tg_measure *m);

/* The name of trace i (tg_trace_name of its trace, or the name it was
 * added with); its profiled steps. */
const char *tg_measure_trace_name(const tg_measure *m, size_t i);
size_t tg_measure_trace_steps(const tg_measure *m, size_t i);

/* Drops m's references to its trees, as if each trace had been added
 * from stored records without a name (tg_measure_add_trace: its name "",
 * its steps kept, tg_measure_tree NULL), so that the trees may be freed while m lives
 * (rundata.h: tg_rundata_detach). 0 or TG_ENOMEM. */
int tg_measure_forget_trees(tg_measure *m);

void tg_measure_free(tg_measure *m);

/* The records, in trace order then start time; borrowed from m. NULL
 * (with their number in *n) when m is packed (tg_measure_pack): read them
 * one at a time with tg_measure_kernel_get, tg_measure_invocation_get. */
const tg_kernel_rec *tg_measure_kernels(const tg_measure *m, size_t *n);
const tg_invocation *tg_measure_invocations(const tg_measure *m, size_t *n);

/* Record i (below tg_measure_kernels' count) or invocation i of m, whole
 * or packed, into *out (its pair TG_NONE when packed). */
void tg_measure_kernel_get(tg_kernel_rec *out, const tg_measure *m, size_t i);
void tg_measure_invocation_get(tg_invocation *out, const tg_measure *m, size_t i);

/* Packs m's records and invocations (measure_impl.h: a record in 24 bytes
 * and an invocation in 8, what they share held once; every value reads
 * back as it was but a record's pair, which is the alignment's): a measure
 * kept as run data while the next trace is read (rundata.h:
 * tg_rundata_detach), whose records are only appended to a judgement's
 * measure (tg_measure_append unpacks them) or encoded. Afterwards
 * tg_measure_kernels, _kernels_mut and _invocations give NULL, and m takes
 * no more traces or room (TG_EINVAL). 0, or TG_ENOMEM (m unchanged). A
 * packed measure is left as it is. */
int tg_measure_pack(tg_measure *m);

/* 1 when m is packed (tg_measure_pack), else 0. */
int tg_measure_packed(const tg_measure *m);

/* Holds the rows and invocations of a packed m in a bit stream (about 5
 * bytes a record and 1 an invocation instead of 24 and 8; measure_hold.c)
 * while its run data waits for another trace (rundata.h:
 * tg_rundata_compact); until tg_measure_expand no record or invocation
 * may be read. A measure that is not packed, or compact already, is left
 * as it is. 0 or TG_ENOMEM (m unchanged). */
int tg_measure_compact(tg_measure *m);

/* 1 while m is compact (tg_measure_compact), else 0. */
int tg_measure_compacted(const tg_measure *m);

/* The rows and invocations of a compact m given back, the same as before
 * tg_measure_compact; otherwise m is left as it is. 0 or TG_ENOMEM (m
 * still compact). */
int tg_measure_expand(tg_measure *m);

/* Bytes m's records, invocations and units take (whole or packed), for
 * budgets. */
uint64_t tg_measure_mem_bytes(const tg_measure *m);
const tg_unit *tg_measure_units(const tg_measure *m, size_t *n);

/* The records, writable: for tg_divergence_attribute, which re-files the
 * records under a divergence (NULL when packed). */
tg_kernel_rec *tg_measure_kernels_mut(tg_measure *m, size_t *n);

/* The fingerprint of the first trace, and 1 when every trace of the side
 * has the same one (else 0). */
const tg_fingerprint *tg_measure_fingerprint(const tg_measure *m, int *consistent);

/* Whether the side m has something to judge: every trace has GPU activity
 * (a kernel, memcpy or memset), and a trace with profiled steps has some
 * of it inside them. side names the side in the message ("base", "new",
 * "--noise-from"). Returns 0, or TG_ENODATA with one line naming the side,
 * the trace and what is missing: "nothing to judge: the new trace b.json
 * has no GPU activity (no kernel, memcpy or memset)". A trace of nothing
 * is not a pass: the gate and the daemon refuse it (exit 2, status
 * error; docs/rules.md). */
int tg_measure_judgeable(const tg_measure *m, const char *side);

/* The number of stream i of m (a record's stream index), as the trace
 * names it (tg_kernel_stream). */
int64_t tg_measure_stream(const tg_measure *m, uint32_t i);

/* The stream of record k of m, as rules select by stream. */
static inline int64_t tg_measure_rec_stream(const tg_measure *m, const tg_kernel_rec *k)
{
	return tg_measure_stream(m, k->stream);
}

/* Number of traces. */
size_t tg_measure_traces(const tg_measure *m);

/* The tree of trace i (borrowed); NULL for a trace added from stored
 * measures. */
const tg_tree *tg_measure_tree(const tg_measure *m, size_t i);

/* The key table (borrowed). */
const tg_atoms *tg_measure_keys(const tg_measure *m);

/* Writes name with hexadecimal addresses ("0x7f3a...") replaced by "0x?",
 * so that kernel names compare across runs. Returns the length written
 * (truncated to cap - 1). */
size_t tg_measure_normalize_name(char *buf, size_t cap, const char *name);

#endif
