/* trace.c - accessors of the trace model and its metadata (trace.h). It calls
 * nothing of the analyses: the per-name flags it hands out are computed by
 * trace_names.c when the trace is read. */
#include "trace_impl.h"
#include "../../util/big.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TG_KIND_COUNT] = {
	[TG_KIND_OTHER] = "other",
	[TG_KIND_PYTHON] = "python",
	[TG_KIND_CPU_OP] = "cpu",
	[TG_KIND_USER_ANNOTATION] = "user_annotation",
	[TG_KIND_RUNTIME] = "cuda_runtime",
	[TG_KIND_DRIVER] = "cuda_driver",
	[TG_KIND_KERNEL] = "kernel",
	[TG_KIND_MEMCPY] = "gpu_memcpy",
	[TG_KIND_MEMSET] = "gpu_memset",
	[TG_KIND_GPU_ANNOTATION] = "gpu_user_annotation",
	[TG_KIND_SYNC] = "cuda_sync",
	[TG_KIND_INSTANT] = "instant",
	[TG_KIND_TRACE_SPAN] = "trace",
	[TG_KIND_PROFILER_RANGE] = "profiler_range",
	[TG_KIND_OVERHEAD] = "overhead",
};

const char *tg_kind_name(tg_kind k)
{
	return (unsigned)k < TG_KIND_COUNT ? kind_names[k] : "?";
}

void tg_trace_free(tg_trace *t)
{
	if (t)
		free(t->name_flags);
	if (!t)
		return;
	free(t->name);
	tg_atoms_free(t->atoms);
	tg_big_free(t->events);
	tg_big_free(t->id1s);
	free(t->wide_ids);
	free(t->wide_durs);
	tg_big_free(t->args);
	free(t->tracks);
	tg_big_free(t->flows);
	free(t->wide_flow_ids);
	free(t->devices);
	free(t->pnames);
	if (t->meta)
		json_decref(t->meta);
	free(t);
}

const tg_event *tg_trace_events(const tg_trace *t, size_t *n)
{
	*n = t->nevents;
	return t->events;
}

uint32_t tg_trace_id1_field(const tg_trace *t, const tg_event *e)
{
	if (t->id1s_dropped) { /* a caller's bug, never the input's */
		fprintf(stderr, "tracegate: internal error: an event's second id read after tg_trace_drop_id1s\n");
		abort();
	}
	return t->id1s[e - t->events];
}

int tg_trace_has_id1s(const tg_trace *t)
{
	return !t->id1s_dropped;
}

void tg_trace_drop_id1s(tg_trace *t)
{
	tg_big_free(t->id1s);
	t->id1s = NULL;
	t->id1s_cap = 0;
	t->id1s_dropped = 1;
}

const tg_arg *tg_trace_args(const tg_trace *t, size_t *n)
{
	*n = t->nargs;
	return t->args;
}

const tg_track *tg_trace_tracks(const tg_trace *t, size_t *n)
{
	*n = t->ntracks;
	return t->tracks;
}

const tg_flow *tg_trace_flows(const tg_trace *t, size_t *n)
{
	*n = t->nflows;
	return t->flows;
}

const uint64_t *tg_trace_wide_flow_ids(const tg_trace *t, size_t *n)
{
	*n = t->nwide_flow_ids;
	return t->wide_flow_ids;
}

const tg_device *tg_trace_devices(const tg_trace *t, size_t *n)
{
	*n = t->ndevices;
	return t->devices;
}

const tg_trace_stats *tg_trace_stats_get(const tg_trace *t) { return &t->stats; }

const tg_atoms *tg_trace_atoms(const tg_trace *t) { return t->atoms; }

const char *tg_trace_name(const tg_trace *t) { return t->name; }

const char *tg_trace_str(const tg_trace *t, uint32_t atom) { return tg_atoms_str(t->atoms, atom); }

const json_t *tg_trace_meta(const tg_trace *t) { return t->meta; }

int64_t tg_trace_rank(const tg_trace *t) { return t->rank; }

int64_t tg_trace_world_size(const tg_trace *t) { return t->world_size; }

const char *tg_trace_process_name(const tg_trace *t, int64_t pid)
{
	for (size_t i = 0; i < t->npnames; i++)
		if (t->pnames[i].pid == pid && t->pnames[i].name != TG_NONE)
			return tg_atoms_str(t->atoms, t->pnames[i].name);
	return NULL;
}

const char *tg_trace_process_labels(const tg_trace *t, int64_t pid)
{
	for (size_t i = 0; i < t->npnames; i++)
		if (t->pnames[i].pid == pid && t->pnames[i].labels != TG_NONE)
			return tg_atoms_str(t->atoms, t->pnames[i].labels);
	return NULL;
}

uint32_t tg_trace_key(const tg_trace *t, const char *key)
{
	return tg_atoms_find(t->atoms, key, strlen(key));
}

