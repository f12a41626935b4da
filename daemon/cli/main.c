/*
 * main.c - the tracegate command line: dispatches to a subcommand.
 */
#include "../../core/tg.h"
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: tracegate COMMAND [ARGS]\n"
	"\n"
	"A performance regression gate for GPU workloads: reads PyTorch profiler\n"
	"traces (Kineto / Chrome-trace JSON, plain or gzip).\n"
	"\n"
	"Commands:\n"
	"  tree TRACE [--depth N] [--match REGEX]   the event tree: python -> cpu op ->\n"
	"                                           launch -> kernels\n"
	"  modules TRACE                            GPU time per nn.Module\n"
	"  report TRACE... [--format F] [-o DIR]    the perf report: GPU timeline, kernel\n"
	"                                           time by category, op and kernel\n"
	"  critical-path TRACE [--format F]         what bounds a step: HTA's critical\n"
	"                                           path and its breakdown\n"
	"  diff BASE NEW [--rules F] [--format F]   compare two traces and judge the\n"
	"                                           difference with threshold rules\n"
	"  daemon --config FILE [--once|--check]    watch the artifact storage, judge each\n"
	"                                           new run, post the verdict to the forge\n"
	"  history --config F --repo R --branch B   a branch's performance history\n"
	"  replay TRACE --op NAME [-o DIR]          a PyTorch script per distinct call of\n"
	"                                           an op that replays and times it\n"
	"  augment TRACE -o OUT [--diff BASE]       TRACE with counter tracks and what a\n"
	"                                           diff found, for a timeline viewer\n"
	"\n"
	"  tracegate COMMAND --help    help on a command\n"
	"  tracegate --version         the version\n"
	"\n"
	"Exit codes: 0 success (diff: pass or warn), 1 diff blocked, 2 usage or input\n"
	"error (one line on stderr naming the file and, for a malformed trace, the\n"
	"byte offset), 3 diff inconclusive.\n";

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return TG_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return TG_EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("tracegate %s\n", TG_VERSION);
		return TG_EXIT_OK;
	}
	if (!strcmp(cmd, "tree"))
		return tg_cmd_tree(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return tg_cmd_diff(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return tg_cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "daemon"))
		return tg_cmd_daemon(argc - 1, argv + 1);
	if (!strcmp(cmd, "history"))
		return tg_cmd_history(argc - 1, argv + 1);
	if (!strcmp(cmd, "critical-path"))
		return tg_cmd_critical_path(argc - 1, argv + 1);
	if (!strcmp(cmd, "augment"))
		return tg_cmd_augment(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return tg_cmd_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "modules"))
		return tg_cmd_modules(argc - 1, argv + 1);
	tg_cli_error("unknown command '%s' (see tracegate --help)", cmd);
	return TG_EXIT_USAGE;
}
