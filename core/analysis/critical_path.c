/*
 * critical_path.c - the critical path of one rank (critical_path.h): what
 * HTA's trace loader makes of each event (rounded times, the stream column,
 * index_correlation, the last-step filter), the window of the annotation,
 * and the stages in order. The graph's nodes and runtime-lock edges are
 * critical_path_graph.c's, its call-stack edges critical_path_stack.c's, its
 * GPU edges critical_path_gpu.c's, the edge list critical_path_edges.c's,
 * the longest path and its breakdown critical_path_solve.c's.
 *
 * The longest path is networkx's dag_longest_path, which HTA calls: nodes
 * in topological order by generations (the nodes without predecessors in
 * node order, then each node's successors in the order their edges were
 * added, as Kahn's algorithm with a FIFO queue visits them), each node's
 * best predecessor the first of the longest (predecessors in edge order),
 * the path ending at the first node of that order with the greatest
 * distance. Equal paths are common (zero-weight edges), and which one wins
 * decides which ops show; following the same orders gives HTA's path.
 *
 * Memory: the arrays by event, node and edge, and the stages' scratch,
 * are tg_big blocks (util/big.h: mappings from 4 MiB up, given back to the
 * system when freed) and the large sorts are made in place (cp_sort_u64),
 * so that no stage leaves its pages in the heap, resident under the next
 * (a 1 GB trace's graph took ~120 MB of RSS for 93 MB of heap, the arena
 * grown past free pages its arrays could not use: docs/scale.md, i33cp).
 * The caller trims its heap before, as `diff` does (cli/diff_load.c).
 */
#include "critical_path_impl.h"
#include "../trace/kernel_class.h"
#include "../../util/sort.h"
#include "../../util/idmap.h"
#include "../../util/big.h"

#include <stdlib.h>
#include <string.h>

static const char *const bound_names[TG_CP_NBOUND] = {"cpu_bound",
                                                      "data_loading",
                                                      "gpu_compute_bound",
                                                      "gpu_communication_bound",
                                                      "gpu_kernel_kernel_overhead",
                                                      "gpu_kernel_launch_overhead",
                                                      ""};

static const char *const bound_labels[TG_CP_NBOUND] = {"CPU-bound",
                                                       "data-loading-bound",
                                                       "GPU-compute-bound",
                                                       "communication-bound",
                                                       "bound by kernel-to-kernel gaps",
                                                       "launch-bound",
                                                       "bound by dependencies"};

static const char *const edge_names[TG_CP_EDGE_NTYPES] = {"operator", "dependency", "kernel_launch_delay",
                                                          "kernel_kernel_delay", "sync_dependency"};

const char *tg_cp_bound_name(tg_cp_bound b)
{
	return (unsigned)b < TG_CP_NBOUND ? bound_names[b] : "?";
}
const char *tg_cp_bound_label(tg_cp_bound b)
{
	return (unsigned)b < TG_CP_NBOUND ? bound_labels[b] : "?";
}
const char *tg_cp_edge_type_name(tg_cp_edge_type t)
{
	return (unsigned)t < TG_CP_EDGE_NTYPES ? edge_names[t] : "?";
}

/* HTA's lists (critical_path_analysis.py, trace_symbol_table.py). */
static const char *const launch_names[] = {"cudaLaunchKernel",
                                           "cudaLaunchKernelExC",
                                           "cuLaunchKernel",
                                           "cuLaunchKernelEx",
                                           "cudaMemcpyAsync",
                                           "cudaMemsetAsync",
                                           "runFunction - job_prep_and_submit_for_execution",
                                           "hipLaunchKernel",
                                           "hipExtModuleLaunchKernel",
                                           "hipMemsetAsync",
                                           "hipMemcpyAsync",
                                           "hipMemcpyWithStream"};
static const char *const lock_names[] = {"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync"};
static const char *const block_names[] = {
	"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery", "cudaEventSynchronize", "cudaMemcpy",
	"cudaMemcpyAsync"};

