/*
 * kernel_class.h - what kind of work a device event is (HTA's kernel types),
 * and the step filter that every analysis uses to pick its events.
 *
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
 * The step filter: every analysis takes an int32_t step. TG_STEP_ALL (-1)
 * selects the whole trace, an index into tg_tree_steps() selects the events
 * whose tg_tree_step_of() is that index, and TG_STEP_HTA (-2) selects what
 * HTA analyses by default (see tg_step_filter_init), so that numbers can be
 * compared with HTA's. TG_STEP_HTA_ROUNDED (-3) is TG_STEP_HTA plus HTA's
 * default microsecond rounding of every timestamp (start rounded up, end
 * rounded down: hta/common/trace_parser.py round_down_time_stamps); it
 * exists to check this code against HTA's published numbers, which are
 * rounded unless HTA_DISABLE_NS_ROUNDING=1 is set. Analyses read times
 * through tg_step_filter_span() so that the rounding applies everywhere.
 */
#ifndef TG_KERNEL_CLASS_H
#define TG_KERNEL_CLASS_H

#include "tree.h"

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
 * once per distinct name when the trace was read (tg_trace_name_flags). */
tg_kernel_type tg_kernel_class_of(const tg_trace *t, const tg_event *e);

/* "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" (static strings). */
const char *tg_kernel_class_name(tg_kernel_type type);

/* The stream of a device event: its "stream" argument, else the numeric
 * tid of its track. */
int64_t tg_kernel_stream(const tg_trace *t, const tg_event *e);

/* The device of a device event: its "device" argument, else the process
 * id of its track (Kineto puts device d on pid d). */
int64_t tg_kernel_device(const tg_trace *t, const tg_event *e);

#define TG_STEP_ALL (-1)
#define TG_STEP_HTA (-2)
#define TG_STEP_HTA_ROUNDED (-3)

/* Which events an analysis looks at; fill with tg_step_filter_init. */
typedef struct tg_step_filter {
	const tg_tree *tree;
	const tg_event *events;
	const tg_step *steps;
	size_t nsteps;
	int32_t step;
	int round_us;    /* TG_STEP_HTA_ROUNDED */
	int64_t hta_end; /* TG_STEP_HTA*: host events must start before this */
} tg_step_filter;

/* Prepares f for step: TG_STEP_ALL, TG_STEP_HTA, TG_STEP_HTA_ROUNDED or a
 * step index. With TG_STEP_HTA* and two or more steps, host events that start before the last
 * step starts are selected, and device events whose nearest host ancestor
 * (their launch) is; device events without one are left out (HTA's
 * _filter_irrelevant_gpu_kernels, which also drops the last step). With
 * fewer than two steps TG_STEP_HTA* select everything, as HTA does.
 * Returns 0, or TG_EINVAL for any other negative step or an index past the
 * last step. f holds no allocation; the tree must outlive it. */
int tg_step_filter_init(tg_step_filter *f, const tg_tree *tree, int32_t step);

/* 1 if f selects event ev. Events of the tree go by their tree step (by
 * their own or their host ancestor's start with TG_STEP_HTA*); events outside
 * the tree (instants such as [memory]) by their timestamp: a step's window is
 * [ts, ts + dur) of its ProfilerStep event. */
int tg_step_filter_has(const tg_step_filter *f, uint32_t ev);

/* The step (index into tg_tree_steps) event ev belongs to as a filter for
 * that step would decide (tg_step_filter_has with f->step = the step), or
 * -1: one pass sorts every event into its step. */
int32_t tg_step_filter_step_of(const tg_step_filter *f, uint32_t ev);

/* Start and end (ns) of event e as the analysis sees them: exact, or, with
 * TG_STEP_HTA_ROUNDED, the start rounded up and the end rounded down to a
 * whole microsecond (a sub-microsecond event may then end before it starts,
 * as in HTA). */
void tg_step_filter_span(const tg_step_filter *f, const tg_event *e, int64_t *ts, int64_t *end);

#endif
