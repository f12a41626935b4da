/*
 * cmd_modules.c - `tracegate modules TRACE`: GPU time per nn.Module, as an
 * indented tree (one row per module path, calls merged).
 */
#include "../core/tree/modules.h"
#include "cli.h"
#include "commands.h"

#include <stddef.h>
#include <stdlib.h>

struct modules_args {
	tg_read_opts ropts;
	char *path;
	double min_pct;
};

static int convert_percent(void *dst, char *value)
{
	char *end;
	double v = strtod(value, &end);
	if (end == value || *end || !(v >= 0 && v <= 100))
		return -1;
	*(double *)dst = v;
	return 0;
}

static const tg_opt_spec modules_opts[] = {
	{TG_OPT_ARG, "TRACE", 0, NULL, offsetof(struct modules_args, path), NULL, NULL, TG_OPT_REQUIRED, NULL, NULL},
	{TG_OPT_VALUE, "min-percent", 0, "P", offsetof(struct modules_args, min_pct), convert_percent,
	 "a number from 0 to 100", TG_OPT_IN_USAGE, "hide modules under P % of GPU busy time (default 0)", NULL},
	{TG_OPT_INCLUDE, .offset = offsetof(struct modules_args, ropts), .include = tg_cli_limit_opts},
	{.kind = TG_OPT_END},
};

const tg_opt_command tg_cmd_modules_opts = {
	"modules", NULL,
	"Prints the nn.Module view of TRACE: for each module path (the chain of nn.Module python functions from the "
	"root; calls of the same path merged) the GPU time of the kernels it launched (overlaps counted once), its "
	"share of the GPU busy time, the part not under a child module (self), calls and device events. Needs a "
	"trace recorded with with_stack/with_modules (python_function events named 'nn.Module: ...').",
	NULL, modules_opts};

int tg_cmd_modules(int argc, char **argv)
{
	struct modules_args a = {0};
	int exit_code;
	if (tg_opt_parse_cli(&exit_code, &tg_cmd_modules_opts, &a, argc, argv))
		return exit_code;
	const char *path = a.path;
	double min_pct = a.min_pct;
	tg_trace *t;
	tg_tree *tree;
	tg_modules *m;
	if (tg_cli_load(&t, &tree, path, &a.ropts))
		return TG_EXIT_USAGE;
	if (tg_modules_build(&m, tree)) {
		tg_cli_error("%s: %s", path, tg_error_last());
		tg_tree_free(tree);
		tg_trace_free(t);
		return TG_EXIT_USAGE;
	}
	size_t n;
	const tg_module_row *rows = tg_modules_rows(m, &n);
	int64_t busy = tg_modules_gpu_busy_ns(m);
	printf("nn.Module view of ");
	tg_cli_put_name(stdout, path);
	printf(": %zu module paths, GPU busy %.3f ms\n", n, (double)busy / 1e6);
	if (!n) {
		printf("(no 'nn.Module: ...' python_function events: record the trace with "
		       "with_stack=True and with_modules=True)\n");
	} else {
		printf("%12s %7s %12s %7s %8s  %s\n", "GPU ms", "%busy", "self ms", "calls", "events",
		       "module");
		for (size_t i = 0; i < n; i++) {
			double pct = busy ? 100.0 * (double)rows[i].gpu_ns / (double)busy : 0;
			if (pct < min_pct)
				continue;
			printf("%12.3f %6.2f%% %12.3f %7llu %8llu  ", (double)rows[i].gpu_ns / 1e6, pct,
			       (double)rows[i].self_gpu_ns / 1e6, (unsigned long long)rows[i].calls,
			       (unsigned long long)rows[i].gpu_events);
			for (uint32_t d = 0; d < rows[i].depth; d++)
				fputs("  ", stdout);
			const char *name = tg_trace_str(t, rows[i].name);
			tg_cli_put_name(stdout, name + (tg_module_name_is_module(name) ? 11 : 0));
			putchar('\n');
		}
	}
	tg_modules_free(m);
	tg_tree_free(tree);
	tg_trace_free(t);
	return TG_EXIT_OK;
}
