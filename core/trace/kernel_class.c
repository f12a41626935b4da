/* kernel_class.c - HTA's kernel types (rules in kernel_class.h), and the stream and device
 * of a device event. Needs the trace only, never the tree. */
#include "kernel_class.h"

#include <string.h>

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* 1 if s starts with word (lower case) in any case. */
static int at_ci(const char *s, const char *word)
{
	for (; *word; s++, word++)
		if (lower((unsigned char)*s) != *word)
			return 0;
	return 1;
}

/* One pass: "nccl", "rccl", "cross_device_reduce" or "multimem_all_reduce"
 * anywhere, in any case. */
static int has_comm_word(const char *s)
{
	for (; *s; s++) {
		switch (lower((unsigned char)*s)) {
		case 'n':
			if (at_ci(s, "nccl"))
				return 1;
			break;
		case 'r':
			if (at_ci(s, "rccl"))
				return 1;
			break;
		case 'c':
			if (at_ci(s, "cross_device_reduce"))
				return 1;
			break;
		case 'm':
			if (at_ci(s, "multimem_all_reduce"))
				return 1;
			break;
		default: break;
		}
	}
	return 0;
}

static int is_communication(const char *name)
{
	/* HTA: (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*); "nccl" anywhere in
	 * any case covers ^nccl and ncclKernel */
	return starts(name, "hip") || starts(name, "hccl") || has_comm_word(name);
}

static int is_memory_name(const char *name)
{
	/* HTA: (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma) */
	return starts(name, "Memcpy") || starts(name, "Memset") || starts(name, "hipMemcpy") ||
	       starts(name, "hipMemset") || starts(name, "dma");
}

/* HTA's list of names that are not computation (get_kernel_type's third
 * regex, anchored at the start as re.match is). */
static int is_not_computation(const char *name)
{
	static const char *const prefixes[] = {
		"nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet", "pe_exe",
		"cpum_exe_subgraph", "hccl", "collective_subgraph_execution",
	};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (starts(name, prefixes[i]))
			return 1;
	if (strstr(name, "Memcpy") || strstr(name, "Memset") || strstr(name, "dma") ||
	    strstr(name, "Sync"))
		return 1;
	return starts(name, "cuda") && strstr(name + 4, "LaunchKernel") != NULL;
}

tg_kernel_type tg_kernel_class(const char *name, int kind)
{
	if (kind == TG_KIND_MEMCPY || kind == TG_KIND_MEMSET)
		return TG_KERNEL_MEMORY;
	if (kind == TG_KIND_SYNC)
		return TG_KERNEL_OTHER;
	if (!name)
		name = "";
	if (is_communication(name))
		return TG_KERNEL_COMMUNICATION;
	if (is_memory_name(name))
		return TG_KERNEL_MEMORY;
	if (is_not_computation(name))
		return TG_KERNEL_OTHER;
	return TG_KERNEL_COMPUTATION;
}

const char *tg_kernel_class_name(tg_kernel_type type)
{
	switch (type) {
	case TG_KERNEL_COMPUTATION: return "COMPUTATION";
	case TG_KERNEL_COMMUNICATION: return "COMMUNICATION";
	case TG_KERNEL_MEMORY: return "MEMORY";
	case TG_KERNEL_OTHER: return "OTHER";
	default: return "?";
	}
}

int64_t tg_kernel_stream(const tg_trace *t, const tg_event *e)
{
	int64_t v;
	if (tg_arg_int(t, tg_event_arg(t, e, tg_trace_key_stream(t)), &v) == 0)
		return v;
	size_t n;
	return tg_trace_tracks(t, &n)[e->track].tid;
}

int64_t tg_kernel_device(const tg_trace *t, const tg_event *e)
{
	int64_t d;
	if (!tg_arg_int(t, tg_event_arg(t, e, tg_trace_key_device(t)), &d))
		return d;
	size_t n;
	return tg_trace_tracks(t, &n)[e->track].pid;
}
