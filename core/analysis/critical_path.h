/*
 * critical_path.h - the critical path of one rank's trace, as Holistic
 * Trace Analysis computes it (hta/analyzers/critical_path_analysis.py):
 * the longest path through a graph whose nodes are the start and the end
 * of every CPU op, runtime call and device event, and whose edges are
 *
 *   operator      an op's or a kernel's span, and nesting on a CPU thread
 *                 (parent start -> child start, child end -> next sibling
 *                 or parent end); weight = time between the two points
 *                 (0 for the end of a blocking call: synchronize, memcpy)
 *   dependency    consecutive top-level ops of a thread, and the order of
 *                 calls that hold the CUDA runtime lock across threads;
 *                 weight 0
 *   launch delay  runtime call start -> kernel start, when the kernel was
 *                 the only work queued on its stream; weight = the delay
 *   kernel gap    previous kernel's end -> next kernel's start on a stream
 *                 (under 1.5 ms); weight = the gap
 *   sync          kernel end -> the end of the host call that waited for it
 *                 (stream, event, device synchronize) and kernel end ->
 *                 the first kernel after a cudaStreamWaitEvent on another
 *                 stream; weight 0
 *
 * Each edge of the path is attributed to an event and classified with
 * HTA's names (cpu_bound, data_loading, gpu_compute_bound,
 * gpu_communication_bound, gpu_kernel_kernel_overhead,
 * gpu_kernel_launch_overhead; dependency and sync edges weigh nothing and
 * have the empty name). docs/critical-path.md says how the graph is built,
 * how ties between equally long paths are broken (as networkx does, so
 * that the path is HTA's own), and where tracegate departs from HTA.
 *
 * Times are nanoseconds. By default every timestamp is rounded to whole
 * microseconds as HTA's loader does (start up, end down); exact_ns keeps
 * the trace's own nanoseconds (HTA_DISABLE_NS_ROUNDING=1).
 *
 * Memory is a few arrays as long as the trace's events, the nodes and the
 * edges (no allocation per node or edge): about 78 bytes of heap an event
 * at the peak of a full result, 46 for a summary (docs/scale.md, "The
 * critical path's summary, lean"). Time is linear:
 * radix and counting sorts, no comparison sort over events.
 */
#ifndef TG_CRITICAL_PATH_H
#define TG_CRITICAL_PATH_H

#include "../tree/tree.h"

/* What bounds an edge of the path: HTA's BoundType, plus the nameless
 * category of dependency and sync edges. */
typedef enum tg_cp_bound {
	TG_CP_CPU = 0,         /* cpu_bound */
	TG_CP_DATA_LOADING,    /* data_loading: a CPU event named by tg_cp_opts.data_load */
	TG_CP_GPU_COMPUTE,     /* gpu_compute_bound (memcpy and memset included, as in HTA) */
	TG_CP_GPU_COMM,        /* gpu_communication_bound */
	TG_CP_KERNEL_KERNEL,   /* gpu_kernel_kernel_overhead */
	TG_CP_LAUNCH,          /* gpu_kernel_launch_overhead */
	TG_CP_DEPENDENCY,      /* "" in HTA: dependency and sync edges (0 ns) */
	TG_CP_NBOUND
} tg_cp_bound;

/* HTA's name of a bound ("cpu_bound", ..., "" for TG_CP_DEPENDENCY); a
 * static string. */
const char *tg_cp_bound_name(tg_cp_bound b);

/* What the step "is" when b dominates it: "CPU-bound", "launch-bound"...;
 * a static string. */
const char *tg_cp_bound_label(tg_cp_bound b);

/* Edge types, HTA's CPEdgeType. */
typedef enum tg_cp_edge_type {
	TG_CP_EDGE_OPERATOR = 0, /* critical_path_operator */
	TG_CP_EDGE_DEPENDENCY,   /* critical_path_dependency */
	TG_CP_EDGE_LAUNCH,       /* critical_path_kernel_launch_delay */
	TG_CP_EDGE_KERNEL_KERNEL, /* critical_path_kernel_kernel_delay */
	TG_CP_EDGE_SYNC,         /* critical_path_sync_dependency */
	TG_CP_EDGE_NTYPES
} tg_cp_edge_type;