uint32_t tg_trace_key_stream(const tg_trace *t)
{
	return t->key_stream;
}

uint32_t tg_trace_key_device(const tg_trace *t)
{
	return t->key_device;
}

const tg_arg *tg_event_arg(const tg_trace *t, const tg_event *e, uint32_t key_atom)
{
	if (key_atom == TG_NONE || e->args == TG_NONE)
		return NULL;
	for (const tg_arg *a = t->args + e->args;; a++) {
		if (a->key == key_atom)
			return a;
		if (a->last)
			return NULL;
	}
}

size_t tg_event_nargs(const tg_trace *t, const tg_event *e)
{
	if (e->args == TG_NONE)
		return 0;
	size_t n = 1;
	for (const tg_arg *a = t->args + e->args; !a->last; a++)
		n++;
	return n;
}

int tg_arg_int(const tg_trace *t, const tg_arg *a, int64_t *out)
{
	*out = 0;
	if (!a)
		return -1;
	switch (a->type) {
	case TG_ARG_INT:
	case TG_ARG_UINT:
		*out = a->v.i;
		return 0;
	case TG_ARG_BOOL:
		*out = a->v.b;
		return 0;
	case TG_ARG_DOUBLE:
		if (!(a->v.d >= -9.2e18 && a->v.d <= 9.2e18)) /* also false for NaN */
			return -1;
		*out = (int64_t)a->v.d;
		return 0;
	case TG_ARG_STR: {
		const char *s = tg_atoms_str(t->atoms, a->v.atom);
		char *end;
		long long v = strtoll(s, &end, 0);
		if (end == s || *end)
			return -1;
		*out = v;
		return 0;
	}
	default:
		return -1;
	}
}

size_t tg_trace_memory(const tg_trace *t)
{
	return t->events_cap * sizeof(tg_event) + t->id1s_cap * sizeof(uint32_t) + t->args_cap * sizeof(tg_arg) +
	       t->tracks_cap * sizeof(tg_track) + t->flows_cap * sizeof(tg_flow) +
	       t->wide_flow_ids_cap * sizeof(uint64_t) +
	       (t->wide_ids_cap + t->wide_durs_cap) * sizeof(int64_t) + tg_atoms_bytes(t->atoms);
}

const int64_t *tg_trace_wide_ids(const tg_trace *t, size_t *n)
{
	*n = t->nwide_ids;
	return t->wide_ids;
}

const int64_t *tg_trace_wide_durs(const tg_trace *t, size_t *n)
{
	*n = t->nwide_durs;
	return t->wide_durs;
}

static int64_t json_int_or(const json_t *o, const char *key, int64_t dflt)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v)) {
		double d = json_real_value(v);
		return d >= -9.2e18 && d <= 9.2e18 ? (int64_t)d : dflt;
	}
	if (json_is_string(v)) {
		char *end;
		const char *s = json_string_value(v);
		long long x = strtoll(s, &end, 10);
		if (end != s && !*end)
			return x;
	}
	return dflt;
}

void tg_trace_drop_flows(tg_trace *t)
{
	tg_big_free(t->flows);
	free(t->wide_flow_ids);
	t->flows = NULL;
	t->wide_flow_ids = NULL;
	t->nflows = t->flows_cap = 0;
	t->nwide_flow_ids = t->wide_flow_ids_cap = 0;
}

int tg_trace_finish_meta(tg_trace *t)
{
	const json_t *dist = json_object_get(t->meta, "distributedInfo");
	t->rank = json_is_object(dist) ? json_int_or(dist, "rank", -1) : -1;
	t->world_size = json_is_object(dist) ? json_int_or(dist, "world_size", -1) : -1;

	const json_t *props = json_object_get(t->meta, "deviceProperties");
	if (!json_is_array(props))
		props = json_object_get(t->meta, "computeProperties"); /* 2021 tb_plugin tests */
	if (!json_is_array(props) || json_array_size(props) == 0)
		return 0;
	size_t n = json_array_size(props);
	t->devices = tg_calloc(n, sizeof(tg_device));
	if (!t->devices)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const json_t *d = json_array_get(props, i);
		if (!json_is_object(d))
			continue;
		tg_device *dev = &t->devices[t->ndevices++];
		dev->id = json_int_or(d, "id", (int64_t)i);
		const json_t *name = json_object_get(d, "name");
		const char *s = json_is_string(name) ? json_string_value(name) : "";
		if (tg_atoms_intern(&dev->name, t->atoms, s, strlen(s)))
			return TG_ENOMEM;
		dev->total_memory = json_int_or(d, "totalGlobalMem", 0);
		dev->compute_major = (int)json_int_or(d, "computeMajor", 0);
		dev->compute_minor = (int)json_int_or(d, "computeMinor", 0);
		dev->num_sms = (int)json_int_or(d, "numSms", 0);
	}
	return 0;
}
