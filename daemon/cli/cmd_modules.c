/*
 * cmd_modules.c - `tracegate modules TRACE`: GPU time per nn.Module, as an
 * indented tree (one row per module path, calls merged).
 */
#include "../../core/modules.h"
#include "cli.h"
#include "commands.h"

#include <string.h>

static const char usage[] =
	"usage: tracegate modules TRACE [--min-percent P] [limits]\n"
	"\n"
	"Prints the nn.Module view of TRACE: for each module path (the chain of\n"
	"nn.Module python functions from the root; calls of the same path merged)\n"
	"the GPU time of the kernels it launched (overlaps counted once), its share\n"
	"of the GPU busy time, the part not under a child module (self), calls and\n"
	"device events. Needs a trace recorded with with_stack/with_modules\n"
	"(python_function events named 'nn.Module: ...').\n"
	"\n"
	"  --min-percent P  hide modules under P %% of GPU busy time (default 0)\n"
	"\n";

int tg_cmd_modules(int argc, char **argv)
{
	tg_read_opts opts = {0};
	const char *path = NULL;
	double min_pct = 0;
	for (int i = 1; i < argc; i++) {
		int r = tg_cli_limit_option(&opts, argc, argv, &i);
		if (r < 0)
			return TG_EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf(usage);
			fputs(tg_cli_limits_help, stdout);
			return TG_EXIT_OK;
		} else if (!strcmp(argv[i], "--min-percent") && i + 1 < argc) {
			char *end;
			min_pct = strtod(argv[++i], &end);
			if (*end || min_pct < 0 || min_pct > 100) {
				tg_cli_error("--min-percent needs a number from 0 to 100");
				return TG_EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--depth") || !strcmp(argv[i], "--match") ||
		           !strcmp(argv[i], "--min-percent")) {
			tg_cli_error("%s needs a value", argv[i]);
			return TG_EXIT_USAGE;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			tg_cli_error("modules: unknown option %s (see tracegate modules --help)", argv[i]);
			return TG_EXIT_USAGE;
		} else if (!path) {
			path = argv[i];
		} else {
			tg_cli_error("modules: one TRACE only (see tracegate modules --help)");
			return TG_EXIT_USAGE;
		}
	}
	if (!path) {
		fprintf(stderr, usage);
		return TG_EXIT_USAGE;
	}
	tg_trace *t;
	tg_tree *tree;
	tg_modules *m;
	if (tg_cli_load(&t, &tree, path, &opts))
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