/* "operator", "dependency", "kernel_launch_delay", "kernel_kernel_delay",
 * "sync_dependency"; static strings. */
const char *tg_cp_edge_type_name(tg_cp_edge_type t);

/* Which part of the trace, and HTA's settings. Zero is the default:
 * annotation NULL picks "ProfilerStep" when the trace has steps, else the
 * whole trace. */
typedef struct tg_cp_opts {
	const char *annotation;  /* HTA's annotation: events whose name contains it
	                          * bound the window; "" is the whole trace */
	int annotation_exact;    /* match the name exactly (--step) */
	int64_t first, last;     /* instances of the annotation, 0-based, inclusive;
	                          * all_instances ignores them */
	int all_instances;       /* every instance HTA keeps (the default of the CLI) */
	int zero_weight_launch;  /* HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1 */
	int exact_ns;            /* no microsecond rounding (HTA_DISABLE_NS_ROUNDING=1) */
	const char *const *data_load; /* HTA's data_load_events: names containing one
	                               * of these are data loading; NULL: none */
	size_t ndata_load;
	int summary_only;        /* the length, the breakdown and the stats alone:
	                          * tg_cp_steps, tg_cp_ops and tg_cp_path_events
	                          * are empty (tg_cp_summarize: less memory) */
	int keep_graph;          /* keep the graph (nodes, edges) once the path is
	                          * found, for tests that look into it; else it is
	                          * freed as soon as the path's steps are read */
	void (*graph_freed)(void); /* when not NULL, called once the graph is
	                          * freed and before the path's steps are made
	                          * (not for a summary): the command's heap
	                          * policy (critical-path gives the graph's
	                          * pages back there), none of the core's */
	void (*scratch_freed)(void); /* when not NULL, called once the graph's
	                          * build has freed its per-event scratch (the
	                          * call stacks' and the GPU stage's), before the
	                          * edges are merged and the longest path's arrays
	                          * made, also before the GPU stage's kernel
	                          * edges and, in a summary's lean build,
	                          * between the GPU stage and the call stacks
	                          * (which come in that order there): the
	                          * command's heap policy (`diff` gives those
	                          * freed pages back, which would otherwise stay
	                          * resident under the next stages: 12 MB at 1 GB
	                          * of JSON); changes no result */
} tg_cp_opts;

/* One edge of the path (32 bytes: one a node of the path). Events are
 * indices into tg_trace_events(). */
typedef struct tg_cp_step {
	int64_t ts;             /* time of the from node, ns */
	int64_t ns;             /* weight (negative where rounding made an event end
	                         * before it starts; the path counts 0 then, HTA's
	                         * breakdown the negative value) */
	uint32_t from, to;      /* events of the edge's two nodes */
	uint32_t event;         /* the event the time is attributed to, or TG_NONE
	                         * (launch delays, dependency and sync edges) */
	uint8_t type;           /* tg_cp_edge_type */
	uint8_t bound;          /* tg_cp_bound */
	uint8_t from_start, to_start; /* 1: the node is the event's start */
} tg_cp_step;

/* An event the path runs through, with the time of the path's edges
 * attributed to it (its own span on the path, the gaps inside it). */
typedef struct tg_cp_op {
	uint32_t event;
	int64_t ns;
	uint8_t bound;
} tg_cp_op;

/* Figures of the graph, for the report and the tests. */
typedef struct tg_cp_stats {
	uint64_t events;        /* events in the window (HTA's clipped trace) */
	uint64_t nodes, edges;
	uint64_t edges_by_type[TG_CP_EDGE_NTYPES];
	uint64_t path_nodes, path_events;
	uint64_t same_stream_syncs; /* sync edges between events of one stream, dropped
	                             * (HTA refuses such a graph) */
	uint64_t instances;     /* annotation instances in the window */
	uint64_t steps;         /* ProfilerSteps that start in the window, before its end (per-step figures) */
	int64_t window_start, window_end; /* ns */
} tg_cp_stats;

typedef struct tg_critical_path tg_critical_path;

