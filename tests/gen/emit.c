/*
 * emit.c - writes the trace in the layout of Kineto's own JSON output
 * (libkineto's ChromeTraceLogger): one event per block, "ts"/"dur" in
 * microseconds with three decimals, flows right after the event they
 * start or end, metadata at the end, and its quirks (a blank first line,
 * "External id": N,"Record function id" without a space).
 */
#include "gen.h"

#include <string.h>

#define BASE_TIME_NS "1767189312000000000"

/* Device properties for a --gpu name (by substring); H100 otherwise. */
typedef struct gpu_props {
	const char *match;
	long long mem;
	int major, minor, sms, smem_optin, smem_sm;
} gpu_props;

static const gpu_props gpus[] = {
	{"A100", 85198045184LL, 8, 0, 108, 166912, 167936},
	{"H200", 150754820096LL, 9, 0, 132, 232448, 233472},
	{"B200", 191503138816LL, 10, 0, 148, 232448, 233472},
	{"", 85018279936LL, 9, 0, 132, 232448, 233472},
};

static const gpu_props *props_for(const char *name)
{
	for (size_t i = 0;; i++)
		if (strstr(name, gpus[i].match))
			return &gpus[i];
}

static void ev_open(gen *g)
{
	if (g->first_event) {
		g->first_event = 0;
		W_LIT(g->w, "\n  {\n");
	} else {
		W_LIT(g->w, ",\n  {\n");
	}
}

static void ev_close(gen *g)
{
	W_LIT(g->w, "\n  }");
}

/* "ph": "X", "cat": C, "name": N, "pid": P, "tid": T,\n "ts": .., "dur": ..,\n "args": {\n */
static void x_head(gen *g, const char *cat, const char *name, int64_t pid, int64_t tid, int64_t ts, int64_t dur)
{
	wbuf *w = g->w;
	ev_open(g);
	W_LIT(w, "    \"ph\": \"X\", \"cat\": \"");
	w_str(w, cat);
	W_LIT(w, "\", \"name\": ");
	w_str(w, name);
	W_LIT(w, ", \"pid\": ");
	w_i64(w, pid);
	W_LIT(w, ", \"tid\": ");
	w_i64(w, tid);
	W_LIT(w, ",\n    \"ts\": ");
	w_us(w, ts);
	W_LIT(w, ", \"dur\": ");
	w_us(w, dur);
	W_LIT(w, ",\n    \"args\": {\n      ");
}

static void x_tail(gen *g)
{
	W_LIT(g->w, "\n    }");
	ev_close(g);
}

/* A flow event: start ("s") or finish ("f", "bp": "e"). */
static void flow(gen *g, int finish, const char *cat, int64_t id, int64_t pid, int64_t tid, int64_t ts)
{
	wbuf *w = g->w;
	ev_open(g);
	W_LIT(w, "    \"ph\": \"");
	w_str(w, finish ? "f" : "s");
	W_LIT(w, "\", \"id\": ");
	w_i64(w, id);
	W_LIT(w, ", \"pid\": ");
	w_i64(w, pid);
	W_LIT(w, ", \"tid\": ");
	w_i64(w, tid);
	W_LIT(w, ", \"ts\": ");
	w_us(w, ts);
	W_LIT(w, ",\n    \"cat\": \"");
	w_str(w, cat);
	W_LIT(w, "\", \"name\": \"");
	w_str(w, cat);
	w_str(w, finish ? "\", \"bp\": \"e\"" : "\"");
	ev_close(g);
}

static const char *const host_cat[] = {"cpu_op", "user_annotation", "python_function", "cuda_runtime",
                                       "cuda_driver"};

