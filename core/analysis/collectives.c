/*
 * collectives.c - the collective kernels of one trace (collectives.h, after
 * TraceLens's NcclAnalyser): each NCCL/RCCL kernel with its collective's
 * metadata (kind, process group, sizes, dtype, index in its group), and the
 * tables of dtype sizes, collective kinds and bus bandwidth factors. The
 * tables over several ranks are collectives_rank.c's (one rank at a time)
 * and collectives_sync.c's (matched across ranks), over the records
 * collectives_gather.c collects.
 */
#include "describe.h"
#include "collectives.h"
#include "../trace/kernel_class.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- metadata of one trace -------------------------------------------- */

struct dtype_size {
	const char *name;
	int bytes;
};

static const struct dtype_size dtype_sizes[] = {
	{"Float", 4}, {"Int", 4},    {"Long", 8},   {"BFloat16", 2}, {"Bool", 1},
	{"Byte", 1},  {"Double", 8}, {"Half", 2},   {"Short", 2},
};

int tg_collectives_dtype_bytes(const char *dtype)
{
	if (!dtype)
		return 0;
	for (size_t i = 0; i < sizeof(dtype_sizes) / sizeof(dtype_sizes[0]); i++)
		if (!strcmp(dtype, dtype_sizes[i].name))
			return dtype_sizes[i].bytes;
	return 0;
}

struct kind_name {
	const char *name, *kind;
};

static const struct kind_name kind_names[] = {
	{"allreduce", "allreduce"},
	{"allreduce_coalesced", "allreduce"},
	{"reducescatter", "reducescatter"},
	{"_reduce_scatter_base", "reducescatter"},
	{"reduce_scatter_tensor_coalesced", "reducescatter"},
	{"allgather", "allgather"},
	{"all_gather", "allgather"},
	{"_allgather_base", "allgather"},
	{"all_gather_into_tensor_coalesced", "allgather"},
	{"allgather_into_tensor_coalesced", "allgather"},
	{"all_to_all", "alltoall"},
	{"all_to_allv", "alltoallv"},
};

const char *tg_collectives_kind(const char *collective)
{
	if (!collective)
		return NULL;
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(collective, kind_names[i].name))
			return kind_names[i].kind;
	return NULL;
}

double tg_collectives_bus_factor(const char *collective, int64_t n)
{
	const char *k = tg_collectives_kind(collective);
	if (!k || n < 1)
		return NAN;
	double d = (double)n;
	if (!strcmp(k, "allreduce"))
		return 2.0 * (d - 1) / d;
	if (!strcmp(k, "alltoallv"))
		return NAN;
	return (d - 1) / d;
}

/* Case-insensitive substring test (names are ASCII). */
static int contains_ci(const char *s, const char *sub)
{
	size_t m = strlen(sub);
	for (; *s; s++)
		if (!strncasecmp(s, sub, m))
			return 1;
	return 0;
}

/* A collective library's mark in a kernel name (TraceLens: nccl, rccl and
 * custom patterns; plus hccl and PyTorch's symmetric-memory all-reduce). */
static int has_marker(const char *name)
{
	static const char *const marks[] = {"nccl", "rccl", "hccl", "cross_device_reduce",
	                                    "multimem_all_reduce"};
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (contains_ci(name, marks[i]))
			return 1;
	return 0;
}

/* Argument keys of one trace, looked up once. */
struct keys {
	uint32_t coll, dtype, in_n, out_n, gsize, pg_name, pg_desc, pg_ranks, in_split, out_split;
};

static void keys_init(struct keys *k, const tg_trace *t)
{
	k->coll = tg_trace_key(t, "Collective name");
	k->dtype = tg_trace_key(t, "dtype");
	k->in_n = tg_trace_key(t, "In msg nelems");
	k->out_n = tg_trace_key(t, "Out msg nelems");
	k->gsize = tg_trace_key(t, "Group size");
	k->pg_name = tg_trace_key(t, "Process Group Name");
	k->pg_desc = tg_trace_key(t, "Process Group Description");
	k->pg_ranks = tg_trace_key(t, "Process Group Ranks");
	k->in_split = tg_trace_key(t, "In split size");
	k->out_split = tg_trace_key(t, "Out split size");
}

/* A string (or JSON-text) argument, else NULL. */
static const char *arg_str(const tg_trace *t, const tg_event *e, uint32_t key)
{
	if (key == TG_NONE)
		return NULL;
	const tg_arg *a = tg_event_arg(t, e, key);
	if (!a || (a->type != TG_ARG_STR && a->type != TG_ARG_RAW))
		return NULL;
	return tg_trace_str(t, a->v.atom);
}

static int64_t arg_count(const tg_trace *t, const tg_event *e, uint32_t key)
{
	int64_t v;
	if (key == TG_NONE || tg_arg_int(t, tg_event_arg(t, e, key), &v) || v < 0)
		return -1;
	return v;
}

static int cmp_coll_ts(const void *a, const void *b)
{
	const tg_collective *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->event > y->event) - (x->event < y->event);
}

int tg_collectives_list(tg_collective **out, size_t *n, const tg_trace *t)
{
	*out = NULL;
	*n = 0;
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	struct keys k;
	keys_init(&k, t);
	tg_collective *v = NULL;
	size_t cap = 0, len = 0;
	for (size_t i = 0; i < ne; i++) {
		const tg_event *e = &ev[i];
		if (e->kind != TG_KIND_KERNEL || !(e->flags & (TG_EV_HAS_CORR | TG_EV_HAS_EXT)))
			continue;
		const char *name = tg_trace_str(t, e->name);
		if (tg_kernel_class_of(t, e) != TG_KERNEL_COMMUNICATION)
			continue;
		/* HTA's class also takes any name starting with "hip": keep
		 * those only when they carry a collective name */
		if (!has_marker(name) && (k.coll == TG_NONE || !tg_event_arg(t, e, k.coll)))
			continue;
		if (tg_grow((void **)&v, &cap, len + 1, sizeof(*v))) {
			free(v);
			return tg_error_set(TG_ENOMEM, "out of memory");
		}
		tg_collective *c = &v[len++];
		memset(c, 0, sizeof(*c));
		c->event = (uint32_t)i;
		c->ts = e->ts;
		c->dur = tg_event_dur(t, e);
		c->stream = tg_kernel_stream(t, e);
		c->kernel = name;
		c->collective = arg_str(t, e, k.coll);
		if (!c->collective &&
		    (contains_ci(name, "cross_device_reduce") || contains_ci(name, "multimem_all_reduce")))
			c->collective = "allreduce";
		c->dtype = arg_str(t, e, k.dtype);
		c->pg_name = arg_str(t, e, k.pg_name);
		c->pg_desc = arg_str(t, e, k.pg_desc);
		c->pg_ranks = arg_str(t, e, k.pg_ranks);
		c->in_split = arg_str(t, e, k.in_split);
		c->out_split = arg_str(t, e, k.out_split);
		c->in_nelems = arg_count(t, e, k.in_n);
		c->out_nelems = arg_count(t, e, k.out_n);
		c->group_size = arg_count(t, e, k.gsize);
		int bpe = tg_collectives_dtype_bytes(c->dtype);
		c->in_mb = bpe && c->in_nelems >= 0 ? (double)c->in_nelems * bpe / 1048576.0 : NAN;
		c->out_mb = bpe && c->out_nelems >= 0 ? (double)c->out_nelems * bpe / 1048576.0 : NAN;
	}
	if (len > 1)
		qsort(v, len, sizeof(*v), cmp_coll_ts);
	*out = v;
	*n = len;
	return 0;
}