static void flag_names(tg_critical_path *cp, const char *const *names, size_t n, uint16_t flag)
{
	const tg_atoms *a = tg_trace_atoms(cp->t);
	for (size_t i = 0; i < n; i++) {
		uint32_t atom = tg_atoms_find(a, names[i], strlen(names[i]));
		if (atom != TG_NONE && atom < cp->natoms)
			cp->namef[atom] |= flag;
	}
}

#define NLIST(x) (sizeof(x) / sizeof((x)[0]))

static void flag_all_names(tg_critical_path *cp)
{
	static const char *const ev_sync[] = {"Event Sync"}, *const ctx_sync[] = {"Context Sync"},
				 *const st_sync[] = {"Stream Sync"}, *const st_wait[] = {"Stream Wait Event"},
				 *const rec[] = {"cudaEventRecord"}, *const wait[] = {"cudaStreamWaitEvent"};
	flag_names(cp, launch_names, NLIST(launch_names), CPN_LAUNCH);
	flag_names(cp, lock_names, NLIST(lock_names), CPN_LOCK);
	flag_names(cp, block_names, NLIST(block_names), CPN_BLOCK);
	flag_names(cp, ev_sync, 1, CPN_EVENT_SYNC);
	flag_names(cp, ctx_sync, 1, CPN_CONTEXT_SYNC);
	flag_names(cp, st_sync, 1, CPN_STREAM_SYNC);
	flag_names(cp, st_wait, 1, CPN_STREAM_WAIT);
	flag_names(cp, rec, 1, CPN_EVENT_RECORD);
	flag_names(cp, wait, 1, CPN_WAIT_CALL);
	for (size_t i = 0; i < cp->nev; i++) {
		uint32_t atom = cp_event(cp, i)->name;
		if (atom >= cp->natoms || (cp->namef[atom] & CPN_CHECKED))
			continue;
		cp->namef[atom] |= CPN_CHECKED;
		const char *s = tg_trace_str(cp->t, atom);
		if (strstr(s, "forward"))
			cp->namef[atom] |= CPN_FORWARD;
		if (strstr(s, "autograd"))
			cp->namef[atom] |= CPN_AUTOGRAD;
		if (!strncmp(s, "ProfilerStep#", 13) && s[13] >= '0' && s[13] <= '9')
			cp->namef[atom] |= CPN_STEP;
		if (cp->opts.annotation_exact ? !strcmp(s, cp->annotation) : strstr(s, cp->annotation) != NULL)
			cp->namef[atom] |= CPN_ANNOTATION;
		for (size_t k = 0; k < cp->opts.ndata_load; k++)
			if (strstr(s, cp->opts.data_load[k]))
				cp->namef[atom] |= CPN_DATA_LOAD;
	}
}

/* 1 for events HTA's loader drops: no duration (instants), the "Trace" span. */
static int dropped(const tg_event *e)
{
	return (e->flags & TG_EV_INSTANT) || e->kind == TG_KIND_TRACE_SPAN || e->kind == TG_KIND_INSTANT;
}

/* The slot of stream value v in cp->streams (added when new), through
 * the map of the values seen; TG_NONE when out of memory. */
static uint32_t stream_slot(tg_critical_path *cp, tg_idmap *slots, int64_t v)
{
	if (v == -1)
		return 0;
	uint32_t s = tg_idmap_get(slots, v);
	if (s != TG_NONE)
		return s;
	if (cp->nstreams >= UINT32_MAX - 1 ||
	    tg_grow((void **)&cp->streams, &cp->streams_cap, cp->nstreams + 1, sizeof(int64_t)))
		return TG_NONE;
	s = (uint32_t)cp->nstreams;
	cp->streams[cp->nstreams++] = v;
	return tg_idmap_put(slots, v, s) < 0 ? TG_NONE : s;
}

