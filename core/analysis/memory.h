/*
 * memory.h - peak memory per device from the profiler's "[memory]" instant
 * events (profile_memory=True).
 *
 * Each such event carries "Device Type" (c10::DeviceType: 0 CPU, 1 CUDA,
 * 6 HIP on ROCm, ...), "Device Id" (-1 for the CPU), "Bytes" (this
 * allocation, negative for a free) and, since 2022, "Total Allocated" and
 * "Total Reserved" (the caching allocator's totals after the event). The
 * peak is the largest total seen; its time is the first event that reached
 * it; the op is the innermost cpu_op running then on the event's thread
 * (else the innermost other host event there: user_annotation, python
 * frame). Older traces (2021) give "Bytes" only: the allocated total is then
 * the running sum of "Bytes" from the first event of the trace, which counts
 * only what was allocated while profiling, and there is no reserved total.
 */
#ifndef TG_MEMORY_H
#define TG_MEMORY_H

#include "table.h"
#include "../tree/step_filter.h"

typedef struct tg_memory_peak {
	int64_t device_type;  /* c10::DeviceType */
	int64_t device_id;    /* -1 for the CPU */
	uint64_t events;      /* [memory] events of the device selected */
	int from_totals;      /* 1: "Total Allocated" given; 0: running sum of "Bytes" */
	int64_t peak_allocated;    /* bytes */
	int64_t peak_allocated_ts; /* ns */
	uint32_t peak_allocated_op; /* event index of the host event running then, or TG_NONE */
	int64_t peak_reserved;     /* bytes; -1 when no event gives "Total Reserved" */
	int64_t peak_reserved_ts;
	uint32_t peak_reserved_op;
} tg_memory_peak;

/* Peaks of every device with [memory] events selected by step (TG_STEP_ALL,
 * TG_STEP_HTA, TG_STEP_HTA_ROUNDED or a step index, step_filter.h; an
 * instant event belongs to the step whose ProfilerStep window holds its
 * timestamp), by (device type, device id). On success *out is an array of
 * *n peaks (NULL when none) that the caller frees with free. Returns 0,
 * TG_EINVAL (bad step) or TG_ENOMEM. */
int tg_memory_peaks(tg_memory_peak **out, size_t *n, const tg_tree *tree, int32_t step);

/* "CPU", "CUDA", "HIP", "XPU", "MPS", "MTIA", or NULL for another type. */
const char *tg_memory_device_type_name(int64_t device_type);

/* Builds the tables for step. On success *out is an array of *n tables; the
 * caller frees them with tg_tables_free. Returns 0,
 * TG_EINVAL (bad step) or TG_ENOMEM (nothing to free).
 *
 * "memory_peaks": one row per device: device ("CUDA:0", "CPU", or
 *   "type 7:0" for an unnamed type), device_type, device_id, events, basis
 *   ("Total Allocated" or "sum of Bytes"), peak_allocated(bytes),
 *   peak_allocated_at(ms) (since the trace's first event), peak_allocated_op,
 *   peak_reserved(bytes), peak_reserved_at(ms), peak_reserved_op (the
 *   reserved ones empty without "Total Reserved"). */
int tg_memory_tables(tg_table ***out, size_t *n, const tg_tree *tree, int32_t step);

#endif