/* Builds the graph of tree's trace for opts (NULL: defaults) and finds its
 * critical path. On success *out owns the result (free with
 * tg_critical_path_free); the tree and its trace must outlive it. Returns
 * TG_ENOTFOUND when no event matches the annotation or the instances are
 * out of range, TG_EFORMAT when the trace's events make a cycle (the
 * message names two events of it), TG_ENOMEM; *out is NULL then. */
int tg_critical_path_build(tg_critical_path **out, const tg_tree *tree, const tg_cp_opts *opts);

/* Frees the result. NULL is a no-op. */
void tg_critical_path_free(tg_critical_path *cp);

/* The path's length (sum of its edges' weights, negative ones as 0), ns. */
int64_t tg_cp_length_ns(const tg_critical_path *cp);

/* The breakdown: the ns of the path's edges by bound (HTA's summary() is
 * each divided by their sum); an array of TG_CP_NBOUND owned by cp. */
const int64_t *tg_cp_breakdown(const tg_critical_path *cp);

/* The edges of the path in order; *n of them, owned by cp. */
const tg_cp_step *tg_cp_steps(const tg_critical_path *cp, size_t *n);

/* The events the path's time is attributed to, longest first; *n of them,
 * owned by cp. */
const tg_cp_op *tg_cp_ops(const tg_critical_path *cp, size_t *n);

/* The event index of every node of the path, in order (HTA's
 * critical_path_nodes mapped to events); *n of them, owned by cp. */
const uint32_t *tg_cp_path_events(const tg_critical_path *cp, size_t *n);

const tg_cp_stats *tg_cp_stats_get(const tg_critical_path *cp);

/* The trace the path was found in. */
const tg_trace *tg_critical_path_trace(const tg_critical_path *cp);

/* The annotation the window was taken from ("" for the whole trace);
 * owned by cp. */
const char *tg_cp_annotation(const tg_critical_path *cp);

/* One trace's path in the few figures a diff compares (rules/cp_diff.h)
 * and run data keeps (rundata.h), with the default settings. */
typedef struct tg_cp_summary {
	int ok;                         /* 0: the trace has no path (why says why) */
	char why[256];                  /* the error, without "critical path: " */
	uint64_t steps;                 /* tg_cp_stats.steps */
	int64_t length_ns;              /* tg_cp_length_ns */
	int64_t bound_ns[TG_CP_NBOUND]; /* tg_cp_breakdown */
} tg_cp_summary;

/* The summary of tree's critical path into *out; a trace whose path
 * cannot be found (a cycle, no events) is not ok, and why says why.
 * Returns 0, or TG_ENOMEM. The figures are the full builder's
 * (tg_critical_path_build, its length, breakdown and stats.steps), found
 * with less memory (critical_path_summary.c). */
int tg_cp_summarize(tg_cp_summary *out, const tg_tree *tree);

/* The same under opts (NULL: the defaults, tg_cp_summarize); its
 * summary_only and keep_graph are ignored. For the tests, which compare it
 * with the full builder under other settings (exact_ns...). */
int tg_cp_summarize_opts(tg_cp_summary *out, const tg_tree *tree, const tg_cp_opts *opts);

/* The same for trace t, whose steps (tg_tree_steps of its tree) are
 * steps[0..nsteps), without the tree: a caller that has freed the tree
 * (and every argument but the ones tg_cp_args names, tg_trace_keep_args)
 * finds the same summary with the trace's events alone beside it. t and
 * steps are borrowed for the call. */
int tg_cp_summarize_steps(tg_cp_summary *out, const tg_trace *t, const tg_step *steps, size_t nsteps,
                          const tg_cp_opts *opts);

/* The argument keys the critical path reads (a NULL-terminated list:
 * "stream" and the stream waits' two): what a caller keeps of
 * a trace's arguments (tg_trace_keep_args) before tg_cp_summarize_steps. */
extern const char *const tg_cp_args[];

/* How many summaries of this process were built a second time, not lean,
 * for a cycle's message (critical_path_summary.c); for the tests. */
uint64_t tg_cp_summary_fallbacks(void);

#endif