/* The stream slots in 4 bytes an event, once a 256th stream is seen at
 * event upto (the slots before it copied, the bytes freed). Returns 0 or
 * TG_ENOMEM. */
static int widen_slots(tg_critical_path *cp, size_t upto)
{
	if (!(cp->sslot32 = tg_big_alloc((cp->nev + 1) * sizeof(uint32_t))))
		return TG_ENOMEM;
	for (size_t i = 0; i < upto; i++)
		cp->sslot32[i] = cp->sslot8[i];
	free(cp->sslot8);
	cp->sslot8 = NULL;
	return 0;
}

/* The stream, wait arguments and correlation flags of every event (its
 * times are read from it: cp_ts, cp_end). Returns 0 or TG_ENOMEM. */
static int prepare_events(tg_critical_path *cp)
{
	uint32_t k_stream = tg_trace_key_stream(cp->t);
	cp->k_won = tg_trace_key(cp->t, "wait_on_stream");
	cp->k_worc = tg_trace_key(cp->t, "wait_on_cuda_event_record_corr_id");
	tg_idmap *slots = tg_idmap_new(64);
	if (!slots || tg_grow((void **)&cp->streams, &cp->streams_cap, 16, sizeof(int64_t))) {
		tg_idmap_free(slots);
		return TG_ENOMEM;
	}
	cp->streams[0] = -1;
	cp->nstreams = 1;
	for (size_t i = 0; i < cp->nev; i++) {
		const tg_event *e = cp_event(cp, i);
		int64_t stream = k_stream == TG_NONE ? -1 : cp_arg_number(cp->t, e, k_stream);
		uint32_t s = stream_slot(cp, slots, stream);
		if (s == TG_NONE || (s > UINT8_MAX && !cp->sslot32 && widen_slots(cp, i))) {
			tg_idmap_free(slots);
			return TG_ENOMEM;
		}
		if (cp->sslot32)
			cp->sslot32[i] = s;
		else
			cp->sslot8[i] = (uint8_t)s;
		cp->ic[i] = TG_NONE;
		uint8_t fl = (dropped(e) ? 0 : CP_KEPT) | (stream >= 0 ? CP_ON_STREAM : 0);
		if (cp_corr(cp, (uint32_t)i) >= 0)
			fl |= CP_CORR;
		uint16_t nf = cp_name_flags(cp, (uint32_t)i);
		if ((stream >= 0 && (fl & CP_CORR)) || (nf & (CPN_EVENT_SYNC | CPN_CONTEXT_SYNC)))
			fl |= CP_GPU;
		cp->evf[i] = fl;
	}
	tg_idmap_free(slots);
	return 0;
}

/* HTA's _filter_irrelevant_gpu_kernels: with two ProfilerStep#N names or
 * more (user_annotation and gpu_user_annotation alike), host-side events
 * are kept when they start before the last step does, device-side ones
 * when a kept host event has their correlation id. */
