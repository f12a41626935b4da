/*
 * cmd_critical_path.c - `tracegate critical-path TRACE [--format
 * text|json|html] [-o FILE] [--annotation TEXT] [--instance N|N:M]
 * [--step N] [--zero-weight-launch-edges] [--exact-ns] [--data-load TEXT]
 * [--top N]`: HTA's critical path of one rank's trace (core/analysis/critical_path.h,
 * docs/critical-path.md).
 */
#include "../render/critical_path_render.h"
#include "cli.h"
#include "commands.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum format { FMT_TEXT, FMT_JSON, FMT_HTML };

struct cp_args {
	tg_read_opts ropts;
	char *path, *out, *annotation;
	enum format fmt;
	int64_t first, last; /* --instance; first -1: not given */
	int64_t step;        /* --step; -1: not given */
	int zero_launch, exact_ns;
	tg_opt_list data_load;
	int64_t top;
};

static int convert_format(void *dst, char *value)
{
	static const char *const names[] = {"text", "json", "html"};
	for (int k = 0; k < 3; k++)
		if (!strcmp(value, names[k])) {
			*(enum format *)dst = (enum format)k;
			return 0;
		}
	return -1;
}

static int parse_count(const char *s, const char **end, int64_t *v)
{
	char *e;
	if (*s < '0' || *s > '9')
		return -1;
	long long x = strtoll(s, &e, 10);
	*end = e;
	*v = x;
	return x < 0 || x > INT32_MAX ? -1 : 0;
}

/* N or N:M into the two int64 at dst (first, last). */
static int convert_instance(void *dst, char *value)
{
	int64_t *fl = dst, a, b;
	const char *end;
	if (parse_count(value, &end, &a))
		return -1;
	b = a;
	if (*end == ':' && parse_count(end + 1, &end, &b))
		return -1;
	if (*end || b < a)
		return -1;
	fl[0] = a;
	fl[1] = b;
	return 0;
}

static int convert_count(void *dst, char *value)
{
	const char *end;
	int64_t v;
	if (parse_count(value, &end, &v) || *end)
		return -1;
	*(int64_t *)dst = v;
	return 0;
}

static const tg_opt_spec cp_opts[] = {
	{TG_OPT_ARG, "TRACE", 0, NULL, offsetof(struct cp_args, path), NULL, NULL, TG_OPT_REQUIRED, NULL, NULL},
	{TG_OPT_VALUE, "format", 0, "text|json|html", offsetof(struct cp_args, fmt), convert_format,
         "one of text, json, html", TG_OPT_IN_USAGE,
         "text (default), json (every edge of the path) or html (one page: the breakdown, the path on a timeline, "
         "the ops on it)",
         NULL},
	{TG_OPT_VALUE, NULL, 'o', "FILE", offsetof(struct cp_args, out), NULL, NULL, TG_OPT_IN_USAGE,
         "write there (complete or not at all) instead of stdout", NULL},
	{TG_OPT_VALUE, "annotation", 0, "TEXT", offsetof(struct cp_args, annotation), NULL, NULL, 0,
         "HTA's annotation: the window runs from the first instance's start to the last one's end, instances being "
         "the events whose name contains TEXT; \"\" is the whole trace. Default: ProfilerStep when the trace has "
         "steps (every step HTA keeps: it leaves out the last one), else the whole trace",
         NULL},
	{TG_OPT_VALUE, "instance", 0, "N|N:M", offsetof(struct cp_args, first), convert_instance,
         "N or N:M (0-based, M >= N)", 0,
         "HTA's instance_id: the Nth instance of the annotation, or N to M inclusive (default: all of them)", NULL},
	{TG_OPT_VALUE, "step", 0, "N", offsetof(struct cp_args, step), convert_count, "a step number", 0,
         "only ProfilerStep#N (the event of that exact name)", NULL},
	{TG_OPT_SWITCH, "zero-weight-launch-edges", 0, NULL, offsetof(struct cp_args, zero_launch), NULL, NULL, 0,
         "HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1 (its unit tests' setting): every kernel keeps an edge "
         "from its launch, of weight 0 where the launch delay is not on the path",
         NULL},
	{TG_OPT_SWITCH, "exact-ns", 0, NULL, offsetof(struct cp_args, exact_ns), NULL, NULL, 0,
         "the trace's nanoseconds (HTA_DISABLE_NS_ROUNDING=1); default: times rounded to microseconds as HTA does",
         NULL},
	{TG_OPT_LIST, "data-load", 0, "TEXT", offsetof(struct cp_args, data_load), NULL, NULL, 0,
         "HTA's data_load_events: CPU time in events whose name contains TEXT is data_loading (repeatable)", NULL},
	{TG_OPT_VALUE, "top", 0, "N", offsetof(struct cp_args, top), convert_count, "a count", 0,
         "ops on the path listed (default 20; json and html too)", NULL},
	{TG_OPT_INCLUDE, .offset = offsetof(struct cp_args, ropts), .include = tg_cli_limit_opts},
	{.kind = TG_OPT_END},
};