static void emit_host(gen *g, const hev *e)
{
	wbuf *w = g->w;
	int64_t tid = g->tid[e->thread];
	x_head(g, host_cat[e->cat], e->name, g->pid, tid, e->ts, e->dur);
	switch (e->cat) {
	case H_CPU_OP:
	case H_ANNOTATION:
		W_LIT(w, "\"External id\": ");
		w_i64(w, e->ext);
		W_LIT(w, ",\"Record function id\": 0");
		if (e->seq >= 0) {
			W_LIT(w, ", \"Sequence number\": ");
			w_i64(w, e->seq);
			W_LIT(w, ", \"Fwd thread id\": ");
			w_i64(w, e->fwd_tid);
		}
		if (e->args)
			w_str(w, e->args);
		W_LIT(w, ", \"Ev Idx\": ");
		w_i64(w, e->ev_idx);
		break;
	case H_PYTHON:
		W_LIT(w, "\"Python parent id\": ");
		if (e->py_parent < 0)
			W_LIT(w, "null");
		else
			w_i64(w, e->py_parent);
		W_LIT(w, ", \"Python id\": ");
		w_i64(w, e->py_id);
		if (e->py_module >= 0) {
			W_LIT(w, ", \"Python module id\": ");
			w_i64(w, e->py_module);
		}
		W_LIT(w, ", \"Ev Idx\": ");
		w_i64(w, e->ev_idx);
		break;
	default: /* runtime, driver */
		if (e->ext) {
			W_LIT(w, "\"External id\": ");
			w_i64(w, e->ext);
			W_LIT(w, ",      ");
		}
		W_LIT(w, "\"cbid\": ");
		w_i64(w, e->cbid);
		W_LIT(w, ", \"correlation\": ");
		w_i64(w, e->corr);
	}
	x_tail(g);
	if (e->flow)
		flow(g, 0, "ac2g", e->corr, g->pid, tid, e->ts);
	if (e->fb_out)
		flow(g, 0, "fwdbwd", e->fb_out, g->pid, tid, e->ts);
	if (e->fb_in)
		flow(g, 1, "fwdbwd", e->fb_in, g->pid, tid, e->ts);
}

/* '"External id": X,      "device": D, "context": 1,      "stream": S, "correlation": C' */
static void device_ids(gen *g, const dev *d)
{
	wbuf *w = g->w;
	W_LIT(w, "\"External id\": ");
	w_i64(w, d->ext);
	W_LIT(w, ",      ");
	if (d->cat == D_KERNEL)
		W_LIT(w, "\"queued\": 0, ");
	W_LIT(w, "\"device\": ");
	w_i64(w, g->device);
	W_LIT(w, ", \"context\": 1,      \"stream\": ");
	w_i64(w, d->stream);
	W_LIT(w, ", \"correlation\": ");
	w_i64(w, d->corr);
}

static void emit_device(gen *g, const dev *d)
{
	wbuf *w = g->w;
	char bw[64];
	switch (d->cat) {
	case D_KERNEL:
		x_head(g, "kernel", d->k->name, g->device, d->stream, d->ts, d->dur);
		device_ids(g, d);
		w_str(w, d->k->args);
		if (d->extra)
			w_str(w, d->extra);
		break;
	case D_MEMCPY:
		x_head(g, "gpu_memcpy", d->mc->name, g->device, d->stream, d->ts, d->dur);
		device_ids(g, d);
		W_LIT(w, ",      \"bytes\": ");
		w_i64(w, d->mc->bytes);
		snprintf(bw, sizeof(bw), ", \"memory bandwidth (GB/s)\": %.17g", (double)d->mc->bytes / (double)d->dur);
		w_str(w, bw);
		break;
	case D_SYNC:
		x_head(g, "cuda_sync", "\"Stream Sync\"", g->device, d->stream, d->ts, d->dur);
		W_LIT(w, "\"External id\": ");
		w_i64(w, d->ext);
		W_LIT(w, ",\n      \"cuda_sync_kind\": \"Stream Sync\",\n      \"stream\": ");
		w_i64(w, d->stream);
		W_LIT(w, ", \"correlation\": ");
		w_i64(w, d->corr);
		W_LIT(w, ",\n      \"device\": ");
		w_i64(w, g->device);
		W_LIT(w, ", \"context\": 1");
		break;
	default: /* D_STEP */
		snprintf(bw, sizeof(bw), "\"ProfilerStep#%lld\"", (long long)d->step);
		x_head(g, "gpu_user_annotation", bw, g->device, d->stream, d->ts, d->dur);
		W_LIT(w, "\"External id\": ");
		w_i64(w, d->ext);
		x_tail(g);
		return;
	}
	x_tail(g);
	flow(g, 1, "ac2g", d->corr, g->device, d->stream, d->ts);
}