static int keep_filter(tg_critical_path *cp)
{
	int64_t last = INT64_MIN;
	uint32_t first_name = TG_NONE;
	int names = 0;
	for (size_t i = 0; i < cp->nev; i++) {
		if (!(cp->evf[i] & CP_KEPT) || !(cp_name_flags(cp, (uint32_t)i) & CPN_STEP))
			continue;
		if (first_name == TG_NONE)
			first_name = cp_event(cp, i)->name;
		else if (cp_event(cp, i)->name != first_name)
			names = 2;
		if (!(cp->evf[i] & CP_GPU) && cp_ts(cp, i) > last)
			last = cp_ts(cp, i);
	}
	if (names < 2)
		return 0;
	cp->last_step_dropped = 1;
	/* the kept host events' correlation ids, counted and bounded first: a
	 * dense map (an array by id) when they are compact, as correlation ids
	 * of one process are, instead of a hash table grown as they come (more
	 * than linear in the events: rehashed, and past the caches at 1 GB) */
	size_t n = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < cp->nev; i++) {
		if (!(cp->evf[i] & CP_KEPT) || (cp->evf[i] & CP_GPU))
			continue;
		int64_t c = cp_corr(cp, (uint32_t)i);
		if (cp_ts(cp, i) >= last)
			cp->evf[i] &= (uint8_t)~CP_KEPT;
		else if (c != -1) {
			n++;
			lo = c < lo ? c : lo;
			hi = c > hi ? c : hi;
		}
	}
	tg_idmap *corrs = n ? tg_idmap_new_range(n, lo, hi) : tg_idmap_new(0);
	if (!corrs)
		return TG_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < cp->nev && !rc; i++)
		if ((cp->evf[i] & CP_KEPT) && !(cp->evf[i] & CP_GPU) && cp_corr(cp, (uint32_t)i) != -1 &&
		    tg_idmap_put(corrs, cp_corr(cp, (uint32_t)i), 0) < 0)
			rc = TG_ENOMEM;
	for (size_t i = 0; i < cp->nev && !rc; i++)
		if ((cp->evf[i] & CP_KEPT) && (cp->evf[i] & CP_GPU) &&
		    tg_idmap_get(corrs, cp_corr(cp, (uint32_t)i)) == TG_NONE)
			cp->evf[i] &= (uint8_t)~CP_KEPT;
	tg_idmap_free(corrs);
	return rc;
}

/* HTA's index_correlation: every host event with a correlation id points
 * at the last device event with that id, and every device event at the
 * last host event (pandas assigns a merge's rows in order, the last one
 * wins). */
static int link_correlations(tg_critical_path *cp)
{
	size_t n = 0;
	for (size_t i = 0; i < cp->nev; i++)
		n += !dropped(cp_event(cp, i)) && cp_corr(cp, (uint32_t)i) != -1;
	tg_sort_pair *kv = tg_big_alloc((n + 1) * sizeof(*kv));
	if (!kv)
		return TG_ENOMEM;
	n = 0;
	for (size_t i = 0; i < cp->nev; i++)
		if (!dropped(cp_event(cp, i)) && cp_corr(cp, (uint32_t)i) != -1)
			kv[n++] = (tg_sort_pair){tg_sort_key_i64(cp_corr(cp, (uint32_t)i)), (uint32_t)i};
	if (cp_sort_pairs_inc(kv, n)) {
		tg_big_free(kv);
		return TG_ENOMEM;
	}
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		uint32_t last_cpu = TG_NONE, last_gpu = TG_NONE;
		for (hi = lo; hi < n && kv[hi].key == kv[lo].key; hi++) {
			if (cp->evf[kv[hi].idx] & CP_GPU)
				last_gpu = kv[hi].idx;
			else
				last_cpu = kv[hi].idx;
		}
		for (size_t k = lo; k < hi; k++)
			cp->ic[kv[k].idx] = (cp->evf[kv[k].idx] & CP_GPU) ? last_cpu : last_gpu;
	}
	cp_spare_put(cp, kv); /* the nodes' keys take it */
	return 0;
}

static int name_matches(const tg_critical_path *cp, uint32_t ev)
{
	uint32_t atom = cp_event(cp, ev)->name;
	if (atom < cp->natoms)
		return (cp->namef[atom] & CPN_ANNOTATION) != 0;
	const char *s = tg_trace_str(cp->t, atom);
	return cp->opts.annotation_exact ? !strcmp(s, cp->annotation) : strstr(s, cp->annotation) != NULL;
}

/* The window [start, end] of the annotation's instances (HTA: the first
 * instance's start to the last one's end; "" is the whole trace). */
