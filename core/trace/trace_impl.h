/*
 * trace_impl.h - the inside of tg_trace, shared by trace.c (accessors),
 * trace_read.c (the parser that fills it) and trace_names.c (the per-name
 * flags the reader computes last). Not for other modules.
 */
#ifndef TG_TRACE_IMPL_H
#define TG_TRACE_IMPL_H

#include "trace.h"

struct process_name {
	int64_t pid;
	uint32_t name;   /* process_name metadata, or TG_NONE */
	uint32_t labels; /* process_labels metadata ("CPU", "GPU 0"), or TG_NONE */
};

struct tg_trace {
	char *name;
	tg_atoms *atoms;
	tg_event *events;
	size_t nevents, events_cap;
	uint32_t *id1s; /* each event's second id (tg_trace_id1_field); NULL once dropped (tg_trace_drop_id1s) */
	size_t id1s_cap;
	int id1s_dropped;
	tg_arg *args;
	size_t nargs, args_cap;
	tg_track *tracks;
	size_t ntracks, tracks_cap;
	tg_flow *flows;
	size_t nflows, flows_cap;
	uint64_t *wide_flow_ids; /* flow ids beyond 32 bits (tg_trace_wide_flow_ids) */
	size_t nwide_flow_ids, wide_flow_ids_cap;
	int64_t *wide_ids; /* ids beyond 32 bits (tg_trace_wide_ids) */
	size_t nwide_ids, wide_ids_cap;
	int64_t *wide_durs; /* durations beyond 32 bits of ns (tg_trace_wide_durs) */
	size_t nwide_durs, wide_durs_cap;
	tg_device *devices;
	size_t ndevices;
	struct process_name *pnames;
	size_t npnames, pnames_cap;
	json_t *meta;
	int64_t rank, world_size;
	tg_trace_stats stats;
	uint8_t *name_flags; /* per atom: TG_NAME_*, computed on first use (trace_names.c) */
	size_t nname_flags;
	uint32_t key_stream, key_device; /* tg_trace_key_stream's, tg_trace_key_device's (tg_trace_finish_names) */
};

/* Makes room for the flags of every atom, each computed when first asked
 * for, and finds the keys read for every kernel (key_stream, key_device;
 * after reading; trace_names.c). */
int tg_trace_finish_names(tg_trace *t);

/* Fills devices, rank and world size from t->meta (after reading). */
int tg_trace_finish_meta(tg_trace *t);

#endif