void emit_step(gen *g)
{
	for (size_t i = 0; i < g->nh; i++)
		emit_host(g, &g->h[i]);
	for (size_t i = 0; i < g->nd; i++)
		emit_device(g, &g->d[i]);
}

static void device_properties(gen *g)
{
	wbuf *w = g->w;
	const gpu_props *p = props_for(g->o->gpu);
	int64_t n = g->o->ranks > 1 ? (g->o->ranks < 8 ? g->o->ranks : 8) : 1;
	char line[512];
	W_LIT(w, "  \"deviceProperties\": [\n");
	for (int64_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line),
		         "    {\n      \"id\": %lld, \"name\": ", (long long)i);
		w_str(w, line);
		w_str(w, g->m->gpu_name);
		snprintf(line, sizeof(line),
		         ", \"totalGlobalMem\": %lld,\n      \"computeMajor\": %d, \"computeMinor\": %d,\n"
		         "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
		         "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
		         "      \"sharedMemPerBlock\": 49152, \"numSms\": %d\n"
		         "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": %d, "
		         "\"sharedMemPerMultiprocessor\": %d\n    }%s\n",
		         p->mem, p->major, p->minor, p->sms, p->smem_optin, p->smem_sm, i + 1 < n ? "," : "");
		w_str(w, line);
	}
	W_LIT(w, "  ],\n");
}