static int find_window(tg_critical_path *cp, int64_t *start, int64_t *end)
{
	*start = INT64_MAX;
	*end = INT64_MIN;
	if (!*cp->annotation) {
		for (size_t i = 0; i < cp->nev; i++)
			if (cp->evf[i] & CP_KEPT) {
				int64_t ts = cp_ts(cp, i), te = cp_end(cp, i);
				*start = ts < *start ? ts : *start;
				*end = te > *end ? te : *end;
			}
		cp->stats.instances = 1;
		if (*start == INT64_MAX)
			return tg_error_set(TG_ENOTFOUND, "critical path: the trace has no events");
		if (*start > *end)
			return tg_error_set(TG_ENOTFOUND, "critical path: every event lasts under a microsecond once rounded "
			                                  "as HTA rounds times (--exact-ns keeps nanoseconds)");
		return 0;
	}
	int64_t count = 0, first = cp->opts.first, last = cp->opts.last;
	for (size_t i = 0; i < cp->nev; i++)
		count += (cp->evf[i] & CP_KEPT) && name_matches(cp, (uint32_t)i);
	if (cp->opts.all_instances) {
		first = 0;
		last = count - 1;
	}
	if (!count)
		return tg_error_set(TG_ENOTFOUND, "critical path: no event %s '%s' in the trace%s",
		                    cp->opts.annotation_exact ? "named" : "whose name contains", cp->annotation,
		                    cp->last_step_dropped ? " (HTA leaves out its last ProfilerStep)" : "");
	if (first < 0 || last < first || last >= count)
		return tg_error_set(
			TG_ENOTFOUND, "critical path: '%s': %lld instance%s in the trace, asked for %lld to %lld",
			cp->annotation, (long long)count, count == 1 ? "" : "s", (long long)first, (long long)last);
	int64_t k = 0;
	for (size_t i = 0; i < cp->nev; i++) {
		if (!(cp->evf[i] & CP_KEPT) || !name_matches(cp, (uint32_t)i))
			continue;
		if (k >= first && k <= last) {
			*start = cp_ts(cp, i) < *start ? cp_ts(cp, i) : *start;
			*end = cp_end(cp, i) > *end ? cp_end(cp, i) : *end;
		}
		k++;
	}
	cp->stats.instances = (uint64_t)(last - first + 1);
	return 0;
}

/* HTA's clipped trace: host events (stream -1) that start in the window
 * and last, device events whose host call is one of those, and every
 * Stream Wait Event. */
static void clip(tg_critical_path *cp, int64_t start, int64_t end)
{
	for (size_t i = 0; i < cp->nev; i++) {
		uint8_t fl = cp->evf[i];
		if (!(fl & CP_KEPT))
			continue;
		if (!cp_on_stream_col(cp, i)) {
			int64_t ts = cp_ts(cp, i);
			if (ts < start || ts > end || cp_end(cp, i) - ts <= 0)
				continue;
			cp->evf[i] |= CP_CLIP;
			uint32_t d = cp->ic[i];
			if (d != TG_NONE && (cp->evf[d] & CP_KEPT) && cp_on_stream_col(cp, d))
				cp->evf[d] |= CP_CLIP;
		} else if (cp_name_flags(cp, (uint32_t)i) & CPN_STREAM_WAIT) {
			cp->evf[i] |= CP_CLIP;
		}
	}
	for (size_t i = 0; i < cp->nev; i++)
		cp->stats.events += (cp->evf[i] & CP_CLIP) != 0;
}

/* ---------------------------------------------------------------- build */

static int alloc_arrays(tg_critical_path *cp)
{
	size_t n = cp->nev + 1;
	cp->sslot8 = tg_malloc(n); /* streams are few: widen_slots past 255 */
	cp->ic = tg_big_alloc(n * sizeof(uint32_t));
	cp->evf = tg_calloc(n, 1);
	cp->namef = tg_calloc(cp->natoms + 1, sizeof(uint16_t));
	if (!cp->sslot8 || !cp->ic || !cp->evf || !cp->namef)
		return TG_ENOMEM;
	return 0; /* the events' nodes (snode, edist) come with the nodes (cp_make_nodes) */
}

