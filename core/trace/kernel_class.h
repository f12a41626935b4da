/*
 * kernel_class.h - what kind of work a device event is (HTA's kernel types). *
 * Classification follows HTA (hta/common/types.py, hta/utils/utils.py:
 * get_kernel_type), first rule that matches wins:
 *
 *   MEMORY        the event is a memcpy or memset (by category: gpu_memcpy,
 *                 gpu_memset, Memcpy, Memset, MTIA dma), whatever its name
 *                 (HTA looks at names only; every such event in the shared
 *                 traces has a name HTA files as MEMORY too)
 *   COMMUNICATION name starts with "nccl", "hip" or "hccl", or contains
 *                 "ncclKernel" (all case-sensitive, as in HTA); PLUS, unlike
 *                 HTA, a name containing "nccl", "rccl", "cross_device_reduce"
 *                 or "multimem_all_reduce" in any case, which HTA files under
 *                 COMPUTATION: "void ncclDevKernel_..." (not at the start),
 *                 "NCCL"/"RCCL" in capitals (older HTA also missed
 *                 ncclDevKernel: HTA #122, #208, #247), vLLM's custom
 *                 all-reduce "cross_device_reduce_*", PyTorch's
 *                 symmetric-memory "multimem_all_reduce_kernel" (73 of the
 *                 74 communication kernels of the shared B200 vLLM trace)
 *   MEMORY        name starts with "Memcpy", "Memset", "hipMemcpy",
 *                 "hipMemset" or "dma" (the hip ones are caught by "hip"
 *                 first, as in HTA)
 *   OTHER         cuda_sync events (Stream Sync, Event Sync, Context Sync,
 *                 Stream Wait Event) and, as in HTA, names that contain
 *                 "Memcpy", "Memset", "dma" or "Sync", or start with
 *                 "Stream Wait Event", "runFunction", "job_exe", "packet",
 *                 "pe_exe", "cpum_exe_subgraph", "collective_subgraph_execution",
 *                 or start with "cuda" and contain "LaunchKernel" after it
 *   COMPUTATION   every other name
 *
 * Pure functions of a name and a kind (tg_kernel_class) or of one event of a
 * trace: no tree. The trace reader computes each distinct name's class once
 * (trace_names.c); the step filter that analyses use lives in step_filter.h.
 */
#ifndef TG_KERNEL_CLASS_H
#define TG_KERNEL_CLASS_H

#include "trace.h"

typedef enum tg_kernel_type {
	TG_KERNEL_COMPUTATION = 0,
	TG_KERNEL_COMMUNICATION = 1,
	TG_KERNEL_MEMORY = 2,
	TG_KERNEL_OTHER = 3,
	TG_KERNEL_TYPE_COUNT
} tg_kernel_type;

/* The type of a device event of kind `kind` (a tg_kind) named `name`
 * (rules above). Events of other kinds are classified by name alone, except
 * TG_KIND_SYNC, which is OTHER. A NULL name is "". */
tg_kernel_type tg_kernel_class(const char *name, int kind);

/* tg_kernel_class of device event e of trace t, the name's part decided
 * once per distinct name, when first asked for (tg_trace_name_flags;
 * defined in trace_names.c, beside those flags). */
tg_kernel_type tg_kernel_class_of(const tg_trace *t, const tg_event *e);

/* "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" (static strings). */
const char *tg_kernel_class_name(tg_kernel_type type);

/* The stream of a device event: its "stream" argument, else the numeric
 * tid of its track. */
int64_t tg_kernel_stream(const tg_trace *t, const tg_event *e);

/* The device of a device event: its "device" argument, else the process
 * id of its track (Kineto puts device d on pid d). */
int64_t tg_kernel_device(const tg_trace *t, const tg_event *e);

#endif