static void distributed_info(gen *g)
{
	wbuf *w = g->w;
	const gen_opts *o = g->o;
	W_LIT(w, "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
	w_i64(w, o->rank);
	W_LIT(w, ", \"world_size\": ");
	w_i64(w, o->ranks);
	W_LIT(w, ", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
	         "\"backend_config\": \"cuda:nccl\", \"pg_size\": ");
	w_i64(w, o->ranks);
	W_LIT(w, ", \"ranks\": [");
	for (int64_t i = 0; i < o->ranks; i++) {
		if (i)
			W_LIT(w, ", ");
		w_i64(w, i);
	}
	W_LIT(w, "]}], \"nccl_version\": \"2.21.5\"},\n");
}

void emit_header(gen *g)
{
	wbuf *w = g->w;
	const gen_opts *o = g->o;
	W_LIT(w, "\n{\n  \"schemaVersion\": 1,\n");
	device_properties(g);
	W_LIT(w, "  \"cupti_version\": 24,\n  \"cuda_runtime_version\": ");
	w_i64(w, o->cuda);
	W_LIT(w, ",\n  \"cuda_driver_version\": ");
	w_i64(w, o->driver);
	W_LIT(w, ",\n");
	if (o->ranks > 1)
		distributed_info(g);
	W_LIT(w, "  \"record_shapes\": 1,\n  \"with_stack\": ");
	w_i64(w, o->python);
	char id[40];
	snprintf(id, sizeof(id), "%016llX%016llX", (unsigned long long)hash64(o->seed, 7, (uint64_t)o->rank, 0),
	         (unsigned long long)hash64(o->seed, 8, (uint64_t)o->rank, 0));
	W_LIT(w, ",\n  \"trace_id\": \"");
	w_str(w, id);
	W_LIT(w, "\",\n  \"traceEvents\": [");
	g->first_event = 1;
}

/* A metadata event ("ph": "M") with one argument. */
static void meta(gen *g, const char *name, int64_t pid, int64_t tid, const char *key, const char *value)
{
	wbuf *w = g->w;
	ev_open(g);
	W_LIT(w, "    \"name\": \"");
	w_str(w, name);
	W_LIT(w, "\", \"ph\": \"M\", \"ts\": ");
	w_us(w, g->t0);
	W_LIT(w, ", \"pid\": ");
	w_i64(w, pid);
	W_LIT(w, ", \"tid\": ");
	w_i64(w, tid);
	W_LIT(w, ",\n    \"args\": {\n      \"");
	w_str(w, key);
	W_LIT(w, "\": ");
	w_str(w, value);
	W_LIT(w, "\n    }");
	ev_close(g);
}

static void metadata(gen *g)
{
	char v[64];
	meta(g, "process_name", g->pid, 0, "name", "\"python3\"");
	meta(g, "process_labels", g->pid, 0, "labels", "\"CPU\"");
	snprintf(v, sizeof(v), "%lld", (long long)g->pid);
	meta(g, "process_sort_index", g->pid, 0, "sort_index", v);
	meta(g, "process_name", g->device, 0, "name", "\"python3\"");
	snprintf(v, sizeof(v), "\"GPU %lld\"", (long long)g->device);
	meta(g, "process_labels", g->device, 0, "labels", v);
	snprintf(v, sizeof(v), "%lld", (long long)(5000000 + g->device));
	meta(g, "process_sort_index", g->device, 0, "sort_index", v);
	int streams[2] = {STREAM_COMPUTE, STREAM_COMM};
	for (int i = 0; i < (g->o->ranks > 1 ? 2 : 1); i++) {
		snprintf(v, sizeof(v), "\"stream %d \"", streams[i]);
		meta(g, "thread_name", g->device, streams[i], "name", v);
		snprintf(v, sizeof(v), "%d", streams[i]);
		meta(g, "thread_sort_index", g->device, streams[i], "sort_index", v);
	}
	for (int i = 0; i < (g->o->train ? 2 : 1); i++) {
		snprintf(v, sizeof(v), "\"thread %lld (python3)\"", (long long)g->tid[i]);
		meta(g, "thread_name", g->pid, g->tid[i], "name", v);
		snprintf(v, sizeof(v), "%lld", (long long)g->tid[i]);
		meta(g, "thread_sort_index", g->pid, g->tid[i], "sort_index", v);
	}
}

void emit_trailer(gen *g)
{
	wbuf *w = g->w;
	int64_t start = g->t0 - 120000, stop = g->t_end + 40000;
	if (g->o->python) { /* the script's frame holds every step */
		hev root = {.cat = H_PYTHON, .name = "\"train.py(52): <module>\"", .ts = g->t0 - 60000,
		            .dur = g->t_end + 20000 - (g->t0 - 60000), .seq = -1, .fwd_tid = -1,
		            .py_id = g->py_root, .py_parent = -1, .py_module = -1, .ev_idx = g->ev_idx++};
		emit_host(g, &root);
	}
	metadata(g);
	/* the profiler's own span; Kineto writes its pid and tid as strings */
	ev_open(g);
	W_LIT(w, "    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
	w_us(w, start);
	W_LIT(w, ", \"dur\": ");
	w_us(w, stop - start);
	W_LIT(w, ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n"
	         "    \"name\": \"PyTorch Profiler (0)\",\n    \"args\": {\n      \"Op count\": 0\n    }");
	ev_close(g);
	ev_open(g);
	W_LIT(w, "    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
	         "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
	w_us(w, start);
	ev_close(g);
	ev_open(g);
	W_LIT(w, "    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
	w_us(w, stop + 1000);
	ev_close(g);
	W_LIT(w, "\n  ],\n  \"traceName\": \"tg-gen_rank");
	w_i64(w, g->o->rank);
	W_LIT(w, ".pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": " BASE_TIME_NS "\n}\n");
}