const tg_opt_command tg_cmd_critical_path_opts = {
	"critical-path", NULL,
	"The critical path of TRACE (one rank) as Holistic Trace Analysis computes it: the longest chain of CPU "
	"ops, launches, kernels, kernel gaps and synchronisations, its length, and its time by what bounds it "
	"(cpu_bound, gpu_compute_bound, gpu_communication_bound, gpu_kernel_launch_overhead, "
	"gpu_kernel_kernel_overhead, data_loading), with the ops it runs through. docs/critical-path.md says how "
	"the graph is built.",
	NULL, cp_opts};

/* The options for the core from the command line; name receives the
 * --step annotation. */
static void opts_from(tg_cp_opts *o, const struct cp_args *a, char *name, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->zero_weight_launch = a->zero_launch;
	o->exact_ns = a->exact_ns;
	o->data_load = (const char *const *)a->data_load.v;
	o->ndata_load = a->data_load.n;
	/* the heap policy between the graph and the path's steps: the graph's
	 * pages given back (tg_cli_trim_heap) before the steps (32 bytes a node
	 * of the path) are made; freed in the heap's middle they stayed
	 * resident beside them (100 MB trace: peak RSS 34.3 -> 30.9 MB) */
	o->graph_freed = tg_cli_trim_heap;
	o->annotation = a->annotation;
	o->all_instances = a->first < 0;
	o->first = a->first < 0 ? 0 : a->first;
	o->last = a->first < 0 ? 0 : a->last;
	if (a->step >= 0) {
		snprintf(name, cap, "ProfilerStep#%" PRId64, a->step);
		o->annotation = name;
		o->annotation_exact = 1;
		o->all_instances = 1;
	}
}

struct render_job {
	const tg_critical_path *cp;
	const struct cp_args *a;
	const tg_cp_opts *o;
};

static int render_to(FILE *f, void *arg)
{
	const struct render_job *j = arg;
	size_t top = (size_t)j->a->top;
	return j->a->fmt == FMT_JSON   ? tg_cp_write_json(f, j->cp, j->a->path, j->o, top)
	       : j->a->fmt == FMT_HTML ? tg_cp_write_html(f, j->cp, j->a->path, j->o, top)
	                               : tg_cp_write_text(f, j->cp, j->a->path, j->o, top);
}

/* The document to -o FILE or stdout, whole or not at all; streamed into
 * FILE's temporary file, not held (the json of a 100 MB trace's path is
 * 46 MB: held, it doubled the command's peak). */
static int render(const tg_critical_path *cp, const struct cp_args *a, const tg_cp_opts *o)
{
	struct render_job j = {cp, a, o};
	int rc = tg_cli_stream_file(a->out, render_to, &j);
	if (rc > 0)
		tg_cli_error("critical-path: %s", tg_error_last());
	return rc ? TG_EXIT_USAGE : TG_EXIT_OK;
}

int tg_cmd_critical_path(int argc, char **argv)
{
	struct cp_args a = {.fmt = FMT_TEXT, .first = -1, .last = -1, .step = -1, .top = 20};
	int rc;
	if (tg_opt_parse_cli(&rc, &tg_cmd_critical_path_opts, &a, argc, argv))
		return rc;
	rc = TG_EXIT_USAGE;
	tg_trace *t = NULL;
	tg_tree *tree = NULL;
	tg_critical_path *cp = NULL;
	tg_cp_opts o;
	char name[64];
	opts_from(&o, &a, name, sizeof(name));
	if (a.step >= 0 && a.annotation)
		tg_cli_error("critical-path: --step and --annotation name the window twice: give one");
	else if (a.step >= 0 && a.first >= 0)
		tg_cli_error("critical-path: --step names one step: --instance does not apply");
	else if (!tg_cli_load(&t, &tree, a.path, &a.ropts)) {
		if (tg_critical_path_build(&cp, tree, &o))
			tg_cli_error("%s: %s", a.path, tg_error_last());
		else
			rc = render(cp, &a, &o);
	}
	tg_critical_path_free(cp);
	tg_tree_free(tree);
	tg_trace_free(t);
	tg_opt_free(&tg_cmd_critical_path_opts, &a);
	return rc;
}