/* The default annotation: "ProfilerStep" when the trace has steps. */
static const char *default_annotation(const tg_critical_path *cp)
{
	return cp->ntsteps ? "ProfilerStep" : "";
}

/* Room for n edges, exactly, and their events unless lean. */
static int reserve_edges(tg_critical_path *cp, size_t n)
{
	cp->edges = tg_big_alloc(n * sizeof(cp_edge));
	if (!cp->edges || (!cp->lean && !(cp->attr = tg_big_alloc(n * sizeof(uint32_t)))))
		return TG_ENOMEM;
	cp->cap = n;
	return 0;
}

/* What only the GPU stage reads (the correlations, the stream waits),
 * freed once it is done. */
static void drop_gpu_inputs(tg_critical_path *cp)
{
	tg_big_free(cp->ic);
	tg_big_free(cp->ksync);
	cp->ic = cp->ksync = NULL;
}

/* The stages in order: the nodes, the runtime lock's edges, the call
 * stacks' and the GPU stage's. With the chains implied (a summary's lean
 * build with narrow times: cp_add_chain) the GPU stage comes before the
 * call stacks: their edges are then the only ones in cp->edges after the
 * lock's, in the same places either way (the chains' rank, cp->chain_rank,
 * is between them), and the call stacks (their chains, their scratch)
 * come once the correlations are freed, the GPU stage (its scratch) before
 * the chains are made: 7.5 and 9.6 MB less under each at 1 GB of JSON. */
static int build(tg_critical_path *cp)
{
	int64_t start, end;
	int rc = alloc_arrays(cp);
	if (!rc) {
		flag_all_names(cp);
		rc = prepare_events(cp);
	}
	if (!rc)
		rc = keep_filter(cp);
	if (!rc)
		rc = link_correlations(cp);
	if (!rc)
		rc = find_window(cp, &start, &end);
	if (rc)
		return rc;
	cp->stats.window_start = start;
	cp->stats.window_end = end;
	size_t nsteps = cp->ntsteps;
	const tg_step *steps = cp->tsteps;
	for (size_t k = 0; k < nsteps; k++)
		cp->stats.steps += cp_ts(cp, steps[k].event) >= start && cp_ts(cp, steps[k].event) < end;
	clip(cp, start, end);
	/* about an edge a node (0.98-1.03 in the shared traces): room for a
	 * sixteenth more, sized exactly (tg_grow would round up to a power of
	 * two, up to twice the list), so that the list is seldom copied */
	if ((rc = cp_make_nodes(cp)) ||
	    (rc = reserve_edges(cp, cp->lean && cp->t_narrow ? cp->nnodes / 4 + 16 /* the chains apart */
	                                                     : cp->nnodes + cp->nnodes / 16 + 16)) ||
	    (rc = cp_add_lock_edges(cp)))
		return rc;
	cp->chain_rank = (uint32_t)cp->nedges; /* the chains' rank, if implied: after the lock's edges */
	if (cp->lean && cp->t_narrow) {
		if ((rc = cp_add_gpu_edges(cp)))
			return rc;
		drop_gpu_inputs(cp);
		if (cp->opts.scratch_freed) /* the GPU stage's heap blocks, before the chains */
			cp->opts.scratch_freed();
		rc = cp_add_stack_edges(cp);
	} else if (!(rc = cp_add_stack_edges(cp))) {
		rc = cp_add_gpu_edges(cp);
	}
	if (rc)
		return rc;
	/* the path needs the nodes, the edges and the flags: the rest goes */
	free(cp->sslot8);
	free(cp->streams);
	cp->sslot8 = NULL;
	cp->streams = NULL;
	cp_spare_put(cp, cp->snode); /* the merge's offsets take it */
	cp->snode = NULL;
	void **done[] = {(void **)&cp->sslot32, (void **)&cp->ksync, (void **)&cp->ic, (void **)&cp->edist};
	for (size_t k = 0; k < sizeof(done) / sizeof(done[0]); k++) {
		tg_big_free(*done[k]);
		*done[k] = NULL;
	}
	tg_idmap_free(cp->efar);
	cp->efar = NULL;
	if (cp->opts.scratch_freed)
		cp->opts.scratch_freed();
	return cp_solve(cp);
}

