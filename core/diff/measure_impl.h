/*
 * measure_impl.h - what measure.c and measure_pack.c share: the measure
 * itself, its records and invocations held whole (what a judgement reads)
 * or packed (run data held between traces: tg_measure_pack).
 *
 * Packed, a kernel record is a row of 24 bytes (its unit, invocation,
 * event, the family of what it shares with other records, its duration and
 * launch delay in 32 bits of ns) and an invocation 8 (its event and the
 * shape it shares with other calls of an op: key, FLOPs, bytes); the
 * families (keys, stream, trace, where the category came from) and shapes
 * are held once each. A duration or delay that does not fit 32 bits is
 * held whole beside the rows (TG_PACK_WIDE). A record's pair is not held:
 * it is the alignment's, made on the judgement's measures (appending sets
 * it to TG_NONE).
 */
#ifndef TG_MEASURE_IMPL_H
#define TG_MEASURE_IMPL_H

#include "measure.h"
#include "../analysis/stream_ids.h"

/* A row's dur or delay that is held whole (struct pack_wide). */
#define TG_PACK_WIDE INT32_MIN

struct pack_row { /* 24 bytes */
	uint32_t unit, inv, fam, event;
	int32_t dur, delay; /* ns; TG_PACK_WIDE: in the wide list */
};

struct pack_fam { /* what records share: all of tg_kernel_rec but the row's */
	uint32_t category, name_category, op, op_shape, kernel, module, stream;
	uint16_t trace;
	uint8_t cat_source;
	uint8_t pad; /* 0: families are hashed and compared as bytes */
};

struct pack_wide { /* a whole duration or delay, by row */
	uint32_t row;
	uint32_t delay; /* 0: the duration, 1: the delay */
	int64_t v;
};

struct pack_inv {
	uint32_t event, shape;
};

struct pack_shape {
	uint32_t op_shape, pad; /* pad 0, as for families */
	double flops, bytes;
};

struct tg_measure {
	const tg_tree **trees; /* per trace; NULL for a trace added from stored records */
	int64_t *ranks;        /* per trace: tg_rank_of, -1 when unknown */
	char **names;          /* per trace added from stored records: its name (owned), else NULL */
	size_t *nsteps;        /* per trace added from stored records: its profiled steps */
	size_t ntrees, captrees;
	tg_atoms *keys;
	tg_kernel_rec *recs;   /* NULL when packed */
	size_t nrecs, caprecs; /* nrecs: the records, whole or packed */
	tg_invocation *invs;   /* NULL when packed */
	size_t ninvs, capinvs;
	tg_unit *units;
	size_t nunits, capunits;
	tg_stream_ids streams; /* the records' streams (device 0): a record holds the id */
	tg_fingerprint fp;
	int fp_consistent;
	struct packed { /* tg_measure_pack: the records and invocations packed */
		struct pack_row *rows;     /* nrecs */
		struct pack_fam *fams;
		size_t nfams;
		struct pack_wide *wide;    /* by row */
		size_t nwide;
		struct pack_inv *invs;     /* ninvs */
		struct pack_shape *shapes;
		size_t nshapes;
		uint64_t *held; /* (a tg_big block) tg_measure_compact: rows and invs coded (both NULL), else NULL */
		size_t nheld;   /* its words */
		struct pack_build *build; /* while rows are added (tg_measure_pack_begin), else NULL */
		struct hold_stream *stream; /* while rows are added held (tg_measure_hold_begin): rows is
		                               a window of TG_HOLD_WINDOW rows, coded as it fills */
	} *packed;
	int pack_as_built; /* tg_measure_build_packed: add_trace packs each record as it makes it */
	int hold_as_built; /* tg_measure_build_held: and codes the rows as they are packed */
};

/* measure_hold.c, the rows held as they are packed (tg_measure_build_held):
 * the same bit stream tg_measure_compact codes from all the rows at once,
 * coded TG_HOLD_WINDOW rows at a time, so that the rows' 24 bytes each are
 * never all there (1 GB of JSON: 15 MB of room for 3 MB of stream).
 * tg_measure_hold_begin starts the stream (after tg_measure_pack_begin,
 * whose rows room is then the window); tg_measure_pack_rec codes each full
 * window (tg_measure_hold_rows: row i lands in rows[i % TG_HOLD_WINDOW]);
 * tg_measure_hold_end codes the last rows and the invocations, and leaves
 * m held as tg_measure_compact does. Each 0 or TG_ENOMEM; on failure
 * tg_measure_pack_free frees the stream too (tg_measure_hold_free). */
#define TG_HOLD_WINDOW 4096
int tg_measure_hold_begin(struct packed *p);
int tg_measure_hold_rows(struct packed *p, size_t n);
int tg_measure_hold_end(tg_measure *m);
void tg_measure_hold_free(struct packed *p);

/* measure_pack.c, the packer row by row (what tg_measure_pack does to whole
 * records, and tg_measure_build_packed to records as they are made, so that
 * no more than one is ever whole): m->packed begun with room for nrecs rows
 * and ninvs invocations (m packs none yet); then each record and
 * invocation, in order, into its row i (below the room; the caller counts
 * them in m->nrecs, m->ninvs); then ended (the families' and shapes' sets
 * freed, their arrays fitted). Each returns 0 or TG_ENOMEM; on failure
 * tg_measure_pack_free frees what was made. */
int tg_measure_pack_begin(tg_measure *m, size_t nrecs, size_t ninvs);
int tg_measure_pack_rec(struct packed *p, size_t i, const tg_kernel_rec *r);
int tg_measure_pack_inv(struct packed *p, size_t i, const tg_invocation *v);
int tg_measure_pack_end(struct packed *p);

/* measure_units.c: appends the units of trace ti of m (one per step, or
 * one for the whole trace), dev[0..ndev) its device events in event
 * order; *first_unit gets the first one's index. 0 or TG_ENOMEM. */
int tg_measure_add_units(tg_measure *m, uint32_t ti, const uint32_t *dev, size_t ndev, uint32_t *first_unit);

/* measure_pack.c: frees what m->packed holds (and it). */
void tg_measure_pack_free(tg_measure *m);

#endif