int tg_critical_path_build(tg_critical_path **out, const tg_tree *tree, const tg_cp_opts *opts)
{
	size_t nsteps;
	const tg_step *steps = tg_tree_steps(tree, &nsteps);
	return cp_build(out, tg_tree_trace(tree), steps, nsteps, opts, 0);
}

int cp_build(tg_critical_path **out, const tg_trace *t, const tg_step *steps, size_t nsteps, const tg_cp_opts *opts,
             int lean)
{
	*out = NULL;
	tg_critical_path *cp = tg_calloc(1, sizeof(*cp));
	if (!cp)
		return TG_ENOMEM;
	cp->tsteps = steps;
	cp->ntsteps = nsteps;
	cp->t = t;
	cp->ev = tg_trace_events(cp->t, &cp->nev);
	cp->natoms = tg_atoms_count(tg_trace_atoms(cp->t));
	if (cp->nev >= CP_MAX_EVENTS) { /* two nodes an event, an edge's nodes in 29 bits (cp_edge) */
		size_t nev = cp->nev;
		free(cp);
		return tg_error_set(TG_ELIMIT, "critical path: the trace has %zu events, more than %u", nev,
		                    CP_MAX_EVENTS - 1);
	}
	if (opts)
		cp->opts = *opts;
	cp->lean = lean && cp->opts.summary_only;
	const char *ann = cp->opts.annotation ? cp->opts.annotation : default_annotation(cp);
	if (!cp->opts.annotation)
		cp->opts.all_instances = 1;
	cp->annotation = strdup(ann);
	int rc = cp->annotation ? build(cp) : tg_error_set(TG_ENOMEM, "out of memory");
	if (rc) {
		tg_critical_path_free(cp);
		return rc;
	}
	*out = cp;
	return 0;
}

void tg_critical_path_free(tg_critical_path *cp)
{
	if (!cp)
		return;
	void *arrays[] = {cp->annotation, cp->sslot8, cp->streams, cp->evf, cp->namef, cp->ops, cp->path_events};
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		free(arrays[i]);
	void *big[] = {cp->sslot32, cp->ic,   cp->ksync, cp->snode, cp->edist, cp->node_ev,
	               cp->soff,    cp->attr, cp->path,  cp->edges, cp->steps, cp->spare, cp->chain, cp->chainf};
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		tg_big_free(big[i]);
	tg_idmap_free(cp->chain_far);
	tg_idmap_free(cp->efar);
	free(cp);
}

int64_t tg_cp_length_ns(const tg_critical_path *cp)
{
	return cp->length;
}
const int64_t *tg_cp_breakdown(const tg_critical_path *cp)
{
	return cp->bound_ns;
}
const tg_cp_stats *tg_cp_stats_get(const tg_critical_path *cp)
{
	return &cp->stats;
}
const char *tg_cp_annotation(const tg_critical_path *cp)
{
	return cp->annotation;
}
const tg_trace *tg_critical_path_trace(const tg_critical_path *cp)
{
	return cp->t;
}

const tg_cp_step *tg_cp_steps(const tg_critical_path *cp, size_t *n)
{
	*n = cp->nsteps;
	return cp->steps;
}

const tg_cp_op *tg_cp_ops(const tg_critical_path *cp, size_t *n)
{
	*n = cp->nops;
	return cp->ops;
}

const uint32_t *tg_cp_path_events(const tg_critical_path *cp, size_t *n)
{
	*n = cp->path_events ? cp->npath : 0;
	return cp->path_events;
}
